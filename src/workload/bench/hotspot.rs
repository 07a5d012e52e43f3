//! HotSpot: transient chip temperature on a grid, a pyramid of stencil steps per launch.
//!
//! Follows Rodinia 3.1 `hotspot/hotspot.cu`, `calculate_temp`, launched by
//! `compute_tran_temp` with 16 × 16 threads per CTA (`BLOCK_SIZE`) on a grid of
//! ⌈cols/small⌉ × ⌈rows/small⌉ CTAs, `small = 16 − 2·pyramid` (each CTA loads a 16 × 16 tile
//! and, after `iteration` steps, keeps the `small`-wide centre), once per `pyramid` steps of the
//! `total` (`iteration = min(pyramid, total − t)`), swapping source and destination:
//! - thread (tx, ty) of CTA (bx, by) covers `yidx = small·by − border + ty`, `xidx = small·bx −
//!   border + tx` (`border = pyramid`); inside the grid it copies `temp_src[index]` and
//!   `power[index]` (`index = cols·yidx + xidx`) into the shared tiles; `__syncthreads()`;
//! - `iteration` times: the lanes with `i+1 ≤ tx, ty ≤ 14−i` inside the grid read their cell and
//!   its four neighbours from the tile and write `temp_t[ty][tx]`; `__syncthreads()`; except
//!   after the last step, the same lanes copy `temp_t` back into the tile; `__syncthreads()`;
//! - the lanes that computed in the last step store `temp_dst[index]`.
//!
//! Size: Rodinia's run script, a 512 × 512 grid, pyramid height 2, 2 steps (one launch).
//! Approximations: those of [`super::nest`]; the index set-up before the copy is one slot per
//! index computed, the bounds and neighbours (`validYmin` ... `E`) four slots; the stencil is six
//! arithmetic slots. `IN_RANGE(tx, validXmin, validXmax)` is written as `0 ≤ xidx < cols`, which
//! it equals. At the grid's edge the neighbours `N`, `S`, `W`, `E` are clamped as CUDA clamps them
//! (`N = (N < validYmin) ? validYmin : N`, ...): a computing lane's neighbour row or column
//! outside the grid is its own, so its shared-memory read moves by a row or a column
//! ([`super::nest::Clamp`]). For such a lane only the grid bound can bind (it has `1 ≤ tx, ty ≤ 14`), so the
//! clamp keeps the neighbour's grid coordinate in `0..n`.
//!
//! nvcc predicates the tile load and the copy-back (CUDA 11.8, sm_70 and sm_61: `@P0 LDG`,
//! `@P0 STS` under `IN_RANGE(yidx) && IN_RANGE(xidx)`; `@P2 LDS`, `@P2 STS` under `computed`),
//! so a warp with no lane inside the grid issues them with none; the stencil is branched
//! around, and the final store is reached by the computing lanes only (`@!P0 EXIT`), as here.
//!
//! Shared memory: the three `__shared__ float [BLOCK_SIZE][BLOCK_SIZE]` tiles of
//! `calculate_temp` (`temp_on_cuda`, `power_on_cuda`, `temp_t`), 3 × 16 × 16 × 4 = 3,072 bytes
//! per CTA.

use super::nest::{Affine, Clamp, Cond, NestKernel, Step};
use super::{Bench, Knob, Memory, Sizes};

pub const BENCH: Bench = Bench {
    name: "hotspot",
    about: "Rodinia HotSpot calculate_temp: 16x16 tiles staged in shared memory, pyramid stencil steps",
    knobs: &[
        Knob {
            multiple: 1,
            min: 16,
            max: 16384,
            name: "grid",
            default: 512,
            about: "rows and columns of the grid",
        },
        Knob {
            multiple: 1,
            min: 1,
            max: 7,
            name: "pyramid",
            default: 2,
            about: "steps per launch (pyramid height)",
        },
        Knob { multiple: 1, min: 1, max: 10_000, name: "steps", default: 2, about: "time steps in all" },
    ],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// `BLOCK_SIZE`.
const BS: i64 = 16;
/// Shared tiles, in elements: `temp_on_cuda`, `power_on_cuda`, `temp_t`.
const TEMP: i64 = 0;
const POWER: i64 = BS * BS;
const TEMP_T: i64 = 2 * BS * BS;
/// Bytes of the three tiles: `calculate_temp`'s `__shared__` declarations.
const SHARED_BYTES: u32 = 3 * (BS * BS) as u32 * 4;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let (n, pyramid, total) = (s.get("grid"), s.get("pyramid"), s.get("steps"));
    let mut m = Memory::default();
    let cells = u64::from(n) * u64::from(n);
    let temp = [m.floats("MatrixTemp[0]", cells), m.floats("MatrixTemp[1]", cells)];
    let power = m.floats("MatrixPower", cells);
    let small = 16 - 2 * pyramid;
    let blocks = n.div_ceil(small);
    (0..total)
        .step_by(pyramid as usize)
        .enumerate()
        .map(|(launch, t)| {
            let src = temp[launch % 2];
            let dst = temp[(launch + 1) % 2];
            let steps =
                program(i64::from(n), i64::from(pyramid), pyramid.min(total - t).into(), src, dst, power);
            NestKernel::new(
                "calculate_temp",
                [blocks, blocks],
                [16, 16],
                [(0, u32::MAX), (0, u32::MAX)],
                m.arrays(),
                &steps,
            )
            .with_shared_bytes(SHARED_BYTES)
        })
        .collect()
}

/// One launch's thread program: `iteration` steps on an `n` × `n` grid.
fn program(n: i64, border: i64, iteration: i64, src: usize, dst: usize, power: usize) -> Vec<Step> {
    let small = BS - 2 * iteration;
    let yidx = Affine::ZERO.by(small).ty(1).c(-border);
    let xidx = Affine::ZERO.bx(small).tx(1).c(-border);
    let index = Affine::ZERO.by(small * n).ty(n).bx(small).tx(1).c(-border * n - border);
    let tile = |base: i64, dy: i64, dx: i64| Affine::ZERO.ty(BS).tx(1).c(base + dy * BS + dx);
    // The neighbour `dy` rows and `dx` columns away, clamped into the grid.
    let neighbour = |dy: i64, dx: i64, name| {
        let (on, scale) = if dy != 0 {
            (Affine { c: yidx.c + dy, ..yidx }, BS)
        } else {
            (Affine { c: xidx.c + dx, ..xidx }, 1)
        };
        Step::ClampedSharedLoad { at: tile(TEMP, dy, dx), clamp: Clamp { on, lo: 0, hi: n - 1, scale }, name }
    };
    // `IN_RANGE(tx, i+1, BLOCK_SIZE-i-2) && IN_RANGE(ty, ...) && (inside the grid)` at step
    // `i`: the loop counter, or the last step's constant after the loop; `open` is the `if`.
    let computes = |i: Affine, open: fn(Cond) -> Step| {
        let lo = |v: Affine| Cond::range(Affine { l0: -i.l0, c: v.c - i.c, ..v }, 1, i64::MAX);
        let hi = |v: Affine| Cond::at_most(Affine { l0: i.l0, c: v.c + i.c, ..v }, BS - 2);
        let tx = Affine::ZERO.tx(1);
        let ty = Affine::ZERO.ty(1);
        [
            open(lo(tx)),
            Step::And(hi(tx)),
            Step::And(lo(ty)),
            Step::And(hi(ty)),
            Step::And(Cond::range(xidx, 0, n - 1)),
            Step::And(Cond::range(yidx, 0, n - 1)),
        ]
    };
    let mut p = vec![
        Step::Alu("IMAD small_block = BLOCK_SIZE - iteration*2"),
        Step::Alu("IMAD yidx = small_block*by - border_rows + ty"),
        Step::Alu("IMAD xidx = small_block*bx - border_cols + tx"),
        Step::Alu("IMAD index = grid_cols*yidx + xidx"),
        Step::Alu("ISETP IN_RANGE(yidx) && IN_RANGE(xidx)"),
        Step::Predicated(Cond::range(yidx, 0, n - 1)),
        Step::And(Cond::range(xidx, 0, n - 1)),
        Step::Load { array: src, at: index, name: "LDG temp_src[index]" },
        Step::SharedStore { at: tile(TEMP, 0, 0), name: "STS temp_on_cuda[ty][tx]" },
        Step::Load { array: power, at: index, name: "LDG power[index]" },
        Step::SharedStore { at: tile(POWER, 0, 0), name: "STS power_on_cuda[ty][tx]" },
        Step::EndIf,
        Step::Barrier("BAR.SYNC (tiles loaded)"),
        Step::Alu("IMAD validYmin, validYmax"),
        Step::Alu("IMAD validXmin, validXmax"),
        Step::Alu("IMNMX N, S"),
        Step::Alu("IMNMX W, E"),
        Step::Loop { trips: iteration as u32 },
        Step::Alu("ISETP IN_RANGE(tx, i+1, BLOCK_SIZE-i-2) && ..."),
    ];
    p.extend(computes(Affine::ZERO.l0(1), Step::If));
    p.extend([
        Step::SharedLoad { at: tile(TEMP, 0, 0), name: "LDS temp_on_cuda[ty][tx]" },
        Step::SharedLoad { at: tile(POWER, 0, 0), name: "LDS power_on_cuda[ty][tx]" },
        neighbour(1, 0, "LDS temp_on_cuda[S][tx]"),
        neighbour(-1, 0, "LDS temp_on_cuda[N][tx]"),
        Step::Alu("FADD S + N - 2*t"),
        Step::Alu("FFMA (S+N-2t)*Ry_1 + power"),
        neighbour(0, 1, "LDS temp_on_cuda[ty][E]"),
        neighbour(0, -1, "LDS temp_on_cuda[ty][W]"),
        Step::Alu("FADD E + W - 2*t"),
        Step::Alu("FFMA (E+W-2t)*Rx_1"),
        Step::Alu("FFMA (amb_temp-t)*Rz_1"),
        Step::Alu("FFMA t + step_div_Cap*(...)"),
        Step::SharedStore { at: tile(TEMP_T, 0, 0), name: "STS temp_t[ty][tx]" },
        Step::EndIf,
        Step::Barrier("BAR.SYNC (step computed)"),
        Step::Alu("ISETP i == iteration-1 (break)"),
        Step::If(Cond::at_most(Affine::ZERO.l0(1), iteration - 2)),
        Step::Alu("ISETP computed"),
    ]);
    p.extend(computes(Affine::ZERO.l0(1), Step::Predicated));
    p.extend([
        Step::SharedLoad { at: tile(TEMP_T, 0, 0), name: "LDS temp_t[ty][tx]" },
        Step::SharedStore { at: tile(TEMP, 0, 0), name: "STS temp_on_cuda[ty][tx]" },
        Step::EndIf,
        Step::Barrier("BAR.SYNC (tile updated)"),
        Step::EndIf,
        Step::EndLoop("BRA i < iteration"),
        Step::Alu("ISETP computed"),
    ]);
    p.extend(computes(Affine::ZERO.c(iteration - 1), Step::If));
    p.extend([
        Step::SharedLoad { at: tile(TEMP_T, 0, 0), name: "LDS temp_t[ty][tx]" },
        Step::Store { array: dst, at: index, name: "STG temp_dst[index]" },
        Step::EndIf,
    ]);
    p
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{Access, assert_streams, barriers, base, per_thread};
    use super::*;

    /// `calculate_temp` as a plain per-thread program, written from the CUDA source with
    /// Rodinia's own bounds (`validXmin` ...); each access keyed by its place in the program.
    fn reference(
        k: &NestKernel,
        n: i64,
        border: i64,
        iteration: i64,
        src: u64,
        dst: u64,
        power: u64,
    ) -> Vec<Vec<Access>> {
        let small = BS - 2 * iteration;
        // The tile load and the copy-backs are predicated: every warp issues them.
        let mut predicated = vec![(0, false), (1, true), (2, false), (3, true)];
        predicated.extend(
            (0..iteration - 1).flat_map(|i| [(17 + 20 * i as u64, false), (18 + 20 * i as u64, true)]),
        );
        per_thread(k, &predicated, |bx, by, tx, ty| {
            let (bx, by, tx, ty) = (bx as i64, by as i64, tx as i64, ty as i64);
            let mut a = Vec::new();
            let shared = |base: i64, y: i64, x: i64| 4 * (base + y * BS + x) as u64;
            let global = |array: u64, e: i64| array + 4 * e as u64;
            let (blk_y, blk_x) = (small * by - border, small * bx - border);
            let (yidx, xidx) = (blk_y + ty, blk_x + tx);
            let index = n * yidx + xidx;
            if (0..n).contains(&yidx) && (0..n).contains(&xidx) {
                a.push((0, false, global(src, index)));
                a.push((1, true, shared(TEMP, ty, tx)));
                a.push((2, false, global(power, index)));
                a.push((3, true, shared(POWER, ty, tx)));
            }
            let valid_ymin = if blk_y < 0 { -blk_y } else { 0 };
            let valid_ymax = if blk_y + BS - 1 > n - 1 { BS - 1 - (blk_y + BS - 1 - n + 1) } else { BS - 1 };
            let valid_xmin = if blk_x < 0 { -blk_x } else { 0 };
            let valid_xmax = if blk_x + BS - 1 > n - 1 { BS - 1 - (blk_x + BS - 1 - n + 1) } else { BS - 1 };
            let in_range = |v: i64, lo: i64, hi: i64| v >= lo && v <= hi;
            let mut computed = false;
            for i in 0..iteration {
                let key = 10 + 20 * i as u64;
                computed = in_range(tx, i + 1, BS - i - 2)
                    && in_range(ty, i + 1, BS - i - 2)
                    && in_range(tx, valid_xmin, valid_xmax)
                    && in_range(ty, valid_ymin, valid_ymax);
                if computed {
                    // Rodinia's clamped neighbours.
                    let (n_, s_) = ((ty - 1).max(valid_ymin), (ty + 1).min(valid_ymax));
                    let (w_, e_) = ((tx - 1).max(valid_xmin), (tx + 1).min(valid_xmax));
                    for (j, (y, x)) in
                        [(ty, tx), (-1, -1), (s_, tx), (n_, tx), (ty, e_), (ty, w_)].into_iter().enumerate()
                    {
                        let at = if j == 1 { shared(POWER, ty, tx) } else { shared(TEMP, y, x) };
                        a.push((key + j as u64, false, at));
                    }
                    a.push((key + 6, true, shared(TEMP_T, ty, tx)));
                }
                if i == iteration - 1 {
                    break;
                }
                if computed {
                    a.push((key + 7, false, shared(TEMP_T, ty, tx)));
                    a.push((key + 8, true, shared(TEMP, ty, tx)));
                }
            }
            if computed {
                a.push((1000, false, shared(TEMP_T, ty, tx)));
                a.push((1001, true, global(dst, index)));
            }
            a
        })
    }

    #[test]
    fn each_launch_matches_rodinias_kernel() {
        // A 40 × 40 grid: edge CTAs on all four sides. Pyramid 3 over 7 steps: launches of 3,
        // 3 and 1 steps, the last with a wider centre than its border assumes.
        let (n, pyramid, total) = (40, 3, 7);
        let ks = build(&Sizes([("grid", n), ("pyramid", pyramid), ("steps", total)].into_iter().collect()));
        assert_eq!(ks.len(), 3);
        let [t0, t1, p] = ["MatrixTemp[0]", "MatrixTemp[1]", "MatrixPower"].map(|a| base(&ks[0], a));
        for (launch, (k, iteration)) in ks.iter().zip([3, 3, 1]).enumerate() {
            assert_eq!(k.grid, [4, 4], "⌈40 / (16 - 6)⌉ CTAs a side");
            let (src, dst) = if launch % 2 == 0 { (t0, t1) } else { (t1, t0) };
            let want = reference(k, n.into(), pyramid.into(), iteration, src, dst, p);
            assert_streams(k, &want);
            // One barrier after the copy, then two per step but the last, which has one.
            assert!(barriers(k).iter().all(|&b| b == 2 * iteration as usize), "launch {launch}");
        }
    }
}
