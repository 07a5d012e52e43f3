//! OWL's CTA groups (seed 003 §4, Algorithm 1): group formation and group priorities shared
//! by CTA-Aware, CTA-Aware-Locality and CTA-Aware-Locality-BLP.
//!
//! FORM_GROUPS: with N CTAs of k warps on a core and at least g_size warps per group, n is
//! the smallest CTA count with n·k ≥ g_size; the core has g_core = ⌊N/n⌋ groups of n CTAs and
//! the last one also takes the N mod n leftovers.
//!
//! CTAs arrive on a core one by one and are replaced as they finish, so groups are formed
//! over the core's *launch order* within a kernel: the j-th CTA launched on the core goes to
//! position p = j mod N of round r = j div N, i.e. to group-in-round g_num (by the prefix sums
//! of the group sizes) and absolute group id g = r·g_core + g_num. Round 0 is exactly
//! Algorithm 1's grouping of the first N CTAs; later CTAs form new groups the same way as
//! slots free up. Priorities are Algorithm 1's g_pri evaluated on the absolute id (lower =
//! higher priority, ties to the older group):
//! - CTA-Aware: 0 for every group (round-robin among groups);
//! - CTA-Aware-Locality: g — the oldest group present, so priority moves on only when a
//!   group finishes;
//! - CTA-Aware-Locality-BLP: (g − core_id) mod g_core — since g mod g_core = g_num, this is
//!   the paper's permutation, so consecutive cores favour non-consecutive CTA groups.
//!
//! When N < n (fewer CTAs fit than one group needs), the core has a single group of N CTAs.

use super::SchedView;
use super::grouped::{GroupOrder, Grouped};

/// A group priority function of Algorithm 1: g_pri(g, core_id, g_core).
pub type GPri = fn(u32, u32, u32) -> u32;

/// One OWL pick: groups in g_pri order (ties to the older group) — or round-robin among
/// groups for CTA-Aware, whose groups all have the same priority — and warps round-robin
/// inside a group.
pub(crate) fn pick(
    grouped: &mut Grouped,
    g_pri: GPri,
    order: GroupOrder,
    candidates: u64,
    view: &SchedView<'_>,
    try_issue: &mut dyn FnMut(usize) -> bool,
) -> Option<usize> {
    let (core, g_core) = (u32::from(view.core), view.groups_per_core);
    grouped.refresh(view, |w| view.cta_group[w], |g| (g_pri(g, core, g_core), g));
    grouped.pick(candidates, order, try_issue)
}

/// The OWL schedulers' group switch (seed 003 Algorithm 1): "Once a group is chosen, the
/// scheduler cannot choose warps from different group(s) unless all warps of the
/// already-chosen group are blocked because of unavailability of data." While any warp of the
/// chosen group is not blocked (it waits only on an ALU result, the ALU or the LD/ST unit),
/// the other groups' candidates are held back; once all of them wait on loads (or sit at a
/// barrier or have exited), the other groups may issue. CTA-Aware (§4.1) then moves to the
/// next group round-robin, which becomes the chosen one; CTA-Aware-Locality and -BLP (§4.2:
/// "If warps associated with group 1 … are blocked due to unavailability of data, the
/// scheduler can schedule warps from group 2 … as soon as any warps from group 1 are ready
/// (i.e., their requested data has arrived), CTA-Aware-Locality again prioritizes these group
/// 1 warps") choose the first group in priority order with a warp not blocked.
pub(crate) fn hold_to_chosen(
    grouped: &mut Grouped,
    g_pri: GPri,
    order: GroupOrder,
    candidates: u64,
    view: &SchedView<'_>,
) -> u64 {
    let (core, g_core) = (u32::from(view.core), view.groups_per_core);
    grouped.refresh(view, |w| view.cta_group[w], |g| (g_pri(g, core, g_core), g));
    grouped.hold_to_chosen(candidates, order, view)
}

/// Declares an OWL scheduler: a [`Grouped`] engine driven by one g_pri function. With
/// `hold`, the chosen group keeps the issue slot until all its warps are blocked
/// ([`hold_to_chosen`]).
macro_rules! owl_scheduler {
    ($(#[$meta:meta])* $name:ident, $g_pri:path, $order:expr, hold) => {
        $crate::sim::core::sched::owl::owl_scheduler!($(#[$meta])* $name, $g_pri, $order, {
            fn qualify(&mut self, candidates: u64, view: &$crate::sim::core::sched::SchedView<'_>) -> u64 {
                $crate::sim::core::sched::owl::hold_to_chosen(&mut self.grouped, $g_pri, $order, candidates, view)
            }
        });
    };
    ($(#[$meta:meta])* $name:ident, $g_pri:path, $order:expr) => {
        $crate::sim::core::sched::owl::owl_scheduler!($(#[$meta])* $name, $g_pri, $order, {});
    };
    ($(#[$meta:meta])* $name:ident, $g_pri:path, $order:expr, { $($qualify:tt)* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            pub grouped: $crate::sim::core::sched::grouped::Grouped,
        }

        impl $crate::sim::core::sched::WarpScheduler for $name {
            $($qualify)*

            fn pick(
                &mut self,
                candidates: u64,
                view: &$crate::sim::core::sched::SchedView<'_>,
                try_issue: &mut dyn FnMut(usize) -> bool,
            ) -> Option<usize> {
                $crate::sim::core::sched::owl::pick(&mut self.grouped, $g_pri, $order, candidates, view, try_issue)
            }

            fn group_of(&self, w: usize, view: &$crate::sim::core::sched::SchedView<'_>) -> Option<u32> {
                Some(view.cta_group[w])
            }

            fn status(&self) -> $crate::sim::core::sched::SchedStatus {
                self.grouped.status()
            }
        }
    };
}
pub(crate) use owl_scheduler;

/// FORM_GROUPS of Algorithm 1: the size (in CTAs) of each group for `n_ctas` CTAs of
/// `warps_per_cta` warps and at least `min_group_warps` warps per group.
pub fn form_groups(n_ctas: u32, warps_per_cta: u32, min_group_warps: u32) -> Vec<u32> {
    let k = warps_per_cta.max(1);
    let mut n = 1;
    while n * k < min_group_warps {
        n += 1;
    }
    let g_core = n_ctas / n;
    if g_core == 0 {
        return vec![n_ctas.max(1)];
    }
    let mut sizes = vec![n; g_core as usize];
    if !n_ctas.is_multiple_of(n) {
        sizes[g_core as usize - 1] += n_ctas % n;
    }
    sizes
}

/// CTA-Aware: every group has the same priority.
pub fn g_pri_cta_aware(_g: u32, _core: u32, _g_core: u32) -> u32 {
    0
}

/// CTA-Aware-Locality: g_pri[g][core] = g.
pub fn g_pri_locality(g: u32, _core: u32, _g_core: u32) -> u32 {
    g
}

/// CTA-Aware-Locality-BLP: g_pri[g][core] = (g − core) mod g_core.
pub fn g_pri_blp(g: u32, core: u32, g_core: u32) -> u32 {
    let m = g_core.max(1);
    (g % m + m - core % m) % m
}

/// Assigns CTA groups to the CTAs launched on one core, in launch order (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CtaGrouping {
    /// FORM_GROUPS of the running kernel.
    pub group_sizes: Vec<u32>,
    /// N: CTAs of the kernel that fit on the core at once.
    pub ctas_per_core: u32,
    /// CTAs launched on this core in the running kernel.
    pub launched: u32,
}

impl CtaGrouping {
    /// Starts a kernel whose CTAs have `warps_per_cta` warps, `ctas_per_core` of which fit.
    pub fn start_kernel(&mut self, ctas_per_core: u32, warps_per_cta: u32, min_group_warps: u32) {
        self.group_sizes = form_groups(ctas_per_core, warps_per_cta, min_group_warps);
        self.ctas_per_core = ctas_per_core.max(1);
        self.launched = 0;
    }

    /// g_core.
    pub fn groups_per_core(&self) -> u32 {
        self.group_sizes.len() as u32
    }

    /// The absolute group id of the next CTA launched, and counts it.
    pub fn next_group(&mut self) -> u32 {
        let j = self.launched;
        self.launched += 1;
        let (round, mut p) = (j / self.ctas_per_core, j % self.ctas_per_core);
        let mut g_num = 0;
        for (i, &size) in self.group_sizes.iter().enumerate() {
            g_num = i as u32;
            if p < size {
                break;
            }
            p -= size;
        }
        round * self.groups_per_core() + g_num
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_groups_example_of_section_4_1() {
        // N = 10 CTAs, k = 2 warps, g_size = 5 → n = 3, groups [3, 3, 4].
        assert_eq!(form_groups(10, 2, 5), vec![3, 3, 4]);
        // Exact fit, and the paper's default g_size = 8 with 8-warp CTAs (one CTA per group).
        assert_eq!(form_groups(6, 2, 6), vec![3, 3]);
        assert_eq!(form_groups(4, 8, 8), vec![1, 1, 1, 1]);
        // Fewer CTAs than a group needs: one group.
        assert_eq!(form_groups(1, 2, 8), vec![1]);
        assert_eq!(form_groups(3, 2, 8), vec![3]);
    }

    #[test]
    fn g_pri_of_the_three_schemes() {
        // 3 groups on each core.
        for core in 0..4 {
            assert_eq!((0..3).map(|g| g_pri_cta_aware(g, core, 3)).collect::<Vec<_>>(), vec![0, 0, 0]);
            assert_eq!((0..3).map(|g| g_pri_locality(g, core, 3)).collect::<Vec<_>>(), vec![0, 1, 2]);
        }
        // BLP: core 0 favours group 0, core 1 group 1, core 2 group 2, core 3 group 0 again.
        let blp = |core| (0..3).map(|g| g_pri_blp(g, core, 3)).collect::<Vec<_>>();
        assert_eq!(blp(0), vec![0, 1, 2]);
        assert_eq!(blp(1), vec![2, 0, 1]);
        assert_eq!(blp(2), vec![1, 2, 0]);
        assert_eq!(blp(3), vec![0, 1, 2]);
        // On absolute ids of later rounds g mod g_core = g_num, so the permutation repeats.
        assert_eq!(g_pri_blp(4, 1, 3), g_pri_blp(1, 1, 3));
    }

    #[test]
    fn launch_order_fills_the_groups_round_by_round() {
        let mut g = CtaGrouping::default();
        g.start_kernel(10, 2, 5);
        let ids: Vec<u32> = (0..13).map(|_| g.next_group()).collect();
        assert_eq!(ids, vec![0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]);
        assert_eq!(g.groups_per_core(), 3);
    }
}
