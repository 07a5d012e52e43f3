//! Memory-occlusion-aware warp scheduling, the SM-wide part (seed 004 ch. 5): the divergent
//! load classifier, per-warp miss predictions and Miss_inflight, and the qualification rule
//! shared by `oaws-static` and `oaws-dyn` (and FCW throttling for `fcw-only`). FCW itself is
//! the L1's trainer (`L1::fcw`, seed 004 §4.2.4), shared with DaCache; it reaches the
//! schedulers as [`SchedView::fcw`].
//!
//! Qualification (Eq. 5.1): a load issues only if Miss_pred(pc, w) ≤ Avail_mshr − Miss_inflight,
//! where Avail_mshr is the L1's free MSHR entries and Miss_inflight the predicted misses of
//! divergent loads issued but not yet retired from the LD/ST unit. Stores and coherent loads
//! (PCs the classifier has not seen diverge; predicted to take one MSHR) always qualify.
//!
//! Predictions are made when a warp's next instruction is decoded and kept with it, as the
//! seed keeps them in the instruction buffer (§5.4.3); Div_pred is the instruction's active
//! lanes:
//! - static (§5.3, Eq. 5.2): Miss_pred = ⌈Div_pred · SMR⌉;
//! - dynamic (§5.4.2, Eq. 5.4): for a locality warp (SM-wide GTO priority < FCW)
//!   Miss_pred = ⌈Div_pred · HMR(pc)⌉ + GTO_gprio with HMR = #miss / #acc from the
//!   classifier; for a thrashing warp Miss_pred = Div_pred (a 100% miss rate).
//!
//! A prediction larger than the whole MSHR file is clamped to its size, so the load can still
//! issue once the file drains (with the seed's 32 MSHRs and 32-wide warps only the GTO_gprio
//! term could exceed it).
//!
//! The SM-wide GTO priority (`Sm::global_priority`) interleaves the schedulers' GTO ranks
//! (rank · schedulers + scheduler): it is unique per warp, as Eq. 5.4 needs, and FCW — a count
//! of warps across the SM, at least one per scheduler — then covers each scheduler's oldest
//! warps evenly (FCW = 4 is "two per scheduler", §4.2.4).
//!
//! The classifier (§5.3, §5.4.3) has 32 entries of ⟨PC, #inst, #acc, #miss⟩ for loads with
//! more than two requests (the seed's divergent loads), updated when such a load retires from
//! the LD/ST unit; it replaces its least recently updated entry and is cleared at each kernel
//! launch. When #acc reaches 1024 (its 10-bit field) all three counts halve, so HMR follows
//! recent behaviour.

use super::{MemoryFeedback, SchedView};
use crate::config::{Config, WarpSchedulerName};
use crate::sim::core::stall::StallReason;
use crate::sim::event::Event;
use crate::workload::instr::Instr;

/// How Miss_pred is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OawsMode {
    /// Eq. 5.2 with SMR in percent.
    Static { smr_percent: u32 },
    /// Throttling to the FCW locality warps only (no miss prediction).
    FcwOnly,
    /// Eq. 5.4.
    Dynamic,
}

impl OawsMode {
    /// The mode of the configured scheduler, if it is one of the OAWS family.
    pub fn of(c: &Config) -> Option<OawsMode> {
        match c.core.warp_scheduler {
            WarpSchedulerName::OawsStatic => Some(OawsMode::Static { smr_percent: c.core.oaws.smr_percent }),
            WarpSchedulerName::FcwOnly => Some(OawsMode::FcwOnly),
            WarpSchedulerName::OawsDyn => Some(OawsMode::Dynamic),
            _ => None,
        }
    }
}

/// One classifier entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct DlcEntry {
    pub pc: u32,
    /// Executions seen, accesses (coalesced requests) and L1 misses among them.
    pub inst: u32,
    pub acc: u32,
    pub miss: u32,
    /// Update order (for replacement).
    last_update: u64,
}

/// The divergent load classifier.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dlc {
    pub entries: Vec<DlcEntry>,
    pub capacity: usize,
    updates: u64,
}

/// #acc saturates at this value (10 bits).
const ACC_LIMIT: u32 = 1024;

impl Dlc {
    pub fn new(capacity: usize) -> Dlc {
        Dlc { entries: Vec::with_capacity(capacity), capacity, updates: 0 }
    }

    pub fn find(&self, pc: u32) -> Option<&DlcEntry> {
        self.entries.iter().find(|e| e.pc == pc)
    }

    /// Records one retired divergent load.
    pub fn record(&mut self, pc: u32, accesses: u32, misses: u32) {
        self.updates += 1;
        let i = match self.entries.iter().position(|e| e.pc == pc) {
            Some(i) => i,
            None if self.entries.len() < self.capacity => {
                self.entries.push(DlcEntry { pc, ..DlcEntry::default() });
                self.entries.len() - 1
            }
            None => {
                let i = (0..self.entries.len()).min_by_key(|&i| self.entries[i].last_update).expect("full");
                self.entries[i] = DlcEntry { pc, ..DlcEntry::default() };
                i
            }
        };
        let e = &mut self.entries[i];
        e.inst += 1;
        e.acc += accesses;
        e.miss += misses;
        e.last_update = self.updates;
        while e.acc >= ACC_LIMIT {
            e.inst = e.inst.div_ceil(2);
            e.acc /= 2;
            e.miss /= 2;
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The SM-wide OAWS state.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OawsState {
    pub mode: OawsMode,
    pub dlc: Dlc,
    /// Σ Miss_pred of issued divergent loads still in the LD/ST unit.
    pub miss_inflight: u32,
    /// Per warp slot: Miss_pred of its next instruction (0: not a known divergent load,
    /// always qualifies).
    pub miss_pred: Vec<u16>,
    /// Warps with a non-zero prediction.
    pub predicted: u64,
    mshr_capacity: u32,
}

impl OawsState {
    pub fn new(c: &Config, mode: OawsMode) -> OawsState {
        let warps = c.warps_per_sm();
        OawsState {
            mode,
            dlc: Dlc::new(c.core.oaws.dlc_entries as usize),
            miss_inflight: 0,
            miss_pred: vec![0; warps],
            predicted: 0,
            mshr_capacity: c.l1.mshr_entries,
        }
    }

    /// Miss_pred of a global load at `pc` with `lanes` active lanes, decoded by a warp of
    /// SM-wide GTO priority `gprio` while the L1 counts `fcw` fully cached warps (0 when the
    /// classifier does not know `pc` as divergent).
    pub fn predict(&self, pc: u32, lanes: u32, gprio: u8, fcw: u32) -> u16 {
        let Some(e) = self.dlc.find(pc) else { return 0 };
        let pred = match self.mode {
            OawsMode::Static { smr_percent } => (lanes * smr_percent).div_ceil(100),
            OawsMode::FcwOnly => 0,
            OawsMode::Dynamic if u32::from(gprio) < fcw => {
                (lanes * e.miss).div_ceil(e.acc.max(1)) + u32::from(gprio)
            }
            OawsMode::Dynamic => lanes,
        };
        pred.min(self.mshr_capacity) as u16
    }

    /// Sets warp `w`'s prediction for its newly decoded instruction.
    pub fn set_prediction(&mut self, w: usize, pred: u16) {
        self.miss_pred[w] = pred;
        if pred > 0 {
            self.predicted |= 1 << w;
        } else {
            self.predicted &= !(1 << w);
        }
    }

    /// Avail_mshr − Miss_inflight.
    pub fn allowance(&self, mshr_free: u32) -> u32 {
        mshr_free.saturating_sub(self.miss_inflight)
    }

    /// Among `loads` (warps whose next instruction is a global load), those whose prediction
    /// exceeds the allowance.
    pub fn disqualified(&self, loads: u64, mshr_free: u32) -> u64 {
        let limit = self.allowance(mshr_free);
        super::bits(loads & self.predicted)
            .filter(|&w| u32::from(self.miss_pred[w]) > limit)
            .fold(0, |m, w| m | 1 << w)
    }

    /// A load with `accesses` requests, `misses` of which missed in the L1, retired from the
    /// LD/ST unit. Trains the classifier on divergent loads (more than two requests).
    pub fn load_retired(&mut self, pc: u32, accesses: u32, misses: u32) {
        if accesses > 2 {
            self.dlc.record(pc, accesses, misses);
        }
    }
}

/// What OAWS and FCW-only learn: a kernel starts with an empty classifier; each decoded global
/// load gets its Miss_pred (Eq. 5.2/5.3), which counts in Miss_inflight from its issue until it
/// leaves the LD/ST unit, when its accesses and misses train the classifier.
impl MemoryFeedback for OawsState {
    fn kernel_started(&mut self) {
        self.dlc.clear();
    }

    fn decoded(&mut self, w: usize, next: &Instr, global_load: bool, gprio: u8, fcw: u32) {
        let pred = if global_load { self.predict(next.pc, next.mask.count_ones(), gprio, fcw) } else { 0 };
        self.set_prediction(w, pred);
    }

    fn load_issued(&mut self, w: usize) -> u16 {
        let p = self.miss_pred[w];
        self.miss_inflight += u32::from(p);
        p
    }

    /// A warp disqualified by Eq. 5.1: its prediction against the allowance.
    fn hold_event(&self, reason: StallReason, core: u16, w: usize, pc: u32, mshr_free: u32) -> Option<Event> {
        (reason == StallReason::OcclusionHold).then(|| Event::OawsDisqualified {
            core,
            warp: w as u16,
            pc,
            predicted: self.miss_pred[w],
            available: self.allowance(mshr_free).min(u32::from(u16::MAX)) as u16,
        })
    }

    fn load_dropped(&mut self, predicted: u16) {
        self.miss_inflight -= u32::from(predicted);
    }

    fn load_left(&mut self, pc: u32, accesses: u32, misses: u32, predicted: u16) {
        self.miss_inflight -= u32::from(predicted);
        self.load_retired(pc, accesses, misses);
    }
}

/// Warps (of the scheduler's members) that are locality warps: SM-wide GTO priority < FCW,
/// the priority counted over the warps actively scheduled (a warp at a barrier or exited
/// ranks after them in GPGPU-Sim's GTO order, so it holds no place among the FCW).
pub fn locality_warps(view: &SchedView<'_>) -> u64 {
    super::first_active(view.members, view.global_priority, view.waiting, view.fcw)
}

/// Declares an occlusion-aware scheduler: GTO over the warps that pass Eq. 5.1.
macro_rules! oaws_scheduler {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            gto: $crate::sim::core::sched::Gto,
        }

        impl $crate::sim::core::sched::WarpScheduler for $name {
            fn qualify(&mut self, candidates: u64, view: &$crate::sim::core::sched::SchedView<'_>) -> u64 {
                match view.learner.oaws() {
                    Some(o) => candidates & !o.disqualified(candidates & view.load_next, view.mshr_free),
                    None => candidates,
                }
            }

            fn hold_reason(&self) -> $crate::sim::core::stall::StallReason {
                $crate::sim::core::stall::StallReason::OcclusionHold
            }

            fn pick(
                &mut self,
                candidates: u64,
                view: &$crate::sim::core::sched::SchedView<'_>,
                try_issue: &mut dyn FnMut(usize) -> bool,
            ) -> Option<usize> {
                $crate::sim::core::sched::WarpScheduler::pick(&mut self.gto, candidates, view, try_issue)
            }
        }
    };
}
pub(crate) use oaws_scheduler;

#[cfg(test)]
mod tests {
    use super::*;

    fn state(mode: OawsMode) -> OawsState {
        let c = Config::default();
        OawsState::new(&c, mode)
    }

    #[test]
    fn classifier_tracks_divergent_loads_only_and_replaces_the_stalest() {
        let mut s = state(OawsMode::Dynamic);
        s.load_retired(0x10, 2, 2);
        assert!(s.dlc.find(0x10).is_none(), "two requests: coherent");
        s.load_retired(0x20, 32, 8);
        s.load_retired(0x20, 16, 8);
        let e = *s.dlc.find(0x20).unwrap();
        assert_eq!((e.inst, e.acc, e.miss), (2, 48, 16));
        let mut d = Dlc::new(2);
        d.record(1, 4, 0);
        d.record(2, 4, 0);
        d.record(1, 4, 0);
        d.record(3, 4, 0); // evicts PC 2, the least recently updated
        assert_eq!(d.entries.iter().map(|e| e.pc).collect::<Vec<_>>(), vec![1, 3]);
        // Saturation halves the counts, keeping the ratio.
        d.record(9, 1000, 500);
        d.record(9, 100, 50);
        let e = d.find(9).unwrap();
        assert_eq!((e.inst, e.acc, e.miss), (1, 550, 275));
    }

    #[test]
    fn static_prediction_is_div_times_smr() {
        let mut s = state(OawsMode::Static { smr_percent: 50 });
        assert_eq!(s.predict(0x20, 32, 5, 4), 0, "unknown PC: coherent, always qualifies");
        s.load_retired(0x20, 32, 32);
        assert_eq!(s.predict(0x20, 32, 5, 4), 16, "§5.3: 32 lanes at 50% = 16 MSHRs");
        assert_eq!(s.predict(0x20, 7, 5, 4), 4, "rounded up");
    }

    #[test]
    fn dynamic_prediction_of_eq_5_4() {
        let mut s = state(OawsMode::Dynamic);
        // HMR = 8 / 32 = 25%; FCW = 4.
        s.load_retired(0x20, 32, 8);
        assert_eq!(s.predict(0x20, 32, 0, 4), 8, "locality warp, gprio 0: 32 × 25% + 0");
        assert_eq!(s.predict(0x20, 32, 3, 4), 11, "locality warp, gprio 3: 8 + 3");
        assert_eq!(s.predict(0x20, 20, 4, 4), 20, "thrashing warp (gprio 4 ≥ FCW 4): 100%");
        assert_eq!(s.predict(0x20, 32, 4, 5), 12, "FCW grew to 5: gprio 4 is a locality warp");
        s.load_retired(0x40, 32, 32);
        assert_eq!(s.predict(0x40, 32, 3, 4), 32, "32 × 100% + 3, clamped to the 32-entry MSHR file");
    }

    #[test]
    fn qualification_is_eq_5_1() {
        let mut s = state(OawsMode::Static { smr_percent: 50 });
        s.load_retired(0x20, 32, 32);
        s.set_prediction(1, 16);
        s.set_prediction(2, 6);
        s.set_prediction(3, 0);
        s.miss_inflight = 10;
        // 20 free − 10 in flight = 10: warp 1 (16) fails, warp 2 (6) and warp 3 (coherent) pass.
        assert_eq!(s.allowance(20), 10);
        assert_eq!(s.disqualified(0b1110, 20), 0b0010);
        // In flight above what is free: only coherent loads pass.
        assert_eq!(s.disqualified(0b1110, 4), 0b0110);
        s.set_prediction(1, 0);
        assert_eq!(s.predicted, 0b0100);
    }
}
