//! The LD/ST unit: memory instructions wait in a short queue (seed 002's "memory pipeline
//! width"); the head sends one coalesced access per cycle into the L1, so a divergent load of
//! N requests takes at least N cycles. An access the L1 refuses is replayed next cycle and
//! blocks everything behind it — memory occlusion when the cause is a lack of MSHRs
//! (seed 004 §1.3, §5.2).
//!
//! With MASCAR (seed 004 §5.5.1) a load access the L1 refuses for lack of an MSHR, merge
//! slot, line or miss-queue slot is parked in the re-execution queue instead, and the head
//! moves on (so hits behind it proceed); each cycle the oldest parked access is retried
//! first. Only when the re-execution queue is full does a refused access block the unit.

use super::coalescer::Coalesced;
use crate::sim::cache::AccessCtx;
use crate::sim::queue::BoundedQueue;
use crate::sim::request::MemRequest;
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
    /// OAWS Miss_pred charged to Miss_inflight while the instruction is in the unit.
    pub miss_pred: u16,
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
    /// L1 misses (and merges) among the head instruction's accesses so far.
    pub head_misses: u32,
    /// MASCAR's re-execution queue of refused load accesses, each with what the L1 needs to
    /// know about its load (capacity 0 when disabled).
    pub reexec: BoundedQueue<(MemRequest, AccessCtx)>,
}

impl Ldst {
    pub fn new(width: usize, shared_latency: usize, reexec: usize) -> Ldst {
        Ldst {
            queue: BoundedQueue::new(width),
            next: 0,
            started: None,
            stalled: None,
            stalled_fills: 0,
            shared: VecDeque::with_capacity(shared_latency + 1),
            head_misses: 0,
            reexec: BoundedQueue::new(reexec),
        }
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.shared.is_empty() && self.reexec.is_empty()
    }

    /// Whether refused load accesses are parked (MASCAR) rather than replayed in place.
    pub fn parks(&self) -> bool {
        self.reexec.capacity() > 0
    }
}
