//! `warpscope validate SPEC.ron --out DIR`: warpscope beside GPGPU-Sim/Accel-Sim on the same
//! traces and the same machine, tabulated with the error of each statistic.
//!
//! The spec names the machine (the RON that `config import` wrote from the peer's
//! `gpgpusim.config`) and, per kernel, the trace both simulators ran and the peer's log:
//!
//! ```ron
//! (
//!     machine: "gtx480.ron",
//!     kernels: [(name: "atax", trace: "traces/atax/kernelslist.g", peer_log: "logs/atax.log")],
//! )
//! ```
//!
//! Paths are relative to the spec. warpscope runs every kernel (in parallel) and the table —
//! `DIR/validation.md` — is generated from the runs and the logs: cycles, IPC, L1 and L2 hit
//! rates, DRAM row-hit rate and bandwidth utilization, each simulator's wall time and speed, the
//! IPC correlation and the mean absolute cycle error, and the kernels off by more than 30 %.

use super::peer_log::{self, PeerStats};
use super::run::{RunOptions, simulate};
use crate::config::{Config, ConfigError, Origin, parse_ron};
use crate::sim::stats::report::Report;
use crate::workload::Workload;
use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A validation spec.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ValidateSpec {
    pub machine: String,
    pub kernels: Vec<KernelRun>,
}

/// One kernel (or application) both simulators ran.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KernelRun {
    pub name: String,
    /// The trace (`kernelslist.g` or a `.traceg`).
    pub trace: String,
    /// The peer's standard output.
    pub peer_log: String,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub peer: PeerStats,
    pub ours: Report,
}

/// Loads the spec, checks every file exists, runs warpscope on every trace.
pub fn run(spec_path: &Path) -> Result<(Config, Vec<Row>)> {
    let origin = spec_path.display().to_string();
    let text = std::fs::read_to_string(spec_path).with_context(|| format!("{origin}: cannot read"))?;
    let spec: ValidateSpec = parse_ron(&text, &Origin::File(origin.clone()))?;
    let dir = spec_path.parent().unwrap_or(Path::new(""));
    let config = Config::load(&dir.join(&spec.machine), &[])?;
    let missing = |what: &str, i: usize, p: &PathBuf| ConfigError {
        origin: Origin::File(origin.clone()),
        position: None,
        key: format!("kernels[{i}].{what}"),
        message: format!("`{}` does not exist", p.display()),
    };
    let mut jobs = Vec::new();
    for (i, k) in spec.kernels.iter().enumerate() {
        let log = dir.join(&k.peer_log);
        if !log.is_file() {
            return Err(missing("peer_log", i, &log).into());
        }
        let trace = dir.join(&k.trace);
        if !trace.exists() {
            return Err(missing("trace", i, &trace).into());
        }
        let workload = Arc::new(Workload::load(&trace, config.sim.seed)?);
        let peer = peer_log::parse(&std::fs::read_to_string(&log)?);
        jobs.push((k.name.clone(), workload, peer));
    }
    let rows = jobs
        .into_par_iter()
        .map(|(name, workload, peer)| {
            let (_, ours) = simulate(&config, workload, &RunOptions::default())?;
            Ok(Row { name, peer, ours })
        })
        .collect::<Result<Vec<Row>>>()?;
    Ok((config, rows))
}

/// Relative error of ours against the peer's, in percent.
fn error(ours: f64, peer: Option<f64>) -> Option<f64> {
    peer.filter(|p| *p != 0.0).map(|p| (ours - p) / p * 100.0)
}

/// Pearson correlation of pairs.
pub fn correlation(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if pairs.len() < 2 {
        return None;
    }
    let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let cov: f64 = pairs.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = pairs.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    let vy: f64 = pairs.iter().map(|(_, y)| (y - my).powi(2)).sum();
    (vx > 0.0 && vy > 0.0).then(|| cov / (vx * vy).sqrt())
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or("–".into(), |v| format!("{v:.digits$}"))
}

fn err_cell(e: Option<f64>) -> String {
    e.map_or("–".into(), |e| format!("{e:+.1} %"))
}

/// The validation table and its summary.
pub fn markdown(config: &Config, rows: &[Row]) -> String {
    let mut md = format!(
        "# warpscope beside the peer simulator\n\nMachine: `{}` ({} SMs, {} channels). Errors are warpscope's relative to the peer's.\n\n",
        config.name, config.core.count, config.dram.channels
    );
    md.push_str("| kernel | cycles peer | cycles ours | err | IPC peer | IPC ours | err | L1 hit peer / ours | L2 hit peer / ours | row hit peer / ours | BW util peer / ours | wall s peer / ours | cycles/s peer / ours |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let mut ipcs = Vec::new();
    let mut cycle_errors = Vec::new();
    let mut off = Vec::new();
    for r in rows {
        let (p, o) = (&r.peer, &r.ours);
        let ce = error(o.cycles as f64, p.cycles);
        if let Some(e) = ce {
            cycle_errors.push(e.abs());
            if e.abs() > 30.0 {
                off.push(format!("`{}` ({e:+.0} %)", r.name));
            }
        }
        if let Some(pi) = p.ipc {
            ipcs.push((pi, o.ipc));
        }
        let pair = |peer: Option<f64>, ours: f64| format!("{} / {:.3}", cell(peer, 3), ours);
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} / {:.1} | {} / {:.0} |\n",
            r.name,
            cell(p.cycles, 0),
            o.cycles,
            err_cell(ce),
            cell(p.ipc, 2),
            o.ipc,
            err_cell(error(o.ipc, p.ipc)),
            pair(p.l1_hit_rate, o.l1.hit_rate),
            pair(p.l2_hit_rate, o.l2.hit_rate),
            pair(p.row_hit_rate, o.dram.metrics.row_hit_rate),
            pair(p.bandwidth_utilization, o.dram.metrics.bandwidth_utilization),
            cell(p.wall_seconds, 0),
            o.sim.wall_seconds,
            cell(p.cycles_per_second, 0),
            o.sim.cycles_per_second,
        ));
    }
    let mae =
        (!cycle_errors.is_empty()).then(|| cycle_errors.iter().sum::<f64>() / cycle_errors.len() as f64);
    md.push_str(&format!(
        "\nIPC correlation: {} (goal ≥ 0.9). Mean absolute cycle error: {} (goal ≤ 25 %).\n",
        cell(correlation(&ipcs), 3),
        mae.map_or("–".into(), |m| format!("{m:.1} %"))
    ));
    if !off.is_empty() {
        md.push_str(&format!(
            "\nMore than 30 % off in cycles (each needs an explanation): {}.\n",
            off.join(", ")
        ));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_of_hand_computed_pairs() {
        assert!((correlation(&[(1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]).unwrap() - 1.0).abs() < 1e-12);
        assert!((correlation(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]).unwrap() + 1.0).abs() < 1e-12);
        // x = 1,2,3; y = 1,3,2: cov 1, var 2 and 2 → 0.5.
        assert!((correlation(&[(1.0, 1.0), (2.0, 3.0), (3.0, 2.0)]).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(correlation(&[(1.0, 1.0)]), None);
    }
}
