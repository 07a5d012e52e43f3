//! One channel's banks: open row, queued reads/writes, the next command of the oldest request
//! and how many DRAM cycles until its timing allows it, column accesses since ACT; with the
//! controller's read/write queues against the write-drain watermarks. Under a scheduler with
//! per-bank command queues (GMC and the warp-aware ones, seed 000 Fig. 1), each bank's queue:
//! the requests the transaction scheduler has placed there, in issue order; under GPGPU-Sim's
//! FR-FCFS (`gpgpusim-frfcfs`), the request each bank holds (`bank_t::mrq`).

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::dram::sched::DramScheduler;
use crate::sim::request::{AccessKind, MemRequest};
use crate::sim::stats::metrics::{count, group};

/// Who a DRAM request is for: a warp (`core.warp`), or `wb` for an L2 write-back.
fn requester(r: &MemRequest) -> String {
    match r.kind {
        AccessKind::Writeback => "wb".into(),
        _ => format!("{}.{}", r.origin.core, r.origin.warp),
    }
}

/// Channel `channel`'s banks, with bank `detail`'s queue listed and requests to row `mark`
/// marked there (the row of the request a stop is about).
pub fn banks(g: &Gpu, channel: usize, detail: Option<u8>, mark: Option<u32>) -> View {
    let mc = &g.dram[channel];
    let q = &mc.queues;
    let mode = if mc.draining { span("DRAINING WRITES", Tone::Warn) } else { plain("serving reads") };
    let mut v =
        View::new(format!("DRAM channel {channel} — banks (DRAM cycle {})", group(mc.now))).line(vec![
            plain(format!(
                "reads {}/{}  writes {}/{} (drain >{}, to {})  ",
                q.n_reads, q.read_capacity, q.n_writes, q.write_capacity, mc.high_watermark, mc.low_watermark
            )),
            mode,
        ]);
    if let Some((taken, total)) = mc.credits() {
        // GPGPU-Sim's arbitration credits (`dram.return_queue`): what the L2 slices may still send.
        v = v.line(vec![plain(format!(
            "credits: {taken}/{total} held by the L2 slices (requests sent and not answered), {} in the latency queue",
            mc.frontend().count()
        ))]);
    }
    v = v
        .line(vec![span(
            "needs: the command the oldest request needs next (not the scheduler's pick); in: DRAM cycles until timing allows it; CAS: since ACT",
            Tone::Dim,
        )]);
    let mut t = Table {
        header: ["bank", "grp", "open row", "rd", "wr", "needs", "in", "CAS", "oldest (warp|wb row)"]
            .map(String::from)
            .to_vec(),
        right: vec![0, 1, 2, 3, 4, 6, 7],
        ..Table::default()
    };
    let cmdq = mc.scheduler.command_queues();
    if cmdq.is_some() {
        t.header.push("cmd queue (row warp|wb)".into());
    }
    let held = mc.scheduler.held();
    if held.is_some() {
        t.header.push("holds (warp|wb row)".into());
    }
    for (b, bank) in mc.device.banks.iter().enumerate() {
        let lists = q.lists(mc.draining);
        let oldest = lists[b].first().or_else(|| q.lists(!mc.draining)[b].first());
        let (next, ready) = match oldest {
            Some(l) => {
                let cmd = q.next_command(l.slot, bank.open_row);
                let wait = mc.device.earliest(cmd.kind, b).saturating_sub(mc.now);
                let tone = if wait == 0 { Tone::Good } else { Tone::Normal };
                (
                    span(cmd.kind.name(), tone),
                    span(if wait == 0 { "now".into() } else { wait.to_string() }, tone),
                )
            }
            None => (span("-", Tone::Dim), span("-", Tone::Dim)),
        };
        let oldest_text = oldest.map_or("-".to_string(), |l| {
            let p = q.get(l.slot);
            format!("{} {}", requester(&p.req), p.row)
        });
        let idle = q.reads[b].is_empty() && q.writes[b].is_empty();
        t.rows.push(vec![
            plain(b.to_string()),
            plain(mc.device.group(b).to_string()),
            bank.open_row.map_or(span("-", Tone::Dim), |r| plain(r.to_string())),
            span(q.reads[b].len().to_string(), if idle { Tone::Dim } else { Tone::Normal }),
            span(q.writes[b].len().to_string(), if idle { Tone::Dim } else { Tone::Normal }),
            next,
            ready,
            plain(bank.cas_since_act.to_string()),
            span(oldest_text, if idle { Tone::Dim } else { Tone::Normal }),
        ]);
        if let Some(cq) = cmdq {
            let queued: Vec<String> =
                cq.banks[b].iter().map(|e| format!("{} {}", e.row, requester(&q.get(e.slot).req))).collect();
            let cell = if queued.is_empty() { span("-", Tone::Dim) } else { plain(queued.join(", ")) };
            t.rows.last_mut().expect("pushed above").push(cell);
        }
        if let Some(held) = held {
            let cell = held[b].map_or(span("-", Tone::Dim), |slot| {
                let p = q.get(slot);
                plain(format!("{} {}", requester(&p.req), p.row))
            });
            t.rows.last_mut().expect("pushed above").push(cell);
        }
        t.keys.push(RowKey::Bank { channel: channel as u16, bank: b as u8 });
    }
    v = v.block(Block::Table(t));
    if let Some(b) = detail {
        let mut d = Table {
            header: ["#", "kind", "warp", "pc", "row", "col", "age", "state"].map(String::from).to_vec(),
            right: vec![0, 4, 5, 6],
            ..Table::default()
        };
        let open = mc.device.banks[b as usize].open_row;
        for (i, l) in q.reads[b as usize].iter().chain(&q.writes[b as usize]).enumerate() {
            let p = q.get(l.slot);
            let hit = open == Some(p.row);
            d.rows.push(vec![
                plain(i.to_string()),
                plain(if p.is_write { "write" } else { "read" }),
                plain(requester(&p.req)),
                plain(format!("{:#06x}", p.req.origin.pc)),
                span(
                    if mark == Some(p.row) { format!("▶{}", p.row) } else { p.row.to_string() },
                    if mark == Some(p.row) {
                        Tone::Accent
                    } else if hit {
                        Tone::Good
                    } else {
                        Tone::Normal
                    },
                ),
                plain(p.col.to_string()),
                plain((mc.now - p.arrival).to_string()),
                plain(match (p.started, hit) {
                    (true, _) => "being served",
                    (false, true) => "row hit",
                    (false, false) => "row miss",
                }),
            ]);
        }
        let marked = mark.map_or(String::new(), |r| format!("; ▶ row {r}, the stop's request"));
        v = v
            .text(format!("bank {b} queue ({}{marked}):", count(d.rows.len() as u64, "request")))
            .block(Block::Table(d));
    }
    v
}
