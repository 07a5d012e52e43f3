//! Rodinia KMeans: the membership kernel, each point's nearest cluster centre.
//!
//! Follows Rodinia 3.1 `kmeans/kmeans_cuda_kernel.cu`, `kmeansPoint`, as `kmeans_cuda.cu`
//! launches it: 256 threads per CTA on a square grid of ⌈√⌈npoints/256⌉⌉² CTAs, `point_id =
//! (gridDim.x*blockIdx.y + blockIdx.x) * 256 + threadIdx.x`; inside `point_id < npoints`, for
//! each cluster `i` and feature `j` it reads `features[point_id + j*npoints]` (the transposed
//! feature array: coalesced) and `clusters[i*nfeatures + j]` (one element per warp), keeps the
//! nearest cluster, and stores `membership[point_id]`.
//!
//! Sizes: 28k points with 4× the 34 features of Rodinia's KDD Cup input (136), Rodinia's
//! default 5 clusters. Approximations: those of [`super::nest`]; the features are read through
//! the texture path and the centres from constant memory in Rodinia, both global loads here;
//! `if (dist < min_dist)` is a compare and a select for every lane (the compiler predicates
//! it); the block-delta and new-centre reductions compiled out by default are not modelled.
//!
//! Shared memory: none. `kmeansPoint`'s `__shared__` arrays (`deltas`, `new_center_ids`) sit
//! inside `#ifdef GPU_DELTA_REDUCTION` / `GPU_NEW_CENTER_REDUCTION`, which the file leaves
//! undefined, and the centres are `__constant__` (`c_clusters`).

use super::nest::{Affine, NestKernel, Step};
use super::{Bench, Knob, Memory, Sizes};

pub const BENCH: Bench = Bench {
    name: "kmeans",
    about: "Rodinia KMeans kmeansPoint: distances of every point to every centre (coalesced features, broadcast centres)",
    knobs: &[
        Knob { multiple: 1, min: 1, max: 1 << 24, name: "points", default: 28_000, about: "data points" },
        Knob { multiple: 1, min: 1, max: 1024, name: "features", default: 136, about: "features per point" },
        Knob { multiple: 1, min: 1, max: 1024, name: "clusters", default: 5, about: "cluster centres" },
    ],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// `THREADS_PER_BLOCK`.
const BLOCK: u32 = 256;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let (points, features, clusters) = (s.get("points"), s.get("features"), s.get("clusters"));
    let mut m = Memory::default();
    let feature = m.floats("features", u64::from(points) * u64::from(features));
    let centre = m.floats("clusters", u64::from(clusters) * u64::from(features));
    let membership = m.floats("membership", points.into());
    // kmeans_cuda.cu: the smallest square grid holding ⌈npoints/256⌉ CTAs.
    let blocks = points.div_ceil(BLOCK);
    let per_dim = (1..).find(|d: &u32| d * d >= blocks).expect("a square holds them");
    vec![NestKernel::new(
        "kmeansPoint",
        // CTAs launch x-fastest, so CTA c of the 1-D numbering is block_id c.
        [per_dim * per_dim, 1],
        [BLOCK, 1],
        [(0, points), (0, 1)],
        m.arrays(),
        &[
            Step::Alu("IMAD block_id = gridDim.x*blockIdx.y + blockIdx.x"),
            Step::Alu("IMAD point_id = block_id*blockDim.x + threadIdx.x"),
            Step::Alu("ISETP point_id < npoints"),
            Step::Guard,
            Step::Loop { trips: clusters },
            Step::Loop { trips: features },
            Step::Load {
                array: feature,
                at: Affine::ZERO.x(1).l1(i64::from(points)),
                name: "LDG features[point_id + j*npoints] (tex1Dfetch)",
            },
            Step::Load {
                array: centre,
                at: Affine::ZERO.l0(i64::from(features)).l1(1),
                name: "LDG clusters[i*nfeatures + j] (constant)",
            },
            Step::Alu("FADD diff = feature - centre"),
            Step::Alu("FFMA ans += diff*diff"),
            Step::EndLoop("BRA j < nfeatures"),
            Step::Alu("FSETP dist < min_dist"),
            Step::Alu("SEL min_dist, index = i"),
            Step::EndLoop("BRA i < nclusters"),
            Step::Store {
                array: membership,
                at: Affine::ZERO.x(1),
                name: "STG membership[point_id] = index",
            },
        ],
    )]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn the_kernel_matches_the_loop_nest_on_a_square_grid() {
        // 1300 points: 6 CTAs of work on a 3 × 3 grid (3 CTAs idle), a partial last warp.
        let (n, f, c) = (1300u64, 7u64, 3u64);
        let ks = build(&Sizes(
            [("points", n as u32), ("features", f as u32), ("clusters", c as u32)].into_iter().collect(),
        ));
        let k = &ks[0];
        assert_eq!(k.ctas(), 9, "⌈√6⌉² CTAs");
        let [feat, cl, mem] = ["features", "clusters", "membership"].map(|name| base(k, name));
        let want = reference(
            k,
            |p, _| p < n,
            |p, _| {
                let mut v = Vec::new();
                for i in 0..c {
                    for j in 0..f {
                        v.push((false, feat + 4 * (p + j * n)));
                        v.push((false, cl + 4 * (i * f + j)));
                    }
                }
                v.push((true, mem + 4 * p));
                v
            },
        );
        assert_streams(k, &want);
    }
}
