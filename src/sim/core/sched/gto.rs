//! Greedy-then-oldest (Rogers et al.; the baseline of seeds 002 and 004): keep issuing from
//! the same warp until it cannot, then the oldest warp (smallest launch age) that can.

use super::{SchedView, WarpScheduler, bits};

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Gto {
    /// The warp being run greedily.
    greedy: Option<usize>,
    /// Member warps by age (rebuilt when the members change).
    order: Vec<u8>,
    /// The `SchedView::generation` the order was built for (+1, so 0 means never).
    order_generation: u64,
}

impl WarpScheduler for Gto {
    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        if let Some(g) = self.greedy
            && candidates & (1 << g) != 0
            && try_issue(g)
        {
            return Some(g);
        }
        // Re-sort only when the resident warps (or their ages) changed.
        if self.order_generation != view.generation + 1 {
            self.order.clear();
            self.order.extend(bits(view.members).map(|w| w as u8));
            self.order.sort_by_key(|&w| view.ages[w as usize]);
            self.order_generation = view.generation + 1;
        }
        let greedy = self.greedy;
        let w = self
            .order
            .iter()
            .map(|&w| w as usize)
            .filter(|&w| candidates & (1 << w) != 0 && Some(w) != greedy)
            .find(|&w| try_issue(w))?;
        self.greedy = Some(w);
        Some(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_until_blocked_then_oldest() {
        let mut s = Gto::default();
        let mut ages = [0u64; 64];
        ages[1] = 30;
        ages[2] = 10;
        ages[3] = 20;
        let view = SchedView { ages: &ages, members: 0b1110, generation: 0 };
        let mask = 0b1110;
        assert_eq!(s.pick(mask, &view, &mut |_| true), Some(2), "oldest first");
        assert_eq!(s.pick(mask, &view, &mut |_| true), Some(2), "then greedy");
        assert_eq!(s.pick(mask, &view, &mut |w| w != 2), Some(3), "next oldest when blocked");
        assert_eq!(s.pick(mask, &view, &mut |_| true), Some(3), "greedy on the new warp");
    }
}
