//! SVG charts of results: bars per variant (`compare --svg`) and a line per swept parameter
//! (`sweep --svg`), one small panel per metric, drawn with plotters' SVG backend (pure Rust;
//! text is left to the SVG viewer's fonts).

use anyhow::{Result, anyhow};
use plotters::prelude::*;

const PANEL: (u32, u32) = (480, 320);

/// One line of a line panel: a y value per x category (`None` = no result).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub values: Vec<Option<f64>>,
}

/// A panel: a metric over the values of one parameter, a line per series.
#[derive(Clone, Debug, PartialEq)]
pub struct LinePanel {
    pub title: String,
    pub x_label: String,
    pub x: Vec<String>,
    pub series: Vec<Series>,
}

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing the chart: {e}")
}

fn y_range(values: impl Iterator<Item = f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let hi = if hi <= lo { lo + 1.0 } else { hi + (hi - lo) * 0.12 };
    lo..hi
}

/// Grid shape for `n` panels.
fn layout(n: usize) -> (usize, usize) {
    let cols = n.clamp(1, 3);
    (n.div_ceil(cols).max(1), cols)
}

fn category(names: &[String], v: &SegmentValue<usize>) -> String {
    match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => names.get(*i).cloned().unwrap_or_default(),
        SegmentValue::Last => String::new(),
    }
}

/// Bars per variant, one panel per metric.
pub fn bars(title: &str, variants: &[String], metrics: &[(String, Vec<f64>)]) -> Result<String> {
    let (rows, cols) = layout(metrics.len());
    let mut svg = String::new();
    {
        let size = (PANEL.0 * cols as u32, PANEL.1 * rows as u32 + 40);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, ("sans-serif", 20)).map_err(err)?;
        let areas = root.split_evenly((rows, cols));
        for ((metric, values), area) in metrics.iter().zip(areas) {
            let mut chart = ChartBuilder::on(&area)
                .caption(metric, ("sans-serif", 15))
                .margin(12)
                .x_label_area_size(28)
                .y_label_area_size(64)
                .build_cartesian_2d((0..variants.len()).into_segmented(), y_range(values.iter().copied()))
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(variants.len())
                .x_label_formatter(&|v| category(variants, v))
                .label_style(("sans-serif", 12))
                .draw()
                .map_err(err)?;
            for (i, v) in values.iter().enumerate() {
                let color = Palette99::pick(i).mix(0.85);
                chart
                    .draw_series(
                        Histogram::vertical(&chart)
                            .style(color.filled())
                            .margin(8)
                            .data(std::iter::once((i, *v))),
                    )
                    .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Line panels (a metric over one parameter's values, a line per series).
pub fn lines(title: &str, panels: &[LinePanel]) -> Result<String> {
    let (rows, cols) = layout(panels.len());
    let mut svg = String::new();
    {
        let size = (PANEL.0 * cols as u32, PANEL.1 * rows as u32 + 40);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let root = root.titled(title, ("sans-serif", 20)).map_err(err)?;
        for (p, area) in panels.iter().zip(root.split_evenly((rows, cols))) {
            let all = p.series.iter().flat_map(|s| s.values.iter().flatten().copied());
            let mut chart = ChartBuilder::on(&area)
                .caption(&p.title, ("sans-serif", 15))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(64)
                .build_cartesian_2d((0..p.x.len()).into_segmented(), y_range(all))
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(p.x.len())
                .x_label_formatter(&|v| category(&p.x, v))
                .x_desc(p.x_label.as_str())
                .label_style(("sans-serif", 12))
                .draw()
                .map_err(err)?;
            for (i, s) in p.series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let points: Vec<(SegmentValue<usize>, f64)> = s
                    .values
                    .iter()
                    .enumerate()
                    .filter_map(|(x, v)| v.map(|v| (SegmentValue::CenterOf(x), v)))
                    .collect();
                chart
                    .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                    .map_err(err)?
                    .label(s.label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
                chart
                    .draw_series(points.into_iter().map(|pt| Circle::new(pt, 3, color.filled())))
                    .map_err(err)?;
            }
            if p.series.len() > 1 || p.series.first().is_some_and(|s| !s.label.is_empty()) {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK.mix(0.3))
                    .label_font(("sans-serif", 11))
                    .draw()
                    .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_and_line_charts_are_svg_with_their_labels() {
        let svg = bars("t", &["fcfs".into(), "frfcfs".into()], &[("ipc".into(), vec![1.5, 2.5])]).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("fcfs") && svg.contains("frfcfs") && svg.contains("ipc")
        );
        assert!(svg.matches("<rect").count() >= 3, "background and two bars");
        let p = LinePanel {
            title: "cycles".into(),
            x_label: "l1.sets".into(),
            x: vec!["16".into(), "32".into(), "64".into()],
            series: vec![
                Series { label: "bfs.ron".into(), values: vec![Some(3.0), Some(2.0), None] },
                Series { label: "spmv.ron".into(), values: vec![Some(1.0), Some(1.5), Some(1.7)] },
            ],
        };
        let svg = lines("sweep", &[p]).unwrap();
        assert!(
            svg.contains("l1.sets")
                && svg.contains("bfs.ron")
                && svg.contains("spmv.ron")
                && svg.contains("64")
        );
        assert!(svg.contains("<polyline"), "lines are drawn");
    }
}
