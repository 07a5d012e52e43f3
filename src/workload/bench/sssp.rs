//! LonestarGPU SSSP, topology-driven: every launch relaxes every edge of every node, until a
//! launch changes no distance.
//!
//! Follows LonestarGPU 2.0's topology-driven `sssp` (`drelax`, `processnode`, `processedge`,
//! and the `Graph` accessors they call, `include/graph.h`): thread `nn < nnodes` reads its
//! out-degree `noutgoing[nn]`, and for each edge `ii` finds it through `psrc[srcsrc[nn]] + ii`
//! (edges numbered from 1), reads `edgessrcdst[edge]` and `edgessrcwt[edge]`, then `dist[nn]`
//! and `dist[dst]`; `if (dist[nn] + wt < dist[dst])` it does `atomicMin(&dist[dst], altdist)`;
//! a thread that lowered a distance sets `*changed`. Distances start at `MYINFINITY` (10⁹), the
//! source's at 0. Input: the BFS graph ([`Graph`], Rodinia `graphgen` kind, weights 1–10),
//! source node 0.
//!
//! The control flow follows the data: the workload first runs the relaxation functionally.
//! `drelax` (`apps/sssp/sssp_ls.h` of LonestarGPU 2.0) runs nodes `id · (MAXBLOCKSIZE /
//! blockDim.x)` on, and the app launches it with `KernelConfig`'s default block of
//! `maxThreadsDim[0]` = 1,024 threads (`include/kernelconfig.h`), so one node per thread in
//! CTAs of 1,024. The instructions follow nvcc 11.8's sm_70 SASS of it:
//!
//! - `@P0 EXIT` for `start >= end`, which no lane takes: a line of mask 0 (an ALU slot);
//! - `getOutDegree(nn)`'s load, branched around by lanes `nn >= nnodes` and then by lanes of
//!   degree 0;
//! - the edge loop unrolled by two: trip `t` relaxes edges `2t` and `2t + 1` in the lanes with
//!   more than `2t + 1` edges, then the lanes of odd degree relax their last edge together;
//! - per edge, `getDestination` and `getWeight` each load `noutgoing[src]`, `srcsrc[src]` and
//!   `psrc[srcsrc[src]]` again (nvcc does not merge them across the `printf` error paths),
//!   then `edgessrcdst[edge]` / `edgessrcwt[edge]`; then `dist[src]` and `dist[dst]`: ten
//!   loads, each of the accessors' dependent on the one before through its branch or address;
//! - `atomicMin(&dist[dst], altdist)` in the lanes where `altdist < dist[dst]`, branched around
//!   by the others; its old value feeds `altdist < olddist`, so nvcc compiles it to
//!   `ATOMG.E.MIN` with a destination register (not `RED`), performed at the L2, bypassing the
//!   L1 ([`Space::Atomic`]), in warpscope as in Accel-Sim;
//! - after the loop, every lane (those that branched around it too) reaches `@P0 STG.E.U8
//!   [changed]`: one store per warp, in the lanes whose `processnode` returned true, of mask 0
//!   when none did; then `@P1 EXIT`, the warp's last instruction.
//!
//! Approximations: within a launch every thread reads the distances the launch started with
//! (one legal interleaving: all reads before all atomics; on the GPU a thread may see a lower
//! distance another thread of the same launch just wrote), so launch L leaves the shortest
//! distances over at most L edges; `processnode` returns true in the lanes where some edge's
//! `if (altdist < dist[dst])` was taken (on the GPU, where some `atomicMin` still lowered the
//! distance); one ALU slot per compare and address add the SASS makes between the loads (it
//! makes about twice as many, and stack stores on its error paths, never taken).
//!
//! `drelax` declares no `__shared__` array: no shared memory per CTA.

use super::super::instr::{Instr, InstrName, LaneAddrs, NO_REG, Op, Space};
use super::super::synth::{ArrayInfo, lanes};
use super::bfs::MAX_NODES;
use super::graph::Graph;
use super::{Bench, Kernel, Knob, Memory, Sizes, progress};
use std::sync::Arc;

pub const BENCH: Bench = Bench {
    name: "sssp",
    about: "LonestarGPU SSSP, topology-driven: drelax over every node until no distance changes",
    knobs: &[
        Knob {
            multiple: 1,
            min: 2,
            max: MAX_NODES,
            name: "nodes",
            default: 1_000_000,
            about: "nodes of the graph",
        },
        Knob {
            multiple: 1,
            min: 0,
            max: u32::MAX,
            name: "seed",
            default: 7,
            about: "seed of the graph generator",
        },
    ],
    build: |s| build(s).into_iter().map(Kernel::Sssp).collect(),
    input_limit: None,
};

/// LonestarGPU's `MYINFINITY`.
pub const INFINITY: u32 = 1_000_000_000;
/// Threads per CTA: `KernelConfig`'s default, `maxThreadsDim[0]`.
const BLOCK: u32 = 1024;

/// The input every launch shares: the graph, and each node's distance at the start of every
/// launch, kept as the launches at which it drops.
#[derive(Debug, PartialEq)]
pub struct SsspInput {
    pub graph: Graph,
    /// Node `n`'s drops are `drops[first_drop[n] .. first_drop[n + 1]]`: (launch, distance
    /// from the start of that launch on), in launch order.
    first_drop: Vec<u32>,
    drops: Vec<(u32, u32)>,
    pub arrays: Vec<ArrayInfo>,
}

impl SsspInput {
    /// Node `n`'s distance when launch `launch` starts.
    pub fn dist(&self, n: u32, launch: u32) -> u32 {
        let d = &self.drops[self.first_drop[n as usize] as usize..self.first_drop[n as usize + 1] as usize];
        d.iter().take_while(|&&(l, _)| l <= launch).last().map_or(INFINITY, |&(_, v)| v)
    }
}

/// One launch of `drelax`.
#[derive(Clone, Debug, PartialEq)]
pub struct SsspKernel {
    pub name: String,
    pub launch: u32,
    pub input: Arc<SsspInput>,
}

const NOUTGOING: usize = 0;
const SRCSRC: usize = 1;
const PSRC: usize = 2;
const DST: usize = 3;
const WT: usize = 4;
const DIST: usize = 5;
const CHANGED: usize = 6;

/// Runs the launches functionally (each reads the distances it started with) until one
/// changes nothing; returns each node's drops and the launches run.
fn relax(g: &Graph) -> (Vec<Vec<(u32, u32)>>, u32) {
    let n = g.nodes() as usize;
    let mut dist = vec![INFINITY; n];
    dist[0] = 0;
    let mut drops = vec![Vec::new(); n];
    drops[0].push((0, 0));
    progress::begin("relaxation launch", None);
    for launch in 1.. {
        progress::advance(1);
        let mut next = dist.clone();
        for src in 0..n {
            let (s, d) = g.node(src as u32);
            for e in s as usize..(s + d) as usize {
                let dst = g.edges[e] as usize;
                let alt = dist[src] + u32::from(g.weights[e]);
                if alt < dist[dst] {
                    next[dst] = next[dst].min(alt);
                }
            }
        }
        let mut changed = false;
        for (v, (&new, &old)) in next.iter().zip(&dist).enumerate() {
            if new < old {
                drops[v].push((launch, new));
                changed = true;
            }
        }
        dist = next;
        if !changed {
            return (drops, launch);
        }
    }
    unreachable!("the launches end")
}

/// Builds the launches: the functional run decides how many there are.
pub fn build(s: &Sizes) -> Vec<SsspKernel> {
    let nodes = s.get("nodes");
    let graph = Graph::generate(nodes, u64::from(s.get("seed")));
    let (per_node, launches) = relax(&graph);
    let mut first_drop = Vec::with_capacity(per_node.len() + 1);
    let mut drops = Vec::new();
    for d in per_node {
        first_drop.push(drops.len() as u32);
        drops.extend(d);
    }
    first_drop.push(drops.len() as u32);
    let (n, e) = (u64::from(nodes), graph.edges.len() as u64);
    let mut m = Memory::default();
    for (name, elems, bytes) in [
        ("noutgoing", n, 4),
        ("srcsrc", n, 4),
        ("psrc", n, 4),
        ("edgessrcdst", e + 1, 4),
        ("edgessrcwt", e + 1, 4),
        ("dist", n, 4),
        ("changed", 1, 1),
    ] {
        m.alloc(name, elems, bytes);
    }
    let input = Arc::new(SsspInput { graph, first_drop, drops, arrays: m.arrays().to_vec() });
    (0..launches)
        .map(|launch| SsspKernel { name: "drelax".into(), launch, input: Arc::clone(&input) })
        .collect()
}

/// Where a warp is in `drelax`; `E*` are the steps of one edge, in SASS order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum At {
    Index,
    StartExit,
    Bound,
    LoadDegree,
    TestDegree,
    PairHead,
    TailHead,
    EDstDegree,
    EDstTestDegree,
    EDstSrcsrc,
    EDstTestSrcsrc,
    EDstPsrc,
    EDstEdge,
    EDst,
    ETestDst,
    EWtDegree,
    EWtTestDegree,
    EWtSrcsrc,
    EWtTestSrcsrc,
    EWtPsrc,
    EWtEdge,
    EWt,
    ETestWt,
    EDistSrc,
    EDistDst,
    ECompare,
    EAtomicMin,
    ECompareOld,
    PairBranch,
    Changed,
    StoreChanged,
    Exit,
}

/// A warp's position in `drelax`: all of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SsspCursor {
    at: At,
    /// Node of lane 0.
    first: u32,
    /// Lanes `nn < nnodes` with at least one edge.
    working: u32,
    /// Lanes relaxing the current edge.
    active: u32,
    mask: u32,
    /// Edge `ii` of the unrolled loop's lanes; the tail's lanes take their last.
    ii: u32,
    tail: bool,
    /// Lanes whose `processnode` returns true.
    changed: u32,
    name: InstrName,
}

impl SsspKernel {
    pub fn ctas(&self) -> u32 {
        self.input.graph.nodes().div_ceil(BLOCK)
    }

    pub fn threads_per_cta(&self) -> u32 {
        BLOCK
    }

    pub fn cursor(&self, cta: u32, warp: u32) -> SsspCursor {
        SsspCursor {
            at: At::Index,
            first: cta * BLOCK + warp * 32,
            working: 0,
            active: 0,
            mask: u32::MAX,
            ii: 0,
            tail: false,
            changed: 0,
            name: InstrName(""),
        }
    }

    /// Registers per thread [`SsspCursor::fetch`] names: R0..R13 (nvcc gives more:
    /// [`super::ptxas`]).
    pub fn registers(&self) -> u32 {
        14
    }

    fn addr(&self, array: usize, elem: u64) -> u64 {
        let a = &self.input.arrays[array];
        a.base + elem * a.elem_bytes
    }
}

impl SsspCursor {
    /// Produces the next instruction, writing per-lane addresses for memory instructions.
    pub fn fetch(&mut self, k: &SsspKernel, addrs: &mut LaneAddrs) -> Instr {
        let g = &k.input.graph;
        loop {
            let pc = self.at as u32 * 16;
            let mask = self.mask;
            let alu = |dst: u8, src: u8| Instr {
                pc,
                op: Op::Alu,
                dst,
                dst_regs: 1,
                srcs: [src, NO_REG, NO_REG, NO_REG],
                mask,
            };
            // A load (or atomic) of `space` writing `dst`, or a global store (`dst` NO_REG).
            let mut access = |array: usize, space: Space, dst: u8, src: u8, elem: &dyn Fn(u32) -> u64| {
                for l in lanes(mask) {
                    addrs[l as usize] = k.addr(array, elem(self.first + l));
                }
                let width = k.input.arrays[array].elem_bytes as u8;
                let op = if dst == NO_REG { Op::Store { space, width } } else { Op::Load { space, width } };
                Instr { pc, op, dst, dst_regs: 1, srcs: [src, NO_REG, NO_REG, NO_REG], mask }
            };
            // Node `t`'s edge now: the unrolled loop's `ii`, or the tail's last edge.
            let (ii, tail) = (self.ii, self.tail);
            let edge = |t: u32| {
                let (first, degree) = g.node(t);
                first + if tail { degree - 1 } else { ii }
            };
            let dst = |t: u32| g.edges[edge(t) as usize];
            let (name, instr) = match self.at {
                At::Index => {
                    self.at = At::StartExit;
                    ("IMAD nn = start = blockIdx.x*blockDim.x + threadIdx.x", alu(0, NO_REG))
                }
                At::StartExit => {
                    // `start < end` in every lane: an exit line no lane takes.
                    self.at = At::Bound;
                    ("EXIT", Instr::exit_lanes(pc, 0))
                }
                At::Bound => {
                    self.mask =
                        lanes(u32::MAX).filter(|&l| self.first + l < g.nodes()).fold(0, |m, l| m | 1 << l);
                    self.at = if self.mask == 0 { At::Changed } else { At::LoadDegree };
                    ("ISETP nn < nnodes", alu(NO_REG, 0))
                }
                At::LoadDegree => {
                    self.at = At::TestDegree;
                    (
                        "LDG neighborsize = noutgoing[nn]",
                        access(NOUTGOING, Space::Global, 1, 0, &|t| t.into()),
                    )
                }
                At::TestDegree => {
                    self.working =
                        lanes(mask).filter(|&l| g.node(self.first + l).1 > 0).fold(0, |m, l| m | 1 << l);
                    self.ii = 0;
                    self.at = if self.working == 0 { At::Changed } else { At::PairHead };
                    ("ISETP neighborsize != 0", alu(NO_REG, 1))
                }
                At::PairHead => {
                    // Trip ii / 2 of the loop unrolled by two: lanes with edges ii and ii + 1.
                    self.active = lanes(self.working)
                        .filter(|&l| g.node(self.first + l).1 > ii + 1)
                        .fold(0, |m, l| m | 1 << l);
                    self.mask = self.active;
                    self.at = if self.active == 0 { At::TailHead } else { At::EDstDegree };
                    continue;
                }
                At::TailHead => {
                    self.active = lanes(self.working)
                        .filter(|&l| g.node(self.first + l).1 % 2 == 1)
                        .fold(0, |m, l| m | 1 << l);
                    self.mask = self.active;
                    self.tail = true;
                    self.at = if self.active == 0 { At::Changed } else { At::EDstDegree };
                    continue;
                }
                At::EDstDegree | At::EWtDegree => {
                    let wt = self.at == At::EWtDegree;
                    self.at = if wt { At::EWtTestDegree } else { At::EDstTestDegree };
                    let r = if wt { 6 } else { 2 };
                    (
                        "LDG getOutDegree(src): noutgoing[src]",
                        access(NOUTGOING, Space::Global, r, 0, &|t| t.into()),
                    )
                }
                At::EDstTestDegree | At::EWtTestDegree => {
                    let wt = self.at == At::EWtTestDegree;
                    self.at = if wt { At::EWtSrcsrc } else { At::EDstSrcsrc };
                    ("ISETP nthedge < getOutDegree(src)", alu(NO_REG, if wt { 6 } else { 2 }))
                }
                At::EDstSrcsrc | At::EWtSrcsrc => {
                    let wt = self.at == At::EWtSrcsrc;
                    self.at = if wt { At::EWtTestSrcsrc } else { At::EDstTestSrcsrc };
                    let r = if wt { 7 } else { 3 };
                    ("LDG getFirstEdge(src): srcsrc[src]", access(SRCSRC, Space::Global, r, 0, &|t| t.into()))
                }
                At::EDstTestSrcsrc | At::EWtTestSrcsrc => {
                    let wt = self.at == At::EWtTestSrcsrc;
                    self.at = if wt { At::EWtPsrc } else { At::EDstPsrc };
                    ("ISETP srcsrc[src] < nnodes", alu(NO_REG, if wt { 7 } else { 3 }))
                }
                At::EDstPsrc | At::EWtPsrc => {
                    let wt = self.at == At::EWtPsrc;
                    self.at = if wt { At::EWtEdge } else { At::EDstEdge };
                    let (r, src) = if wt { (8, 7) } else { (4, 3) };
                    (
                        "LDG getFirstEdge(src): psrc[srcsrc[src]]",
                        access(PSRC, Space::Global, r, src, &|t| t.into()),
                    )
                }
                At::EDstEdge | At::EWtEdge => {
                    let wt = self.at == At::EWtEdge;
                    self.at = if wt { At::EWt } else { At::EDst };
                    ("IADD3 edge = getFirstEdge(src) + nthedge", alu(NO_REG, if wt { 8 } else { 4 }))
                }
                At::EDst | At::EWt => {
                    let wt = self.at == At::EWt;
                    self.at = if wt { At::ETestWt } else { At::ETestDst };
                    let (name, array, r, src) = if wt {
                        ("LDG wt = edgessrcwt[edge]", WT, 9, 8)
                    } else {
                        ("LDG dst = edgessrcdst[edge]", DST, 5, 4)
                    };
                    (name, access(array, Space::Global, r, src, &|t| u64::from(edge(t)) + 1))
                }
                At::ETestDst | At::ETestWt => {
                    let wt = self.at == At::ETestWt;
                    self.at = if wt { At::EDistSrc } else { At::EWtDegree };
                    if wt {
                        ("ISETP wt < MYINFINITY", alu(NO_REG, 9))
                    } else {
                        ("ISETP dst < nnodes", alu(NO_REG, 5))
                    }
                }
                At::EDistSrc => {
                    self.at = At::EDistDst;
                    ("LDG dist[src]", access(DIST, Space::Global, 10, 0, &|t| t.into()))
                }
                At::EDistDst => {
                    self.at = At::ECompare;
                    ("LDG dist[dst]", access(DIST, Space::Global, 11, 5, &|t| dst(t).into()))
                }
                At::ECompare => {
                    let l = k.launch;
                    let lower = lanes(mask)
                        .filter(|&lane| {
                            let t = self.first + lane;
                            let alt = k.input.dist(t, l) + u32::from(g.weights[edge(t) as usize]);
                            alt < k.input.dist(dst(t), l)
                        })
                        .fold(0, |m, l| m | 1 << l);
                    self.changed |= lower;
                    self.at = if lower == 0 { self.after_edge() } else { At::EAtomicMin };
                    if lower != 0 {
                        self.mask = lower;
                    }
                    ("ISETP altdist = dist[src] + wt < dist[dst]", alu(12, 11))
                }
                At::EAtomicMin => {
                    self.at = At::ECompareOld;
                    (
                        "ATOMG.E.MIN.S32 olddist = atomicMin(&dist[dst], altdist)",
                        access(DIST, Space::Atomic, 13, 12, &|t| dst(t).into()),
                    )
                }
                At::ECompareOld => {
                    self.at = self.after_edge();
                    let i = alu(NO_REG, 13);
                    self.mask = self.active;
                    ("ISETP altdist < olddist", i)
                }
                At::PairBranch => {
                    self.ii += 1;
                    self.at = At::PairHead;
                    ("BRA ii < neighborsize - 1", alu(NO_REG, NO_REG))
                }
                At::Changed => {
                    // The loop's lanes and those that branched around it meet again; the store
                    // is guarded by processnode's result.
                    self.mask = self.changed;
                    self.at = At::StoreChanged;
                    ("LOP3 P0 = processnode(...)", Instr { mask: u32::MAX, ..alu(NO_REG, NO_REG) })
                }
                At::StoreChanged => {
                    self.at = At::Exit;
                    ("STG.E.U8 *changed = true", access(CHANGED, Space::Global, NO_REG, NO_REG, &|_| 0))
                }
                // BLOCK is a multiple of 32: every warp has 32 threads, all of which end here.
                At::Exit => ("EXIT", Instr::exit(pc, u32::MAX)),
            };
            self.name = InstrName(name);
            return instr;
        }
    }

    /// Where a warp goes after relaxing an edge: the pair's second edge, the loop's branch, or
    /// (after the tail's edge) the `*changed` test.
    fn after_edge(&mut self) -> At {
        if self.tail {
            At::Changed
        } else if self.ii.is_multiple_of(2) {
            self.ii += 1;
            At::EDstDegree
        } else {
            At::PairBranch
        }
    }

    /// The name of the instruction fetched last.
    pub fn name(&self) -> &'static str {
        self.name.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{Access, kernel_streams};
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// `drelax` written out per warp of 32 threads for every launch, on a real distance array
    /// (each launch reads the distances it starts with and lowers them with atomicMin after);
    /// returns the streams and the final distances.
    fn reference(g: &Graph, base: impl Fn(&str) -> u64) -> (Vec<Vec<Vec<Access>>>, Vec<u32>) {
        let n = g.nodes() as usize;
        let [nout, srcsrc, psrc, edst, ewt, dist_a, changed_a] =
            ["noutgoing", "srcsrc", "psrc", "edgessrcdst", "edgessrcwt", "dist", "changed"].map(&base);
        let mut dist = vec![1_000_000_000u32; n];
        dist[0] = 0;
        let mut launches = Vec::new();
        loop {
            let start = dist.clone();
            let mut changed = false;
            let mut launch = Vec::new();
            for w in 0..n.div_ceil(1024) * 32 {
                let mut s: Vec<Access> = Vec::new();
                let push = |s: &mut Vec<Access>,
                            store: bool,
                            width: u8,
                            ts: &[(usize, u32)],
                            at: &dyn Fn(usize, u32) -> u64| {
                    let mask = ts.iter().fold(0u32, |m, (t, _)| m | 1 << (t % 32));
                    s.push((store, width, mask, ts.iter().map(|&(t, ii)| at(t, ii)).collect()));
                };
                let degree = |t: usize| g.node(t as u32).1;
                let live: Vec<usize> = (w * 32..w * 32 + 32).filter(|&t| t < n).collect();
                // (thread, edge number) of the lanes relaxing an edge, in the order the warp
                // relaxes them: pairs of the loop unrolled by two, then odd degrees' last.
                let mut steps: Vec<Vec<(usize, u32)>> = Vec::new();
                for t in 0.. {
                    let pair: Vec<usize> = live.iter().copied().filter(|&v| degree(v) > 2 * t + 1).collect();
                    if pair.is_empty() {
                        break;
                    }
                    steps.push(pair.iter().map(|&v| (v, 2 * t)).collect());
                    steps.push(pair.iter().map(|&v| (v, 2 * t + 1)).collect());
                }
                let odd: Vec<(usize, u32)> =
                    live.iter().filter(|&&v| degree(v) % 2 == 1).map(|&v| (v, degree(v) - 1)).collect();
                if !odd.is_empty() {
                    steps.push(odd);
                }
                let mut lowered = Vec::new();
                if !live.is_empty() {
                    let all: Vec<(usize, u32)> = live.iter().map(|&v| (v, 0)).collect();
                    push(&mut s, false, 4, &all, &|t, _| nout + 4 * t as u64);
                }
                for on in steps {
                    let e = |t: usize, ii: u32| (g.node(t as u32).0 + ii) as usize;
                    let d = |t: usize, ii: u32| g.edges[e(t, ii)] as usize;
                    for wt in [false, true] {
                        push(&mut s, false, 4, &on, &|t, _| nout + 4 * t as u64);
                        push(&mut s, false, 4, &on, &|t, _| srcsrc + 4 * t as u64);
                        push(&mut s, false, 4, &on, &|t, _| psrc + 4 * t as u64);
                        let array = if wt { ewt } else { edst };
                        push(&mut s, false, 4, &on, &|t, ii| array + 4 * (e(t, ii) as u64 + 1));
                    }
                    push(&mut s, false, 4, &on, &|t, _| dist_a + 4 * t as u64);
                    push(&mut s, false, 4, &on, &|t, ii| dist_a + 4 * d(t, ii) as u64);
                    let lower: Vec<(usize, u32)> = on
                        .iter()
                        .copied()
                        .filter(|&(t, ii)| start[t] + u32::from(g.weights[e(t, ii)]) < start[d(t, ii)])
                        .collect();
                    if !lower.is_empty() {
                        // olddist = atomicMin(...): an atomic returns a value, a load.
                        push(&mut s, false, 4, &lower, &|t, ii| dist_a + 4 * d(t, ii) as u64);
                        for &(t, ii) in &lower {
                            dist[d(t, ii)] = dist[d(t, ii)].min(start[t] + u32::from(g.weights[e(t, ii)]));
                            lowered.push((t, 0));
                        }
                        changed = true;
                    }
                }
                // One store per warp after the loop, in the lanes that lowered a distance.
                lowered.sort_unstable();
                lowered.dedup();
                push(&mut s, true, 1, &lowered, &|_, _| changed_a);
                launch.push(s);
            }
            launches.push(launch);
            if !changed {
                return (launches, dist);
            }
        }
    }

    #[test]
    fn every_launch_matches_drelax_and_distances_equal_dijkstra() {
        // 700 nodes: a partial last CTA and warp.
        let ks = build(&Sizes([("nodes", 700), ("seed", 9)].into_iter().collect()));
        let input = &ks[0].input;
        let base = |name: &str| input.arrays.iter().find(|a| a.name == name).expect("array").base;
        let (want, dist) = reference(&input.graph, base);
        assert_eq!(ks.len(), want.len(), "launches until nothing changes");
        for (i, (k, w)) in ks.iter().zip(&want).enumerate() {
            let got = kernel_streams(&Kernel::Sssp(k.clone()));
            assert_eq!(got.len(), w.len());
            for (warp, (g, r)) in got.iter().zip(w).enumerate() {
                assert_eq!(g, r, "launch {i} warp {warp}");
            }
        }
        // Dijkstra from node 0.
        let g = &input.graph;
        let mut best = vec![u32::MAX; 700];
        best[0] = 0;
        let mut heap = BinaryHeap::from([Reverse((0u32, 0u32))]);
        while let Some(Reverse((d, a))) = heap.pop() {
            if d > best[a as usize] {
                continue;
            }
            let (s, n) = g.node(a);
            for e in s as usize..(s + n) as usize {
                let (b, nd) = (g.edges[e] as usize, d + u32::from(g.weights[e]));
                if nd < best[b] {
                    best[b] = nd;
                    heap.push(Reverse((nd, b as u32)));
                }
            }
        }
        let best: Vec<u32> = best.iter().map(|&d| if d == u32::MAX { INFINITY } else { d }).collect();
        assert_eq!(dist, best, "the reference's relaxation");
        let last = ks.len() as u32 - 1;
        assert_eq!((0..700).map(|v| input.dist(v, last)).collect::<Vec<_>>(), best, "the workload's run");
        assert!(ks.len() > 5, "several launches: {}", ks.len());
    }
}
