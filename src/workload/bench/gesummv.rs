//! GESUMMV: scalar, vector and matrix multiplication, y = αAx + βBx.
//!
//! Follows PolyBench/GPU 1.0 `GESUMMV/gesummv.cu`, `gesummv_kernel`, 256 × 1 threads per CTA,
//! thread `i < N`: `for j < N { tmp[i] += a[i*N + j] * x[j]; y[i] += b[i*N + j] * x[j]; }`
//! then `y[i] = ALPHA * tmp[i] + BETA * y[i]` — each lane walks its own rows of A and B.
//!
//! Size: N = 4K (seed 004 Table 3.2). Approximations: those of [`super::nest`]; the final
//! statement is two ALU slots (multiply, multiply-add).
//!
//! `gesummv_kernel` declares no `__shared__` array: no shared memory per CTA.

use super::nest::{Affine, NestKernel, Step};
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes, ctas_for};

pub const BENCH: Bench = Bench {
    name: "gesummv",
    about: "PolyBench/GPU GESUMMV: y = alpha A x + beta B x (two row walks per thread)",
    knobs: &[Knob {
        multiple: 1,
        min: 1,
        max: MAX_SIZE,
        name: "n",
        default: 4096,
        about: "rows and columns of A and B",
    }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

const BLOCK: u32 = 256;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let mut m = Memory::default();
    let a = m.floats("a", u64::from(n) * u64::from(n));
    let b = m.floats("b", u64::from(n) * u64::from(n));
    let x = m.floats("x", n.into());
    let y = m.floats("y", n.into());
    let tmp = m.floats("tmp", n.into());
    let here = Affine::ZERO.x(1);
    let row = Affine::ZERO.x(i64::from(n)).l0(1);
    let xj = Affine::ZERO.l0(1);
    vec![NestKernel::new(
        "gesummv_kernel",
        [ctas_for(n, BLOCK), 1],
        [BLOCK, 1],
        [(0, n), (0, 1)],
        m.arrays(),
        &[
            Step::Alu("IMAD i = blockIdx.x*blockDim.x + threadIdx.x"),
            Step::Alu("ISETP i < N"),
            Step::Guard,
            Step::Loop { trips: n },
            Step::Load { array: tmp, at: here, name: "LDG tmp[i]" },
            Step::Load { array: a, at: row, name: "LDG a[i*N+j]" },
            Step::Load { array: x, at: xj, name: "LDG x[j]" },
            Step::Alu("FFMA tmp += a*x"),
            Step::Store { array: tmp, at: here, name: "STG tmp[i]" },
            Step::Load { array: y, at: here, name: "LDG y[i]" },
            Step::Load { array: b, at: row, name: "LDG b[i*N+j]" },
            Step::Load { array: x, at: xj, name: "LDG x[j]" },
            Step::Alu("FFMA y += b*x"),
            Step::Store { array: y, at: here, name: "STG y[i]" },
            Step::EndLoop("BRA j < N"),
            Step::Load { array: tmp, at: here, name: "LDG tmp[i]" },
            Step::Load { array: y, at: here, name: "LDG y[i]" },
            Step::Alu("FMUL BETA*y"),
            Step::Alu("FFMA ALPHA*tmp + BETA*y"),
            Step::Store { array: y, at: here, name: "STG y[i]" },
        ],
    )]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn the_kernel_matches_the_loop_nest() {
        let n = 90u64;
        let ks = build(&Sizes([("n", n as u32)].into_iter().collect()));
        let k = &ks[0];
        let [a, b, x, y, tmp] = ["a", "b", "x", "y", "tmp"].map(|name| base(k, name));
        let want = reference(
            k,
            |i, _| i < n,
            |i, _| {
                let mut v = Vec::new();
                for j in 0..n {
                    v.extend([(false, tmp + 4 * i), (false, a + 4 * (i * n + j)), (false, x + 4 * j)]);
                    v.push((true, tmp + 4 * i));
                    v.extend([(false, y + 4 * i), (false, b + 4 * (i * n + j)), (false, x + 4 * j)]);
                    v.push((true, y + 4 * i));
                }
                v.extend([(false, tmp + 4 * i), (false, y + 4 * i), (true, y + 4 * i)]);
                v
            },
        );
        assert_streams(k, &want);
    }
}
