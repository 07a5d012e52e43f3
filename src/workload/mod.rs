//! Workloads: kernels to run and, per warp, a cursor producing its instructions.
//!
//! A workload is immutable and shared (behind an `Arc`) by every warp; each warp owns only its
//! [`WarpProgram`] cursor, so snapshots stay small and replay is exact. Kernels are synthetic
//! (RON, [`synth`]) or Accel-Sim SASS traces ([`accelsim`]), whose CTAs are read from their
//! files as they launch.

pub mod accelsim;
pub mod hash;
pub mod instr;
pub mod synth;

use crate::config::{ConfigError, Origin, parse_ron};
use accelsim::{TraceCursor, TraceFileKind, TraceKernel, TraceSource};
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
    Trace(TraceKernel),
}

/// A warp's instruction source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarpProgram {
    Synth(SynthCursor),
    Trace(TraceCursor),
}

impl Kernel {
    pub fn name(&self) -> &str {
        match self {
            Kernel::Synth(k) => &k.name,
            Kernel::Trace(k) => &k.header.name,
        }
    }

    pub fn ctas(&self) -> u32 {
        match self {
            Kernel::Synth(k) => k.ctas,
            Kernel::Trace(k) => k.ctas(),
        }
    }

    pub fn threads_per_cta(&self) -> u32 {
        match self {
            Kernel::Synth(k) => k.threads_per_cta,
            Kernel::Trace(k) => k.header.threads_per_cta(),
        }
    }

    pub fn warps_per_cta(&self) -> u32 {
        self.threads_per_cta().div_ceil(32)
    }

    /// The programs of the warps of CTA `cta` (in launch order), warp 0 first. A trace kernel
    /// reads the CTA's instructions from its file here; that fails only if the file changed
    /// after it was validated.
    pub fn cta_programs(&self, cta: u32) -> Result<Vec<WarpProgram>, String> {
        Ok(match self {
            Kernel::Synth(k) => {
                (0..self.warps_per_cta()).map(|w| WarpProgram::Synth(k.cursor(cta, w))).collect()
            }
            Kernel::Trace(k) => {
                let trace = k.load_cta(cta)?;
                TraceKernel::cursors(&trace).map(WarpProgram::Trace).collect()
            }
        })
    }

    /// A program for warp slots before any CTA arrives.
    pub fn placeholder_program(&self) -> WarpProgram {
        match self {
            Kernel::Synth(k) => WarpProgram::Synth(k.cursor(0, 0)),
            Kernel::Trace(_) => WarpProgram::Trace(TraceCursor::idle()),
        }
    }
}

impl WarpProgram {
    /// The next instruction; memory instructions write their lane addresses to `addrs`.
    #[inline]
    pub fn fetch(&mut self, kernel: &Kernel, addrs: &mut LaneAddrs) -> Instr {
        match (self, kernel) {
            (WarpProgram::Synth(c), Kernel::Synth(k)) => c.fetch(k, addrs),
            (WarpProgram::Trace(c), _) => c.fetch(addrs),
            // A warp slot left over from a kernel of the other kind.
            (WarpProgram::Synth(_), Kernel::Trace(_)) => Instr::exit(0),
        }
    }

    /// The SASS opcode of the instruction fetched last, for trace programs.
    pub fn opcode(&self) -> Option<&str> {
        match self {
            WarpProgram::Trace(c) => c.opcode(),
            WarpProgram::Synth(_) => None,
        }
    }
}

impl Workload {
    /// Loads a workload file: a synthetic workload (RON), an Accel-Sim `kernelslist.g`, or
    /// one `kernel-N.traceg`.
    pub fn load(path: &Path, sim_seed: u64) -> Result<Workload, ConfigError> {
        if let Some(kind) = accelsim::kind_of(path) {
            return Workload::load_trace(path, kind);
        }
        let origin = Origin::File(path.display().to_string());
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: origin.clone(),
            position: None,
            key: String::new(),
            message: format!("cannot read: {e}"),
        })?;
        Workload::from_text(&text, &origin, sim_seed)
    }

    /// Loads and validates an Accel-Sim trace.
    pub fn load_trace(path: &Path, kind: TraceFileKind) -> Result<Workload, ConfigError> {
        let kernels = match kind {
            TraceFileKind::List => accelsim::load_list(path)?,
            TraceFileKind::Kernel => {
                vec![TraceKernel::load(TraceSource::File(path.to_path_buf()), &path.display().to_string())?]
            }
        };
        Ok(Workload::from_trace_kernels(accelsim::workload_name(path, kind), kernels))
    }

    fn from_trace_kernels(name: String, kernels: Vec<TraceKernel>) -> Workload {
        let instructions: u64 = kernels.iter().map(|k| k.instructions).sum();
        Workload {
            name,
            description: format!(
                "Accel-Sim trace: {} kernel{}, {instructions} warp instructions",
                kernels.len(),
                if kernels.len() == 1 { "" } else { "s" }
            ),
            kernels: kernels.into_iter().map(Kernel::Trace).collect(),
        }
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
