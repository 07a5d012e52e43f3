//! A streaming multiprocessor: warp slots, CTA slots with barriers, warp schedulers issuing
//! one instruction each per cycle, the LD/ST unit and the L1D (MECHANISMS §1).
//!
//! Per core cycle: one reply from the interconnect fills the L1 (waking every request merged
//! behind it), finished hits and shared-memory loads return, the LD/ST unit sends one access,
//! and each scheduler issues at most one instruction.
//!
//! The SM owns its units and applies what each returns; the units do not call each other:
//! the issue stage (`issue.rs`) offers a warp per scheduler, the execute stage (`execute.rs`)
//! executes it and hands back a memory instruction, the LD/ST unit (`ldst.rs`) steps on its
//! own and reports what it sent, and load tracking (`loads.rs`) says which load finished. The
//! learning warp schedulers hear about all of it through `MemoryFeedback`.

use super::coalescer::Coalesced;
use super::execute::ExecUnit;
use super::group_tags::GroupTagger;
use super::issue::{IssueInputs, IssueStage};
use super::ldst::{Ldst, LdstIo, NO_LOAD, Sent};
use super::loads::{LoadTracker, record_finished};
use super::quiet::Quiet;
use super::sched::{Learner, MemoryFeedback};
use super::stall::{StallClass, StallReason};
use super::warp::ReqRecord;
use crate::config::{AllocPolicy, Config};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::mshr::MshrEntry;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::l1::{L1, Looked};
use crate::sim::ledger::Ledger;
use crate::sim::queue::BoundedQueue;
use crate::sim::record::{Point, Who};
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest, ReqTrace};
use crate::sim::stats::CoreStats;
use crate::workload::instr::{Op, Space};
use crate::workload::{Kernel, WarpProgram};

pub use super::execute::CtaSlot;

/// What the SM needs from the rest of the GPU during a step.
pub struct SmEnv<'a> {
    pub kernel: &'a Kernel,
    /// A kernel is still running (cycles without warps count as NoWarpCycles).
    pub kernel_active: bool,
    pub map: &'a AddressMap,
    pub sink: &'a mut EventSink,
    /// Request ids and conservation counts.
    pub ledger: &'a mut Ledger,
    /// Someone listens to the events of quiet cycles (`quiet::heard` of the sink, which no
    /// step changes: asked once per cycle, not once per SM).
    pub quiet_heard: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sm {
    pub id: u16,
    /// Warp and CTA slots, decode, scoreboard, coalescing.
    pub exec: ExecUnit,
    /// Warp schedulers, GTO priorities, stall attribution.
    pub issue: IssueStage,
    /// SM-wide state of the learning policies (CCWS victim tags, OAWS classifier and FCW).
    pub learner: Learner,
    pub ldst: Ldst,
    /// Tags the last request of each warp-load to each memory controller.
    pub tagger: GroupTagger,
    /// The warps' loads as their requests return (and the zero-latency-divergence oracle).
    pub loads: LoadTracker,
    pub l1: L1,
    /// Replies from the interconnect waiting to fill the L1.
    pub reply_queue: BoundedQueue<MemRequest>,
    /// Packet header size and L2 slices per channel (to address the request network).
    pub header_bytes: u32,
    slices_per_channel: u32,
    /// Bytes per coalesced request: the L1 line, or a sector of a sectored L1
    /// (`cache::sectors::coalesce_bytes`).
    line_bytes: u64,
    shared_latency: u64,
    scratch: Vec<MemRequest>,
    /// The accesses the LD/ST unit sent this cycle, and those the L1 looked up (scratch).
    sent: Vec<Sent>,
    looked: Vec<Looked>,
    pub stats: CoreStats,
    /// Idle skipping is on (`sim.no_skip` off), and the quiet cycle the SM is in, if any.
    skip: bool,
    pub quiet: Option<Quiet>,
}

impl Sm {
    pub fn new(c: &Config, id: u16, placeholder: WarpProgram) -> Sm {
        let n = c.warps_per_sm();
        let learner = Learner::new(c);
        let mut l1 = L1::new(c, id);
        l1.record_victims = learner.watches_l1();
        let reexec = learner.reexec_entries();
        Sm {
            id,
            exec: ExecUnit::new(c, id, placeholder),
            issue: IssueStage::new(c),
            learner,
            ldst: Ldst::new(
                c.core.mem_pipeline_width as usize,
                c.core.sub_core,
                c.core.warp_schedulers as usize,
                c.core.shared_latency as usize,
                reexec,
            ),
            tagger: GroupTagger::new(c.dram.scheduler.groups_warps(), c.l2.slices_per_channel),
            loads: LoadTracker::new(c.core.zero_latency_divergence, n * c.core.max_loads_per_warp as usize),
            l1,
            reply_queue: BoundedQueue::new(c.core.reply_queue as usize),
            header_bytes: c.icnt.header_bytes,
            slices_per_channel: c.l2.slices_per_channel,
            line_bytes: crate::sim::cache::sectors::coalesce_bytes(c).into(),
            shared_latency: c.core.shared_latency.into(),
            scratch: Vec::with_capacity(c.l1.mshr_merge as usize + 1),
            sent: Vec::with_capacity(c.l1.banks as usize),
            looked: Vec::with_capacity(c.l1.banks as usize),
            stats: CoreStats { issue_priority: vec![0; c.warps_per_scheduler()], ..CoreStats::default() },
            skip: !c.sim.no_skip,
            quiet: None,
        }
    }

    /// Whether a CTA of `warps` warps fits now, with at most `fit` CTAs of the kernel resident
    /// ([`crate::sim::occupancy::ctas_per_sm`]).
    pub fn can_launch(&self, warps: u32, fit: u32) -> bool {
        self.exec.can_launch(warps, fit)
    }

    /// Places CTA `cta` of kernel number `kernel_index`, whose warps run `programs`, on this
    /// SM at cycle `now` (the caller checked [`Sm::can_launch`]); `fit` CTAs of the kernel fit
    /// at once.
    #[allow(clippy::too_many_arguments)]
    pub fn launch(
        &mut self,
        now: u64,
        kernel_index: usize,
        kernel: &Kernel,
        cta: u32,
        fit: u32,
        programs: Vec<WarpProgram>,
        sink: &mut EventSink,
    ) {
        self.poke();
        let launched = self.exec.launch(now, kernel_index, kernel, cta, fit, programs);
        if launched.new_kernel {
            // The divergent load classifier restarts per kernel (seed 004 §5.4.3).
            self.learner.kernel_started();
        }
        for w in super::sched::bits(launched.warps) {
            self.learner.warp_launched(w);
            self.issue.warp_launched(w);
        }
        self.issue.refresh_priorities(&self.exec);
        for w in super::sched::bits(launched.warps) {
            self.decode(w, kernel);
        }
        self.stats.ctas += 1;
        if sink.wants(EventKind::CtaLaunch) {
            sink.emit(Event::CtaLaunch { core: self.id, cta });
        }
    }

    /// The global L2 slice a request goes to.
    pub fn slice_of(&self, r: &MemRequest) -> usize {
        (r.loc.channel * self.slices_per_channel + r.loc.slice) as usize
    }

    /// Nothing resident and nothing in flight inside the SM.
    pub fn is_idle(&self) -> bool {
        self.exec.valid == 0 && self.ldst.is_idle() && self.reply_queue.is_empty() && self.l1.occupancy() == 0
    }

    /// Memory requests held inside the SM: in the L1 (miss queue, MSHR merges, returning
    /// hits), parked in the re-execution queue, or waiting in the reply queue.
    pub fn requests_held(&self) -> usize {
        self.l1.occupancy() + self.reply_queue.len() + self.ldst.reexec.len()
    }

    /// Warps of the SM's resident CTAs, finished ones included (what seed 001's controllers
    /// use as the core's tolerance).
    pub fn assigned_warps(&self) -> u16 {
        self.exec.assigned_warps()
    }

    /// One core cycle: a quiet one does nothing, and is counted with the rest of its stretch
    /// when the stretch ends or the GPU settles (see `quiet`). Returns whether the cycle was
    /// worked: a quiet one finishes no CTA and frees no slot.
    #[inline]
    pub fn step(&mut self, now: u64, env: &mut SmEnv<'_>) -> bool {
        if let Some(q) = &self.quiet {
            if now < q.until && !env.quiet_heard {
                return false;
            }
            self.settle(now, env.kernel_active);
            self.quiet = None;
        }
        self.work(now, env);
        true
    }

    /// Counts the quiet cycles before `now` not counted yet into the statistics, as stepping
    /// through them would have one by one. `kernel_active` is the same for all of them: the
    /// GPU settles every SM before it changes (`Gpu::finish_ctas`).
    #[inline]
    pub fn settle(&mut self, now: u64, kernel_active: bool) {
        if let Some(q) = &mut self.quiet {
            q.count(now - q.since, kernel_active, &mut self.stats, &mut self.l1.stats);
            q.since = now;
        }
    }

    /// A cycle that is not quiet.
    fn work(&mut self, now: u64, env: &mut SmEnv<'_>) {
        if self.exec.valid == 0 {
            self.l1.sm_idle();
            if env.kernel_active {
                self.stats.no_warp_cycles += 1;
            }
            if self.reply_queue.is_empty() && self.ldst.is_idle() && self.l1.occupancy() == 0 {
                let k = self.issue.schedulers.len();
                self.stats.idle += k as u64;
                self.issue.issued_last = 0;
                self.issue.held = 0;
                if env.kernel_active {
                    self.stats.inactive_cycles += 1;
                }
                if self.skip {
                    let nothing = Quiet {
                        since: now + 1,
                        until: u64::MAX,
                        resident: false,
                        idle_slots: k as u8,
                        refused: None,
                        class: None,
                        memory_block: false,
                    };
                    self.quiet = Some(nothing);
                }
                return;
            }
        } else {
            self.stats.active_cycles += 1;
        }
        let returned = self.returns(now, env);
        let looked = self.look_up(now, env);
        let sent = self.step_ldst(now, env);
        let offered = self.issue(now, env);
        if self.issue.issued_last != 0 {
            self.stats.issued_cycles += 1;
            return;
        }
        // Nothing issued, so the warp masks are those the issue stage saw.
        if env.kernel_active {
            self.stats.inactive_cycles += 1;
        }
        let mut class = None;
        let mut memory_block = false;
        if self.exec.valid != 0 {
            let io = self.issue_inputs(now);
            let c = self.issue.classify(&io);
            self.stats.stall_classes[c as usize] += 1;
            // MemoryBlockCycles: every resident warp waits on a load (or drains after EXIT).
            let e = &self.exec;
            if c == StallClass::DataMem && e.valid & !(e.wait_mem | e.exited) == 0 {
                self.stats.memory_block_cycles += 1;
                memory_block = true;
            }
            class = Some(c);
        }
        // An SM without warps flushes a flushing L1 each cycle: quiet once nothing is left.
        let flushing = self.exec.valid == 0 && self.l1.flush_due();
        if self.skip
            && !(looked || returned || sent || offered || flushing)
            && self.issue.settled()
            && !env.quiet_heard
        {
            self.quiet = Some(self.quiet_from(now, class, memory_block));
        }
    }

    /// The record of this cycle, which did nothing but count, as a quiet cycle: until when
    /// the next ones are the same (see `quiet`).
    #[cold]
    fn quiet_from(&self, now: u64, class: Option<StallClass>, memory_block: bool) -> Quiet {
        // (An L1 with accesses in its latency queues looks them up every cycle: never quiet.)
        let mut until = self.l1.next_hit_at().unwrap_or(u64::MAX);
        if let Some(&(at, ..)) = self.ldst.shared.front() {
            until = until.min(at);
        }
        if let Some(at) = self.loads.next_release() {
            until = until.min(at);
        }
        let refused = self.ldst.refused(&self.issue.sched_masks);
        if refused != 0 {
            // Warps skipped for a full LD/ST queue: their stall class turns when their ALU
            // operands become ready.
            let e = &self.exec;
            for w in super::sched::bits(e.valid & !e.blocked() & e.mem_next & refused) {
                let at = e.warps[w].ready_at;
                if at > now {
                    until = until.min(at);
                }
            }
        }
        let schedulers = self.issue.sched_masks.iter();
        Quiet {
            since: now + 1,
            until,
            resident: self.exec.valid != 0,
            idle_slots: schedulers.filter(|&&m| m & self.exec.valid == 0).count() as u8,
            refused: if self.ldst.queue.is_empty() { None } else { self.ldst.stalled },
            class,
            memory_block,
        }
    }

    /// Something outside the SM changed what it waits on (a reply arrived, its miss queue
    /// drained, a CTA came): its next cycle is not quiet. The stretch stays recorded until
    /// that cycle's step counts it.
    #[inline]
    pub fn poke(&mut self) {
        if let Some(q) = &mut self.quiet {
            q.until = q.since;
        }
    }

    /// Replies fill the L1; hits and shared loads come back. Returns whether anything did.
    fn returns(&mut self, now: u64, env: &mut SmEnv<'_>) -> bool {
        let mut returned = false;
        if let Some(reply) = self.reply_queue.pop() {
            returned = true;
            if reply.kind == AccessKind::Store {
                self.store_done(&reply, env);
            } else {
                self.fill(reply, now, env);
            }
        }
        returned |= self.pop_hits(now, env);
        while let Some(&(at, w, slot)) = self.ldst.shared.front() {
            if at > now {
                break;
            }
            self.ldst.shared.pop_front();
            returned = true;
            if slot != NO_LOAD {
                self.finish_load(w as usize, slot as usize, env, false);
            }
        }
        if !self.loads.released.is_empty() {
            while let Some(released) = self.loads.release_due(&mut self.exec.warps, now) {
                returned = true;
                if let Some((w, slot)) = released {
                    self.finish_load(w, slot, env, true);
                }
            }
        }
        returned
    }

    /// A load's reply fills the L1 and reaches its warps.
    fn fill(&mut self, reply: MemRequest, now: u64, env: &mut SmEnv<'_>) {
        let mut done = std::mem::take(&mut self.scratch);
        // Only allocate-on-fill places a line now, for the reply's load.
        let ctx = if self.l1.alloc == AllocPolicy::OnFill {
            let (w, slot) = (reply.origin.warp as usize, reply.origin.load_slot);
            let requests = self.exec.warps[w].loads.get(slot as usize).map_or(1, |t| t.requests);
            self.access_ctx(w, reply.origin.pc, requests, reply.origin.index, 0)
        } else {
            AccessCtx::default()
        };
        self.l1.fill(reply, &ctx, &mut done, env.sink);
        self.feed_victims();
        for r in done.drain(..) {
            self.complete(r, now, env);
        }
        self.scratch = done;
    }

    /// A store is done: absorbed by a perfect L1, or acknowledged by its L2 slice
    /// (`l2.write_acks`, which counts it off its warp).
    fn store_done(&mut self, store: &MemRequest, env: &mut SmEnv<'_>) {
        env.ledger.retire();
        self.exec.store_done(store.origin.warp as usize, env.sink);
    }

    /// Hits whose latency has passed reach their warps. Returns whether any did.
    fn pop_hits(&mut self, now: u64, env: &mut SmEnv<'_>) -> bool {
        let mut any = false;
        while let Some(r) = self.l1.pop_hit(now) {
            any = true;
            if r.kind == AccessKind::Store {
                self.store_done(&r, env);
            } else {
                self.complete(r, now, env);
            }
        }
        any
    }

    /// An L1 with latency queues looks up the accesses at their banks' heads (its hits reach
    /// their warps in the same cycle, as GPGPU-Sim's `L1_latency_queue_cycle` writes a hit's
    /// registers at once); the load records learn each outcome. Returns whether the queues held
    /// anything.
    fn look_up(&mut self, now: u64, env: &mut SmEnv<'_>) -> bool {
        let mut looked = std::mem::take(&mut self.looked);
        let any = self.l1.lookups(now, env.map, env.sink, &mut looked);
        for l in looked.drain(..) {
            self.looked_up(l, now, env);
        }
        self.looked = looked;
        if any {
            self.pop_hits(now, env);
        }
        any
    }

    /// The L1 decided an access it looked up after the LD/ST unit sent it (from a latency
    /// queue, or MASCAR's parked one): its request record learns the outcome, and a policy
    /// that watches the L1 the access.
    fn looked_up(&mut self, l: Looked, now: u64, env: &mut SmEnv<'_>) {
        if l.load_slot == NO_LOAD {
            return;
        }
        let w = l.warp as usize;
        let t = &mut self.exec.warps[w].loads[l.load_slot as usize];
        if let Some(rec) = t.reqs.get_mut(l.index as usize) {
            rec.trace.l1 = l.outcome;
        }
        if l.load && self.learner.watches_l1() {
            self.learn_access(w, l.addr, l.outcome, now, env);
        }
    }

    /// A load request's data reached its warp.
    #[inline(never)]
    fn complete(&mut self, req: MemRequest, now: u64, env: &mut SmEnv<'_>) {
        env.ledger.retire();
        if env.sink.records() {
            env.sink.pass(Point::Done, self.id, 0, Who::of(&req));
        }
        if let Some((w, slot)) = self.loads.returned(&mut self.exec.warps, req, now, &mut self.stats.loads) {
            self.finish_load(w, slot, env, true);
        }
    }

    /// Every request of a load has returned: record its metrics (global loads) and release
    /// its registers.
    fn finish_load(&mut self, w: usize, slot: usize, env: &mut SmEnv<'_>, global: bool) {
        if global {
            let warp = &self.exec.warps[w];
            let who = (warp.cta, warp.warp_in_cta);
            record_finished(&warp.loads[slot], who, self.id, w, &mut self.stats.loads, env.sink);
        }
        self.exec.finish_load(w, slot, global, env.sink);
    }

    /// Steps the LD/ST unit and applies what it did to the warps' loads and the learning
    /// policy. Returns false when it had nothing to do but count a refusal replayed.
    #[inline]
    fn step_ldst(&mut self, now: u64, env: &mut SmEnv<'_>) -> bool {
        if self.ldst.reexec.is_empty()
            && (self.ldst.queue.is_empty()
                || self.ldst.started.is_some()
                    && self.ldst.replay_refusal(&mut self.l1, &mut self.stats, self.id, env.sink))
        {
            return false;
        }
        let mut sent = std::mem::take(&mut self.sent);
        let step = self.ldst.step(LdstIo {
            core: self.id,
            now,
            l1: &mut self.l1,
            tagger: &mut self.tagger,
            stats: &mut self.stats,
            map: env.map,
            sink: env.sink,
            ledger: env.ledger,
            line_bytes: self.line_bytes,
            shared_latency: self.shared_latency,
            schedulers: self.issue.schedulers.len(),
            priority: &self.issue.priority,
            sent: &mut sent,
        });
        if let Some(r) = step.retried {
            // Its miss was counted when it was parked.
            self.looked_up(r, now, env);
        }
        let warps = &mut self.exec.warps;
        if let Some((w, slot)) = step.occluded
            && slot != NO_LOAD
        {
            warps[w as usize].loads[slot as usize].occluded = true;
        }
        for s in sent.drain(..) {
            let w = s.warp as usize;
            if s.load && !s.parked && s.outcome != CacheOutcome::None && self.learner.watches_l1() {
                self.learn_access(w, s.addr, s.outcome, now, env);
            }
            if s.load_slot != NO_LOAD {
                self.exec.warps[w].loads[s.load_slot as usize].reqs.push(ReqRecord {
                    id: s.id,
                    addr: s.addr,
                    lanes: s.lanes,
                    loc: Default::default(),
                    trace: ReqTrace { created: now, l1: s.outcome, ..ReqTrace::default() },
                });
            }
        }
        self.sent = sent;
        if let Some(l) = step.left {
            if l.load_slot != NO_LOAD {
                let t = &mut self.exec.warps[l.warp as usize].loads[l.load_slot as usize];
                t.all_sent = true;
                t.ldst_start = l.started;
                t.ldst_end = now;
                if t.complete() {
                    self.finish_load(l.warp as usize, l.load_slot as usize, env, true);
                }
            }
            if l.load {
                self.learner.load_left(l.pc, l.accesses, l.misses, l.miss_pred);
            }
        }
        true
    }

    /// Hands the policy the L1's new victims, then the access.
    #[cold]
    fn learn_access(&mut self, w: usize, addr: u64, outcome: CacheOutcome, now: u64, env: &mut SmEnv<'_>) {
        self.feed_victims();
        let (key, warps, instructions) =
            (self.l1.key(addr), self.exec.valid.count_ones(), self.stats.instructions);
        if let Some(score) = self.learner.accessed(w, key, outcome, now, instructions, warps)
            && env.sink.wants(EventKind::LostLocality)
        {
            env.sink.emit(Event::LostLocality { core: self.id, warp: w as u16, line: addr, score });
        }
    }

    /// Hands the lines the L1 evicted (recorded only for a policy that watches it) to the
    /// policy.
    fn feed_victims(&mut self) {
        for (owner, key) in self.l1.victims.drain(..) {
            self.learner.evicted(owner as usize, key);
        }
    }

    /// The L1's view of an access by warp `w` (see [`access_ctx`]). Also what the debugger
    /// passes to [`L1::insertion_position`] to ask where a warp's next line would go.
    pub fn access_ctx(&self, w: usize, pc: u32, requests: u8, index: u8, sectors: u8) -> AccessCtx {
        AccessCtx::of_warp(self.issue.schedulers.len(), &self.issue.priority, w, pc, requests, index, sectors)
    }

    /// Where in the L1 set `set`'s chain (0 = MRU) the lines of warp `w`'s next instruction
    /// would be inserted if it missed there now: `None` unless that instruction is a global
    /// load. For the debugger's LRU-chain view (with [`L1::chain`] and [`L1::locality_ways`]).
    pub fn next_insertion(&self, w: usize, set: usize) -> Option<usize> {
        let warp = self.exec.warps.get(w).filter(|warp| warp.valid)?;
        let Op::Load { space, width } = warp.next.op else { return None };
        if space == Space::Shared {
            return None;
        }
        let mut c = Coalesced::default();
        c.build(&warp.addrs, warp.next.mask, width.into(), self.line_bytes);
        let ctx = self.access_ctx(w, warp.next.pc, c.n as u8, 0, c.sectors[0]);
        Some(self.l1.insertion_position(set, &ctx))
    }

    /// Each scheduler offers a warp, in the order of `core.issue_order`; the SM executes it
    /// before the next scheduler offers, and hands what it produced to the LD/ST unit and the
    /// learning policy. Returns whether any scheduler had a warp to offer.
    #[inline]
    fn issue(&mut self, now: u64, env: &mut SmEnv<'_>) -> bool {
        let mut offered = false;
        self.issue.begin(&self.exec, self.ldst.refused(&self.issue.sched_masks));
        let tracing = env.sink.wants(EventKind::WarpStall);
        for s in self.issue.order(now) {
            let Some(slot) = self.issue.slot(s, &self.exec, &mut self.stats, tracing) else {
                continue;
            };
            offered = true;
            let io = IssueInputs::of(
                self.id,
                now,
                &self.exec,
                self.ldst.refused(&self.issue.sched_masks),
                &self.l1,
                &self.learner,
            );
            if let Some(w) = self.issue.offer(slot, &io, &mut self.stats, env.sink)
                && self.execute(w, now, env)
            {
                self.issue.took_ldst(s);
            }
        }
        offered
    }

    /// Warp `w` issued: the execute stage runs its instruction; a memory instruction goes to
    /// the LD/ST unit; the next instruction is decoded. Returns whether the LD/ST queue took an
    /// instruction.
    fn execute(&mut self, w: usize, now: u64, env: &mut SmEnv<'_>) -> bool {
        let global_load = self.exec.load_next & (1 << w) != 0;
        let miss_pred = if global_load { self.learner.load_issued(w) } else { 0 };
        let slot = self.ldst.queue.next_slot();
        let done = self.exec.execute(w, now, miss_pred, slot, &mut self.stats, env.sink);
        if done.dropped {
            self.learner.load_dropped(miss_pred);
        }
        if done.mem {
            let mi = self.ldst.queue.next_slot();
            if mi.load && mi.space != Space::Shared && env.sink.records() {
                let who =
                    Who { id: u64::MAX, core: self.id, warp: mi.warp, seq: mi.seq, index: 0, kind: None };
                env.sink.pass(Point::Issue, self.id, mi.coalesced.n as u16, who);
            }
            if !self.ldst.queue.commit() {
                unreachable!("LD/ST queue space checked at issue");
            }
        }
        if !done.exited {
            self.decode(w, env.kernel);
        }
        done.mem
    }

    /// Decodes warp `w`'s next instruction and tells the learning policy (OAWS predicts the
    /// misses of a global load from it).
    #[inline(always)]
    fn decode(&mut self, w: usize, kernel: &Kernel) {
        let load = self.exec.decode(w, kernel);
        self.learner.decoded(
            w,
            &self.exec.warps[w].next,
            load,
            self.issue.global_priority[w],
            self.l1.fcw.fcw,
        );
    }

    /// What the issue stage reads of the SM at `now`.
    #[inline]
    fn issue_inputs(&self, now: u64) -> IssueInputs<'_> {
        IssueInputs::of(
            self.id,
            now,
            &self.exec,
            self.ldst.refused(&self.issue.sched_masks),
            &self.l1,
            &self.learner,
        )
    }

    /// Recomputes GTO priorities after CTAs come or go.
    pub fn refresh_priorities(&mut self) {
        self.issue.refresh_priorities(&self.exec);
    }

    /// The scheduler of warp slot `w`.
    pub fn scheduler_of(&self, w: usize) -> usize {
        self.issue.scheduler_of(w)
    }

    /// Why resident warp `w` cannot issue at `now` judged from the current state, evaluated
    /// live (`Issued` when nothing stops it); see [`IssueStage::stall_reason`].
    pub fn stall_reason(&self, w: usize, now: u64) -> StallReason {
        let io = self.issue_inputs(now);
        self.issue.stall_reason(w, &io)
    }

    /// The scheduling group of warp `w` under the configured policy (two-level fetch group,
    /// OWL CTA group), if it has groups.
    pub fn group_of(&self, w: usize) -> Option<u32> {
        let io = self.issue_inputs(0);
        self.issue.group_of(w, &io)
    }

    /// The warps waiting on an L1 MSHR entry: the one whose miss allocated it and those whose
    /// requests merged into it (a warp-slot mask, for the MSHR view).
    pub fn mshr_waiting_warps(e: &MshrEntry) -> u64 {
        e.merged.iter().fold(1u64 << e.owner, |m, r| m | 1 << r.origin.warp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Origin};
    use crate::workload::Workload;

    /// CTAs of `k` that fit on an SM of `c`.
    fn fit(c: &Config, k: &Kernel) -> u32 {
        crate::sim::occupancy::ctas_per_sm(c, k).unwrap()
    }

    /// An SM of machine `c` with `ctas` CTAs of a one-kernel workload resident, priorities
    /// refreshed. `kernel` is the kernel's fields after its name.
    fn resident(c: &Config, kernel: &str, ctas: u32) -> (Sm, EventSink) {
        let text = format!("(name: \"p\", kernels: [(name: \"k\", {kernel})])");
        let w = Workload::from_text(&text, &Origin::File("t".into()), 1).unwrap();
        let k = &w.kernels[0];
        let mut sm = Sm::new(c, 0, k.placeholder_program());
        let mut sink = EventSink::default();
        for cta in 0..ctas {
            sm.launch(0, 0, k, cta, fit(c, k), k.cta_programs(cta).unwrap(), &mut sink);
        }
        sm.refresh_priorities();
        (sm, sink)
    }

    #[test]
    fn next_insertion_of_a_warp_follows_its_priority_under_dacache() {
        // Eight warps of a fully divergent 4 KB-strided load: with DaCache, 2 schedulers, 32
        // sets, width 32, a warp of GTO priority p inserts at min(2p, 7) while it is a locality
        // warp (SM rank < FCW = 4), at LRU otherwise (seed 004 §4.2.2-4.2.3).
        let c = Config::default().with_sets(&["l1.replacement=dacache".into()]).unwrap();
        let kernel = "ctas: 1, threads_per_cta: 256, arrays: [(name: \"a\", elems: 2097152)], \
                      program: [Load(array: \"a\", pattern: Strided(stride_bytes: 4096), dst: 1)]";
        let (sm, _) = resident(&c, kernel, 1);
        let at: Vec<Option<usize>> = (0..8).map(|w| sm.next_insertion(w, 0)).collect();
        assert_eq!(at, vec![Some(0), Some(0), Some(2), Some(2), Some(7), Some(7), Some(7), Some(7)]);
        assert_eq!(sm.l1.locality_ways(), Some(4));
        let (empty, _) = resident(&Config::default(), kernel, 0);
        assert_eq!(empty.next_insertion(0, 0), None, "no resident warp");
    }

    #[test]
    fn gto_priorities_rank_warps_by_age_within_each_scheduler() {
        let kernel = "ctas: 2, threads_per_cta: 128, arrays: [(name: \"a\", elems: 64)], program: [Alu()]";
        let (mut sm, mut sink) = resident(&Config::default(), kernel, 2);
        // Warps 0..8 by age; even slots on scheduler 0, odd on scheduler 1.
        assert_eq!(&sm.issue.priority[..8], &[0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(&sm.issue.global_priority[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
        sm.exec.retire_warp(0, &mut sink);
        sm.refresh_priorities();
        assert_eq!(&sm.issue.priority[2..8], &[0, 1, 1, 2, 2, 3]);
        assert_eq!(&sm.issue.global_priority[2..8], &[0, 3, 2, 5, 4, 7]);
    }

    /// One SM with fixed-latency memory below its L1: a controlled machine for scheduler
    /// scenarios that need to look inside (e.g. a trained divergent load classifier).
    struct Rig {
        sm: Sm,
        workload: Workload,
        map: AddressMap,
        sink: EventSink,
        memory: crate::sim::ideal::IdealPipe,
        now: u64,
        /// The memory takes L1 misses every this many cycles (2: an interconnect at half the
        /// core's clock).
        serve_every: u64,
        ledger: Ledger,
        events: Vec<(u64, Event)>,
    }

    impl Rig {
        fn new(sets: &[&str], workload: &str) -> Rig {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let c = Config::default().with_sets(&sets).unwrap();
            let workload = Workload::from_text(workload, &Origin::File("t".into()), 1).unwrap();
            let k = &workload.kernels[0];
            let mut sm = Sm::new(&c, 0, k.placeholder_program());
            let mut sink = EventSink::default();
            sink.set_mask(u64::MAX);
            sm.launch(0, 0, k, 0, fit(&c, k), k.cta_programs(0).unwrap(), &mut sink);
            sink.clear();
            Rig {
                sm,
                map: AddressMap::new(&c),
                memory: crate::sim::ideal::IdealPipe::new(&c),
                workload,
                sink,
                now: 0,
                serve_every: 1,
                ledger: Ledger::default(),
                events: Vec::new(),
            }
        }

        fn step(&mut self) {
            self.sink.set_now(self.now);
            if self.now.is_multiple_of(self.serve_every) {
                self.memory.serve_l1_misses(
                    self.now,
                    false,
                    std::slice::from_mut(&mut self.sm),
                    &mut [],
                    &mut self.ledger,
                );
            }
            let mut env = SmEnv {
                kernel: &self.workload.kernels[0],
                kernel_active: true,
                map: &self.map,
                quiet_heard: super::super::quiet::heard(&self.sink),
                sink: &mut self.sink,
                ledger: &mut self.ledger,
            };
            let _ = self.sm.step(self.now, &mut env);
            self.events.extend(self.sink.drain());
            self.now += 1;
        }

        /// The cycle each completed load issued at and its warp, in issue order.
        fn loads_issued(&self) -> Vec<(u64, u16)> {
            self.loads_by(|e| match e {
                Event::LoadDone { warp, issued, .. } => Some((*issued, *warp)),
                _ => None,
            })
        }

        /// (cycle its first data came back, warp) of every load, in that order: behind the
        /// fixed-latency memory, the order the LD/ST unit served them.
        fn loads_started(&self) -> Vec<(u64, u16)> {
            self.loads_by(|e| match e {
                Event::LoadDone { warp, first, .. } => Some((*first, *warp)),
                _ => None,
            })
        }

        /// (cycle, warp) that `pick` finds in each event, sorted.
        fn loads_by(&self, pick: impl Fn(&Event) -> Option<(u64, u16)>) -> Vec<(u64, u16)> {
            let mut loads: Vec<(u64, u16)> = self.events.iter().filter_map(|(_, e)| pick(e)).collect();
            loads.sort();
            loads
        }

        /// Steps until every warp retired; returns that cycle.
        fn finish(&mut self) -> u64 {
            while self.sm.exec.valid != 0 {
                self.step();
                assert!(self.now < 10_000, "runaway");
            }
            self.now
        }
    }

    /// Seed 004 Fig. 5.1: warps A, B, C whose divergent loads need 6, 6 and 2 of 8 MSHRs,
    /// each followed by a computation. GTO issues A then B, and B occludes the LD/ST unit
    /// until A's data frees MSHRs; C's load waits behind it. OAWS holds B back, lets C's load
    /// go, and C computes while B's load is in flight: all three finish sooner.
    #[test]
    fn oaws_avoids_the_occlusion_of_fig_5_1_and_finishes_sooner() {
        // 74 threads: warps of 32, 32 and 10 lanes. Lane t reads a[24·t]: 6, 6 and 2 lines.
        // Five independent ALU instructions of 8 cycles each (SIMD width 4) per warp.
        let workload = r#"(name: "fig5.1", kernels: [(name: "k", ctas: 1, threads_per_cta: 74,
            arrays: [(name: "a", elems: 4096)],
            program: [
                Load(array: "a", pattern: Strided(stride_bytes: 24), dst: 1),
                Alu(count: 5, srcs: [1]),
            ])])"#;
        let sets = |scheduler: &'static str| {
            [
                "core.warp_schedulers=1",
                "core.simd_width=4",
                "l1.mshr_entries=8",
                "ideal.memory=fixed-latency",
                "ideal.miss_latency=100",
                "core.oaws.smr_percent=18",
                scheduler,
            ]
        };
        let mut gto = Rig::new(&sets("core.warp_scheduler=gto"), workload);
        let gto_end = gto.finish();
        let mut oaws = Rig::new(&sets("core.warp_scheduler=oaws-static"), workload);
        // The classifier has seen this load diverge (it is cleared per kernel, so teach it
        // here): Miss_pred = ⌈lanes × 18%⌉ = 6, 6, 2.
        let pc = oaws.sm.exec.warps[0].next.pc;
        oaws.sm.learner.oaws_mut().unwrap().dlc.record(pc, 32, 32);
        for w in 0..3 {
            let (next, gprio) = (oaws.sm.exec.warps[w].next, oaws.sm.issue.global_priority[w]);
            oaws.sm.learner.decoded(w, &next, true, gprio, 0);
        }
        assert_eq!(&oaws.sm.learner.oaws().unwrap().miss_pred[..3], &[6, 6, 2]);
        let oaws_end = oaws.finish();

        let occlusions = |r: &Rig| -> Vec<(u16, u16, u16)> {
            r.events
                .iter()
                .filter_map(|(_, e)| match e {
                    Event::MemoryOcclusion { warp, needed, free, .. } => Some((*warp, *needed, *free)),
                    _ => None,
                })
                .collect()
        };
        // GTO: B needs 6 MSHRs with 2 free — occlusion (and C, behind it, finds 1 free);
        // the loads issue A, B, C.
        assert_eq!(occlusions(&gto), vec![(1, 6, 2), (2, 2, 1)]);
        assert_eq!(gto.loads_issued().iter().map(|l| l.1).collect::<Vec<_>>(), vec![0, 1, 2]);
        // OAWS: B is disqualified the cycle after A issued (6 predicted > 7 free − 6 in flight),
        // C goes as soon as A's load leaves the LD/ST unit (cycle 6: 2 ≤ 2 free), B only once
        // A's data has freed its MSHRs; no occlusion.
        assert_eq!(occlusions(&oaws), vec![]);
        assert!(oaws.events.iter().any(|&(c, ref e)| c == 1
            && matches!(e, Event::OawsDisqualified { warp: 1, predicted: 6, available: 1, .. })));
        let issued = oaws.loads_issued();
        assert_eq!(issued.iter().map(|l| l.1).collect::<Vec<_>>(), vec![0, 2, 1]);
        assert_eq!(issued[1].0, 6);
        assert!(issued[2].0 > 100, "B waits for A's data");
        assert_eq!(oaws.sm.stats.disqualifications, 2, "B once; C until A's load left the LD/ST unit");
        // GTO: 280 cycles; OAWS: 249.
        assert!(oaws_end + 25 < gto_end, "OAWS finishes at {oaws_end}, GTO at {gto_end}");
        assert_eq!(oaws.sm.learner.oaws().unwrap().miss_inflight, 0);
    }

    /// Seed 004 Fig. 2.3 counts each issue at the issuing warp's GTO priority. Two warps on
    /// one GTO scheduler run `r1 = ..; .. = r1; EXIT` with an 8-cycle ALU latency: the older
    /// warp 0 issues (priority 0) and waits on r1, so warp 1 issues (priority 1); warp 0 is
    /// ready first and, now greedy, issues its last two; having exited, it leaves warp 1 the
    /// oldest, whose last two issue at priority 0. Issues by priority: [5, 1].
    #[test]
    fn each_issue_counts_at_the_issuing_warps_gto_priority() {
        let workload = r#"(name: "two", kernels: [(name: "k", ctas: 1, threads_per_cta: 64,
            arrays: [(name: "a", elems: 64)],
            program: [Alu(dst: 1), Alu(srcs: [1])])])"#;
        let mut rig = Rig::new(
            &["core.warp_schedulers=1", "core.alu_latency=8", "ideal.memory=fixed-latency"],
            workload,
        );
        assert_eq!(rig.sm.stats.issue_priority.len(), rig.sm.exec.warps.len(), "one scheduler");
        rig.finish();
        assert_eq!(rig.sm.stats.issued, 6);
        assert_eq!(&rig.sm.stats.issue_priority[..3], &[5, 1, 0]);
        assert!(rig.sm.stats.issue_priority[3..].iter().all(|&n| n == 0));
    }

    /// Two warps, one per scheduler, each with four independent coalesced loads, and an
    /// LD/ST queue of one instruction that frees every cycle: the schedulers take turns at
    /// it. (With scheduler 0 always offering first, warp 0 issued all four loads before
    /// warp 1 issued any.)
    #[test]
    fn schedulers_take_turns_at_a_shared_ldst_queue() {
        let sets = ["core.warp_schedulers=2", "core.mem_pipeline_width=1", "ideal.memory=fixed-latency"];
        for start in [0, 1] {
            let mut rig = Rig::new(&sets, FOUR_LOADS);
            rig.now = start;
            assert_eq!((rig.sm.scheduler_of(0), rig.sm.scheduler_of(1)), (0, 1));
            rig.finish();
            let issued = rig.loads_issued();
            let cycles: Vec<u64> = issued.iter().map(|l| l.0).collect();
            assert_eq!(cycles, (start..start + 8).collect::<Vec<_>>(), "one load a cycle");
            let warps: Vec<u16> = issued.iter().map(|l| l.1).collect();
            let first = start as u16 % 2;
            let turns: Vec<u16> = (0..8).map(|i| (first + i) % 2).collect();
            assert_eq!(warps, turns, "the schedulers alternate, starting from cycle {start}'s");
        }
    }

    /// Two warps (one per scheduler of two), each with four independent coalesced loads of
    /// four arrays.
    const FOUR_LOADS: &str = r#"(name: "turns", kernels: [(name: "k", ctas: 1, threads_per_cta: 64,
        arrays: [(name: "a", elems: 4096), (name: "b", elems: 4096), (name: "c", elems: 4096),
            (name: "d", elems: 4096)],
        program: [
            Load(array: "a", pattern: Coalesced, dst: 1),
            Load(array: "b", pattern: Coalesced, dst: 2),
            Load(array: "c", pattern: Coalesced, dst: 3),
            Load(array: "d", pattern: Coalesced, dst: 4),
        ])])"#;

    /// The same two warps, but the L1's one-entry miss queue drains every other cycle (an
    /// interconnect at half the core clock), so the LD/ST queue frees a slot every other cycle,
    /// in step with a rotation over two schedulers: under `rotate` the scheduler first at the
    /// freeing parity takes every slot while its warp has loads, under `ldst-round-robin` the
    /// schedulers still take turns.
    #[test]
    fn ldst_round_robin_takes_turns_where_rotation_aliases_with_the_queue() {
        let workload = FOUR_LOADS;
        let order = |issue_order: &str| {
            let order = format!("core.issue_order={issue_order}");
            let sets = [
                "core.warp_schedulers=2",
                "core.mem_pipeline_width=1",
                "l1.miss_queue=1",
                "ideal.memory=fixed-latency",
                &order,
            ];
            let mut rig = Rig::new(&sets, workload);
            rig.serve_every = 2;
            rig.finish();
            let issued = rig.loads_issued();
            let gaps: Vec<u64> = issued.windows(2).map(|p| p[1].0 - p[0].0).collect();
            (issued.iter().map(|l| l.1).collect::<Vec<u16>>(), gaps)
        };
        // The first two loads find the queues empty (cycles 0 and 1); from then on a slot
        // frees every other cycle, on the even cycles.
        let (rotate, gaps) = order("rotate");
        assert_eq!(gaps, [1, 1, 2, 2, 2, 2, 2]);
        assert_eq!(rotate, [0, 1, 0, 0, 0, 1, 1, 1], "scheduler 0, first on even cycles, takes every slot");
        let (turns, gaps) = order("ldst-round-robin");
        assert_eq!(gaps, [1, 1, 2, 2, 2, 2, 2]);
        assert_eq!(turns, [0, 1, 0, 1, 0, 1, 0, 1], "the schedulers alternate");
    }

    /// The same aliasing queue under GPGPU-Sim's sub-core model (`core.sub_core`), with the
    /// rotation GPGPU-Sim has: each scheduler has a place of its own, so both issue their
    /// first load in cycle 0, and the unit serves the oldest instruction, so a scheduler's
    /// place frees only after the other's older load went first: they alternate.
    #[test]
    fn sub_core_places_serve_the_schedulers_in_turn_under_rotation() {
        let workload = FOUR_LOADS;
        let sets = [
            "core.warp_schedulers=2",
            "core.mem_pipeline_width=1",
            "core.sub_core=true",
            "l1.miss_queue=1",
            "ideal.memory=fixed-latency",
        ];
        let mut rig = Rig::new(&sets, workload);
        rig.serve_every = 2;
        rig.finish();
        let issued = rig.loads_issued();
        assert_eq!(issued.iter().map(|l| l.1).collect::<Vec<u16>>(), [0, 1, 0, 1, 0, 1, 0, 1]);
        assert_eq!((issued[0].0, issued[1].0), (0, 0), "a place each: both issue at once");
        let started: Vec<u16> = rig.loads_started().iter().map(|l| l.1).collect();
        assert_eq!(started, [0, 1, 0, 1, 0, 1, 0, 1], "the unit serves the oldest first");
    }

    #[test]
    fn cta_groups_follow_algorithm_1_over_the_launch_order() {
        // 2-warp CTAs; 8 fit (max_ctas); g_size 5 → n = 3 → groups [3, 5].
        let c = Config::default().with_sets(&["core.owl.min_group_size=5".into()]).unwrap();
        let w = Workload::from_text(
            "(name: \"p\", kernels: [(name: \"k\", ctas: 20, threads_per_cta: 64, arrays: [(name: \"a\", elems: 64)], program: [Alu()])])",
            &Origin::File("t".into()),
            1,
        )
        .unwrap();
        let k = &w.kernels[0];
        let mut sm = Sm::new(&c, 3, k.placeholder_program());
        let mut sink = EventSink::default();
        for cta in 0..8 {
            sm.launch(0, 0, k, cta, fit(&c, k), k.cta_programs(cta).unwrap(), &mut sink);
        }
        assert_eq!(sm.exec.grouping.group_sizes, vec![3, 5]);
        let groups: Vec<u32> = sm.exec.ctas.iter().map(|c| c.group).collect();
        assert_eq!(groups, vec![0, 0, 0, 1, 1, 1, 1, 1]);
        assert_eq!(&sm.exec.cta_group[..6], &[0, 0, 0, 0, 0, 0]);
        assert_eq!(&sm.exec.cta_group[6..8], &[1, 1]);
        // The first CTA finishes; the next one opens round 1's first group (id 2).
        sm.exec.retire_warp(0, &mut sink);
        sm.exec.retire_warp(1, &mut sink);
        sm.launch(0, 0, k, 8, fit(&c, k), k.cta_programs(8).unwrap(), &mut sink);
        assert_eq!((sm.exec.ctas[0].cta, sm.exec.ctas[0].group), (8, 2));
        // A new kernel starts over.
        sm.exec.kernel = Some(7);
        sm.exec.retire_warp(2, &mut sink);
        sm.exec.retire_warp(3, &mut sink);
        sm.launch(0, 1, k, 0, fit(&c, k), k.cta_programs(0).unwrap(), &mut sink);
        assert_eq!(sm.exec.ctas[1].group, 0);
    }
}
