//! 3DCONV: 3-D convolution with a 3 × 3 × 3 stencil (15 of its taps are read, 11 of them distinct).
//!
//! Follows PolyBench/GPU 1.0 `3DCONV/3DConvolution.cu`, `convolution3D_kernel(A, B, i)`, which
//! the host launches once per plane `i = 1 .. NI-2` on 32 × 8 threads per CTA, thread `k = x`,
//! `j = y`; inside `0 < j < NJ-1 && 0 < k < NK-1` it sums 15 weighted taps
//! `A[(i+di)*(NK*NJ) + (j+dj)*NK + (k+dk)]` (the offsets of [`TAPS`], in source order) into
//! `B[i*(NK*NJ) + j*NK + k]`. Neighbouring lanes read neighbouring elements: memory-coherent.
//!
//! As nvcc compiles it (CUDA 11.8, sm_70: eleven `LDG`s back to back, then the arithmetic), the
//! source's 15 taps are 11 loads, one per distinct element in the order the source first reads
//! it (it reads two elements three times each), all issued before the weighted sum, whose 15
//! terms are one ALU slot each.
//!
//! Size: NI = NJ = NK = 256 (PolyBench/GPU 1.0's default). Approximations: those of
//! [`super::nest`].
//!
//! `convolution3D_kernel` declares no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::syrk::BLOCK;
use super::{Bench, Knob, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "3dconv",
    about: "PolyBench/GPU 3DCONV: 15-tap 3-D stencil, one launch per plane (memory-coherent)",
    knobs: &[Knob { multiple: 1, min: 3, max: 4096, name: "n", default: 256, about: "NI = NJ = NK" }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// The taps' (di, dj, dk) in the order the source adds them.
pub const TAPS: [(i64, i64, i64); 15] = [
    (-1, -1, -1),
    (1, -1, -1),
    (-1, -1, -1),
    (1, -1, -1),
    (-1, -1, -1),
    (1, -1, -1),
    (0, -1, 0),
    (0, 0, 0),
    (0, 1, 0),
    (-1, -1, 1),
    (1, -1, 1),
    (-1, 0, 1),
    (1, 0, 1),
    (-1, 1, 1),
    (1, 1, 1),
];

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let plane = i64::from(n) * i64::from(n);
    let mut m = Memory::default();
    let a = m.floats("A", u64::from(n).pow(3));
    let b = m.floats("B", u64::from(n).pow(3));
    // j, k of the thread: element j*NK + k of a plane.
    let jk = Affine::ZERO.y(i64::from(n)).x(1);
    (1..n.saturating_sub(1))
        .map(|i| {
            let mut steps = vec![
                Step::Alu("IMAD k = blockIdx.x*blockDim.x + threadIdx.x"),
                Step::Alu("IMAD j = blockIdx.y*blockDim.y + threadIdx.y"),
                Step::Alu("ISETP 0 < i,j,k < N-1"),
                Step::Guard,
            ];
            for (t, &(di, dj, dk)) in TAPS.iter().enumerate() {
                if !TAPS[..t].contains(&(di, dj, dk)) {
                    let c = (i64::from(i) + di) * plane + dj * i64::from(n) + dk;
                    steps.push(Step::Load { array: a, at: jk.c(c), name: "LDG A[i±1, j±1, k±1]" });
                }
            }
            steps.extend(TAPS.map(|_| Step::Alu("FFMA sum += c*A")));
            steps.push(Step::Store { array: b, at: jk.c(i64::from(i) * plane), name: "STG B[i, j, k]" });
            NestKernel::new(
                "convolution3D_kernel",
                [ctas_for(n, BLOCK[0]), ctas_for(n, BLOCK[1])],
                BLOCK,
                [(1, n - 1), (1, n - 1)],
                m.arrays(),
                &steps,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn every_plane_matches_the_stencil() {
        let n = 36u64;
        let ks = build(&Sizes([("n", n as u32)].into_iter().collect()));
        assert_eq!(ks.len() as u64, n - 2, "one launch per inner plane");
        for (plane, k) in ks.iter().enumerate() {
            let i = plane as u64 + 1;
            let (a, b) = (base(k, "A"), base(k, "B"));
            let at = |i: u64, j: u64, kk: u64| 4 * (i * n * n + j * n + kk);
            let want = reference(
                k,
                |kk, j| 0 < j && j < n - 1 && 0 < kk && kk < n - 1,
                |kk, j| {
                    let (m, p) = (|v: u64| v - 1, |v: u64| v + 1);
                    let taps = [
                        at(m(i), m(j), m(kk)),
                        at(p(i), m(j), m(kk)),
                        at(m(i), m(j), m(kk)),
                        at(p(i), m(j), m(kk)),
                        at(m(i), m(j), m(kk)),
                        at(p(i), m(j), m(kk)),
                        at(i, m(j), kk),
                        at(i, j, kk),
                        at(i, p(j), kk),
                        at(m(i), m(j), p(kk)),
                        at(p(i), m(j), p(kk)),
                        at(m(i), j, p(kk)),
                        at(p(i), j, p(kk)),
                        at(m(i), p(j), p(kk)),
                        at(p(i), p(j), p(kk)),
                    ];
                    // Each element loaded once, where the source first reads it.
                    let mut v: Vec<(bool, u64)> = Vec::new();
                    for e in taps {
                        if !v.contains(&(false, a + e)) {
                            v.push((false, a + e));
                        }
                    }
                    assert_eq!(v.len(), 11);
                    v.push((true, b + at(i, j, kk)));
                    v
                },
            );
            assert_streams(k, &want);
        }
    }
}
