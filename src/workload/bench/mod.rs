//! Benchmark kernels: the seeds' real benchmarks run functionally, so every warp produces the
//! per-lane addresses and active masks the CUDA kernel would (issue 12).
//!
//! A benchmark is selected by name (`-w atax`) or by a small RON file
//! (`(benchmark: "atax", sizes: {"nx": 8192})`); its size knobs default to the sizes of
//! seed 004 Table 3.2 and are overridden with `--set workload.KNOB=N`. Each benchmark lives in
//! its own file, whose doc comment names the source kernel and what is approximated.

pub mod atax;
pub mod backprop;
pub mod bfs;
pub mod bicg;
pub mod conv3d;
pub mod gemm;
pub mod gesummv;
pub mod graph;
pub mod hotspot;
pub mod kmeans;
pub mod mm2;
pub mod mm3;
pub mod mvt;
pub mod nest;
pub mod nw;
pub mod progress;
pub mod ptxas;
pub mod spmv;
pub mod sssp;
pub mod streamcluster;
pub mod syr2k;
pub mod syrk;

use super::synth::{ARRAY_ALIGN, ARRAY_SPACE, ArrayInfo};
use super::{Kernel, Workload};
use crate::config::{ConfigError, Origin, error_at_path};
use nest::NestKernel;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A size knob of a benchmark.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    /// The smallest and largest values the kernel accepts, and what they must be a multiple of.
    pub multiple: u32,
    pub min: u32,
    pub max: u32,
    pub name: &'static str,
    pub default: u32,
    pub about: &'static str,
}

/// Largest value of a matrix dimension: a 65536² float matrix (16 GiB) is the most a kernel
/// addresses, and `gridDim.y` stays below CUDA's 65535.
pub const MAX_SIZE: u32 = 65536;

/// A benchmark: its name, knobs and how its kernels are built from the sizes.
pub struct Bench {
    pub name: &'static str,
    pub about: &'static str,
    pub knobs: &'static [Knob],
    build: fn(&Sizes) -> Vec<Kernel>,
    /// What bounds the time to generate its input, where the knobs' ranges alone do not.
    pub input_limit: Option<InputLimit>,
}

/// The work of generating a benchmark's input, bounded by [`MAX_INPUT_STEPS`] (issue 37.2: at
/// its largest knobs Streamcluster's input would take days).
#[derive(Clone, Copy, Debug)]
pub struct InputLimit {
    /// The steps the sizes take.
    pub steps: fn(&Sizes) -> u64,
    /// How they are counted, in the knobs' names.
    pub formula: &'static str,
}

/// The most steps of input generation a benchmark may take: 2^37, a few minutes on one core
/// (a coordinate difference of Streamcluster's takes about 2 ns; its default sizes take 1.5
/// billion).
pub const MAX_INPUT_STEPS: u64 = 1 << 37;

/// The benchmarks, by name.
pub const BENCHMARKS: &[Bench] = &[
    atax::BENCH,
    bicg::BENCH,
    mvt::BENCH,
    gesummv::BENCH,
    syrk::BENCH,
    syr2k::BENCH,
    gemm::BENCH,
    mm2::BENCH,
    mm3::BENCH,
    conv3d::BENCH,
    bfs::BENCH,
    spmv::BENCH,
    sssp::BENCH,
    kmeans::BENCH,
    hotspot::BENCH,
    nw::BENCH,
    backprop::BENCH,
    streamcluster::BENCH,
];

/// Knob values of one run.
#[derive(Clone, Debug, Default)]
pub struct Sizes(BTreeMap<&'static str, u32>);

impl Sizes {
    /// The value of knob `name` (every knob has one: defaults are filled in).
    pub fn get(&self, name: &str) -> u32 {
        *self.0.get(name).unwrap_or_else(|| panic!("knob {name} is declared by its benchmark"))
    }
}

/// Lays arrays out from [`ARRAY_SPACE`] on, each aligned to [`ARRAY_ALIGN`], as `cudaMalloc`
/// would.
#[derive(Default)]
pub struct Memory {
    arrays: Vec<ArrayInfo>,
    next: u64,
}

impl Memory {
    /// Allocates `elems` 4-byte floats; returns the array's index.
    pub fn floats(&mut self, name: &str, elems: u64) -> usize {
        self.alloc(name, elems, 4)
    }

    /// Allocates `elems` elements of `elem_bytes` bytes each; returns the array's index.
    pub fn alloc(&mut self, name: &str, elems: u64, elem_bytes: u64) -> usize {
        let base = if self.arrays.is_empty() { ARRAY_SPACE } else { self.next };
        self.next = (base + elems * elem_bytes).div_ceil(ARRAY_ALIGN) * ARRAY_ALIGN;
        self.arrays.push(ArrayInfo { name: name.into(), base, elem_bytes, elems });
        self.arrays.len() - 1
    }

    pub fn arrays(&self) -> &[ArrayInfo] {
        &self.arrays
    }
}

/// The kernels of a benchmark made of loop nests, as workload kernels.
pub fn nests(kernels: Vec<NestKernel>) -> Vec<Kernel> {
    kernels.into_iter().map(Kernel::Nest).collect()
}

/// CTAs covering `n` threads with `per` threads each.
pub fn ctas_for(n: u32, per: u32) -> u32 {
    n.div_ceil(per)
}

/// The benchmark called `name`.
pub fn find(name: &str) -> Option<&'static Bench> {
    BENCHMARKS.iter().find(|b| b.name == name)
}

/// The benchmarks' names, for "valid names" messages.
pub fn names() -> String {
    BENCHMARKS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

/// A benchmark file: `(benchmark: "atax", sizes: {"nx": 4096})`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BenchFile {
    benchmark: String,
    #[serde(default)]
    sizes: BTreeMap<String, u64>,
}

/// Whether workload text is a benchmark file (it has a `benchmark` key).
pub fn is_bench_file(text: &str) -> bool {
    crate::config::locate::locate(text, &[crate::config::locate::Segment::Field("benchmark".into())])
        .is_some()
}

/// Loads a benchmark file and applies `sets` (`workload.KNOB=N`) on top of its sizes.
pub fn from_text(text: &str, origin: &Origin, sets: &[String]) -> Result<Workload, ConfigError> {
    let f: BenchFile = crate::config::parse_ron(text, origin)?;
    let Some(bench) = find(&f.benchmark) else {
        return Err(error_at_path(
            text,
            origin,
            "benchmark",
            &format!("\"{}\" is not a benchmark; valid: {}", f.benchmark, names()),
        ));
    };
    let mut sizes = defaults(bench);
    for (k, &v) in &f.sizes {
        set_knob(bench, &mut sizes, k, v)
            .map_err(|m| error_at_path(text, origin, &format!("sizes.{k}"), &m))?;
    }
    build(bench, sizes, sets)
}

/// The benchmark `name` at its default sizes with `sets` applied.
pub fn by_name(bench: &'static Bench, sets: &[String]) -> Result<Workload, ConfigError> {
    build(bench, defaults(bench), sets)
}

fn defaults(bench: &Bench) -> Sizes {
    Sizes(bench.knobs.iter().map(|k| (k.name, k.default)).collect())
}

/// Checks one knob value; the message says what is valid.
fn set_knob(bench: &Bench, sizes: &mut Sizes, key: &str, value: u64) -> Result<(), String> {
    let Some(knob) = bench.knobs.iter().find(|k| k.name == key) else {
        let valid: Vec<&str> = bench.knobs.iter().map(|k| k.name).collect();
        return Err(format!("`{key}` is not a size of {}; valid: {}", bench.name, valid.join(", ")));
    };
    if value < u64::from(knob.min) || value > u64::from(knob.max) {
        return Err(format!(
            "= {value}: {} ({}) must be between {} and {}",
            knob.name, knob.about, knob.min, knob.max
        ));
    }
    if !value.is_multiple_of(u64::from(knob.multiple)) {
        return Err(format!(
            "= {value}: {} ({}) must be a multiple of {}",
            knob.name, knob.about, knob.multiple
        ));
    }
    sizes.0.insert(knob.name, value as u32);
    Ok(())
}

/// Refuses sizes whose input would take more than [`MAX_INPUT_STEPS`] to generate.
fn check_input_limit(bench: &Bench, sizes: &Sizes, name: &str) -> Result<(), ConfigError> {
    let Some(limit) = bench.input_limit else { return Ok(()) };
    let steps = (limit.steps)(sizes);
    if steps <= MAX_INPUT_STEPS {
        return Ok(());
    }
    Err(ConfigError::argument(
        name,
        format!(
            "generating its input takes {} = {steps:.3e}, more than the 2^{} = {:.3e} (a few minutes) warpscope allows; make one of them smaller",
            limit.formula,
            MAX_INPUT_STEPS.trailing_zeros(),
            MAX_INPUT_STEPS as f64,
            steps = steps as f64
        ),
    ))
}

fn build(bench: &'static Bench, mut sizes: Sizes, sets: &[String]) -> Result<Workload, ConfigError> {
    for arg in sets {
        let err = |key: &str, message: String| ConfigError {
            origin: Origin::Override(arg.clone()),
            position: None,
            key: key.into(),
            message,
        };
        let (key, value) = arg.split_once('=').ok_or_else(|| err("", "expected workload.KNOB=N".into()))?;
        let key = key.trim();
        let knob = key.strip_prefix("workload.").unwrap_or(key);
        let value: u64 = value
            .trim()
            .parse()
            .map_err(|_| err(key, format!("`{}` is not a whole number", value.trim())))?;
        set_knob(bench, &mut sizes, knob, value).map_err(|m| err(key, m))?;
    }
    let shown: Vec<String> =
        bench.knobs.iter().map(|k| format!("{}={}", k.name, sizes.get(k.name))).collect();
    let name = format!("{} ({})", bench.name, shown.join(", "));
    check_input_limit(bench, &sizes, &name)?;
    let kernels = (bench.build)(&sizes);
    progress::end();
    Ok(Workload { name, description: bench.about.into(), kernels })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streamcluster's input is bounded at 2^37 coordinate differences: 2^22 points of 2^10
    /// coordinates against 30 centres and 2 candidates is exactly that, one more centre is not.
    #[test]
    fn streamcluster_sizes_whose_input_takes_too_long_are_refused() {
        let sc = find("streamcluster").unwrap();
        let mut sizes = defaults(sc);
        for (k, v) in [("points", 1 << 22), ("dim", 1024), ("centres", 30), ("launches", 2)] {
            set_knob(sc, &mut sizes, k, v).unwrap();
        }
        assert_eq!(check_input_limit(sc, &sizes, "sc"), Ok(()));
        set_knob(sc, &mut sizes, "centres", 31).unwrap();
        let e = check_input_limit(sc, &sizes, "sc").unwrap_err().to_string();
        assert_eq!(
            e,
            "sc: generating its input takes points × dim × (centres + launches) coordinate differences = 1.417e11, more than the 2^37 = 1.374e11 (a few minutes) warpscope allows; make one of them smaller"
        );
        // The defaults are far inside it.
        assert_eq!(check_input_limit(sc, &defaults(sc), "sc"), Ok(()));
    }
}
