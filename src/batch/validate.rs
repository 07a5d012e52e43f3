//! `warpscope validate SPEC.ron [-o PATH]`: warpscope beside GPGPU-Sim/Accel-Sim on the same
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
//! Paths are relative to the spec. warpscope runs the traces one after another, so each run's
//! wall time and peak memory are its own (the peak is reset between runs, [`peak_memory`]).
//! The markdown table (to PATH, or standard output) is generated from the runs and the logs: per kernel,
//! cycles and IPC with their relative errors; L1 and L2 read hit rates, DRAM row-hit rate and
//! bandwidth utilization of both with their difference in percentage points; each simulator's
//! wall time, speed (simulated cycles per second) and peak memory. Then the IPC correlation, the
//! mean absolute cycle and IPC errors, and, for the kernels off by more than 30 % in cycles, both
//! simulators' per-unit statistics: L1 and L2 reads and read misses, bytes read from DRAM, and
//! the mean latency of an L1 miss (GPGPU-Sim's `averagemflatency`, warpscope's
//! `memory.avg_latency`).

use super::peak_memory;
use super::peer_log::{self, PeerStats};
use super::run::{RunOptions, simulate};
use crate::config::{Config, ConfigError, Origin, parse_ron};
use crate::sim::stats::report::Report;
use crate::workload::Workload;
use anyhow::{Context, Result};
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
    /// warpscope's peak memory during this run, MB (where the system reports it).
    pub ours_peak_mb: Option<f64>,
}

/// Loads the spec, checks every file exists, runs warpscope on every trace in turn.
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
        jobs.push((k.name.clone(), trace, log));
    }
    let mut rows = Vec::new();
    for (name, trace, log) in jobs {
        let workload = Arc::new(Workload::load(&trace, config.sim.seed)?);
        let peer = peer_log::parse(&std::fs::read_to_string(&log)?);
        let measured = peak_memory::reset_peak();
        let (_, ours) = simulate(&config, workload, &RunOptions::default())?;
        let ours_peak_mb = peak_memory::peak_rss_mb().filter(|_| measured);
        rows.push(Row { name, peer, ours, ours_peak_mb });
    }
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

/// `peer / ours (±difference)` of a rate, in percent and percentage points.
fn rate_cell(peer: Option<f64>, ours: f64) -> String {
    match peer {
        Some(p) => format!("{:.1} / {:.1} ({:+.1})", p * 100.0, ours * 100.0, (ours - p) * 100.0),
        None => format!("– / {:.1}", ours * 100.0),
    }
}

/// `peer / ours` of two counts (any unit), compact.
fn pair(peer: Option<f64>, ours: f64, digits: usize) -> String {
    format!("{} / {ours:.digits$}", cell(peer, digits))
}

/// The mean of the absolute values, if any.
fn mean_abs(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().map(|e| e.abs()).sum::<f64>() / v.len() as f64)
}

/// What warpscope counts as a read on `config`: a sectored L1's sectors, else lines.
fn read_units(config: &Config) -> String {
    match crate::sim::cache::sectors::coalesce_bytes(config) {
        b if config.l1.sectored => format!("{b}-byte sectors"),
        b => format!("{b}-byte lines"),
    }
}

/// The validation table and its summary.
pub fn markdown(config: &Config, rows: &[Row]) -> String {
    let mut md = format!(
        "# warpscope beside the peer simulator\n\nMachine: `{}` ({} SMs, {} channels). Errors are warpscope's relative to the peer's; \
         rates are peer / warpscope in percent with warpscope's difference in percentage points. Hit rates are of reads \
         (GPGPU-Sim counts 32-byte sectors, warpscope {}); speed is simulated core cycles per wall-clock second.\n\n",
        config.name,
        config.core.count,
        config.dram.channels,
        read_units(config)
    );
    md.push_str("| kernel | cycles peer | cycles ours | err | IPC peer | IPC ours | err | L1 hit % | L2 hit % | row hit % | DRAM BW util % | wall s peer / ours | cycles/s peer / ours | peak MB peer / ours |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let (mut ipcs, mut cycle_errors, mut ipc_errors, mut off) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for r in rows {
        let (p, o) = (&r.peer, &r.ours);
        let ce = error(o.cycles as f64, p.cycles);
        if let Some(e) = ce {
            cycle_errors.push(e);
            if e.abs() > 30.0 {
                off.push(r);
            }
        }
        if let Some(pi) = p.ipc {
            ipcs.push((pi, o.ipc));
        }
        ipc_errors.extend(error(o.ipc, p.ipc));
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} | {} / {} |\n",
            r.name,
            cell(p.cycles, 0),
            o.cycles,
            err_cell(ce),
            cell(p.ipc, 2),
            o.ipc,
            err_cell(error(o.ipc, p.ipc)),
            rate_cell(p.l1_hit_rate, o.l1.hit_rate),
            rate_cell(p.l2_hit_rate, o.l2.hit_rate),
            rate_cell(p.row_hit_rate, o.dram.metrics.row_hit_rate),
            rate_cell(p.bandwidth_utilization, o.dram.metrics.bandwidth_utilization),
            pair(p.wall_seconds, o.sim.wall_seconds, 1),
            pair(p.cycles_per_second, o.sim.cycles_per_second, 0),
            cell(p.peak_rss_mb, 0),
            cell(r.ours_peak_mb, 0),
        ));
    }
    let wall = |f: &dyn Fn(&Row) -> Option<f64>| -> String {
        let v: Vec<f64> = rows.iter().filter_map(f).collect();
        if v.len() == rows.len() { format!("{:.0} s", v.iter().sum::<f64>()) } else { "–".into() }
    };
    md.push_str(&format!(
        "\nIPC correlation: {} (goal ≥ 0.9). Mean absolute cycle error: {} (goal ≤ 25 %). Mean absolute IPC error: {}.\n\
         Wall time of all runs: peer {}, warpscope {}.\n",
        cell(correlation(&ipcs), 3),
        mean_abs(&cycle_errors).map_or("–".into(), |m| format!("{m:.1} %")),
        mean_abs(&ipc_errors).map_or("–".into(), |m| format!("{m:.1} %")),
        wall(&|r| r.peer.wall_seconds),
        wall(&|r| Some(r.ours.sim.wall_seconds)),
    ));
    if !off.is_empty() {
        let names: Vec<String> = off
            .iter()
            .map(|r| {
                format!("`{}` ({:+.0} %)", r.name, error(r.ours.cycles as f64, r.peer.cycles).unwrap_or(0.0))
            })
            .collect();
        md.push_str(&format!(
            "\nMore than 30 % off in cycles (each needs an explanation): {}.\n",
            names.join(", ")
        ));
        md.push_str(&format!(
            "\nTheir units, peer / warpscope (reads are 32-byte sectors in the peer, {} in warpscope):\n\n",
            read_units(config)
        ));
        md.push_str("| kernel | L1 reads | L1 read misses | L2 reads | L2 read misses | DRAM MB read | L1-miss latency |\n");
        md.push_str("|---|---|---|---|---|---|---|\n");
        for r in off {
            let (p, o) = (&r.peer, &r.ours);
            let dram_mb = (o.dram.commands.rd * u64::from(config.dram_burst_bytes())) as f64 / 1e6;
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r.name,
                pair(p.l1_reads, o.l1.reads as f64, 0),
                pair(p.l1_read_misses, o.l1.read_misses as f64, 0),
                pair(p.l2_reads, o.l2.reads as f64, 0),
                pair(p.l2_read_misses, o.l2.read_misses as f64, 0),
                pair(p.dram_read_bytes.map(|b| b / 1e6), dram_mb, 1),
                pair(p.miss_latency, o.memory.avg_latency, 0),
            ));
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_counted_in_the_l1s_units() {
        let mut c = Config::default();
        assert_eq!(read_units(&c), "128-byte lines");
        c.l1.sectored = true;
        assert_eq!(read_units(&c), "32-byte sectors");
    }

    #[test]
    fn correlation_of_hand_computed_pairs() {
        assert!((correlation(&[(1.0, 2.0), (2.0, 4.0), (3.0, 6.0)]).unwrap() - 1.0).abs() < 1e-12);
        assert!((correlation(&[(1.0, 3.0), (2.0, 2.0), (3.0, 1.0)]).unwrap() + 1.0).abs() < 1e-12);
        // x = 1,2,3; y = 1,3,2: cov 1, var 2 and 2 → 0.5.
        assert!((correlation(&[(1.0, 1.0), (2.0, 3.0), (3.0, 2.0)]).unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(correlation(&[(1.0, 1.0)]), None);
    }
}
