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
use crate::sim::stats::metrics::group;
use std::collections::{BTreeMap, BTreeSet};

/// A map looked up only, never iterated (the blame index's, `diff`'s loads), so a fixed fast
/// hash (foldhash's) serves: SipHash's resistance to chosen keys buys nothing for request ids
/// and cost about a tenth of a `diff`'s instructions.
pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// Where a request waited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// In the LD/ST unit, behind earlier accesses, until the L1 took it.
    Ldst,
    /// In its L1 bank's latency queue (`l1.latency_queue`, GPGPU-Sim 4): the fixed latency,
    /// then behind a refused access at the bank's head, or refused there itself.
    L1Latency,
    /// An L1 hit's latency.
    L1Hit,
    /// Merged into an L1 MSHR entry: waiting for another request's line.
    L1Merged,
    /// In the L1 miss queue until the request network took it.
    L1MissQueue,
    /// Crossing the request network.
    Request,
    /// In an L2 slice's access queue until its lookup (with `l2.latency_queue`, until it
    /// entered the latency queue).
    L2Queue,
    /// In the L2's latency queue (`l2.latency_queue`, GPGPU-Sim's ROP queue): the slice's
    /// fixed latency, then at the head until its lookup.
    L2Latency,
    /// An L2 hit: its latency and the response queue.
    L2Hit,
    /// Merged into an L2 MSHR entry: waiting for another request's line from DRAM.
    L2Merged,
    /// In the L2 miss queue until the memory controller took it.
    L2MissQueue,
    /// In the DRAM latency queue in front of the controller (`dram.frontend_latency`,
    /// GPGPU-Sim's `-dram_latency`): its fixed latency, then waiting for the requests ahead of
    /// it and for room in the controller's queue.
    DramLatency,
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
    /// Every stage, in the order a request meets them (and declared in: `stage as usize` is
    /// its place here).
    pub const ALL: [Stage; 16] = [
        Stage::Ldst,
        Stage::L1Latency,
        Stage::L1Hit,
        Stage::L1Merged,
        Stage::L1MissQueue,
        Stage::Request,
        Stage::L2Queue,
        Stage::L2Latency,
        Stage::L2Hit,
        Stage::L2Merged,
        Stage::L2MissQueue,
        Stage::DramLatency,
        Stage::Dram,
        Stage::L2Fill,
        Stage::Reply,
        Stage::ReplyQueue,
    ];

    /// The name views print and breakpoints filter on (`stage=dram`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Ldst => "ldst",
            Stage::L1Latency => "l1-latency",
            Stage::L1Hit => "l1-hit",
            Stage::L1Merged => "l1-merged",
            Stage::L1MissQueue => "l1-miss-queue",
            Stage::Request => "request-net",
            Stage::L2Queue => "l2-queue",
            Stage::L2Latency => "l2-latency",
            Stage::L2Hit => "l2-hit",
            Stage::L2Merged => "l2-merged",
            Stage::L2MissQueue => "l2-miss-queue",
            Stage::DramLatency => "dram-latency",
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
    /// A fixed delay every request waits out, whatever else is in the queue: GPGPU-Sim's ROP
    /// queue before the L2 lookup, its DRAM latency queue before the controller.
    Latency,
    /// Waiting for another request's data (an MSHR merge).
    Merged,
}

impl Cause {
    /// Every cause, in declaration order.
    pub const ALL: [Cause; 20] = [
        Cause::OtherWarps,
        Cause::OwnWarp,
        Cause::SameLoad,
        Cause::Writes,
        Cause::WriteDrain,
        Cause::Refresh,
        Cause::Prefetch,
        Cause::RowConflict,
        Cause::RowMiss,
        Cause::Refused(StallCause::Mshr),
        Cause::Refused(StallCause::MergeFull),
        Cause::Refused(StallCause::LineAlloc),
        Cause::Refused(StallCause::MissQueue),
        Cause::Refused(StallCause::Response),
        Cause::Refused(StallCause::DataPort),
        Cause::Refused(StallCause::Bank),
        Cause::BackPressure,
        Cause::Service,
        Cause::Latency,
        Cause::Merged,
    ];

    /// The name views print and breakpoints filter on (`cause=other-warps`).
    pub fn name(self) -> &'static str {
        match self {
            Cause::OtherWarps => "other-warps",
            Cause::OwnWarp => "own-warp",
            Cause::SameLoad => "same-load",
            Cause::Writes => "writes",
            Cause::WriteDrain => "write-drain",
            Cause::Refresh => "refresh",
            Cause::Prefetch => "prefetch",
            Cause::RowConflict => "row-conflict",
            Cause::RowMiss => "row-miss",
            Cause::Refused(StallCause::Mshr) => "refused-mshr",
            Cause::Refused(StallCause::MergeFull) => "refused-merge-full",
            Cause::Refused(StallCause::LineAlloc) => "refused-line-alloc",
            Cause::Refused(StallCause::MissQueue) => "refused-miss-queue",
            Cause::Refused(StallCause::Response) => "refused-response",
            Cause::Refused(StallCause::DataPort) => "refused-data-port",
            Cause::Refused(StallCause::Bank) => "refused-bank",
            Cause::BackPressure => "back-pressure",
            Cause::Service => "service",
            Cause::Latency => "latency",
            Cause::Merged => "merged",
        }
    }

    /// Whether the cycles went to the request's own service (its transfers, latencies, data
    /// burst and its own PRE/ACT) rather than to waiting.
    pub fn is_service(self) -> bool {
        matches!(self, Cause::Service | Cause::Latency | Cause::RowConflict | Cause::RowMiss)
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
    /// The requests served ahead for this cause, the cycles each of their warps (core, warp
    /// slot) took, and how many were DRAM row hits (a column command with no ACT of their own
    /// since recording began).
    pub requests: BTreeSet<u64>,
    pub by_warp: BTreeMap<(u16, u16), u64>,
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
        self.critical().map_or(0, RequestBlame::latency)
    }

    /// The request whose data came back last (the first of them if several came back in the
    /// same cycle): the load waited for it, so its stages are the load's (issue 38 item 3).
    pub fn critical(&self) -> Option<&RequestBlame> {
        self.requests.iter().rev().max_by_key(|r| r.latency())
    }

    /// Request-cycles: every request's latency, summed. The requests wait at the same time, so
    /// with more than one request this is more than the load's latency.
    pub fn request_cycles(&self) -> u64 {
        self.requests.iter().map(RequestBlame::latency).sum()
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

/// The passes of a stretch of history, looked up by point and unit, and by request.
struct Index<'a> {
    passes: &'a [Pass],
    /// Where each request first passed each point.
    first: FastMap<(u64, Point), usize>,
    /// The passes at each point of each unit, in cycle order (positions in `passes`), so a
    /// stage's wait looks only at its own unit's passes.
    by_unit: FastMap<(Point, u16), Vec<usize>>,
    /// When each request had its first ACT (since recording began: a [`Streaming`] blame keeps
    /// them beyond the passes it still holds; none without `detail`, which does not ask).
    act: std::borrow::Cow<'a, FastMap<u64, u64>>,
    /// Whether parts name the requests served ahead ([`Part::requests`], `by_warp`,
    /// `row_hits`); without, only their cycles per cause.
    detail: bool,
}

/// Notes the first ACT of each request among `passes`.
fn note_acts(passes: &[Pass], act: &mut FastMap<u64, u64>) {
    for p in passes.iter().filter(|p| p.command().is_some_and(|(k, _)| k == CommandKind::Act)) {
        act.entry(p.who.id).or_insert(p.cycle);
    }
}

impl<'a> Index<'a> {
    fn new(passes: &'a [Pass]) -> Index<'a> {
        let mut act = FastMap::default();
        note_acts(passes, &mut act);
        Index::with_acts(passes, std::borrow::Cow::Owned(act), true)
    }

    fn with_acts(
        passes: &'a [Pass],
        act: std::borrow::Cow<'a, FastMap<u64, u64>>,
        detail: bool,
    ) -> Index<'a> {
        let mut first = FastMap::default();
        let mut by_unit: FastMap<(Point, u16), Vec<usize>> = FastMap::default();
        for (i, p) in passes.iter().enumerate() {
            first.entry((p.who.id, p.point)).or_insert(i);
            by_unit.entry((p.point, p.unit)).or_default().push(i);
        }
        Index { passes, first, by_unit, act, detail }
    }

    /// Passes at `point` of `unit` in cycles [from, to).
    fn at(&self, point: Point, unit: u16, from: u64, to: u64) -> impl Iterator<Item = &'a Pass> + '_ {
        let passes = self.passes;
        let at = self.by_unit.get(&(point, unit)).map_or(&[][..], |v| &v[..]);
        let start = at.partition_point(|&i| passes[i].cycle < from);
        at[start..].iter().map(move |&i| &passes[i]).take_while(move |p| p.cycle < to)
    }

    /// The first pass of request `id` at `point`.
    fn of(&self, id: u64, point: Point) -> Option<&'a Pass> {
        self.first.get(&(id, point)).map(|&i| &self.passes[i])
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
    let is_load = |p: &&Pass| p.who.core == core && p.who.warp == warp && p.who.seq == seq;
    let issue = passes
        .iter()
        .filter(|p| p.point == Point::Issue && p.unit == core && is_load(p))
        .rfind(|p| issued.is_none_or(|t| p.cycle == t))
        .ok_or_else(|| format!("load {seq} of warp {core}.{warp} was not issued in the recorded history"))?;
    blame_issue(&Index::new(passes), issue)
}

/// The blame of every load issued at or after cycle `from` whose data is all back within
/// `passes` (in cycle order), in the order they were issued.
pub fn blame_all(passes: &[Pass], from: u64) -> Vec<LoadBlame> {
    let ix = Index::new(passes);
    let issues =
        passes[passes.partition_point(|p| p.cycle < from)..].iter().filter(|p| p.point == Point::Issue);
    issues.filter_map(|i| blame_issue(&ix, i).ok()).collect()
}

/// Every load's blame as the passes come, a stretch of history at a time, holding only the
/// passes from the issue of the oldest load still waiting for data on: the same blame as
/// [`blame_all`] over the whole history (a load's stages read only passes from its issue on,
/// and the first ACT of every request, which this keeps), in the order the loads' data came
/// back, with memory bounded by the loads in flight instead of the history's length.
#[derive(Default)]
pub struct Streaming {
    /// The passes from the oldest waiting load's issue on.
    window: Vec<Pass>,
    /// The issues of the loads whose data is not all back yet.
    waiting: Vec<Pass>,
    act: FastMap<u64, u64>,
    /// Per load (core, warp slot, load number), how many of its requests' data reached the
    /// warp: a load is blamed only once that is all of them, as its blame needs every one.
    back: FastMap<(u16, u16, u32), u32>,
    /// Whether it is fed by `push` (detailed blame) or `push_critical`, once it is fed.
    detail: Option<bool>,
}

impl Streaming {
    /// Takes the history's next passes (in cycle order, none earlier than any before) and
    /// returns the blame of the loads whose data is now all back.
    pub fn push(&mut self, passes: &[Pass]) -> Vec<LoadBlame> {
        self.push_with(passes, blame_issue, true)
    }

    /// As [`Streaming::push`], but of each load only the blame of its critical request (the
    /// one [`LoadBlame::critical`] names), which is all a load's latency is made of, and its
    /// parts only as cycles per cause (no requests served ahead named): a fraction of the work
    /// when a load's requests are many.
    pub fn push_critical(&mut self, passes: &[Pass]) -> Vec<CriticalBlame> {
        self.push_with(passes, blame_critical, false)
    }

    fn push_with<T>(
        &mut self,
        passes: &[Pass],
        blame: fn(&Index<'_>, &Pass) -> Result<T, String>,
        detail: bool,
    ) -> Vec<T> {
        assert_eq!(
            *self.detail.get_or_insert(detail),
            detail,
            "a Streaming is fed by push or by push_critical, not both"
        );
        // Only the detailed blame tells row hits among the requests served ahead.
        if detail {
            note_acts(passes, &mut self.act);
        }
        for p in
            passes.iter().filter(|p| p.point == Point::Done && p.who.kind.is_some_and(AccessKind::is_load))
        {
            *self.back.entry(load_of(p)).or_insert(0) += 1;
        }
        self.waiting.extend(passes.iter().filter(|p| p.point == Point::Issue));
        self.window.extend_from_slice(passes);
        let back = &mut self.back;
        let all_back = |back: &FastMap<(u16, u16, u32), u32>, issue: &Pass| {
            back.get(&load_of(issue)).is_some_and(|&n| n >= u32::from(issue.detail))
        };
        let mut done = Vec::new();
        if self.waiting.iter().any(|i| all_back(back, i)) {
            let ix = Index::with_acts(&self.window, std::borrow::Cow::Borrowed(&self.act), detail);
            self.waiting.retain(|issue| {
                if !all_back(back, issue) {
                    return true;
                }
                let Ok(b) = blame(&ix, issue) else { return true };
                done.push(b);
                let n = back.get_mut(&load_of(issue)).expect("counted");
                *n -= u32::from(issue.detail).min(*n);
                if *n == 0 {
                    back.remove(&load_of(issue));
                }
                false
            });
        }
        let keep = self.waiting.iter().map(|i| i.cycle).min().unwrap_or(u64::MAX);
        let drop = self.window.partition_point(|p| p.cycle < keep);
        self.window.drain(..drop);
        done
    }
}

/// The load a pass belongs to: its core, warp slot and load number.
fn load_of(p: &Pass) -> (u16, u16, u32) {
    (p.who.core, p.who.warp, p.who.seq)
}

/// A load's critical request's blame ([`Streaming::push_critical`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticalBlame {
    pub core: u16,
    pub warp: u16,
    pub seq: u32,
    pub issued: u64,
    /// `None` for a load that made no request.
    pub request: Option<RequestBlame>,
}

impl CriticalBlame {
    /// The load's latency: its issue to its critical request's data.
    pub fn latency(&self) -> u64 {
        self.request.as_ref().map_or(0, RequestBlame::latency)
    }
}

/// The blame of the load whose issue is `issue`.
fn blame_issue(ix: &Index<'_>, issue: &Pass) -> Result<LoadBlame, String> {
    let Who { core, warp, seq, .. } = issue.who;
    let mut requests = Vec::new();
    for access in accesses(ix, issue)? {
        let stages = stages_of(ix, issue.cycle, access)?;
        requests.push(RequestBlame { who: access.who, stages });
    }
    Ok(LoadBlame { core, warp, seq, issued: issue.cycle, requests })
}

/// The blame of the critical request of the load whose issue is `issue`: the one whose data
/// came back last, the first of them in the load's order on a tie, as [`LoadBlame::critical`]
/// chooses (a request's stages run from the load's issue to its data at the warp).
fn blame_critical(ix: &Index<'_>, issue: &Pass) -> Result<CriticalBlame, String> {
    let Who { core, warp, seq, .. } = issue.who;
    let mut last: Option<(u64, &Pass)> = None;
    for access in accesses(ix, issue)? {
        let done = ix.of(access.who.id, Point::Done).ok_or_else(|| {
            format!("request {} of warp {core}.{warp} has not passed Done yet", access.who.id)
        })?;
        if last.is_none_or(|(at, _)| done.cycle > at) {
            last = Some((done.cycle, access));
        }
    }
    let request = match last {
        Some((_, access)) => {
            Some(RequestBlame { who: access.who, stages: stages_of(ix, issue.cycle, access)? })
        }
        None => None,
    };
    Ok(CriticalBlame { core, warp, seq, issued: issue.cycle, request })
}

/// The accesses into the L1 of the load whose issue is `issue`, all of them, in its order.
fn accesses<'a>(ix: &Index<'a>, issue: &Pass) -> Result<Vec<&'a Pass>, String> {
    let Who { core, warp, seq, .. } = issue.who;
    let is_load = |p: &&Pass| p.who.core == core && p.who.warp == warp && p.who.seq == seq;
    let count = usize::from(issue.detail);
    let accesses: Vec<&Pass> = ix
        .at(Point::Access, core, issue.cycle, u64::MAX)
        .filter(|p| is_load(p) && p.who.kind.is_some_and(AccessKind::is_load))
        .take(count)
        .collect();
    if accesses.len() < count {
        return Err(format!(
            "load {seq} of warp {core}.{warp} (issued at cycle {}) has sent {} of its {count} requests so far",
            group(issue.cycle),
            accesses.len()
        ));
    }
    Ok(accesses)
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
    // With latency queues the L1 looks the access up later: its wait in its bank first.
    let (looked, l1) = match ix.of(me.id, Point::L1Lookup) {
        Some(lookup) => {
            stages.push(l1_latency_stage(ix, &me, access.cycle, lookup));
            (lookup.cycle, CacheOutcome::ALL[usize::from(lookup.detail & 0xf)])
        }
        None => (access.cycle, CacheOutcome::ALL[usize::from(access.detail)]),
    };
    match l1 {
        CacheOutcome::Hit => stages.push(own(Stage::L1Hit, core, looked, done.cycle, Cause::Service)),
        CacheOutcome::Merged => stages.push(own(Stage::L1Merged, core, looked, done.cycle, Cause::Merged)),
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
                looked,
                inject.cycle,
                Cause::BackPressure,
            ));
            stages.push(own(Stage::Request, slice, inject.cycle, arrive.cycle, Cause::Service));
            match ix.of(me.id, Point::L2Latency) {
                Some(entry) => {
                    let ready = at(Point::L2Ready)?;
                    let (queue, fixed) = (Point::L2Latency, Stage::L2Latency);
                    stages.push(fifo(
                        ix,
                        &me,
                        Stage::L2Queue,
                        queue,
                        slice,
                        arrive.cycle,
                        entry.cycle,
                        Cause::BackPressure,
                    ));
                    let times = [entry.cycle, ready.cycle, lookup.cycle];
                    stages.push(latency_stage(ix, &me, fixed, Point::L2Lookup, slice, times));
                }
                None => stages.push(fifo(
                    ix,
                    &me,
                    Stage::L2Queue,
                    Point::L2Lookup,
                    slice,
                    arrive.cycle,
                    lookup.cycle,
                    Cause::BackPressure,
                )),
            }
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
                    let parts = fifo_parts(
                        ix.detail,
                        ahead,
                        &me,
                        lookup.cycle,
                        enter.cycle,
                        Cause::BackPressure,
                        &[],
                    );
                    let (from, to) = (lookup.cycle, enter.cycle);
                    stages.push(StageBlame { stage: Stage::L2MissQueue, unit: slice, from, to, parts });
                    let queued = match ix.of(me.id, Point::DramQueue) {
                        Some(queued) => {
                            // Its detail is how long it waited past its latency.
                            let ready =
                                queued.cycle - u64::from(queued.detail).min(queued.cycle - enter.cycle);
                            let (ch, stage) = (enter.unit, Stage::DramLatency);
                            let times = [enter.cycle, ready, queued.cycle];
                            stages.push(latency_stage(ix, &me, stage, Point::DramQueue, ch, times));
                            queued
                        }
                        None => enter,
                    };
                    stages.push(dram_stage(ix, &me, queued, out));
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
    Part { cause, cycles, requests: BTreeSet::new(), by_warp: BTreeMap::new(), row_hits: 0 }
}

/// The LD/ST unit, from the load's issue to this access: earlier accesses of the core's
/// LD/ST unit are ahead of it, and refusals by the L1 turn the wait for the next access into
/// occlusion.
fn ldst_stage(ix: &Index<'_>, issued: u64, access: &Pass) -> StageBlame {
    let me = access.who;
    let ahead = ix.at(Point::Access, me.core, issued, access.cycle);
    let refusals: Vec<&Pass> = ix.at(Point::Refused, me.core, issued, access.cycle + 1).collect();
    let parts = fifo_parts(ix.detail, ahead, &me, issued, access.cycle, Cause::Service, &refusals);
    StageBlame { stage: Stage::Ldst, unit: me.core, from: issued, to: access.cycle, parts }
}

/// An access's wait in its L1 bank's latency queue, from entering it at `entered` to its
/// `lookup`: the queue's fixed latency, then (the lookup pass says how long) behind a refused
/// access at the head of the bank, and from its own first refusal at the head on, refused.
fn l1_latency_stage(ix: &Index<'_>, me: &Who, entered: u64, lookup: &Pass) -> StageBlame {
    let (to, past) = (lookup.cycle, u64::from(lookup.detail >> 4));
    let ready = to.saturating_sub(past).max(entered);
    let mut parts = Parts::of(Vec::new(), ix.detail);
    parts.add(Cause::Latency, ready - entered, None, false);
    match ix.of(me.id, Point::L1Refused).filter(|r| r.cycle >= ready && r.cycle <= to) {
        Some(r) => {
            parts.add(Cause::BackPressure, r.cycle - ready, None, false);
            parts.add(Cause::Refused(StallCause::ALL[usize::from(r.detail)]), to - r.cycle, None, false);
        }
        None => parts.add(Cause::BackPressure, to - ready, None, false),
    }
    StageBlame { stage: Stage::L1Latency, unit: me.core, from: entered, to, parts: parts.done() }
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
    let parts = fifo_parts(ix.detail, ix.at(point, unit, from, to), me, from, to, tail, &[]);
    StageBlame { stage, unit, from, to, parts }
}

/// The parts of [from, to) cut at the departures `ahead` (in cycle order); the time before a
/// departure goes to the departing request, or, from a refusal of the head on, to the
/// refusal; the time after the last departure is `tail` (or the refusal).
fn fifo_parts<'a>(
    detail: bool,
    ahead: impl Iterator<Item = &'a Pass>,
    me: &Who,
    from: u64,
    to: u64,
    tail: Cause,
    refusals: &[&Pass],
) -> Vec<Part> {
    let mut parts = Parts::of(Vec::new(), detail);
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

/// A latency queue's stage, [from, to) with the request ready at `ready`: the fixed latency
/// until then, then the wait for the requests ahead of it (cut at their departures through
/// `point`) and for the next stage (back-pressure).
fn latency_stage(
    ix: &Index<'_>,
    me: &Who,
    stage: Stage,
    point: Point,
    unit: u16,
    [from, ready, to]: [u64; 3],
) -> StageBlame {
    let ahead = ix.at(point, unit, ready, to);
    let mut parts =
        Parts::of(fifo_parts(ix.detail, ahead, me, ready, to, Cause::BackPressure, &[]), ix.detail);
    parts.add(Cause::Latency, ready - from, None, false);
    StageBlame { stage, unit, from, to, parts: parts.done() }
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
    let mut parts = Parts::of(Vec::new(), ix.detail);
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
        let hit = ix.detail && kind.is_cas() && c.who.id != me.id && !row_opened_for(ix, c);
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
    ix.act.get(&c.who.id).is_some_and(|t| *t <= c.cycle)
}

/// Why another request served ahead of `me` delayed it.
fn cause_of(me: &Who, other: &Who) -> Cause {
    match other.kind {
        Some(AccessKind::Writeback | AccessKind::Store) => Cause::Writes,
        Some(AccessKind::Prefetch) => Cause::Prefetch,
        None => Cause::Refresh,
        Some(AccessKind::Load | AccessKind::Atomic)
            if other.core == me.core && other.warp == me.warp && other.seq == me.seq =>
        {
            Cause::SameLoad
        }
        Some(AccessKind::Load | AccessKind::Atomic) if other.core == me.core && other.warp == me.warp => {
            Cause::OwnWarp
        }
        Some(AccessKind::Load | AccessKind::Atomic) => Cause::OtherWarps,
    }
}

/// Parts being summed, one per cause; with `detail`, naming the requests served ahead.
struct Parts {
    parts: Vec<Part>,
    detail: bool,
}

impl Parts {
    fn of(parts: Vec<Part>, detail: bool) -> Parts {
        Parts { parts, detail }
    }

    fn add(&mut self, cause: Cause, cycles: u64, who: Option<&Who>, row_hit: bool) {
        let who = who.filter(|_| self.detail);
        if cycles == 0 && who.is_none() {
            return;
        }
        let i = match self.parts.iter().position(|p| p.cause == cause) {
            Some(i) => i,
            None => {
                self.parts.push(part(cause, 0));
                self.parts.len() - 1
            }
        };
        let p = &mut self.parts[i];
        p.cycles += cycles;
        if let Some(w) = who {
            *p.by_warp.entry((w.core, w.warp)).or_default() += cycles;
            if p.requests.insert(w.id) {
                p.row_hits += u32::from(row_hit);
            }
        }
    }

    fn done(mut self) -> Vec<Part> {
        self.parts.sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.cause.cmp(&b.cause)));
        self.parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_s_number_is_its_place_in_all() {
        for (i, s) in Stage::ALL.into_iter().enumerate() {
            assert_eq!(s as usize, i, "{s:?}");
        }
    }

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
        assert_eq!(other.by_warp.iter().map(|(w, c)| (*w, *c)).collect::<Vec<_>>(), vec![((0, 0), 19)]);
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

    /// GPGPU-Sim's fixed delays on a hand-built journey. At the L2 (latency 30): the request
    /// arrives at 10, waits one cycle behind another warp's request entering the latency queue
    /// at 11 and one more for room, enters at 12, is ready at 42, waits while another warp's
    /// ready request ahead is looked up at 44, then a cycle for the slice, and is looked up at
    /// 45. At the DRAM (latency 100): it arrives at 50, is ready at 150 and enters the
    /// controller's queue at 153, after another warp's request ahead left at 151 (its detail:
    /// 3 cycles past its latency). The fixed delays are `latency`, the rest is the queue's.
    #[test]
    fn the_fixed_delays_of_the_latency_queues_are_latency_and_the_waits_past_them_the_queues() {
        let (me, other) = (who(1, 0, 0, 0, 0), who(2, 3, 5, 0, 0));
        let mut passes = journey(me, 0, 50, 200);
        passes.retain(|p| p.point != Point::L2Arrive && p.point != Point::L2Lookup);
        passes.extend([
            pass(10, Point::L2Arrive, 0, 0, me),
            pass(11, Point::L2Latency, 0, 0, other),
            pass(12, Point::L2Latency, 0, 0, me),
            pass(41, Point::L2Ready, 0, 0, other),
            pass(42, Point::L2Ready, 0, 0, me),
            pass(44, Point::L2Lookup, 0, CacheOutcome::Miss as u16, other),
            pass(45, Point::L2Lookup, 0, CacheOutcome::Miss as u16, me),
            pass(151, Point::DramQueue, 0, 1, other),
            pass(153, Point::DramQueue, 0, 3, me),
            cmd(160, CommandKind::Act, me),
            cmd(172, CommandKind::Rd, me),
        ]);
        let blame = blame(&sorted(passes), 0, 0, 0, None).unwrap();
        let queue = stage(&blame, Stage::L2Queue);
        assert_eq!((queue.from, queue.to), (10, 12));
        assert_eq!((cycles(queue, Cause::OtherWarps), cycles(queue, Cause::BackPressure)), (1, 1));
        let l2 = stage(&blame, Stage::L2Latency);
        assert_eq!((l2.from, l2.to, l2.parts[0].cause, l2.parts[0].cycles), (12, 45, Cause::Latency, 30));
        assert_eq!((cycles(l2, Cause::OtherWarps), cycles(l2, Cause::BackPressure)), (2, 1));
        let front = stage(&blame, Stage::DramLatency);
        assert_eq!((front.from, front.to, cycles(front, Cause::Latency)), (50, 153, 100));
        assert_eq!((cycles(front, Cause::OtherWarps), cycles(front, Cause::BackPressure)), (1, 2));
        let dram = stage(&blame, Stage::Dram);
        assert_eq!((dram.from, cycles(dram, Cause::RowMiss), cycles(dram, Cause::OtherWarps)), (153, 7, 0));
        let r = &blame.requests[0];
        assert_eq!(r.stages.iter().map(|s| s.cycles()).sum::<u64>(), r.latency());
        assert!(r.stages.iter().all(|s| s.parts.iter().map(|p| p.cycles).sum::<u64>() == s.cycles()));
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
