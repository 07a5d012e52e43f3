//! GMC: the baseline GPU memory controller (seed 000 §II-C, Fig. 1; MECHANISMS §2). A row
//! sorter of ⟨bank, row⟩ streams and a transaction scheduler with an age threshold and a
//! maximum row-hit streak ([`RowSorter`]) feed per-bank command queues; the command scheduler
//! round-robins bank groups, then banks, issuing in queue order within a bank
//! ([`CommandQueues`]). Reads and writes are not mixed: the controller's watermark write
//! drain picks which queue the row sorter serves.

use super::row_sorter::RowSorter;
use super::{DramScheduler, SchedCtx, SchedulerStats};
use crate::config::Config;
use crate::sim::dram::cmd_queue::CommandQueues;
use crate::sim::dram::queues::{Pending, Queues, Slot};
use crate::sim::event::EventSink;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Gmc {
    pub rows: RowSorter,
    pub cmdq: CommandQueues,
}

impl Gmc {
    pub fn new(c: &Config) -> Gmc {
        let d = &c.dram;
        let cas = c.l2.line_bytes.div_ceil(c.dram_burst_bytes()).max(1);
        Gmc {
            rows: RowSorter::new(d.banks as usize, d.gmc.age_threshold, d.gmc.max_row_hit_streak),
            cmdq: CommandQueues::new(
                d.banks as usize,
                d.bank_groups as usize,
                d.gmc.cmd_queue_depth as usize,
                (d.read_queue + d.write_queue) as usize,
                cas,
            ),
        }
    }
}

impl DramScheduler for Gmc {
    fn on_arrival(&mut self, slot: Slot, queues: &Queues) {
        self.cmdq.arrive(slot, queues);
    }

    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        self.rows.step(&mut self.cmdq, ctx);
        self.cmdq.pick(ctx)
    }

    fn on_retire(&mut self, slot: Slot, p: &Pending) {
        self.cmdq.retire(slot, p.bank as usize);
    }

    fn wake_at(&self, ctx: &SchedCtx<'_>) -> Option<u64> {
        // Time only matters to the row sorter (ageing) when it places, and it places every
        // cycle while it has work; otherwise only a head command's readiness wakes it.
        Some(if self.cmdq.sorter_has_work(ctx.draining) {
            ctx.now + 1
        } else {
            self.cmdq.earliest(ctx).max(ctx.now + 1)
        })
    }

    fn stats(&self) -> SchedulerStats {
        SchedulerStats { aged: self.rows.aged, ..SchedulerStats::default() }
    }

    fn command_queues(&self) -> Option<&CommandQueues> {
        Some(&self.cmdq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::testkit::Kit;

    /// Places and serves bank 0's requests one by one (each leaves its row open); returns
    /// their rows in order.
    fn order(k: &mut Kit, s: &mut Gmc, n: usize) -> Vec<u32> {
        let mut rows = Vec::new();
        for _ in 0..n {
            k.select(s);
            let q = *s.cmdq.banks[0].front().expect("one placed");
            rows.push(q.row);
            k.retire(s, q.slot);
            k.open(0, q.row);
        }
        rows
    }

    #[test]
    fn row_hits_first_up_to_the_streak_then_the_oldest_other_row() {
        let mut k = Kit::new(&["dram.scheduler=gmc", "dram.gmc.max_row_hit_streak=3"]);
        let mut s = Gmc::new(&k.config);
        k.open(0, 5);
        k.request(&mut s, 0, 9, (0, 0, 0), false, false);
        k.request(&mut s, 0, 8, (0, 0, 0), false, false);
        for _ in 0..5 {
            k.request(&mut s, 0, 5, (0, 0, 0), false, false);
        }
        k.now = 10;
        assert_eq!(order(&mut k, &mut s, 7), vec![5, 5, 5, 9, 8, 5, 5]);
    }

    #[test]
    fn a_request_past_the_age_threshold_goes_before_hits() {
        let mut k = Kit::new(&["dram.scheduler=gmc", "dram.gmc.age_threshold=100"]);
        let mut s = Gmc::new(&k.config);
        k.open(0, 5);
        k.request(&mut s, 0, 9, (0, 0, 0), false, false);
        k.now = 50;
        for _ in 0..3 {
            k.request(&mut s, 0, 5, (0, 0, 0), false, false);
        }
        k.now = 99;
        assert_eq!(order(&mut k, &mut s, 1), vec![5], "not old yet");
        k.now = 100;
        assert_eq!(order(&mut k, &mut s, 3), vec![9, 5, 5]);
        assert_eq!(s.rows.aged, 1);
    }
}
