//! WG-M: warp-group scheduling coordinated across controllers (seed 000 §IV-C; MECHANISMS
//! §3). WG's choice, plus: every selection is broadcast as ⟨SM, warp, score⟩ on the
//! coordination network ([`crate::sim::dram::coord`]), and a received remote score RC lowers
//! the local score LC of the group of the same warp-load by LC − RC when LC > RC, so a warp
//! whose requests are being served elsewhere is not left waiting here. The paper's message
//! names ⟨SM, warp⟩, which is one load there (§II-A: the warp "is blocked till all the requests
//! are serviced"); here it also carries the load's slot (`dram.coordination.names`).

use super::warp_groups::{WarpGroupPolicy, WarpSorter, lowest_score};
use super::{SchedCtx, SchedulerStats};
use crate::config::Config;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WgM;

impl WarpGroupPolicy for WgM {
    fn new(_: &Config) -> Self {
        WgM
    }

    const COORDINATED: bool = true;

    fn pick(&self, sorter: &WarpSorter, _: &SchedCtx<'_>, _: &mut SchedulerStats) -> Option<usize> {
        lowest_score(sorter, |_| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::coord::CoordMessage;
    use crate::sim::dram::sched::WarpAware;
    use crate::sim::dram::sched::testkit::Kit;
    use crate::sim::event::Event;

    /// Delivers a message from controller 3: warp-load (SM, warp, load slot) was selected there
    /// at `score`.
    fn receive(k: &mut Kit, s: &mut WarpAware<WgM>, (sm, warp, load_slot): (u16, u16, u8), score: u32) {
        let (ctx, sink) = k.ctx();
        s.on_remote(&CoordMessage { from: 3, sm, warp, load_slot, score }, &ctx, sink);
    }

    /// (SM, warp, score) of the groups placed.
    fn scheduled(ev: &[Event]) -> Vec<(u16, u16, u32)> {
        ev.iter()
            .filter_map(|e| match *e {
                Event::WarpGroupScheduled { sm, warp, score, .. } => Some((sm, warp, score)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_lower_remote_score_lowers_the_local_one() {
        let mut k = Kit::new(&["dram.scheduler=wg-m"]);
        let mut s = WarpAware::<WgM>::new(&k.config);
        k.open(0, 5);
        // ⟨SM 1, warp 2⟩: two row misses in bank 0: 3 + 3 = 6.
        let g = k.group(&mut s, (1, 2, 0), &[(0, 6), (0, 7)]);
        // Another warp: a miss and a hit to the row it opens in bank 1: 3 + 1 = 4.
        k.group(&mut s, (0, 0, 0), &[(1, 8), (1, 8)]);
        receive(&mut k, &mut s, (1, 2, 0), 9);
        receive(&mut k, &mut s, (1, 5, 0), 1);
        let group =
            |s: &WarpAware<WgM>| s.sorter.groups.iter().find(|x| x.active && x.slots == g).unwrap().clone();
        assert_eq!(
            (group(&s).score(), group(&s).remote_updates),
            (6, 0),
            "RC > LC, or another warp: no change"
        );
        receive(&mut k, &mut s, (1, 2, 0), 2);
        assert_eq!((group(&s).score(), group(&s).remote_credit, group(&s).remote_updates), (2, 4, 1));
        let (_, ev) = k.select(&mut s);
        assert!(
            matches!(ev[0], Event::RemoteScore { from: 3, sm: 1, warp: 2, local: 6, remote: 2, .. }),
            "{ev:?}"
        );
        assert!(matches!(ev[1], Event::WarpGroupScheduled { sm: 1, warp: 2, score: 2, .. }), "{ev:?}");
        // Its selection is broadcast with the load's slot and the score it was chosen at.
        assert_eq!(
            s.outbox.pop_front(),
            Some(CoordMessage { from: 0, sm: 1, warp: 2, load_slot: 0, score: 2 })
        );
        assert_eq!(s.stats.coord_applied, 1);
    }

    /// Seed 000 §IV-C: a controller "matches the received warp-group-ids against the
    /// warp-groups in its tracking structures". The paper's warp "is blocked till all the
    /// requests are serviced by the memory" (§II-A), so ⟨SM, warp⟩ names one warp-load; here a
    /// warp keeps several loads in flight, and a message about one of them must not lower the
    /// group of another — with one request per load (§VI-A's non-divergent benchmarks) a
    /// load's group is the only one of it, nothing is coordinated, and the choice stays the
    /// bank table's. Warp 1's load misses in bank 0 and warp 2's load in slot 1 misses in bank
    /// 1 (score 3 each; warp 1's queued first). A message says warp 2's load in slot 0 was
    /// served elsewhere at score 1: it names another load, so warp 1's group goes first; with
    /// `names = "warp"` (the rule before) it lowered warp 2's group to 1, which went first.
    #[test]
    fn a_message_lowers_only_the_group_of_the_load_it_names() {
        let setup = |names: &str| {
            let mut k = Kit::new(&["dram.scheduler=wg-m", &format!("dram.coordination.names={names}")]);
            let mut s = WarpAware::<WgM>::new(&k.config);
            k.open(0, 5);
            k.open(1, 9);
            k.group(&mut s, (0, 1, 0), &[(0, 6)]);
            k.group(&mut s, (0, 2, 1), &[(1, 8)]);
            receive(&mut k, &mut s, (0, 2, 0), 1);
            (k, s)
        };
        let (mut k, mut s) = setup("warp-load");
        assert_eq!(s.stats.coord_applied, 0);
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 1, 3)]);
        // A message naming warp 2's load in slot 1 does lower it.
        receive(&mut k, &mut s, (0, 2, 1), 1);
        assert_eq!(s.stats.coord_applied, 1);
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 2, 1)]);

        let (mut k, mut s) = setup("warp");
        assert_eq!(s.stats.coord_applied, 1);
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 2, 1)]);
    }
}
