//! `warpscope run`: one machine × one workload to completion, a human summary, a JSON report,
//! and optionally the DRAM command trace.

use super::table;
use crate::config::Config;
use crate::output::Output;
use crate::sim::dram::command::Command;
use crate::sim::stats::metrics::{SUMMARY, format, unit, value};
use crate::sim::stats::report::{KernelReport, Report};
use crate::sim::stats::sample::{Interval, Sample};
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
    /// Write a row of per-interval statistics every `every` core cycles here.
    pub series: Option<SeriesOptions>,
    /// Told how the run is going every [`WATCH_SLICE`] cycles (and every `every` cycles).
    pub watch: Option<Watch>,
}

/// `run --series PATH --every N`.
#[derive(Clone, Debug)]
pub struct SeriesOptions {
    pub path: String,
    pub every: u64,
}

/// How far a run is, for a progress bar or line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// The machine's counters now.
    pub now: Sample,
    /// The share of the run done, where a cycle or instruction cap or the workload's CTAs make
    /// it knowable (the largest of those shares); `None` before anything says.
    pub done: Option<f64>,
    /// Whether the run has ended (the last call).
    pub finished: bool,
}

/// A callback told of a run's [`Progress`], with the cycles between calls it wants (0: only
/// every [`WATCH_SLICE`] cycles).
#[derive(Clone)]
pub struct Watch {
    pub every: u64,
    pub tell: Arc<dyn Fn(&Progress) + Send + Sync>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Watch {{ every: {} }}", self.every)
    }
}

/// Core cycles a run goes between looks at the interrupt flag and calls of its [`Watch`]: on
/// the built-in machine a few milliseconds.
pub const WATCH_SLICE: u64 = 4096;

/// A workload the machine cannot run (a CTA larger than an SM, no kernel): bad input, exit 2
/// like every other (issue 37.4; it exited 1).
pub fn unfit(workload: &str, message: String) -> crate::config::ConfigError {
    crate::config::ConfigError::argument(format!("workload {workload}"), message)
}

/// Something that looks at the machine as a run goes: before its first cycle, and after each
/// slice the run's driver goes between its other looks (at most [`WATCH_SLICE`] cycles, and
/// at every kernel's end), while the events and passes of that slice are still in the machine.
pub trait Observer {
    /// The machine is built and has not run yet.
    fn start(&mut self, _gpu: &mut Gpu) {}
    /// The machine has run another slice.
    fn slice(&mut self, gpu: &mut Gpu);
}

/// Looks at nothing.
struct Nobody;

impl Observer for Nobody {
    fn slice(&mut self, _: &mut Gpu) {}
}

/// Builds the machine and runs it; returns the final machine and its report, with an entry per
/// kernel launch. A run stopped by Ctrl-C ([`super::interrupt`]) reports `interrupted`.
pub fn simulate(config: &Config, workload: Arc<Workload>, opts: &RunOptions) -> Result<(Gpu, Report)> {
    simulate_observed(config, workload, opts, &mut Nobody)
}

/// [`simulate`], with `observer` looking at the machine as it runs.
pub fn simulate_observed(
    config: &Config,
    workload: Arc<Workload>,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<(Gpu, Report)> {
    let mut config = config.clone();
    if opts.max_instructions > 0 {
        config.sim.max_instructions = opts.max_instructions;
    }
    let max = if opts.max_cycles > 0 { opts.max_cycles } else { config.sim.max_cycles };
    let name = workload.name.clone();
    let mut gpu = Gpu::new(Arc::new(config), workload).map_err(|e| unfit(&name, e))?;
    observer.start(&mut gpu);
    let start = Instant::now();
    let kernels = drive(&mut gpu, max, opts, observer)?;
    let wall = start.elapsed().as_secs_f64();
    let mut report = Report::new(&gpu, wall);
    report.kernels = kernels;
    if gpu.is_running() && super::interrupt::requested() && !reached(&gpu, max) {
        report.status = INTERRUPTED.into();
    }
    Ok((gpu, report))
}

/// The `status` of a run stopped by Ctrl-C.
pub const INTERRUPTED: &str = "interrupted";

/// Whether the run stopped at its cycle or instruction limit.
fn reached(gpu: &Gpu, max: u64) -> bool {
    (max > 0 && gpu.cycle >= max) || gpu.instruction_cap_reached()
}

/// Core cycles the DRAM trace writer runs between writes of the commands: each DRAM cycle
/// issues at most a command per channel, so a slice's commands stay few.
const TRACE_SLICE: u64 = 256;

/// The first multiple of `every` after `cycle`.
fn next_multiple(cycle: u64, every: u64) -> u64 {
    (cycle / every + 1).saturating_mul(every)
}

/// Runs the machine to its end, its limit or an interrupt, a slice at a time: between slices
/// it writes the DRAM commands, the series' rows and tells the watch; at each kernel's end it
/// takes the counters (the machine stops there: [`Gpu::run_within_kernel`]). Returns an entry
/// per kernel launch begun, the last one's to the run's end.
fn drive(
    gpu: &mut Gpu,
    max: u64,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<Vec<KernelReport>> {
    let limit = if max == 0 { u64::MAX } else { max };
    let mut trace = match &opts.dram_trace {
        Some(path) => {
            gpu.events.set(EventKind::DramCommand, true);
            Some(Output::open(path)?)
        }
        None => None,
    };
    let mut series = match &opts.series {
        Some(s) => Some((Series::open(&s.path)?, s.every)),
        None => None,
    };
    let ctas: Vec<u64> = gpu.workload.kernels.iter().map(|k| u64::from(k.ctas())).collect();
    let progress = |gpu: &Gpu, now: Sample, finished: bool| {
        let l = &gpu.launcher;
        let total: u64 = ctas.iter().sum();
        let done_ctas = ctas[..l.kernel.min(ctas.len())].iter().sum::<u64>()
            + if l.kernel < ctas.len() { u64::from(l.done_ctas) } else { 0 };
        let cap = gpu.config.sim.max_instructions;
        let shares = [
            (total > 0).then(|| done_ctas as f64 / total as f64),
            (max > 0).then(|| now.cycle as f64 / max as f64),
            (cap > 0).then(|| now.thread_instructions as f64 / cap as f64),
        ];
        let done = shares.into_iter().flatten().filter(|s| *s > 0.0).reduce(f64::max).map(|s| s.min(1.0));
        Progress { now, done, finished }
    };
    let mut kernel_start = Sample::of(gpu);
    let mut interval_start = kernel_start;
    let mut kernels = Vec::new();
    let name = |gpu: &Gpu, k: usize| gpu.workload.kernels[k].name().to_string();
    while gpu.may_continue(limit) && !super::interrupt::requested() {
        let mut to = limit.min(next_multiple(gpu.cycle, WATCH_SLICE));
        if let Some((_, every)) = &series {
            to = to.min(next_multiple(gpu.cycle, *every));
        }
        if let Some(w) = opts.watch.as_ref().filter(|w| w.every > 0) {
            to = to.min(next_multiple(gpu.cycle, w.every));
        }
        if trace.is_some() {
            to = to.min(gpu.cycle + TRACE_SLICE);
        }
        let kernel = gpu.launcher.kernel;
        gpu.run_within_kernel(to);
        if let Some(out) = &mut trace {
            write_commands(gpu, out)?;
        }
        observer.slice(gpu);
        let now = Sample::of(gpu);
        if gpu.launcher.kernel != kernel && gpu.launcher.kernel < ctas.len() {
            kernels.push(KernelReport::of(kernel, &name(gpu, kernel), &Interval::new(kernel_start, now)));
            kernel_start = now;
        }
        if let Some((s, every)) = &mut series
            && (now.cycle.is_multiple_of(*every) || !gpu.may_continue(limit))
        {
            s.row(gpu.launcher.kernel.min(ctas.len() - 1), &Interval::new(interval_start, now))?;
            interval_start = now;
        }
        if let Some(w) = &opts.watch {
            (w.tell)(&progress(gpu, now, false));
        }
    }
    let end = Sample::of(gpu);
    let last = gpu.launcher.kernel.min(ctas.len() - 1);
    kernels.push(KernelReport::of(last, &name(gpu, last), &Interval::new(kernel_start, end)));
    if let Some((mut s, _)) = series {
        if end.cycle > interval_start.cycle {
            s.row(last, &Interval::new(interval_start, end))?;
        }
        s.out.finish()?;
    }
    if let Some(out) = trace {
        out.finish()?;
    }
    if let Some(w) = &opts.watch {
        (w.tell)(&progress(gpu, end, true));
    }
    Ok(kernels)
}

/// Writes the DRAM commands the machine recorded since the last call.
fn write_commands(gpu: &mut Gpu, out: &mut Output) -> Result<()> {
    let groups = gpu.config.dram.bank_groups as u8;
    for (_, e) in gpu.events.drain() {
        if let crate::sim::Event::DramCommand { channel, dram_cycle, cmd } = e {
            write_command(out, groups, channel, dram_cycle, &cmd)?;
        }
    }
    Ok(())
}

/// `run --series`: the columns of a row, in order (documented in docs/run.md).
pub const SERIES_COLUMNS: [&str; 16] = [
    "cycle_start",
    "cycle_end",
    "kernel",
    "ipc",
    "dram_bandwidth_utilization",
    "dram_row_hit_rate",
    "l1_hit_rate",
    "l2_hit_rate",
    "load_latency_mean",
    "l1_mshr_occupancy",
    "l1_miss_queue_occupancy",
    "l2_mshr_occupancy",
    "l2_access_queue_occupancy",
    "dram_read_queue_occupancy",
    "dram_write_queue_occupancy",
    "requests_in_flight",
];

/// The series file being written: a header, then a row per interval.
struct Series {
    out: Output,
}

impl Series {
    fn open(path: &str) -> Result<Series> {
        let mut out = Output::open(path)?;
        writeln!(out, "{}", SERIES_COLUMNS.join(","))?;
        Ok(Series { out })
    }

    /// A row for the interval `i`, in which kernel launch `kernel` ran last.
    fn row(&mut self, kernel: usize, i: &Interval) -> Result<()> {
        let share =
            |used: u64, capacity: u64| if capacity == 0 { 0.0 } else { used as f64 / capacity as f64 };
        let t = &i.to;
        let values = [
            i.ipc(),
            i.dram_bandwidth_utilization(),
            i.dram_row_hit_rate(),
            i.l1_hit_rate(),
            i.l2_hit_rate(),
            i.load_latency_mean(),
            share(t.mshr_used, t.mshr_capacity),
            share(t.l1_miss_queue_used, t.l1_miss_queue_capacity),
            share(t.l2_mshr_used, t.l2_mshr_capacity),
            share(t.l2_access_queue_used, t.l2_access_queue_capacity),
            i.dram_read_queue_occupancy(),
            i.dram_write_queue_occupancy(),
        ];
        let values: Vec<String> = values.iter().map(|v| format!("{v:.6}")).collect();
        writeln!(
            self.out,
            "{},{},{kernel},{},{}",
            i.from.cycle,
            t.cycle,
            values.join(","),
            t.requests_in_flight
        )?;
        Ok(())
    }
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
        INTERRUPTED => format!("interrupted (Ctrl-C) after {cycles} core cycles (a partial run)"),
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

/// The per-kernel table's columns: a header, the entry's key and the report key whose unit
/// and format the column shares.
const KERNEL_COLUMNS: [(&str, &str, &str); 13] = [
    ("launch", "launch", "core.ctas"),
    ("kernel", "name", "workload"),
    ("start", "start_cycle", "cycles"),
    ("end", "end_cycle", "cycles"),
    ("cycles", "cycles", "cycles"),
    ("thread instr.", "thread_instructions", "thread_instructions"),
    ("IPC", "ipc", "ipc"),
    ("L1 hit", "l1_hit_rate", "l1.hit_rate"),
    ("L2 hit", "l2_hit_rate", "l2.hit_rate"),
    ("DRAM bw", "dram_bandwidth_utilization", "dram.bandwidth_utilization"),
    ("row hit", "dram_row_hit_rate", "dram.row_hit_rate"),
    ("occlusions", "occlusions", "core.occlusions"),
    ("load lat.", "load_latency_mean", "memory.avg_latency"),
];

/// `run --per-kernel`: a row per kernel launch, values formatted as the summary's.
pub fn kernel_table(report: &Report) -> String {
    let header: Vec<String> = KERNEL_COLUMNS.iter().map(|(h, _, _)| h.to_string()).collect();
    let rows: Vec<Vec<String>> = report
        .kernels
        .iter()
        .map(|k| {
            let v = serde_json::to_value(k).expect("a kernel entry serializes");
            KERNEL_COLUMNS.iter().map(|(_, key, like)| format(like, &v[*key])).collect()
        })
        .collect();
    let mut t = table::render(&header, &rows);
    t.push_str("(load lat.: mean latency of L1-missing load requests, core cycles)\n");
    t
}

/// `run --kernels-csv`: a header of the entries' keys (as in the JSON's `kernels[]`), then a
/// row of raw values per kernel launch.
pub fn kernels_csv(report: &Report) -> String {
    let mut out = String::new();
    for (i, k) in report.kernels.iter().enumerate() {
        let serde_json::Value::Object(fields) = serde_json::to_value(k).expect("a kernel entry serializes")
        else {
            unreachable!("a kernel entry is an object")
        };
        if i == 0 {
            out.push_str(&fields.keys().cloned().collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        let cells: Vec<String> = fields
            .values()
            .map(|v| match v {
                serde_json::Value::String(s) => crate::output::csv_field(s),
                v => v.to_string(),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}
