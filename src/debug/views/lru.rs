//! One L1 set as its replacement policy orders it, most to least protected (MRU → LRU for
//! LRU chains): each way's line, state, owner warp and load PC; for DaCache the locality and
//! thrashing regions (seed 004 §4.2.3); the next victim; and, for every warp whose next load
//! touches this set, where that load's line would be inserted (gauged insertion, §4.2.2).

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::cache::line::LineState;
use crate::sim::core::sched::bits;
use crate::workload::instr::{Op, Space};
use crate::workload::synth::lanes;

pub fn lru(g: &Gpu, core: usize, set: usize) -> View {
    let sm = &g.sms[core];
    let l1 = &sm.l1;
    let chain = l1.chain(set);
    let victim = l1.tags.victim(set);
    let locality = l1.locality_ways();
    // Warps whose next instruction is a global load with a lane in this set.
    let mut inserts: Vec<Vec<u16>> = vec![Vec::new(); chain.len()];
    for w in bits(sm.exec.valid) {
        let warp = &sm.exec.warps[w];
        let Op::Load { space, .. } = warp.next.op else { continue };
        if space == Space::Shared || !lanes(warp.next.mask).any(|l| l1.set_of(warp.addrs[l as usize]) == set)
        {
            continue;
        }
        if let Some(pos) = sm.next_insertion(w, set) {
            inserts[pos.min(chain.len() - 1)].push(w as u16);
        }
    }
    let mut header = vec!["pos", "way", "line", "state", "owner", "pc", "next loads land here"];
    if locality.is_some() {
        header.insert(4, "region");
    }
    let flex = Some(header.len() - 1);
    let mut t = Table {
        header: header.into_iter().map(String::from).collect(),
        right: vec![0, 1],
        flex,
        ..Table::default()
    };
    for (pos, l) in chain.iter().enumerate() {
        let (state, tone) = match l.state {
            LineState::Invalid => ("invalid", Tone::Dim),
            LineState::Reserved => ("RESERVED", Tone::Warn),
            LineState::Valid => ("valid", Tone::Normal),
        };
        let is_victim = victim == Some(l.way);
        let live = l.state != LineState::Invalid;
        let mut row = vec![
            plain(pos.to_string()),
            plain(l.way.to_string()),
            span(if live { format!("{:#x}", l.addr) } else { "-".into() }, tone),
            span(
                if is_victim { format!("{state} ← next victim") } else { state.into() },
                if is_victim { Tone::Accent } else { tone },
            ),
            span(if live { l.owner.to_string() } else { "-".into() }, tone),
            span(if live { format!("{:#06x}", l.pc) } else { "-".into() }, tone),
            span(
                inserts[pos].iter().map(|w| format!("warp {w}")).collect::<Vec<_>>().join(", "),
                Tone::Accent,
            ),
        ];
        if let Some(p) = locality {
            let (region, tone) = if pos < p { ("locality", Tone::Good) } else { ("thrashing", Tone::Normal) };
            row.insert(4, span(region, tone));
        }
        t.rows.push(row);
        t.keys.push(if live { RowKey::Warp { core: core as u16, warp: l.owner } } else { RowKey::None });
    }
    let c = &g.config.l1;
    // An adaptive L1 uses the ways the running kernel's shared memory leaves it.
    let tags = &g.sms[core].l1.tags;
    let ways = match tags.active_ways() {
        n if n < tags.ways => format!("{n} of {} ways in use", tags.ways),
        n => format!("{n} ways"),
    };
    let mut v = View::new(format!("SM {core} — L1 set {set} ({ways}, {}, index {})", c.replacement, c.index))
        .text("order: most → least protected (MRU → LRU); the victim is taken from the bottom");
    match locality {
        Some(p) => {
            v = v.text(format!(
                "locality region: positions 0..{} (valid lines there are never victims); FCW = {} (CNT {}): warps of GTO priority < FCW are locality warps",
                p.saturating_sub(1),
                l1.fcw.fcw,
                l1.fcw.cnt
            ))
        }
        None => v = v.text(format!("FCW = {} (CNT {}), trained on divergent loads", l1.fcw.fcw, l1.fcw.cnt)),
    }
    v.block(Block::Table(t))
}
