//! CTA-Aware (seed 003 §4.1): CTAs form groups (Algorithm 1, [`super::owl`]) of equal priority; the
//! scheduler issues round-robin from one group's warps until none of them can issue, then
//! moves to the next group round-robin (level 2), which becomes the current group.

use super::grouped::GroupOrder;
use super::owl::{g_pri_cta_aware, owl_scheduler};

owl_scheduler!(
    /// The CtaAware policy (one per warp scheduler).
    CtaAware,
    g_pri_cta_aware,
    GroupOrder::RoundRobin
);

#[cfg(test)]
mod tests {
    use super::super::testing::{ViewData, offer_order};
    use super::super::{SchedStatus, WarpScheduler};
    use super::*;

    #[test]
    fn round_robin_inside_a_group_then_round_robin_between_groups() {
        // Warps 0..5 in CTA groups [0, 0, 1, 1, 2, 2].
        let mut data = ViewData::new(0b11_1111);
        data.cta_group[..6].copy_from_slice(&[0, 0, 1, 1, 2, 2]);
        data.groups_per_core = 3;
        let view = data.view();
        let mut s = CtaAware::default();
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(0));
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(1));
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(0), "stays in group 0");
        // Group 0 blocked: switch to the next group, and stay there even when group 0 is back.
        assert_eq!(s.pick(0b11_1100, &view, &mut |_| true), Some(2));
        assert_eq!(s.pick(0b11_1111, &view, &mut |_| true), Some(3));
        assert_eq!(s.status(), SchedStatus { group: Some(1), group_switches: 2, ..Default::default() });
        assert_eq!(offer_order(&mut s, 0b11_1111, &view), vec![2, 3, 4, 5, 0, 1]);
        assert_eq!(s.group_of(4, &view), Some(2));
    }
}
