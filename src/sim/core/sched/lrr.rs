//! Loose round-robin (seed 003's RR baseline): start after the last warp that issued.

use super::{SchedView, WarpScheduler, rotate};

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Lrr {
    last: usize,
}

impl WarpScheduler for Lrr {
    fn pick(
        &mut self,
        candidates: u64,
        _view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        let w = rotate(candidates, self.last).find(|&w| try_issue(w))?;
        self.last = w;
        Some(w)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::ViewData;
    use super::*;

    #[test]
    fn rotates_past_the_last_issuer() {
        let mut s = Lrr::default();
        let data = ViewData::new(0b1110);
        let view = data.view();
        let mask = 0b1110;
        let order: Vec<usize> = (0..4).map(|_| s.pick(mask, &view, &mut |_| true).unwrap()).collect();
        assert_eq!(order, vec![1, 2, 3, 1]);
        // Warp 2 cannot issue: it is skipped.
        assert_eq!(s.pick(mask, &view, &mut |w| w != 2), Some(3));
    }
}
