//! ATAX: matrix transpose and vector multiplication, y = Aᵀ(Ax).
//!
//! Follows PolyBench/GPU 1.0 `ATAX/atax.cu`, `atax_kernel1` and `atax_kernel2`, launched with
//! 256 × 1 threads per CTA over ⌈NX/256⌉ and ⌈NY/256⌉ CTAs:
//! - kernel 1, thread `i < NX`: `for j < NY: tmp[i] += A[i*NY + j] * x[j]` — each lane walks
//!   its own row of A, so a warp-load of A touches 32 rows (one request per lane).
//! - kernel 2, thread `j < NY`: `for i < NX: y[j] += A[i*NY + j] * tmp[i]` — lanes read
//!   consecutive columns of a row of A (coalesced).
//!
//! Sizes: NX × NY = 8K × 8K (seed 004 Table 3.2). Approximations: those of [`super::nest`].
//!
//! `atax.cu`'s kernels declare no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "atax",
    about: "PolyBench/GPU ATAX: y = A^T (A x), two kernels (row walk, then column walk)",
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
    let x = m.floats("x", ny.into());
    let y = m.floats("y", ny.into());
    let tmp = m.floats("tmp", nx.into());
    let ny_ = i64::from(ny);
    let here = Affine::ZERO.x(1);
    let kernel1 = NestKernel::new(
        "atax_kernel1",
        [ctas_for(nx, BLOCK), 1],
        [BLOCK, 1],
        [(0, nx), (0, 1)],
        m.arrays(),
        &[
            Step::Alu("IMAD i = blockIdx.x*blockDim.x + threadIdx.x"),
            Step::Alu("ISETP i < NX"),
            Step::Guard,
            Step::Load { array: tmp, at: here, name: "LDG tmp[i]" },
            Step::Loop { trips: ny },
            Step::Load { array: a, at: Affine::ZERO.x(ny_).l0(1), name: "LDG A[i*NY+j]" },
            Step::Load { array: x, at: Affine::ZERO.l0(1), name: "LDG x[j]" },
            Step::Alu("FFMA tmp += A*x"),
            Step::Store { array: tmp, at: here, name: "STG tmp[i]" },
            Step::EndLoop("BRA j < NY"),
        ],
    );
    let kernel2 = NestKernel::new(
        "atax_kernel2",
        [ctas_for(ny, BLOCK), 1],
        [BLOCK, 1],
        [(0, ny), (0, 1)],
        m.arrays(),
        &[
            Step::Alu("IMAD j = blockIdx.x*blockDim.x + threadIdx.x"),
            Step::Alu("ISETP j < NY"),
            Step::Guard,
            Step::Load { array: y, at: here, name: "LDG y[j]" },
            Step::Loop { trips: nx },
            Step::Load { array: a, at: Affine::ZERO.l0(ny_).x(1), name: "LDG A[i*NY+j]" },
            Step::Load { array: tmp, at: Affine::ZERO.l0(1), name: "LDG tmp[i]" },
            Step::Alu("FFMA y += A*tmp"),
            Step::Store { array: y, at: here, name: "STG y[j]" },
            Step::EndLoop("BRA i < NX"),
        ],
    );
    vec![kernel1, kernel2]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{Access, base, streams};
    use super::*;

    fn sizes(nx: u32, ny: u32) -> Sizes {
        Sizes([("nx", nx), ("ny", ny)].into_iter().collect())
    }

    /// The loop nests of atax.cu, written out per warp: (store?, width, mask, addresses).
    fn reference(nx: u64, ny: u64, k: &NestKernel, second: bool) -> Vec<Vec<Access>> {
        let (a, x, y, tmp) = (base(k, "A"), base(k, "x"), base(k, "y"), base(k, "tmp"));
        let (outer, inner) = if second { (ny, nx) } else { (nx, ny) };
        let warps = outer.div_ceil(256) * 8;
        (0..warps)
            .map(|w| {
                let threads: Vec<u64> = (w * 32..w * 32 + 32).filter(|&t| t < outer).collect();
                let mask = threads.iter().fold(0u32, |m, t| m | 1 << (t % 32));
                let mut s = Vec::new();
                if threads.is_empty() {
                    return s;
                }
                let f = |g: &dyn Fn(u64) -> u64| threads.iter().map(|&t| g(t)).collect::<Vec<u64>>();
                // The accumulator is loaded once and kept in a register, stored on every trip.
                let acc = if second { y } else { tmp };
                s.push((false, 4, mask, f(&|t| acc + 4 * t)));
                for it in 0..inner {
                    if second {
                        // y[j] += A[i*NY + j] * tmp[i], j = thread, i = it
                        s.push((false, 4, mask, f(&|j| a + 4 * (it * ny + j))));
                        s.push((false, 4, mask, f(&|_| tmp + 4 * it)));
                        s.push((true, 4, mask, f(&|j| y + 4 * j)));
                    } else {
                        // tmp[i] += A[i*NY + j] * x[j], i = thread, j = it
                        s.push((false, 4, mask, f(&|i| a + 4 * (i * ny + it))));
                        s.push((false, 4, mask, f(&|_| x + 4 * it)));
                        s.push((true, 4, mask, f(&|i| tmp + 4 * i)));
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn both_kernels_match_the_loop_nests() {
        // Sizes that leave partial warps and a partial CTA in both kernels.
        for (nx, ny) in [(40, 300), (300, 7)] {
            let ks = build(&sizes(nx, ny));
            assert_eq!(ks.len(), 2);
            for (i, k) in ks.iter().enumerate() {
                let got = streams(k);
                let want = reference(nx.into(), ny.into(), k, i == 1);
                assert_eq!(got.len(), want.len(), "{}: warps", k.name);
                for (w, (g, r)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g, r, "{} ({nx}×{ny}) warp {w}", k.name);
                }
            }
        }
    }

    #[test]
    fn kernel1_warp_loads_touch_a_row_per_lane() {
        let ks = build(&sizes(8192, 8192));
        let mut c = ks[0].cursor(3, 2);
        let mut addrs = [0u64; 32];
        let (names, masks): (Vec<&str>, Vec<u32>) = (0..5)
            .map(|_| {
                let i = c.fetch(&ks[0], &mut addrs);
                (c.name(), i.mask)
            })
            .unzip();
        assert_eq!(
            names,
            [
                "IMAD i = blockIdx.x*blockDim.x + threadIdx.x",
                "ISETP i < NX",
                "EXIT",
                "LDG tmp[i]",
                "LDG A[i*NY+j]"
            ]
        );
        // `if (i < NX)` is `@P0 EXIT`: no lane of this warp leaves.
        assert_eq!(masks, [u32::MAX, u32::MAX, 0, u32::MAX, u32::MAX]);
        assert_eq!(addrs[1] - addrs[0], 8192 * 4, "lanes are a row apart");
        assert_eq!(addrs[0], base(&ks[0], "A") + (3 * 256 + 64) * 8192 * 4);
    }
}
