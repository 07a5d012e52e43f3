//! Plain-text tables: first column left-aligned, the rest right-aligned.

/// Renders rows under a header, columns padded to their widest cell.
pub fn render(header: &[String], rows: &[Vec<String>]) -> String {
    let cols = header.len();
    let mut width = vec![0usize; cols];
    for row in std::iter::once(header).chain(rows.iter().map(|r| r.as_slice())) {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |row: &[String]| -> String {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(
                |(i, c)| {
                    if i == 0 { format!("{c:<w$}", w = width[i]) } else { format!("{c:>w$}", w = width[i]) }
                },
            )
            .collect();
        cells.join("  ").trim_end().to_string()
    };
    let mut out = line(header);
    out.push('\n');
    out.push_str(&width.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("  "));
    out.push('\n');
    for r in rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let t = render(
            &["metric".into(), "a".into(), "bb".into()],
            &[vec!["ipc".into(), "1.5".into(), "10.25".into()]],
        );
        assert_eq!(t, "metric    a     bb\n------  ---  -----\nipc     1.5  10.25\n");
    }
}
