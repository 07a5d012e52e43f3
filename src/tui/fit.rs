//! Fitting text into a pane without ever cutting a value: a token (a run of characters
//! between spaces — an id, a number, a row, an address, `8r/134cy`) is shown whole or not at
//! all, and a table too wide for its pane drops whole columns (issue 18, item 2). This is the
//! one routine every pane's tables, lines, titles and timelines go through.

/// Where `text` must end to fit `width` characters with an ellipsis after it: the end of the
/// last whole token that leaves room for the `…`. `None` when the text fits as it is.
pub fn cut_point(text: &str, width: usize) -> Option<usize> {
    let n = text.chars().count();
    if n <= width {
        return None;
    }
    let room = width.saturating_sub(1);
    let chars: Vec<char> = text.chars().collect();
    // A prefix of `end` characters is whole tokens when the character after it is a space.
    let end = (0..=room).rev().find(|&end| chars[end] == ' ').unwrap_or(0);
    Some(chars[..end].iter().rposition(|c| *c != ' ').map_or(0, |p| p + 1))
}

/// `text` in at most `width` characters, cut between tokens and marked with `…`.
pub fn whole(text: &str, width: usize) -> String {
    match cut_point(text, width) {
        None => text.to_string(),
        Some(_) if width == 0 => String::new(),
        Some(end) => text.chars().take(end).chain(std::iter::once('…')).collect(),
    }
}

/// As many of the leading `items` as fit `width` whole, joined by `sep` (a status or key-hint
/// line drops its last items rather than cutting one).
pub fn leading(items: &[String], sep: &str, width: usize) -> String {
    let mut out = String::new();
    for it in items {
        let more = if out.is_empty() { it.clone() } else { format!("{out}{sep}{it}") };
        if more.chars().count() > width {
            break;
        }
        out = more;
    }
    out
}

/// Which columns of a table fit, and how wide each shown column is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Shown columns, in table order, with their widths.
    pub shown: Vec<(usize, usize)>,
    /// Columns left out, in table order.
    pub hidden: Vec<usize>,
}

/// Fits columns of `natural` widths (widest cell or header) and `header` widths into
/// `width` with `spacing` between columns. Columns are dropped whole, in `drop` order (the
/// table's priority, lowest first); the `flex` column (prose such as an event description)
/// may instead narrow to its header, its cells then cut between words by [`whole`].
pub fn columns(
    natural: &[usize],
    header: &[usize],
    flex: Option<usize>,
    drop: &[usize],
    spacing: usize,
    width: usize,
) -> Columns {
    let n = natural.len();
    let min = |i: usize| if Some(i) == flex { natural[i].min(header[i].max(12)) } else { natural[i] };
    let mut shown = vec![true; n];
    let need = |shown: &[bool]| {
        let cols: Vec<usize> = (0..n).filter(|&i| shown[i]).collect();
        cols.iter().map(|&i| min(i)).sum::<usize>() + spacing * cols.len().saturating_sub(1)
    };
    for &i in drop {
        if need(&shown) <= width || shown.iter().filter(|s| **s).count() <= 1 {
            break;
        }
        shown[i] = false;
    }
    let fixed: usize =
        (0..n).filter(|&i| shown[i] && Some(i) != flex).map(|i| natural[i] + spacing).sum::<usize>();
    let widths: Vec<(usize, usize)> = (0..n)
        .filter(|&i| shown[i])
        .map(|i| {
            let w = if Some(i) == flex { width.saturating_sub(fixed).min(natural[i]) } else { natural[i] };
            (i, w)
        })
        .collect();
    Columns { shown: widths, hidden: (0..n).filter(|&i| !shown[i]).collect() }
}

/// The default drop order: the rightmost columns first, the flex column after the others,
/// never the first column (it names the row).
pub fn default_drop(n: usize, flex: Option<usize>) -> Vec<usize> {
    (1..n).rev().filter(|&i| Some(i) != flex).chain(flex.filter(|&f| f > 0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_whole_or_absent() {
        assert_eq!(whole("open row 693", 12), "open row 693");
        assert_eq!(whole("open row 693", 11), "open row…");
        assert_eq!(whole("open row 693", 9), "open row…");
        assert_eq!(whole("open row 693", 8), "open…");
        assert_eq!(whole("8r/134cy", 7), "…");
        assert_eq!(whole("a  b", 3), "a…");
        assert_eq!(whole("abc", 0), "");
    }

    #[test]
    fn a_line_of_items_keeps_the_leading_whole_ones() {
        let items = ["cycle 91".to_string(), "layout default".into(), "warp 1.0".into()];
        assert_eq!(leading(&items, " · ", 40), "cycle 91 · layout default · warp 1.0");
        assert_eq!(leading(&items, " · ", 30), "cycle 91 · layout default");
        assert_eq!(leading(&items, " · ", 7), "");
    }

    #[test]
    fn columns_drop_whole_by_priority() {
        // 4 + 2 + 5 + 2 + 3 = 16 wide.
        let all = columns(&[4, 5, 3], &[4, 5, 3], None, &[2, 1], 2, 16);
        assert_eq!(all.shown, vec![(0, 4), (1, 5), (2, 3)]);
        let two = columns(&[4, 5, 3], &[4, 5, 3], None, &[2, 1], 2, 15);
        assert_eq!((two.shown, two.hidden), (vec![(0, 4), (1, 5)], vec![2]));
        let by_priority = columns(&[4, 5, 3], &[4, 5, 3], None, &[1, 2], 2, 15);
        assert_eq!(by_priority.shown, vec![(0, 4), (2, 3)]);
        // The flex column narrows to the room left, down to max(header, 12).
        let flex = columns(&[5, 40], &[5, 5], Some(1), &default_drop(2, Some(1)), 2, 30);
        assert_eq!(flex.shown, vec![(0, 5), (1, 23)]);
        let gone = columns(&[5, 40], &[5, 5], Some(1), &default_drop(2, Some(1)), 2, 18);
        assert_eq!((gone.shown, gone.hidden), (vec![(0, 5)], vec![1]));
        assert_eq!(default_drop(4, Some(2)), vec![3, 1, 2]);
    }
}
