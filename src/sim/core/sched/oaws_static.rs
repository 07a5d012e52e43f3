//! Static OAWS (seed 004 §5.3): GTO prioritization over the warps that pass the occlusion
//! qualification of Eq. 5.1, with Miss_pred = ⌈active lanes × SMR⌉ for loads the divergent
//! load classifier knows (SMR: `core.oaws.smr_percent`, 50% by default). See [`super::oaws`].

use super::oaws::oaws_scheduler;

oaws_scheduler!(
    /// The static OAWS policy (one per warp scheduler).
    OawsStatic
);

#[cfg(test)]
mod tests {
    use super::super::testing::{ViewData, offer_order};
    use super::super::{OawsMode, OawsState, WarpScheduler};
    use super::*;
    use crate::config::Config;
    use crate::sim::core::stall::StallReason;

    #[test]
    fn holds_the_load_that_would_occlude_and_issues_the_one_that_fits() {
        // Fig. 5.1: 8 MSHRs; A (warp 0) issued and still holds its 6 predicted misses in
        // flight; B (warp 1) predicts 6, C (warp 2) predicts 2.
        let mut data = ViewData::new(0b111);
        let mut o = OawsState::new(&Config::default(), OawsMode::Static { smr_percent: 18 });
        o.miss_inflight = 6;
        o.set_prediction(1, 6);
        o.set_prediction(2, 2);
        data.learner = o.into();
        data.load_next = 0b110;
        data.mshr_free = 8;
        let mut s = OawsStatic::default();
        let view = data.view();
        let q = s.qualify(0b110, &view);
        assert_eq!(q, 0b100, "B is held, C qualifies (2 ≤ 8 − 6)");
        assert_eq!(s.hold_reason(), StallReason::OcclusionHold);
        assert_eq!(offer_order(&mut s, q, &view), vec![2]);
        // A retires from the LD/ST unit: B fits in the 8 − 6 − 0 MSHRs left? No: 6 > 2.
        data.learner.oaws_mut().unwrap().miss_inflight = 0;
        data.mshr_free = 2;
        assert_eq!(s.qualify(0b110, &data.view()), 0b100);
        // A's data returns and frees its MSHRs: B qualifies.
        data.mshr_free = 8;
        assert_eq!(s.qualify(0b110, &data.view()), 0b110);
    }
}
