//! BICG: the BiCGStab sub-kernel, s = Aᵀr and q = Ap.
//!
//! Follows PolyBench/GPU 1.0 `BICG/bicg.cu`, `bicg_kernel1` and `bicg_kernel2`, 256 × 1 threads
//! per CTA:
//! - kernel 1, thread `j < NY`: `s[j] = 0; for i < NX: s[j] += r[i] * A[i*NY + j]` (lanes read
//!   consecutive columns: coalesced);
//! - kernel 2, thread `i < NX`: `q[i] = 0; for j < NY: q[i] += A[i*NY + j] * p[j]` (each lane
//!   walks its own row: one request per lane).
//!
//! Sizes: NX × NY = 8K × 8K (seed 004 Table 3.2). Approximations: those of [`super::nest`].
//!
//! `bicg.cu`'s kernels declare no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "bicg",
    about: "PolyBench/GPU BICG: s = A^T r (column walk), q = A p (row walk)",
    knobs: &[
        Knob { multiple: 1, min: 1, max: MAX_SIZE, name: "nx", default: 8192, about: "rows of A" },
        Knob { multiple: 1, min: 1, max: MAX_SIZE, name: "ny", default: 8192, about: "columns of A" },
    ],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

const BLOCK: u32 = 256;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let (nx, ny) = (s.get("nx"), s.get("ny"));
    let mut m = Memory::default();
    let a = m.floats("A", u64::from(nx) * u64::from(ny));
    let r = m.floats("r", nx.into());
    let sv = m.floats("s", ny.into());
    let p = m.floats("p", ny.into());
    let q = m.floats("q", nx.into());
    let here = Affine::ZERO.x(1);
    let ny_ = i64::from(ny);
    let kernel1 = NestKernel::new(
        "bicg_kernel1",
        [ctas_for(ny, BLOCK), 1],
        [BLOCK, 1],
        [(0, ny), (0, 1)],
        m.arrays(),
        &[
            Step::Alu("IMAD j = blockIdx.x*blockDim.x + threadIdx.x"),
            Step::Alu("ISETP j < NY"),
            Step::Guard,
            Step::Store { array: sv, at: here, name: "STG s[j] = 0" },
            Step::Loop { trips: nx },
            Step::Load { array: r, at: Affine::ZERO.l0(1), name: "LDG r[i]" },
            Step::Load { array: a, at: Affine::ZERO.l0(ny_).x(1), name: "LDG A[i*NY+j]" },
            Step::Alu("FFMA s += r*A"),
            Step::Store { array: sv, at: here, name: "STG s[j]" },
            Step::EndLoop("BRA i < NX"),
        ],
    );
    let kernel2 = NestKernel::new(
        "bicg_kernel2",
        [ctas_for(nx, BLOCK), 1],
        [BLOCK, 1],
        [(0, nx), (0, 1)],
        m.arrays(),
        &[
            Step::Alu("IMAD i = blockIdx.x*blockDim.x + threadIdx.x"),
            Step::Alu("ISETP i < NX"),
            Step::Guard,
            Step::Store { array: q, at: here, name: "STG q[i] = 0" },
            Step::Loop { trips: ny },
            Step::Load { array: a, at: Affine::ZERO.x(ny_).l0(1), name: "LDG A[i*NY+j]" },
            Step::Load { array: p, at: Affine::ZERO.l0(1), name: "LDG p[j]" },
            Step::Alu("FFMA q += A*p"),
            Step::Store { array: q, at: here, name: "STG q[i]" },
            Step::EndLoop("BRA j < NY"),
        ],
    );
    vec![kernel1, kernel2]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn both_kernels_match_the_loop_nests() {
        let (nx, ny) = (70u64, 300u64);
        let ks = build(&Sizes([("nx", nx as u32), ("ny", ny as u32)].into_iter().collect()));
        let k = &ks[0];
        let (a, r, s) = (base(k, "A"), base(k, "r"), base(k, "s"));
        let want = reference(
            k,
            |j, _| j < ny,
            |j, _| {
                let mut v = vec![(true, s + 4 * j)];
                for i in 0..nx {
                    v.extend([(false, r + 4 * i), (false, a + 4 * (i * ny + j))]);
                    v.push((true, s + 4 * j));
                }
                v
            },
        );
        assert_streams(k, &want);
        let k = &ks[1];
        let (p, q) = (base(k, "p"), base(k, "q"));
        let want = reference(
            k,
            |i, _| i < nx,
            |i, _| {
                let mut v = vec![(true, q + 4 * i)];
                for j in 0..ny {
                    v.extend([(false, a + 4 * (i * ny + j)), (false, p + 4 * j)]);
                    v.push((true, q + 4 * i));
                }
                v
            },
        );
        assert_streams(k, &want);
    }
}
