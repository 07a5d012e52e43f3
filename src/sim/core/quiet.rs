//! Quiet cycles: exact idle skipping for an SM (issue 16).
//!
//! On a memory-bound kernel an SM spends most cycles doing nothing but finding out again
//! that it is blocked: every warp waits on a load (or sits at a barrier, or its memory
//! instruction waits for a full LD/ST queue), the LD/ST unit's head is refused by the L1 for
//! a cause only a fill can remove, nothing returns. Such a cycle changes nothing but the
//! SM's per-cycle counters, and the next one does the same — until something reaches the SM
//! from outside (a reply, a free miss-queue slot, a CTA) or a time it knows of comes (an L1
//! hit's latency elapses, a shared-memory load completes, the zero-latency-divergence oracle
//! releases a load, a warp's ALU operands become ready).
//!
//! After a step that did nothing, the SM records a [`Quiet`]: what such a cycle counts and
//! until when it repeats. Until then its step does nothing, and the stretch is counted in one
//! go when it ends or the GPU settles its statistics (`Gpu::settle`: `run`, `step` and `leap`
//! end with it, so whoever reads the statistics between them sees every cycle counted);
//! anything from outside ends it. Why this is exact: a cycle in which no reply,
//! hit or shared load returns, the LD/ST unit only replays a refusal that cannot have changed
//! (`Ldst::replay_refusal`), and no scheduler has a warp to offer, writes nothing but the
//! counters below — the warp schedulers are not even asked, so their time-based state (GTO
//! ages, group switching, CCWS decay, MASCAR modes, OAWS counters) does not move — and its
//! stall class depends on time only through the ready times of the skipped warps, which are
//! among the wake-up times. Cycles whose events someone listens to (`MshrFull`, `WarpStall`)
//! are never skipped.

use super::stall::StallClass;
use crate::sim::event::{EventKind, EventSink};
use crate::sim::stats::{CacheStats, CoreStats, StallCause};

/// What one quiet cycle of an SM counts, and the first cycle that may not be quiet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Quiet {
    /// The first quiet cycle not yet counted into the SM's statistics. A quiet cycle does
    /// not count itself (counting each one was 5 % of the instructions of a `bfs` run); the
    /// stretch is counted at once when it ends, or when the GPU settles (`Sm::settle`): the
    /// counts depend only on this record and the number of cycles, so the sum is what
    /// counting one by one gave.
    pub since: u64,
    /// The first core cycle at which something the SM waits on by time may happen.
    pub until: u64,
    /// Warps are resident (an active cycle), or none are (a no-warp cycle while a kernel runs).
    pub resident: bool,
    /// Issue slots of schedulers without resident warps.
    pub idle_slots: u8,
    /// The cause for which the LD/ST unit's head is refused again each cycle.
    pub refused: Option<StallCause>,
    /// The cycle's stall class (resident warps only), and whether every resident warp waits
    /// on memory (a MemoryBlockCycle).
    pub class: Option<StallClass>,
    pub memory_block: bool,
}

impl Quiet {
    /// Counts `cycles` quiet cycles, as the SM's step would one by one; `kernel_active` as
    /// the GPU tells the step.
    #[inline]
    pub fn count(&self, cycles: u64, kernel_active: bool, stats: &mut CoreStats, l1: &mut CacheStats) {
        if self.resident {
            stats.active_cycles += cycles;
        } else if kernel_active {
            stats.no_warp_cycles += cycles;
        }
        stats.idle += u64::from(self.idle_slots) * cycles;
        if kernel_active {
            stats.inactive_cycles += cycles;
        }
        if let Some(cause) = self.refused {
            stats.ldst_stalls[cause as usize] += cycles;
            l1.stalls[cause as usize] += cycles;
        }
        if let Some(class) = self.class {
            stats.stall_classes[class as usize] += cycles;
            if self.memory_block {
                stats.memory_block_cycles += cycles;
            }
        }
    }
}

/// Whether someone listens to events a quiet cycle would emit (an SM is then stepped
/// cycle by cycle).
#[inline(always)]
pub fn heard(sink: &EventSink) -> bool {
    sink.wants(EventKind::MshrFull) || sink.wants(EventKind::WarpStall)
}
