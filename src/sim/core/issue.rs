//! The issue stage of an SM: its warp schedulers (`sched/`), one instruction each per cycle,
//! the ALU port of each, GTO priorities, and exact stall attribution (MECHANISMS §1, §6;
//! seed 002 §IV-A5).
//!
//! Each cycle [`IssueStage::begin`] notes which warps are blocked (from the execute stage's
//! masks), then the SM asks each scheduler with work ([`IssueStage::slot`]) in turn — from
//! a first scheduler that rotates every cycle ([`IssueStage::order`]) — to
//! [`IssueStage::offer`] a warp: the
//! scheduler qualifies its candidates (throttling policies hold some back) and offers them in
//! its order until one can issue; the SM executes that warp before asking the next scheduler,
//! so a full LD/ST queue or a released barrier is seen as it happens. The stage calls no other
//! unit: it reads the rest of the SM through [`IssueInputs`].
//!
//! A slot that issues nothing is attributed to a stall class (`super::stall::StallClass`) from
//! the reasons of the warps the scheduler tried plus the masks — the same answer as evaluating
//! every warp, without doing so. [`IssueStage::stall_reason`] gives any warp's reason on demand.

use super::execute::ExecUnit;
use super::sched::{Learner, MemoryFeedback, SchedStatus, SchedView, WarpScheduler, WarpSchedulerKind, bits};
use super::stall::{StallClass, StallReason};
use crate::config::{Config, IssueOrder};
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::l1::L1;
use crate::sim::stats::CoreStats;
use crate::workload::instr::Op;

/// What the issue stage reads of the rest of the SM.
#[derive(Clone, Copy)]
pub struct IssueInputs<'a> {
    pub core: u16,
    pub now: u64,
    pub exec: &'a ExecUnit,
    /// The warp slots whose memory instruction the LD/ST queue cannot take now (a mask).
    pub ldst_refused: u64,
    /// Free L1 MSHR entries and their total, free L1 miss-queue slots, and the L1's fully
    /// cached warps (seed 004 §4.2.4).
    pub mshr_free: u32,
    pub mshr_capacity: u32,
    pub miss_queue_free: u32,
    pub fcw: u32,
    pub learner: &'a Learner,
}

impl<'a> IssueInputs<'a> {
    /// The inputs of SM `core` at `now`, with the warps its LD/ST queue refuses
    /// ([`super::ldst::Ldst::refused`]).
    #[inline]
    pub fn of(
        core: u16,
        now: u64,
        exec: &'a ExecUnit,
        ldst_refused: u64,
        l1: &L1,
        learner: &'a Learner,
    ) -> Self {
        IssueInputs {
            core,
            now,
            exec,
            ldst_refused,
            mshr_free: l1.mshr.free() as u32,
            mshr_capacity: l1.mshr.capacity() as u32,
            miss_queue_free: l1.miss_queue.free() as u32,
            fcw: l1.fcw.fcw,
            learner,
        }
    }
}

/// One scheduler's warps at this issue stage: its resident warps, and the candidates among
/// them (not blocked, and not memory instructions while the LD/ST queue is full).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Slot {
    pub scheduler: usize,
    pub members: u64,
    pub candidates: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IssueStage {
    /// Warp slots of each scheduler.
    pub sched_masks: Vec<u64>,
    pub schedulers: Vec<WarpSchedulerKind>,
    /// Per scheduler: first cycle its ALU accepts another instruction.
    pub alu_free: Vec<u64>,
    alu_interval: u64,
    issue_order: IssueOrder,
    /// Under `ldst-round-robin`: the scheduler that offers first, the one after the scheduler
    /// that last put an instruction into the LD/ST queue.
    ldst_turn: usize,
    /// GTO priority per warp slot: its rank by age among its scheduler's warps (0 = oldest).
    /// Valid for resident warps; refreshed when the resident warps change.
    pub priority: Vec<u8>,
    /// SM-wide GTO priority: rank · schedulers + scheduler — unique per warp, interleaving the
    /// schedulers (seed 004 §5.4.2's GTO_gprio; compared with FCW).
    pub global_priority: Vec<u8>,
    priority_generation: u64,
    /// Warps their scheduler's policy held back at the last issue stage.
    pub held: u64,
    /// Warps that issued at the last issue stage.
    pub issued_last: u64,
    /// The reason last reported for each warp slot in a `WarpStall` event — exact every cycle
    /// while someone subscribes to those events, stale otherwise (use `stall_reason`).
    pub reported: Vec<StallReason>,
    /// Reasons the schedulers saw when they offered warps that could not issue, this cycle
    /// (a set of `StallReason::bit`s; for the stall class of a cycle without issue).
    seen: u16,
    /// This cycle: the warps held at the previous issue stage, those blocked when it began,
    /// and the warps whose memory instruction the LD/ST queue refused then.
    prev_held: u64,
    blocked: u64,
    ldst_refused: u64,
}

impl IssueStage {
    pub fn new(c: &Config) -> IssueStage {
        let n = c.warps_per_sm();
        let k = c.core.warp_schedulers as usize;
        let mut sched_masks = vec![0u64; k];
        for w in 0..n {
            sched_masks[w % k] |= 1 << w;
        }
        IssueStage {
            sched_masks,
            schedulers: (0..k).map(|_| WarpSchedulerKind::new(c)).collect(),
            alu_free: vec![0; k],
            alu_interval: (32 / c.core.simd_width).into(),
            issue_order: c.core.issue_order,
            ldst_turn: 0,
            priority: vec![0; n],
            global_priority: vec![0; n],
            priority_generation: u64::MAX,
            held: 0,
            issued_last: 0,
            reported: vec![StallReason::Issued; n],
            seen: 0,
            prev_held: 0,
            blocked: 0,
            ldst_refused: 0,
        }
    }

    /// The scheduler of warp slot `w`.
    pub fn scheduler_of(&self, w: usize) -> usize {
        w % self.schedulers.len()
    }

    /// The order the schedulers offer warps in at `now`, from a first that changes so that a
    /// unit they share — the LD/ST queue, which takes one instruction at a time when it is
    /// nearly full — is not always offered to the same scheduler first. A fixed order let
    /// scheduler 0's memory instructions take every freed LD/ST slot while its warps had any,
    /// starving scheduler 1's (kmeans-like on fermi-30sm under GTO: by cycle 50,000 scheduler 0
    /// had issued 193,305 instructions, scheduler 1 550). `rotate` moves the first every cycle,
    /// as GPGPU-Sim's `shader_core_ctx::issue` rotates `Issue_Prio`; `ldst-round-robin` moves
    /// it past each scheduler that takes an LD/ST slot ([`IssueStage::took_ldst`]), so a queue
    /// that frees on an even period cannot favour one scheduler. Both are exact under idle
    /// skipping: the first is a function of the cycle, or changes only when an instruction
    /// issues.
    #[inline]
    pub fn order(&self, now: u64) -> impl Iterator<Item = usize> + use<> {
        let k = self.schedulers.len();
        let first = match self.issue_order {
            IssueOrder::Rotate => (now % k as u64) as usize,
            IssueOrder::LdstRoundRobin => self.ldst_turn,
        };
        (0..k).map(move |i| (first + i) % k)
    }

    /// Scheduler `s` put an instruction into the LD/ST queue: under `ldst-round-robin` the
    /// next scheduler offers first from the next cycle on.
    #[inline]
    pub fn took_ldst(&mut self, s: usize) {
        self.ldst_turn = (s + 1) % self.schedulers.len();
    }

    /// A new warp took slot `w`.
    pub fn warp_launched(&mut self, w: usize) {
        self.reported[w] = StallReason::Issued;
    }

    /// Recomputes GTO priorities (ranks by age within each scheduler, and the SM-wide
    /// interleaved rank) after CTAs come or go.
    #[inline]
    pub fn refresh_priorities(&mut self, exec: &ExecUnit) {
        if self.priority_generation != exec.generation {
            self.rank_warps(exec);
        }
    }

    #[cold]
    fn rank_warps(&mut self, exec: &ExecUnit) {
        self.priority_generation = exec.generation;
        let k = self.sched_masks.len();
        for (s, &members) in self.sched_masks.iter().enumerate() {
            let mut warps: Vec<usize> = bits(members & exec.valid).collect();
            warps.sort_by_key(|&w| exec.ages[w]);
            for (rank, w) in warps.into_iter().enumerate() {
                self.priority[w] = rank.min(255) as u8;
                self.global_priority[w] = (rank * k + s).min(255) as u8;
            }
        }
    }

    /// Another issue stage with no warp to offer would leave the stage as it is (no warp held
    /// now or at the previous stage, none issued).
    pub fn settled(&self) -> bool {
        self.held == 0 && self.prev_held == 0 && self.issued_last == 0
    }

    /// Starts this cycle's issue stage: priorities are brought up to date, and the warps
    /// blocked now and the LD/ST queue's state are what every scheduler skips this cycle.
    #[inline]
    pub fn begin(&mut self, exec: &ExecUnit, ldst_refused: u64) {
        self.refresh_priorities(exec);
        self.issued_last = 0;
        self.seen = 0;
        self.prev_held = std::mem::take(&mut self.held);
        self.blocked = exec.blocked();
        self.ldst_refused = ldst_refused;
    }

    /// Scheduler `s`'s warps this cycle: `None` when it has nothing to do (no resident warp —
    /// an idle slot — or no candidate and nobody listening to stall events), so the SM need
    /// not gather the rest of its state for [`IssueStage::offer`].
    #[inline]
    pub fn slot(&self, s: usize, exec: &ExecUnit, stats: &mut CoreStats, tracing: bool) -> Option<Slot> {
        let members = exec.valid & self.sched_masks[s];
        if members == 0 {
            stats.idle += 1;
            return None;
        }
        let mut candidates = members & !self.blocked;
        // A memory instruction the LD/ST queue has no place for cannot issue: skip its warp.
        candidates &= !(exec.mem_next & self.ldst_refused);
        (candidates != 0 || tracing).then_some(Slot { scheduler: s, members, candidates })
    }

    /// The slot's scheduler offers a warp: the one that issues (its ALU port taken for an ALU
    /// instruction), or `None`, with the reasons of the warps it offered in vain kept for the
    /// cycle's stall class.
    #[inline]
    pub fn offer(
        &mut self,
        slot: Slot,
        io: &IssueInputs<'_>,
        stats: &mut CoreStats,
        sink: &mut EventSink,
    ) -> Option<usize> {
        let Slot { scheduler: s, members, candidates } = slot;
        if candidates == 0 {
            // Nobody to offer: the policy has nothing to judge.
            if sink.wants(EventKind::WarpStall) {
                self.trace_stalls(s, members, None, io, sink);
            }
            return None;
        }
        self.offer_candidates(s, members, candidates, io, stats, sink)
    }

    /// The scheduler qualifies and offers `candidates`. (Kept out of line: `offer` stays
    /// small for the common slots where no warp can be offered.)
    #[inline(never)]
    fn offer_candidates(
        &mut self,
        s: usize,
        members: u64,
        candidates: u64,
        io: &IssueInputs<'_>,
        stats: &mut CoreStats,
        sink: &mut EventSink,
    ) -> Option<usize> {
        let now = io.now;
        let notes = sink.wants(EventKind::GroupSwitch) || sink.wants(EventKind::MascarMode);
        let exec = io.exec;
        let view = sched_view(io, members, now, &self.priority, &self.global_priority);
        let sched = &mut self.schedulers[s];
        let before = notes.then(|| sched.status());
        let qualified = sched.qualify(candidates, &view);
        let mut seen = 0u16;
        let alu = self.alu_free[s];
        let picked = if qualified != 0 {
            sched.pick(qualified, &view, &mut |w| {
                let r = exec.check(w, now, io.ldst_refused & 1 << w != 0, alu);
                seen |= r.bit();
                r == StallReason::Issued
            })
        } else {
            None
        };
        let held = candidates & !qualified;
        if held != 0 {
            self.note_holds(s, held, io, stats, sink);
        }
        if let Some(before) = before {
            self.note_status(s, io.core, before, sink);
        }
        if sink.wants(EventKind::WarpStall) {
            self.trace_stalls(s, members, picked, io, sink);
        }
        match picked {
            Some(w) => {
                stats.issued += 1;
                stats.issue_priority[usize::from(self.priority[w])] += 1;
                self.issued_last |= 1 << w;
                if matches!(exec.warps[w].next.op, Op::Alu) {
                    self.alu_free[s] = now + self.alu_interval;
                }
            }
            None => self.seen |= seen,
        }
        picked
    }

    /// Records the warps scheduler `s`'s policy held back this cycle; new holds (not held at
    /// the last issue stage) are events.
    fn note_holds(
        &mut self,
        s: usize,
        held: u64,
        io: &IssueInputs<'_>,
        stats: &mut CoreStats,
        sink: &mut EventSink,
    ) {
        let new = held & !self.prev_held;
        self.held |= held;
        stats.held_slots += 1;
        if new == 0 {
            return;
        }
        let reason = self.schedulers[s].hold_reason();
        if reason == StallReason::OcclusionHold {
            stats.disqualifications += u64::from(new.count_ones());
        }
        for w in bits(new) {
            let event = io
                .learner
                .hold_event(reason, io.core, w, io.exec.warps[w].next.pc, io.mshr_free)
                .unwrap_or(Event::WarpThrottled { core: io.core, warp: w as u16, reason });
            if sink.wants(event.kind()) {
                sink.emit(event);
            }
        }
    }

    /// Emits group-switch and MASCAR mode events by comparing a scheduler's status.
    fn note_status(&self, s: usize, core: u16, before: SchedStatus, sink: &mut EventSink) {
        let after = self.schedulers[s].status();
        if let Some(to) = after.group
            && before.group != after.group
            && sink.wants(EventKind::GroupSwitch)
        {
            sink.emit(Event::GroupSwitch { core, scheduler: s as u8, from: before.group, to });
        }
        if let Some(saturated) = after.saturated
            && (before.saturated != after.saturated || before.owner != after.owner)
            && sink.wants(EventKind::MascarMode)
        {
            sink.emit(Event::MascarMode { core, scheduler: s as u8, saturated, owner: after.owner });
        }
    }

    /// Why warp `w` (resident, of scheduler `s`) cannot issue before selection
    /// (`NotSelected` when nothing stops it), with `held` the warps its policy holds back.
    fn reason_before(&self, w: usize, s: usize, held: u64, io: &IssueInputs<'_>) -> StallReason {
        let bit = 1u64 << w;
        let exec = io.exec;
        if exec.at_barrier & bit != 0 {
            return StallReason::Barrier;
        }
        if exec.exited & bit != 0 {
            return StallReason::Exiting;
        }
        if exec.wait_mem & bit != 0 {
            return StallReason::WaitMem;
        }
        match exec.check(w, io.now, io.ldst_refused & bit != 0, self.alu_free[s]) {
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
    pub fn classify(&self, io: &IssueInputs<'_>) -> StallClass {
        let exec = io.exec;
        let blocked = exec.blocked();
        let skipped = exec.valid & !blocked & exec.mem_next & io.ldst_refused;
        if self.seen & StallClass::StrMem.reasons() != 0
            || bits(skipped).any(|w| exec.warps[w].ready_at <= io.now)
        {
            return StallClass::StrMem;
        }
        let mut reasons = self.seen;
        if skipped != 0 {
            reasons |= StallReason::WaitAlu.bit();
        }
        for w in bits(self.held) {
            reasons |= self.reason_before(w, self.scheduler_of(w), self.held, io).bit();
        }
        if exec.valid & exec.wait_mem != 0 {
            reasons |= StallReason::WaitMem.bit();
        }
        if exec.valid & (exec.at_barrier | exec.exited) != 0 {
            reasons |= StallReason::Barrier.bit();
        }
        StallClass::of(reasons)
    }

    /// `WarpStall` events: every member's exact state at this issue stage, on change.
    #[cold]
    #[inline(never)]
    fn trace_stalls(
        &mut self,
        s: usize,
        members: u64,
        picked: Option<usize>,
        io: &IssueInputs<'_>,
        sink: &mut EventSink,
    ) {
        let held = self.held;
        for w in bits(members) {
            let r = if picked == Some(w) { StallReason::Issued } else { self.reason_before(w, s, held, io) };
            if self.reported[w] != r {
                self.reported[w] = r;
                sink.emit(Event::WarpStall { core: io.core, warp: w as u16, reason: r });
            }
        }
    }

    /// Why resident warp `w` cannot issue judged from the current state, evaluated live
    /// (`Issued` when nothing stops it). Exact for every warp, whatever the issue stage
    /// skipped; it includes the scheduler's holds of the last issue stage.
    pub fn stall_reason(&self, w: usize, io: &IssueInputs<'_>) -> StallReason {
        match self.reason_before(w, self.scheduler_of(w), self.held, io) {
            StallReason::NotSelected => StallReason::Issued,
            r => r,
        }
    }

    /// The scheduling group of warp `w` under the configured policy (two-level fetch group,
    /// OWL CTA group), if it has groups.
    pub fn group_of(&self, w: usize, io: &IssueInputs<'_>) -> Option<u32> {
        let s = self.scheduler_of(w);
        let members = io.exec.valid & self.sched_masks[s];
        let view = sched_view(io, members, 0, &self.priority, &self.global_priority);
        self.schedulers[s].group_of(w, &view)
    }
}

/// What scheduler policies see of the SM: `members` are the scheduler's resident warps.
fn sched_view<'a>(
    io: &IssueInputs<'a>,
    members: u64,
    now: u64,
    priority: &'a [u8],
    global_priority: &'a [u8],
) -> SchedView<'a> {
    let exec = io.exec;
    SchedView {
        core: io.core,
        now,
        ages: &exec.ages,
        members,
        generation: exec.generation,
        priority,
        global_priority,
        cta_group: &exec.cta_group,
        groups_per_core: exec.grouping.groups_per_core(),
        blocked: exec.blocked(),
        waiting: exec.at_barrier | exec.exited,
        mem_next: exec.mem_next,
        load_next: exec.load_next,
        global_next: exec.global_next,
        mshr_free: io.mshr_free,
        mshr_capacity: io.mshr_capacity,
        miss_queue_free: io.miss_queue_free,
        fcw: io.fcw,
        learner: io.learner,
    }
}
