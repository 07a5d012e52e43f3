//! Who delayed a load (issue 17): the stages of the request the load waited for (its data back
//! last), worst first, each split by cause with the warps whose requests went ahead — they add
//! up to the load's latency (issue 38 item 3); then, apart, each request's own stages, whose
//! request-cycles overlap in time. The history is replayed with recording on to find out
//! (`debug::recording`).

use super::super::blame::{Cause, LoadBlame, Part, StageBlame};
use super::super::recording::warp_load_blame;
use super::super::scene::Scene;
use super::{Block, Table, Tone, View, pct, plain, span};
use crate::sim::stats::metrics::{count, group};

/// The blame of load `seq` of warp `core.warp` (its latest finished load when `None`), from
/// the session's cache when it has it.
pub fn load(s: &Scene, warp: (u16, u16), seq: Option<u32>) -> Result<View, String> {
    match s.blame.get((s.gpu.cycle, warp, seq)) {
        Some(b) => Ok(blame(b.as_ref().map_err(Clone::clone)?)),
        None => Ok(blame(&warp_load_blame(s.gpu, s.travel, warp, seq)?)),
    }
}

/// The warp inspector `v` of `warp` with who delayed the warp's latest finished load under
/// it, when the session has worked that out (replaying history takes a moment, so panes show
/// it once the machine stops; `show blame` works it out on demand).
pub fn under(v: View, s: &Scene, warp: (u16, u16)) -> View {
    match s.blame.get((s.gpu.cycle, warp, None)) {
        Some(Ok(b)) => {
            let what = match b.critical() {
                Some(r) if b.requests.len() > 1 => format!(
                    "Who delayed its last load: request #{}, back last (show blame for every request)",
                    r.who.index
                ),
                _ => "Who delayed its last load (show blame for the details):".into(),
            };
            v.line(vec![span(what, Tone::Accent)]).block(Block::Table(critical_table(b)))
        }
        Some(Err(e)) => v.line(vec![span(format!("Who delayed its last load: {e}"), Tone::Dim)]),
        None => v.line(vec![span(
            format!("Who delayed its last load: show blame {}.{}", warp.0, warp.1),
            Tone::Dim,
        )]),
    }
}

/// What the stage table of `b` shows: the stages of its request back last, which add up to
/// the load's latency.
fn critical_line(b: &LoadBlame) -> String {
    match b.critical() {
        Some(r) if b.requests.len() > 1 => {
            format!("the stages of request #{}, back last, which add up to the latency", r.who.index)
        }
        _ => "the stages of its request, which add up to the latency".into(),
    }
}

/// The stage table of the request `b` waited for.
fn critical_table(b: &LoadBlame) -> Table {
    stage_table(b.critical().map_or(&[][..], |r| &r.stages[..]), b.latency())
}

/// The blame view of `b`: the stages of the request the load waited for, which add up to the
/// load's latency, worst first (issue 38 item 3); then, labelled apart, every request's own
/// stages, whose request-cycles overlap in time.
pub fn blame(b: &LoadBlame) -> View {
    let mut v = View::new(format!("Blame — load {} of warp {}.{}", b.seq, b.core, b.warp)).line(vec![plain(
        format!(
            "issued at cycle {}, {}, latency {} cycles (issue to last data back)",
            group(b.issued),
            count(b.requests.len() as u64, "request"),
            group(b.latency())
        ),
    )]);
    v = v.text(format!("Where the load waited: {}", critical_line(b)));
    v = v.block(Block::Table(critical_table(b)));
    let overlap = if b.requests.len() > 1 { " (the requests wait at the same time)" } else { "" };
    v = v.text(format!(
        "Request-cycles: each request from the load's issue to its data, {} in all{overlap}",
        group(b.request_cycles())
    ));
    let mut r = Table {
        header: ["req", "latency", "stages (cycles)"].map(String::from).to_vec(),
        right: vec![0, 1],
        flex: Some(2),
        ..Table::default()
    };
    for q in &b.requests {
        let path: Vec<String> = q
            .stages
            .iter()
            .filter(|s| s.cycles() > 0)
            .map(|s| format!("{} {}", s.stage.name(), group(s.cycles())))
            .collect();
        r.rows.push(vec![
            plain(format!("#{}", q.who.index)),
            plain(group(q.latency())),
            plain(path.join(", ")),
        ]);
    }
    v.block(Block::Table(r))
}

/// `stages`, summed per stage, the worst first, with each one's share of `latency`.
fn stage_table(stages: &[StageBlame], latency: u64) -> Table {
    let mut t = Table {
        header: ["stage", "cycles", "share", "what it went to"].map(String::from).to_vec(),
        right: vec![1, 2],
        flex: Some(3),
        drop: vec![2],
        ..Table::default()
    };
    for (stage, parts) in by_stage(stages) {
        let cycles: u64 = parts.iter().map(|p| p.cycles).sum();
        let tone = if parts.iter().any(|p| p.cause.is_interference() && p.cycles * 2 > cycles) {
            Tone::Warn
        } else {
            Tone::Normal
        };
        t.rows.push(vec![
            span(stage, tone),
            plain(group(cycles)),
            plain(pct(cycles, latency)),
            plain(describe(&parts)),
        ]);
    }
    t
}

/// The parts of `stages`, summed per stage and cause, stages in descending total.
fn by_stage(list: &[StageBlame]) -> Vec<(&'static str, Vec<Part>)> {
    let mut stages: Vec<(&'static str, Vec<Part>)> = Vec::new();
    for s in list {
        let i = match stages.iter().position(|(n, _)| *n == s.stage.name()) {
            Some(i) => i,
            None => {
                stages.push((s.stage.name(), Vec::new()));
                stages.len() - 1
            }
        };
        merge(&mut stages[i].1, s);
    }
    for (_, parts) in &mut stages {
        parts.sort_by(|a, b| b.cycles.cmp(&a.cycles).then(a.cause.cmp(&b.cause)));
    }
    stages.sort_by_key(|(_, parts)| std::cmp::Reverse(parts.iter().map(|p| p.cycles).sum::<u64>()));
    stages
}

fn merge(into: &mut Vec<Part>, s: &StageBlame) {
    for p in &s.parts {
        match into.iter_mut().find(|q| q.cause == p.cause) {
            Some(q) => {
                q.cycles += p.cycles;
                q.requests.extend(&p.requests);
                for (w, c) in &p.by_warp {
                    *q.by_warp.entry(*w).or_default() += c;
                }
                q.row_hits += p.row_hits;
            }
            None => into.push(p.clone()),
        }
    }
}

/// `other warps 812 (37 requests of 6 warps: 3.4 5.17 …; 12 row hits), row conflict 200, …`
fn describe(parts: &[Part]) -> String {
    let words: Vec<String> = parts
        .iter()
        .filter(|p| p.cycles > 0 || !p.requests.is_empty())
        .map(|p| {
            let mut w = format!("{} {}", p.cause.name(), group(p.cycles));
            if !p.requests.is_empty() {
                // The warps that took the most of it first.
                let mut by: Vec<_> = p.by_warp.iter().collect();
                by.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
                let warps: Vec<String> = by.iter().take(4).map(|((c, w), _)| format!("{c}.{w}")).collect();
                let more = if p.by_warp.len() > 4 { " …" } else { "" };
                w += &format!(
                    " ({} of {}: {}{more}",
                    count(p.requests.len() as u64, "request"),
                    count(p.by_warp.len() as u64, "warp"),
                    warps.join(" ")
                );
                if p.cause != Cause::Refresh && p.row_hits > 0 {
                    w += &format!("; {}", count(u64::from(p.row_hits), "row hit"));
                }
                w += ")";
            }
            w
        })
        .collect();
    words.join(", ")
}
