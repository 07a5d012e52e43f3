//! What a SASS opcode means to the machine: an ALU issue slot, a load or a store in some
//! memory space with some access width, a barrier, or the warp's exit — and how many
//! consecutive registers it writes.
//!
//! | opcode (first token)                 | treated as                                          |
//! |--------------------------------------|-----------------------------------------------------|
//! | `LDG`, `LDGSTS`                      | global load                                         |
//! | `LDL` / `STL`                        | local load / store (through L1 and L2 like global)  |
//! | `LDS`, `LDSM` / `STS`                | shared load / store (on-chip, fixed latency)        |
//! | `STG`                                | global store                                        |
//! | `ATOMG`, `ATOM` (generic)            | atomic: a load performed at the L2, the old value returns to a register |
//! | `RED`, `REDG`                        | atomic with no destination (a reduction)            |
//! | `ATOMS`                              | shared load                                         |
//! | `LD`, `ST` (generic)                 | by the first active lane's address: within 16 MiB above `-shmem base_addr` shared, above `-local mem base_addr` local, otherwise global |
//! | `BAR.SYNC`, `BAR.RED`, `BAR`         | CTA barrier (`BAR.ARV` only arrives: an issue slot) |
//! | `EXIT`                               | the warp's last instruction ends it; an earlier (partly predicated) `EXIT` retires some lanes and is an issue slot |
//! | anything else with addresses         | a global load if it writes a register, else a store (`CCTL` cache control is an issue slot) |
//! | anything else                        | an ALU issue slot                                   |
//!
//! Atomics follow Accel-Sim (`trace_driven.cc`, `parse_from_trace_struct`): `ATOMG`, `RED` and
//! `ATOM` are all global loads performed at the L2 (`cache_op = CACHE_GLOBAL`), the generic
//! `ATOM` too, whatever its address.
//!
//! Access widths come from the opcode suffix as Accel-Sim reads them (`.U8`/`.S8` = 1,
//! `.16` = 2, `.64` = 8, `.128` = 16, also `.U16`, `.F64`, ...); without one, the line's
//! `mem_width`, else 4. A load writes `width / 4` registers (`LDG.E.128` R4 writes R4..R7);
//! `IMAD.WIDE`, FP64 arithmetic (`DADD`, `DMUL`, `DFMA`, `DMNMX`) and conversions to a 64-bit
//! type write two.

use crate::workload::instr::{Op, Space};

/// Size of the generic address windows of shared and local memory.
pub const WINDOW_BYTES: u64 = 16 << 20;

/// Where a memory opcode's addresses live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceRule {
    Fixed(Space),
    /// Generic `LD`/`ST`: decided by address.
    Generic,
}

/// The class of an opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Alu,
    Load(SpaceRule),
    Store(SpaceRule),
    Barrier,
    Exit,
}

/// An opcode's class, access width (bytes) and registers written per destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub class: Class,
    pub width: u8,
    pub dst_regs: u8,
}

/// The shared and local windows of the generic address space (0 = not given).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Windows {
    pub shmem_base: u64,
    pub local_base: u64,
}

impl Windows {
    /// The space of a generic access to `addr`.
    pub fn space(&self, addr: u64) -> Space {
        let within = |base: u64| base != 0 && addr >= base && addr - base < WINDOW_BYTES;
        if within(self.shmem_base) {
            Space::Shared
        } else if within(self.local_base) {
            Space::Local
        } else {
            Space::Global
        }
    }
}

/// The distinct opcodes of a thread block, each with the classification of its latest line.
/// Lines of one opcode nearly always share their memory width and whether they write a
/// register, so [`classify`] (which splits the opcode into its tokens) runs about once per
/// opcode instead of once per line; a line that differs is classified afresh.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpcodeTable {
    names: Vec<Box<str>>,
    /// Per opcode: the `mem_width` and `writes` it was last classified with, and the result.
    latest: Vec<(u32, bool, OpInfo)>,
}

impl OpcodeTable {
    /// The index of `opcode` in the table (added if new) and its meaning on a line with
    /// `mem_width` bytes per lane that does or does not write a register.
    pub fn classify(&mut self, opcode: &str, mem_width: u32, writes: bool) -> Result<(u16, OpInfo), String> {
        let Some(i) = self.names.iter().position(|o| &**o == opcode) else {
            let info = classify(opcode, mem_width, writes)?;
            self.names.push(opcode.into());
            self.latest.push((mem_width, writes, info));
            return Ok(((self.names.len() - 1) as u16, info));
        };
        let (w, wr, info) = self.latest[i];
        if (w, wr) == (mem_width, writes) {
            return Ok((i as u16, info));
        }
        let info = classify(opcode, mem_width, writes)?;
        self.latest[i] = (mem_width, writes, info);
        Ok((i as u16, info))
    }

    /// The opcode at `index`.
    pub fn name(&self, index: u16) -> &str {
        &self.names[usize::from(index)]
    }
}

/// Bytes named by a width token: `64` → 8, `U8`/`S16`/`F64` → 1/2/8.
fn width_token(tok: &str) -> Option<u32> {
    let digits = tok.strip_prefix(['U', 'S', 'F']).unwrap_or(tok);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 4 {
        return None;
    }
    digits.parse::<u32>().ok().map(|bits| bits / 8)
}

/// Classifies `opcode` of a line with `mem_width` bytes per lane (0 = no addresses).
/// `writes` says whether the line lists a destination register.
pub fn classify(opcode: &str, mem_width: u32, writes: bool) -> Result<OpInfo, String> {
    let mut tokens = opcode.split('.');
    let base = tokens.next().unwrap_or("");
    let has = |name: &str| opcode.split('.').skip(1).any(|t| t == name);
    let suffix_width = opcode.split('.').skip(1).find_map(width_token);
    let memory = mem_width > 0;
    use Space::*;
    use SpaceRule::*;
    let class = match base {
        "LDG" | "LDGSTS" => Class::Load(Fixed(Global)),
        "ATOMG" | "ATOM" | "RED" | "REDG" => Class::Load(Fixed(Atomic)),
        "LDL" => Class::Load(Fixed(Local)),
        "LDS" | "LDSM" | "ATOMS" => Class::Load(Fixed(Shared)),
        "LD" => Class::Load(Generic),
        "STG" => Class::Store(Fixed(Global)),
        "STL" => Class::Store(Fixed(Local)),
        "STS" => Class::Store(Fixed(Shared)),
        "ST" => Class::Store(Generic),
        "BAR" if !has("ARV") => Class::Barrier,
        "EXIT" => Class::Exit,
        "CCTL" | "CCTLL" | "CCTLT" => Class::Alu,
        _ if memory && writes => Class::Load(Fixed(Global)),
        _ if memory => Class::Store(Fixed(Global)),
        _ => Class::Alu,
    };
    let is_mem = matches!(class, Class::Load(_) | Class::Store(_));
    if is_mem && !memory {
        return Err(format!(
            "expected a memory width and addresses for the memory instruction {opcode}, found mem_width 0"
        ));
    }
    let width = if is_mem {
        let w =
            suffix_width.unwrap_or(if matches!(mem_width, 1 | 2 | 4 | 8 | 16 | 32) { mem_width } else { 4 });
        if !matches!(w, 1 | 2 | 4 | 8 | 16 | 32) {
            return Err(format!(
                "expected an access width of 1, 2, 4, 8, 16 or 32 bytes, found {w} bytes in the opcode {opcode}"
            ));
        }
        w as u8
    } else {
        0
    };
    let wide_alu = has("WIDE")
        || matches!(base, "DADD" | "DMUL" | "DFMA" | "DMNMX")
        || (matches!(base, "F2F" | "I2F" | "F2I" | "I2I")
            && matches!(opcode.split('.').nth(1), Some("F64" | "S64" | "U64")));
    let dst_regs = match class {
        Class::Load(_) => width.div_ceil(4).max(1),
        Class::Alu if wide_alu => 2,
        _ => 1,
    };
    Ok(OpInfo { class, width, dst_regs })
}

impl OpInfo {
    /// The machine operation, given the space of a generic access (`generic`).
    pub fn op(&self, generic: Space) -> Op {
        let space = |r: SpaceRule| match r {
            SpaceRule::Fixed(s) => s,
            SpaceRule::Generic => generic,
        };
        match self.class {
            Class::Alu => Op::Alu,
            Class::Load(r) => Op::Load { space: space(r), width: self.width },
            Class::Store(r) => Op::Store { space: space(r), width: self.width },
            Class::Barrier => Op::Barrier,
            Class::Exit => Op::Exit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(op: &str, w: u32, writes: bool) -> OpInfo {
        classify(op, w, writes).unwrap()
    }

    #[test]
    fn widths_and_registers_from_suffixes() {
        assert_eq!(
            c("LDG.E.128.SYS", 16, true),
            OpInfo { class: Class::Load(SpaceRule::Fixed(Space::Global)), width: 16, dst_regs: 4 }
        );
        assert_eq!(c("LDG.E.64", 8, true).dst_regs, 2);
        assert_eq!((c("STG.E.U8", 1, false).width, c("LDS.U.32", 4, true).width), (1, 4));
        assert_eq!(c("LDG.E.S16", 2, true).width, 2);
        assert_eq!(c("LDG.E.SYS", 4, true).width, 4);
        assert_eq!(c("IMAD.WIDE", 0, true), OpInfo { class: Class::Alu, width: 0, dst_regs: 2 });
        assert_eq!(c("IMAD.WIDE.U32", 0, true).dst_regs, 2);
        assert_eq!(c("DFMA", 0, true).dst_regs, 2);
        assert_eq!(c("F2F.F64.F32", 0, true).dst_regs, 2);
        assert_eq!(c("F2F.F32.F64", 0, true).dst_regs, 1);
        assert_eq!(c("IADD3", 0, true).dst_regs, 1);
    }

    #[test]
    fn atomics_barriers_and_generic_accesses() {
        let atomic = Class::Load(SpaceRule::Fixed(Space::Atomic));
        assert_eq!(c("ATOMG.E.ADD.STRONG.GPU", 4, true).class, atomic);
        assert_eq!(c("RED.E.ADD.F32.FTZ.RN.STRONG.GPU", 4, false).class, atomic);
        assert_eq!(
            c("ATOM.E.CAS.64", 8, true).class,
            atomic,
            "a generic ATOM is global, as Accel-Sim takes it"
        );
        assert_eq!(c("ATOM.E.CAS.64", 8, true).width, 8);
        assert_eq!(c("ATOMS.ADD", 4, true).class, Class::Load(SpaceRule::Fixed(Space::Shared)));
        assert_eq!(c("BAR.SYNC", 0, false).class, Class::Barrier);
        assert_eq!(c("BAR.SYNC.DEFER_BLOCKING", 0, false).class, Class::Barrier);
        assert_eq!(c("BAR.ARV", 0, false).class, Class::Alu);
        assert_eq!(c("MEMBAR.CTA", 0, false).class, Class::Alu);
        let w = Windows { shmem_base: 0x7fc8_6700_0000, local_base: 0x7fc8_6500_0000 };
        assert_eq!(w.space(0x7fc8_6700_0040), Space::Shared);
        assert_eq!(w.space(0x7fc8_6500_0040), Space::Local);
        assert_eq!(w.space(0x7fc8_4150_0000), Space::Global);
        assert_eq!(
            c("LD.E", 4, true).op(w.space(0x7fc8_6700_0040)),
            Op::Load { space: Space::Shared, width: 4 }
        );
        assert!(classify("LDG.E", 0, true).unwrap_err().contains("found mem_width 0"));
        assert!(classify("LDG.E.24", 4, true).unwrap_err().contains("found 3 bytes"));
    }
}
