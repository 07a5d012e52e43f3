//! A view as data, for `batch --format csv|json`: its tables, lines and sparkline series, with
//! the text the terminal shows in each cell (styling dropped), so a script can read `show
//! blame`, `show interference` or `show stats` without parsing the aligned text.

use super::{Block, Span, View};
use serde_json::{Value, json};

/// The format `batch --format` writes views in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text, as the debugger shows it.
    Text,
    /// Each table as CSV (a header, then its rows), titles and lines as `#` comments.
    Csv,
    /// A JSON object per line and command: `{command, view}` for a `show`, `{command, text}`
    /// for any other.
    Json,
}

fn text(spans: &[Span]) -> String {
    spans.iter().map(|s| s.text.as_str()).collect()
}

fn csv_line(cells: impl IntoIterator<Item = String>) -> String {
    cells.into_iter().map(|c| crate::output::csv_field(c.trim())).collect::<Vec<_>>().join(",") + "\n"
}

impl View {
    /// CSV: the title and any lines as `# ` comments; each table as a header and its rows;
    /// sparklines as a `series,value...` row each; blocks apart by a blank line.
    pub fn to_csv(&self) -> String {
        let mut out = format!("# {}\n", self.title);
        for b in &self.blocks {
            match b {
                Block::Lines(lines) => {
                    for l in lines {
                        out.push_str(&format!("# {}\n", text(l).trim_end()));
                    }
                }
                Block::Table(t) => {
                    out.push('\n');
                    out.push_str(&csv_line(t.header.iter().cloned()));
                    for r in &t.rows {
                        out.push_str(&csv_line(r.iter().map(|c| c.text.clone())));
                    }
                }
                Block::Sparks(sparks) => {
                    out.push('\n');
                    out.push_str("series,values\n");
                    for s in sparks {
                        let values = s.values.iter().map(|v| v.to_string());
                        out.push_str(&csv_line(std::iter::once(s.label.clone()).chain(values)));
                    }
                }
                Block::Timeline(t) => {
                    out.push('\n');
                    out.push_str("bar,note\n");
                    for bar in &t.bars {
                        out.push_str(&csv_line([bar.label.clone(), bar.note.clone()]));
                    }
                }
            }
        }
        out
    }

    /// JSON: `{title, blocks: [...]}`, a table as `{table: {header, rows}}` (rows as arrays of
    /// cells), lines as `{lines: [...]}`, sparklines as `{sparks: [{label, now, values}]}`.
    pub fn to_json(&self) -> Value {
        let blocks: Vec<Value> = self
            .blocks
            .iter()
            .map(|b| match b {
                Block::Lines(lines) => json!({ "lines": lines.iter().map(|l| text(l)).collect::<Vec<_>>() }),
                Block::Table(t) => json!({ "table": {
                    "header": t.header,
                    "rows": t.rows.iter().map(|r| r.iter().map(|c| c.text.trim().to_string()).collect::<Vec<_>>()).collect::<Vec<_>>(),
                }}),
                Block::Sparks(sparks) => json!({ "sparks": sparks.iter().map(|s| json!({
                    "label": s.label, "now": s.now, "values": s.values,
                })).collect::<Vec<_>>() }),
                Block::Timeline(t) => json!({ "timeline": {
                    "from": t.from, "to": t.to,
                    "bars": t.bars.iter().map(|b| json!({ "label": b.label, "note": b.note })).collect::<Vec<_>>(),
                }}),
            })
            .collect();
        json!({ "title": self.title, "blocks": blocks })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Table, plain};
    use super::*;

    fn view() -> View {
        let t = Table {
            header: vec!["stage".into(), "cycles".into()],
            rows: vec![vec![plain("L2, queue"), plain("  12")], vec![plain("DRAM"), plain("30")]],
            ..Table::default()
        };
        View::new("Blame — 3.1").line(vec![plain("load at "), plain("pc 0x10")]).block(Block::Table(t))
    }

    #[test]
    fn a_table_becomes_csv_rows_with_quoted_commas_and_the_lines_comments() {
        assert_eq!(
            view().to_csv(),
            "# Blame — 3.1\n# load at pc 0x10\n\nstage,cycles\n\"L2, queue\",12\nDRAM,30\n"
        );
    }

    #[test]
    fn json_keeps_the_title_lines_and_table_cells() {
        let v = view().to_json();
        assert_eq!(v["title"], "Blame — 3.1");
        assert_eq!(v["blocks"][0]["lines"][0], "load at pc 0x10");
        assert_eq!(v["blocks"][1]["table"]["header"], json!(["stage", "cycles"]));
        assert_eq!(v["blocks"][1]["table"]["rows"][0], json!(["L2, queue", "12"]));
    }
}
