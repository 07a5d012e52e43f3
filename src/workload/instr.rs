//! The instructions an SM issues, as produced by a warp's program cursor.

/// "No register": R255 is the zero register RZ in SASS and never creates a dependency.
pub const NO_REG: u8 = 255;

/// Where a memory instruction's addresses live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, Default)]
pub enum Space {
    /// Global memory: through L1, the crossbar, L2 and DRAM.
    #[default]
    Global,
    /// Local (per-thread spill) memory: same path as global.
    Local,
    /// Shared memory: on-chip scratchpad, fixed latency, never leaves the SM.
    Shared,
}

/// The operation class of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Any arithmetic/logic/control instruction: one ALU issue slot.
    Alu,
    Load {
        space: Space,
        width: u8,
    },
    Store {
        space: Space,
        width: u8,
    },
    /// CTA-wide barrier (`BAR.SYNC`).
    Barrier,
    /// The warp ends.
    Exit,
}

impl Op {
    pub fn is_memory(self) -> bool {
        matches!(self, Op::Load { .. } | Op::Store { .. })
    }
}

/// One warp instruction: operation, registers, and (for memory) per-lane addresses in the
/// warp's address buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    pub pc: u32,
    pub op: Op,
    /// First destination register, or [`NO_REG`].
    pub dst: u8,
    /// Consecutive registers written from `dst` on: 1, or 2 / 4 for 64- / 128-bit results
    /// (`LDG.E.64`, `IMAD.WIDE`, `LDS.128`); the scoreboard tracks each of them.
    pub dst_regs: u8,
    /// Source registers ([`NO_REG`] = unused).
    pub srcs: [u8; 4],
    /// Active lanes (bit i = lane i).
    pub mask: u32,
}

impl Instr {
    pub fn exit(pc: u32) -> Instr {
        Instr { pc, op: Op::Exit, dst: NO_REG, dst_regs: 1, srcs: [NO_REG; 4], mask: 0 }
    }

    /// The registers this instruction writes.
    #[inline]
    pub fn dsts(&self) -> impl Iterator<Item = u8> + use<> {
        reg_range(self.dst, self.dst_regs)
    }

    /// Registers this instruction must wait for: its sources, and its destinations
    /// (write-after-write on an outstanding load).
    pub fn regs(&self) -> impl Iterator<Item = u8> + '_ {
        self.srcs.iter().copied().filter(|&r| r != NO_REG).chain(self.dsts())
    }
}

/// Registers `first .. first + count`, without RZ (none when `first` is [`NO_REG`]).
#[inline]
pub fn reg_range(first: u8, count: u8) -> impl Iterator<Item = u8> {
    let n = if first == NO_REG { 0 } else { count };
    (0..n).map(move |k| first.saturating_add(k)).filter(|&r| r != NO_REG)
}

/// Per-lane addresses of a memory instruction (valid for the lanes in its mask).
pub type LaneAddrs = [u64; 32];
