//! The execute stage of an SM: its warp slots and CTA slots, decoding each warp's next
//! instruction, the scoreboard (registers outstanding loads and ALU results will write), the
//! coalescer, barriers and warp exit (MECHANISMS §1).
//!
//! The stage keeps, as warp masks, what the issue stage checks first: which warps wait on a
//! load (`wait_mem`), sit at a barrier, have exited, and whose next instruction is a memory
//! access — updated where the state changes (decode, load completion, barrier, exit), so the
//! issue stage never has to look at those warps.
//!
//! It calls no other unit: [`ExecUnit::execute`] returns the memory instruction for the LD/ST
//! unit in an [`Executed`], and [`ExecUnit::launch`] the warp slots it filled, and the SM hands
//! them on.

use super::ldst::{MemInstr, NO_LOAD};
use super::sched::bits;
use super::sched::owl::CtaGrouping;
use super::stall::StallReason;
use super::warp::{LoadTrack, Warp};
use crate::config::Config;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::fingerprint;
use crate::sim::stats::CoreStats;
use crate::workload::instr::{Op, Space, reg_range};
use crate::workload::{Kernel, WarpProgram};

/// A CTA resident on the SM.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CtaSlot {
    pub active: bool,
    /// Grid id of the CTA.
    pub cta: u32,
    /// Its OWL CTA group (seed 003 Algorithm 1, in launch order; see `sched::owl`).
    pub group: u32,
    /// Its warp slots.
    pub warps: u64,
    /// Warps not yet retired.
    pub resident: u32,
    /// Warps that have not executed EXIT (a barrier waits for these).
    pub running: u32,
    /// Warps waiting at the barrier.
    pub at_barrier: u32,
}

/// Fixed parameters of the stage.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Params {
    alu_latency: u64,
    max_loads: u8,
    /// Bytes per coalesced request: the L1 line, or a sector of a sectored L1
    /// (`cache::sectors::coalesce_bytes`).
    line_bytes: u64,
    min_group_warps: u32,
    /// Seed 000 Fig. 4's perfect-coalescing oracle.
    perfect_coalescing: bool,
    /// A warp is done only when its stores are acknowledged (`l2.write_acks`).
    write_acks: bool,
}

/// What executing one instruction produced for the rest of the SM.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Executed {
    /// A memory instruction for the LD/ST unit, written into the slot `execute` was given.
    pub mem: bool,
    /// A memory instruction with no access (no active lane, or no line after coalescing).
    pub dropped: bool,
    /// The warp executed EXIT (it has no next instruction to decode).
    pub exited: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExecUnit {
    /// The SM's id (for events).
    core: u16,
    pub warps: Vec<Warp>,
    /// Launch age per warp slot (contiguous, for schedulers).
    pub ages: Vec<u64>,
    /// Occupied warp slots.
    pub valid: u64,
    /// Warps whose next instruction needs a register an outstanding load will write.
    pub wait_mem: u64,
    /// Warps waiting at a CTA barrier.
    pub at_barrier: u64,
    /// Warps that executed EXIT and wait for their loads to drain.
    pub exited: u64,
    /// Warps whose next instruction is a load or store (skipped at once while the LD/ST
    /// queue is full), a global/local load, a global/local load or store.
    pub mem_next: u64,
    pub load_next: u64,
    pub global_next: u64,
    pub ctas: Vec<CtaSlot>,
    /// OWL CTA group of each warp slot, and the group formation of the running kernel.
    pub cta_group: Vec<u32>,
    pub grouping: CtaGrouping,
    /// The kernel whose CTAs run here (groups and OAWS's classifier restart per kernel).
    pub kernel: Option<usize>,
    /// Bumped when the set of resident warps changes.
    pub generation: u64,
    /// Every instruction issued here, as (cycle, warp slot, pc) in issue order
    /// (`sim::fingerprint`).
    pub issue_trace: u64,
    /// CTAs finished since the GPU last collected them.
    pub finished_ctas: u32,
    /// A warp slot was freed since the GPU last looked (a CTA may fit again).
    pub slots_freed: bool,
    next_age: u64,
    params: Params,
}

/// The warp slots a CTA launch filled, and whether it started a new kernel on the SM.
pub struct Launched {
    pub warps: u64,
    pub new_kernel: bool,
}

impl ExecUnit {
    pub fn new(c: &Config, core: u16, placeholder: WarpProgram) -> ExecUnit {
        let n = c.warps_per_sm();
        ExecUnit {
            core,
            warps: (0..n)
                .map(|_| Warp::empty(placeholder.clone(), c.core.max_loads_per_warp as usize))
                .collect(),
            ages: vec![0; n],
            valid: 0,
            wait_mem: 0,
            at_barrier: 0,
            exited: 0,
            mem_next: 0,
            load_next: 0,
            global_next: 0,
            ctas: vec![CtaSlot::default(); c.core.max_ctas as usize],
            cta_group: vec![0; n],
            grouping: CtaGrouping::default(),
            kernel: None,
            generation: 0,
            issue_trace: fingerprint::EMPTY,
            finished_ctas: 0,
            slots_freed: false,
            next_age: 0,
            params: Params {
                alu_latency: c.core.alu_latency.into(),
                max_loads: c.core.max_loads_per_warp as u8,
                line_bytes: crate::sim::cache::sectors::coalesce_bytes(c).into(),
                min_group_warps: c.core.owl.min_group_size,
                perfect_coalescing: c.core.perfect_coalescing,
                write_acks: c.l2.write_acks,
            },
        }
    }

    /// Whether a CTA of `warps` warps fits now: a free CTA slot, free warp slots, and fewer
    /// than `fit` CTAs resident (the kernel's occupancy, [`crate::sim::occupancy`]).
    pub fn can_launch(&self, warps: u32, fit: u32) -> bool {
        let free_slots = (!self.valid & mask_of(self.warps.len())).count_ones();
        let resident = self.ctas.iter().filter(|c| c.active).count();
        resident < self.ctas.len() && resident < fit as usize && free_slots >= warps
    }

    /// Places CTA `cta` of kernel number `kernel_index`, whose warps run `programs`, in free
    /// warp slots at cycle `now` (the caller checked [`ExecUnit::can_launch`]); `fit` CTAs of
    /// the kernel fit at once. A slot keeps nothing of the warp that had it before (the
    /// inspector shows the new occupant only, issue 38 item 4). The warps are not decoded yet:
    /// the SM decodes each with [`ExecUnit::decode`] once it has ranked them.
    pub fn launch(
        &mut self,
        now: u64,
        kernel_index: usize,
        kernel: &Kernel,
        cta: u32,
        fit: u32,
        programs: Vec<WarpProgram>,
    ) -> Launched {
        let n = kernel.warps_per_cta();
        let new_kernel = self.kernel != Some(kernel_index);
        if new_kernel {
            self.start_kernel(kernel_index, n, fit);
        }
        let group = self.grouping.next_group();
        let slot = self.ctas.iter().position(|c| !c.active).expect("free CTA slot");
        let mut mask = 0u64;
        let mut w = 0usize;
        for (i, program) in (0..n).zip(programs) {
            while self.valid & (1 << w) != 0 {
                w += 1;
            }
            let warp = &mut self.warps[w];
            warp.valid = true;
            warp.cta_slot = slot as u8;
            warp.cta = cta;
            warp.warp_in_cta = i as u16;
            warp.age = self.next_age;
            self.ages[w] = self.next_age;
            self.next_age += 1;
            warp.program = program;
            warp.pending = Default::default();
            warp.alu_regs = [(crate::workload::instr::NO_REG, 0); 4];
            warp.at_barrier = false;
            warp.exited = false;
            warp.loads_out = 0;
            warp.stores_out = 0;
            warp.load_seq = 0;
            warp.instructions = 0;
            warp.launched = now;
            for l in &mut warp.loads {
                l.active = false;
            }
            // Its buffer of request records is kept, emptied, so a launch allocates nothing.
            let mut reqs = std::mem::take(&mut warp.last_load.reqs);
            reqs.clear();
            warp.last_load = LoadTrack { reqs, ..LoadTrack::default() };
            self.cta_group[w] = group;
            self.valid |= 1 << w;
            mask |= 1 << w;
        }
        self.ctas[slot] =
            CtaSlot { active: true, cta, group, warps: mask, resident: n, running: n, at_barrier: 0 };
        self.generation += 1;
        Launched { warps: mask, new_kernel }
    }

    /// A new kernel's first CTA arrives: form its CTA groups (Algorithm 1 over the `fit` CTAs
    /// of `warps` warps that fit at once).
    fn start_kernel(&mut self, kernel_index: usize, warps: u32, fit: u32) {
        self.grouping.start_kernel(fit.max(1), warps.max(1), self.params.min_group_warps);
        self.kernel = Some(kernel_index);
    }

    /// Warps known not to be able to issue (waiting on a load, at a barrier, exited).
    pub fn blocked(&self) -> u64 {
        self.wait_mem | self.at_barrier | self.exited
    }

    /// Decodes warp `w`'s next instruction and caches what the issue stage checks first: its
    /// class masks and whether it waits on a load. Returns whether it is a global or local
    /// load.
    #[inline(always)]
    pub fn decode(&mut self, w: usize, kernel: &Kernel) -> bool {
        let warp = &mut self.warps[w];
        warp.next = warp.program.fetch(kernel, &mut warp.addrs);
        warp.ready_at = warp.alu_operands_ready(&warp.next);
        let (mem, load, global) = match warp.next.op {
            Op::Load { space, .. } => (true, space != Space::Shared, space != Space::Shared),
            Op::Store { space, .. } => (true, false, space != Space::Shared),
            _ => (false, false, false),
        };
        let bit = 1u64 << w;
        let set = |mask: &mut u64, on: bool| *mask = (*mask & !bit) | if on { bit } else { 0 };
        set(&mut self.mem_next, mem);
        set(&mut self.load_next, load);
        set(&mut self.global_next, global);
        set(&mut self.wait_mem, warp.waits_on_memory());
        load
    }

    /// Executes warp `w`'s decoded instruction at `now`: an ALU result goes to the scoreboard,
    /// a load or store is coalesced (a load takes an outstanding-load slot and marks its
    /// registers pending) and written into `slot`, the LD/ST queue's next, with OAWS's
    /// `miss_pred`; a barrier or EXIT updates the CTA. The next instruction is not decoded yet.
    pub fn execute(
        &mut self,
        w: usize,
        now: u64,
        miss_pred: u16,
        slot: &mut MemInstr,
        stats: &mut CoreStats,
        sink: &mut EventSink,
    ) -> Executed {
        let instr = self.warps[w].next;
        self.issue_trace = fingerprint::fold(self.issue_trace, [now, w as u64, u64::from(instr.pc)]);
        let warp = &mut self.warps[w];
        warp.instructions += 1;
        stats.instructions += 1;
        stats.thread_instructions += u64::from(instr.mask.count_ones());
        let mut out = Executed::default();
        match instr.op {
            Op::Alu => {
                instr.dsts().for_each(|r| warp.alu_write(r, now + self.params.alu_latency));
            }
            Op::Load { space, width } | Op::Store { space, width } => {
                let load = matches!(instr.op, Op::Load { .. });
                stats.mem_instructions += 1;
                // Coalesced where the LD/ST queue keeps it (`queue::SlotQueue`).
                let coalesced = &mut slot.coalesced;
                coalesced.n = 0;
                if space == Space::Atomic {
                    coalesced.build_atomic(&warp.addrs, instr.mask, width.into());
                } else if space != Space::Shared {
                    coalesced.build(&warp.addrs, instr.mask, width.into(), self.params.line_bytes);
                    if load && self.params.perfect_coalescing && coalesced.n > 1 {
                        // Oracle: the first line serves every lane (and the sectors of all).
                        coalesced.sectors[0] = coalesced.sectors[..coalesced.n].iter().fold(0, |a, s| a | s);
                        coalesced.n = 1;
                        coalesced.lanes[0] = instr.mask;
                    }
                }
                let empty = space != Space::Shared && coalesced.n == 0 || instr.mask == 0;
                if !load {
                    stats.stores += 1;
                    if self.params.write_acks && space != Space::Shared {
                        // Each access is acknowledged (GPGPU-Sim's `inc_store_req` per access).
                        warp.stores_out += coalesced.n as u32;
                    }
                }
                if empty {
                    out.dropped = true;
                } else {
                    let mut load_slot = NO_LOAD;
                    if load {
                        let slot = warp.free_load_slot().expect("checked at issue");
                        load_slot = slot as u8;
                        let t = &mut warp.loads[slot];
                        *t = LoadTrack {
                            active: true,
                            pc: instr.pc,
                            dst: instr.dst,
                            dst_regs: instr.dst_regs,
                            seq: warp.load_seq,
                            issued: now,
                            requests: coalesced.n as u8,
                            all_sent: false,
                            reqs: std::mem::take(&mut t.reqs),
                            ..LoadTrack::default()
                        };
                        t.reqs.clear();
                        instr.dsts().for_each(|r| warp.pending.insert(r));
                        warp.loads_out += 1;
                    }
                    out.mem = true;
                    slot.warp = w as u16;
                    slot.pc = instr.pc;
                    slot.load = load;
                    slot.space = space;
                    slot.width = width;
                    slot.load_slot = load_slot;
                    slot.seq = warp.load_seq;
                    slot.issued = now;
                    slot.miss_pred = miss_pred;
                    if load {
                        warp.load_seq += 1;
                    }
                }
            }
            Op::Barrier => {
                warp.at_barrier = true;
                self.at_barrier |= 1 << w;
                let cta = warp.cta_slot as usize;
                self.ctas[cta].at_barrier += 1;
                self.try_release_barrier(cta);
            }
            Op::Exit => {
                warp.exited = true;
                self.exited |= 1 << w;
                let cta = warp.cta_slot as usize;
                let done = warp.drained();
                self.ctas[cta].running -= 1;
                if done {
                    self.retire_warp(w, sink);
                }
                self.try_release_barrier(cta);
                out.exited = true;
            }
        }
        out
    }

    /// Whether warp `w`'s next instruction can issue now as far as the warp itself goes
    /// (operands, outstanding-load slots), given that `w` is not blocked, the LD/ST queue is
    /// `ldst_full` for it and its scheduler's ALU takes another instruction from `alu_free` on.
    #[inline]
    pub fn check(&self, w: usize, now: u64, ldst_full: bool, alu_free: u64) -> StallReason {
        let warp = &self.warps[w];
        let i = &warp.next;
        if warp.ready_at > now {
            return StallReason::WaitAlu;
        }
        match i.op {
            Op::Alu if alu_free > now => StallReason::AluBusy,
            Op::Load { .. } if ldst_full || warp.loads_out >= self.params.max_loads => StallReason::MemPipe,
            Op::Store { .. } if ldst_full => StallReason::MemPipe,
            _ => StallReason::Issued,
        }
    }

    /// Every request of warp `w`'s load in `slot` is back: its registers are released.
    /// Returns whether that retired the warp (it had exited and waited for this load).
    pub fn finish_load(&mut self, w: usize, slot: usize, global: bool, sink: &mut EventSink) -> bool {
        let warp = &mut self.warps[w];
        let t = &mut warp.loads[slot];
        let dsts = reg_range(t.dst, t.dst_regs);
        t.active = false;
        if global {
            std::mem::swap(t, &mut warp.last_load);
            warp.loads[slot].active = false;
        }
        dsts.for_each(|r| warp.pending.remove(r));
        warp.loads_out -= 1;
        if !warp.waits_on_memory() {
            self.wait_mem &= !(1 << w);
        }
        self.retire_if_drained(w, sink)
    }

    /// One of warp `w`'s stores is done: with `l2.write_acks`, an acknowledged access is
    /// counted off the warp. Returns whether that retired the warp (it had exited and waited
    /// for this acknowledgement); without acknowledgements nothing was counted, so nothing.
    pub fn store_done(&mut self, w: usize, sink: &mut EventSink) -> bool {
        if !self.params.write_acks {
            return false;
        }
        self.warps[w].stores_out -= 1;
        self.retire_if_drained(w, sink)
    }

    /// Retires warp `w` if it has exited and nothing of it is left in the memory system.
    fn retire_if_drained(&mut self, w: usize, sink: &mut EventSink) -> bool {
        let warp = &self.warps[w];
        let retire = warp.exited && warp.drained();
        if retire {
            self.retire_warp(w, sink);
        }
        retire
    }

    /// Releases a CTA's barrier once every running warp has arrived.
    fn try_release_barrier(&mut self, cta: usize) {
        let c = &mut self.ctas[cta];
        if !c.active || c.at_barrier == 0 || c.at_barrier < c.running {
            return;
        }
        c.at_barrier = 0;
        let warps = c.warps;
        for w in bits(warps) {
            let warp = &mut self.warps[w];
            if warp.at_barrier {
                warp.at_barrier = false;
                self.at_barrier &= !(1 << w);
            }
        }
    }

    /// Frees a warp slot; the CTA finishes with its last warp.
    pub(super) fn retire_warp(&mut self, w: usize, sink: &mut EventSink) {
        let warp = &mut self.warps[w];
        warp.valid = false;
        let bit = 1u64 << w;
        self.valid &= !bit;
        self.wait_mem &= !bit;
        self.at_barrier &= !bit;
        self.exited &= !bit;
        self.generation += 1;
        self.slots_freed = true;
        let cta = warp.cta_slot as usize;
        let c = &mut self.ctas[cta];
        c.resident -= 1;
        if c.resident == 0 {
            c.active = false;
            self.finished_ctas += 1;
            if sink.wants(EventKind::CtaDone) {
                sink.emit(Event::CtaDone { core: self.core, cta: c.cta });
            }
        }
    }

    /// Warps of the SM's resident CTAs, finished ones included (what seed 001's controllers
    /// use as the core's tolerance).
    pub fn assigned_warps(&self) -> u16 {
        self.ctas.iter().filter(|c| c.active).map(|c| c.warps.count_ones() as u16).sum()
    }
}

fn mask_of(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}
