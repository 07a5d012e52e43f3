//! One L1 set as its replacement policy orders it (MRU → LRU for LRU): each way's line,
//! state, owner warp and load PC, and where the next insertion lands.

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::cache::replace::Replacement;
use crate::sim::cache::tags::LineState;

pub fn lru(g: &Gpu, core: usize, set: usize) -> View {
    let tags = &g.sms[core].l1.tags;
    let order = tags.replacement.order(set);
    let victim = tags.victim(set);
    let mut t = Table {
        header: ["pos", "way", "line", "state", "owner warp", "pc"].map(String::from).to_vec(),
        right: vec![0, 1],
        ..Table::default()
    };
    for (pos, &way) in order.iter().enumerate() {
        let l = tags.line(set, way);
        let (state, tone) = match l.state {
            LineState::Invalid => ("invalid", Tone::Dim),
            LineState::Reserved => ("RESERVED", Tone::Warn),
            LineState::Valid => ("valid", Tone::Normal),
        };
        let mut state = state.to_string();
        if victim == Some(way) {
            state.push_str(" ← next victim");
        }
        let live = l.state != LineState::Invalid;
        t.rows.push(vec![
            plain(pos.to_string()),
            plain(way.to_string()),
            span(if live { format!("{:#x}", l.addr) } else { "-".into() }, tone),
            span(state, if victim == Some(way) { Tone::Accent } else { tone }),
            span(if live { l.owner.to_string() } else { "-".into() }, tone),
            span(if live { format!("{:#06x}", l.pc) } else { "-".into() }, tone),
        ]);
        t.keys.push(if live { RowKey::Warp { core: core as u16, warp: l.owner } } else { RowKey::None });
    }
    View::new(format!("SM {core} — L1 set {set} ({} ways, {})", tags.ways, g.config.l1.replacement))
        .text(format!(
            "order: most → least recently used; index {}; next insertion goes to the MRU position",
            g.config.l1.index
        ))
        .block(Block::Table(t))
}
