//! An SM's L1 MSHRs: each entry's line, age, merged requests and the warps waiting on it,
//! and whether the LD/ST unit's head load is occluded (needs more new MSHRs than are free).

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::core::ldst::NO_LOAD;
use crate::sim::core::sched::bits;
use crate::sim::core::sm::Sm;

pub fn mshr(g: &Gpu, core: usize) -> View {
    let sm = &g.sms[core];
    let m = &sm.l1.mshr;
    let mut v = View::new(format!("SM {core} — L1 MSHRs")).line(vec![plain(format!(
        "{}/{} entries used, {} free, merge up to {} per entry",
        m.used(),
        m.capacity(),
        m.free(),
        g.config.l1.mshr_merge
    ))]);
    if let Some(head) = sm.ldst.queue.front() {
        let needed = head.coalesced.iter().skip(sm.ldst.next).filter(|&(l, _)| sm.l1.needs_mshr(l)).count();
        let occluded = head.load && head.load_slot != NO_LOAD && needed > m.free();
        let mut line = vec![plain(format!(
            "LD/ST head: warp {} pc {:#06x} {} access {}/{}",
            head.warp,
            head.pc,
            if head.load { "load" } else { "store" },
            sm.ldst.next,
            head.coalesced.n
        ))];
        if let Some(c) = sm.ldst.stalled {
            line.push(span(format!("  replaying: {}", c.name()), Tone::Warn));
        }
        if occluded {
            line.push(span(format!("  OCCLUDED: needs {needed} MSHRs, {} free", m.free()), Tone::Bad));
        }
        v = v.line(line);
    } else {
        v = v.line(vec![span("LD/ST unit idle", Tone::Dim)]);
    }
    let mut t = Table {
        header: ["#", "line", "age", "merged", "waiting warps"].map(String::from).to_vec(),
        right: vec![0, 2, 3],
        flex: Some(4),
        // The waiting warps go first: an entry's line and age say more about it.
        drop: vec![4, 3, 2, 1],
        ..Table::default()
    };
    let now = g.cycle;
    let mut entries: Vec<_> = m.entries().collect();
    entries.sort_by_key(|e| e.since);
    for (i, e) in entries.iter().enumerate() {
        let warps = bits(Sm::mshr_waiting_warps(e));
        let full = e.merged.len() + 1 >= g.config.l1.mshr_merge as usize;
        t.rows.push(vec![
            plain(i.to_string()),
            plain(format!("{:#x}", e.key << g.config.l1.line_bytes.trailing_zeros())),
            plain(now.saturating_sub(e.since).to_string()),
            span(
                format!("{}{}", e.merged.len(), if full { " (full)" } else { "" }),
                if full { Tone::Warn } else { Tone::Normal },
            ),
            // Warp ids as `show warp` takes them, core.warp, so they read as warps, not counts.
            plain(warps.map(|w| format!("{core}.{w}")).collect::<Vec<_>>().join(" ")),
        ]);
        t.keys.push(RowKey::Warp { core: core as u16, warp: e.owner });
    }
    if t.rows.is_empty() {
        v.line(vec![span("no misses in flight", Tone::Dim)])
    } else {
        v.block(Block::Table(t))
    }
}
