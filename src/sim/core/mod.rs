//! The SM side: warps, warp schedulers, coalescer, LD/ST unit (MECHANISMS §1, §6, §9).

pub mod coalescer;
pub mod execute;
pub mod fcw;
pub mod group_tags;
pub mod issue;
pub mod ldst;
pub mod loads;
pub mod quiet;
pub mod sched;
pub mod sm;
pub mod stall;
pub mod warp;

pub use sm::Sm;
pub use stall::StallReason;
