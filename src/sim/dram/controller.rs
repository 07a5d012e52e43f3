//! One memory controller and its GDDR5 channel (MECHANISMS §2; seed 000 §II-C, Fig. 1).
//!
//! Requests enter a read or a write queue. Each DRAM cycle the controller (1) refreshes when
//! due, (2) decides between serving reads and draining writes as its scheduler's
//! [`WritePolicy`] says — by default writes drain when the write queue rises above the high
//! watermark, or when no reads are pending, until it falls to the low watermark — and (3) asks
//! its scheduler for a request, derives its next command from the bank's open row and issues
//! it. A line needs `line / burst` column commands; a read's data returns `tCAS + tBURST`
//! after its last one. With opportunistic prefetching on ([`Prefetcher`]), prefetch bursts
//! go ahead of the scheduler on a held bank, or use the cycles it leaves idle.
//!
//! The controller also stands alone (no GPU around it), which is what DRAM-only trace mode
//! and the timing property tests use.

use super::bank::Device;
use super::command::{Command, CommandKind};
use super::coord::CoordMessage;
use super::credits::Credits;
use super::prefetch::Prefetcher;
use super::queues::{Pending, Queues, Slot};
use super::sched::{DrainCause, DramScheduler, DramSchedulerKind, GroupKey, SchedCtx, WritePolicy};
use super::timing::Timing;
use crate::config::Config;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::fingerprint;
use crate::sim::ledger::Ledger;
use crate::sim::queue::LatencyQueue;
use crate::sim::record::{Pass, Point, Who};
use crate::sim::request::{AccessKind, MemRequest, RowOutcome};
use crate::sim::stats::ChannelStats;
use std::collections::VecDeque;

/// [`Controller::drain_steady`] before the first check and after a switch: no queue counts.
const NOT_STEADY: (usize, usize) = (usize::MAX, usize::MAX);

/// A memory controller with its channel.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Controller {
    pub channel: u16,
    pub device: Device,
    pub queues: Queues,
    pub scheduler: DramSchedulerKind,
    /// How reads and writes share the channel (the scheduler's choice).
    pub write_policy: WritePolicy,
    /// Opportunistic prefetching of open rows, when enabled.
    pub prefetch: Option<Prefetcher>,
    /// Prefetched lines whose data is still on its way to the L2.
    pub prefetches_in_flight: usize,
    /// Draining writes (true) or serving reads (false).
    pub draining: bool,
    /// Every command issued here but refreshes, as (DRAM cycle, command) in issue order
    /// (`sim::fingerprint`). Refreshes are left out: one that falls in cycles the machine
    /// skips is counted without passing here, so folding them would depend on skipping.
    pub command_trace: u64,
    /// The current drain started because the write queue was full.
    drain_full: bool,
    pub high_watermark: usize,
    pub low_watermark: usize,
    /// Column commands per request (line bytes / burst bytes).
    pub cas_per_request: u8,
    /// The burst bytes, when a sectored L2's reads fetch only their sectors (`l2.sectored`).
    sector_burst: Option<u32>,
    /// Reads whose data is on its way: (DRAM cycle the data is complete, request).
    in_flight: VecDeque<(u64, MemRequest)>,
    /// The L2 slices' credits for sending requests here, when the channel serves slices and
    /// has a return queue (`dram.return_queue`); a DRAM-only run feeds its queue directly.
    credits: Option<Credits>,
    /// Requests accepted but not yet queued: (core cycle they may enter the queue, request);
    /// GPGPU-Sim's DRAM latency queue (`dram.frontend_latency`).
    frontend: LatencyQueue<MemRequest>,
    /// No pending request's next command can issue before this DRAM cycle (a scheduler can
    /// only choose a ready request, so selection is skipped until then; see
    /// [`DramScheduler::wake_at`]). Reset by anything else that changes choices; an arrival
    /// lowers it to the scheduler's [`DramScheduler::wake_after_arrival`].
    idle_until: u64,
    /// The queued (reads, writes) with which the drain mode was last checked and stayed as it
    /// was. The check depends on nothing else that can change without it (the mode and why it
    /// started), so with the same counts it would not change the mode either and is skipped
    /// (when skipping is on); [`NOT_STEADY`] after a switch.
    drain_steady: (usize, usize),
    /// Skip cycles in which nothing can be chosen (off only to check that skipping is exact).
    pub skip_idle: bool,
    /// Refresh state: next REF due (0 = refresh disabled).
    next_refresh: u64,
    refresh_pending: bool,
    /// The current DRAM cycle.
    pub now: u64,
    pub stats: ChannelStats,
}

impl Controller {
    pub fn new(c: &Config, channel: u16) -> Controller {
        let timing = Timing::from_config(c);
        let next_refresh = timing.refi;
        let burst = c.dram_burst_bytes();
        let scheduler = DramSchedulerKind::new(c);
        let beyond = scheduler.beyond_queue();
        // The most requests of one direction the queues hold at once: the direction's queue,
        // or where the scheduler takes requests out of the count (which is then one for both
        // directions, `dram.read_queue`), that queue and the requests taken.
        let most = |own: u32| if beyond == 0 { own as usize } else { c.dram.read_queue as usize + beyond };
        Controller {
            channel,
            device: Device::new(timing, c.dram.banks as usize, c.dram.bank_groups as usize)
                .with_dual_bus(c.dram.dual_bus),
            queues: Queues::new(
                c.dram.banks as usize,
                c.dram.read_queue as usize,
                c.dram.write_queue as usize,
            )
            .with_spare_slots(beyond),
            write_policy: scheduler.write_policy(),
            scheduler,
            prefetch: c.dram.prefetch.enabled.then(|| Prefetcher::new(c, channel)),
            prefetches_in_flight: 0,
            draining: false,
            command_trace: fingerprint::EMPTY,
            drain_full: false,
            high_watermark: c.dram.write_high_watermark as usize,
            low_watermark: c.dram.write_low_watermark as usize,
            cas_per_request: c.l2.line_bytes.div_ceil(burst).max(1) as u8,
            sector_burst: c.l2.sectored.then_some(burst),
            in_flight: VecDeque::with_capacity(c.dram.read_queue as usize),
            frontend: LatencyQueue::new(c.dram.frontend_latency.into(), 0),
            credits: None,
            idle_until: 0,
            drain_steady: NOT_STEADY,
            skip_idle: true,
            next_refresh,
            refresh_pending: false,
            now: 0,
            stats: ChannelStats {
                read_queue_occupancy: vec![0; most(c.dram.read_queue) + 1],
                write_queue_occupancy: vec![0; most(c.dram.write_queue) + 1],
                ..ChannelStats::default()
            },
        }
    }

    /// The controller of a GPU's channel: its L2 slices spend credits to send it requests
    /// ([`Credits`]) when the machine has a DRAM return queue.
    pub fn serving_slices(mut self, c: &Config) -> Controller {
        let slices = c.l2.slices_per_channel;
        self.credits = Credits::shared_limit(c.dram.read_queue, c.dram.return_queue, slices)
            .map(|limit| Credits::new(slices as usize, limit));
        self
    }

    /// Whether a request of this direction would be accepted.
    pub fn can_accept(&self, is_write: bool) -> bool {
        self.scheduler.has_room(&self.queues, is_write)
    }

    /// Whether L2 slice `slice` of the channel may send a request ([`Credits`]; always, without
    /// them).
    pub fn has_credit(&self, slice: u32) -> bool {
        self.credits.as_ref().is_none_or(|c| c.available(slice as usize))
    }

    /// Whether the head `req` of one of the channel's L2 slices' miss queues may be sent here
    /// now: the queue has room for it ([`Controller::can_accept`]) and its slice a credit.
    pub fn takes_from_slice(&self, req: &MemRequest) -> bool {
        self.can_accept(req.kind.is_write()) && self.has_credit(req.loc.slice)
    }

    /// The credits the channel's slices hold, and how many there are (for views and tests).
    pub fn credits(&self) -> Option<(u32, u32)> {
        self.credits.as_ref().map(|c| (c.taken(), c.total()))
    }

    /// Takes a request from its L2 slice (the caller checked [`Controller::can_accept`]): it
    /// enters the queue at once, or `dram.frontend_latency` core cycles later — GPGPU-Sim's
    /// `-dram_latency`: `memory_partition_unit::dram_cycle` moves a request from the L2→DRAM
    /// queue into a latency queue when the DRAM queue has room, and from there, once the
    /// latency has passed and the queue has room again, one request per DRAM cycle into the
    /// queue ([`Controller::tick`]).
    pub fn accept(&mut self, req: MemRequest, stamp: u64) {
        if let Some(c) = &mut self.credits {
            c.spend(req.loc.slice as usize);
        }
        if self.frontend.latency() == 0 {
            self.enqueue(req, stamp);
        } else {
            self.frontend.push(stamp, req);
        }
    }

    /// Queues a request whose DRAM location is already in `req.loc` (the caller checked
    /// [`Controller::can_accept`]). `stamp` is the core cycle recorded in its trace.
    pub fn enqueue(&mut self, mut req: MemRequest, stamp: u64) -> Slot {
        let is_write = req.kind.is_write();
        assert!(self.can_accept(is_write), "enqueue into a full controller queue");
        req.trace.dram_in = stamp;
        let slot = self.queues.insert(Pending {
            arrival: self.now,
            seq: 0,
            bank: req.loc.bank as u8,
            row: req.loc.row,
            col: req.loc.col,
            cas_left: self.column_commands(&req),
            started: false,
            is_write,
            req,
        });
        self.scheduler.on_arrival(slot, &self.queues);
        // Prefetching plans from the queues in every cycle: any arrival may change its plan.
        let (scheduler, ctx) = self.split();
        self.idle_until = match scheduler.wake_after_arrival(&ctx, slot) {
            Some(t) if self.prefetch.is_none() => self.idle_until.min(t),
            _ => 0,
        };
        slot
    }

    /// Column commands `req` needs: its line's, or behind a sectored L2 those of the bytes it
    /// moves (GPGPU-Sim sends a sector miss to DRAM as a 32-byte request, and a write-back of
    /// the dirty sectors only: `dram_t::issue_col_command` moves one atom per command).
    fn column_commands(&self, req: &MemRequest) -> u8 {
        match self.sector_burst {
            Some(burst) => (req.bytes.div_ceil(burst) as u8).clamp(1, self.cas_per_request),
            None => self.cas_per_request,
        }
    }

    /// Requests waiting to enter the queue, queued, or with data still on the bus.
    pub fn occupancy(&self) -> usize {
        self.frontend.len() + self.queues.n_reads + self.queues.n_writes + self.in_flight.len()
    }

    pub fn is_idle(&self) -> bool {
        self.frontend.is_empty() && self.queues.is_empty() && self.in_flight.is_empty()
    }

    /// Reads (and prefetches) whose data has fully arrived by now, oldest first.
    pub fn pop_completed(&mut self) -> Option<MemRequest> {
        match self.in_flight.front() {
            Some((done, r)) if *done <= self.now => {
                if r.kind == AccessKind::Prefetch {
                    self.prefetches_in_flight -= 1;
                } else if let Some(c) = &mut self.credits {
                    c.give_back(r.loc.slice as usize);
                }
                self.in_flight.pop_front().map(|(_, r)| r)
            }
            _ => None,
        }
    }

    /// An L2 slice of this channel satisfied the tagged last request of a warp-group.
    pub fn group_end(&mut self, key: GroupKey, slice: u8) {
        self.scheduler.on_group_end(key, slice, self.now);
        self.idle_until = 0;
    }

    /// A coordination message from another controller (WG-M).
    pub fn receive(&mut self, msg: &CoordMessage, sink: &mut EventSink) {
        let (scheduler, ctx) = self.split();
        scheduler.on_remote(msg, &ctx, sink);
        self.idle_until = 0;
    }

    /// The next coordination message this controller broadcasts (WG-M).
    pub fn pop_message(&mut self) -> Option<CoordMessage> {
        self.scheduler.pop_message()
    }

    /// Core `core` now has `warps` warps assigned (α-SJF's tolerance).
    pub fn core_warps(&mut self, core: u16, warps: u16) {
        self.scheduler.on_core_warps(core, warps);
        self.idle_until = 0;
    }

    /// Free space in this channel's L2 prefetch queues: prefetches are only issued while
    /// their data will find room.
    pub fn set_prefetch_room(&mut self, free: usize) {
        if let Some(p) = &mut self.prefetch {
            p.room = free.saturating_sub(self.prefetches_in_flight);
        }
    }

    /// Write-queue fill against the watermarks (for views).
    pub fn write_queue(&self) -> WriteQueueState {
        WriteQueueState {
            writes: self.queues.n_writes,
            capacity: self.queues.write_capacity,
            low_watermark: self.low_watermark,
            high_watermark: self.high_watermark,
            draining: self.draining,
        }
    }

    /// The scheduler, and what it sees.
    fn split(&mut self) -> (&mut DramSchedulerKind, SchedCtx<'_>) {
        let ctx = SchedCtx {
            queues: &self.queues,
            device: &self.device,
            now: self.now,
            draining: self.draining,
            channel: self.channel,
            write_high: self.high_watermark,
        };
        (&mut self.scheduler, ctx)
    }

    /// Requests in the DRAM latency queue (`dram.frontend_latency`), with the core cycle each
    /// may enter the controller's queue (for views).
    pub fn frontend(&self) -> impl Iterator<Item = &(u64, MemRequest)> {
        self.frontend.iter()
    }

    /// Reads in flight on the data bus (for views).
    pub fn in_flight(&self) -> impl Iterator<Item = &(u64, MemRequest)> {
        self.in_flight.iter()
    }

    /// Advances one DRAM cycle. Completed writes leave the memory system here (the ledger
    /// retires them) and prefetches enter it; completed reads wait in
    /// [`Controller::pop_completed`]. `stamp` is the current core cycle for traces.
    // Kept out of the GPU's step: inlined there, the schedulers' code made the whole step
    // slower (measured with callgrind on the default machine).
    #[inline(never)]
    pub fn tick(&mut self, stamp: u64, sink: &mut EventSink, ledger: &mut Ledger) {
        if let Some(r) = self.frontend.ready(stamp)
            && self.can_accept(r.kind.is_write())
        {
            let ready_at = self.frontend.next_at().expect("ready");
            let req = self.frontend.pop_ready(stamp).expect("ready");
            if sink.records() {
                let waited = u16::try_from(stamp - ready_at).unwrap_or(u16::MAX);
                sink.pass(Point::DramQueue, self.channel, waited, Who::of(&req));
            }
            self.enqueue(req, stamp);
        }
        let now = self.now;
        self.count_cycles(1);
        if !self.refresh(sink) && (!self.queues.is_empty() || self.prefetch.is_some()) {
            let counts = (self.queues.n_reads, self.queues.n_writes);
            if counts != self.drain_steady || !self.skip_idle {
                let was_draining = self.draining;
                self.update_drain_mode(sink);
                if self.draining != was_draining {
                    self.idle_until = 0;
                    self.drain_steady = NOT_STEADY;
                } else {
                    self.drain_steady = counts;
                }
            }
            if now >= self.idle_until || !self.skip_idle {
                self.schedule(stamp, sink, ledger);
            }
        }
        self.now += 1;
    }

    /// Issues this cycle's command: an urgent prefetch, the scheduler's choice, or an idle
    /// prefetch; when there is none, works out how long nothing can happen.
    fn schedule(&mut self, stamp: u64, sink: &mut EventSink, ledger: &mut Ledger) {
        let now = self.now;
        let plan = self.prefetch.as_mut().map(|p| {
            let s = &self.stats;
            let average = (s.read_queue_sum + s.write_queue_sum) as f64 / s.cycles.max(1) as f64;
            p.plan(&mut self.device, &self.queues, now, average, self.draining)
        });
        if let Some(bank) = plan.and_then(|p| p.urgent) {
            return self.issue_prefetch(bank, stamp, sink, ledger);
        }
        let (scheduler, ctx) = self.split();
        if let Some(slot) = scheduler.select(&ctx, sink) {
            let mut cmd = ctx.next_command(slot);
            self.issue(slot, cmd, stamp, sink, ledger);
            let (scheduler, ctx) = self.split();
            if let Some(slot) = scheduler.second_command(&ctx, sink) {
                cmd = ctx.next_command(slot);
                self.issue(slot, cmd, stamp, sink, ledger);
            }
            // The scheduler may know when it can choose next — unless prefetching acts every
            // cycle, or the command left the queues such that the drain mode flips.
            if plan.is_none() && self.drain_stays() {
                let (scheduler, ctx) = self.split();
                self.idle_until = scheduler.wake_after_issue(&ctx, &cmd).unwrap_or(0);
            }
            return;
        }
        let wake = scheduler.wake_at(&ctx);
        if let Some(bank) = plan.and_then(|p| p.idle) {
            return self.issue_prefetch(bank, stamp, sink, ledger);
        }
        self.idle_until = match wake {
            _ if plan.is_some_and(|p| p.active) => now + 1,
            Some(t) => t,
            None => self.earliest_ready(),
        };
    }

    /// Issues the next prefetch burst of `bank`.
    fn issue_prefetch(&mut self, bank: usize, stamp: u64, sink: &mut EventSink, ledger: &mut Ledger) {
        let now = self.now;
        self.idle_until = 0;
        let pf = self.prefetch.as_mut().expect("prefetching is on");
        let (cmd, done) = pf.issue(bank, &self.device, stamp);
        pf.on_command(&cmd);
        let line = cmd.col / pf.cas;
        let who = done.as_ref().map_or(Who { kind: Some(AccessKind::Prefetch), ..Who::NOBODY }, Who::of);
        self.apply(&cmd, who, sink);
        let t = &self.device.timing;
        self.stats.busy_cycles += t.burst;
        if let Some(req) = done {
            self.in_flight.push_back((now + t.cas + t.burst, req));
            self.prefetches_in_flight += 1;
            self.stats.prefetches += 1;
            ledger.create_numbered();
            if sink.wants(EventKind::Prefetch) {
                sink.emit(Event::Prefetch { channel: self.channel, bank: cmd.bank, row: cmd.row, line });
            }
        }
    }

    /// The first cycle at which some pending request of the active direction has a ready
    /// next command. Device timing only moves when a command issues, and every issue goes
    /// through [`Controller::issue`], so this stays valid until then or the next arrival.
    fn earliest_ready(&self) -> u64 {
        let mut t = self.earliest_ready_in(self.draining);
        if self.write_policy == WritePolicy::Mixed {
            t = t.min(self.earliest_ready_in(true));
        }
        // Never skip past the next refresh, and always move forward.
        let refresh = if self.next_refresh > 0 { self.next_refresh } else { u64::MAX };
        t.max(self.now + 1).min(refresh)
    }

    /// [`Controller::earliest_ready`] over one direction's requests: the bank parts of the
    /// constraints are minimized per command kind, then each kind's channel part applies
    /// (min over banks of max(bank, channel) = max(min over banks, channel)).
    #[inline]
    fn earliest_ready_in(&self, writes: bool) -> u64 {
        let cas = if writes { CommandKind::Wr } else { CommandKind::Rd };
        let d = &self.device;
        let (mut t_cas, mut t_act, mut t_pre) = (u64::MAX, u64::MAX, u64::MAX);
        for (bank, list) in self.queues.busy_lists(writes) {
            let open = d.banks[bank].open_row;
            let hits = self.queues.row_hits(writes, bank, open);
            if hits > 0 {
                t_cas = t_cas.min(d.bank_earliest(cas, bank));
            }
            if hits < list.len() {
                match open {
                    Some(_) => t_pre = t_pre.min(d.bank_earliest(CommandKind::Pre, bank)),
                    None => t_act = t_act.min(d.bank_earliest(CommandKind::Act, bank)),
                }
            }
        }
        d.earliest_from(t_cas, cas).min(d.earliest_from(t_act, CommandKind::Act)).min(t_pre)
    }

    /// The first DRAM cycle (≥ now) at which [`Controller::tick`] may do more than count an
    /// idle cycle: a pending request's command may be ready, or a refresh is due; `u64::MAX`
    /// when nothing is queued and refresh is off (requests waiting to enter the queue are
    /// [`Controller::next_entry`]'s). Valid until the next arrival.
    pub fn next_activity(&self) -> u64 {
        let refresh = match self.next_refresh {
            0 => u64::MAX,
            _ if self.refresh_pending => self.now,
            t => t,
        };
        // `tick` schedules while requests are queued or a prefetcher may act, every cycle when
        // idle skipping is off.
        let queued = match () {
            _ if self.queues.is_empty() && self.prefetch.is_none() => u64::MAX,
            _ if !self.skip_idle => self.now,
            _ => self.idle_until,
        };
        queued.min(refresh).max(self.now)
    }

    /// The first core cycle (≥ `now`) at which a request waiting out `dram.frontend_latency`
    /// may enter the queue: `u64::MAX` when none waits, or when the queue has no room for the
    /// oldest (room comes only from a command, which [`Controller::next_activity`] covers).
    pub fn next_entry(&self, now: u64) -> u64 {
        match self.frontend.iter().next() {
            Some((ready, r)) if self.can_accept(r.kind.is_write()) => (*ready).max(now),
            _ => u64::MAX,
        }
    }

    /// Jumps to DRAM cycle `t` (≤ [`Controller::next_activity`], with no arrival before it),
    /// counting the skipped cycles exactly as ticking through them would.
    pub fn skip_to(&mut self, t: u64) {
        debug_assert!(t <= self.next_activity(), "skipping past activity at {}", self.next_activity());
        self.count_cycles(t.saturating_sub(self.now));
        self.now = self.now.max(t);
    }

    /// Leaps over the all-bank refreshes an idle channel issues before DRAM cycle `t` (no
    /// arrival before it), leaving the last of them to [`Controller::tick`]; nothing happens
    /// unless the channel is idle with every bank closed and its next REF ready on time.
    ///
    /// Exact: in such a channel each REF issues the cycle it falls due (tREFI > tRFC, which the
    /// config validator checks, so the previous REF's tRFC is over), changes nothing but the
    /// banks' earliest ACT (to the REF's cycle + tRFC) and the row bus, and the next REF
    /// overrides both; so the skipped REFs leave only their count, and the idle cycles up to the
    /// last one are for [`Controller::skip_to`] to count as ticking would. Off when someone
    /// wants each command (a DRAM command trace) or records passes: those need every REF at its
    /// cycle.
    pub fn leap_refreshes(&mut self, t: u64, sink: &EventSink) {
        let refi = self.device.timing.refi;
        let due = self.next_refresh;
        let ref_cmd = Command { kind: CommandKind::Ref, bank: 0, row: 0, col: 0 };
        if refi == 0
            || due < self.now
            || t <= due.saturating_add(refi)
            || self.refresh_pending
            || !self.is_idle()
            || self.prefetch.is_some()
            || sink.wants(EventKind::DramCommand)
            || sink.records()
            || !self.device.ready(&ref_cmd, due)
        {
            return;
        }
        // The last REF due before `t`: the ones before it are leapt.
        let last = due + (t - 1 - due) / refi * refi;
        self.stats.commands[CommandKind::Ref as usize] += (last - due) / refi;
        self.next_refresh = last;
    }

    /// When the first read in flight has all its data: [`Controller::pop_completed`] gives it
    /// once the tick before that DRAM cycle has run.
    pub fn next_completion(&self) -> Option<u64> {
        self.in_flight.front().map(|&(done, _)| done)
    }

    /// Counts `k` cycles from now with the queues as they are: occupancy sums and
    /// histograms, bank-level parallelism, and the cycles with a request pending or data on
    /// the bus.
    #[inline(always)]
    fn count_cycles(&mut self, k: u64) {
        let (now, q) = (self.now, &self.queues);
        let s = &mut self.stats;
        s.cycles += k;
        s.pending_cycles +=
            if q.is_empty() { self.device.data_bus_free.clamp(now, now + k) - now } else { k };
        if q.banks_pending > 0 {
            s.blp_cycles += k;
            s.blp_sum += k * q.banks_pending as u64;
        }
        s.read_queue_sum += k * q.n_reads as u64;
        s.write_queue_sum += k * q.n_writes as u64;
        if q.n_reads > 0 {
            s.read_queue_occupancy[q.n_reads] += k;
        }
        if q.n_writes > 0 {
            s.write_queue_occupancy[q.n_writes] += k;
        }
    }

    /// Handles a due refresh. Returns true while refresh owns the command bus.
    fn refresh(&mut self, sink: &mut EventSink) -> bool {
        if self.next_refresh == 0 || (!self.refresh_pending && self.now < self.next_refresh) {
            return false;
        }
        self.refresh_pending = true;
        if let Some(p) = &mut self.prefetch {
            p.release_all(&mut self.device);
        }
        // Close open banks one PRE at a time, then REF.
        for bank in 0..self.device.banks.len() {
            if let Some(row) = self.device.banks[bank].open_row {
                let pre = Command { kind: CommandKind::Pre, bank: bank as u8, row, col: 0 };
                if self.device.ready(&pre, self.now) {
                    self.apply(&pre, Who::NOBODY, sink);
                    self.scheduler.on_refresh();
                    self.idle_until = 0;
                }
                return true;
            }
        }
        let r = Command { kind: CommandKind::Ref, bank: 0, row: 0, col: 0 };
        if self.device.ready(&r, self.now) {
            self.apply(&r, Who::NOBODY, sink);
            self.refresh_pending = false;
            self.next_refresh += self.device.timing.refi;
        }
        true
    }

    /// Whether the write policy wants writes drained now (the queues' fill and the current
    /// mode decide).
    fn drain_wanted(&self) -> bool {
        let (reads, writes) = (self.queues.n_reads, self.queues.n_writes);
        let (start, stop) = match self.write_policy {
            WritePolicy::Watermarks => (
                writes > self.high_watermark || (reads == 0 && writes > 0),
                writes == 0 || (writes <= self.low_watermark && reads > 0),
            ),
            // A full write queue must drain (to the low watermark), or write-backs would block
            // the L2 and the reads queued behind them there.
            WritePolicy::AfterReads => (
                writes > 0 && (reads == 0 || writes >= self.queues.write_capacity),
                writes == 0 || (reads > 0 && (writes <= self.low_watermark || !self.drain_full)),
            ),
            WritePolicy::Mixed => (false, true),
        };
        if self.draining { !stop } else { start }
    }

    /// Whether the drain mode would stay as it is ([`Controller::drain_steady`] answers
    /// without the check when the counts have not changed since it stayed).
    fn drain_stays(&self) -> bool {
        (self.queues.n_reads, self.queues.n_writes) == self.drain_steady
            || self.drain_wanted() == self.draining
    }

    fn update_drain_mode(&mut self, sink: &mut EventSink) {
        let (reads, writes) = (self.queues.n_reads, self.queues.n_writes);
        let want = self.drain_wanted();
        if !self.draining && want {
            let cause = if reads == 0 {
                DrainCause::NoReads
            } else if writes > self.high_watermark && self.write_policy == WritePolicy::Watermarks {
                DrainCause::HighWatermark
            } else {
                DrainCause::QueueFull
            };
            self.draining = true;
            if sink.records() {
                sink.pass(Point::DrainStart, self.channel, 0, Who::NOBODY);
            }
            self.drain_full = writes >= self.queues.write_capacity;
            self.stats.drains += 1;
            if sink.wants(EventKind::WriteDrainStart) {
                sink.emit(Event::WriteDrainStart {
                    channel: self.channel,
                    writes: writes as u16,
                    reads: reads as u16,
                    cause,
                });
            }
        } else if self.draining && !want {
            self.draining = false;
            if sink.records() {
                sink.pass(Point::DrainEnd, self.channel, 0, Who::NOBODY);
            }
            if sink.wants(EventKind::WriteDrainEnd) {
                sink.emit(Event::WriteDrainEnd { channel: self.channel, writes: writes as u16 });
            }
        }
    }

    /// Issues `cmd` on behalf of `slot` and retires the request after its last burst.
    fn issue(&mut self, slot: Slot, cmd: Command, stamp: u64, sink: &mut EventSink, ledger: &mut Ledger) {
        let now = self.now;
        self.idle_until = 0;
        let who = if sink.records() { Who::of(&self.queues.get(slot).req) } else { Who::NOBODY };
        self.apply(&cmd, who, sink);
        if let Some(pf) = &mut self.prefetch {
            pf.on_command(&cmd);
        }
        let t = &self.device.timing;
        let (burst, cas, wl) = (t.burst, t.cas, t.wl);
        let p = self.queues.get_mut(slot);
        if !p.started {
            p.started = true;
            p.req.trace.dram_sched = stamp;
            p.req.trace.row = match cmd.kind {
                CommandKind::Pre => RowOutcome::Conflict,
                CommandKind::Act => RowOutcome::Miss,
                _ => RowOutcome::Hit,
            };
            match p.req.trace.row {
                RowOutcome::Hit => self.stats.row_hits += 1,
                RowOutcome::Miss => self.stats.row_misses += 1,
                _ => self.stats.row_conflicts += 1,
            }
        }
        if cmd.kind == CommandKind::Act && sink.wants(EventKind::RowMiss) {
            sink.emit(Event::RowMiss {
                channel: self.channel,
                bank: cmd.bank,
                row: cmd.row,
                conflict: p.req.trace.row == RowOutcome::Conflict,
            });
        }
        self.scheduler.on_issue(slot, &cmd, &self.queues);
        if !cmd.kind.is_cas() {
            return;
        }
        self.stats.busy_cycles += burst;
        let p = self.queues.get_mut(slot);
        p.cas_left -= 1;
        p.col += 1;
        if p.cas_left > 0 {
            return;
        }
        let mut p = self.queues.remove(slot);
        self.scheduler.on_retire(slot, &p);
        if p.is_write {
            p.req.trace.dram_done = stamp;
            self.stats.writes += 1;
            ledger.retire();
            if let Some(c) = &mut self.credits {
                c.give_back(p.req.loc.slice as usize);
            }
            if sink.records() {
                sink.pass(Point::DramDone, self.channel, 0, Who::of(&p.req));
            }
            self.stats.write_latency_sum += now + wl + burst - p.arrival;
        } else {
            let done = now + cas + burst;
            self.stats.reads += 1;
            self.stats.read_latency_sum += done - p.arrival;
            self.stats.read_latency.record(done - p.arrival);
            self.in_flight.push_back((done, p.req));
        }
    }

    /// Issues `cmd` to the device now, tells the queues which rows are open after it, and
    /// counts and reports it.
    fn apply(&mut self, cmd: &Command, who: Who, sink: &mut EventSink) {
        self.device.issue(cmd, self.now);
        if sink.records() {
            sink.pass(Point::Command, self.channel, Pass::command_detail(cmd.kind, cmd.bank), who);
        }
        match cmd.kind {
            CommandKind::Act | CommandKind::Pre => {
                let b = cmd.bank as usize;
                self.queues.set_open_row(b, self.device.banks[b].open_row);
            }
            CommandKind::Ref => {
                for b in 0..self.device.banks.len() {
                    self.queues.set_open_row(b, self.device.banks[b].open_row);
                }
            }
            CommandKind::Rd | CommandKind::Wr => {}
        }
        self.stats.commands[cmd.kind as usize] += 1;
        if cmd.kind != CommandKind::Ref {
            let what = u64::from(cmd.bank) << 40 | (cmd.kind as u64) << 32 | u64::from(cmd.row);
            self.command_trace = fingerprint::fold(self.command_trace, [self.now, what, u64::from(cmd.col)]);
        }
        if sink.wants(EventKind::DramCommand) {
            sink.emit(Event::DramCommand { channel: self.channel, dram_cycle: self.now, cmd: *cmd });
        }
    }
}

/// A controller's write queue against its watermarks (what a view shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WriteQueueState {
    pub writes: usize,
    pub capacity: usize,
    pub low_watermark: usize,
    pub high_watermark: usize,
    pub draining: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::request::AccessKind;

    fn req(id: u64, kind: AccessKind) -> MemRequest {
        let mut r = MemRequest {
            id,
            kind,
            addr: id * 128,
            bytes: 128,
            lanes: 0,
            origin: Default::default(),
            loc: Default::default(),
            trace: Default::default(),
        };
        (r.loc.bank, r.loc.row) = ((id % 16) as u32, id as u32);
        r
    }

    /// GPGPU-Sim's arbitration credits (`dram.return_queue`): with a 4-request queue, a 2-reply
    /// return queue and two slices, slice 0 sends its own credit's request and the 5 shared
    /// ones into the latency queue, then waits while slice 1 still has its own; the first read
    /// answered gives slice 0 its own credit back.
    #[test]
    fn slices_send_requests_only_on_credit() {
        let mut c = Config::default();
        (c.dram.read_queue, c.dram.return_queue, c.l2.slices_per_channel) = (4, 2, 2);
        c.dram.frontend_latency = 20;
        let mut mc = Controller::new(&c, 0).serving_slices(&c);
        let (mut sink, mut ledger) = (EventSink::default(), Ledger::default());
        let mut sent = 0;
        while mc.has_credit(0) {
            assert!(mc.can_accept(false), "the latency queue is not the controller's queue");
            mc.accept(req(sent, AccessKind::Load), 0);
            sent += 1;
        }
        assert_eq!((sent, mc.credits()), (6, Some((6, 7))), "one own and 4 + 2 - 1 shared, of 2 own and 5");
        assert!(mc.has_credit(1), "slice 1's own credit is its own");
        let mut cycle = 0;
        while mc.pop_completed().is_none() {
            assert!(!mc.has_credit(0), "no credit before a reply");
            mc.tick(cycle, &mut sink, &mut ledger);
            cycle += 1;
        }
        assert!(mc.has_credit(0) && mc.credits() == Some((5, 7)), "a reply returns a credit");
        // Slice 1 sends a write-back on its own credit, whose credit comes back once it is
        // written, as every read's does once it is answered.
        let mut w = req(100, AccessKind::Writeback);
        w.loc.slice = 1;
        mc.accept(w, cycle);
        assert_eq!(mc.credits(), Some((6, 7)));
        let mut answered = 1;
        while answered < sent || mc.stats.writes == 0 {
            assert!(cycle < 100_000, "everything is served");
            mc.tick(cycle, &mut sink, &mut ledger);
            while mc.pop_completed().is_some() {
                answered += 1;
            }
            cycle += 1;
        }
        assert_eq!(mc.credits(), Some((0, 7)), "every credit back");
        // A DRAM-only controller, and a machine without a return queue, never wait.
        c.dram.return_queue = 0;
        assert!(Controller::new(&c, 0).serving_slices(&c).credits().is_none());
    }

    /// A sectored L2's read asks DRAM for its 32 bytes: one column command per burst of them,
    /// where a line takes line / burst; its write-back of two dirty sectors takes two bursts'
    /// worth, of a whole line line / burst.
    #[test]
    fn a_sectored_l2_reads_only_its_sectors() {
        let mut c = Config::default();
        let burst = c.dram_burst_bytes();
        assert!(burst < c.l2.line_bytes, "the default burst is shorter than a line");
        let line =
            Controller::new(&c, 0).column_commands(&MemRequest { bytes: 32, ..req(0, AccessKind::Load) });
        assert_eq!(u32::from(line), c.l2.line_bytes / burst, "not sectored: the whole line");
        (c.l1.sectored, c.l2.sectored) = (true, true);
        let mc = Controller::new(&c, 0);
        let sector = MemRequest { bytes: 32, ..req(0, AccessKind::Load) };
        assert_eq!(u32::from(mc.column_commands(&sector)), 32u32.div_ceil(burst));
        let writeback = MemRequest { bytes: 128, ..req(1, AccessKind::Writeback) };
        assert_eq!(u32::from(mc.column_commands(&writeback)), c.l2.line_bytes / burst);
        let two_sectors = MemRequest { bytes: 64, ..req(1, AccessKind::Writeback) };
        assert_eq!(u32::from(mc.column_commands(&two_sectors)), 64u32.div_ceil(burst));
    }

    /// HBM's two command buses (`dram.dual_bus`, GPGPU-Sim's `-dram_dual_bus_interface`): with
    /// a row hit pending on one bank and a closed row on another, one DRAM cycle issues the RD
    /// and the ACT together; on one bus they take two cycles.
    #[test]
    fn a_dual_bus_issues_a_row_and_a_column_command_in_one_cycle() {
        for dual in [false, true] {
            let mut c = Config::default();
            c.dram.dual_bus = dual;
            let mut mc = Controller::new(&c, 0);
            let (mut sink, mut ledger) = (EventSink::default(), Ledger::default());
            sink.set(EventKind::DramCommand, true);
            // Bank 1 opens row 1 and is ready for its read; then a request for closed bank 2.
            mc.accept(req(1, AccessKind::Load), 0);
            let mut cycle = 0;
            while mc.device.banks[1].open_row.is_none() || mc.device.earliest(CommandKind::Rd, 1) > mc.now {
                mc.tick(cycle, &mut sink, &mut ledger);
                cycle += 1;
            }
            mc.accept(req(2, AccessKind::Load), cycle);
            // Let the read be ready and the ACT too (tRRD since the first ACT has passed).
            while mc.device.earliest(CommandKind::Act, 2) > mc.now + 1 {
                mc.tick(cycle, &mut sink, &mut ledger);
                cycle += 1;
            }
            let _ = sink.drain().count();
            mc.tick(cycle, &mut sink, &mut ledger);
            mc.tick(cycle + 1, &mut sink, &mut ledger);
            let cmds: Vec<(u64, CommandKind)> = sink
                .drain()
                .filter_map(|(_, e)| match e {
                    Event::DramCommand { dram_cycle, cmd, .. } => Some((dram_cycle, cmd.kind)),
                    _ => None,
                })
                .collect();
            let t = cmds[0].0;
            let expected = if dual {
                vec![(t, CommandKind::Rd), (t, CommandKind::Act)]
            } else {
                vec![(t, CommandKind::Rd), (t + 1, CommandKind::Act)]
            };
            assert_eq!(cmds, expected, "dual bus {dual}");
        }
    }

    /// GPGPU-Sim's `-dram_latency`: a request enters the queue `frontend_latency` core cycles
    /// after the controller took it, one per DRAM cycle, and counts as held meanwhile.
    #[test]
    fn the_frontend_holds_requests_for_its_latency() {
        let mut c = Config::default();
        c.dram.frontend_latency = 100;
        let mut mc = Controller::new(&c, 0);
        let (mut sink, mut ledger) = (EventSink::default(), Ledger::default());
        mc.accept(req(0, AccessKind::Load), 5);
        mc.accept(req(1, AccessKind::Load), 5);
        assert_eq!((mc.occupancy(), mc.queues.n_reads, mc.is_idle()), (2, 0, false));
        for stamp in 5..105 {
            mc.tick(stamp, &mut sink, &mut ledger);
        }
        assert_eq!(mc.queues.n_reads, 0, "until core cycle 105");
        mc.tick(105, &mut sink, &mut ledger);
        assert_eq!((mc.queues.n_reads, mc.occupancy()), (1, 2), "one request per DRAM cycle");
        mc.tick(106, &mut sink, &mut ledger);
        assert_eq!(mc.queues.n_reads + mc.in_flight.len(), 2);
        // Without the latency a request is queued at once.
        let mut direct = Controller::new(&Config::default(), 0);
        direct.accept(req(2, AccessKind::Load), 5);
        assert_eq!(direct.queues.n_reads, 1);
    }

    /// Seed 000 §II-C: writes drain once the write queue passes the high watermark (or no read
    /// pends) and stop at the low watermark while reads wait (high 32, low 16 by default).
    #[test]
    fn write_drain_starts_above_the_high_watermark_and_stops_at_the_low_one() {
        let c = Config::default();
        let (high, low) = (c.dram.write_high_watermark as usize, c.dram.write_low_watermark as usize);
        let mut mc = Controller::new(&c, 3);
        let mut sink = EventSink::default();
        sink.set(EventKind::WriteDrainStart, true);
        sink.set(EventKind::WriteDrainEnd, true);
        mc.enqueue(req(0, AccessKind::Load), 0);
        let writes: Vec<Slot> =
            (1..=high as u64).map(|i| mc.enqueue(req(i, AccessKind::Writeback), 0)).collect();
        mc.update_drain_mode(&mut sink);
        assert!(!mc.draining, "at the high watermark, with a read pending: no drain yet");
        let extra = mc.enqueue(req(99, AccessKind::Writeback), 0);
        mc.update_drain_mode(&mut sink);
        assert!(mc.draining, "one above the high watermark");
        assert_eq!(
            sink.events()[0].1,
            Event::WriteDrainStart {
                channel: 3,
                writes: high as u16 + 1,
                reads: 1,
                cause: DrainCause::HighWatermark
            }
        );
        // Serve writes down to one above the low watermark: still draining.
        mc.queues.remove(extra);
        for &s in &writes[..high - low - 1] {
            mc.queues.remove(s);
        }
        mc.update_drain_mode(&mut sink);
        assert!(mc.draining, "{} writes left, above the low watermark", low + 1);
        mc.queues.remove(writes[high - low - 1]);
        mc.update_drain_mode(&mut sink);
        assert!(!mc.draining, "back to reads at the low watermark");
        assert_eq!(sink.events()[1].1, Event::WriteDrainEnd { channel: 3, writes: low as u16 });
        assert_eq!(mc.stats.drains, 1);
        // With no read pending, even a few writes drain.
        let read = mc.queues.pending().iter().find(|(_, p)| !p.is_write).map(|(s, _)| *s).unwrap();
        mc.queues.remove(read);
        mc.update_drain_mode(&mut sink);
        assert!(mc.draining, "no reads: drain the {low} writes");
        assert_eq!(
            sink.events()[2].1,
            Event::WriteDrainStart { channel: 3, writes: low as u16, reads: 0, cause: DrainCause::NoReads }
        );
    }

    /// α-SJF's `AfterReads` policy (seed 001 §V) drains while reads wait only when the write
    /// queue is full, and the event says so.
    #[test]
    fn after_reads_drains_a_full_write_queue_and_names_the_cause() {
        let c = Config::default();
        let mut mc = Controller::new(&c, 1);
        mc.write_policy = WritePolicy::AfterReads;
        let mut sink = EventSink::default();
        sink.set(EventKind::WriteDrainStart, true);
        mc.enqueue(req(0, AccessKind::Load), 0);
        let capacity = mc.queues.write_capacity;
        for i in 1..capacity as u64 {
            mc.enqueue(req(i, AccessKind::Writeback), 0);
        }
        mc.update_drain_mode(&mut sink);
        assert!(!mc.draining, "one below a full write queue, with a read pending");
        mc.enqueue(req(capacity as u64, AccessKind::Writeback), 0);
        mc.update_drain_mode(&mut sink);
        assert!(mc.draining, "the write queue is full");
        let start = &sink.events()[0].1;
        assert_eq!(
            *start,
            Event::WriteDrainStart {
                channel: 1,
                writes: capacity as u16,
                reads: 1,
                cause: DrainCause::QueueFull
            }
        );
        assert!(start.describe().contains("(write queue full)"), "{}", start.describe());
    }
}
