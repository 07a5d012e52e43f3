//! MVT: matrix-vector product and transpose, x1 += A·y1 and x2 += Aᵀ·y2.
//!
//! Follows PolyBench/GPU 1.0 `MVT/mvt.cu`, `mvt_kernel1` and `mvt_kernel2`, 256 × 1 threads per
//! CTA, thread `i < N`:
//! - kernel 1: `for j < N: x1[i] += a[i*N + j] * y_1[j]` (each lane walks its own row);
//! - kernel 2: `for j < N: x2[i] += a[j*N + i] * y_2[j]` (lanes read consecutive columns).
//!
//! Size: N = 8K (seed 004 Table 3.2). Approximations: those of [`super::nest`].
//!
//! `mvt.cu`'s kernels declare no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "mvt",
    about: "PolyBench/GPU MVT: x1 += A y1 (row walk), x2 += A^T y2 (column walk)",
    knobs: &[Knob {
        multiple: 1,
        min: 1,
        max: MAX_SIZE,
        name: "n",
        default: 8192,
        about: "rows and columns of A",
    }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

const BLOCK: u32 = 256;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let mut m = Memory::default();
    let a = m.floats("a", u64::from(n) * u64::from(n));
    let x1 = m.floats("x1", n.into());
    let x2 = m.floats("x2", n.into());
    let y1 = m.floats("y_1", n.into());
    let y2 = m.floats("y_2", n.into());
    let here = Affine::ZERO.x(1);
    let n_ = i64::from(n);
    let kernel = |name: &str, x: usize, y: usize, at_a: Affine, names: [&'static str; 5]| {
        NestKernel::new(
            name,
            [ctas_for(n, BLOCK), 1],
            [BLOCK, 1],
            [(0, n), (0, 1)],
            m.arrays(),
            &[
                Step::Alu("IMAD i = blockIdx.x*blockDim.x + threadIdx.x"),
                Step::Alu("ISETP i < N"),
                Step::Guard,
                Step::Load { array: x, at: here, name: names[0] },
                Step::Loop { trips: n },
                Step::Load { array: a, at: at_a, name: names[1] },
                Step::Load { array: y, at: Affine::ZERO.l0(1), name: names[2] },
                Step::Alu(names[3]),
                Step::Store { array: x, at: here, name: names[4] },
                Step::EndLoop("BRA j < N"),
            ],
        )
    };
    vec![
        kernel(
            "mvt_kernel1",
            x1,
            y1,
            Affine::ZERO.x(n_).l0(1),
            ["LDG x1[i]", "LDG a[i*N+j]", "LDG y_1[j]", "FFMA x1 += a*y_1", "STG x1[i]"],
        ),
        kernel(
            "mvt_kernel2",
            x2,
            y2,
            Affine::ZERO.l0(n_).x(1),
            ["LDG x2[i]", "LDG a[j*N+i]", "LDG y_2[j]", "FFMA x2 += a*y_2", "STG x2[i]"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn both_kernels_match_the_loop_nests() {
        let n = 100u64;
        let ks = build(&Sizes([("n", n as u32)].into_iter().collect()));
        for (k, second) in ks.iter().zip([false, true]) {
            let a = base(k, "a");
            let (x, y) =
                if second { (base(k, "x2"), base(k, "y_2")) } else { (base(k, "x1"), base(k, "y_1")) };
            let want = reference(
                k,
                |i, _| i < n,
                |i, _| {
                    // x[i] is loaded once and kept in a register, stored on every trip.
                    let mut v = vec![(false, x + 4 * i)];
                    for j in 0..n {
                        let e = if second { j * n + i } else { i * n + j };
                        v.extend([(false, a + 4 * e), (false, y + 4 * j), (true, x + 4 * i)]);
                    }
                    v
                },
            );
            assert_streams(k, &want);
        }
    }
}
