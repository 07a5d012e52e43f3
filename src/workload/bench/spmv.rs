//! SHOC SpMV: sparse matrix × dense vector in CSR form, one thread per row (scalar kernel)
//! and one warp per row (vector kernel).
//!
//! Follows SHOC `src/cuda/level1/spmv/Spmv.cu`, `spmv_csr_scalar_kernel` and
//! `spmv_csr_vector_kernel`, `BLOCK_SIZE` = 128 threads per CTA, single precision, both
//! launched on the same matrix as `csrTest` does:
//! - scalar, thread `myRow < dim`: load `rowDelimiters[myRow]` and `[myRow+1]`, then for each
//!   `j` of the row `col = cols[j]; t += val[j] * vec[col]`, then `out[myRow] = t`. nvcc 11.8
//!   (sm_70 and sm_61) peels the row's `len & 3` remainder, one element a trip, and unrolls the
//!   rest by 16 while 16 are left, then by 8 and by 4, so a warp's lanes meet in blocks of one
//!   size and leave as their rows run out; each block's loads and FFMAs come in the order and
//!   registers of nvcc's sm_70 SASS ([`BLOCKS`]: a block of 16 interleaves its 48 loads with
//!   its sums, the smaller blocks load their columns, vector elements and values in turn);
//!   sm_61 orders the block of 16 otherwise, and warpscope runs one program on every machine;
//! - vector, warp `myRow = blockIdx.x*4 + threadIdx.x/32 < dim`: the warp's lanes walk the row
//!   32 apart (`j = warpStart + id; j < warpEnd; j += 32`), store their sums to shared
//!   `partialSums[t]`, reduce them in five halving steps (`if (id < 16) partialSums[t] +=
//!   partialSums[t+16]` ... `id < 1`), and lane 0 writes `out[myRow]`.
//!
//! Input: SHOC's random matrix (`initRandomMatrix`): `rows` × `rows`, every entry non-zero
//! with probability 1 % (`nItems = numRows²/100`), columns ascending within a row. Default
//! 1024 rows, SHOC's default size class (`probSizes[0]`; seed 004 Table 3.2: "default"). Approximations: our hash draws the
//! entries, by geometric gaps between a row's non-zeros (the same distribution as SHOC's
//! per-entry `drand48() <= prob`), so the count is binomial around `nItems` instead of topped
//! up to exactly `nItems` at the matrix's end; the dense vector is read through the texture
//! path in SHOC (`tex1Dfetch`) and is a global load here; one ALU slot per arithmetic
//! statement and loop branch; in the reduction, each step is a shared load of `partialSums[t]`
//! and of `partialSums[t+s]`, an add and a shared store.
//!
//! Shared memory: the vector kernel's `__shared__ volatile fpType partialSums[BLOCK_SIZE]`,
//! 128 floats = 512 bytes per CTA; the scalar kernel declares none.

use super::super::hash::{hash, unit};
use super::super::instr::{Instr, InstrName, LaneAddrs, NO_REG, Op, Space};
use super::super::synth::{ArrayInfo, lanes};
use super::{Bench, Kernel, Knob, Memory, Sizes};
use std::sync::Arc;

pub const BENCH: Bench = Bench {
    name: "spmv",
    about: "SHOC SpMV CSR: scalar (thread per row) and vector (warp per row) kernels, 1 % dense random matrix",
    knobs: &[
        Knob {
            multiple: 1,
            min: 1,
            max: 65536,
            name: "rows",
            default: 1024,
            about: "rows and columns of the matrix",
        },
        Knob {
            multiple: 1,
            min: 0,
            max: u32::MAX,
            name: "seed",
            default: 7,
            about: "seed of the matrix generator",
        },
    ],
    build: |s| build(s).into_iter().map(Kernel::Spmv).collect(),
    input_limit: None,
};

/// `BLOCK_SIZE` of Spmv.h.
const BLOCK: u32 = 128;
/// Share of non-zero entries: SHOC's `nItems = numRows * numRows / 100`.
const DENSITY: f64 = 0.01;

/// A sparse matrix in CSR form: row `r`'s entries are `cols[delims[r] .. delims[r + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Csr {
    pub delims: Vec<u32>,
    pub cols: Vec<u32>,
}

impl Csr {
    /// SHOC's kind of random matrix: `rows` × `rows`, each entry non-zero with probability
    /// [`DENSITY`], drawn row by row as geometric gaps between non-zeros.
    pub fn generate(rows: u32, seed: u64) -> Csr {
        let log_miss = (1.0 - DENSITY).ln();
        let mut delims = Vec::with_capacity(rows as usize + 1);
        let mut cols = Vec::new();
        for r in 0..u64::from(rows) {
            delims.push(cols.len() as u32);
            let mut col = -1i64;
            for k in 0.. {
                let gap = ((1.0 - unit(hash(seed, &[r, k]))).ln() / log_miss) as i64;
                col += 1 + gap;
                if col >= i64::from(rows) {
                    break;
                }
                cols.push(col as u32);
            }
        }
        delims.push(cols.len() as u32);
        Csr { delims, cols }
    }

    pub fn rows(&self) -> u32 {
        self.delims.len() as u32 - 1
    }

    /// Row `r`'s first entry and entry count.
    #[inline]
    pub fn row(&self, r: u32) -> (u32, u32) {
        let s = self.delims[r as usize];
        (s, self.delims[r as usize + 1] - s)
    }
}

/// The input both kernels share: the matrix and the arrays.
#[derive(Debug, PartialEq)]
pub struct SpmvInput {
    pub matrix: Csr,
    pub arrays: Vec<ArrayInfo>,
}

/// Which kernel a launch runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `spmv_csr_scalar_kernel`: a thread per row.
    Scalar,
    /// `spmv_csr_vector_kernel`: a warp per row.
    Vector,
}

/// One launch.
#[derive(Clone, Debug, PartialEq)]
pub struct SpmvKernel {
    pub name: String,
    pub form: Form,
    pub input: Arc<SpmvInput>,
}

const VAL: usize = 0;
const COLS: usize = 1;
const VEC: usize = 2;
const OUT: usize = 3;
const DELIMS: usize = 4;

/// The two launches of `csrTest` on one generated matrix.
pub fn build(s: &Sizes) -> Vec<SpmvKernel> {
    let matrix = Csr::generate(s.get("rows"), u64::from(s.get("seed")));
    let (rows, nnz) = (u64::from(matrix.rows()), matrix.cols.len() as u64);
    let mut m = Memory::default();
    // In csrTest's cudaMalloc order.
    for (name, elems) in
        [("d_val", nnz), ("d_cols", nnz), ("d_vec", rows), ("d_out", rows), ("d_rowDelimiters", rows + 1)]
    {
        m.alloc(name, elems, 4);
    }
    let input = Arc::new(SpmvInput { matrix, arrays: m.arrays().to_vec() });
    [(Form::Scalar, "spmv_csr_scalar_kernel"), (Form::Vector, "spmv_csr_vector_kernel")]
        .map(|(form, name)| SpmvKernel { name: name.into(), form, input: Arc::clone(&input) })
        .into()
}

/// Where a warp is in its kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum At {
    Index,
    Bound,
    BoundExit,
    LoadStart,
    LoadEnd,
    // Vector: the row loop, 32 elements a trip.
    LoopHead,
    // Scalar: the row loop as nvcc unrolls it.
    BlockHead,
    Block,
    BlockBranch,
    LoadCol,
    LoadVal,
    LoadVec,
    Fma,
    Branch,
    // Scalar: after the loop.
    StoreOut,
    // Vector: after the loop.
    StoreSum,
    ReduceMine,
    ReduceOther,
    ReduceAdd,
    ReduceStore,
    LaneExit,
    FinalLoad,
    FinalStore,
    Exit,
}

/// The reduction's halving steps: `if (id < s) partialSums[t] += partialSums[t + s]`.
const STEPS: [u32; 5] = [16, 8, 4, 2, 1];

/// One instruction of an unrolled block of the scalar kernel's row loop, with the registers
/// nvcc gives it: a load of element `i` of the block into `dst` — `cols[j+i]`, `vec[col]`
/// through the register holding that column, `val[j+i]` — or an FFMA of three registers.
#[derive(Clone, Copy, Debug)]
enum Step {
    Col { i: u8, dst: u8 },
    Vec { i: u8, dst: u8, col: u8 },
    Val { i: u8, dst: u8 },
    Fma { dst: u8, srcs: [u8; 3] },
}

/// A block of the unrolled row loop: its size, the registers holding the addresses of its
/// `cols` and `val` elements, whether it branches back (the peeled trip and the block of 16
/// loop; the blocks of 8 and 4 run once at most), and its instructions.
struct Block {
    size: u32,
    cols_at: u8,
    vals_at: u8,
    loops: bool,
    steps: &'static [Step],
}

/// Registers of the scalar kernel outside its blocks, as nvcc allocates them: `myRow`, the
/// row's first and end elements, and the running sum `t`.
const ROW: u8 = 6;
const START: u8 = 0;
const END: u8 = 7;
const SUM: u8 = 24;

const fn col(i: u8, dst: u8) -> Step {
    Step::Col { i, dst }
}
const fn vec(i: u8, dst: u8, col: u8) -> Step {
    Step::Vec { i, dst, col }
}
const fn val(i: u8, dst: u8) -> Step {
    Step::Val { i, dst }
}
const fn fma(dst: u8, srcs: [u8; 3]) -> Step {
    Step::Fma { dst, srcs }
}

/// The scalar kernel's row loop as nvcc 11.8 compiles it for sm_70 (`spmv_csr_scalar_kernel`'s
/// SASS, `cuobjdump -sass`): the `len & 3` remainder one element a trip (0x210–0x300), then 16
/// elements a trip (0x400–0x8d0), then 8 (0x940–0xbc0), then 4 (0xc00–0xd00), each
/// instruction of a block in the SASS's order with its registers; the TLD of `vec[col]` is a
/// global load here.
const BLOCKS: [Block; 4] = [
    Block {
        size: 1,
        cols_at: 10,
        vals_at: 12,
        loops: true,
        steps: &[col(0, 2), vec(0, 4, 2), val(0, 5), fma(SUM, [5, 4, SUM])],
    },
    Block {
        size: 16,
        cols_at: 4,
        vals_at: 2,
        loops: true,
        steps: &[
            col(0, 8),
            col(1, 12),
            col(2, 14),
            vec(0, 13, 8),
            vec(1, 12, 12),
            vec(2, 16, 14),
            col(3, 20),
            col(4, 18),
            col(5, 21),
            col(6, 19),
            col(7, 23),
            val(0, 10),
            val(1, 15),
            val(2, 17),
            vec(3, 20, 20),
            vec(4, 18, 18),
            vec(5, 8, 21),
            vec(6, 19, 19),
            vec(7, 14, 23),
            col(8, 28),
            fma(10, [13, 10, SUM]),
            col(12, 22),
            fma(10, [15, 12, 10]),
            col(13, 26),
            fma(27, [17, 16, 10]),
            val(3, 12),
            col(9, 10),
            col(10, 17),
            col(11, 15),
            col(14, 25),
            col(15, 24),
            val(4, 23),
            val(5, 21),
            val(6, 16),
            val(7, 13),
            fma(20, [12, 20, 27]),
            vec(8, 12, 28),
            vec(9, 10, 10),
            vec(10, 17, 17),
            vec(11, 15, 15),
            vec(12, 22, 22),
            vec(13, 26, 26),
            vec(14, 25, 25),
            vec(15, 24, 24),
            val(13, 27),
            fma(18, [18, 23, 20]),
            val(8, 23),
            fma(18, [21, 8, 18]),
            val(9, 21),
            val(10, 8),
            fma(18, [16, 19, 18]),
            val(11, 16),
            val(12, 19),
            fma(18, [13, 14, 18]),
            val(14, 14),
            val(15, 13),
            fma(12, [12, 23, 18]),
            fma(10, [21, 10, 12]),
            fma(8, [8, 17, 10]),
            fma(8, [16, 15, 8]),
            fma(8, [22, 19, 8]),
            fma(8, [27, 26, 8]),
            fma(8, [14, 25, 8]),
            fma(SUM, [13, 24, 8]),
        ],
    },
    Block {
        size: 8,
        cols_at: 4,
        vals_at: 2,
        loops: false,
        steps: &[
            col(0, 17),
            col(1, 14),
            col(2, 16),
            col(3, 18),
            col(4, 19),
            col(5, 15),
            col(6, 11),
            col(7, 13),
            vec(0, 17, 17),
            vec(1, 14, 14),
            vec(2, 16, 16),
            vec(3, 18, 18),
            vec(4, 19, 19),
            vec(5, 15, 15),
            vec(6, 11, 11),
            vec(7, 13, 13),
            val(0, 20),
            val(1, 21),
            val(2, 22),
            val(3, 23),
            val(4, 25),
            val(5, 12),
            val(6, 8),
            val(7, 10),
            fma(17, [17, 20, SUM]),
            fma(17, [21, 14, 17]),
            fma(17, [22, 16, 17]),
            fma(18, [23, 18, 17]),
            fma(18, [19, 25, 18]),
            fma(12, [12, 15, 18]),
            fma(8, [8, 11, 12]),
            fma(SUM, [10, 13, 8]),
        ],
    },
    Block {
        size: 4,
        cols_at: 4,
        vals_at: 2,
        loops: false,
        steps: &[
            col(0, START),
            col(1, 10),
            col(2, 11),
            col(3, 13),
            vec(0, END, START),
            vec(1, 10, 10),
            vec(2, 11, 11),
            vec(3, 13, 13),
            val(0, 8),
            val(1, 12),
            val(2, 14),
            val(3, 16),
            fma(END, [END, 8, SUM]),
            fma(END, [12, 10, END]),
            fma(END, [14, 11, END]),
            fma(SUM, [16, 13, END]),
        ],
    },
];

/// A warp's position in an SpMV kernel: all of its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpmvCursor {
    at: At,
    /// Scalar: the row of lane 0 (lane `l` owns row `row + l`); vector: the warp's row.
    row: u32,
    /// `threadIdx.x` of lane 0, for `partialSums[t]`.
    t0: u32,
    /// Lanes inside `myRow < dim`, and those still in the row loop.
    inside: u32,
    active: u32,
    mask: u32,
    /// Row loop trip (of the current block size, in the scalar kernel); reduction step, or
    /// instruction of the current block ([`Block::steps`]).
    trip: u32,
    step: u8,
    /// Scalar: the unrolled loop's block size now (an index into [`BLOCKS`]).
    block: u8,
    /// Lanes that left through a guard's `EXIT`.
    left: u32,
    name: InstrName,
}

impl SpmvKernel {
    pub fn ctas(&self) -> u32 {
        let rows = self.input.matrix.rows();
        match self.form {
            Form::Scalar => rows.div_ceil(BLOCK),
            Form::Vector => rows.div_ceil(BLOCK / 32),
        }
    }

    pub fn threads_per_cta(&self) -> u32 {
        BLOCK
    }

    /// Shared memory a CTA declares: the vector kernel's `partialSums[BLOCK_SIZE]` floats.
    pub fn shared_bytes(&self) -> u32 {
        match self.form {
            Form::Scalar => 0,
            Form::Vector => BLOCK * 4,
        }
    }

    /// Registers per thread [`SpmvCursor::fetch`] names: R0..R28 in the scalar kernel (nvcc's
    /// in the block of 16, [`BLOCKS`]), R0..R8 (the reduction's two operands) in the vector
    /// kernel (nvcc gives other counts: [`super::ptxas`]).
    pub fn registers(&self) -> u32 {
        match self.form {
            Form::Scalar => 29,
            Form::Vector => 9,
        }
    }

    /// The registers holding `myRow` and the row's first and end elements.
    fn frame(&self) -> [u8; 3] {
        match self.form {
            Form::Scalar => [ROW, START, END],
            Form::Vector => [0, 1, 2],
        }
    }

    pub fn cursor(&self, cta: u32, warp: u32) -> SpmvCursor {
        let row = match self.form {
            Form::Scalar => cta * BLOCK + warp * 32,
            Form::Vector => cta * (BLOCK / 32) + warp,
        };
        SpmvCursor {
            at: At::Index,
            row,
            t0: warp * 32,
            inside: 0,
            active: 0,
            mask: u32::MAX,
            trip: 0,
            step: 0,
            block: 0,
            left: 0,
            name: InstrName(""),
        }
    }

    fn addr(&self, array: usize, elem: u64) -> u64 {
        let a = &self.input.arrays[array];
        a.base + elem * a.elem_bytes
    }
}

impl SpmvCursor {
    /// Lane `l`'s row.
    fn row_of(&self, form: Form, l: u32) -> u32 {
        match form {
            Form::Scalar => self.row + l,
            Form::Vector => self.row,
        }
    }

    /// The vector kernel's matrix entry lane `l` handles on the current trip (`j = warpStart
    /// + id + 32·trip`), if its row has one left.
    fn entry(&self, k: &SpmvKernel, l: u32) -> Option<u32> {
        let (start, len) = k.input.matrix.row(self.row);
        let offset = l + 32 * self.trip;
        (offset < len).then_some(start + offset)
    }

    /// The scalar kernel's first element of lane `l`'s block on the current trip of the
    /// current block size, if its row has one: the row's `len & 3` remainder one element a
    /// trip (the smallest block's remainder), then each block in [`BLOCKS`]' order, a looping
    /// one while its size is left (16), the others once where their size is left (8, 4).
    fn block_start(&self, k: &SpmvKernel, l: u32) -> Option<u32> {
        let (start, len) = k.input.matrix.row(self.row_of(k.form, l));
        let peeled = len % BLOCKS[BLOCKS.len() - 1].size;
        if self.block == 0 {
            return (self.trip < peeled).then_some(start + self.trip);
        }
        let (mut offset, mut left) = (peeled, len - peeled);
        for (b, block) in BLOCKS.iter().enumerate().skip(1) {
            let trips = if block.loops { left / block.size } else { (left / block.size).min(1) };
            if b == usize::from(self.block) {
                return (self.trip < trips).then_some(start + offset + block.size * self.trip);
            }
            offset += block.size * trips;
            left -= block.size * trips;
        }
        None
    }

    /// Produces the next instruction, writing per-lane addresses for memory instructions.
    pub fn fetch(&mut self, k: &SpmvKernel, addrs: &mut LaneAddrs) -> Instr {
        let matrix = &k.input.matrix;
        loop {
            let pc = (self.at as u32 * 256 + u32::from(self.block) * 64 + u32::from(self.step)) * 16;
            let [row_reg, start, end] = k.frame();
            let mask = self.mask;
            let alu = |dst: u8, srcs: [u8; 2]| Instr {
                pc,
                op: Op::Alu,
                dst,
                dst_regs: 1,
                srcs: [srcs[0], srcs[1], NO_REG, NO_REG],
                mask,
            };
            let mut access = |space: Space, load: bool, dst: u8, src: u8, at: &dyn Fn(u32) -> u64| {
                for l in lanes(mask) {
                    addrs[l as usize] = at(l);
                }
                let op = if load { Op::Load { space, width: 4 } } else { Op::Store { space, width: 4 } };
                let dst = if load { dst } else { NO_REG };
                Instr { pc, op, dst, dst_regs: 1, srcs: [src, NO_REG, NO_REG, NO_REG], mask }
            };
            let t0 = self.t0;
            let shared = |offset: u32| move |l: u32| 4 * u64::from(t0 + l + offset);
            let (name, instr) = match self.at {
                At::Index => {
                    self.at = At::Bound;
                    ("IMAD myRow = blockIdx.x*blockDim.x + threadIdx.x", alu(row_reg, [NO_REG, NO_REG]))
                }
                At::Bound => {
                    self.inside = lanes(u32::MAX)
                        .filter(|&l| self.row_of(k.form, l) < matrix.rows())
                        .fold(0, |m, l| m | 1 << l);
                    self.at = At::BoundExit;
                    self.mask = self.inside;
                    ("ISETP myRow < dim", alu(row_reg, [row_reg, NO_REG]))
                }
                // nvcc's `@P0 EXIT` for `myRow < dim`, and the vector kernel's `@P1 EXIT` for
                // `id == 0` before the final store: the lanes that fail leave.
                At::BoundExit | At::LaneExit => {
                    self.at = match (self.mask, self.at) {
                        (0, _) => At::Exit,
                        (_, At::BoundExit) => At::LoadStart,
                        _ => At::FinalLoad,
                    };
                    self.name = InstrName("EXIT");
                    return Instr::guard_exit(pc, u32::MAX, &mut self.left, self.mask);
                }
                At::LoadStart => {
                    self.at = At::LoadEnd;
                    let row = |l| u64::from(self.row_of(k.form, l));
                    (
                        "LDG rowDelimiters[myRow]",
                        access(Space::Global, true, start, row_reg, &|l| k.addr(DELIMS, row(l))),
                    )
                }
                At::LoadEnd => {
                    self.at = match k.form {
                        Form::Scalar => At::BlockHead,
                        Form::Vector => At::LoopHead,
                    };
                    self.trip = 0;
                    self.block = 0;
                    let row = |l| u64::from(self.row_of(k.form, l)) + 1;
                    (
                        "LDG rowDelimiters[myRow+1]",
                        access(Space::Global, true, end, row_reg, &|l| k.addr(DELIMS, row(l))),
                    )
                }
                At::LoopHead => {
                    self.active =
                        lanes(self.inside).filter(|&l| self.entry(k, l).is_some()).fold(0, |m, l| m | 1 << l);
                    self.mask = self.active;
                    self.at = if self.active == 0 { At::StoreSum } else { At::LoadCol };
                    if self.active == 0 {
                        self.mask = self.inside;
                    }
                    continue;
                }
                At::BlockHead => {
                    self.active = lanes(self.inside)
                        .filter(|&l| self.block_start(k, l).is_some())
                        .fold(0, |m, l| m | 1 << l);
                    self.mask = self.active;
                    self.step = 0;
                    if self.active != 0 {
                        self.at = At::Block;
                    } else if usize::from(self.block) + 1 < BLOCKS.len() {
                        self.block += 1;
                        self.trip = 0;
                    } else {
                        self.at = At::StoreOut;
                        self.block = 0;
                        self.mask = self.inside;
                    }
                    continue;
                }
                At::Block => {
                    let block = &BLOCKS[usize::from(self.block)];
                    let step = block.steps[usize::from(self.step)];
                    self.step += 1;
                    if usize::from(self.step) == block.steps.len() {
                        self.step = 0;
                        self.at = At::BlockBranch;
                    }
                    let j = |l, i: u8| self.block_start(k, l).expect("active lane") + u32::from(i);
                    let (name, instr) = match step {
                        Step::Col { i, dst } => (
                            "LDG col = cols[j]",
                            access(Space::Global, true, dst, block.cols_at, &|l| {
                                k.addr(COLS, j(l, i).into())
                            }),
                        ),
                        Step::Vec { i, dst, col } => {
                            let c = |l| u64::from(matrix.cols[j(l, i) as usize]);
                            (
                                "LDG vec[col] (tex1Dfetch)",
                                access(Space::Global, true, dst, col, &|l| k.addr(VEC, c(l))),
                            )
                        }
                        Step::Val { i, dst } => (
                            "LDG val[j]",
                            access(Space::Global, true, dst, block.vals_at, &|l| k.addr(VAL, j(l, i).into())),
                        ),
                        Step::Fma { dst, srcs: [a, b, c] } => (
                            "FFMA t += val[j]*vec[col]",
                            Instr { srcs: [a, b, c, NO_REG], ..alu(dst, [a, b]) },
                        ),
                    };
                    self.name = InstrName(name);
                    return instr;
                }
                At::BlockBranch => {
                    self.trip += 1;
                    self.at = At::BlockHead;
                    if !BLOCKS[usize::from(self.block)].loops {
                        continue;
                    }
                    ("BRA j < end", alu(start, [start, end]))
                }
                At::LoadCol => {
                    self.at = At::LoadVal;
                    let j = |l| u64::from(self.entry(k, l).expect("active lane"));
                    ("LDG col = cols[j]", access(Space::Global, true, 3, start, &|l| k.addr(COLS, j(l))))
                }
                At::LoadVal => {
                    self.at = At::LoadVec;
                    let j = |l| u64::from(self.entry(k, l).expect("active lane"));
                    ("LDG val[j]", access(Space::Global, true, 4, start, &|l| k.addr(VAL, j(l))))
                }
                At::LoadVec => {
                    self.at = At::Fma;
                    let col = |l| u64::from(matrix.cols[self.entry(k, l).expect("active lane") as usize]);
                    ("LDG vec[col] (tex1Dfetch)", access(Space::Global, true, 5, 3, &|l| k.addr(VEC, col(l))))
                }
                At::Fma => {
                    self.at = At::Branch;
                    ("FFMA sum += val[j]*vec[col]", alu(6, [4, 5]))
                }
                At::Branch => {
                    self.trip += 1;
                    self.at = At::LoopHead;
                    ("BRA j < end", alu(start, [start, end]))
                }
                At::StoreOut => {
                    self.at = At::Exit;
                    let row = |l| u64::from(self.row_of(k.form, l));
                    (
                        "STG out[myRow] = t",
                        access(Space::Global, false, NO_REG, SUM, &|l| k.addr(OUT, row(l))),
                    )
                }
                At::StoreSum => {
                    self.at = At::ReduceMine;
                    self.step = 0;
                    ("STS partialSums[t] = mySum", access(Space::Shared, false, NO_REG, 6, &shared(0)))
                }
                At::ReduceMine => {
                    self.mask = self.inside & ((1u32 << STEPS[self.step as usize]) - 1);
                    let mask = self.mask;
                    self.at = At::ReduceOther;
                    let i = access(Space::Shared, true, 7, NO_REG, &shared(0));
                    ("LDS partialSums[t]", Instr { mask, ..i })
                }
                At::ReduceOther => {
                    self.at = At::ReduceAdd;
                    (
                        "LDS partialSums[t+s]",
                        access(Space::Shared, true, 8, NO_REG, &shared(STEPS[self.step as usize])),
                    )
                }
                At::ReduceAdd => {
                    self.at = At::ReduceStore;
                    ("FADD partialSums[t] + partialSums[t+s]", alu(7, [7, 8]))
                }
                At::ReduceStore => {
                    self.step += 1;
                    let last = self.step as usize == STEPS.len();
                    self.at = if last { At::LaneExit } else { At::ReduceMine };
                    let i = access(Space::Shared, false, NO_REG, 7, &shared(0));
                    if last {
                        self.mask = self.inside & 1;
                    }
                    ("STS partialSums[t]", i)
                }
                At::FinalLoad => {
                    self.at = At::FinalStore;
                    ("LDS partialSums[t] (id == 0)", access(Space::Shared, true, 7, NO_REG, &shared(0)))
                }
                At::FinalStore => {
                    self.at = At::Exit;
                    let row = |l| u64::from(self.row_of(k.form, l));
                    ("STG out[myRow]", access(Space::Global, false, NO_REG, 7, &|l| k.addr(OUT, row(l))))
                }
                // BLOCK is a multiple of 32: every warp has 32 threads; those no guard let
                // leave end here.
                At::Exit => ("EXIT", Instr::exit(pc, !self.left)),
            };
            self.name = InstrName(name);
            return instr;
        }
    }

    /// The name of the instruction fetched last.
    pub fn name(&self) -> &'static str {
        self.name.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::nest::testing::{Access, kernel_streams};
    use super::*;

    #[test]
    fn the_matrix_is_one_percent_dense_with_ascending_columns() {
        let m = Csr::generate(2000, 4);
        let density = m.cols.len() as f64 / (2000.0 * 2000.0);
        assert!((0.0095..0.0105).contains(&density), "{density}");
        for r in 0..m.rows() {
            let (s, n) = m.row(r);
            let row = &m.cols[s as usize..(s + n) as usize];
            assert!(row.windows(2).all(|w| w[0] < w[1]) && row.iter().all(|&c| c < 2000), "row {r}");
        }
        assert_ne!(m, Csr::generate(2000, 5), "the seed matters");
    }

    /// The loads of an unrolled block of `n` elements in nvcc's sm_70 order, read off its SASS
    /// addresses: (`c`olumn, `v`ector element or v`a`lue, element). The block of 16
    /// interleaves them; the others load their columns, vector elements and values in turn.
    fn block_order(n: u64) -> Vec<(char, u64)> {
        let sixteen = "c0 c1 c2 v0 v1 v2 c3 c4 c5 c6 c7 a0 a1 a2 v3 v4 v5 v6 v7 c8 c12 c13 a3 c9 c10 c11 \
                       c14 c15 a4 a5 a6 a7 v8 v9 v10 v11 v12 v13 v14 v15 a13 a8 a9 a10 a11 a12 a14 a15";
        if n == 16 {
            sixteen.split_whitespace().map(|w| (w.as_bytes()[0] as char, w[1..].parse().unwrap())).collect()
        } else {
            ['c', 'v', 'a'].into_iter().flat_map(|a| (0..n).map(move |i| (a, i))).collect()
        }
    }

    /// SHOC's two kernels written out per warp from the matrix: (store?, width, mask,
    /// addresses); shared-memory accesses are byte offsets `4 * threadIdx.x`.
    fn reference(m: &Csr, vector: bool, base: impl Fn(&str) -> u64) -> Vec<Vec<Access>> {
        let [val, cols, vec, out, delims] =
            ["d_val", "d_cols", "d_vec", "d_out", "d_rowDelimiters"].map(&base);
        let rows = m.rows() as u64;
        let ctas = if vector { rows.div_ceil(4) } else { rows.div_ceil(128) };
        let mut warps = Vec::new();
        for cta in 0..ctas {
            for w in 0..4u64 {
                let mut s: Vec<Access> = Vec::new();
                // (lane, row) of the lanes with myRow < dim.
                let lanes: Vec<(u64, u64)> = (0..32)
                    .map(|l| (l, if vector { cta * 4 + w } else { cta * 128 + w * 32 + l }))
                    .filter(|&(_, r)| r < rows)
                    .collect();
                let push =
                    |s: &mut Vec<Access>, store: bool, lanes: &[(u64, u64)], at: &dyn Fn(u64, u64) -> u64| {
                        let mask = lanes.iter().fold(0u32, |m, &(l, _)| m | 1 << l);
                        s.push((store, 4, mask, lanes.iter().map(|&(l, r)| at(l, r)).collect()));
                    };
                if !lanes.is_empty() {
                    push(&mut s, false, &lanes, &|_, r| delims + 4 * r);
                    push(&mut s, false, &lanes, &|_, r| delims + 4 * (r + 1));
                    let start = |r: u64| u64::from(m.delims[r as usize]);
                    let end = |r: u64| u64::from(m.delims[r as usize + 1]);
                    let load = |s: &mut Vec<Access>, on: &[(u64, u64)], j: &dyn Fn(u64, u64) -> u64| {
                        push(s, false, on, &|l, r| cols + 4 * j(l, r));
                        push(s, false, on, &|l, r| val + 4 * j(l, r));
                        push(s, false, on, &|l, r| vec + 4 * u64::from(m.cols[j(l, r) as usize]));
                    };
                    if vector {
                        // The element of lane l on trip `trip`.
                        let j = |l: u64, r: u64, trip: u64| start(r) + l + 32 * trip;
                        for trip in 0.. {
                            let on: Vec<(u64, u64)> =
                                lanes.iter().copied().filter(|&(l, r)| j(l, r, trip) < end(r)).collect();
                            if on.is_empty() {
                                break;
                            }
                            load(&mut s, &on, &|l, r| j(l, r, trip));
                        }
                    } else {
                        // A thread's row, as the unrolled loop walks it: (block size, trip) →
                        // first element: one at a time while `len % 4` are over, then 16 at a
                        // time while 16 are left, then 8, then 4.
                        let blocks = |r: u64| {
                            let (mut j, e) = (start(r), end(r));
                            let mut out = Vec::new();
                            for trip in 0..(e - j) % 4 {
                                out.push(((0, trip), 1, j));
                                j += 1;
                            }
                            let mut trip = 0;
                            while e - j >= 16 {
                                out.push(((1, trip), 16, j));
                                (j, trip) = (j + 16, trip + 1);
                            }
                            for (size, n) in [(2, 8), (3, 4)] {
                                if e - j >= n {
                                    out.push(((size, 0), n, j));
                                    j += n;
                                }
                            }
                            assert_eq!(j, e);
                            out
                        };
                        let mut keys: Vec<((u8, u64), u64)> =
                            lanes.iter().flat_map(|&(_, r)| blocks(r)).map(|(key, n, _)| (key, n)).collect();
                        keys.sort_unstable();
                        keys.dedup();
                        for (key, n) in keys {
                            let first = |r: u64| blocks(r).into_iter().find(|b| b.0 == key).map(|b| b.2);
                            let on: Vec<(u64, u64)> =
                                lanes.iter().copied().filter(|&(_, r)| first(r).is_some()).collect();
                            let at = |i: u64| move |_: u64, r: u64| first(r).expect("on") + i;
                            for (array, i) in block_order(n) {
                                push(&mut s, false, &on, &|l, r| match array {
                                    'c' => cols + 4 * at(i)(l, r),
                                    'v' => vec + 4 * u64::from(m.cols[at(i)(l, r) as usize]),
                                    _ => val + 4 * at(i)(l, r),
                                });
                            }
                        }
                    }
                    if vector {
                        let t = |l: u64| 4 * (w * 32 + l);
                        push(&mut s, true, &lanes, &|l, _| t(l));
                        for step in [16, 8, 4, 2, 1] {
                            let low: Vec<(u64, u64)> =
                                lanes.iter().copied().filter(|&(l, _)| l < step).collect();
                            push(&mut s, false, &low, &|l, _| t(l));
                            push(&mut s, false, &low, &|l, _| t(l + step));
                            push(&mut s, true, &low, &|l, _| t(l));
                        }
                        push(&mut s, false, &lanes[..1], &|l, _| t(l));
                        push(&mut s, true, &lanes[..1], &|_, r| out + 4 * r);
                    } else {
                        push(&mut s, true, &lanes, &|_, r| out + 4 * r);
                    }
                }
                warps.push(s);
            }
        }
        warps
    }

    /// What a register holds while a block runs, followed from nvcc's allocation.
    /// (Ordered so that an FFMA's sorted operands read sum, value, vector element.)
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    enum Holds {
        /// `t` with this many of the block's products added.
        Sum(u8),
        Val(u8),
        Vec(u8),
        Col(u8),
        Other,
    }

    /// Each block's registers carry its data as the kernel needs them: a `vec[col]` load
    /// reads the register its column arrived in, each FFMA adds `val[j+i] * vec[col]` of an
    /// element not yet added to the running sum, the block leaves the sum of all its products
    /// in `t`'s register, no load overwrites a value still to be used (so none waits for a
    /// register another frees), and no block writes `myRow` or its own address registers,
    /// nor `j` and `end` if it loops.
    #[test]
    fn each_blocks_registers_carry_its_elements_to_the_sum() {
        for b in &BLOCKS {
            let mut regs = [Holds::Other; 32];
            regs[usize::from(SUM)] = Holds::Sum(0);
            let mut added = vec![false; b.size as usize];
            let mut loaded = [0u32; 3];
            let write = |regs: &mut [Holds; 32], added: &[bool], dst: u8, what: Holds| {
                let old = regs[usize::from(dst)];
                let live = match old {
                    Holds::Col(i) => what != Holds::Vec(i) && !regs.contains(&Holds::Vec(i)),
                    Holds::Vec(i) | Holds::Val(i) => !added[usize::from(i)],
                    _ => false,
                };
                assert!(!live, "block of {}: {what:?} overwrites R{dst}, still holding {old:?}", b.size);
                let mut fixed = vec![ROW, b.cols_at, b.vals_at];
                if b.loops {
                    fixed.extend([START, END]);
                }
                assert!(!fixed.contains(&dst), "block of {}: {what:?} overwrites R{dst}", b.size);
                regs[usize::from(dst)] = what;
            };
            for step in b.steps {
                match *step {
                    Step::Col { i, dst } => {
                        loaded[0] += 1;
                        write(&mut regs, &added, dst, Holds::Col(i));
                    }
                    Step::Vec { i, dst, col } => {
                        assert_eq!(regs[usize::from(col)], Holds::Col(i), "block of {}: vec {i}", b.size);
                        loaded[1] += 1;
                        write(&mut regs, &added, dst, Holds::Vec(i));
                    }
                    Step::Val { i, dst } => {
                        loaded[2] += 1;
                        write(&mut regs, &added, dst, Holds::Val(i));
                    }
                    Step::Fma { dst, srcs } => {
                        let mut held = srcs.map(|r| regs[usize::from(r)]);
                        held.sort();
                        let [Holds::Sum(n), Holds::Val(i), Holds::Vec(v)] = held else {
                            panic!("block of {}: FFMA R{dst} of {held:?}", b.size)
                        };
                        assert_eq!(i, v, "block of {}: FFMA of two elements", b.size);
                        assert!(!added[usize::from(i)], "block of {}: element {i} added twice", b.size);
                        added[usize::from(i)] = true;
                        regs[usize::from(dst)] = Holds::Sum(n + 1);
                    }
                }
            }
            assert_eq!(loaded, [b.size; 3], "block of {}: loads of each array", b.size);
            assert_eq!(regs[usize::from(SUM)], Holds::Sum(b.size as u8), "block of {}", b.size);
        }
    }

    /// [`SpmvKernel::registers`] is the highest register the scalar program names, plus one.
    #[test]
    fn the_scalar_kernel_names_its_counted_registers() {
        let ks = build(&Sizes([("rows", 4000), ("seed", 2)].into_iter().collect()));
        for k in &ks {
            let mut addrs = [0u64; 32];
            let mut highest = 0;
            for cta in 0..k.ctas() {
                for warp in 0..BLOCK / 32 {
                    let mut c = k.cursor(cta, warp);
                    loop {
                        let i = c.fetch(k, &mut addrs);
                        highest = highest.max(i.register_span());
                        if i.op == Op::Exit {
                            break;
                        }
                    }
                }
            }
            assert_eq!(highest, k.registers(), "{}", k.name);
        }
    }

    #[test]
    fn both_kernels_match_shocs_loops() {
        // 203 rows: partial CTAs of both kernels and empty rows; 4000 rows (about 40 entries a
        // row): the vector kernel's lanes take a second trip along a row, and the scalar
        // kernel's rows take every block size of its unrolled loop.
        for (rows, seed) in [(203, 1), (4000, 2)] {
            let ks = build(&Sizes([("rows", rows), ("seed", seed)].into_iter().collect()));
            let input = &ks[0].input;
            let base = |name: &str| input.arrays.iter().find(|a| a.name == name).expect("array").base;
            for (k, vector) in ks.iter().zip([false, true]) {
                let want = reference(&input.matrix, vector, base);
                let got = kernel_streams(&Kernel::Spmv(k.clone()));
                assert_eq!(got.len(), want.len(), "{}: warps", k.name);
                for (w, (g, r)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g, r, "{} ({rows} rows) warp {w}", k.name);
                }
            }
            if rows == 4000 {
                let longest = (0..rows).map(|r| input.matrix.row(r).1).max().unwrap();
                assert!(longest > 32, "the vector kernel's lanes take a second trip: {longest}");
                let rest = |r: u32| input.matrix.row(r).1 / 4 * 4;
                for (what, takes) in [
                    (
                        "a peeled element",
                        &(|r: u32| !input.matrix.row(r).1.is_multiple_of(4)) as &dyn Fn(u32) -> bool,
                    ),
                    ("a block of 16", &|r| rest(r) >= 16),
                    ("a block of 8", &|r| rest(r) % 16 >= 8),
                    ("a block of 4", &|r| rest(r) % 8 == 4),
                ] {
                    assert!((0..rows).any(takes), "some scalar row takes {what}");
                }
            }
        }
    }
}
