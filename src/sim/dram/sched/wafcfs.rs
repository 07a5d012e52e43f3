//! WAFCFS: warp-aware first-come first-served (seed 000 §VI-C2, after Yuan et al.; MECHANISMS
//! §3): complete warp-groups are served whole, in the order they completed, with no scores —
//! the baseline showing that keeping a warp's requests together is not enough when the
//! requests of irregular warps rarely share rows.

use super::warp_groups::{WarpGroupPolicy, WarpSorter};
use super::{SchedCtx, SchedulerStats};
use crate::config::Config;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Wafcfs;

impl WarpGroupPolicy for Wafcfs {
    fn new(_: &Config) -> Self {
        Wafcfs
    }

    fn pick(&self, sorter: &WarpSorter, _: &SchedCtx<'_>, _: &mut SchedulerStats) -> Option<usize> {
        sorter.eligible_groups().min_by_key(|&i| (sorter.groups[i].completed, sorter.groups[i].seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::WarpAware;
    use crate::sim::dram::sched::testkit::Kit;

    #[test]
    fn groups_go_in_completion_order_whatever_their_rows() {
        let mut k = Kit::new(&["dram.scheduler=wafcfs"]);
        let mut s = WarpAware::<Wafcfs>::new(&k.config);
        k.open(0, 5);
        // A starts first with a row hit but completes last; B is one row miss.
        let a1 = k.request(&mut s, 0, 5, (0, 1, 0), false, false);
        k.now = 1;
        let b = k.group(&mut s, (0, 2, 0), &[(1, 3)]);
        k.now = 2;
        let a2 = k.request(&mut s, 0, 5, (0, 1, 0), true, false);
        k.select(&mut s);
        assert_eq!(s.cmdq.banks[1].iter().map(|q| q.slot).collect::<Vec<_>>(), b);
        assert!(s.cmdq.banks[0].is_empty());
        k.select(&mut s);
        assert_eq!(s.cmdq.banks[0].iter().map(|q| q.slot).collect::<Vec<_>>(), vec![a1, a2]);
    }
}
