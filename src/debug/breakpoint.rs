//! Breakpoints and watchpoints (gdb conventions): `break EVENT [field=value]... [if EXPR]`,
//! `tbreak`, `break cycle N`, `watch EXPR`, with conditions, ignore counts, enable/disable.
//!
//! An event breakpoint matches an event of its kind whose fields equal its filters and whose
//! condition holds (the condition sees the event's fields and machine state). A watchpoint
//! triggers when its expression's value changes.
//!
//! Breakpoints are a function of the machine, not of the session's history (issue 18): a
//! breakpoint hits at most once per cycle, in every cycle the machine moves forward through
//! (`continue`, `step`, `until`, and also `run` and `goto`, which count hits without
//! stopping). Each hit is recorded with its cycle; moving back to cycle t takes back the hits
//! after t — hit counts drop, ignore counts used after t are given back, a temporary breakpoint
//! used up after t is armed again, watchpoints re-read their values at t. So from any cycle,
//! `continue` stops exactly where a fresh session replayed to that cycle would.

use super::blame::{Cause, Stage};
use super::expr::{Expr, Lookup, Op, Seg, Val, apply};
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
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    pub id: u32,
    pub trigger: Trigger,
    /// Condition text and parsed form.
    pub condition: Option<(String, Expr)>,
    /// Hits still to ignore at the current cycle: `ignore N COUNT` ignores the next COUNT
    /// hits; moving back gives back the ones used after the cycle moved to.
    pub ignore: u64,
    pub enabled: bool,
    /// Used up by its first hit that is not ignored (`tbreak`); armed again by moving back
    /// before that hit.
    pub temporary: bool,
    /// Hits at cycles in the machine's past (ignored ones included).
    pub hits: u64,
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
        };
        if let Some((c, _)) = &self.condition {
            s.push_str(&format!(" if {c}"));
        }
        s
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

/// Refuses filters no event of this machine can have (`channel=99` on 6 channels), naming
/// the valid range.
pub fn check_filters(trigger: &Trigger, gpu: &Gpu) -> Result<(), String> {
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

/// Looks names up in an event's fields first, then in machine state.
pub struct EventScope<'a> {
    pub event: Option<&'a Event>,
    pub gpu: &'a Gpu,
}

impl Lookup for EventScope<'_> {
    fn lookup(&self, path: &[Seg]) -> Result<Val, String> {
        if let ([seg], Some(e)) = (path, self.event)
            && seg.index.is_none()
            && let Some(v) = e.field(&seg.name)
        {
            return Ok(field_val(v));
        }
        state::lookup(self.gpu, path)
    }
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

/// One hit in the machine's past, kept so that moving back can take it back.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Record {
    cycle: u64,
    id: u32,
    /// It used one of the breakpoint's ignore counts.
    ignored: bool,
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

/// The breakpoint table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakpoints {
    pub list: Vec<Breakpoint>,
    next_id: u32,
    /// Last value of each watchpoint (by id).
    watch_values: Vec<(u32, Val)>,
    /// Hits at cycles in the machine's past, oldest first.
    past: Vec<Record>,
    /// Temporary breakpoints used up, with the cycle of the hit that used them.
    spent: Vec<(u64, Breakpoint)>,
    /// Breakpoints hit in the cycle being checked, and whether the hit was ignored.
    this_cycle: Vec<(u32, bool)>,
}

impl Breakpoints {
    pub fn add(&mut self, trigger: Trigger, condition: Option<(String, Expr)>, temporary: bool) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        self.list.push(Breakpoint { id, trigger, condition, ignore: 0, enabled: true, temporary, hits: 0 });
        id
    }

    pub fn get_mut(&mut self, id: u32) -> Result<&mut Breakpoint, String> {
        self.list.iter_mut().find(|b| b.id == id).ok_or_else(|| format!("no breakpoint number {id}"))
    }

    pub fn delete(&mut self, id: u32) -> Result<(), String> {
        let before = self.list.len() + self.spent.len();
        self.list.retain(|b| b.id != id);
        self.spent.retain(|(_, b)| b.id != id);
        self.watch_values.retain(|(w, _)| *w != id);
        self.past.retain(|r| r.id != id);
        if self.list.len() + self.spent.len() == before {
            Err(format!("no breakpoint number {id}"))
        } else {
            Ok(())
        }
    }

    /// Deletes every breakpoint (used-up temporary ones too); returns how many were listed.
    pub fn clear(&mut self) -> usize {
        let n = self.list.len();
        self.list.clear();
        self.spent.clear();
        self.watch_values.clear();
        self.past.clear();
        n
    }

    /// `ignore N COUNT`: the next COUNT hits of N are ignored. Hits before now no longer give
    /// ignores back when moving back: the count starts here.
    pub fn set_ignore(&mut self, id: u32, count: u64) -> Result<(), String> {
        self.get_mut(id)?.ignore = count;
        self.past.iter_mut().filter(|r| r.id == id).for_each(|r| r.ignored = false);
        Ok(())
    }

    /// Event kinds the machine must report for the enabled breakpoints.
    pub fn event_mask(&self) -> u64 {
        self.list
            .iter()
            .filter(|b| b.enabled)
            .filter_map(|b| match &b.trigger {
                Trigger::Event { kind, .. } => Some(kind.bit()),
                _ => None,
            })
            .fold(0, |m, b| m | b)
    }

    /// Hits at cycles in the machine's past, newest first: (cycle, breakpoint, ignored).
    pub fn past_hits(&self) -> impl Iterator<Item = (u64, u32, bool)> + '_ {
        self.past.iter().rev().map(|r| (r.cycle, r.id, r.ignored))
    }

    /// Whether an enabled breakpoint waits for events of `kind`.
    pub fn listens(&self, kind: EventKind) -> bool {
        self.event_mask() & kind.bit() != 0
    }

    /// Whether a `delayed` event of a load of warp `core.warp` whose latency was `latency`
    /// could match an enabled breakpoint: no stage waits longer than the load's latency, so a
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

    pub fn has_watches(&self) -> bool {
        self.list.iter().any(|b| b.enabled && matches!(b.trigger, Trigger::Watch { .. }))
    }

    /// The first cycle after `now` at which an enabled `break cycle` fires.
    pub fn next_cycle_trigger(&self, now: u64) -> Option<u64> {
        let cycles = self.list.iter().filter(|b| b.enabled).filter_map(|b| match b.trigger {
            Trigger::Cycle(c) if c > now => Some(c),
            _ => None,
        });
        cycles.min()
    }

    /// Whether any breakpoint is enabled (so moving forward must count hits).
    pub fn any_enabled(&self) -> bool {
        self.list.iter().any(|b| b.enabled)
    }

    /// Whether breakpoint `b` matches `event` (pure: no counters change).
    pub fn matches(b: &Breakpoint, event: &Event, gpu: &Gpu) -> bool {
        let Trigger::Event { kind, filters } = &b.trigger else { return false };
        if !b.enabled || event.kind() != *kind {
            return false;
        }
        if !filters.iter().all(|f| f.passes(event)) {
            return false;
        }
        condition_holds(b, &EventScope { event: Some(event), gpu })
    }

    /// What a hit of `b` says: `what` happened, and the error its condition gave, if any.
    pub fn describe(b: &Breakpoint, what: String, event: Option<&Event>, gpu: &Gpu) -> String {
        match &b.condition {
            Some((text, c)) => match c.eval(&EventScope { event, gpu }) {
                Err(e) => format!("{what}; stopped because its condition `{text}` failed: {e}"),
                Ok(_) => what,
            },
            None => what,
        }
    }

    /// Counts a hit of breakpoint `idx` at `cycle` (at most one per cycle) and honours its
    /// ignore count; returns the stop it asks for, if it is not ignored, saying `what(b)` (built
    /// only for a stop).
    fn hit(&mut self, idx: usize, cycle: u64, what: impl FnOnce(&Breakpoint) -> String) -> Option<Hit> {
        let b = &mut self.list[idx];
        if self.this_cycle.iter().any(|(id, _)| *id == b.id) {
            return None;
        }
        b.hits += 1;
        let ignored = b.ignore > 0;
        b.ignore -= u64::from(ignored);
        self.this_cycle.push((b.id, ignored));
        self.past.push(Record { cycle, id: b.id, ignored });
        (!ignored).then(|| Hit { label: b.label(), id: b.id, cycle, what: what(b), event: None })
    }

    /// Counts the hits `event` (at `cycle`) makes; returns the first that asks for a stop.
    pub fn check_event(&mut self, cycle: u64, event: &Event, gpu: &Gpu) -> Option<Hit> {
        let mut stop = None;
        for i in 0..self.list.len() {
            if Self::matches(&self.list[i], event, gpu)
                && let Some(mut h) =
                    self.hit(i, cycle, |b| Self::describe(b, event.describe(), Some(event), gpu))
                && stop.is_none()
            {
                h.event = Some(event.clone());
                stop = Some(h);
            }
        }
        stop
    }

    /// `break cycle N` breakpoints reached at `cycle`.
    pub fn check_cycle(&mut self, cycle: u64, gpu: &Gpu) -> Option<Hit> {
        let mut stop = None;
        for i in 0..self.list.len() {
            let b = &self.list[i];
            let reached = b.enabled
                && b.trigger == Trigger::Cycle(cycle)
                && condition_holds(b, &EventScope { event: None, gpu });
            if reached
                && let Some(h) = self.hit(i, cycle, |b| {
                    Self::describe(b, format!("reached cycle {}", group(cycle)), None, gpu)
                })
            {
                stop = stop.or(Some(h));
            }
        }
        stop
    }

    /// Watchpoints whose value changed since the last check (every value is brought up to
    /// date, so the next check measures from this cycle).
    pub fn check_watches(&mut self, cycle: u64, gpu: &Gpu) -> Option<Hit> {
        let mut stop = None;
        for i in 0..self.list.len() {
            let b = &self.list[i];
            let Trigger::Watch { text, expr } = &b.trigger else { continue };
            if !b.enabled {
                continue;
            }
            let now = expr.eval(&EventScope { event: None, gpu }).unwrap_or(Val::Str("<error>".into()));
            let id = b.id;
            let text = text.clone();
            let slot = self.watch_values.iter().position(|(w, _)| *w == id);
            let old = match slot {
                Some(s) => Some(std::mem::replace(&mut self.watch_values[s].1, now.clone())),
                None => {
                    self.watch_values.push((id, now.clone()));
                    None
                }
            };
            if let Some(old) = old
                && old != now
                && let Some(h) = self.hit(i, cycle, |_| format!("{text}: {old} → {now}"))
            {
                stop = stop.or(Some(h));
            }
        }
        stop
    }

    /// Ends the checks of a cycle: temporary breakpoints hit without being ignored are used up.
    pub fn end_cycle(&mut self, cycle: u64) {
        for (id, ignored) in std::mem::take(&mut self.this_cycle) {
            if let Some(i) = self.list.iter().position(|b| b.id == id && b.temporary && !ignored) {
                let b = self.list.remove(i);
                self.watch_values.retain(|(w, _)| *w != id);
                self.spent.push((cycle, b));
            }
        }
    }

    /// The machine moved back to cycle `t`: takes back every hit after `t`.
    pub fn rewind(&mut self, t: u64) {
        self.this_cycle.clear();
        let mut i = 0;
        while i < self.spent.len() {
            if self.spent[i].0 > t {
                let (_, b) = self.spent.remove(i);
                let pos = self.list.partition_point(|x| x.id < b.id);
                self.list.insert(pos, b);
            } else {
                i += 1;
            }
        }
        while self.past.last().is_some_and(|r| r.cycle > t) {
            let r = self.past.pop().expect("checked");
            if let Ok(b) = self.get_mut(r.id) {
                b.hits -= 1;
                b.ignore += u64::from(r.ignored);
            }
        }
    }

    /// Re-reads every watchpoint's value (after moving in time), so a change is measured from
    /// the new position.
    pub fn reset_watches(&mut self, gpu: &Gpu) {
        self.watch_values.clear();
        for b in &self.list {
            if let Trigger::Watch { expr, .. } = &b.trigger {
                let v = expr.eval(&EventScope { event: None, gpu }).unwrap_or(Val::Str("<error>".into()));
                self.watch_values.push((b.id, v));
            }
        }
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
