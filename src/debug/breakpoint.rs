//! Breakpoints and watchpoints (gdb conventions): `break EVENT [field=value]... [if EXPR]`,
//! `tbreak`, `break cycle N`, `watch EXPR`, with conditions, ignore counts, enable/disable.
//!
//! An event breakpoint matches an event of its kind whose fields equal its filters and whose
//! condition holds (the condition sees the event's fields and machine state). A watchpoint
//! triggers when its expression's value changes.
//!
//! Breakpoints are a function of the machine, not of the session's history (issues 18 and 38):
//! a breakpoint hits at most once per cycle, in the cycles in which its event happens, its
//! cycle comes or its value changes, whichever way the machine got there. Its hits in the
//! cycles after the one it was set at (its `since`) are counted: each breakpoint keeps the
//! sorted list of those cycles, which a move forward extends and a move back cuts, so its hit
//! count, its latest hits, the ignores it has left (`ignore N COUNT` ignores the first COUNT
//! counted hits after the cycle it was given at) and whether a `tbreak` is used up (by its
//! first counted hit not ignored) are functions of the machine's cycle. A hit at or before
//! `since` stops the machine but is not counted: the debugger does not replay the history
//! before a breakpoint was set to count it. From any cycle, `continue` stops exactly where a
//! fresh session with the same breakpoints replayed to that cycle would.

use super::blame::{Cause, Stage};
use super::diverge::Unit;
use super::expr::{Expr, Lookup, Op, Seg, Val, apply};
use super::focus::Focus;
use super::state;
use crate::sim::Gpu;
use crate::sim::core::StallReason;
use crate::sim::event::{Event, EventKind, FieldValue};
use crate::sim::stats::metrics::group;

/// Short names accepted for event kinds.
const ALIASES: &[(&str, EventKind)] = &[("occlusion", EventKind::MemoryOcclusion)];

/// Parses an event name (full name or alias).
pub fn event_kind(name: &str) -> Result<EventKind, String> {
    if let Some((_, k)) = ALIASES.iter().find(|(a, _)| *a == name) {
        return Ok(*k);
    }
    EventKind::ALL.iter().copied().find(|k| k.name() == name).ok_or_else(|| {
        format!("unknown event `{name}`; valid: {}, occlusion, cycle", event_names().join(", "))
    })
}

/// Every breakable event name.
pub fn event_names() -> Vec<&'static str> {
    EventKind::ALL.iter().map(|k| k.name()).collect()
}

/// A field filter: `core=3`, `reason=data-mem`, `cycles>200`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub field: &'static str,
    /// One of the comparisons of [`FILTER_OPS`]; the orderings hold only for numbers.
    pub op: Op,
    pub value: Val,
}

/// How filters spell their comparisons, longest first so that `>=` is not read as `>`.
const FILTER_OPS: [(&str, Op); 6] =
    [("!=", Op::Ne), (">=", Op::Ge), ("<=", Op::Le), ("=", Op::Eq), (">", Op::Gt), ("<", Op::Lt)];

/// A filter's spelling of `op`.
fn symbol(op: Op) -> &'static str {
    FILTER_OPS.iter().find(|(_, o)| *o == op).map_or("=", |(s, _)| s)
}

/// Splits `field OP value` at its first comparison.
fn split_filter(word: &str) -> Option<(&str, Op, &str)> {
    let at = word.find(['=', '!', '<', '>'])?;
    let (field, rest) = word.split_at(at);
    let (sym, op) = FILTER_OPS.iter().find(|(sym, _)| rest.starts_with(sym))?;
    Some((field, *op, &rest[sym.len()..]))
}

impl Filter {
    /// Whether `event`'s field passes this filter (an absent field passes none).
    pub fn passes(&self, event: &Event) -> bool {
        let holds = |v: Val| apply(self.op, &v, &self.value).is_ok_and(|r| r.truthy());
        event.field(self.field).map(field_val).is_some_and(holds)
    }
}

/// What a breakpoint waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    Event {
        kind: EventKind,
        filters: Vec<Filter>,
    },
    /// The machine reaches this cycle.
    Cycle(u64),
    /// The expression's value changes.
    Watch {
        text: String,
        expr: Expr,
    },
    /// A unit of the two machines of a lockstep session becomes different (`debug::diverge`).
    Diverge(Unit),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    pub id: u32,
    pub trigger: Trigger,
    /// Condition text and parsed form.
    pub condition: Option<(String, Expr)>,
    pub enabled: bool,
    /// Used up by its first counted hit that is not ignored (`tbreak`): it is gone from the
    /// cycles after that hit, and back before it.
    pub temporary: bool,
    /// Its hits in the cycles after this one are counted: the cycle it was set at, given its
    /// condition at, or enabled again at after the machine moved while it was disabled.
    pub since: u64,
    /// `ignore N COUNT` given at cycle `.0`: the first `.1` counted hits after it are ignored.
    pub ignore: (u64, u64),
    /// Its counted hits, oldest first: those in the cycles after `since`, up to the machine's.
    pub hits: Vec<Record>,
    /// The cycle up to which `hits` is complete (it was checked in every cycle since `since`).
    known: u64,
}

/// A counted hit of a breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub cycle: u64,
    /// The event it matched (none for `break cycle` and watchpoints): the event log lists it.
    pub event: Option<Event>,
    /// What a stop at it is about (nothing for an ignored hit).
    pub focus: Focus,
}

impl Breakpoint {
    /// How a stop at this breakpoint is announced (gdb's words).
    pub fn label(&self) -> &'static str {
        match (&self.trigger, self.temporary) {
            (Trigger::Watch { .. }, _) => "Watchpoint",
            (_, true) => "Temporary breakpoint",
            (_, false) => "Breakpoint",
        }
    }

    /// How the breakpoint reads in `info breakpoints`.
    pub fn what(&self) -> String {
        let mut s = match &self.trigger {
            Trigger::Event { kind, filters } => {
                let mut s = kind.name().to_string();
                for f in filters {
                    s.push_str(&format!(" {}{}{}", f.field, symbol(f.op), f.value));
                }
                s
            }
            Trigger::Cycle(c) => format!("cycle {}", group(*c)),
            Trigger::Watch { text, .. } => format!("watch {text}"),
            Trigger::Diverge(u) => u.text(),
        };
        if let Some((c, _)) = &self.condition {
            s.push_str(&format!(" if {c}"));
        }
        s
    }

    /// How many of its counted hits are at or before cycle `c`.
    fn upto(&self, c: u64) -> usize {
        self.hits.partition_point(|r| r.cycle <= c)
    }

    /// Whether counted hit `i` (`hits.len()`: the next) is ignored: one of the first COUNT after
    /// the cycle `ignore N COUNT` was given at.
    pub fn ignored(&self, i: usize) -> bool {
        let (from, count) = self.ignore;
        let first = self.upto(from);
        i >= first && ((i - first) as u64) < count
    }

    /// The hits still to ignore at the machine's cycle.
    pub fn ignores_left(&self) -> u64 {
        let (from, count) = self.ignore;
        count.saturating_sub((self.hits.len() - self.upto(from)) as u64)
    }

    /// The cycle of its first counted hit that is not ignored.
    fn first_stop(&self) -> Option<u64> {
        let i = if self.upto(self.ignore.0) > 0 {
            0
        } else {
            usize::try_from(self.ignore.1).unwrap_or(usize::MAX)
        };
        self.hits.get(i).map(|r| r.cycle)
    }

    /// Whether it compares a load's latency on the two machines of a lockstep session: a
    /// `load-done` breakpoint whose condition reads `delta`.
    pub fn pairs_loads(&self) -> bool {
        matches!(self.trigger, Trigger::Event { kind: EventKind::LoadDone, .. })
            && self.condition.as_ref().is_some_and(|(_, c)| c.reads(DELTA))
    }

    /// Whether it can hit in cycle `c`: enabled, and not a `tbreak` used up before `c`.
    pub fn armed_at(&self, c: u64) -> bool {
        self.enabled && !(self.temporary && self.first_stop().is_some_and(|s| s < c))
    }

    /// A `tbreak` used up at or before the machine's cycle: it is not listed.
    pub fn used_up(&self) -> bool {
        self.temporary && self.first_stop().is_some()
    }

    /// Whether its hit in cycle `c`, at or before the machine's, stops the machine: a hit at or
    /// before `since` is not counted and does; a counted one does unless it is ignored.
    pub fn stops_at(&self, c: u64) -> bool {
        c <= self.since || self.hits.binary_search_by_key(&c, |r| r.cycle).map_or(true, |i| !self.ignored(i))
    }
}

/// Parses the argument of `break`/`tbreak`: `EVENT [field=value]... [if EXPR]` or `cycle N`.
pub fn parse_trigger(spec: &str) -> Result<(Trigger, Option<(String, Expr)>), String> {
    let (head, cond) = match spec.find(" if ") {
        Some(i) => (&spec[..i], Some(spec[i + 4..].trim())),
        None => (spec, None),
    };
    let cond = match cond {
        Some(c) => Some((c.to_string(), Expr::parse(c).map_err(|e| format!("condition: {e}"))?)),
        None => None,
    };
    let mut words = head.split_whitespace();
    let Some(name) = words.next() else {
        return Err(format!("break what? events: {}, cycle N", event_names().join(", ")));
    };
    if name == "diverge" {
        return Ok((Trigger::Diverge(Unit::parse(&words.collect::<Vec<_>>())?), cond));
    }
    if name == "cycle" {
        let n = words.next().ok_or("break cycle N: missing the cycle")?;
        let c = parse_u64(n).ok_or_else(|| format!("break cycle: `{n}` is not a cycle number"))?;
        return Ok((Trigger::Cycle(c), cond));
    }
    let kind = event_kind(name)?;
    let mut filters = Vec::new();
    for w in words {
        let (k, op, v) = split_filter(w).ok_or_else(|| {
            format!(
                "`{w}`: filters are field=value (or !=, <, <=, >, >= for numbers), e.g. core=3 cycles>200"
            )
        })?;
        if k == "warp"
            && op == Op::Eq
            && let Some((c, wp)) = v.split_once('.')
            && kind.fields().contains(&"core")
        {
            filters.push(filter(kind, "core", Op::Eq, c)?);
            filters.push(filter(kind, "warp", Op::Eq, wp)?);
            continue;
        }
        filters.push(filter(kind, k, op, v)?);
    }
    Ok((Trigger::Event { kind, filters }, cond))
}

fn parse_u64(s: &str) -> Option<u64> {
    let s = s.replace('_', "");
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn filter(kind: EventKind, key: &str, op: Op, value: &str) -> Result<Filter, String> {
    let Some(&field) = kind.fields().iter().find(|f| **f == key) else {
        return Err(format!("{} has no field `{key}`; fields: {}", kind.name(), kind.fields().join(", ")));
    };
    let one_of = |names: &[&'static str], v: &str| {
        names
            .iter()
            .find(|n| **n == v)
            .map(|n| Val::Str((*n).into()))
            .ok_or_else(|| format!("{key}={value}: valid: {}", names.join(", ")))
    };
    let value = match field {
        "reason" => {
            let r: StallReason = value.parse()?;
            Val::Str(r.name().into())
        }
        "cmd" => one_of(&["ACT", "PRE", "RD", "WR", "REF"], &value.to_ascii_uppercase())?,
        "stage" if kind == EventKind::Delayed => one_of(&Stage::ALL.map(Stage::name), value)?,
        "cause" if kind == EventKind::Delayed => one_of(&Cause::ALL.map(Cause::name), value)?,
        _ => {
            let n =
                parse_u64(value).ok_or_else(|| format!("{key}{}{value}: expected a number", symbol(op)))?;
            return Ok(Filter { field, op, value: Val::Int(n as i64) });
        }
    };
    if !matches!(op, Op::Eq | Op::Ne) {
        return Err(format!("{key}{}{value}: a name is compared with = or != only", symbol(op)));
    }
    Ok(Filter { field, op, value })
}

/// The machine's bound on a numeric filter field (`channel` < channels, ...), with its name.
fn field_bound(field: &str, gpu: &Gpu) -> Option<(usize, &'static str)> {
    match field {
        "core" | "sm" => Some((gpu.sms.len(), "SMs")),
        "warp" => Some((gpu.config.warps_per_sm(), "warp slots per SM")),
        "channel" => Some((gpu.dram.len(), "channels")),
        "bank" => Some((gpu.config.dram.banks as usize, "banks per channel")),
        _ => None,
    }
}

/// Refuses filters no event of this machine can have (`channel=99` on 6 channels), and a
/// `diverge` unit it does not have, naming the valid range.
pub fn check_filters(trigger: &Trigger, gpu: &Gpu) -> Result<(), String> {
    if let Trigger::Diverge(u) = trigger {
        return u.check(gpu);
    }
    let Trigger::Event { filters, .. } = trigger else { return Ok(()) };
    for f in filters {
        if let (Op::Eq, Val::Int(v), Some((n, what))) = (f.op, &f.value, field_bound(f.field, gpu))
            && *v as u64 >= n as u64
        {
            return Err(format!(
                "{}={v}: this machine has {n} {what}, so {} must be 0..{}",
                f.field,
                f.field,
                n.saturating_sub(1)
            ));
        }
    }
    Ok(())
}

fn field_val(f: FieldValue) -> Val {
    match f {
        FieldValue::Int(i) => Val::Int(i),
        FieldValue::Name(n) => Val::Str(n.into()),
    }
}

/// The name a `load-done` condition compares the two machines of a lockstep session by: B's
/// latency of the load less A's.
pub const DELTA: &str = "delta";

/// Looks names up in an event's fields first, then in machine state.
pub struct EventScope<'a> {
    pub event: Option<&'a Event>,
    pub gpu: &'a Gpu,
    /// `delta` of a load finished on both machines of a lockstep session.
    pub delta: Option<i64>,
}

impl<'a> EventScope<'a> {
    /// Machine state, and the fields of `event` if there is one.
    pub fn new(event: Option<&'a Event>, gpu: &'a Gpu) -> EventScope<'a> {
        EventScope { event, gpu, delta: None }
    }
}

impl Lookup for EventScope<'_> {
    fn lookup(&self, path: &[Seg]) -> Result<Val, String> {
        if let ([seg], Some(d)) = (path, self.delta)
            && seg.name == DELTA
            && seg.index.is_none()
        {
            return Ok(Val::Int(d));
        }
        if let ([seg], Some(e)) = (path, self.event)
            && seg.index.is_none()
            && let Some(v) = e.field(&seg.name)
        {
            return Ok(field_val(v));
        }
        state::lookup(self.gpu, path)
    }
}

/// The second machine of a lockstep session as breakpoints see it in a cycle: its state and
/// events of the cycle, and the loads finished on both by then (`debug::session::versus`).
pub struct Mate<'a> {
    pub gpu: &'a Gpu,
    pub events: &'a [(u64, Event)],
    /// The later machine's event of each load both have now finished, and B's latency less A's.
    pub pairs: &'a [(Event, i64)],
}

/// Why the machine stopped for a breakpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// "Breakpoint", "Temporary breakpoint" or "Watchpoint".
    pub label: &'static str,
    pub id: u32,
    pub cycle: u64,
    /// One line: what happened.
    pub what: String,
    /// The event that triggered it (none for cycle breakpoints and watchpoints).
    pub event: Option<Event>,
}

impl Hit {
    pub fn message(&self) -> String {
        format!("{} {}, cycle {}: {}", self.label, self.id, group(self.cycle), self.what)
    }
}

/// Whether `b`'s condition holds in `scope` (no condition always does). A condition that
/// cannot be evaluated (a division by zero, a field the event lacks) stops the machine as gdb
/// does ("Error in testing condition"), and the stop names the error (issue 37.4).
fn condition_holds(b: &Breakpoint, scope: &EventScope) -> bool {
    match &b.condition {
        Some((_, c)) => c.eval(scope).map_or(true, |v| v.truthy()),
        None => true,
    }
}

/// What a breakpoint hit on in a cycle.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    Event(Event),
    /// A load finished on both machines of a lockstep session: the later one's event, and B's
    /// latency less A's.
    Paired(Event, i64),
    /// The two machines of a lockstep session parted: where, and what each did.
    Diverge(String),
    Cycle,
    /// A watchpoint's value changed from the first to the second.
    Watch(Val, Val),
}

/// The watchpoints' values at a cycle, by breakpoint number: a change from one cycle to the
/// next is a hit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Watched(Vec<(u32, Val)>);

impl Watched {
    /// The values of every watchpoint of `set` on machine `gpu`, and whether the units that
    /// `diverge` breakpoints compare are the same on `gpu` and on `mate` (the second machine
    /// of a lockstep session, at the same cycle).
    pub fn read(set: &Breakpoints, gpu: &Gpu, mate: Option<&Gpu>) -> Watched {
        let watches = set.list.iter().filter_map(|b| match &b.trigger {
            Trigger::Watch { expr, .. } => Some((b.id, value(expr, gpu))),
            Trigger::Diverge(u) => {
                mate.map(|m| (b.id, Val::Int(i64::from(u.differs((gpu, &[]), (m, &[])).is_none()))))
            }
            _ => None,
        });
        Watched(watches.collect())
    }

    /// Sets watchpoint `id`'s value, returning the one before (none the first time).
    fn set(&mut self, id: u32, v: Val) -> Option<Val> {
        match self.0.iter_mut().find(|(w, _)| *w == id) {
            Some((_, old)) => Some(std::mem::replace(old, v)),
            None => {
                self.0.push((id, v));
                None
            }
        }
    }
}

/// The event kinds `bps` break on (a `diverge` breakpoint names the commands where channels
/// part).
fn kinds<'a>(bps: impl Iterator<Item = &'a Breakpoint>) -> u64 {
    let kinds = bps.filter_map(|b| match &b.trigger {
        Trigger::Event { kind, .. } => Some(kind.bit()),
        Trigger::Diverge(Unit::Any | Unit::Dram(_)) => Some(EventKind::DramCommand.bit()),
        _ => None,
    });
    kinds.fold(0, |m, b| m | b)
}

fn value(expr: &Expr, gpu: &Gpu) -> Val {
    expr.eval(&EventScope::new(None, gpu)).unwrap_or(Val::Str("<error>".into()))
}

/// The breakpoint table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakpoints {
    /// In number order, used-up `tbreak`s included (they are back before their hit).
    pub list: Vec<Breakpoint>,
    next_id: u32,
}

impl Breakpoints {
    /// A breakpoint set at cycle `now`.
    pub fn add(
        &mut self,
        trigger: Trigger,
        condition: Option<(String, Expr)>,
        temporary: bool,
        now: u64,
    ) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        self.list.push(Breakpoint {
            id,
            trigger,
            condition,
            enabled: true,
            temporary,
            since: now,
            ignore: (0, 0),
            hits: Vec::new(),
            known: now,
        });
        id
    }

    /// Breakpoint `id`, if it is listed (not a used-up `tbreak`).
    pub fn get_mut(&mut self, id: u32) -> Result<&mut Breakpoint, String> {
        self.list
            .iter_mut()
            .find(|b| b.id == id && !b.used_up())
            .ok_or_else(|| format!("no breakpoint number {id}"))
    }

    pub fn delete(&mut self, id: u32) -> Result<(), String> {
        let before = self.list.len();
        self.list.retain(|b| b.id != id);
        if self.list.len() == before { Err(format!("no breakpoint number {id}")) } else { Ok(()) }
    }

    /// Deletes every breakpoint (used-up temporary ones too); returns how many were listed.
    pub fn clear(&mut self) -> usize {
        let n = self.list.iter().filter(|b| !b.used_up()).count();
        self.list.clear();
        n
    }

    /// `condition N [EXPR]` at cycle `now`: another breakpoint, whose hits count from `now`.
    pub fn set_condition(
        &mut self,
        id: u32,
        condition: Option<(String, Expr)>,
        now: u64,
    ) -> Result<(), String> {
        let b = self.get_mut(id)?;
        b.condition = condition;
        (b.since, b.known) = (now, now);
        b.hits.clear();
        Ok(())
    }

    /// `ignore N COUNT` at cycle `now`: the first COUNT counted hits after `now` are ignored.
    pub fn set_ignore(&mut self, id: u32, count: u64, now: u64) -> Result<(), String> {
        self.get_mut(id)?.ignore = (now, count);
        Ok(())
    }

    /// Enables or disables breakpoint `id` at cycle `now`. A breakpoint is not checked while
    /// disabled: one enabled again after the machine moved past the hits it knows counts anew
    /// from `now`.
    pub fn set_enabled(&mut self, id: u32, on: bool, now: u64) -> Result<(), String> {
        let b = self.get_mut(id)?;
        if on && !b.enabled && b.known != now {
            (b.since, b.known) = (now, now);
            b.hits.clear();
        }
        b.enabled = on;
        Ok(())
    }

    /// The breakpoints that may hit from now on: enabled, and not used up.
    fn live(&self) -> impl Iterator<Item = &Breakpoint> {
        self.list.iter().filter(|b| b.enabled && !b.used_up())
    }

    /// Event kinds the machine must report for the breakpoints that may hit from now on.
    pub fn event_mask(&self) -> u64 {
        kinds(self.live())
    }

    /// Event kinds the machine must report for the breakpoints that may have hit before now:
    /// the enabled ones, used-up `tbreak`s too.
    pub fn past_event_mask(&self) -> u64 {
        kinds(self.list.iter().filter(|b| b.enabled))
    }

    /// Whether an enabled breakpoint waits for events of `kind`.
    pub fn listens(&self, kind: EventKind) -> bool {
        self.event_mask() & kind.bit() != 0
    }

    /// Whether a `delayed` event of a load of warp `core.warp` whose latency was `latency`
    /// could match an enabled breakpoint (a used-up `tbreak` too, for the cycles before it was): no stage waits longer than the load's latency, so a
    /// lower bound on `cycles` above it rules the load out, as does another warp.
    pub fn delayed_may_match(&self, core: u16, warp: u16, latency: u64) -> bool {
        let allows = |f: &Filter| {
            let v = match f.field {
                "core" => i64::from(core),
                "warp" => i64::from(warp),
                "cycles" if matches!(f.op, Op::Gt | Op::Ge) => latency as i64,
                _ => return true,
            };
            apply(f.op, &Val::Int(v), &f.value).is_ok_and(|r| r.truthy())
        };
        self.list.iter().filter(|b| b.enabled).any(|b| match &b.trigger {
            Trigger::Event { kind: EventKind::Delayed, filters } => filters.iter().all(allows),
            _ => false,
        })
    }

    /// Whether a breakpoint reads the machine every cycle (a watchpoint, or a `diverge`
    /// breakpoint): the machine then skips no cycle.
    pub fn has_watches(&self) -> bool {
        self.live().any(|b| matches!(b.trigger, Trigger::Watch { .. } | Trigger::Diverge(_)))
    }

    /// The first cycle after `now` at which an enabled `break cycle` fires.
    pub fn next_cycle_trigger(&self, now: u64) -> Option<u64> {
        let cycles = self.live().filter_map(|b| match b.trigger {
            Trigger::Cycle(c) if c > now => Some(c),
            _ => None,
        });
        cycles.min()
    }

    /// Whether any breakpoint may hit from now on (so moving forward must check them).
    pub fn any_enabled(&self) -> bool {
        self.live().next().is_some()
    }

    /// Whether breakpoint `b` matches `event` (pure: no counters change).
    pub fn matches(b: &Breakpoint, event: &Event, gpu: &Gpu) -> bool {
        let Trigger::Event { kind, filters } = &b.trigger else { return false };
        if event.kind() != *kind {
            return false;
        }
        if !filters.iter().all(|f| f.passes(event)) {
            return false;
        }
        condition_holds(b, &EventScope::new(Some(event), gpu))
    }

    /// What a hit of `b` says: `what` happened, and the error its condition gave, if any.
    pub fn describe(b: &Breakpoint, what: String, scope: &EventScope) -> String {
        match &b.condition {
            Some((text, c)) => match c.eval(scope) {
                Err(e) => format!("{what}; stopped because its condition `{text}` failed: {e}"),
                Ok(_) => what,
            },
            None => what,
        }
    }

    /// The breakpoints (by position in `list`) that hit in `cycle`, which machine `gpu` has
    /// just stepped into with `events`, and what each hit on (its first matching event). In a
    /// lockstep session `mate` is the second machine at the same cycle. Pure but for `watched`,
    /// which holds the watched values before the step and is brought up to date.
    pub fn found(
        &self,
        cycle: u64,
        events: &[(u64, Event)],
        gpu: &Gpu,
        watched: &mut Watched,
        mate: Option<&Mate>,
    ) -> Vec<(usize, Found)> {
        let mut out = Vec::new();
        for (i, b) in self.list.iter().enumerate() {
            if !b.armed_at(cycle) {
                continue;
            }
            let found = match &b.trigger {
                Trigger::Event { filters, .. } if b.pairs_loads() => {
                    mate.into_iter().flat_map(|m| m.pairs).find_map(|(e, d)| {
                        let scope = EventScope { event: Some(e), gpu, delta: Some(*d) };
                        (filters.iter().all(|f| f.passes(e)) && condition_holds(b, &scope))
                            .then(|| Found::Paired(e.clone(), *d))
                    })
                }
                Trigger::Event { .. } => events
                    .iter()
                    .find(|(_, e)| Self::matches(b, e, gpu))
                    .map(|(_, e)| Found::Event(e.clone())),
                Trigger::Diverge(u) => mate.and_then(|m| {
                    let parted = u.differs((gpu, events), (m.gpu, m.events));
                    let before = watched.set(b.id, Val::Int(i64::from(parted.is_none())));
                    let hits = before == Some(Val::Int(1)) && condition_holds(b, &EventScope::new(None, gpu));
                    parted.filter(|_| hits).map(Found::Diverge)
                }),
                Trigger::Cycle(c) => {
                    (*c == cycle && condition_holds(b, &EventScope::new(None, gpu))).then_some(Found::Cycle)
                }
                Trigger::Watch { expr, .. } => {
                    let now = value(expr, gpu);
                    watched.set(b.id, now.clone()).filter(|old| *old != now).map(|old| Found::Watch(old, now))
                }
            };
            out.extend(found.map(|f| (i, f)));
        }
        out
    }

    /// Counts the hits `found` in `cycle` (on machine `gpu` at that cycle): each is recorded if
    /// it is after its breakpoint's `since`. Returns those that stop the machine, in number
    /// order. Every enabled breakpoint was checked in `cycle`.
    pub fn count(&mut self, cycle: u64, found: Vec<(usize, Found)>, gpu: &Gpu) -> Vec<Hit> {
        let mut stops = Vec::new();
        for (i, f) in found {
            let b = &self.list[i];
            let counted = cycle > b.since;
            let stops_here = !counted || !b.ignored(b.hits.len());
            let (what, event) = match f {
                Found::Event(e) => (
                    stops_here.then(|| Self::describe(b, e.describe(), &EventScope::new(Some(&e), gpu))),
                    Some(e),
                ),
                Found::Paired(e, d) => {
                    let what = format!("{}; B's latency {d:+} cycles against A's", e.describe());
                    let scope = EventScope { event: Some(&e), gpu, delta: Some(d) };
                    (stops_here.then(|| Self::describe(b, what, &scope)), Some(e))
                }
                Found::Diverge(what) => {
                    (stops_here.then(|| Self::describe(b, what, &EventScope::new(None, gpu))), None)
                }
                Found::Cycle => (
                    stops_here.then(|| {
                        Self::describe(
                            b,
                            format!("reached cycle {}", group(cycle)),
                            &EventScope::new(None, gpu),
                        )
                    }),
                    None,
                ),
                Found::Watch(old, now) => {
                    let Trigger::Watch { text, .. } = &b.trigger else { unreachable!("a watchpoint") };
                    (Some(format!("{text}: {old} → {now}")), None)
                }
            };
            if let Some(what) = what.filter(|_| stops_here) {
                stops.push(Hit { label: b.label(), id: b.id, cycle, what, event: event.clone() });
            }
            if counted {
                let focus = if stops_here { Focus::of_event(event.as_ref(), gpu) } else { Focus::default() };
                self.list[i].hits.push(Record { cycle, event, focus });
            }
        }
        for b in self.list.iter_mut().filter(|b| b.enabled) {
            b.known = cycle;
        }
        stops
    }

    /// The machine moved back to cycle `t`: takes back every hit after `t`.
    pub fn rewind(&mut self, t: u64) {
        for b in &mut self.list {
            let keep = b.upto(t);
            b.hits.truncate(keep);
            b.known = b.known.min(t);
        }
    }

    /// Whether breakpoint `i`'s hit in cycle `c` (at or before the machine's) stops the machine.
    pub fn stops(&self, i: usize, c: u64) -> bool {
        self.list[i].stops_at(c)
    }

    /// What the latest stop at or before the machine's cycle is about: of its counted hits that
    /// are not ignored, the latest that is about something (the first listed, in a cycle with
    /// several).
    pub fn latest_focus(&self) -> Focus {
        let mut best: Option<(u64, Focus)> = None;
        for b in &self.list {
            let mut stops = b.hits.iter().enumerate().rev().filter(|(i, _)| !b.ignored(*i));
            if let Some((_, r)) = stops.find(|(_, r)| r.focus != Focus::default())
                && best.is_none_or(|(c, _)| r.cycle > c)
            {
                best = Some((r.cycle, r.focus));
            }
        }
        best.map(|(_, f)| f).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_event_specs_with_filters_and_conditions() {
        let (t, c) = parse_trigger("occlusion core=3 warp=17 if needed > 20").unwrap();
        assert_eq!(
            t,
            Trigger::Event {
                kind: EventKind::MemoryOcclusion,
                filters: vec![
                    Filter { field: "core", op: Op::Eq, value: Val::Int(3) },
                    Filter { field: "warp", op: Op::Eq, value: Val::Int(17) }
                ]
            }
        );
        assert_eq!(c.unwrap().0, "needed > 20");
        let (t, _) = parse_trigger("load-done warp=2.5").unwrap();
        let Trigger::Event { filters, .. } = t else { panic!() };
        assert_eq!(filters.len(), 2);
        assert_eq!(parse_trigger("cycle 0x10").unwrap().0, Trigger::Cycle(16));
        let (t, _) = parse_trigger("warp-stall reason=data-mem").unwrap();
        let Trigger::Event { filters, .. } = t else { panic!() };
        assert_eq!(filters[0].value, Val::Str("data-mem".into()));
    }

    #[test]
    fn filters_compare_numbers_and_check_names() {
        let (t, _) = parse_trigger("delayed stage=dram cycles>200 warp=1.2").unwrap();
        let Trigger::Event { filters, .. } = t else { panic!() };
        let ops: Vec<(&str, Op)> = filters.iter().map(|f| (f.field, f.op)).collect();
        assert_eq!(ops, [("stage", Op::Eq), ("cycles", Op::Gt), ("core", Op::Eq), ("warp", Op::Eq)]);
        let delayed = |cycles, stage| Event::Delayed {
            core: 1,
            warp: 2,
            load_seq: 7,
            stage,
            unit: 0,
            cycles,
            cause: "other-warps",
        };
        let pass = |e: &Event| filters.iter().all(|f| f.passes(e));
        assert!(pass(&delayed(201, "dram")));
        assert!(!pass(&delayed(200, "dram")), "200 is not more than 200");
        assert!(!pass(&delayed(500, "l2-queue")));
        for (spec, ok) in [
            ("cycles>=200", [false, true, true]),
            ("cycles<=200", [true, true, false]),
            ("cycles<200", [true, false, false]),
            ("cycles!=200", [true, false, true]),
        ] {
            let (Trigger::Event { filters, .. }, _) = parse_trigger(&format!("delayed {spec}")).unwrap()
            else {
                panic!()
            };
            let got = [199, 200, 201].map(|c| filters[0].passes(&delayed(c, "dram")));
            assert_eq!(got, ok, "{spec}");
        }
        let e = parse_trigger("delayed stage=drm").unwrap_err();
        assert!(e.starts_with("stage=drm: valid: ldst, l1-latency, l1-hit,") && e.contains("dram"), "{e}");
        let e = parse_trigger("delayed cause=others").unwrap_err();
        assert!(e.contains("other-warps") && e.contains("row-conflict"), "{e}");
        assert_eq!(
            parse_trigger("delayed stage>dram").unwrap_err(),
            "stage>dram: a name is compared with = or != only"
        );
        assert_eq!(parse_trigger("delayed cycles>lots").unwrap_err(), "cycles>lots: expected a number");
    }

    /// A `break cycle 1` set at cycle 0 whose counted hits are at `cycles`, with `ignore`.
    fn with_hits(cycles: &[u64], ignore: (u64, u64), temporary: bool) -> Breakpoint {
        let mut set = Breakpoints::default();
        set.add(Trigger::Cycle(1), None, temporary, 0);
        let mut b = set.list.remove(0);
        b.hits = cycles.iter().map(|&cycle| Record { cycle, event: None, focus: Focus::default() }).collect();
        b.ignore = ignore;
        b
    }

    /// Ignores left, ignored hits, stops and used-up `tbreak`s follow from the counted hits
    /// (issue 38 item 1), here at cycles 10, 20, 30 and 40, counted by hand.
    #[test]
    fn ignores_and_tbreaks_follow_from_the_counted_hits() {
        let hits = [10, 20, 30, 40];
        // `ignore N 2` given at cycle 15: the hits at 20 and 30 are ignored.
        let b = with_hits(&hits, (15, 2), true);
        assert_eq!((0..4).map(|i| b.ignored(i)).collect::<Vec<_>>(), [false, true, true, false]);
        assert_eq!(b.ignores_left(), 0);
        assert_eq!([10, 20, 30, 40].map(|c| b.stops_at(c)), [true, false, false, true]);
        // As a tbreak it was used up by its hit at 10: it hits there, not after.
        assert!(b.used_up() && b.armed_at(10) && !b.armed_at(11));
        // `ignore N 5` given at 5: all four ignored, one ignore left, the tbreak not used up.
        let b = with_hits(&hits, (5, 5), true);
        assert_eq!(b.ignores_left(), 1);
        assert!(!b.used_up() && b.armed_at(1_000));
        // `ignore N 3` given at 5: used up by the fourth hit, at 40; a fifth would stop.
        let b = with_hits(&hits, (5, 3), true);
        assert!(b.used_up() && b.armed_at(40) && !b.armed_at(41));
        assert!(!b.ignored(4));
        // Going back to 25 takes back the hits at 30 and 40, and the ignore the one at 30 used.
        let mut set = Breakpoints { list: vec![with_hits(&hits, (15, 2), false)], next_id: 1 };
        set.rewind(25);
        assert_eq!(set.list[0].hits.len(), 2);
        assert_eq!(set.list[0].ignores_left(), 1);
        assert_eq!(set.list[0].known, 0, "known no further than it was");
    }

    /// A breakpoint counts the hits after the cycle it was set at; one at or before it stops
    /// the machine all the same, and a disabled breakpoint enabled again after the machine
    /// moved counts anew.
    #[test]
    fn hits_count_from_the_cycle_a_breakpoint_was_set_at() {
        let mut set = Breakpoints::default();
        let id = set.add(Trigger::Cycle(1), None, false, 100);
        set.list[0].ignore = (0, 1);
        assert!(set.stops(0, 50) && set.stops(0, 100), "not counted, not ignored: stops");
        set.list[0].hits.push(Record { cycle: 120, event: None, focus: Focus::default() });
        set.list[0].known = 130;
        assert!(!set.stops(0, 120), "the first counted hit uses the ignore");
        set.set_enabled(id, false, 130).unwrap();
        set.set_enabled(id, true, 130).unwrap();
        assert_eq!((set.list[0].since, set.list[0].hits.len()), (100, 1), "the machine did not move");
        set.set_enabled(id, false, 130).unwrap();
        set.set_enabled(id, true, 500).unwrap();
        assert_eq!((set.list[0].since, set.list[0].hits.len()), (500, 0), "it moved while disabled");
        set.set_condition(id, None, 700).unwrap();
        assert_eq!((set.list[0].since, set.list[0].known), (700, 700));
    }

    #[test]
    fn bad_specs_say_what_is_valid() {
        assert!(parse_trigger("occlusoin").unwrap_err().contains("valid: memory-occlusion, mshr-full"));
        assert_eq!(
            parse_trigger("row-miss core=1").unwrap_err(),
            "row-miss has no field `core`; fields: channel, bank, row, conflict"
        );
        assert!(parse_trigger("warp-stall reason=sleepy").unwrap_err().contains("valid: issued"));
        assert!(parse_trigger("occlusion core").unwrap_err().contains("field=value"));
        assert!(parse_trigger("occlusion if needed >").unwrap_err().starts_with("condition:"));
    }
}
