//! A window of history as a Chrome / Perfetto trace-event file (issue 17 item 4): the passes
//! of the window (`sim::record`, recorded by replaying it, see [`super::recording`]) become
//! the "Trace Event Format" JSON that ui.perfetto.dev and chrome://tracing open.
//!
//! A process per unit — each SM, the crossbar, each L2 slice, each DRAM channel — and in it a
//! thread per track: the SM's LD/ST unit, L1 and reply queue; the crossbar's request and reply
//! networks; the slice's access queue, lookup/fill and miss queue (and latency queue, with
//! `l2.latency_queue`); the channel's controller queue (until a request's column command; and
//! the DRAM latency queue in front of it, with `dram.frontend_latency`) and, per bank, its commands and the requests
//! whose data it moves. A request is a complete slice (`X`) on every track it passed, from
//! the pass that brought it there to the pass that took it on; slices overlapping on one track are spread over lanes (`bank 3`, `bank 3 #2`,
//! …), since a thread's slices must nest. Flows (`s`/`t`/`f`) follow each request through its
//! tracks and link a warp-load's requests in the order their data came back. DRAM commands are
//! instants (`i`) on their bank's track; L1 refusals and write drains are instants on their
//! unit. Counters (`C`) count the requests in each queue (waiting in the LD/ST unit, the L1 miss
//! queue, the L2 access and miss queues, the controller's reads and writes, the SM's reply
//! queue).
//!
//! Time: `ts` and `dur` are core cycles (the format's microseconds; the file says so in
//! `otherData`). The window is bounded ([`MAX_WINDOW`] cycles, [`MAX_EVENTS`] events): beyond
//! it the export is refused with the limit named.

use super::recording::record;
use super::timetravel::TimeTravel;
use crate::sim::Gpu;
use crate::sim::record::{Pass, Point, Who};
use crate::sim::request::{AccessKind, CacheOutcome};
use crate::sim::stats::StallCause;
use crate::sim::stats::metrics::{count, group};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// The longest window exported, in core cycles.
pub const MAX_WINDOW: u64 = 200_000;
/// The most trace events a file may hold.
pub const MAX_EVENTS: usize = 2_000_000;
/// How far before the window recording starts, so requests already in flight when the window
/// opens show where they were (a request in flight longer than this shows from the first
/// point the recording saw).
pub const LOOKBACK: u64 = 20_000;
/// How far past the window recording goes, so the stays the window ends in get their true
/// ends (their args say when they left; a request with two column commands, say, leaves the
/// controller's queue with its second).
pub const LOOKAHEAD: u64 = 1_000;
/// The window the debugger's `timeline FILE` writes: the last this many cycles.
pub const DEFAULT_WINDOW: u64 = 2_000;

/// A unit of the machine: a process of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Sm(u16),
    Crossbar,
    L2(u16),
    Channel(u16),
}

/// A track of a unit: a thread of the trace (spread over lanes when its slices overlap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Track {
    Ldst,
    /// The L1's banked latency queues (`l1.latency_queue`).
    L1Latency,
    L1,
    ReplyQueue,
    Request,
    Reply,
    L2Access,
    /// The L2's latency queue (`l2.latency_queue`).
    L2Latency,
    L2,
    L2Miss,
    /// The DRAM latency queue in front of the controller (`dram.frontend_latency`).
    DramLatency,
    Queue,
    /// A bank's commands (instants).
    Commands(u8),
    /// The requests a bank serves, from their column command to the end of their data.
    Bank(u8),
}

impl Track {
    fn name(self) -> String {
        match self {
            Track::Ldst => "LD/ST".into(),
            Track::L1Latency => "L1 latency queue".into(),
            Track::L1 => "L1".into(),
            Track::ReplyQueue => "reply queue".into(),
            Track::Request => "request network".into(),
            Track::Reply => "reply network".into(),
            Track::L2Access => "access queue".into(),
            Track::L2Latency | Track::DramLatency => "latency queue".into(),
            Track::L2 => "lookup and fill".into(),
            Track::L2Miss => "miss queue".into(),
            Track::Queue => "controller queue".into(),
            Track::Commands(b) => format!("bank {b}"),
            Track::Bank(b) => format!("bank {b} requests"),
        }
    }

    /// Display order within its unit: a bank's requests right under its commands.
    fn order(self) -> u32 {
        match self {
            Track::Ldst | Track::Request | Track::L2Access | Track::Queue => 0,
            Track::L1 | Track::Reply | Track::L2 => 1,
            Track::ReplyQueue | Track::L2Miss => 2,
            // After the tracks without them: the latency queues are off on most machines.
            Track::L1Latency | Track::L2Latency | Track::DramLatency => 3,
            Track::Commands(b) => 100 + 2 * u32::from(b),
            Track::Bank(b) => 101 + 2 * u32::from(b),
        }
    }
}

/// One request's stay on one track, [from, to) in core cycles (`to` is `u64::MAX` when it
/// was still there at the end of the recording).
#[derive(Clone, Debug)]
struct Stay {
    unit: Unit,
    track: Track,
    stage: &'static str,
    from: u64,
    to: u64,
    who: Who,
    /// The journey ended when it left this track (its data reached the warp), perhaps through
    /// zero-cycle stays after it.
    last: bool,
}

impl Stay {
    /// The queue counter this stay counts in, if it is a stay in a queue.
    fn counter(&self) -> Option<&'static str> {
        match (self.track, self.stage) {
            (Track::Ldst, _) => Some("LD/ST waiting requests"),
            (Track::L1Latency, _) => Some("L1 latency queue"),
            (Track::L1, "l1-miss-queue") => Some("L1 miss queue"),
            (Track::L2Access, _) => Some("L2 access queue"),
            (Track::L2Latency, _) => Some("L2 latency queue"),
            (Track::DramLatency, _) => Some("DRAM latency queue"),
            (Track::L2Miss, _) => Some("L2 miss queue"),
            (Track::Queue, _) => Some("controller queue"),
            (Track::ReplyQueue, _) => Some("reply queue"),
            _ => None,
        }
    }
}

/// Whether `point` ends the journey of a request of `kind`.
fn ends_journey(kind: AccessKind, point: Point) -> bool {
    match point {
        Point::Done => true,
        Point::DramDone => matches!(kind, AccessKind::Writeback | AccessKind::Prefetch),
        Point::L2Lookup => kind == AccessKind::Store,
        _ => false,
    }
}

/// The stays of every request in `passes` (in cycle order): a stay per pass that moved a
/// request onto a track, until the next such pass.
fn stays(passes: &[Pass]) -> Vec<Stay> {
    // A warp slot's load numbers start again with each warp it holds: every issue is kept.
    let mut issues: BTreeMap<(u16, u16, u32), Vec<u64>> = BTreeMap::new();
    let mut journeys: BTreeMap<u64, Vec<&Pass>> = BTreeMap::new();
    for p in passes {
        match p.point {
            Point::Issue => {
                issues.entry((p.who.core, p.who.warp, p.who.seq)).or_default().push(p.cycle);
            }
            Point::Refused | Point::L1Refused | Point::DrainStart | Point::DrainEnd => {}
            _ if p.who.is_request() => journeys.entry(p.who.id).or_default().push(p),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for journey in journeys.values() {
        let who = journey[0].who;
        let kind = who.kind.expect("requests have a kind");
        let last_access = journey.iter().rfind(|p| p.point == Point::Access);
        // With the L1's latency queues the access waits in its bank until its lookup.
        let looked = journey.iter().any(|p| p.point == Point::L1Lookup);
        let came_from = journey.iter().find(|p| p.point == Point::DramArrive).map(|p| p.detail);
        let dram_latency = journey.iter().any(|p| p.point == Point::DramQueue);
        let ended = journey.iter().find(|p| ends_journey(kind, p.point)).map(|p| p.cycle);
        // A re-executed access stays where the request already is; at the DRAM, it leaves the
        // controller's queue with its (last) column command, its PRE and ACT issued meanwhile.
        let cas = journey.iter().rposition(|p| p.command().is_some_and(|(k, _)| k.is_cas()));
        let mut moves: Vec<&Pass> = Vec::new();
        for (i, p) in journey.iter().enumerate() {
            let stays_put = match p.point {
                Point::Access => moves.last().is_some_and(|m| m.point == Point::Access),
                Point::Command => Some(i) != cas,
                // Its latency ran out; it waits on in the same queue.
                Point::L2Ready => true,
                _ => false,
            };
            if !stays_put {
                moves.push(p);
            }
        }
        if let Some(first) = moves.first().filter(|p| p.point == Point::Access && kind.is_load())
            && let Some(&issued) = issues
                .get(&(who.core, who.warp, who.seq))
                .and_then(|v| v.iter().rfind(|&&t| t <= first.cycle))
        {
            out.push(Stay {
                unit: Unit::Sm(who.core),
                track: Track::Ldst,
                stage: "ldst",
                from: issued,
                to: first.cycle,
                who,
                last: false,
            });
        }
        for (i, p) in moves.iter().enumerate() {
            if ends_journey(kind, p.point) {
                break;
            }
            let next = moves.get(i + 1);
            let to = next.map_or(u64::MAX, |n| n.cycle);
            let last = ended == Some(to);
            let outcome = |d: u16| CacheOutcome::ALL[usize::from(d)];
            let l1_stage = |o: CacheOutcome| match o {
                CacheOutcome::Hit => "l1-hit",
                CacheOutcome::Merged => "l1-merged",
                _ => "l1-miss-queue",
            };
            let (unit, track, stage) = match p.point {
                Point::Access if looked => (Unit::Sm(p.unit), Track::L1Latency, "l1-latency"),
                Point::L1Lookup => (Unit::Sm(p.unit), Track::L1, l1_stage(outcome(p.detail & 0xf))),
                Point::Access => {
                    let stage = l1_stage(last_access.map_or(CacheOutcome::Miss, |a| outcome(a.detail)));
                    (Unit::Sm(p.unit), Track::L1, stage)
                }
                Point::Inject => (Unit::Crossbar, Track::Request, "request-net"),
                Point::L2Arrive => (Unit::L2(p.unit), Track::L2Access, "l2-queue"),
                Point::L2Latency => (Unit::L2(p.unit), Track::L2Latency, "l2-latency"),
                Point::L2Lookup => match outcome(p.detail) {
                    CacheOutcome::Hit => (Unit::L2(p.unit), Track::L2, "l2-hit"),
                    CacheOutcome::Merged => (Unit::L2(p.unit), Track::L2, "l2-merged"),
                    _ => (Unit::L2(p.unit), Track::L2Miss, "l2-miss-queue"),
                },
                Point::DramArrive if dram_latency => {
                    (Unit::Channel(p.unit), Track::DramLatency, "dram-latency")
                }
                Point::DramArrive | Point::DramQueue => (Unit::Channel(p.unit), Track::Queue, "dram-queue"),
                Point::Command => {
                    let (_, bank) = p.command().expect("a command pass");
                    (Unit::Channel(p.unit), Track::Bank(bank), "dram-bank")
                }
                Point::DramDone => match came_from {
                    Some(slice) => (Unit::L2(slice), Track::L2, "l2-fill"),
                    None => continue,
                },
                Point::Reply => (Unit::Crossbar, Track::Reply, "reply-net"),
                Point::SmArrive => (Unit::Sm(p.unit), Track::ReplyQueue, "reply-queue"),
                _ => continue,
            };
            if to > p.cycle {
                out.push(Stay { unit, track, stage, from: p.cycle, to, who, last });
            }
        }
    }
    out
}

/// The name a request's slices and flows carry: its warp-load, or what it is.
fn label(who: &Who) -> String {
    match who.kind {
        Some(AccessKind::Load) => format!("{}.{} load {}", who.core, who.warp, who.seq),
        Some(AccessKind::Atomic) => format!("{}.{} atomic {}", who.core, who.warp, who.seq),
        Some(AccessKind::Store) => format!("{}.{} store", who.core, who.warp),
        Some(AccessKind::Writeback) => "writeback".into(),
        Some(AccessKind::Prefetch) => "prefetch".into(),
        None => "refresh".into(),
    }
}

fn kind_name(kind: Option<AccessKind>) -> &'static str {
    match kind {
        Some(AccessKind::Load) => "load",
        Some(AccessKind::Atomic) => "atomic",
        Some(AccessKind::Store) => "store",
        Some(AccessKind::Writeback) => "writeback",
        Some(AccessKind::Prefetch) => "prefetch",
        None => "none",
    }
}

/// One trace event (the fields of the Trace Event Format that the export uses).
#[derive(Clone, Debug, Serialize)]
struct Event {
    name: String,
    cat: &'static str,
    ph: &'static str,
    ts: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<u64>,
    pid: u32,
    tid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    /// An instant's scope (`t` thread, `p` process).
    #[serde(skip_serializing_if = "Option::is_none")]
    s: Option<&'static str>,
    /// A flow end's binding (`e`: the enclosing slice).
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'static str>,
    #[serde(skip_serializing_if = "Value::is_null")]
    args: Value,
}

impl Event {
    fn new(name: String, cat: &'static str, ph: &'static str, ts: u64, (pid, tid): (u32, u32)) -> Event {
        Event { name, cat, ph, ts, dur: None, pid, tid, id: None, s: None, bp: None, args: Value::Null }
    }
}

/// What an export holds, for the message that reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub slices: usize,
    pub instants: usize,
    pub counters: usize,
    pub flows: usize,
    pub metadata: usize,
}

impl Counts {
    pub fn events(&self) -> usize {
        self.slices + self.instants + self.counters + self.flows + self.metadata
    }
}

/// A window of history as trace events.
#[derive(Clone, Debug)]
pub struct Timeline {
    pub from: u64,
    pub to: u64,
    /// The cycle recording began (the snapshot at or before `from - LOOKBACK`).
    pub recorded_from: u64,
    pub counts: Counts,
    events: Vec<Event>,
}

/// Checks a window before any replay: not empty or reversed, not longer than [`MAX_WINDOW`].
pub fn check_window(from: u64, to: u64) -> Result<(), String> {
    if from >= to {
        return Err(format!("the window {}..{} is empty: FROM must be before TO", group(from), group(to)));
    }
    if to - from > MAX_WINDOW {
        return Err(format!(
            "the window {}..{} is {} cycles, more than the limit of {}; export a shorter window",
            group(from),
            group(to),
            group(to - from),
            group(MAX_WINDOW)
        ));
    }
    Ok(())
}

/// The timeline of cycles [from, to) of the history `travel` holds, which reaches cycle
/// `furthest`; `g` gives the machine's shape. Replays from the snapshot before
/// `from - LOOKBACK` to `to + LOOKAHEAD` with recording on.
pub fn export(travel: &TimeTravel, g: &Gpu, furthest: u64, from: u64, to: u64) -> Result<Timeline, String> {
    check_window(from, to)?;
    if from < travel.first_cycle() {
        return Err(format!(
            "the window {}..{} begins before the history, which begins at cycle {} (the checkpoint the session was resumed from)",
            group(from),
            group(to),
            group(travel.first_cycle())
        ));
    }
    if to > furthest {
        return Err(format!(
            "the window {}..{} ends beyond the history, which reaches cycle {}",
            group(from),
            group(to),
            group(furthest)
        ));
    }
    let (passes, began) = record(travel, from.saturating_sub(LOOKBACK), to + LOOKAHEAD, |_| false);
    let t = build(g, &passes, began, from, to);
    if t.counts.events() > MAX_EVENTS {
        return Err(format!(
            "the window {from}..{to} makes {} trace events, more than the limit of {MAX_EVENTS}; export a shorter window",
            t.counts.events()
        ));
    }
    Ok(t)
}

/// Numbers the trace's processes and threads.
struct Ids {
    sms: u16,
    slices: u16,
    /// Threads by (unit, track, lane).
    threads: BTreeMap<(Unit, u32, Track, usize), u32>,
}

impl Ids {
    fn pid(&self, u: Unit) -> u32 {
        let (sms, slices) = (u32::from(self.sms), u32::from(self.slices));
        match u {
            Unit::Sm(c) => 1 + u32::from(c),
            Unit::Crossbar => 1 + sms,
            Unit::L2(s) => 2 + sms + u32::from(s),
            Unit::Channel(c) => 2 + sms + slices + u32::from(c),
        }
    }

    fn process_name(u: Unit) -> String {
        match u {
            Unit::Sm(c) => format!("SM {c}"),
            Unit::Crossbar => "crossbar".into(),
            Unit::L2(s) => format!("L2 slice {s}"),
            Unit::Channel(c) => format!("DRAM channel {c}"),
        }
    }

    fn want(&mut self, u: Unit, t: Track, lane: usize) {
        self.threads.insert((u, t.order(), t, lane), 0);
    }

    /// Gives threads their ids, after every process's (so no tid is another process's pid).
    fn number(&mut self, channels: u16) {
        let base = self.pid(Unit::Channel(channels));
        for (i, tid) in self.threads.values_mut().enumerate() {
            *tid = base + i as u32;
        }
    }

    fn thread(&self, u: Unit, t: Track, lane: usize) -> (u32, u32) {
        (self.pid(u), self.threads[&(u, t.order(), t, lane)])
    }

    /// A process-scoped event's place (its main thread).
    fn process(&self, u: Unit) -> (u32, u32) {
        (self.pid(u), self.pid(u))
    }
}

/// A stay placed in the window: clipped to it, on a lane of its track.
struct Placed<'a> {
    stay: &'a Stay,
    ts: u64,
    end: u64,
    lane: usize,
}

/// Builds the timeline of [from, to) from the passes recorded since cycle `began`.
fn build(g: &Gpu, passes: &[Pass], began: u64, from: u64, to: u64) -> Timeline {
    let all = stays(passes);
    let mut ids = Ids { sms: g.sms.len() as u16, slices: g.l2.len() as u16, threads: BTreeMap::new() };
    // Slices, clipped to the window, spread over lanes per track.
    let mut shown: Vec<&Stay> = all.iter().filter(|s| s.to > from && s.from < to).collect();
    shown.sort_by_key(|s| (s.unit, s.track, s.from, s.to, s.who.id));
    let mut placed: Vec<Placed<'_>> = Vec::new();
    let mut lanes: Vec<u64> = Vec::new();
    for (i, s) in shown.iter().enumerate() {
        if i == 0 || (shown[i - 1].unit, shown[i - 1].track) != (s.unit, s.track) {
            lanes.clear();
        }
        let (ts, end) = (s.from.max(from), s.to.min(to));
        let lane = match lanes.iter().position(|&e| e < ts) {
            Some(l) => l,
            None => {
                lanes.push(0);
                lanes.len() - 1
            }
        };
        lanes[lane] = end;
        ids.want(s.unit, s.track, lane);
        placed.push(Placed { stay: s, ts, end, lane });
    }
    let commands: Vec<&Pass> =
        passes.iter().filter(|p| p.point == Point::Command && (from..to).contains(&p.cycle)).collect();
    for c in &commands {
        let (_, bank) = c.command().expect("a command pass");
        ids.want(Unit::Channel(c.unit), Track::Commands(bank), 0);
    }
    ids.number(g.dram.len() as u16);

    let mut counts = Counts::default();
    let mut events = Vec::new();
    for p in &placed {
        let s = p.stay;
        let mut e = Event::new(label(&s.who), s.stage, "X", p.ts, ids.thread(s.unit, s.track, p.lane));
        e.dur = Some(p.end - p.ts);
        let mut args = json!({
            "stage": s.stage,
            "request": s.who.id,
            "kind": kind_name(s.who.kind),
            "warp": format!("{}.{}", s.who.core, s.who.warp),
            "load": s.who.seq,
            "index": s.who.index,
            "from": s.from,
        });
        args["to"] = if s.to == u64::MAX { json!("after the recording") } else { json!(s.to) };
        e.args = args;
        events.push(e);
        counts.slices += 1;
    }
    for c in &commands {
        let (kind, bank) = c.command().expect("a command pass");
        let mut e = Event::new(
            kind.name().into(),
            "dram",
            "i",
            c.cycle,
            ids.thread(Unit::Channel(c.unit), Track::Commands(bank), 0),
        );
        e.s = Some("t");
        e.args = if c.who.is_request() {
            json!({ "request": c.who.id, "for": label(&c.who), "bank": bank })
        } else {
            json!({ "bank": bank })
        };
        events.push(e);
        counts.instants += 1;
    }
    for p in passes.iter().filter(|p| (from..to).contains(&p.cycle)) {
        let (unit, name, args) = match p.point {
            Point::Refused => {
                let cause = StallCause::ALL[usize::from(p.detail)];
                (Unit::Sm(p.unit), format!("L1 refused: {}", cause.name()), json!({ "for": label(&p.who) }))
            }
            Point::DrainStart => (Unit::Channel(p.unit), "write drain starts".into(), Value::Null),
            Point::DrainEnd => (Unit::Channel(p.unit), "write drain ends".into(), Value::Null),
            _ => continue,
        };
        let mut e = Event::new(name, "unit", "i", p.cycle, ids.process(unit));
        e.s = Some("p");
        e.args = args;
        events.push(e);
        counts.instants += 1;
    }
    counts.counters += counters(&all, &ids, from, to, &mut events);
    counts.flows += flows(&placed, &ids, &mut events);
    // Metadata first: names and display order of every process and thread used.
    let mut meta = Vec::new();
    let used: BTreeSet<u32> = events.iter().map(|e| e.pid).collect();
    let units = (0..ids.sms)
        .map(Unit::Sm)
        .chain([Unit::Crossbar])
        .chain((0..ids.slices).map(Unit::L2))
        .chain((0..g.dram.len() as u16).map(Unit::Channel));
    for u in units.filter(|&u| used.contains(&ids.pid(u))) {
        let place = ids.process(u);
        let mut name = Event::new("process_name".into(), "__metadata", "M", 0, place);
        name.args = json!({ "name": Ids::process_name(u) });
        let mut order = Event::new("process_sort_index".into(), "__metadata", "M", 0, place);
        order.args = json!({ "sort_index": place.0 });
        meta.extend([name, order]);
    }
    for (&(u, _, t, lane), &tid) in &ids.threads {
        let place = (ids.pid(u), tid);
        let mut name = Event::new("thread_name".into(), "__metadata", "M", 0, place);
        let n = if lane == 0 { t.name() } else { format!("{} #{}", t.name(), lane + 1) };
        name.args = json!({ "name": n });
        let mut order = Event::new("thread_sort_index".into(), "__metadata", "M", 0, place);
        order.args = json!({ "sort_index": tid });
        meta.extend([name, order]);
    }
    counts.metadata = meta.len();
    events.sort_by_key(|e| e.ts);
    meta.extend(events);
    Timeline { from, to, recorded_from: began, counts, events: meta }
}

/// A queue's count changing: the cycle, whether a write entered or left, +1 or -1.
type Change = (u64, bool, i64);

/// Counter events of the queues' fills in [from, to), from every stay recorded (so a queue's
/// count at `from` includes requests that entered it before): one event where a count
/// changes. The controller queue counts reads and writes apart. Returns how many it added.
fn counters(all: &[Stay], ids: &Ids, from: u64, to: u64, events: &mut Vec<Event>) -> usize {
    let mut changes: BTreeMap<(Unit, &'static str), Vec<Change>> = BTreeMap::new();
    for s in all {
        if let Some(name) = s.counter() {
            let write = s.who.kind.is_some_and(|k| k.is_write());
            let c = changes.entry((s.unit, name)).or_default();
            c.push((s.from, write, 1));
            c.push((s.to, write, -1));
        }
    }
    let mut added = 0;
    for ((unit, name), mut c) in changes {
        c.sort_unstable();
        let (mut reads, mut writes) = (0i64, 0i64);
        let mut i = 0;
        let mut last: Option<(i64, i64)> = None;
        while i < c.len() && c[i].0 < to {
            let t = c[i].0;
            while i < c.len() && c[i].0 == t {
                if c[i].1 {
                    writes += c[i].2
                } else {
                    reads += c[i].2
                }
                i += 1;
            }
            let at = if t < from {
                if i < c.len() && c[i].0 <= from {
                    continue;
                }
                from
            } else {
                t
            };
            if last == Some((reads, writes)) {
                continue;
            }
            last = Some((reads, writes));
            let mut e = Event::new(name.into(), "queue", "C", at, ids.process(unit));
            e.args = if matches!(unit, Unit::Channel(_)) {
                json!({ "reads": reads, "writes": writes })
            } else {
                json!({ "requests": reads + writes })
            };
            events.push(e);
            added += 1;
        }
    }
    added
}

/// Flow events: each request's slices in journey order, and each warp-load's requests in the
/// order their data came back (at the last cycle of each one's last slice). Returns how many
/// it added.
fn flows(placed: &[Placed<'_>], ids: &Ids, events: &mut Vec<Event>) -> usize {
    let mut by_request: BTreeMap<u64, Vec<&Placed<'_>>> = BTreeMap::new();
    for p in placed {
        by_request.entry(p.stay.who.id).or_default().push(p);
    }
    let mut chains: Vec<(&'static str, Vec<&Placed<'_>>)> = Vec::new();
    let mut returns: BTreeMap<(u16, u16, u32), Vec<&Placed<'_>>> = BTreeMap::new();
    for mut path in by_request.into_values() {
        path.sort_by_key(|p| (p.stay.from, p.stay.to));
        let last = *path.last().expect("a request with slices");
        if last.stay.who.kind.is_some_and(AccessKind::is_load) && last.stay.last && last.stay.to == last.end {
            let w = last.stay.who;
            returns.entry((w.core, w.warp, w.seq)).or_default().push(last);
        }
        chains.push(("request", path));
    }
    for mut back in returns.into_values() {
        back.sort_by_key(|p| (p.end, p.stay.who.id));
        chains.push(("load", back));
    }
    let mut added = 0;
    let mut id = 0;
    for (cat, chain) in chains.into_iter().filter(|(_, c)| c.len() > 1) {
        id += 1;
        for (i, p) in chain.iter().enumerate() {
            let ph = match i {
                0 => "s",
                _ if i + 1 == chain.len() => "f",
                _ => "t",
            };
            // A request's flow enters each slice where it starts; a load's, where its data is
            // back (the last cycle of the request's last slice).
            let ts = if cat == "load" { p.end - 1 } else { p.ts };
            let mut e =
                Event::new(label(&p.stay.who), cat, ph, ts, ids.thread(p.stay.unit, p.stay.track, p.lane));
            e.id = Some(id);
            e.bp = (ph == "f").then_some("e");
            events.push(e);
            added += 1;
        }
    }
    added
}

impl Timeline {
    /// The trace-event JSON, one event a line.
    pub fn to_json(&self) -> String {
        let mut s = String::from("{\"traceEvents\":[\n");
        for (i, e) in self.events.iter().enumerate() {
            if i > 0 {
                s.push_str(",\n");
            }
            s.push_str(&serde_json::to_string(e).expect("trace events serialize"));
        }
        let other = json!({
            "generator": "warpscope timeline",
            "time": "ts and dur are core cycles: 1 trace microsecond = 1 core cycle (chrome://tracing, told the unit is ns, shows it as 1000 ns)",
            "from": self.from,
            "to": self.to,
            "recorded_from": self.recorded_from,
        });
        s.push_str(&format!("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{other}\n}}\n"));
        s
    }

    /// One line saying what the file `path` (`-`: standard output) holds.
    pub fn summary(&self, path: &str, bytes: usize) -> String {
        let c = &self.counts;
        let path = if path == "-" { "standard output" } else { path };
        format!(
            "wrote {path}: cycles {}..{}, {}, {}, {}, {} ({} KiB); open it in ui.perfetto.dev or chrome://tracing (1 µs = 1 core cycle)",
            group(self.from),
            group(self.to),
            count(c.slices as u64, "slice"),
            count(c.instants as u64, "instant"),
            count(c.counters as u64, "counter sample"),
            count(c.flows as u64, "flow event"),
            group(bytes.div_ceil(1024) as u64)
        )
    }
}
