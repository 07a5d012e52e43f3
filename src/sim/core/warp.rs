//! A warp slot: its program cursor, the decoded next instruction, the scoreboard, and the
//! table of outstanding loads with one record per coalesced request (what the warp
//! inspector draws and what seed 000's per-warp-load metrics are computed from).
//!
//! Why a warp cannot issue follows from the SM's warp masks and the warp's state at any
//! moment: `Sm::stall_reason` evaluates it exactly.

use crate::sim::dram::mapping::DramLocation;
use crate::sim::request::{MemRequest, ReqTrace};
use crate::workload::WarpProgram;
use crate::workload::instr::{Instr, LaneAddrs, NO_REG};

/// Registers with a pending write, as a 256-bit set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RegSet([u64; 4]);

impl RegSet {
    #[inline]
    pub fn insert(&mut self, r: u8) {
        if r != NO_REG {
            self.0[(r >> 6) as usize] |= 1 << (r & 63);
        }
    }

    #[inline]
    pub fn remove(&mut self, r: u8) {
        if r != NO_REG {
            self.0[(r >> 6) as usize] &= !(1 << (r & 63));
        }
    }

    #[inline]
    pub fn contains(&self, r: u8) -> bool {
        r != NO_REG && self.0[(r >> 6) as usize] & (1 << (r & 63)) != 0
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
}

/// One coalesced request of a load, as the inspector shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReqRecord {
    pub id: u64,
    pub addr: u64,
    pub lanes: u32,
    pub loc: DramLocation,
    pub trace: ReqTrace,
}

/// A load in flight (or the warp's last finished one).
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct LoadTrack {
    pub active: bool,
    pub pc: u32,
    /// The registers it writes: `dst_regs` from `dst` on.
    pub dst: u8,
    pub dst_regs: u8,
    /// Per-warp load sequence number (its warp-group id).
    pub seq: u32,
    /// Issue cycle.
    pub issued: u64,
    /// Cycle the LD/ST unit started / finished sending its requests.
    pub ldst_start: u64,
    pub ldst_end: u64,
    /// Requests after coalescing, and how many have returned.
    pub requests: u8,
    pub returned: u8,
    pub first: u64,
    pub last: u64,
    /// The LD/ST unit has created all of its requests.
    pub all_sent: bool,
    /// It found fewer free MSHRs than it needed (memory occlusion).
    pub occluded: bool,
    pub reqs: Vec<ReqRecord>,
}

impl LoadTrack {
    /// Done: every request created and returned.
    pub fn complete(&self) -> bool {
        self.all_sent && self.returned == self.requests
    }

    /// Records a returned request.
    pub fn returned(&mut self, req: &MemRequest, now: u64) {
        if let Some(r) = self.reqs.get_mut(req.origin.index as usize) {
            r.trace = req.trace;
            r.trace.done = now;
            r.loc = req.loc;
        }
        if self.returned == 0 {
            self.first = now;
        }
        self.last = now;
        self.returned += 1;
    }
}

/// A warp slot of an SM.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warp {
    /// A warp occupies this slot.
    pub valid: bool,
    /// Index of its CTA slot on the SM, and the CTA's grid id.
    pub cta_slot: u8,
    pub cta: u32,
    pub warp_in_cta: u16,
    /// Launch order on this SM (GTO's "oldest").
    pub age: u64,
    /// The cycle its CTA was launched at: what the slot held before is another warp's.
    pub launched: u64,
    pub program: WarpProgram,
    /// Fetched and decoded; issues next.
    pub next: Instr,
    pub addrs: LaneAddrs,
    /// Registers outstanding loads will write.
    pub pending: RegSet,
    /// Earliest cycle the next instruction's ALU operands are ready.
    pub ready_at: u64,
    /// Registers written by ALU instructions still in the pipeline, with their ready cycles.
    pub alu_regs: [(u8, u64); 4],
    pub at_barrier: bool,
    /// Issued EXIT; the slot frees when its loads drain and its stores are acknowledged.
    pub exited: bool,
    pub loads: Vec<LoadTrack>,
    pub loads_out: u8,
    /// Store accesses not acknowledged yet (`l2.write_acks`; GPGPU-Sim's
    /// `m_stores_outstanding`).
    pub stores_out: u32,
    pub load_seq: u32,
    /// The last completed load (for the inspector).
    pub last_load: LoadTrack,
    pub instructions: u64,
}

impl Warp {
    pub fn empty(program: WarpProgram, max_loads: usize) -> Warp {
        Warp {
            valid: false,
            cta_slot: 0,
            cta: 0,
            warp_in_cta: 0,
            age: 0,
            launched: 0,
            program,
            next: Instr::exit(0, 0),
            addrs: [0; 32],
            pending: RegSet::default(),
            ready_at: 0,
            alu_regs: [(NO_REG, 0); 4],
            at_barrier: false,
            exited: false,
            loads: (0..max_loads)
                .map(|_| LoadTrack { reqs: Vec::with_capacity(32), ..Default::default() })
                .collect(),
            loads_out: 0,
            stores_out: 0,
            load_seq: 0,
            last_load: LoadTrack { reqs: Vec::with_capacity(32), ..Default::default() },
            instructions: 0,
        }
    }

    /// When the next instruction's ALU-produced operands are ready.
    pub fn alu_operands_ready(&self, instr: &Instr) -> u64 {
        let mut t = 0;
        for &(r, at) in &self.alu_regs {
            if at > t && instr.uses(r) {
                t = at;
            }
        }
        t
    }

    /// Records an ALU write of `dst` ready at `at` (replacing the oldest entry).
    pub fn alu_write(&mut self, dst: u8, at: u64) {
        if dst == NO_REG {
            return;
        }
        let slot = self.alu_regs.iter().position(|&(r, _)| r == dst).unwrap_or_else(|| {
            self.alu_regs.iter().enumerate().min_by_key(|(_, (_, t))| *t).map(|(i, _)| i).unwrap_or(0)
        });
        self.alu_regs[slot] = (dst, at);
    }

    /// No load outstanding and every store acknowledged: an exited warp may free its slot
    /// (GPGPU-Sim's `hardware_done`).
    pub fn drained(&self) -> bool {
        self.loads_out == 0 && self.stores_out == 0
    }

    /// Whether the next instruction depends on an outstanding load.
    pub fn waits_on_memory(&self) -> bool {
        !self.pending.is_empty() && self.next.regs().any(|r| self.pending.contains(r))
    }

    /// A free outstanding-load slot.
    pub fn free_load_slot(&self) -> Option<usize> {
        self.loads.iter().position(|l| !l.active)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regset_tracks_registers_and_ignores_rz() {
        let mut s = RegSet::default();
        s.insert(3);
        s.insert(200);
        s.insert(NO_REG);
        assert!(s.contains(3) && s.contains(200) && !s.contains(NO_REG) && !s.contains(4));
        s.remove(3);
        s.remove(200);
        assert!(s.is_empty());
    }
}
