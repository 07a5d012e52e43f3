//! The `warpscope` command line: parse, load, dispatch. Nothing else lives here.

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use warpscope::batch::{compare, diff, dram, export, run, sweep};
use warpscope::config::{Config, ConfigError, read_file};
use warpscope::debug::{Outcome, Session};
use warpscope::output;
use warpscope::sim::stats::metrics::{count, decimal, group};
use warpscope::workload::Workload;

#[derive(Parser)]
#[command(
    name = "warpscope",
    version,
    about = "A cycle-level GPU memory-system simulator you can debug",
    long_about = "A cycle-level GPU memory-system simulator you can debug.\n\nWithout a command, opens the debugger's terminal UI on the built-in machine (seed 000's GTX 480-like GPU) and the built-in irregular workload (BFS-like)."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Debug a machine × workload in the terminal UI (the default command).
    Tui(TuiArgs),
    /// Run one machine × workload to completion and print a summary.
    Run(RunArgs),
    /// Run a workload on variants of a machine (in parallel) and tabulate them.
    Compare(CompareArgs),
    /// Why is B slower than A: one workload on two machines that differ in some settings, the
    /// loads' wait by stage and cause on each, the keys and loads that moved most, and the
    /// first cycle the two part.
    Diff(DiffArgs),
    /// Measure simulation speed (core cycles/s) and peak memory.
    Bench(BenchArgs),
    /// Run debugger commands headless and print their output (like `gdb -batch`).
    Batch(BatchArgs),
    /// Feed a DRAM address trace (Ramulator / DRAMSim3 format) straight to the memory controllers.
    Dram(DramArgs),
    /// Run a grid of machine variants × workloads in parallel, appending each result as it
    /// finishes (resumable, shardable across machines); or merge shards' results.
    Sweep(SweepArgs),
    /// Machine configs from other simulators.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Run a seed's headline experiment (a spec in sample-configs/repro/) and write a report
    /// with the paper's numbers beside warpscope's (resumable: finished runs are kept).
    Repro(ReproArgs),
    /// Tabulate warpscope beside GPGPU-Sim/Accel-Sim on the same traces and machine, from the
    /// peer's results stored in the repository (see docs/validation/); export the traces for the
    /// peer and record its logs.
    Validate(ValidateArgs),
    /// Accel-Sim SASS traces: `trace export` writes any workload as one.
    Trace(TraceArgs),
    /// Write cycles --from..--to of a run as a Chrome/Perfetto trace-event file (open it in
    /// ui.perfetto.dev or chrome://tracing; 1 µs there = 1 core cycle).
    Timeline(TimelineArgs),
}

#[derive(Args)]
struct TimelineArgs {
    #[command(flatten)]
    machine: Machine,
    /// First core cycle of the window.
    #[arg(long, value_name = "CYCLE")]
    from: u64,
    /// Core cycle the window ends before.
    #[arg(long, value_name = "CYCLE")]
    to: u64,
    /// The trace file to write (JSON; `-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    out: String,
}

#[derive(Args)]
struct ValidateArgs {
    /// The validation study (RON; see docs/validation/README.md).
    spec: PathBuf,
    /// Where to write the tables (markdown; `-` for standard output).
    #[arg(short, long, value_name = "PATH|-", default_value = "-")]
    output: String,
    /// Run only these kernels of the study (comma-separated names).
    #[arg(long, value_name = "NAMES")]
    kernels: Option<String>,
    /// Instead of validating, write each kernel's trace into DIR/NAME/ for the peer to run.
    #[arg(long, value_name = "DIR", conflicts_with = "record")]
    export: Option<PathBuf>,
    /// With --export: only the kernels whose stored result is missing or of another trace
    /// (--record keeps the others' stored results).
    #[arg(long, requires = "export")]
    stale: bool,
    /// Instead of validating, read the peer's logs (LOGDIR/NAME.log) into the study's stored
    /// results file.
    #[arg(long, value_name = "LOGDIR")]
    record: Option<PathBuf>,
}

#[derive(Args)]
struct ReproArgs {
    /// The reproduction spec (RON).
    spec: PathBuf,
    /// Directory for results.jsonl, report.md and report.svg (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Simulations run at once (default: one per core; at most the runs and 4 per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Cap every run at N core cycles instead of the spec's cap (a quick smoke run of the whole
    /// study; the report states the cap). Give it its own --out: stored runs made under
    /// another cap are refused.
    #[arg(long, value_name = "N")]
    max_cycles: Option<u64>,
    /// Run N of the stored runs in --out again (spread over the study) and compare each
    /// report with the stored one, every key but the host's timing; runs nothing else and
    /// writes nothing. Exits 1 if any differs: the simulator changed since they were made.
    #[arg(long, value_name = "N")]
    verify: Option<usize>,
    /// Compare the claims' verdicts on the runs stored in --out with those on FILE (an earlier
    /// results.jsonl of the same spec, e.g. from `git show`, perhaps made before an edit of
    /// the machine file): prints a table of the claims whose verdict changed; runs nothing
    /// and writes nothing.
    #[arg(long, value_name = "FILE", conflicts_with = "verify")]
    since: Option<PathBuf>,
    /// Write report.md and report.svg from the runs stored in --out, running nothing: refused
    /// unless every run of the study is stored (after a change to how reports are written).
    #[arg(long, conflicts_with_all = ["verify", "since"])]
    report_only: bool,
}

#[derive(Args)]
struct TraceArgs {
    #[command(subcommand)]
    command: TraceCommand,
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Write a workload as an Accel-Sim trace directory (kernelslist.g + kernel-N.traceg)
    /// that Accel-Sim, or `-w DIR/kernelslist.g`, runs as the same input.
    Export(ExportArgs),
}

#[derive(Args)]
struct ExportArgs {
    /// The directory to write (created; must not exist or be empty, unless --force).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The workload to write, loaded as `run` loads it (of the config, only `sim.seed`
    /// matters: it seeds synthetic addresses).
    #[command(flatten)]
    machine: Machine,
    /// Replace DIR if it exists and is not empty.
    #[arg(long, visible_alias = "overwrite")]
    force: bool,
    /// Write every lane's address (address mode 0) instead of base+stride / base+delta.
    #[arg(long)]
    list_addresses: bool,
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Read a GPGPU-Sim 3.x/4.x gpgpusim.config (and Accel-Sim's trace.config after it) and
    /// write the warpscope machine it describes (RON, each key commented with the option, file
    /// and line it came from); options the machine cannot represent are listed in a warning
    /// and in the file's header.
    Import(ImportArgs),
}

#[derive(Args)]
struct ImportArgs {
    /// The GPGPU-Sim option files, in order: a later file overrides an earlier one
    /// (`gpgpusim.config trace.config`, as Accel-Sim is given them), and under -network_mode 1
    /// the BookSim file its -inter_config_file names (`config_pascal_islip.icnt`).
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// Where to write the machine (`-` for standard output).
    #[arg(short, long, value_name = "PATH|-", default_value = "-")]
    output: String,
}

#[derive(Args)]
struct DramArgs {
    /// Machine config (RON); the built-in gtx480-sc14 when omitted. Only `dram.*`,
    /// `l2.line_bytes` and the clocks matter.
    #[arg(short, long, value_name = "CONFIG")]
    config: Option<PathBuf>,
    /// Override a config key, e.g. --set dram.scheduler=fcfs (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// The address trace, one `0x<addr> <R|W|READ|WRITE> [cycle]` per line (`-` for standard input).
    #[arg(long, value_name = "FILE|-")]
    trace: String,
    /// Write the JSON report to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
    /// Write every DRAM command to PATH: `<dram_cycle> <channel> <bank_group> <bank> <CMD> <row> <col>`.
    #[arg(long, value_name = "PATH|-")]
    dram_trace: Option<String>,
    /// Instead of simulating, write a synthetic benchmark trace of --requests requests to --trace.
    #[arg(long, value_name = "PATTERN")]
    generate: Option<dram::Pattern>,
    /// Requests of a generated trace.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    requests: u64,
    /// Do not print the summary.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Args)]
struct SweepArgs {
    /// The grid file (RON); with --merge, the results files of the shards to combine.
    #[arg(value_name = "GRID.ron | SHARD-RESULTS", required = true)]
    inputs: Vec<PathBuf>,
    /// Append one CSV row per finished point to PATH (the merged file with --merge).
    #[arg(long, value_name = "PATH")]
    csv: Option<PathBuf>,
    /// Append one JSON line (the full report) per finished point to PATH (the merged file with --merge).
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// Run only this shard's points: those whose index is I modulo N (0-based I, e.g.
    /// `--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`).
    #[arg(long, value_name = "I/N", conflicts_with = "merge")]
    shard: Option<String>,
    /// Combine the given shards' results files into --csv or --json, ordered by point.
    #[arg(long)]
    merge: bool,
    /// Also draw the results (all of them, finished earlier or now) as SVG line charts to PATH.
    #[arg(long, value_name = "PATH", conflicts_with = "merge")]
    svg: Option<PathBuf>,
    /// Also write the results (all of them) as a markdown table to PATH: a row per point, a
    /// column per metric, values formatted as `run` shows them.
    #[arg(long, value_name = "PATH", conflicts_with = "merge")]
    md: Option<PathBuf>,
    /// Parallel runs (default: all cores; at most the runs and 4 per core).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Normalise the results to this variant (a point's assignments as the results' `variant`
    /// shows them, e.g. "dram.scheduler=fcfs l1.replacement=lru"): prints each variant's
    /// speedup over it per workload, and the geometric mean.
    #[arg(long, value_name = "VARIANT", conflicts_with = "merge")]
    baseline: Option<String>,
    /// The metric --baseline normalises (one of the grid's): `cycles` (the default) gives the
    /// speedup, baseline cycles / variant cycles; another the variant's value / the baseline's.
    #[arg(long, value_name = "KEY", default_value = "cycles", requires = "baseline")]
    metric: String,
    /// Write the normalised table as CSV to PATH.
    #[arg(long, value_name = "PATH", requires = "baseline")]
    normalised_csv: Option<PathBuf>,
    /// Draw the normalised results to PATH (SVG): a group of bars per workload and one for the
    /// geometric mean, a bar per variant.
    #[arg(long, value_name = "PATH", requires = "baseline")]
    normalised_svg: Option<PathBuf>,
}

#[derive(Args, Clone)]
struct Machine {
    /// Machine config (RON); the built-in gtx480-sc14 when omitted.
    #[arg(short, long, value_name = "CONFIG")]
    config: Option<PathBuf>,
    /// Workload: a RON file, an Accel-Sim trace, or a benchmark name (atax, ...; sized with
    /// --set workload.KNOB=N); the built-in BFS-like kernel when omitted.
    #[arg(short, long, value_name = "WORKLOAD")]
    workload: Option<PathBuf>,
    /// Override a config key, e.g. --set dram.scheduler=fcfs, or a benchmark's size, e.g.
    /// --set workload.nx=512 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    machine: Machine,
    /// Stop after this many core cycles.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_cycles: u64,
    /// Write the JSON report to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
    /// Write every DRAM command to PATH: `<dram_cycle> <channel> <bank_group> <bank> <CMD> <row> <col>`.
    #[arg(long, value_name = "PATH|-")]
    dram_trace: Option<String>,
    /// Also print a table of per-kernel-launch statistics.
    #[arg(long)]
    per_kernel: bool,
    /// Write the per-kernel-launch statistics as CSV to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    kernels_csv: Option<String>,
    /// Write a row of per-interval statistics (IPC, DRAM bandwidth, hit rates, occupancies)
    /// every --every core cycles as CSV to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    series: Option<String>,
    /// The interval of --series, in core cycles.
    #[arg(long, value_name = "N", default_value_t = 10_000, requires = "series")]
    every: u64,
    /// Print a statistics line to standard error every N core cycles (also when it is not a
    /// terminal).
    #[arg(long, value_name = "N")]
    progress_every: Option<u64>,
    /// Do not print the summary, the progress bar or progress lines.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Args)]
struct DiffArgs {
    #[command(flatten)]
    machine: Machine,
    /// Machine A's settings on top of -c and --set, e.g. --a dram.scheduler=frfcfs (repeatable).
    #[arg(long = "a", value_name = "KEY=VALUE")]
    a: Vec<String>,
    /// Machine B's settings, e.g. --b dram.scheduler=wg-w (repeatable).
    #[arg(long = "b", value_name = "KEY=VALUE")]
    b: Vec<String>,
    /// Stop each run after this many core cycles.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_cycles: u64,
    /// Also write the whole comparison (every row) as JSON to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
    /// Also write the report as Markdown to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    md: Option<String>,
}

#[derive(Args)]
struct CompareArgs {
    /// Machine config (RON); the built-in gtx480-sc14 when omitted.
    #[arg(short, long, value_name = "CONFIG")]
    config: Option<PathBuf>,
    /// Workload: a RON file, an Accel-Sim trace, or a benchmark name (atax, ...; sized with
    /// --set workload.KNOB=N); repeat for several benchmarks (a table of each variant's
    /// speedup over --baseline per benchmark, and their geometric mean). The built-in BFS-like
    /// kernel when omitted.
    #[arg(short, long, value_name = "WORKLOAD")]
    workload: Vec<PathBuf>,
    /// A file listing workloads, one per line (paths relative to it; `#` starts a comment).
    #[arg(long, value_name = "FILE")]
    workloads: Option<PathBuf>,
    /// Override a config key, e.g. --set dram.scheduler=fcfs, or a benchmark's size, e.g.
    /// --set workload.nx=512 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// The variant the others are normalised to (its name as the table's header shows it):
    /// prints each variant's speedup over it per benchmark, and the geometric mean. With
    /// several workloads, the first variant unless given.
    #[arg(long, value_name = "VARIANT")]
    baseline: Option<String>,
    /// The key normalised to the baseline: `cycles` (the default) gives the speedup, baseline
    /// cycles / variant cycles; any other key the variant's value / the baseline's.
    #[arg(long, value_name = "KEY", default_value = "cycles")]
    metric: String,
    /// A key and its values, e.g. --vary dram.scheduler=fcfs,frfcfs (repeat for a cross product).
    #[arg(long, value_name = "KEY=V1,V2,...", required_unless_present = "variant")]
    vary: Vec<String>,
    /// A named variant setting several keys, e.g. --variant 'l1x4:l1.mshr_entries=128,l1.miss_queue=32'
    /// (repeatable; crossed with the --vary lists).
    #[arg(long, value_name = "NAME:KEY=V,KEY=V,...")]
    variant: Vec<String>,
    /// Rows to show (comma-separated dotted report keys); the summary metrics by default.
    #[arg(long, value_name = "KEYS")]
    metrics: Option<String>,
    /// Also write the table as CSV to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    csv: Option<String>,
    /// Also write every variant's full report as JSON to PATH (`-` for standard output).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
    /// Also draw the metrics as SVG bar charts (a bar per variant) to PATH.
    #[arg(long, value_name = "PATH")]
    svg: Option<PathBuf>,
    /// Stop each run after this many core cycles.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_cycles: u64,
    /// Parallel runs (default: all cores; at most the runs and 4 per core).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
}

#[derive(Args)]
struct TuiArgs {
    #[command(flatten)]
    machine: Machine,
    /// Pane layout: a name in layouts/ (default, dram, cache, warp) or a .ron file.
    #[arg(short, long, value_name = "LAYOUT")]
    layout: Option<String>,
    /// Let the mouse focus panes, select rows and scroll.
    #[arg(long)]
    mouse: bool,
    #[command(flatten)]
    commands: Commands,
    /// Instead of opening the TUI, draw one frame (after the commands) to PATH as SVG.
    #[arg(long, value_name = "PATH")]
    screenshot: Option<String>,
    /// The terminal size of --screenshot, COLUMNSxROWS.
    #[arg(long, value_name = "COLUMNSxROWS", default_value = "160x48", requires = "screenshot")]
    size: String,
}

/// Debugger commands to run first: a script file or a `;`-separated list.
#[derive(Args)]
struct Commands {
    /// A file of debugger commands, one per line (`#` starts a comment).
    #[arg(long, value_name = "FILE", conflicts_with = "execute")]
    script: Option<PathBuf>,
    /// Commands separated by `;`, e.g. -x "break occlusion; continue; show warp 3.17".
    #[arg(short = 'x', long = "execute", value_name = "COMMANDS")]
    execute: Option<String>,
    /// Start at a checkpoint (`checkpoint save FILE`) saved with the same -c, -w and --set.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Run a second machine in lockstep: this one with these settings (KEY=VALUE, repeatable),
    /// for `break diverge`, `break load-done ... if delta > N` and panes that show A, B or both.
    #[arg(long = "vs", value_name = "KEY=VALUE", num_args = 1.., conflicts_with = "resume")]
    vs: Vec<String>,
}

impl Commands {
    /// The session: at cycle 0, or at the checkpoint `--resume` names.
    fn session(&self, config: Config, workload: Arc<Workload>) -> Result<Session> {
        let session = match &self.resume {
            Some(path) => {
                Session::resume(config.clone(), Arc::clone(&workload), &path.display().to_string())?
            }
            None => Session::new(config.clone(), Arc::clone(&workload))
                .map_err(|e| run::unfit(&workload.name, e))?,
        };
        if self.vs.is_empty() {
            return Ok(session);
        }
        let b = diff::versus(&config, &self.vs)?;
        if b.machine_only() == config.machine_only() {
            eprintln!("note: --vs {} gives the same machine: B follows A exactly", self.vs.join(" "));
        }
        let b = Session::new(b, Arc::clone(&workload)).map_err(|e| run::unfit(&workload.name, e))?;
        session.with_vs(self.vs.clone(), b).map_err(|e| usage(&format!("--vs {}", self.vs.join(" ")), &e))
    }

    /// The command lines, each with where it came from for messages (`FILE:LINE`, or `-x`
    /// and the command's place in the list).
    fn lines(&self) -> Result<Vec<(String, String)>> {
        Ok(match (&self.script, &self.execute) {
            (Some(path), _) => read_file(path)?
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    (
                        l.split('#').next().unwrap_or("").trim().to_string(),
                        format!("{}:{}", path.display(), i + 1),
                    )
                })
                .collect(),
            (None, Some(x)) => x
                .split(';')
                .enumerate()
                .map(|(i, c)| (c.trim().to_string(), format!("-x command {}", i + 1)))
                .collect(),
            (None, None) => Vec::new(),
        })
    }
}

#[derive(Args)]
struct BatchArgs {
    #[command(flatten)]
    machine: Machine,
    #[command(flatten)]
    commands: Commands,
    /// How `show` commands print their view (`show blame`, `show interference`, `show stats`,
    /// ...): aligned text, CSV (each table, titles and notes as `#` comments) or JSON.
    #[arg(long, value_enum, default_value = "text")]
    format: warpscope::debug::views::export::Format,
}

#[derive(Args)]
struct BenchArgs {
    #[command(flatten)]
    machine: Machine,
    /// Stop after this many core cycles (0 = run to completion).
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_cycles: u64,
    /// Also measure the debugger: `continue` with breakpoints set, TUI frame rendering and
    /// time-travel jumps.
    #[arg(long)]
    debugger: bool,
    /// Measure DRAM-only mode instead: `dram` on a generated random and a sequential-stream
    /// trace (the config's DRAM).
    #[arg(long, conflicts_with_all = ["debugger", "workload", "max_cycles"])]
    dram: bool,
    /// Requests of each `--dram` trace.
    #[arg(long, value_name = "N", default_value_t = 1_000_000, requires = "dram")]
    requests: u64,
    /// Runs of each `--dram` trace (the table shows each and their median).
    #[arg(long, value_name = "K", default_value_t = 3, requires = "dram")]
    runs: usize,
}

/// Exit code for bad input (configs, workloads, arguments).
const EXIT_INPUT: i32 = 2;

fn main() {
    let cli = Cli::parse();
    let code = match dispatch(cli) {
        Ok(code) => code,
        // The reader went away (`warpscope ... | head`): stop quietly.
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            if let Some(ce) = e.downcast_ref::<ConfigError>() {
                eprintln!("error: {ce}");
                EXIT_INPUT
            } else {
                eprintln!("error: {e:#}");
                1
            }
        }
    };
    std::process::exit(code);
}

/// Builds the pool `--jobs` asks for, cut to the simulations to run and the cores
/// ([`warpscope::batch::jobs::pool_size`]); `--jobs 0` is refused.
fn job_pool(jobs: Option<usize>, points: usize) -> Result<()> {
    let Some(j) = jobs else { return Ok(()) };
    if j == 0 {
        return Err(usage("--jobs 0", "give the number of simulations to run at once, 1 or more"));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = warpscope::batch::jobs::pool_size(j, points, cores);
    rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    Ok(())
}

/// A mistake in how `arg` was given (exit code 2, like every input error).
fn usage(arg: &str, message: &str) -> anyhow::Error {
    ConfigError::argument(arg.to_string(), message.to_string()).into()
}

/// Checks every output path given with its flag before any work starts: each can be written,
/// none is one of the command's `inputs` and no two are one file.
fn check_outputs(outputs: &[(&str, Option<&str>)], inputs: &[(&str, Option<&str>)]) -> Result<()> {
    Ok(output::paths::check_paths(outputs, inputs)?)
}

impl Machine {
    /// The machine's files, `-c` and `-w`, as inputs an output must not replace.
    fn inputs(&self) -> [(&'static str, Option<String>); 2] {
        let shown = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string());
        [("-c", shown(&self.config)), ("-w", shown(&self.workload))]
    }
}

/// Files given as `flag` (or in that place among the arguments), as inputs for [`pairs`].
fn given(flag: &'static str, paths: &[PathBuf]) -> Vec<(&'static str, Option<String>)> {
    paths.iter().map(|p| (flag, Some(p.display().to_string()))).collect()
}

/// Borrows owned (flag, path) pairs as [`check_outputs`] takes them.
fn pairs<'a>(list: &'a [(&'a str, Option<String>)]) -> Vec<(&'a str, Option<&'a str>)> {
    list.iter().map(|(f, p)| (*f, p.as_deref())).collect()
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Writes to standard output, returning errors (a closed pipe) instead of panicking.
fn out(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_all(text.as_bytes()).and_then(|_| stdout.flush());
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("standard output: cannot write: {e}"));
    Ok(written.map_err(named)?)
}

fn dispatch(cli: Cli) -> Result<i32> {
    match cli.command {
        None => tui_cmd(TuiArgs {
            machine: Machine { config: None, workload: None, sets: Vec::new() },
            layout: None,
            mouse: false,
            commands: Commands { script: None, execute: None, resume: None, vs: Vec::new() },
            screenshot: None,
            size: String::new(),
        }),
        Some(Command::Tui(a)) => tui_cmd(a),
        Some(Command::Run(a)) => run_cmd(a),
        Some(Command::Compare(a)) => compare_cmd(a),
        Some(Command::Diff(a)) => diff_cmd(a),
        Some(Command::Bench(a)) => bench_cmd(a),
        Some(Command::Batch(a)) => batch_cmd(a),
        Some(Command::Dram(a)) => dram_cmd(a),
        Some(Command::Sweep(a)) => sweep_cmd(a),
        Some(Command::Config(ConfigCommand::Import(a))) => config_import_cmd(a),
        Some(Command::Repro(a)) => repro_cmd(a),
        Some(Command::Validate(a)) => validate_cmd(a),
        Some(Command::Trace(TraceArgs { command: TraceCommand::Export(a) })) => export_cmd(a),
        Some(Command::Timeline(a)) => timeline_cmd(a),
    }
}

fn tui_cmd(a: TuiArgs) -> Result<i32> {
    let size = match &a.screenshot {
        Some(path) => {
            let mut inputs = a.machine.inputs().to_vec();
            inputs.push(("--script", a.commands.script.as_ref().map(|p| p.display().to_string())));
            inputs.push(("--resume", a.commands.resume.as_ref().map(|p| p.display().to_string())));
            check_outputs(&[("--screenshot", Some(path))], &pairs(&inputs))?;
            Some(
                warpscope::tui::screenshot::parse_size(&a.size)
                    .map_err(|e| usage(&format!("--size {}", a.size), &e))?,
            )
        }
        None => None,
    };
    let commands: Vec<String> = a.commands.lines()?.into_iter().map(|(l, _)| l).collect();
    let (config, workload) = load(&a.machine)?;
    if size.is_none() && (!std::io::stdout().is_terminal() || !std::io::stdin().is_terminal()) {
        eprintln!(
            "error: the terminal UI needs a terminal; for a headless run use `warpscope run` (or `warpscope batch -x ...`, or `tui --screenshot FILE.svg`)"
        );
        return Ok(EXIT_INPUT);
    }
    let session = a.commands.session(config, workload)?;
    let opts = warpscope::tui::TuiOptions {
        mouse: a.mouse,
        layout: a.layout,
        layouts_dir: PathBuf::from("layouts"),
        commands,
    };
    let (Some(path), Some((w, h))) = (&a.screenshot, size) else {
        warpscope::tui::run(session, opts)?;
        return Ok(0);
    };
    let (mut app, ran) = warpscope::tui::prepared_app(session, &opts, warpscope::tui::Theme { color: true });
    if let Err(e) = ran {
        return Err(usage("-x", &e));
    }
    output::write_atomic(path, &warpscope::tui::screenshot::svg(&mut app, w, h))?;
    Ok(0)
}

fn batch_cmd(a: BatchArgs) -> Result<i32> {
    if a.commands.script.is_none() && a.commands.execute.is_none() {
        return Err(usage("batch", "needs --script FILE or -x \"COMMANDS\""));
    }
    let lines = a.commands.lines()?;
    let (config, workload) = load(&a.machine)?;
    let mut session = a.commands.session(config, workload)?;
    for (i, (line, place)) in lines.iter().enumerate() {
        if line.is_empty() {
            continue;
        }
        use warpscope::debug::views::export::Format;
        // JSON: a line per command, `{command, view}` for a `show`, `{command, text}` else.
        let json_line = |key: &str, v: serde_json::Value| {
            out(&format!("{}\n", serde_json::json!({ "command": line, key: v })))
        };
        match a.format {
            Format::Text => out(&format!("(ws) {line}\n"))?,
            Format::Csv => out(&format!("# (ws) {line}\n"))?,
            Format::Json => {}
        }
        let shown = match warpscope::debug::command::Command::parse(line) {
            Ok(warpscope::debug::command::Command::Show { view, args }) if a.format != Format::Text => {
                Some(warpscope::debug::views::show(&session.scene(), view, &args))
            }
            _ => None,
        };
        let outcome = match shown {
            Some(Ok(v)) if a.format == Format::Json => {
                json_line("view", v.to_json())?;
                continue;
            }
            Some(Ok(v)) => Ok(Outcome::Text(v.to_csv())),
            Some(Err(e)) => Err(e),
            None => session.execute_blocking(line),
        };
        match outcome {
            Ok(Outcome::Text(t)) if a.format == Format::Json => json_line("text", t.trim_end().into())?,
            Ok(Outcome::Text(t)) if !t.is_empty() => out(&format!("{}\n", t.trim_end()))?,
            Ok(Outcome::Quit) => break,
            Ok(Outcome::Layout(_)) => out("(layouts apply to the TUI only)\n")?,
            Ok(_) => {}
            // A command the debugger refuses is bad input (exit 2, issue 37.4); like gdb's
            // batch mode, the script stops there.
            Err(e) => {
                let left = lines[i + 1..].iter().filter(|(l, _)| !l.is_empty()).count() as u64;
                let rest = if left == 0 {
                    String::new()
                } else {
                    format!(" (not run: {} after it)", count(left, "command"))
                };
                return Err(usage(&format!("{place}: {line}"), &format!("{e}{rest}")));
            }
        }
    }
    Ok(0)
}

fn load(m: &Machine) -> Result<(Config, Arc<Workload>)> {
    // `workload.KNOB=N` sizes a benchmark workload; every other key is the machine's.
    let (sizes, sets): (Vec<String>, Vec<String>) =
        m.sets.iter().cloned().partition(|s| s.trim_start().starts_with("workload."));
    let config = Config::load_or_builtin(m.config.as_deref(), &sets)?;
    let workload = with_input_progress(|| Workload::resolve(m.workload.as_deref(), &sizes, config.sim.seed))?;
    Ok((config, Arc::new(workload)))
}

/// A line for the terminal: the stage of input generation, its share done (or its count where
/// its length is not known) and the time so far.
fn input_progress_line(stage: &warpscope::workload::bench::progress::Stage, seconds: u64) -> String {
    let so_far = match stage.total {
        Some(total) if total > 0 => {
            format!("{:.0} %", (stage.done.min(total) as f64 * 100.0 / total as f64).floor())
        }
        _ => warpscope::sim::stats::metrics::group(stage.done),
    };
    format!("generating the workload's input: {} {so_far} ({seconds} s)", stage.name)
}

/// Runs `make` (a workload's generation); on a terminal, if it takes more than a second, a line
/// on standard error says which stage of a benchmark's input it is at, until it is done.
fn with_input_progress<T>(make: impl FnOnce() -> T) -> T {
    use std::sync::mpsc::{RecvTimeoutError, channel};
    use std::time::{Duration, Instant};
    use warpscope::workload::bench::progress;
    if !std::io::stderr().is_terminal() {
        return make();
    }
    let (done, finished) = channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let start = Instant::now();
            let mut shown = false;
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(Duration::from_millis(250)) {
                if let Some(stage) = progress::current().filter(|_| start.elapsed() >= Duration::from_secs(1))
                {
                    eprint!("\r\x1b[2K{}", input_progress_line(&stage, start.elapsed().as_secs()));
                    shown = true;
                }
            }
            if shown {
                eprint!("\r\x1b[2K");
            }
        });
        let made = make();
        drop(done);
        made
    })
}

fn run_cmd(a: RunArgs) -> Result<i32> {
    check_outputs(
        &[
            ("--json", a.json.as_deref()),
            ("--dram-trace", a.dram_trace.as_deref()),
            ("--kernels-csv", a.kernels_csv.as_deref()),
            ("--series", a.series.as_deref()),
        ],
        &pairs(&a.machine.inputs()),
    )?;
    if a.every == 0 {
        return Err(usage("--every 0", "give the interval of --series in core cycles, 1 or more"));
    }
    if a.progress_every == Some(0) {
        return Err(usage("--progress-every 0", "give the cycles between progress lines, 1 or more"));
    }
    let (config, workload) = load(&a.machine)?;
    let to_stdout =
        [&a.json, &a.dram_trace, &a.kernels_csv, &a.series].iter().any(|o| o.as_deref() == Some("-"));
    let watch = (!a.quiet).then(|| run_progress(a.progress_every)).flatten();
    let opts = run::RunOptions {
        max_cycles: a.max_cycles,
        dram_trace: a.dram_trace.clone(),
        series: a.series.clone().map(|path| run::SeriesOptions { path, every: a.every }),
        watch: watch.as_ref().map(|(w, _)| w.clone()),
        ..Default::default()
    };
    warpscope::batch::interrupt::install()?;
    let (gpu, report) = run::simulate(&config, workload, &opts)?;
    if let Some((_, bar)) = &watch {
        bar.finish_and_clear();
    }
    if !a.quiet && !to_stdout {
        out(&run::summary(&report))?;
        if a.per_kernel {
            out(&format!("\n{}", run::kernel_table(&report)))?;
        }
    }
    if let Some(path) = &a.json {
        output::write_atomic(path, &(serde_json::to_string_pretty(&report)? + "\n"))?;
    }
    if let Some(path) = &a.kernels_csv {
        output::write_atomic(path, &run::kernels_csv(&report))?;
    }
    if let warpscope::sim::Status::Stuck(why) = &gpu.status {
        eprintln!("error: the machine is stuck: {why}");
    }
    if report.status == run::INTERRUPTED {
        eprintln!("interrupted at cycle {}: the report above is of the run so far", group(report.cycles));
        return Ok(warpscope::batch::interrupt::EXIT_INTERRUPTED);
    }
    Ok(run::exit_code(&gpu.status))
}

/// `run`'s progress: a bar on a terminal (standard error) and, every `every` cycles, a
/// statistics line (on any standard error). None when neither is shown.
fn run_progress(every: Option<u64>) -> Option<(run::Watch, indicatif::ProgressBar)> {
    use std::sync::Mutex;
    use std::time::Instant;
    let terminal = std::io::stderr().is_terminal();
    if !terminal && every.is_none() {
        return None;
    }
    let bar = if terminal {
        let style = indicatif::ProgressStyle::with_template("{bar:30} {wide_msg}").expect("a valid template");
        indicatif::ProgressBar::new(1000).with_style(style)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let start = Instant::now();
    let last = Mutex::new(None);
    let shown = bar.clone();
    let tell = move |p: &run::Progress| {
        let seconds = start.elapsed().as_secs_f64();
        let line = progress_line(p, seconds);
        if let Some(d) = p.done {
            shown.set_position((d * 1000.0) as u64);
        }
        shown.set_message(line.clone());
        let Some(every) = every else { return };
        let mut last = last.lock().expect("no panic while held");
        let due = p.now.cycle.is_multiple_of(every) || p.finished;
        if due && last.is_none_or(|l: warpscope::sim::stats::sample::Sample| l.cycle < p.now.cycle) {
            let from = last.unwrap_or_default();
            let text = statistics_line(&warpscope::sim::stats::sample::Interval::new(from, p.now), seconds);
            if shown.is_hidden() {
                eprintln!("{text}");
            } else {
                shown.println(text);
            }
            *last = Some(p.now);
        }
    };
    Some((run::Watch { every: every.unwrap_or(0), tell: Arc::new(tell) }, bar))
}

/// The bar's message: cycles, instructions and IPC so far, and an ETA once the share done is
/// known.
fn progress_line(p: &run::Progress, seconds: f64) -> String {
    let n = &p.now;
    let ipc = if n.cycle == 0 { 0.0 } else { n.thread_instructions as f64 / n.cycle as f64 };
    let eta = match p.done {
        Some(d) if d > 0.0 && d < 1.0 => format!(", eta {}", duration(seconds * (1.0 - d) / d)),
        _ => String::new(),
    };
    // The most wanted first: a narrow terminal cuts the end.
    format!(
        "cycle {}, IPC {}{eta}, {} elapsed, {} thread instructions",
        group(n.cycle),
        decimal(ipc, 1),
        duration(seconds),
        group(n.thread_instructions)
    )
}

/// A GPGPU-Sim-style statistics line over the interval `i`: totals so far and the interval's
/// rates.
fn statistics_line(i: &warpscope::sim::stats::sample::Interval, seconds: f64) -> String {
    let t = &i.to;
    let rate = if seconds > 0.0 { t.cycle as f64 / seconds } else { 0.0 };
    format!(
        "cycles simulated: {}  inst.: {} (ipc={})  interval: ipc={} dram_bw={:.1}% row_hit={:.1}% l1_hit={:.1}% l2_hit={:.1}%  sim_rate={} cycles/s  elapsed={}",
        group(t.cycle),
        group(t.thread_instructions),
        decimal(if t.cycle == 0 { 0.0 } else { t.thread_instructions as f64 / t.cycle as f64 }, 1),
        decimal(i.ipc(), 1),
        100.0 * i.dram_bandwidth_utilization(),
        100.0 * i.dram_row_hit_rate(),
        100.0 * i.l1_hit_rate(),
        100.0 * i.l2_hit_rate(),
        decimal(rate, 0),
        duration(seconds)
    )
}

/// Seconds as `42 s`, `3 min 05 s` or `2 h 07 min`.
fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

fn compare_cmd(a: CompareArgs) -> Result<i32> {
    let svg = a.svg.as_ref().map(|p| p.display().to_string());
    let mut inputs = given("-w", &a.workload);
    inputs.push(("-c", a.config.as_ref().map(|p| p.display().to_string())));
    inputs.push(("--workloads", a.workloads.as_ref().map(|p| p.display().to_string())));
    check_outputs(
        &[("--csv", a.csv.as_deref()), ("--json", a.json.as_deref()), ("--svg", svg.as_deref())],
        &pairs(&inputs),
    )?;
    let mut args: Vec<String> = Vec::new();
    for w in &a.workload {
        let w = w.display().to_string();
        if args.contains(&w) {
            return Err(usage(&format!("-w {w}"), "is given twice; give each workload once"));
        }
        args.push(w);
    }
    if let Some(list) = &a.workloads {
        for w in compare::workload_list(list)? {
            if args.contains(&w) {
                return Err(usage(
                    &format!("--workloads {}", list.display()),
                    &format!("lists `{w}`, which -w gives too; give each workload once"),
                ));
            }
            args.push(w);
        }
    }
    let machine =
        |w: Option<PathBuf>| Machine { config: a.config.clone(), workload: w, sets: a.sets.clone() };
    let machines: Vec<Machine> = if args.is_empty() {
        vec![machine(None)]
    } else {
        args.iter().map(|w| machine(Some(PathBuf::from(w)))).collect()
    };
    let mut workloads = Vec::new();
    let mut config = None;
    for m in &machines {
        let (c, w) = load(m)?;
        config.get_or_insert(c);
        workloads.push(w);
    }
    let config = config.expect("at least one workload");
    let variants = compare::named_variants(&a.variant, &a.vary)?;
    let names: Vec<String> = variants.iter().map(|v| v.name.clone()).collect();
    let normalise = a.baseline.is_some() || workloads.len() > 1;
    let baseline = match &a.baseline {
        Some(b) => warpscope::batch::speedup::baseline_index("--baseline", b, &names)?,
        None => 0,
    };
    let metrics: Vec<String> = match &a.metrics {
        Some(m) => m.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
        None => compare::default_metrics(),
    };
    let configs = compare::configs(&config, &variants)?;
    for w in &workloads {
        compare::check_metrics(&metrics, &configs, w)?;
        warpscope::batch::metrics::check(
            std::slice::from_ref(&a.metric),
            configs.iter().map(|c| (c, Arc::clone(w))),
        )
        .map_err(|m| usage(&format!("--metric {}", a.metric), &m))?;
    }
    job_pool(a.jobs, configs.len() * workloads.len())?;
    let opts = run::RunOptions { max_cycles: a.max_cycles, ..Default::default() };
    warpscope::batch::interrupt::install()?;
    let results = compare::compare_all(&config, &configs, &workloads, variants, &opts)?;
    let reports = || results.iter().flat_map(|c| &c.reports);
    let cut = reports().filter(|r| r.status == run::INTERRUPTED).count();
    if cut > 0 {
        let all = reports().count();
        eprintln!("interrupted: {} of {all} finished; nothing written", count((all - cut) as u64, "run"));
        return Ok(warpscope::batch::interrupt::EXIT_INTERRUPTED);
    }
    let stuck = reports().any(|r| r.status == "stuck");
    let to_stdout = a.csv.as_deref() == Some("-") || a.json.as_deref() == Some("-");
    if normalise {
        let labels = compare::benchmark_labels(&workloads, &args);
        let n = compare::normalised(&results, &labels, &a.metric, baseline);
        if !to_stdout {
            if let [one] = results.as_slice() {
                out(&format!("{}\n", one.table(&metrics)))?;
            }
            out(&n.table())?;
        }
        if let Some(p) = &a.csv {
            output::write_atomic(p, &n.csv())?;
        }
        if let Some(p) = &a.json {
            output::write_atomic(p, &compare::json_all(&results, &labels))?;
        }
        if let Some(p) = &svg {
            let title =
                format!("{} across {} on {}", a.metric, count(labels.len() as u64, "benchmark"), config.name);
            output::write_atomic(p, &n.svg(&title)?)?;
        }
        return Ok(if stuck { 1 } else { 0 });
    }
    let result = &results[0];
    if !to_stdout {
        out(&result.table(&metrics))?;
    }
    if let Some(p) = &a.csv {
        output::write_atomic(p, &result.csv(&metrics))?;
    }
    if let Some(p) = &a.json {
        output::write_atomic(p, &result.json())?;
    }
    if let Some(p) = &svg {
        output::write_atomic(p, &result.svg(&metrics, a.metrics.is_some())?)?;
    }
    Ok(if stuck { 1 } else { 0 })
}

fn diff_cmd(a: DiffArgs) -> Result<i32> {
    check_outputs(&[("--json", a.json.as_deref()), ("--md", a.md.as_deref())], &pairs(&a.machine.inputs()))?;
    let (config, workload) = load(&a.machine)?;
    let configs = diff::machines(&config, &a.a, &a.b)?;
    if configs[0].machine_only() == configs[1].machine_only() {
        eprintln!("note: --a and --b give the same machine: the two runs are the same");
    }
    warpscope::batch::interrupt::install()?;
    let (ra, rb) = rayon::join(
        || diff::record(&configs[0], Arc::clone(&workload), a.max_cycles),
        || diff::record(&configs[1], Arc::clone(&workload), a.max_cycles),
    );
    let (ra, rb) = (ra?, rb?);
    if [&ra, &rb].iter().any(|s| s.report.status == run::INTERRUPTED) {
        eprintln!("interrupted: nothing written");
        return Ok(warpscope::batch::interrupt::EXIT_INTERRUPTED);
    }
    let d = diff::diff(&workload.name, &a.a, &a.b, &ra, &rb);
    if a.json.as_deref() != Some("-") && a.md.as_deref() != Some("-") {
        out(&d.text())?;
    }
    if let Some(p) = &a.json {
        output::write_atomic(p, &(d.json() + "\n"))?;
    }
    if let Some(p) = &a.md {
        output::write_atomic(p, &d.markdown())?;
    }
    Ok(0)
}

fn bench_cmd(a: BenchArgs) -> Result<i32> {
    if a.dram {
        if a.runs == 0 {
            return Err(usage("--runs 0", "give the number of runs of each trace, 1 or more"));
        }
        let config = Config::load_or_builtin(a.machine.config.as_deref(), &a.machine.sets)?;
        out(&warpscope::batch::dram_bench::table(&warpscope::batch::dram_bench::bench(
            &config, a.requests, a.runs,
        )?))?;
        return Ok(0);
    }
    let (config, workload) = load(&a.machine)?;
    let opts = run::RunOptions { max_cycles: a.max_cycles, ..Default::default() };
    let (gpu, report) = run::simulate(&config, workload, &opts)?;
    let peak = match warpscope::batch::peak_memory::peak_rss_mb() {
        Some(mb) => format!("{mb:.1} MB"),
        None => "unavailable (no /proc/self/status)".into(),
    };
    out(&format!(
        "machine          {} × {}\nstatus           {}\ncore cycles      {}\nwall seconds     {:.3}\n\
         cycles/s         {}\nrequests/s       {}\npeak memory      {peak}\n",
        report.config,
        report.workload,
        report.status,
        group(report.cycles),
        report.sim.wall_seconds,
        decimal(report.sim.cycles_per_second, 0),
        decimal(gpu.ledger.created() as f64 / report.sim.wall_seconds.max(1e-9), 0),
    ))?;
    if a.debugger {
        let (config, workload) = load(&a.machine)?;
        out(&warpscope::tui::bench::debugger(
            config,
            workload,
            report.cycles,
            report.sim.cycles_per_second,
        )?)?;
    }
    Ok(run::exit_code(&gpu.status))
}

fn dram_cmd(a: DramArgs) -> Result<i32> {
    let config_file = a.config.as_ref().map(|p| p.display().to_string());
    let (generated, read) = match a.generate {
        Some(_) => (Some(a.trace.as_str()), None),
        None => (None, Some(a.trace.as_str())),
    };
    check_outputs(
        &[("--trace", generated), ("--json", a.json.as_deref()), ("--dram-trace", a.dram_trace.as_deref())],
        &[("--config", config_file.as_deref()), ("--trace", read)],
    )?;
    let config = Config::load_or_builtin(a.config.as_deref(), &a.sets)?;
    if let Some(pattern) = a.generate {
        // `-` is standard output, as for every output; a file appears whole or not at all.
        let mut out = output::Output::open(&a.trace)?;
        dram::generate(&config, pattern, a.requests, &mut out)?;
        out.finish()?;
        return Ok(0);
    }
    dram::check_machine(&config)?;
    let opts = dram::DramOptions { command_trace: a.dram_trace.clone(), no_skip: false };
    let (_, report) = if a.trace == "-" {
        let stdin = std::io::BufReader::with_capacity(1 << 16, std::io::stdin());
        dram::simulate(&config, &mut dram::DramTrace::new(stdin, "<stdin>"), &opts)?
    } else {
        let file = std::fs::File::open(&a.trace).map_err(|e| ConfigError::cannot_read(&a.trace, &e))?;
        let reader = std::io::BufReader::with_capacity(1 << 16, file);
        dram::simulate(&config, &mut dram::DramTrace::new(reader, &a.trace), &opts)?
    };
    if !a.quiet && a.json.as_deref() != Some("-") && a.dram_trace.as_deref() != Some("-") {
        out(&dram::summary(&report))?;
    }
    if let Some(path) = &a.json {
        output::write_atomic(path, &(serde_json::to_string_pretty(&report)? + "\n"))?;
    }
    Ok(0)
}

/// A progress bar over points on a terminal; hidden when standard error is not one.
fn progress_bar() -> Result<indicatif::ProgressBar> {
    Ok(if std::io::stderr().is_terminal() {
        // No `{eta}`: indicatif's reads "0s" before the first point ends; the sweep's message
        // gives one once the running points say how far they are.
        let style = indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} points, {elapsed} elapsed{wide_msg}",
        )?;
        let bar = indicatif::ProgressBar::new(0).with_style(style);
        bar.enable_steady_tick(std::time::Duration::from_secs(1));
        bar
    } else {
        indicatif::ProgressBar::hidden()
    })
}

fn sweep_cmd(a: SweepArgs) -> Result<i32> {
    let csv = a.csv.as_ref().map(|p| p.display().to_string());
    let json = a.json.as_ref().map(|p| p.display().to_string());
    let svg = a.svg.as_ref().map(|p| p.display().to_string());
    let md = a.md.as_ref().map(|p| p.display().to_string());
    let ncsv = a.normalised_csv.as_ref().map(|p| p.display().to_string());
    let nsvg = a.normalised_svg.as_ref().map(|p| p.display().to_string());
    // A sweep resumes from its --csv and --json, so they are outputs only; the grid must not be
    // written over. --merge reads the shards' files whole before it writes, so they are not
    // checked.
    let grids = if a.merge { Vec::new() } else { given("grid file", &a.inputs) };
    check_outputs(
        &[
            ("--csv", csv.as_deref()),
            ("--json", json.as_deref()),
            ("--svg", svg.as_deref()),
            ("--md", md.as_deref()),
            ("--normalised-csv", ncsv.as_deref()),
            ("--normalised-svg", nsvg.as_deref()),
        ],
        &pairs(&grids),
    )?;
    if a.merge {
        let target = match (&a.csv, &a.json) {
            (Some(p), None) | (None, Some(p)) => p,
            _ => {
                return Err(usage(
                    "--merge",
                    "writes one file: give exactly one of --csv PATH or --json PATH",
                ));
            }
        };
        let m = sweep::merge(target, &a.inputs)?;
        eprintln!(
            "merged {} from {} into {}",
            count(m.points as u64, "point"),
            count(a.inputs.len() as u64, "file"),
            target.display()
        );
        if !m.missing.is_empty() {
            let list: Vec<String> = m.missing.iter().map(|p| p.to_string()).collect();
            eprintln!(
                "warning: {} missing: {} (a shard not given, or not finished; re-run it and merge again)",
                count(m.missing.len() as u64, "point"),
                list.join(", ")
            );
        }
        return Ok(0);
    }
    let [grid] = a.inputs.as_slice() else {
        return Err(usage("sweep", "takes one grid file (several files only with --merge)"));
    };
    if a.csv.is_none() && a.json.is_none() {
        return Err(usage("sweep", "needs somewhere to write: --csv PATH and/or --json PATH"));
    }
    let s = sweep::Sweep::load(grid)?;
    let baseline = match &a.baseline {
        Some(b) => Some(sweep::check_baseline(&s, b, &a.metric)?),
        None => None,
    };
    let shard = a.shard.as_deref().map(sweep::parse_shard).transpose()?;
    job_pool(a.jobs, s.points.len())?;
    let opts = sweep::SweepOptions { csv: a.csv.clone(), json: a.json.clone(), shard };
    warpscope::batch::interrupt::install()?;
    let bar = progress_bar()?;
    let summary = sweep::run(&s, &opts, &bar)?;
    bar.finish_and_clear();
    if let Some(code) = stopped(&summary, "point", results_named(&a.csv, &a.json)) {
        return Ok(code);
    }
    eprintln!(
        "{}: {} in this shard, {} already done, {} run, {} not finished cleanly",
        grid.display(),
        count(summary.shard_points as u64, "point"),
        summary.skipped,
        summary.ran,
        summary.failed
    );
    warn_unmatched(&summary);
    let results = a.csv.as_ref().or(a.json.as_ref()).expect("checked above: an output is given");
    if let Some(svg) = &svg {
        output::write_atomic(svg, &sweep::chart(&s, results)?)?;
    }
    if let Some(md) = &md {
        output::write_atomic(md, &sweep::markdown(&s, results)?)?;
    }
    if let Some(baseline) = baseline {
        let n = sweep::normalised(&s, results, &a.metric, baseline)?;
        out(&n.table())?;
        if let Some(p) = &ncsv {
            output::write_atomic(p, &n.csv())?;
        }
        if let Some(p) = &nsvg {
            output::write_atomic(p, &n.svg(&format!("{}: {}", s.name, n.what()))?)?;
        }
    }
    Ok(if summary.failed > 0 { 1 } else { 0 })
}

fn config_import_cmd(a: ImportArgs) -> Result<i32> {
    check_outputs(&[("--output", Some(&a.output))], &pairs(&given("option file", &a.files)))?;
    let mut files = Vec::new();
    for path in &a.files {
        files.push((read_file(path)?, path.display().to_string()));
    }
    let imported = warpscope::config::gpgpusim::import(&files)?;
    for file in &imported.empty {
        eprintln!(
            "warning: {file}: no GPGPU-Sim option found (an option reads `-gpgpu_n_clusters 15`); nothing in the machine comes from it"
        );
    }
    use warpscope::config::gpgpusim::NO_TIMING_EFFECT;
    let (quiet, shown): (Vec<_>, Vec<_>) = imported.notes.iter().partition(|n| n.reason == NO_TIMING_EFFECT);
    if !shown.is_empty() {
        let names: Vec<&str> = files.iter().map(|(_, f)| f.as_str()).collect();
        eprintln!(
            "warning: {} options of {} are not (fully) represented in the machine:",
            shown.len(),
            names.join(" and ")
        );
        let shown: Vec<_> = shown.into_iter().cloned().collect();
        for line in warpscope::config::gpgpusim::Note::lines(&shown, str::to_string) {
            eprintln!("  {line}");
        }
    }
    if !quiet.is_empty() {
        let names: Vec<&str> = quiet.iter().map(|n| n.option.split(' ').next().unwrap_or("")).collect();
        eprintln!(
            "note: {} functional or statistics options have no timing effect: {}",
            quiet.len(),
            names.join(" ")
        );
    }
    output::write_atomic(&a.output, &imported.ron)?;
    if a.output != "-" {
        let c = &imported.config;
        let l1_kb = c.l1_kb();
        let unified = match &c.l1.adaptive {
            Some(a) => format!(" (up to {} KB of a unified L1/shared array)", a.unified_kb),
            None => String::new(),
        };
        eprintln!(
            "wrote {}: {} SMs, {} channels × {} banks, L1 {l1_kb} KB{unified}, L2 {} KB",
            a.output,
            c.core.count,
            c.dram.channels,
            c.dram.banks,
            c.l2_kb()
        );
    }
    Ok(0)
}

/// After a sweep stopped by Ctrl-C: says how many of its points finished (kept in `kept`, where
/// the same command resumes) and gives the exit code; None when it was not stopped.
fn stopped(summary: &sweep::SweepSummary, noun: &str, kept: String) -> Option<i32> {
    if summary.interrupted == 0 {
        return None;
    }
    let finished = summary.ran - summary.interrupted;
    eprintln!(
        "interrupted: {} of the {} to run finished and {} kept in {kept} ({} already there); {} not run or abandoned. The same command resumes.",
        count(finished as u64, noun),
        summary.ran,
        if finished == 1 { "is" } else { "are" },
        summary.skipped,
        summary.interrupted
    );
    Some(warpscope::batch::interrupt::EXIT_INTERRUPTED)
}

/// The results files a sweep writes, for messages.
fn results_named(csv: &Option<PathBuf>, json: &Option<PathBuf>) -> String {
    let files: Vec<String> = csv.iter().chain(json.iter()).map(|p| p.display().to_string()).collect();
    files.join(" and ")
}

/// Says, once per results file, how many of its stored results are no point of the sweep.
fn warn_unmatched(summary: &sweep::SweepSummary) {
    for (path, n) in &summary.unmatched {
        let (results, match_) = if *n == 1 { ("result", "matches") } else { ("results", "match") };
        eprintln!(
            "warning: {}: {n} stored {results} {match_} no point of this sweep (a point or workload removed or changed); left in the file, not used",
            path.display()
        );
    }
}

fn repro_cmd(a: ReproArgs) -> Result<i32> {
    use warpscope::batch::repro;
    let dir = a.out.display().to_string();
    if a.out.exists() && !a.out.is_dir() {
        return Err(usage(&format!("--out {dir}"), "is a file; give a directory"));
    }
    let mut r = repro::Repro::load(&a.spec)?;
    if let Some(n) = a.max_cycles {
        r.sweep.set_max_cycles(n);
    }
    job_pool(a.jobs, a.verify.unwrap_or(r.sweep.points.len()))?;
    let results = a.out.join("results.jsonl");
    if let Some(n) = a.verify {
        if n == 0 {
            return Err(usage("--verify 0", "give the number of stored runs to run again, 1 or more"));
        }
        if !results.is_file() {
            return Err(usage(&format!("--out {dir}"), "holds no results.jsonl to verify"));
        }
        return verify_stored(&r.sweep, &results, n);
    }
    if let Some(old) = &a.since {
        for f in [old, &results] {
            if !f.is_file() {
                return Err(usage(
                    &format!("--since {}", old.display()),
                    &format!("{} is not a results file", f.display()),
                ));
            }
        }
        let before = repro::outcomes_made(&r, old, warpscope::batch::sweep::Made::Earlier)?;
        let after = repro::outcomes(&r, &results)?;
        out(&warpscope::batch::repro_changes::changes_markdown(&r, &before, &after))?;
        return Ok(0);
    }
    let failed = if a.report_only {
        let stored = sweep::metric_cells(&r.sweep, &results)?;
        let missing = stored.iter().filter(|c| c.is_none()).count();
        if missing > 0 {
            return Err(usage(
                &format!("--report-only --out {dir}"),
                &format!(
                    "{missing} of the study's {} {} not stored; run it without --report-only",
                    count(stored.len() as u64, "run"),
                    if missing == 1 { "is" } else { "are" }
                ),
            ));
        }
        0
    } else {
        std::fs::create_dir_all(&a.out)
            .map_err(|e| usage(&format!("--out {dir}"), &format!("cannot be created: {e}")))?;
        let opts = sweep::SweepOptions { csv: None, json: Some(results.clone()), shard: None };
        warpscope::batch::interrupt::install()?;
        let bar = progress_bar()?;
        let summary = sweep::run(&r.sweep, &opts, &bar)?;
        bar.finish_and_clear();
        if let Some(code) = stopped(&summary, "run", results.display().to_string()) {
            return Ok(code);
        }
        eprintln!(
            "{}: {}, {} already done, {} run now, {} not finished cleanly",
            a.spec.display(),
            count(summary.shard_points as u64, "run"),
            summary.skipped,
            summary.ran,
            summary.failed
        );
        warn_unmatched(&summary);
        summary.failed
    };
    let outs = repro::outcomes(&r, &results)?;
    let curves = repro::curves(&r, &results)?;
    let md = repro::report_markdown(&r, &outs, &curves);
    let report = a.out.join("report.md").display().to_string();
    output::write_atomic(&report, &md)?;
    output::write_atomic(
        &a.out.join("report.svg").display().to_string(),
        &repro::report_svg(&r, &outs, &curves)?,
    )?;
    eprintln!("wrote {report} and report.svg");
    out(&md)?;
    Ok(if failed > 0 { 1 } else { 0 })
}

/// `repro --verify N`: prints one line per run run again and a summary; 1 if any differs.
fn verify_stored(study: &sweep::Sweep, results: &std::path::Path, n: usize) -> Result<i32> {
    use warpscope::batch::verify;
    let bar = progress_bar()?;
    let verdicts = verify::verify(study, results, n, &bar)?;
    bar.finish_and_clear();
    let (text, differ) = verify::summary(results, &verdicts);
    out(&text)?;
    Ok(if differ { 1 } else { 0 })
}

fn validate_cmd(a: ValidateArgs) -> Result<i32> {
    use warpscope::batch::validate;
    let only: Option<Vec<String>> =
        a.kernels.as_ref().map(|k| k.split(',').map(|n| n.trim().to_string()).collect());
    let study = validate::spec::Study::load(&a.spec)?;
    if let Some(dir) = &a.export {
        if !dir.is_dir() {
            return Err(usage(&format!("--export {}", dir.display()), "is no directory; create it first"));
        }
        let written = validate::export(&study, dir, only.as_deref(), a.stale)?;
        eprintln!("wrote {}", count(written.len() as u64, "trace"));
        out(&(written.join("\n") + "\n"))?;
        return Ok(0);
    }
    if let Some(logs) = &a.record {
        if only.is_some() {
            return Err(usage("--record", "records every kernel of the study: leave out --kernels"));
        }
        let (path, kept) = validate::record(&study, logs)?;
        if !kept.is_empty() {
            eprintln!("kept the stored results of {} (no log; trace unchanged)", kept.join(", "));
        }
        eprintln!("wrote {path}");
        return Ok(0);
    }
    check_outputs(&[("--output", Some(&a.output))], &pairs(&given("spec", std::slice::from_ref(&a.spec))))?;
    let v = validate::validate(&study, only.as_deref())?;
    output::write_atomic(&a.output, &validate::table::markdown(&v))?;
    Ok(0)
}

fn export_cmd(a: ExportArgs) -> Result<i32> {
    use warpscope::workload::accelsim::write::AddressModes;
    let modes = if a.list_addresses { AddressModes::Listed } else { AddressModes::Compressed };
    let opts = export::ExportOptions { force: a.force, modes };
    let dir = export::prepare(&a.dir, &opts)?;
    let (_, workload) = load(&a.machine)?;
    let w = export::export(&workload, dir, &opts)?;
    out(&format!(
        "{}: {}, {}, {}, {} written to {}\n",
        workload.name,
        count(workload.kernels.len() as u64, "kernel"),
        count(w.ctas as u64, "CTA"),
        count(w.warps as u64, "warp"),
        count(w.instructions as u64, "warp instruction"),
        a.dir.join("kernelslist.g").display()
    ))?;
    Ok(0)
}

fn timeline_cmd(a: TimelineArgs) -> Result<i32> {
    use warpscope::debug::timeline;
    check_outputs(&[("--out", Some(&a.out))], &pairs(&a.machine.inputs()))?;
    timeline::check_window(a.from, a.to)
        .map_err(|e| usage(&format!("--from {} --to {}", a.from, a.to), &e))?;
    let (config, workload) = load(&a.machine)?;
    let mut session =
        Session::new(config, Arc::clone(&workload)).map_err(|e| run::unfit(&workload.name, e))?;
    session.goto(a.to);
    if session.furthest < a.to {
        let why = match &session.gpu.status {
            warpscope::sim::Status::Stuck(why) => {
                format!("the machine got stuck at cycle {} ({why})", group(session.furthest))
            }
            _ => format!("the program finished at cycle {}", group(session.furthest)),
        };
        return Err(usage(
            &format!("--to {}", a.to),
            &format!("is beyond the run's end: {why}; give --to {} or less", session.furthest),
        ));
    }
    let t = timeline::export(&session.travel, &session.gpu, session.furthest, a.from, a.to)
        .map_err(|e| usage(&format!("--from {} --to {}", a.from, a.to), &e))?;
    let json = t.to_json();
    output::write_atomic(&a.out, &json)?;
    let summary = t.summary(&a.out, json.len()) + "\n";
    if a.out == "-" {
        eprint!("{summary}")
    } else {
        out(&summary)?
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpscope::workload::bench::progress::Stage;

    #[test]
    fn the_run_bar_gives_an_eta_only_once_a_share_is_done() {
        use warpscope::sim::stats::sample::Sample;
        let now = Sample { cycle: 20_000, thread_instructions: 50_000, ..Sample::default() };
        let unknown = run::Progress { now, done: None, finished: false };
        assert_eq!(
            progress_line(&unknown, 10.0),
            "cycle 20,000, IPC 2.5, 10 s elapsed, 50,000 thread instructions"
        );
        // A quarter done in 10 s: 30 s to go.
        let quarter = run::Progress { done: Some(0.25), ..unknown };
        assert!(progress_line(&quarter, 10.0).starts_with("cycle 20,000, IPC 2.5, eta 30 s, 10 s elapsed"));
        assert_eq!(
            (duration(59.4), duration(125.0), duration(7_500.0)),
            ("59 s".into(), "2 min 05 s".into(), "2 h 05 min".into())
        );
    }

    #[test]
    fn the_input_progress_line_gives_the_share_where_the_length_is_known_and_the_count_where_not() {
        let known = Stage { name: "graph nodes", done: 250, total: Some(1000) };
        assert_eq!(input_progress_line(&known, 3), "generating the workload's input: graph nodes 25 % (3 s)");
        let open = Stage { name: "relaxation launch", done: 12_345, total: None };
        assert_eq!(
            input_progress_line(&open, 40),
            "generating the workload's input: relaxation launch 12,345 (40 s)"
        );
    }
}
