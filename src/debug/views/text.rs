//! Plain-text rendering of views.

use super::{Block, Table, Timeline, View};
use crate::sim::stats::metrics::group;

pub fn render(v: &View, width: usize) -> String {
    let mut out = format!("── {} ──\n", v.title);
    for b in &v.blocks {
        match b {
            Block::Lines(lines) => {
                for l in lines {
                    out.push_str(l.iter().map(|s| s.text.as_str()).collect::<String>().trim_end());
                    out.push('\n');
                }
            }
            Block::Table(t) => out.push_str(&table(t)),
            Block::Timeline(t) => out.push_str(&timeline(t, width.saturating_sub(24).max(20))),
            Block::Sparks(sparks) => {
                let w = sparks.iter().map(|s| s.label.chars().count()).max().unwrap_or(0);
                for s in sparks {
                    out.push_str(&format!("{:<w$}  {}  {}\n", s.label, sparkline(&s.values, 60), s.now));
                }
            }
        }
    }
    out
}

/// A table with aligned columns.
pub fn table(t: &Table) -> String {
    let cols = t.header.len();
    let mut width: Vec<usize> = t.header.iter().map(|h| h.chars().count()).collect();
    for r in &t.rows {
        for (i, c) in r.iter().enumerate().take(cols) {
            width[i] = width[i].max(c.text.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let s: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if t.right.contains(&i) {
                    format!("{c:>w$}", w = width[i])
                } else {
                    format!("{c:<w$}", w = width[i])
                }
            })
            .collect();
        s.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = line(t.header.iter().map(|s| s.as_str()).collect());
    for r in &t.rows {
        out.push_str(&line(r.iter().map(|s| s.text.as_str()).collect()));
    }
    out
}

/// Scales a timeline into `width` columns.
pub fn timeline(t: &Timeline, width: usize) -> String {
    let label_w = t.bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for b in &t.bars {
        out.push_str(&format!("{:<label_w$} |{}| {}\n", b.label, bar_cells(t, &b.segments, width), b.note));
    }
    let (from, to) = (group(t.from), group(t.to));
    out.push_str(&format!("{:<label_w$}  {from:<w2$}{to}\n", "", w2 = width.saturating_sub(to.len()) + 1));
    if !t.legend.is_empty() {
        out.push_str(&t.legend);
        out.push('\n');
    }
    out
}

/// The characters of one bar: each column shows the segment covering most of its cycles.
pub fn bar_cells(t: &Timeline, segs: &[super::Segment], width: usize) -> String {
    bar_columns(t, segs, width).into_iter().map(|(c, _)| c).collect()
}

/// Each column of a bar: the fill and tone of the segment covering most of its cycles.
pub fn bar_columns(t: &Timeline, segs: &[super::Segment], width: usize) -> Vec<(char, super::Tone)> {
    let span = (t.to.saturating_sub(t.from)).max(1) as f64;
    (0..width)
        .map(|col| {
            let a = t.from as f64 + span * col as f64 / width as f64;
            let b = t.from as f64 + span * (col + 1) as f64 / width as f64;
            segs.iter()
                .filter(|s| (s.from as f64) < b && (s.to as f64) > a)
                .max_by(|x, y| {
                    let ox = (x.to as f64).min(b) - (x.from as f64).max(a);
                    let oy = (y.to as f64).min(b) - (y.from as f64).max(a);
                    ox.total_cmp(&oy)
                })
                .map_or((' ', super::Tone::Normal), |s| (s.fill, s.tone))
        })
        .collect()
}

/// Unicode block sparkline of the last `width` values.
pub fn sparkline(values: &[f64], width: usize) -> String {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let vals = &values[values.len().saturating_sub(width)..];
    let max = vals.iter().copied().fold(0.0f64, f64::max);
    vals.iter()
        .map(
            |v| {
                if max <= 0.0 {
                    LEVELS[0]
                } else {
                    LEVELS[((v / max) * 7.0).round().clamp(0.0, 7.0) as usize]
                }
            },
        )
        .collect()
}
