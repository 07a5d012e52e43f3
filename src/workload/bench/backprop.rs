//! Backprop: one training step of a two-layer perceptron, the input-to-hidden layer on the GPU.
//!
//! Follows Rodinia 3.1 `backprop/backprop_cuda_kernel.cu`, `bpnn_layerforward_CUDA` and
//! `bpnn_adjust_weights_cuda`, launched by `backprop/backprop_cuda.cu` on a grid of 1 ×
//! `in/16` CTAs of 16 × 16 threads (`WIDTH` × `HEIGHT`), 16 hidden units (`hid`), with the
//! weights `(in+1) × (hid+1)` row-major; thread (tx, ty) of CTA `by` owns weight `index =
//! 17·16·by + 17·ty + tx + 18` and input `index_in = 16·by + ty + 1`:
//! - layer forward: column `tx == 0` loads `input_cuda[index_in]` into shared `input_node[ty]`;
//!   every thread loads its weight into shared `weight_matrix[ty][tx]`, multiplies it by
//!   `input_node[ty]`, then the rows are summed in four halving steps (`if (ty % 2^i == 0)`
//!   add row `ty + 2^(i−1)`), `__syncthreads()` between the steps; each thread writes its
//!   weight back, and column `tx == 0` stores `weight_matrix[tx][ty]` to
//!   `hidden_partial_sum[by·hid + ty]`;
//! - adjust weights: every thread updates `w[index]` and `oldw[index]` from `delta[tx+1]` and
//!   `ly[index_y]`; after a `__syncthreads()`, row `ty == 0` of CTA 0 also updates the bias
//!   weights `w[tx+1]`, `oldw[tx+1]`.
//!
//! Shared memory: `bpnn_layerforward_CUDA` declares `__shared__ float input_node[HEIGHT]` and
//! `float weight_matrix[HEIGHT][WIDTH]`, (16 + 16 × 16) × 4 = 1,088 bytes per CTA;
//! `bpnn_adjust_weights_cuda` none.
//!
//! nvcc predicates the halving steps' `if` (CUDA 11.8, sm_70 and sm_61: `@!P3 LDS`, `@!P3 LDS`,
//! `@!P3 FADD`, `@!P3 STS` for step 1, `@!P2` ... for step 2): a warp holds rows `2w` and
//! `2w + 1`, so every warp issues every step, and from step 2 on most with no lane (warps 1,
//! 3, 5, 7 in step 2; all but 0 and 4 in step 3; all but 0 in step 4).
//!
//! Size: Rodinia's run script, 65,536 input units (seed 004 Table 5.2: "default"). Arrays in
//! `cudaMalloc` order. Approximations: those of [`super::nest`]; the reduction's loop runs
//! `log2f(HEIGHT)` = 4 times with `power_two = powf(2, i)`, written out here as four steps
//! each with its test and branch slot (`ty + power_two/2` is not affine in `i`).

use super::nest::{Affine, Cond, NestKernel, Step};
use super::{Bench, Knob, Memory, Sizes};

pub const BENCH: Bench = Bench {
    name: "backprop",
    about: "Rodinia Backprop: layer forward (shared-memory row reduction) and weight adjustment, 16x16 CTAs",
    knobs: &[Knob {
        multiple: 16,
        min: 16,
        max: 1 << 24,
        name: "in",
        default: 65_536,
        about: "input units (16 per CTA)",
    }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// `HEIGHT` = `WIDTH`, and the hidden units (`hid`) Rodinia's `facetrain` creates.
const H: i64 = 16;
const HID: i64 = 16;
/// Shared arrays, in elements: `input_node[16]`, then `weight_matrix[16][16]`.
const INPUT_NODE: i64 = 0;
const WEIGHTS: i64 = H;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let inputs = u64::from(s.get("in"));
    let blocks = s.get("in") / 16;
    let weights = (inputs + 1) * (HID as u64 + 1);
    let mut m = Memory::default();
    let input = m.floats("input_cuda", inputs + 1);
    m.floats("output_hidden_cuda", HID as u64 + 1);
    let input_hidden = m.floats("input_hidden_cuda", weights);
    let partial = m.floats("hidden_partial_sum", u64::from(blocks) * H as u64);
    let delta = m.floats("hidden_delta_cuda", HID as u64 + 1);
    let prev = m.floats("input_prev_weights_cuda", weights);
    let whole = [(0, u32::MAX), (0, u32::MAX)];
    let kernel =
        |name: &str, steps: &[Step]| NestKernel::new(name, [1, blocks], [16, 16], whole, m.arrays(), steps);
    vec![
        kernel("bpnn_layerforward_CUDA", &forward(input, input_hidden, partial))
            .with_shared_bytes(((WEIGHTS + H * H) * 4) as u32),
        kernel("bpnn_adjust_weights_cuda", &adjust(delta, input, input_hidden, prev)),
    ]
}

/// `index = (hid+1)·HEIGHT·by + (hid+1)·ty + tx + 1 + (hid+1)`.
const INDEX: Affine = Affine::ZERO.by((HID + 1) * H).ty(HID + 1).tx(1).c(1 + HID + 1);
/// `HEIGHT·by + ty + 1`.
const INDEX_IN: Affine = Affine::ZERO.by(H).ty(1).c(1);
const TX: Affine = Affine::ZERO.tx(1);
/// `weight_matrix[ty][tx]`.
const MINE: Affine = Affine::ZERO.ty(H).tx(1).c(WEIGHTS);

fn forward(input: usize, input_hidden: usize, partial: usize) -> Vec<Step> {
    let mut p = vec![
        Step::Alu("IMAD index = (hid+1)*HEIGHT*by + (hid+1)*ty + tx + 1 + (hid+1)"),
        Step::Alu("IMAD index_in = HEIGHT*by + ty + 1"),
        Step::Alu("ISETP tx == 0"),
        Step::If(Cond::equals(TX, 0)),
        Step::Load { array: input, at: INDEX_IN, name: "LDG input_cuda[index_in]" },
        Step::SharedStore { at: Affine::ZERO.ty(1).c(INPUT_NODE), name: "STS input_node[ty]" },
        Step::EndIf,
        Step::Barrier("BAR.SYNC (inputs loaded)"),
        Step::Load { array: input_hidden, at: INDEX, name: "LDG input_hidden_cuda[index]" },
        Step::SharedStore { at: MINE, name: "STS weight_matrix[ty][tx]" },
        Step::Barrier("BAR.SYNC (weights loaded)"),
        Step::SharedLoad { at: MINE, name: "LDS weight_matrix[ty][tx]" },
        Step::SharedLoad { at: Affine::ZERO.ty(1).c(INPUT_NODE), name: "LDS input_node[ty]" },
        Step::Alu("FMUL weight * input"),
        Step::SharedStore { at: MINE, name: "STS weight_matrix[ty][tx]" },
        Step::Barrier("BAR.SYNC (products)"),
    ];
    for power_two in [2, 4, 8, 16] {
        p.extend([
            Step::Alu("MUFU power_two = powf(2, i)"),
            Step::Alu("ISETP ty % power_two == 0"),
            Step::Predicated(Cond::multiple_of(Affine::ZERO.ty(1), power_two)),
            Step::SharedLoad { at: MINE, name: "LDS weight_matrix[ty][tx]" },
            Step::SharedLoad {
                at: Affine { c: MINE.c + H * power_two / 2, ..MINE },
                name: "LDS weight_matrix[ty + power_two/2][tx]",
            },
            Step::Alu("FADD"),
            Step::SharedStore { at: MINE, name: "STS weight_matrix[ty][tx]" },
            Step::EndIf,
            Step::Barrier("BAR.SYNC (reduction step)"),
            Step::Alu("BRA i <= log2f(HEIGHT)"),
        ]);
    }
    p.extend([
        Step::SharedLoad { at: MINE, name: "LDS weight_matrix[ty][tx]" },
        Step::Store { array: input_hidden, at: INDEX, name: "STG input_hidden_cuda[index]" },
        Step::Barrier("BAR.SYNC (sums stored)"),
        Step::Alu("ISETP tx == 0"),
        Step::If(Cond::equals(TX, 0)),
        Step::SharedLoad { at: Affine::ZERO.tx(H).ty(1).c(WEIGHTS), name: "LDS weight_matrix[tx][ty]" },
        Step::Store {
            array: partial,
            at: Affine::ZERO.by(HID).ty(1),
            name: "STG hidden_partial_sum[by*hid + ty]",
        },
        Step::EndIf,
    ]);
    p
}

fn adjust(delta: usize, ly: usize, w: usize, oldw: usize) -> Vec<Step> {
    let index_y = INDEX_IN;
    let index_x = Affine::ZERO.tx(1).c(1);
    // `w[i] += ETA·delta·ly + MOMENTUM·oldw[i]`, then `oldw[i] = ...` recomputed, reloading
    // what the stores may have changed; the bias update has no `ly` term. Each statement
    // loads delta (and ly), the old weight, and for `+=` the weight itself, then stores.
    let statement = |at: Affine, with_ly: bool, target: usize, add: bool| {
        let mut s = vec![Step::Load { array: delta, at: index_x, name: "LDG delta[index_x]" }];
        if with_ly {
            s.push(Step::Load { array: ly, at: index_y, name: "LDG ly[index_y]" });
        }
        s.extend([
            Step::Alu("FMUL ETA * delta * ly"),
            Step::Load { array: oldw, at, name: "LDG oldw[index]" },
            Step::Alu("FFMA + MOMENTUM * oldw"),
        ]);
        if add {
            s.extend([Step::Load { array: w, at, name: "LDG w[index]" }, Step::Alu("FADD w += ...")]);
        }
        let name = if target == w { "STG w[index]" } else { "STG oldw[index]" };
        s.push(Step::Store { array: target, at, name });
        s
    };
    let update = |at: Affine, with_ly: bool| {
        let mut s = statement(at, with_ly, w, true);
        s.extend(statement(at, with_ly, oldw, false));
        s
    };
    let mut p = vec![
        Step::Alu("IMAD index = (hid+1)*HEIGHT*by + (hid+1)*ty + tx + 1 + (hid+1)"),
        Step::Alu("IMAD index_y = HEIGHT*by + ty + 1"),
        Step::Alu("IADD index_x = tx + 1"),
    ];
    p.extend(update(INDEX, true));
    p.extend([
        Step::Barrier("BAR.SYNC"),
        Step::Alu("ISETP ty == 0 && by == 0"),
        Step::If(Cond::equals(Affine::ZERO.ty(1), 0)),
        Step::And(Cond::equals(Affine::ZERO.by(1), 0)),
    ]);
    p.extend(update(index_x, false));
    p.push(Step::EndIf);
    p
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, barriers, base, per_thread};
    use super::*;

    #[test]
    fn both_kernels_match_rodinias() {
        let ks = build(&Sizes([("in", 48)].into_iter().collect()));
        assert_eq!(ks[0].grid, [1, 3]);
        let [input, ih, partial, delta, prev] = [
            "input_cuda",
            "input_hidden_cuda",
            "hidden_partial_sum",
            "hidden_delta_cuda",
            "input_prev_weights_cuda",
        ]
        .map(|a| base(&ks[0], a));
        let g = |a: u64, e: i64| a + 4 * e as u64;
        let s = |e: i64| 4 * e as u64;
        let index = |by: i64, tx: i64, ty: i64| (HID + 1) * H * by + (HID + 1) * ty + tx + 1 + (HID + 1);
        // The reduction steps are predicated: every warp issues them, maybe with no lane.
        let steps: Vec<(u64, bool)> =
            (1..=4u64).flat_map(|i| [(10 * i, false), (10 * i + 1, false), (10 * i + 2, true)]).collect();
        let forward = per_thread(&ks[0], &steps, |_, by, tx, ty| {
            let (by, tx, ty) = (i64::from(by), i64::from(tx), i64::from(ty));
            let wm = |y: i64, x: i64| s(WEIGHTS + y * 16 + x);
            let mut a = Vec::new();
            if tx == 0 {
                a.push((0, false, g(input, H * by + ty + 1)));
                a.push((1, true, s(INPUT_NODE + ty)));
            }
            a.push((2, false, g(ih, index(by, tx, ty))));
            a.push((3, true, wm(ty, tx)));
            a.push((4, false, wm(ty, tx)));
            a.push((5, false, s(INPUT_NODE + ty)));
            a.push((6, true, wm(ty, tx)));
            for i in 1..=4u32 {
                let p = 2i64.pow(i);
                if ty % p == 0 {
                    let k = 10 * u64::from(i);
                    a.push((k, false, wm(ty, tx)));
                    a.push((k + 1, false, wm(ty + p / 2, tx)));
                    a.push((k + 2, true, wm(ty, tx)));
                }
            }
            a.push((100, false, wm(ty, tx)));
            a.push((101, true, g(ih, index(by, tx, ty))));
            if tx == 0 {
                a.push((102, false, wm(tx, ty)));
                a.push((103, true, g(partial, by * HID + ty)));
            }
            a
        });
        assert_streams(&ks[0], &forward);
        assert!(barriers(&ks[0]).iter().all(|&b| b == 8));
        let adjust = per_thread(&ks[1], &[], |_, by, tx, ty| {
            let (by, tx, ty) = (i64::from(by), i64::from(tx), i64::from(ty));
            let mut a = Vec::new();
            let mut update = |key: u64, i: i64, y: Option<i64>| {
                for (n, (w, o)) in [(ih, ih), (prev, prev)].into_iter().enumerate() {
                    let k = key + 10 * n as u64;
                    a.push((k, false, g(delta, tx + 1)));
                    if let Some(y) = y {
                        a.push((k + 1, false, g(input, y)));
                    }
                    a.push((k + 2, false, g(prev, i)));
                    if n == 0 {
                        a.push((k + 3, false, g(w, i)));
                    }
                    a.push((k + 4, true, g(o, i)));
                }
            };
            update(0, index(by, tx, ty), Some(H * by + ty + 1));
            if ty == 0 && by == 0 {
                update(100, tx + 1, None);
            }
            a
        });
        assert_streams(&ks[1], &adjust);
    }
}
