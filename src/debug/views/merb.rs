//! One channel's WG-Bw row-hit counters against the Minimum Efficient Row Burst (seed 000
//! §IV-D, Table I): b = banks with pending work picks MERB(b) from the table computed at
//! start-up; a bank whose counter (bursts placed for its scheduled row) is below MERB(b) keeps
//! serving its pending row hits before a higher-priority row miss may switch the row.

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::dram::sched::DramScheduler;
use crate::sim::stats::metrics::group;

pub fn merb(g: &Gpu, channel: usize) -> Option<View> {
    let mc = &g.dram[channel];
    let table = mc.scheduler.merb_table()?;
    let cmdq = mc.scheduler.command_queues()?;
    let lists = mc.queues.lists(mc.draining);
    let busy = mc.queues.busy_banks(mc.draining);
    let threshold = table.get(busy);
    let stats = mc.scheduler.stats();
    let entries: Vec<String> = table
        .values
        .iter()
        .enumerate()
        .map(|(i, m)| if i + 1 == busy.max(1) { format!("[{m}]") } else { m.to_string() })
        .collect();
    let mut t = Table {
        header: ["bank", "sched row", "ctr", "CAS", "hits", "misses", "a row miss"]
            .map(String::from)
            .to_vec(),
        right: vec![0, 1, 2, 3, 4, 5],
        flex: Some(6),
        ..Table::default()
    };
    for (b, list) in lists.iter().enumerate() {
        let row = cmdq.scheduled_row(b, &mc.device);
        let unplaced = list.iter().filter(|l| !cmdq.placed[l.slot as usize]);
        let hits = unplaced.clone().filter(|l| Some(l.row) == row).count();
        let misses = unplaced.count() - hits;
        let counter = cmdq.row_bursts[b];
        let verdict = match (hits, misses) {
            (_, 0) => span("-", Tone::Dim),
            (0, _) => span("may switch (no hits)", Tone::Normal),
            _ if counter < threshold => span(format!("POSTPONED ({counter} < {threshold})"), Tone::Warn),
            _ => span(format!("may switch ({counter} ≥ {threshold})"), Tone::Good),
        };
        t.rows.push(vec![
            plain(b.to_string()),
            row.map_or(span("-", Tone::Dim), |r| plain(r.to_string())),
            plain(counter.to_string()),
            plain(mc.device.banks[b].cas_since_act.to_string()),
            plain(hits.to_string()),
            plain(misses.to_string()),
            verdict,
        ]);
        t.keys.push(RowKey::Bank { channel: channel as u16, bank: b as u8 });
    }
    Some(
        View::new(format!("DRAM channel {channel} — MERB counters (DRAM cycle {})", group(mc.now)))
            .text(format!(
                "b = {busy} banks with pending work → MERB({}) = {threshold} bursts; MERB(1..{}): {}",
                busy.max(1),
                table.values.len(),
                entries.join(" ")
            ))
            .text(format!(
                "row misses postponed {}, hits moved ahead {}, orphans moved {}; ctr: bursts placed for the sched row (5 bits); CAS: since ACT",
                group(stats.merb_postponements),
                group(stats.merb_hits_moved),
                group(stats.orphans_moved)
            ))
            .block(Block::Table(t)),
    )
}
