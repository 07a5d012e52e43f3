//! The threads of a PolyBench/GPU kernel: an affine loop nest run per thread.
//!
//! Every PolyBench/GPU kernel has one shape: a thread computes its global indices from
//! `blockIdx`/`threadIdx`, guards them against the problem size (`if (i < NX)`), then runs up
//! to two counted loops whose bodies read and write array elements at indices affine in the
//! thread's indices and the loop counters. A [`NestKernel`] holds that program as a few
//! [`Step`]s; each warp keeps only a [`NestCursor`] (program counter, loop counters, active
//! mask) and computes its lanes' addresses when an instruction is fetched, so nothing grows with
//! the problem size.
//!
//! Approximations, the same for every kernel: each global access written in the CUDA source is
//! one warp load or store of its element width (no register promotion of `tmp[i] += ...`,
//! which the compiler cannot do anyway when the arrays may alias); each arithmetic statement
//! of the loop body is one ALU issue slot; each loop iteration ends with one ALU slot for the
//! counter update, compare and branch; the index arithmetic before the guard is one slot per
//! index. Register dependencies follow the data flow: an arithmetic slot waits for the loads
//! before it and for the accumulator it updates; a store waits for the accumulator.

use super::super::instr::{Instr, LaneAddrs, NO_REG, Op, Space};
use super::super::synth::{ArrayInfo, lanes};

/// An element index `x·gx + y·gy + l0·i0 + l1·i1 + c`, where `gx`, `gy` are the thread's
/// global indices and `i0`, `i1` the counters of the outer and inner loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Affine {
    pub x: i64,
    pub y: i64,
    pub l0: i64,
    pub l1: i64,
    pub c: i64,
}

impl Affine {
    pub const ZERO: Affine = Affine { x: 0, y: 0, l0: 0, l1: 0, c: 0 };

    pub const fn x(self, k: i64) -> Affine {
        Affine { x: k, ..self }
    }
    pub const fn y(self, k: i64) -> Affine {
        Affine { y: k, ..self }
    }
    pub const fn l0(self, k: i64) -> Affine {
        Affine { l0: k, ..self }
    }
    pub const fn l1(self, k: i64) -> Affine {
        Affine { l1: k, ..self }
    }
    pub const fn c(self, k: i64) -> Affine {
        Affine { c: k, ..self }
    }

    #[inline]
    fn at(&self, gx: u32, gy: u32, iter: [u32; 2]) -> i64 {
        self.x * i64::from(gx)
            + self.y * i64::from(gy)
            + self.l0 * i64::from(iter[0])
            + self.l1 * i64::from(iter[1])
            + self.c
    }
}

/// One step of a thread's program; `&'static str`s are the names the debugger shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// One ALU issue slot (index arithmetic, a multiply-add, ...).
    Alu(&'static str),
    /// A load of `array[at]`.
    Load { array: usize, at: Affine, name: &'static str },
    /// A store to `array[at]`.
    Store { array: usize, at: Affine, name: &'static str },
    /// `if (gx, gy inside the kernel's guard)`: lanes outside it wait at the exit; a warp with
    /// none inside skips to the exit.
    Guard,
    /// `for (l = 0; l < trips; l++) {` — the counter is `l0` at the outer level, `l1` inside.
    Loop { trips: u32 },
    /// `}`: one ALU slot (increment, compare, branch), named `name`.
    EndLoop(&'static str),
}

/// A compiled step: the step, its jump target (the matching `Loop`/`EndLoop`), registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Code {
    step: Step,
    target: u16,
    dst: u8,
    srcs: [u8; 4],
}

/// The accumulator register arithmetic slots update; the loop counter register.
const ACC: u8 = 1;
const COUNTER: u8 = 0;
/// Loads write registers `FIRST_LOAD_REG..FIRST_LOAD_REG + LOAD_REGS`, round robin.
const FIRST_LOAD_REG: u8 = 2;
const LOAD_REGS: u8 = 8;

/// A launched kernel: its grid, guard, arrays and the per-thread program (immutable, shared).
#[derive(Clone, Debug, PartialEq)]
pub struct NestKernel {
    pub name: String,
    /// CTAs in x and y (`gridDim`); CTA `c` is (`c mod grid[0]`, `c / grid[0]`).
    pub grid: [u32; 2],
    /// Threads per CTA in x and y (`blockDim`); `block[0]` is a multiple of 32, so a warp is
    /// 32 consecutive x indices of one y.
    pub block: [u32; 2],
    /// The guard's bounds: `lo ≤ gx < hi` and likewise for `gy`.
    pub guard: [(u32, u32); 2],
    pub arrays: Vec<ArrayInfo>,
    code: Vec<Code>,
}

/// A warp's position in a [`NestKernel`]'s program: all of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestCursor {
    pc: u16,
    depth: u8,
    iter: [u32; 2],
    mask: u32,
    /// Global x index of lane 0, and the warp's global y index.
    gx: u32,
    gy: u32,
    /// Name of the instruction fetched last.
    name: &'static str,
}

impl NestKernel {
    /// Compiles `steps`: matches loops, assigns registers. Panics on a malformed program
    /// (these are built in, not user input).
    pub fn new(
        name: &str,
        grid: [u32; 2],
        block: [u32; 2],
        guard: [(u32, u32); 2],
        arrays: &[ArrayInfo],
        steps: &[Step],
    ) -> NestKernel {
        assert!(block[0].is_multiple_of(32) && block[1] >= 1, "{name}: blockDim.x must be a multiple of 32");
        let mut code: Vec<Code> = Vec::with_capacity(steps.len());
        let mut open: Vec<usize> = Vec::new();
        let mut loaded: Vec<u8> = Vec::new();
        let mut next_load = 0u8;
        for (i, &step) in steps.iter().enumerate() {
            let mut c = Code { step, target: 0, dst: NO_REG, srcs: [NO_REG; 4] };
            match step {
                Step::Alu(_) => {
                    // Up to three pending loads plus the accumulator.
                    c.srcs[0] = ACC;
                    for (s, r) in c.srcs[1..].iter_mut().zip(loaded.iter().rev()) {
                        *s = *r;
                    }
                    loaded.clear();
                    c.dst = ACC;
                }
                Step::Load { array, .. } => {
                    assert!(array < arrays.len(), "{name}: step {i} names array {array}");
                    c.dst = FIRST_LOAD_REG + next_load;
                    next_load = (next_load + 1) % LOAD_REGS;
                    loaded.push(c.dst);
                }
                Step::Store { array, .. } => {
                    assert!(array < arrays.len(), "{name}: step {i} names array {array}");
                    c.srcs[0] = ACC;
                }
                Step::Guard => {}
                Step::Loop { .. } => {
                    assert!(open.len() < 2, "{name}: loops nest at most two deep");
                    open.push(i);
                }
                Step::EndLoop(_) => {
                    let begin = open.pop().expect("EndLoop without Loop");
                    code[begin].target = i as u16;
                    c.target = begin as u16;
                    c.srcs[0] = COUNTER;
                    c.dst = COUNTER;
                }
            }
            code.push(c);
        }
        assert!(open.is_empty(), "{name}: a Loop is not closed");
        NestKernel { name: name.into(), grid, block, guard, arrays: arrays.to_vec(), code }
    }

    pub fn ctas(&self) -> u32 {
        self.grid[0] * self.grid[1]
    }

    pub fn threads_per_cta(&self) -> u32 {
        self.block[0] * self.block[1]
    }

    /// A cursor at the start of the program for warp `warp` of CTA `cta`.
    pub fn cursor(&self, cta: u32, warp: u32) -> NestCursor {
        let first = warp * 32;
        let (tx, ty) = (first % self.block[0], first / self.block[0]);
        NestCursor {
            pc: 0,
            depth: 0,
            iter: [0; 2],
            mask: u32::MAX,
            gx: (cta % self.grid[0]) * self.block[0] + tx,
            gy: (cta / self.grid[0]) * self.block[1] + ty,
            name: "",
        }
    }

    /// Lanes of a warp whose indices pass the guard.
    fn guard_mask(&self, gx: u32, gy: u32) -> u32 {
        let [(xlo, xhi), (ylo, yhi)] = self.guard;
        if gy < ylo || gy >= yhi {
            return 0;
        }
        (0..32u32).filter(|&l| (xlo..xhi).contains(&(gx + l))).fold(0, |m, l| m | (1 << l))
    }
}

impl NestCursor {
    /// Produces the next instruction, writing per-lane addresses for memory instructions.
    pub fn fetch(&mut self, k: &NestKernel, addrs: &mut LaneAddrs) -> Instr {
        loop {
            let idx = self.pc as usize;
            let pc = idx as u32 * 16;
            let Some(c) = k.code.get(idx) else {
                self.name = "EXIT";
                return Instr::exit(pc);
            };
            let instr = |op| Instr { pc, op, dst: c.dst, dst_regs: 1, srcs: c.srcs, mask: self.mask };
            match c.step {
                Step::Alu(name) => {
                    self.pc += 1;
                    self.name = name;
                    return instr(Op::Alu);
                }
                Step::Load { array, at, name } | Step::Store { array, at, name } => {
                    let a = &k.arrays[array];
                    for lane in lanes(self.mask) {
                        let e = at.at(self.gx + lane, self.gy, self.iter);
                        debug_assert!(e >= 0 && (e as u64) < a.elems, "{}: {name}: element {e}", k.name);
                        addrs[lane as usize] = a.base + e as u64 * a.elem_bytes;
                    }
                    let width = a.elem_bytes as u8;
                    let op = if matches!(c.step, Step::Load { .. }) {
                        Op::Load { space: Space::Global, width }
                    } else {
                        Op::Store { space: Space::Global, width }
                    };
                    self.pc += 1;
                    self.name = name;
                    return instr(op);
                }
                Step::Guard => {
                    self.mask &= k.guard_mask(self.gx, self.gy);
                    self.pc = if self.mask == 0 { k.code.len() as u16 } else { self.pc + 1 };
                }
                Step::Loop { trips } => {
                    if trips == 0 {
                        self.pc = c.target + 1;
                    } else {
                        self.iter[self.depth as usize] = 0;
                        self.depth += 1;
                        self.pc += 1;
                    }
                }
                Step::EndLoop(name) => {
                    let Step::Loop { trips } = k.code[c.target as usize].step else {
                        unreachable!("compiled: EndLoop targets its Loop")
                    };
                    let d = self.depth as usize - 1;
                    self.iter[d] += 1;
                    if self.iter[d] < trips {
                        self.pc = c.target + 1;
                    } else {
                        self.depth -= 1;
                        self.pc += 1;
                    }
                    self.name = name;
                    return instr(Op::Alu);
                }
            }
        }
    }

    /// The name of the instruction fetched last.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

#[cfg(test)]
pub mod testing {
    //! Runs kernels' warps to their exit and collects their memory streams, for the kernels'
    //! tests to compare with loop nests of their own.
    use super::*;
    use crate::workload::Kernel;

    /// One memory instruction: store?, element width, active mask, the active lanes' addresses.
    pub type Access = (bool, u8, u32, Vec<u64>);

    /// The memory stream of every warp of `k`, CTA by CTA, warp by warp.
    pub fn streams(k: &NestKernel) -> Vec<Vec<Access>> {
        kernel_streams(&Kernel::Nest(k.clone()))
    }

    /// The memory stream of every warp of any benchmark kernel, CTA by CTA, warp by warp.
    pub fn kernel_streams(k: &Kernel) -> Vec<Vec<Access>> {
        let mut out = Vec::new();
        for cta in 0..k.ctas() {
            for mut program in k.cta_programs(cta).expect("benchmark kernels read no files") {
                let mut addrs = [0u64; 32];
                let mut s = Vec::new();
                loop {
                    let i = program.fetch(k, &mut addrs);
                    match i.op {
                        Op::Exit => break,
                        Op::Load { width, .. } | Op::Store { width, .. } => s.push((
                            matches!(i.op, Op::Store { .. }),
                            width,
                            i.mask,
                            lanes(i.mask).map(|l| addrs[l as usize]).collect(),
                        )),
                        _ => {}
                    }
                }
                out.push(s);
            }
        }
        out
    }

    /// The memory streams a plain per-thread loop nest gives: `thread(gx, gy)` lists the
    /// accesses (store?, address) of the thread with those global indices, in program order, and
    /// `inside(gx, gy)` is the kernel's `if`. Warps are the kernel's CTAs (x fastest) cut into
    /// 32 threads (x fastest); a warp's accesses are its inside threads' zipped (4-byte floats).
    pub fn reference(
        k: &NestKernel,
        inside: impl Fn(u64, u64) -> bool,
        thread: impl Fn(u64, u64) -> Vec<(bool, u64)>,
    ) -> Vec<Vec<Access>> {
        let (bx, by) = (u64::from(k.block[0]), u64::from(k.block[1]));
        let mut out = Vec::new();
        for cy in 0..u64::from(k.grid[1]) {
            for cx in 0..u64::from(k.grid[0]) {
                for w in 0..bx * by / 32 {
                    let threads: Vec<(u32, Vec<(bool, u64)>)> = (0..32u64)
                        .map(|l| (w * 32 + l, l))
                        .map(|(t, l)| (cx * bx + t % bx, cy * by + t / bx, l))
                        .filter(|&(gx, gy, _)| inside(gx, gy))
                        .map(|(gx, gy, l)| (l as u32, thread(gx, gy)))
                        .collect();
                    let mask = threads.iter().fold(0u32, |m, (l, _)| m | 1 << l);
                    let n = threads.first().map_or(0, |t| t.1.len());
                    out.push(
                        (0..n)
                            .map(|i| {
                                let addrs = threads.iter().map(|t| t.1[i].1).collect();
                                (threads[0].1[i].0, 4, mask, addrs)
                            })
                            .collect(),
                    );
                }
            }
        }
        out
    }

    /// Asserts that `k`'s warps produce `want`, warp by warp.
    pub fn assert_streams(k: &NestKernel, want: &[Vec<Access>]) {
        let got = streams(k);
        assert_eq!(got.len(), want.len(), "{}: warps", k.name);
        for (w, (g, r)) in got.iter().zip(want).enumerate() {
            assert_eq!(g, r, "{} warp {w}", k.name);
        }
    }

    /// The base address of the array named `name`.
    pub fn base(k: &NestKernel, name: &str) -> u64 {
        k.arrays.iter().find(|a| a.name == name).expect("array").base
    }
}
