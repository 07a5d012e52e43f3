//! The LD/ST unit: memory instructions wait in a short queue (seed 002's "memory pipeline
//! width"); the head sends one coalesced access per cycle into the L1, so a divergent load of
//! N requests takes at least N cycles. An access the L1 refuses is replayed next cycle and
//! blocks everything behind it — memory occlusion when the cause is a lack of MSHRs
//! (seed 004 §1.3, §5.2).

use super::coalescer::Coalesced;
use crate::sim::queue::BoundedQueue;
use crate::sim::stats::StallCause;
use crate::workload::instr::Space;
use std::collections::VecDeque;

/// "Not a load" in a request's load slot.
pub const NO_LOAD: u8 = u8::MAX;

/// A memory instruction handed to the LD/ST unit by the issue stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemInstr {
    pub warp: u16,
    pub pc: u32,
    pub load: bool,
    pub space: Space,
    pub width: u8,
    /// The warp's outstanding-load slot, or [`NO_LOAD`] for stores.
    pub load_slot: u8,
    pub seq: u32,
    pub issued: u64,
    pub coalesced: Coalesced,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ldst {
    pub queue: BoundedQueue<MemInstr>,
    /// Index of the head instruction's next access.
    pub next: usize,
    /// Cycle the head instruction started, if it has.
    pub started: Option<u64>,
    /// Why the head could not send an access last cycle.
    pub stalled: Option<StallCause>,
    /// The L1's fill count when it stalled.
    pub stalled_fills: u64,
    /// Shared-memory loads completing: (cycle, warp, load slot).
    pub shared: VecDeque<(u64, u16, u8)>,
}

impl Ldst {
    pub fn new(width: usize, shared_latency: usize) -> Ldst {
        Ldst {
            queue: BoundedQueue::new(width),
            next: 0,
            started: None,
            stalled: None,
            stalled_fills: 0,
            shared: VecDeque::with_capacity(shared_latency + 1),
        }
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.shared.is_empty()
    }
}
