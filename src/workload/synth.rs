//! Synthetic kernels described in RON (`sample-configs/workloads/*.ron`).
//!
//! A kernel is a grid of CTAs running one small program per warp, built from memory-access
//! patterns researchers reason about: coalesced streaming (`A[tid]`), column-major strides
//! (`A[tid*STRIDE+off]`), seeded random gathers, CSR graph traversal (row offsets, then the
//! neighbours of each node, with per-lane trip counts that diverge), uniform broadcasts, plus
//! ALU gaps, stores, loops, lane-divergent `If`s and barriers.
//!
//! The program is compiled once into flat code with jump targets; each warp keeps only a
//! [`SynthCursor`] (code index, loop frames, active mask), and addresses are computed when an
//! instruction is fetched. Random choices hash the seed with the thread, instruction and
//! iteration, so nothing per-warp is pre-expanded and a snapshot is a clone of the cursor.

use super::hash::{hash, mix, unit};
use super::instr::{Instr, LaneAddrs, NO_REG, Op, Space, warp_threads};
use crate::config::error_at_path;
use crate::config::{ConfigError, Origin};
use serde::{Deserialize, Serialize};

/// Deepest nesting of `Loop`/`If`/`ForEachNeighbor`.
pub const MAX_DEPTH: usize = 4;

/// A workload file: one or more kernels run in order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SynthWorkloadSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Mixed with `sim.seed` for every random choice.
    #[serde(default)]
    pub seed: u64,
    pub kernels: Vec<KernelSpec>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    pub name: String,
    /// CTAs in the grid.
    pub ctas: u32,
    pub threads_per_cta: u32,
    #[serde(default)]
    pub arrays: Vec<ArraySpec>,
    /// The graph CSR patterns walk.
    #[serde(default)]
    pub graph: Option<GraphSpec>,
    pub program: Vec<OpSpec>,
}

/// A data array. Bases are assigned in order, 1 MiB aligned, unless given.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArraySpec {
    pub name: String,
    #[serde(default = "four")]
    pub elem_bytes: u32,
    pub elems: u64,
    #[serde(default)]
    pub base: Option<u64>,
}

/// A seeded random graph in CSR form, generated on the fly: node n has a degree drawn
/// uniformly from [min_degree, max_degree]; its edges sit at `col[n*avg + j]`; each neighbour
/// is, with probability `locality`, within `locality_span` nodes of n, else anywhere.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    pub nodes: u64,
    pub min_degree: u32,
    pub max_degree: u32,
    #[serde(default)]
    pub locality: f64,
    #[serde(default = "default_span")]
    pub locality_span: u64,
}

/// One step of a warp program.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum OpSpec {
    /// `count` ALU instructions reading `srcs` (and writing `dst`, if given).
    Alu {
        #[serde(default = "one")]
        count: u32,
        #[serde(default)]
        srcs: Vec<u8>,
        #[serde(default = "no_reg")]
        dst: u8,
    },
    /// A load into register `dst`; `srcs` are the registers its address depends on.
    Load {
        array: String,
        pattern: Pattern,
        dst: u8,
        #[serde(default)]
        srcs: Vec<u8>,
        #[serde(default = "four_u8")]
        width: u8,
        #[serde(default)]
        space: Space,
    },
    /// A store of `srcs` (its data and address registers).
    Store {
        array: String,
        pattern: Pattern,
        #[serde(default)]
        srcs: Vec<u8>,
        #[serde(default = "four_u8")]
        width: u8,
        #[serde(default)]
        space: Space,
    },
    /// Repeat `body` `times` times; patterns see the iteration number.
    Loop { times: u32, body: Vec<OpSpec> },
    /// Each lane walks the neighbours of its node (CSR); lanes drop out as their degree runs
    /// out, so the trip count diverges within the warp.
    ForEachNeighbor { body: Vec<OpSpec> },
    /// Only a seeded `fraction` of the lanes run `body` (branch divergence); skipped when no
    /// lane does.
    If { fraction: f64, body: Vec<OpSpec> },
    /// CTA-wide barrier.
    Barrier,
}

/// How a memory instruction's lanes pick elements. `t` is the global thread id, `i` the
/// iteration of the innermost `Loop`, `j` the neighbour index of the innermost
/// `ForEachNeighbor`, node = t mod graph.nodes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Pattern {
    /// `A[t + i·threads]`: one line per 32 lanes of 4 bytes (grid-stride loop).
    Coalesced,
    /// `A[t·stride + offset + i·elem]` in bytes: column-major access, one line per lane for
    /// large strides.
    Strided {
        stride_bytes: u64,
        #[serde(default)]
        offset_bytes: u64,
    },
    /// A seeded random element per lane (gather/scatter).
    Random,
    /// The same element for every lane (`A[i]`): a broadcast.
    Uniform,
    /// The CSR edge slot of the lane's node: `col[node·avg_degree + j]`.
    CsrEdge,
    /// The lane's current neighbour: `A[neighbour(node, j)]`.
    CsrNeighbor,
    /// The lane's node: `A[node]`.
    CsrNode,
}

fn one() -> u32 {
    1
}
fn four() -> u32 {
    4
}
fn four_u8() -> u8 {
    4
}
fn no_reg() -> u8 {
    NO_REG
}
fn default_span() -> u64 {
    256
}

/// A resolved array.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayInfo {
    pub name: String,
    pub base: u64,
    pub elem_bytes: u64,
    pub elems: u64,
}

/// Compiled program step.
#[derive(Clone, Debug, PartialEq)]
enum Code {
    Alu { count: u32, srcs: [u8; 4], dst: u8 },
    Mem { load: bool, array: u16, pattern: Pattern, reg: u8, srcs: [u8; 4], width: u8, space: Space },
    LoopBegin { times: u32, end: u16 },
    LoopEnd { begin: u16 },
    IfBegin { fraction: f64, end: u16 },
    IfEnd,
    NeighborBegin { end: u16 },
    NeighborEnd { begin: u16 },
    Barrier,
}

/// A compiled synthetic kernel (immutable; shared by all warps).
#[derive(Clone, Debug, PartialEq)]
pub struct SynthKernel {
    pub name: String,
    pub ctas: u32,
    pub threads_per_cta: u32,
    pub arrays: Vec<ArrayInfo>,
    pub graph: Option<GraphSpec>,
    code: Vec<Code>,
    seed: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
enum FrameKind {
    #[default]
    Loop,
    If,
    Neighbor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
struct Frame {
    kind: FrameKind,
    iter: u32,
    limit: u32,
    saved_mask: u32,
}

/// A warp's position in a synthetic program: all of its program state.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SynthCursor {
    pc: u16,
    alu_left: u32,
    depth: u8,
    frames: [Frame; MAX_DEPTH],
    mask: u32,
    /// Global thread id of lane 0.
    first_thread: u64,
}

impl SynthKernel {
    /// A cursor at the start of the program for one warp.
    pub fn cursor(&self, cta: u32, warp_in_cta: u32) -> SynthCursor {
        let first_in_cta = warp_in_cta * 32;
        SynthCursor {
            pc: 0,
            alu_left: 0,
            depth: 0,
            frames: [Frame::default(); MAX_DEPTH],
            mask: warp_threads(self.threads_per_cta, warp_in_cta),
            first_thread: u64::from(cta) * u64::from(self.threads_per_cta) + u64::from(first_in_cta),
        }
    }

    /// Registers per thread its program names: one more than the highest destination (a
    /// load's `width / 4` registers counted whole) or source of any step (see
    /// [`crate::workload::Kernel::registers_per_thread`]).
    pub fn registers(&self) -> u32 {
        let span = |dst: u8, dst_regs: u8, srcs: [u8; 4]| {
            Instr { pc: 0, op: Op::Alu, dst, dst_regs, srcs, mask: 0 }.register_span()
        };
        self.code
            .iter()
            .map(|c| match c {
                Code::Alu { srcs, dst, .. } => span(*dst, 1, *srcs),
                Code::Mem { load: true, reg, srcs, width, .. } => span(*reg, width.div_ceil(4).max(1), *srcs),
                Code::Mem { load: false, srcs, .. } => span(NO_REG, 1, *srcs),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// Total threads of the grid.
    fn grid_threads(&self) -> u64 {
        u64::from(self.ctas) * u64::from(self.threads_per_cta)
    }

    fn node(&self, t: u64) -> u64 {
        self.graph.as_ref().map_or(t, |g| t % g.nodes)
    }

    fn degree(&self, node: u64) -> u32 {
        let g = self.graph.as_ref().expect("validated: CSR patterns need a graph");
        let span = u64::from(g.max_degree - g.min_degree) + 1;
        g.min_degree + (hash(self.seed, &[0xde9, node]) % span) as u32
    }

    fn neighbour(&self, node: u64, j: u32) -> u64 {
        let g = self.graph.as_ref().expect("validated: CSR patterns need a graph");
        let h = hash(self.seed, &[0x9e1, node, u64::from(j)]);
        if unit(h) < g.locality {
            let off = mix(h) % (2 * g.locality_span + 1);
            (node + g.nodes + off - g.locality_span) % g.nodes
        } else {
            mix(h ^ 0x5a5a) % g.nodes
        }
    }

    fn avg_degree(&self) -> u64 {
        self.graph.as_ref().map_or(1, |g| u64::from(g.min_degree + g.max_degree).div_ceil(2))
    }
}

impl SynthCursor {
    /// Produces the next instruction, writing per-lane addresses for memory instructions.
    pub fn fetch(&mut self, k: &SynthKernel, addrs: &mut LaneAddrs) -> Instr {
        loop {
            let idx = self.pc as usize;
            let pc = (idx as u32) * 16;
            let Some(code) = k.code.get(idx) else {
                // Every `If` and loop has closed: the mask is the warp's threads again.
                return Instr::exit(pc, self.mask);
            };
            match code {
                Code::Alu { count, srcs, dst } => {
                    if self.alu_left == 0 {
                        self.alu_left = *count;
                    }
                    self.alu_left -= 1;
                    if self.alu_left == 0 {
                        self.pc += 1;
                    }
                    return Instr { pc, op: Op::Alu, dst: *dst, dst_regs: 1, srcs: *srcs, mask: self.mask };
                }
                Code::Mem { load, array, pattern, reg, srcs, width, space } => {
                    self.addresses(k, idx, *array, pattern, addrs);
                    self.pc += 1;
                    let (op, dst, srcs) = if *load {
                        (Op::Load { space: *space, width: *width }, *reg, *srcs)
                    } else {
                        (Op::Store { space: *space, width: *width }, NO_REG, *srcs)
                    };
                    // A load writes width/4 registers, as in SASS (`LDG.E.64` a pair).
                    let dst_regs = if *load { width.div_ceil(4).max(1) } else { 1 };
                    return Instr { pc, op, dst, dst_regs, srcs, mask: self.mask };
                }
                Code::Barrier => {
                    self.pc += 1;
                    return Instr {
                        pc,
                        op: Op::Barrier,
                        dst: NO_REG,
                        dst_regs: 1,
                        srcs: [NO_REG; 4],
                        mask: self.mask,
                    };
                }
                Code::LoopBegin { times, end } => {
                    if *times == 0 {
                        self.pc = end + 1;
                    } else {
                        self.push(Frame {
                            kind: FrameKind::Loop,
                            iter: 0,
                            limit: *times,
                            saved_mask: self.mask,
                        });
                        self.pc += 1;
                    }
                }
                Code::LoopEnd { begin } => {
                    let f = &mut self.frames[self.depth as usize - 1];
                    f.iter += 1;
                    if f.iter < f.limit {
                        self.pc = begin + 1;
                    } else {
                        self.pop();
                        self.pc += 1;
                    }
                }
                Code::IfBegin { fraction, end } => {
                    let i = self.innermost(FrameKind::Loop);
                    let mut taken = 0u32;
                    for lane in lanes(self.mask) {
                        let t = self.first_thread + u64::from(lane);
                        if unit(hash(k.seed, &[0x1f, t, idx as u64, u64::from(i)])) < *fraction {
                            taken |= 1 << lane;
                        }
                    }
                    if taken == 0 {
                        self.pc = end + 1;
                    } else {
                        self.push(Frame { kind: FrameKind::If, iter: 0, limit: 0, saved_mask: self.mask });
                        self.mask = taken;
                        self.pc += 1;
                    }
                }
                Code::IfEnd => {
                    self.mask = self.pop().saved_mask;
                    self.pc += 1;
                }
                Code::NeighborBegin { end } => {
                    let limit = lanes(self.mask)
                        .map(|l| k.degree(k.node(self.first_thread + u64::from(l))))
                        .max()
                        .unwrap_or(0);
                    if limit == 0 {
                        self.pc = end + 1;
                    } else {
                        self.push(Frame { kind: FrameKind::Neighbor, iter: 0, limit, saved_mask: self.mask });
                        self.mask = self.neighbour_mask(k, 0);
                        self.pc += 1;
                    }
                }
                Code::NeighborEnd { begin } => {
                    let f = &mut self.frames[self.depth as usize - 1];
                    f.iter += 1;
                    if f.iter < f.limit {
                        let j = f.iter;
                        self.mask = self.neighbour_mask(k, j);
                        self.pc = begin + 1;
                    } else {
                        self.mask = self.pop().saved_mask;
                        self.pc += 1;
                    }
                }
            }
        }
    }

    /// Lanes of the enclosing mask whose node still has a neighbour `j`.
    fn neighbour_mask(&self, k: &SynthKernel, j: u32) -> u32 {
        let saved = self.frames[self.depth as usize - 1].saved_mask;
        lanes(saved)
            .filter(|&l| k.degree(k.node(self.first_thread + u64::from(l))) > j)
            .fold(0, |m, l| m | (1 << l))
    }

    fn push(&mut self, f: Frame) {
        self.frames[self.depth as usize] = f;
        self.depth += 1;
    }

    fn pop(&mut self) -> Frame {
        self.depth -= 1;
        self.frames[self.depth as usize]
    }

    /// Iteration of the innermost frame of a kind (0 outside any).
    fn innermost(&self, kind: FrameKind) -> u32 {
        self.frames[..self.depth as usize].iter().rev().find(|f| f.kind == kind).map_or(0, |f| f.iter)
    }

    fn addresses(&self, k: &SynthKernel, idx: usize, array: u16, p: &Pattern, out: &mut LaneAddrs) {
        let a = &k.arrays[array as usize];
        let i = u64::from(self.innermost(FrameKind::Loop));
        let j = self.innermost(FrameKind::Neighbor);
        for lane in lanes(self.mask) {
            let t = self.first_thread + u64::from(lane);
            let byte = match p {
                Pattern::Coalesced => {
                    // Exact past 2^64 too (a long loop over a huge grid), in 128 bits.
                    let n = match i.checked_mul(k.grid_threads()).and_then(|x| x.checked_add(t)) {
                        Some(n) => n % a.elems,
                        None => {
                            ((u128::from(i) * u128::from(k.grid_threads()) + u128::from(t))
                                % u128::from(a.elems)) as u64
                        }
                    };
                    n * a.elem_bytes
                }
                Pattern::Strided { stride_bytes, offset_bytes } => {
                    // In 128 bits: with stride and offset at most 2^48 (MAX_STRIDE) the sum
                    // cannot overflow, so the byte is exact whatever the grid and the loop.
                    let at = u128::from(t) * u128::from(*stride_bytes)
                        + u128::from(*offset_bytes)
                        + u128::from(i) * u128::from(a.elem_bytes);
                    (at % u128::from(a.elems * a.elem_bytes)) as u64
                }
                Pattern::Random => {
                    hash(k.seed, &[0xa11, t, idx as u64, i, u64::from(j)]) % a.elems * a.elem_bytes
                }
                Pattern::Uniform => i % a.elems * a.elem_bytes,
                Pattern::CsrEdge => (k.node(t) * k.avg_degree() + u64::from(j)) % a.elems * a.elem_bytes,
                Pattern::CsrNeighbor => k.neighbour(k.node(t), j) % a.elems * a.elem_bytes,
                Pattern::CsrNode => k.node(t) % a.elems * a.elem_bytes,
            };
            out[lane as usize] = a.base + byte;
        }
    }

    /// Current active mask.
    pub fn mask(&self) -> u32 {
        self.mask
    }
}

/// Iterates the set bits of a lane mask, lowest lane first.
pub fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let l = m.trailing_zeros();
        m &= m - 1;
        Some(l)
    })
}

/// First address of the auto-assigned array space.
pub(crate) const ARRAY_SPACE: u64 = 0x1000_0000;
pub(crate) const ARRAY_ALIGN: u64 = 1 << 20;
/// The largest stride or offset of a `Strided` pattern, bytes (2^48, a GPU's whole virtual
/// address space): the address arithmetic stays exact in 128 bits.
const MAX_STRIDE: u64 = 1 << 48;

/// Checks a workload spec and compiles its kernels. Errors point at `text` positions.
pub fn compile(
    spec: &SynthWorkloadSpec,
    sim_seed: u64,
    text: &str,
    origin: &Origin,
) -> Result<Vec<SynthKernel>, ConfigError> {
    if spec.kernels.is_empty() {
        return Err(error_at_path(text, origin, "kernels", "must list at least one kernel"));
    }
    let mut kernels = Vec::new();
    let mut next_base = ARRAY_SPACE;
    for (ki, ks) in spec.kernels.iter().enumerate() {
        let at = |path: String, msg: String| error_at_path(text, origin, &path, &msg);
        let kp = format!("kernels[{ki}]");
        if ks.ctas == 0 {
            return Err(at(format!("{kp}.ctas"), "= 0: a grid needs at least one CTA".into()));
        }
        if ks.threads_per_cta == 0 || ks.threads_per_cta > 2048 {
            return Err(at(
                format!("{kp}.threads_per_cta"),
                format!("= {}: must be between 1 and 2048", ks.threads_per_cta),
            ));
        }
        if let Some(g) = &ks.graph {
            if g.nodes == 0 {
                return Err(at(format!("{kp}.graph.nodes"), "= 0: must be at least 1".into()));
            }
            if g.min_degree > g.max_degree || g.max_degree > 4096 {
                return Err(at(
                    format!("{kp}.graph.max_degree"),
                    format!("= {}: must be ≥ min_degree ({}) and ≤ 4096", g.max_degree, g.min_degree),
                ));
            }
            if !(0.0..=1.0).contains(&g.locality) {
                return Err(at(
                    format!("{kp}.graph.locality"),
                    format!("= {}: must be in [0, 1]", g.locality),
                ));
            }
        }
        let mut arrays = Vec::new();
        for (ai, a) in ks.arrays.iter().enumerate() {
            let ap = format!("{kp}.arrays[{ai}]");
            if a.elems == 0 {
                return Err(at(format!("{ap}.elems"), "= 0: must be at least 1".into()));
            }
            if !matches!(a.elem_bytes, 1 | 2 | 4 | 8 | 16) {
                return Err(at(
                    format!("{ap}.elem_bytes"),
                    format!("= {}: must be 1, 2, 4, 8 or 16", a.elem_bytes),
                ));
            }
            if arrays.iter().any(|x: &ArrayInfo| x.name == a.name) {
                return Err(at(format!("{ap}.name"), format!("\"{}\" is declared twice", a.name)));
            }
            let Some(bytes) = a.elems.checked_mul(u64::from(a.elem_bytes)) else {
                return Err(at(
                    format!("{ap}.elems"),
                    format!("= {}: {} bytes each is more than 2^64 bytes", a.elems, a.elem_bytes),
                ));
            };
            let base = a.base.unwrap_or(next_base);
            // The array's bytes, and with automatic placement the next base, stay below 2^64:
            // addresses never wrap around.
            let end = base
                .checked_add(bytes)
                .filter(|e| a.base.is_some() || e.checked_next_multiple_of(ARRAY_ALIGN).is_some());
            let Some(end) = end else {
                let (field, what) = match a.base {
                    Some(b) => ("base", format!("= {b:#x}: the array's {bytes} bytes from there")),
                    None => (
                        "elems",
                        format!("= {}: the array's {bytes} bytes after the arrays before it", a.elems),
                    ),
                };
                return Err(at(
                    format!("{ap}.{field}"),
                    format!("{what} run past the end of the 64-bit address space"),
                ));
            };
            if let Some(x) =
                arrays.iter().find(|x: &&ArrayInfo| base < x.base + x.elems * x.elem_bytes && x.base < end)
            {
                let field = if a.base.is_some() { "base" } else { "name" };
                return Err(at(
                    format!("{ap}.{field}"),
                    format!(
                        "\"{}\" ({base:#x}..{end:#x}) overlaps \"{}\" ({:#x}..{:#x}); give each array bytes of its own",
                        a.name,
                        x.name,
                        x.base,
                        x.base + x.elems * x.elem_bytes
                    ),
                ));
            }
            if a.base.is_none() {
                next_base = end.next_multiple_of(ARRAY_ALIGN);
            }
            arrays.push(ArrayInfo {
                name: a.name.clone(),
                base,
                elem_bytes: a.elem_bytes.into(),
                elems: a.elems,
            });
        }
        let mut code = Vec::new();
        let ctx = CompileCtx { text, origin, arrays: &arrays, graph: ks.graph.is_some() };
        ctx.ops(&ks.program, &format!("{kp}.program"), 0, &mut code)?;
        if code.len() > u16::MAX as usize / 2 {
            return Err(at(format!("{kp}.program"), "is too long (at most 32767 steps)".into()));
        }
        kernels.push(SynthKernel {
            name: ks.name.clone(),
            ctas: ks.ctas,
            threads_per_cta: ks.threads_per_cta,
            arrays,
            graph: ks.graph.clone(),
            code,
            seed: mix(spec.seed ^ mix(sim_seed) ^ (ki as u64)),
        });
    }
    Ok(kernels)
}

struct CompileCtx<'a> {
    text: &'a str,
    origin: &'a Origin,
    arrays: &'a [ArrayInfo],
    graph: bool,
}

impl CompileCtx<'_> {
    fn err(&self, path: &str, msg: impl Into<String>) -> ConfigError {
        error_at_path(self.text, self.origin, path, &msg.into())
    }

    fn regs(&self, path: &str, regs: &[u8]) -> Result<[u8; 4], ConfigError> {
        if regs.len() > 4 {
            return Err(self.err(path, format!("lists {} registers; at most 4", regs.len())));
        }
        let mut out = [NO_REG; 4];
        for (i, &r) in regs.iter().enumerate() {
            if r == NO_REG {
                return Err(self.err(path, "register 255 is RZ (no register); use 0..254"));
            }
            out[i] = r;
        }
        Ok(out)
    }

    fn ops(&self, ops: &[OpSpec], path: &str, depth: usize, code: &mut Vec<Code>) -> Result<(), ConfigError> {
        for (i, op) in ops.iter().enumerate() {
            let p = format!("{path}[{i}]");
            match op {
                OpSpec::Alu { count, srcs, dst } => {
                    if *count == 0 {
                        return Err(self.err(&format!("{p}.count"), "= 0: must be at least 1"));
                    }
                    let srcs = self.regs(&format!("{p}.srcs"), srcs)?;
                    code.push(Code::Alu { count: *count, srcs, dst: *dst });
                }
                OpSpec::Load { array, pattern, dst, srcs, width, space } => {
                    if *dst == NO_REG {
                        return Err(self
                            .err(&format!("{p}.dst"), "= 255: a load needs a destination register 0..254"));
                    }
                    let m = self.mem(&p, array, pattern, srcs, *width)?;
                    code.push(Code::Mem {
                        load: true,
                        array: m.0,
                        pattern: pattern.clone(),
                        reg: *dst,
                        srcs: m.1,
                        width: *width,
                        space: *space,
                    });
                }
                OpSpec::Store { array, pattern, srcs, width, space } => {
                    let m = self.mem(&p, array, pattern, srcs, *width)?;
                    code.push(Code::Mem {
                        load: false,
                        array: m.0,
                        pattern: pattern.clone(),
                        reg: NO_REG,
                        srcs: m.1,
                        width: *width,
                        space: *space,
                    });
                }
                OpSpec::Loop { times, body } => {
                    self.block(
                        &p,
                        body,
                        depth,
                        code,
                        |end| Code::LoopBegin { times: *times, end },
                        |begin| Code::LoopEnd { begin },
                    )?;
                }
                OpSpec::If { fraction, body } => {
                    if !(0.0..=1.0).contains(fraction) {
                        return Err(
                            self.err(&format!("{p}.fraction"), format!("= {fraction}: must be in [0, 1]"))
                        );
                    }
                    self.block(
                        &p,
                        body,
                        depth,
                        code,
                        |end| Code::IfBegin { fraction: *fraction, end },
                        |_| Code::IfEnd,
                    )?;
                }
                OpSpec::ForEachNeighbor { body } => {
                    if !self.graph {
                        return Err(self.err(&p, "ForEachNeighbor needs the kernel to declare a `graph`"));
                    }
                    self.block(
                        &p,
                        body,
                        depth,
                        code,
                        |end| Code::NeighborBegin { end },
                        |begin| Code::NeighborEnd { begin },
                    )?;
                }
                OpSpec::Barrier => code.push(Code::Barrier),
            }
        }
        Ok(())
    }

    fn block(
        &self,
        p: &str,
        body: &[OpSpec],
        depth: usize,
        code: &mut Vec<Code>,
        begin: impl Fn(u16) -> Code,
        end: impl Fn(u16) -> Code,
    ) -> Result<(), ConfigError> {
        if depth >= MAX_DEPTH {
            return Err(self.err(p, format!("nests deeper than {MAX_DEPTH} Loop/If/ForEachNeighbor levels")));
        }
        let b = code.len();
        code.push(Code::Barrier); // placeholder, patched below
        self.ops(body, &format!("{p}.body"), depth + 1, code)?;
        let e = code.len();
        code.push(end(b as u16));
        code[b] = begin(e as u16);
        Ok(())
    }

    fn mem(
        &self,
        p: &str,
        array: &str,
        pattern: &Pattern,
        srcs: &[u8],
        width: u8,
    ) -> Result<(u16, [u8; 4]), ConfigError> {
        let Some(ai) = self.arrays.iter().position(|a| a.name == array) else {
            let names: Vec<&str> = self.arrays.iter().map(|a| a.name.as_str()).collect();
            return Err(self.err(
                &format!("{p}.array"),
                format!(
                    "\"{array}\" is not declared; declared arrays: {}",
                    if names.is_empty() { "none".into() } else { names.join(", ") }
                ),
            ));
        };
        if !matches!(width, 1 | 2 | 4 | 8 | 16) {
            return Err(self.err(&format!("{p}.width"), format!("= {width}: must be 1, 2, 4, 8 or 16 bytes")));
        }
        if let Pattern::Strided { stride_bytes, offset_bytes } = pattern {
            for (name, v) in [("stride_bytes", stride_bytes), ("offset_bytes", offset_bytes)] {
                if *v > MAX_STRIDE {
                    return Err(self.err(
                        &format!("{p}.pattern.{name}"),
                        format!("= {v}: at most 2^48 (281474976710656) bytes"),
                    ));
                }
            }
        }
        if matches!(pattern, Pattern::CsrEdge | Pattern::CsrNeighbor | Pattern::CsrNode) && !self.graph {
            return Err(
                self.err(&format!("{p}.pattern"), "CSR patterns need the kernel to declare a `graph`")
            );
        }
        Ok((ai as u16, self.regs(&format!("{p}.srcs"), srcs)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(src: &str) -> SynthKernel {
        let spec: SynthWorkloadSpec = crate::config::parse_ron(src, &Origin::File("t".into())).unwrap();
        compile(&spec, 1, src, &Origin::File("t".into())).unwrap().remove(0)
    }

    const STRIDED: &str = r#"(name: "s", kernels: [(name: "k", ctas: 2, threads_per_cta: 64,
        arrays: [(name: "a", elems: 1048576)],
        program: [Loop(times: 2, body: [Load(array: "a", pattern: Strided(stride_bytes: 4096), dst: 1), Alu(count: 2, srcs: [1])])])])"#;

    #[test]
    fn strided_loop_generates_column_major_addresses() {
        let k = kernel(STRIDED);
        let mut c = k.cursor(1, 1);
        let mut a = [0u64; 32];
        let i = c.fetch(&k, &mut a);
        assert_eq!(i.op, Op::Load { space: Space::Global, width: 4 });
        // CTA 1, warp 1: thread 96 is lane 0.
        assert_eq!(a[0], 0x1000_0000 + 96 * 4096);
        assert_eq!(a[1] - a[0], 4096);
        assert_eq!(c.fetch(&k, &mut a).op, Op::Alu);
        assert_eq!(c.fetch(&k, &mut a).op, Op::Alu);
        c.fetch(&k, &mut a);
        assert_eq!(a[0], 0x1000_0000 + 96 * 4096 + 4, "second iteration moves one element");
        assert_eq!(c.fetch(&k, &mut a).op, Op::Alu);
        assert_eq!(c.fetch(&k, &mut a).op, Op::Alu);
        assert_eq!(c.fetch(&k, &mut a).op, Op::Exit);
    }

    #[test]
    fn neighbour_loop_diverges_by_degree() {
        let k = kernel(
            r#"(name: "g", kernels: [(name: "k", ctas: 1, threads_per_cta: 32,
            arrays: [(name: "col", elems: 4096), (name: "v", elems: 1024)],
            graph: Some((nodes: 1024, min_degree: 1, max_degree: 6)),
            program: [ForEachNeighbor(body: [Load(array: "col", pattern: CsrEdge, dst: 1), Load(array: "v", pattern: CsrNeighbor, dst: 2, srcs: [1])])])])"#,
        );
        let mut c = k.cursor(0, 0);
        let mut a = [0u64; 32];
        let degrees: Vec<u32> = (0..32).map(|t| k.degree(t)).collect();
        let max = *degrees.iter().max().unwrap();
        for j in 0..max {
            let i = c.fetch(&k, &mut a);
            let expect = (0..32).filter(|&l| degrees[l] > j).fold(0u32, |m, l| m | 1 << l);
            assert_eq!(i.mask, expect, "iteration {j}");
            c.fetch(&k, &mut a);
        }
        assert_eq!(c.fetch(&k, &mut a).op, Op::Exit);
        assert!(degrees.iter().any(|&d| d < max), "trip counts diverge: {degrees:?}");
    }

    #[test]
    fn partial_last_warp_masks_missing_threads() {
        let k = kernel(
            r#"(name: "p", kernels: [(name: "k", ctas: 1, threads_per_cta: 40,
            arrays: [(name: "a", elems: 64)], program: [Load(array: "a", pattern: Coalesced, dst: 1)])])"#,
        );
        let mut a = [0u64; 32];
        assert_eq!(k.cursor(0, 1).fetch(&k, &mut a).mask, 0xff);
    }

    #[test]
    fn errors_name_the_key_and_position() {
        let src = "(name: \"e\", kernels: [(name: \"k\", ctas: 1, threads_per_cta: 32,\n  arrays: [(name: \"a\", elems: 64)],\n  program: [Load(array: \"b\", pattern: Coalesced, dst: 1)])])";
        let spec: SynthWorkloadSpec = crate::config::parse_ron(src, &Origin::File("w.ron".into())).unwrap();
        let e = compile(&spec, 1, src, &Origin::File("w.ron".into())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "w.ron:3:18: kernels[0].program[0].array: \"b\" is not declared; declared arrays: a"
        );
    }

    #[test]
    fn registers_are_the_highest_named_plus_one() {
        let k = kernel(
            r#"(name: "p", kernels: [(name: "k", ctas: 1, threads_per_cta: 32,
            arrays: [(name: "a", elems: 64, elem_bytes: 16)],
            program: [Load(array: "a", pattern: Coalesced, dst: 8, width: 16), Alu(srcs: [3])])])"#,
        );
        assert_eq!(k.registers(), 12, "R8..R11 of the 16-byte load");
    }
}
