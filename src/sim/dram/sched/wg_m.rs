//! WG-M: warp-group scheduling coordinated across controllers (seed 000 §IV-C; MECHANISMS
//! §3). WG's choice, plus: every selection is broadcast as ⟨SM, warp, score⟩ on the
//! coordination network ([`crate::sim::dram::coord`]), and a received remote score RC lowers
//! the local score LC of a group of the same warp by LC − RC when LC > RC, so a warp whose
//! requests are being served elsewhere is not left waiting here.

use super::warp_groups::{WarpGroupPolicy, WarpSorter, lowest_score};
use super::{SchedCtx, SchedulerStats};
use crate::config::Config;

#[derive(Clone, Debug, PartialEq, Eq)]
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

    #[test]
    fn a_lower_remote_score_lowers_the_local_one() {
        let mut k = Kit::new(&["dram.scheduler=wg-m"]);
        let mut s = WarpAware::<WgM>::new(&k.config);
        k.open(0, 5);
        // ⟨SM 1, warp 2⟩: two row misses in bank 0: 3 + 3 = 6.
        let g = k.group(&mut s, (1, 2, 0), &[(0, 6), (0, 7)]);
        // Another warp: a miss and a hit to the row it opens in bank 1: 3 + 1 = 4.
        k.group(&mut s, (0, 0, 0), &[(1, 8), (1, 8)]);
        let receive = |k: &mut Kit, s: &mut WarpAware<WgM>, sm, warp, score| {
            let (ctx, sink) = k.ctx();
            s.on_remote(&CoordMessage { from: 3, sm, warp, score }, &ctx, sink);
        };
        receive(&mut k, &mut s, 1, 2, 9);
        receive(&mut k, &mut s, 1, 5, 1);
        let group =
            |s: &WarpAware<WgM>| s.sorter.groups.iter().find(|x| x.active && x.slots == g).unwrap().clone();
        assert_eq!(
            (group(&s).score(), group(&s).remote_updates),
            (6, 0),
            "RC > LC, or another warp: no change"
        );
        receive(&mut k, &mut s, 1, 2, 2);
        assert_eq!((group(&s).score(), group(&s).remote_credit, group(&s).remote_updates), (2, 4, 1));
        let (_, ev) = k.select(&mut s);
        assert!(
            matches!(ev[0], Event::RemoteScore { from: 3, sm: 1, warp: 2, local: 6, remote: 2, .. }),
            "{ev:?}"
        );
        assert!(matches!(ev[1], Event::WarpGroupScheduled { sm: 1, warp: 2, score: 2, .. }), "{ev:?}");
        // Its selection is broadcast with the score it was chosen at.
        assert_eq!(s.outbox.pop_front(), Some(CoordMessage { from: 0, sm: 1, warp: 2, score: 2 }));
        assert_eq!(s.stats.coord_applied, 1);
    }
}
