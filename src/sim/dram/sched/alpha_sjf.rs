//! α-SJF and α-SJFW (seed 001 §II–V; MECHANISMS §4): scheduling that minimises the
//! potential r(t) = Σ q_i(t)^α / ftol(core), one queue per warp in each bank.
//!
//! Each bank chooses on its own, from its pending requests:
//! 1. **Tolerance-aware core selection**: the core with the least tolerance among those with
//!    requests here. ftol(c) = ready warps × w_c, and, as in the paper, ready warps are
//!    approximated by the warps assigned to the core (the SMs report it when it changes; see
//!    `Gpu::report_core_warps`); w_c is a constant. Ties go to the core with the oldest request.
//!    With `dram.alpha_sjf.core_selection = false` this step is skipped and step 2 chooses
//!    among every core's warp queues (seed 001 §V: "If α-SJF is implemented without the
//!    core-selection step, then it produces the same results as FR-FCFS for α = 1.0"); a cause
//!    check, since the step passes over other cores' row hits whenever the least tolerant
//!    core has none (seed 000's KMeans: see `core_selection_passes_over_other_cores_hits`).
//! 2. **Queue selection** among that core's warps: Hs = the shortest queue with a row hit,
//!    Ms = the shortest without; with k = m^(1/(1−α)) precomputed, Ms is chosen when
//!    len(Hs) > k · len(Ms), else Hs (its oldest hit). A chosen hit queue is kept while it has
//!    row hits. α → 0 favours shortest-job-first, α = 1 (k = ∞) is FR-FCFS within the core.
//!
//! Among the banks' choices whose next command can issue, column commands go first, then the
//! oldest. α-SJF serves writes only when no read is pending; α-SJFW schedules reads and writes
//! together and counts a write-back in the queue of the warp whose miss evicted it (the L2
//! gives the write-back that warp's origin).
//!
//! Each command issued counts how its bank's choice was made (`SchedulerStats::sjf_*`): a
//! contest between Hs and Ms, whether len(Hs) > m · len(Ms) (the only contests some α < 1
//! decides for Ms, since k = m^(1/(1−α)) > m), and whether this α chose Ms. With no contest
//! above m, every α ∈ (0, 1) makes the same choices.

use super::{DramScheduler, SchedCtx, SchedulerStats, WritePolicy};
use crate::config::Config;
use crate::sim::dram::command::Command;
use crate::sim::dram::queues::{Listed, Pending, Queues, Slot};
use crate::sim::event::EventSink;

/// Warp slots per SM the per-warp counters can track (config validation bounds warps per SM).
const MAX_WARPS: usize = 64;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AlphaSjf {
    pub alpha: f64,
    /// m, the row-miss / row-hit service-time ratio (seed 001 §II-A).
    pub m: f64,
    /// k = m^(1/(1−α)); infinite for α = 1.
    pub k: f64,
    /// α-SJFW: reads and writes together, writes in their causing warp's queue.
    pub with_writes: bool,
    /// Tolerance-aware core selection first (seed 001 §III); otherwise every core's queues.
    pub core_selection: bool,
    /// Warps assigned to each core (its tolerance, up to the constant w_c).
    pub core_warps: Vec<u16>,
    /// Per bank: the (core, warp) queue being served while it has row hits.
    pub sticky: Vec<Option<(u16, u16)>>,
    /// Per bank: its current choice (valid unless its bit in `dirty` is set).
    pub choice: Vec<Option<Slot>>,
    /// Per bank: how its current choice was made.
    contest: Vec<Contest>,
    /// Per bank: its current choice is the selected core's row miss while another core has a
    /// hit to the open row.
    passed_over: Vec<bool>,
    /// Scratch per (core, warp) queue, indexed core · MAX_WARPS + warp, all empty between
    /// choices, and the entries a choice touched.
    warp_queues: Vec<WarpQueue>,
    touched: Vec<usize>,
    pub stats: SchedulerStats,
    dirty: u64,
    /// The direction the choices were made for.
    draining: bool,
}

impl AlphaSjf {
    pub fn new(c: &Config, with_writes: bool) -> AlphaSjf {
        let a = &c.dram.alpha_sjf;
        let banks = c.dram.banks as usize;
        AlphaSjf {
            alpha: a.alpha,
            m: a.miss_penalty,
            k: k_threshold(a.miss_penalty, a.alpha),
            with_writes,
            core_selection: a.core_selection,
            core_warps: vec![0; c.core.count as usize],
            sticky: vec![None; banks],
            choice: vec![None; banks],
            contest: vec![Contest::None; banks],
            passed_over: vec![false; banks],
            warp_queues: vec![WarpQueue::EMPTY; c.core.count.max(1) as usize * MAX_WARPS],
            touched: Vec::new(),
            stats: SchedulerStats::default(),
            dirty: u64::MAX,
            draining: false,
        }
    }

    /// The bank's choice under the rules of the module doc, and how it was made.
    fn choose(&mut self, ctx: &SchedCtx<'_>, bank: usize) -> Option<Slot> {
        self.contest[bank] = Contest::None;
        self.passed_over[bank] = false;
        let q = ctx.queues;
        let (first, second): (&[Listed], &[Listed]) =
            if self.with_writes { (&q.reads[bank], &q.writes[bank]) } else { (&ctx.lists()[bank], &[]) };
        let all = || first.iter().chain(second.iter());
        let open = ctx.device.banks[bank].open_row;
        let origin = |l: &Listed| {
            let o = &q.get(l.slot).req.origin;
            (o.core, o.warp)
        };
        // A hit queue keeps the bank while it has hits.
        if let Some(w) = self.sticky[bank] {
            if let Some(hit) = all().filter(|l| Some(l.row) == open && origin(l) == w).min_by_key(|l| l.seq) {
                return Some(hit.slot);
            }
            self.sticky[bank] = None;
        }
        let tolerance = |core: u16| self.core_warps.get(core as usize).copied().unwrap_or(0);
        let core = if self.core_selection {
            Some(all().min_by_key(|l| (tolerance(origin(l).0), l.seq)).map(|l| origin(l).0)?)
        } else {
            None
        };
        // Per-warp queue lengths, hits and oldest requests (of that core) in this bank.
        let mut queues = std::mem::take(&mut self.warp_queues);
        let cores = queues.len() / MAX_WARPS;
        for l in all() {
            let (c, w) = origin(l);
            if core.is_some_and(|core| core != c) {
                continue;
            }
            let i = c as usize % cores * MAX_WARPS + w as usize % MAX_WARPS;
            let wq = &mut queues[i];
            if wq.len == 0 {
                self.touched.push(i);
            }
            wq.len += 1;
            wq.oldest = wq.oldest.min((l.seq, l.slot));
            if Some(l.row) == open {
                wq.oldest_hit = wq.oldest_hit.min((l.seq, l.slot));
            }
        }
        let shortest = |with_hit: bool| {
            self.touched
                .iter()
                .copied()
                .filter(|&i| queues[i].has_hit() == with_hit)
                .min_by_key(|&i| (queues[i].len, queues[i].oldest.0))
        };
        let (hs, ms) = (shortest(true), shortest(false));
        if let (Some(h), Some(m)) = (hs, ms) {
            let (h, m) = (f64::from(queues[h].len), f64::from(queues[m].len));
            self.contest[bank] = Contest::HitOrMiss { above_m: h > self.m * m, sjf: h > self.k * m };
        }
        let choice = match (hs, ms) {
            (Some(_), Some(m)) if matches!(self.contest[bank], Contest::HitOrMiss { sjf: true, .. }) => {
                Some(queues[m].oldest.1)
            }
            (Some(h), _) => {
                self.sticky[bank] = Some(((h / MAX_WARPS) as u16, (h % MAX_WARPS) as u16));
                Some(queues[h].oldest_hit.1)
            }
            (None, Some(m)) => {
                self.passed_over[bank] = core.is_some() && open.is_some_and(|r| all().any(|l| l.row == r));
                Some(queues[m].oldest.1)
            }
            (None, None) => None,
        };
        for i in self.touched.drain(..) {
            queues[i] = WarpQueue::EMPTY;
        }
        self.warp_queues = queues;
        choice
    }
}

/// One warp's queue in a bank while a choice is made.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct WarpQueue {
    len: u32,
    /// (seq, slot) of its oldest request, and of its oldest row hit (`u64::MAX`: none).
    oldest: (u64, Slot),
    oldest_hit: (u64, Slot),
}

impl WarpQueue {
    const EMPTY: WarpQueue = WarpQueue { len: 0, oldest: (u64::MAX, 0), oldest_hit: (u64::MAX, 0) };

    fn has_hit(&self) -> bool {
        self.oldest_hit.0 != u64::MAX
    }
}

/// How a bank's choice was made (seed 001 §IV).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Contest {
    /// No contest: a kept hit queue, or queues of one kind only.
    None,
    /// Hs against Ms: `above_m` when len(Hs) > m · len(Ms), `sjf` when len(Hs) > k · len(Ms)
    /// (Ms chosen).
    HitOrMiss { above_m: bool, sjf: bool },
}

/// k = m^(1/(1−α)): choose the shortest missing queue when the shortest hitting one is more
/// than k times longer (seed 001 §IV). α = 1 never does.
pub fn k_threshold(m: f64, alpha: f64) -> f64 {
    if alpha >= 1.0 { f64::INFINITY } else { m.powf(1.0 / (1.0 - alpha)) }
}

impl DramScheduler for AlphaSjf {
    fn on_arrival(&mut self, slot: Slot, queues: &Queues) {
        self.dirty |= 1 << queues.get(slot).bank;
    }

    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        if ctx.draining != self.draining {
            self.draining = ctx.draining;
            self.dirty = u64::MAX;
        }
        let mut best: Option<(bool, u64, Slot)> = None;
        for bank in 0..self.choice.len() {
            if self.dirty & (1 << bank) != 0 {
                self.choice[bank] = self.choose(ctx, bank);
                self.dirty &= !(1 << bank);
            }
            let Some(slot) = self.choice[bank] else { continue };
            if !ctx.ready(slot) {
                continue;
            }
            let cas = ctx.next_command(slot).kind.is_cas();
            let seq = ctx.queues.get(slot).seq;
            if best.is_none_or(|(bc, bs, _)| (cas, std::cmp::Reverse(seq)) > (bc, std::cmp::Reverse(bs))) {
                best = Some((cas, seq, slot));
            }
        }
        best.map(|(_, _, s)| s)
    }

    fn on_issue(&mut self, slot: Slot, cmd: &Command, _: &Queues) {
        let bank = cmd.bank as usize;
        self.dirty |= 1 << bank;
        if self.choice[bank] != Some(slot) {
            return;
        }
        self.stats.sjf_hits_passed_over += u64::from(self.passed_over[bank]);
        if let Contest::HitOrMiss { above_m, sjf } = self.contest[bank] {
            self.stats.sjf_contests += 1;
            self.stats.sjf_contests_above_m += u64::from(above_m);
            self.stats.sjf_misses_chosen += u64::from(sjf);
        }
    }

    fn on_refresh(&mut self) {
        self.dirty = u64::MAX;
    }

    fn on_retire(&mut self, _: Slot, p: &Pending) {
        self.dirty |= 1 << p.bank;
    }

    fn stats(&self) -> SchedulerStats {
        self.stats
    }

    fn write_policy(&self) -> WritePolicy {
        if self.with_writes { WritePolicy::Mixed } else { WritePolicy::AfterReads }
    }

    fn on_core_warps(&mut self, core: u16, warps: u16) {
        if let Some(w) = self.core_warps.get_mut(core as usize) {
            *w = warps;
            self.dirty = u64::MAX;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::testkit::Kit;

    /// Core 0's warp 1 has one hit to bank 0's open row and `misses` misses; warp 2 one miss:
    /// the kit, the scheduler, warp 1's hit and warp 2's miss.
    fn queues(alpha: &str, misses: u32) -> (Kit, AlphaSjf, Slot, Slot) {
        let mut k = Kit::new(&["dram.scheduler=asjf", &format!("dram.alpha_sjf.alpha={alpha}")]);
        let mut s = AlphaSjf::new(&k.config, false);
        k.open(0, 5);
        let hit = k.request(&mut s, 0, 5, (0, 1, 0), false, false);
        for r in 0..misses {
            k.request(&mut s, 0, 10 + r, (0, 1, 0), false, false);
        }
        let other = k.request(&mut s, 0, 7, (0, 2, 0), false, false);
        (k, s, hit, other)
    }

    /// The request chosen from [`queues`], with the hit and the miss.
    fn choice(alpha: &str, misses: u32) -> (Slot, Slot, Slot) {
        let (mut k, mut s, hit, other) = queues(alpha, misses);
        (k.select(&mut s).0.unwrap(), hit, other)
    }

    #[test]
    fn k_threshold_decides_between_the_shortest_hit_and_miss_queues() {
        assert_eq!(k_threshold(3.0, 0.5), 9.0);
        assert!((k_threshold(3.0, 0.25) - 4.3267).abs() < 1e-3);
        assert_eq!(k_threshold(3.0, 1.0), f64::INFINITY);
        // α = 0.5: Hs of length 9 is not more than 9 × 1: the hit.
        let (c, hit, _) = choice("0.5", 8);
        assert_eq!(c, hit);
        // Length 10 is: the short missing queue.
        let (c, _, other) = choice("0.5", 9);
        assert_eq!(c, other);
        // α = 1 is FR-FCFS-like: the hit, however long its queue.
        let (c, hit, _) = choice("1.0", 40);
        assert_eq!(c, hit);
    }

    /// Seed 001 §IV with m = 3: Hs of 5 requests against Ms of 1 is a contest above m
    /// (5 > 3 · 1); α = 0.25 (k = 4.33) serves Ms, α = 0.5 (k = 9) Hs. Hs of 3 is not above m:
    /// every α serves Hs. The command issued for the choice counts its contest.
    #[test]
    fn contests_above_m_are_the_only_ones_alpha_decides() {
        for (alpha, misses, sjf) in [("0.25", 4, true), ("0.5", 4, false), ("0.25", 2, false)] {
            let (mut k, mut s, hit, other) = queues(alpha, misses);
            let chosen = k.select(&mut s).0.unwrap();
            assert_eq!(chosen, if sjf { other } else { hit }, "α = {alpha}, Hs of {}", misses + 1);
            issue(&mut k, &mut s, chosen);
            let above_m = misses + 1 > 3;
            assert_eq!(
                (s.stats.sjf_contests, s.stats.sjf_contests_above_m, s.stats.sjf_misses_chosen),
                (1, u64::from(above_m), u64::from(sjf)),
                "α = {alpha}, Hs of {}",
                misses + 1
            );
        }
        // A command for a kept hit queue was not a contest.
        let mut k = Kit::new(&["dram.scheduler=asjf"]);
        let mut s = AlphaSjf::new(&k.config, false);
        k.open(0, 5);
        let first = k.request(&mut s, 0, 5, (0, 1, 0), false, false);
        let second = k.request(&mut s, 0, 5, (0, 1, 0), false, false);
        k.request(&mut s, 0, 7, (0, 2, 0), false, false);
        assert_eq!(k.select(&mut s).0, Some(first));
        issue(&mut k, &mut s, first);
        k.retire(&mut s, first);
        assert_eq!(k.select(&mut s).0, Some(second));
        issue(&mut k, &mut s, second);
        assert_eq!(s.stats.sjf_contests, 1);
    }

    /// Tells the scheduler that the chosen request's next command issued.
    fn issue(k: &mut Kit, s: &mut AlphaSjf, slot: Slot) {
        let cmd = k.ctx().0.next_command(slot);
        s.on_issue(slot, &cmd, &k.queues);
    }

    /// Seed 001 §III: "the scheduler can first choose the core with least tolerance, core C,
    /// and then select a request from core C". Core 0 (4 warps) has a row miss in bank 0, core
    /// 1 (8 warps) an older hit to its open row: α-SJF serves core 0's miss and closes the row
    /// core 1 hits; without the core-selection step (§V's variant, a cause check) Hs (core 1's
    /// queue of 1) against Ms (core 0's queue of 1) is the hit. On seed 000's KMeans the 11
    /// empty CTAs of the square grid leave SMs 20-29 with 24 warps and the others with 32 for
    /// the whole run, so every bank serves those ten SMs first.
    #[test]
    fn core_selection_passes_over_other_cores_hits() {
        for (select, hit_chosen) in [("true", false), ("false", true)] {
            let mut k =
                Kit::new(&["dram.scheduler=asjf", &format!("dram.alpha_sjf.core_selection={select}")]);
            let mut s = AlphaSjf::new(&k.config, false);
            s.on_core_warps(0, 4);
            s.on_core_warps(1, 8);
            k.open(0, 5);
            let hit = k.request(&mut s, 0, 5, (1, 3, 0), false, false);
            let miss = k.request(&mut s, 0, 6, (0, 1, 0), false, false);
            let chosen = k.select(&mut s).0;
            assert_eq!(chosen, Some(if hit_chosen { hit } else { miss }), "core_selection = {select}");
            issue(&mut k, &mut s, chosen.unwrap());
            assert_eq!(
                s.stats.sjf_hits_passed_over,
                u64::from(!hit_chosen),
                "the PRE over core 1's hit counts"
            );
        }
    }

    /// Without core selection, queue lengths are compared across cores: on a closed bank,
    /// core 1's queue of one goes before core 0's older queue of two (shortest job first);
    /// with it, tied tolerances go to the core with the oldest request, core 0. A hit queue of
    /// a warp of any core keeps the bank while it has hits.
    #[test]
    fn without_core_selection_the_shortest_queue_of_any_core() {
        for (select, first_core) in [("true", 0), ("false", 1)] {
            let mut k =
                Kit::new(&["dram.scheduler=asjf", &format!("dram.alpha_sjf.core_selection={select}")]);
            let mut s = AlphaSjf::new(&k.config, false);
            s.on_core_warps(0, 8);
            s.on_core_warps(1, 8);
            let a = k.request(&mut s, 0, 5, (0, 1, 0), false, false);
            k.request(&mut s, 0, 6, (0, 1, 1), false, false);
            let b = k.request(&mut s, 0, 7, (1, 2, 0), false, false);
            let chosen = k.select(&mut s).0;
            assert_eq!(chosen, Some(if first_core == 0 { a } else { b }), "core_selection = {select}");
        }
        let mut k = Kit::new(&["dram.scheduler=asjf", "dram.alpha_sjf.core_selection=false"]);
        let mut s = AlphaSjf::new(&k.config, false);
        k.open(0, 5);
        let first = k.request(&mut s, 0, 5, (2, 1, 0), false, false);
        k.request(&mut s, 0, 5, (0, 4, 0), false, false);
        assert_eq!(k.select(&mut s).0, Some(first), "queues of one: the older");
        issue(&mut k, &mut s, first);
        let second = k.request(&mut s, 0, 5, (2, 1, 1), false, false);
        k.retire(&mut s, first);
        assert_eq!(
            k.select(&mut s).0,
            Some(second),
            "core 2's warp 1 keeps the bank against core 0's older hit"
        );
    }

    #[test]
    fn least_tolerant_core_first_and_a_hit_queue_keeps_the_bank() {
        let mut k = Kit::new(&["dram.scheduler=asjf"]);
        let mut s = AlphaSjf::new(&k.config, false);
        s.on_core_warps(0, 8);
        s.on_core_warps(1, 4);
        k.open(0, 5);
        let hit0 = k.request(&mut s, 0, 5, (0, 1, 0), false, false);
        let miss1 = k.request(&mut s, 0, 6, (1, 3, 0), false, false);
        assert_eq!(k.select(&mut s).0, Some(miss1), "core 1 has fewer warps: less tolerance");
        s.on_core_warps(1, 16);
        assert_eq!(k.select(&mut s).0, Some(hit0));
        // Warp 1's hit queue keeps the bank while it has hits, even against a shorter one.
        let hit0b = k.request(&mut s, 0, 5, (0, 1, 1), false, false);
        k.request(&mut s, 0, 5, (0, 4, 0), false, false);
        k.retire(&mut s, hit0);
        assert_eq!(k.select(&mut s).0, Some(hit0b));
    }
}
