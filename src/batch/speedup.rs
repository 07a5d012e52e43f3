//! Results normalised to a baseline across benchmarks, as papers show them: per benchmark, each
//! variant's speedup over the baseline (baseline cycles / variant cycles) or, for any other
//! key, its value over the baseline's; and their geometric mean over the benchmarks. `compare`
//! (several workloads, `--baseline`) and `sweep --baseline` both print, write and draw it.

use super::chart::{Kind, Panel, Sample, figure};
use super::table;
use crate::config::ConfigError;
use anyhow::Result;

/// One measured value and whether its run stopped at a limit (a partial run's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Value {
    pub value: f64,
    pub capped: bool,
}

/// The raw values of one metric, per benchmark and variant, and the variant they are normalised
/// to.
#[derive(Clone, Debug, PartialEq)]
pub struct Normalised {
    pub metric: String,
    pub baseline: usize,
    pub benchmarks: Vec<String>,
    pub variants: Vec<String>,
    /// `values[benchmark][variant]`; `None` where there is no result.
    pub values: Vec<Vec<Option<Value>>>,
}

/// The label of the geometric mean's row and bar group.
pub const GM: &str = "GM";

/// Whether `metric` is compared as a speedup (the baseline's over the variant's: fewer cycles
/// is faster) rather than as the variant's value over the baseline's.
pub fn is_speedup(metric: &str) -> bool {
    metric == "cycles"
}

/// The index of the variant `--baseline` names, or an error naming the argument and the
/// variants there are.
pub fn baseline_index(arg: &str, name: &str, variants: &[String]) -> Result<usize, ConfigError> {
    variants.iter().position(|v| v == name).ok_or_else(|| {
        let list: Vec<String> = variants.iter().map(|v| format!("`{v}`")).collect();
        ConfigError::argument(
            format!("{arg} {name}"),
            format!("names no variant; the variants are {}", list.join(", ")),
        )
    })
}

impl Normalised {
    /// Variant `v`'s value for benchmark `b` relative to the baseline's: a speedup for cycles,
    /// else variant / baseline. `None` without both results or with a zero divisor.
    pub fn ratio(&self, b: usize, v: usize) -> Option<f64> {
        let (base, this) = (self.values[b][self.baseline]?.value, self.values[b][v]?.value);
        let (num, den) = if is_speedup(&self.metric) { (base, this) } else { (this, base) };
        (den != 0.0 && num.is_finite() && den.is_finite()).then(|| num / den)
    }

    /// The geometric mean of variant `v`'s ratios over the benchmarks; `None` unless every
    /// benchmark has a positive one.
    pub fn geomean(&self, v: usize) -> Option<f64> {
        let ratios: Option<Vec<f64>> = (0..self.benchmarks.len()).map(|b| self.ratio(b, v)).collect();
        let ratios = ratios.filter(|r| !r.is_empty() && r.iter().all(|x| *x > 0.0))?;
        Some((ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
    }

    /// Whether variant `v`'s or the baseline's run for benchmark `b` was capped.
    fn capped(&self, b: usize, v: usize) -> bool {
        [v, self.baseline].iter().any(|&i| self.values[b][i].is_some_and(|x| x.capped))
    }

    /// What a cell means, for the header and the chart's axis.
    pub fn what(&self) -> String {
        let base = &self.variants[self.baseline];
        if is_speedup(&self.metric) {
            format!("speedup over {base} (its cycles / the variant's)")
        } else {
            format!("{} relative to {base} (the variant's / its)", self.metric)
        }
    }

    /// The rows: a benchmark's ratios per variant, then the geometric mean's.
    fn rows(&self, human: bool) -> Vec<Vec<String>> {
        let cell = |r: Option<f64>, capped: bool| match r {
            None => "-".to_string(),
            Some(r) if human => format!("{r:.3}{}", if capped { " (capped)" } else { "" }),
            Some(r) => r.to_string(),
        };
        let mut rows: Vec<Vec<String>> = self
            .benchmarks
            .iter()
            .enumerate()
            .map(|(b, name)| {
                let cells = (0..self.variants.len()).map(|v| cell(self.ratio(b, v), self.capped(b, v)));
                std::iter::once(name.clone()).chain(cells).collect()
            })
            .collect();
        let capped = |v: usize| (0..self.benchmarks.len()).any(|b| self.capped(b, v));
        let gm = (0..self.variants.len()).map(|v| cell(self.geomean(v), capped(v)));
        rows.push(std::iter::once(GM.to_string()).chain(gm).collect());
        rows
    }

    fn header(&self) -> Vec<String> {
        std::iter::once("benchmark".to_string()).chain(self.variants.iter().cloned()).collect()
    }

    /// The table for people, under a line saying what its numbers are.
    pub fn table(&self) -> String {
        let mut t = format!("{}:\n\n", self.what());
        t.push_str(&table::render(&self.header(), &self.rows(true)));
        if (0..self.variants.len()).any(|v| (0..self.benchmarks.len()).any(|b| self.capped(b, v))) {
            t.push_str(
                "\n(capped): the variant's or the baseline's run stopped at a cycle or instruction limit; a partial run's ratio.\n",
            );
        }
        t
    }

    /// CSV: a row per benchmark and the geometric mean's, a column per variant, raw ratios.
    pub fn csv(&self) -> String {
        let line = |cells: &[String]| {
            cells.iter().map(|c| crate::output::csv_field(c)).collect::<Vec<_>>().join(",") + "\n"
        };
        let mut out = line(&self.header());
        for row in self.rows(false) {
            out.push_str(&line(&row));
        }
        out
    }

    /// The papers' figure: a group of bars per benchmark and one for the geometric mean, a bar
    /// per variant, a line at 1 (the baseline); ratios involving a capped run drawn as capped.
    pub fn svg(&self, title: &str) -> Result<String> {
        let values = (0..self.variants.len())
            .map(|v| {
                let mut col: Vec<Option<Sample>> = (0..self.benchmarks.len())
                    .map(|b| self.ratio(b, v).map(|y| Sample { y, capped: self.capped(b, v) }))
                    .collect();
                let capped = (0..self.benchmarks.len()).any(|b| self.capped(b, v));
                col.push(self.geomean(v).map(|y| Sample { y, capped }));
                col
            })
            .collect();
        let panel = Panel {
            title: self.what(),
            kind: Kind::Bars,
            x_label: "benchmark".into(),
            y_label: format!("× {}", self.variants[self.baseline]),
            x: self.benchmarks.iter().cloned().chain(std::iter::once(GM.to_string())).collect(),
            series: self.variants.clone(),
            values,
            reference: Some(1.0),
        };
        figure(title, &[panel])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(value: f64) -> Option<Value> {
        Some(Value { value, capped: false })
    }

    fn cycles() -> Normalised {
        Normalised {
            metric: "cycles".into(),
            baseline: 0,
            benchmarks: vec!["a".into(), "b".into()],
            variants: vec!["base".into(), "fast".into()],
            // a: 100 → 50 cycles (2×), b: 300 → 400 (0.75×).
            values: vec![vec![v(100.0), v(50.0)], vec![v(300.0), v(400.0)]],
        }
    }

    #[test]
    fn a_speedup_is_the_baseline_s_cycles_over_the_variant_s_and_the_gm_their_geometric_mean() {
        let n = cycles();
        assert_eq!((n.ratio(0, 1), n.ratio(1, 1), n.ratio(0, 0)), (Some(2.0), Some(0.75), Some(1.0)));
        // √(2 × 0.75) = √1.5.
        assert!((n.geomean(1).unwrap() - 1.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(n.geomean(0), Some(1.0));
        let csv = n.csv();
        assert_eq!(csv.lines().next(), Some("benchmark,base,fast"));
        assert_eq!(csv.lines().nth(2), Some("b,1,0.75"));
        assert!(n.table().contains("GM"), "{}", n.table());
    }

    #[test]
    fn another_key_is_the_variant_s_value_over_the_baseline_s() {
        let n = Normalised { metric: "l1.hit_rate".into(), ..cycles() };
        assert_eq!(n.ratio(0, 1), Some(0.5));
        assert!(n.what().starts_with("l1.hit_rate relative to base"));
    }

    #[test]
    fn a_missing_result_or_a_zero_leaves_the_ratio_and_the_gm_out() {
        let mut n = cycles();
        n.values[1][1] = None;
        assert_eq!((n.ratio(1, 1), n.geomean(1)), (None, None));
        n.values[1][1] = v(0.0);
        assert_eq!(n.ratio(1, 1), None, "zero cycles: no speedup");
    }

    #[test]
    fn the_baseline_must_name_a_variant() {
        let names = vec!["fcfs".to_string(), "frfcfs".to_string()];
        assert_eq!(baseline_index("--baseline", "frfcfs", &names).unwrap(), 1);
        let e = baseline_index("--baseline", "gmc", &names).unwrap_err().to_string();
        assert!(e.contains("--baseline gmc") && e.contains("`fcfs`, `frfcfs`"), "{e}");
    }

    #[test]
    fn the_figure_has_a_group_per_benchmark_and_the_gm_and_lays_out_cleanly() {
        let svg = cycles().svg("speedups").unwrap();
        assert!(svg.contains(">GM<") && svg.contains(">a<") && svg.contains(">b<"), "{svg}");
        assert!(super::super::chart::svg::layout_faults(&svg).is_empty());
    }
}
