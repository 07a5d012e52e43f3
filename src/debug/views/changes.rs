//! After the machine moves, the values that changed stand out (issue 17 item 5): a view is
//! compared with the same view before the move, and every cell or line piece whose text
//! differs is given [`Tone::Changed`]. Table rows are matched by what they are about (their
//! key and first cell), so rows that moved up or down are compared with themselves and rows
//! that are new are left as they are.

use super::{Block, RowKey, Span, Table, Tone, View};
use std::collections::HashMap;

/// Marks what differs in `now` from `before`.
pub fn mark_changes(now: &mut View, before: &View) {
    mark(now, before, &|s| s.tone = Tone::Changed);
}

/// Marks what differs in one machine's view from the other's of a lockstep session (matched
/// as [`mark_changes`] matches a view with its past): [`Tone::Differs`], and a `≠` after the
/// text, so a difference reads without colour too.
pub fn mark_differences(view: &mut View, other: &View) {
    mark(view, other, &|s| {
        s.tone = Tone::Differs;
        s.text.push('≠');
    });
}

/// Applies `how` to every cell or line piece of `now` whose text differs from `other`'s.
fn mark(now: &mut View, other: &View, how: &dyn Fn(&mut Span)) {
    for (b, old) in now.blocks.iter_mut().zip(&other.blocks) {
        match (b, old) {
            (Block::Table(t), Block::Table(o)) if t.header == o.header => mark_table(t, o, how),
            (Block::Lines(l), Block::Lines(o)) => {
                for (line, was) in l.iter_mut().zip(o) {
                    mark_spans(line, was, how);
                }
            }
            _ => {}
        }
    }
}

/// A row's identity: its key and first cell.
fn identity(t: &Table, i: usize) -> (RowKey, &str) {
    (t.keys.get(i).copied().unwrap_or_default(), t.rows[i].first().map_or("", |s| s.text.as_str()))
}

fn mark_table(t: &mut Table, old: &Table, how: &dyn Fn(&mut Span)) {
    let mut seen: HashMap<(RowKey, &str), Option<usize>> = HashMap::new();
    for i in 0..old.rows.len() {
        seen.entry(identity(old, i)).and_modify(|e| *e = None).or_insert(Some(i));
    }
    let matched: Vec<Option<usize>> =
        (0..t.rows.len()).map(|i| seen.get(&identity(t, i)).copied().flatten()).collect();
    for (row, m) in t.rows.iter_mut().zip(matched) {
        if let Some(j) = m {
            mark_spans(row, &old.rows[j], how);
        }
    }
}

/// Pieces in the same place whose text changed (only when the pieces line up one to one).
fn mark_spans(now: &mut [Span], was: &[Span], how: &dyn Fn(&mut Span)) {
    if now.len() != was.len() {
        return;
    }
    for (s, o) in now.iter_mut().zip(was) {
        if s.text != o.text {
            how(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug::views::plain;

    fn table(rows: &[(u16, &str, &str)]) -> Table {
        Table {
            header: vec!["SM".into(), "fill".into()],
            rows: rows.iter().map(|(_, a, b)| vec![plain(*a), plain(*b)]).collect(),
            keys: rows.iter().map(|(k, _, _)| RowKey::Core(*k)).collect(),
            ..Table::default()
        }
    }

    fn tones(v: &View) -> Vec<Vec<Tone>> {
        match &v.blocks[1] {
            Block::Table(t) => t.rows.iter().map(|r| r.iter().map(|s| s.tone).collect()).collect(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn changed_cells_of_the_same_rows_and_changed_line_pieces_stand_out() {
        let before = View::new("q")
            .line(vec![plain("reads 3/64 "), plain("serving reads")])
            .block(Block::Table(table(&[(0, "SM 0", "4"), (1, "SM 1", "2"), (2, "SM 2", "7")])));
        // SM 1 left (its queue emptied), SM 2 moved up and changed, SM 3 is new.
        let mut now = View::new("q")
            .line(vec![plain("reads 5/64 "), plain("serving reads")])
            .block(Block::Table(table(&[(0, "SM 0", "4"), (2, "SM 2", "1"), (3, "SM 3", "9")])));
        mark_changes(&mut now, &before);
        let Block::Lines(l) = &now.blocks[0] else { unreachable!() };
        assert_eq!(l[0].iter().map(|s| s.tone).collect::<Vec<_>>(), [Tone::Changed, Tone::Normal]);
        assert_eq!(
            tones(&now),
            [[Tone::Normal, Tone::Normal], [Tone::Normal, Tone::Changed], [Tone::Normal, Tone::Normal]]
        );
        // Nothing changed, nothing stands out.
        let mut same = before.clone();
        mark_changes(&mut same, &before);
        assert_eq!(same, before);
    }
}
