//! Needleman-Wunsch: global sequence alignment, the score matrix filled by 16 × 16 tiles along
//! anti-diagonals.
//!
//! Follows Rodinia 3.1 `nw/needle_kernel.cu`, `needle_cuda_shared_1` and
//! `needle_cuda_shared_2`, launched by `nw/needle.cu` with 16 threads per CTA (`BLOCK_SIZE`, half
//! a warp): for `i = 1 ..= bw` the first kernel on `i` CTAs (tile (`bx`, `i−1−bx`)), then for
//! `i = bw−1 ..= 1` the second on `i` CTAs (tile (`bx+bw−i`, `bw−1−bx`)), `bw = n/16` tiles a
//! side of the `(n+1)`-wide integer matrices. Each CTA's thread `tx`:
//! - loads its tile of `reference` (one column `tx`, 16 rows) and the tile's north-west
//!   corner (`tx == 0`), west column and north row of `matrix_cuda` into shared memory, with a
//!   `__syncthreads()` between the steps as each kernel orders them;
//! - sweeps the tile's 31 anti-diagonals: on diagonal `m` the lanes `tx ≤ m` (then, going
//!   back, `tx ≤ m` for `m = 14 ..= 0`) read three neighbours and a reference entry from shared
//!   memory and write the maximum, `__syncthreads()` after each;
//! - stores its column of the tile back to `matrix_cuda`, row by row.
//!
//! Shared memory: both kernels declare `__shared__ int temp[BLOCK_SIZE+1][BLOCK_SIZE+1]` and
//! `int ref[BLOCK_SIZE][BLOCK_SIZE]`, (17 × 17 + 16 × 16) × 4 = 2,180 bytes per CTA.
//!
//! Size: Rodinia's run script, 2048 × 2048 (`./needle 2048 10`: 255 launches). Approximations:
//! those of [`super::nest`]; the four tile indices are one slot each, `maximum` of three is
//! three slots (two adds and two compare-selects folded into three).

use super::nest::{Affine, Cond, NestKernel, Step};
use super::{Bench, Knob, Memory, Sizes};

pub const BENCH: Bench = Bench {
    name: "nw",
    about: "Rodinia Needleman-Wunsch: 16x16 tiles along anti-diagonals, half-warp CTAs, shared-memory wavefront",
    knobs: &[Knob {
        multiple: 16,
        min: 16,
        max: 32768,
        name: "n",
        default: 2048,
        about: "sequence length (the matrices are n+1 wide)",
    }],
    build: |s| super::nests(build(s)),
    input_limit: None,
};

/// `BLOCK_SIZE`.
const BS: i64 = 16;
/// Shared arrays, in elements: `temp[17][17]`, then `ref[16][16]`.
const TEMP: i64 = 0;
const REF: i64 = (BS + 1) * (BS + 1);
/// Bytes of `temp` and `ref`: each kernel's `__shared__` declarations.
const SHARED_BYTES: u32 = ((REF + BS * BS) * 4) as u32;

fn build(s: &Sizes) -> Vec<NestKernel> {
    let n = s.get("n");
    let cols = i64::from(n) + 1;
    let mut m = Memory::default();
    let cells = (cols * cols) as u64;
    let reference = m.alloc("referrence_cuda", cells, 4);
    let matrix = m.alloc("matrix_cuda", cells, 4);
    let bw = i64::from(n) / BS;
    // The tile's north-west corner, `cols·16·b_index_y + 16·b_index_x`, as an affine function
    // of `bx` for launch `i` of each kernel.
    let first = (1..=bw).map(|i| (i, true, Affine::ZERO.bx(BS - cols * BS).c(cols * BS * (i - 1))));
    let second = (1..bw)
        .rev()
        .map(|i| (i, false, Affine::ZERO.bx(BS - cols * BS).c(cols * BS * (bw - 1) + BS * (bw - i))));
    first
        .chain(second)
        .map(|(i, is_first, nw)| {
            let name = if is_first { "needle_cuda_shared_1" } else { "needle_cuda_shared_2" };
            let steps = program(is_first, cols, nw, reference, matrix);
            NestKernel::new(name, [i as u32, 1], [16, 1], [(0, u32::MAX), (0, u32::MAX)], m.arrays(), &steps)
                .with_shared_bytes(SHARED_BYTES)
        })
        .collect()
}

/// The thread program of either kernel, whose tile's north-west corner is `nw`.
fn program(first: bool, cols: i64, nw: Affine, reference: usize, matrix: usize) -> Vec<Step> {
    let index = Affine { tx: 1, c: nw.c + cols + 1, ..nw };
    let tx = Affine::ZERO.tx(1);
    let corner = [
        Step::Alu("ISETP tx == 0"),
        Step::If(Cond::equals(tx, 0)),
        Step::Load { array: matrix, at: nw, name: "LDG matrix_cuda[index_nw]" },
        Step::SharedStore { at: Affine::ZERO.c(TEMP), name: "STS temp[0][0]" },
        Step::EndIf,
    ];
    let reference_tile = [
        Step::Loop { trips: BS as u32 },
        Step::Load {
            array: reference,
            at: Affine { l0: cols, ..index },
            name: "LDG referrence[index + cols*ty]",
        },
        Step::SharedStore { at: Affine::ZERO.l0(BS).tx(1).c(REF), name: "STS ref[ty][tx]" },
        Step::EndLoop("BRA ty < BLOCK_SIZE"),
    ];
    let west = [
        Step::Load {
            array: matrix,
            at: Affine { tx: cols, c: nw.c + cols, ..nw },
            name: "LDG matrix_cuda[index_w + cols*tx]",
        },
        Step::SharedStore { at: Affine::ZERO.tx(BS + 1).c(TEMP + BS + 1), name: "STS temp[tx+1][0]" },
    ];
    let mut p = vec![
        Step::Alu("IMAD index = cols*BLOCK_SIZE*b_index_y + BLOCK_SIZE*b_index_x + tx + cols + 1"),
        Step::Alu("IMAD index_n"),
        Step::Alu("IMAD index_w"),
        Step::Alu("IMAD index_nw"),
    ];
    if first {
        p.extend(corner);
        p.extend(reference_tile);
        p.push(Step::Barrier("BAR.SYNC (ref loaded)"));
    } else {
        p.extend(reference_tile);
        p.push(Step::Barrier("BAR.SYNC (ref loaded)"));
        p.extend(corner);
    }
    p.extend(west);
    p.extend([
        Step::Barrier("BAR.SYNC (west column loaded)"),
        Step::Load {
            array: matrix,
            at: Affine { tx: 1, c: nw.c + 1, ..nw },
            name: "LDG matrix_cuda[index_n]",
        },
        Step::SharedStore { at: Affine::ZERO.tx(1).c(TEMP + 1), name: "STS temp[0][tx+1]" },
        Step::Barrier("BAR.SYNC (north row loaded)"),
    ]);
    // Cell (y, x) of the diagonal sweep; `temp` is 17 wide, `ref` 16.
    let temp = |y: Affine, x: Affine| Affine {
        tx: y.tx * (BS + 1) + x.tx,
        l0: y.l0 * (BS + 1) + x.l0,
        c: TEMP + y.c * (BS + 1) + x.c,
        ..Affine::ZERO
    };
    let refs = |y: Affine, x: Affine| Affine {
        tx: y.tx * BS + x.tx,
        l0: y.l0 * BS + x.l0,
        c: REF + y.c * BS + x.c,
        ..Affine::ZERO
    };
    let shift = |a: Affine, d: i64| Affine { c: a.c + d, ..a };
    // Going forward, diagonal `m = l0`: (y, x) = (m − tx + 1, tx + 1), lanes `tx ≤ m`; going
    // back, `m = 14 − l0`: (16 − tx, tx + 16 − m) = (16 − tx, tx + 2 + l0), lanes `tx ≤ 14 − l0`.
    let sweeps = [
        (
            BS,
            Affine::ZERO.l0(1).tx(-1).c(1),
            Affine::ZERO.tx(1).c(1),
            Cond::at_most(Affine::ZERO.tx(1).l0(-1), 0),
        ),
        (
            BS - 1,
            Affine::ZERO.tx(-1).c(BS),
            Affine::ZERO.tx(1).l0(1).c(2),
            Cond::at_most(Affine::ZERO.tx(1).l0(1), BS - 2),
        ),
    ];
    for (trips, y, x, lanes) in sweeps {
        p.extend([
            Step::Loop { trips: trips as u32 },
            Step::Alu("ISETP tx <= m"),
            Step::If(lanes),
            Step::Alu("IADD t_index_x, t_index_y"),
            Step::SharedLoad {
                at: temp(shift(y, -1), shift(x, -1)),
                name: "LDS temp[t_index_y-1][t_index_x-1]",
            },
            Step::SharedLoad {
                at: refs(shift(y, -1), shift(x, -1)),
                name: "LDS ref[t_index_y-1][t_index_x-1]",
            },
            Step::SharedLoad { at: temp(y, shift(x, -1)), name: "LDS temp[t_index_y][t_index_x-1]" },
            Step::SharedLoad { at: temp(shift(y, -1), x), name: "LDS temp[t_index_y-1][t_index_x]" },
            Step::Alu("IADD nw + ref, w - penalty, n - penalty"),
            Step::Alu("IMNMX maximum(a, b)"),
            Step::Alu("IMNMX maximum(k, c)"),
            Step::SharedStore { at: temp(y, x), name: "STS temp[t_index_y][t_index_x]" },
            Step::EndIf,
            Step::Barrier("BAR.SYNC (diagonal done)"),
            Step::EndLoop("BRA m"),
        ]);
    }
    p.extend([
        Step::Loop { trips: BS as u32 },
        Step::SharedLoad {
            at: temp(Affine::ZERO.l0(1).c(1), Affine::ZERO.tx(1).c(1)),
            name: "LDS temp[ty+1][tx+1]",
        },
        Step::Store {
            array: matrix,
            at: Affine { l0: cols, ..index },
            name: "STG matrix_cuda[index + ty*cols]",
        },
        Step::EndLoop("BRA ty < BLOCK_SIZE"),
    ]);
    p
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{assert_streams, barriers, base, per_thread};
    use super::*;

    #[test]
    fn every_launch_matches_rodinias_kernels() {
        // 3 tiles a side: launches of 1, 2, 3 CTAs then 2, 1.
        let ks = build(&Sizes([("n", 48)].into_iter().collect()));
        let names: Vec<(&str, u32)> = ks.iter().map(|k| (k.name.as_str(), k.grid[0])).collect();
        let (one, two) = ("needle_cuda_shared_1", "needle_cuda_shared_2");
        assert_eq!(names, [(one, 1), (one, 2), (one, 3), (two, 2), (two, 1)]);
        let (cols, bw) = (49i64, 3i64);
        let [r, mtx] = ["referrence_cuda", "matrix_cuda"].map(|a| base(&ks[0], a));
        let launches = (1..=bw).map(|i| (i, true)).chain((1..bw).rev().map(|i| (i, false)));
        for (k, (i, first)) in ks.iter().zip(launches) {
            let want = per_thread(k, &[], |bx, _, tx, _| {
                let (bx, tx) = (i64::from(bx), i64::from(tx));
                let (bix, biy) = if first { (bx, i - 1 - bx) } else { (bx + bw - i, bw - bx - 1) };
                let base = cols * BS * biy + BS * bix;
                let (index, index_n, index_w, index_nw) =
                    (base + tx + cols + 1, base + tx + 1, base + cols, base);
                let g = |a: u64, e: i64| a + 4 * e as u64;
                let temp = |y: i64, x: i64| 4 * (y * 17 + x) as u64;
                let rf = |y: i64, x: i64| 4 * (REF + y * 16 + x) as u64;
                let mut a = Vec::new();
                let corner_key = if first { 0 } else { 200 };
                if tx == 0 {
                    a.push((corner_key, false, g(mtx, index_nw)));
                    a.push((corner_key + 1, true, temp(0, 0)));
                }
                for ty in 0..BS {
                    a.push((100 + 2 * ty as u64, false, g(r, index + cols * ty)));
                    a.push((101 + 2 * ty as u64, true, rf(ty, tx)));
                }
                a.push((300, false, g(mtx, index_w + cols * tx)));
                a.push((301, true, temp(tx + 1, 0)));
                a.push((302, false, g(mtx, index_n)));
                a.push((303, true, temp(0, tx + 1)));
                let mut key = 400;
                let mut cell = |a: &mut Vec<_>, on: bool, y: i64, x: i64| {
                    if on {
                        for (j, at) in [temp(y - 1, x - 1), rf(y - 1, x - 1), temp(y, x - 1), temp(y - 1, x)]
                            .into_iter()
                            .enumerate()
                        {
                            a.push((key + j as u64, false, at));
                        }
                        a.push((key + 4, true, temp(y, x)));
                    }
                    key += 5;
                };
                for m in 0..BS {
                    cell(&mut a, tx <= m, m - tx + 1, tx + 1);
                }
                for m in (0..=BS - 2).rev() {
                    cell(&mut a, tx <= m, BS - tx, tx + BS - m);
                }
                for ty in 0..BS {
                    a.push((1000 + 2 * ty as u64, false, temp(ty + 1, tx + 1)));
                    a.push((1001 + 2 * ty as u64, true, g(mtx, index + ty * cols)));
                }
                a
            });
            assert_streams(k, &want);
            // Three after the loads, one per diagonal.
            assert!(barriers(k).iter().all(|&b| b == 3 + 31), "{} launch {i}", k.name);
        }
    }
}
