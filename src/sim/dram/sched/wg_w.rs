//! WG-W: warp-aware write draining (seed 000 §IV-E; MECHANISMS §3). WG-Bw, except that once
//! the write queue is within `warp_aware.write_window` (8) entries of its high watermark — a
//! drain is about to stall every read — complete single-request warp-groups go first,
//! regardless of score (the lowest-scored of them), so short and nearly-served warps are not
//! caught behind the drain.

use super::warp_groups::{WarpGroupPolicy, WarpSorter, lowest_score};
use super::{SchedCtx, SchedulerStats};
use crate::config::Config;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WgW {
    /// Write-queue entries below the high watermark at which single-request groups go first.
    pub window: usize,
}

impl WarpGroupPolicy for WgW {
    const COORDINATED: bool = true;
    const MERB: bool = true;

    fn new(c: &Config) -> Self {
        WgW { window: c.dram.warp_aware.write_window as usize }
    }

    fn pick(&self, sorter: &WarpSorter, ctx: &SchedCtx<'_>, stats: &mut SchedulerStats) -> Option<usize> {
        if ctx.queues.n_writes + self.window >= ctx.write_high
            && let Some(single) = lowest_score(sorter, |g| g.slots.len() == 1)
        {
            stats.single_request_first += 1;
            return Some(single);
        }
        lowest_score(sorter, |_| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::WarpAware;
    use crate::sim::dram::sched::testkit::Kit;

    /// Two hits (score 1) against a one-request miss (score 3), with `writes` queued
    /// (high watermark 32): which bank gets its request placed first.
    fn first(writes: usize) -> (usize, u64) {
        let mut k = Kit::new(&["dram.scheduler=wg-w"]);
        let mut s = WarpAware::<WgW>::new(&k.config);
        k.open(0, 5);
        k.open(1, 9);
        for i in 0..writes {
            k.request(&mut s, 7, i as u32, (0, 0, 0), false, true);
        }
        k.group(&mut s, (0, 1, 0), &[(0, 5), (1, 9)]);
        k.group(&mut s, (0, 2, 0), &[(2, 3)]);
        k.select(&mut s);
        let bank = (0..3).find(|&b| !s.cmdq.banks[b].is_empty()).unwrap();
        (bank, s.stats.single_request_first)
    }

    #[test]
    fn near_the_high_watermark_single_request_groups_go_first() {
        assert_eq!(first(23), (0, 0), "9 entries below the watermark: lowest score");
        assert_eq!(first(24), (2, 1), "within 8 entries: the single-request group");
    }
}
