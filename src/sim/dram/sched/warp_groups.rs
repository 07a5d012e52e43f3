//! The warp-aware memory controller shared by WG, WG-M, WG-Bw, WG-W and WAFCFS
//! (seed 000 §IV-B, Fig. 6): a warp sorter in place of GMC's row sorter, a bank table of
//! scores, the GMC command queues and command scheduler. What differs between the policies —
//! which complete group goes next, coordination, MERB — is a [`WarpGroupPolicy`], one file
//! each.
//!
//! **Warp-groups.** A warp-group is the requests of one warp-load (SM, warp, load) that reach
//! this controller. The SM tags the last request of the group it sends through each L2 slice
//! of the channel and lists those slices in every request (`Origin::last_to_channel`,
//! `Origin::group_slices`; with one slice per channel this is exactly the paper's tag). The
//! group is *complete* once every listed slice has delivered its tagged request. A tagged
//! request the L2 satisfies never reaches the controller; the slice then forwards the tag (see
//! `L2Slice::forward_tag`), so the group still completes. As a safety net for the rare cases a
//! tag cannot be right (the SM predicts which requests leave its L1 when the load starts, and
//! the L1 can change under the prediction), a group that has received nothing for
//! `incomplete_timeout` DRAM cycles is treated as complete (counted in `groups_timed_out`).
//!
//! **Scores (bank table).** A request scores 1 if it will hit the row its bank has open once
//! the bank's command queue drains (the row of the last request scheduled there), 3 otherwise
//! (tRP + tRCD + tCAS against tCAS); a further request of the group to a row the group already
//! opens in that bank scores 1. Its bank's queuing score — the sum of the scores in the bank's
//! command queue — and the scores of the group's own requests ahead of it in that bank are
//! added, so a group's score, the maximum over its requests, is its expected completion time.
//! Scores are recomputed whenever a request arrives or is placed, a command issues or a request
//! leaves, before the transaction scheduler chooses.
//!
//! **Transaction scheduler.** Each DRAM cycle in read mode it takes the group the policy picks
//! among the *eligible* ones (complete, and every bank it touches has room in its command
//! queue) and places all its requests: per bank, the row hits first, then row by row. When no
//! complete group is eligible, incomplete groups whose banks all have room are
//! (`dram.warp_aware.incomplete`, [`IncompleteGroups`]: by default as soon as those banks have
//! room, so no bank idles waiting for a tag — §IV-A's aim to "maintain high bandwidth
//! utilization ... by exploiting row hits and bank-level parallelism"; or only once every
//! command queue is empty). The rest of such a group, arriving later, forms a new group. In
//! write-drain mode it places writes with GMC's row sorter (writes have no warp).

pub use super::early::Early;
use super::row_sorter::RowSorter;
use super::{SchedCtx, SchedulerStats};
use crate::config::{Config, CoordinationKey, IncompleteGroups};
use crate::sim::dram::cmd_queue::CommandQueues;
use crate::sim::dram::coord::CoordMessage;
use crate::sim::dram::merb::MerbTable;
use crate::sim::dram::queues::{Listed, Pending, Queues, Slot};
use crate::sim::dram::timing::Timing;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::request::Origin;
use std::collections::VecDeque;
use std::fmt::Debug;

/// Score of a request that will hit its bank's scheduled row.
pub const HIT_SCORE: u32 = 1;
/// Score of a request that must open a new row.
pub const MISS_SCORE: u32 = 3;

/// Which warp-load a group belongs to.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize,
)]
pub struct GroupKey {
    pub core: u16,
    pub warp: u16,
    pub load_seq: u32,
    /// The load's slot in its warp's outstanding-load table: what a coordination message
    /// names the load by (no two loads of a warp in flight share one).
    pub load_slot: u8,
}

impl GroupKey {
    pub fn of(o: &Origin) -> GroupKey {
        GroupKey { core: o.core, warp: o.warp, load_seq: o.load_seq, load_slot: o.load_slot }
    }

    /// Whether a coordination message speaks of this group: the same warp, and with
    /// `warp-load` naming the same load (see [`CoordinationKey`]).
    pub fn named_by(&self, msg: &CoordMessage, names: CoordinationKey) -> bool {
        self.core == msg.sm
            && self.warp == msg.warp
            && (names == CoordinationKey::Warp || self.load_slot == msg.load_slot)
    }
}

/// One entry of the warp sorter.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct WarpGroup {
    pub active: bool,
    pub key: GroupKey,
    /// Creation order (ties, views).
    pub seq: u64,
    /// Its requests still in the sorter, in arrival order.
    pub slots: Vec<Slot>,
    /// L2 slices of this channel that send requests of the group (bit per slice).
    pub slices: u8,
    /// Slices whose tagged (last) request arrived or was forwarded.
    pub tagged: u8,
    /// DRAM cycles of the first and the latest arrival.
    pub first_arrival: u64,
    pub last_arrival: u64,
    /// DRAM cycle it became complete (`u64::MAX` while incomplete).
    pub completed: u64,
    /// Scheduled before its tags completed it, and why.
    pub early: Early,
    /// Score from the bank table at the last rescoring.
    pub base_score: u32,
    /// Lowered in total by other controllers' messages (WG-M).
    pub remote_credit: u32,
    /// Messages that lowered its score.
    pub remote_updates: u16,
    /// Its requests that would hit their bank's scheduled row.
    pub row_hits: u16,
}

impl WarpGroup {
    /// The group's score: the bank table's, lowered by remote updates.
    #[inline]
    pub fn score(&self) -> u32 {
        self.base_score.saturating_sub(self.remote_credit)
    }

    #[inline]
    pub fn is_complete(&self) -> bool {
        self.completed != u64::MAX
    }
}

/// What makes one warp-aware policy different from another.
pub trait WarpGroupPolicy: Clone + Debug + PartialEq + Eq {
    /// Broadcast each selection to the other controllers and apply theirs (WG-M, §IV-C).
    const COORDINATED: bool = false;
    /// Postpone row misses by the Minimum Efficient Row Burst (WG-Bw, §IV-D).
    const MERB: bool = false;
    fn new(c: &Config) -> Self;
    /// Picks the next group among the eligible ones (`sorter.eligible[i]`).
    fn pick(&self, sorter: &WarpSorter, ctx: &SchedCtx<'_>, stats: &mut SchedulerStats) -> Option<usize>;
}

/// Lowest score first; ties to more row hits (less DRAM energy, §IV-B1), then to the group
/// that completed first.
pub fn lowest_score(sorter: &WarpSorter, only: impl Fn(&WarpGroup) -> bool) -> Option<usize> {
    sorter.eligible_groups().filter(|&i| only(&sorter.groups[i])).min_by_key(|&i| {
        let g = &sorter.groups[i];
        (g.score(), std::cmp::Reverse(g.row_hits), g.completed, g.seq)
    })
}

/// The warp sorter: groups with their requests, plus per-group eligibility.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WarpSorter {
    /// A slab of groups (`active` marks live entries).
    pub groups: Vec<WarpGroup>,
    /// Per group: may be scheduled now (set before each pick).
    pub eligible: Vec<bool>,
    /// Per slot: the group holding the request while it is in the sorter.
    group_of: Vec<u16>,
    /// DRAM cycles without arrivals after which an incomplete group is scheduled anyway.
    pub incomplete_timeout: u64,
    next_seq: u64,
}

const NO_GROUP: u16 = u16::MAX;
/// Coordination messages a controller holds before the network takes them.
const OUTBOX: usize = 8;

impl WarpSorter {
    fn new(groups: usize, slots: usize, per_group: usize, incomplete_timeout: u64) -> WarpSorter {
        WarpSorter {
            groups: (0..groups)
                .map(|_| WarpGroup { slots: Vec::with_capacity(per_group), ..Default::default() })
                .collect(),
            eligible: vec![false; groups],
            group_of: vec![NO_GROUP; slots],
            incomplete_timeout,
            next_seq: 0,
        }
    }

    /// Live groups, oldest first.
    pub fn active(&self) -> impl Iterator<Item = (usize, &WarpGroup)> {
        let mut v: Vec<(usize, &WarpGroup)> =
            self.groups.iter().enumerate().filter(|(_, g)| g.active).collect();
        v.sort_by_key(|(_, g)| g.seq);
        v.into_iter()
    }

    /// Groups that may be scheduled now.
    pub fn eligible_groups(&self) -> impl Iterator<Item = usize> + '_ {
        self.eligible.iter().enumerate().filter(|(_, e)| **e).map(|(i, _)| i)
    }

    fn find(&self, key: GroupKey) -> Option<usize> {
        self.groups.iter().position(|g| g.active && g.key == key)
    }

    /// The group of `key`, created if needed. A full slab drops its oldest empty group
    /// (one exists: every request sits in at most one group).
    fn entry(&mut self, key: GroupKey, now: u64) -> usize {
        if let Some(i) = self.find(key) {
            return i;
        }
        let i = match self.groups.iter().position(|g| !g.active) {
            Some(i) => i,
            None => {
                let i = self
                    .groups
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.slots.is_empty())
                    .min_by_key(|(_, g)| g.seq)
                    .map(|(i, _)| i)
                    .expect("an empty group exists when the sorter is full");
                self.groups[i].active = false;
                i
            }
        };
        let g = &mut self.groups[i];
        g.slots.clear();
        *g = WarpGroup {
            active: true,
            key,
            seq: self.next_seq,
            slots: std::mem::take(&mut g.slots),
            first_arrival: now,
            last_arrival: now,
            completed: u64::MAX,
            ..WarpGroup::default()
        };
        self.next_seq += 1;
        i
    }

    /// Completes the group once every slice that sends it requests has delivered its tag.
    fn check_complete(g: &mut WarpGroup, now: u64) {
        if !g.is_complete() && g.slices != 0 && g.tagged & g.slices == g.slices {
            g.completed = now;
        }
    }

    /// Removes a request from its group (it was placed in a command queue).
    fn take(&mut self, slot: Slot) {
        let gi = self.group_of[slot as usize];
        if gi == NO_GROUP {
            return;
        }
        self.group_of[slot as usize] = NO_GROUP;
        let g = &mut self.groups[gi as usize];
        if let Some(pos) = g.slots.iter().position(|&s| s == slot) {
            g.slots.remove(pos);
        }
        // An empty group only lingers while it still waits for its tags.
        if g.slots.is_empty() && g.is_complete() {
            g.active = false;
        }
    }
}

/// A warp-aware controller: warp sorter, bank table, command queues.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WarpAware<P: WarpGroupPolicy> {
    pub sorter: WarpSorter,
    pub cmdq: CommandQueues,
    /// Transaction scheduler for writes.
    pub rows: RowSorter,
    /// MERB(b) for WG-Bw and WG-W (present only for them).
    pub merb: Option<MerbTable>,
    /// Coordination messages to broadcast (WG-M), oldest first.
    pub outbox: VecDeque<CoordMessage>,
    pub stats: SchedulerStats,
    /// When a group may go before its tags complete it.
    pub incomplete: IncompleteGroups,
    /// Which local groups a coordination message lowers (WG-M).
    pub names: CoordinationKey,
    /// Scores may be stale (something changed since the last rescoring).
    dirty: bool,
    /// The last `select` placed a group: the eligibility it marked is stale (with
    /// `idle-banks`, the incomplete groups may go once no complete one is left).
    placed: bool,
    /// Scratch: per-bank score sums while rescoring.
    acc: Vec<u32>,
    /// The policy's own parameters.
    pub policy: P,
}

impl<P: WarpGroupPolicy> WarpAware<P> {
    pub fn new(c: &Config) -> WarpAware<P> {
        let d = &c.dram;
        let banks = d.banks as usize;
        let slots = (d.read_queue + d.write_queue) as usize;
        let reads = d.read_queue as usize;
        let burst = c.dram_burst_bytes();
        WarpAware {
            sorter: WarpSorter::new(2 * reads, slots, reads, d.warp_aware.incomplete_timeout),
            cmdq: CommandQueues::new(
                banks,
                d.bank_groups as usize,
                d.gmc.cmd_queue_depth as usize,
                slots,
                c.l2.line_bytes.div_ceil(burst).max(1),
            ),
            rows: RowSorter::new(banks, d.gmc.age_threshold, d.gmc.max_row_hit_streak),
            merb: P::MERB.then(|| MerbTable::new(&Timing::from_config(c), banks)),
            outbox: VecDeque::with_capacity(OUTBOX),
            stats: SchedulerStats::default(),
            incomplete: d.warp_aware.incomplete,
            names: d.coordination.names,
            dirty: true,
            placed: false,
            acc: vec![0; banks],
            policy: P::new(c),
        }
    }

    pub fn on_arrival(&mut self, slot: Slot, queues: &Queues) {
        self.cmdq.arrive(slot, queues);
        self.dirty = true;
        let p = queues.get(slot);
        if p.is_write {
            return;
        }
        let o = &p.req.origin;
        let now = p.arrival;
        let gi = self.sorter.entry(GroupKey::of(o), now);
        self.sorter.group_of[slot as usize] = gi as u16;
        let g = &mut self.sorter.groups[gi];
        g.slots.push(slot);
        g.last_arrival = now;
        g.slices |= o.group_slices;
        if o.last_to_channel {
            g.tagged |= 1 << p.req.loc.slice;
        }
        WarpSorter::check_complete(g, now);
    }

    /// The L2 slice `slice` satisfied the tagged request of `key` (see `L2Slice::forward_tag`).
    /// A group not seen yet is created empty, so the tag waits for the requests coming through
    /// the channel's other slices.
    pub fn on_group_end(&mut self, key: GroupKey, slice: u8, now: u64) {
        let i = self.sorter.entry(key, now);
        let g = &mut self.sorter.groups[i];
        g.tagged |= 1 << slice;
        WarpSorter::check_complete(g, now);
        if g.slots.is_empty() && g.is_complete() {
            g.active = false;
        }
        self.dirty = true;
    }

    pub fn on_changed(&mut self) {
        self.dirty = true;
    }

    pub fn on_retire(&mut self, slot: Slot, bank: usize) {
        self.cmdq.retire(slot, bank);
        self.dirty = true;
    }

    /// A coordination message from another controller (WG-M): a local group the message names
    /// (the same warp-load; see [`CoordinationKey`]) whose score LC exceeds the remote score
    /// RC is lowered by LC − RC.
    pub fn on_remote(&mut self, msg: &CoordMessage, ctx: &SchedCtx<'_>, sink: &mut EventSink) {
        self.rescore(ctx);
        self.stats.coord_received += 1;
        for g in self.sorter.groups.iter_mut().filter(|g| g.active) {
            if !g.key.named_by(msg, self.names) {
                continue;
            }
            let local = g.score();
            if local > msg.score {
                g.remote_credit += local - msg.score;
                g.remote_updates += 1;
                self.stats.coord_applied += 1;
                if sink.wants(EventKind::RemoteScore) {
                    sink.emit(Event::RemoteScore {
                        channel: ctx.channel,
                        from: msg.from,
                        sm: msg.sm,
                        warp: msg.warp,
                        local,
                        remote: msg.score,
                    });
                }
            }
        }
    }

    /// Recomputes every group's score and row hits from the bank table (the transaction
    /// scheduler does before choosing; a view may, to show current scores).
    pub fn rescore(&mut self, ctx: &SchedCtx<'_>) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let (queues, device) = (ctx.queues, ctx.device);
        for g in self.sorter.groups.iter_mut().filter(|g| g.active) {
            let mut hits = 0u16;
            for (i, &slot) in g.slots.iter().enumerate() {
                let p = queues.get(slot);
                let bank = p.bank as usize;
                let hit = self.cmdq.scheduled_row(bank, device) == Some(p.row);
                let reopens = g.slots[..i].iter().any(|&s| {
                    let q = queues.get(s);
                    q.bank == p.bank && q.row == p.row
                });
                hits += u16::from(hit);
                self.acc[bank] += if hit || reopens { HIT_SCORE } else { MISS_SCORE };
            }
            let mut score = 0;
            for &slot in &g.slots {
                let bank = queues.get(slot).bank as usize;
                if self.acc[bank] > 0 {
                    score = score.max(self.acc[bank] + self.cmdq.queued_score[bank]);
                    self.acc[bank] = 0;
                }
            }
            g.base_score = score;
            g.row_hits = hits;
        }
    }

    /// Marks the groups that may be scheduled now; returns whether any may.
    fn mark_eligible(&mut self, ctx: &SchedCtx<'_>) -> bool {
        let timeout = self.sorter.incomplete_timeout;
        let mut any = false;
        for (i, g) in self.sorter.groups.iter_mut().enumerate() {
            let expired = g.active && !g.is_complete() && ctx.now >= g.last_arrival + timeout;
            if expired && g.slots.is_empty() {
                // A tag whose requests never came (all served above, or already scheduled).
                g.active = false;
            } else if expired {
                g.completed = ctx.now;
                g.early = Early::TimedOut;
            }
            let ok = g.active
                && !g.slots.is_empty()
                && g.is_complete()
                && g.slots.iter().all(|&s| self.cmdq.has_room(ctx.queues.get(s).bank as usize));
            self.sorter.eligible[i] = ok;
            any |= ok;
        }
        let idle = match self.incomplete {
            IncompleteGroups::IdleBanks => true,
            IncompleteGroups::IdleChannel => self.cmdq.is_empty(),
        };
        if !any && idle {
            // No complete group can go: waiting for tags would only idle the banks.
            for (i, g) in self.sorter.groups.iter().enumerate() {
                let ok = g.active
                    && !g.slots.is_empty()
                    && g.slots.iter().all(|&s| self.cmdq.has_room(ctx.queues.get(s).bank as usize));
                self.sorter.eligible[i] = ok;
                any |= ok;
            }
        }
        any
    }

    /// The transaction scheduler then the command scheduler (see the module doc).
    pub fn select(&mut self, ctx: &SchedCtx<'_>, sink: &mut EventSink) -> Option<Slot> {
        self.placed = false;
        if ctx.draining {
            self.rows.step(&mut self.cmdq, ctx);
        } else if self.mark_eligible(ctx) {
            self.rescore(ctx);
            if let Some(gi) = self.policy.pick(&self.sorter, ctx, &mut self.stats) {
                self.schedule(gi, ctx, sink);
                self.placed = true;
            }
        }
        self.cmdq.pick(ctx)
    }

    /// Places group `gi` in the command queues.
    fn schedule(&mut self, gi: usize, ctx: &SchedCtx<'_>, sink: &mut EventSink) {
        let g = &mut self.sorter.groups[gi];
        if !g.is_complete() {
            g.completed = ctx.now;
            g.early = Early::Idle;
        }
        let (key, score, requests, row_hits, early) = (g.key, g.score(), g.slots.len(), g.row_hits, g.early);
        self.stats.groups_scheduled += 1;
        self.stats.groups_timed_out += u64::from(early == Early::TimedOut);
        self.stats.groups_forced += u64::from(early == Early::Idle);
        if sink.wants(EventKind::WarpGroupScheduled) {
            sink.emit(Event::WarpGroupScheduled {
                channel: ctx.channel,
                sm: key.core,
                warp: key.warp,
                load_seq: key.load_seq,
                score,
                requests: requests as u16,
                row_hits,
                early,
            });
        }
        if P::COORDINATED {
            // The GPU drains the outbox every DRAM cycle; a controller on its own keeps the last few.
            if self.outbox.len() == OUTBOX {
                self.outbox.pop_front();
            }
            self.outbox.push_back(CoordMessage {
                from: ctx.channel,
                sm: key.core,
                warp: key.warp,
                load_slot: key.load_slot,
                score,
            });
            self.stats.coord_sent += 1;
        }
        // Bank by bank, in the order the group first touches them.
        while let Some(&first) = self.sorter.groups[gi].slots.first() {
            let bank = ctx.queues.get(first).bank as usize;
            let open = self.cmdq.scheduled_row(bank, ctx.device);
            self.place_where(gi, ctx, |p| p.bank as usize == bank && Some(p.row) == open, HIT_SCORE);
            if P::MERB
                && self.sorter.groups[gi].slots.iter().any(|&s| ctx.queues.get(s).bank as usize == bank)
            {
                self.merb_fill(bank, ctx, sink);
            }
            // The rest of this bank, one row at a time.
            while let Some(&s) =
                self.sorter.groups[gi].slots.iter().find(|&&s| ctx.queues.get(s).bank as usize == bank)
            {
                let row = ctx.queues.get(s).row;
                self.place_one(s, ctx, MISS_SCORE);
                self.place_where(gi, ctx, |p| p.bank as usize == bank && p.row == row, HIT_SCORE);
            }
        }
        self.sorter.groups[gi].active = false;
        self.dirty = true;
    }

    /// Places every request of group `gi` matching `pred`, in arrival order.
    fn place_where(&mut self, gi: usize, ctx: &SchedCtx<'_>, pred: impl Fn(&Pending) -> bool, score: u32) {
        let mut i = 0;
        while i < self.sorter.groups[gi].slots.len() {
            let s = self.sorter.groups[gi].slots[i];
            if pred(ctx.queues.get(s)) {
                self.place_one(s, ctx, score);
            } else {
                i += 1;
            }
        }
    }

    fn place_one(&mut self, slot: Slot, ctx: &SchedCtx<'_>, score: u32) {
        self.sorter.take(slot);
        self.cmdq.place(slot, ctx, score);
    }

    /// WG-Bw (§IV-D): before a row miss on `bank`, serve other groups' pending hits to the
    /// bank's row until its counter reaches MERB(b), b = banks with pending work; then, if only
    /// one or two hits would be left behind, serve them too (orphan control).
    fn merb_fill(&mut self, bank: usize, ctx: &SchedCtx<'_>, sink: &mut EventSink) {
        let Some(row) = self.cmdq.scheduled_row(bank, ctx.device) else { return };
        let merb = self.merb.as_ref().expect("MERB policies build the table");
        let busy_banks = ctx.queues.busy_banks(ctx.draining);
        let threshold = merb.get(busy_banks);
        fn hits<'a>(
            list: &'a [Listed],
            cmdq: &'a CommandQueues,
            row: u32,
        ) -> impl Iterator<Item = &'a Listed> + 'a {
            list.iter().filter(move |l| l.row == row && !cmdq.placed[l.slot as usize])
        }
        let list = &ctx.lists()[bank];
        let counter = self.cmdq.row_bursts[bank];
        let mut moved = 0;
        if counter < threshold {
            let want = (threshold - counter).div_ceil(self.cmdq.cas) as usize;
            while moved < want {
                let Some(&l) = hits(list, &self.cmdq, row).next() else { break };
                self.place_one(l.slot, ctx, HIT_SCORE);
                moved += 1;
            }
            if moved > 0 {
                self.stats.merb_postponements += 1;
                self.stats.merb_hits_moved += moved as u64;
                if sink.wants(EventKind::MerbPostpone) {
                    sink.emit(Event::MerbPostpone {
                        channel: ctx.channel,
                        bank: bank as u8,
                        row,
                        counter,
                        merb: threshold,
                        hits: moved as u16,
                    });
                }
            }
        }
        let left = hits(list, &self.cmdq, row).count();
        if self.cmdq.row_bursts[bank] >= threshold && (1..=2).contains(&left) {
            for _ in 0..left {
                let Some(&l) = hits(list, &self.cmdq, row).next() else { break };
                self.place_one(l.slot, ctx, HIT_SCORE);
            }
            self.stats.orphans_moved += left as u64;
        }
    }

    /// The first cycle the scheduler may do something if nothing else happens.
    pub fn wake_at(&self, ctx: &SchedCtx<'_>) -> u64 {
        let now = ctx.now;
        let mut t = self.cmdq.earliest(ctx);
        if ctx.draining {
            if self.cmdq.sorter_has_work(true) {
                return now + 1;
            }
            return t.max(now + 1);
        }
        if self.placed {
            return now + 1;
        }
        for (i, g) in self.sorter.groups.iter().enumerate() {
            if !g.active {
                continue;
            }
            if self.sorter.eligible[i] && !g.slots.is_empty() {
                return now + 1;
            }
            // Timeouts complete waiting groups and drop empty ones: wake for them.
            if !g.is_complete() {
                t = t.min(g.last_arrival + self.sorter.incomplete_timeout);
            }
        }
        t.max(now + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::Wg;
    use crate::sim::dram::sched::testkit::Kit;

    fn placed(s: &WarpAware<Wg>, bank: usize) -> Vec<Slot> {
        s.cmdq.banks[bank].iter().map(|q| q.slot).collect()
    }

    /// (SM, warp) of the groups a pick placed, and whether each went early.
    fn scheduled(ev: &[Event]) -> Vec<(u16, u16, Early)> {
        ev.iter()
            .filter_map(|e| match *e {
                Event::WarpGroupScheduled { sm, warp, early, .. } => Some((sm, warp, early)),
                _ => None,
            })
            .collect()
    }

    /// Command queues hold one request (the default depth). Bank 0 serves group A; complete
    /// group B waits for bank 0; group C has a row hit in idle bank 1 and its tagged last
    /// request still on the way.
    fn busy_bank_and_an_incomplete_group(rule: &str) -> (Kit, WarpAware<Wg>, Slot) {
        let mut k = Kit::new(&["dram.scheduler=wg", &format!("dram.warp_aware.incomplete={rule}")]);
        let mut s = WarpAware::<Wg>::new(&k.config);
        k.open(0, 5);
        k.open(1, 9);
        let a = k.group(&mut s, (0, 1, 0), &[(0, 5)]);
        k.select(&mut s);
        assert_eq!(placed(&s, 0), a);
        k.group(&mut s, (0, 2, 0), &[(0, 6)]);
        let c = k.request(&mut s, 1, 9, (0, 3, 0), false, false);
        (k, s, c)
    }

    /// Seed 000 §IV-A: the warp-aware scheduler aims to "maintain high bandwidth utilization
    /// and low overall memory latency by exploiting row hits and bank-level parallelism"; the
    /// paper places only complete groups and is silent on the case where none can go. With
    /// `idle-banks` bank 1 serves C's request instead of idling for its tag; with
    /// `idle-channel` (the rule before issue 13) it idles until bank 0's queue is empty too.
    #[test]
    fn an_idle_bank_takes_an_incomplete_group_when_no_complete_one_can_go() {
        let (mut k, mut s, c) = busy_bank_and_an_incomplete_group("idle-banks");
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 3, Early::Idle)]);
        assert_eq!(placed(&s, 1), vec![c]);
        assert_eq!(s.stats.groups_forced, 1);
        // C's last request arrives later: a group of its own, complete, placed as usual.
        k.retire(&mut s, c);
        let rest = k.request(&mut s, 1, 9, (0, 3, 0), true, false);
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 3, Early::No)]);
        assert_eq!(placed(&s, 1), vec![rest]);

        let (mut k, mut s, _) = busy_bank_and_an_incomplete_group("idle-channel");
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![], "bank 0 still works: bank 1 waits for C's tag");
        assert!(placed(&s, 1).is_empty());
    }

    /// Complete groups still go first: D (a row miss, score 3) before C (a row hit, score 1,
    /// incomplete); C once no complete group can go — at the next choice, so the controller
    /// may not sleep until the banks' next command (50) however busy they are.
    #[test]
    fn complete_groups_go_before_incomplete_ones() {
        let (mut k, mut s, c) = busy_bank_and_an_incomplete_group("idle-banks");
        for b in &mut k.device.banks {
            (b.next_act, b.next_pre, b.next_rd) = (50, 50, 50);
        }
        let d = k.group(&mut s, (0, 4, 0), &[(2, 7)]);
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 4, Early::No)]);
        assert_eq!(placed(&s, 2), d);
        assert_eq!(s.wake_at(&k.ctx().0), k.now + 1);
        let (_, ev) = k.select(&mut s);
        assert_eq!(scheduled(&ev), vec![(0, 3, Early::Idle)]);
        assert_eq!(placed(&s, 1), vec![c]);
    }
}
