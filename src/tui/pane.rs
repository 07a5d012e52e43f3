//! A view laid out as the lines of a pane of a given width: every block (lines, tables,
//! timelines, sparklines) becomes whole screen lines that never run past the width, so a pane
//! is a list of lines it can scroll through, and a click on a line maps back to the table row
//! drawn there. Nothing is cut inside a value (see [`super::fit`]).

use super::fit::{columns, cut_point, default_drop, whole};
use super::theme::Theme;
use crate::debug::views::{Block, Span as VSpan, Spark, Table, Timeline, Tone, View, bar_columns, sparkline};
use crate::sim::stats::metrics::group;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

const SPACING: usize = 2;

/// A laid-out view.
pub struct Laid {
    pub lines: Vec<Line<'static>>,
    /// For each line, the row of the view's first table drawn on it (what a click selects).
    pub rows: Vec<Option<usize>>,
    /// Headers of the columns hidden for want of width.
    pub hidden: Vec<String>,
}

impl Laid {
    /// The line showing row `row` of the first table.
    pub fn line_of(&self, row: usize) -> Option<usize> {
        self.rows.iter().position(|r| *r == Some(row))
    }
}

/// Lays `v` out in `width` columns; `selected` is the highlighted row of the first table.
pub fn lay_out(theme: Theme, v: &View, width: usize, selected: Option<usize>) -> Laid {
    let mut out = Laid { lines: Vec::new(), rows: Vec::new(), hidden: Vec::new() };
    let mut first_table = true;
    for b in &v.blocks {
        match b {
            Block::Lines(lines) => {
                for l in lines {
                    out.push(clip(styled(theme, l), width), None);
                }
            }
            Block::Table(t) => {
                table(theme, t, width, if first_table { selected } else { None }, first_table, &mut out);
                first_table = false;
            }
            Block::Timeline(t) => timeline(theme, t, width, &mut out),
            Block::Sparks(s) => {
                let label_w = s.iter().map(|x| x.label.chars().count()).max().unwrap_or(0);
                for x in s {
                    out.push(spark(x, label_w, width), None);
                }
            }
        }
    }
    out
}

impl Laid {
    fn push(&mut self, line: Line<'static>, row: Option<usize>) {
        self.lines.push(line);
        self.rows.push(row);
    }
}

fn styled(theme: Theme, s: &[VSpan]) -> Vec<Span<'static>> {
    s.iter().map(|x| Span::styled(x.text.clone(), theme.tone(x.tone))).collect()
}

/// Spans cut between tokens to fit `width`.
fn clip(spans: Vec<Span<'static>>, width: usize) -> Line<'static> {
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let Some(mut left) = cut_point(&text, width) else { return Line::from(spans) };
    let mut out = Vec::new();
    for s in spans {
        if left == 0 {
            break;
        }
        let n = s.content.chars().count();
        let take: String = s.content.chars().take(left).collect();
        left -= n.min(left);
        out.push(Span::styled(take, s.style));
    }
    if width > 0 {
        out.push(Span::raw("…"));
    }
    Line::from(out)
}

fn pad(text: &str, w: usize, right: bool) -> String {
    if right { format!("{text:>w$}") } else { format!("{text:<w$}") }
}

fn table(theme: Theme, t: &Table, width: usize, selected: Option<usize>, keyed: bool, out: &mut Laid) {
    let n = t.header.len();
    let header: Vec<usize> = t.header.iter().map(|h| h.chars().count()).collect();
    let mut natural = header.clone();
    for r in &t.rows {
        for (i, c) in r.iter().enumerate().take(n) {
            natural[i] = natural[i].max(c.text.chars().count());
        }
    }
    let drop = if t.drop.is_empty() { default_drop(n, t.flex) } else { t.drop.clone() };
    let cols = columns(&natural, &header, t.flex, &drop, SPACING, width);
    for &i in &cols.hidden {
        if !out.hidden.contains(&t.header[i]) {
            out.hidden.push(t.header[i].clone());
        }
    }
    let row = |cells: Vec<(&str, Style)>, base: Style| -> Line<'static> {
        let mut spans = Vec::new();
        for (k, &(i, w)) in cols.shown.iter().enumerate() {
            if k > 0 {
                spans.push(Span::styled(" ".repeat(SPACING), base));
            }
            let (text, style) = cells.get(i).copied().unwrap_or(("", Style::default()));
            spans.push(Span::styled(pad(&whole(text, w), w, t.right.contains(&i)), base.patch(style)));
        }
        clip(spans, width)
    };
    let bold = Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    out.push(row(t.header.iter().map(|h| (h.as_str(), bold)).collect(), Style::default()), None);
    for (k, r) in t.rows.iter().enumerate() {
        let base = if selected == Some(k) { theme.selected() } else { Style::default() };
        let cells = r.iter().map(|c| (c.text.as_str(), theme.tone(c.tone))).collect();
        out.push(row(cells, base), keyed.then_some(k));
    }
}

fn timeline(theme: Theme, t: &Timeline, width: usize, out: &mut Laid) {
    let label_w = t.bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(0);
    let note_w = t.bars.iter().map(|b| b.note.chars().count()).max().unwrap_or(0);
    // `label |bar| note`; the notes go first when the bar would be shorter than 10.
    let with_notes = width.saturating_sub(label_w + 4 + note_w);
    let (bar_w, notes) =
        if with_notes >= 10 { (with_notes, true) } else { (width.saturating_sub(label_w + 3).max(1), false) };
    for b in &t.bars {
        let mut s = vec![Span::raw(format!("{:<label_w$} |", b.label))];
        for (c, tone) in bar_columns(t, &b.segments, bar_w) {
            s.push(Span::styled(c.to_string(), theme.tone(tone)));
        }
        s.push(Span::raw(if notes { format!("| {}", b.note) } else { "|".into() }));
        out.push(clip(s, width), None);
    }
    // The axis under the bar: first cycle at its left end, last at its right end.
    let (from, to) = (group(t.from), group(t.to));
    let axis = if from.len() + 1 + to.len() <= bar_w {
        format!("{:<w$}  {from}{to:>r$}", "", w = label_w, r = bar_w - from.len())
    } else {
        format!("{:<w$}  {from}", "", w = label_w)
    };
    out.push(clip(vec![Span::raw(axis)], width), None);
    if !t.legend.is_empty() {
        out.push(clip(vec![Span::styled(t.legend.clone(), theme.tone(Tone::Dim))], width), None);
    }
}

fn spark(s: &Spark, label_w: usize, width: usize) -> Line<'static> {
    let room = width.saturating_sub(label_w + s.now.chars().count() + 4);
    let text = if room >= 4 {
        format!("{:<label_w$}  {}  {}", s.label, sparkline(&s.values, room), s.now)
    } else {
        format!("{:<label_w$}  {}", s.label, s.now)
    };
    clip(vec![Span::raw(text)], width)
}
