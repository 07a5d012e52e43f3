//! An SM's warps: CTA, GTO priority, why each cannot issue (evaluated live), its next
//! instruction, outstanding loads, and the divergence of its last finished load.

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::core::StallReason;
use crate::sim::core::sched::{WarpScheduler, WarpSchedulerKind};
use crate::sim::core::sm::Sm;
use crate::sim::core::warp::Warp;
use crate::workload::instr::{Op, Space};

/// OAWS view of warp `w`: its next instruction's predicted misses (0 = not a known divergent
/// load) and whether it passes Eq. 5.1 now. `None` without OAWS.
pub fn oaws_prediction(sm: &Sm, w: usize) -> Option<(u16, bool)> {
    let o = sm.learner.oaws()?;
    let pred = o.miss_pred[w];
    Some((pred, u32::from(pred) <= o.allowance(sm.l1.mshr.free() as u32)))
}

/// Whether warp `w` is a locality warp: SM-wide GTO priority below FCW (OAWS, FCW-only) or
/// allowed to issue loads by its lost-locality score (CCWS). `None` for other policies.
pub fn is_locality_warp(sm: &Sm, w: usize) -> Option<bool> {
    if sm.learner.oaws().is_some() {
        return Some(sm.l1.fcw.is_locality_warp(sm.issue.global_priority[w].into()));
    }
    match &sm.issue.schedulers[sm.scheduler_of(w)] {
        WarpSchedulerKind::Ccws(c) => Some(c.allowed & (1 << w) != 0),
        _ => None,
    }
}

/// Miss_inflight (OAWS), or `None` without OAWS.
pub fn miss_inflight(sm: &Sm) -> Option<u32> {
    sm.learner.oaws().map(|o| o.miss_inflight)
}

/// Eq. 5.1's right-hand side, Avail_mshr − Miss_inflight (OAWS), or `None` without OAWS.
pub fn oaws_allowance(sm: &Sm) -> Option<u32> {
    sm.learner.oaws().map(|o| o.allowance(sm.l1.mshr.free() as u32))
}

/// A short name for an instruction's operation.
pub fn op_name(op: Op) -> String {
    let space = |s: Space| match s {
        Space::Global => "G",
        Space::Local => "L",
        Space::Atomic => "A",
        Space::Shared => "S",
    };
    match op {
        Op::Alu => "ALU".into(),
        Op::Load { space: Space::Atomic, width } => format!("ATOM.{}", width * 8),
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
    let mut order: Vec<usize> = (0..sm.exec.warps.len()).filter(|&w| sm.exec.valid & (1 << w) != 0).collect();
    order.sort_by_key(|&w| sm.exec.ages[w]);
    // Policy columns appear only when the configured warp scheduler has that state.
    let grouped = order.iter().any(|&w| sm.group_of(w).is_some());
    let oaws = oaws_allowance(sm).is_some();
    let locality = order.iter().any(|&w| is_locality_warp(sm, w).is_some());
    let ccws = sm.learner.lost_locality();
    let policy_columns =
        [(grouped, "group"), (locality, "class"), (oaws, "miss pred"), (ccws.is_some(), "lls")];
    let header = ["warp", "cta", "prio"]
        .into_iter()
        .chain(policy_columns.iter().filter(|(shown, _)| *shown).map(|(_, name)| *name))
        .chain(["state", "next", "op", "lds", "instrs", "last load"]);
    let mut t = Table {
        header: header.into_iter().map(String::from).collect(),
        // warp, cta, prio, and lds, instrs after the policy columns and state, next, op.
        right: {
            let lds = 3 + policy_columns.iter().filter(|(shown, _)| *shown).count() + 3;
            vec![0, 1, 2, lds, lds + 1]
        },
        ..Table::default()
    };
    for &w in &order {
        let warp = &sm.exec.warps[w];
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
        // MASCAR: in memory-pressure mode only the owner warp may issue memory instructions.
        let owner = sm.issue.schedulers[sm.scheduler_of(w)].status();
        let (state, tone) = if owner.saturated == Some(true) && owner.owner == Some(w as u16) {
            (format!("{state} OWNER"), Tone::Accent)
        } else {
            (state, tone)
        };
        let last = &warp.last_load;
        let last_text = if last.requests > 0 {
            format!("{}r/{}cy", last.requests, last.last - last.first)
        } else {
            "-".into()
        };
        let mut row =
            vec![plain(w.to_string()), plain(warp.cta.to_string()), plain(sm.issue.priority[w].to_string())];
        if grouped {
            row.push(plain(sm.group_of(w).map_or("-".into(), |g| g.to_string())));
        }
        if locality {
            row.push(match is_locality_warp(sm, w) {
                Some(true) => span("locality", Tone::Good),
                Some(false) => span("thrashing", Tone::Normal),
                None => plain("-"),
            });
        }
        if oaws {
            row.push(match oaws_prediction(sm, w) {
                Some((0, _)) | None => span("-", Tone::Dim),
                Some((pred, true)) => span(format!("{pred} ✓ fits"), Tone::Good),
                Some((pred, false)) => span(format!("{pred} ✗ held"), Tone::Bad),
            });
        }
        if let Some(c) = ccws {
            row.push(plain(c.score(w, g.cycle).to_string()));
        }
        row.extend([
            span(state, tone),
            plain(format!("{:#06x}", warp.next.pc)),
            plain(if warp.exited { "-".into() } else { warp_op_name(warp) }),
            plain(warp.loads_out.to_string()),
            plain(warp.instructions.to_string()),
            plain(last_text),
        ]);
        t.rows.push(row);
        t.keys.push(RowKey::Warp { core: core as u16, warp: w as u16 });
    }
    let mut v = View::new(format!("SM {core} — warps ({} resident, {})", order.len(), g.config.core.warp_scheduler))
        .text("state: why it cannot issue now; REPLAY: its load is replaying in the LD/ST unit; last load: requests/first–last gap");
    for line in policy_lines(g, core) {
        v = v.text(line);
    }
    if t.rows.is_empty() {
        v.line(vec![span("no warps resident", Tone::Dim)])
    } else {
        v.block(Block::Table(t))
    }
}

/// One line per piece of SM-wide scheduler state: OAWS's Eq. 5.1 budget (seed 004 §5.2),
/// the group each two-level/OWL scheduler issues from (seed 003 §4), MASCAR's mode, CCWS's
/// throttle.
fn policy_lines(g: &Gpu, core: usize) -> Vec<String> {
    let sm = &g.sms[core];
    let mut lines = Vec::new();
    if let (Some(inflight), Some(allowance)) = (miss_inflight(sm), oaws_allowance(sm)) {
        lines.push(format!(
            "OAWS: Avail_mshr {} − Miss_inflight {inflight} = {allowance}; a load issues when its Miss_pred ≤ {allowance}; FCW {}",
            sm.l1.mshr.free(),
            sm.l1.fcw.fcw
        ));
    }
    for (s, sched) in sm.issue.schedulers.iter().enumerate() {
        let st = sched.status();
        let mut parts = Vec::new();
        if let Some(group) = st.group {
            parts.push(format!("issuing from group {group} ({} switches)", st.group_switches));
        }
        if let Some(saturated) = st.saturated {
            parts.push(if saturated {
                format!(
                    "memory saturated: owner warp {} ({} slots saturated)",
                    st.owner.map_or("-".into(), |o| o.to_string()),
                    st.saturated_slots
                )
            } else {
                format!("compute mode ({} slots saturated so far)", st.saturated_slots)
            });
        }
        if !parts.is_empty() {
            lines.push(format!("scheduler {s}: {}", parts.join(", ")));
        }
    }
    if let Some(c) = sm.learner.lost_locality() {
        lines.push(format!(
            "CCWS: lls = lost-locality score (base {}, K_throttle {}); {} victim-tag hits",
            c.base_score, c.k_throttle, c.vta_hits
        ));
    }
    lines
}
