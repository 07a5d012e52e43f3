//! DaCache, divergence-aware cache management (seed 004 ch. 4, MECHANISMS §8), on an LRU
//! chain whose position 0 is MRU.
//!
//! * **Gauged insertion** (§4.2.2, Eq. 4.1): a divergent load's lines go to position
//!   min(W_prio · N_sched · Width / N_set, Assoc − 1), W_prio being the issuing warp's GTO
//!   priority within its scheduler. Width is the warp size (the most accesses a divergent load
//!   makes; the seed's example uses 32 although its SIMD width is 16).
//! * Coherent loads (≤ 2 requests) go to MRU when the coherent-load profiler (CLP) has seen
//!   locality for their PC, else to LRU. Locality is detected on the oldest warp only (rank 0):
//!   lines its coherent loads bring in are marked; when such a line is evicted its
//!   ⟨PC, line⟩ enters a small victim cache, and a later miss of the same warp's coherent load
//!   on a ⟨PC, line⟩ found there marks the PC in the CLP (both FIFO-replaced).
//! * Divergent loads of at most `mru_requests` (5) requests go to MRU.
//! * **Incremental promotion**: a hit moves a line `promotion` (4) positions toward MRU.
//! * **Constrained replacement** (§4.2.3): the first `locality_ways` positions are the
//!   locality region, the rest the thrashing region, and only thrashing-region lines may be
//!   victims. Warps whose gauged position falls outside the locality region are thrashing warps
//!   and their divergent loads insert at LRU. With no victim the L1 stalls (replays) or
//!   bypasses; the L1 asks [`Replacement::bypasses`].
//! * **Partitioning**: static, p = Assoc · F / (Width / N_set) − 1 (locality ways p + 1); or
//!   dynamic (§4.2.4): the SM's FCW trainer (in the L1) counts fully cached warps and reports
//!   changes through [`Replacement::repartition`]; warps of SM-wide rank below FCW are locality
//!   warps and the locality region holds their lines: min(FCW · Width / N_set, Assoc − 1) ways.
//!
//! The locality region never takes the whole set: at least one way stays replaceable, or a
//! saturated FCW would forbid every replacement.

use super::Replacement;
use super::chain::Chains;
use crate::config::{Config, Constrained, Partition};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::line::Line;

/// The warp size: the most requests a divergent load makes ("Width" of Eq. 4.1).
const WARP_SIZE: usize = 32;

/// A ⟨PC, line⟩ pair of the victim cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Victim {
    pub pc: u32,
    pub key: u64,
}

/// A fixed-size FIFO of entries (victim cache and coherent-load profiler).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fifo<T> {
    pub entries: Vec<T>,
    capacity: usize,
    next: usize,
}

impl<T: Copy + PartialEq> Fifo<T> {
    fn new(capacity: usize) -> Fifo<T> {
        Fifo { entries: Vec::with_capacity(capacity), capacity, next: 0 }
    }

    fn push(&mut self, x: T) {
        if self.entries.len() < self.capacity {
            self.entries.push(x);
        } else {
            self.entries[self.next] = x;
            self.next = (self.next + 1) % self.capacity;
        }
    }

    fn contains(&self, x: &T) -> bool {
        self.entries.contains(x)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DaCache {
    chains: Chains,
    sets: usize,
    schedulers: usize,
    promotion: usize,
    mru_requests: u8,
    constrained: Constrained,
    /// Locality ways of a static partition; `None` = dynamic (from FCW).
    static_locality: Option<usize>,
    /// The SM's fully cached warps (dynamic partitioning).
    pub fcw: u32,
    /// Per line: brought in by a coherent load of the sampled (oldest) warp.
    sampled: Vec<bool>,
    pub victim_cache: Fifo<Victim>,
    /// PCs of coherent loads found to have locality.
    pub profiler: Fifo<u32>,
}

impl DaCache {
    pub fn new(sets: usize, ways: usize, c: &Config) -> DaCache {
        let d = &c.l1.dacache;
        let static_locality = match d.partition {
            Partition::Dynamic => None,
            // p + 1 = Assoc · F · N_set / Width, kept below Assoc.
            Partition::Static(f) => {
                Some(((ways * sets) as f64 * f / WARP_SIZE as f64).floor().min((ways - 1) as f64) as usize)
            }
        };
        DaCache {
            chains: Chains::new(sets, ways),
            sets,
            schedulers: c.core.warp_schedulers as usize,
            promotion: d.promotion as usize,
            mru_requests: d.mru_requests.min(255) as u8,
            constrained: d.constrained,
            static_locality,
            fcw: 0,
            sampled: vec![false; sets * ways],
            victim_cache: Fifo::new(d.victim_cache as usize),
            profiler: Fifo::new(d.profiler as usize),
        }
    }

    fn ways(&self) -> usize {
        self.chains.ways()
    }

    /// Eq. 4.1 without the Assoc − 1 cap.
    fn gauged(&self, prio: u8) -> usize {
        usize::from(prio) * self.schedulers * WARP_SIZE / self.sets
    }

    /// Whether the access's warp is a locality warp.
    pub fn is_locality_warp(&self, ctx: &AccessCtx) -> bool {
        match self.static_locality {
            Some(ways) => self.gauged(ctx.prio) < ways,
            None => u32::from(ctx.rank) < self.fcw,
        }
    }
}

impl Replacement for DaCache {
    fn touch(&mut self, set: usize, way: usize) {
        let pos = self.chains.position(set, way);
        self.chains.move_to(set, way, pos.saturating_sub(self.promotion));
    }

    fn insert(&mut self, set: usize, way: usize, key: u64, ctx: &AccessCtx, evicted: Option<&Line>) {
        let i = set * self.ways() + way;
        if let Some(old) = evicted
            && self.sampled[i]
        {
            self.victim_cache.push(Victim { pc: old.pc, key: old.key });
        }
        let sampled = ctx.coherent() && ctx.rank == 0;
        self.sampled[i] = sampled;
        if sampled
            && !self.profiler.contains(&ctx.pc)
            && self.victim_cache.contains(&Victim { pc: ctx.pc, key })
        {
            self.profiler.push(ctx.pc);
        }
        let pos = self.insertion_position(set, ctx);
        self.chains.move_to(set, way, pos);
    }

    fn victim(&self, set: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize> {
        let from = match self.constrained {
            Constrained::Off => 0,
            _ => self.locality_ways().unwrap_or(0),
        };
        self.chains.lru_victim(set, from, replaceable)
    }

    fn order(&self, set: usize) -> Vec<usize> {
        self.chains.order(set)
    }

    fn position(&self, set: usize, way: usize) -> usize {
        self.chains.position(set, way)
    }

    fn insertion_position(&self, _set: usize, ctx: &AccessCtx) -> usize {
        let lru = self.ways() - 1;
        if ctx.coherent() {
            if self.profiler.contains(&ctx.pc) { 0 } else { lru }
        } else if ctx.requests <= self.mru_requests {
            0
        } else if !self.is_locality_warp(ctx) {
            lru
        } else {
            self.gauged(ctx.prio).min(lru)
        }
    }

    fn locality_ways(&self) -> Option<usize> {
        let ways = self.static_locality.unwrap_or(self.fcw as usize * WARP_SIZE / self.sets);
        Some(ways.min(self.ways() - 1))
    }

    fn repartition(&mut self, fcw: u32) {
        self.fcw = fcw;
    }

    fn bypasses(&self) -> bool {
        self.constrained == Constrained::Bypass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's L1D: 32 sets × 8 ways, 2 schedulers, with `sets` overrides.
    fn dacache(sets: &[&str]) -> DaCache {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::default().with_sets(&sets).unwrap();
        DaCache::new(32, 8, &c)
    }

    /// A fully divergent access (32 requests) of a warp of GTO priority `prio` on scheduler
    /// `sched`.
    fn divergent(prio: u8, sched: u16) -> AccessCtx {
        AccessCtx { prio, rank: u16::from(prio) * 2 + sched, requests: 32, ..AccessCtx::default() }
    }

    /// `d` with `fcw` fully cached warps.
    fn with_fcw(mut d: DaCache, fcw: u32) -> DaCache {
        d.repartition(fcw);
        d
    }

    #[test]
    fn gauged_insertion_example_of_the_seed() {
        // §4.2.2: 2 schedulers, width 32, 32 sets: priorities 0 and 2 insert at 0 and 4.
        let mut d = with_fcw(dacache(&[]), 12); // all warps below are locality warps
        assert_eq!(d.insertion_position(0, &divergent(0, 0)), 0);
        assert_eq!(d.insertion_position(0, &divergent(2, 1)), 4);
        assert_eq!(d.insertion_position(0, &divergent(5, 0)), 7, "capped at Assoc − 1");
        d.insert(0, 7, 0x70, &divergent(2, 1), None);
        assert_eq!(d.order(0), vec![0, 1, 2, 3, 7, 4, 5, 6]);
        d.insert(0, 6, 0x60, &divergent(0, 0), None);
        assert_eq!(d.order(0), vec![6, 0, 1, 2, 3, 7, 4, 5]);
    }

    #[test]
    fn insertion_by_load_kind_and_warp_partition() {
        let d = with_fcw(dacache(&[]), 4);
        // FCW 4: ranks 0..3 (priorities 0 and 1 on both schedulers) are locality warps.
        assert_eq!(d.insertion_position(0, &divergent(1, 1)), 2, "rank 3: gauged");
        assert_eq!(d.insertion_position(0, &divergent(2, 0)), 7, "rank 4: thrashing warp, LRU");
        let few = AccessCtx { requests: 5, ..divergent(9, 0) };
        assert_eq!(d.insertion_position(0, &few), 0, "divergent loads of ≤ 5 requests go to MRU");
        let coherent = AccessCtx { requests: 2, ..divergent(0, 0) };
        assert_eq!(d.insertion_position(0, &coherent), 7, "coherent without profiled locality: LRU");
        // Static F = 0.5: p = 8 · 0.5 / (32 / 32) − 1 = 3, locality region 4 ways.
        let s = with_fcw(dacache(&["l1.dacache.partition=Static(0.5)"]), 40);
        assert_eq!(s.locality_ways(), Some(4), "FCW does not move a static partition");
        assert_eq!(s.insertion_position(0, &divergent(1, 1)), 2, "priority 1: way 2 ≤ p");
        assert_eq!(s.insertion_position(0, &divergent(2, 0)), 7, "priority 2: way 4 > p, thrashing");
        let s0 = dacache(&["l1.dacache.partition=Static(0.0)"]);
        assert_eq!(s0.insertion_position(0, &divergent(0, 0)), 7, "Static0: every divergent load at LRU");
    }

    #[test]
    fn promotion_moves_n_positions_toward_mru() {
        let mut d = dacache(&[]);
        // Chain 0..7; way 6 sits at position 6.
        d.touch(0, 6);
        assert_eq!(d.chains.position(0, 6), 2, "promoted by 4");
        d.touch(0, 6);
        assert_eq!(d.chains.position(0, 6), 0, "stops at MRU");
        let mut two = dacache(&["l1.dacache.promotion=2"]);
        two.touch(0, 5);
        assert_eq!(two.order(0), vec![0, 1, 2, 5, 3, 4, 6, 7]);
        let mut mru = dacache(&["l1.dacache.promotion=8"]);
        mru.touch(0, 7);
        assert_eq!(mru.order(0)[0], 7, "promotion ≥ ways is Promo-MRU");
    }

    #[test]
    fn constrained_victims_come_from_the_thrashing_region_only() {
        let mut d = with_fcw(dacache(&[]), 4);
        // FCW 4: positions 0..3 are the locality region; the LRU-most replaceable way at
        // position 4 or beyond is the victim.
        assert_eq!(d.locality_ways(), Some(4));
        assert_eq!(d.victim(0, &|_| true), Some(7));
        assert_eq!(d.victim(0, &|w| w < 5), Some(4));
        assert_eq!(d.victim(0, &|w| w < 4), None, "only locality lines replaceable: none");
        // The region follows FCW (here 6 fully cached warps: 6 ways) but never takes the set.
        d.repartition(6);
        assert_eq!(d.victim(0, &|w| w < 6), None);
        d.repartition(48);
        assert_eq!(d.locality_ways(), Some(7));
        assert_eq!(d.victim(0, &|_| true), Some(7));
        // Unconstrained (DaCache-Uncon) picks the LRU-most replaceable anywhere.
        let u = with_fcw(dacache(&["l1.dacache.constrained=off"]), 4);
        assert_eq!(u.victim(0, &|w| w < 4), Some(3));
        assert!(d.bypasses() && !u.bypasses());
    }

    #[test]
    fn victim_cache_teaches_the_profiler_coherent_locality() {
        let mut d = with_fcw(dacache(&[]), 4);
        let oldest = AccessCtx { pc: 0x40, requests: 1, rank: 0, ..AccessCtx::default() };
        assert_eq!(d.insertion_position(0, &oldest), 7, "unknown PC: LRU");
        // The oldest warp's coherent load brings line 0x99 into way 7...
        d.insert(0, 7, 0x99, &oldest, None);
        // ...a divergent load evicts it: ⟨0x40, 0x99⟩ enters the victim cache.
        let old =
            Line { key: 0x99, pc: 0x40, state: crate::sim::cache::line::LineState::Valid, ..Line::default() };
        d.insert(0, 7, 0x123, &divergent(0, 0), Some(&old));
        assert_eq!(d.victim_cache.entries, vec![Victim { pc: 0x40, key: 0x99 }]);
        // A younger warp missing on it teaches nothing (only the oldest warp is sampled).
        let young = AccessCtx { rank: 3, ..oldest };
        d.insert(0, 6, 0x99, &young, None);
        assert!(d.profiler.entries.is_empty());
        // The oldest warp missing on it again: locality, and the PC's lines now go to MRU.
        d.insert(0, 5, 0x99, &oldest, None);
        assert_eq!(d.profiler.entries, vec![0x40]);
        assert_eq!(d.insertion_position(0, &oldest), 0);
        assert_eq!(d.insertion_position(0, &young), 0, "the profiler is per PC, every warp uses it");
        assert_eq!(d.order(0)[0], 5);
    }

    #[test]
    fn fifos_replace_the_oldest_entry() {
        let mut f = Fifo::new(2);
        f.push(1);
        f.push(2);
        f.push(3);
        assert_eq!(f.entries, vec![3, 2]);
        f.push(4);
        assert_eq!(f.entries, vec![3, 4]);
        assert!(f.contains(&4) && !f.contains(&1));
    }
}
