//! `warpscope run`: one machine × one workload to completion, a human summary, a JSON report,
//! and optionally the DRAM command trace.

use super::table;
use crate::config::Config;
use crate::output::Output;
use crate::sim::dram::command::Command;
use crate::sim::stats::metrics::{SUMMARY, format, unit, value};
use crate::sim::stats::report::Report;
use crate::sim::{EventKind, Gpu, Status};
use crate::workload::Workload;
use anyhow::Result;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// Options of one run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Stop after this many core cycles (0 = the config's `sim.max_cycles`, 0 there = no limit).
    pub max_cycles: u64,
    /// Stop once this many thread instructions have issued (0 = the config's
    /// `sim.max_instructions`, 0 there = no limit).
    pub max_instructions: u64,
    /// Write every DRAM command here.
    pub dram_trace: Option<String>,
}

/// A workload the machine cannot run (a CTA larger than an SM, no kernel): bad input, exit 2
/// like every other (issue 37.4; it exited 1).
pub fn unfit(workload: &str, message: String) -> crate::config::ConfigError {
    crate::config::ConfigError::argument(format!("workload {workload}"), message)
}

/// Builds the machine and runs it; returns the final machine and its report.
pub fn simulate(config: &Config, workload: Arc<Workload>, opts: &RunOptions) -> Result<(Gpu, Report)> {
    let mut config = config.clone();
    if opts.max_instructions > 0 {
        config.sim.max_instructions = opts.max_instructions;
    }
    let max = if opts.max_cycles > 0 { opts.max_cycles } else { config.sim.max_cycles };
    let name = workload.name.clone();
    let mut gpu = Gpu::new(Arc::new(config), workload).map_err(|e| unfit(&name, e))?;
    let start = Instant::now();
    match &opts.dram_trace {
        None => gpu.run(max),
        Some(path) => run_with_trace(&mut gpu, max, path)?,
    }
    let wall = start.elapsed().as_secs_f64();
    let report = Report::new(&gpu, wall);
    Ok((gpu, report))
}

/// Core cycles [`run_with_trace`] runs between writes of the commands.
const TRACE_SLICE: u64 = 256;

/// Runs while writing `<dram_cycle> <channel> <bank_group> <bank> <CMD> <row> <col>` lines.
fn run_with_trace(gpu: &mut Gpu, max: u64, path: &str) -> Result<()> {
    gpu.events.set(EventKind::DramCommand, true);
    let groups = gpu.config.dram.bank_groups as u8;
    let mut out = Output::open(path)?;
    let flush = |gpu: &mut Gpu, out: &mut Output| -> Result<()> {
        for (_, e) in gpu.events.drain() {
            if let crate::sim::Event::DramCommand { channel, dram_cycle, cmd } = e {
                write_command(out, groups, channel, dram_cycle, &cmd)?;
            }
        }
        Ok(())
    };
    let limit = if max == 0 { u64::MAX } else { max };
    while gpu.may_continue(limit) {
        // Runs as `simulate` does, a slice at a time: each DRAM cycle issues at most a command
        // per channel, so a slice's commands stay few.
        gpu.run(limit.min(gpu.cycle + TRACE_SLICE));
        flush(gpu, &mut out)?;
    }
    flush(gpu, &mut out)?;
    out.finish()
}

/// Writes one DRAM command as `<dram_cycle> <channel> <bank_group> <bank> <CMD> <row> <col>`.
pub fn write_command(
    out: &mut impl Write,
    groups: u8,
    channel: u16,
    dram_cycle: u64,
    cmd: &Command,
) -> Result<()> {
    writeln!(
        out,
        "{dram_cycle} {channel} {} {} {} {} {}",
        cmd.bank % groups,
        cmd.bank,
        cmd.kind,
        cmd.row,
        cmd.col
    )?;
    Ok(())
}

/// Exit code for a finished run: 0 done (or stopped at the cycle limit), 1 stuck.
pub fn exit_code(status: &Status) -> i32 {
    match status {
        Status::Stuck(_) => 1,
        _ => 0,
    }
}

/// The human summary: a headline and the default metrics.
pub fn summary(report: &Report) -> String {
    let cycles = format("cycles", &serde_json::json!(report.cycles));
    let how = match report.status.as_str() {
        "done" => format!("done in {cycles} core cycles"),
        "max-cycles" => format!("stopped at the cycle limit after {cycles} core cycles (a partial run)"),
        "max-instructions" => {
            format!("stopped at the instruction limit after {cycles} core cycles (a partial run)")
        }
        other => format!("{other} after {cycles} core cycles"),
    };
    let mut s = format!(
        "{} × {}: {how} ({:.2} s, {} cycles/s)\n\n",
        report.config,
        report.workload,
        report.sim.wall_seconds,
        format("sim.cycles_per_second", &serde_json::json!(report.sim.cycles_per_second)),
    );
    let rows: Vec<Vec<String>> = SUMMARY
        .iter()
        .filter_map(|k| value(report, k).map(|v| vec![k.to_string(), unit(k).to_string(), format(k, &v)]))
        .collect();
    s.push_str(&table::render(&["metric".into(), "unit".into(), "value".into()], &rows));
    s
}
