//! SVG charts of results: bars per variant (`compare --svg`) and a line per swept parameter
//! (`sweep --svg`), one small panel per metric, drawn with plotters' SVG backend (pure Rust;
//! text is left to the SVG viewer's fonts).
//!
//! A chart never shows a value that is not the machine's: a run stopped at the cycle limit is
//! drawn hollow and labelled "capped" (its numbers are those of a partial run), and lines do
//! not pass through it — except in a panel of rates, which a capped run measures over the
//! cycles it ran: there a dashed line joins it. Legends and keys sit below the plot, never over data; panels fill
//! their rows (no empty slot).

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const PANEL: (u32, u32) = (480, 300);
/// Height of one legend or key line under a panel.
const LINE: u32 = 16;
const TITLE: u32 = 40;
/// Roughly the width of a 12 px sans-serif character, to decide whether x labels fit.
const CHAR_PX: usize = 7;

/// One measured value; `capped` when its run stopped at the cycle limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub y: f64,
    pub capped: bool,
}

/// One line of a line panel: a value per x category (`None` = no result).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub values: Vec<Option<Sample>>,
}

/// A panel: a metric over the values of one parameter, a line per series.
#[derive(Clone, Debug, PartialEq)]
pub struct LinePanel {
    pub title: String,
    pub x_label: String,
    /// The metric's unit (see `sim::stats::metrics::unit`).
    pub y_label: String,
    pub x: Vec<String>,
    pub series: Vec<Series>,
    /// The values are rates (IPC, ratios of rates), which a capped run measures over the
    /// cycles it ran: dashed lines join capped points. Otherwise a capped point breaks the line.
    pub rates: bool,
}

/// A bar panel: a metric, a bar per variant.
#[derive(Clone, Debug, PartialEq)]
pub struct BarPanel {
    pub title: String,
    pub y_label: String,
    pub values: Vec<Sample>,
}

const CAPPED_NOTE: &str = "hollow, \"capped\": the run hit the cycle limit; not a result";
const CAPPED_RATE_NOTE: &str = "hollow, dashed: the run hit the cycle limit; its rate over the cycles it ran";

/// A y-axis tick: thousands grouped, no trailing zeros (`2,500,000`, `0.5`, `40`).
fn tick(v: &f64) -> String {
    if v.abs() >= 1000.0 {
        crate::sim::stats::metrics::group(v.round() as i64)
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing the chart: {e}")
}

fn y_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let hi = if hi <= lo { lo + 1.0 } else { hi + (hi - lo) * 0.12 };
    lo..hi
}

/// Splits `root` into `n` panels, at most three to a row; the last row's panels share its
/// whole width, so no slot is left empty.
fn panels<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    n: usize,
) -> Vec<DrawingArea<SVGBackend<'a>, Shift>> {
    let rows = n.div_ceil(3).max(1);
    let mut out = Vec::new();
    for (r, row) in root.split_evenly((rows, 1)).into_iter().enumerate() {
        let k = (n - 3 * r).min(3);
        out.extend(row.split_evenly((1, k.max(1))));
    }
    out.truncate(n);
    out
}

fn canvas_size(n: usize, legend_lines: usize) -> (u32, u32) {
    let cols = n.clamp(1, 3) as u32;
    let rows = n.div_ceil(3).max(1) as u32;
    (PANEL.0 * cols, (PANEL.1 + LINE * legend_lines as u32) * rows + TITLE)
}

fn text_style(size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// The marker in front of a legend line.
enum Mark {
    Line(RGBAColor),
    Hollow,
    None,
}

/// Draws legend lines into `area` (the strip under a panel), one per entry.
fn legend(area: &DrawingArea<SVGBackend<'_>, Shift>, entries: &[(Mark, String)]) -> Result<()> {
    for (i, (mark, text)) in entries.iter().enumerate() {
        let y = (LINE * i as u32 + LINE / 2) as i32;
        match mark {
            Mark::Line(c) => area.draw(&PathElement::new(vec![(16, y), (34, y)], c.stroke_width(2))),
            Mark::Hollow => area.draw(&Circle::new((25, y), 4, BLACK.stroke_width(1))),
            Mark::None => Ok(()),
        }
        .map_err(err)?;
        area.draw(&Text::new(text.clone(), (40, y - 6), text_style(11))).map_err(err)?;
    }
    Ok(())
}

/// Labels for `names` on an axis `width` pixels wide: the names when they fit side by side,
/// else their numbers 1..n, with a key line per name to print under the panel.
fn x_labels(names: &[String], width: u32) -> (Vec<String>, Vec<(Mark, String)>) {
    let slot = width as usize / names.len().max(1);
    if names.iter().all(|n| n.chars().count() * CHAR_PX + 6 <= slot) {
        return (names.to_vec(), Vec::new());
    }
    let short = (1..=names.len()).map(|i| i.to_string()).collect();
    let key = names.iter().enumerate().map(|(i, n)| (Mark::None, format!("{}: {n}", i + 1))).collect();
    (short, key)
}

fn category(names: &[String], v: &SegmentValue<usize>) -> String {
    match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => names.get(*i).cloned().unwrap_or_default(),
        SegmentValue::Last => String::new(),
    }
}

/// `n` categories as plotters segments: its discrete ranges include their end, so `0..n-1`
/// gives exactly `n` slots (`0..n` would leave an empty one at the right).
fn slots(n: usize) -> plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordusize> {
    (0..n.max(1) - 1).into_segmented()
}

/// Bars per variant, one panel per metric; `x_label` says what the variants vary.
pub fn bars(title: &str, x_label: &str, variants: &[String], metrics: &[BarPanel]) -> Result<String> {
    figure(title, &Bars { x_label, variants, panels: metrics }, &[])
}

/// Line panels (a metric over one parameter's values, a line per series).
pub fn lines(title: &str, panels_: &[LinePanel]) -> Result<String> {
    figure(title, &Bars { x_label: "", variants: &[], panels: &[] }, panels_)
}

/// Bar panels sharing their variants.
pub struct Bars<'a> {
    /// What the variants vary.
    pub x_label: &'a str,
    pub variants: &'a [String],
    pub panels: &'a [BarPanel],
}

/// One chart of bar panels followed by line panels, three to a row.
pub fn figure(title: &str, bars: &Bars<'_>, line_panels: &[LinePanel]) -> Result<String> {
    let (labels, key) = x_labels(bars.variants, PANEL.0 - 90);
    let mut notes = if bars.panels.is_empty() { Vec::new() } else { key };
    if bars.panels.iter().any(|m| m.values.iter().any(|v| v.capped)) {
        notes.push((Mark::Hollow, CAPPED_NOTE.to_string()));
    }
    let lines_below = line_panels.iter().map(legend_lines).fold(notes.len(), usize::max);
    let n = bars.panels.len() + line_panels.len();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, canvas_size(n, lines_below)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, ("sans-serif", 18)).map_err(err)?;
        let mut areas = panels(&root, n).into_iter();
        for (panel, area) in bars.panels.iter().zip(areas.by_ref()) {
            let h = area.dim_in_pixel().1;
            let (plot, below) = area.split_vertically(h - LINE * lines_below as u32);
            bar_panel(&plot, panel, bars, &labels)?;
            legend(&below, &notes)?;
        }
        for (p, area) in line_panels.iter().zip(areas) {
            let h = area.dim_in_pixel().1;
            let (plot, below) = area.split_vertically(h - LINE * lines_below as u32);
            legend(&below, &line_panel(&plot, p)?)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Draws one bar panel; `labels` are the variants as the x axis shows them.
fn bar_panel(
    plot: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &BarPanel,
    bars: &Bars<'_>,
    labels: &[String],
) -> Result<()> {
    let mut chart = ChartBuilder::on(plot)
        .caption(&panel.title, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(slots(bars.variants.len()), y_range(panel.values.iter().map(|v| v.y)))
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(bars.variants.len())
        .x_label_formatter(&|v| category(labels, v))
        .x_desc(bars.x_label)
        .y_desc(panel.y_label.as_str())
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(err)?;
    for (i, v) in panel.values.iter().enumerate().filter(|(_, v)| v.y.is_finite()) {
        let color = Palette99::pick(i).mix(0.85);
        let style = if v.capped { color.stroke_width(2) } else { color.filled() };
        chart
            .draw_series(Histogram::vertical(&chart).style(style).margin(8).data(std::iter::once((i, v.y))))
            .map_err(err)?;
        if v.capped {
            let at = (SegmentValue::CenterOf(i), v.y);
            chart
                .draw_series(std::iter::once(Text::new(
                    "capped",
                    at,
                    text_style(11).pos(Pos::new(HPos::Center, VPos::Bottom)),
                )))
                .map_err(err)?;
        }
    }
    Ok(())
}

/// Legend lines under a line panel: a line per named series, and a note when a point is capped.
fn legend_lines(p: &LinePanel) -> usize {
    let capped = p.series.iter().any(|s| s.values.iter().flatten().any(|v| v.capped));
    let named = p.series.len() > 1 || p.series.first().is_some_and(|s| !s.label.is_empty());
    (if named { p.series.len() } else { 0 }) + usize::from(capped)
}

/// Draws one line panel and returns its legend.
fn line_panel(plot: &DrawingArea<SVGBackend<'_>, Shift>, p: &LinePanel) -> Result<Vec<(Mark, String)>> {
    let all = p.series.iter().flat_map(|s| s.values.iter().flatten().map(|v| v.y));
    let mut chart = ChartBuilder::on(plot)
        .caption(&p.title, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(slots(p.x.len()), y_range(all))
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(p.x.len())
        .x_label_formatter(&|v| category(&p.x, v))
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(err)?;
    let mut notes = Vec::new();
    let mut capped_any = false;
    for (i, s) in p.series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let at = |x: usize, v: &Sample| (SegmentValue::CenterOf(x), v.y);
        // The line joins consecutive real results only; a capped point breaks it...
        let mut run: Vec<(SegmentValue<usize>, f64)> = Vec::new();
        let mut runs = Vec::new();
        for (x, v) in s.values.iter().enumerate() {
            match v {
                Some(v) if !v.capped => run.push(at(x, v)),
                _ => runs.push(std::mem::take(&mut run)),
            }
        }
        runs.push(run);
        for r in runs.into_iter().filter(|r| r.len() > 1) {
            chart.draw_series(LineSeries::new(r, color.stroke_width(2))).map_err(err)?;
        }
        // ...unless the values are rates, which a capped run measures too: then it is dashed.
        if p.rates {
            for (x, pair) in s.values.windows(2).enumerate() {
                if let [Some(a), Some(b)] = pair
                    && (a.capped || b.capped)
                {
                    let dashed = DashedLineSeries::new([at(x, a), at(x + 1, b)], 6, 4, color.stroke_width(2));
                    chart.draw_series(dashed).map_err(err)?;
                }
            }
        }
        for (x, v) in s.values.iter().enumerate() {
            let Some(v) = v else { continue };
            if v.capped {
                capped_any = true;
                chart
                    .draw_series(std::iter::once(Circle::new(at(x, v), 4, color.stroke_width(2))))
                    .map_err(err)?;
                if !p.rates {
                    let style = text_style(11).pos(Pos::new(HPos::Left, VPos::Bottom));
                    chart.draw_series(std::iter::once(Text::new("capped", at(x, v), style))).map_err(err)?;
                }
            } else {
                chart.draw_series(std::iter::once(Circle::new(at(x, v), 3, color.filled()))).map_err(err)?;
            }
        }
        if p.series.len() > 1 || !s.label.is_empty() {
            notes.push((Mark::Line(color), s.label.clone()));
        }
    }
    if capped_any {
        notes.push((Mark::Hollow, if p.rates { CAPPED_RATE_NOTE } else { CAPPED_NOTE }.to_string()));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the SVG has a text element reading exactly `t`.
    fn text(svg: &str, t: &str) -> bool {
        svg.contains(&format!(">\n{t}\n</text>"))
    }

    fn real(y: f64) -> Sample {
        Sample { y, capped: false }
    }

    /// Filled circles of a line chart's points (radius 3) and hollow ones (radius 4).
    fn circles(svg: &str) -> (usize, usize) {
        let filled = svg.matches("<circle").zip(0..).count();
        let hollow = svg.lines().filter(|l| l.contains("<circle") && l.contains("r=\"4\"")).count();
        (filled - hollow, hollow)
    }

    #[test]
    fn ticks_are_grouped_without_trailing_zeros() {
        assert_eq!(
            [tick(&2_500_000.0), tick(&0.5), tick(&40.0), tick(&0.0), tick(&-1500.0)],
            ["2,500,000", "0.5", "40", "0", "-1,500"]
        );
    }

    #[test]
    fn bars_have_one_slot_per_variant_and_capped_bars_are_hollow_and_labelled() {
        let panel =
            |values: Vec<Sample>| BarPanel { title: "cycles".into(), y_label: "core cycles".into(), values };
        let names: Vec<String> = vec!["fcfs".into(), "frfcfs".into()];
        let svg = bars("t", "dram.scheduler", &names, &[panel(vec![real(1.5), real(2.5)])]).unwrap();
        assert!(svg.starts_with("<svg") && text(&svg, "fcfs") && text(&svg, "frfcfs"));
        assert!(text(&svg, "dram.scheduler") && text(&svg, "core cycles"), "axes are labelled");
        assert!(!svg.contains("capped"), "nothing capped, no note");
        let svg = bars("t", "x", &names, &[panel(vec![Sample { y: 2.0, capped: true }, real(2.5)])]).unwrap();
        assert_eq!(svg.matches(">\ncapped\n<").count(), 1, "the capped bar is labelled");
        assert!(svg.contains("the run hit the cycle limit"), "and the note says what it means");
        // One bar filled, one outlined (fill="none").
        let bars_drawn: Vec<&str> =
            svg.lines().filter(|l| l.contains("<rect") && !l.contains("fill=\"#FFFFFF\"")).collect();
        assert_eq!(bars_drawn.len(), 2, "{bars_drawn:?}");
        assert_eq!(bars_drawn.iter().filter(|l| l.contains("fill=\"none\"")).count(), 1, "{bars_drawn:?}");
    }

    #[test]
    fn long_variant_names_become_numbers_with_a_key_below() {
        let names: Vec<String> =
            (0..6).map(|i| format!("dram.scheduler=wg-bw l1.replacement=rrip{i}")).collect();
        let panel = BarPanel { title: "ipc".into(), y_label: "per cycle".into(), values: vec![real(1.0); 6] };
        let svg = bars("t", "variant", &names, &[panel]).unwrap();
        for (i, n) in names.iter().enumerate() {
            assert!(text(&svg, &format!("{}: {n}", i + 1)), "key line {i}");
            assert!(text(&svg, &(i + 1).to_string()), "axis label {i}");
            assert!(!text(&svg, n), "the long name is not on the axis");
        }
        let short: Vec<String> = vec!["a".into(), "b".into()];
        assert_eq!(x_labels(&short, 390).0, short, "short names stay");
    }

    #[test]
    fn panels_fill_their_rows_without_an_empty_slot() {
        let svg = lines(
            "t",
            &vec![
                LinePanel {
                    title: "m".into(),
                    x_label: "k".into(),
                    y_label: "u".into(),
                    x: vec!["1".into(), "2".into()],
                    series: vec![Series {
                        label: String::new(),
                        values: vec![Some(real(1.0)), Some(real(2.0))]
                    }],
                    rates: false,
                };
                4
            ],
        )
        .unwrap();
        // Four panels: three in the first row, the fourth as wide as the canvas.
        assert!(svg.contains("width=\"1440\""), "{}", &svg[..200]);
        assert_eq!(svg.matches(">\nm\n</text>").count(), 4);
        // The fourth panel's caption is centred on the whole width.
        assert!(svg.contains("<text x=\"720\" y=\"350\""), "{svg}");
    }

    #[test]
    fn capped_points_are_hollow_labelled_and_not_joined_by_lines() {
        let p = LinePanel {
            title: "cycles".into(),
            x_label: "l1.sets".into(),
            y_label: "core cycles".into(),
            x: vec!["16".into(), "32".into(), "64".into()],
            series: vec![
                Series {
                    label: "bfs.ron".into(),
                    values: vec![Some(real(3.0)), Some(Sample { y: 2.0, capped: true }), Some(real(1.0))],
                },
                Series { label: "spmv.ron".into(), values: vec![Some(real(1.0)), Some(real(1.5)), None] },
            ],
            rates: false,
        };
        let svg = lines("sweep", &[p]).unwrap();
        for label in ["l1.sets", "bfs.ron", "spmv.ron", "64", "core cycles", "capped"] {
            assert!(text(&svg, label), "{label}");
        }
        assert_eq!(
            circles(&svg),
            (4, 2),
            "four real points filled; the capped one and its legend mark hollow"
        );
        // bfs has no two consecutive real points, so only spmv's 16–32 segment is a line.
        // (plus the two legend marks, which are polylines too).
        let thick =
            svg.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).count();
        assert_eq!(thick, 3);
    }

    #[test]
    fn a_panel_of_rates_joins_capped_points_with_dashes_and_says_so() {
        let capped = |y: f64| Some(Sample { y, capped: true });
        let p = LinePanel {
            title: "ipc".into(),
            x_label: "ideal.miss_latency".into(),
            y_label: "× baseline".into(),
            x: vec!["0".into(), "250".into(), "500".into()],
            series: vec![Series {
                label: "sc".into(),
                values: vec![Some(real(3.0)), capped(2.0), capped(1.0)],
            }],
            rates: true,
        };
        let svg = lines("fig", std::slice::from_ref(&p)).unwrap();
        assert!(
            svg.contains(CAPPED_RATE_NOTE) && !svg.contains(CAPPED_NOTE),
            "the note says what dashes mean"
        );
        assert!(!text(&svg, "capped"), "no label per point");
        assert_eq!(
            circles(&svg),
            (1, 3),
            "the real point filled; two capped ones and the note's mark hollow"
        );
        // Both segments touch a capped point: each is drawn as dashes (several short
        // polylines), where the same panel without rates draws none.
        let thick = |svg: &str| {
            svg.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).count()
        };
        let plain = lines("fig", &[LinePanel { rates: false, ..p }]).unwrap();
        assert_eq!(thick(&plain), 1, "the legend mark only");
        assert!(thick(&svg) > 4, "dashes: {}", thick(&svg));
    }

    #[test]
    fn a_figure_puts_bar_and_line_panels_on_one_canvas() {
        let bar = BarPanel {
            title: "claim".into(),
            y_label: "% change".into(),
            values: vec![real(1.0), real(2.0)],
        };
        let line = LinePanel {
            title: "curve".into(),
            x_label: "k".into(),
            y_label: "u".into(),
            x: vec!["1".into(), "2".into()],
            series: vec![Series { label: String::new(), values: vec![Some(real(1.0)), Some(real(2.0))] }],
            rates: true,
        };
        let names: Vec<String> = vec!["paper".into(), "warpscope".into()];
        let svg =
            figure("t", &Bars { x_label: "source", variants: &names, panels: &[bar] }, &[line]).unwrap();
        for t in ["claim", "curve", "paper", "warpscope", "source", "k"] {
            assert!(text(&svg, t), "{t}");
        }
        assert!(svg.contains("width=\"960\""), "two panels side by side: {}", &svg[..200]);
    }
}
