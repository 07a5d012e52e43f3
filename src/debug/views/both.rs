//! A pane showing both machines of a lockstep session (`--vs`, `debug::session::versus`): machine A's
//! view above machine B's, each with what differs from the other marked
//! ([`mark_differences`]).

use super::{Block, Tone, View, mark_differences, span};

/// `a` and `b`, the same view of machines A and B, as one view: A's blocks under a heading
/// line, then B's under one naming `b_is` (how B differs from A: its settings).
pub fn both(a: &View, b: &View, b_is: &str) -> View {
    let (mut ma, mut mb) = (a.clone(), b.clone());
    mark_differences(&mut ma, b);
    mark_differences(&mut mb, a);
    let mut v = View::new(format!("{} — A and B", a.title));
    v.blocks
        .push(Block::Lines(vec![vec![span("A", Tone::Accent), span(": this session's machine", Tone::Dim)]]));
    v.blocks.extend(ma.blocks);
    v.blocks
        .push(Block::Lines(vec![vec![span("B", Tone::Accent), span(format!(": A with {b_is}"), Tone::Dim)]]));
    v.blocks.extend(mb.blocks);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug::views::{RowKey, Table, plain};

    fn queue(fill: &[(&str, &str)]) -> View {
        View::new("DRAM queues").line(vec![plain("reads "), plain("3/64")]).block(Block::Table(Table {
            header: vec!["bank".into(), "queued".into()],
            rows: fill.iter().map(|(b, q)| vec![plain(*b), plain(*q)]).collect(),
            keys: (0..fill.len()).map(|i| RowKey::Bank { channel: 0, bank: i as u8 }).collect(),
            ..Table::default()
        }))
    }

    #[test]
    fn both_machines_show_one_above_the_other_with_each_difference_marked_in_text_and_tone() {
        let a = queue(&[("0", "4"), ("1", "2")]);
        let b = queue(&[("0", "4"), ("1", "7")]);
        let v = both(&a, &b, "dram.scheduler=fcfs");
        assert_eq!(v.title, "DRAM queues — A and B");
        let text = v.to_text();
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        assert!(lines.iter().any(|l| l.starts_with("A: this session's machine")), "{text}");
        assert!(lines.iter().any(|l| l.starts_with("B: A with dram.scheduler=fcfs")), "{text}");
        // Bank 1 differs: marked on both sides; bank 0 and the first line do not.
        assert_eq!(lines.iter().filter(|l| l.contains("2≠")).count(), 1, "{text}");
        assert_eq!(lines.iter().filter(|l| l.contains("7≠")).count(), 1, "{text}");
        assert!(!text.contains("4≠") && !text.contains("3/64≠"), "{text}");
        let tones: Vec<Tone> = v
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some(t.rows[1][1].tone),
                _ => None,
            })
            .collect();
        assert_eq!(tones, [Tone::Differs, Tone::Differs]);
        // The same view of identical machines marks nothing.
        assert!(!both(&a, &a, "nothing").to_text().contains('≠'));
    }
}
