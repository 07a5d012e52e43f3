//! A streaming multiprocessor: warp slots, CTA slots with barriers, warp schedulers issuing
//! one instruction each per cycle, the LD/ST unit and the L1D (MECHANISMS §1).
//!
//! Per core cycle: one reply from the interconnect fills the L1 (waking every request merged
//! behind it), finished hits and shared-memory loads return, the LD/ST unit sends one access,
//! and each scheduler issues at most one instruction.
//!
//! Issue-stage bookkeeping is exact and mask-based: `wait_mem`, `at_barrier` and `exited` say
//! at every moment which warps cannot issue for those reasons (they are updated where the
//! state changes: decode, load completion, barrier, exit), so the issue stage never looks at
//! those warps, and skips memory instructions at once while the LD/ST queue is full. A slot
//! that issues nothing is attributed to a stall class (`super::stall::StallClass`) from the
//! reasons of the warps the scheduler tried plus the masks — the same answer as evaluating
//! every warp, without doing so. [`Sm::stall_reason`] gives any warp's reason on demand.

use super::coalescer::Coalesced;
use super::group_tags::GroupTagger;
use super::ldst::{Ldst, LdstIo, MemInstr, NO_LOAD};
use super::loads::{LoadTracker, record_finished};
use super::sched::owl::CtaGrouping;
use super::sched::{Learner, MemoryFeedback, SchedStatus, SchedView, WarpScheduler, WarpSchedulerKind, bits};
use super::stall::{StallClass, StallReason};
use super::warp::{LoadTrack, ReqRecord, Warp};
use crate::config::{AllocPolicy, Config};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::mshr::MshrEntry;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::l1::L1;
use crate::sim::queue::BoundedQueue;
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest, ReqTrace};
use crate::sim::stats::CoreStats;
use crate::workload::instr::{Op, Space, reg_range};
use crate::workload::{Kernel, WarpProgram};

/// A CTA resident on the SM.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CtaSlot {
    pub active: bool,
    /// Grid id of the CTA.
    pub cta: u32,
    /// Its OWL CTA group (seed 003 Algorithm 1, in launch order; see `sched::owl`).
    pub group: u32,
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
    /// A kernel is still running (cycles without warps count as NoWarpCycles).
    pub kernel_active: bool,
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
    max_ctas: u32,
    max_threads: u32,
    min_group_warps: u32,
    /// Oracles of seed 000 Fig. 4.
    perfect_coalescing: bool,
    zero_latency_divergence: bool,
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
    /// SM-wide GTO priority: rank · schedulers + scheduler — unique per warp, interleaving the
    /// schedulers (seed 004 §5.4.2's GTO_gprio; compared with FCW).
    pub global_priority: Vec<u8>,
    priority_generation: u64,
    /// Occupied warp slots.
    pub valid: u64,
    /// Warps whose next instruction needs a register an outstanding load will write.
    pub wait_mem: u64,
    /// Warps waiting at a CTA barrier.
    pub at_barrier: u64,
    /// Warps that executed EXIT and wait for their loads to drain.
    pub exited: u64,
    /// Warps whose next instruction is a load or store (skipped at once while the LD/ST
    /// queue is full), a global/local load, a global/local load or store.
    pub mem_next: u64,
    pub load_next: u64,
    pub global_next: u64,
    /// Warp slots of each scheduler.
    pub sched_masks: Vec<u64>,
    pub schedulers: Vec<WarpSchedulerKind>,
    /// Per scheduler: first cycle its ALU accepts another instruction.
    pub alu_free: Vec<u64>,
    pub ctas: Vec<CtaSlot>,
    /// OWL CTA group of each warp slot, and the group formation of the running kernel.
    pub cta_group: Vec<u32>,
    pub grouping: CtaGrouping,
    /// The kernel whose CTAs run here (groups and OAWS's classifier restart per kernel).
    pub kernel: Option<usize>,
    /// SM-wide state of the learning policies (CCWS victim tags, OAWS classifier and FCW).
    pub learner: Learner,
    /// Warps their scheduler's policy held back at the last issue stage.
    pub held: u64,
    /// Warps that issued at the last issue stage.
    pub issued_last: u64,
    /// Reasons the schedulers saw when they offered warps that could not issue, this cycle
    /// (a set of `StallReason::bit`s; for the stall class of a cycle without issue).
    seen: u16,
    pub ldst: Ldst,
    /// Tags the last request of each warp-load to each memory controller.
    pub tagger: GroupTagger,
    /// The warps' loads as their requests return (and the zero-latency-divergence oracle).
    pub loads: LoadTracker,
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
        let learner = Learner::new(c);
        let mut l1 = L1::new(c, id);
        l1.record_victims = learner.watches_l1();
        let reexec = learner.reexec_entries();
        Sm {
            id,
            warps: (0..n)
                .map(|_| Warp::empty(placeholder.clone(), c.core.max_loads_per_warp as usize))
                .collect(),
            ages: vec![0; n],
            priority: vec![0; n],
            global_priority: vec![0; n],
            priority_generation: u64::MAX,
            valid: 0,
            wait_mem: 0,
            at_barrier: 0,
            exited: 0,
            mem_next: 0,
            load_next: 0,
            global_next: 0,
            sched_masks,
            schedulers: (0..k).map(|_| WarpSchedulerKind::new(c)).collect(),
            alu_free: vec![0; k],
            ctas: vec![CtaSlot::default(); c.core.max_ctas as usize],
            cta_group: vec![0; n],
            grouping: CtaGrouping::default(),
            kernel: None,
            learner,
            held: 0,
            issued_last: 0,
            seen: 0,
            ldst: Ldst::new(c.core.mem_pipeline_width as usize, c.core.shared_latency as usize, reexec),
            tagger: GroupTagger::new(c.dram.scheduler.groups_warps(), c.l2.slices_per_channel),
            loads: LoadTracker::new(c.core.zero_latency_divergence, n * c.core.max_loads_per_warp as usize),
            l1,
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
                max_ctas: c.core.max_ctas,
                max_threads: c.core.max_threads,
                min_group_warps: c.core.owl.min_group_size,
                perfect_coalescing: c.core.perfect_coalescing,
                zero_latency_divergence: c.core.zero_latency_divergence,
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

    /// Places CTA `cta` of kernel number `kernel_index`, whose warps run `programs`, on this
    /// SM (the caller checked [`Sm::can_launch`]).
    pub fn launch(
        &mut self,
        kernel_index: usize,
        kernel: &Kernel,
        cta: u32,
        programs: Vec<WarpProgram>,
        sink: &mut EventSink,
    ) {
        let n = kernel.warps_per_cta();
        if self.kernel != Some(kernel_index) {
            self.start_kernel(kernel_index, kernel);
        }
        let group = self.grouping.next_group();
        let slot = self.ctas.iter().position(|c| !c.active).expect("free CTA slot");
        let mut mask = 0u64;
        let mut w = 0usize;
        for (i, program) in (0..n).zip(programs) {
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
            warp.program = program;
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
            self.cta_group[w] = group;
            self.learner.warp_launched(w);
            self.valid |= 1 << w;
            mask |= 1 << w;
        }
        self.ctas[slot] =
            CtaSlot { active: true, cta, group, warps: mask, resident: n, running: n, at_barrier: 0 };
        self.generation += 1;
        self.refresh_priorities();
        for w in bits(mask) {
            self.fetch(w, kernel);
        }
        self.stats.ctas += 1;
        if sink.wants(EventKind::CtaLaunch) {
            sink.emit(Event::CtaLaunch { core: self.id, cta });
        }
    }

    /// A new kernel's first CTA arrives: form its CTA groups (Algorithm 1 over the CTAs that
    /// fit at once) and clear the divergent load classifier (seed 004 §5.4.3).
    fn start_kernel(&mut self, kernel_index: usize, kernel: &Kernel) {
        let k = kernel.warps_per_cta().max(1);
        let fit = (self.params.max_ctas)
            .min(self.warps.len() as u32 / k)
            .min(self.params.max_threads / kernel.threads_per_cta().max(1))
            .max(1);
        self.grouping.start_kernel(fit, k, self.params.min_group_warps);
        self.learner.kernel_started();
        self.kernel = Some(kernel_index);
    }

    /// The global L2 slice a request goes to.
    pub fn slice_of(&self, r: &MemRequest) -> usize {
        (r.loc.channel * self.slices_per_channel + r.loc.slice) as usize
    }

    /// Nothing resident and nothing in flight inside the SM.
    pub fn is_idle(&self) -> bool {
        self.valid == 0 && self.ldst.is_idle() && self.reply_queue.is_empty() && self.l1.occupancy() == 0
    }

    /// Memory requests held inside the SM: in the L1 (miss queue, MSHR merges, returning
    /// hits), parked in the re-execution queue, or waiting in the reply queue.
    pub fn requests_held(&self) -> usize {
        self.l1.occupancy() + self.reply_queue.len() + self.ldst.reexec.len()
    }

    /// Warps of the SM's resident CTAs, finished ones included (what seed 001's controllers
    /// use as the core's tolerance).
    pub fn assigned_warps(&self) -> u16 {
        self.ctas.iter().filter(|c| c.active).map(|c| c.warps.count_ones() as u16).sum()
    }

    /// One core cycle.
    #[inline]
    pub fn step(&mut self, now: u64, env: &mut SmEnv<'_>) {
        if self.valid == 0 {
            if env.kernel_active {
                self.stats.no_warp_cycles += 1;
            }
            if self.reply_queue.is_empty() && self.ldst.is_idle() && self.l1.occupancy() == 0 {
                self.stats.idle += self.schedulers.len() as u64;
                self.issued_last = 0;
                self.held = 0;
                if env.kernel_active {
                    self.stats.inactive_cycles += 1;
                }
                return;
            }
        } else {
            self.stats.active_cycles += 1;
        }
        self.returns(now, env);
        self.step_ldst(now, env);
        self.issue(now, env);
        if self.issued_last != 0 {
            self.stats.issued_cycles += 1;
            return;
        }
        // Nothing issued, so the warp masks are those the issue stage saw.
        if env.kernel_active {
            self.stats.inactive_cycles += 1;
        }
        if self.valid != 0 {
            let class = self.classify(now);
            self.stats.stall_classes[class as usize] += 1;
            // MemoryBlockCycles: every resident warp waits on a load (or drains after EXIT).
            if class == StallClass::DataMem && self.valid & !(self.wait_mem | self.exited) == 0 {
                self.stats.memory_block_cycles += 1;
            }
        }
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
            self.feed_victims();
            for r in done.drain(..) {
                self.complete(r, now, env);
            }
            self.scratch = done;
        }
        while let Some(r) = self.l1.pop_hit(now) {
            if r.kind == AccessKind::Store {
                // A perfect L1 absorbed the store.
                *env.retired += 1;
            } else {
                self.complete(r, now, env);
            }
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
        if !self.loads.released.is_empty() {
            while let Some(released) = self.loads.release_due(&mut self.warps, now) {
                if let Some((w, slot)) = released {
                    self.finish_load(w, slot, env, true);
                }
            }
        }
    }

    /// A load request's data reached its warp.
    #[inline(never)]
    fn complete(&mut self, req: MemRequest, now: u64, env: &mut SmEnv<'_>) {
        *env.retired += 1;
        if let Some((w, slot)) = self.loads.returned(&mut self.warps, req, now, &mut self.stats.loads) {
            self.finish_load(w, slot, env, true);
        }
    }

    /// Every request of a load has returned: release its register and record its metrics.
    fn finish_load(&mut self, w: usize, slot: usize, env: &mut SmEnv<'_>, global: bool) {
        let warp = &mut self.warps[w];
        let t = &mut warp.loads[slot];
        if global {
            record_finished(t, self.id, w, &mut self.stats.loads, env.sink);
        }
        let dsts = reg_range(t.dst, t.dst_regs);
        t.active = false;
        if global {
            std::mem::swap(t, &mut warp.last_load);
            warp.loads[slot].active = false;
        }
        dsts.for_each(|r| warp.pending.remove(r));
        warp.loads_out -= 1;
        if !warp.waits_on_memory() {
            self.wait_mem &= !(1 << w);
        }
        if warp.exited && warp.loads_out == 0 {
            self.retire_warp(w, env.sink);
        }
    }

    /// Steps the LD/ST unit and applies what it did to the warps' loads and the learning
    /// policy.
    #[inline]
    fn step_ldst(&mut self, now: u64, env: &mut SmEnv<'_>) {
        if self.ldst.reexec.is_empty()
            && (self.ldst.queue.is_empty()
                || self.ldst.started.is_some()
                    && self.ldst.replay_refusal(&mut self.l1, &mut self.stats, self.id, env.sink))
        {
            return;
        }
        let step = self.ldst.step(LdstIo {
            core: self.id,
            now,
            l1: &mut self.l1,
            tagger: &mut self.tagger,
            stats: &mut self.stats,
            map: env.map,
            sink: env.sink,
            next_id: env.next_id,
            created: env.created,
            line_bytes: self.params.line_bytes,
            shared_latency: self.params.shared_latency,
            schedulers: self.schedulers.len(),
            priority: &self.priority,
        });
        if let Some(r) = step.retried {
            let w = r.warp as usize;
            let t = &mut self.warps[w].loads[r.load_slot as usize];
            if let Some(rec) = t.reqs.get_mut(r.index as usize) {
                rec.trace.l1 = r.outcome;
            }
            // Its miss was counted when it was parked.
            if self.learner.watches_l1() {
                self.learn_access(w, r.addr, r.outcome, now, env);
            }
        }
        if let Some((w, slot)) = step.occluded
            && slot != NO_LOAD
        {
            self.warps[w as usize].loads[slot as usize].occluded = true;
        }
        if let Some(s) = step.sent {
            let w = s.warp as usize;
            if s.load && !s.parked && self.learner.watches_l1() {
                self.learn_access(w, s.addr, s.outcome, now, env);
            }
            if s.load_slot != NO_LOAD {
                self.warps[w].loads[s.load_slot as usize].reqs.push(ReqRecord {
                    id: s.id,
                    addr: s.addr,
                    lanes: s.lanes,
                    loc: Default::default(),
                    trace: ReqTrace { created: now, l1: s.outcome, ..ReqTrace::default() },
                });
            }
        }
        if let Some(l) = step.left {
            if l.load_slot != NO_LOAD {
                let t = &mut self.warps[l.warp as usize].loads[l.load_slot as usize];
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
    }

    /// Hands the policy the L1's new victims, then the access.
    #[cold]
    fn learn_access(&mut self, w: usize, addr: u64, outcome: CacheOutcome, now: u64, env: &mut SmEnv<'_>) {
        self.feed_victims();
        let (key, warps, instructions) =
            (self.l1.key(addr), self.valid.count_ones(), self.stats.instructions);
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
        AccessCtx::of_warp(self.schedulers.len(), &self.priority, w, pc, requests, index, sectors)
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

    /// Recomputes GTO priorities (ranks by age within each scheduler, and the SM-wide
    /// interleaved rank) after CTAs come or go.
    #[inline]
    pub fn refresh_priorities(&mut self) {
        if self.priority_generation != self.generation {
            self.rank_warps();
        }
    }

    #[cold]
    fn rank_warps(&mut self) {
        self.priority_generation = self.generation;
        let k = self.sched_masks.len();
        for (s, &members) in self.sched_masks.iter().enumerate() {
            let mut warps: Vec<usize> = bits(members & self.valid).collect();
            warps.sort_by_key(|&w| self.ages[w]);
            for (rank, w) in warps.into_iter().enumerate() {
                self.priority[w] = rank.min(255) as u8;
                self.global_priority[w] = (rank * k + s).min(255) as u8;
            }
        }
    }

    /// The scheduler of warp slot `w`.
    pub fn scheduler_of(&self, w: usize) -> usize {
        w % self.schedulers.len()
    }

    /// Warps known not to be able to issue (waiting on a load, at a barrier, exited).
    pub fn blocked(&self) -> u64 {
        self.wait_mem | self.at_barrier | self.exited
    }

    /// Each scheduler issues at most one instruction.
    #[inline]
    fn issue(&mut self, now: u64, env: &mut SmEnv<'_>) {
        self.refresh_priorities();
        self.issued_last = 0;
        self.seen = 0;
        let prev_held = std::mem::take(&mut self.held);
        let blocked = self.blocked();
        let ldst_full = self.ldst.queue.is_full();
        let trace = env.sink.wants(EventKind::WarpStall);
        for s in 0..self.schedulers.len() {
            let members = self.valid & self.sched_masks[s];
            if members == 0 {
                self.stats.idle += 1;
                continue;
            }
            let mut candidates = members & !blocked;
            // With the LD/ST queue full no memory instruction can issue: skip those warps.
            let skipped = if ldst_full { candidates & self.mem_next } else { 0 };
            candidates &= !skipped;
            if candidates == 0 {
                // Nobody to offer: the policy has nothing to judge.
                if trace {
                    self.trace_stalls(s, members, None, now, env);
                }
                continue;
            }
            self.issue_slot(s, members, candidates, prev_held, now, env);
        }
    }

    /// Scheduler `s` qualifies and offers its `candidates`; the chosen warp issues, or the
    /// reasons of the warps it offered in vain are kept for the cycle's stall class. (Kept out
    /// of line: the loop above stays small for the common slots where no warp can be offered.)
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn issue_slot(
        &mut self,
        s: usize,
        members: u64,
        candidates: u64,
        prev_held: u64,
        now: u64,
        env: &mut SmEnv<'_>,
    ) {
        let trace = env.sink.wants(EventKind::WarpStall);
        let notes = env.sink.wants(EventKind::GroupSwitch) || env.sink.wants(EventKind::MascarMode);
        let (picked, seen, held, before) = {
            let Sm {
                warps,
                ages,
                priority,
                global_priority,
                cta_group,
                grouping,
                mem_next,
                load_next,
                global_next,
                schedulers,
                ldst,
                alu_free,
                params,
                learner,
                l1,
                id,
                generation,
                ..
            } = self;
            let view = SchedView {
                core: *id,
                now,
                ages,
                members,
                generation: *generation,
                priority,
                global_priority,
                cta_group,
                groups_per_core: grouping.groups_per_core(),
                mem_next: *mem_next,
                load_next: *load_next,
                global_next: *global_next,
                mshr_free: l1.mshr.free() as u32,
                mshr_capacity: l1.mshr.capacity() as u32,
                miss_queue_free: l1.miss_queue.free() as u32,
                fcw: l1.fcw.fcw,
                learner,
            };
            let sched = &mut schedulers[s];
            let before = notes.then(|| sched.status());
            let qualified = sched.qualify(candidates, &view);
            let mut seen = 0u16;
            let alu = alu_free[s];
            let picked = if qualified != 0 {
                sched.pick(qualified, &view, &mut |w| {
                    let r = check(&warps[w], now, ldst, alu, params);
                    seen |= r.bit();
                    r == StallReason::Issued
                })
            } else {
                None
            };
            (picked, seen, candidates & !qualified, before)
        };
        if held != 0 {
            self.note_holds(s, held, prev_held, env);
        }
        if let Some(before) = before {
            self.note_status(s, before, env);
        }
        if trace {
            self.trace_stalls(s, members, picked, now, env);
        }
        match picked {
            Some(w) => {
                self.stats.issued += 1;
                self.issued_last |= 1 << w;
                self.execute(w, s, now, env);
            }
            None => self.seen |= seen,
        }
    }

    /// Records the warps scheduler `s`'s policy held back this cycle (`prev`: all held at the
    /// last issue stage); new holds are events.
    fn note_holds(&mut self, s: usize, held: u64, prev: u64, env: &mut SmEnv<'_>) {
        let new = held & !prev;
        self.held |= held;
        self.stats.held_slots += 1;
        if new == 0 {
            return;
        }
        let reason = self.schedulers[s].hold_reason();
        if reason == StallReason::OcclusionHold {
            self.stats.disqualifications += u64::from(new.count_ones());
        }
        let mshr_free = self.l1.mshr.free() as u32;
        for w in bits(new) {
            let event = self
                .learner
                .hold_event(reason, self.id, w, self.warps[w].next.pc, mshr_free)
                .unwrap_or(Event::WarpThrottled { core: self.id, warp: w as u16, reason });
            if env.sink.wants(event.kind()) {
                env.sink.emit(event);
            }
        }
    }

    /// Emits group-switch and MASCAR mode events by comparing a scheduler's status.
    fn note_status(&self, s: usize, before: SchedStatus, env: &mut SmEnv<'_>) {
        let after = self.schedulers[s].status();
        if let Some(to) = after.group
            && before.group != after.group
            && env.sink.wants(EventKind::GroupSwitch)
        {
            env.sink.emit(Event::GroupSwitch { core: self.id, scheduler: s as u8, from: before.group, to });
        }
        if let Some(saturated) = after.saturated
            && (before.saturated != after.saturated || before.owner != after.owner)
            && env.sink.wants(EventKind::MascarMode)
        {
            env.sink.emit(Event::MascarMode {
                core: self.id,
                scheduler: s as u8,
                saturated,
                owner: after.owner,
            });
        }
    }

    /// Why warp `w` (resident, of scheduler `s`) cannot issue at `now` before selection
    /// (`NotSelected` when nothing stops it), with `held` the warps its policy holds back.
    fn reason_before(&self, w: usize, s: usize, now: u64, held: u64) -> StallReason {
        let bit = 1u64 << w;
        if self.at_barrier & bit != 0 {
            return StallReason::Barrier;
        }
        if self.exited & bit != 0 {
            return StallReason::Exiting;
        }
        if self.wait_mem & bit != 0 {
            return StallReason::WaitMem;
        }
        match check(&self.warps[w], now, &self.ldst, self.alu_free[s], &self.params) {
            StallReason::Issued if held & bit != 0 => self.schedulers[s].hold_reason(),
            StallReason::Issued => StallReason::NotSelected,
            r => r,
        }
    }

    /// The stall class of a cycle in which no scheduler issued (seed 002 §IV-A5): the
    /// reasons the schedulers saw in the warps they offered, plus those of the warps they did
    /// not try — skipped ones (memory instructions while the LD/ST queue is full: str-MEM
    /// unless an ALU operand is not ready yet), held ones (evaluated), blocked ones (from the
    /// masks). The state is the one the issue stage saw: nothing issued since.
    fn classify(&self, now: u64) -> StallClass {
        let blocked = self.blocked();
        let skipped = if self.ldst.queue.is_full() { self.valid & !blocked & self.mem_next } else { 0 };
        if self.seen & StallClass::StrMem.reasons() != 0
            || bits(skipped).any(|w| self.warps[w].ready_at <= now)
        {
            return StallClass::StrMem;
        }
        let mut reasons = self.seen;
        if skipped != 0 {
            reasons |= StallReason::WaitAlu.bit();
        }
        for w in bits(self.held) {
            reasons |= self.reason_before(w, self.scheduler_of(w), now, self.held).bit();
        }
        if self.valid & self.wait_mem != 0 {
            reasons |= StallReason::WaitMem.bit();
        }
        if self.valid & (self.at_barrier | self.exited) != 0 {
            reasons |= StallReason::Barrier.bit();
        }
        StallClass::of(reasons)
    }

    /// `WarpStall` events: every member's exact state at this issue stage, on change.
    #[cold]
    #[inline(never)]
    fn trace_stalls(&mut self, s: usize, members: u64, picked: Option<usize>, now: u64, env: &mut SmEnv<'_>) {
        let held = self.held;
        for w in bits(members) {
            let r = if picked == Some(w) { StallReason::Issued } else { self.reason_before(w, s, now, held) };
            if self.warps[w].stall != r {
                self.warps[w].stall = r;
                env.sink.emit(Event::WarpStall { core: self.id, warp: w as u16, reason: r });
            }
        }
    }

    /// Why resident warp `w` cannot issue at `now` judged from the current state, evaluated
    /// live (`Issued` when nothing stops it). Exact for every warp, whatever the issue stage
    /// skipped; it includes the scheduler's holds of the last issue stage.
    pub fn stall_reason(&self, w: usize, now: u64) -> StallReason {
        match self.reason_before(w, self.scheduler_of(w), now, self.held) {
            StallReason::NotSelected => StallReason::Issued,
            r => r,
        }
    }

    /// The scheduling group of warp `w` under the configured policy (two-level fetch group,
    /// OWL CTA group), if it has groups.
    pub fn group_of(&self, w: usize) -> Option<u32> {
        let s = self.scheduler_of(w);
        let view = SchedView {
            core: self.id,
            now: 0,
            ages: &self.ages,
            members: self.valid & self.sched_masks[s],
            generation: self.generation,
            priority: &self.priority,
            global_priority: &self.global_priority,
            cta_group: &self.cta_group,
            groups_per_core: self.grouping.groups_per_core(),
            mem_next: self.mem_next,
            load_next: self.load_next,
            global_next: self.global_next,
            mshr_free: self.l1.mshr.free() as u32,
            mshr_capacity: self.l1.mshr.capacity() as u32,
            miss_queue_free: self.l1.miss_queue.free() as u32,
            fcw: self.l1.fcw.fcw,
            learner: &self.learner,
        };
        self.schedulers[s].group_of(w, &view)
    }

    /// The warps waiting on an L1 MSHR entry: the one whose miss allocated it and those whose
    /// requests merged into it (a warp-slot mask, for the MSHR view).
    pub fn mshr_waiting_warps(e: &MshrEntry) -> u64 {
        e.merged.iter().fold(1u64 << e.owner, |m, r| m | 1 << r.origin.warp)
    }

    /// Issues the warp's next instruction and fetches the one after.
    fn execute(&mut self, w: usize, s: usize, now: u64, env: &mut SmEnv<'_>) {
        let instr = self.warps[w].next;
        let global_load = self.load_next & (1 << w) != 0;
        let miss_pred = if global_load { self.learner.load_issued(w) } else { 0 };
        let warp = &mut self.warps[w];
        warp.instructions += 1;
        self.stats.instructions += 1;
        self.stats.thread_instructions += u64::from(instr.mask.count_ones());
        match instr.op {
            Op::Alu => {
                self.alu_free[s] = now + self.params.alu_interval;
                instr.dsts().for_each(|r| warp.alu_write(r, now + self.params.alu_latency));
            }
            Op::Load { space, width } | Op::Store { space, width } => {
                let load = matches!(instr.op, Op::Load { .. });
                self.stats.mem_instructions += 1;
                let mut coalesced = Coalesced::default();
                if space != Space::Shared {
                    coalesced.build(&warp.addrs, instr.mask, width.into(), self.params.line_bytes);
                    if load && self.params.perfect_coalescing && coalesced.n > 1 {
                        // Oracle: the first line serves every lane (and the sectors of all).
                        coalesced.n = 1;
                        coalesced.lanes[0] = instr.mask;
                        coalesced.sectors[0] = coalesced.sectors[..].iter().fold(0, |a, s| a | s);
                    }
                }
                let empty = space != Space::Shared && coalesced.n == 0 || instr.mask == 0;
                if !load {
                    self.stats.stores += 1;
                }
                if empty {
                    self.learner.load_dropped(miss_pred);
                } else {
                    let mut load_slot = NO_LOAD;
                    if load {
                        let slot = warp.free_load_slot().expect("checked at issue");
                        load_slot = slot as u8;
                        let t = &mut warp.loads[slot];
                        *t = LoadTrack {
                            active: true,
                            pc: instr.pc,
                            dst: instr.dst,
                            dst_regs: instr.dst_regs,
                            seq: warp.load_seq,
                            issued: now,
                            requests: coalesced.n as u8,
                            all_sent: false,
                            reqs: std::mem::take(&mut t.reqs),
                            ..LoadTrack::default()
                        };
                        t.reqs.clear();
                        instr.dsts().for_each(|r| warp.pending.insert(r));
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
                        miss_pred,
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
                self.at_barrier |= 1 << w;
                let cta = warp.cta_slot as usize;
                self.ctas[cta].at_barrier += 1;
                self.try_release_barrier(cta);
            }
            Op::Exit => {
                warp.exited = true;
                self.exited |= 1 << w;
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

    /// Decodes the warp's next instruction and caches what the issue stage checks first:
    /// its class masks, whether it waits on a load, and OAWS's miss prediction.
    #[inline(always)]
    fn fetch(&mut self, w: usize, kernel: &Kernel) {
        let warp = &mut self.warps[w];
        warp.next = warp.program.fetch(kernel, &mut warp.addrs);
        warp.ready_at = warp.alu_operands_ready(&warp.next);
        let (mem, load, global) = match warp.next.op {
            Op::Load { space, .. } => (true, space != Space::Shared, space != Space::Shared),
            Op::Store { space, .. } => (true, false, space != Space::Shared),
            _ => (false, false, false),
        };
        let bit = 1u64 << w;
        let set = |mask: &mut u64, on: bool| *mask = (*mask & !bit) | if on { bit } else { 0 };
        set(&mut self.mem_next, mem);
        set(&mut self.load_next, load);
        set(&mut self.global_next, global);
        set(&mut self.wait_mem, warp.waits_on_memory());
        self.learner.decoded(w, &warp.next, load, self.global_priority[w], self.l1.fcw.fcw);
    }

    /// Releases a CTA's barrier once every running warp has arrived.
    fn try_release_barrier(&mut self, cta: usize) {
        let c = &mut self.ctas[cta];
        if !c.active || c.at_barrier == 0 || c.at_barrier < c.running {
            return;
        }
        c.at_barrier = 0;
        let warps = c.warps;
        for w in bits(warps) {
            let warp = &mut self.warps[w];
            if warp.at_barrier {
                warp.at_barrier = false;
                self.at_barrier &= !(1 << w);
            }
        }
    }

    /// Frees a warp slot; the CTA finishes with its last warp.
    fn retire_warp(&mut self, w: usize, sink: &mut EventSink) {
        let warp = &mut self.warps[w];
        warp.valid = false;
        let bit = 1u64 << w;
        self.valid &= !bit;
        self.wait_mem &= !bit;
        self.at_barrier &= !bit;
        self.exited &= !bit;
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

/// Whether warp `warp`, known not to wait on memory, at a barrier or exited, can issue its
/// next instruction now, and if not, why.
fn check(warp: &Warp, now: u64, ldst: &Ldst, alu_free: u64, p: &Params) -> StallReason {
    let i = &warp.next;
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
        let mut sm = Sm::new(c, 0, k.placeholder_program());
        let mut sink = EventSink::default();
        for cta in 0..ctas {
            sm.launch(0, k, cta, k.cta_programs(cta).unwrap(), &mut sink);
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
        assert_eq!(&sm.global_priority[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
        sm.retire_warp(0, &mut sink);
        sm.refresh_priorities();
        assert_eq!(&sm.priority[2..8], &[0, 1, 1, 2, 2, 3]);
        assert_eq!(&sm.global_priority[2..8], &[0, 3, 2, 5, 4, 7]);
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
        next_id: u64,
        created: u64,
        retired: u64,
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
            sm.launch(0, k, 0, k.cta_programs(0).unwrap(), &mut sink);
            sink.clear();
            Rig {
                sm,
                map: AddressMap::new(&c),
                memory: crate::sim::ideal::IdealPipe::new(&c),
                workload,
                sink,
                now: 0,
                next_id: 0,
                created: 0,
                retired: 0,
                events: Vec::new(),
            }
        }

        fn step(&mut self) {
            self.sink.set_now(self.now);
            self.memory.serve_l1_misses(
                self.now,
                std::slice::from_mut(&mut self.sm),
                &mut [],
                &mut self.retired,
            );
            let mut env = SmEnv {
                kernel: &self.workload.kernels[0],
                kernel_active: true,
                map: &self.map,
                sink: &mut self.sink,
                next_id: &mut self.next_id,
                created: &mut self.created,
                retired: &mut self.retired,
            };
            self.sm.step(self.now, &mut env);
            self.events.extend(self.sink.drain());
            self.now += 1;
        }

        /// Steps until every warp retired; returns that cycle.
        fn finish(&mut self) -> u64 {
            while self.sm.valid != 0 {
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
        let pc = oaws.sm.warps[0].next.pc;
        oaws.sm.learner.oaws_mut().unwrap().dlc.record(pc, 32, 32);
        for w in 0..3 {
            let (next, gprio) = (oaws.sm.warps[w].next, oaws.sm.global_priority[w]);
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
        let load_issue = |r: &Rig| -> Vec<(u64, u16)> {
            let mut v: Vec<(u64, u16)> = r
                .events
                .iter()
                .filter_map(|(_, e)| match e {
                    Event::LoadDone { warp, issued, .. } => Some((*issued, *warp)),
                    _ => None,
                })
                .collect();
            v.sort();
            v
        };
        // GTO: B needs 6 MSHRs with 2 free — occlusion (and C, behind it, finds 1 free);
        // the loads issue A, B, C.
        assert_eq!(occlusions(&gto), vec![(1, 6, 2), (2, 2, 1)]);
        assert_eq!(load_issue(&gto).iter().map(|l| l.1).collect::<Vec<_>>(), vec![0, 1, 2]);
        // OAWS: B is disqualified the cycle after A issued (6 predicted > 7 free − 6 in flight),
        // C goes as soon as A's load leaves the LD/ST unit (cycle 6: 2 ≤ 2 free), B only once
        // A's data has freed its MSHRs; no occlusion.
        assert_eq!(occlusions(&oaws), vec![]);
        assert!(oaws.events.iter().any(|&(c, ref e)| c == 1
            && matches!(e, Event::OawsDisqualified { warp: 1, predicted: 6, available: 1, .. })));
        let issued = load_issue(&oaws);
        assert_eq!(issued.iter().map(|l| l.1).collect::<Vec<_>>(), vec![0, 2, 1]);
        assert_eq!(issued[1].0, 6);
        assert!(issued[2].0 > 100, "B waits for A's data");
        assert_eq!(oaws.sm.stats.disqualifications, 2, "B once; C until A's load left the LD/ST unit");
        // GTO: 280 cycles; OAWS: 249.
        assert!(oaws_end + 25 < gto_end, "OAWS finishes at {oaws_end}, GTO at {gto_end}");
        assert_eq!(oaws.sm.learner.oaws().unwrap().miss_inflight, 0);
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
            sm.launch(0, k, cta, k.cta_programs(cta).unwrap(), &mut sink);
        }
        assert_eq!(sm.grouping.group_sizes, vec![3, 5]);
        let groups: Vec<u32> = sm.ctas.iter().map(|c| c.group).collect();
        assert_eq!(groups, vec![0, 0, 0, 1, 1, 1, 1, 1]);
        assert_eq!(&sm.cta_group[..6], &[0, 0, 0, 0, 0, 0]);
        assert_eq!(&sm.cta_group[6..8], &[1, 1]);
        // The first CTA finishes; the next one opens round 1's first group (id 2).
        sm.retire_warp(0, &mut sink);
        sm.retire_warp(1, &mut sink);
        sm.launch(0, k, 8, k.cta_programs(8).unwrap(), &mut sink);
        assert_eq!((sm.ctas[0].cta, sm.ctas[0].group), (8, 2));
        // A new kernel starts over.
        sm.kernel = Some(7);
        sm.retire_warp(2, &mut sink);
        sm.retire_warp(3, &mut sink);
        sm.launch(1, k, 0, k.cta_programs(0).unwrap(), &mut sink);
        assert_eq!(sm.ctas[1].group, 0);
    }
}
