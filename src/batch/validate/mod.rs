//! `warpscope validate SPEC`: warpscope beside GPGPU-Sim/Accel-Sim on the same traces and the
//! same machine, from the peer's results stored in the repository, so the tables regenerate
//! offline and a model change that moves warpscope away from the reference shows.
//!
//! A study ([`spec`]) names the peer's option files, whose `config import` is warpscope's
//! machine, the stored results ([`stored`]) and the kernels. `validate SPEC --export DIR`
//! writes each kernel's trace for the peer to run; `validate SPEC --record LOGDIR` reads the
//! peer's logs (`LOGDIR/NAME.log`) into the stored results; `validate SPEC` runs warpscope on
//! every kernel in turn (so each wall time and peak memory is the run's own) and writes the
//! tables ([`table`]). Every stored number is checked first: the option files and each trace
//! must be the ones the peer ran ([`digest`]).

pub mod digest;
pub mod spec;
pub mod stored;
pub mod table;

use super::peak_memory;
use super::peer_log::{self, PeerStats};
use super::run::{RunOptions, simulate};
use crate::config::{Config, ConfigError};
use crate::sim::stats::report::Report;
use anyhow::{Result, bail};
use spec::Study;
use std::path::Path;
use std::sync::Arc;

/// One kernel's row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    /// The peer's results (`None`: none stored for this kernel).
    pub peer: Option<PeerStats>,
    pub ours: Report,
    /// warpscope's peak memory during this run, MB (where the system reports it).
    pub ours_peak_mb: Option<f64>,
}

/// A study's runs beside the stored results.
#[derive(Clone, Debug)]
pub struct Validation {
    pub study: Study,
    pub config: Config,
    pub rows: Vec<Row>,
    /// Kernels stored but not in the spec (or left out by `--kernels`), listed, not dropped.
    pub not_run: Vec<String>,
}

/// The spec's kernels, or those `only` names (each must be one of them).
fn chosen<'a>(study: &'a Study, only: Option<&[String]>) -> Result<Vec<&'a spec::KernelSpec>, ConfigError> {
    let all = &study.spec.kernels;
    let Some(only) = only else { return Ok(all.iter().collect()) };
    only.iter()
        .map(|n| {
            all.iter().find(|k| k.name == *n).ok_or_else(|| {
                let message = format!(
                    "`{n}` is no kernel of {}; kernels: {}",
                    study.path.display(),
                    all.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")
                );
                ConfigError::argument(format!("--kernels {}", only.join(",")), message)
            })
        })
        .collect()
}

/// Runs warpscope on the study's kernels (all, or `only`) beside the stored results.
pub fn validate(study: &Study, only: Option<&[String]>) -> Result<Validation> {
    let results = stored::load(study, &study.peer_files()?)?;
    let config = study.machine()?;
    let kernels = chosen(study, only)?;
    // Every stored number is checked before anything runs: a trace exported differently now
    // is another input than the peer ran.
    let mut jobs = Vec::new();
    let mut changed = Vec::new();
    for k in &kernels {
        let workload = study.workload(k, &config)?;
        let stored = results.kernels.iter().find(|s| s.name == k.name);
        if let Some(s) = stored {
            let now = digest::trace(&workload)?;
            if now != s.trace_sha256 {
                changed.push(format!("{} (stored {}, now {})", k.name, &s.trace_sha256[..12], &now[..12]));
            }
        }
        jobs.push((k.name.clone(), workload, stored.map(|s| s.stats().expect("checked by stored::load"))));
    }
    if !changed.is_empty() {
        bail!(
            "{}: the trace export of {} changed since the peer ran it: export the traces again (--export DIR), run the peer and --record its logs",
            study.path.display(),
            changed.join(", ")
        );
    }
    let mut rows = Vec::new();
    for (name, workload, peer) in jobs {
        let measured = peak_memory::reset_peak();
        let (_, ours) = simulate(&config, Arc::new(workload), &RunOptions::default())?;
        let ours_peak_mb = peak_memory::peak_rss_mb().filter(|_| measured);
        rows.push(Row { name, peer, ours, ours_peak_mb });
    }
    let run: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    let not_run =
        results.kernels.iter().map(|k| k.name.clone()).filter(|n| !run.contains(&n.as_str())).collect();
    Ok(Validation { study: study.clone(), config, rows, not_run })
}

/// The stored result of kernel `k` if it is one of the trace `k` exports now, made with the
/// spec's option files: a peer run of it would give the same numbers.
fn current<'a>(
    stored: Option<&'a stored::PeerResults>,
    k: &spec::KernelSpec,
    workload: &crate::workload::Workload,
) -> Result<Option<&'a stored::StoredKernel>> {
    let Some(s) = stored.and_then(|r| r.kernels.iter().find(|s| s.name == k.name)) else { return Ok(None) };
    let same_input = s.workload == k.workload && s.sets == k.sets;
    Ok((same_input && s.trace_sha256 == digest::trace(workload)?).then_some(s))
}

/// The study's stored results, if they load and were made with the spec's option files.
fn stored_if_current(study: &Study) -> Result<Option<stored::PeerResults>> {
    Ok(stored::load(study, &study.peer_files()?).ok())
}

/// Writes each chosen kernel's trace into `dir/NAME/` for the peer to run; with `stale`, only
/// those whose stored result is missing or of another trace.
pub fn export(study: &Study, dir: &Path, only: Option<&[String]>, stale: bool) -> Result<Vec<String>> {
    let config = study.machine()?;
    let stored = if stale { stored_if_current(study)? } else { None };
    let mut written = Vec::new();
    for k in chosen(study, only)? {
        let workload = study.workload(k, &config)?;
        if current(stored.as_ref(), k, &workload)?.is_some() {
            continue;
        }
        let target = dir.join(&k.name);
        let opts = super::export::ExportOptions { force: true, ..Default::default() };
        let atomic = super::export::prepare(&target, &opts)?;
        super::export::export(&workload, atomic, &opts)?;
        written.push(target.join("kernelslist.g").display().to_string());
    }
    Ok(written)
}

/// Reads the peer's logs (`logs/NAME.log`) into the study's stored results; returns the file
/// written and the kernels whose stored result was kept. A kernel without a log keeps its
/// stored result if that is one of the trace it exports now with the spec's option files
/// (what `--export DIR --stale` leaves out); any other kernel without a log is an error
/// naming it.
pub fn record(study: &Study, logs: &Path) -> Result<(String, Vec<String>)> {
    let config = study.machine()?;
    let stored = stored_if_current(study)?;
    let log_of = |k: &spec::KernelSpec| logs.join(format!("{}.log", k.name));
    let mut kept = Vec::new();
    let mut missing = Vec::new();
    for k in study.spec.kernels.iter().filter(|k| !log_of(k).is_file()) {
        match current(stored.as_ref(), k, &study.workload(k, &config)?)? {
            Some(s) => kept.push(s.clone()),
            None => missing.push(k.name.clone()),
        }
    }
    if !missing.is_empty() {
        bail!(
            "{}: no log for {} (expected NAME.log for every kernel of the spec whose stored result is missing or of another trace)",
            logs.display(),
            missing.join(", ")
        );
    }
    let mut kernels = Vec::new();
    for k in &study.spec.kernels {
        if let Some(s) = kept.iter().find(|s| s.name == k.name) {
            kernels.push(s.clone());
            continue;
        }
        let path = log_of(k);
        let name = path.display().to_string();
        let file = std::fs::File::open(&path).map_err(|e| ConfigError::cannot_read(&name, &e))?;
        let stats = peer_log::read(std::io::BufReader::new(file), &name)?;
        if stats.cycles.is_none() {
            bail!("{}: the log has no gpu_tot_sim_cycle: the peer did not finish", log_of(k).display());
        }
        let workload = study.workload(k, &config)?;
        let (trace_sha256, lanes) = digest::trace_counted(&workload)?;
        // The peer counts every active lane of every line it ran: a log of another trace
        // (an older export, another kernel) has another count.
        if let Some(peer) = stats.instructions.filter(|&n| n != lanes as f64) {
            bail!(
                "{}: the peer ran {peer} thread instructions (gpu_tot_sim_insn) but {}'s trace has {lanes}: the log is of another trace; export it again (--export DIR) and run the peer on it",
                log_of(k).display(),
                k.name
            );
        }
        kernels.push(stored::StoredKernel {
            name: k.name.clone(),
            workload: k.workload.clone(),
            sets: k.sets.clone(),
            trace_sha256,
            counters: stats.to_map(),
        });
    }
    let p = &study.spec.peer;
    let results = stored::PeerResults {
        simulator: p.simulator.clone(),
        sources: p.sources.clone(),
        command: p.command.clone(),
        configs: stored::config_digests(&study.peer_files()?),
        kernels,
    };
    let path = stored::write(study, &results, &logs.display().to_string())?;
    Ok((path, kept.into_iter().map(|s| s.name).collect()))
}
