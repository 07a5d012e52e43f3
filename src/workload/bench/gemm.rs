//! GEMM: matrix multiply, C = αAB + βC, and the matrix-product kernel 2MM and 3MM reuse.
//!
//! Follows PolyBench/GPU 1.0 `GEMM/gemm.cu`, `gemm_kernel`, 32 × 8 threads per CTA, thread
//! `j = x`, `i = y`, `if (i < NI && j < NJ)`: `c[i*NJ + j] *= BETA; for k < NK:
//! c[i*NJ + j] += ALPHA * a[i*NK + k] * b[k*NJ + j]` — `a[i*NK+k]` is a broadcast within a
//! warp, `b[k*NJ+j]` coalesced, so the kernel is memory-coherent.
//!
//! Size: NI = NJ = NK = 512 (PolyBench/GPU 1.0's default). Approximations: those of
//! [`super::nest`]; `ALPHA * a * b` is two ALU slots.
//!
//! `gemm_kernel` declares no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::syrk::BLOCK;
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "gemm",
    about: "PolyBench/GPU GEMM: C = alpha A B + beta C (2-D grid, memory-coherent)",
    knobs: &[Knob { multiple: 1, min: 1, max: MAX_SIZE, name: "n", default: 512, about: "NI = NJ = NK" }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// How a product kernel starts its output element.
#[derive(Clone, Copy)]
pub enum Start {
    /// `out[i][j] = 0` (2MM, 3MM).
    Zero,
    /// `out[i][j] *= BETA`, and `ALPHA *` before each product (GEMM).
    ScaleBeta,
}

/// A kernel computing `out[i*cols + j] (+)= Σ_k lhs[i*inner + k] * rhs[k*cols + j]` for
/// `i < rows`, `j < cols`; `names` name its load and store of `out`, its loads of `lhs` and
/// `rhs`, and its multiply-add as the source writes them.
pub fn product(
    name: &str,
    m: &Memory,
    [out, lhs, rhs]: [usize; 3],
    [rows, cols, inner]: [u32; 3],
    start: Start,
    names: [&'static str; 5],
) -> NestKernel {
    let at = Affine::ZERO.y(i64::from(cols)).x(1);
    let [ld_out, st_out, ld_lhs, ld_rhs, fma] = names;
    let mut steps = vec![
        Step::Alu("IMAD j = blockIdx.x*blockDim.x + threadIdx.x"),
        Step::Alu("IMAD i = blockIdx.y*blockDim.y + threadIdx.y"),
        Step::Alu("ISETP i < rows && j < cols"),
        Step::Guard,
    ];
    if let Start::ScaleBeta = start {
        steps.extend([Step::Load { array: out, at, name: ld_out }, Step::Alu("FMUL *= BETA")]);
    }
    steps.extend([
        Step::Store { array: out, at, name: st_out },
        Step::Loop { trips: inner },
        Step::Load { array: lhs, at: Affine::ZERO.y(i64::from(inner)).l0(1), name: ld_lhs },
        Step::Load { array: rhs, at: Affine::ZERO.l0(i64::from(cols)).x(1), name: ld_rhs },
    ]);
    if let Start::ScaleBeta = start {
        steps.push(Step::Alu("FMUL ALPHA*lhs"));
    }
    steps.extend([Step::Alu(fma), Step::Store { array: out, at, name: st_out }, Step::EndLoop("BRA k")]);
    NestKernel::new(
        name,
        [ctas_for(cols, BLOCK[0]), ctas_for(rows, BLOCK[1])],
        BLOCK,
        [(0, cols), (0, rows)],
        m.arrays(),
        &steps,
    )
}

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let nn = u64::from(n) * u64::from(n);
    let mut m = Memory::default();
    let a = m.floats("a", nn);
    let b = m.floats("b", nn);
    let c = m.floats("c", nn);
    vec![product(
        "gemm_kernel",
        &m,
        [c, a, b],
        [n, n, n],
        Start::ScaleBeta,
        ["LDG c[i*NJ+j]", "STG c[i*NJ+j]", "LDG a[i*NK+k]", "LDG b[k*NJ+j]", "FFMA c += ALPHA*a*b"],
    )]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn the_kernel_matches_the_loop_nest() {
        let n = 37u64;
        let ks = build(&Sizes([("n", n as u32)].into_iter().collect()));
        let k = &ks[0];
        let [a, b, c] = ["a", "b", "c"].map(|name| base(k, name));
        let want = reference(
            k,
            |j, i| i < n && j < n,
            |j, i| {
                let cij = c + 4 * (i * n + j);
                let mut v = vec![(false, cij), (true, cij)];
                for kk in 0..n {
                    v.extend([(false, a + 4 * (i * n + kk)), (false, b + 4 * (kk * n + j))]);
                    v.push((true, cij));
                }
                v
            },
        );
        assert_streams(k, &want);
    }
}
