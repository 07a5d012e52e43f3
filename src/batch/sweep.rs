//! `warpscope sweep GRID.ron`: a design-space study — every workload × every point of a grid
//! (or list) of `--set` assignments — run in parallel on all cores, each result appended to
//! CSV and/or JSON-lines files the moment its run finishes, and the files put in point order
//! when every run has.
//!
//! ```ron
//! (
//!     config: Some("../gtx480-sc14.ron"),          // relative to the grid file; built-in if absent
//!     workloads: ["../workloads/bfs.ron", "builtin"],
//!     sets: ["sim.max_cycles=200000"],             // applied to every point
//!     grid: ["dram.scheduler=fcfs,frfcfs", "l1.sets=32,64"],   // a cross product, as --vary
//!     points: [["l1.ways=16", "l1.sets=16"]],      // and/or explicit points
//!     metrics: ["cycles", "ipc", "dram.row_hit_rate"],        // CSV columns (default: run's summary)
//! )
//! ```
//!
//! A point is identified by its key, `workload | assignments`. Re-running a sweep skips the
//! points its output files already hold (a partly written last line from a killed run is
//! dropped), so an interrupted study resumes. Stored results are matched to points by key, not
//! by the point number stored with them, so a grid that gains or reorders points or workloads
//! runs only the new ones and uses the stored rest; a stored result whose key is no point of the
//! grid stays in the file, is counted, and is not used. The key does not cover the grid's
//! machine, `max_cycles` or `max_instructions` (or, where the grid sets none, the machine
//! file's own `sim.max_cycles` and `sim.max_instructions`), so a stored run of a point made on another
//! machine (JSON lines name it and carry a digest of its config, so an edited machine file
//! counts as another machine) or under another cycle or instruction limit is refused with an
//! error (`Stored::check`): after changing one, write to a new file. `--shard I/N` runs the
//! points whose index is I modulo N, so a cluster scheduler can split one grid over machines;
//! `--merge` combines the shards' files, ordered by point.

use super::chart::{Kind, Panel, Sample, charted, figure};
use super::compare::variants;
use super::run::{INTERRUPTED, RunOptions, Watch, simulate};
use crate::config::{Config, ConfigError, Origin, parse_ron};
use crate::sim::Gpu;
use crate::sim::stats::metrics::{SUMMARY, format as format_value, plotted, unit};
use crate::sim::stats::report::{Report, stopped_at_limit};
use crate::workload::Workload;
use crate::workload::accelsim::body::Fnv;
use anyhow::{Context, Result, bail};
use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A grid file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Machine config, relative to the grid file (the built-in machine when absent).
    #[serde(default)]
    pub config: Option<String>,
    /// Workloads (RON, `kernelslist.g`, `.traceg`) relative to the grid file; `builtin` is the
    /// built-in workload; a benchmark name (`atax`) is that benchmark at its default sizes.
    pub workloads: Vec<String>,
    /// Assignments applied to every point.
    #[serde(default)]
    pub sets: Vec<String>,
    /// Axes `key=v1,v2,...` whose cross product gives points (as `compare --vary`).
    #[serde(default)]
    pub grid: Vec<String>,
    /// Further points, each a list of assignments.
    #[serde(default)]
    pub points: Vec<Vec<String>>,
    /// Report keys written as CSV columns (default: the metrics of `run`'s summary).
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Stop each run after this many core cycles (0 = the config's limit).
    #[serde(default)]
    pub max_cycles: u64,
    /// Stop each run once this many thread instructions have issued (0 = the config's
    /// `sim.max_instructions`): the seeds' "1 billion instructions or to completion".
    #[serde(default)]
    pub max_instructions: u64,
}

/// One run of the sweep.
#[derive(Clone, Debug)]
pub struct Point {
    /// Position in the whole sweep (workloads outer, assignments inner).
    pub index: usize,
    pub workload: usize,
    /// Every assignment, the common ones first.
    pub sets: Vec<String>,
    /// The point's own assignments (without the common ones), as written: its variant.
    pub variant: String,
    pub key: String,
    /// The machine after the point's assignments, with the limits it runs under: the grid's
    /// `max_cycles` and `max_instructions` where they are set, else the machine's own.
    config: Config,
}

impl Point {
    /// The limits this point's run stops at.
    pub fn limits(&self) -> Limits {
        Limits { cycles: self.config.sim.max_cycles, instructions: self.config.sim.max_instructions }
    }
}

/// A loaded, checked sweep.
pub struct Sweep {
    pub name: String,
    /// Workload labels as the grid writes them, and the workloads.
    pub workloads: Vec<(String, Arc<Workload>)>,
    pub points: Vec<Point>,
    /// Keys the points assign, in order of first appearance (CSV columns).
    pub axes: Vec<String>,
    pub metrics: Vec<String>,
    /// Whether the grid names its metrics (rather than taking `run`'s summary): only then are
    /// the host's timing keys charted.
    pub metrics_named: bool,
    /// The machine's name (the grid's config, before the points' assignments).
    pub machine: String,
}

/// The limits a run stops at (0 = none): core cycles (`sim.max_cycles`) and thread
/// instructions (`sim.max_instructions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub cycles: u64,
    pub instructions: u64,
}

/// Points a refused assignment (a `--set` to [`Config::with_sets`]) at its entry in the spec —
/// `sets[i]`, `points[i][j]` or the `grid` entry of its key — keeping its key and message: an
/// assignment written in a grid is the grid's, not a `--set` the user never gave.
fn assignment_error(
    spec: &GridSpec,
    at_key: &dyn Fn(&str, &str) -> ConfigError,
    e: ConfigError,
) -> ConfigError {
    let Origin::Override(arg) = &e.origin else { return e };
    let key_of = |a: &str| a.split_once('=').map_or(a, |(k, _)| k).trim().to_string();
    let path = spec
        .sets
        .iter()
        .position(|s| s == arg)
        .map(|i| format!("sets[{i}]"))
        .or_else(|| {
            spec.points
                .iter()
                .enumerate()
                .find_map(|(i, p)| p.iter().position(|s| s == arg).map(|j| format!("points[{i}][{j}]")))
        })
        .or_else(|| spec.grid.iter().position(|g| key_of(g) == key_of(arg)).map(|j| format!("grid[{j}]")));
    let at = at_key(path.as_deref().unwrap_or("grid"), "");
    ConfigError { origin: at.origin, position: path.and(at.position), key: e.key, message: e.message }
}

fn grid_error(origin: &str, message: String) -> ConfigError {
    ConfigError { origin: Origin::File(origin.to_string()), position: None, key: String::new(), message }
}

/// A results file's `line` that does not fit the sweep, and why (bad input, exit code 2).
fn results_error(path: &Path, line: usize, message: String) -> ConfigError {
    ConfigError { position: Some((line, 1)), ..grid_error(&path.display().to_string(), message) }
}

impl Sweep {
    /// Reads a grid file, loads its machine and workloads, and checks every point's config.
    pub fn load(path: &Path) -> Result<Sweep, ConfigError> {
        Sweep::from_text(&crate::config::read_file(path)?, path)
    }

    /// A grid file's text, read from `path` (which names it in errors and whose directory its
    /// paths are relative to).
    pub fn from_text(text: &str, path: &Path) -> Result<Sweep, ConfigError> {
        let spec: GridSpec = parse_ron(text, &Origin::File(path.display().to_string()))?;
        let name = path.file_stem().map_or("sweep".into(), |s| s.to_string_lossy().to_string());
        Sweep::from_spec(spec, path, text, "", name)
    }

    /// A sweep from a grid spec read from `path` (whose directory the spec's paths are
    /// relative to); `text` is the file and `key_prefix` the spec's place in it, for errors.
    pub fn from_spec(
        spec: GridSpec,
        path: &Path,
        text: &str,
        key_prefix: &str,
        name: String,
    ) -> Result<Sweep, ConfigError> {
        let origin = path.display().to_string();
        let dir = path.parent().unwrap_or(Path::new(""));
        let at_key = |key: &str, msg: &str| {
            crate::config::error_at_path(
                text,
                &Origin::File(origin.clone()),
                &format!("{key_prefix}{key}"),
                msg,
            )
        };
        // A file the spec names that cannot be read at all is refused at its entry in the spec;
        // an error inside it names the file and its own line.
        let entry = |key: &str, e: ConfigError| match &e.origin {
            Origin::File(_) if e.position.is_none() && e.key.is_empty() => at_key(key, &e.to_string()),
            _ => e,
        };
        if spec.workloads.is_empty() {
            return Err(at_key("workloads", "must list at least one workload"));
        }
        if let Some(j) = (0..spec.workloads.len()).find(|&j| spec.workloads[..j].contains(&spec.workloads[j]))
        {
            return Err(at_key(&format!("workloads[{j}]"), &format!("lists `{}` twice", spec.workloads[j])));
        }
        let base = Config::load_or_builtin(spec.config.as_ref().map(|c| dir.join(c)).as_deref(), &[])
            .map_err(|e| entry("config", e))?;
        let mut workloads = Vec::new();
        for (j, w) in spec.workloads.iter().enumerate() {
            // A benchmark name stands for itself; anything else is a file beside the grid.
            let p = (w != "builtin")
                .then(|| if crate::workload::bench::find(w).is_some() { w.into() } else { dir.join(w) });
            let workload = Workload::resolve(p.as_deref(), &[], base.sim.seed)
                .map_err(|e| entry(&format!("workloads[{j}]"), e))?;
            workloads.push((w.clone(), Arc::new(workload)));
        }
        let mut assignments: Vec<Vec<String>> = Vec::new();
        if !spec.grid.is_empty() {
            // `variants` speaks of `--vary`; here the axes are the grid file's.
            let axes = variants(&spec.grid).map_err(|e| {
                let entry = match &e.origin {
                    Origin::Argument(a) => a.trim_start_matches("--vary ").to_string(),
                    _ => String::new(),
                };
                let message = e.message.replace("one --vary", "one grid entry");
                at_key("grid", &format!("`{entry}`: {message}"))
            })?;
            assignments.extend(axes.into_iter().map(|v| v.sets));
        }
        for (i, point) in spec.points.iter().enumerate() {
            if let Some(j) = point.iter().position(|a| !a.contains('=')) {
                return Err(at_key(
                    &format!("points[{i}][{j}]"),
                    &format!("`{}`: expected key.path=value", point[j]),
                ));
            }
            if assignments.contains(point) {
                let message = "is a point the grid or an earlier point already gives (same assignments)";
                return Err(at_key(&format!("points[{i}]"), message));
            }
            assignments.push(point.clone());
        }
        if assignments.is_empty() {
            assignments.push(Vec::new());
        }
        let mut axes: Vec<String> = Vec::new();
        for a in assignments.iter().flatten() {
            let k = a.split_once('=').map_or(a.as_str(), |(k, _)| k);
            if !axes.iter().any(|x| x == k.trim()) {
                axes.push(k.trim().to_string());
            }
        }
        let mut points = Vec::new();
        for (wi, (label, _)) in workloads.iter().enumerate() {
            for a in &assignments {
                let sets: Vec<String> = spec.sets.iter().chain(a).cloned().collect();
                let mut config = base.with_sets(&sets).map_err(|e| assignment_error(&spec, &at_key, e))?;
                if spec.max_cycles > 0 {
                    config.sim.max_cycles = spec.max_cycles;
                }
                if spec.max_instructions > 0 {
                    config.sim.max_instructions = spec.max_instructions;
                }
                config.name =
                    if a.is_empty() { base.name.clone() } else { format!("{} [{}]", base.name, a.join(" ")) };
                let key = format!("{label} | {}", sets.join(" "));
                points.push(Point {
                    index: points.len(),
                    workload: wi,
                    sets,
                    variant: a.join(" "),
                    key,
                    config,
                });
            }
        }
        let metrics_named = !spec.metrics.is_empty();
        let metrics = if spec.metrics.is_empty() {
            SUMMARY.iter().map(|s| s.to_string()).collect()
        } else {
            let machines = points.iter().map(|p| (&p.config, Arc::clone(&workloads[p.workload].1)));
            super::metrics::check(&spec.metrics, machines).map_err(|m| at_key("metrics", &m))?;
            spec.metrics
        };
        Ok(Sweep { name, workloads, points, axes, metrics, metrics_named, machine: base.name })
    }

    /// Runs point `p` as the sweep does: its machine, under its limits.
    pub fn simulate(&self, p: &Point) -> Result<(Gpu, Report)> {
        self.simulate_watched(p, None)
    }

    /// [`Sweep::simulate`], telling `watch` how the run goes.
    pub fn simulate_watched(&self, p: &Point, watch: Option<Watch>) -> Result<(Gpu, Report)> {
        let workload = Arc::clone(&self.workloads[p.workload].1);
        simulate(&p.config, workload, &RunOptions { watch, ..RunOptions::default() })
    }

    /// Stops every point's run after `n` core cycles (0 = no limit), whatever the grid or the
    /// machine said.
    pub fn set_max_cycles(&mut self, n: u64) {
        for p in &mut self.points {
            p.config.sim.max_cycles = n;
        }
    }

    /// The limits every point runs under, when they are the same for all.
    pub fn limits(&self) -> Option<Limits> {
        let first = self.points.first()?.limits();
        self.points.iter().all(|p| p.limits() == first).then_some(first)
    }

    /// The CSV header: the point, its results, and what the run was made on and under
    /// ([`PROVENANCE`]).
    pub fn csv_header(&self) -> Vec<String> {
        let mut h = self.results_header();
        h.extend(PROVENANCE.iter().map(|c| c.to_string()));
        h
    }

    /// The CSV header's columns before [`PROVENANCE`] (all of a file written before those
    /// columns were).
    fn results_header(&self) -> Vec<String> {
        ["point", "key", "workload"]
            .iter()
            .map(|s| s.to_string())
            .chain(self.axes.iter().cloned())
            .chain(std::iter::once("status".to_string()))
            .chain(self.metrics.iter().cloned())
            .collect()
    }

    /// The value a point assigns to `axis` (the last assignment wins, as with `--set`).
    pub fn axis_value(p: &Point, axis: &str) -> String {
        p.sets
            .iter()
            .rev()
            .find_map(|s| {
                s.split_once('=').filter(|(k, _)| k.trim() == axis).map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_default()
    }

    /// A point's CSV row, with the [`PROVENANCE`] columns.
    fn csv_row(&self, p: &Point, status: &str, report: Option<&Report>) -> Vec<String> {
        let limits = p.limits();
        let mut row = self.results_row(p, status, report);
        row.extend([
            self.machine.clone(),
            machine_digest(&p.config),
            limits.cycles.to_string(),
            limits.instructions.to_string(),
        ]);
        row
    }

    fn results_row(&self, p: &Point, status: &str, report: Option<&Report>) -> Vec<String> {
        let mut row = vec![p.index.to_string(), p.key.clone(), self.workloads[p.workload].0.clone()];
        row.extend(self.axes.iter().map(|a| Sweep::axis_value(p, a)));
        row.push(status.to_string());
        let flat = report.map(|r| r.flat()).unwrap_or_default();
        for m in &self.metrics {
            let v = flat.iter().find(|(k, _)| k == m).map(|(_, v)| v);
            row.push(match v {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            });
        }
        row
    }

    fn json_line(&self, p: &Point, status: &str, report: Option<&Report>, error: Option<&str>) -> String {
        let v = serde_json::json!({
            "point": p.index,
            "key": p.key,
            "machine_settings": machine_digest(&p.config),
            "workload": self.workloads[p.workload].0,
            "sets": p.sets,
            "status": status,
            "error": error,
            "report": report,
        });
        serde_json::to_string(&v).expect("reports serialize")
    }
}

/// The CSV columns that say what a run was made on and under, so a resumed sweep can refuse a
/// run made on another machine or under other limits, as its JSON lines can: the machine's
/// name, its [`machine_digest`], and the cycle and instruction limits (0: none).
const PROVENANCE: [&str; 4] = ["machine", "machine_settings", "max_cycles", "max_instructions"];

/// A digest of everything in a point's machine config that can change a run's results: the
/// machine file's values after the point's assignments, without its name, its debugger settings
/// and the run controls a stored run is checked against otherwise (`sim.max_cycles`,
/// `sim.max_instructions`) or that change no result (`sim.no_skip`). A JSON line stores it, so
/// a machine file edited under the same name is told apart from the one its stored runs were
/// made on.
///
/// Only the values that differ from the built-in defaults ([`Config::default`]) enter it, so a
/// config key added to the simulator later, whose default keeps the old behaviour, leaves the
/// digests of stored runs valid (a machine that sets a key to its default is the same machine
/// as one that leaves it out). Like any change to the simulator, a changed default is not
/// covered: the digest describes the machine, not the code that runs it.
pub fn machine_digest(c: &Config) -> String {
    let mut c = c.machine_only();
    (c.sim.max_cycles, c.sim.max_instructions, c.sim.no_skip) = (0, 0, false);
    let json = |c: &Config| serde_json::to_value(c).expect("configs serialize");
    settings_digest(json(&c), &json(&Config::default()))
}

/// The digest of `config`'s entries that differ from `default`'s (both as JSON).
fn settings_digest(mut config: serde_json::Value, default: &serde_json::Value) -> String {
    drop_defaults(&mut config, default);
    let mut h = Fnv::default();
    h.write(config.to_string().as_bytes());
    format!("{:016x}", h.0)
}

/// Removes from the object `v` every entry equal to the same entry of `default`, recursively.
fn drop_defaults(v: &mut serde_json::Value, default: &serde_json::Value) {
    if let (Some(v), Some(d)) = (v.as_object_mut(), default.as_object()) {
        v.retain(|k, x| d.get(k) != Some(x));
        for (k, x) in v.iter_mut() {
            if let Some(d) = d.get(k) {
                drop_defaults(x, d);
            }
        }
    }
}

pub use crate::output::csv_field;

/// Splits a CSV line into fields (quotes as [`csv_field`] writes them).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// Which results file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    JsonLines,
}

impl Format {
    /// By extension: `.csv`, otherwise JSON lines.
    pub fn of(path: &Path) -> Format {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
            Format::Csv
        } else {
            Format::JsonLines
        }
    }
}

/// One finished point as a results file holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub point: usize,
    pub key: String,
    /// The line as written (without its newline).
    pub line: String,
    /// Its line number in its file.
    pub at: usize,
}

/// What a stored run was made on and under, as its record says: the sweep's machine and
/// limits (a CSV row's [`PROVENANCE`] columns; a JSON line's machine and instruction cap, its
/// cycle limit unrecorded), and the point's [`machine_digest`]. `None` for a record that does
/// not say (a CSV begun before those columns).
fn made_on(header: Option<&[String]>, line: &str) -> Option<(String, String)> {
    let (machine, digest, limits) = match header {
        Some(h) => {
            let fields = csv_fields(line);
            let at = |c: &str| h.iter().position(|x| x == c).and_then(|i| fields.get(i)).cloned();
            let [machine, digest, cycles, insns] = PROVENANCE.map(at);
            (machine?, digest?, format!("max_cycles {} and max_instructions {}", cycles?, insns?))
        }
        None => {
            let v: serde_json::Value = serde_json::from_str(line).ok()?;
            let report = &v["report"];
            let machine = report["config"].as_str()?;
            (
                machine.split(" [").next().unwrap_or(machine).to_string(),
                v["machine_settings"].as_str()?.to_string(),
                format!("max_instructions {}", report["sim"]["max_instructions"]),
            )
        }
    };
    Some((format!("on `{machine}` under {limits}"), digest))
}

/// The longest line of a results file, in bytes: a JSON line holds one run's whole report, tens
/// of kilobytes. A longer line is refused once this much of it is read, so an endless file
/// (`--merge` of a link to `/dev/zero`) ends in an error, not in all of memory.
pub const MAX_RESULT_LINE_BYTES: u64 = 16 << 20;

/// The complete lines of a results file (a partly written last line is left out) and, for
/// CSV, its header. Returns the byte length of the complete part. A line that is no result is
/// bad input, refused at its line and column.
pub fn read_results(path: &Path) -> Result<(Option<Vec<String>>, Vec<Record>, u64)> {
    use std::io::{BufRead, Read};
    let name = path.display().to_string();
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, Vec::new(), 0)),
        Err(e) => return Err(ConfigError::cannot_read(&name, &e).into()),
    };
    let at = |line: usize, col: usize, message: String| -> anyhow::Error {
        ConfigError {
            origin: Origin::File(name.clone()),
            position: Some((line, col)),
            key: String::new(),
            message,
        }
        .into()
    };
    let format = Format::of(path);
    let mut reader = std::io::BufReader::new(file);
    let mut buf = Vec::new();
    let mut complete = 0u64;
    let mut header = None;
    let mut records = Vec::new();
    for i in 1.. {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_RESULT_LINE_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| ConfigError::cannot_read(&name, &e))?;
        if buf.last() != Some(&b'\n') {
            if n as u64 > MAX_RESULT_LINE_BYTES {
                let message = format!(
                    "the line is longer than {} MB; a result is one line",
                    MAX_RESULT_LINE_BYTES >> 20
                );
                return Err(at(i, 1, message));
            }
            // The end, or a partly written last line.
            break;
        }
        complete += n as u64;
        let line = std::str::from_utf8(&buf[..n - 1]).map_err(|e| {
            at(i, e.valid_up_to() + 1, "expected text (UTF-8), found a byte that is not".into())
        })?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let (point, key) = match format {
            Format::Csv if header.is_none() => {
                header = Some(csv_fields(line));
                continue;
            }
            Format::Csv => {
                let f = csv_fields(line);
                (f.first().and_then(|p| p.parse().ok()), f.get(1).cloned())
            }
            Format::JsonLines => {
                let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
                    // serde_json's words end with where in the line, which the position says.
                    let words = e.to_string();
                    let words = words.split(" at line ").next().unwrap_or_default().to_string();
                    at(i, e.column().max(1), format!("expected a JSON object per line: {words}"))
                })?;
                (
                    v["point"].as_u64().and_then(|p| usize::try_from(p).ok()),
                    v["key"].as_str().map(String::from),
                )
            }
        };
        let (Some(point), Some(key)) = (point, key) else {
            return Err(at(i, 1, "expected a sweep result with a point and a key".into()));
        };
        records.push(Record { point, key, line: line.to_string(), at: i });
    }
    Ok((header, records, complete))
}

/// A results file's records matched to a sweep's points.
#[derive(Clone, Debug, PartialEq)]
pub struct Matched {
    /// Per point, by index, the record whose key is the point's (the last, if several are).
    pub records: Vec<Option<Record>>,
    /// Records whose key is no point of the sweep: a point since removed or changed.
    pub unmatched: usize,
}

/// Matches records to the sweep's points by key — workload and every assignment — not by the
/// point number stored with them, which changes when the sweep gains or reorders points.
pub fn match_records(sweep: &Sweep, records: Vec<Record>) -> Matched {
    let index: std::collections::BTreeMap<&str, usize> =
        sweep.points.iter().map(|p| (p.key.as_str(), p.index)).collect();
    let mut matched = Matched { records: vec![None; sweep.points.len()], unmatched: 0 };
    for r in records {
        match index.get(r.key.as_str()) {
            Some(&i) => matched.records[i] = Some(r),
            None => matched.unmatched += 1,
        }
    }
    matched
}

/// A stored run's fields: a CSV row under its file's header, or a JSON line.
enum Stored<'h> {
    Row(&'h [String], Vec<String>),
    Line(serde_json::Value),
}

impl<'h> Stored<'h> {
    /// Reads `r`, a record of a file with `header` (CSV) or without (JSON lines).
    fn parse(header: Option<&'h [String]>, r: &Record) -> Result<Stored<'h>> {
        Ok(match header {
            Some(h) => Stored::Row(h, csv_fields(&r.line)),
            None => Stored::Line(serde_json::from_str(&r.line)?),
        })
    }

    /// `done`, `max-cycles`, ...
    fn status(&self) -> String {
        match self {
            Stored::Row(..) => self.field("status").map(String::from),
            Stored::Line(v) => v["status"].as_str().map(String::from),
        }
        .unwrap_or_default()
    }

    /// A report key's number (a CSV row has the sweep's metrics only).
    fn number(&self, key: &str) -> Option<serde_json::Value> {
        match self {
            Stored::Row(..) => self.field(key).and_then(|v| serde_json::from_str(v).ok()),
            Stored::Line(v) => v["report"].pointer(&format!("/{}", key.replace('.', "/"))).cloned(),
        }
        .filter(|v| v.is_number())
    }

    /// A CSV row's field in `column`.
    fn field(&self, column: &str) -> Option<&str> {
        match self {
            Stored::Row(h, f) => {
                h.iter().position(|c| c == column).and_then(|i| f.get(i)).map(String::as_str)
            }
            Stored::Line(_) => None,
        }
    }

    /// The machine the run was on (a JSON line's report names it, a CSV row its `machine`
    /// column; a CSV written before that column names none).
    fn machine(&self) -> Option<&str> {
        match self {
            Stored::Row(..) => self.field("machine"),
            Stored::Line(v) => v["report"]["config"].as_str().map(|c| c.split(" [").next().unwrap_or(c)),
        }
    }

    /// The digest of the machine the run was on ([`machine_digest`]; JSON lines written since
    /// it was introduced carry it; those written before it counted every default, as
    /// `"machine"`, are trusted by name like older ones).
    fn digest(&self) -> Option<&str> {
        match self {
            Stored::Row(..) => self.field("machine_settings"),
            Stored::Line(v) => v["machine_settings"].as_str(),
        }
    }

    /// Why the run, `cycles` long, was not made under the sweep's cycle and instruction
    /// limits, if it was not: one stopped at another limit, or one that ran past one of them.
    /// A run stopped at an instruction cap names it (`sim.max_instructions` of its report); a
    /// CSV row that has no `thread_instructions` column is checked on its cycles only.
    fn unfit_limits(&self, limits: Limits, cycles: Option<u64>) -> Option<String> {
        let status = self.status();
        let or_none = |n: u64, key: &str| if n == 0 { format!("none ({key} 0)") } else { n.to_string() };
        let insns = self.number("thread_instructions").and_then(|c| c.as_u64());
        let (max_cycles, cap) = (limits.cycles, limits.instructions);
        match (status.as_str(), cycles) {
            ("max-cycles", Some(c)) if c != max_cycles => {
                return Some(format!(
                    "was stopped at {c} cycles, and this sweep stops at {}",
                    or_none(max_cycles, "max_cycles")
                ));
            }
            ("done" | "max-instructions", Some(c)) if max_cycles != 0 && c > max_cycles => {
                return Some(format!("ran {c} cycles, past this sweep's limit of {max_cycles}"));
            }
            _ => {}
        }
        if status == "max-instructions" {
            let stopped_at = self.number("sim.max_instructions").and_then(|c| c.as_u64());
            if stopped_at != Some(cap) {
                let at = stopped_at.map_or("an instruction cap".to_string(), |n| {
                    format!("its cap of {n} thread instructions")
                });
                return Some(format!(
                    "was stopped at {at}, and this sweep's is {}",
                    or_none(cap, "max_instructions")
                ));
            }
        } else if let Some(n) = insns.filter(|&n| cap != 0 && n >= cap) {
            return Some(format!(
                "issued {n} thread instructions without stopping, past this sweep's cap of {cap}"
            ));
        }
        // A CSV row says the limits it was made under, which its results alone may not betray.
        for (column, mine) in [("max_cycles", max_cycles), ("max_instructions", cap)] {
            if let Some(theirs) = self.field(column).and_then(|v| v.parse::<u64>().ok())
                && theirs != mine
            {
                return Some(format!(
                    "was made under {column} {}, and this sweep's is {}",
                    or_none(theirs, column),
                    or_none(mine, column)
                ));
            }
        }
        None
    }

    /// Checks that the run of point `p` was made as the sweep would make it now: on its
    /// machine, as the machine file reads now, and under its cycle and instruction limits — a
    /// run stopped at another limit, or one that ran past this one, would be counted as this
    /// sweep's. The key of a point covers none of these, so a sweep whose machine (or machine
    /// file) or limits changed would otherwise reuse old results without a word. `path`
    /// is the results file and `line` the run's line in it, for the error. With
    /// [`Made::Earlier`] the machine's settings are not checked, only its name.
    fn check(&self, sweep: &Sweep, p: &Point, path: &Path, line: usize, made: Made) -> Result<()> {
        let cycles = self.number("cycles").and_then(|c| c.as_u64());
        let unfit = if let Some(m) = self.machine().filter(|m| *m != sweep.machine) {
            Some(format!("ran on machine `{m}`, and this sweep's machine is `{}`", sweep.machine))
        } else if made == Made::Now && self.digest().is_some_and(|d| d != machine_digest(&p.config)) {
            Some(format!(
                "ran on a `{}` configured otherwise than the machine file and the point's assignments now give (was the file edited since?)",
                sweep.machine
            ))
        } else {
            self.unfit_limits(p.limits(), cycles)
        };
        match unfit {
            Some(why) => {
                let message = format!(
                    "the stored run of `{}` {why}; its results are not this sweep's: write to another file (a new --out) or remove it",
                    p.key
                );
                Err(results_error(path, line, message).into())
            }
            None => Ok(()),
        }
    }
}

/// A results file being appended to.
struct Sink {
    path: PathBuf,
    format: Format,
    file: std::fs::File,
    /// Keys it already holds.
    done: BTreeSet<String>,
    /// A CSV begun without the [`PROVENANCE`] columns: its rows are appended without them.
    legacy: bool,
    /// How many of its records are no point of the sweep.
    unmatched: usize,
}

impl Sink {
    /// Opens `path` for appending the sweep's results, checking its header and dropping a
    /// partial last line.
    fn open(path: &Path, sweep: &Sweep) -> Result<Sink> {
        let header = sweep.csv_header();
        let format = Format::of(path);
        let (existing, records, complete) = read_results(path)?;
        let legacy = existing.as_ref().is_some_and(|h| *h == sweep.results_header());
        if let Some(h) = &existing
            && *h != header
            && !legacy
        {
            let message = format!(
                "holds results with other columns ({}); write to another file or remove it",
                h.join(",")
            );
            // The header is the file's first line.
            return Err(results_error(path, 1, message).into());
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .with_context(|| format!("{}: cannot open", path.display()))?;
        file.set_len(complete)?;
        if format == Format::Csv && existing.is_none() {
            writeln!(file, "{}", header.iter().map(|h| csv_field(h)).collect::<Vec<_>>().join(","))?;
        }
        let done = records.iter().map(|r| r.key.clone()).collect();
        let matched = match_records(sweep, records);
        for (p, r) in sweep.points.iter().zip(&matched.records) {
            if let Some(r) = r {
                Stored::parse(existing.as_deref(), r)?.check(sweep, p, path, r.at, Made::Now)?;
            }
        }
        let unmatched = matched.unmatched;
        Ok(Sink { path: path.to_path_buf(), format, file, done, legacy, unmatched })
    }
}

/// Options of a sweep run.
#[derive(Clone, Debug, Default)]
pub struct SweepOptions {
    pub csv: Option<PathBuf>,
    pub json: Option<PathBuf>,
    /// Run only the points whose index is `.0` modulo `.1`.
    pub shard: Option<(usize, usize)>,
}

/// What a sweep did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepSummary {
    /// Points of this shard, those already done, those run now, and those that did not finish
    /// cleanly (stuck or failed).
    pub shard_points: usize,
    pub skipped: usize,
    pub ran: usize,
    pub failed: usize,
    /// Points not run or abandoned while running because of Ctrl-C (none stored).
    pub interrupted: usize,
    /// Each results file holding records that are no point of the sweep, and how many: they
    /// stay in the file and are not used.
    pub unmatched: Vec<(PathBuf, usize)>,
}

/// Parses `I/N`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), ConfigError> {
    let bad = || {
        let message =
            "expected I/N with 0 ≤ I < N, e.g. --shard 0/4 (I is 0-based, like SLURM_ARRAY_TASK_ID)";
        ConfigError::argument(format!("--shard {s}"), message)
    };
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Runs the sweep's unfinished points of this shard in parallel, appending each result as it
/// finishes; `progress` gets the number of points to run, then advances as each finishes
/// (pass [`ProgressBar::hidden`] for none).
pub fn run(sweep: &Sweep, opts: &SweepOptions, progress: &ProgressBar) -> Result<SweepSummary> {
    let mut sinks = Vec::new();
    for p in opts.csv.iter().chain(opts.json.iter()) {
        sinks.push(Sink::open(p, sweep)?);
    }
    let unmatched = sinks.iter().filter(|s| s.unmatched > 0).map(|s| (s.path.clone(), s.unmatched)).collect();
    if sinks.is_empty() {
        bail!("a sweep needs somewhere to write: --csv PATH and/or --json PATH");
    }
    let (shard, of) = opts.shard.unwrap_or((0, 1));
    let mine: Vec<&Point> = sweep.points.iter().filter(|p| p.index % of == shard).collect();
    let todo: Vec<&Point> =
        mine.iter().copied().filter(|p| sinks.iter().any(|s| !s.done.contains(&p.key))).collect();
    progress.set_length(todo.len() as u64);
    let sinks = Mutex::new(sinks);
    let failed = std::sync::atomic::AtomicUsize::new(0);
    let interrupted = std::sync::atomic::AtomicUsize::new(0);
    let running = Running::new(progress.clone());
    todo.par_iter().try_for_each(|p| -> Result<()> {
        if super::interrupt::requested() {
            interrupted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(());
        }
        let outcome = sweep.simulate_watched(p, Some(running.watch(p.index)));
        running.end(p.index);
        let (status, report, error) = match outcome {
            Ok((_, r)) => (r.status.clone(), Some(r), None),
            Err(e) => ("error".to_string(), None, Some(format!("{e:#}"))),
        };
        if status == INTERRUPTED {
            // A partial run is no result: it is left out, and runs again when the sweep resumes.
            interrupted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return Ok(());
        }
        if status != "done" && !stopped_at_limit(&status) {
            failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let row = sweep.csv_row(p, &status, report.as_ref());
        let csv = |fields: &[String]| fields.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",");
        let (full, legacy) = (csv(&row), csv(&row[..row.len() - PROVENANCE.len()]));
        let json = sweep.json_line(p, &status, report.as_ref(), error.as_deref());
        let mut sinks = sinks.lock().expect("a writer panicked");
        for s in sinks.iter_mut().filter(|s| !s.done.contains(&p.key)) {
            let line = match (s.format, s.legacy) {
                (Format::Csv, false) => &full,
                (Format::Csv, true) => &legacy,
                _ => &json,
            };
            writeln!(s.file, "{line}").with_context(|| format!("{}: cannot write", s.path.display()))?;
            s.file.flush()?;
            s.done.insert(p.key.clone());
        }
        drop(sinks);
        let cycles = report
            .as_ref()
            .map_or(String::new(), |r| format!(", {} cycles", format_value("cycles", &r.cycles.into())));
        progress.set_message(format!(
            "{} {status}{cycles}{}",
            p.key,
            error.map_or(String::new(), |e| format!(": {e}"))
        ));
        progress.inc(1);
        Ok(())
    })?;
    // Appended in the order the runs finished, which depends on the threads' timing: once every
    // point has run, each file is rewritten in point order (atomically, as `--merge` writes),
    // so a sweep's output is the same bytes whatever `--jobs`.
    for s in sinks.into_inner().expect("a writer panicked") {
        let Sink { path, file, .. } = s;
        drop(file);
        merge(&path, std::slice::from_ref(&path))?;
    }
    Ok(SweepSummary {
        shard_points: mine.len(),
        skipped: mine.len() - todo.len(),
        ran: todo.len(),
        failed: failed.into_inner(),
        interrupted: interrupted.into_inner(),
        unmatched,
    })
}

/// The points running now and how far each is, shown in the progress bar's message with an
/// estimate of the time left once anything says how far the sweep is.
struct Running {
    bar: ProgressBar,
    start: std::time::Instant,
    /// Each running point's share done (0 until its run says).
    shares: Mutex<std::collections::BTreeMap<usize, f64>>,
}

impl Running {
    fn new(bar: ProgressBar) -> Arc<Running> {
        Arc::new(Running { bar, start: std::time::Instant::now(), shares: Mutex::default() })
    }

    /// The watch of point `index`'s run.
    fn watch(self: &Arc<Self>, index: usize) -> Watch {
        let me = Arc::clone(self);
        me.set(index, 0.0);
        Watch {
            every: 0,
            tell: Arc::new(move |p: &super::run::Progress| me.set(index, p.done.unwrap_or(0.0))),
        }
    }

    fn set(&self, index: usize, share: f64) {
        let mut shares = self.shares.lock().expect("no panic while held");
        shares.insert(index, share);
        self.bar.set_message(running_message(
            &shares,
            self.bar.position(),
            self.bar.length().unwrap_or(0),
            self.start.elapsed().as_secs_f64(),
        ));
    }

    fn end(&self, index: usize) {
        self.shares.lock().expect("no panic while held").remove(&index);
    }
}

/// The progress bar's message: the points running and their shares done, and the time left,
/// estimated from the points finished and the running ones' shares once those are more than 0.
fn running_message(
    shares: &std::collections::BTreeMap<usize, f64>,
    finished: u64,
    total: u64,
    seconds: f64,
) -> String {
    let done = finished as f64 + shares.values().sum::<f64>();
    let eta = if done > 0.0 && total as f64 > done {
        format!(", eta {:.0} s", seconds * (total as f64 - done) / done)
    } else {
        String::new()
    };
    let list: Vec<String> = shares.iter().map(|(i, s)| format!("#{i} {:.0}%", (s * 100.0).floor())).collect();
    format!("{eta}; running {}", list.join(" "))
}

/// What a merge wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// Points written.
    pub points: usize,
    /// Point indices below the highest merged one that no input holds: a shard not given,
    /// or not finished.
    pub missing: Vec<usize>,
}

/// Merges results files (shards) into `out`: one line per point, ordered by point.
pub fn merge(out: &Path, inputs: &[PathBuf]) -> Result<Merged> {
    let format = Format::of(out);
    let mut header: Option<Vec<String>> = None;
    let mut records: Vec<Record> = Vec::new();
    let mut seen = BTreeSet::new();
    // What the first run that says so was made on and under, and its file; each point's
    // machine digest, and the file it came from.
    let mut first_made: Option<(String, PathBuf)> = None;
    let mut digests: std::collections::BTreeMap<String, (String, PathBuf)> = Default::default();
    // Each point number's key, and the file it came from.
    let mut numbered: std::collections::BTreeMap<usize, (String, PathBuf)> = Default::default();
    for input in inputs {
        let refuse_at = |line: Option<usize>, message: String| ConfigError {
            origin: Origin::File(input.display().to_string()),
            position: line.map(|l| (l, 1)),
            key: String::new(),
            message,
        };
        let refuse = |message: String| refuse_at(None, message);
        if Format::of(input) != format {
            let message =
                format!("cannot merge {:?} into {:?} ({})", Format::of(input), format, out.display());
            return Err(refuse(message).into());
        }
        if !input.is_file() {
            return Err(refuse("no such results file".into()).into());
        }
        let (h, recs, _) = read_results(input)?;
        if let Some(h) = &h
            && h.get(..2) != Some(&["point".to_string(), "key".to_string()][..])
        {
            return Err(refuse_at(
                Some(1),
                format!("not a sweep's results: its columns begin `{}`, not `point,key`", h.join(",")),
            )
            .into());
        }
        match (&header, h) {
            (Some(a), Some(b)) if *a != b => {
                let message = format!("its columns differ from the other files' ({})", b.join(","));
                return Err(refuse_at(Some(1), message).into());
            }
            (None, h) => header = h,
            _ => {}
        }
        for r in recs {
            let made = made_on(header.as_deref(), &r.line);
            let differs = |why: String| -> anyhow::Error {
                let message = format!(
                    "point {} (`{}`) {why}: results of different sweeps do not merge",
                    r.point, r.key
                );
                refuse_at(Some(r.at), message).into()
            };
            if let Some((on, digest)) = made {
                match &first_made {
                    Some((a, from)) if *a != on => {
                        return Err(differs(format!("was run {on}, and the runs of {} {a}", from.display())));
                    }
                    None => first_made = Some((on, input.clone())),
                    _ => {}
                }
                match digests.get(&r.key) {
                    Some((d, from)) if *d != digest => {
                        let why = format!("ran on a machine configured otherwise than in {}", from.display());
                        return Err(differs(why));
                    }
                    Some(_) => {}
                    None => {
                        digests.insert(r.key.clone(), (digest, input.clone()));
                    }
                }
            }
            // Shards of one grid number its points alike: the same number under another key in
            // another file is another grid's point. (Within a file, a record kept from before
            // its grid was reordered may carry a stale number; it is matched by key.)
            match numbered.get(&r.point) {
                Some((key, from)) if *key != r.key && from != input => {
                    let why = format!("is point {} `{key}` in {}", r.point, from.display());
                    let message = format!(
                        "point {} is `{}` here, and {why}: files of different grids do not merge",
                        r.point, r.key
                    );
                    return Err(refuse_at(Some(r.at), message).into());
                }
                Some(_) => {}
                None => {
                    numbered.insert(r.point, (r.key.clone(), input.clone()));
                }
            }
            if seen.insert(r.key.clone()) {
                records.push(r);
            }
        }
    }
    records.sort_by_key(|r| r.point);
    let mut text = String::new();
    if let Some(h) = &header {
        text.push_str(&h.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(","));
        text.push('\n');
    }
    for r in &records {
        text.push_str(&r.line);
        text.push('\n');
    }
    crate::output::write_atomic(&out.display().to_string(), &text)?;
    let held: BTreeSet<usize> = records.iter().map(|r| r.point).collect();
    let top = held.last().map_or(0, |&p| p + 1);
    Ok(Merged { points: records.len(), missing: (0..top).filter(|p| !held.contains(p)).collect() })
}

/// A finished point's metrics as its results file holds them (numbers keep their integer or
/// float type), and whether its run stopped at a limit (status `max-cycles` or
/// `max-instructions`) rather than at its end.
pub struct Cells {
    pub values: Vec<Option<serde_json::Value>>,
    pub capped: bool,
}

/// Each finished point's metrics (CSV columns, or a JSON line's report), by point index; the
/// records are matched to points by key ([`match_records`]), and those of no point are left out
/// ([`run`] counts them).
pub fn metric_cells(sweep: &Sweep, results: &Path) -> Result<Vec<Option<Cells>>> {
    metric_cells_made(sweep, results, Made::Now)
}

/// When a results file's runs were made, for the checks of [`metric_cells_made`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Made {
    /// As the sweep would make them now: on its machine as its file reads now.
    Now,
    /// Earlier, perhaps before its machine file was edited (`repro --since`): runs of the same
    /// machine name and limits are taken whatever its settings were then.
    Earlier,
}

/// [`metric_cells`], with the stored runs checked as `made` says.
pub fn metric_cells_made(sweep: &Sweep, results: &Path, made: Made) -> Result<Vec<Option<Cells>>> {
    let (header, records, _) = read_results(results)?;
    let mut out: Vec<Option<Cells>> = (0..sweep.points.len()).map(|_| None).collect();
    for (i, r) in match_records(sweep, records).records.into_iter().enumerate() {
        let Some(r) = r else { continue };
        let stored = Stored::parse(header.as_deref(), &r)?;
        stored.check(sweep, &sweep.points[i], results, r.at, made)?;
        let values = sweep.metrics.iter().map(|m| stored.number(m)).collect();
        let status = stored.status();
        out[i] = Some(Cells { values, capped: stopped_at_limit(&status) });
    }
    Ok(out)
}

/// The variants of the grid (the points' own assignments), in point order, each once.
pub fn variant_names(sweep: &Sweep) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in &sweep.points {
        if !out.contains(&p.variant) {
            out.push(p.variant.clone());
        }
    }
    out
}

/// Checks `--baseline NAME --metric KEY` before anything runs: the baseline must be one of the
/// grid's variants and the metric one of its metrics. Returns the baseline's index among
/// [`variants`].
pub fn check_baseline(sweep: &Sweep, name: &str, metric: &str) -> Result<usize, ConfigError> {
    if !sweep.metrics.iter().any(|m| m == metric) {
        return Err(ConfigError::argument(
            format!("--metric {metric}"),
            format!("is not one of the grid's metrics: {}", sweep.metrics.join(", ")),
        ));
    }
    super::speedup::baseline_index("--baseline", name, &variant_names(sweep))
}

/// `metric` of every stored point, per workload and variant, normalised to variant `baseline`
/// (an index among [`variant_names`]).
pub fn normalised(
    sweep: &Sweep,
    results: &Path,
    metric: &str,
    baseline: usize,
) -> Result<super::speedup::Normalised> {
    let cells = metric_cells(sweep, results)?;
    let variants = variant_names(sweep);
    let m = sweep.metrics.iter().position(|k| k == metric).expect("checked by check_baseline");
    let mut values = vec![vec![None; variants.len()]; sweep.workloads.len()];
    for (p, c) in sweep.points.iter().zip(&cells) {
        let Some(c) = c else { continue };
        let v = variants.iter().position(|v| *v == p.variant).expect("every point's variant is listed");
        values[p.workload][v] = c.values[m]
            .as_ref()
            .and_then(|x| x.as_f64())
            .map(|value| super::speedup::Value { value, capped: c.capped });
    }
    Ok(super::speedup::Normalised {
        metric: metric.to_string(),
        baseline,
        benchmarks: sweep.workloads.iter().map(|(label, _)| label.clone()).collect(),
        variants,
        values,
    })
}

/// Each finished point's stored report (a JSON-lines file's; `None` where the point has no
/// run or its run failed), by point index, every stored run checked to be this sweep's as
/// [`metric_cells`] checks it. A CSV file keeps only the metrics and is refused.
pub fn stored_reports(sweep: &Sweep, results: &Path) -> Result<Vec<Option<serde_json::Value>>> {
    let (header, records, _) = read_results(results)?;
    if header.is_some() {
        bail!("{}: a CSV file keeps only the sweep's metrics; give a JSON-lines file", results.display());
    }
    let mut out = vec![None; sweep.points.len()];
    for (i, r) in match_records(sweep, records).records.into_iter().enumerate() {
        let Some(r) = r else { continue };
        let stored = Stored::parse(None, &r)?;
        stored.check(sweep, &sweep.points[i], results, r.at, Made::Now)?;
        if let Stored::Line(mut v) = stored
            && !v["report"].is_null()
        {
            out[i] = Some(v["report"].take());
        }
    }
    Ok(out)
}

/// The numeric value of each metric for each finished point, marked capped when its run
/// stopped at the cycle limit.
pub fn metric_values(sweep: &Sweep, results: &Path, made: Made) -> Result<Vec<Option<Vec<Option<Sample>>>>> {
    Ok(metric_cells_made(sweep, results, made)?
        .into_iter()
        .map(|c| {
            c.map(|c| {
                c.values
                    .iter()
                    .map(|v| v.as_ref().and_then(|v| v.as_f64()).map(|y| Sample { y, capped: c.capped }))
                    .collect()
            })
        })
        .collect())
}

/// A markdown table of a sweep's results: a row per finished point (workload, its own
/// assignments, how far it ran), a column per metric formatted as `run` shows it.
pub fn markdown(sweep: &Sweep, results: &Path) -> Result<String> {
    let cells = metric_cells(sweep, results)?;
    let cycles = sweep.metrics.iter().position(|m| m == "cycles");
    let variants = sweep.points.iter().any(|p| !p.variant.is_empty());
    let mut md = String::from("| workload |");
    if variants {
        md.push_str(" variant |");
    }
    md.push_str(" run |");
    for m in &sweep.metrics {
        md.push_str(&format!(" `{m}` |"));
    }
    md.push('\n');
    md.push_str(&"|---".repeat(1 + usize::from(variants) + 1 + sweep.metrics.len()));
    md.push_str("|\n");
    for p in &sweep.points {
        let Some(c) = &cells[p.index] else { continue };
        md.push_str(&format!("| `{}` |", sweep.workloads[p.workload].0));
        if variants {
            md.push_str(&format!(" {} |", if p.variant.is_empty() { "—" } else { &p.variant }));
        }
        let ran = cycles.and_then(|i| c.values[i].as_ref()).map(|v| format_value("cycles", v));
        md.push_str(&match (c.capped, ran) {
            (true, Some(n)) => format!(" first {n} cycles (capped) |"),
            (true, None) => " capped |".to_string(),
            (false, Some(n)) => format!(" done, {n} cycles |"),
            (false, None) => " done |".to_string(),
        });
        for (i, m) in sweep.metrics.iter().enumerate() {
            let cell = c.values[i].as_ref().map_or("–".to_string(), |v| format_value(m, v));
            md.push_str(&format!(" {cell} |"));
        }
        md.push('\n');
    }
    Ok(md)
}

/// SVG charts of a sweep's results: for each metric and each swept key, the metric over the
/// key's values, a series per workload and setting of the other keys — grouped bars when the
/// key's values are names (`fcfs`, `frfcfs`), lines when they are all numbers. A sweep without
/// keys gets a bar per point. Points that hit a limit are drawn as capped; the host's timing is
/// charted only when the grid names it among its metrics ([`charted`]).
pub fn chart(sweep: &Sweep, results: &Path) -> Result<String> {
    let values = metric_values(sweep, results, Made::Now)?;
    let numeric: Vec<usize> = (0..sweep.metrics.len())
        .filter(|&m| charted(&sweep.metrics[m], sweep.metrics_named))
        .filter(|&m| values.iter().flatten().any(|v| v[m].is_some()))
        .collect();
    let sample = |p: &Point, m: usize| {
        values[p.index]
            .as_ref()
            .and_then(|v| v[m])
            .map(|s| Sample { y: plotted(&sweep.metrics[m], s.y), ..s })
    };
    let varying = if sweep.axes.is_empty() { "workloads".to_string() } else { sweep.axes.join(", ") };
    let title = format!("sweep {} on {}, varying {varying}", sweep.name, sweep.machine);
    let panel = |m: usize, kind: Kind, x_label: &str, x: Vec<String>, series: Vec<String>, values| Panel {
        title: sweep.metrics[m].clone(),
        kind,
        x_label: x_label.to_string(),
        y_label: unit(&sweep.metrics[m]).to_string(),
        x,
        series,
        values,
        reference: None,
    };
    if sweep.axes.is_empty() {
        let names: Vec<String> = sweep
            .points
            .iter()
            .map(|p| {
                let w = sweep.workloads[p.workload].0.clone();
                if p.variant.is_empty() { w } else { format!("{w} {}", p.variant) }
            })
            .collect();
        // A point without a result gets no bar (its slot stays empty), not a zero.
        let panels: Vec<Panel> = numeric
            .iter()
            .map(|&m| {
                let values = vec![sweep.points.iter().map(|p| sample(p, m)).collect()];
                panel(m, Kind::Bars, "workload", names.clone(), vec![String::new()], values)
            })
            .collect();
        return figure(&title, &panels);
    }
    let mut panels = Vec::new();
    for &m in &numeric {
        for axis in &sweep.axes {
            let mut x: Vec<String> = Vec::new();
            let mut series: Vec<String> = Vec::new();
            let mut grid: Vec<Vec<Option<Sample>>> = Vec::new();
            for p in sweep.points.iter().filter(|p| !Sweep::axis_value(p, axis).is_empty()) {
                let xv = Sweep::axis_value(p, axis);
                let xi = x.iter().position(|v| *v == xv).unwrap_or_else(|| {
                    x.push(xv);
                    x.len() - 1
                });
                let others = sweep
                    .axes
                    .iter()
                    .filter(|a| *a != axis)
                    .map(|a| format!("{a}={}", Sweep::axis_value(p, a)));
                let label = std::iter::once(sweep.workloads[p.workload].0.clone())
                    .chain(others)
                    .collect::<Vec<_>>()
                    .join(" ");
                let si = series.iter().position(|s| *s == label).unwrap_or_else(|| {
                    series.push(label);
                    grid.push(Vec::new());
                    series.len() - 1
                });
                let v = &mut grid[si];
                v.resize(v.len().max(xi + 1), None);
                v[xi] = sample(p, m);
            }
            for v in &mut grid {
                v.resize(x.len(), None);
            }
            // Names are categories: bars side by side, never a line between them.
            let kind = if x.iter().all(|v| v.parse::<f64>().is_ok()) {
                Kind::Lines { rates: false }
            } else {
                Kind::Bars
            };
            panels.push(panel(m, kind, axis, x, series, grid));
        }
    }
    figure(&title, &panels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key the simulator gains later, at a default that keeps the old behaviour, leaves a
    /// machine's digest as it was; set otherwise, it changes it, as does any other setting.
    #[test]
    fn a_key_added_at_its_default_keeps_the_machine_digest() {
        let default = serde_json::to_value(Config::default()).unwrap();
        let mut machine = Config::default();
        machine.dram.channels = 3;
        let machine = serde_json::to_value(machine).unwrap();
        let without = |mut v: serde_json::Value| {
            v["dram"]["alpha_sjf"].as_object_mut().unwrap().remove("core_selection").unwrap();
            v
        };
        let (old, old_default) = (without(machine.clone()), without(default.clone()));
        assert_eq!(settings_digest(machine.clone(), &default), settings_digest(old.clone(), &old_default));
        let mut set = machine.clone();
        set["dram"]["alpha_sjf"]["core_selection"] = false.into();
        assert_ne!(settings_digest(set, &default), settings_digest(old, &old_default));
        assert_ne!(settings_digest(machine, &default), settings_digest(default.clone(), &default));
    }

    #[test]
    fn the_bar_lists_the_running_points_and_estimates_from_them_once_anything_is_done() {
        let mut shares = std::collections::BTreeMap::new();
        shares.insert(3, 0.0);
        assert_eq!(running_message(&shares, 0, 12, 40.0), "; running #3 0%", "nothing done: no ETA");
        shares.insert(5, 0.5);
        // 2 points finished and 0.5 of another in 20 s: 2.5 of 12 done, 9.5 to go at 8 s each.
        assert_eq!(running_message(&shares, 2, 12, 20.0), ", eta 76 s; running #3 0% #5 50%");
    }

    #[test]
    fn csv_fields_round_trip() {
        for row in
            [vec!["0", "a | l1.sets=32", "x"], vec!["1", "say \"hi\", there", ""], vec![" lead", "", ","]]
        {
            let line = row.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",");
            assert_eq!(csv_fields(&line), row, "{line}");
        }
    }

    /// Records are matched to points by key whatever point number they were stored with (the
    /// sweep has gained a point before them and swapped two); a record of no point is counted,
    /// and of two records of one point the last is taken.
    #[test]
    fn records_match_points_by_key_not_by_number() {
        let dir = std::env::temp_dir().join(format!("warpscope-sweep-match-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let tiny = std::fs::canonicalize("tests/fixtures/tiny.ron").unwrap();
        let grid = dir.join("grid.ron");
        let text = format!(
            r#"(workloads: ["{}"], sets: ["core.count=2"], grid: ["dram.scheduler=gmc,frfcfs,fcfs"])"#,
            tiny.display()
        );
        std::fs::write(&grid, text).unwrap();
        let sweep = Sweep::load(&grid).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_dir_all(&dir).ok();
        let key = |sched: &str| format!("{} | core.count=2 dram.scheduler={sched}", tiny.display());
        assert_eq!(
            sweep.points.iter().map(|p| p.key.clone()).collect::<Vec<_>>(),
            [key("gmc"), key("frfcfs"), key("fcfs")]
        );
        let record = |point: usize, sched: &str, line: &str| Record {
            point,
            key: key(sched),
            line: line.into(),
            at: 1,
        };
        let records = vec![
            record(0, "fcfs", "fcfs"),
            record(1, "frfcfs", "frfcfs, first"),
            record(2, "frlcfs", "a point since removed"),
            record(1, "frfcfs", "frfcfs, again"),
        ];
        let m = match_records(&sweep, records);
        let lines: Vec<Option<&str>> =
            m.records.iter().map(|r| r.as_ref().map(|r| r.line.as_str())).collect();
        assert_eq!(lines, [None, Some("frfcfs, again"), Some("fcfs")]);
        assert_eq!(m.records[2].as_ref().unwrap().point, 0, "the record as stored");
        assert_eq!(m.unmatched, 1);
    }

    #[test]
    fn shards_are_zero_based() {
        assert_eq!(parse_shard("0/4").unwrap(), (0, 4));
        assert_eq!(parse_shard(" 3 / 4 ").unwrap(), (3, 4));
        for bad in ["4/4", "1/0", "a/2", "2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
