//! 2MM: two matrix multiplications, C = A·B then E = C·D.
//!
//! Follows PolyBench/GPU 1.0 `2MM/2mm.cu`, `mm2_kernel1` and `mm2_kernel2`, 32 × 8 threads per
//! CTA, thread `j = x`, `i = y`:
//! - kernel 1, `i < NI && j < NJ`: `C[i*NJ + j] = 0; for k < NK: C[i*NJ + j] += A[i*NK + k] * B[k*NJ + j]`;
//! - kernel 2, `i < NI && j < NL`: `E[i*NL + j] = 0; for k < NJ: E[i*NL + j] += C[i*NJ + k] * D[k*NL + j]`.
//!
//! Size: NI = NJ = NK = NL = 2048 (PolyBench/GPU 1.0's default). Approximations: those of
//! [`super::nest`].
//!
//! `2mm.cu`'s kernels declare no `__shared__` array: no shared memory per CTA.

use super::gemm::{Start, product};
use super::nest::NestKernel;
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes};

pub const BENCH: Bench = Bench {
    name: "2mm",
    about: "PolyBench/GPU 2MM: C = A B, E = C D (two memory-coherent products)",
    knobs: &[Knob {
        multiple: 1,
        min: 1,
        max: MAX_SIZE,
        name: "n",
        default: 2048,
        about: "NI = NJ = NK = NL",
    }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let nn = u64::from(n) * u64::from(n);
    let mut m = Memory::default();
    let [a, b, c, d, e] = ["A", "B", "C", "D", "E"].map(|name| m.floats(name, nn));
    vec![
        product(
            "mm2_kernel1",
            &m,
            [c, a, b],
            [n, n, n],
            Start::Zero,
            ["LDG C[i*NJ+j]", "STG C[i*NJ+j]", "LDG A[i*NK+k]", "LDG B[k*NJ+j]", "FFMA C += A*B"],
        ),
        product(
            "mm2_kernel2",
            &m,
            [e, c, d],
            [n, n, n],
            Start::Zero,
            ["LDG E[i*NL+j]", "STG E[i*NL+j]", "LDG C[i*NJ+k]", "LDG D[k*NL+j]", "FFMA E += C*D"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn both_kernels_match_the_loop_nests() {
        let n = 35u64;
        let ks = build(&Sizes([("n", n as u32)].into_iter().collect()));
        for (k, [out, lhs, rhs]) in ks.iter().zip([["C", "A", "B"], ["E", "C", "D"]]) {
            let [o, l, r] = [out, lhs, rhs].map(|name| base(k, name));
            let want = reference(
                k,
                |j, i| i < n && j < n,
                |j, i| {
                    let oij = o + 4 * (i * n + j);
                    let mut v = vec![(true, oij)];
                    for kk in 0..n {
                        v.extend([(false, l + 4 * (i * n + kk)), (false, r + 4 * (kk * n + j))]);
                        v.push((true, oij));
                    }
                    v
                },
            );
            assert_streams(k, &want);
        }
    }
}
