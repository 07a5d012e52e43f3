//! How a layout's split divides its area among its parts, in one pass over them. ratatui's
//! constraint solver can take minutes on a split of a few dozen `Fill` or `Min` parts (30 of
//! them across 160 columns never finished), so a layout file could hang the debugger; this
//! division is linear, and gives the shipped layouts' percentages and fills the same cells.
//!
//! Each part first takes its base: `Length(n)` and `Min(n)` n cells, `Percentage(p)` p % of
//! the area, `Fill(w)` nothing, each part ending at its exact end rounded to the nearest cell
//! (halves up), as ratatui rounds its parts' edges. When the bases exceed the area, the last
//! parts give up cells first. What is left goes to the `Fill` parts in proportion to their weights,
//! or, without any, to the `Min` parts evenly, or else to the last part; cells a proportion
//! leaves over go one each to the parts with the largest remainders, earlier first.

use super::layout::Size;

/// The length of each part along the split, in cells.
pub fn lengths(sizes: &[Size], room: u16) -> Vec<u16> {
    // Ends in hundredths of a cell, rounded to whole cells.
    let (mut end, mut edge) = (0u64, 0u32);
    let mut len: Vec<u32> = sizes
        .iter()
        .map(|s| {
            end += match *s {
                Size::Length(n) | Size::Min(n) => 100 * u64::from(n),
                Size::Percentage(p) => u64::from(room) * u64::from(p.min(100)),
                Size::Fill(_) => 0,
            };
            let rounded = u32::try_from((end + 50) / 100).unwrap_or(u32::MAX);
            let l = rounded - edge;
            edge = rounded;
            l
        })
        .collect();
    let room = u32::from(room);
    let mut over = len.iter().sum::<u32>().saturating_sub(room);
    for l in len.iter_mut().rev() {
        let cut = over.min(*l);
        *l -= cut;
        over -= cut;
    }
    let left = room.saturating_sub(len.iter().sum());
    let weight = |s: &Size| match *s {
        Size::Fill(w) => u32::from(w),
        _ => 0,
    };
    let weights: Vec<u32> = if sizes.iter().any(|s| weight(s) > 0) {
        sizes.iter().map(weight).collect()
    } else if sizes.iter().any(|s| matches!(s, Size::Min(_))) {
        sizes.iter().map(|s| u32::from(matches!(s, Size::Min(_)))).collect()
    } else {
        (0..sizes.len()).map(|i| u32::from(i + 1 == sizes.len())).collect()
    };
    share(&mut len, &weights, left);
    len.into_iter().map(|l| l as u16).collect()
}

/// Adds `cells` to `len` in proportion to `weights` (largest remainders first, earlier first
/// among equals).
fn share(len: &mut [u32], weights: &[u32], cells: u32) {
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    if total == 0 {
        return;
    }
    let mut given = 0;
    let mut rest: Vec<(u64, usize)> = Vec::with_capacity(len.len());
    for (i, &w) in weights.iter().enumerate() {
        let exact = u64::from(cells) * u64::from(w);
        let whole = (exact / total) as u32;
        len[i] += whole;
        given += whole;
        if w > 0 {
            rest.push((exact % total, i));
        }
    }
    rest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in rest.iter().take((cells - given) as usize) {
        len[i] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Size::*;

    #[test]
    fn bases_then_the_rest_by_weight() {
        // 60 % of 79 ends at 47.4, so 47 cells; the rest end at 79.
        assert_eq!(lengths(&[Percentage(60), Percentage(40)], 79), [47, 32]);
        // Edges at 10.92 and 21.84 round to 11 and 22: 11 cells, then 11.
        assert_eq!(lengths(&[Percentage(52), Percentage(52)], 21), [11, 10]);
        assert_eq!(lengths(&[Percentage(50), Fill(1)], 45), [23, 22]);
        assert_eq!(lengths(&[Length(10), Fill(1), Fill(2)], 41), [10, 10, 21]);
        // 10 cells over 3 equal fills: 4, 3, 3 (the remainder to the first).
        assert_eq!(lengths(&[Fill(1), Fill(1), Fill(1)], 10), [4, 3, 3]);
        // Min parts share what is left when there is no fill.
        assert_eq!(lengths(&[Min(3), Length(4), Min(3)], 20), [8, 4, 8]);
        // Too little room: the last parts give up cells first.
        assert_eq!(lengths(&[Length(30), Length(30), Fill(1)], 40), [30, 10, 0]);
        assert_eq!(lengths(&[Percentage(100), Percentage(100)], 7), [7, 0]);
        assert_eq!(lengths(&[], 7), Vec::<u16>::new());
    }

    #[test]
    fn the_parts_fill_the_area_exactly() {
        let sizes = [Fill(3), Min(2), Percentage(33), Length(5), Fill(1)];
        for room in 0..200 {
            let l = lengths(&sizes, room);
            assert_eq!(l.iter().map(|&x| u32::from(x)).sum::<u32>(), u32::from(room), "room {room}: {l:?}");
        }
    }
}
