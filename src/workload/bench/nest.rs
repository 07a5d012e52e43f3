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
//! The Rodinia kernels that stage tiles in shared memory (HotSpot, Needleman-Wunsch,
//! Backprop) need a little more, and have it: indices in `threadIdx`/`blockIdx` terms (a
//! 16 × 16 block puts two rows of `ty` in one warp, a 16-thread block leaves half a warp
//! empty), shared-memory loads and stores, `__syncthreads()`, and `if`s whose conditions are
//! ranges or residues of such indices and of the loop counters (`if (tx <= m)`,
//! `if (ty % 2 == 0)`), each narrowing the active mask until its end as the SIMT stack does.
//!
//! Approximations, the same for every kernel: each global access written in the CUDA source is
//! one warp load or store of its element width, except that an accumulator a loop updates
//! (`tmp[i] += ...`) is loaded once before the loop and stored on every trip, as nvcc compiles
//! it (CUDA 11.8: it keeps the value in a register; the stores stay, as the arrays may alias);
//! each arithmetic statement
//! of the loop body is one ALU issue slot; each loop iteration ends with one ALU slot for the
//! counter update, compare and branch; the index arithmetic before the guard is one slot per
//! index. Register dependencies follow the data flow: an arithmetic slot waits for the loads
//! before it and for the accumulator it updates; a store waits for the accumulator, or for the
//! load just before it when it copies a loaded value. An access at an affine index names no
//! address register (SASS would name the register its index arithmetic wrote): it does not
//! wait for the loop counter update, in warpscope or in an exported trace.

use super::super::instr::{Instr, InstrName, LaneAddrs, NO_REG, Op, Space, warp_threads};
use super::super::synth::{ArrayInfo, lanes};
use std::sync::Arc;

/// An element index `x·gx + y·gy + tx·tx + ty·ty + bx·bx + by·by + l0·i0 + l1·i1 + c`, where
/// `gx`, `gy` are the thread's global indices (`blockIdx*blockDim + threadIdx`), `tx`, `ty` its
/// `threadIdx`, `bx`, `by` its `blockIdx`, and `i0`, `i1` the counters of the outer and inner
/// loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Affine {
    pub x: i64,
    pub y: i64,
    pub tx: i64,
    pub ty: i64,
    pub bx: i64,
    pub by: i64,
    pub l0: i64,
    pub l1: i64,
    pub c: i64,
}

impl Affine {
    pub const ZERO: Affine = Affine { x: 0, y: 0, tx: 0, ty: 0, bx: 0, by: 0, l0: 0, l1: 0, c: 0 };

    pub const fn x(self, k: i64) -> Affine {
        Affine { x: k, ..self }
    }
    pub const fn y(self, k: i64) -> Affine {
        Affine { y: k, ..self }
    }
    pub const fn tx(self, k: i64) -> Affine {
        Affine { tx: k, ..self }
    }
    pub const fn ty(self, k: i64) -> Affine {
        Affine { ty: k, ..self }
    }
    pub const fn bx(self, k: i64) -> Affine {
        Affine { bx: k, ..self }
    }
    pub const fn by(self, k: i64) -> Affine {
        Affine { by: k, ..self }
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
    fn at(&self, t: &Thread, iter: [u32; 2]) -> i64 {
        self.x * i64::from(t.gx)
            + self.y * i64::from(t.gy)
            + self.tx * i64::from(t.tx)
            + self.ty * i64::from(t.ty)
            + self.bx * i64::from(t.bx)
            + self.by * i64::from(t.by)
            + self.l0 * i64::from(iter[0])
            + self.l1 * i64::from(iter[1])
            + self.c
    }
}

/// One thread's indices, for evaluating an [`Affine`].
#[derive(Clone, Copy, Debug)]
struct Thread {
    gx: u32,
    gy: u32,
    tx: u32,
    ty: u32,
    bx: u32,
    by: u32,
}

/// A warp's place in the grid, from which each lane's [`Thread`] follows.
#[derive(Clone, Copy, Debug)]
struct Lanes {
    block: [u32; 2],
    /// Whether the block's x extent is a multiple of 32: then the warp lies in one row of `ty`
    /// and its lanes are consecutive `tx`.
    one_row: bool,
    t0: u32,
    bx: u32,
    by: u32,
    /// `by · blockDim.y`.
    y0: u32,
}

impl Lanes {
    #[inline]
    fn thread(&self, lane: u32) -> Thread {
        let b0 = self.block[0];
        let (tx, ty) = if self.one_row {
            (self.t0 % b0 + lane, self.t0 / b0)
        } else {
            ((self.t0 + lane) % b0, (self.t0 + lane) / b0)
        };
        Thread { gx: self.bx * b0 + tx, gy: self.y0 + ty, tx, ty, bx: self.bx, by: self.by }
    }
}

/// A lane's condition: `lo ≤ v ≤ hi` where `v` is `at` (or `at mod modulo` when `modulo > 0`).
/// The bounds are inclusive, as Rodinia's `IN_RANGE(x, min, max)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cond {
    pub at: Affine,
    pub modulo: i64,
    pub lo: i64,
    pub hi: i64,
}

impl Cond {
    /// `lo ≤ at ≤ hi`.
    pub const fn range(at: Affine, lo: i64, hi: i64) -> Cond {
        Cond { at, modulo: 0, lo, hi }
    }
    /// `at ≤ hi`.
    pub const fn at_most(at: Affine, hi: i64) -> Cond {
        Cond::range(at, i64::MIN, hi)
    }
    /// `at == v`.
    pub const fn equals(at: Affine, v: i64) -> Cond {
        Cond::range(at, v, v)
    }
    /// `at % m == 0`.
    pub const fn multiple_of(at: Affine, m: i64) -> Cond {
        Cond { at, modulo: m, lo: 0, hi: 0 }
    }

    #[inline]
    fn holds(&self, t: &Thread, iter: [u32; 2]) -> bool {
        let v = self.at.at(t, iter);
        let v = if self.modulo > 0 { v.rem_euclid(self.modulo) } else { v };
        (self.lo..=self.hi).contains(&v)
    }
}

/// A clamped neighbour: the index moves by `scale · (clamp(on, lo, hi) − on)`, so a lane whose
/// neighbour coordinate `on` falls outside `lo..=hi` reads the nearest one inside (HotSpot's
/// `N = (N < validYmin) ? validYmin : N`, in grid rows: `scale` is the tile's row length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clamp {
    pub on: Affine,
    pub lo: i64,
    pub hi: i64,
    pub scale: i64,
}

impl Clamp {
    #[inline]
    fn shift(&self, t: &Thread, iter: [u32; 2]) -> i64 {
        let v = self.on.at(t, iter);
        self.scale * (v.clamp(self.lo, self.hi) - v)
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
    /// A 4-byte load from the CTA's shared memory at element `at` (byte offset `4·at`).
    SharedLoad { at: Affine, name: &'static str },
    /// [`Step::SharedLoad`] of a neighbour the kernel clamps: element `at` moved by `clamp`.
    ClampedSharedLoad { at: Affine, clamp: Clamp, name: &'static str },
    /// A 4-byte store to the CTA's shared memory at element `at`.
    SharedStore { at: Affine, name: &'static str },
    /// `__syncthreads()`.
    Barrier(&'static str),
    /// `if (cond) {`: the lanes where `cond` fails wait at the matching [`Step::EndIf`]; a warp
    /// with none left skips to it.
    If(Cond),
    /// `if (cond) {` that nvcc predicates instead of branching around (the body's SASS carries
    /// the condition as its guard predicate): the body issues with the lanes where `cond`
    /// holds, with none (trace lines of mask 0) when no lane does, up to the matching
    /// [`Step::EndIf`]; its [`Step::And`]s narrow those lanes, none skips. It takes no
    /// [`Step::Else`].
    Predicated(Cond),
    /// `&& cond` of the innermost open `if`: narrows its lanes further.
    And(Cond),
    /// `if (flag)` on data: the lanes whose global thread (`gx`) has bit set in flag table
    /// `n` of the kernel's [`NestData`] (a branch on values the kernel computes, worked out
    /// when the input is built).
    IfFlag(u8),
    /// `} else {`: the lanes the innermost `if` left out, and only they.
    Else,
    /// `}` of an `if`: the lanes it left out rejoin.
    EndIf,
    /// A load or store of `array[at + table[gx]]`, `table` being value table `table` of the
    /// kernel's [`NestData`]: an index read from memory (`a[b[tid]]`), worked out when the
    /// input is built.
    Gather { array: usize, at: Affine, table: u8, store: bool, name: &'static str },
    /// `if (gx, gy inside the kernel's guard)`, which nvcc compiles to `@P0 EXIT`: the lanes
    /// outside leave (a line with them, of mask 0 when there are none); a warp with none
    /// inside ends here. At the top level of the program, before any `if`.
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
    /// Registers the destination spans (an 8-byte load writes two).
    dst_regs: u8,
    srcs: [u8; 4],
}

/// The accumulator register arithmetic slots update; the loop counter register.
const ACC: u8 = 1;
const COUNTER: u8 = 0;
/// Loads write registers `FIRST_LOAD_REG..FIRST_LOAD_REG + LOAD_REGS`, round robin: enough
/// for 3DCONV's eleven loads in flight at once, each in a register of its own as nvcc gives
/// them (26 registers in all), so that none waits for an earlier one to free its register.
const FIRST_LOAD_REG: u8 = 2;
const LOAD_REGS: u8 = 16;

/// A launched kernel: its grid, guard, arrays and the per-thread program (immutable, shared).
#[derive(Clone, Debug, PartialEq)]
pub struct NestKernel {
    pub name: String,
    /// CTAs in x and y (`gridDim`); CTA `c` is (`c mod grid[0]`, `c / grid[0]`).
    pub grid: [u32; 2],
    /// Threads per CTA in x and y (`blockDim`); warps are cut from the CTA's threads numbered
    /// x fastest, 32 at a time, the last one short when the CTA is not a multiple of 32.
    pub block: [u32; 2],
    /// The guard's bounds: `lo ≤ gx < hi` and likewise for `gy`.
    pub guard: [(u32, u32); 2],
    pub arrays: Vec<ArrayInfo>,
    /// Shared memory a CTA declares, bytes: the kernel's `__shared__` arrays
    /// ([`NestKernel::with_shared_bytes`]; none by default, as PolyBench/GPU's kernels).
    pub shared_bytes: u32,
    code: Vec<Code>,
    data: Arc<NestData>,
}

/// Values a kernel's data-dependent steps read, per global thread index `gx`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NestData {
    /// [`Step::Gather`]'s index tables.
    pub tables: Vec<Vec<u32>>,
    /// [`Step::IfFlag`]'s bit sets (bit `gx % 64` of word `gx / 64`).
    pub flags: Vec<Vec<u64>>,
}

/// How deep `if`s nest.
const MAX_IFS: usize = 4;

/// A warp's position in a [`NestKernel`]'s program: all of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NestCursor {
    pc: u16,
    depth: u8,
    ifs: u8,
    iter: [u32; 2],
    mask: u32,
    /// The masks the open `if`s will restore, outermost first.
    saved: [u32; MAX_IFS],
    /// `blockIdx` of the warp's CTA, and the CTA-local thread number of lane 0.
    bx: u32,
    by: u32,
    t0: u32,
    /// Name of the instruction fetched last.
    name: InstrName,
}

impl NestKernel {
    /// Compiles `steps`: matches loops and `if`s, assigns registers. Panics on a malformed
    /// program (these are built in, not user input).
    pub fn new(
        name: &str,
        grid: [u32; 2],
        block: [u32; 2],
        guard: [(u32, u32); 2],
        arrays: &[ArrayInfo],
        steps: &[Step],
    ) -> NestKernel {
        assert!(block[0] >= 1 && block[1] >= 1, "{name}: an empty block");
        let mut code: Vec<Code> = Vec::with_capacity(steps.len());
        // Open loops and ifs, innermost last: (step index, is a loop).
        let mut open: Vec<(usize, bool)> = Vec::new();
        // `And`s waiting for their `if`'s end.
        let mut ands: Vec<usize> = Vec::new();
        let mut loaded: Vec<u8> = Vec::new();
        let mut next_load = 0u8;
        for (i, &step) in steps.iter().enumerate() {
            let mut c = Code { step, target: 0, dst: NO_REG, dst_regs: 1, srcs: [NO_REG; 4] };
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
                Step::Load { array, .. } | Step::Store { array, .. } | Step::Gather { array, .. } => {
                    assert!(array < arrays.len(), "{name}: step {i} names array {array}");
                }
                _ => {}
            }
            match step {
                Step::Load { .. }
                | Step::SharedLoad { .. }
                | Step::ClampedSharedLoad { .. }
                | Step::Gather { store: false, .. } => {
                    if matches!(step, Step::Gather { .. }) {
                        // Its index was loaded: it waits for the loads before it.
                        for (s, r) in c.srcs.iter_mut().zip(loaded.iter().rev()) {
                            *s = *r;
                        }
                    }
                    if let Step::Load { array, .. } | Step::Gather { array, .. } = step {
                        c.dst_regs = (arrays[array].elem_bytes / 4).max(1) as u8;
                    }
                    if next_load + c.dst_regs > LOAD_REGS {
                        next_load = 0;
                    }
                    c.dst = FIRST_LOAD_REG + next_load;
                    next_load = (next_load + c.dst_regs) % LOAD_REGS;
                    loaded.push(c.dst);
                }
                Step::Store { .. } | Step::SharedStore { .. } | Step::Gather { store: true, .. } => {
                    // A store right after a load (a copy, as into a shared tile) stores the loaded
                    // value; otherwise the accumulator.
                    c.srcs[0] = loaded.pop().unwrap_or(ACC);
                    loaded.clear();
                }
                Step::Loop { .. } => {
                    assert!(open.iter().filter(|o| o.1).count() < 2, "{name}: loops nest at most two deep");
                    open.push((i, true));
                }
                Step::EndLoop(_) => {
                    let (begin, true) = open.pop().expect("EndLoop without Loop") else {
                        panic!("{name}: step {i} ends a loop inside an open if")
                    };
                    code[begin].target = i as u16;
                    c.target = begin as u16;
                    c.srcs[0] = COUNTER;
                    c.dst = COUNTER;
                }
                Step::If(_) | Step::IfFlag(_) | Step::Predicated(_) => {
                    assert!(
                        open.iter().filter(|o| !o.1).count() < MAX_IFS,
                        "{name}: ifs nest deeper than {MAX_IFS}"
                    );
                    open.push((i, false));
                }
                Step::Else => {
                    // The if's lanes that fail (and its `And`s) go to the else; the else's
                    // own lanes, when there are none, to the end.
                    let &(begin, false) = open.last().expect("Else without If") else {
                        panic!("{name}: step {i}: else inside an open loop")
                    };
                    assert!(
                        !matches!(code[begin].step, Step::Predicated(_)),
                        "{name}: step {i}: else of a predicated if"
                    );
                    code[begin].target = i as u16;
                    while ands.last().is_some_and(|&a| a > begin) {
                        code[ands.pop().expect("checked")].target = i as u16;
                    }
                    *open.last_mut().expect("checked") = (i, false);
                }
                Step::And(_) => {
                    let &(begin, false) = open.last().expect("And outside an if") else {
                        panic!("{name}: step {i}: And outside an if")
                    };
                    if matches!(code[begin].step, Step::Predicated(_)) {
                        // Narrows the lanes and goes on to the next step, with or without any.
                        c.target = i as u16 + 1;
                    } else {
                        ands.push(i);
                    }
                }
                Step::EndIf => {
                    let (begin, false) = open.pop().expect("EndIf without If or Else") else {
                        panic!("{name}: step {i} ends an if inside an open loop")
                    };
                    code[begin].target = i as u16;
                    while ands.last().is_some_and(|&a| a > begin) {
                        let a = ands.pop().expect("checked");
                        code[a].target = i as u16;
                    }
                }
                _ => {}
            }
            code.push(c);
        }
        assert!(open.is_empty(), "{name}: a Loop or If is not closed");
        NestKernel {
            name: name.into(),
            grid,
            block,
            guard,
            arrays: arrays.to_vec(),
            shared_bytes: 0,
            code,
            data: Arc::default(),
        }
    }

    /// The kernel with `bytes` of shared memory per CTA, its `__shared__` arrays.
    pub fn with_shared_bytes(self, bytes: u32) -> NestKernel {
        NestKernel { shared_bytes: bytes, ..self }
    }

    /// Registers per thread its program names: one more than the highest of any step's
    /// destination range and sources (see [`crate::workload::Kernel::registers_per_thread`]).
    pub fn registers(&self) -> u32 {
        self.code
            .iter()
            .map(|c| Instr { pc: 0, op: Op::Alu, dst: c.dst, dst_regs: c.dst_regs, srcs: c.srcs, mask: 0 })
            .map(|i| i.register_span())
            .max()
            .unwrap_or(0)
    }

    /// The kernel with the values its data-dependent steps read.
    pub fn with_data(self, data: Arc<NestData>) -> NestKernel {
        NestKernel { data, ..self }
    }

    pub fn ctas(&self) -> u32 {
        self.grid[0] * self.grid[1]
    }

    pub fn threads_per_cta(&self) -> u32 {
        self.block[0] * self.block[1]
    }

    /// A cursor at the start of the program for warp `warp` of CTA `cta`.
    pub fn cursor(&self, cta: u32, warp: u32) -> NestCursor {
        let t0 = warp * 32;
        NestCursor {
            pc: 0,
            depth: 0,
            ifs: 0,
            iter: [0; 2],
            mask: warp_threads(self.threads_per_cta(), warp),
            saved: [0; MAX_IFS],
            bx: cta % self.grid[0],
            by: cta / self.grid[0],
            t0,
            name: InstrName(""),
        }
    }
}

impl NestCursor {
    /// Where the warp's lanes sit in the grid.
    #[inline]
    fn threads(&self, k: &NestKernel) -> Lanes {
        let [b0, b1] = k.block;
        Lanes {
            block: k.block,
            one_row: b0.is_multiple_of(32),
            t0: self.t0,
            bx: self.bx,
            by: self.by,
            y0: self.by * b1,
        }
    }

    /// The active lanes for which `keep` holds.
    #[inline]
    fn lanes_where(&self, k: &NestKernel, keep: impl Fn(&Thread) -> bool) -> u32 {
        let map = self.threads(k);
        lanes(self.mask).filter(|&l| keep(&map.thread(l))).fold(0, |m, l| m | (1 << l))
    }

    /// Calls `each(lane, at)` for the active lanes. In a warp within one row of `ty`, lane `l`
    /// is lane 0 with `gx` and `tx` one larger per lane, so its index is lane 0's plus `l`
    /// times `at.x + at.tx` — the same number, without evaluating `at` per lane.
    #[inline]
    fn elements(&self, k: &NestKernel, at: &Affine, mut each: impl FnMut(u32, i64)) {
        let map = self.threads(k);
        if map.one_row {
            let first = at.at(&map.thread(0), self.iter);
            let step = at.x + at.tx;
            for lane in lanes(self.mask) {
                each(lane, first + step * i64::from(lane));
            }
        } else {
            for lane in lanes(self.mask) {
                each(lane, at.at(&map.thread(lane), self.iter));
            }
        }
    }

    /// Produces the next instruction, writing per-lane addresses for memory instructions.
    pub fn fetch(&mut self, k: &NestKernel, addrs: &mut LaneAddrs) -> Instr {
        loop {
            let idx = self.pc as usize;
            let pc = idx as u32 * 16;
            let Some(c) = k.code.get(idx) else {
                self.name = InstrName("EXIT");
                // The lanes the guard kept end here (every `if` and loop is closed).
                return Instr::exit(pc, self.mask);
            };
            let instr =
                |op| Instr { pc, op, dst: c.dst, dst_regs: c.dst_regs, srcs: c.srcs, mask: self.mask };
            match c.step {
                Step::Alu(name) | Step::Barrier(name) => {
                    self.pc += 1;
                    self.name = InstrName(name);
                    return instr(if matches!(c.step, Step::Alu(_)) { Op::Alu } else { Op::Barrier });
                }
                Step::Load { array, at, name } | Step::Store { array, at, name } => {
                    let a = &k.arrays[array];
                    self.elements(k, &at, |lane, e| {
                        debug_assert!(e >= 0 && (e as u64) < a.elems, "{}: {name}: element {e}", k.name);
                        addrs[lane as usize] = a.base + e as u64 * a.elem_bytes;
                    });
                    let width = a.elem_bytes as u8;
                    let op = if matches!(c.step, Step::Load { .. }) {
                        Op::Load { space: Space::Global, width }
                    } else {
                        Op::Store { space: Space::Global, width }
                    };
                    self.pc += 1;
                    self.name = InstrName(name);
                    return instr(op);
                }
                Step::SharedLoad { at, name }
                | Step::SharedStore { at, name }
                | Step::ClampedSharedLoad { at, name, .. } => {
                    // A clamped neighbour's lanes, looked up only for a clamped load.
                    let clamp = match c.step {
                        Step::ClampedSharedLoad { clamp, .. } => Some((clamp, self.threads(k))),
                        _ => None,
                    };
                    let iter = self.iter;
                    self.elements(k, &at, |lane, e| {
                        let e = e + clamp.as_ref().map_or(0, |(c, map)| c.shift(&map.thread(lane), iter));
                        debug_assert!(e >= 0, "{}: {name}: shared element {e}", k.name);
                        addrs[lane as usize] = 4 * e as u64;
                    });
                    let op = if matches!(c.step, Step::SharedStore { .. }) {
                        Op::Store { space: Space::Shared, width: 4 }
                    } else {
                        Op::Load { space: Space::Shared, width: 4 }
                    };
                    self.pc += 1;
                    self.name = InstrName(name);
                    return instr(op);
                }
                Step::Guard => {
                    let [(xlo, xhi), (ylo, yhi)] = k.guard;
                    let inside =
                        self.lanes_where(k, |t| (xlo..xhi).contains(&t.gx) && (ylo..yhi).contains(&t.gy));
                    // `@P0 EXIT` of the lanes outside (no lane has left before it); with none
                    // inside, the warp's last instruction.
                    self.name = InstrName("EXIT");
                    let exit = Instr::guard_exit(pc, self.mask, &mut 0, inside);
                    self.pc = if inside == 0 { k.code.len() as u16 } else { self.pc + 1 };
                    self.mask = inside;
                    return exit;
                }
                Step::If(cond) | Step::And(cond) => {
                    if matches!(c.step, Step::If(_)) {
                        self.saved[self.ifs as usize] = self.mask;
                        self.ifs += 1;
                    }
                    self.mask = self.lanes_where(k, |t| cond.holds(t, self.iter));
                    self.pc = if self.mask == 0 { c.target } else { self.pc + 1 };
                }
                Step::Predicated(cond) => {
                    self.saved[self.ifs as usize] = self.mask;
                    self.ifs += 1;
                    self.mask = self.lanes_where(k, |t| cond.holds(t, self.iter));
                    self.pc += 1;
                }
                Step::IfFlag(f) => {
                    self.saved[self.ifs as usize] = self.mask;
                    self.ifs += 1;
                    let flags = &k.data.flags[usize::from(f)];
                    self.mask = self.lanes_where(k, |t| flags[t.gx as usize / 64] >> (t.gx % 64) & 1 != 0);
                    self.pc = if self.mask == 0 { c.target } else { self.pc + 1 };
                }
                Step::Else => {
                    self.mask = self.saved[self.ifs as usize - 1] & !self.mask;
                    self.pc = if self.mask == 0 { c.target } else { self.pc + 1 };
                }
                Step::EndIf => {
                    self.ifs -= 1;
                    self.mask = self.saved[self.ifs as usize];
                    self.pc += 1;
                }
                Step::Gather { array, at, table, store, name } => {
                    let (a, values) = (&k.arrays[array], &k.data.tables[usize::from(table)]);
                    let map = self.threads(k);
                    for lane in lanes(self.mask) {
                        let t = map.thread(lane);
                        let e = at.at(&t, self.iter) + i64::from(values[t.gx as usize]);
                        debug_assert!(e >= 0 && (e as u64) < a.elems, "{}: {name}: element {e}", k.name);
                        addrs[lane as usize] = a.base + e as u64 * a.elem_bytes;
                    }
                    let width = a.elem_bytes as u8;
                    let space = Space::Global;
                    let op = if store { Op::Store { space, width } } else { Op::Load { space, width } };
                    self.pc += 1;
                    self.name = InstrName(name);
                    return instr(op);
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
                    self.name = InstrName(name);
                    return instr(Op::Alu);
                }
            }
        }
    }

    /// The name of the instruction fetched last.
    pub fn name(&self) -> &'static str {
        self.name.0
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

    /// The memory streams of a kernel written as a plain per-thread program:
    /// `thread(bx, by, tx, ty)` lists the accesses (key, store?, address) of that thread, where
    /// the key names the access's place in the program (the same for every thread, increasing in
    /// program order). Warps are cut from each CTA's threads, x fastest; a warp's instruction for
    /// a key has the lanes whose threads made that access (4-byte elements). The accesses
    /// `predicated` lists (key, store?) are predicated code every warp issues, with no lane when
    /// none of its threads makes it.
    pub fn per_thread(
        k: &NestKernel,
        predicated: &[(u64, bool)],
        thread: impl Fn(u32, u32, u32, u32) -> Vec<(u64, bool, u64)>,
    ) -> Vec<Vec<Access>> {
        let [b0, b1] = k.block;
        let mut out = Vec::new();
        for cta in 0..k.ctas() {
            let (bx, by) = (cta % k.grid[0], cta / k.grid[0]);
            for w in 0..(b0 * b1).div_ceil(32) {
                let threads: Vec<Vec<(u64, bool, u64)>> =
                    (w * 32..(w * 32 + 32).min(b0 * b1)).map(|t| thread(bx, by, t % b0, t / b0)).collect();
                let mut keys: Vec<u64> =
                    threads.iter().flatten().map(|a| a.0).chain(predicated.iter().map(|p| p.0)).collect();
                keys.sort_unstable();
                keys.dedup();
                let warp = keys
                    .iter()
                    .map(|&key| {
                        let store = predicated.iter().find(|p| p.0 == key).is_some_and(|p| p.1);
                        let (mut mask, mut addrs, mut store) = (0u32, Vec::new(), store);
                        for (l, t) in threads.iter().enumerate() {
                            if let Some(&(_, s, a)) = t.iter().find(|a| a.0 == key) {
                                mask |= 1 << l;
                                addrs.push(a);
                                store = s;
                            }
                        }
                        (store, 4, mask, addrs)
                    })
                    .collect();
                out.push(warp);
            }
        }
        out
    }

    /// How many `__syncthreads()` each warp of `k` executes, CTA by CTA, warp by warp.
    pub fn barriers(k: &NestKernel) -> Vec<usize> {
        let mut out = Vec::new();
        for cta in 0..k.ctas() {
            for w in 0..k.threads_per_cta().div_ceil(32) {
                let mut c = k.cursor(cta, w);
                let mut addrs = [0u64; 32];
                let mut n = 0;
                loop {
                    match c.fetch(k, &mut addrs).op {
                        Op::Exit => break,
                        Op::Barrier => n += 1,
                        _ => {}
                    }
                }
                out.push(n);
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
