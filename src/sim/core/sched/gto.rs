//! Greedy-then-oldest (Rogers et al.; the baseline of seeds 002 and 004): keep issuing from
//! the same warp until it cannot, then the oldest warp (smallest launch age) that can.

use super::{SchedView, WarpScheduler, bits};

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Gto {
    /// The warp being run greedily.
    pub greedy: Option<usize>,
    order: AgeOrder,
}

/// A scheduler's member warps, oldest first (rebuilt only when the members change).
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct AgeOrder {
    order: Vec<u8>,
    /// The `SchedView::generation` the order was built for (+1, so 0 means never).
    generation: u64,
}

impl AgeOrder {
    /// The members by age.
    pub fn get(&mut self, view: &SchedView<'_>) -> &[u8] {
        if self.generation != view.generation + 1 {
            self.order.clear();
            self.order.extend(bits(view.members).map(|w| w as u8));
            self.order.sort_by_key(|&w| view.ages[w as usize]);
            self.generation = view.generation + 1;
        }
        &self.order
    }
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
        let greedy = self.greedy;
        let w = self
            .order
            .get(view)
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
    use super::super::testing::ViewData;
    use super::*;

    #[test]
    fn greedy_until_blocked_then_oldest() {
        let mut s = Gto::default();
        let mut data = ViewData::new(0b1110);
        data.ages[1] = 30;
        data.ages[2] = 10;
        data.ages[3] = 20;
        let view = data.view();
        let mask = 0b1110;
        assert_eq!(s.pick(mask, &view, &mut |_| true), Some(2), "oldest first");
        assert_eq!(s.pick(mask, &view, &mut |_| true), Some(2), "then greedy");
        assert_eq!(s.pick(mask, &view, &mut |w| w != 2), Some(3), "next oldest when blocked");
        assert_eq!(s.pick(mask, &view, &mut |_| true), Some(3), "greedy on the new warp");
    }
}
