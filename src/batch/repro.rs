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
//! A spec may also name figures: a measure over the values one key takes across the sweep's
//! variants, a line per benchmark (seed 002 Fig. 3: IPC over a fixed L1-miss latency,
//! normalised to the baseline):
//!
//! ```ron
//!     figures: [
//!         (source: "Fig. 3", what: "IPC over the L1-miss latency", axis: "ideal.miss_latency",
//!          measure: Ratio("ipc"), baseline: Some("ideal.memory=real")),
//!     ],
//! ```
//!
//! Where the paper tunes a parameter per benchmark, a side of a claim is the best of several
//! variants on each benchmark (seed 000 §VI-D1: "For each benchmark, we determined the value of
//! α by profiling (possible values being 0.25, 0.5, and 0.75)"):
//!
//! ```ron
//!         (source: "§VI-D1", what: "SBWAS over GMC", measure: Ratio("ipc"),
//!          variant_best_of: ["dram.scheduler=asjf dram.alpha_sjf.alpha=0.25", "dram.scheduler=asjf dram.alpha_sjf.alpha=0.5"],
//!          baseline: Some("dram.scheduler=gmc"), paper: 1.0251),
//! ```
//!
//! On each benchmark the claim measures the candidate with the highest value of its metric
//! (the fewest cycles for a speedup), and the report names it and any tied with it
//! (`baseline_best_of` does the same for the baseline). A claim that measures something else
//! of the profiled variant chooses it by `best_by`, a measure such as `Ratio("ipc")` (seed
//! 004 Fig. 5.6: the share of fully cached loads under SWL-Best, the warp limit with the best
//! IPC).
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

use super::chart::{Kind, Panel, Sample, figure};
use super::sweep::{GridSpec, Made, Sweep, metric_values};
use crate::config::{ConfigError, Origin, error_at_path, parse_ron, read_file};
use crate::sim::stats::keys::{self, Unit};
use crate::sim::stats::metrics::{format as format_value, group, plotted, unit};
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
    #[serde(default)]
    pub figures: Vec<Figure>,
}

/// A figure of the paper redrawn: a measure at each value a key takes across the sweep's
/// variants, a line per benchmark.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    /// Where the paper draws it (`Fig. 3`).
    pub source: String,
    /// What it shows, in the paper's words.
    pub what: String,
    /// The key on the x axis: every variant that assigns it is a point, in the sweep's order.
    pub axis: String,
    pub measure: Measure,
    /// The variant each point is relative to (ratio measures).
    #[serde(default)]
    pub baseline: Option<String>,
    /// The benchmarks drawn; all when empty.
    #[serde(default)]
    pub workloads: Vec<String>,
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
    /// The variant measured: a point's own assignments as the sweep writes them. A claim
    /// gives it or `variant_best_of`.
    #[serde(default, deserialize_with = "some_string")]
    pub variant: Option<String>,
    /// The variants the measured one is profiled from, per benchmark: on each benchmark the
    /// claim measures the one that does best there (see `Measured::best`). This is how a
    /// paper that tunes a parameter per benchmark compares: seed 000 §VI-D1, "For each
    /// benchmark, we determined the value of α by profiling (possible values being 0.25, 0.5,
    /// and 0.75)".
    #[serde(default)]
    pub variant_best_of: Vec<String>,
    /// The variant it is relative to (ratio measures).
    #[serde(default)]
    pub baseline: Option<String>,
    /// The variants the baseline is profiled from, per benchmark, as `variant_best_of` (seed
    /// 000 §I compares WG-W with SBWAS at its profiled α).
    #[serde(default)]
    pub baseline_best_of: Vec<String>,
    /// What a best-of is chosen by when not by the claim's own measure: seed 004 Fig. 5.6
    /// gives the share of fully cached loads under SWL-Best, the warp limit profiled for IPC
    /// (`best_by: Some(Ratio("ipc"))`), not the limit that caches most.
    #[serde(default)]
    pub best_by: Option<Measure>,
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

impl Claim {
    /// The measure the best of each profiled side is chosen by.
    fn chooser(&self) -> &Measure {
        self.best_by.as_ref().unwrap_or(&self.measure)
    }

    /// The variants the measured side is chosen from: `variant`, or `variant_best_of`.
    fn variants(&self) -> &[String] {
        if self.variant_best_of.is_empty() { self.variant.as_slice() } else { &self.variant_best_of }
    }

    /// The variants the baseline is chosen from: `baseline`, `baseline_best_of`, or none.
    fn baselines(&self) -> &[String] {
        if self.baseline_best_of.is_empty() { self.baseline.as_slice() } else { &self.baseline_best_of }
    }

    /// The two sides as the spec gives them: name, variant, best-of list.
    fn sides(&self) -> [(&'static str, &Option<String>, &Vec<String>); 2] {
        [
            ("variant", &self.variant, &self.variant_best_of),
            ("baseline", &self.baseline, &self.baseline_best_of),
        ]
    }

    /// Every variant the claim names, with the field naming it (`variant_best_of[1]`).
    fn named(&self) -> Vec<(String, &str)> {
        let mut named = Vec::new();
        for (name, one, best_of) in self.sides() {
            named.extend(one.iter().map(|v| (name.to_string(), v.as_str())));
            named.extend(
                best_of.iter().enumerate().map(|(k, v)| (format!("{name}_best_of[{k}]"), v.as_str())),
            );
        }
        named
    }

    /// Checks that each side is given one way: a variant, or a best of two or more; an error
    /// is (field, message).
    fn check_sides(&self) -> Result<(), (String, String)> {
        for (name, one, best_of) in self.sides() {
            let field = format!("{name}_best_of");
            match (one, best_of.len()) {
                (Some(_), 1..) => {
                    return Err((field, format!("give `{name}` or `{name}_best_of`, not both")));
                }
                (None, 1) => {
                    return Err((field, format!("a best of one variant; give it as `{name}`")));
                }
                _ => {}
            }
        }
        if self.variants().is_empty() {
            return Err(("variant".into(), "missing: give `variant` or `variant_best_of`".into()));
        }
        if self.best_by.is_some() && self.variant_best_of.is_empty() && self.baseline_best_of.is_empty() {
            return Err((
                "best_by".into(),
                "chooses among a best of: give `variant_best_of` or `baseline_best_of`".into(),
            ));
        }
        Ok(())
    }
}

/// Reads a string as `Some`, so that a spec writes `variant: "..."`, not `Some("...")`.
fn some_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
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
    /// Reads a spec, loads its sweep, and checks that every claim and figure names variants,
    /// benchmarks and a metric the sweep has.
    pub fn load(path: &Path) -> Result<Repro, ConfigError> {
        Repro::from_text(&read_file(path)?, path)
    }

    /// A spec's text, read from `path` (which names it in errors and whose directory its
    /// paths are relative to).
    pub fn from_text(text: &str, path: &Path) -> Result<Repro, ConfigError> {
        let origin = path.display().to_string();
        let mut spec: ReproSpec = parse_ron(text, &Origin::File(origin.clone()))?;
        let mut metrics: Vec<String> = spec.sweep.metrics.clone();
        // Each metric a claim or figure adds to the sweep's, with the field that names it.
        let mut claimed: Vec<(String, &str)> = Vec::new();
        for (i, c) in spec.claims.iter().enumerate() {
            claimed.push((format!("claims[{i}].measure"), c.measure.metric()));
            claimed.extend(c.best_by.as_ref().map(|b| (format!("claims[{i}].best_by"), b.metric())));
            claimed.extend(
                c.diagnose
                    .iter()
                    .enumerate()
                    .map(|(j, d)| (format!("claims[{i}].diagnose[{j}]"), d.as_str())),
            );
        }
        for (i, f) in spec.figures.iter().enumerate() {
            claimed.push((format!("figures[{i}].measure"), f.measure.metric()));
        }
        let mut added: Vec<(String, String)> = Vec::new();
        for (field, m) in claimed {
            if !metrics.iter().any(|x| x == m) {
                metrics.push(m.to_string());
                added.push((field, m.to_string()));
            }
        }
        spec.sweep.metrics = metrics;
        let name = path.file_stem().map_or("repro".into(), |s| s.to_string_lossy().to_string());
        let at =
            |path: &str, message: String| error_at_path(text, &Origin::File(origin.clone()), path, &message);
        // A metric the spec's claims added is refused at the claim that names it, not at the
        // sweep's `metrics` (which may not be in the file at all).
        let sweep =
            Sweep::from_spec(spec.sweep.clone(), path, text, "sweep.", name).map_err(|e| {
                match added.iter().find(|(_, m)| e.message.contains(&format!("unknown metric `{m}`"))) {
                    Some((field, _)) if e.key == "sweep.metrics" => at(field, e.message.clone()),
                    _ => e,
                }
            })?;
        for (i, c) in spec.claims.iter().enumerate() {
            c.check_sides()
                .and_then(|()| {
                    check_refs(&sweep, &c.named(), !c.baselines().is_empty(), &c.measure, &c.workloads)
                })
                .map_err(|(field, message)| at(&format!("claims[{i}].{field}"), message))?;
            if !c.paper.is_finite() {
                let message =
                    format!("= {}: the paper's number is a finite number (1.10 for +10 %)", c.paper);
                return Err(at(&format!("claims[{i}].paper"), message));
            }
            if c.paper <= 0.0 && c.measure.is_ratio() {
                return Err(at(&format!("claims[{i}].paper"), "a ratio is positive (1.10 for +10 %)".into()));
            }
        }
        for (i, f) in spec.figures.iter().enumerate() {
            let refs: Vec<(String, &str)> =
                f.baseline.iter().map(|b| ("baseline".into(), b.as_str())).collect();
            check_refs(&sweep, &refs, f.baseline.is_some(), &f.measure, &f.workloads)
                .map_err(|(field, message)| at(&format!("figures[{i}].{field}"), message))?;
            if axis_points(&sweep, &f.axis).len() < 2 {
                let message = format!("`{}` takes fewer than two values over the sweep's variants", f.axis);
                return Err(at(&format!("figures[{i}].axis"), message));
            }
        }
        Ok(Repro { spec, sweep })
    }
}

/// Checks that the variants `refs` name (field, variant) are the sweep's, that a ratio has a
/// baseline, and that `workloads` are the sweep's benchmarks; an error is (field, message).
fn check_refs(
    sweep: &Sweep,
    refs: &[(String, &str)],
    has_baseline: bool,
    measure: &Measure,
    workloads: &[String],
) -> Result<(), (String, String)> {
    let variants: Vec<&str> = sweep.points.iter().map(|p| p.variant.as_str()).collect();
    let labels: Vec<&str> = sweep.workloads.iter().map(|(l, _)| l.as_str()).collect();
    if let Some((field, v)) = refs.iter().find(|(_, v)| !variants.contains(v)) {
        return Err((
            field.clone(),
            format!("`{v}` is not a variant of the sweep; its variants: {}", unique(&variants)),
        ));
    }
    if measure.is_ratio() && !has_baseline {
        return Err(("baseline".into(), "a ratio needs a baseline variant".into()));
    }
    if let Some(w) = workloads.iter().find(|w| !labels.contains(&w.as_str())) {
        return Err((
            "workloads".into(),
            format!("`{w}` is not a workload of the sweep; its workloads: {}", labels.join(", ")),
        ));
    }
    Ok(())
}

/// The variants that assign `axis`, in the sweep's order, with the value each gives it.
fn axis_points<'a>(sweep: &'a Sweep, axis: &str) -> Vec<(&'a str, String)> {
    sweep
        .points
        .iter()
        .filter(|p| p.workload == 0)
        .filter_map(|p| {
            let v = Sweep::axis_value(p, axis);
            (!v.is_empty()).then_some((p.variant.as_str(), v))
        })
        .collect()
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
    /// Per benchmark: the variants and the baselines that do best there among their
    /// candidates — several when they tie, the first being the one measured; none when a
    /// candidate's run is missing or lacks the metric.
    pub chosen: Vec<(Vec<String>, Vec<String>)>,
    /// Per benchmark, per `diagnose` key: the baseline's and the variant's values.
    pub diagnostics: Vec<Vec<(Option<f64>, Option<f64>)>>,
    /// The aggregate (geometric mean of ratios, mean of values), when every benchmark has one.
    pub ours: Option<f64>,
    /// Some run of the claim stopped at the cycle cap.
    pub capped: bool,
    pub same_direction: Option<bool>,
    pub within_2x: Option<bool>,
}

/// The sweep's results, looked up by benchmark, variant and metric.
struct Measured<'a> {
    sweep: &'a Sweep,
    values: Vec<Option<Vec<Option<Sample>>>>,
}

impl Measured<'_> {
    fn load<'a>(sweep: &'a Sweep, results: &Path, made: Made) -> Result<Measured<'a>> {
        Ok(Measured { sweep, values: metric_values(sweep, results, made)? })
    }

    fn get(&self, wi: usize, variant: &str, metric: &str) -> Option<Sample> {
        let m = self.sweep.metrics.iter().position(|x| x == metric)?;
        let p = self.sweep.points.iter().find(|p| p.workload == wi && p.variant == variant)?;
        self.values[p.index].as_ref()?.get(m).copied().flatten()
    }

    /// Of `candidates`, those that do best on benchmark `wi`: the highest value of `measure`'s
    /// metric, or the fewest cycles for a speedup; all of them when they tie, in the
    /// candidates' order (the first is the one measured). This is the profiling of seed 000
    /// §VI-D1, which runs SBWAS on each benchmark at the α (of 0.25, 0.5 and 0.75) that
    /// performs best there. Empty when a candidate's run is missing or lacks the metric: a
    /// profile needs them all.
    fn best<'c>(&self, wi: usize, measure: &Measure, candidates: &'c [String]) -> Vec<&'c str> {
        let sign = if matches!(measure, Measure::Speedup) { -1.0 } else { 1.0 };
        let values: Option<Vec<f64>> =
            candidates.iter().map(|c| self.get(wi, c, measure.metric()).map(|x| sign * x.y)).collect();
        let Some(values) = values else { return Vec::new() };
        let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        candidates.iter().zip(values).filter(|&(_, y)| y == top).map(|(c, _)| c.as_str()).collect()
    }

    /// `measure` of `variant` (against `baseline`) on benchmark `wi`, capped when either run
    /// was; None when a run is missing or lacks the metric, or the ratio's divisor is 0.
    fn measure(&self, wi: usize, measure: &Measure, variant: &str, baseline: Option<&str>) -> Option<Sample> {
        let metric = measure.metric();
        let v = self.get(wi, variant, metric)?;
        let b = baseline.and_then(|b| self.get(wi, b, metric));
        let y = match (measure, b) {
            (Measure::Speedup, Some(b)) if v.y > 0.0 => b.y / v.y,
            (Measure::Ratio(_), Some(b)) if b.y > 0.0 => v.y / b.y,
            (Measure::Value(_), _) => v.y,
            _ => return None,
        };
        Some(Sample { y, capped: v.capped || b.is_some_and(|b| b.capped) })
    }

    /// The benchmarks `only` names (all when empty), with their indices.
    fn workloads<'b>(&'b self, only: &'b [String]) -> impl Iterator<Item = (usize, &'b String)> {
        let all = self.sweep.workloads.iter().map(|(label, _)| label).enumerate();
        all.filter(move |(_, label)| only.is_empty() || only.contains(label))
    }
}

/// Measures every claim from the sweep's results file.
pub fn outcomes(r: &Repro, results: &Path) -> Result<Vec<Outcome>> {
    outcomes_made(r, results, Made::Now)
}

/// [`outcomes`] from a results file made as `made` says: [`Made::Earlier`] for `--since`'s,
/// which may predate an edit of the machine file (the change it is asked about).
pub fn outcomes_made(r: &Repro, results: &Path, made: Made) -> Result<Vec<Outcome>> {
    let m = Measured::load(&r.sweep, results, made)?;
    let mut out = Vec::new();
    for c in &r.spec.claims {
        let mut per = Vec::new();
        let mut chosen = Vec::new();
        let mut diagnostics = Vec::new();
        let mut capped = false;
        for (wi, label) in m.workloads(&c.workloads) {
            let variants = m.best(wi, c.chooser(), c.variants());
            let baselines = m.best(wi, c.chooser(), c.baselines());
            let (variant, baseline) = (variants.first().copied(), baselines.first().copied());
            let ours = variant.and_then(|v| m.measure(wi, &c.measure, v, baseline));
            capped |= ours.is_some_and(|x| x.capped);
            per.push((label.clone(), ours.map(|x| x.y)));
            let owned = |v: Vec<&str>| v.into_iter().map(String::from).collect();
            chosen.push((owned(variants), owned(baselines)));
            let value = |variant: Option<&str>, k: &str| variant.and_then(|v| m.get(wi, v, k)).map(|x| x.y);
            diagnostics.push(c.diagnose.iter().map(|k| (value(baseline, k), value(variant, k))).collect());
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
        out.push(Outcome { per_workload: per, chosen, diagnostics, ours, capped, same_direction, within_2x });
    }
    Ok(out)
}

/// A figure as measured: the axis's values, and per benchmark its value at each.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub x: Vec<String>,
    pub lines: Vec<(String, Vec<Option<Sample>>)>,
}

/// Measures every figure from the sweep's results file.
pub fn curves(r: &Repro, results: &Path) -> Result<Vec<Curve>> {
    let m = Measured::load(&r.sweep, results, Made::Now)?;
    let curve = |f: &Figure| {
        let points = axis_points(&r.sweep, &f.axis);
        let at = |wi: usize| -> Vec<Option<Sample>> {
            points.iter().map(|(v, _)| m.measure(wi, &f.measure, v, f.baseline.as_deref())).collect()
        };
        Curve {
            x: points.iter().map(|(_, x)| x.clone()).collect(),
            lines: m.workloads(&f.workloads).map(|(wi, label)| (label.clone(), at(wi))).collect(),
        }
    };
    Ok(r.spec.figures.iter().map(curve).collect())
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

/// A claim's number as the report prints it: a ratio as a percentage change, a value as `run`
/// prints its report key.
pub(crate) fn show(c: &Claim, v: f64) -> String {
    if c.measure.is_ratio() { pct(v) } else { key_value(c.measure.metric(), v) }
}

/// A report key's value as `run` prints it: its unit's decimals, thousands separated, a share
/// as a percentage.
fn key_value(key: &str, v: f64) -> String {
    format_value(key, &serde_json::json!(v))
}

/// A report key named on a chart's axis, with its unit.
fn axis_label(key: &str) -> String {
    match unit(key) {
        "" => key.to_string(),
        u => format!("{key}, {u}"),
    }
}

/// A report key named in a table's header, with its unit where it has one its values do not
/// show (a count, a mean of counts and a percentage need none).
fn key_head(key: &str) -> String {
    match keys::unit(key) {
        Unit::Text | Unit::Percent | Unit::Count | Unit::Mean => format!("`{key}`"),
        u => format!("`{key}`, {}", u.name()),
    }
}

pub(crate) fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "–",
    }
}

/// The report: a summary table of the claims, the figures' values, then each claim per
/// benchmark.
pub fn report_markdown(r: &Repro, outs: &[Outcome], curves: &[Curve]) -> String {
    let s = &r.sweep;
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
    md.push_str(&match s.limits().map(|l| (l.cycles, l.instructions)) {
        None => "Runs are capped as each point's `sim.max_cycles` and `sim.max_instructions` say, which differ between points; a claim marked *capped* rests on a run that hit a cap.\n".to_string(),
        Some((0, 0)) => "Runs are not capped.\n".to_string(),
        Some((n, 0)) => format!("Each run is capped at {} core cycles; a claim marked *capped* rests on a run that hit the cap.\n", group(n)),
        Some((0, i)) => format!(
            "Each run is capped at {} thread instructions (GPGPU-Sim's `-gpgpu_max_insn`); a claim marked *capped* rests on a run that hit the cap.\n",
            group(i)
        ),
        Some((n, i)) => format!(
            "Each run is capped at {} core cycles and at {} thread instructions (GPGPU-Sim's `-gpgpu_max_insn`), whichever comes first; a claim marked *capped* rests on a run that hit a cap.\n",
            group(n),
            group(i)
        ),
    });
    md.push_str(
        "\n| source | claim | paper | warpscope | same direction | within 2× |\n|---|---|---|---|---|---|\n",
    );
    for (c, o) in r.spec.claims.iter().zip(outs) {
        let ours = o.ours.map_or("(none: a run missing, or a ratio over 0)".to_string(), |v| show(c, v));
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
    for (f, curve) in r.spec.figures.iter().zip(curves) {
        md.push_str(&figure_markdown(f, curve));
    }
    for (c, o) in r.spec.claims.iter().zip(outs) {
        let has_baseline = !c.baselines().is_empty();
        let rel =
            if has_baseline { format!(" against {}", side_md(c, c.baselines())) } else { String::new() };
        let arrow = if has_baseline { " (baseline → variant)" } else { "" };
        // A side profiled per benchmark gets a column saying which of its variants was chosen.
        let profiled = [!c.variant_best_of.is_empty(), !c.baseline_best_of.is_empty()];
        let mut heads: String = ["variant", "baseline"]
            .iter()
            .zip(profiled)
            .filter(|(_, p)| *p)
            .map(|(s, _)| format!(" {s} chosen |"))
            .collect();
        heads.extend(c.diagnose.iter().map(|m| format!(" {}{arrow} |", key_head(m))));
        let rule = "---|".repeat(profiled.iter().filter(|p| **p).count() + c.diagnose.len());
        md.push_str(&format!(
            "\n## {}: {}\n\n{}{rel}, {}.\n\n| benchmark | warpscope |{heads}\n|---|---|{rule}\n",
            c.source,
            c.what,
            side_md(c, c.variants()),
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
        let num = |m: &str, x: Option<f64>| x.map_or("–".to_string(), |x| key_value(m, x));
        let name = |x: &Vec<String>| match &x[..] {
            [] => " – |".to_string(),
            [one] => format!(" `{one}` |"),
            [first, rest @ ..] => format!(
                " `{first}` (tied with {}) |",
                rest.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
            ),
        };
        for (((w, v), d), (variant, baseline)) in o.per_workload.iter().zip(&o.diagnostics).zip(&o.chosen) {
            let mut cells: String =
                [variant, baseline].iter().zip(profiled).filter(|(_, p)| *p).map(|(x, _)| name(x)).collect();
            cells.extend(c.diagnose.iter().zip(d).map(|(m, &(b, v))| {
                if has_baseline {
                    format!(" {} → {} |", num(m, b), num(m, v))
                } else {
                    format!(" {} |", num(m, v))
                }
            }));
            md.push_str(&format!("| `{w}` | {} |{cells}\n", v.map_or("(none)".into(), |v| show(c, v))));
        }
    }
    md
}

/// A side of a claim as the report names it: its variant, or the variants it is the best of on
/// each benchmark and by what.
fn side_md(c: &Claim, candidates: &[String]) -> String {
    let quoted = candidates.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ");
    match (candidates.len(), c.chooser()) {
        (1, _) => quoted,
        (_, Measure::Speedup) => format!("the best on each benchmark (the fewest cycles) of {quoted}"),
        (_, m) => format!("the best on each benchmark (the highest `{}`) of {quoted}", m.metric()),
    }
}

/// A figure's section of the report: its value per benchmark at each point of its axis.
fn figure_markdown(f: &Figure, curve: &Curve) -> String {
    let rel = f.baseline.as_deref().map_or(String::new(), |b| format!(" against `{b}`"));
    let what = match &f.measure {
        Measure::Speedup => "speedup (baseline cycles / variant cycles)".to_string(),
        Measure::Ratio(m) => format!("`{m}` ratio"),
        Measure::Value(m) => key_head(m),
    };
    let mut md = format!(
        "\n## {}: {}\n\n{what}{rel} at each value of `{}` (*capped*: over the cycles the run ran).\n\n| benchmark |",
        f.source, f.what, f.axis
    );
    md.extend(curve.x.iter().map(|x| format!(" {x} |")));
    md.push_str(&format!("\n|---|{}\n", "---|".repeat(curve.x.len())));
    for (w, values) in &curve.lines {
        md.push_str(&format!("| `{w}` |"));
        md.extend(values.iter().map(|v| match v {
            None => " – |".to_string(),
            Some(v) => {
                let y = match &f.measure {
                    Measure::Value(m) => key_value(m, v.y),
                    _ => format!("{:.2}×", v.y),
                };
                format!(" {y}{} |", if v.capped { " *capped*" } else { "" })
            }
        }));
        md.push('\n');
    }
    md
}

/// Bars of paper and warpscope, one panel per claim (ratios as % change), then a line panel
/// per figure.
pub fn report_svg(r: &Repro, outs: &[Outcome], curves: &[Curve]) -> Result<String> {
    let sources = vec!["paper".to_string(), "warpscope".to_string()];
    let claims = r.spec.claims.iter().zip(outs).filter_map(|(c, o)| {
        let metric = c.measure.metric();
        let as_plotted = |v: f64| if c.measure.is_ratio() { (v - 1.0) * 100.0 } else { plotted(metric, v) };
        Some(Panel {
            title: format!("{}: {}", c.source, c.what),
            kind: Kind::Bars,
            x_label: String::new(),
            y_label: if c.measure.is_ratio() { "% change".into() } else { axis_label(metric) },
            x: vec![String::new()],
            series: sources.clone(),
            values: vec![
                vec![Some(Sample::real(as_plotted(c.paper)))],
                vec![Some(Sample { y: as_plotted(o.ours?), capped: o.capped })],
            ],
            reference: None,
        })
    });
    let figures = r.spec.figures.iter().zip(curves).map(|(f, curve)| Panel {
        title: format!("{}: {}", f.source, f.what),
        // A capped run's cycle count is the cap; every other key is measured over the cycles
        // it ran.
        kind: Kind::Lines { rates: f.measure.metric() != "cycles" },
        x_label: f.axis.clone(),
        y_label: match &f.measure {
            Measure::Speedup => "speedup".into(),
            Measure::Ratio(m) => format!("{m}, × baseline's"),
            Measure::Value(m) => axis_label(m),
        },
        x: curve.x.clone(),
        series: curve.lines.iter().map(|(w, _)| w.clone()).collect(),
        values: curve
            .lines
            .iter()
            .map(|(_, v)| {
                let as_plotted = |s: Sample| match &f.measure {
                    Measure::Value(m) => Sample { y: plotted(m, s.y), ..s },
                    _ => s,
                };
                v.iter().map(|s| s.map(as_plotted)).collect()
            })
            .collect(),
        reference: None,
    });
    let panels: Vec<Panel> = claims.chain(figures).collect();
    if panels.iter().all(|p| p.values.iter().flatten().all(Option::is_none)) {
        bail!("no claim or figure has results yet");
    }
    figure(&r.spec.title, &panels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// α-SJF at the three α of seed 000 §VI-D1.
    const ALPHAS: &str = r#"["dram.scheduler=asjf dram.alpha_sjf.alpha=0.25", "dram.scheduler=asjf dram.alpha_sjf.alpha=0.5", "dram.scheduler=asjf dram.alpha_sjf.alpha=0.75"]"#;

    /// Writes a spec with `claims` over two benchmarks (the tiny test workload and `stream`)
    /// and four variants (GMC, α-SJF at each α) into a fresh directory `name`, and loads it.
    fn load_spec(name: &str, claims: &str) -> (std::path::PathBuf, Result<Repro, ConfigError>) {
        let dir = std::env::temp_dir().join(format!("warpscope-repro-unit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let abs = |p: &str| std::fs::canonicalize(p).unwrap().display().to_string();
        let spec = format!(
            r#"(
    title: "best of", paper: "none",
    sweep: (
        workloads: ["{}", "{}"],
        points: [["dram.scheduler=gmc"], ["dram.scheduler=asjf", "dram.alpha_sjf.alpha=0.25"],
                 ["dram.scheduler=asjf", "dram.alpha_sjf.alpha=0.5"], ["dram.scheduler=asjf", "dram.alpha_sjf.alpha=0.75"]],
        metrics: ["cycles", "ipc"],
    ),
    claims: [
{claims}
    ],
)
"#,
            abs("tests/fixtures/tiny.ron"),
            abs("sample-configs/workloads/stream.ron")
        );
        let path = dir.join("spec.ron");
        std::fs::write(&path, spec).unwrap();
        let r = Repro::load(&path);
        (dir, r)
    }

    /// A claim's paper number that is not a finite number is refused at its field, for every
    /// measure (RON reads `NaN`, `inf` and `-inf`); a ratio must also be positive.
    #[test]
    fn a_paper_number_is_finite_and_a_ratio_positive() {
        let measures = [r#"Ratio("ipc")"#, "Speedup", r#"Value("cycles")"#];
        for (k, measure) in measures.iter().enumerate() {
            let baseline = if k < 2 { r#"baseline: Some("dram.scheduler=gmc"), "# } else { "" };
            for (j, paper) in ["NaN", "inf", "-inf", "0.0", "1.5"].iter().enumerate() {
                let claim = format!(
                    r#"(source: "S", what: "w", measure: {measure}, variant: "dram.scheduler=gmc", {baseline}paper: {paper}),"#
                );
                let (dir, r) = load_spec(&format!("paper-{k}-{j}"), &claim);
                let _ = std::fs::remove_dir_all(dir);
                let e = r.as_ref().err().map(|e| e.to_string()).unwrap_or_default();
                match (*paper, k) {
                    ("1.5", _) | ("0.0", 2) => assert!(r.is_ok(), "{measure} {paper}: {e}"),
                    ("0.0", _) => assert!(e.contains("claims[0].paper: a ratio is positive"), "{e}"),
                    _ => {
                        assert!(
                            e.contains(&format!(
                                "claims[0].paper = {paper}: the paper's number is a finite number"
                            )),
                            "{measure} {paper}: {e}"
                        );
                        assert!(e.contains("spec.ron:"), "positioned: {e}");
                    }
                }
            }
        }
    }

    /// Profiling as seed 000 §VI-D1 does it: on each benchmark the α with the highest IPC (or
    /// the fewest cycles, for a speedup), which differs from benchmark to benchmark here.
    #[test]
    fn a_best_of_takes_each_benchmarks_best_variant() {
        let claims = format!(
            r#"(source: "§VI-D1", what: "profiled", measure: Ratio("ipc"), variant_best_of: {ALPHAS},
                baseline: Some("dram.scheduler=gmc"), paper: 1.0251),
               (source: "§VI-D1", what: "α = 0.5", measure: Ratio("ipc"), variant: "dram.scheduler=asjf dram.alpha_sjf.alpha=0.5",
                baseline: Some("dram.scheduler=gmc"), paper: 1.0251),
               (source: "§I", what: "over profiled", measure: Ratio("ipc"), variant: "dram.scheduler=gmc",
                baseline_best_of: {ALPHAS}, paper: 1.073),
               (source: "S", what: "speedup profiled", measure: Speedup, variant_best_of: {ALPHAS},
                baseline: Some("dram.scheduler=gmc"), paper: 1.1),
               (source: "Fig. 5.6", what: "cycles of the IPC-best", measure: Value("cycles"), variant_best_of: {ALPHAS},
                best_by: Some(Ratio("ipc")), paper: 1000.0),
               (source: "Fig. 5.6", what: "the most cycles", measure: Value("cycles"), variant_best_of: {ALPHAS},
                paper: 1000.0),"#
        );
        let (dir, r) = load_spec("best", &claims);
        let r = r.unwrap_or_else(|e| panic!("{e}"));
        // (ipc, cycles) per benchmark for GMC, α = 0.25, 0.5, 0.75: the highest IPC is at
        // α = 0.5 (tied with 0.75) on the first and 0.25 on the second; the fewest cycles at
        // 0.25 and 0.75.
        let runs = [
            [(1.0, 1000), (0.9, 900), (1.2, 1100), (1.2, 1200)],
            [(2.0, 1000), (2.5, 1000), (2.0, 1000), (1.5, 800)],
        ];
        let line = |p: &super::super::sweep::Point| {
            let (ipc, cycles) = runs[p.workload][p.index % 4];
            let v = serde_json::json!({"point": p.index, "key": p.key, "status": "done", "report": {"ipc": ipc, "cycles": cycles}});
            format!("{v}\n")
        };
        let results = dir.join("results.jsonl");
        std::fs::write(&results, r.sweep.points.iter().map(line).collect::<String>()).unwrap();
        let outs = outcomes(&r, &results).unwrap();
        let alpha = |a: &[&str]| -> Vec<String> {
            a.iter().map(|a| format!("dram.scheduler=asjf dram.alpha_sjf.alpha={a}")).collect()
        };
        let gmc = vec!["dram.scheduler=gmc".to_string()];
        assert_eq!(
            outs[0].chosen,
            vec![(alpha(&["0.5", "0.75"]), gmc.clone()), (alpha(&["0.25"]), gmc.clone())]
        );
        let close = |o: &Outcome, x: f64| (o.ours.unwrap() - x).abs() < 1e-12;
        assert!(close(&outs[0], (1.2f64 * 1.25).sqrt()), "{:?}", outs[0].ours);
        assert!(close(&outs[1], 1.2f64.sqrt()), "one α for all: {:?}", outs[1].ours);
        assert_eq!(
            outs[2].chosen,
            vec![(gmc.clone(), alpha(&["0.5", "0.75"])), (gmc.clone(), alpha(&["0.25"]))]
        );
        assert!(close(&outs[2], (1.0f64 / 1.2 * 2.0 / 2.5).sqrt()), "{:?}", outs[2].ours);
        assert_eq!(outs[3].chosen, vec![(alpha(&["0.25"]), gmc.clone()), (alpha(&["0.75"]), gmc.clone())]);
        assert!(close(&outs[3], (1000.0f64 / 900.0 * 1000.0 / 800.0).sqrt()), "{:?}", outs[3].ours);
        // `best_by`: another key of the variant the IPC profile picks (α = 0.5 and 0.25: 1100
        // and 1000 cycles), not the variant with the most cycles (α = 0.75, then 0.25).
        assert_eq!(
            outs[4].chosen.iter().map(|c| c.0.clone()).collect::<Vec<_>>(),
            vec![alpha(&["0.5", "0.75"]), alpha(&["0.25"])]
        );
        assert!(close(&outs[4], 1050.0), "{:?}", outs[4].ours);
        assert_eq!(outs[5].chosen[0].0, alpha(&["0.75"]));
        assert!(close(&outs[5], 1100.0), "{:?}", outs[5].ours);
        // The report names the α chosen on each benchmark, and those tied with it, for the side
        // that is profiled.
        let md = report_markdown(&r, &outs, &[]);
        let (first, second) = (&r.sweep.workloads[0].0, &r.sweep.workloads[1].0);
        assert!(md.contains("| benchmark | warpscope | variant chosen |\n"), "{md}");
        let rows = [
            format!(
                "| `{first}` | +20.0 % | `dram.scheduler=asjf dram.alpha_sjf.alpha=0.5` (tied with `dram.scheduler=asjf dram.alpha_sjf.alpha=0.75`) |\n"
            ),
            format!("| `{second}` | +25.0 % | `dram.scheduler=asjf dram.alpha_sjf.alpha=0.25` |\n"),
        ];
        for row in rows {
            assert!(md.contains(&row), "{row}\n{md}");
        }
        assert!(md.contains("| benchmark | warpscope | baseline chosen |\n"), "{md}");
        // A profile needs every candidate's run: without α = 0.75 on the second benchmark,
        // that benchmark has no number and the claim no aggregate.
        let partial: String = r.sweep.points.iter().filter(|p| p.index != 7).map(line).collect();
        std::fs::write(&results, partial).unwrap();
        let outs = outcomes(&r, &results).unwrap();
        assert_eq!(outs[0].chosen[0].0, alpha(&["0.5", "0.75"]));
        assert_eq!((outs[0].chosen[1].0.len(), outs[0].per_workload[1].1, outs[0].ours), (0, None, None));
        assert!(close(&outs[1], 1.2f64.sqrt()), "the fixed α has its runs");
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A best-of naming a variant the sweep lacks, or given beside the plain field, is refused
    /// at load, naming the file, the position and the field.
    #[test]
    fn a_bad_best_of_is_refused_at_load() {
        let missing = r#"["dram.scheduler=asjf dram.alpha_sjf.alpha=0.25",
                "dram.scheduler=asjf dram.alpha_sjf.alpha=0.3"]"#;
        let cases = [
            (
                format!(
                    r#"(source: "S", what: "w", measure: Ratio("ipc"), variant_best_of: {missing}, baseline: Some("dram.scheduler=gmc"), paper: 1.0)"#
                ),
                "alpha=0.3\"]",
                "claims[0].variant_best_of[1]: `dram.scheduler=asjf dram.alpha_sjf.alpha=0.3` is not a variant of the sweep; its variants: dram.scheduler=gmc, dram.scheduler=asjf dram.alpha_sjf.alpha=0.25, ",
            ),
            (
                format!(
                    r#"(source: "S", what: "w", measure: Ratio("ipc"), variant: "dram.scheduler=gmc",
                baseline: Some("dram.scheduler=gmc"), baseline_best_of: {ALPHAS}, paper: 1.0)"#
                ),
                "baseline_best_of",
                "claims[0].baseline_best_of: give `baseline` or `baseline_best_of`, not both",
            ),
            (
                r#"(source: "S", what: "w", measure: Ratio("ipc"), variant_best_of: ["dram.scheduler=gmc"],
                baseline: Some("dram.scheduler=gmc"), paper: 1.0)"#
                    .to_string(),
                "variant_best_of",
                "claims[0].variant_best_of: a best of one variant; give it as `variant`",
            ),
            (
                r#"(source: "S", what: "w", measure: Value("cycles"), variant: "dram.scheduler=gmc",
                best_by: Some(Ratio("ipc")), paper: 1.0)"#
                    .to_string(),
                "best_by",
                "claims[0].best_by: chooses among a best of: give `variant_best_of` or `baseline_best_of`",
            ),
        ];
        for (i, (claim, at, message)) in cases.iter().enumerate() {
            let (dir, r) = load_spec(&format!("bad{i}"), claim);
            let e = r.err().expect("refused").to_string();
            let text = std::fs::read_to_string(dir.join("spec.ron")).unwrap();
            let line = text.lines().position(|l| l.contains(at)).unwrap() + 1;
            let file = dir.join("spec.ron").display().to_string();
            assert!(e.starts_with(&format!("{file}:{line}:")), "{e}");
            assert!(e.contains(message), "{e}");
            std::fs::remove_dir_all(&dir).ok();
        }
    }

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
