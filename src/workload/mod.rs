//! Workloads: kernels to run and, per warp, a cursor producing its instructions.
//!
//! A workload is immutable and shared (behind an `Arc`) by every warp; each warp owns only its
//! [`WarpProgram`] cursor, so snapshots stay small and replay is exact. Kernels are synthetic
//! (RON, [`synth`]) or Accel-Sim SASS traces ([`accelsim`]), whose CTAs are read from their
//! files as they launch.

pub mod accelsim;
pub mod bench;
pub mod hash;
pub mod instr;
pub mod synth;

use crate::config::{ConfigError, Origin, parse_ron, read_file};
use accelsim::{TraceCursor, TraceFileKind, TraceKernel, TraceSource};
use bench::bfs::{BfsCursor, BfsKernel};
use bench::nest::{NestCursor, NestKernel};
use bench::spmv::{SpmvCursor, SpmvKernel};
use bench::sssp::{SsspCursor, SsspKernel};
use instr::{Instr, LaneAddrs};
use std::path::Path;
use synth::{SynthCursor, SynthKernel, SynthWorkloadSpec};

/// The built-in irregular workload (BFS-like), embedded in the binary.
pub const BUILTIN_WORKLOAD: &str = include_str!("../../sample-configs/workloads/bfs.ron");
pub const BUILTIN_WORKLOAD_NAME: &str = "sample-configs/workloads/bfs.ron (built-in)";

/// Kernels run in order.
#[derive(Clone, Debug, PartialEq, Default)]
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
    /// A benchmark kernel ([`bench`]).
    Nest(NestKernel),
    /// A launch of Rodinia BFS ([`bench::bfs`]).
    Bfs(BfsKernel),
    /// A launch of SHOC SpMV ([`bench::spmv`]).
    Spmv(SpmvKernel),
    /// A launch of LonestarGPU SSSP ([`bench::sssp`]).
    Sssp(SsspKernel),
}

/// A warp's instruction source.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WarpProgram {
    Synth(SynthCursor),
    Trace(TraceCursor),
    Nest(NestCursor),
    Bfs(BfsCursor),
    Spmv(SpmvCursor),
    Sssp(SsspCursor),
}

impl WarpProgram {
    /// Gives a program read from a checkpoint what it shares with `workload` (a trace cursor's
    /// instructions); the other cursors are whole already.
    pub fn reattach(&mut self, workload: &Workload) -> Result<(), String> {
        let WarpProgram::Trace(cursor) = self else {
            return Ok(());
        };
        cursor.reattach(workload.kernels.iter().filter_map(|k| match k {
            Kernel::Trace(t) => Some(t),
            _ => None,
        }))
    }
}

impl Kernel {
    pub fn name(&self) -> &str {
        match self {
            Kernel::Synth(k) => &k.name,
            Kernel::Trace(k) => &k.header.name,
            Kernel::Nest(k) => &k.name,
            Kernel::Bfs(k) => &k.name,
            Kernel::Spmv(k) => &k.name,
            Kernel::Sssp(k) => &k.name,
        }
    }

    pub fn ctas(&self) -> u32 {
        match self {
            Kernel::Synth(k) => k.ctas,
            Kernel::Trace(k) => k.ctas(),
            Kernel::Nest(k) => k.ctas(),
            Kernel::Bfs(k) => k.ctas(),
            Kernel::Spmv(k) => k.ctas(),
            Kernel::Sssp(k) => k.ctas(),
        }
    }

    pub fn threads_per_cta(&self) -> u32 {
        match self {
            Kernel::Synth(k) => k.threads_per_cta,
            Kernel::Trace(k) => k.header.threads_per_cta(),
            Kernel::Nest(k) => k.threads_per_cta(),
            Kernel::Bfs(k) => k.threads_per_cta(),
            Kernel::Spmv(k) => k.threads_per_cta(),
            Kernel::Sssp(k) => k.threads_per_cta(),
        }
    }

    pub fn warps_per_cta(&self) -> u32 {
        self.threads_per_cta().div_ceil(32)
    }

    /// Shared memory a CTA declares, bytes: a trace's `-shmem`; a benchmark kernel's
    /// `__shared__` arrays as its CUDA source declares them (each benchmark's module names
    /// them); none for a synthetic kernel, whose shared accesses have a fixed latency and no
    /// declared size. It sizes an adaptive L1, in warpscope as in the exported trace's
    /// `-shmem`.
    pub fn shared_bytes_per_cta(&self) -> u32 {
        match self {
            Kernel::Trace(k) => k.header.shmem,
            Kernel::Nest(k) => k.shared_bytes,
            Kernel::Spmv(k) => k.shared_bytes(),
            Kernel::Synth(_) | Kernel::Bfs(_) | Kernel::Sssp(_) => 0,
        }
    }

    /// Registers per thread, as the `-nregs` of a trace: a trace's own (0 when its header
    /// has none); for a benchmark kernel, those nvcc gives its CUDA source
    /// ([`bench::ptxas::registers`]), which its occupancy depends on as on the GPU; for a
    /// synthetic kernel, which has no source to compile, the registers its warp program names —
    /// the highest register number plus one over the kernel's instructions, a 64- or 128-bit
    /// destination counting its pair or quad ([`Instr::register_span`]), worked out once per
    /// kernel from its program, not by running it.
    pub fn registers_per_thread(&self) -> u32 {
        let program = match self {
            Kernel::Synth(k) => return k.registers(),
            Kernel::Trace(k) => return k.header.nregs.unwrap_or(0),
            Kernel::Nest(k) => k.registers(),
            Kernel::Bfs(k) => k.registers(),
            Kernel::Spmv(k) => k.registers(),
            Kernel::Sssp(k) => k.registers(),
        };
        bench::ptxas::registers(self.name()).unwrap_or(program)
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
            Kernel::Nest(k) => {
                (0..self.warps_per_cta()).map(|w| WarpProgram::Nest(k.cursor(cta, w))).collect()
            }
            Kernel::Bfs(k) => (0..self.warps_per_cta()).map(|w| WarpProgram::Bfs(k.cursor(cta, w))).collect(),
            Kernel::Spmv(k) => {
                (0..self.warps_per_cta()).map(|w| WarpProgram::Spmv(k.cursor(cta, w))).collect()
            }
            Kernel::Sssp(k) => {
                (0..self.warps_per_cta()).map(|w| WarpProgram::Sssp(k.cursor(cta, w))).collect()
            }
        })
    }

    /// A program for warp slots before any CTA arrives.
    pub fn placeholder_program(&self) -> WarpProgram {
        match self {
            Kernel::Synth(k) => WarpProgram::Synth(k.cursor(0, 0)),
            Kernel::Trace(_) => WarpProgram::Trace(TraceCursor::idle()),
            Kernel::Nest(k) => WarpProgram::Nest(k.cursor(0, 0)),
            Kernel::Bfs(k) => WarpProgram::Bfs(k.cursor(0, 0)),
            Kernel::Spmv(k) => WarpProgram::Spmv(k.cursor(0, 0)),
            Kernel::Sssp(k) => WarpProgram::Sssp(k.cursor(0, 0)),
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
            (WarpProgram::Nest(c), Kernel::Nest(k)) => c.fetch(k, addrs),
            (WarpProgram::Bfs(c), Kernel::Bfs(k)) => c.fetch(k, addrs),
            (WarpProgram::Spmv(c), Kernel::Spmv(k)) => c.fetch(k, addrs),
            (WarpProgram::Sssp(c), Kernel::Sssp(k)) => c.fetch(k, addrs),
            // A warp slot left over from a kernel of another kind.
            (
                WarpProgram::Synth(_)
                | WarpProgram::Nest(_)
                | WarpProgram::Bfs(_)
                | WarpProgram::Spmv(_)
                | WarpProgram::Sssp(_),
                _,
            ) => Instr::exit(0, 0),
        }
    }

    /// The SASS opcode of the instruction fetched last, for trace programs, or its name in
    /// the source kernel, for benchmark programs.
    pub fn opcode(&self) -> Option<&str> {
        match self {
            WarpProgram::Trace(c) => c.opcode(),
            WarpProgram::Nest(c) => Some(c.name()),
            WarpProgram::Bfs(c) => Some(c.name()),
            WarpProgram::Spmv(c) => Some(c.name()),
            WarpProgram::Sssp(c) => Some(c.name()),
            WarpProgram::Synth(_) => None,
        }
    }
}

impl Workload {
    /// Loads a workload file: a synthetic workload or a benchmark file (RON), an Accel-Sim
    /// `kernelslist.g`, or one `kernel-N.traceg`.
    pub fn load(path: &Path, sim_seed: u64) -> Result<Workload, ConfigError> {
        Workload::load_sized(path, &[], sim_seed)
    }

    /// Like [`Workload::load`], with `workload.KNOB=N` size overrides for a benchmark file.
    fn load_sized(path: &Path, sizes: &[String], sim_seed: u64) -> Result<Workload, ConfigError> {
        let origin = Origin::File(path.display().to_string());
        // An Accel-Sim trace directory stands for its kernel list.
        if path.is_dir() {
            let list = path.join("kernelslist.g");
            if list.is_file() {
                return Workload::load_sized(&list, sizes, sim_seed);
            }
            return Err(ConfigError {
                origin,
                position: None,
                key: String::new(),
                message: "is a directory without a kernelslist.g: give a workload file (.ron), an Accel-Sim \
                          kernelslist.g or kernel-N.traceg, or a trace directory holding a kernelslist.g"
                    .into(),
            });
        }
        if let Some(kind) = accelsim::kind_of(path) {
            no_sizes(&origin, sizes)?;
            return Workload::load_trace(path, kind);
        }
        Workload::from_file_text(&read_file(path)?, &origin, sizes, sim_seed)
    }

    /// Reads the text of a workload file (RON) of either kind: a benchmark file (`benchmark:
    /// "atax"`), sized by `sizes` (`workload.KNOB=N`), or a synthetic workload.
    pub fn from_file_text(
        text: &str,
        origin: &Origin,
        sizes: &[String],
        sim_seed: u64,
    ) -> Result<Workload, ConfigError> {
        if bench::is_bench_file(text) {
            return bench::from_text(text, origin, sizes);
        }
        no_sizes(origin, sizes)?;
        Workload::from_text(text, origin, sim_seed)
    }

    /// Resolves `-w`: a workload file, a benchmark name (`atax`), or the built-in workload when
    /// `None`. `sizes` are `workload.KNOB=N` overrides, valid for benchmarks only.
    pub fn resolve(arg: Option<&Path>, sizes: &[String], sim_seed: u64) -> Result<Workload, ConfigError> {
        let Some(path) = arg else {
            no_sizes(&Origin::File(BUILTIN_WORKLOAD_NAME.into()), sizes)?;
            return Workload::load_or_builtin(None, sim_seed);
        };
        // A word with a directory or an extension is a path; a bare word that names a benchmark
        // is that benchmark, unless a file or directory here has the same name, which is an
        // error naming both; any other bare word is a path.
        let name = path.to_str().unwrap_or_default();
        let bare = !name.contains(['/', '\\', '.']);
        if bare && path.exists() && bench::find(name).is_some() {
            let kind = if path.is_dir() { "directory" } else { "file" };
            return Err(ConfigError {
                origin: Origin::File(path.display().to_string()),
                position: None,
                key: String::new(),
                message: format!(
                    "`{name}` is both the benchmark {name} and a {kind} here; write `./{name}` for the {kind}, or run the benchmark where nothing is called `{name}`"
                ),
            });
        }
        if path.exists() || !bare {
            return Workload::load_sized(path, sizes, sim_seed);
        }
        match bench::find(name) {
            Some(b) => bench::by_name(b, sizes),
            None => Err(ConfigError {
                origin: Origin::File(path.display().to_string()),
                position: None,
                key: String::new(),
                message: format!(
                    "no such workload file, and not a benchmark name; benchmarks: {}",
                    bench::names()
                ),
            }),
        }
    }

    /// Loads and validates an Accel-Sim trace.
    pub fn load_trace(path: &Path, kind: TraceFileKind) -> Result<Workload, ConfigError> {
        Workload::load_trace_keeping(path, kind, accelsim::KEEP_DECODED_BYTES)
    }

    /// [`Workload::load_trace`] keeping at most `budget` bytes of decoded thread blocks (0:
    /// every CTA is read from its file again when it launches).
    pub fn load_trace_keeping(
        path: &Path,
        kind: TraceFileKind,
        budget: usize,
    ) -> Result<Workload, ConfigError> {
        let kernels = match kind {
            TraceFileKind::List => accelsim::load_list(path, budget)?,
            TraceFileKind::Kernel => {
                let name = path.display().to_string();
                vec![TraceKernel::load_keeping(TraceSource::File(path.to_path_buf()), &name, budget)?]
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

/// Refuses `workload.*` size overrides for a workload without size knobs.
fn no_sizes(origin: &Origin, sizes: &[String]) -> Result<(), ConfigError> {
    match sizes.first() {
        None => Ok(()),
        Some(arg) => Err(ConfigError {
            origin: Origin::Override(arg.clone()),
            position: None,
            key: arg.split('=').next().unwrap_or_default().to_string(),
            message: format!(
                "sizes apply to benchmark workloads ({}); {} has none",
                bench::names(),
                match origin {
                    Origin::File(f) | Origin::Override(f) | Origin::Argument(f) => f,
                }
            ),
        }),
    }
}
