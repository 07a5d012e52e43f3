//! `warpscope repro SPEC.ron --out DIR`: one seed's headline experiment, run and set beside the
//! paper's numbers.
//!
//! A spec names the paper, a sweep (machine, benchmarks, variants, cycle cap) and the claims to
//! check, each with the number the paper reports and where (figure or table):
//!
//! ```ron
//! (
//!     title: "Seed 001: α-SJF over FR-FCFS",
//!     paper: "Lakshminarayana et al., DRAM scheduling policy for GPGPU architectures based on a potential function, IEEE CAL 2012",
//!     sweep: (workloads: ["../workloads/bfs.ron"], grid: ["dram.scheduler=frfcfs,asjf"], max_cycles: 2000000),
//!     claims: [
//!         (source: "Fig. 3", what: "α-SJF speedup over FR-FCFS", measure: Speedup,
//!          variant: "dram.scheduler=asjf", baseline: Some("dram.scheduler=frfcfs"), paper: 1.10),
//!     ],
//! )
//! ```
//!
//! The sweep's results go to `DIR/results.jsonl` as they finish (an interrupted run resumes);
//! the report — `DIR/report.md` and `DIR/report.svg` — is generated from them, never by hand.
//! A ratio claim agrees in direction when ours and the paper's move the same way from 1 (or
//! both stay within 1 %), and is within 2× when our effect is half to twice the paper's; a
//! value claim is within 2× when ours is half to twice the paper's value. Where the paper
//! states a side rather than a number ("no application suffering any slowdown", "lowers the
//! latency divergence"), the claim says so (`stated: AtLeast` / `Below`) and the direction
//! column says whether ours is on that side, 1 % counting as no change; such a claim has no
//! size to compare. Per-benchmark numbers are combined by geometric mean (ratios) or mean
//! (values), or, with `aggregate: Min`, by taking the smallest (the slowest benchmark).

use super::chart::{BarPanel, Sample, bars};
use super::sweep::{GridSpec, Sweep, metric_values};
use crate::config::{ConfigError, Origin, error_at_path, parse_ron};
use anyhow::{Result, bail};
use serde::Deserialize;
use std::path::Path;

/// A reproduction spec.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReproSpec {
    pub title: String,
    /// The paper, by authors, title and venue.
    pub paper: String,
    pub sweep: GridSpec,
    pub claims: Vec<Claim>,
}

/// One number of the paper to compare with.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Where the paper reports it (`Fig. 8`, `Table II`).
    pub source: String,
    /// What it is, in the paper's words.
    pub what: String,
    pub measure: Measure,
    /// The variant measured: a point's own assignments as the sweep writes them.
    pub variant: String,
    /// The variant it is relative to (ratio measures).
    #[serde(default)]
    pub baseline: Option<String>,
    /// The benchmarks it is over (workload entries of the sweep); all when empty.
    #[serde(default)]
    pub workloads: Vec<String>,
    /// The paper's number: a ratio (1.10 for +10 %) or a value.
    pub paper: f64,
    /// Report keys shown beside our number, per benchmark, as baseline → variant: what
    /// explains the result (bandwidth utilization, prefetch accuracy, ...).
    #[serde(default)]
    pub diagnose: Vec<String>,
    /// How the benchmarks' numbers are combined.
    #[serde(default)]
    pub aggregate: Aggregate,
    /// What the paper states with `paper`: the number itself, or only a side of it.
    #[serde(default)]
    pub stated: Stated,
}

/// How a claim's per-benchmark numbers are combined.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum Aggregate {
    /// Geometric mean of ratios, arithmetic mean of values.
    #[default]
    Mean,
    /// The smallest: "no benchmark slower" is the slowest benchmark's ratio.
    Min,
}

/// What the paper states with its number.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub enum Stated {
    /// The number: ours is compared with it for direction and size.
    #[default]
    Number,
    /// A floor: ours should not fall below it ("no application suffering any slowdown" is the
    /// slowest benchmark's IPC ratio ≥ 1).
    AtLeast,
    /// A direction without a number: ours should be below it ("lowers the latency
    /// divergence" is a ratio < 1).
    Below,
}

/// How a claim is measured on each benchmark (ratios are aggregated by geometric mean,
/// values by arithmetic mean).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub enum Measure {
    /// Baseline cycles over the variant's cycles.
    Speedup,
    /// The variant's value of a report key over the baseline's.
    Ratio(String),
    /// The variant's value of a report key.
    Value(String),
}

impl Measure {
    fn metric(&self) -> &str {
        match self {
            Measure::Speedup => "cycles",
            Measure::Ratio(m) | Measure::Value(m) => m,
        }
    }

    fn is_ratio(&self) -> bool {
        !matches!(self, Measure::Value(_))
    }
}

/// A loaded spec and its sweep.
pub struct Repro {
    pub spec: ReproSpec,
    pub sweep: Sweep,
}

impl Repro {
    /// Reads a spec, loads its sweep, and checks that every claim names variants, benchmarks
    /// and a metric the sweep has.
    pub fn load(path: &Path) -> Result<Repro, ConfigError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: Origin::File(origin.clone()),
            position: None,
            key: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        let mut spec: ReproSpec = parse_ron(&text, &Origin::File(origin.clone()))?;
        let mut metrics: Vec<String> = spec.sweep.metrics.clone();
        for c in &spec.claims {
            for m in std::iter::once(c.measure.metric()).chain(c.diagnose.iter().map(String::as_str)) {
                if !metrics.iter().any(|x| x == m) {
                    metrics.push(m.to_string());
                }
            }
        }
        spec.sweep.metrics = metrics;
        let name = path.file_stem().map_or("repro".into(), |s| s.to_string_lossy().to_string());
        let sweep = Sweep::from_spec(spec.sweep.clone(), path, &text, "sweep.", name)?;
        let variants: Vec<&str> = sweep.points.iter().map(|p| p.variant.as_str()).collect();
        let labels: Vec<&str> = sweep.workloads.iter().map(|(l, _)| l.as_str()).collect();
        for (i, c) in spec.claims.iter().enumerate() {
            let at = |field: &str, message: String| {
                error_at_path(&text, &Origin::File(origin.clone()), &format!("claims[{i}].{field}"), &message)
            };
            for (field, v) in [("variant", Some(&c.variant)), ("baseline", c.baseline.as_ref())] {
                if let Some(v) = v
                    && !variants.contains(&v.as_str())
                {
                    return Err(at(
                        field,
                        format!("`{v}` is not a variant of the sweep; its variants: {}", unique(&variants)),
                    ));
                }
            }
            if c.measure.is_ratio() && c.baseline.is_none() {
                return Err(at("baseline", "a ratio needs a baseline variant".into()));
            }
            if let Some(w) = c.workloads.iter().find(|w| !labels.contains(&w.as_str())) {
                return Err(at(
                    "workloads",
                    format!("`{w}` is not a workload of the sweep; its workloads: {}", labels.join(", ")),
                ));
            }
            if c.paper <= 0.0 && c.measure.is_ratio() {
                return Err(at("paper", "a ratio is positive (1.10 for +10 %)".into()));
            }
        }
        Ok(Repro { spec, sweep })
    }
}

fn unique(v: &[&str]) -> String {
    let mut u: Vec<&str> = Vec::new();
    for x in v {
        if !u.contains(x) {
            u.push(x);
        }
    }
    u.iter().map(|x| if x.is_empty() { "(none)" } else { x }).collect::<Vec<_>>().join(", ")
}

/// A claim as measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Per benchmark: label and our number (None: a run missing or without the metric).
    pub per_workload: Vec<(String, Option<f64>)>,
    /// Per benchmark, per `diagnose` key: the baseline's and the variant's values.
    pub diagnostics: Vec<Vec<(Option<f64>, Option<f64>)>>,
    /// The aggregate (geometric mean of ratios, mean of values), when every benchmark has one.
    pub ours: Option<f64>,
    /// Some run of the claim stopped at the cycle cap.
    pub capped: bool,
    pub same_direction: Option<bool>,
    pub within_2x: Option<bool>,
}

/// Measures every claim from the sweep's results file.
pub fn outcomes(r: &Repro, results: &Path) -> Result<Vec<Outcome>> {
    let values = metric_values(&r.sweep, results)?;
    let s = &r.sweep;
    let sample = |wi: usize, variant: &str, metric: &str| -> Option<Sample> {
        let m = s.metrics.iter().position(|x| x == metric)?;
        let p = s.points.iter().find(|p| p.workload == wi && p.variant == variant)?;
        values[p.index].as_ref()?.get(m).copied().flatten()
    };
    let mut out = Vec::new();
    for c in &r.spec.claims {
        let metric = c.measure.metric();
        let mut per = Vec::new();
        let mut diagnostics = Vec::new();
        let mut capped = false;
        for (wi, (label, _)) in s.workloads.iter().enumerate() {
            if !c.workloads.is_empty() && !c.workloads.contains(label) {
                continue;
            }
            let v = sample(wi, &c.variant, metric);
            let b = c.baseline.as_deref().and_then(|b| sample(wi, b, metric));
            capped |= v.is_some_and(|x| x.capped) || b.is_some_and(|x| x.capped);
            let ours = match (&c.measure, v, b) {
                (Measure::Speedup, Some(v), Some(b)) if v.y > 0.0 => Some(b.y / v.y),
                (Measure::Ratio(_), Some(v), Some(b)) if b.y > 0.0 => Some(v.y / b.y),
                (Measure::Value(_), Some(v), _) => Some(v.y),
                _ => None,
            };
            per.push((label.clone(), ours));
            let value = |variant: Option<&str>, m: &str| variant.and_then(|v| sample(wi, v, m)).map(|x| x.y);
            diagnostics.push(
                c.diagnose
                    .iter()
                    .map(|m| (value(c.baseline.as_deref(), m), value(Some(&c.variant), m)))
                    .collect(),
            );
        }
        let all: Option<Vec<f64>> = per.iter().map(|(_, v)| *v).collect();
        let ours = all.filter(|v| !v.is_empty()).map(|v| match c.aggregate {
            Aggregate::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
            Aggregate::Mean if c.measure.is_ratio() => {
                (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
            }
            Aggregate::Mean => v.iter().sum::<f64>() / v.len() as f64,
        });
        let (same_direction, within_2x) = match (ours, c.stated) {
            (Some(o), Stated::AtLeast | Stated::Below) => (Some(verdict_side(o, c.paper, c.stated)), None),
            (Some(o), Stated::Number) if c.measure.is_ratio() => verdict_ratio(o, c.paper),
            (Some(o), Stated::Number) => (None, Some(c.paper != 0.0 && (0.5..=2.0).contains(&(o / c.paper)))),
            (None, _) => (None, None),
        };
        out.push(Outcome { per_workload: per, diagnostics, ours, capped, same_direction, within_2x });
    }
    Ok(out)
}

/// Direction and size of a ratio effect against the paper's: effects within 1 % of no change
/// count as none.
fn verdict_ratio(ours: f64, paper: f64) -> (Option<bool>, Option<bool>) {
    let (o, p) = (ours - 1.0, paper - 1.0);
    let sign = |x: f64| {
        if x.abs() < 0.01 {
            0
        } else if x > 0.0 {
            1
        } else {
            -1
        }
    };
    let same = sign(o) == sign(p);
    let within = sign(p) != 0 && same && (0.5..=2.0).contains(&(o / p));
    (Some(same), Some(within || (sign(p) == 0 && sign(o) == 0)))
}

/// Whether ours is on the side of `bound` the paper states, a difference within 1 % of the
/// bound counting as none (as for ratios): at least the bound, or below it.
fn verdict_side(ours: f64, bound: f64, stated: Stated) -> bool {
    let slack = 0.01 * bound.abs();
    match stated {
        Stated::AtLeast => ours >= bound - slack,
        Stated::Below => ours < bound - slack,
        Stated::Number => unreachable!("a number is not a side"),
    }
}

fn pct(x: f64) -> String {
    format!("{:+.1} %", (x - 1.0) * 100.0)
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "–",
    }
}

/// The report: a summary table of the claims, then each claim per benchmark.
pub fn report_markdown(r: &Repro, outs: &[Outcome]) -> String {
    let s = &r.sweep;
    let show = |c: &Claim, v: f64| if c.measure.is_ratio() { pct(v) } else { format!("{v:.3}") };
    let side = |c: &Claim| match c.stated {
        Stated::Number => "",
        Stated::AtLeast => "≥ ",
        Stated::Below => "< ",
    };
    let mut md = format!(
        "# {}\n\nPaper: {}.\n\nMachine: `{}`. Benchmarks: {}.\n",
        r.spec.title,
        r.spec.paper,
        s.machine,
        s.workloads.iter().map(|(l, _)| format!("`{l}`")).collect::<Vec<_>>().join(", ")
    );
    md.push_str(&match s.max_cycles {
        0 => "Runs are not capped.\n".to_string(),
        n => format!("Each run is capped at {n} core cycles; a claim marked *capped* rests on a run that hit the cap.\n"),
    });
    md.push_str(
        "\n| source | claim | paper | warpscope | same direction | within 2× |\n|---|---|---|---|---|---|\n",
    );
    for (c, o) in r.spec.claims.iter().zip(outs) {
        let ours = o.ours.map_or("(missing runs)".to_string(), |v| show(c, v));
        let capped = if o.capped { " *capped*" } else { "" };
        md.push_str(&format!(
            "| {} | {} | {}{} | {ours}{capped} | {} | {} |\n",
            c.source,
            c.what,
            side(c),
            show(c, c.paper),
            yes_no(o.same_direction),
            yes_no(o.within_2x)
        ));
    }
    for (c, o) in r.spec.claims.iter().zip(outs) {
        let rel = c.baseline.as_deref().map_or(String::new(), |b| format!(" against `{b}`"));
        let arrow = if c.baseline.is_some() { " (baseline → variant)" } else { "" };
        let heads: String = c.diagnose.iter().map(|m| format!(" `{m}`{arrow} |")).collect();
        let rule = "---|".repeat(c.diagnose.len());
        md.push_str(&format!(
            "\n## {}: {}\n\n`{}`{rel}, {}.\n\n| benchmark | warpscope |{heads}\n|---|---|{rule}\n",
            c.source,
            c.what,
            c.variant,
            match (&c.measure, c.aggregate) {
                (Measure::Speedup, Aggregate::Mean) =>
                    "speedup (baseline cycles / variant cycles), geometric mean".to_string(),
                (Measure::Speedup, Aggregate::Min) =>
                    "speedup (baseline cycles / variant cycles), the smallest".to_string(),
                (Measure::Ratio(m), Aggregate::Mean) => format!("`{m}` ratio, geometric mean"),
                (Measure::Ratio(m), Aggregate::Min) =>
                    format!("`{m}` ratio, the smallest over the benchmarks"),
                (Measure::Value(m), Aggregate::Mean) => format!("`{m}`, mean"),
                (Measure::Value(m), Aggregate::Min) => format!("`{m}`, the smallest over the benchmarks"),
            }
        ));
        let num = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.3}"));
        for ((w, v), d) in o.per_workload.iter().zip(&o.diagnostics) {
            let cells: String = d
                .iter()
                .map(|&(b, v)| {
                    if c.baseline.is_some() {
                        format!(" {} → {} |", num(b), num(v))
                    } else {
                        format!(" {} |", num(v))
                    }
                })
                .collect();
            md.push_str(&format!("| `{w}` | {} |{cells}\n", v.map_or("(missing)".into(), |v| show(c, v))));
        }
    }
    md
}

/// Bars of paper and warpscope, one panel per claim (ratios as % change).
pub fn report_svg(r: &Repro, outs: &[Outcome]) -> Result<String> {
    let panels: Vec<BarPanel> = r
        .spec
        .claims
        .iter()
        .zip(outs)
        .filter_map(|(c, o)| {
            let as_plotted = |v: f64| if c.measure.is_ratio() { (v - 1.0) * 100.0 } else { v };
            Some(BarPanel {
                title: format!("{}: {}", c.source, c.what),
                y_label: if c.measure.is_ratio() { "% change".into() } else { c.measure.metric().into() },
                values: vec![
                    Sample { y: as_plotted(c.paper), capped: false },
                    Sample { y: as_plotted(o.ours?), capped: o.capped },
                ],
            })
        })
        .collect();
    if panels.is_empty() {
        bail!("no claim has results yet");
    }
    bars(&r.spec.title, "source", &["paper".into(), "warpscope".into()], &panels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_direction_and_size() {
        assert_eq!(verdict_ratio(1.08, 1.10), (Some(true), Some(true)));
        assert_eq!(verdict_ratio(1.02, 1.10), (Some(true), Some(false)), "a fifth of the effect");
        assert_eq!(verdict_ratio(0.95, 1.10), (Some(false), Some(false)));
        assert_eq!(verdict_ratio(1.005, 1.0), (Some(true), Some(true)), "both no change");
        assert_eq!(verdict_ratio(1.30, 1.10), (Some(true), Some(false)), "three times the effect");
    }

    /// Seed 000 §VI-A: "no application suffering any slowdown" holds for a slowest ratio of
    /// 0.995 (within 1 % of none) and fails at 0.98; "lowers" needs more than 1 % below.
    #[test]
    fn a_stated_side_holds_within_one_percent() {
        assert!(verdict_side(1.03, 1.0, Stated::AtLeast));
        assert!(verdict_side(0.995, 1.0, Stated::AtLeast));
        assert!(!verdict_side(0.98, 1.0, Stated::AtLeast));
        assert!(verdict_side(0.95, 1.0, Stated::Below));
        assert!(!verdict_side(0.995, 1.0, Stated::Below), "within 1 %: not lowered");
    }
}
