//! CTA-Aware (seed 003 §4.1): CTAs form groups (Algorithm 1, [`super::owl`]) of equal priority; the
//! scheduler issues round-robin from one group's warps until all of them are blocked on data
//! ("Once all the warps associated with the first selected group are blocked due to the
//! unavailability of data, a group switch occurs"), then moves to the next group round-robin
//! (level 2), which becomes the current group. A current-group warp that only waits on an ALU
//! result, the ALU or the LD/ST unit keeps the other groups held back
//! ([`super::owl::hold_to_chosen`]).

use super::grouped::GroupOrder;
use super::owl::{g_pri_cta_aware, owl_scheduler};

owl_scheduler!(
    /// The CtaAware policy (one per warp scheduler).
    CtaAware,
    g_pri_cta_aware,
    GroupOrder::RoundRobin,
    hold
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

    #[test]
    fn switches_group_only_when_all_its_warps_wait_on_data() {
        // Warps 0..5 in CTA groups [0, 0, 1, 1, 2, 2]; group 0 issues first.
        let mut data = ViewData::new(0b11_1111);
        data.cta_group[..6].copy_from_slice(&[0, 0, 1, 1, 2, 2]);
        data.groups_per_core = 3;
        let mut s = CtaAware::default();
        let view = data.view();
        let q = s.qualify(0b11_1111, &view);
        assert_eq!(s.pick(q, &view, &mut |_| true), Some(0));
        // Warp 0 now waits on a load; warp 1 is not blocked but cannot issue this cycle (say
        // an ALU dependence). Group 0 still has a warp not blocked on data: the other groups
        // are held back and nothing issues, rather than switching to group 1.
        data.blocked = 0b01;
        let view = data.view();
        let q = s.qualify(0b11_1110, &view);
        assert_eq!(q, 0b10, "only group 0's warp 1 is offered");
        assert_eq!(offer_order(&mut s, q, &view), vec![1]);
        assert_eq!(s.status().group, Some(0));
        // Once both group-0 warps wait on loads, every candidate is offered, round-robin from
        // the next group.
        data.blocked = 0b11;
        let view = data.view();
        let q = s.qualify(0b11_1100, &view);
        assert_eq!(q, 0b11_1100);
        assert_eq!(s.pick(q, &view, &mut |_| true), Some(2));
        assert_eq!(s.status(), SchedStatus { group: Some(1), group_switches: 2, ..Default::default() });
        // Group 0's data arrives: it is not the current group any more, so group 1 keeps the
        // slot while its warps can go on (level 2 is round-robin).
        data.blocked = 0;
        let view = data.view();
        assert_eq!(s.qualify(0b11_1111, &view), 0b00_1100);
        // A group whose warps sit at a barrier or have exited is blocked too (`blocked`
        // covers them): the next group may issue.
        data.blocked = 0b00_1100;
        let view = data.view();
        assert_eq!(s.qualify(0b11_0011, &view), 0b11_0011);
    }
}
