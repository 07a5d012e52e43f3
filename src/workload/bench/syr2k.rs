//! SYR2K: symmetric rank-2k update, C = αABᵀ + αBAᵀ + βC.
//!
//! Follows PolyBench/GPU 1.0 `SYR2K/syr2k.cu`, `syr2k_kernel`, 32 × 8 threads per CTA, thread
//! `j = x`, `i = y`, `if (i < N && j < N)`: `c[i*N + j] *= BETA; for k < M:
//! c[i*N + j] += ALPHA * a[i*M + k] * b[j*M + k] + ALPHA * b[i*M + k] * a[j*M + k]`.
//!
//! Sizes: N = M = 256 (seed 004 Table 3.2: 256²). Approximations: those of [`super::nest`];
//! the update is four ALU slots (two multiplies, two multiply-adds).
//!
//! `syr2k_kernel` declares no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::syrk::BLOCK;
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "syr2k",
    about: "PolyBench/GPU SYR2K: C = alpha A B^T + alpha B A^T + beta C (2-D grid)",
    knobs: &[
        Knob {
            multiple: 1,
            min: 1,
            max: MAX_SIZE,
            name: "n",
            default: 256,
            about: "rows and columns of C, rows of A and B",
        },
        Knob { multiple: 1, min: 1, max: MAX_SIZE, name: "m", default: 256, about: "columns of A and B" },
    ],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

fn build(s: &Sizes) -> Vec<NestKernel> {
    let (n, mm) = (s.get("n"), s.get("m"));
    let mut m = Memory::default();
    let a = m.floats("a", u64::from(n) * u64::from(mm));
    let b = m.floats("b", u64::from(n) * u64::from(mm));
    let c = m.floats("c", u64::from(n) * u64::from(n));
    let cij = Affine::ZERO.y(i64::from(n)).x(1);
    let m_ = i64::from(mm);
    let (ik, jk) = (Affine::ZERO.y(m_).l0(1), Affine::ZERO.x(m_).l0(1));
    vec![NestKernel::new(
        "syr2k_kernel",
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
            Step::Alu("FMUL c *= BETA"),
            Step::Store { array: c, at: cij, name: "STG c[i*N+j]" },
            Step::Loop { trips: mm },
            Step::Load { array: a, at: ik, name: "LDG a[i*M+k]" },
            Step::Load { array: b, at: jk, name: "LDG b[j*M+k]" },
            Step::Alu("FMUL ALPHA*a"),
            Step::Alu("FFMA c += ALPHA*a*b"),
            Step::Load { array: b, at: ik, name: "LDG b[i*M+k]" },
            Step::Load { array: a, at: jk, name: "LDG a[j*M+k]" },
            Step::Alu("FMUL ALPHA*b"),
            Step::Alu("FFMA c += ALPHA*b*a"),
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
        let (n, mm) = (33u64, 10u64);
        let ks = build(&Sizes([("n", n as u32), ("m", mm as u32)].into_iter().collect()));
        let k = &ks[0];
        let [a, b, c] = ["a", "b", "c"].map(|name| base(k, name));
        let want = reference(
            k,
            |j, i| i < n && j < n,
            |j, i| {
                let cij = c + 4 * (i * n + j);
                let mut v = vec![(false, cij), (true, cij)];
                for kk in 0..mm {
                    let (ik, jk) = (4 * (i * mm + kk), 4 * (j * mm + kk));
                    v.extend([(false, a + ik), (false, b + jk), (false, b + ik), (false, a + jk)]);
                    v.push((true, cij));
                }
                v
            },
        );
        assert_streams(k, &want);
    }
}
