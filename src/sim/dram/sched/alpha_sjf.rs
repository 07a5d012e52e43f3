//! α-SJF and α-SJFW (seed 001 §II–V; MECHANISMS §4): scheduling that minimises the
//! potential r(t) = Σ q_i(t)^α / ftol(core), one queue per warp in each bank.
//!
//! Each bank chooses on its own, from its pending requests:
//! 1. **Tolerance-aware core selection**: the core with the least tolerance among those with
//!    requests here. ftol(c) = ready warps × w_c, and, as in the paper, ready warps are
//!    approximated by the warps assigned to the core (the SMs report it when it changes; see
//!    `Gpu::report_core_warps`); w_c is a constant. Ties go to the core with the oldest request.
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

#[derive(Clone, Debug, PartialEq)]
pub struct AlphaSjf {
    pub alpha: f64,
    /// m, the row-miss / row-hit service-time ratio (seed 001 §II-A).
    pub m: f64,
    /// k = m^(1/(1−α)); infinite for α = 1.
    pub k: f64,
    /// α-SJFW: reads and writes together, writes in their causing warp's queue.
    pub with_writes: bool,
    /// Warps assigned to each core (its tolerance, up to the constant w_c).
    pub core_warps: Vec<u16>,
    /// Per bank: the (core, warp) queue being served while it has row hits.
    pub sticky: Vec<Option<(u16, u16)>>,
    /// Per bank: its current choice (valid unless its bit in `dirty` is set).
    pub choice: Vec<Option<Slot>>,
    /// Per bank: how its current choice was made.
    contest: Vec<Contest>,
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
            core_warps: vec![0; c.core.count as usize],
            sticky: vec![None; banks],
            choice: vec![None; banks],
            contest: vec![Contest::None; banks],
            stats: SchedulerStats::default(),
            dirty: u64::MAX,
            draining: false,
        }
    }

    /// The bank's choice under the rules of the module doc, and how it was made.
    fn choose(&mut self, ctx: &SchedCtx<'_>, bank: usize) -> Option<Slot> {
        self.contest[bank] = Contest::None;
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
        let core = all().min_by_key(|l| (tolerance(origin(l).0), l.seq)).map(|l| origin(l).0)?;
        // Per-warp queue lengths, hits and oldest requests of that core in this bank.
        let mut len = [0u32; MAX_WARPS];
        let mut oldest = [(u64::MAX, 0 as Slot); MAX_WARPS];
        let mut oldest_hit = [(u64::MAX, 0 as Slot); MAX_WARPS];
        for l in all() {
            let (c, w) = origin(l);
            if c != core {
                continue;
            }
            let w = w as usize % MAX_WARPS;
            len[w] += 1;
            oldest[w] = oldest[w].min((l.seq, l.slot));
            if Some(l.row) == open {
                oldest_hit[w] = oldest_hit[w].min((l.seq, l.slot));
            }
        }
        let shortest = |with_hit: bool| {
            (0..MAX_WARPS)
                .filter(|&w| len[w] > 0 && (oldest_hit[w].0 != u64::MAX) == with_hit)
                .min_by_key(|&w| (len[w], oldest[w].0))
        };
        let (hs, ms) = (shortest(true), shortest(false));
        if let (Some(h), Some(m)) = (hs, ms) {
            let (h, m) = (f64::from(len[h]), f64::from(len[m]));
            self.contest[bank] = Contest::HitOrMiss { above_m: h > self.m * m, sjf: h > self.k * m };
        }
        match (hs, ms) {
            (Some(_), Some(m)) if matches!(self.contest[bank], Contest::HitOrMiss { sjf: true, .. }) => {
                Some(oldest[m].1)
            }
            (Some(h), _) => {
                self.sticky[bank] = Some((core, h as u16));
                Some(oldest_hit[h].1)
            }
            (None, Some(m)) => Some(oldest[m].1),
            (None, None) => None,
        }
    }
}

/// How a bank's choice was made (seed 001 §IV).
#[derive(Clone, Copy, Debug, PartialEq)]
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
        if self.choice[bank] == Some(slot)
            && let Contest::HitOrMiss { above_m, sjf } = self.contest[bank]
        {
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
