//! Who delayed whom over the last stretch of the run (issue 17): per SM, how its loads'
//! latency split into waiting and service and where they waited most; per DRAM channel, the
//! cycles its loads waited by cause and the warps whose requests were served ahead of other
//! warps' the longest (`debug::interference`).

use super::super::blame::Cause;
use super::super::interference::{DEFAULT_WINDOW, Interference, interference};
use super::super::scene::Scene;
use super::{Block, RowKey, Table, Tone, View, pct, plain, span};
use crate::sim::stats::metrics::{count, group};

/// The interference of the last `window` cycles (the default when `None`), from the
/// session's cache when it has it.
pub fn view(s: &Scene, window: Option<u64>) -> View {
    let window = window.unwrap_or(DEFAULT_WINDOW);
    match s.interference.get(s.gpu.cycle, window) {
        Some(i) => render(i),
        None => render(&interference(s.travel, s.gpu.cycle, window)),
    }
}

/// The view of `i`.
pub fn render(i: &Interference) -> View {
    let v = View::new(format!(
        "Interference — {} ({}) issued and finished in cycles {}..{}",
        count(i.loads, "load"),
        count(i.requests, "request"),
        group(i.from),
        group(i.to)
    ));
    if i.loads == 0 {
        return v.line(vec![span("no load was issued and finished in this window", Tone::Dim)]);
    }
    let mut sms = Table {
        header: ["SM", "loads", "mean latency", "waiting", "service", "waited most in"]
            .map(String::from)
            .to_vec(),
        right: vec![1, 2, 3, 4],
        flex: Some(5),
        drop: vec![5, 2],
        ..Table::default()
    };
    for (core, sm) in &i.sms {
        let total = sm.waiting + sm.service;
        let mut stages: Vec<_> = sm.waiting_by_stage.iter().collect();
        stages.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let most: Vec<String> =
            stages.iter().take(3).map(|(st, c)| format!("{} {}", st.name(), pct(**c, total))).collect();
        let tone = if sm.waiting > sm.service { Tone::Warn } else { Tone::Normal };
        sms.rows.push(vec![
            plain(core.to_string()),
            plain(group(sm.loads as i64)),
            plain(group((sm.latency / sm.loads.max(1)) as i64)),
            span(pct(sm.waiting, total), tone),
            plain(pct(sm.service, total)),
            plain(most.join(", ")),
        ]);
        sms.keys.push(RowKey::Core(*core));
    }
    let mut chs = Table {
        header: [
            "ch",
            "cycles",
            "other warps",
            "own warp",
            "row miss/conflict",
            "writes",
            "warps served ahead longest",
        ]
        .map(String::from)
        .to_vec(),
        right: vec![1, 2, 3, 4, 5],
        flex: Some(6),
        drop: vec![5, 3, 4],
        ..Table::default()
    };
    for (ch, c) in &i.channels {
        let of =
            |causes: &[Cause]| causes.iter().map(|k| c.by_cause.get(k).copied().unwrap_or(0)).sum::<u64>();
        let other = of(&[Cause::OtherWarps]);
        let pairs: Vec<String> = i
            .top_pairs(*ch, 3)
            .iter()
            .map(|(((dc, dw), (vc, vw)), cycles)| format!("{dc}.{dw} → {vc}.{vw} {}", group(*cycles as i64)))
            .collect();
        let tone = if other * 2 > c.cycles { Tone::Warn } else { Tone::Normal };
        chs.rows.push(vec![
            plain(ch.to_string()),
            plain(group(c.cycles as i64)),
            span(pct(other, c.cycles), tone),
            plain(pct(of(&[Cause::OwnWarp, Cause::SameLoad]), c.cycles)),
            plain(pct(of(&[Cause::RowMiss, Cause::RowConflict]), c.cycles)),
            plain(pct(of(&[Cause::WriteDrain, Cause::Writes]), c.cycles)),
            plain(pairs.join(", ")),
        ]);
        chs.keys.push(RowKey::Channel(*ch));
    }
    v.line(vec![span("Per SM: its loads' request cycles, waiting vs service", Tone::Accent)])
        .block(Block::Table(sms))
        .line(vec![span(
            "Per channel: cycles its loads' requests spent at the controller, by cause; delaying → delayed warp, cycles",
            Tone::Accent,
        )])
        .block(Block::Table(chs))
}
