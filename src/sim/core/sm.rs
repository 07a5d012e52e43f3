//! A streaming multiprocessor: warp slots, CTA slots with barriers, warp schedulers issuing
//! one instruction each per cycle, the LD/ST unit and the L1D (MECHANISMS §1).
//!
//! Per core cycle: one reply from the interconnect fills the L1 (waking every request merged
//! behind it), finished hits and shared-memory loads return, the LD/ST unit sends one access,
//! and each scheduler issues at most one instruction.

use super::coalescer::Coalesced;
use super::ldst::{Ldst, MemInstr, NO_LOAD};
use super::sched::{SchedView, WarpScheduler, WarpSchedulerKind};
use super::stall::StallReason;
use super::warp::{LoadTrack, ReqRecord, Warp};
use crate::config::{AllocPolicy, Config};
use crate::sim::cache::AccessCtx;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::l1::L1;
use crate::sim::queue::BoundedQueue;
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest, Origin, ReqTrace};
use crate::sim::stats::{CoreStats, StallCause};
use crate::workload::instr::{Op, Space};
use crate::workload::{Kernel, WarpProgram};

/// A CTA resident on the SM.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CtaSlot {
    pub active: bool,
    /// Grid id of the CTA.
    pub cta: u32,
    /// Its warp slots.
    pub warps: u64,
    /// Warps not yet retired.
    pub resident: u32,
    /// Warps that have not executed EXIT (a barrier waits for these).
    pub running: u32,
    /// Warps waiting at the barrier.
    pub at_barrier: u32,
}

/// What the SM needs from the rest of the GPU during a step.
pub struct SmEnv<'a> {
    pub kernel: &'a Kernel,
    pub map: &'a AddressMap,
    pub sink: &'a mut EventSink,
    /// Next request id (global, increasing).
    pub next_id: &'a mut u64,
    /// Requests created / retired (conservation).
    pub created: &'a mut u64,
    pub retired: &'a mut u64,
}

/// Fixed per-SM parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Params {
    alu_latency: u64,
    alu_interval: u64,
    max_loads: u8,
    line_bytes: u64,
    shared_latency: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sm {
    pub id: u16,
    pub warps: Vec<Warp>,
    /// Launch age per warp slot (contiguous, for schedulers).
    pub ages: Vec<u64>,
    /// GTO priority per warp slot: its rank by age among its scheduler's warps (0 = oldest).
    /// Valid for resident warps; refreshed when the resident warps change.
    pub priority: Vec<u8>,
    priority_generation: u64,
    /// Occupied warp slots.
    pub valid: u64,
    /// Warps known not to be able to issue (waiting on memory, at a barrier, exited).
    pub blocked: u64,
    /// Warps whose next instruction is a load or store (skipped at once while the LD/ST
    /// queue is full).
    pub mem_next: u64,
    /// Warp slots of each scheduler.
    pub sched_masks: Vec<u64>,
    pub schedulers: Vec<WarpSchedulerKind>,
    /// Per scheduler: first cycle its ALU accepts another instruction.
    pub alu_free: Vec<u64>,
    pub ctas: Vec<CtaSlot>,
    pub ldst: Ldst,
    pub l1: L1,
    /// Replies from the interconnect waiting to fill the L1.
    pub reply_queue: BoundedQueue<MemRequest>,
    /// Bumped when the set of resident warps changes.
    pub generation: u64,
    /// CTAs finished since the GPU last collected them.
    pub finished_ctas: u32,
    /// A warp slot was freed since the GPU last looked (a CTA may fit again).
    pub slots_freed: bool,
    /// Packet header size and L2 slices per channel (to address the request network).
    pub header_bytes: u32,
    slices_per_channel: u32,
    next_age: u64,
    params: Params,
    scratch: Vec<MemRequest>,
    pub stats: CoreStats,
}

impl Sm {
    pub fn new(c: &Config, id: u16, placeholder: WarpProgram) -> Sm {
        let n = c.warps_per_sm();
        let k = c.core.warp_schedulers as usize;
        let mut sched_masks = vec![0u64; k];
        for w in 0..n {
            sched_masks[w % k] |= 1 << w;
        }
        Sm {
            id,
            warps: (0..n)
                .map(|_| Warp::empty(placeholder.clone(), c.core.max_loads_per_warp as usize))
                .collect(),
            ages: vec![0; n],
            priority: vec![0; n],
            priority_generation: u64::MAX,
            valid: 0,
            blocked: 0,
            mem_next: 0,
            sched_masks,
            schedulers: (0..k).map(|_| WarpSchedulerKind::new(c.core.warp_scheduler)).collect(),
            alu_free: vec![0; k],
            ctas: vec![CtaSlot::default(); c.core.max_ctas as usize],
            ldst: Ldst::new(c.core.mem_pipeline_width as usize, c.core.shared_latency as usize),
            l1: L1::new(c, id),
            reply_queue: BoundedQueue::new(c.core.reply_queue as usize),
            generation: 0,
            finished_ctas: 0,
            slots_freed: false,
            header_bytes: c.icnt.header_bytes,
            slices_per_channel: c.l2.slices_per_channel,
            next_age: 0,
            params: Params {
                alu_latency: c.core.alu_latency.into(),
                alu_interval: (32 / c.core.simd_width).into(),
                max_loads: c.core.max_loads_per_warp as u8,
                line_bytes: c.l1.line_bytes.into(),
                shared_latency: c.core.shared_latency.into(),
            },
            scratch: Vec::with_capacity(c.l1.mshr_merge as usize + 1),
            stats: CoreStats::default(),
        }
    }

    /// Whether a CTA of `warps` warps fits now.
    pub fn can_launch(&self, warps: u32) -> bool {
        let free_slots = (!self.valid & mask_of(self.warps.len())).count_ones();
        self.ctas.iter().any(|c| !c.active) && free_slots >= warps
    }

    /// Places CTA `cta` of `kernel` on this SM (the caller checked [`Sm::can_launch`]).
    pub fn launch(&mut self, kernel: &Kernel, cta: u32, sink: &mut EventSink) {
        let slot = self.ctas.iter().position(|c| !c.active).expect("free CTA slot");
        let n = kernel.warps_per_cta();
        let mut mask = 0u64;
        let mut w = 0usize;
        for i in 0..n {
            while self.valid & (1 << w) != 0 {
                w += 1;
            }
            let warp = &mut self.warps[w];
            warp.valid = true;
            warp.cta_slot = slot as u8;
            warp.cta = cta;
            warp.warp_in_cta = i as u16;
            warp.age = self.next_age;
            self.ages[w] = self.next_age;
            self.next_age += 1;
            warp.program = kernel.warp_program(cta, i);
            warp.pending = Default::default();
            warp.alu_regs = [(crate::workload::instr::NO_REG, 0); 4];
            warp.at_barrier = false;
            warp.exited = false;
            warp.loads_out = 0;
            warp.load_seq = 0;
            warp.instructions = 0;
            warp.stall = StallReason::Issued;
            for l in &mut warp.loads {
                l.active = false;
            }
            warp.last_load.active = false;
            warp.last_load.reqs.clear();
            self.valid |= 1 << w;
            self.blocked &= !(1 << w);
            self.fetch(w, kernel);
            mask |= 1 << w;
        }
        self.ctas[slot] = CtaSlot { active: true, cta, warps: mask, resident: n, running: n, at_barrier: 0 };
        self.generation += 1;
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
        self.valid == 0 && self.ldst.is_idle() && self.reply_queue.is_empty() && self.l1.occupancy() == 0
    }

    /// One core cycle.
    pub fn step(&mut self, now: u64, env: &mut SmEnv<'_>) {
        if self.valid == 0 && self.reply_queue.is_empty() && self.ldst.is_idle() && self.l1.occupancy() == 0 {
            let k = self.schedulers.len() as u64;
            self.stats.issue_slots += k;
            self.stats.idle += k;
            return;
        }
        if self.valid != 0 {
            self.stats.active_cycles += 1;
        }
        self.returns(now, env);
        self.step_ldst(now, env);
        self.issue(now, env);
    }

    /// Replies fill the L1; hits and shared loads come back.
    fn returns(&mut self, now: u64, env: &mut SmEnv<'_>) {
        if let Some(reply) = self.reply_queue.pop() {
            let mut done = std::mem::take(&mut self.scratch);
            // Only allocate-on-fill places a line now, for the reply's load.
            let ctx = if self.l1.alloc == AllocPolicy::OnFill {
                let (w, slot) = (reply.origin.warp as usize, reply.origin.load_slot);
                let requests = self.warps[w].loads.get(slot as usize).map_or(1, |t| t.requests);
                self.access_ctx(w, reply.origin.pc, requests, reply.origin.index, 0)
            } else {
                AccessCtx::default()
            };
            self.l1.fill(reply, &ctx, &mut done, env.sink);
            for r in done.drain(..) {
                self.complete(r, now, env);
            }
            self.scratch = done;
        }
        while let Some(r) = self.l1.pop_hit(now) {
            self.complete(r, now, env);
        }
        while let Some(&(at, w, slot)) = self.ldst.shared.front() {
            if at > now {
                break;
            }
            self.ldst.shared.pop_front();
            if slot != NO_LOAD {
                self.finish_load(w as usize, slot as usize, env, false);
            }
        }
    }

    /// A load request's data reached its warp.
    fn complete(&mut self, mut req: MemRequest, now: u64, env: &mut SmEnv<'_>) {
        req.trace.done = now;
        *env.retired += 1;
        if matches!(req.trace.l1, CacheOutcome::Miss | CacheOutcome::Merged) {
            self.stats.loads.miss_latency += now - req.trace.created;
            self.stats.loads.miss_returns += 1;
        }
        let w = req.origin.warp as usize;
        let slot = req.origin.load_slot as usize;
        let track = &mut self.warps[w].loads[slot];
        track.returned(&req, now);
        if track.complete() {
            self.finish_load(w, slot, env, true);
        }
    }

    /// Every request of a load has returned: release its register and record its metrics.
    fn finish_load(&mut self, w: usize, slot: usize, env: &mut SmEnv<'_>, global: bool) {
        let warp = &mut self.warps[w];
        let t = &mut warp.loads[slot];
        if global {
            let s = &mut self.stats.loads;
            s.loads += 1;
            s.requests += u64::from(t.requests);
            if t.requests > 1 {
                s.divergent += 1;
            }
            s.effective_latency += t.last - t.issued;
            s.latency_divergence += t.last - t.first;
            let (channels, banks) = spread(&t.reqs);
            if channels > 0 {
                s.dram_loads += 1;
                s.channels += channels;
                s.banks += banks;
            }
            s.occlusion_cycles += (t.ldst_end + 1 - t.ldst_start).saturating_sub(u64::from(t.requests));
            if env.sink.wants(EventKind::LoadDone) {
                env.sink.emit(Event::LoadDone {
                    core: self.id,
                    warp: w as u16,
                    pc: t.pc,
                    requests: t.requests,
                    issued: t.issued,
                    first: t.first,
                    last: t.last,
                });
            }
        }
        let dst = t.dst;
        t.active = false;
        if global {
            std::mem::swap(t, &mut warp.last_load);
            warp.loads[slot].active = false;
        }
        warp.pending.remove(dst);
        warp.loads_out -= 1;
        self.blocked &= !(1 << w);
        if warp.exited {
            self.blocked |= 1 << w;
            if warp.loads_out == 0 {
                self.retire_warp(w, env.sink);
            }
        }
    }

    /// The LD/ST unit sends (at most) one access of its head instruction.
    fn step_ldst(&mut self, now: u64, env: &mut SmEnv<'_>) {
        let Some(head) = self.ldst.queue.front() else {
            return;
        };
        let (w, load_slot) = (head.warp as usize, head.load_slot);
        if self.ldst.started.is_none() {
            self.ldst.started = Some(now);
            if head.space == Space::Shared {
                self.stats.shared_accesses += 1;
                if head.load {
                    self.ldst.shared.push_back((now + self.params.shared_latency, head.warp, load_slot));
                }
                self.ldst.queue.pop();
                self.ldst.started = None;
                return;
            }
            if head.load {
                self.check_occlusion(env);
            }
        }
        // A replay gives the same answer until a fill changes the L1 (a fill is the only way
        // an MSHR entry frees or a missing line appears) or the miss queue drains: count the
        // stall without redoing the lookup.
        if let Some(cause) = self.ldst.stalled {
            let unchanged = self.l1.fills == self.ldst.stalled_fills;
            let persists = match cause {
                StallCause::Mshr => self.l1.mshr.free() == 0,
                StallCause::MissQueue => unchanged && self.l1.miss_queue.is_full(),
                _ => false,
            };
            if persists {
                self.record_ldst_stall(cause, w, env);
                return;
            }
        }
        let head = self.ldst.queue.front().expect("head present");
        let k = self.ldst.next;
        let (addr, lanes) = (head.coalesced.lines[k], head.coalesced.lanes[k]);
        let ctx = self.access_ctx(w, head.pc, head.coalesced.n as u8, k as u8, head.coalesced.sectors[k]);
        let kind = if head.load { AccessKind::Load } else { AccessKind::Store };
        let bytes = if head.load {
            self.params.line_bytes as u32
        } else {
            lanes.count_ones() * u32::from(head.width)
        };
        let req = MemRequest {
            id: *env.next_id,
            kind,
            addr,
            bytes,
            lanes,
            origin: Origin {
                core: self.id,
                warp: head.warp,
                pc: head.pc,
                load_seq: head.seq,
                load_slot,
                index: k as u8,
                last_to_channel: false,
            },
            loc: Default::default(),
            trace: ReqTrace { created: now, ..ReqTrace::default() },
        };
        match self.l1.access(req, &ctx, now, env.map, env.sink) {
            Ok(outcome) => {
                *env.next_id += 1;
                *env.created += 1;
                self.ldst.stalled = None;
                if load_slot != NO_LOAD {
                    self.warps[w].loads[load_slot as usize].reqs.push(ReqRecord {
                        id: *env.next_id - 1,
                        addr,
                        lanes,
                        loc: Default::default(),
                        trace: ReqTrace { created: now, l1: outcome, ..ReqTrace::default() },
                    });
                }
                self.ldst.next += 1;
            }
            Err(cause) => {
                self.ldst.stalled = Some(cause);
                self.ldst.stalled_fills = self.l1.fills;
                self.stats.ldst_stalls[cause as usize] += 1;
                self.emit_mshr_full(cause, w, env);
                return;
            }
        }
        let head = self.ldst.queue.front().expect("head present");
        if self.ldst.next < head.coalesced.n {
            return;
        }
        // The instruction has sent every access.
        let started = self.ldst.started.take().unwrap_or(now);
        self.ldst.next = 0;
        self.ldst.queue.pop();
        if load_slot != NO_LOAD {
            let t = &mut self.warps[w].loads[load_slot as usize];
            t.all_sent = true;
            t.ldst_start = started;
            t.ldst_end = now;
            if t.complete() {
                self.finish_load(w, load_slot as usize, env, true);
            }
        }
    }

    /// Counts a replayed access whose cause persists (the L1 counts its own stalls on a real
    /// attempt; here the attempt is skipped, so both are counted).
    fn record_ldst_stall(&mut self, cause: StallCause, w: usize, env: &mut SmEnv<'_>) {
        self.stats.ldst_stalls[cause as usize] += 1;
        self.l1.stats.stall(cause);
        self.emit_mshr_full(cause, w, env);
    }

    #[inline]
    fn emit_mshr_full(&self, cause: StallCause, w: usize, env: &mut SmEnv<'_>) {
        if cause == StallCause::Mshr && env.sink.wants(EventKind::MshrFull) {
            let head = self.ldst.queue.front().expect("head present");
            let line = head.coalesced.lines[self.ldst.next];
            env.sink.emit(Event::MshrFull { core: self.id, warp: w as u16, pc: head.pc, line });
        }
    }

    /// A load entering the LD/ST unit that needs more new MSHRs than are free is occluded.
    fn check_occlusion(&mut self, env: &mut SmEnv<'_>) {
        let head = self.ldst.queue.front().expect("head present");
        let needed = head.coalesced.iter().filter(|&(line, _)| self.l1.needs_mshr(line)).count();
        let free = self.l1.mshr.free();
        if needed > free {
            self.stats.occlusions += 1;
            let (w, slot, pc) = (head.warp, head.load_slot, head.pc);
            if slot != NO_LOAD {
                self.warps[w as usize].loads[slot as usize].occluded = true;
            }
            if env.sink.wants(EventKind::MemoryOcclusion) {
                env.sink.emit(Event::MemoryOcclusion {
                    core: self.id,
                    warp: w,
                    pc,
                    needed: needed as u16,
                    free: free as u16,
                });
            }
        }
    }

    /// The L1's view of an access by warp `w` (seed 004 §4.2.2): its GTO priority and SM-wide
    /// rank, and the load's `requests` and this access's `index` among them. Also what the
    /// debugger passes to [`L1::insertion_position`] to ask where a warp's next line would go.
    pub fn access_ctx(&self, w: usize, pc: u32, requests: u8, index: u8, sectors: u8) -> AccessCtx {
        let k = self.schedulers.len();
        let prio = self.priority[w];
        AccessCtx {
            warp: w as u16,
            pc,
            prio,
            rank: u16::from(prio) * k as u16 + (w % k) as u16,
            requests,
            index,
            sectors,
        }
    }

    /// Where in the L1 set `set`'s chain (0 = MRU) the lines of warp `w`'s next instruction
    /// would be inserted if it missed there now: `None` unless that instruction is a global
    /// load. For the debugger's LRU-chain view (with [`L1::chain`] and [`L1::locality_ways`]).
    pub fn next_insertion(&self, w: usize, set: usize) -> Option<usize> {
        let warp = self.warps.get(w).filter(|warp| warp.valid)?;
        let Op::Load { space, width } = warp.next.op else { return None };
        if space == Space::Shared {
            return None;
        }
        let mut c = Coalesced::default();
        c.build(&warp.addrs, warp.next.mask, width.into(), self.params.line_bytes);
        let ctx = self.access_ctx(w, warp.next.pc, c.n as u8, 0, c.sectors[0]);
        Some(self.l1.insertion_position(set, &ctx))
    }

    /// Recomputes GTO priorities (ranks by age within each scheduler) after CTAs come or go.
    pub fn refresh_priorities(&mut self) {
        if self.priority_generation == self.generation {
            return;
        }
        self.priority_generation = self.generation;
        for &members in &self.sched_masks {
            let mut warps: Vec<usize> = super::sched::bits(members & self.valid).collect();
            warps.sort_by_key(|&w| self.ages[w]);
            for (rank, w) in warps.into_iter().enumerate() {
                self.priority[w] = rank.min(255) as u8;
            }
        }
    }

    /// Each scheduler issues at most one instruction.
    fn issue(&mut self, now: u64, env: &mut SmEnv<'_>) {
        self.refresh_priorities();
        for s in 0..self.schedulers.len() {
            self.stats.issue_slots += 1;
            let members = self.valid & self.sched_masks[s];
            if members == 0 {
                self.stats.idle += 1;
                continue;
            }
            let mut candidates = members & !self.blocked;
            // With the LD/ST queue full no memory instruction can issue; skip those warps in
            // one step unless someone listens for their stall events.
            if self.ldst.queue.is_full() && !env.sink.wants(EventKind::WarpStall) {
                candidates &= !self.mem_next;
            }
            if candidates == 0 {
                self.stats.no_ready += 1;
                continue;
            }
            let Sm { warps, ages, blocked, schedulers, ldst, alu_free, params, id, .. } = self;
            let view = SchedView { ages, members, generation: self.generation };
            let mut try_issue = |w: usize| -> bool {
                let warp = &mut warps[w];
                let reason = check(warp, now, ldst, alu_free[s], params);
                if reason != StallReason::Issued {
                    if reason == StallReason::WaitMem {
                        *blocked |= 1 << w;
                    }
                    if warp.stall != reason && env.sink.wants(EventKind::WarpStall) {
                        env.sink.emit(Event::WarpStall { core: *id, warp: w as u16, reason });
                    }
                    warp.stall = reason;
                    return false;
                }
                true
            };
            match schedulers[s].pick(candidates, &view, &mut try_issue) {
                Some(w) => {
                    self.stats.issued += 1;
                    self.execute(w, s, now, env);
                }
                None => self.stats.no_ready += 1,
            }
        }
    }

    /// Issues the warp's next instruction and fetches the one after.
    fn execute(&mut self, w: usize, s: usize, now: u64, env: &mut SmEnv<'_>) {
        let warp = &mut self.warps[w];
        let instr = warp.next;
        warp.stall = StallReason::Issued;
        warp.instructions += 1;
        self.stats.instructions += 1;
        self.stats.thread_instructions += u64::from(instr.mask.count_ones());
        match instr.op {
            Op::Alu => {
                self.alu_free[s] = now + self.params.alu_interval;
                warp.alu_write(instr.dst, now + self.params.alu_latency);
            }
            Op::Load { space, width } | Op::Store { space, width } => {
                let load = matches!(instr.op, Op::Load { .. });
                self.stats.mem_instructions += 1;
                let mut coalesced = Coalesced::default();
                if space != Space::Shared {
                    coalesced.build(&warp.addrs, instr.mask, width.into(), self.params.line_bytes);
                }
                let empty = space != Space::Shared && coalesced.n == 0 || instr.mask == 0;
                if !load {
                    self.stats.stores += 1;
                }
                if !empty {
                    let mut load_slot = NO_LOAD;
                    if load {
                        let slot = warp.free_load_slot().expect("checked at issue");
                        load_slot = slot as u8;
                        let t = &mut warp.loads[slot];
                        *t = LoadTrack {
                            active: true,
                            pc: instr.pc,
                            dst: instr.dst,
                            seq: warp.load_seq,
                            issued: now,
                            requests: coalesced.n as u8,
                            all_sent: false,
                            reqs: std::mem::take(&mut t.reqs),
                            ..LoadTrack::default()
                        };
                        t.reqs.clear();
                        warp.pending.insert(instr.dst);
                        warp.loads_out += 1;
                    }
                    let mi = MemInstr {
                        warp: w as u16,
                        pc: instr.pc,
                        load,
                        space,
                        width,
                        load_slot,
                        seq: warp.load_seq,
                        issued: now,
                        coalesced,
                    };
                    if self.ldst.queue.push(mi).is_err() {
                        unreachable!("LD/ST queue space checked at issue");
                    }
                    if load {
                        warp.load_seq += 1;
                    }
                }
            }
            Op::Barrier => {
                warp.at_barrier = true;
                self.blocked |= 1 << w;
                let cta = warp.cta_slot as usize;
                self.ctas[cta].at_barrier += 1;
                self.try_release_barrier(cta);
            }
            Op::Exit => {
                warp.exited = true;
                self.blocked |= 1 << w;
                let cta = warp.cta_slot as usize;
                let done = warp.loads_out == 0;
                self.ctas[cta].running -= 1;
                if done {
                    self.retire_warp(w, env.sink);
                }
                self.try_release_barrier(cta);
                return;
            }
        }
        self.fetch(w, env.kernel);
    }

    /// Decodes the warp's next instruction and caches what the issue stage checks first.
    fn fetch(&mut self, w: usize, kernel: &Kernel) {
        let warp = &mut self.warps[w];
        warp.next = warp.program.fetch(kernel, &mut warp.addrs);
        warp.ready_at = warp.alu_operands_ready(&warp.next);
        if warp.next.op.is_memory() {
            self.mem_next |= 1 << w;
        } else {
            self.mem_next &= !(1 << w);
        }
    }

    /// Why warp `w` cannot issue at `now`, evaluated live (`Issued` when it could).
    pub fn stall_reason(&self, w: usize, now: u64) -> StallReason {
        let s = w % self.schedulers.len();
        check(&self.warps[w], now, &self.ldst, self.alu_free[s], &self.params)
    }

    /// Releases a CTA's barrier once every running warp has arrived.
    fn try_release_barrier(&mut self, cta: usize) {
        let c = &mut self.ctas[cta];
        if !c.active || c.at_barrier == 0 || c.at_barrier < c.running {
            return;
        }
        c.at_barrier = 0;
        let warps = c.warps;
        for w in super::sched::bits(warps) {
            let warp = &mut self.warps[w];
            if warp.at_barrier {
                warp.at_barrier = false;
                self.blocked &= !(1 << w);
            }
        }
    }

    /// Frees a warp slot; the CTA finishes with its last warp.
    fn retire_warp(&mut self, w: usize, sink: &mut EventSink) {
        let warp = &mut self.warps[w];
        warp.valid = false;
        self.valid &= !(1 << w);
        self.blocked &= !(1 << w);
        self.generation += 1;
        self.slots_freed = true;
        let cta = warp.cta_slot as usize;
        let c = &mut self.ctas[cta];
        c.resident -= 1;
        if c.resident == 0 {
            c.active = false;
            self.finished_ctas += 1;
            if sink.wants(EventKind::CtaDone) {
                sink.emit(Event::CtaDone { core: self.id, cta: c.cta });
            }
        }
    }
}

/// Whether warp `warp` can issue its next instruction now, and if not, why.
fn check(warp: &Warp, now: u64, ldst: &Ldst, alu_free: u64, p: &Params) -> StallReason {
    if warp.at_barrier {
        return StallReason::Barrier;
    }
    if warp.exited {
        return StallReason::Exiting;
    }
    let i = &warp.next;
    if warp.waits_on_memory() {
        return StallReason::WaitMem;
    }
    if warp.ready_at > now {
        return StallReason::WaitAlu;
    }
    match i.op {
        Op::Alu if alu_free > now => StallReason::AluBusy,
        Op::Load { .. } if ldst.queue.is_full() || warp.loads_out >= p.max_loads => StallReason::MemPipe,
        Op::Store { .. } if ldst.queue.is_full() => StallReason::MemPipe,
        _ => StallReason::Issued,
    }
}

/// Distinct DRAM channels and (channel, bank) pairs among a load's requests that reached DRAM.
fn spread(reqs: &[ReqRecord]) -> (u64, u64) {
    let mut channels = [0u64; 4];
    let mut banks: [(u32, u32); 64] = [(u32::MAX, 0); 64];
    let mut nb = 0usize;
    for r in reqs.iter().filter(|r| r.trace.dram_in != 0) {
        let c = r.loc.channel as usize % 256;
        channels[c / 64] |= 1 << (c % 64);
        let key = (r.loc.channel, r.loc.bank);
        if !banks[..nb].contains(&key) && nb < banks.len() {
            banks[nb] = key;
            nb += 1;
        }
    }
    (channels.iter().map(|m| u64::from(m.count_ones())).sum(), nb as u64)
}

fn mask_of(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Origin};
    use crate::workload::Workload;

    /// An SM of machine `c` with `ctas` CTAs of a one-kernel workload resident, priorities
    /// refreshed. `kernel` is the kernel's fields after its name.
    fn resident(c: &Config, kernel: &str, ctas: u32) -> (Sm, EventSink) {
        let text = format!("(name: \"p\", kernels: [(name: \"k\", {kernel})])");
        let w = Workload::from_text(&text, &Origin::File("t".into()), 1).unwrap();
        let k = &w.kernels[0];
        let mut sm = Sm::new(c, 0, k.warp_program(0, 0));
        let mut sink = EventSink::default();
        for cta in 0..ctas {
            sm.launch(k, cta, &mut sink);
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
        assert_eq!(&sm.priority[..8], &[0, 0, 1, 1, 2, 2, 3, 3]);
        sm.retire_warp(0, &mut sink);
        sm.refresh_priorities();
        assert_eq!(&sm.priority[2..8], &[0, 1, 1, 2, 2, 3]);
    }
}
