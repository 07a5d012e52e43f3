//! CTA-Aware-Locality (seed 003 §4.2): g_pri[g][core] = g — always issue from the oldest CTA
//! group that has a warp not blocked on data, so the same few CTAs keep the L1 to themselves;
//! younger groups only run while every warp of the older ones waits on a load (or a barrier),
//! not while one only waits on an ALU result or the LD/ST unit
//! ([`super::owl::hold_to_chosen`]). Priority moves on to the next group when the oldest
//! finishes (see [`super::owl`] for groups formed over launch order).

use super::grouped::GroupOrder;
use super::owl::{g_pri_locality, owl_scheduler};

owl_scheduler!(
    /// The CtaLocality policy (one per warp scheduler).
    CtaLocality,
    g_pri_locality,
    GroupOrder::Priority,
    hold
);

#[cfg(test)]
mod tests {
    use super::super::WarpScheduler;
    use super::super::testing::{ViewData, offer_order};
    use super::*;

    #[test]
    fn the_oldest_group_wins_as_soon_as_it_is_ready() {
        let mut data = ViewData::new(0b11_1111);
        data.cta_group[..6].copy_from_slice(&[4, 4, 5, 5, 6, 6]);
        data.groups_per_core = 3;
        let view = data.view();
        let mut s = CtaLocality::default();
        // Group 4 blocked: group 5 runs...
        assert_eq!(s.pick(0b11_1100, &view, &mut |_| true), Some(2));
        // ...but the moment a group-4 warp is ready it takes over (unlike CTA-Aware).
        assert_eq!(s.pick(0b11_1110, &view, &mut |_| true), Some(1));
        assert_eq!(offer_order(&mut s, 0b11_1111, &view), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn younger_groups_run_only_while_the_oldest_waits_on_data() {
        let mut data = ViewData::new(0b11_1111);
        data.cta_group[..6].copy_from_slice(&[4, 4, 5, 5, 6, 6]);
        data.groups_per_core = 3;
        let mut s = CtaLocality::default();
        // Warp 0 waits on a load; warp 1 is not blocked but cannot issue this cycle (an ALU
        // dependence): group 4 keeps the slot, and nothing issues.
        data.blocked = 0b01;
        let view = data.view();
        assert_eq!(s.qualify(0b11_1100, &view), 0);
        // Both of group 4's warps wait on loads: group 5 may issue (and group 6 only once
        // group 5's warps wait on data too).
        data.blocked = 0b11;
        let view = data.view();
        assert_eq!(s.qualify(0b11_1100, &view), 0b00_1100);
        assert_eq!(s.pick(0b00_1100, &view, &mut |_| true), Some(2));
        data.blocked = 0b1111;
        let view = data.view();
        assert_eq!(s.qualify(0b11_0000, &view), 0b11_0000);
        // Group 4's data arrives: it takes the slot back at once.
        data.blocked = 0b1100;
        let view = data.view();
        assert_eq!(s.qualify(0b11_0011, &view), 0b00_0011);
    }
}
