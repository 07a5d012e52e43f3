//! SYRK: symmetric rank-k update, C = αAAᵀ + βC.
//!
//! Follows PolyBench/GPU 1.0 `SYRK/syrk.cu`, `syrk_kernel`, 32 × 8 threads per CTA, thread
//! `j = x`, `i = y`, `if (i < N && j < N)`: `c[i*N + j] *= beta; for k < M:
//! c[i*N + j] += alpha * a[i*M + k] * a[j*M + k]` — `a[i*M+k]` is one element for the warp
//! (a broadcast), `a[j*M+k]` one row per lane.
//!
//! Sizes: N = M = 512 (seed 004 Table 3.2: 512²). Approximations: those of [`super::nest`];
//! `alpha * a * a` is two ALU slots (multiply, multiply-add).
//!
//! `syrk_kernel` declares no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "syrk",
    about: "PolyBench/GPU SYRK: C = alpha A A^T + beta C (2-D grid, broadcast and row walk)",
    knobs: &[
        Knob {
            multiple: 1,
            min: 1,
            max: MAX_SIZE,
            name: "n",
            default: 512,
            about: "rows and columns of C, rows of A",
        },
        Knob { multiple: 1, min: 1, max: MAX_SIZE, name: "m", default: 512, about: "columns of A" },
    ],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// `DIM_THREAD_BLOCK_X` × `DIM_THREAD_BLOCK_Y`.
pub const BLOCK: [u32; 2] = [32, 8];

fn build(s: &Sizes) -> Vec<NestKernel> {
    let (n, mm) = (s.get("n"), s.get("m"));
    let mut m = Memory::default();
    let a = m.floats("a", u64::from(n) * u64::from(mm));
    let c = m.floats("c", u64::from(n) * u64::from(n));
    let cij = Affine::ZERO.y(i64::from(n)).x(1);
    let m_ = i64::from(mm);
    vec![NestKernel::new(
        "syrk_kernel",
        [ctas_for(n, BLOCK[0]), ctas_for(n, BLOCK[1])],
        BLOCK,
        [(0, n), (0, n)],
        m.arrays(),
        &[
            Step::Alu("IMAD j = blockIdx.x*blockDim.x + threadIdx.x"),
            Step::Alu("IMAD i = blockIdx.y*blockDim.y + threadIdx.y"),
            Step::Alu("ISETP i < N && j < N"),
            Step::Guard,
            Step::Load { array: c, at: cij, name: "LDG c[i*N+j]" },
            Step::Alu("FMUL c *= beta"),
            Step::Store { array: c, at: cij, name: "STG c[i*N+j]" },
            Step::Loop { trips: mm },
            Step::Load { array: a, at: Affine::ZERO.y(m_).l0(1), name: "LDG a[i*M+k]" },
            Step::Load { array: a, at: Affine::ZERO.x(m_).l0(1), name: "LDG a[j*M+k]" },
            Step::Alu("FMUL alpha*a"),
            Step::Alu("FFMA c += alpha*a*a"),
            Step::Store { array: c, at: cij, name: "STG c[i*N+j]" },
            Step::EndLoop("BRA k < M"),
        ],
    )]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn the_kernel_matches_the_loop_nest() {
        // 40 × 21: partial warps in x, a partial CTA in y.
        let (n, mm) = (40u64, 21u64);
        let ks = build(&Sizes([("n", n as u32), ("m", mm as u32)].into_iter().collect()));
        let k = &ks[0];
        let (a, c) = (base(k, "a"), base(k, "c"));
        let want = reference(
            k,
            |j, i| i < n && j < n,
            |j, i| {
                let cij = c + 4 * (i * n + j);
                let mut v = vec![(false, cij), (true, cij)];
                for kk in 0..mm {
                    v.extend([(false, a + 4 * (i * mm + kk)), (false, a + 4 * (j * mm + kk))]);
                    v.push((true, cij));
                }
                v
            },
        );
        assert_streams(k, &want);
    }
}
