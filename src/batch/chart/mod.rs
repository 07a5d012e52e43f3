//! SVG charts of results: `compare --svg` (a bar per variant), `sweep --svg` (a metric over a
//! swept key: grouped bars when the key's values are names, lines when they are numbers) and
//! `repro`'s report (the paper's number beside ours, and a figure's curves). One small panel
//! per metric, three to a row.
//!
//! The layout is computed here, not left to a plotting library, so that no label covers
//! another or leaves the canvas ([`svg::layout_faults`] checks a finished chart, and the tests
//! check every kind the commands draw): the y-axis title is set left of the widest tick label,
//! long titles wrap, x labels that do not fit their slot become numbers with a key, a key the
//! panels share is drawn once under them, and each legend and note on capped runs once, under
//! all the panels. A panel of few bars labels every bar with its value, or none when a label
//! would not fit.
//!
//! Colours are Okabe and Ito's palette, which readers with any common colour-vision deficiency
//! tell apart; lines also differ in their markers, drawn smaller for each later series so that
//! identical series stay visible. A chart never shows a partial run as a result: a run stopped
//! at a cycle or instruction limit is drawn hollow with a dashed outline (bars) or a hollow
//! marker that no line passes through (lines) — except in a panel of rates, which a capped run
//! measures over the cycles it ran: there a dashed line joins it.

pub mod svg;
mod ticks;

use crate::sim::stats::keys;
use crate::sim::stats::metrics::decimal;
use anyhow::Result;
use svg::{Anchor, Svg, text_width};
use ticks::Axis;

/// One measured value; `capped` when its run stopped at a cycle or instruction limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub y: f64,
    pub capped: bool,
}

impl Sample {
    pub fn real(y: f64) -> Sample {
        Sample { y, capped: false }
    }
}

/// How a panel draws its values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A group of bars per x value, a bar per series.
    Bars,
    /// A line per series over the x values; `rates` when a capped run's value is a rate over
    /// the cycles it ran (IPC, ratios of rates), so a dashed line may join it.
    Lines { rates: bool },
}

/// One panel: a metric over x values (names, drawn evenly spaced), a value per series.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub title: String,
    pub kind: Kind,
    pub x_label: String,
    /// The metric's unit (see `sim::stats::metrics::unit`).
    pub y_label: String,
    pub x: Vec<String>,
    /// The series' names (the legend); one unnamed series draws no legend.
    pub series: Vec<String>,
    /// `values[series][x]`; `None` is no result (nothing drawn, never a zero).
    pub values: Vec<Vec<Option<Sample>>>,
    /// A horizontal reference line (1 for a chart normalised to a baseline).
    pub reference: Option<f64>,
}

/// Whether a chart draws `metric`: the host's speed (`sim.cycles_per_second`,
/// `sim.wall_seconds`) is no result of the machine's, so it is drawn only when the user named
/// the metrics (`named`), not among the default ones.
pub fn charted(metric: &str, named: bool) -> bool {
    named || !keys::unit(metric).is_host()
}

/// Okabe and Ito's colour-blind-safe palette, in the order series take it.
pub const PALETTE: [&str; 8] =
    ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

const PANEL_W: f64 = 480.0;
const PLOT_H: f64 = 180.0;
const TITLE_SIZE: f64 = 16.0;
const PANEL_TITLE_SIZE: f64 = 13.0;
const AXIS_SIZE: f64 = 12.0;
const TICK_SIZE: f64 = 11.0;
const NOTE_SIZE: f64 = 11.0;
const NOTE_LINE: f64 = 15.0;
/// Bars in a panel up to which each is labelled with its value (when every label fits).
const VALUE_LABELS_UP_TO: usize = 16;

const CAPPED_BARS: &str =
    "dashed outline: the run hit a cycle or instruction limit; a partial run's number, not a result";
const CAPPED_POINTS: &str = "hollow marker: the run hit a cycle or instruction limit; not a result";
const CAPPED_RATES: &str =
    "hollow marker, dashed line: the run hit a cycle or instruction limit; its rate over the cycles it ran";

/// `text` in lines of at most `width` px at `size`, broken between words (a word longer than
/// a line is cut).
fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let max = ((width / (size * 0.6)).floor() as usize).max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let mut word = word.to_string();
        while word.chars().count() > max {
            if !cur.is_empty() {
                lines.push(std::mem::take(&mut cur));
            }
            let cut: String = word.chars().take(max).collect();
            word = word.chars().skip(max).collect();
            lines.push(cut);
        }
        if cur.is_empty() {
            cur = word;
        } else if cur.chars().count() + 1 + word.chars().count() <= max {
            cur.push(' ');
            cur.push_str(&word);
        } else {
            lines.push(std::mem::replace(&mut cur, word));
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A legend: its series' names and how their marks are drawn (a swatch for bars, a line and a
/// marker for lines).
#[derive(Clone, Debug, PartialEq)]
struct Legend {
    names: Vec<String>,
    lines: bool,
}

/// What a panel needs written under the plots: the key of its numbered x labels, its legend,
/// and the notes on its capped runs. The figure draws each legend and note once, under all the
/// panels, and a key once for all the panels that share it.
#[derive(Clone, Debug, Default, PartialEq)]
struct Below {
    key: Vec<String>,
    legend: Option<Legend>,
    notes: Vec<&'static str>,
}

/// How x labels are shown in `slot` px each: as given, or numbered (with a key) when one does
/// not fit; with a stride when even numbers crowd.
fn x_labels(names: &[String], slot: f64) -> (Vec<String>, usize, Vec<String>) {
    let fits = |n: &String| text_width(n, TICK_SIZE) + 6.0 <= slot;
    if names.iter().all(fits) {
        return (names.to_vec(), 1, Vec::new());
    }
    let numbers: Vec<String> = (1..=names.len()).map(|i| i.to_string()).collect();
    let widest = numbers.iter().map(|n| text_width(n, TICK_SIZE)).fold(0.0, f64::max);
    let stride = ((widest + 6.0) / slot).ceil().max(1.0) as usize;
    let key = names.iter().enumerate().map(|(i, n)| format!("{}: {n}", i + 1)).collect();
    (numbers, stride, key)
}

fn plot_width(w: f64) -> f64 {
    // The y axis takes at most about a third of the panel; the exact left edge depends on the
    // tick labels, so the slots x labels get are estimated from the narrowest case.
    w - 14.0 - 90.0
}

impl Panel {
    fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.values.iter().flatten().flatten()
    }

    fn axis(&self) -> Axis {
        let from = Some(0.0);
        ticks::axis(self.samples().map(|s| s.y).chain(self.reference), from)
    }

    fn below(&self, w: f64) -> Below {
        let slot = plot_width(w) / self.x.len().max(1) as f64;
        let (_, _, key) = x_labels(&self.x, slot);
        let named = self.series.len() > 1 || self.series.first().is_some_and(|s| !s.is_empty());
        let legend = named
            .then(|| Legend { names: self.series.clone(), lines: matches!(self.kind, Kind::Lines { .. }) });
        let capped = self.samples().any(|s| s.capped);
        let notes = match (capped, self.kind) {
            (false, _) => Vec::new(),
            (true, Kind::Bars) => vec![CAPPED_BARS],
            (true, Kind::Lines { rates: false }) => vec![CAPPED_POINTS],
            (true, Kind::Lines { rates: true }) => vec![CAPPED_RATES],
        };
        Below { key, legend, notes }
    }
}

/// Draws the lines of a key from `y` in a strip `w` wide at `x`; returns the height used.
fn draw_key(s: &mut Svg, key: &[String], x: f64, y: f64, w: f64) -> f64 {
    let mut at = y;
    for k in key {
        at += draw_note(s, k, x, at, w);
    }
    at - y
}

/// Draws `text` as a note from `y`, wrapped to the strip `w` wide at `x` (later lines
/// indented); returns the height used.
fn draw_note(s: &mut Svg, text: &str, x: f64, y: f64, w: f64) -> f64 {
    let lines = wrap(text, NOTE_SIZE, w - 16.0);
    for (i, l) in lines.iter().enumerate() {
        let pad = if i == 0 { 0.0 } else { 12.0 };
        s.text(l, x + 8.0 + pad, y + NOTE_LINE * i as f64 + NOTE_SIZE, NOTE_SIZE, Anchor::Start);
    }
    NOTE_LINE * lines.len() as f64
}

/// Draws `legend` from `y` in a strip `w` wide at `x`, after `caption` if one is given: a mark
/// and a name per entry, as many to a line as fit; a name too long for a line is wrapped onto
/// lines of its own, never cut. Returns the height used.
fn draw_legend(s: &mut Svg, legend: &Legend, caption: Option<&str>, x: f64, y: f64, w: f64) -> f64 {
    let (left, right) = (x + 8.0, x + w - 8.0);
    let mut at = y;
    let mut cx = left;
    if let Some(c) = caption {
        s.text(c, cx, at + NOTE_SIZE, NOTE_SIZE, Anchor::Start);
        cx += text_width(c, NOTE_SIZE) + 10.0;
    }
    let room = right - left - 24.0;
    for (i, name) in legend.names.iter().enumerate() {
        let lines =
            if text_width(name, NOTE_SIZE) > room { wrap(name, NOTE_SIZE, room) } else { vec![name.clone()] };
        let tw = lines.iter().map(|l| text_width(l, NOTE_SIZE)).fold(0.0, f64::max);
        if cx > left && cx + 24.0 + tw > right {
            at += NOTE_LINE;
            cx = left;
        }
        let mid = at + NOTE_LINE / 2.0;
        let c = PALETTE[i % PALETTE.len()];
        if legend.lines {
            s.polyline(&[(cx, mid), (cx + 20.0, mid)], c, 2.0, dash(i));
            s.raw(&marker(i, cx + 10.0, mid, true));
        } else {
            s.rect(cx + 4.0, mid - 5.0, 12.0, 10.0, c, "none", false);
        }
        for (k, l) in lines.iter().enumerate() {
            s.text(l, cx + 24.0, at + NOTE_LINE * k as f64 + NOTE_SIZE, NOTE_SIZE, Anchor::Start);
        }
        if lines.len() > 1 {
            // A wrapped name has its lines to itself: the next entry starts below it.
            at += NOTE_LINE * lines.len() as f64;
            cx = left;
        } else {
            cx += 24.0 + tw + 16.0;
        }
    }
    if cx > left {
        at += NOTE_LINE;
    }
    at - y
}

/// A series' line dashes beyond the palette's length, so the ninth differs from the first.
fn dash(series: usize) -> &'static str {
    ["", "6 3", "2 2", "8 3 2 3"][(series / PALETTE.len()) % 4]
}

/// Series `i`'s marker at (`x`, `y`): a shape per series, each later one a little smaller so
/// that one drawn on another of the same value leaves it visible; filled for a result, hollow
/// for a capped run.
fn marker(i: usize, x: f64, y: f64, filled: bool) -> String {
    let c = PALETTE[i % PALETTE.len()];
    let r = 5.5 - 0.9 * (i % 4) as f64;
    let fill = if filled { c } else { "#FFFFFF" };
    let style = format!("fill=\"{fill}\" stroke=\"{c}\" stroke-width=\"1.5\"");
    let poly = |pts: &[(f64, f64)]| {
        let p: Vec<String> = pts.iter().map(|(a, b)| format!("{:.1},{:.1}", x + a * r, y + b * r)).collect();
        format!("<polygon points=\"{}\" {style}/>", p.join(" "))
    };
    match i % 5 {
        0 => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r:.1}\" {style}/>"),
        1 => poly(&[(-0.9, -0.9), (0.9, -0.9), (0.9, 0.9), (-0.9, 0.9)]),
        2 => poly(&[(0.0, -1.2), (1.1, 0.8), (-1.1, 0.8)]),
        3 => poly(&[(0.0, -1.2), (1.2, 0.0), (0.0, 1.2), (-1.2, 0.0)]),
        _ => poly(&[(0.0, 1.2), (1.1, -0.8), (-1.1, -0.8)]),
    }
}

/// Draws `p` in the box at (`x0`, `y0`), `w` wide, with the key of its numbered x labels
/// under it unless the figure draws that key once for several panels (`shared_key`); returns
/// its height.
fn draw_panel(s: &mut Svg, p: &Panel, x0: f64, y0: f64, w: f64, shared_key: bool) -> f64 {
    let title = wrap(&p.title, PANEL_TITLE_SIZE, w - 16.0);
    for (i, l) in title.iter().enumerate() {
        s.text(l, x0 + w / 2.0, y0 + 16.0 + 17.0 * i as f64, PANEL_TITLE_SIZE, Anchor::Middle);
    }
    let top = y0 + 8.0 + 17.0 * title.len() as f64 + 12.0;
    let bottom = top + PLOT_H;
    let axis = p.axis();
    let tick_labels: Vec<String> = axis.ticks.iter().map(|t| decimal(*t, axis.decimals)).collect();
    let tick_w = tick_labels.iter().map(|t| text_width(t, TICK_SIZE)).fold(0.0, f64::max);
    let y_title = wrap(&p.y_label, AXIS_SIZE, PLOT_H);
    let left = x0 + 8.0 + 15.0 * y_title.len() as f64 + 6.0 + tick_w + 6.0;
    let right = x0 + w - 14.0;
    let y_of = |v: f64| bottom - (v - axis.lo) / (axis.hi - axis.lo) * PLOT_H;
    // Axis titles, ticks and grid lines.
    for (i, l) in y_title.iter().enumerate() {
        s.text_styled(
            l,
            x0 + 8.0 + AXIS_SIZE * 0.8 + 15.0 * i as f64,
            top + PLOT_H / 2.0,
            AXIS_SIZE,
            Anchor::Middle,
            true,
            "",
        );
    }
    for (t, label) in axis.ticks.iter().zip(&tick_labels) {
        let y = y_of(*t);
        s.polyline(&[(left, y), (right, y)], "#E0E0E0", 1.0, "");
        s.text(label, left - 6.0, y + TICK_SIZE * 0.35, TICK_SIZE, Anchor::End);
    }
    if let Some(r) = p.reference.filter(|r| *r >= axis.lo && *r <= axis.hi) {
        s.polyline(&[(left, y_of(r)), (right, y_of(r))], "#555555", 1.0, "4 3");
    }
    let zero = y_of(0.0f64.clamp(axis.lo, axis.hi));
    s.polyline(&[(left, top), (left, bottom)], "#000000", 1.0, "");
    s.polyline(&[(left, zero), (right, zero)], "#000000", 1.0, "");
    // X labels under their slots.
    let n = p.x.len().max(1);
    let slot = (right - left) / n as f64;
    let (labels, stride, _) = x_labels(&p.x, slot);
    for (i, l) in labels.iter().enumerate().filter(|(i, _)| i % stride == 0) {
        s.text(l, left + slot * (i as f64 + 0.5), bottom + 15.0, TICK_SIZE, Anchor::Middle);
    }
    let mut at = bottom + 18.0;
    if !p.x_label.is_empty() {
        for l in wrap(&p.x_label, AXIS_SIZE, right - left) {
            at += 15.0;
            s.text(&l, (left + right) / 2.0, at, AXIS_SIZE, Anchor::Middle);
        }
    }
    at += 8.0;
    match p.kind {
        Kind::Bars => draw_bars(s, p, &axis, left, slot, &y_of),
        Kind::Lines { rates } => draw_lines(s, p, rates, left, slot, &y_of),
    }
    if !shared_key {
        at += draw_key(s, &p.below(w).key, x0, at, w);
    }
    at + 6.0 - y0
}

fn draw_bars(s: &mut Svg, p: &Panel, axis: &Axis, left: f64, slot: f64, y_of: &dyn Fn(f64) -> f64) {
    let ns = p.values.len().max(1);
    // Bars at most 60 px wide, a group centred in its slot.
    let bar_w = (slot * 0.8 / ns as f64).min(60.0);
    let pad = (slot - bar_w * ns as f64) / 2.0;
    let zero = y_of(0.0f64.clamp(axis.lo, axis.hi));
    let bars = p.samples().count();
    // One number of decimals for the panel, by its largest value: three significant digits.
    let largest = p.samples().map(|v| v.y.abs()).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let integral = p.samples().all(|v| v.y.fract() == 0.0);
    let decimals =
        if integral { 0 } else { [100.0, 10.0, 1.0].iter().position(|m| largest >= *m).unwrap_or(3) };
    // A label may be as wide as the bar, or the whole slot when the bar is alone in it. Every
    // bar of a panel carries its value, or none does: a panel of few bars whose labels all fit.
    let room = if ns == 1 { slot - 4.0 } else { bar_w };
    let labelled = bars <= VALUE_LABELS_UP_TO
        && p.samples()
            .filter(|v| v.y.is_finite())
            .all(|v| text_width(&decimal(v.y, decimals), TICK_SIZE) + 2.0 <= room);
    for (si, series) in p.values.iter().enumerate() {
        let c = PALETTE[si % PALETTE.len()];
        for (g, v) in series.iter().enumerate() {
            let Some(v) = v.filter(|v| v.y.is_finite()) else { continue };
            let x = left + slot * g as f64 + pad + bar_w * si as f64;
            let y = y_of(v.y);
            let (fill, stroke) = if v.capped { ("#FFFFFF", c) } else { (c, "none") };
            s.rect(x + 1.0, y.min(zero), bar_w - 2.0, (y - zero).abs(), fill, stroke, v.capped);
            if labelled {
                let ly = if v.y >= 0.0 { y - 3.0 } else { y + TICK_SIZE + 2.0 };
                s.text(&decimal(v.y, decimals), x + bar_w / 2.0, ly, TICK_SIZE, Anchor::Middle);
            }
        }
    }
}

fn draw_lines(s: &mut Svg, p: &Panel, rates: bool, left: f64, slot: f64, y_of: &dyn Fn(f64) -> f64) {
    let at = |x: usize, v: &Sample| (left + slot * (x as f64 + 0.5), y_of(v.y));
    for (si, series) in p.values.iter().enumerate() {
        let c = PALETTE[si % PALETTE.len()];
        // A line joins consecutive results only; a capped point breaks it, unless the values
        // are rates: then a dashed line joins it.
        let mut run: Vec<(f64, f64)> = Vec::new();
        for (x, v) in series.iter().enumerate() {
            match v {
                Some(v) if !v.capped && v.y.is_finite() => run.push(at(x, v)),
                _ => {
                    if run.len() > 1 {
                        s.polyline(&run, c, 2.0, dash(si));
                    }
                    run.clear();
                }
            }
        }
        if run.len() > 1 {
            s.polyline(&run, c, 2.0, dash(si));
        }
        if rates {
            for (x, pair) in series.windows(2).enumerate() {
                if let [Some(a), Some(b)] = pair
                    && (a.capped || b.capped)
                {
                    s.polyline(&[at(x, a), at(x + 1, b)], c, 2.0, "6 4");
                }
            }
        }
        for (x, v) in series.iter().enumerate() {
            if let Some(v) = v.filter(|v| v.y.is_finite()) {
                let (px, py) = at(x, &v);
                s.raw(&marker(si, px, py, !v.capped));
            }
        }
    }
}

/// A chart of `panels` under `title`, three panels to a row; the last row's panels share its
/// whole width, so no slot is left empty.
pub fn figure(title: &str, panels: &[Panel]) -> Result<String> {
    let n = panels.len().max(1);
    let width = PANEL_W * n.min(3) as f64;
    let rows = n.div_ceil(3);
    let width_of = |i: usize| {
        let row = i / 3;
        let in_row = if row + 1 == rows { n - 3 * row } else { 3 };
        width / in_row as f64
    };
    // What goes under the panels. A key most panels share is drawn once, under them all; a
    // panel with a key of its own draws it under itself. Each legend and each note is drawn
    // once, under all the panels.
    let belows: Vec<Below> = panels.iter().enumerate().map(|(i, p)| p.below(width_of(i))).collect();
    let count = |k: &Vec<String>| belows.iter().filter(|b| b.key == *k).count();
    let common_key = belows
        .iter()
        .map(|b| &b.key)
        .filter(|k| !k.is_empty())
        .max_by_key(|k| count(k))
        .filter(|k| count(k) > 1 || belows.len() == 1)
        .cloned()
        .unwrap_or_default();
    let shared = |i: usize| belows[i].key.is_empty() || belows[i].key == common_key;
    // Legends in the order their first panels come, each with the x labels of its panels.
    let mut legends: Vec<(Legend, Vec<&str>)> = Vec::new();
    for (b, p) in belows.iter().zip(panels) {
        let Some(l) = &b.legend else { continue };
        match legends.iter_mut().find(|(o, _)| o == l) {
            Some((_, xs)) if !xs.contains(&p.x_label.as_str()) => xs.push(&p.x_label),
            Some(_) => {}
            None => legends.push((l.clone(), vec![&p.x_label])),
        }
    }
    let mut notes: Vec<&str> = Vec::new();
    for n in belows.iter().flat_map(|b| &b.notes) {
        if !notes.contains(n) {
            notes.push(n);
        }
    }
    let title_lines = wrap(title, TITLE_SIZE, width - 20.0);
    let mut s = Svg::new(width, 0.0);
    for (i, l) in title_lines.iter().enumerate() {
        s.text(l, width / 2.0, 26.0 + 21.0 * i as f64, TITLE_SIZE, Anchor::Middle);
    }
    let mut y = 14.0 + 21.0 * title_lines.len() as f64;
    for row in 0..rows {
        let members: Vec<usize> = (3 * row..(3 * row + 3).min(panels.len())).collect();
        // A row is as tall as its tallest panel: measure each, then draw at the row's top.
        let mut height: f64 = 0.0;
        let mut x = 0.0;
        for &i in &members {
            let w = width_of(i);
            height = height.max(draw_panel(&mut Svg::new(w, 0.0), &panels[i], 0.0, 0.0, w, shared(i)));
            draw_panel(&mut s, &panels[i], x, y, w, shared(i));
            x += w;
        }
        y += height;
    }
    let below = y;
    y += draw_key(&mut s, &common_key, 0.0, y, width);
    for (legend, x_labels) in &legends {
        // Several legends are told apart by the x axis of their panels, where that names one.
        let caption = match &x_labels[..] {
            [x] if legends.len() > 1 && !x.is_empty() => Some(format!("over {x}:")),
            _ => None,
        };
        y += draw_legend(&mut s, legend, caption.as_deref(), 0.0, y, width);
    }
    for n in &notes {
        y += draw_note(&mut s, n, 0.0, y, width);
    }
    if y > below {
        y += 6.0;
    }
    s.height = y + 4.0;
    Ok(s.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(svg: &str) -> Vec<String> {
        svg::text_boxes(svg).0.into_iter().map(|t| t.text).collect()
    }

    fn bars(title: &str, x: &[&str], series: &[&str], values: Vec<Vec<Option<Sample>>>) -> Panel {
        Panel {
            title: title.into(),
            kind: Kind::Bars,
            x_label: "variant".into(),
            y_label: "core cycles".into(),
            x: x.iter().map(|s| s.to_string()).collect(),
            series: series.iter().map(|s| s.to_string()).collect(),
            values,
            reference: None,
        }
    }

    fn assert_clean(svg: &str) {
        let faults = svg::layout_faults(svg);
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    #[test]
    fn wrap_breaks_between_words_and_cuts_long_words() {
        assert_eq!(wrap("aa bb cc", 10.0, 30.0), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefghijk", 10.0, 30.0), ["abcde", "fghij", "k"]);
        assert_eq!(wrap("", 10.0, 30.0), [""]);
    }

    #[test]
    fn few_bars_carry_their_values_and_capped_bars_are_outlined_with_a_note() {
        let v = |y: f64, capped: bool| Some(Sample { y, capped });
        let p = bars("cycles", &["fcfs", "frfcfs"], &[""], vec![vec![v(1500.0, false), v(2500.0, true)]]);
        let svg = figure("t", &[p]).unwrap();
        assert_clean(&svg);
        let t = texts(&svg);
        for want in [
            "fcfs",
            "frfcfs",
            "variant",
            "core cycles",
            "1,500",
            "2,500",
            "dashed outline: the run hit a cycle or instruction limit; a partial",
        ] {
            assert!(t.iter().any(|x| x == want), "{want} in {t:?}");
        }
        let drawn: Vec<&str> = svg.lines().filter(|l| l.starts_with("<rect x=")).collect();
        assert_eq!(drawn.len(), 2, "{drawn:?}");
        assert!(drawn[0].contains(&format!("fill=\"{}\"", PALETTE[0])));
        assert!(
            drawn[1].contains("fill=\"#FFFFFF\"") && drawn[1].contains("stroke-dasharray"),
            "capped: outlined"
        );
    }

    #[test]
    fn long_group_names_become_numbers_with_one_key_for_all_panels() {
        let names: Vec<String> =
            (0..6).map(|i| format!("dram.scheduler=wg-bw l1.replacement=rrip{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let panel = |t: &str| bars(t, &refs, &[""], vec![vec![Some(Sample::real(1.0)); 6]]);
        let svg = figure("t", &[panel("cycles"), panel("ipc")]).unwrap();
        assert_clean(&svg);
        let t = texts(&svg);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(t.iter().filter(|x| **x == format!("{}: {n}", i + 1)).count(), 1, "key line {i} once");
            assert!(!t.contains(n), "the long name is not on the axis");
        }
    }

    #[test]
    fn grouped_bars_share_one_legend_and_keep_colours_per_series() {
        let v = |y: f64| Some(Sample::real(y));
        let p = |t: &str| {
            bars(
                t,
                &["bfs", "spmv", "GM"],
                &["wg", "wg-w"],
                vec![vec![v(1.0), v(1.1), v(1.05)], vec![v(0.9), v(1.2), v(1.04)]],
            )
        };
        let svg = figure("speedup over gmc", &[p("speedup"), p("ipc")]).unwrap();
        assert_clean(&svg);
        let t = texts(&svg);
        assert_eq!(t.iter().filter(|x| *x == "wg-w").count(), 1, "the legend is drawn once: {t:?}");
        for c in &PALETTE[..2] {
            assert_eq!(
                svg.matches(&format!("fill=\"{c}\"")).count(),
                2 * 3 + 1,
                "{c}: 3 bars × 2 panels + the legend swatch"
            );
        }
    }

    /// The legend is drawn once whatever else differs between the panels (one with a capped
    /// run, one without, as a reproduction report's claims); so is the note on capped runs.
    #[test]
    fn one_legend_and_one_note_for_panels_that_differ_in_capped_runs() {
        let v = |y: f64, capped: bool| Some(Sample { y, capped });
        let p = |t: &str, capped: bool| {
            bars(t, &[""], &["paper", "warpscope"], vec![vec![v(1.0, false)], vec![v(2.0, capped)]])
        };
        let svg = figure("t", &[p("a", true), p("b", false), p("c", false), p("d", true)]).unwrap();
        assert_clean(&svg);
        let t = texts(&svg);
        for entry in ["paper", "warpscope"] {
            assert_eq!(t.iter().filter(|x| *x == entry).count(), 1, "{entry} once: {t:?}");
        }
        assert_eq!(t.iter().filter(|x| x.starts_with("dashed outline")).count(), 1, "{t:?}");
    }

    /// Panels of two legends (a sweep's bars over one key, lines over another) draw each once,
    /// captioned by its panels' axis; a name too long for a line is wrapped, never cut.
    #[test]
    fn two_legends_are_captioned_and_long_names_wrap_whole() {
        let v = |y: f64| Some(Sample::real(y));
        let long = "a-workload-with-a-very-long-name.ron".repeat(6) + " l1.replacement=rrip";
        let over_key = bars(
            "cycles",
            &["fcfs", "frfcfs"],
            &["bfs.ron l1.replacement=lru", &long],
            vec![vec![v(1.0), v(2.0)]; 2],
        );
        let over_sets = Panel {
            kind: Kind::Lines { rates: false },
            x_label: "l1.sets".into(),
            x: vec!["32".into(), "64".into()],
            series: vec!["bfs.ron dram.scheduler=fcfs".into()],
            values: vec![vec![v(1.0), v(2.0)]],
            ..bars("cycles", &[], &[], vec![])
        };
        let svg = figure("t", &[over_key.clone(), over_sets.clone(), over_key, over_sets]).unwrap();
        assert_clean(&svg);
        let t = texts(&svg);
        for entry in
            ["over variant:", "over l1.sets:", "bfs.ron l1.replacement=lru", "bfs.ron dram.scheduler=fcfs"]
        {
            assert_eq!(t.iter().filter(|x| *x == entry).count(), 1, "{entry} once: {t:?}");
        }
        assert!(!t.iter().any(|x| x.contains('…')), "nothing cut: {t:?}");
        let words: Vec<&str> = t.iter().flat_map(|x| x.split_whitespace()).collect();
        assert!(words.contains(&"l1.replacement=rrip"), "the long name's last word is drawn: {t:?}");
        assert_eq!(t.concat().matches("a-workload-with-a-very-long-name.ron").count(), 6, "all of it, once");
    }

    /// A panel of few bars labels every bar when every label fits, none when one would not.
    #[test]
    fn bars_carry_their_values_all_or_none() {
        let labels = |values: &[f64]| {
            let x: Vec<String> = (0..values.len() / 4).map(|i| format!("x{i}")).collect();
            let x: Vec<&str> = x.iter().map(String::as_str).collect();
            let series: Vec<Vec<Option<Sample>>> = (0..4)
                .map(|s| (0..x.len()).map(|g| Some(Sample::real(values[4 * g + s]))).collect())
                .collect();
            let svg = figure("t", &[bars("cycles", &x, &["a", "b", "c", "d"], series)]).unwrap();
            assert_clean(&svg);
            let t = texts(&svg);
            values.iter().filter(|v| t.contains(&decimal(**v, 0))).count()
        };
        assert_eq!(labels(&[120.0, 250.0, 380.0, 410.0, 150.0, 260.0, 390.0, 420.0]), 8, "short labels: all");
        // 12 bars in a 480 px panel: 1,300 is wider than a bar, so no bar is labelled.
        let mixed =
            [850.0, 1300.0, 900.0, 1310.0, 860.0, 1320.0, 910.0, 1330.0, 870.0, 1340.0, 920.0, 1350.0];
        assert_eq!(labels(&mixed), 0, "one label too wide: none");
    }

    #[test]
    fn the_host_s_speed_is_charted_only_when_named() {
        assert!(!charted("sim.cycles_per_second", false) && !charted("sim.wall_seconds", false));
        assert!(charted("sim.cycles_per_second", true) && charted("ipc", false));
    }

    #[test]
    fn lines_break_at_capped_points_and_identical_series_stay_visible() {
        let v = |y: f64, capped: bool| Some(Sample { y, capped });
        let p = Panel {
            title: "cycles".into(),
            kind: Kind::Lines { rates: false },
            x_label: "l1.sets".into(),
            y_label: "core cycles".into(),
            x: vec!["16".into(), "32".into(), "64".into()],
            series: vec!["bfs".into(), "bfs again".into()],
            values: vec![
                vec![v(3.0, false), v(2.0, true), v(1.0, false)],
                vec![v(3.0, false), v(2.0, true), v(1.0, false)],
            ],
            reference: None,
        };
        let svg = figure("sweep", std::slice::from_ref(&p)).unwrap();
        assert_clean(&svg);
        // No series has two consecutive results: no data line, only the two legend marks.
        let lines =
            svg.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).count();
        assert_eq!(lines, 2);
        // Markers: a circle and a smaller square at each point; the capped ones hollow.
        assert_eq!(svg.matches("<circle").count(), 3 + 1);
        assert_eq!(svg.matches("<polygon").count(), 3 + 1);
        assert_eq!(
            svg.lines()
                .filter(|l| (l.starts_with("<circle") || l.starts_with("<polygon"))
                    && l.contains("fill=\"#FFFFFF\""))
                .count(),
            2
        );
        assert!(
            texts(&svg).iter().any(|t| CAPPED_POINTS.starts_with(t.as_str()) && t.len() > 20),
            "the note"
        );
        let rates = figure("sweep", &[Panel { kind: Kind::Lines { rates: true }, ..p }]).unwrap();
        assert!(
            rates.matches("stroke-dasharray=\"6 4\"").count() == 4,
            "both segments of both series dashed"
        );
        assert!(
            texts(&rates).iter().any(|t| CAPPED_RATES.starts_with(t.as_str()) && t.len() > 20),
            "the note, wrapped"
        );
    }

    #[test]
    fn nothing_overlaps_with_long_titles_big_numbers_and_many_panels() {
        let v = |y: f64| Some(Sample::real(y));
        let long = "§VI-A Non-divergent set: WG-W performance over GMC, coordination messages naming the warp, not the warp-load, with GPGPU-Sim's fixed delays (cause check)";
        let mut panels: Vec<Panel> = (0..7)
            .map(|i| Panel {
                title: format!("{long} {i}"),
                kind: Kind::Bars,
                x_label: String::new(),
                y_label: "misses / 1000 warp instructions, and a unit far too long for the axis".into(),
                x: vec![String::new()],
                series: vec!["paper".into(), "warpscope".into()],
                values: vec![vec![v(-12.3456)], vec![v(123_456_789.0)]],
                reference: None,
            })
            .collect();
        panels.push(Panel {
            title: "curve".into(),
            kind: Kind::Lines { rates: true },
            x_label: "ideal.miss_latency".into(),
            y_label: "× baseline".into(),
            x: (0..40).map(|i| (i * 25).to_string()).collect(),
            series: (0..12).map(|i| format!("benchmark number {i}")).collect(),
            values: (0..12).map(|i| (0..40).map(|x| v((x * i) as f64)).collect()).collect(),
            reference: Some(1.0),
        });
        let svg = figure(&format!("{long} {long}"), &panels).unwrap();
        assert_clean(&svg);
    }
}
