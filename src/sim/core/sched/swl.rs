//! Static warp limiting (Rogers et al., MICRO'12; a comparator in seed 004 §5.5.1, Table 5.3):
//! each scheduler issues only from its `warp_limit` oldest resident warps, greedy-then-oldest
//! among them. The younger warps are throttled until an older one retires.

use super::{Gto, SchedView, WarpScheduler, bits};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swl {
    /// Warps that may issue (per scheduler).
    pub warp_limit: u32,
    gto: Gto,
    /// The active pool and the `SchedView::generation` it was computed for (+1; 0 = never).
    pool: u64,
    pool_generation: u64,
}

impl Swl {
    pub fn new(warp_limit: u32) -> Swl {
        Swl { warp_limit, gto: Gto::default(), pool: 0, pool_generation: 0 }
    }

    /// The `warp_limit` oldest members.
    pub fn pool(&mut self, view: &SchedView<'_>) -> u64 {
        if self.pool_generation != view.generation + 1 {
            self.pool = bits(view.members)
                .filter(|&w| u32::from(view.priority[w]) < self.warp_limit)
                .fold(0, |m, w| m | 1 << w);
            self.pool_generation = view.generation + 1;
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
}
