//! WG-Bw: bandwidth-aware coordinated warp-group scheduling (seed 000 §IV-D, Table I;
//! MECHANISMS §3). WG-M's choice; when the chosen group needs a new row in a bank that still
//! has pending hits to its scheduled row (from other groups), the row miss is postponed and
//! those hits are served first until the bank's burst counter reaches MERB(b), b = banks with
//! pending work ([`crate::sim::dram::merb`]); if then only one or two hits would be left
//! behind, they are served too (orphan control). A row miss thus waits at most
//! (MERB + 2) bursts, while the other banks' transfers hide its PRE/ACT.

use super::warp_groups::{WarpGroupPolicy, WarpSorter, lowest_score};
use super::{SchedCtx, SchedulerStats};
use crate::config::Config;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WgBw;

impl WarpGroupPolicy for WgBw {
    fn new(_: &Config) -> Self {
        WgBw
    }

    const COORDINATED: bool = true;
    const MERB: bool = true;

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

    /// Bank 0 has row 5 open and `hits` pending hits to it from one big group (score = hits);
    /// a one-request group misses in bank 0 (score 3) and is chosen. `busy` other banks have
    /// pending (incomplete) work. Returns the bank-0 command queue as (row, slot) and the
    /// postponement events.
    fn run(hits: usize, busy: u8) -> (Vec<u32>, Vec<Event>, WarpAware<WgBw>) {
        let mut k = Kit::new(&["dram.scheduler=wg-bw"]);
        let mut s = WarpAware::<WgBw>::new(&k.config);
        k.open(0, 5);
        k.group(&mut s, (0, 1, 0), &vec![(0, 5); hits]);
        for b in 1..=busy {
            k.request(&mut s, b, 9, (1, u16::from(b), 0), false, false);
        }
        k.group(&mut s, (0, 2, 0), &[(0, 6)]);
        let (_, ev) = k.select(&mut s);
        let rows = s.cmdq.banks[0].iter().map(|q| q.row).collect();
        let merb = ev.into_iter().filter(|e| matches!(e, Event::MerbPostpone { .. })).collect();
        (rows, merb, s)
    }

    #[test]
    fn a_row_miss_waits_for_merb_hits_then_orphans() {
        // One bank with work: MERB(1) = 31 bursts = 16 lines first; then only 2 hits would be
        // left behind, so they go too (orphan control), and the miss last.
        let (rows, ev, s) = run(18, 0);
        assert_eq!(rows, [vec![5; 18], vec![6]].concat());
        assert_eq!(
            ev,
            vec![Event::MerbPostpone { channel: 0, bank: 0, row: 5, counter: 0, merb: 31, hits: 16 }]
        );
        assert_eq!((s.stats.merb_hits_moved, s.stats.orphans_moved), (16, 2));
        assert_eq!(s.cmdq.row_bursts[0], 2, "the counter restarts with the new row");
        // Three left behind are not orphans: they wait.
        let (rows, _, s) = run(19, 0);
        assert_eq!(rows, [vec![5; 16], vec![6]].concat());
        assert_eq!(s.stats.orphans_moved, 0);
        // Four banks with work: MERB(4) = 7 bursts = 4 lines.
        let (rows, ev, _) = run(18, 3);
        assert_eq!(rows, [vec![5; 4], vec![6]].concat());
        assert!(matches!(ev[0], Event::MerbPostpone { merb: 7, hits: 4, .. }));
    }

    #[test]
    fn no_postponement_without_hits_or_once_the_counter_is_reached() {
        let (rows, ev, _) = run(0, 0);
        assert_eq!((rows, ev.len()), (vec![6], 0));
        // The big group itself goes first when it is the cheaper one: then its hits count.
        let mut k = Kit::new(&["dram.scheduler=wg-bw", "dram.gmc.cmd_queue_depth=64"]);
        let mut s = WarpAware::<WgBw>::new(&k.config);
        k.open(0, 5);
        k.group(&mut s, (0, 1, 0), &[(0, 5), (0, 5)]);
        k.select(&mut s);
        assert_eq!(s.cmdq.row_bursts[0], 4);
        // 1 more hit pending (orphan) and a miss: MERB(1) not reached, so the hit goes first.
        k.group(&mut s, (0, 3, 0), &[(0, 5), (0, 5), (0, 5), (0, 5)]);
        k.group(&mut s, (0, 2, 0), &[(0, 6)]);
        k.select(&mut s);
        let rows: Vec<u32> = s.cmdq.banks[0].iter().map(|q| q.row).collect();
        assert_eq!(rows, vec![5, 5, 5, 5, 5, 5, 6]);
    }
}
