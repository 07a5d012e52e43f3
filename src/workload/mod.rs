//! Workloads: kernels to run and, per warp, a cursor producing its instructions.
//!
//! A workload is immutable and shared (behind an `Arc`) by every warp; each warp owns only its
//! [`WarpProgram`] cursor, so snapshots stay small and replay is exact.

pub mod hash;
pub mod instr;
pub mod synth;

use crate::config::{ConfigError, Origin, parse_ron};
use instr::{Instr, LaneAddrs};
use std::path::Path;
use synth::{SynthCursor, SynthKernel, SynthWorkloadSpec};

/// The built-in irregular workload (BFS-like), embedded in the binary.
pub const BUILTIN_WORKLOAD: &str = include_str!("../../sample-configs/workloads/bfs.ron");
pub const BUILTIN_WORKLOAD_NAME: &str = "sample-configs/workloads/bfs.ron (built-in)";

/// Kernels run in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    pub name: String,
    pub description: String,
    pub kernels: Vec<Kernel>,
}

/// One kernel launch.
#[derive(Clone, Debug, PartialEq)]
pub enum Kernel {
    Synth(SynthKernel),
}

/// A warp's instruction source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarpProgram {
    Synth(SynthCursor),
}

impl Kernel {
    pub fn name(&self) -> &str {
        match self {
            Kernel::Synth(k) => &k.name,
        }
    }

    pub fn ctas(&self) -> u32 {
        match self {
            Kernel::Synth(k) => k.ctas,
        }
    }

    pub fn threads_per_cta(&self) -> u32 {
        match self {
            Kernel::Synth(k) => k.threads_per_cta,
        }
    }

    pub fn warps_per_cta(&self) -> u32 {
        self.threads_per_cta().div_ceil(32)
    }

    /// The program of one warp of one CTA.
    pub fn warp_program(&self, cta: u32, warp_in_cta: u32) -> WarpProgram {
        match self {
            Kernel::Synth(k) => WarpProgram::Synth(k.cursor(cta, warp_in_cta)),
        }
    }
}

impl WarpProgram {
    /// The next instruction; memory instructions write their lane addresses to `addrs`.
    #[inline]
    pub fn fetch(&mut self, kernel: &Kernel, addrs: &mut LaneAddrs) -> Instr {
        match (self, kernel) {
            (WarpProgram::Synth(c), Kernel::Synth(k)) => c.fetch(k, addrs),
        }
    }
}

impl Workload {
    /// Loads a workload file.
    pub fn load(path: &Path, sim_seed: u64) -> Result<Workload, ConfigError> {
        let origin = Origin::File(path.display().to_string());
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: origin.clone(),
            position: None,
            key: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        Workload::from_text(&text, &origin, sim_seed)
    }

    /// Parses and compiles workload text.
    pub fn from_text(text: &str, origin: &Origin, sim_seed: u64) -> Result<Workload, ConfigError> {
        let spec: SynthWorkloadSpec = parse_ron(text, origin)?;
        let kernels = synth::compile(&spec, sim_seed, text, origin)?;
        Ok(Workload {
            name: spec.name,
            description: spec.description,
            kernels: kernels.into_iter().map(Kernel::Synth).collect(),
        })
    }

    /// Loads `path`, or the built-in workload when `None`.
    pub fn load_or_builtin(path: Option<&Path>, sim_seed: u64) -> Result<Workload, ConfigError> {
        match path {
            Some(p) => Workload::load(p, sim_seed),
            None => {
                Workload::from_text(BUILTIN_WORKLOAD, &Origin::File(BUILTIN_WORKLOAD_NAME.into()), sim_seed)
            }
        }
    }
}
