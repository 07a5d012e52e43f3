//! `warpscope compare`: one workload on several variants of a machine (`--vary key=a,b,c`,
//! several `--vary` make their cross product), run in parallel, one column per variant.

use super::chart::{Kind, Panel, Sample, charted, figure};
use super::run::{RunOptions, simulate};
use super::table;
use crate::config::{Config, ConfigError, Origin};
use crate::sim::stats::metrics::{SUMMARY, format, plotted, unit, value};
use crate::sim::stats::report::{Report, stopped_at_limit};
use crate::workload::Workload;
use anyhow::Result;
use rayon::prelude::*;
use std::sync::Arc;

/// One machine variant: a name and its `--set` assignments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    pub sets: Vec<String>,
    /// The argument each of `sets` comes from (`--vary dram.banks=16,12`), which an error
    /// about the assignment names: the user gave no `--set` of it.
    pub from: Vec<String>,
}

impl Variant {
    /// `e`, an error about one of the variant's assignments as a `--set` of it, named by
    /// the argument the assignment comes from (all of the variant's, for a problem the
    /// assignments make together).
    fn blame(&self, e: ConfigError) -> ConfigError {
        let Origin::Override(arg) = &e.origin else { return e };
        let from = match self.sets.iter().rposition(|s| s == arg) {
            Some(i) => self.from[i].clone(),
            None => {
                // A `--variant`'s assignments are side by side, each `--vary` has one.
                let mut all = self.from.clone();
                all.dedup();
                all.join(", ")
            }
        };
        ConfigError { origin: Origin::Argument(from), ..e }
    }
}

/// Splits `a,b,c` at top-level commas (RON values may contain commas inside brackets).
pub fn split_values(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '"' => in_str = !in_str,
            '(' | '[' | '{' if !in_str => depth += 1,
            ')' | ']' | '}' if !in_str => depth -= 1,
            ',' if depth == 0 && !in_str => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// `--variant NAME:key=v,key=v` arguments: named sets of assignments (for machine variants
/// that change several keys together, like seed 002's "L1 and L2 scaled" points), crossed
/// with the `--vary` lists. An empty assignment list (`base:`) is the machine as loaded.
pub fn named_variants(specs: &[String], varies: &[String]) -> Result<Vec<Variant>, ConfigError> {
    let vary = variants(varies)?;
    if specs.is_empty() {
        return Ok(vary);
    }
    let mut out = Vec::new();
    for spec in specs {
        let Some((name, sets)) = spec.split_once(':') else {
            return Err(ConfigError::argument(
                format!("--variant {spec}"),
                "expected NAME:key.path=value,key.path=value,...",
            ));
        };
        let sets: Vec<String> = if sets.trim().is_empty() { Vec::new() } else { split_values(sets) };
        if let Some(bad) = sets.iter().find(|a| !a.contains('=')) {
            let message = format!("`{bad}` is not a key.path=value assignment");
            return Err(ConfigError::argument(format!("--variant {spec}"), message));
        }
        for v in &vary {
            let name = if v.name.is_empty() {
                name.trim().to_string()
            } else {
                format!("{} {}", name.trim(), v.name)
            };
            let from =
                sets.iter().map(|_| format!("--variant {spec}")).chain(v.from.iter().cloned()).collect();
            out.push(Variant {
                name,
                sets: sets.iter().cloned().chain(v.sets.iter().cloned()).collect(),
                from,
            });
        }
    }
    Ok(out)
}

/// The cross product of `--vary key=v1,v2` arguments.
pub fn variants(varies: &[String]) -> Result<Vec<Variant>, ConfigError> {
    let mut out = vec![Variant { name: String::new(), sets: Vec::new(), from: Vec::new() }];
    for (i, arg) in varies.iter().enumerate() {
        let Some((key, values)) = arg.split_once('=') else {
            return Err(ConfigError::argument(
                format!("--vary {arg}"),
                "expected key.path=value1,value2,...",
            ));
        };
        let values = split_values(values);
        let refuse = |message: String| ConfigError {
            origin: Origin::Argument(format!("--vary {arg}")),
            position: None,
            key: key.trim().into(),
            message,
        };
        if values.iter().any(|v| v.is_empty()) {
            return Err(refuse("empty value in the list".into()));
        }
        // A key varied twice, or a value listed twice, would run the same machine under two
        // names (issue 37.4).
        if varies[..i].iter().any(|a| a.split_once('=').is_some_and(|(k, _)| k.trim() == key.trim())) {
            return Err(refuse("is varied twice; give each key one --vary with all its values".into()));
        }
        if let Some(v) = values.iter().enumerate().find_map(|(i, v)| values[..i].contains(v).then_some(v)) {
            return Err(refuse(format!("lists `{v}` twice")));
        }
        let single = varies.len() == 1;
        out = out
            .into_iter()
            .flat_map(|v| {
                values.iter().map(move |val| {
                    let (mut sets, mut from) = (v.sets.clone(), v.from.clone());
                    sets.push(format!("{key}={val}"));
                    from.push(format!("--vary {arg}"));
                    let part = if single { val.clone() } else { format!("{key}={val}") };
                    let name = if v.name.is_empty() { part } else { format!("{} {part}", v.name) };
                    Variant { name, sets, from }
                })
            })
            .collect();
    }
    Ok(out)
}

/// Results of a comparison.
pub struct Comparison {
    /// The machine the variants vary.
    pub machine: String,
    pub variants: Vec<Variant>,
    pub reports: Vec<Report>,
}

/// Every variant's config, named after the variant (reporting the first bad one at the
/// `--vary` or `--variant` argument it comes from).
pub fn configs(base: &Config, variants: &[Variant]) -> Result<Vec<Config>, ConfigError> {
    variants
        .iter()
        .map(|v| {
            let mut c = base.with_sets(&v.sets).map_err(|e| v.blame(e))?;
            c.name = format!("{} [{}]", base.name, v.name);
            Ok(c)
        })
        .collect()
}

/// Checks `--metrics` names against the variants' reports before anything runs.
pub fn check_metrics(
    metrics: &[String],
    configs: &[Config],
    workload: &Arc<Workload>,
) -> Result<(), ConfigError> {
    super::metrics::check(metrics, configs.iter().map(|c| (c, Arc::clone(workload))))
        .map_err(|message| ConfigError::argument(format!("--metrics {}", metrics.join(",")), message))
}

/// Runs the variants' configs (from [`configs`] of `base`) in parallel.
pub fn compare(
    base: &Config,
    configs: &[Config],
    workload: Arc<Workload>,
    variants: Vec<Variant>,
    opts: &RunOptions,
) -> Result<Comparison> {
    let mut all = compare_all(base, configs, &[workload], variants, opts)?;
    Ok(all.remove(0))
}

/// Runs every workload on every variant's config, all in parallel; a comparison per workload.
pub fn compare_all(
    base: &Config,
    configs: &[Config],
    workloads: &[Arc<Workload>],
    variants: Vec<Variant>,
    opts: &RunOptions,
) -> Result<Vec<Comparison>> {
    let runs: Vec<(usize, usize)> =
        (0..workloads.len()).flat_map(|w| (0..configs.len()).map(move |c| (w, c))).collect();
    let mut reports: Vec<Report> = runs
        .par_iter()
        .map(|&(w, c)| simulate(&configs[c], Arc::clone(&workloads[w]), opts).map(|(_, r)| r))
        .collect::<Result<_>>()?;
    let mut out = Vec::new();
    for _ in workloads {
        let rest = reports.split_off(configs.len());
        out.push(Comparison { machine: base.name.clone(), variants: variants.clone(), reports });
        reports = rest;
    }
    Ok(out)
}

/// The benchmarks' labels: each workload's name, and where two share one, the argument that
/// named it after it.
pub fn benchmark_labels(workloads: &[Arc<Workload>], args: &[String]) -> Vec<String> {
    workloads
        .iter()
        .zip(args)
        .map(|(w, arg)| {
            if workloads.iter().filter(|o| o.name == w.name).count() > 1 {
                format!("{} ({arg})", w.name)
            } else {
                w.name.clone()
            }
        })
        .collect()
}

/// `metric` of every variant on every workload, normalised to variant `baseline`.
pub fn normalised(
    comparisons: &[Comparison],
    labels: &[String],
    metric: &str,
    baseline: usize,
) -> super::speedup::Normalised {
    let values = comparisons
        .iter()
        .map(|c| {
            c.reports
                .iter()
                .map(|r| {
                    let value = value(r, metric)?.as_f64()?;
                    Some(super::speedup::Value { value, capped: stopped_at_limit(&r.status) })
                })
                .collect()
        })
        .collect();
    super::speedup::Normalised {
        metric: metric.to_string(),
        baseline,
        benchmarks: labels.to_vec(),
        variants: comparisons
            .first()
            .map_or(Vec::new(), |c| c.variants.iter().map(|v| v.name.clone()).collect()),
        values,
    }
}

/// JSON of several workloads' comparisons: an array of `{workload, variant, sets, report}`.
pub fn json_all(comparisons: &[Comparison], labels: &[String]) -> String {
    let items: Vec<serde_json::Value> = comparisons
        .iter()
        .zip(labels)
        .flat_map(|(c, label)| {
            c.variants.iter().zip(&c.reports).map(move |(v, r)| {
                serde_json::json!({ "workload": label, "variant": v.name, "sets": v.sets, "report": r })
            })
        })
        .collect();
    serde_json::to_string_pretty(&items).expect("reports serialize") + "\n"
}

/// Reads a `--workloads` list: a workload per line (a path, relative to the list's directory,
/// or a benchmark's name), `#` starting a comment. A workload listed twice is refused with
/// both lines.
pub fn workload_list(path: &std::path::Path) -> Result<Vec<String>, ConfigError> {
    let text = crate::config::read_file(path)?;
    let dir = path.parent().unwrap_or(std::path::Path::new(""));
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let item = line.split('#').next().unwrap_or("").trim();
        if item.is_empty() {
            continue;
        }
        let is_path = item.contains('/') || [".ron", ".g", ".traceg"].iter().any(|e| item.ends_with(e));
        let item = if is_path && !std::path::Path::new(item).is_absolute() && !dir.as_os_str().is_empty() {
            dir.join(item).display().to_string()
        } else {
            item.to_string()
        };
        if let Some((_, first)) = out.iter().find(|(w, _)| *w == item) {
            return Err(ConfigError {
                origin: crate::config::Origin::File(path.display().to_string()),
                position: Some((i + 1, 1)),
                key: String::new(),
                message: format!("`{item}` is listed twice (first on line {first}); list each workload once"),
            });
        }
        out.push((item, i + 1));
    }
    if out.is_empty() {
        return Err(ConfigError::argument(
            format!("--workloads {}", path.display()),
            "lists no workload; give one per line".to_string(),
        ));
    }
    Ok(out.into_iter().map(|(w, _)| w).collect())
}

impl Comparison {
    /// A row per metric: its name, (for people) its unit, then a value per variant.
    fn rows(&self, metrics: &[String], human: bool) -> Vec<Vec<String>> {
        metrics
            .iter()
            .map(|m| {
                let mut row = vec![m.clone()];
                if human {
                    row.push(unit(m).to_string());
                }
                for r in &self.reports {
                    let v = value(r, m).unwrap_or(serde_json::Value::Null);
                    row.push(match v {
                        _ if human => format(m, &v),
                        serde_json::Value::String(s) => s,
                        v => v.to_string(),
                    });
                }
                row
            })
            .collect()
    }

    /// Whether variant `i`'s run stopped at a cycle or instruction limit.
    fn capped(&self, i: usize) -> bool {
        stopped_at_limit(&self.reports[i].status)
    }

    /// The header: for people, a unit column and each capped variant marked `(capped)`.
    fn header(&self, human: bool) -> Vec<String> {
        let unit = human.then(|| "unit".to_string());
        let names = self.variants.iter().enumerate().map(|(i, v)| {
            if human && self.capped(i) { format!("{} (capped)", v.name) } else { v.name.clone() }
        });
        std::iter::once("metric".to_string()).chain(unit).chain(names).collect()
    }

    /// The text table; when a run was capped, a line under it says what the mark means.
    pub fn table(&self, metrics: &[String]) -> String {
        let mut t = table::render(&self.header(true), &self.rows(metrics, true));
        if (0..self.reports.len()).any(|i| self.capped(i)) {
            t.push_str(CAPPED_NOTE);
        }
        t
    }

    /// CSV: a row per metric, a column per variant, led by each run's `status` (`done`, or
    /// `max-cycles` / `max-instructions` for a run stopped at a limit).
    pub fn csv(&self, metrics: &[String]) -> String {
        let metrics: Vec<String> = std::iter::once("status".to_string())
            .chain(metrics.iter().filter(|m| *m != "status").cloned())
            .collect();
        let metrics = &metrics[..];
        let quote = |s: &str| {
            if s.contains([',', '"', ' ']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let mut out = self.header(false).iter().map(|h| quote(h)).collect::<Vec<_>>().join(",");
        out.push('\n');
        for row in self.rows(metrics, false) {
            out.push_str(&row.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }

    /// The keys the variants set, in order of first appearance.
    fn varied_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        for s in self.variants.iter().flat_map(|v| &v.sets) {
            let k = s.split('=').next().unwrap_or("").trim().to_string();
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        keys
    }

    /// SVG: a panel per (numeric) metric, a bar per variant; runs stopped at a limit are drawn
    /// as capped. The title names the workload, the machine and the varied keys. The host's
    /// speed is drawn only when `host` (the user named the metrics; see [`charted`]).
    pub fn svg(&self, metrics: &[String], host: bool) -> Result<String> {
        let names: Vec<String> = self.variants.iter().map(|v| v.name.clone()).collect();
        let panels: Vec<Panel> = metrics
            .iter()
            .filter(|m| charted(m, host))
            .filter_map(|m| {
                let values: Option<Vec<Option<Sample>>> = self
                    .reports
                    .iter()
                    .map(|r| {
                        let y = value(r, m).and_then(|v| v.as_f64())?;
                        Some(Some(Sample { y: plotted(m, y), capped: stopped_at_limit(&r.status) }))
                    })
                    .collect();
                Some(Panel {
                    title: m.clone(),
                    kind: Kind::Bars,
                    x_label: String::new(),
                    y_label: unit(m).to_string(),
                    x: names.clone(),
                    series: vec![String::new()],
                    values: vec![values?],
                    reference: None,
                })
            })
            .collect();
        let workload = self.reports.first().map_or(String::new(), |r| r.workload.clone());
        let keys = self.varied_keys().join(", ");
        let title = format!("{workload} on {}, varying {keys}", self.machine);
        let x_label = if self.variants.iter().all(|v| v.sets.len() == 1) { keys.as_str() } else { "variant" };
        let panels: Vec<Panel> =
            panels.into_iter().map(|p| Panel { x_label: x_label.to_string(), ..p }).collect();
        figure(&title, &panels)
    }

    /// JSON: an array of `{variant, sets, report}`.
    pub fn json(&self) -> String {
        let items: Vec<serde_json::Value> = self
            .variants
            .iter()
            .zip(&self.reports)
            .map(|(v, r)| serde_json::json!({ "variant": v.name, "sets": v.sets, "report": r }))
            .collect();
        serde_json::to_string_pretty(&items).expect("reports serialize") + "\n"
    }
}

/// Under a table with capped runs: what `(capped)` means.
const CAPPED_NOTE: &str =
    "\n(capped): the run stopped at a cycle or instruction limit; its numbers are a partial run's.\n";

/// The default metric rows.
pub fn default_metrics() -> Vec<String> {
    SUMMARY.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_top_level_commas() {
        assert_eq!(split_values("a, b,c"), vec!["a", "b", "c"]);
        assert_eq!(split_values("Some((x: 1, y: 2)),None"), vec!["Some((x: 1, y: 2))", "None"]);
        assert_eq!(split_values("\"a,b\",c"), vec!["\"a,b\"", "c"]);
    }

    #[test]
    fn named_variants_cross_the_varies() {
        let v =
            named_variants(&["base:".into(), "big:l1.ways=8,l2.ways=32".into()], &["a=1,2".into()]).unwrap();
        let names: Vec<&str> = v.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, vec!["base 1", "base 2", "big 1", "big 2"]);
        assert_eq!(v[3].sets, vec!["l1.ways=8", "l2.ways=32", "a=2"]);
        assert_eq!(named_variants(&["only:x=1".into()], &[]).unwrap()[0].sets, vec!["x=1"]);
        assert!(named_variants(&["nocolon".into()], &[]).is_err());
        assert!(named_variants(&["n:x".into()], &[]).is_err());
    }

    #[test]
    fn cross_product_names_variants() {
        let v = variants(&["dram.scheduler=fcfs,frfcfs".into()]).unwrap();
        assert_eq!(v.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), vec!["fcfs", "frfcfs"]);
        let v = variants(&["a=1,2".into(), "b=x,y".into()]).unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(v[1].name, "a=1 b=y");
        assert_eq!(v[1].sets, vec!["a=1", "b=y"]);
        assert!(variants(&["nokey".into()]).is_err());
    }
}
