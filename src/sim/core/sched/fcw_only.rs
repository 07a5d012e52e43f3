//! FCW-Only (seed 004 §5.4.2, "FCW Throttling"): GTO over the locality warps only — the
//! warps whose SM-wide GTO priority is below FCW, the number of fully cached warps learned
//! from divergent loads by the L1 (§4.2.4, [`crate::sim::core::fcw`]), counted over the warps
//! actively scheduled ([`super::oaws::locality_warps`]). Thrashing warps wait until FCW grows or
//! older warps retire, wait at a barrier or exit. No miss prediction.

use super::oaws::locality_warps;
use super::{Gto, SchedView, WarpScheduler};

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct FcwOnly {
    gto: Gto,
}

impl WarpScheduler for FcwOnly {
    fn qualify(&mut self, candidates: u64, view: &SchedView<'_>) -> u64 {
        candidates & locality_warps(view)
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
    fn only_locality_warps_issue() {
        // Eight warps, SM-wide priorities = slots; FCW starts at 4.
        let mut data = ViewData::new(0xff);
        data.fcw = 4;
        let mut s = FcwOnly::default();
        let view = data.view();
        assert_eq!(s.qualify(0xf6, &view), 0x06, "warps 1 and 2 (3 blocked); 4..7 thrashing");
        assert_eq!(offer_order(&mut s, 0x06, &view), vec![1, 2]);
        // FCW grows to 5: warp 4 joins.
        data.fcw = 5;
        assert_eq!(s.qualify(0xf6, &data.view()), 0x16);
        // Warp 0 waits at a barrier: it holds no place, so warp 5 is a locality warp too.
        data.waiting = 0x01;
        assert_eq!(s.qualify(0xf6, &data.view()), 0x36);
    }
}
