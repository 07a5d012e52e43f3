//! Passes: where each request crossed from one queue or unit of the memory system to the next
//! (issue 17). A debugger that asks who delayed a load replays the stretch of history that
//! holds it with recording on, and reads from the passes what went ahead of the load's
//! requests at every queue they waited in. Recording is off otherwise: each point costs a
//! test of one flag.
//!
//! The points, in the order a load request meets them: the load's issue into the LD/ST unit,
//! the LD/ST unit's access into the L1
//! (or its first refusal), the L1 miss queue into the request network, arrival at an L2
//! slice, (with `l2.latency_queue`) its entry into the L2's latency queue and the end of that
//! latency, the L2 lookup, arrival at the memory controller, (with `dram.frontend_latency`)
//! its entry into the controller's queue after the DRAM latency queue, each DRAM command, the
//! end of its data on the DRAM bus, the L2's reply into the reply network, arrival at the SM,
//! and its data reaching the warp. Write drains and refreshes are passes with no request.

use super::dram::command::CommandKind;
use super::request::{AccessKind, MemRequest};

/// A point of a request's journey (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Point {
    /// A warp issued a global load into the LD/ST unit (unit: the core; detail: its requests;
    /// the pass's request is the load, with no id).
    Issue,
    /// The LD/ST unit made the access into the L1 (unit: the core; detail: the L1's
    /// `CacheOutcome`, or with `l1.latency_queue` `None`: it entered its bank's latency queue).
    Access,
    /// With `l1.latency_queue`, the L1 looked the access up at the head of its bank's latency
    /// queue (unit: the core; detail: the `CacheOutcome` in the low 4 bits, above them the
    /// cycles it waited past the queue's latency, at most 4095).
    L1Lookup,
    /// With `l1.latency_queue`, the L1 refused the access at the head of its bank, for the
    /// first time (unit: the core; detail: the `StallCause`).
    L1Refused,
    /// The L1 refused the LD/ST unit's head access, for the first time at this access (unit:
    /// the core; detail: the `StallCause`).
    Refused,
    /// It left the L1 miss queue into the request network (unit: the core).
    Inject,
    /// It reached an L2 slice's access queue (unit: the slice).
    L2Arrive,
    /// It left the access queue into the L2's latency queue (`l2.latency_queue`, GPGPU-Sim's
    /// ROP queue; unit: the slice).
    L2Latency,
    /// Its wait in the latency queue ran out: from now on it can be looked up, and waits only
    /// for the requests ahead of it and for the slice (unit: the slice).
    L2Ready,
    /// The L2 looked it up (unit: the slice; detail: the `CacheOutcome`).
    L2Lookup,
    /// It left its L2 slice's miss queue for the memory controller (unit: the channel;
    /// detail: the L2 slice it came from); it is then in the controller's queue, or with
    /// `dram.frontend_latency` in the DRAM latency queue in front of it.
    DramArrive,
    /// It left the DRAM latency queue (`dram.frontend_latency`) into the controller's queue
    /// (unit: the channel; detail: the core cycles it waited there past its latency, for the
    /// requests ahead of it or for room in the queue, at most `u16::MAX`).
    DramQueue,
    /// A DRAM command issued (unit: the channel; detail: the `CommandKind` and bank); a
    /// refresh has no request.
    Command,
    /// Its data finished on the DRAM bus (unit: the channel).
    DramDone,
    /// The L2 put its reply into the reply network (unit: the slice).
    Reply,
    /// Its reply reached the SM's reply queue (unit: the core).
    SmArrive,
    /// Its data reached its warp (unit: the core).
    Done,
    /// The controller started or stopped draining writes (unit: the channel; no request).
    DrainStart,
    DrainEnd,
}

/// Whose request passed: enough to tell warps and loads apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Who {
    pub id: u64,
    pub core: u16,
    pub warp: u16,
    /// The warp's load sequence number (its warp-load).
    pub seq: u32,
    /// The request's index among its load's requests.
    pub index: u8,
    pub kind: Option<AccessKind>,
}

impl Who {
    pub fn of(r: &MemRequest) -> Who {
        Who {
            id: r.id,
            core: r.origin.core,
            warp: r.origin.warp,
            seq: r.origin.load_seq,
            index: r.origin.index,
            kind: Some(r.kind),
        }
    }

    /// No request (a refresh, a drain).
    pub const NOBODY: Who = Who { id: u64::MAX, core: 0, warp: 0, seq: 0, index: 0, kind: None };

    pub fn is_request(&self) -> bool {
        self.kind.is_some()
    }
}

/// One pass: at core cycle `cycle`, `who` crossed `point` of `unit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pass {
    pub cycle: u64,
    pub point: Point,
    pub unit: u16,
    /// Point-specific: a stall cause, a cache outcome, or a DRAM command (kind << 8 | bank).
    pub detail: u16,
    pub who: Who,
}

impl Pass {
    /// The DRAM command of a `Command` pass.
    pub fn command(&self) -> Option<(CommandKind, u8)> {
        (self.point == Point::Command)
            .then(|| (CommandKind::ALL[(self.detail >> 8) as usize], (self.detail & 0xff) as u8))
    }

    /// The detail of a `Command` pass.
    pub fn command_detail(kind: CommandKind, bank: u8) -> u16 {
        (kind as u16) << 8 | u16::from(bank)
    }
}
