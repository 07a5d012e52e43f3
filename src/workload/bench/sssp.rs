//! LonestarGPU SSSP, topology-driven: every launch relaxes every edge of every node, until a
//! launch changes no distance.
//!
//! Follows LonestarGPU's topology-driven `sssp` (`drelax`, `processnode`, `processedge`, and
//! the `Graph` accessors they call), one thread per node, `BLOCK_DIM` = 128: thread
//! `idx < nnodes` reads its out-degree `noutgoing[idx]`, and for each edge `ii` (lanes leave
//! as their degree runs out) finds the edge through `psrc[srcsrc[idx]] + ii` (edges numbered
//! from 1), reads `edgessrcdst[edge]` and `edgessrcwt[edge]`, then `dist[idx]` and
//! `dist[dst]`; `if (dist[idx] + wt < dist[dst])` it does `atomicMin(&dist[dst], altdist)` and
//! sets `*changed`. Distances start at `MYINFINITY` (10⁹), the source's at 0. Input: the BFS
//! graph ([`Graph`], Rodinia `graphgen` kind, weights 1–10), source node 0.
//!
//! The control flow follows the data: the workload first runs the relaxation functionally.
//! Approximations: within a launch every thread reads the distances the launch started with
//! (one legal interleaving: all reads before all atomics; on the GPU a thread may see a lower
//! distance another thread of the same launch just wrote), so launch L leaves the shortest
//! distances over at most L edges; `*changed` is stored by every lane whose `if` was taken
//! (on the GPU, by those whose `atomicMin` still lowered the distance, `if (altdist <
//! olddist)`); `atomicMin` is a 4-byte atomic whose old value `olddist` feeds that test, so
//! nvcc compiles it to `ATOMG.E.MIN.S32` with a destination register (not `RED`, which it
//! emits for an unused result), and the warp waits for it before the test; it is performed
//! at the L2, bypassing the L1 ([`Space::Atomic`]), in warpscope as in Accel-Sim; the
//! first-edge lookup (`srcsrc`, `psrc`) is loaded once per edge and shared by
//! `getDestination` and `getWeight`; one ALU slot per compare, add and loop branch.
//!
//! `drelax` (`apps/sssp/sssp_ls.h` of LonestarGPU 2.0) declares no `__shared__` array: no
//! shared memory per CTA.

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
const BLOCK: u32 = 128;

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

/// Where a warp is in `drelax`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum At {
    Index,
    Bound,
    LoadDegree,
    LoopHead,
    LoadSrcsrc,
    LoadPsrc,
    LoadDst,
    LoadWt,
    LoadDistSrc,
    LoadDistDst,
    Compare,
    AtomicMin,
    CompareOld,
    SetChanged,
    Branch,
    Exit,
}

/// A warp's position in `drelax`: all of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SsspCursor {
    at: At,
    /// Node of lane 0.
    first: u32,
    inside: u32,
    active: u32,
    mask: u32,
    /// Edge counter `ii`.
    ii: u32,
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
            inside: 0,
            active: 0,
            mask: u32::MAX,
            ii: 0,
            name: InstrName(""),
        }
    }

    /// Registers per thread [`SsspCursor::fetch`] names: R0..R9 (nvcc gives more:
    /// [`super::ptxas`]).
    pub fn registers(&self) -> u32 {
        10
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
            let ii = self.ii;
            let edge = |t: u32| g.node(t).0 + ii;
            let dst = |t: u32| g.edges[edge(t) as usize];
            let (name, instr) = match self.at {
                At::Index => {
                    self.at = At::Bound;
                    ("IMAD idx = blockIdx.x*blockDim.x + threadIdx.x", alu(0, NO_REG))
                }
                At::Bound => {
                    self.inside =
                        lanes(u32::MAX).filter(|&l| self.first + l < g.nodes()).fold(0, |m, l| m | 1 << l);
                    self.mask = self.inside;
                    self.at = if self.inside == 0 { At::Exit } else { At::LoadDegree };
                    ("ISETP idx < nnodes", alu(0, 0))
                }
                At::LoadDegree => {
                    self.at = At::LoopHead;
                    self.ii = 0;
                    ("LDG noutgoing[idx]", access(NOUTGOING, Space::Global, 1, 0, &|t| t.into()))
                }
                At::LoopHead => {
                    self.active = lanes(self.inside)
                        .filter(|&l| g.node(self.first + l).1 > ii)
                        .fold(0, |m, l| m | 1 << l);
                    self.mask = self.active;
                    self.at = if self.active == 0 { At::Exit } else { At::LoadSrcsrc };
                    continue;
                }
                At::LoadSrcsrc => {
                    self.at = At::LoadPsrc;
                    ("LDG srcsrc[idx]", access(SRCSRC, Space::Global, 2, 0, &|t| t.into()))
                }
                At::LoadPsrc => {
                    self.at = At::LoadDst;
                    ("LDG psrc[srcsrc[idx]]", access(PSRC, Space::Global, 3, 2, &|t| t.into()))
                }
                At::LoadDst => {
                    self.at = At::LoadWt;
                    ("LDG edgessrcdst[edge]", access(DST, Space::Global, 4, 3, &|t| u64::from(edge(t)) + 1))
                }
                At::LoadWt => {
                    self.at = At::LoadDistSrc;
                    ("LDG edgessrcwt[edge]", access(WT, Space::Global, 5, 3, &|t| u64::from(edge(t)) + 1))
                }
                At::LoadDistSrc => {
                    self.at = At::LoadDistDst;
                    ("LDG dist[idx]", access(DIST, Space::Global, 6, 0, &|t| t.into()))
                }
                At::LoadDistDst => {
                    self.at = At::Compare;
                    ("LDG dist[dst]", access(DIST, Space::Global, 7, 4, &|t| dst(t).into()))
                }
                At::Compare => {
                    let l = k.launch;
                    let lower = lanes(mask)
                        .filter(|&lane| {
                            let t = self.first + lane;
                            let alt = k.input.dist(t, l) + u32::from(g.weights[edge(t) as usize]);
                            alt < k.input.dist(dst(t), l)
                        })
                        .fold(0, |m, l| m | 1 << l);
                    self.at = if lower == 0 { At::Branch } else { At::AtomicMin };
                    if lower != 0 {
                        self.mask = lower;
                    }
                    ("ISETP altdist < dist[dst]", alu(8, 7))
                }
                At::AtomicMin => {
                    self.at = At::CompareOld;
                    (
                        "ATOMG.E.MIN.S32 olddist = atomicMin(&dist[dst], altdist)",
                        access(DIST, Space::Atomic, 9, 8, &|t| dst(t).into()),
                    )
                }
                At::CompareOld => {
                    self.at = At::SetChanged;
                    ("ISETP altdist < olddist", alu(8, 9))
                }
                At::SetChanged => {
                    self.at = At::Branch;
                    ("STG.U8 *changed = true", access(CHANGED, Space::Global, NO_REG, NO_REG, &|_| 0))
                }
                At::Branch => {
                    self.mask = self.active;
                    self.ii += 1;
                    self.at = At::LoopHead;
                    ("BRA ii < neighborsize", Instr { mask: self.active, ..alu(1, 1) })
                }
                // BLOCK is a multiple of 32: every warp has 32 threads, all of which end here.
                At::Exit => ("EXIT", Instr::exit(pc, u32::MAX)),
            };
            self.name = InstrName(name);
            return instr;
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
            for w in 0..n.div_ceil(128) * 4 {
                let mut s: Vec<Access> = Vec::new();
                let live: Vec<usize> = (w * 32..w * 32 + 32).filter(|&t| t < n).collect();
                let push =
                    |s: &mut Vec<Access>, store: bool, width: u8, ts: &[usize], at: &dyn Fn(usize) -> u64| {
                        let mask = ts.iter().fold(0u32, |m, t| m | 1 << (t % 32));
                        s.push((store, width, mask, ts.iter().map(|&t| at(t)).collect()));
                    };
                if !live.is_empty() {
                    push(&mut s, false, 4, &live, &|t| nout + 4 * t as u64);
                    for ii in 0.. {
                        let on: Vec<usize> =
                            live.iter().copied().filter(|&t| g.node(t as u32).1 > ii).collect();
                        if on.is_empty() {
                            break;
                        }
                        let e = |t: usize| (g.node(t as u32).0 + ii) as usize;
                        let d = |t: usize| g.edges[e(t)] as usize;
                        push(&mut s, false, 4, &on, &|t| srcsrc + 4 * t as u64);
                        push(&mut s, false, 4, &on, &|t| psrc + 4 * t as u64);
                        push(&mut s, false, 4, &on, &|t| edst + 4 * (e(t) as u64 + 1));
                        push(&mut s, false, 4, &on, &|t| ewt + 4 * (e(t) as u64 + 1));
                        push(&mut s, false, 4, &on, &|t| dist_a + 4 * t as u64);
                        push(&mut s, false, 4, &on, &|t| dist_a + 4 * d(t) as u64);
                        let lower: Vec<usize> = on
                            .iter()
                            .copied()
                            .filter(|&t| start[t] + u32::from(g.weights[e(t)]) < start[d(t)])
                            .collect();
                        if !lower.is_empty() {
                            // olddist = atomicMin(...): an atomic returns a value, a load.
                            push(&mut s, false, 4, &lower, &|t| dist_a + 4 * d(t) as u64);
                            push(&mut s, true, 1, &lower, &|_| changed_a);
                            for &t in &lower {
                                dist[d(t)] = dist[d(t)].min(start[t] + u32::from(g.weights[e(t)]));
                            }
                            changed = true;
                        }
                    }
                }
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
