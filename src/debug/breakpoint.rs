//! Breakpoints and watchpoints (gdb conventions): `break EVENT [field=value]... [if EXPR]`,
//! `tbreak`, `break cycle N`, `watch EXPR`, with conditions, ignore counts, enable/disable.
//!
//! An event breakpoint matches an event of its kind whose fields equal its filters and whose
//! condition holds (the condition sees the event's fields and machine state). A watchpoint
//! triggers when its expression's value changes.

use super::expr::{Expr, Lookup, Seg, Val};
use super::state;
use crate::sim::Gpu;
use crate::sim::core::StallReason;
use crate::sim::event::{Event, EventKind, FieldValue};

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

/// A field filter: `core=3`, `reason=data-mem`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    pub field: &'static str,
    pub value: Val,
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
    /// Hits still to ignore.
    pub ignore: u64,
    pub enabled: bool,
    /// Deleted after its first stop (`tbreak`).
    pub temporary: bool,
    pub hits: u64,
    /// The cycle of its last hit: the machine stops between cycles, so a breakpoint hits at
    /// most once per cycle however many matching events the cycle has.
    pub last_hit: Option<u64>,
}

impl Breakpoint {
    /// How the breakpoint reads in `info breakpoints`.
    pub fn what(&self) -> String {
        let mut s = match &self.trigger {
            Trigger::Event { kind, filters } => {
                let mut s = kind.name().to_string();
                for f in filters {
                    s.push_str(&format!(" {}={}", f.field, f.value));
                }
                s
            }
            Trigger::Cycle(c) => format!("cycle {c}"),
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
        let (k, v) =
            w.split_once('=').ok_or_else(|| format!("`{w}`: filters are field=value, e.g. core=3"))?;
        if k == "warp"
            && let Some((c, wp)) = v.split_once('.')
            && kind.fields().contains(&"core")
        {
            filters.push(filter(kind, "core", c)?);
            filters.push(filter(kind, "warp", wp)?);
            continue;
        }
        filters.push(filter(kind, k, v)?);
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

fn filter(kind: EventKind, key: &str, value: &str) -> Result<Filter, String> {
    let Some(&field) = kind.fields().iter().find(|f| **f == key) else {
        return Err(format!("{} has no field `{key}`; fields: {}", kind.name(), kind.fields().join(", ")));
    };
    let value = match field {
        "reason" => {
            let r: StallReason = value.parse()?;
            Val::Str(r.name().into())
        }
        "cmd" => {
            let names = ["ACT", "PRE", "RD", "WR", "REF"];
            let up = value.to_ascii_uppercase();
            if !names.contains(&up.as_str()) {
                return Err(format!("cmd={value}: valid: {}", names.join(", ")));
            }
            Val::Str(up)
        }
        _ => Val::Int(parse_u64(value).ok_or_else(|| format!("{key}={value}: expected a number"))? as i64),
    };
    Ok(Filter { field, value })
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
    pub id: u32,
    pub cycle: u64,
    /// One line: what happened.
    pub what: String,
    /// The event that triggered it (none for cycle breakpoints and watchpoints).
    pub event: Option<Event>,
}

impl Hit {
    pub fn message(&self) -> String {
        format!("Breakpoint {}, cycle {}: {}", self.id, self.cycle, self.what)
    }
}

/// The breakpoint table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakpoints {
    pub list: Vec<Breakpoint>,
    next_id: u32,
    /// Last value of each watchpoint (by id).
    watch_values: Vec<(u32, Val)>,
}

impl Breakpoints {
    pub fn add(&mut self, trigger: Trigger, condition: Option<(String, Expr)>, temporary: bool) -> u32 {
        self.next_id += 1;
        let id = self.next_id;
        self.list.push(Breakpoint {
            id,
            trigger,
            condition,
            ignore: 0,
            enabled: true,
            temporary,
            hits: 0,
            last_hit: None,
        });
        id
    }

    pub fn get_mut(&mut self, id: u32) -> Result<&mut Breakpoint, String> {
        self.list.iter_mut().find(|b| b.id == id).ok_or_else(|| format!("no breakpoint number {id}"))
    }

    pub fn delete(&mut self, id: u32) -> Result<(), String> {
        let before = self.list.len();
        self.list.retain(|b| b.id != id);
        self.watch_values.retain(|(w, _)| *w != id);
        if self.list.len() == before { Err(format!("no breakpoint number {id}")) } else { Ok(()) }
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

    pub fn has_watches(&self) -> bool {
        self.list.iter().any(|b| b.enabled && matches!(b.trigger, Trigger::Watch { .. }))
    }

    /// Whether breakpoint `b` matches `event` (pure: no counters change).
    pub fn matches(b: &Breakpoint, event: &Event, gpu: &Gpu) -> bool {
        let Trigger::Event { kind, filters } = &b.trigger else { return false };
        if !b.enabled || event.kind() != *kind {
            return false;
        }
        if !filters.iter().all(|f| event.field(f.field).map(field_val).as_ref() == Some(&f.value)) {
            return false;
        }
        match &b.condition {
            Some((_, c)) => c.eval(&EventScope { event: Some(event), gpu }).is_ok_and(|v| v.truthy()),
            None => true,
        }
    }

    /// The first enabled breakpoint an event (at `cycle`) triggers, counting hits and
    /// honouring ignore counts; temporary breakpoints are removed when they stop.
    pub fn check_event(&mut self, cycle: u64, event: &Event, gpu: &Gpu) -> Option<Hit> {
        let idx = self.list.iter().position(|b| b.last_hit != Some(cycle) && Self::matches(b, event, gpu))?;
        let mut hit = self.stop_at(idx, cycle, event.describe())?;
        hit.event = Some(event.clone());
        Some(hit)
    }

    /// `break cycle N` breakpoints reached at `cycle`.
    pub fn check_cycle(&mut self, cycle: u64, gpu: &Gpu) -> Option<Hit> {
        let idx = self.list.iter().position(|b| {
            b.enabled
                && b.trigger == Trigger::Cycle(cycle)
                && b.condition
                    .as_ref()
                    .is_none_or(|(_, c)| c.eval(&EventScope { event: None, gpu }).is_ok_and(|v| v.truthy()))
        })?;
        self.stop_at(idx, cycle, format!("reached cycle {cycle}"))
    }

    /// Watchpoints whose value changed since the last check.
    pub fn check_watches(&mut self, cycle: u64, gpu: &Gpu) -> Option<Hit> {
        let mut changed = None;
        for (i, b) in self.list.iter().enumerate() {
            let Trigger::Watch { text, expr } = &b.trigger else { continue };
            if !b.enabled {
                continue;
            }
            let now = expr.eval(&EventScope { event: None, gpu }).unwrap_or(Val::Str("<error>".into()));
            let slot = self.watch_values.iter().position(|(id, _)| *id == b.id);
            let old = slot.map(|s| self.watch_values[s].1.clone());
            match slot {
                Some(s) => self.watch_values[s].1 = now.clone(),
                None => self.watch_values.push((b.id, now.clone())),
            }
            if changed.is_none()
                && let Some(old) = old
                && old != now
            {
                changed = Some((i, format!("{text}: {old} → {now}")));
            }
        }
        let (i, what) = changed?;
        self.stop_at(i, cycle, what)
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

    fn stop_at(&mut self, idx: usize, cycle: u64, what: String) -> Option<Hit> {
        let b = &mut self.list[idx];
        b.hits += 1;
        b.last_hit = Some(cycle);
        if b.ignore > 0 {
            b.ignore -= 1;
            return None;
        }
        let hit = Hit { id: b.id, cycle, what, event: None };
        if b.temporary {
            let id = b.id;
            let _ = self.delete(id);
        }
        Some(hit)
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
                    Filter { field: "core", value: Val::Int(3) },
                    Filter { field: "warp", value: Val::Int(17) }
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
