//! Who delayed a load (issue 17): each of its requests' latency, from the load's issue to the
//! request's data at the warp, cut into the stages it waited in, and each stage's cycles split
//! by what the queue or unit was busy with meanwhile.
//!
//! The input is the passes (`sim::record`) of a stretch of history that holds the load. In a
//! queue served in order (the LD/ST unit, the L1 miss queue, an L2 slice's queues, the SM's
//! reply queue) the time until the request reaches the head is cut at each departure of a
//! request ahead of it: the cycles up to a departure are that request's (it was at the head,
//! being served or held). At the DRAM the time until the request's own column command is cut
//! at every command on its channel the same way: another warp's request, its own warp's,
//! the same load's, a write during a drain, a refresh, a prefetch — or its own PRE and ACT (a
//! row conflict or miss). What is left at the head is the stage's own time: the unit's
//! service (a transfer, a hit's latency, the data burst) or back-pressure (the next stage
//! would not take it). A refusal by the L1 (the LD/ST unit's head found no MSHR, merge slot,
//! line or miss-queue room) turns the time from it to the head's next access into occlusion.
//! The parts of every stage add up to the stage, and the stages to the latency.

use crate::sim::dram::command::CommandKind;
use crate::sim::record::{Pass, Point, Who};
use crate::sim::request::{AccessKind, CacheOutcome};
use crate::sim::stats::StallCause;
use std::collections::BTreeSet;

/// Where a request waited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// In the LD/ST unit, behind earlier accesses, until the L1 took it.
    Ldst,
    /// An L1 hit's latency.
    L1Hit,
    /// Merged into an L1 MSHR entry: waiting for another request's line.
    L1Merged,
    /// In the L1 miss queue until the request network took it.
    L1MissQueue,
    /// Crossing the request network.
    Request,
    /// In an L2 slice's access queue until its lookup.
    L2Queue,
    /// An L2 hit: its latency and the response queue.
    L2Hit,
    /// Merged into an L2 MSHR entry: waiting for another request's line from DRAM.
    L2Merged,
    /// In the L2 miss queue until the memory controller took it.
    L2MissQueue,
    /// At the memory controller: queued, then its commands and its data burst.
    Dram,
    /// Back in the L2: the fill and the response queue.
    L2Fill,
    /// Crossing the reply network.
    Reply,
    /// In the SM's reply queue until its data reached the warp.
    ReplyQueue,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Ldst => "ldst",
            Stage::L1Hit => "l1-hit",
            Stage::L1Merged => "l1-merged",
            Stage::L1MissQueue => "l1-miss-queue",
            Stage::Request => "request-net",
            Stage::L2Queue => "l2-queue",
            Stage::L2Hit => "l2-hit",
            Stage::L2Merged => "l2-merged",
            Stage::L2MissQueue => "l2-miss-queue",
            Stage::Dram => "dram",
            Stage::L2Fill => "l2-fill",
            Stage::Reply => "reply-net",
            Stage::ReplyQueue => "reply-queue",
        }
    }
}

/// What a stage's cycles went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cause {
    /// Other warps' requests served ahead.
    OtherWarps,
    /// Requests of the same warp's other loads served ahead.
    OwnWarp,
    /// Earlier requests of the same load served ahead.
    SameLoad,
    /// L2 write-backs or stores served ahead (outside the DRAM).
    Writes,
    /// Writes the controller drained while the request waited.
    WriteDrain,
    /// Refresh: its PREs and REF.
    Refresh,
    /// Prefetches from open rows.
    Prefetch,
    /// The request's own PRE: another row was open.
    RowConflict,
    /// The request's own ACT: its row was not open.
    RowMiss,
    /// The L1 refused the LD/ST unit's head (memory occlusion when MSHRs ran out).
    Refused(StallCause),
    /// At the head, the next stage would not take it.
    BackPressure,
    /// The unit's own time: a transfer, a hit's latency, a data burst.
    Service,
    /// Waiting for another request's data (an MSHR merge).
    Merged,
}

impl Cause {
    pub fn name(self) -> String {
        match self {
            Cause::OtherWarps => "other warps".into(),
            Cause::OwnWarp => "own warp".into(),
            Cause::SameLoad => "same load".into(),
            Cause::Writes => "writes".into(),
            Cause::WriteDrain => "write drain".into(),
            Cause::Refresh => "refresh".into(),
            Cause::Prefetch => "prefetch".into(),
            Cause::RowConflict => "row conflict".into(),
            Cause::RowMiss => "row miss".into(),
            Cause::Refused(c) => format!("refused: {}", c.name()),
            Cause::BackPressure => "back-pressure".into(),
            Cause::Service => "service".into(),
            Cause::Merged => "merged".into(),
        }
    }

    /// Whether other requests' service is to blame (the interference the seeds are about),
    /// rather than the request's own service.
    pub fn is_interference(self) -> bool {
        matches!(
            self,
            Cause::OtherWarps | Cause::OwnWarp | Cause::Writes | Cause::WriteDrain | Cause::Prefetch
        )
    }
}

/// The cycles of a stage that went to one cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub cause: Cause,
    pub cycles: u64,
    /// The requests served ahead for this cause, their warps (core, warp slot), and how many
    /// were DRAM row hits (a column command with no ACT of their own since recording began).
    pub requests: BTreeSet<u64>,
    pub warps: BTreeSet<(u16, u16)>,
    pub row_hits: u32,
}

/// One stage of one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageBlame {
    pub stage: Stage,
    /// The SM, L2 slice or channel.
    pub unit: u16,
    pub from: u64,
    pub to: u64,
    /// Largest first.
    pub parts: Vec<Part>,
}

impl StageBlame {
    pub fn cycles(&self) -> u64 {
        self.to - self.from
    }
}

/// One request of the load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestBlame {
    pub who: Who,
    pub stages: Vec<StageBlame>,
}

impl RequestBlame {
    /// From the load's issue to this request's data at the warp.
    pub fn latency(&self) -> u64 {
        self.stages.last().map_or(0, |s| s.to) - self.stages.first().map_or(0, |s| s.from)
    }
}

/// The blame of one warp-load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadBlame {
    pub core: u16,
    pub warp: u16,
    pub seq: u32,
    pub issued: u64,
    pub requests: Vec<RequestBlame>,
}

impl LoadBlame {
    /// The load's latency: issue to its last request's data.
    pub fn latency(&self) -> u64 {
        self.requests.iter().map(|r| r.latency()).max().unwrap_or(0)
    }

    /// Every request's cycles per (stage, cause), largest first.
    pub fn totals(&self) -> Vec<(Stage, Cause, u64)> {
        let mut t: Vec<(Stage, Cause, u64)> = Vec::new();
        for s in self.requests.iter().flat_map(|r| &r.stages) {
            for p in &s.parts {
                match t.iter_mut().find(|(st, c, _)| *st == s.stage && *c == p.cause) {
                    Some(e) => e.2 += p.cycles,
                    None => t.push((s.stage, p.cause, p.cycles)),
                }
            }
        }
        t.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
        t
    }
}

/// The passes of a stretch of history, looked up by point and unit.
struct Index<'a> {
    passes: &'a [Pass],
}

impl<'a> Index<'a> {
    /// Passes at `point` of `unit` in cycles [from, to).
    fn at(&self, point: Point, unit: u16, from: u64, to: u64) -> impl Iterator<Item = &'a Pass> {
        let start = self.passes.partition_point(|p| p.cycle < from);
        self.passes[start..]
            .iter()
            .take_while(move |p| p.cycle < to)
            .filter(move |p| p.point == point && p.unit == unit)
    }

    /// The first pass of request `id` at `point`.
    fn of(&self, id: u64, point: Point) -> Option<&'a Pass> {
        self.passes.iter().find(|p| p.who.id == id && p.point == point)
    }
}

/// The blame of the load with sequence number `seq` of warp `warp` on core `core`, issued at
/// `issued` (the latest such load when `None`), from the passes of a stretch of history that
/// starts no later than its issue and lasts until its last request's data is back. `passes`
/// must be in cycle order.
pub fn blame(
    passes: &[Pass],
    core: u16,
    warp: u16,
    seq: u32,
    issued: Option<u64>,
) -> Result<LoadBlame, String> {
    let ix = Index { passes };
    let is_load = |p: &&Pass| p.who.core == core && p.who.warp == warp && p.who.seq == seq;
    let issue = passes
        .iter()
        .filter(|p| p.point == Point::Issue && p.unit == core && is_load(p))
        .rfind(|p| issued.is_none_or(|t| p.cycle == t))
        .ok_or_else(|| format!("load {seq} of warp {core}.{warp} was not issued in the recorded history"))?;
    let count = usize::from(issue.detail);
    let accesses: Vec<&Pass> = ix
        .at(Point::Access, core, issue.cycle, u64::MAX)
        .filter(|p| is_load(p) && p.who.kind == Some(AccessKind::Load))
        .take(count)
        .collect();
    if accesses.len() < count {
        return Err(format!(
            "load {seq} of warp {core}.{warp} (issued at cycle {}) has sent {} of its {count} requests so far",
            issue.cycle,
            accesses.len()
        ));
    }
    let mut requests = Vec::new();
    for access in accesses {
        let stages = stages_of(&ix, issue.cycle, access)?;
        requests.push(RequestBlame { who: access.who, stages });
    }
    Ok(LoadBlame { core, warp, seq, issued: issue.cycle, requests })
}

/// The stages of the request whose access into the L1 was `access`, from the load's issue.
fn stages_of(ix: &Index<'_>, issued: u64, access: &Pass) -> Result<Vec<StageBlame>, String> {
    let me = access.who;
    let core = me.core;
    let at = |point: Point| {
        ix.of(me.id, point).ok_or_else(|| {
            format!("request {} of warp {}.{} has not passed {point:?} yet", me.id, me.core, me.warp)
        })
    };
    let done = at(Point::Done)?;
    let mut stages = vec![ldst_stage(ix, issued, access)];
    let l1 = CacheOutcome::ALL[usize::from(access.detail)];
    match l1 {
        CacheOutcome::Hit => stages.push(own(Stage::L1Hit, core, access.cycle, done.cycle, Cause::Service)),
        CacheOutcome::Merged => {
            stages.push(own(Stage::L1Merged, core, access.cycle, done.cycle, Cause::Merged))
        }
        _ => {
            let inject = at(Point::Inject)?;
            let arrive = at(Point::L2Arrive)?;
            let lookup = at(Point::L2Lookup)?;
            let reply = at(Point::Reply)?;
            let back = at(Point::SmArrive)?;
            let slice = arrive.unit;
            stages.push(fifo(
                ix,
                &me,
                Stage::L1MissQueue,
                Point::Inject,
                core,
                access.cycle,
                inject.cycle,
                Cause::BackPressure,
            ));
            stages.push(own(Stage::Request, slice, inject.cycle, arrive.cycle, Cause::Service));
            stages.push(fifo(
                ix,
                &me,
                Stage::L2Queue,
                Point::L2Lookup,
                slice,
                arrive.cycle,
                lookup.cycle,
                Cause::BackPressure,
            ));
            match CacheOutcome::ALL[usize::from(lookup.detail)] {
                CacheOutcome::Hit => stages.push(fifo(
                    ix,
                    &me,
                    Stage::L2Hit,
                    Point::Reply,
                    slice,
                    lookup.cycle,
                    reply.cycle,
                    Cause::Service,
                )),
                CacheOutcome::Merged => {
                    stages.push(own(Stage::L2Merged, slice, lookup.cycle, reply.cycle, Cause::Merged))
                }
                _ => {
                    let enter = at(Point::DramArrive)?;
                    let out = at(Point::DramDone)?;
                    // The miss queue is the slice's: only its own departures to the channel count.
                    let ahead = ix
                        .at(Point::DramArrive, enter.unit, lookup.cycle, enter.cycle)
                        .filter(|p| p.detail == slice);
                    let parts = fifo_parts(ahead, &me, lookup.cycle, enter.cycle, Cause::BackPressure, &[]);
                    let (from, to) = (lookup.cycle, enter.cycle);
                    stages.push(StageBlame { stage: Stage::L2MissQueue, unit: slice, from, to, parts });
                    stages.push(dram_stage(ix, &me, enter, out));
                    stages.push(fifo(
                        ix,
                        &me,
                        Stage::L2Fill,
                        Point::Reply,
                        slice,
                        out.cycle,
                        reply.cycle,
                        Cause::BackPressure,
                    ));
                }
            }
            stages.push(own(Stage::Reply, core, reply.cycle, back.cycle, Cause::Service));
            stages.push(fifo(
                ix,
                &me,
                Stage::ReplyQueue,
                Point::Done,
                core,
                back.cycle,
                done.cycle,
                Cause::Service,
            ));
        }
    }
    stages.retain(|s| s.to > s.from || !s.parts.is_empty());
    Ok(stages)
}

/// A stage that is all one cause.
fn own(stage: Stage, unit: u16, from: u64, to: u64, cause: Cause) -> StageBlame {
    let parts = if to > from { vec![part(cause, to - from)] } else { Vec::new() };
    StageBlame { stage, unit, from, to, parts }
}

fn part(cause: Cause, cycles: u64) -> Part {
    Part { cause, cycles, requests: BTreeSet::new(), warps: BTreeSet::new(), row_hits: 0 }
}

/// The LD/ST unit, from the load's issue to this access: earlier accesses of the core's
/// LD/ST unit are ahead of it, and refusals by the L1 turn the wait for the next access into
/// occlusion.
fn ldst_stage(ix: &Index<'_>, issued: u64, access: &Pass) -> StageBlame {
    let me = access.who;
    let ahead = ix.at(Point::Access, me.core, issued, access.cycle);
    let refusals: Vec<&Pass> = ix.at(Point::Refused, me.core, issued, access.cycle + 1).collect();
    let parts = fifo_parts(ahead, &me, issued, access.cycle, Cause::Service, &refusals);
    StageBlame { stage: Stage::Ldst, unit: me.core, from: issued, to: access.cycle, parts }
}

/// A stage served in order at `unit`, left through `point`: [from, to) cut at the departures
/// of the requests ahead; the rest is `tail`.
#[allow(clippy::too_many_arguments)]
fn fifo(
    ix: &Index<'_>,
    me: &Who,
    stage: Stage,
    point: Point,
    unit: u16,
    from: u64,
    to: u64,
    tail: Cause,
) -> StageBlame {
    let parts = fifo_parts(ix.at(point, unit, from, to), me, from, to, tail, &[]);
    StageBlame { stage, unit, from, to, parts }
}

/// The parts of [from, to) cut at the departures `ahead` (in cycle order); the time before a
/// departure goes to the departing request, or, from a refusal of the head on, to the
/// refusal; the time after the last departure is `tail` (or the refusal).
fn fifo_parts<'a>(
    ahead: impl Iterator<Item = &'a Pass>,
    me: &Who,
    from: u64,
    to: u64,
    tail: Cause,
    refusals: &[&Pass],
) -> Vec<Part> {
    let mut parts = Parts::default();
    let mut prev = from;
    let refused_in = |a: u64, b: u64| refusals.iter().find(|r| r.cycle >= a && r.cycle < b).copied();
    for d in ahead.filter(|d| d.who.id != me.id) {
        let end = d.cycle.max(prev);
        match refused_in(prev, end) {
            Some(r) => {
                parts.add(cause_of(me, &d.who), r.cycle - prev, Some(&d.who), false);
                parts.add(Cause::Refused(StallCause::ALL[usize::from(r.detail)]), end - r.cycle, None, false);
            }
            None => parts.add(cause_of(me, &d.who), end - prev, Some(&d.who), false),
        }
        prev = end;
    }
    match refused_in(prev, to.max(prev) + 1) {
        Some(r) if r.cycle < to => {
            parts.add(tail, r.cycle.max(prev) - prev, None, false);
            parts.add(
                Cause::Refused(StallCause::ALL[usize::from(r.detail)]),
                to - r.cycle.max(prev),
                None,
                false,
            );
        }
        _ => parts.add(tail, to.saturating_sub(prev), None, false),
    }
    parts.done()
}

/// At the memory controller: until its own column command, cut at every command on the
/// channel; then its data burst.
fn dram_stage(ix: &Index<'_>, me: &Who, enter: &Pass, out: &Pass) -> StageBlame {
    let ch = enter.unit;
    let cmds: Vec<&Pass> = ix.at(Point::Command, ch, enter.cycle, out.cycle).collect();
    let cas = cmds
        .iter()
        .filter(|c| c.who.id == me.id && c.command().is_some_and(|(k, _)| k.is_cas()))
        .map(|c| c.cycle)
        .next_back()
        .unwrap_or(out.cycle);
    let mut parts = Parts::default();
    let mut prev = enter.cycle;
    let mut own_pre = false;
    for c in cmds.iter().take_while(|c| c.cycle < cas || c.who.id == me.id && c.cycle == cas) {
        let (kind, _) = c.command().expect("a command pass");
        let cause = if c.who.id == me.id {
            match kind {
                CommandKind::Pre => {
                    own_pre = true;
                    Cause::RowConflict
                }
                CommandKind::Act if own_pre => Cause::RowConflict,
                CommandKind::Act => Cause::RowMiss,
                _ => Cause::Service,
            }
        } else if !c.who.is_request() {
            Cause::Refresh
        } else if c.who.kind == Some(AccessKind::Prefetch) {
            Cause::Prefetch
        } else if kind == CommandKind::Wr {
            Cause::WriteDrain
        } else {
            cause_of(me, &c.who)
        };
        let hit = kind.is_cas() && c.who.id != me.id && !row_opened_for(ix, c);
        let who = (c.who.id != me.id && c.who.is_request()).then_some(&c.who);
        parts.add(cause, c.cycle - prev, who, hit);
        prev = c.cycle;
    }
    parts.add(Cause::Service, out.cycle - prev, None, false);
    StageBlame { stage: Stage::Dram, unit: ch, from: enter.cycle, to: out.cycle, parts: parts.done() }
}

/// Whether the request of column command `c` had an ACT of its own before it (so `c` was not
/// a row hit).
fn row_opened_for(ix: &Index<'_>, c: &Pass) -> bool {
    ix.passes
        .iter()
        .take_while(|p| p.cycle <= c.cycle)
        .any(|p| p.who.id == c.who.id && p.command().is_some_and(|(k, _)| k == CommandKind::Act))
}

/// Why another request served ahead of `me` delayed it.
fn cause_of(me: &Who, other: &Who) -> Cause {
    match other.kind {
        Some(AccessKind::Writeback | AccessKind::Store) => Cause::Writes,
        Some(AccessKind::Prefetch) => Cause::Prefetch,
        None => Cause::Refresh,
        Some(AccessKind::Load) if other.core == me.core && other.warp == me.warp && other.seq == me.seq => {
            Cause::SameLoad
        }
        Some(AccessKind::Load) if other.core == me.core && other.warp == me.warp => Cause::OwnWarp,
        Some(AccessKind::Load) => Cause::OtherWarps,
    }
}

/// Parts being summed, one per cause.
#[derive(Default)]
struct Parts(Vec<Part>);

impl Parts {
    fn add(&mut self, cause: Cause, cycles: u64, who: Option<&Who>, row_hit: bool) {
        if cycles == 0 && who.is_none() {
            return;
        }
        let i = match self.0.iter().position(|p| p.cause == cause) {
            Some(i) => i,
            None => {
                self.0.push(part(cause, 0));
                self.0.len() - 1
            }
        };
        let p = &mut self.0[i];
        p.cycles += cycles;
        if let Some(w) = who
            && p.requests.insert(w.id)
        {
            p.warps.insert((w.core, w.warp));
            p.row_hits += u32::from(row_hit);
        }
    }

    fn done(mut self) -> Vec<Part> {
        self.0.sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.cause.cmp(&b.cause)));
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(id: u64, core: u16, warp: u16, seq: u32, index: u8) -> Who {
        Who { id, core, warp, seq, index, kind: Some(AccessKind::Load) }
    }

    fn pass(cycle: u64, point: Point, unit: u16, detail: u16, who: Who) -> Pass {
        Pass { cycle, point, unit, detail, who }
    }

    fn cmd(cycle: u64, kind: CommandKind, who: Who) -> Pass {
        pass(cycle, Point::Command, 0, Pass::command_detail(kind, 0), who)
    }

    /// A load of one request that misses the L1 and the L2: its passes up to the DRAM, and
    /// from the DRAM back, around the given DRAM arrival and data-done cycles.
    fn journey(w: Who, issue: u64, dram_in: u64, dram_done: u64) -> Vec<Pass> {
        let l = w.core;
        vec![
            pass(issue, Point::Issue, l, 1, Who { id: u64::MAX, kind: None, ..w }),
            pass(issue + 1, Point::Access, l, CacheOutcome::Miss as u16, w),
            pass(issue + 2, Point::Inject, l, 0, w),
            pass(issue + 6, Point::L2Arrive, 0, 0, w),
            pass(issue + 7, Point::L2Lookup, 0, CacheOutcome::Miss as u16, w),
            pass(dram_in, Point::DramArrive, 0, 0, w),
            pass(dram_done, Point::DramDone, 0, 0, w),
            pass(dram_done + 2, Point::Reply, 0, 0, w),
            pass(dram_done + 6, Point::SmArrive, l, 0, w),
            pass(dram_done + 7, Point::Done, l, 0, w),
        ]
    }

    fn sorted(mut v: Vec<Pass>) -> Vec<Pass> {
        v.sort_by_key(|p| p.cycle);
        v
    }

    fn stage(b: &LoadBlame, s: Stage) -> &StageBlame {
        b.requests[0].stages.iter().find(|x| x.stage == s).expect("stage present")
    }

    fn cycles(st: &StageBlame, c: Cause) -> u64 {
        st.parts.iter().filter(|p| p.cause == c).map(|p| p.cycles).sum()
    }

    /// Seed 000 Fig. 5: warp A's two requests and warp B's one share a bank. A's first
    /// request opens its row (ACT, RD), A's second hits it (RD); B needs another row: PRE,
    /// ACT, RD. B's DRAM wait is A's service first (19 cycles, one of A's two a row hit), then
    /// its own row conflict (16), then its own column command and data (20).
    #[test]
    fn two_warps_interleaved_at_one_bank_as_in_seed_000_fig_5() {
        let (a1, a2, b) = (who(1, 0, 0, 0, 0), who(2, 0, 0, 0, 1), who(3, 1, 4, 7, 0));
        let mut passes = journey(b, 80, 95, 150);
        passes.extend([
            cmd(100, CommandKind::Act, a1),
            cmd(110, CommandKind::Rd, a1),
            cmd(114, CommandKind::Rd, a2),
            cmd(118, CommandKind::Pre, b),
            cmd(130, CommandKind::Act, b),
            cmd(140, CommandKind::Rd, b),
        ]);
        let blame = blame(&sorted(passes), 1, 4, 7, None).unwrap();
        let dram = stage(&blame, Stage::Dram);
        assert_eq!((dram.from, dram.to), (95, 150));
        let other = dram.parts.iter().find(|p| p.cause == Cause::OtherWarps).unwrap();
        assert_eq!((other.cycles, other.requests.len(), other.row_hits), (19, 2, 1));
        assert_eq!(other.warps.iter().copied().collect::<Vec<_>>(), vec![(0, 0)]);
        assert_eq!((cycles(dram, Cause::RowConflict), cycles(dram, Cause::Service)), (16, 20));
        // Every stage's parts add up to it, and the stages to the request's latency.
        let r = &blame.requests[0];
        assert!(r.stages.iter().all(|s| s.parts.iter().map(|p| p.cycles).sum::<u64>() == s.cycles()));
        assert_eq!(r.latency(), 150 + 7 - 80);
        assert_eq!(r.stages.iter().map(|s| s.cycles()).sum::<u64>(), r.latency());
    }

    /// A read that arrives while the controller drains writes waits for the write-backs' WRs:
    /// that time is the drain's, then its own row miss and column command.
    #[test]
    fn a_write_drain_delays_a_read() {
        let r = who(5, 2, 1, 3, 0);
        let wb = |id| Who { id, core: 0, warp: 9, seq: 0, index: 0, kind: Some(AccessKind::Writeback) };
        let mut passes = journey(r, 0, 20, 90);
        passes.extend([
            pass(18, Point::DrainStart, 0, 0, Who::NOBODY),
            cmd(25, CommandKind::Wr, wb(100)),
            cmd(29, CommandKind::Wr, wb(101)),
            cmd(33, CommandKind::Wr, wb(102)),
            pass(34, Point::DrainEnd, 0, 0, Who::NOBODY),
            cmd(50, CommandKind::Act, r),
            cmd(62, CommandKind::Rd, r),
        ]);
        let blame = blame(&sorted(passes), 2, 1, 3, None).unwrap();
        let dram = stage(&blame, Stage::Dram);
        assert_eq!(cycles(dram, Cause::WriteDrain), 13);
        assert_eq!(cycles(dram, Cause::RowMiss), 17);
        assert_eq!(cycles(dram, Cause::Service), 40);
        assert_eq!(dram.parts.iter().find(|p| p.cause == Cause::WriteDrain).unwrap().requests.len(), 3);
    }

    /// An occluded load (seed 004 §1.3): the LD/ST unit's head (another warp's load) is
    /// refused by the L1 for want of MSHRs from cycle 12 until a fill frees some at 40; the
    /// load behind it waits the head's first two cycles, then 28 cycles of occlusion, then
    /// its own access cycle.
    #[test]
    fn an_occluded_load_waits_in_the_ldst_unit_for_mshrs() {
        let (head, r) = (who(8, 0, 2, 1, 3), who(9, 0, 6, 0, 0));
        let mut passes = journey(r, 10, 60, 120);
        // The journey's access at 11 is replaced by one at 41.
        passes.retain(|p| p.point != Point::Access);
        passes.extend([
            pass(12, Point::Refused, 0, StallCause::Mshr as u16, head),
            pass(40, Point::Access, 0, CacheOutcome::Miss as u16, head),
            pass(41, Point::Access, 0, CacheOutcome::Miss as u16, r),
        ]);
        let blame = blame(&sorted(passes), 0, 6, 0, None).unwrap();
        let ldst = stage(&blame, Stage::Ldst);
        assert_eq!((ldst.from, ldst.to), (10, 41));
        assert_eq!(cycles(ldst, Cause::OtherWarps), 2);
        assert_eq!(cycles(ldst, Cause::Refused(StallCause::Mshr)), 28);
        assert_eq!(cycles(ldst, Cause::Service), 1);
    }

    #[test]
    fn a_load_not_in_the_history_or_not_back_yet_is_an_error_not_a_panic() {
        let r = who(5, 2, 1, 3, 0);
        let passes = journey(r, 0, 20, 90);
        assert!(blame(&passes, 2, 1, 4, None).unwrap_err().contains("not issued"));
        let cut: Vec<Pass> = passes.iter().copied().filter(|p| p.point != Point::Done).collect();
        assert!(blame(&cut, 2, 1, 3, None).unwrap_err().contains("not passed Done"));
    }
}
