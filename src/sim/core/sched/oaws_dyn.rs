//! Dynamic OAWS (seed 004 §5.4): GTO prioritization over the warps that pass the occlusion
//! qualification of Eq. 5.1, with Eq. 5.4's per-warp prediction — history miss rate of the
//! load's PC plus the warp's SM-wide GTO priority for locality warps (GTO priority < FCW, FCW
//! trained on fully/partially cached divergent loads), 100% for thrashing warps. See
//! [`super::oaws`].

use super::oaws::oaws_scheduler;

oaws_scheduler!(
    /// The dynamic OAWS policy (one per warp scheduler).
    OawsDyn
);

#[cfg(test)]
mod tests {
    use super::super::testing::ViewData;
    use super::super::{OawsMode, OawsState, WarpScheduler};
    use super::*;
    use crate::config::Config;

    #[test]
    fn locality_warps_predicted_from_history_thrashing_warps_at_full_divergence() {
        let mut o = OawsState::new(&Config::default(), OawsMode::Dynamic);
        // The classifier saw PC 0x40 miss 25% of its accesses; FCW = 4.
        o.load_retired(0x40, 32, 8);
        // Warp 1 (gprio 1, locality): 32 × 25% + 1 = 9. Warp 5 (gprio 5, thrashing): 32.
        o.set_prediction(1, o.predict(0x40, 32, 1, 4));
        o.set_prediction(5, o.predict(0x40, 32, 5, 4));
        assert_eq!((o.miss_pred[1], o.miss_pred[5]), (9, 32));
        let mut data = ViewData::new(0b10_0010);
        data.learner = o.into();
        data.load_next = 0b10_0010;
        data.mshr_free = 20;
        let mut s = OawsDyn::default();
        let view = data.view();
        // 20 MSHRs free: the locality warp's 9 fit, the thrashing warp's 32 do not.
        let q = s.qualify(0b10_0010, &view);
        assert_eq!(q, 0b10);
        assert_eq!(s.pick(q, &view, &mut |_| true), Some(1));
    }
}
