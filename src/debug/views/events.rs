//! The event log: the most recent events of the logged kinds (`log EVENT on|off`).

use super::super::history::EventLog;
use super::{Block, Table, Tone, View, plain, span};
use crate::sim::event::EventKind;
use crate::sim::stats::metrics::group;

pub fn events(log: &EventLog, max: usize) -> View {
    let mut t = Table {
        header: vec!["cycle".into(), "event".into()],
        right: vec![0],
        flex: Some(1),
        ..Table::default()
    };
    for (cycle, e) in log.entries.iter().rev().take(max) {
        let tone = match e.kind() {
            EventKind::MemoryOcclusion | EventKind::MshrFull => Tone::Bad,
            EventKind::WriteDrainStart | EventKind::RowMiss => Tone::Warn,
            EventKind::KernelEnd => Tone::Accent,
            _ => Tone::Normal,
        };
        t.rows.push(vec![plain(group(*cycle)), span(e.describe(), tone)]);
        t.keys.push(super::RowKey::Cycle(*cycle));
    }
    let mut v = View::new(format!("Events (newest first, {} logged)", group(log.entries.len() as u64)));
    if log.complete_from > 0 {
        v = v.text(format!(
            "events before cycle {} not kept (the log keeps the newest {})",
            group(log.complete_from),
            group(log.capacity as u64)
        ));
    }
    if t.rows.is_empty() { v.text("no events logged yet") } else { v.block(Block::Table(t)) }
}
