//! Static warp limiting (Rogers et al., MICRO'12; a comparator in seed 004 §5.5.1, Table 5.3,
//! which "statically limits the number of warps that can be actively scheduled"): each
//! scheduler issues only from its `warp_limit` oldest warps, greedy-then-oldest among them. The
//! younger warps are throttled until an older one retires, waits at a barrier or exits — a warp
//! that is not actively scheduled does not hold a place (GPGPU-Sim's `swl_scheduler` takes its
//! first N warps after ordering barrier-waiting and exited warps last); counting it would leave
//! a CTA's warps beyond the limit unable ever to reach the barrier its older warps wait at.

use super::{Gto, SchedView, WarpScheduler, first_active};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Swl {
    /// Warps that may issue (per scheduler).
    pub warp_limit: u32,
    gto: Gto,
    /// The active pool, and the `SchedView::generation` (+1; 0 = never) and waiting warps it
    /// was computed for.
    pool: u64,
    pool_generation: u64,
    pool_waiting: u64,
}

impl Swl {
    pub fn new(warp_limit: u32) -> Swl {
        Swl { warp_limit, gto: Gto::default(), pool: 0, pool_generation: 0, pool_waiting: 0 }
    }

    /// The `warp_limit` oldest members that are actively scheduled.
    pub fn pool(&mut self, view: &SchedView<'_>) -> u64 {
        let waiting = view.waiting & view.members;
        if self.pool_generation != view.generation + 1 || self.pool_waiting != waiting {
            self.pool = first_active(view.members, view.priority, waiting, self.warp_limit);
            self.pool_generation = view.generation + 1;
            self.pool_waiting = waiting;
        }
        self.pool
    }
}

impl WarpScheduler for Swl {
    fn qualify(&mut self, candidates: u64, view: &SchedView<'_>) -> u64 {
        candidates & self.pool(view)
    }

    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        self.gto.pick(candidates, view, try_issue)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ViewData, offer_order};
    use super::*;

    #[test]
    fn only_the_oldest_warps_may_issue() {
        // Warps 1..=5 resident, ages = slot numbers; limit 2 → warps 1 and 2.
        let mut s = Swl::new(2);
        let data = ViewData::new(0b11_1110);
        let view = data.view();
        let q = s.qualify(0b11_1010, &view);
        assert_eq!(q, 0b10, "warp 2 is blocked (not a candidate); 3..5 are throttled");
        assert_eq!(offer_order(&mut s, q, &view), vec![1]);
        let q = s.qualify(0b11_1110, &view);
        assert_eq!(s.pick(q, &view, &mut |_| true), Some(1));
    }

    #[test]
    fn a_warp_at_a_barrier_or_exited_gives_its_place_to_the_next() {
        // Warps 1..=5 resident, limit 2. Warp 1 waits at a barrier: warps 2 and 3 may issue,
        // so the rest of its CTA can reach the barrier (counting warp 1 deadlocked there).
        let mut s = Swl::new(2);
        let mut data = ViewData::new(0b11_1110);
        data.waiting = 0b10;
        data.blocked = 0b10;
        assert_eq!(s.qualify(0b11_1100, &data.view()), 0b1100);
        // Warp 2 exits too: warps 3 and 4.
        data.waiting = 0b110;
        assert_eq!(s.qualify(0b11_1000, &data.view()), 0b1_1000);
        // The barrier releases warp 1: the two oldest again.
        data.waiting = 0b100;
        assert_eq!(s.qualify(0b11_1010, &data.view()), 0b1010, "warps 1 and 3 (2 exited)");
    }
}
