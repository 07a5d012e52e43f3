//! 3MM: three matrix multiplications, E = A·B, F = C·D, G = E·F.
//!
//! Follows PolyBench/GPU 1.0 `3MM/3mm.cu`, `mm3_kernel1`, `mm3_kernel2` and `mm3_kernel3`,
//! 32 × 8 threads per CTA, thread `j = x`, `i = y`; each kernel is
//! `out[i][j] = 0; for k: out[i][j] += lhs[i][k] * rhs[k][j]` on row-major arrays.
//!
//! Size: NI = NJ = NK = NL = NM = 512 (PolyBench/GPU 1.0's default). Approximations: those of
//! [`super::nest`].
//!
//! `3mm.cu`'s kernels declare no `__shared__` array: no shared memory per CTA.

use super::gemm::{Start, product};
use super::nest::NestKernel;
use super::{Bench, Knob, MAX_SIZE, Memory, Sizes};

pub const BENCH: Bench = Bench {
    name: "3mm",
    about: "PolyBench/GPU 3MM: E = A B, F = C D, G = E F (three memory-coherent products)",
    knobs: &[Knob {
        multiple: 1,
        min: 1,
        max: MAX_SIZE,
        name: "n",
        default: 512,
        about: "NI = NJ = NK = NL = NM",
    }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let nn = u64::from(n) * u64::from(n);
    let mut m = Memory::default();
    let [a, b, c, d, e, f, g] = ["A", "B", "C", "D", "E", "F", "G"].map(|name| m.floats(name, nn));
    let kernel = |name, arrays, names: [&'static str; 4]| {
        let [ld, st, l, r] = names;
        product(name, &m, arrays, [n, n, n], Start::Zero, [ld, st, l, r, "FFMA out += lhs*rhs"])
    };
    vec![
        kernel(
            "mm3_kernel1",
            [e, a, b],
            ["LDG E[i*NJ+j]", "STG E[i*NJ+j]", "LDG A[i*NK+k]", "LDG B[k*NJ+j]"],
        ),
        kernel(
            "mm3_kernel2",
            [f, c, d],
            ["LDG F[i*NL+j]", "STG F[i*NL+j]", "LDG C[i*NM+k]", "LDG D[k*NL+j]"],
        ),
        kernel(
            "mm3_kernel3",
            [g, e, f],
            ["LDG G[i*NL+j]", "STG G[i*NL+j]", "LDG E[i*NJ+k]", "LDG F[k*NL+j]"],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, base, reference};
    use super::*;

    #[test]
    fn the_three_kernels_match_the_loop_nests() {
        let n = 33u64;
        let ks = build(&Sizes([("n", n as u32)].into_iter().collect()));
        assert_eq!(ks.len(), 3);
        for (k, [out, lhs, rhs]) in ks.iter().zip([["E", "A", "B"], ["F", "C", "D"], ["G", "E", "F"]]) {
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
