//! `warpscope bench --dram`: DRAM-only mode's speed on the two synthetic traces of
//! `dram --generate` (uniformly random lines with one write in three; a sequential 128 B
//! read stream), each written to a temporary file and simulated from it several times, as a
//! user's trace would be. Wall-clock numbers on shared machines vary from run to run, hence
//! the repeats and the median.

use super::dram::{DramOptions, DramTrace, Pattern, generate, simulate};
use crate::config::Config;
use anyhow::{Context, Result};
use clap::ValueEnum;

/// One trace's runs.
#[derive(Clone, Debug)]
pub struct DramBench {
    pub pattern: Pattern,
    pub requests: u64,
    /// DRAM cycles and row-hit rate (the same in every run).
    pub dram_cycles: u64,
    pub row_hit_rate: f64,
    /// `sim.requests_per_second` of each run, in run order.
    pub per_second: Vec<f64>,
}

impl DramBench {
    /// The median of the runs.
    pub fn median(&self) -> f64 {
        let mut v = self.per_second.clone();
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    }
}

/// A pattern's name on the command line (`dram --generate NAME`).
fn name(pattern: Pattern) -> String {
    pattern.to_possible_value().expect("named pattern").get_name().to_string()
}

/// Generates each pattern's trace of `requests` requests and simulates it `runs` times.
pub fn bench(config: &Config, requests: u64, runs: usize) -> Result<Vec<DramBench>> {
    anyhow::ensure!(runs > 0, "a benchmark needs one run of each trace at least");
    Pattern::value_variants()
        .iter()
        .map(|&pattern| {
            let name = name(pattern);
            let path =
                std::env::temp_dir().join(format!("warpscope-bench-{}-{name}.trace", std::process::id()));
            let mut file =
                std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
            let generated = generate(config, pattern, requests, &mut file);
            drop(file);
            // The temporary trace goes whether the generation or a run failed (issue 37.3).
            let result = generated.map_err(anyhow::Error::from).and_then(|()| {
                (0..runs)
                    .map(|_| {
                        let file = std::fs::File::open(&path)?;
                        let reader = std::io::BufReader::with_capacity(1 << 16, file);
                        let mut trace = DramTrace::new(reader, &path.display().to_string());
                        Ok(simulate(config, &mut trace, &DramOptions::default())?.1)
                    })
                    .collect::<Result<Vec<_>>>()
            });
            std::fs::remove_file(&path).ok();
            let reports = result?;
            Ok(DramBench {
                pattern,
                requests,
                dram_cycles: reports[0].dram_cycles,
                row_hit_rate: reports[0].dram.metrics.row_hit_rate,
                per_second: reports.iter().map(|r| r.sim.requests_per_second).collect(),
            })
        })
        .collect()
}

/// The benchmark as a table: one row per trace.
pub fn table(results: &[DramBench]) -> String {
    let k = |v: f64| if v >= 1e6 { format!("{:.2}M", v / 1e6) } else { format!("{:.0}k", v / 1e3) };
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|b| {
            vec![
                name(b.pattern),
                b.requests.to_string(),
                b.dram_cycles.to_string(),
                format!("{:.2}%", b.row_hit_rate * 100.0),
                b.per_second.iter().map(|&v| k(v)).collect::<Vec<_>>().join(" "),
                k(b.median()),
            ]
        })
        .collect();
    let head = ["trace", "requests", "DRAM cycles", "row hits", "requests/s (runs)", "median"];
    super::table::render(&head.map(String::from), &rows)
}
