//! Writing any kernel as an Accel-Sim `.traceg` (`docs/trace-format.md`): the inverse
//! of [`super::line`] and [`super::body`], in the layout of the NVBit tracer's
//! `tracer_tool.cu` after `post-traces-processing` (tracer version [`TRACER_VERSION`]).
//!
//! The kernel is read only through the generic interface ([`Kernel::cta_programs`],
//! [`WarpProgram::fetch`]), so synthetic, trace and benchmark kernels export alike, and it is
//! streamed: one CTA's warp cursors at a time, one line at a time. A warp's `insts =` count
//! comes first in the format, so each warp runs twice, a counting pass on a clone of its
//! cursor and a writing pass; nothing proportional to a warp or a kernel is held.
//!
//! Addresses are compressed as the tracer does (`base_stride_compress`,
//! `base_delta_compress`): base + stride when the active lanes are contiguous, at least two,
//! with one constant stride that fits a C `int`; a mask of 0 as base `0x0` stride 0;
//! otherwise base + one delta per further active lane. [`AddressModes::Listed`] writes
//! every address instead (mode 0, the tracer with compression off).
//!
//! Opcodes: an instruction whose program names it with an opcode that reads back as the
//! same operation and registers (a trace's own SASS opcode, see [`super::opcode`]) keeps
//! it, and so does a memory instruction whose name starts with one (a benchmark's
//! `LDG.U8 g_graph_mask[tid]`, SSSP's `ATOMG.E.MIN.S32 olddist = atomicMin(...)`, which Accel-Sim
//! performs as an atomic at the L2). What is approximated: other warpscope instructions carry an operation class, not a
//! SASS opcode, so each gets a representative one the importer and Accel-Sim classify the
//! same way — `LDG.E`/`LDL`/`LDS` loads and `STG.E`/`STL`/`STS` stores with the width suffix
//! (`.U8`, `.U16`, none for 4 bytes, `.64`, `.128`), `BAR.SYNC`, `EXIT`, and `IADD3` for
//! every ALU operation (`IMAD.WIDE` when it writes a register pair), keeping the PC, active
//! mask, destination and source registers, so scoreboard dependencies survive; the
//! functional unit and latency Accel-Sim gives `IADD3` stand in for whatever the operation
//! was. A warp's final `EXIT` is written with the lanes its program gives it: the warp's
//! threads (Accel-Sim finishes a thread only as an active lane of an `EXIT`). The grid is
//! written one-dimensional, `(ctas,1,1)` × `(threads,1,1)`, CTAs in launch order; `-shmem` is
//! the shared memory a CTA declares and `-nregs` the registers per thread, which Accel-Sim
//! sizes a kernel's occupancy with (`shader_core_config::max_cta`) — a trace's own, or for
//! warpscope's kernels [`Kernel::shared_bytes_per_cta`] (the CUDA source's `__shared__`
//! arrays) and [`Kernel::registers_per_thread`] (nvcc's for a benchmark kernel, the registers
//! the written program names for a synthetic one).
//! The `-shmem base_addr` and `-local mem base_addr` lines are a trace's own, or
//! [`WINDOWS`].
//! A destination is one
//! register as the tracer writes it (Accel-Sim's `MAX_DST`), at most four sources; an
//! instruction that cannot be written so that it reads back the same (a load writing fewer
//! registers than its width, an ALU writing more than two) is an error naming it.

use super::super::instr::{Instr, LaneAddrs, NO_REG, Op, Space, reg_range};
use super::super::synth::lanes;
use super::super::{Kernel, WarpProgram};
use super::line::is_opcode;
use super::opcode::{Windows, classify};
use std::io::{self, Write};

/// `-accelsim tracer version` written: the line layout of versions 3 and 4 (no leading
/// thread-block columns, no trailing immediate).
pub const TRACER_VERSION: u32 = 4;
/// `-binary version` written: sm_70 (Volta), whose opcode table Accel-Sim then uses and
/// which has every representative opcode written here. A trace kernel keeps its own (its
/// opcodes are from that architecture's table, which has the representative ones too).
pub const BINARY_VERSION: u32 = 70;

/// The generic-address windows written for warpscope's kernels, laid out as the CUDA driver
/// lays them out in the NVBit traces of `shared/traces` (local memory 32 MiB below shared
/// memory), far above every array warpscope allocates. Their instructions name their space
/// (`LDG`, `LDS`, `LDL`, never a generic `LD`), so the windows only complete the header.
pub const WINDOWS: Windows = Windows { shmem_base: 0x0000_7f00_0200_0000, local_base: 0x0000_7f00_0000_0000 };

/// How memory addresses are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AddressModes {
    /// Base + stride or base + deltas, as the tracer writes them by default.
    #[default]
    Compressed,
    /// Every active lane's address (mode 0).
    Listed,
}

/// What was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub ctas: u64,
    pub warps: u64,
    pub instructions: u64,
    /// Active lanes over all instructions: what GPGPU-Sim counts as `gpu_tot_sim_insn`.
    pub thread_instructions: u64,
}

/// Why a kernel could not be written.
#[derive(Debug)]
pub enum WriteError {
    Io(io::Error),
    /// An instruction the format cannot express exactly.
    Instr(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Io(e) => write!(f, "cannot write: {e}"),
            WriteError::Instr(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for WriteError {}

impl From<io::Error> for WriteError {
    fn from(e: io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Writes a `kernelslist.g` naming `kernel-1.traceg` .. `kernel-<N>.traceg` for `kernels`,
/// with a trace kernel's `MemcpyHtoD` lines where its own list had them.
pub fn write_list(out: &mut impl Write, kernels: &[Kernel]) -> io::Result<()> {
    for (i, k) in kernels.iter().enumerate() {
        let (before, after): (&[_], &[_]) = match k {
            Kernel::Trace(t) => (&t.memcpys_before, &t.memcpys_after),
            _ => (&[], &[]),
        };
        for m in before {
            writeln!(out, "{}", m.line())?;
        }
        writeln!(out, "{}", file_name(i as u32 + 1))?;
        for m in after {
            writeln!(out, "{}", m.line())?;
        }
    }
    Ok(())
}

/// The file of kernel `id` (1-based).
pub fn file_name(id: u32) -> String {
    format!("kernel-{id}.traceg")
}

/// Writes `kernel` as kernel number `id` (1-based) of its list.
pub fn write_kernel(
    out: &mut impl Write,
    kernel: &Kernel,
    id: u32,
    modes: AddressModes,
) -> Result<Written, WriteError> {
    let name: String =
        kernel.name().chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>().trim().into();
    let ctas = kernel.ctas();
    writeln!(out, "-kernel name = {}", if name.is_empty() { "kernel" } else { &name })?;
    writeln!(out, "-kernel id = {id}")?;
    writeln!(out, "-grid dim = ({ctas},1,1)")?;
    writeln!(out, "-block dim = ({},1,1)", kernel.threads_per_cta())?;
    writeln!(out, "-shmem = {}", kernel.shared_bytes_per_cta())?;
    let (binary, windows) = match kernel {
        Kernel::Trace(k) => {
            // A trace's own, as its header has it (a line it lacks stays out).
            if let Some(n) = k.header.nregs {
                writeln!(out, "-nregs = {n}")?;
            }
            (k.header.binary_version, k.header.windows)
        }
        _ => {
            writeln!(out, "-nregs = {}", kernel.registers_per_thread())?;
            (None, WINDOWS)
        }
    };
    writeln!(out, "-binary version = {}", binary.unwrap_or(BINARY_VERSION))?;
    writeln!(out, "-cuda stream id = 0")?;
    if windows.shmem_base != 0 {
        writeln!(out, "-shmem base_addr = {:#018x}", windows.shmem_base)?;
    }
    if windows.local_base != 0 {
        writeln!(out, "-local mem base_addr = {:#018x}", windows.local_base)?;
    }
    writeln!(out, "-accelsim tracer version = {TRACER_VERSION}")?;
    writeln!(out, "-enable lineinfo = 0")?;
    writeln!(out)?;
    // Readers end the header at this line and ignore its text.
    writeln!(
        out,
        "#traces format = PC mask dest_count [dests] opcode src_count [srcs] mem_width [address_mode addresses]"
    )?;
    writeln!(out)?;
    let mut written = Written::default();
    let mut addrs: LaneAddrs = [0; 32];
    for cta in 0..ctas {
        let programs = kernel.cta_programs(cta).map_err(WriteError::Instr)?;
        write!(out, "\n#BEGIN_TB\n\nthread block = {cta},0,0\n\n")?;
        for (w, program) in programs.into_iter().enumerate() {
            let warp = || format!("kernel {id} ({name}), CTA {cta}, warp {w}");
            let count = count(program.clone(), kernel)
                .ok_or_else(|| WriteError::Instr(format!("{}: more than 2^32 - 1 instructions", warp())))?;
            writeln!(out, "warp = {w}\ninsts = {count}")?;
            let mut p = program;
            for i in 0..count {
                let instr = p.fetch(kernel, &mut addrs);
                written.thread_instructions += u64::from(instr.mask.count_ones());
                write_instr(out, &instr, p.opcode(), i + 1 == count, &addrs, modes).map_err(|e| match e {
                    WriteError::Instr(m) => WriteError::Instr(format!("{}, instruction {i}: {m}", warp())),
                    io => io,
                })?;
            }
            writeln!(out)?;
            written.warps += 1;
            written.instructions += u64::from(count);
        }
        writeln!(out, "#END_TB")?;
        written.ctas += 1;
    }
    Ok(written)
}

/// Instructions of a warp up to and including its `EXIT` (`None` past `u32::MAX`).
fn count(mut p: WarpProgram, kernel: &Kernel) -> Option<u32> {
    let mut addrs: LaneAddrs = [0; 32];
    let mut n: u32 = 0;
    loop {
        n = n.checked_add(1)?;
        if p.fetch(kernel, &mut addrs).op == Op::Exit {
            return Some(n);
        }
    }
}

/// Writes one instruction line; `name` is the opcode its program gives it, if any, `last`
/// marks the warp's last instruction.
pub fn write_instr(
    out: &mut impl Write,
    i: &Instr,
    name: Option<&str>,
    last: bool,
    addrs: &LaneAddrs,
    modes: AddressModes,
) -> Result<(), WriteError> {
    // A benchmark names a memory instruction as SASS does, opcode first (`ATOMG.E.MIN.S32
    // olddist = ...`): the opcode says what Accel-Sim does with it (an ATOMG is an atomic,
    // performed at the L2), so it is kept when it reads back the same and Accel-Sim reads the
    // same width from it. An ALU instruction keeps only a name that is an opcode (a trace's
    // own), so Accel-Sim times every synthetic one as IADD3.
    let name = name.and_then(|n| match n.split_once(' ') {
        Some((op, _)) if i.op.is_memory() => Some(op).filter(|op| accel_sim_width(op) == access_width(i)),
        Some(_) => None,
        None => Some(n),
    });
    let (opcode, writes) = match name.filter(|n| reads_back_as(n, i, last)) {
        Some(n) => (n, i.dst != NO_REG),
        None => sass_opcode(i)?,
    };
    write!(out, "{:04x} {:08x} ", i.pc, i.mask)?;
    if writes && i.dst != NO_REG {
        write!(out, "1 R{} ", i.dst)?;
    } else {
        write!(out, "0 ")?;
    }
    write!(out, "{opcode} ")?;
    let srcs = i.srcs.iter().filter(|&&r| r != NO_REG);
    write!(out, "{} ", srcs.clone().count())?;
    for r in srcs {
        write!(out, "R{r} ")?;
    }
    match i.op {
        Op::Load { width, .. } | Op::Store { width, .. } => {
            write!(out, "{width} ")?;
            write_addresses(out, i.mask, addrs, modes)?;
        }
        _ => write!(out, "0 ")?,
    }
    writeln!(out)?;
    Ok(())
}

/// The address fields of a memory instruction (after its width).
fn write_addresses(
    out: &mut impl Write,
    mask: u32,
    addrs: &LaneAddrs,
    modes: AddressModes,
) -> io::Result<()> {
    if modes == AddressModes::Listed {
        write!(out, "0 ")?;
        for l in lanes(mask) {
            write!(out, "0x{:016x} ", addrs[l as usize])?;
        }
        return Ok(());
    }
    if mask == 0 {
        return write!(out, "1 0x0 0 ");
    }
    let first = mask.trailing_zeros() as usize;
    let run = mask >> first;
    let contiguous = run & run.wrapping_add(1) == 0;
    let diff = |l: usize| addrs[l].wrapping_sub(addrs[l - 1]) as i64;
    if contiguous && mask.count_ones() >= 2 {
        let stride = diff(first + 1);
        let last = first + mask.count_ones() as usize;
        if i32::try_from(stride).is_ok() && (first + 2..last).all(|l| diff(l) == stride) {
            return write!(out, "1 {:#x} {stride} ", addrs[first]);
        }
    }
    write!(out, "2 {:#x} ", addrs[first])?;
    let mut prev = addrs[first];
    for l in lanes(mask).skip(1) {
        let a = addrs[l as usize];
        write!(out, "{} ", a.wrapping_sub(prev) as i64)?;
        prev = a;
    }
    Ok(())
}

/// The bytes per lane Accel-Sim reads from an opcode: it ignores the trace's width field and
/// takes a `.64` or `.U8` token (bits / 8), else 4 (`inst_trace_t::get_datawidth_from_opcode`).
fn accel_sim_width(opcode: &str) -> u32 {
    let bits = |t: &str| t.parse::<u32>().ok();
    opcode
        .split('.')
        .find_map(|t| bits(t).or_else(|| t.strip_prefix('U').and_then(bits)))
        .map_or(4, |b| b / 8)
}

/// The bytes per lane of a memory instruction (0 for any other).
fn access_width(i: &Instr) -> u32 {
    match i.op {
        Op::Load { width, .. } | Op::Store { width, .. } => u32::from(width),
        _ => 0,
    }
}

/// Whether the importer reads `name` on a line written for `i` (one destination register,
/// no generic address windows in the header; `last` in its warp) as the same operation
/// writing the same registers.
fn reads_back_as(name: &str, i: &Instr, last: bool) -> bool {
    is_opcode(name)
        && classify(name, access_width(i), i.dst != NO_REG).is_ok_and(|info| {
            // An `EXIT` before the last instruction only retires lanes: an issue slot.
            let op = match info.op(Space::Global) {
                Op::Exit if !last => Op::Alu,
                op => op,
            };
            op == i.op
                && (i.dst == NO_REG || reg_range(i.dst, i.dst_regs).eq(reg_range(i.dst, info.dst_regs)))
        })
}

/// The representative SASS opcode of an instruction and whether its destination is written;
/// an error when the importer would not read the same instruction back from it.
fn sass_opcode(i: &Instr) -> Result<(&'static str, bool), WriteError> {
    /// By access width 1, 2, 4, 8, 16 bytes.
    const LDG: [&str; 5] = ["LDG.E.U8", "LDG.E.U16", "LDG.E", "LDG.E.64", "LDG.E.128"];
    const LDL: [&str; 5] = ["LDL.U8", "LDL.U16", "LDL", "LDL.64", "LDL.128"];
    const LDS: [&str; 5] = ["LDS.U8", "LDS.U16", "LDS", "LDS.64", "LDS.128"];
    const STG: [&str; 5] = ["STG.E.U8", "STG.E.U16", "STG.E", "STG.E.64", "STG.E.128"];
    const STL: [&str; 5] = ["STL.U8", "STL.U16", "STL", "STL.64", "STL.128"];
    const STS: [&str; 5] = ["STS.U8", "STS.U16", "STS", "STS.64", "STS.128"];
    // Atomics are 4 or 8 bytes wide: an ATOMG returns the old value, a RED returns nothing.
    const ATOMG: [&str; 5] = ["", "", "ATOMG.E.ADD", "ATOMG.E.ADD.64", ""];
    const RED: [&str; 5] = ["", "", "RED.E.ADD", "RED.E.ADD.64", ""];
    let by_width = |table: [&'static str; 5], width: u8| {
        match width {
            1 => Ok(table[0]),
            2 => Ok(table[1]),
            4 => Ok(table[2]),
            8 => Ok(table[3]),
            16 => Ok(table[4]),
            _ => Err(()),
        }
        .and_then(|op| if op.is_empty() { Err(()) } else { Ok(op) })
        .map_err(|()| {
            WriteError::Instr(format!(
                "a memory access of {width} bytes per lane has no SASS opcode ({})",
                if table == ATOMG || table == RED { "atomics: 4 or 8" } else { "1, 2, 4, 8 or 16" }
            ))
        })
    };
    // The registers the importer infers: `regs` from the destination on.
    let same_writes = |regs: u8| reg_range(i.dst, i.dst_regs).eq(reg_range(i.dst, regs));
    match i.op {
        Op::Alu if i.dst == NO_REG || same_writes(1) => Ok(("IADD3", true)),
        Op::Alu if same_writes(2) => Ok(("IMAD.WIDE", true)),
        Op::Alu => Err(WriteError::Instr(format!(
            "an ALU operation writing {} registers has no SASS form (one register, or a pair)",
            i.dst_regs
        ))),
        Op::Load { space, width } => {
            let regs = width.div_ceil(4).max(1);
            if i.dst != NO_REG && !same_writes(regs) {
                return Err(WriteError::Instr(format!(
                    "a load of {width} bytes writing {} registers: SASS loads write width/4 registers ({regs})",
                    i.dst_regs
                )));
            }
            let table = match space {
                Space::Global => LDG,
                Space::Local => LDL,
                Space::Shared => LDS,
                Space::Atomic if i.dst == NO_REG => RED,
                Space::Atomic => ATOMG,
            };
            Ok((by_width(table, width)?, true))
        }
        Op::Store { space, width } => {
            let table = match space {
                Space::Global => STG,
                Space::Local => STL,
                Space::Shared => STS,
                Space::Atomic => {
                    return Err(WriteError::Instr(
                        "an atomic store: an atomic returns its old value, it is written as a load".into(),
                    ));
                }
            };
            Ok((by_width(table, width)?, false))
        }
        Op::Barrier => Ok(("BAR.SYNC", false)),
        Op::Exit => Ok(("EXIT", false)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(i: &Instr, addrs: &LaneAddrs, modes: AddressModes) -> String {
        let mut out = Vec::new();
        write_instr(&mut out, i, None, false, addrs, modes).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn load(mask: u32, width: u8) -> Instr {
        Instr {
            pc: 0xf0,
            op: Op::Load { space: Space::Global, width },
            dst: 8,
            dst_regs: width.div_ceil(4).max(1),
            srcs: [2, NO_REG, NO_REG, NO_REG],
            mask,
        }
    }

    #[test]
    fn addresses_are_compressed_as_the_tracer_does() {
        let mut a: LaneAddrs = [0; 32];
        for (l, x) in a.iter_mut().enumerate() {
            *x = 0x7fb0_fc43_0e00 + 4 * l as u64;
        }
        // All lanes, constant stride: base + stride (vectoradd's lines).
        assert_eq!(
            line(&load(u32::MAX, 4), &a, AddressModes::Compressed),
            "00f0 ffffffff 1 R8 LDG.E 1 R2 4 1 0x7fb0fc430e00 4 \n"
        );
        // Contiguous upper half: the base is the first active lane's address.
        assert_eq!(
            line(&load(0xffff_0000, 4), &a, AddressModes::Compressed),
            "00f0 ffff0000 1 R8 LDG.E 1 R2 4 1 0x7fb0fc430e40 4 \n"
        );
        // A hole in the mask: base + deltas from each active lane to the next.
        assert_eq!(
            line(&load(0b1011, 4), &a, AddressModes::Compressed),
            "00f0 0000000b 1 R8 LDG.E 1 R2 4 2 0x7fb0fc430e00 4 8 \n"
        );
        // One active lane: no deltas; none active: base 0x0, stride 0.
        assert_eq!(
            line(&load(1 << 5, 4), &a, AddressModes::Compressed),
            "00f0 00000020 1 R8 LDG.E 1 R2 4 2 0x7fb0fc430e14 \n"
        );
        assert_eq!(
            line(&load(0, 4), &a, AddressModes::Compressed),
            "00f0 00000000 1 R8 LDG.E 1 R2 4 1 0x0 0 \n"
        );
        // Backwards, and a stride that does not fit a C int.
        a[1] = a[0] - 16;
        assert_eq!(
            line(&load(0b11, 8), &a, AddressModes::Compressed),
            "00f0 00000003 1 R8 LDG.E.64 1 R2 8 1 0x7fb0fc430e00 -16 \n"
        );
        a[1] = a[0] + (1 << 33);
        assert_eq!(
            line(&load(0b11, 16), &a, AddressModes::Compressed),
            "00f0 00000003 1 R8 LDG.E.128 1 R2 16 2 0x7fb0fc430e00 8589934592 \n"
        );
        assert_eq!(
            line(&load(0b11, 1), &a, AddressModes::Listed),
            "00f0 00000003 1 R8 LDG.E.U8 1 R2 1 0 0x00007fb0fc430e00 0x00007fb2fc430e00 \n"
        );
    }

    #[test]
    fn each_address_mode_reads_back_the_lanes_it_was_written_from() {
        use super::super::line::{LineFormat, parse};
        let base = 0x7fb0_fc43_0e00u64;
        let with = |f: &dyn Fn(u64) -> u64| -> LaneAddrs { std::array::from_fn(|l| f(l as u64)) };
        let wild = [3u64, 900, 17, 4096, 5, 77, 1 << 20, 12];
        // (mask, lane addresses, the mode the tracer would pick)
        let cases: [(u32, LaneAddrs, &str); 9] = [
            (u32::MAX, with(&|l| base + 4 * l), "1"),
            (0xffff_0000, with(&|l| base - 8 * l), "1"),
            (0b0110, with(&|l| base + 128 * l), "1"),
            (0x0000_00ff, with(&|l| base + wild[l as usize % 8]), "2"),
            // A constant stride over a mask with a hole: the tracer needs contiguous lanes.
            (0xf0f0_f0f0, with(&|l| base + 4 * l), "2"),
            (1 << 31, with(&|l| base + l), "2"),
            // A stride beyond a C int, either way.
            (0b111, with(&|l| base + (l << 32)), "2"),
            (0b111, with(&|l| base.wrapping_sub(l << 33)), "2"),
            (0, with(&|l| base + l), "1"),
        ];
        let format = LineFormat::new(Some(TRACER_VERSION), false);
        for (mask, addrs, mode) in cases {
            let expected: Vec<u64> = lanes(mask).map(|l| addrs[l as usize]).collect();
            for (modes, mode) in [(AddressModes::Compressed, mode), (AddressModes::Listed, "0")] {
                let text = line(&load(mask, 8), &addrs, modes);
                let raw = parse(text.trim_end(), format).unwrap();
                assert_eq!(text.split(' ').nth(8), Some(mode), "{text}");
                assert_eq!(super::super::tests::lanes_of(&raw), expected, "{text}");
            }
        }
    }

    #[test]
    fn a_programs_own_opcode_is_kept_only_when_it_reads_back_the_same() {
        let a: LaneAddrs = [0x1000; 32];
        let named = |i: &Instr, name: &str, last: bool| {
            let mut out = Vec::new();
            write_instr(&mut out, i, Some(name), last, &a, AddressModes::Compressed).unwrap();
            String::from_utf8(out)
                .unwrap()
                .split(' ')
                .nth(if i.dst == NO_REG { 3 } else { 4 })
                .unwrap()
                .to_string()
        };
        let alu = Instr { pc: 0x30, op: Op::Alu, dst: 6, dst_regs: 1, srcs: [6, 3, NO_REG, NO_REG], mask: 1 };
        assert_eq!(named(&alu, "FFMA", false), "FFMA");
        assert_eq!(named(&Instr { dst_regs: 2, ..alu }, "IMAD.WIDE.U32", false), "IMAD.WIDE.U32");
        // One register where the opcode says two, and the reverse.
        assert_eq!(named(&alu, "DFMA", false), "IADD3");
        assert_eq!(named(&Instr { dst_regs: 2, ..alu }, "FFMA", false), "IMAD.WIDE");
        // An EXIT before the warp's end retires lanes (an issue slot); at its end, ends it.
        assert_eq!(named(&Instr { dst: NO_REG, ..alu }, "EXIT", false), "EXIT");
        assert_eq!(named(&Instr { dst: NO_REG, ..alu }, "EXIT", true), "IADD3");
        assert_eq!(named(&Instr::exit(0x40, u32::MAX), "EXIT", true), "EXIT");
        // A name that is no opcode, or one the importer reads as another operation.
        assert_eq!(named(&alu, "load A[i]", false), "IADD3");
        assert_eq!(named(&alu, "LDG.E", false), "IADD3");
        let ld = load(u32::MAX, 8);
        assert_eq!(named(&ld, "LDG.E.64.SYS", false), "LDG.E.64.SYS");
        assert_eq!(named(&ld, "LDG.E.128", false), "LDG.E.64");
        // A memory instruction named opcode first keeps the opcode (an atomic stays one), an
        // ALU instruction does not (its name is source text, timed as IADD3).
        assert_eq!(named(&ld, "LDG.E.64 row_ptr[i]", false), "LDG.E.64");
        // ... when Accel-Sim reads the same width from it: it takes widths from the opcode only,
        // 4 bytes without a suffix.
        assert_eq!(named(&ld, "LDG dist[i]", false), "LDG.E.64");
        let byte = Instr { op: Op::Load { space: Space::Global, width: 1 }, dst_regs: 1, ..ld };
        assert_eq!(named(&byte, "LDG.U8 mask[tid]", false), "LDG.U8");
        assert_eq!(
            (accel_sim_width("LDG.E.128"), accel_sim_width("STG.E.U16"), accel_sim_width("RED.E.MIN.S32")),
            (16, 2, 4)
        );
        let red = Instr { op: Op::Load { space: Space::Atomic, width: 4 }, dst: NO_REG, dst_regs: 1, ..ld };
        assert_eq!(named(&red, "RED.E.MIN.S32 dist[dst], altdist", false), "RED.E.MIN.S32");
        let atomg = Instr { dst: 9, ..red };
        assert_eq!(
            named(&atomg, "ATOMG.E.MIN.S32 olddist = atomicMin(&dist[dst], altdist)", false),
            "ATOMG.E.MIN.S32"
        );
        assert_eq!(named(&atomg, "LDG.E dist[dst]", false), "ATOMG.E.ADD", "a load's opcode is no atomic's");
        assert_eq!(
            named(&red, "ATOMG.E.MIN.S32 dist[dst]", false),
            "ATOMG.E.MIN.S32",
            "an ATOMG may write RZ"
        );
        assert_eq!(named(&alu, "FFMA x = a*b + c", false), "IADD3");
        // A generic access to shared memory: the exported header has no windows, so it
        // would read back as global.
        let shared = Instr { op: Op::Load { space: Space::Shared, width: 4 }, dst_regs: 1, ..ld };
        assert_eq!(named(&shared, "LD.E", false), "LDS");
        assert_eq!(
            named(&Instr { op: Op::Load { space: Space::Global, width: 4 }, ..shared }, "LD.E", false),
            "LD.E"
        );
    }

    #[test]
    fn every_operation_gets_an_opcode_that_reads_back_the_same() {
        let a: LaneAddrs = [0x1000; 32];
        let alu = Instr { pc: 0x30, op: Op::Alu, dst: 6, dst_regs: 1, srcs: [6, 3, NO_REG, NO_REG], mask: 1 };
        assert_eq!(line(&alu, &a, AddressModes::Compressed), "0030 00000001 1 R6 IADD3 2 R6 R3 0 \n");
        let wide = Instr { dst_regs: 2, ..alu };
        assert_eq!(line(&wide, &a, AddressModes::Compressed), "0030 00000001 1 R6 IMAD.WIDE 2 R6 R3 0 \n");
        let st = Instr { op: Op::Store { space: Space::Shared, width: 2 }, dst: NO_REG, ..alu };
        assert_eq!(line(&st, &a, AddressModes::Compressed), "0030 00000001 0 STS.U16 2 R6 R3 2 2 0x1000 \n");
        let bar = Instr { op: Op::Barrier, dst: NO_REG, srcs: [NO_REG; 4], ..alu };
        assert_eq!(line(&bar, &a, AddressModes::Compressed), "0030 00000001 0 BAR.SYNC 0 0 \n");
        // The final EXIT carries the warp's threads: Accel-Sim finishes only its active lanes.
        assert_eq!(
            line(&Instr::exit(0x40, 0x0000_ffff), &a, AddressModes::Compressed),
            "0040 0000ffff 0 EXIT 0 0 \n"
        );
        let ldl = Instr { op: Op::Load { space: Space::Local, width: 8 }, dst_regs: 2, ..alu };
        assert_eq!(
            line(&ldl, &a, AddressModes::Compressed),
            "0030 00000001 1 R6 LDL.64 2 R6 R3 8 2 0x1000 \n"
        );

        let err = |i: &Instr| {
            let mut out = Vec::new();
            write_instr(&mut out, i, None, false, &a, AddressModes::Compressed).unwrap_err().to_string()
        };
        assert_eq!(
            err(&Instr { dst_regs: 1, ..ldl }),
            "a load of 8 bytes writing 1 registers: SASS loads write width/4 registers (2)"
        );
        assert_eq!(
            err(&Instr { dst_regs: 4, ..alu }),
            "an ALU operation writing 4 registers has no SASS form (one register, or a pair)"
        );
        assert!(err(&Instr { op: Op::Load { space: Space::Global, width: 32 }, ..alu }).contains("32 bytes"));
        // Atomics: ATOMG when the old value is kept, RED when not; 4 or 8 bytes, never a store.
        let atom = Instr { op: Op::Load { space: Space::Atomic, width: 8 }, dst_regs: 2, ..alu };
        assert_eq!(
            line(&atom, &a, AddressModes::Compressed),
            "0030 00000001 1 R6 ATOMG.E.ADD.64 2 R6 R3 8 2 0x1000 \n"
        );
        let red = Instr { op: Op::Load { space: Space::Atomic, width: 4 }, dst: NO_REG, ..alu };
        assert_eq!(
            line(&red, &a, AddressModes::Compressed),
            "0030 00000001 0 RED.E.ADD 2 R6 R3 4 2 0x1000 \n"
        );
        assert!(
            err(&Instr { op: Op::Load { space: Space::Atomic, width: 2 }, ..alu })
                .contains("atomics: 4 or 8")
        );
        assert!(
            err(&Instr { op: Op::Store { space: Space::Atomic, width: 4 }, ..red })
                .contains("written as a load")
        );
    }
}
