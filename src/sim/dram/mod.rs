//! GDDR5 DRAM channels and their memory controllers (MECHANISMS §2–4).

pub mod bank;
pub mod cmd_queue;
pub mod command;
pub mod controller;
pub mod coord;
pub mod credits;
pub mod mapping;
pub mod merb;
pub mod prefetch;
pub mod queues;
pub mod sched;
pub mod timing;

pub use controller::Controller;
