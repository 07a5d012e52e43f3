//! Streamcluster: online k-median clustering; the kernel prices opening a candidate centre.
//!
//! Follows Rodinia 3.1 `streamcluster/streamcluster_cuda.cu`, `kernel_compute_cost`, as
//! `pgain` launches it: 512 threads per CTA (`THREADS_PER_BLOCK`), one thread per point `tid <
//! num`. A thread computes the squared distance from its point to the candidate `x` over `dim`
//! coordinates — `coord_d[i*num + tid]` (coalesced: the coordinates are stored transposed) and
//! `coord_d[i*num + x]` (one address for the warp) — scales it by `p[tid].weight`, and compares
//! it with `p[tid].cost`: a point that would be cheaper at `x` sets `switch_membership_d[tid]`
//! and adds the saving to `work_mem_d[tid*stride + K]`; any other adds the loss to
//! `work_mem_d[tid*stride + center_table_d[p[tid].assign]]`, an index read from memory. `p` is
//! an array of 32-byte `Point` structs (`weight` at byte 0, `coord` pointer at 8, `assign` (a
//! `long`) at 16, `cost` at 24), so a warp's `p[tid].…` loads touch 1 KB each — seed 004's
//! "divergent loads from references to arrays of structs outside the main loop".
//!
//! Size: seed 004 Table 5.2's 256K points with Rodinia's `dim` = 256 (its run script), two
//! launches as seed 004 simulates ("only two kernel invocations in SC are enabled").
//! Input: Rodinia's `SimStream` draws every coordinate uniformly in [0, 1); ours come from the
//! seeded hash, in the same range, with weight 1 as `SimStream` gives. Approximations: the
//! solution the first `pgain` calls see is the output of Rodinia's `speedy` and earlier calls;
//! here it is `K` centres drawn among the points, each point assigned to its nearest (`speedy`'s
//! rule) at that squared distance as its cost, and one candidate `x` per launch, drawn among the
//! points; the branch and the index then follow from those values, computed in `f32` as the
//! kernel does. One ALU issue slot per arithmetic statement and loop branch ([`super::nest`]);
//! an index read from memory waits for the loads before it. As nvcc compiles it (CUDA 11.8,
//! sm_70), the cheaper side loads `p[tid].cost` again after its store to
//! `switch_membership_d` (which may alias it), the other side uses the value it compared.
//!
//! `kernel_compute_cost` declares no `__shared__` array: no shared memory per CTA.

use super::super::hash::{hash, unit};
use super::nest::{Affine, NestData, NestKernel, Step};
use super::{Bench, InputLimit, Knob, Memory, Sizes, progress};
use std::sync::Arc;

pub const BENCH: Bench = Bench {
    name: "streamcluster",
    about: "Rodinia Streamcluster kernel_compute_cost: transposed coordinates (coalesced), 32-byte Point structs (divergent), a data-dependent branch and gather",
    knobs: &[
        Knob { multiple: 1, min: 1, max: 1 << 22, name: "points", default: 262_144, about: "points (num)" },
        Knob { multiple: 1, min: 1, max: 1024, name: "dim", default: 256, about: "coordinates per point" },
        Knob {
            multiple: 1,
            min: 1,
            max: 1024,
            name: "centres",
            default: 20,
            about: "open centres (K; Rodinia's kmax)",
        },
        Knob { multiple: 1, min: 1, max: 1000, name: "launches", default: 2, about: "pgain calls simulated" },
        Knob {
            multiple: 1,
            min: 0,
            max: u32::MAX,
            name: "seed",
            default: 11,
            about: "seed of the points and choices",
        },
    ],
    build: |s| super::nests(build(s)),
    // Every point's distance to each centre (its assignment) and, per launch, to the candidate.
    input_limit: Some(InputLimit {
        steps: |s| {
            u64::from(s.get("points"))
                * u64::from(s.get("dim"))
                * u64::from(s.get("centres") + s.get("launches"))
        },
        formula: "points × dim × (centres + launches) coordinate differences",
    }),
};

/// `THREADS_PER_BLOCK`.
const BLOCK: u32 = 512;
/// 4-byte words of a `Point` (32 bytes): `weight` is word 0, `cost` word 6; `assign` is the
/// third 8-byte word.
const POINT_WORDS: i64 = 8;
const COST: i64 = 6;
const ASSIGN: i64 = 2;
/// Value tables of the kernels' data: each point's `assign`, and `center_table[assign]`.
const ASSIGN_TABLE: u8 = 0;
const CENTRE_TABLE: u8 = 1;

/// The generated input: what the kernel reads from memory that steers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub points: u32,
    pub dim: u32,
    /// Point index of each centre.
    pub centres: Vec<u32>,
    /// Per point: the point index of its centre (`assign`), that centre's number
    /// (`center_table[assign]`) and the cost of the assignment.
    pub assign: Vec<u32>,
    pub centre_of: Vec<u32>,
    pub cost: Vec<f32>,
    /// Per launch: the candidate `x`.
    pub candidates: Vec<u32>,
}

impl Input {
    /// Coordinate `d` of point `p`, uniform in [0, 1).
    pub fn coord(seed: u64, p: u32, d: u32) -> f32 {
        unit(hash(seed, &[u64::from(p), u64::from(d)])) as f32
    }

    /// `d_dist`: the squared distance between two points, summed in `f32` in coordinate order.
    pub fn dist(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).fold(0.0f32, |acc, (x, y)| {
            let t = x - y;
            acc + t * t
        })
    }

    pub fn generate(s: &Sizes) -> Input {
        let (points, dim, k, launches) = (s.get("points"), s.get("dim"), s.get("centres"), s.get("launches"));
        let seed = u64::from(s.get("seed"));
        let coords = |p: u32| -> Vec<f32> { (0..dim).map(|d| Input::coord(seed, p, d)).collect() };
        let mut centres: Vec<u32> = Vec::new();
        for i in 0u64.. {
            if centres.len() == k.min(points) as usize {
                break;
            }
            let c = (hash(seed, &[1 << 40, i]) % u64::from(points)) as u32;
            if !centres.contains(&c) {
                centres.push(c);
            }
        }
        let candidates: Vec<u32> = (0..launches)
            .map(|l| (hash(seed, &[1 << 41, u64::from(l)]) % u64::from(points)) as u32)
            .collect();
        let centre_coords: Vec<Vec<f32>> = centres.iter().map(|&c| coords(c)).collect();
        let (mut assign, mut centre_of, mut cost) = (Vec::new(), Vec::new(), Vec::new());
        progress::begin("point assignments", Some(points.into()));
        for p in 0..points {
            progress::advance(1);
            let mine = coords(p);
            let (best, d) = centre_coords
                .iter()
                .map(|c| Input::dist(&mine, c))
                .enumerate()
                .fold((0, f32::INFINITY), |b, (i, d)| if d < b.1 { (i, d) } else { b });
            assign.push(centres[best]);
            centre_of.push(best as u32);
            cost.push(d);
        }
        Input { points, dim, centres, assign, centre_of, cost, candidates }
    }

    /// Per launch, the points cheaper at the candidate (`x_cost < p[tid].cost`), as bit sets.
    pub fn cheaper(&self, seed: u64) -> Vec<Vec<u64>> {
        let coords = |p: u32| -> Vec<f32> { (0..self.dim).map(|d| Input::coord(seed, p, d)).collect() };
        progress::begin(
            "pgain candidates' points",
            Some(self.candidates.len() as u64 * u64::from(self.points)),
        );
        self.candidates
            .iter()
            .map(|&x| {
                let at_x = coords(x);
                let mut bits = vec![0u64; (self.points as usize).div_ceil(64)];
                for p in 0..self.points {
                    progress::advance(1);
                    if Input::dist(&coords(p), &at_x) < self.cost[p as usize] {
                        bits[p as usize / 64] |= 1 << (p % 64);
                    }
                }
                bits
            })
            .collect()
    }
}

fn build(s: &Sizes) -> Vec<NestKernel> {
    let input = Input::generate(s);
    let flags = input.cheaper(u64::from(s.get("seed")));
    let (num, dim, k) = (u64::from(input.points), input.dim, i64::from(s.get("centres").min(input.points)));
    let stride = k + 1;
    let mut m = Memory::default();
    // allocDevMem's order, then pgain's work memory.
    let center_table = m.alloc("center_table_d", num, 4);
    let switch = m.alloc("switch_membership_d", num, 1);
    let p = m.alloc("p", num * POINT_WORDS as u64, 4);
    let coord = m.alloc("coord_d", num * u64::from(dim), 4);
    let work = m.alloc("work_mem_d", stride as u64 * (num + 1), 4);
    let mut arrays = m.arrays().to_vec();
    // The same structs read as 8-byte words, for `assign`.
    let p8 = arrays.len();
    arrays.push(super::super::synth::ArrayInfo {
        name: "p (8-byte members)".into(),
        elem_bytes: 8,
        elems: num * 4,
        ..arrays[p].clone()
    });
    let tables = vec![input.assign.clone(), input.centre_of.clone()];
    let n = i64::from(input.points);
    input
        .candidates
        .iter()
        .zip(flags)
        .map(|(&x, cheaper)| {
            let member = |word: i64| Affine::ZERO.x(POINT_WORDS).c(word);
            let lower = Affine::ZERO.x(stride);
            let steps = [
                Step::Alu("IMAD bid = blockIdx.x + gridDim.x*blockIdx.y"),
                Step::Alu("IMAD tid = blockDim.x*bid + threadIdx.x"),
                Step::Alu("ISETP tid < num"),
                Step::Guard,
                Step::Alu("IMAD lower = &work_mem_d[tid*stride]"),
                Step::Loop { trips: dim },
                Step::Load { array: coord, at: Affine::ZERO.x(1).l0(n), name: "LDG coord_d[i*num + tid]" },
                Step::Load {
                    array: coord,
                    at: Affine::ZERO.l0(n).c(i64::from(x)),
                    name: "LDG coord_d[i*num + x]",
                },
                Step::Alu("FADD tmp = coord_d[p1] - coord_d[p2]"),
                Step::Alu("FFMA retval += tmp*tmp"),
                Step::EndLoop("BRA i < dim"),
                Step::Load { array: p, at: member(0), name: "LDG p[tid].weight" },
                Step::Alu("FMUL x_cost = d_dist * weight"),
                Step::Load { array: p, at: member(COST), name: "LDG p[tid].cost" },
                Step::Alu("FSETP x_cost < p[tid].cost"),
                Step::IfFlag(0),
                Step::Store {
                    array: switch,
                    at: Affine::ZERO.x(1),
                    name: "STG switch_membership_d[tid] = 1",
                },
                Step::Load { array: work, at: lower.c(k), name: "LDG lower[K]" },
                Step::Load { array: p, at: member(COST), name: "LDG p[tid].cost" },
                Step::Alu("FADD lower[K] += x_cost - p[tid].cost"),
                Step::Store { array: work, at: lower.c(k), name: "STG lower[K]" },
                Step::Else,
                Step::Load { array: p8, at: Affine::ZERO.x(4).c(ASSIGN), name: "LDG p[tid].assign" },
                Step::Gather {
                    array: center_table,
                    at: Affine::ZERO,
                    table: ASSIGN_TABLE,
                    store: false,
                    name: "LDG center_table_d[p[tid].assign]",
                },
                Step::Gather {
                    array: work,
                    at: lower,
                    table: CENTRE_TABLE,
                    store: false,
                    name: "LDG lower[center_table_d[assign]]",
                },
                Step::Alu("FADD p[tid].cost - x_cost"),
                Step::Alu("FADD lower[...] += ..."),
                Step::Gather {
                    array: work,
                    at: lower,
                    table: CENTRE_TABLE,
                    store: true,
                    name: "STG lower[center_table_d[assign]]",
                },
                Step::EndIf,
            ];
            let data = Arc::new(NestData { tables: tables.clone(), flags: vec![cheaper] });
            NestKernel::new(
                "kernel_compute_cost",
                [input.points.div_ceil(BLOCK), 1],
                [BLOCK, 1],
                [(0, input.points), (0, 1)],
                &arrays,
                &steps,
            )
            .with_data(data)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{Access, assert_streams, base};
    use super::*;

    fn sizes(points: u32, dim: u32, centres: u32, launches: u32, seed: u32) -> Sizes {
        Sizes(
            [("points", points), ("dim", dim), ("centres", centres), ("launches", launches), ("seed", seed)]
                .into_iter()
                .collect(),
        )
    }

    #[test]
    fn points_go_to_their_nearest_centre_and_the_branch_is_the_kernels_comparison() {
        let s = sizes(300, 7, 5, 3, 4);
        let input = Input::generate(&s);
        let coords = |p: u32| -> Vec<f32> { (0..7).map(|d| Input::coord(4, p, d)).collect() };
        assert_eq!(input.centres.len(), 5);
        for p in 0..300u32 {
            let d: Vec<f32> = input.centres.iter().map(|&c| Input::dist(&coords(p), &coords(c))).collect();
            let nearest = d.iter().cloned().fold(f32::INFINITY, f32::min);
            assert_eq!(input.cost[p as usize], nearest, "point {p}");
            assert_eq!(input.assign[p as usize], input.centres[input.centre_of[p as usize] as usize]);
        }
        let cheaper = input.cheaper(4);
        for (l, &x) in input.candidates.iter().enumerate() {
            let set: Vec<bool> = (0..300).map(|p| cheaper[l][p / 64] >> (p % 64) & 1 != 0).collect();
            for p in 0..300u32 {
                let x_cost = Input::dist(&coords(p), &coords(x));
                assert_eq!(set[p as usize], x_cost < input.cost[p as usize], "launch {l} point {p}");
            }
            assert!(set.iter().any(|&b| b) && set.iter().any(|&b| !b), "both sides of the branch occur");
        }
        assert_ne!(Input::generate(&sizes(300, 7, 5, 3, 5)), input, "the seed matters");
        assert_eq!(Input::generate(&s), input, "deterministic");
    }

    #[test]
    fn every_warp_makes_the_kernels_accesses() {
        // 1100 points: a partial last CTA; 6 coordinates, 4 centres, two launches.
        let s = sizes(1100, 6, 4, 2, 9);
        let ks = build(&s);
        let input = Input::generate(&s);
        let cheaper = input.cheaper(9);
        let k = &ks[0];
        let [ct, sw, p, coord, work] =
            ["center_table_d", "switch_membership_d", "p", "coord_d", "work_mem_d"].map(|a| base(k, a));
        let (num, stride) = (1100u64, 5u64);
        for (l, kernel) in ks.iter().enumerate() {
            let x = u64::from(input.candidates[l]);
            // Each thread's accesses in program order; warps zip their lanes' lists where
            // the lanes take the same side of the branch.
            let mut want: Vec<Vec<Access>> = Vec::new();
            for cta in 0..3u64 {
                for w in 0..16u64 {
                    let tids: Vec<u64> =
                        (0..32).map(|l| cta * 512 + w * 32 + l).filter(|&t| t < num).collect();
                    let mut warp: Vec<Access> = Vec::new();
                    let mut push = |store: bool, width: u8, on: &[u64], at: &dyn Fn(u64) -> u64| {
                        if on.is_empty() {
                            return;
                        }
                        let mask = on.iter().fold(0u32, |m, t| m | 1 << (t % 32));
                        warp.push((store, width, mask, on.iter().map(|&t| at(t)).collect()));
                    };
                    for i in 0..6 {
                        push(false, 4, &tids, &|t| coord + 4 * (i * num + t));
                        push(false, 4, &tids, &|_| coord + 4 * (i * num + x));
                    }
                    push(false, 4, &tids, &|t| p + 32 * t);
                    push(false, 4, &tids, &|t| p + 32 * t + 24);
                    let (yes, no): (Vec<u64>, Vec<u64>) =
                        tids.iter().partition(|&&t| cheaper[l][t as usize / 64] >> (t % 64) & 1 != 0);
                    push(true, 1, &yes, &|t| sw + t);
                    push(false, 4, &yes, &|t| work + 4 * (t * stride + 4));
                    push(false, 4, &yes, &|t| p + 32 * t + 24);
                    push(true, 4, &yes, &|t| work + 4 * (t * stride + 4));
                    let centre = |t: u64| u64::from(input.centre_of[t as usize]);
                    push(false, 8, &no, &|t| p + 32 * t + 16);
                    push(false, 4, &no, &|t| ct + 4 * u64::from(input.assign[t as usize]));
                    // The else side keeps p[tid].cost in its register (no store came between).
                    push(false, 4, &no, &|t| work + 4 * (t * stride + centre(t)));
                    push(true, 4, &no, &|t| work + 4 * (t * stride + centre(t)));
                    want.push(warp);
                }
            }
            assert_streams(kernel, &want);
        }
    }
}
