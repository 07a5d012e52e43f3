//! CTA-Aware-Locality-BLP (seed 003 §4.3): g_pri[g][core] = (g − core_id) mod g_core — each
//! core always favours one CTA group, but consecutive cores favour different-numbered groups,
//! so their (row-sharing) consecutive CTAs do not crowd the same DRAM banks at once. A core
//! switches groups as CTA-Aware-Locality does ([`super::owl::hold_to_chosen`]).

use super::grouped::GroupOrder;
use super::owl::{g_pri_blp, owl_scheduler};

owl_scheduler!(
    /// The CtaLocalityBlp policy (one per warp scheduler).
    CtaLocalityBlp,
    g_pri_blp,
    GroupOrder::Priority,
    hold
);

#[cfg(test)]
mod tests {
    use super::super::testing::{ViewData, offer_order};
    use super::*;

    #[test]
    fn consecutive_cores_favour_different_groups() {
        // Three groups of two warps on each core; g_pri = (g − core) mod 3.
        let mut data = ViewData::new(0b11_1111);
        data.cta_group[..6].copy_from_slice(&[0, 0, 1, 1, 2, 2]);
        data.groups_per_core = 3;
        let mut s = CtaLocalityBlp::default();
        assert_eq!(offer_order(&mut s, 0b11_1111, &data.view()), vec![0, 1, 2, 3, 4, 5]);
        data.core = 1;
        let mut s = CtaLocalityBlp::default();
        assert_eq!(offer_order(&mut s, 0b11_1111, &data.view()), vec![2, 3, 4, 5, 0, 1]);
        data.core = 2;
        let mut s = CtaLocalityBlp::default();
        assert_eq!(offer_order(&mut s, 0b11_1111, &data.view()), vec![4, 5, 0, 1, 2, 3]);
        // A later round's group (3 ≡ 0 mod 3) ties with group 0 and goes after it.
        data.core = 0;
        data.cta_group[..6].copy_from_slice(&[3, 3, 1, 1, 0, 0]);
        let mut s = CtaLocalityBlp::default();
        assert_eq!(offer_order(&mut s, 0b11_1111, &data.view()), vec![4, 5, 0, 1, 2, 3]);
    }
}
