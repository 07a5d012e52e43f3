//! The peer's results as the repository keeps them: one RON file per study, written by
//! `validate SPEC --record LOGDIR` from the peer's logs and never edited, so the validation
//! tables regenerate offline. It names the peer (simulator, source commits, command), the
//! digests of the option files it read, and per kernel the digest of the trace it ran and the
//! end-of-run counters `validate` compares (`peer_log::PeerStats`, by name).
//!
//! Results are refused when the spec's option files are not the ones they were made with
//! (both digests named), and a kernel whose trace export has changed since is refused by name:
//! its peer run was of another input.

use super::digest;
use super::spec::Study;
use crate::batch::peer_log::PeerStats;
use crate::config::{ConfigError, Origin, parse_ron, read_file};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PeerResults {
    pub simulator: String,
    pub sources: Vec<String>,
    pub command: String,
    pub configs: Vec<StoredConfig>,
    pub kernels: Vec<StoredKernel>,
}

/// One option file the peer read.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StoredConfig {
    pub file: String,
    /// [`digest::options`] of its text.
    pub options_sha256: String,
}

/// One kernel's results.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StoredKernel {
    pub name: String,
    /// The workload and sets it was exported from, as the spec named them then.
    pub workload: String,
    pub sets: Vec<String>,
    /// [`digest::trace`] of the trace the peer ran.
    pub trace_sha256: String,
    pub counters: BTreeMap<String, f64>,
}

impl StoredKernel {
    pub fn stats(&self) -> Result<PeerStats, String> {
        PeerStats::from_map(&self.counters)
    }
}

/// The option files' digests, in the spec's order.
pub fn config_digests(configs: &[(String, String)]) -> Vec<StoredConfig> {
    configs
        .iter()
        .map(|(path, text)| StoredConfig {
            file: std::path::Path::new(path).file_name().map_or(path.clone(), |f| f.to_string_lossy().into()),
            options_sha256: digest::options(text),
        })
        .collect()
}

/// Reads the study's stored results and checks they were made with the spec's option files.
pub fn load(study: &Study, configs: &[(String, String)]) -> Result<PeerResults, ConfigError> {
    let path = study.resolve(&study.spec.peer.results);
    let origin = Origin::File(path.display().to_string());
    let results: PeerResults = parse_ron(&read_file(&path)?, &origin)?;
    let refuse = |message: String| ConfigError {
        origin: origin.clone(),
        position: None,
        key: "configs".into(),
        message,
    };
    let want = config_digests(configs);
    if want.len() != results.configs.len() {
        return Err(refuse(format!(
            "were made with {} option files, the spec {} names {}; run the peer again with the spec's files and record",
            results.configs.len(),
            study.path.display(),
            want.len()
        )));
    }
    for (w, r) in want.iter().zip(&results.configs) {
        if w.options_sha256 != r.options_sha256 {
            return Err(refuse(format!(
                "were made with {} of options digest {}, but the spec's {} has {}: the peer ran another machine; run it again and record",
                r.file, r.options_sha256, w.file, w.options_sha256
            )));
        }
    }
    for k in &results.kernels {
        k.stats().map_err(|e| refuse(format!("kernel `{}`: {e}", k.name)))?;
    }
    Ok(results)
}

/// Writes `results` as the study's stored results file, with a header saying how it was made.
pub fn write(study: &Study, results: &PeerResults, logs: &str) -> anyhow::Result<String> {
    let path = study.resolve(&study.spec.peer.results);
    let body = ron::ser::to_string_pretty(results, ron::ser::PrettyConfig::default().struct_names(false))?;
    let text = format!(
        "// {}: the peer's results, written by `warpscope validate {} --record {logs}` from its logs.\n\
         // Generated: do not edit. `warpscope validate` checks the option files' and the traces' digests\n\
         // against the spec before it uses a number.\n{body}\n",
        study.spec.title,
        study.path.display()
    );
    crate::output::write_atomic(&path.display().to_string(), &text)?;
    Ok(path.display().to_string())
}
