//! Rodinia BFS: level-synchronous breadth-first search, two kernels per level.
//!
//! Follows Rodinia 3.1 `bfs/kernel.cu` `Kernel` and `bfs/kernel2.cu` `Kernel2`, 512 threads
//! per CTA, thread `tid` owning node `tid`, launched in turn until `Kernel2` sets no `over`:
//! - `Kernel`: `if (tid < no_of_nodes && g_graph_mask[tid])` clear the mask, then for each edge
//!   `i` of the node (`g_graph_nodes[tid].starting`, `.no_of_edges`: lanes leave the loop as
//!   their degree runs out) read `id = g_graph_edges[i]` and `if (!g_graph_visited[id])` write
//!   `g_cost[id] = g_cost[tid] + 1` and `g_updating_graph_mask[id] = true`;
//! - `Kernel2`: `if (tid < no_of_nodes && g_updating_graph_mask[tid])` set the mask, visited and
//!   `*g_over`, clear updating.
//!
//! The control flow follows the data: the workload runs both kernels functionally on the graph
//! first ([`Graph::rodinia_bfs`]), and a warp's masks come from the resulting costs (a node is
//! in the frontier of level L when its cost is L, visited when it is at most L). Input: a
//! [`Graph`] of `nodes` nodes (1M by default, about 6M directed edges as Rodinia's
//! `graph1MW_6.txt`) from `seed`; source node 0. The `bool` arrays are bytes, `Node` is one
//! 8-byte load. Approximations: one ALU slot per compare, add and loop branch of the source;
//! the host's `cudaMemcpy` of `over` between launches is not modelled.
//!
//! As the compiled kernel does (the SASS of Rodinia BFS's `Kernel` in `shared/traces/
//! rodinia-bfs`, PCs `0x0f0`-`0x300`): the node struct is two 4-byte loads, `.no_of_edges`
//! then `.starting`, lanes without edges leaving between them; the `if (!g_graph_visited[id])`
//! body is predicated, not branched around: its load of `g_cost[tid]`, add and two stores
//! issue on every trip with the unvisited lanes active, none when every neighbour was visited
//! (a trace line of mask 0); and under the same predicate the loop condition loads both fields
//! again (the stores may alias them; a lane that stored nothing keeps them in registers), so
//! those two loads too have the unvisited lanes (the trace's PCs `0x290`, `0x2a0` carry the
//! masks of its stores at `0x270`, `0x280` in all 1,480 trips of kernels 3, 5 and 7).
//!
//! Neither `Kernel` nor `Kernel2` declares a `__shared__` array: no shared memory per CTA.

use super::super::instr::{Instr, InstrName, LaneAddrs, NO_REG, Op, Space};
use super::super::synth::{ArrayInfo, lanes};
use super::graph::Graph;
use super::{Bench, Kernel, Knob, Memory, Sizes};
use std::sync::Arc;

pub const BENCH: Bench = Bench {
    name: "bfs",
    about: "Rodinia BFS: Kernel and Kernel2 per level until the frontier is empty (divergent CSR walks)",
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
    build: |s| build(s).into_iter().map(Kernel::Bfs).collect(),
    input_limit: None,
};

/// Most nodes: 16M nodes carry about 100M edges (400 MB of `g_graph_edges`), and edge indices
/// stay within 32 bits.
pub const MAX_NODES: u32 = 1 << 24;

/// The input shared by every launch: the graph, the costs BFS computes, the arrays.
#[derive(Debug, PartialEq)]
pub struct BfsInput {
    pub graph: Graph,
    pub cost: Vec<i32>,
    pub arrays: Vec<ArrayInfo>,
}

/// Which of the two kernels a launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `Kernel`: expand the frontier.
    Expand,
    /// `Kernel2`: make the updated nodes the next frontier.
    Update,
}

/// One launch: a phase of the iteration whose frontier is level `level`.
#[derive(Clone, Debug, PartialEq)]
pub struct BfsKernel {
    pub name: String,
    pub phase: Phase,
    pub level: i32,
    pub input: Arc<BfsInput>,
}

const BLOCK: u32 = 512;
const NODES: usize = 0;
const EDGES: usize = 1;
const MASK: usize = 2;
const UPDATING: usize = 3;
const VISITED: usize = 4;
const COST: usize = 5;
const OVER: usize = 6;

/// Builds the launches: the functional run decides how many levels there are.
pub fn build(s: &Sizes) -> Vec<BfsKernel> {
    let nodes = s.get("nodes");
    let graph = Graph::generate(nodes, u64::from(s.get("seed")));
    let (cost, iterations) = graph.rodinia_bfs(0);
    let mut m = Memory::default();
    let n = u64::from(nodes);
    for (name, elems, bytes) in [
        ("g_graph_nodes", n, 8),
        ("g_graph_edges", graph.edges.len() as u64, 4),
        ("g_graph_mask", n, 1),
        ("g_updating_graph_mask", n, 1),
        ("g_graph_visited", n, 1),
        ("g_cost", n, 4),
        ("g_over", 1, 1),
    ] {
        m.alloc(name, elems, bytes);
    }
    let input = Arc::new(BfsInput { graph, cost, arrays: m.arrays().to_vec() });
    (0..iterations as i32)
        .flat_map(|level| {
            [(Phase::Expand, "Kernel"), (Phase::Update, "Kernel2")].map(|(phase, name)| BfsKernel {
                name: name.into(),
                phase,
                level,
                input: Arc::clone(&input),
            })
        })
        .collect()
}

/// Where a warp is in its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum At {
    Index,
    Bound,
    BoundExit,
    LoadFlag,
    TestFlag,
    FlagExit,
    // Kernel: after the frontier test.
    ClearMask,
    LoadDegree,
    LoadStart,
    End,
    LoopHead,
    LoadEdge,
    LoadVisited,
    TestVisited,
    LoadCost,
    AddOne,
    StoreCost,
    StoreUpdating,
    ReloadDegree,
    DegreeExit,
    ReloadStart,
    Branch,
    // Kernel2: after the updating test.
    SetMask,
    SetVisited,
    SetOver,
    ClearUpdating,
    Exit,
}

/// A warp's position in a BFS kernel: all of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BfsCursor {
    at: At,
    /// Global thread id of lane 0.
    first: u32,
    /// Lanes of the `if`, and of the current loop iteration.
    taken: u32,
    active: u32,
    mask: u32,
    /// Edge loop counter.
    j: u32,
    /// Lanes that left through a guard's `EXIT`.
    left: u32,
    name: InstrName,
}

impl BfsKernel {
    pub fn ctas(&self) -> u32 {
        self.input.graph.nodes().div_ceil(BLOCK)
    }

    pub fn threads_per_cta(&self) -> u32 {
        BLOCK
    }

    pub fn cursor(&self, cta: u32, warp: u32) -> BfsCursor {
        BfsCursor {
            at: At::Index,
            first: cta * BLOCK + warp * 32,
            taken: 0,
            active: 0,
            mask: u32::MAX,
            j: 0,
            left: 0,
            name: InstrName(""),
        }
    }

    /// Registers per thread [`BfsCursor::fetch`] names: R0..R8 in `Kernel`, R0..R2 in
    /// `Kernel2` (nvcc gives more: [`super::ptxas`]).
    pub fn registers(&self) -> u32 {
        match self.phase {
            Phase::Expand => 9,
            Phase::Update => 3,
        }
    }

    /// The byte address of field `offset` (0: `starting`, 4: `no_of_edges`) of `g_graph_nodes[t]`.
    fn node_field(&self, t: u32, offset: u64) -> u64 {
        self.addr(NODES, t.into()) + offset
    }

    fn cost(&self, node: u32) -> i32 {
        self.input.cost[node as usize]
    }

    fn addr(&self, array: usize, elem: u64) -> u64 {
        let a = &self.input.arrays[array];
        a.base + elem * a.elem_bytes
    }
}

/// A 4-byte load of field `offset` of the lanes' `g_graph_nodes[tid]` into `dst`, as nvcc
/// compiles `g_graph_nodes[tid].starting` and `.no_of_edges`: two loads, not one of the struct.
fn node_field(
    k: &BfsKernel,
    pc: u32,
    first: u32,
    mask: u32,
    offset: u64,
    dst: u8,
    addrs: &mut LaneAddrs,
) -> Instr {
    for l in lanes(mask) {
        addrs[l as usize] = k.node_field(first + l, offset);
    }
    let op = Op::Load { space: Space::Global, width: 4 };
    Instr { pc, op, dst, dst_regs: 1, srcs: [0, NO_REG, NO_REG, NO_REG], mask }
}

impl BfsCursor {
    /// Produces the next instruction, writing per-lane addresses for memory instructions.
    pub fn fetch(&mut self, k: &BfsKernel, addrs: &mut LaneAddrs) -> Instr {
        let g = &k.input.graph;
        loop {
            let pc = self.at as u32 * 16;
            let mask = self.mask;
            let alu = |name: &'static str, dst: u8, src: u8| {
                (name, Instr { pc, op: Op::Alu, dst, dst_regs: 1, srcs: [src, NO_REG, NO_REG, NO_REG], mask })
            };
            let mut mem = |array: usize, store: bool, reg: u8, src: u8, elem: &dyn Fn(u32) -> u64| {
                for l in lanes(mask) {
                    addrs[l as usize] = k.addr(array, elem(self.first + l));
                }
                let width = k.input.arrays[array].elem_bytes as u8;
                let space = Space::Global;
                let (op, dst) = if store {
                    (Op::Store { space, width }, NO_REG)
                } else {
                    (Op::Load { space, width }, reg)
                };
                Instr {
                    pc,
                    op,
                    dst,
                    dst_regs: if width == 8 { 2 } else { 1 },
                    srcs: [src, NO_REG, NO_REG, NO_REG],
                    mask,
                }
            };
            let edge = |t: u32, j: u32| u64::from(g.node(t).0 + j);
            let neighbour = |t: u32, j: u32| g.edges[(g.node(t).0 + j) as usize];
            let (name, instr) = match self.at {
                At::Index => {
                    self.at = At::Bound;
                    alu("IMAD tid = blockIdx.x*MAX_THREADS_PER_BLOCK + threadIdx.x", 0, NO_REG)
                }
                At::Bound => {
                    let live =
                        lanes(u32::MAX).filter(|&l| self.first + l < g.nodes()).fold(0, |m, l| m | 1 << l);
                    self.mask = live;
                    self.at = At::BoundExit;
                    alu("ISETP tid < no_of_nodes", 0, 0)
                }
                // nvcc's `@P0 EXIT`s for `tid < no_of_nodes`, the flag and (Kernel)
                // `no_of_edges >= 1`: the lanes that fail leave.
                At::BoundExit | At::FlagExit | At::DegreeExit => {
                    let next = match (self.at, k.phase) {
                        (At::BoundExit, _) => At::LoadFlag,
                        (At::FlagExit, Phase::Expand) => At::ClearMask,
                        (At::FlagExit, Phase::Update) => At::SetMask,
                        _ => At::LoadStart,
                    };
                    return self.leave(pc, next);
                }
                At::LoadFlag => {
                    self.at = At::TestFlag;
                    match k.phase {
                        Phase::Expand => ("LDG.U8 g_graph_mask[tid]", mem(MASK, false, 2, 0, &|t| t.into())),
                        Phase::Update => {
                            ("LDG.U8 g_updating_graph_mask[tid]", mem(UPDATING, false, 2, 0, &|t| t.into()))
                        }
                    }
                }
                At::TestFlag => {
                    let want = match k.phase {
                        Phase::Expand => k.level,
                        Phase::Update => k.level + 1,
                    };
                    self.taken =
                        lanes(mask).filter(|&l| k.cost(self.first + l) == want).fold(0, |m, l| m | 1 << l);
                    self.at = At::FlagExit;
                    let r = alu("ISETP flag[tid]", 0, 2);
                    self.mask = self.taken;
                    r
                }
                At::ClearMask => {
                    self.at = At::LoadDegree;
                    ("STG.U8 g_graph_mask[tid] = false", mem(MASK, true, 0, 0, &|t| t.into()))
                }
                At::LoadDegree | At::ReloadDegree => {
                    // The loop condition's `g_graph_nodes[tid].no_of_edges`; before the loop,
                    // lanes without edges leave, the rest load `starting`.
                    let reload = self.at == At::ReloadDegree;
                    self.at = if reload { At::ReloadStart } else { At::DegreeExit };
                    let i = node_field(k, pc, self.first, mask, 4, 4, addrs);
                    if !reload {
                        self.mask =
                            lanes(mask).filter(|&l| g.node(self.first + l).1 > 0).fold(0, |m, l| m | 1 << l);
                    }
                    ("LDG g_graph_nodes[tid].no_of_edges", i)
                }
                At::LoadStart | At::ReloadStart => {
                    self.at = if self.at == At::ReloadStart { At::Branch } else { At::End };
                    ("LDG g_graph_nodes[tid].starting", node_field(k, pc, self.first, mask, 0, 5, addrs))
                }
                At::End => {
                    self.at = At::LoopHead;
                    self.j = 0;
                    alu("IADD end = starting + no_of_edges", 6, 4)
                }
                At::LoopHead => {
                    let j = self.j;
                    self.active = lanes(self.taken)
                        .filter(|&l| g.node(self.first + l).1 > j)
                        .fold(0, |m, l| m | 1 << l);
                    self.mask = self.active;
                    self.at = if self.active == 0 { At::Exit } else { At::LoadEdge };
                    continue;
                }
                At::LoadEdge => {
                    self.at = At::LoadVisited;
                    let j = self.j;
                    ("LDG g_graph_edges[i]", mem(EDGES, false, 3, 4, &|t| edge(t, j)))
                }
                At::LoadVisited => {
                    self.at = At::TestVisited;
                    let j = self.j;
                    ("LDG.U8 g_graph_visited[id]", mem(VISITED, false, 7, 3, &|t| neighbour(t, j).into()))
                }
                At::TestVisited => {
                    let j = self.j;
                    let level = k.level;
                    let unvisited = lanes(mask)
                        .filter(|&l| {
                            let c = k.cost(neighbour(self.first + l, j));
                            c < 0 || c > level
                        })
                        .fold(0, |m, l| m | 1 << l);
                    // The `if` body is predicated: it issues with the unvisited lanes, maybe none.
                    self.at = At::LoadCost;
                    let r = alu("ISETP !g_graph_visited[id]", 0, 7);
                    self.mask = unvisited;
                    r
                }
                At::LoadCost => {
                    self.at = At::AddOne;
                    ("LDG g_cost[tid]", mem(COST, false, 8, 0, &|t| t.into()))
                }
                At::AddOne => {
                    self.at = At::StoreCost;
                    alu("IADD g_cost[tid] + 1", 8, 8)
                }
                At::StoreCost => {
                    self.at = At::StoreUpdating;
                    let j = self.j;
                    ("STG g_cost[id]", mem(COST, true, 0, 8, &|t| neighbour(t, j).into()))
                }
                At::StoreUpdating => {
                    self.at = At::ReloadDegree;
                    let j = self.j;
                    (
                        "STG.U8 g_updating_graph_mask[id] = true",
                        mem(UPDATING, true, 0, 3, &|t| neighbour(t, j).into()),
                    )
                }
                At::Branch => {
                    self.j += 1;
                    self.at = At::LoopHead;
                    let mask = self.active;
                    let (n, i) = alu("BRA i < end", 6, 6);
                    (n, Instr { mask, ..i })
                }
                At::SetMask => {
                    self.at = At::SetVisited;
                    ("STG.U8 g_graph_mask[tid] = true", mem(MASK, true, 0, 0, &|t| t.into()))
                }
                At::SetVisited => {
                    self.at = At::SetOver;
                    ("STG.U8 g_graph_visited[tid] = true", mem(VISITED, true, 0, 0, &|t| t.into()))
                }
                At::SetOver => {
                    self.at = At::ClearUpdating;
                    ("STG.U8 *g_over = true", mem(OVER, true, 0, NO_REG, &|_| 0))
                }
                At::ClearUpdating => {
                    self.at = At::Exit;
                    ("STG.U8 g_updating_graph_mask[tid] = false", mem(UPDATING, true, 0, 0, &|t| t.into()))
                }
                // BLOCK is a multiple of 32: every warp has 32 threads; those no guard let
                // leave end here.
                At::Exit => ("EXIT", Instr::exit(pc, !self.left)),
            };
            self.name = InstrName(name);
            return instr;
        }
    }

    /// A guard's `EXIT`: the lanes still here but not in the mask leave; with none left in the
    /// mask it is the warp's last instruction, else the warp goes on at `next`.
    fn leave(&mut self, pc: u32, next: At) -> Instr {
        self.name = InstrName("EXIT");
        self.at = if self.mask == 0 { At::Exit } else { next };
        Instr::guard_exit(pc, u32::MAX, &mut self.left, self.mask)
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
    use std::collections::VecDeque;

    /// Rodinia's BFS written out independently: real mask, updating, visited and cost arrays
    /// changed as each launch runs, and per warp (512-thread CTAs cut into 32 lanes) the memory
    /// instructions the SIMT stack issues — the `if`, the edge loop while any lane has edges
    /// left, the inner `if` when any lane's neighbour is unvisited. Returns the streams of every
    /// launch and the final costs.
    fn reference(g: &Graph, base: impl Fn(&str) -> u64) -> (Vec<Vec<Vec<Access>>>, Vec<i32>) {
        let n = g.nodes() as usize;
        let (mut mask, mut updating, mut visited) = (vec![false; n], vec![false; n], vec![false; n]);
        let mut cost = vec![-1i32; n];
        (mask[0], visited[0], cost[0]) = (true, true, 0);
        let [nodes, edges, gmask, gupd, gvis, gcost, gover] = [
            "g_graph_nodes",
            "g_graph_edges",
            "g_graph_mask",
            "g_updating_graph_mask",
            "g_graph_visited",
            "g_cost",
            "g_over",
        ]
        .map(&base);
        let warps = n.div_ceil(512) * 16;
        let access = |store: bool, width: u8, lanes: &[usize], at: &dyn Fn(usize) -> u64| -> Access {
            (
                store,
                width,
                lanes.iter().fold(0u32, |m, t| m | 1 << (t % 32)),
                lanes.iter().map(|&t| at(t)).collect(),
            )
        };
        let mut launches = Vec::new();
        loop {
            let mut launch = Vec::new();
            for w in 0..warps {
                let live: Vec<usize> = (w * 32..w * 32 + 32).filter(|&t| t < n).collect();
                let mut s = Vec::new();
                if !live.is_empty() {
                    s.push(access(false, 1, &live, &|t| gmask + t as u64));
                    let front: Vec<usize> = live.iter().copied().filter(|&t| mask[t]).collect();
                    if !front.is_empty() {
                        s.push(access(true, 1, &front, &|t| gmask + t as u64));
                        let degree = |t: usize| nodes + 8 * t as u64 + 4;
                        let start = |t: usize| nodes + 8 * t as u64;
                        s.push(access(false, 4, &front, &degree));
                        for &t in &front {
                            mask[t] = false;
                        }
                        let with_edges: Vec<usize> =
                            front.iter().copied().filter(|&t| g.node(t as u32).1 > 0).collect();
                        if with_edges.is_empty() {
                            launch.push(s);
                            continue;
                        }
                        s.push(access(false, 4, &with_edges, &start));
                        for j in 0.. {
                            let on: Vec<usize> =
                                front.iter().copied().filter(|&t| g.node(t as u32).1 > j).collect();
                            if on.is_empty() {
                                break;
                            }
                            let e = |t: usize| (g.node(t as u32).0 + j) as usize;
                            let id = |t: usize| g.edges[e(t)] as u64;
                            s.push(access(false, 4, &on, &|t| edges + 4 * e(t) as u64));
                            s.push(access(false, 1, &on, &|t| gvis + id(t)));
                            // Predicated: issued with no lane when every neighbour is visited.
                            let new: Vec<usize> =
                                on.iter().copied().filter(|&t| !visited[id(t) as usize]).collect();
                            s.push(access(false, 4, &new, &|t| gcost + 4 * t as u64));
                            s.push(access(true, 4, &new, &|t| gcost + 4 * id(t)));
                            s.push(access(true, 1, &new, &|t| gupd + id(t)));
                            for &t in &new {
                                cost[id(t) as usize] = cost[t] + 1;
                                updating[id(t) as usize] = true;
                            }
                            // The node is loaded again only where a store may have changed it.
                            s.push(access(false, 4, &new, &degree));
                            s.push(access(false, 4, &new, &start));
                        }
                    }
                }
                launch.push(s);
            }
            launches.push(launch);
            let mut over = false;
            let mut launch = Vec::new();
            for w in 0..warps {
                let live: Vec<usize> = (w * 32..w * 32 + 32).filter(|&t| t < n).collect();
                let mut s = Vec::new();
                if !live.is_empty() {
                    s.push(access(false, 1, &live, &|t| gupd + t as u64));
                    let up: Vec<usize> = live.iter().copied().filter(|&t| updating[t]).collect();
                    if !up.is_empty() {
                        s.push(access(true, 1, &up, &|t| gmask + t as u64));
                        s.push(access(true, 1, &up, &|t| gvis + t as u64));
                        s.push(access(true, 1, &up, &|_| gover));
                        s.push(access(true, 1, &up, &|t| gupd + t as u64));
                        for &t in &up {
                            (mask[t], visited[t], updating[t]) = (true, true, false);
                        }
                        over = true;
                    }
                }
                launch.push(s);
            }
            launches.push(launch);
            if !over {
                return (launches, cost);
            }
        }
    }

    #[test]
    fn every_launch_matches_rodinia_run_on_real_state_and_levels_equal_a_queue_bfs() {
        // 1500 nodes: a partial last CTA and a partial last warp.
        let ks = build(&Sizes([("nodes", 1500), ("seed", 3)].into_iter().collect()));
        let input = &ks[0].input;
        let base = |name: &str| input.arrays.iter().find(|a| a.name == name).expect("array").base;
        let (want, cost) = reference(&input.graph, base);
        assert_eq!(ks.len(), want.len(), "launches until the frontier is empty");
        for (i, (k, w)) in ks.iter().zip(&want).enumerate() {
            assert_eq!(k.name, ["Kernel", "Kernel2"][i % 2]);
            let got = kernel_streams(&Kernel::Bfs(k.clone()));
            assert_eq!(got.len(), w.len());
            for (warp, (g, r)) in got.iter().zip(w).enumerate() {
                assert_eq!(g, r, "launch {i} ({}, level {}) warp {warp}", k.name, k.level);
            }
        }
        // The levels the reference's kernels computed are a breadth-first search's.
        let g = &input.graph;
        let mut level = vec![-1i32; 1500];
        level[0] = 0;
        let mut queue = VecDeque::from([0u32]);
        while let Some(a) = queue.pop_front() {
            let (s, d) = g.node(a);
            for &b in &g.edges[s as usize..(s + d) as usize] {
                if level[b as usize] < 0 {
                    level[b as usize] = level[a as usize] + 1;
                    queue.push_back(b);
                }
            }
        }
        assert_eq!(cost, level);
        assert_eq!(input.cost, level, "the workload's functional run");
        assert!(ks.len() >= 10, "several levels: {}", ks.len());
    }
}
