//! One channel's warp sorter and bank table under a warp-aware DRAM scheduler (WG, WG-M,
//! WG-Bw, WG-W, WAFCFS; seed 000 §IV-B, Fig. 6): each warp-group with its requests, whether
//! its tags completed it, its score (max over its requests of row-hit 1 / miss 3 plus the
//! bank's queued score, lowered by WG-M's remote updates) and row hits; per bank the queued
//! score and the row the bank will have open; the write queue against the watermarks (WG-W
//! watches the distance to the high one).

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::config::DramSchedulerName;
use crate::sim::Gpu;
use crate::sim::dram::sched::DramScheduler;
use crate::sim::dram::sched::early::Early;
use crate::sim::stats::metrics::{count, group};

/// The schedulers that keep warp-groups, as the config spells them (`wg, wg-m, …`).
pub fn schedulers() -> String {
    let names: Vec<&str> =
        DramSchedulerName::ALL.iter().filter(|n| n.groups_warps()).map(|n| n.name()).collect();
    names.join(", ")
}

pub fn warpgroups(g: &Gpu, channel: usize) -> Option<View> {
    let mc = &g.dram[channel];
    let sorter = mc.scheduler.warp_sorter()?;
    let cmdq = mc.scheduler.command_queues()?;
    let wq = mc.write_queue();
    let stats = mc.scheduler.stats();
    let mut v = View::new(format!(
        "DRAM channel {channel} — warp-groups ({}, DRAM cycle {})",
        g.config.dram.scheduler,
        group(mc.now)
    ))
    .line(vec![
        plain(format!(
            "write queue {}/{} (drain above {}, down to {}) ",
            wq.writes, wq.capacity, wq.high_watermark, wq.low_watermark
        )),
        if wq.draining { span("DRAINING WRITES", Tone::Warn) } else { plain("serving reads") },
    ])
    .text(format!(
        "scheduled {} ({} timed out, {} forced idle); WG-M msgs sent {} recv {} applied {}; WG-W singles first {}",
        count(stats.groups_scheduled, "group"),
        group(stats.groups_timed_out),
        group(stats.groups_forced),
        group(stats.coord_sent),
        group(stats.coord_received),
        group(stats.coord_applied),
        group(stats.single_request_first)
    ));
    if let Some(net) = &g.coord {
        v = v.text(format!(
            "coordination network: {} in flight, latency {} cycles",
            net.in_flight(),
            net.latency
        ));
    }

    let mut groups = Table {
        header: ["warp", "load", "reqs", "tags", "score", "hits", "wait", "elig"].map(String::from).to_vec(),
        right: vec![1, 2, 4, 5, 6],
        ..Table::default()
    };
    for (i, wg) in sorter.active() {
        let complete = if wg.is_complete() {
            match wg.early {
                Early::No => span("complete", Tone::Good),
                e => span(e.name(), Tone::Warn),
            }
        } else if wg.slices == 0 {
            span("tag, no requests yet", Tone::Dim)
        } else {
            span(format!("{} of {} slices", wg.tagged.count_ones(), wg.slices.count_ones()), Tone::Dim)
        };
        let score = if wg.remote_credit > 0 {
            format!("{} (−{} remote)", wg.score(), wg.remote_credit)
        } else {
            wg.score().to_string()
        };
        let eligible = sorter.eligible.get(i).copied().unwrap_or(false);
        groups.rows.push(vec![
            plain(format!("{}.{}", wg.key.core, wg.key.warp)),
            plain(wg.key.load_seq.to_string()),
            plain(wg.slots.len().to_string()),
            complete,
            plain(score),
            plain(wg.row_hits.to_string()),
            plain(mc.now.saturating_sub(wg.first_arrival).to_string()),
            if eligible { span("yes", Tone::Good) } else { span("no", Tone::Dim) },
        ]);
        groups.keys.push(RowKey::Warp { core: wg.key.core, warp: wg.key.warp });
    }
    let order = match g.config.dram.scheduler {
        DramSchedulerName::Wafcfs => "complete groups go in completion order",
        DramSchedulerName::WgW => {
            "lowest score goes first, ties to more row hits; near the write high watermark single-request groups first"
        }
        _ => "lowest score goes first, ties to more row hits",
    };
    v = v.text(format!(
        "warp sorter, oldest first ({order}); hits: row hits; wait: DRAM cycles since its first request; elig: at the last pick"
    ));
    v = if groups.rows.is_empty() {
        v.line(vec![span("no warp-groups waiting", Tone::Dim)])
    } else {
        v.block(Block::Table(groups))
    };

    let mut banks = Table {
        header: ["bank", "sched row", "cmd q", "score", "sorter rd", "wr"].map(String::from).to_vec(),
        right: vec![0, 1, 2, 3, 4, 5],
        ..Table::default()
    };
    for b in 0..mc.device.banks.len() {
        banks.rows.push(vec![
            plain(b.to_string()),
            cmdq.scheduled_row(b, &mc.device).map_or(span("-", Tone::Dim), |r| plain(r.to_string())),
            plain(format!("{}/{}", cmdq.banks[b].len(), cmdq.depth)),
            plain(cmdq.queued_score[b].to_string()),
            plain(cmdq.unplaced[0][b].to_string()),
            plain(cmdq.unplaced[1][b].to_string()),
        ]);
        banks.keys.push(RowKey::Bank { channel: channel as u16, bank: b as u8 });
    }
    Some(
        v.text("bank table (sched row: open once its command queue drains; score: queued score):")
            .block(Block::Table(banks)),
    )
}
