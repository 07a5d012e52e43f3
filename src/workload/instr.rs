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
    /// A global atomic (`ATOMG`, `RED`, generic `ATOM`), performed at the L2 as Accel-Sim
    /// performs it (`trace_warp_inst_t::parse_from_trace_struct`: a load with `cache_op =
    /// CACHE_GLOBAL`): it bypasses the L1, reads its line at the L2 and leaves it dirty there
    /// (`l2_cache::access` marks an atomic's line MODIFIED), and returns the old value to its
    /// destination register (none for `RED`).
    Atomic,
}

/// The operation class of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// The warp's final `EXIT`, executed by `mask`: every thread of the warp that has not left
    /// through an earlier `EXIT` (normally [`warp_threads`]). GPGPU-Sim and Accel-Sim finish a
    /// thread only as an active lane of an `EXIT` (`trace_shader_core_ctx::
    /// checkExecutionStatusAndUpdate` → `shd_warp_t::set_completed`), and count its lanes as
    /// thread instructions, as warpscope does.
    pub fn exit(pc: u32, mask: u32) -> Instr {
        Instr { pc, op: Op::Exit, dst: NO_REG, dst_regs: 1, srcs: [NO_REG; 4], mask }
    }

    /// An `EXIT` before the warp's last instruction (a guard's `@P0 EXIT`): the lanes in `mask`
    /// (none, often) leave and the warp goes on, so it is an issue slot, as the importer reads
    /// one; a thread leaves through exactly one `EXIT` line, so the warp's final [`Instr::exit`]
    /// leaves these lanes out.
    pub fn exit_lanes(pc: u32, mask: u32) -> Instr {
        Instr { op: Op::Alu, ..Instr::exit(pc, mask) }
    }

    /// A guard's `@P EXIT` in a warp of `threads`, of which `left` have left already and `stay`
    /// go on: the others leave. With none staying it is the warp's last instruction, an
    /// [`Instr::exit`] of every thread still there; else [`Instr::exit_lanes`], and `left`
    /// takes in the lanes leaving.
    pub fn guard_exit(pc: u32, threads: u32, left: &mut u32, stay: u32) -> Instr {
        let here = threads & !*left;
        if stay == 0 {
            return Instr::exit(pc, here);
        }
        let leaving = here & !stay;
        *left |= leaving;
        Instr::exit_lanes(pc, leaving)
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

    /// One more than the highest register the instruction names — its destinations (a pair
    /// or quad counted whole) and its sources, RZ never — or 0 when it names none: how many
    /// registers per thread a program made of it needs (see [`crate::workload::Kernel::
    /// registers_per_thread`]).
    pub fn register_span(&self) -> u32 {
        self.regs().map(|r| u32::from(r) + 1).max().unwrap_or(0)
    }

    /// Whether register `r` is one of [`Instr::regs`], without walking them: the scoreboard
    /// asks this of every decoded instruction (walking was 5 % of a trace run's instructions).
    #[inline]
    pub fn uses(&self, r: u8) -> bool {
        // Four comparisons, where `contains` calls memchr on four bytes.
        let [a, b, c, d] = self.srcs;
        r != NO_REG
            && (a == r
                || b == r
                || c == r
                || d == r
                || self.dst != NO_REG && r >= self.dst && r - self.dst < self.dst_regs)
    }
}

/// The threads of a CTA of `threads_per_cta` threads that fall in its warp `warp`, one bit per
/// lane: all 32 but in a last, partial warp (a 48-thread CTA's warp 1 has lanes 0–15).
pub fn warp_threads(threads_per_cta: u32, warp: u32) -> u32 {
    match threads_per_cta.saturating_sub(warp * 32).min(32) {
        32 => u32::MAX,
        n => (1u32 << n) - 1,
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

/// The name of the instruction a cursor fetched last: text its kernel's code holds. A
/// checkpoint carries it as text; the names are few and fixed, so reading one back leaks each
/// distinct name once and shares it after that.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct InstrName(pub &'static str);

impl std::fmt::Debug for InstrName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl serde::Serialize for InstrName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

impl<'de> serde::Deserialize<'de> for InstrName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<InstrName, D::Error> {
        use std::collections::BTreeSet;
        use std::sync::Mutex;
        static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
        let name = String::deserialize(d)?;
        let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(known) = names.get(name.as_str()) {
            return Ok(InstrName(known));
        }
        let leaked: &'static str = Box::leak(name.into_boxed_str());
        names.insert(leaked);
        Ok(InstrName(leaked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_threads_of_full_partial_and_missing_warps() {
        assert_eq!(warp_threads(256, 7), 0xffff_ffff);
        // 48 threads: 32 + 16.
        assert_eq!((warp_threads(48, 0), warp_threads(48, 1)), (0xffff_ffff, 0x0000_ffff));
        // Needleman-Wunsch's 16-thread CTAs half-fill their only warp.
        assert_eq!(warp_threads(16, 0), 0x0000_ffff);
        assert_eq!((warp_threads(72, 2), warp_threads(72, 3)), (0xff, 0));
    }

    #[test]
    fn the_register_span_counts_pairs_and_quads_whole_and_never_rz() {
        let i = Instr { pc: 0, op: Op::Alu, dst: 6, dst_regs: 2, srcs: [3, NO_REG, NO_REG, NO_REG], mask: 1 };
        assert_eq!(i.register_span(), 8, "R6:R7");
        let q = Instr { dst: 12, dst_regs: 4, srcs: [20, NO_REG, NO_REG, NO_REG], ..i };
        assert_eq!(q.register_span(), 21, "a source above the quad R12..R15");
        assert_eq!(Instr { dst: NO_REG, srcs: [NO_REG; 4], ..i }.register_span(), 0);
        assert_eq!(
            Instr { dst: 254, dst_regs: 4, srcs: [NO_REG; 4], ..i }.register_span(),
            255,
            "RZ ends it"
        );
        assert_eq!(Instr::exit(0, u32::MAX).register_span(), 0);
    }

    #[test]
    fn uses_is_membership_in_regs() {
        let instrs = [
            Instr { pc: 0, op: Op::Alu, dst: 7, dst_regs: 1, srcs: [1, 2, NO_REG, NO_REG], mask: 1 },
            Instr { pc: 0, op: Op::Alu, dst: 10, dst_regs: 4, srcs: [10, 3, 3, 200], mask: 1 },
            Instr { pc: 0, op: Op::Alu, dst: 253, dst_regs: 4, srcs: [NO_REG; 4], mask: 1 },
            Instr::exit(0, 1),
        ];
        for i in &instrs {
            for r in 0..=u8::MAX {
                assert_eq!(i.uses(r), i.regs().any(|x| x == r), "{i:?} r{r}");
            }
        }
    }
}
