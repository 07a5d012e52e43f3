//! A validation study: the peer's option files (warpscope's machine is their `config import`),
//! the stored peer results, and the kernels, each a workload as `-w` takes it with its sizes.
//!
//! ```ron
//! (
//!     title: "Memory-bound kernels on Accel-Sim's SM7_QV100",
//!     peer: (
//!         simulator: "Accel-Sim (GPGPU-Sim 4)",
//!         sources: ["accel-sim/accel-sim-framework@73f9fac", "accel-sim/gpgpu-sim_distribution@667834cf"],
//!         command: "accel-sim.out -trace TRACE/kernelslist.g -config ./gpgpusim.config -config ./trace.config",
//!         configs: ["../../tests/fixtures/gpgpusim/SM7_QV100/gpgpusim.config", "../../tests/fixtures/gpgpusim/SM7_QV100/trace.config"],
//!         inputs: [],
//!         results: "../../docs/validation/peer/qv100-memory.ron",
//!     ),
//!     kernels: [
//!         (name: "stream", workload: "../workloads/stream.ron"),
//!         (name: "atax-4k", workload: "atax", sets: ["workload.nx=4096", "workload.ny=4096"]),
//!     ],
//!     targets: (mean_cycle_error: Some(10.0), max_cycle_error: Some(20.0), bandwidth_points: Some(5.0), l2_hit_points: Some(5.0)),
//! )
//! ```
//!
//! Paths are relative to the spec. `sets` take `workload.KNOB=N` (a benchmark's size) and
//! `sim.seed=N` (a synthetic workload's addresses); the machine is the peer's, unchanged.

use crate::config::{Config, ConfigError, Origin, error_at_path, parse_ron, read_file};
use crate::workload::Workload;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ValidateSpec {
    pub title: String,
    pub peer: PeerSpec,
    pub kernels: Vec<KernelSpec>,
    /// What the study is held to; the table says whether each is met.
    #[serde(default)]
    pub targets: Targets,
}

/// The peer and how it ran.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PeerSpec {
    /// The simulator, as the tables name it.
    pub simulator: String,
    /// Its source repositories at the commits built (`owner/name@commit`).
    pub sources: Vec<String>,
    /// How it ran each kernel; `TRACE` stands for the kernel's exported trace directory.
    pub command: String,
    /// Its option files in the order it read them; warpscope's machine is their `config import`.
    pub configs: Vec<String>,
    /// Other files it read (the interconnect file a `gpgpusim.config` names), digested with
    /// the option files so stored results are tied to them too.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// The stored results (`validate --record` writes them).
    pub results: String,
}

/// One kernel (or application) both simulators run.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    pub name: String,
    /// A benchmark's name or a workload file (relative to the spec).
    pub workload: String,
    #[serde(default)]
    pub sets: Vec<String>,
}

/// The issue's targets for a study: cycle errors in percent, rates in percentage points.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Targets {
    #[serde(default)]
    pub mean_cycle_error: Option<f64>,
    #[serde(default)]
    pub max_cycle_error: Option<f64>,
    #[serde(default)]
    pub bandwidth_points: Option<f64>,
    #[serde(default)]
    pub l2_hit_points: Option<f64>,
    #[serde(default)]
    pub ipc_correlation: Option<f64>,
}

/// A loaded spec: the spec, its path, and where its relative paths start.
#[derive(Clone, Debug)]
pub struct Study {
    pub spec: ValidateSpec,
    pub path: PathBuf,
    pub dir: PathBuf,
    /// The spec's text, where errors about its entries point.
    text: String,
}

impl Study {
    pub fn load(path: &Path) -> Result<Study, ConfigError> {
        Study::from_text(&read_file(path)?, path)
    }

    /// A study's text, read from `path` (which names it in errors and whose directory its
    /// paths are relative to).
    pub fn from_text(text: &str, path: &Path) -> Result<Study, ConfigError> {
        let spec: ValidateSpec = parse_ron(text, &Origin::File(path.display().to_string()))?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let study = Study { spec, path: path.to_path_buf(), dir, text: text.to_string() };
        let mut names = std::collections::BTreeSet::new();
        for (i, k) in study.spec.kernels.iter().enumerate() {
            if !names.insert(&k.name) {
                return Err(study.at(&format!("kernels[{i}].name"), &format!("`{}` is named twice", k.name)));
            }
            if let Some(j) =
                k.sets.iter().position(|s| !(s.starts_with("workload.") || s.starts_with("sim.seed=")))
            {
                let message = format!(
                    "`{}`: a kernel sets only workload.KNOB=N and sim.seed=N; the machine is the peer's",
                    k.sets[j]
                );
                return Err(study.at(&format!("kernels[{i}].sets[{j}]"), &message));
            }
        }
        if study.spec.peer.configs.is_empty() {
            return Err(study.at("peer.configs", "names no option file"));
        }
        Ok(study)
    }

    /// An error at the entry `key` of the spec (`kernels[2].sets[0]`): its line and column.
    fn at(&self, key: &str, message: &str) -> ConfigError {
        error_at_path(&self.text, &Origin::File(self.path.display().to_string()), key, message)
    }

    /// `e`, an error about what the spec's entry `key` names, placed at the entry: a file
    /// that cannot be read, or an assignment refused as if it were a `--set` (the user gave
    /// none). An error inside a file the spec names keeps that file and its own position.
    fn entry(&self, key: &str, e: ConfigError) -> ConfigError {
        match &e.origin {
            Origin::File(_) if e.position.is_none() && e.key.is_empty() => self.at(key, &e.to_string()),
            Origin::Override(_) => ConfigError { key: e.key, message: e.message, ..self.at(key, "") },
            _ => e,
        }
    }

    /// The spec's files of `list` (`peer.configs`, `peer.inputs`): (path as the spec names
    /// it, text); one that cannot be read is named at its entry.
    fn read_listed(&self, key: &str, list: &[String]) -> Result<Vec<(String, String)>, ConfigError> {
        let read = |(i, p): (usize, &String)| {
            let text = read_file(&self.resolve(p)).map_err(|e| self.entry(&format!("{key}[{i}]"), e))?;
            Ok((p.clone(), text))
        };
        list.iter().enumerate().map(read).collect()
    }

    /// A path of the spec, from where warpscope runs.
    pub fn resolve(&self, p: &str) -> PathBuf {
        self.dir.join(p)
    }

    /// The peer's option files: (path as the spec names it, text).
    pub fn configs(&self) -> Result<Vec<(String, String)>, ConfigError> {
        self.read_listed("peer.configs", &self.spec.peer.configs)
    }

    /// Every file the peer read, option files first: what stored results are tied to.
    pub fn peer_files(&self) -> Result<Vec<(String, String)>, ConfigError> {
        let mut files = self.configs()?;
        files.extend(self.read_listed("peer.inputs", &self.spec.peer.inputs)?);
        Ok(files)
    }

    /// warpscope's machine: `config import` of the peer's option files (and of its inputs, a
    /// BookSim network file among them).
    pub fn machine(&self) -> anyhow::Result<Config> {
        let files: Vec<(String, String)> = self
            .peer_files()?
            .iter()
            .map(|(p, text)| (text.clone(), self.resolve(p).display().to_string()))
            .collect();
        Ok(crate::config::gpgpusim::import(&files)?.config)
    }

    /// Kernel `k`'s workload, with `config`'s seed unless the kernel sets its own. An error
    /// about the kernel's file or sizes is placed at its entry in the spec.
    pub fn workload(&self, k: &KernelSpec, config: &Config) -> Result<Workload, ConfigError> {
        // Names are unique (`from_text`), so the name finds the kernel's entry.
        let entry = self
            .spec
            .kernels
            .iter()
            .position(|x| x.name == k.name)
            .map_or("kernels".into(), |i| format!("kernels[{i}]"));
        let set = |a: &str| {
            k.sets
                .iter()
                .rposition(|s| s == a)
                .map_or(format!("{entry}.sets"), |j| format!("{entry}.sets[{j}]"))
        };
        let (sizes, seeds): (Vec<String>, Vec<String>) =
            k.sets.iter().cloned().partition(|s| s.starts_with("workload."));
        let seed = match seeds.last() {
            Some(s) => s["sim.seed=".len()..]
                .trim()
                .parse()
                .map_err(|_| self.at(&set(s), &format!("`{s}`: the seed is a whole number")))?,
            None => config.sim.seed,
        };
        // A bare word names a benchmark; anything with a directory or an extension is a file.
        let arg = if k.workload.contains(['/', '.']) {
            self.resolve(&k.workload)
        } else {
            PathBuf::from(&k.workload)
        };
        Workload::resolve(Some(&arg), &sizes, seed).map_err(|e| {
            let key = match &e.origin {
                Origin::Override(a) => set(a),
                _ => format!("{entry}.workload"),
            };
            self.entry(&key, e)
        })
    }
}
