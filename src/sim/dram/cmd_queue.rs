//! Per-bank command queues and the command scheduler of the GPU memory controller (seed 000
//! §II-C, Fig. 1 ⑤ and ⑥; MECHANISMS §2).
//!
//! A transaction scheduler (GMC's row sorter, or a warp-aware warp sorter) *places* requests
//! into the queue of their bank; the command scheduler then issues, each DRAM cycle, the next
//! command of one bank's head request: it round-robins over the bank groups first, then over
//! the banks of the group, and within a bank it issues strictly in queue order, so it never
//! undoes the transaction scheduler's decisions. A request's next command (PRE, ACT or its
//! column command) is derived from the bank's open row, as everywhere in the controller.
//!
//! `depth` is how many requests a bank's queue holds before the transaction scheduler stops
//! placing new work there: it is what keeps decisions in the sorter, where they can still be
//! reordered. A warp-group is placed whole, so a queue may exceed it by one group.

use super::bank::Device;
use super::merb::MERB_COUNTER_MAX;
use super::queues::{Queues, Slot};
use super::sched::SchedCtx;
use std::collections::VecDeque;

/// A request waiting in a bank's command queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Queued {
    pub slot: Slot,
    pub row: u32,
    /// Score it added to the bank (warp-aware schedulers: 1 row hit, 3 row miss; GMC: 0).
    pub score: u32,
}

/// The command queues of one controller.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommandQueues {
    /// Per bank: requests in issue order.
    pub banks: Vec<VecDeque<Queued>>,
    /// Requests per bank before the transaction scheduler stops placing there.
    pub depth: usize,
    /// Σ scores queued per bank (the warp-aware bank table's queuing score).
    pub queued_score: Vec<u32>,
    /// Per slot: the request is in a command queue (not in the sorter any more).
    pub placed: Vec<bool>,
    /// Per bank: requests still in the sorter, reads (`[0]`) and writes (`[1]`).
    pub unplaced: [Vec<u16>; 2],
    /// Per bank: bursts placed for the bank's scheduled row since the transaction scheduler
    /// switched it to that row, saturating at 31 (WG-Bw's 5-bit row-hit counter; it equals
    /// `Bank::cas_since_act` once the queued commands have issued).
    pub row_bursts: Vec<u32>,
    /// Column commands per request.
    pub cas: u32,
    bank_groups: usize,
    /// Next bank group to look at, and per group the next bank within it.
    rr_group: usize,
    rr_bank: Vec<usize>,
    /// Banks with a non-empty queue.
    nonempty: u64,
}

impl CommandQueues {
    pub fn new(banks: usize, bank_groups: usize, depth: usize, slots: usize, cas: u32) -> CommandQueues {
        CommandQueues {
            banks: (0..banks).map(|_| VecDeque::with_capacity(slots)).collect(),
            depth,
            queued_score: vec![0; banks],
            placed: vec![false; slots],
            unplaced: [vec![0; banks], vec![0; banks]],
            row_bursts: vec![0; banks],
            cas,
            bank_groups,
            rr_group: 0,
            rr_bank: vec![0; bank_groups],
            nonempty: 0,
        }
    }

    /// Requests waiting in command queues.
    pub fn len(&self) -> usize {
        self.banks.iter().map(|q| q.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.nonempty == 0
    }

    /// Whether the transaction scheduler may place more work in this bank.
    #[inline]
    pub fn has_room(&self, bank: usize) -> bool {
        self.banks[bank].len() < self.depth
    }

    /// A request entered the controller (it starts in the sorter).
    pub fn arrive(&mut self, slot: Slot, queues: &Queues) {
        let p = queues.get(slot);
        self.placed[slot as usize] = false;
        self.unplaced[p.is_write as usize][p.bank as usize] += 1;
    }

    /// Moves a request from the sorter to the tail of its bank's queue.
    pub fn place(&mut self, slot: Slot, ctx: &SchedCtx<'_>, score: u32) {
        let p = ctx.queues.get(slot);
        let bank = p.bank as usize;
        debug_assert!(!self.placed[slot as usize], "slot {slot} placed twice");
        self.row_bursts[bank] = if self.scheduled_row(bank, ctx.device) == Some(p.row) {
            (self.row_bursts[bank] + self.cas).min(MERB_COUNTER_MAX)
        } else {
            self.cas.min(MERB_COUNTER_MAX)
        };
        self.placed[slot as usize] = true;
        self.unplaced[p.is_write as usize][bank] -= 1;
        self.banks[bank].push_back(Queued { slot, row: p.row, score });
        self.queued_score[bank] += score;
        self.nonempty |= 1 << bank;
    }

    /// The request at the head of `bank` finished its last column command.
    pub fn retire(&mut self, slot: Slot, bank: usize) {
        let q = self.banks[bank].pop_front().expect("a retiring request is queued");
        debug_assert_eq!(q.slot, slot, "banks issue in queue order");
        self.queued_score[bank] -= q.score;
        self.placed[slot as usize] = false;
        if self.banks[bank].is_empty() {
            self.nonempty &= !(1 << bank);
        }
    }

    /// The row `bank` will have open once its queue drains: the last queued request's row,
    /// or the row open now.
    #[inline]
    pub fn scheduled_row(&self, bank: usize, device: &Device) -> Option<u32> {
        self.banks[bank].back().map(|q| q.row).or(device.banks[bank].open_row)
    }

    /// The command scheduler: the first bank, round-robin over bank groups then over the banks
    /// of a group, whose head request's next command can issue now.
    pub fn pick(&mut self, ctx: &SchedCtx<'_>) -> Option<Slot> {
        if self.nonempty == 0 {
            return None;
        }
        let groups = self.bank_groups;
        let per_group = self.banks.len() / groups;
        for gi in 0..groups {
            let g = (self.rr_group + gi) % groups;
            for bi in 0..per_group {
                let idx = (self.rr_bank[g] + bi) % per_group;
                let bank = idx * groups + g;
                let Some(head) = self.banks[bank].front() else { continue };
                if ctx.ready(head.slot) {
                    self.rr_group = (g + 1) % groups;
                    self.rr_bank[g] = (idx + 1) % per_group;
                    return Some(head.slot);
                }
            }
        }
        None
    }

    /// The first DRAM cycle at which some head request's next command can issue
    /// (`u64::MAX` when every queue is empty).
    pub fn earliest(&self, ctx: &SchedCtx<'_>) -> u64 {
        let mut t = u64::MAX;
        let mut m = self.nonempty;
        while m != 0 {
            let bank = m.trailing_zeros() as usize;
            m &= m - 1;
            let cmd = ctx.next_command(self.banks[bank][0].slot);
            t = t.min(ctx.device.earliest(cmd.kind, bank));
        }
        t
    }

    /// Whether some bank with room still has requests of the direction in the sorter (the
    /// transaction scheduler has work).
    pub fn sorter_has_work(&self, writes: bool) -> bool {
        self.unplaced[writes as usize].iter().enumerate().any(|(b, &n)| n > 0 && self.has_room(b))
    }
}
