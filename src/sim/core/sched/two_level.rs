//! Two-level warp scheduling (Narasiman et al., MICRO'11; seed 003 §6 and Fig. 7's comparison):
//! each scheduler's warps are split, in warp-slot order, into fixed fetch groups of
//! `group_size` warps. Level 1 issues round-robin among the current group's warps; level 2
//! moves to the next group round-robin when none of them can issue (typically: all wait on
//! long-latency loads). Unlike OWL's groups, fetch groups ignore CTA boundaries.

use super::grouped::{GroupOrder, Grouped};
use super::{SchedStatus, SchedView, WarpScheduler};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TwoLevel {
    /// Warps per fetch group.
    pub group_size: u32,
    /// Schedulers per SM (a scheduler owns slots `index`, `index + schedulers`, ...).
    schedulers: u32,
    pub grouped: Grouped,
}

impl TwoLevel {
    pub fn new(group_size: u32, schedulers: u32) -> TwoLevel {
        TwoLevel { group_size: group_size.max(1), schedulers: schedulers.max(1), grouped: Grouped::default() }
    }

    /// The fetch group of warp slot `w`: its position among its scheduler's slots / group size.
    pub fn fetch_group(&self, w: usize) -> u32 {
        w as u32 / self.schedulers / self.group_size
    }
}

impl WarpScheduler for TwoLevel {
    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        let (k, g) = (self.schedulers, self.group_size);
        self.grouped.refresh(view, |w| w as u32 / k / g, |id| (0, id));
        self.grouped.pick(candidates, GroupOrder::RoundRobin, try_issue)
    }

    fn group_of(&self, w: usize, _view: &SchedView<'_>) -> Option<u32> {
        Some(self.fetch_group(w))
    }

    fn status(&self) -> SchedStatus {
        self.grouped.status()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ViewData, offer_order};
    use super::*;

    #[test]
    fn stays_in_a_fetch_group_until_it_cannot_issue() {
        // One scheduler, groups of 2: {0,1} {2,3} {4,5}.
        let mut s = TwoLevel::new(2, 1);
        let data = ViewData::new(0b11_1111);
        let view = data.view();
        assert_eq!(s.fetch_group(5), 2);
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(0));
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(1), "round-robin inside group 0");
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(0));
        // Group 0 blocked: group 1 takes over and becomes current.
        assert_eq!(s.pick(0b11_1100, &view, &mut |_| true), Some(2));
        assert_eq!((s.status().group, s.status().group_switches), (Some(1), 2));
        // Group 0 is ready again, but level 2 is round-robin: stay in group 1.
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(3));
        // Nothing issues: every candidate is offered, current group first.
        assert_eq!(offer_order(&mut s, 0b11_1111, &view), vec![2, 3, 4, 5, 0, 1]);
    }

    #[test]
    fn fetch_groups_count_only_the_schedulers_own_slots() {
        // Two schedulers: scheduler 1 owns odd slots; slots 1,3 → group 0, 5,7 → group 1.
        let s = TwoLevel::new(2, 2);
        assert_eq!([1, 3, 5, 7].map(|w| s.fetch_group(w)), [0, 0, 1, 1]);
    }
}
