//! GMC's row sorter and transaction scheduler (seed 000 §II-C, Fig. 1 ③④).
//!
//! Requests of a bank are kept as streams of ⟨bank, row⟩ (here: the bank's arrival-ordered
//! list, read by row). Each DRAM cycle the transaction scheduler visits the banks round-robin
//! (interleaving banks for bank-level parallelism) and places one request of the first bank
//! whose command queue has room:
//!
//! 1. the bank's oldest request if it has waited `age_threshold` DRAM cycles (no starvation);
//! 2. otherwise the oldest request of the row-hit stream — the row the bank will have open
//!    after its queue drains — unless that stream already had `max_row_hit_streak` requests;
//! 3. otherwise the oldest request of another row (a new stream), or of the same row when no
//!    other row is waiting.
//!
//! The warp-aware schedulers use it for writes, which have no warp to group by.

use super::SchedCtx;
use crate::sim::dram::cmd_queue::CommandQueues;
use crate::sim::dram::queues::Slot;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RowSorter {
    /// DRAM cycles after which a waiting request goes first.
    pub age_threshold: u64,
    /// Requests of one row placed back to back before another row gets a turn.
    pub max_streak: u32,
    /// Per bank: requests placed since its scheduled row last changed.
    pub streak: Vec<u32>,
    /// Requests placed because they had aged past the threshold.
    pub aged: u64,
    rr: usize,
}

impl RowSorter {
    pub fn new(banks: usize, age_threshold: u64, max_streak: u32) -> RowSorter {
        RowSorter { age_threshold, max_streak, streak: vec![0; banks], aged: 0, rr: 0 }
    }

    /// Places one request of the active direction. Returns whether one was placed.
    pub fn step(&mut self, cmdq: &mut CommandQueues, ctx: &SchedCtx<'_>) -> bool {
        let dir = ctx.draining as usize;
        let banks = cmdq.banks.len();
        for i in 0..banks {
            let bank = (self.rr + i) % banks;
            if cmdq.unplaced[dir][bank] == 0 || !cmdq.has_room(bank) {
                continue;
            }
            let Some(slot) = self.choose(cmdq, ctx, bank) else { continue };
            let row = ctx.queues.get(slot).row;
            if cmdq.scheduled_row(bank, ctx.device) == Some(row) {
                self.streak[bank] += 1;
            } else {
                self.streak[bank] = 1;
            }
            cmdq.place(slot, ctx, 0);
            self.rr = (bank + 1) % banks;
            return true;
        }
        false
    }

    /// The request of `bank` to place next (rules 1–3 above).
    pub fn choose(&mut self, cmdq: &CommandQueues, ctx: &SchedCtx<'_>, bank: usize) -> Option<Slot> {
        let list = &ctx.lists()[bank];
        let mut waiting = list.iter().filter(|l| !cmdq.placed[l.slot as usize]);
        let oldest = waiting.next()?;
        if ctx.now.saturating_sub(ctx.queues.get(oldest.slot).arrival) >= self.age_threshold {
            self.aged += 1;
            return Some(oldest.slot);
        }
        let open = cmdq.scheduled_row(bank, ctx.device);
        let unplaced = || list.iter().filter(|l| !cmdq.placed[l.slot as usize]);
        if self.streak[bank] < self.max_streak
            && let Some(hit) = unplaced().find(|l| Some(l.row) == open)
        {
            return Some(hit.slot);
        }
        Some(unplaced().find(|l| Some(l.row) != open).unwrap_or(oldest).slot)
    }
}
