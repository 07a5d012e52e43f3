//! MASCAR — memory-aware scheduling and cache access re-execution (Sethia et al., HPCA'15;
//! a comparator in seed 004 §5.5.1).
//!
//! Memory is *saturated* when the L1 has at most `saturation_free` (1) free MSHRs or slots
//! in its miss queue toward the interconnect (the memory port). Then one *owner* warp may
//! issue global memory instructions; every other warp may only issue ALU instructions (its
//! loads and stores are held). The owner keeps ownership while its next instruction is a
//! global memory access it is ready to issue; after that it passes to the oldest warp that
//! has one. Without saturation, warps with a global memory instruction next go first (oldest
//! first, after the greedy warp), then the others.
//!
//! The other half of MASCAR, the 32-entry re-execution queue that parks L1 accesses refused
//! for lack of an MSHR or port slot so hits behind them can proceed, is in the LD/ST unit
//! (`super::super::ldst`), enabled with this scheduler.

use super::{AgeOrder, MemoryFeedback, SchedStatus, SchedView, WarpScheduler};
use crate::sim::core::stall::StallReason;

/// MASCAR's side of the LD/ST unit: how many refused L1 accesses its re-execution queue parks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReexecQueue {
    pub entries: u32,
}

impl MemoryFeedback for ReexecQueue {
    fn reexec_entries(&self) -> usize {
        self.entries as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mascar {
    /// Free MSHRs / port slots at or below which memory counts as saturated.
    pub saturation_free: u32,
    /// Memory-pressure mode.
    pub saturated: bool,
    /// The warp allowed to issue memory instructions while saturated.
    pub owner: Option<usize>,
    /// The warp that issued last.
    greedy: Option<usize>,
    order: AgeOrder,
    /// Issue slots spent saturated.
    pub saturated_slots: u64,
}

impl Mascar {
    pub fn new(saturation_free: u32) -> Mascar {
        Mascar {
            saturation_free,
            saturated: false,
            owner: None,
            greedy: None,
            order: AgeOrder::default(),
            saturated_slots: 0,
        }
    }
}

impl WarpScheduler for Mascar {
    fn qualify(&mut self, candidates: u64, view: &SchedView<'_>) -> u64 {
        self.saturated =
            view.mshr_free <= self.saturation_free || view.miss_queue_free <= self.saturation_free;
        if !self.saturated {
            self.owner = None;
            return candidates;
        }
        self.saturated_slots += 1;
        let wants_memory = candidates & view.global_next;
        if self.owner.is_none_or(|o| wants_memory & (1 << o) == 0) {
            self.owner =
                self.order.get(view).iter().map(|&w| w as usize).find(|&w| wants_memory & (1 << w) != 0);
        }
        let owner = self.owner.map_or(0, |o| 1u64 << o);
        candidates & !(wants_memory & !owner)
    }

    fn hold_reason(&self) -> StallReason {
        StallReason::MemSaturated
    }

    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        // Saturated: the owner first. Otherwise memory instructions before ALU ones; within
        // each class the greedy warp, then the oldest.
        let first = if self.saturated { self.owner.map_or(0, |o| 1u64 << o) } else { view.global_next };
        let greedy = self.greedy;
        let order = self.order.get(view);
        let mut found = None;
        'classes: for class in [candidates & first, candidates & !first] {
            if class == 0 {
                continue;
            }
            if let Some(g) = greedy
                && class & (1 << g) != 0
                && try_issue(g)
            {
                found = Some(g);
                break;
            }
            for w in order.iter().map(|&w| w as usize) {
                if class & (1 << w) != 0 && Some(w) != greedy && try_issue(w) {
                    found = Some(w);
                    break 'classes;
                }
            }
        }
        if found.is_some() {
            self.greedy = found;
        }
        found
    }

    fn status(&self) -> SchedStatus {
        SchedStatus {
            saturated: Some(self.saturated),
            owner: self.owner.map(|o| o as u16),
            saturated_slots: self.saturated_slots,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ViewData, offer_order};
    use super::*;

    #[test]
    fn memory_first_without_saturation() {
        // Warps 0..3 (0 oldest); 1 and 3 have a global memory instruction next.
        let mut data = ViewData::new(0b1111);
        data.global_next = 0b1010;
        let view = data.view();
        let mut s = Mascar::new(1);
        assert_eq!(s.qualify(0b1111, &view), 0b1111);
        assert_eq!(offer_order(&mut s, 0b1111, &view), vec![1, 3, 0, 2]);
        assert_eq!(s.status().saturated, Some(false));
    }

    #[test]
    fn one_owner_issues_memory_while_saturated() {
        let mut data = ViewData::new(0b1111);
        data.global_next = 0b1010;
        data.mshr_free = 1;
        let mut s = Mascar::new(1);
        let view = data.view();
        // The oldest warp wanting memory (1) owns it; warp 3's memory instruction is held.
        assert_eq!(s.qualify(0b1111, &view), 0b0111);
        assert_eq!(s.owner, Some(1));
        assert_eq!(offer_order(&mut s, 0b0111, &view), vec![1, 0, 2]);
        // Warp 1 now waits on its load (not a candidate): ownership passes to warp 3.
        assert_eq!(s.qualify(0b1101, &view), 0b1101);
        assert_eq!((s.status().saturated, s.status().owner), (Some(true), Some(3)));
        // Port room back, MSHRs fine: saturation ends.
        data.mshr_free = 5;
        let view = data.view();
        assert_eq!(s.qualify(0b1111, &view), 0b1111);
        assert_eq!(s.owner, None);
        // The miss queue with one free slot saturates as well.
        data.miss_queue_free = 1;
        assert_eq!(s.qualify(0b1111, &data.view()), 0b0111);
    }
}
