//! An SM's warps: CTA, GTO priority, why each cannot issue (evaluated live), its next
//! instruction, outstanding loads, and the divergence of its last finished load.

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::core::StallReason;
use crate::sim::core::warp::Warp;
use crate::workload::instr::{Op, Space};

/// A short name for an instruction's operation.
pub fn op_name(op: Op) -> String {
    let space = |s: Space| match s {
        Space::Global => "G",
        Space::Local => "L",
        Space::Shared => "S",
    };
    match op {
        Op::Alu => "ALU".into(),
        Op::Load { space: s, width } => format!("LD{}.{}", space(s), width * 8),
        Op::Store { space: s, width } => format!("ST{}.{}", space(s), width * 8),
        Op::Barrier => "BAR".into(),
        Op::Exit => "EXIT".into(),
    }
}

/// The name of a warp's next instruction: its SASS opcode for trace workloads.
pub fn warp_op_name(warp: &Warp) -> String {
    warp.program.opcode().map_or_else(|| op_name(warp.next.op), str::to_string)
}

pub fn warps(g: &Gpu, core: usize) -> View {
    let sm = &g.sms[core];
    let mut t = Table {
        header: ["warp", "cta", "prio", "state", "next", "op", "lds", "instrs", "last load"]
            .map(String::from)
            .to_vec(),
        right: vec![0, 1, 2, 6, 7],
        ..Table::default()
    };
    let mut order: Vec<usize> = (0..sm.warps.len()).filter(|&w| sm.valid & (1 << w) != 0).collect();
    order.sort_by_key(|&w| sm.ages[w]);
    for &w in &order {
        let warp = &sm.warps[w];
        let reason = sm.stall_reason(w, g.cycle);
        let (state, tone) = match reason {
            StallReason::Issued => ("ready".to_string(), Tone::Good),
            StallReason::WaitMem => ("data-mem".to_string(), Tone::Warn),
            StallReason::MemPipe => ("str-mem".to_string(), Tone::Bad),
            r => (r.name().to_string(), Tone::Normal),
        };
        let replaying =
            sm.ldst.queue.front().is_some_and(|h| h.warp as usize == w) && sm.ldst.stalled.is_some();
        let (state, tone) = if replaying { (format!("{state} REPLAY"), Tone::Bad) } else { (state, tone) };
        let last = &warp.last_load;
        let last_text = if last.requests > 0 {
            format!("{}r/{}cy", last.requests, last.last - last.first)
        } else {
            "-".into()
        };
        t.rows.push(vec![
            plain(w.to_string()),
            plain(warp.cta.to_string()),
            plain(sm.priority[w].to_string()),
            span(state, tone),
            plain(format!("{:#06x}", warp.next.pc)),
            plain(if warp.exited { "-".into() } else { warp_op_name(warp) }),
            plain(warp.loads_out.to_string()),
            plain(warp.instructions.to_string()),
            plain(last_text),
        ]);
        t.keys.push(RowKey::Warp { core: core as u16, warp: w as u16 });
    }
    let v = View::new(format!("SM {core} — warps ({} resident, {})", order.len(), g.config.core.warp_scheduler))
        .text("state: why it cannot issue now; REPLAY: its load is replaying in the LD/ST unit; last load: requests/first–last gap");
    if t.rows.is_empty() {
        v.line(vec![span("no warps resident", Tone::Dim)])
    } else {
        v.block(Block::Table(t))
    }
}
