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
    /// Destination register or [`NO_REG`].
    pub dst: u8,
    /// Source registers ([`NO_REG`] = unused).
    pub srcs: [u8; 4],
    /// Active lanes (bit i = lane i).
    pub mask: u32,
}

impl Instr {
    pub fn exit(pc: u32) -> Instr {
        Instr { pc, op: Op::Exit, dst: NO_REG, srcs: [NO_REG; 4], mask: 0 }
    }

    /// Registers this instruction must wait for: its sources, and its destination
    /// (write-after-write on an outstanding load).
    pub fn regs(&self) -> impl Iterator<Item = u8> + '_ {
        self.srcs.iter().copied().chain(std::iter::once(self.dst)).filter(|&r| r != NO_REG)
    }
}

/// Per-lane addresses of a memory instruction (valid for the lanes in its mask).
pub type LaneAddrs = [u64; 32];
