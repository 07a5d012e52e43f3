//! WG: warp-group scheduling in one controller (seed 000 §IV-B; MECHANISMS §3) — a
//! shortest-job-first scheduler over complete warp-groups. Among the complete groups whose
//! banks have room, the one with the lowest score (expected completion time from the bank
//! table) goes next; ties go to the group with more row hits, then to the one completed first.

use super::warp_groups::{WarpGroupPolicy, WarpSorter, lowest_score};
use super::{SchedCtx, SchedulerStats};
use crate::config::Config;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Wg;

impl WarpGroupPolicy for Wg {
    fn new(_: &Config) -> Self {
        Wg
    }

    fn pick(&self, sorter: &WarpSorter, _: &SchedCtx<'_>, _: &mut SchedulerStats) -> Option<usize> {
        lowest_score(sorter, |_| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::WarpAware;
    use crate::sim::dram::sched::testkit::Kit;
    use crate::sim::event::Event;

    fn placed(s: &WarpAware<Wg>, bank: usize) -> Vec<u16> {
        s.cmdq.banks[bank].iter().map(|q| q.slot).collect()
    }

    #[test]
    fn lowest_score_first_ties_to_more_row_hits() {
        let mut k = Kit::new(&["dram.scheduler=wg", "dram.gmc.cmd_queue_depth=4"]);
        let mut s = WarpAware::<Wg>::new(&k.config);
        k.open(0, 5);
        k.open(1, 9);
        k.open(2, 7);
        // Completed first: one hit in bank 2 (score 1, one row hit).
        let y = k.group(&mut s, (0, 1, 0), &[(2, 7)]);
        // Hits in banks 0 and 1: score max(1, 1) = 1, two row hits.
        let x = k.group(&mut s, (1, 3, 0), &[(0, 5), (1, 9)]);
        // One row miss: score 3.
        let z = k.group(&mut s, (2, 0, 0), &[(3, 4)]);
        // Not complete (untagged): never chosen while complete groups wait.
        k.request(&mut s, 4, 1, (3, 0, 0), false, false);
        let (_, ev) = k.select(&mut s);
        assert!(
            matches!(
                ev[0],
                Event::WarpGroupScheduled { sm: 1, warp: 3, score: 1, requests: 2, row_hits: 2, .. }
            ),
            "{ev:?}"
        );
        assert_eq!((placed(&s, 0), placed(&s, 1)), (vec![x[0]], vec![x[1]]));
        k.select(&mut s);
        assert_eq!(placed(&s, 2), y);
        // Queued scores count: a hit behind X's hit in bank 0 scores 1 + 1, a miss 1 + 3.
        let hit = k.group(&mut s, (4, 0, 0), &[(0, 5)]);
        let miss = k.group(&mut s, (4, 1, 0), &[(0, 6)]);
        let (ctx, _) = k.ctx();
        s.rescore(&ctx);
        let score =
            |slot| s.sorter.groups.iter().find(|g| g.active && g.slots == vec![slot]).unwrap().score();
        assert_eq!((score(hit[0]), score(miss[0]), score(z[0])), (2, 4, 3));
        k.select(&mut s);
        assert_eq!(placed(&s, 0), vec![x[0], hit[0]], "score 2 before Z's 3");
        k.select(&mut s);
        assert_eq!(placed(&s, 3), z);
    }
}
