//! The event log: the most recent events of the logged kinds (`log EVENT on|off`), with the
//! events breakpoints hit on and stopped at whatever their kind, so the log says why the
//! machine stopped. Both are functions of the machine's cycle (issue 38 item 1): the log is
//! restored with the machine when it goes back, and the hits are each breakpoint's counted
//! ones, cut back with it.

use super::super::breakpoint::Breakpoints;
use super::super::history::EventLog;
use super::{Block, Table, Tone, View, plain, span};
use crate::sim::event::{Event, EventKind};
use crate::sim::stats::metrics::group;

/// The newest `max` events of `log` and of `breakpoints`' hits not ignored on events of kinds
/// the log does not keep, newest first, and how many there are in all.
fn newest<'a>(log: &'a EventLog, breakpoints: &'a Breakpoints, max: usize) -> (Vec<(u64, &'a Event)>, usize) {
    let mut all: Vec<(u64, &Event)> = log.entries.iter().rev().take(max).map(|(c, e)| (*c, e)).collect();
    let mut total = log.entries.len();
    for b in breakpoints.list.iter().filter(|b| !b.used_up()) {
        let hits = b
            .hits
            .iter()
            .enumerate()
            .filter(|(i, r)| !b.ignored(*i) && r.event.as_ref().is_some_and(|e| !log.wants(e.kind())));
        let hits: Vec<(u64, &Event)> = hits.filter_map(|(_, r)| Some((r.cycle, r.event.as_ref()?))).collect();
        total += hits.len();
        all.extend(hits.into_iter().rev().take(max));
    }
    // Newest first; in a cycle, the log's events before the breakpoints'.
    all.sort_by_key(|(c, _)| std::cmp::Reverse(*c));
    all.truncate(max);
    (all, total)
}

pub fn events(log: &EventLog, breakpoints: &Breakpoints, max: usize) -> View {
    let mut t = Table {
        header: vec!["cycle".into(), "event".into()],
        right: vec![0],
        flex: Some(1),
        ..Table::default()
    };
    let (rows, total) = newest(log, breakpoints, max);
    for (cycle, e) in rows {
        let tone = match e.kind() {
            EventKind::MemoryOcclusion | EventKind::MshrFull => Tone::Bad,
            EventKind::WriteDrainStart | EventKind::RowMiss => Tone::Warn,
            EventKind::KernelEnd => Tone::Accent,
            _ => Tone::Normal,
        };
        t.rows.push(vec![plain(group(cycle)), span(e.describe(), tone)]);
        t.keys.push(super::RowKey::Cycle(cycle));
    }
    let mut v = View::new(format!("Events (newest first, {} logged)", group(total as u64)));
    if log.complete_from > 0 {
        v = v.text(format!(
            "events before cycle {} not kept (the log keeps the newest {})",
            group(log.complete_from),
            group(log.capacity as u64)
        ));
    }
    if t.rows.is_empty() { v.text("no events logged yet") } else { v.block(Block::Table(t)) }
}
