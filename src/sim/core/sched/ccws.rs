//! Cache-conscious wavefront scheduling (Rogers et al., MICRO'12; a comparator in seed 004
//! §5.5.1 with Table 5.3's parameters: a 16-entry 8-way victim tag array per warp, base score
//! 100, K_THROTTLE 8).
//!
//! Lost-locality detection: every line the L1 evicts leaves its tag in the victim tag array
//! (VTA) of the warp that brought it in. When a warp's load later misses on a line whose tag
//! is still in its own VTA, that warp lost intra-warp locality to cache contention: its
//! lost-locality score (LLS) rises by K_THROTTLE × cutoff × (VTA hits / instructions issued)
//! — more the more often the SM loses locality — and decays by one point per cycle back to
//! the base score.
//!
//! Scheduling: the cutoff is (resident warps of the scheduler) × base score. Warps are stacked
//! by score, highest first (ties: oldest first); those whose running sum stays within the
//! cutoff may issue loads, and so does the first of the stack when its score alone is above
//! the cutoff ("the warp that has the largest locality loss is exclusively prioritized",
//! §5.5.1); the others are throttled — they can still issue ALU instructions and stores. With every score at the base, everyone fits; a warp that keeps losing locality
//! pushes the lowest-scored warps out. With `core.ccws.access = "exclusive"` (§5.5.2's account)
//! only the first of the stack may issue loads while the scores stack above the cutoff.
//! Prioritization among issuable warps is GTO, or with `core.ccws.priority = "lost-locality"`
//! the highest-scored warp first (§5.5.3's reading).

use super::{Gto, MemoryFeedback, SchedView, WarpScheduler, bits};
use crate::config::{CcwsAccess, CcwsConfig, CcwsPriority};
use crate::sim::request::CacheOutcome;

/// Per-warp victim tag arrays: `sets` × `ways` tags per warp slot, most recent first in each
/// set (LRU replacement). A stored value is line key + 1 (0 = empty).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VictimTags {
    pub sets: usize,
    pub ways: usize,
    tags: Vec<u64>,
}

impl VictimTags {
    pub fn new(warps: usize, entries: usize, ways: usize) -> VictimTags {
        VictimTags { sets: entries / ways, ways, tags: vec![0; warps * entries] }
    }

    fn set(&mut self, w: usize, key: u64) -> &mut [u64] {
        let per_warp = self.sets * self.ways;
        let base = w * per_warp + (key % self.sets as u64) as usize * self.ways;
        &mut self.tags[base..base + self.ways]
    }

    /// Records an evicted line of warp `w` (most recent first; the LRU tag falls out).
    pub fn insert(&mut self, w: usize, key: u64) {
        let set = self.set(w, key);
        let end = set.iter().position(|&t| t == key + 1).unwrap_or(set.len() - 1);
        set.copy_within(0..end, 1);
        set[0] = key + 1;
    }

    /// Whether warp `w`'s VTA holds `key`; a hit removes it (the line is being fetched again).
    pub fn take(&mut self, w: usize, key: u64) -> bool {
        let set = self.set(w, key);
        let Some(i) = set.iter().position(|&t| t == key + 1) else { return false };
        set.copy_within(i + 1.., i);
        let last = set.len() - 1;
        set[last] = 0;
        true
    }

    /// The tags held for warp `w` (line keys), for views.
    pub fn of(&self, w: usize) -> impl Iterator<Item = u64> + '_ {
        let per_warp = self.sets * self.ways;
        self.tags[w * per_warp..(w + 1) * per_warp].iter().filter(|&&t| t != 0).map(|&t| t - 1)
    }

    /// Forgets warp `w`'s tags (its slot got a new warp).
    pub fn clear(&mut self, w: usize) {
        let per_warp = self.sets * self.ways;
        self.tags[w * per_warp..(w + 1) * per_warp].fill(0);
    }
}

/// The SM-wide CCWS state: VTAs and lost-locality scores, fed by the L1.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LostLocality {
    pub vta: VictimTags,
    pub base_score: u32,
    pub k_throttle: u32,
    /// Score of each warp slot as of `stamp` (it decays one point per cycle since).
    score: Vec<u32>,
    stamp: Vec<u64>,
    /// VTA hits on this SM so far.
    pub vta_hits: u64,
    /// From this cycle on every score is back at the base.
    pub calm_from: u64,
}

impl LostLocality {
    pub fn new(c: &CcwsConfig, warps: usize) -> LostLocality {
        LostLocality {
            vta: VictimTags::new(warps, c.vta_entries as usize, c.vta_ways as usize),
            base_score: c.base_score,
            k_throttle: c.k_throttle,
            score: vec![c.base_score; warps],
            stamp: vec![0; warps],
            vta_hits: 0,
            calm_from: 0,
        }
    }

    /// Warp `w`'s lost-locality score at cycle `now`.
    pub fn score(&self, w: usize, now: u64) -> u32 {
        let decayed = now.saturating_sub(self.stamp[w]).min(u64::from(u32::MAX)) as u32;
        self.score[w].saturating_sub(decayed).max(self.base_score)
    }

    /// A new warp took slot `w`.
    pub fn reset_warp(&mut self, w: usize) {
        self.vta.clear(w);
        self.score[w] = self.base_score;
        self.stamp[w] = 0;
    }

    /// The L1 evicted line `key`, brought in by warp `owner`.
    pub fn evicted(&mut self, owner: usize, key: u64) {
        if owner < self.score.len() {
            self.vta.insert(owner, key);
        }
    }

    /// Warp `w`'s load missed on `key`. On a VTA hit the warp's score rises (see the module
    /// doc; `instructions` is the SM's instruction count, `warps` its resident warps) and the
    /// new score is returned.
    pub fn missed(&mut self, w: usize, key: u64, now: u64, instructions: u64, warps: u32) -> Option<u32> {
        if !self.vta.take(w, key) {
            return None;
        }
        self.vta_hits += 1;
        let cutoff = u64::from(warps) * u64::from(self.base_score);
        let gain = u64::from(self.k_throttle) * cutoff * self.vta_hits / instructions.max(1);
        let s = (u64::from(self.score(w, now)) + gain).min(u64::from(u32::MAX / 2)) as u32;
        self.score[w] = s;
        self.stamp[w] = now;
        self.calm_from = self.calm_from.max(now + u64::from(s - self.base_score));
        Some(s)
    }
}

/// What CCWS learns: the L1's victims go to their warps' VTAs, and a miss that finds its
/// line in the warp's own VTA raises the warp's score; a new warp in a slot starts afresh.
impl MemoryFeedback for LostLocality {
    fn watches_l1(&self) -> bool {
        true
    }

    fn warp_launched(&mut self, w: usize) {
        self.reset_warp(w);
    }

    fn evicted(&mut self, owner: usize, key: u64) {
        LostLocality::evicted(self, owner, key);
    }

    fn accessed(
        &mut self,
        w: usize,
        key: u64,
        outcome: CacheOutcome,
        now: u64,
        instructions: u64,
        warps: u32,
    ) -> Option<u32> {
        if outcome == CacheOutcome::Miss { self.missed(w, key, now, instructions, warps) } else { None }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ccws {
    gto: Gto,
    priority: CcwsPriority,
    access: CcwsAccess,
    /// Scratch for stacking warps by score (reused; no per-cycle allocation).
    stack: Vec<(u32, u64, usize)>,
    /// Warps allowed to issue loads this cycle.
    pub allowed: u64,
}

impl Ccws {
    pub fn new(priority: CcwsPriority, access: CcwsAccess) -> Ccws {
        Ccws { gto: Gto::default(), priority, access, stack: Vec::new(), allowed: 0 }
    }

    /// Under [`CcwsPriority::LostLocality`], the candidate with the highest score above the
    /// base (the oldest of equals), if any.
    fn most_lost(&self, candidates: u64, view: &SchedView<'_>) -> Option<usize> {
        if self.priority != CcwsPriority::LostLocality {
            return None;
        }
        let ll = view.learner.lost_locality()?;
        if view.now >= ll.calm_from {
            return None;
        }
        bits(candidates)
            .map(|w| (ll.score(w, view.now), w))
            .filter(|&(s, _)| s > ll.base_score)
            .max_by(|a, b| a.0.cmp(&b.0).then(view.ages[b.1].cmp(&view.ages[a.1])))
            .map(|(_, w)| w)
    }

    /// Warps of this scheduler whose stacked scores fit under the cutoff.
    pub fn allowed(&mut self, view: &SchedView<'_>) -> u64 {
        let Some(ll) = view.learner.lost_locality() else { return view.members };
        if view.now >= ll.calm_from {
            return view.members;
        }
        let cutoff = u64::from(view.members.count_ones()) * u64::from(ll.base_score);
        self.stack.clear();
        self.stack.extend(bits(view.members).map(|w| (ll.score(w, view.now), view.ages[w], w)));
        self.stack.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // The bottom of the stack, the warp that lost the most locality, may always issue:
        // seed 004 §5.5.1, "The warp that has the largest locality loss is exclusively
        // prioritized". Its score alone can exceed the cutoff: a VTA hit adds K_THROTTLE ×
        // cutoff × (VTA hits / instructions), more than the whole cutoff once the SM has had
        // more than one VTA hit per K_THROTTLE instructions. The others then wait; before,
        // no warp could issue a load until the score decayed.
        let mut sum = 0u64;
        let mut allowed = 0u64;
        for &(s, _, w) in &self.stack {
            sum += u64::from(s);
            if sum > cutoff && allowed != 0 {
                // Under `exclusive` the warp at the bottom of the stack is then the only one.
                return if self.access == CcwsAccess::Exclusive { 1 << self.stack[0].2 } else { allowed };
            }
            allowed |= 1 << w;
        }
        allowed
    }
}

impl WarpScheduler for Ccws {
    fn qualify(&mut self, candidates: u64, view: &SchedView<'_>) -> u64 {
        self.allowed = self.allowed(view);
        candidates & !(view.load_next & !self.allowed)
    }

    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize> {
        if let Some(w) = self.most_lost(candidates, view)
            && try_issue(w)
        {
            // GTO goes on greedily with it once its score is back at the base.
            self.gto.greedy = Some(w);
            return Some(w);
        }
        self.gto.pick(candidates, view, try_issue)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::ViewData;
    use super::*;

    #[test]
    fn victim_tags_are_lru_per_set_and_hits_remove_them() {
        // 4 entries, 2 ways → 2 sets; keys 0, 2, 4 share set 0.
        let mut v = VictimTags::new(2, 4, 2);
        v.insert(1, 0);
        v.insert(1, 2);
        v.insert(1, 4); // evicts key 0 (LRU of set 0)
        assert_eq!(v.of(1).collect::<Vec<_>>(), vec![4, 2]);
        assert!(!v.take(1, 0));
        assert!(v.take(1, 2));
        assert!(!v.take(1, 2), "a hit consumes the tag");
        assert!(!v.take(0, 4), "VTAs are per warp");
        assert_eq!(v.of(1).collect::<Vec<_>>(), vec![4]);
    }

    #[test]
    fn a_vta_hit_raises_the_score_which_decays_to_the_base() {
        let cfg = CcwsConfig::default();
        let mut ll = LostLocality::new(&cfg, 4);
        ll.evicted(2, 0x40);
        assert_eq!(ll.missed(1, 0x40, 10, 100, 4), None, "another warp's victim");
        // First VTA hit after 100 instructions with 4 warps: 8 × 400 × 1/100 = 32.
        assert_eq!(ll.missed(2, 0x40, 10, 100, 4), Some(132));
        assert_eq!(
            (ll.score(2, 10), ll.score(2, 30), ll.score(2, 42), ll.score(2, 99)),
            (132, 112, 100, 100)
        );
        assert_eq!(ll.calm_from, 42);
    }

    #[test]
    fn throttles_the_loads_of_warps_pushed_past_the_cutoff() {
        // 4 warps (slots 0..3), base 100 → cutoff 400. Warp 3 lost locality.
        let mut data = ViewData::new(0b1111);
        let cfg = CcwsConfig::default();
        let mut ll = LostLocality::new(&cfg, 4);
        ll.evicted(3, 7);
        ll.missed(3, 7, 0, 16, 4); // gain 8 × 400 × 1/16 = 200 → 300
        data.learner = ll.into();
        data.load_next = 0b1111;
        let mut s = Ccws::new(CcwsPriority::Gto, CcwsAccess::Cutoff);
        let view = data.view();
        // Stack: w3 (300), then w0, w1 (100 each, oldest first) = 500 > 400 at w1.
        assert_eq!(s.allowed(&view), 0b1001);
        let q = s.qualify(0b1111, &view);
        assert_eq!(q, 0b1001, "warps 1 and 2 may not issue their loads");
        // An ALU instruction is never held.
        data.load_next = 0b0100;
        let view = data.view();
        assert_eq!(s.qualify(0b1111, &view), 0b1011);
        // GTO among the qualified: oldest first.
        assert_eq!(s.pick(0b1011, &view, &mut |_| true), Some(0));
    }

    /// 4 warps, cutoff 400, every warp's next instruction a load. Warp 3's VTA hit after 64
    /// instructions: 8 × 400 × 1/64 = 50 → 150; warp 2's, the SM's second, after 256:
    /// 8 × 400 × 2/256 = 25 → 125. Stack: w3 150, w2 125, w0 100 (375), w1 100 (475 > 400).
    fn warps_3_and_2_lost_locality() -> ViewData {
        let mut data = ViewData::new(0b1111);
        let mut ll = LostLocality::new(&CcwsConfig::default(), 4);
        ll.evicted(3, 7);
        assert_eq!(ll.missed(3, 7, 0, 64, 4), Some(150));
        ll.evicted(2, 8);
        assert_eq!(ll.missed(2, 8, 0, 256, 4), Some(125));
        data.learner = ll.into();
        data.load_next = 0b1111;
        data
    }

    #[test]
    fn lost_locality_priority_issues_the_highest_scored_warp_first() {
        // §5.5.3: "CCWS prioritizes warps with the highest locality lost". Warps 3, 2 and 0
        // fit the cutoff and may issue loads.
        let data = warps_3_and_2_lost_locality();
        let (mut gto, mut lost) = (
            Ccws::new(CcwsPriority::Gto, CcwsAccess::Cutoff),
            Ccws::new(CcwsPriority::LostLocality, CcwsAccess::Cutoff),
        );
        let view = data.view();
        assert_eq!(gto.qualify(0b1111, &view), 0b1101);
        assert_eq!(lost.qualify(0b1111, &view), 0b1101);
        assert_eq!(gto.pick(0b1101, &view, &mut |_| true), Some(0), "GTO: the oldest");
        assert_eq!(lost.pick(0b1101, &view, &mut |_| true), Some(3), "the most locality lost");
        // Warp 3 cannot issue (a hazard): GTO's choice, the oldest.
        assert_eq!(lost.pick(0b1101, &view, &mut |w| w != 3), Some(0));
        assert_eq!(lost.pick(0b0101, &view, &mut |_| true), Some(2), "without warp 3, the next most");
        // Scores decay a point a cycle: at cycle 20 warp 3 (130) leads warp 2 (105).
        let mut view = data.view();
        view.now = 20;
        assert_eq!(lost.pick(0b1111, &view, &mut |_| true), Some(3));
        // At cycle 50 both are back at the base: GTO, greedy on the warp that issued last
        // (3), then the oldest.
        view.now = 50;
        assert_eq!(lost.qualify(0b1111, &view), 0b1111);
        assert_eq!(lost.pick(0b1111, &view, &mut |_| true), Some(3));
        assert_eq!(lost.pick(0b0111, &view, &mut |_| true), Some(0));
    }

    #[test]
    fn the_warp_that_lost_the_most_locality_alone_may_issue_loads_above_the_cutoff() {
        // §5.5.1: "The warp that has the largest locality loss is exclusively prioritized".
        // 4 warps, cutoff 400; warp 2's first VTA hit after 8 instructions: 8 × 400 × 1/8 =
        // 400 → 500, above the whole cutoff by itself.
        let mut data = ViewData::new(0b1111);
        let cfg = CcwsConfig::default();
        let mut ll = LostLocality::new(&cfg, 4);
        ll.evicted(2, 9);
        assert_eq!(ll.missed(2, 9, 0, 8, 4), Some(500));
        data.learner = ll.into();
        data.load_next = 0b1111;
        let mut s = Ccws::new(CcwsPriority::Gto, CcwsAccess::Cutoff);
        let view = data.view();
        assert_eq!(s.allowed(&view), 0b0100, "warp 2 alone, not nobody");
        assert_eq!(s.qualify(0b1111, &view), 0b0100);
        // Its score decays one point per cycle: at 100 cycles (400) it still fills the cutoff
        // alone; back at the base (400 cycles) everyone may issue again.
        let mut view = data.view();
        view.now = 100;
        assert_eq!(s.allowed(&view), 0b0100);
        view.now = 400;
        assert_eq!(s.allowed(&view), 0b1111);
    }

    #[test]
    fn exclusive_access_leaves_only_the_warp_that_lost_the_most_once_scores_pass_the_cutoff() {
        // Seed 004 §5.5.2: CCWS provides "exclusive accesses to one warp when ... L1D locality
        // loss is high". By the cutoff warps 3, 2 and 0 may issue loads, exclusively warp 3
        // alone.
        let data = warps_3_and_2_lost_locality();
        let mut cutoff = Ccws::new(CcwsPriority::Gto, CcwsAccess::Cutoff);
        let mut exclusive = Ccws::new(CcwsPriority::Gto, CcwsAccess::Exclusive);
        let mut view = data.view();
        assert_eq!(cutoff.allowed(&view), 0b1101);
        assert_eq!(exclusive.allowed(&view), 0b1000);
        assert_eq!(exclusive.qualify(0b1111, &view), 0b1000);
        // At cycle 30 warp 3 is at 120 and warp 2 at 100: 420 stacked, still above the cutoff,
        // and warp 3 still the one. At cycle 50 every score is back at the base and everyone
        // fits: no warp is held.
        view.now = 30;
        assert_eq!(exclusive.allowed(&view), 0b1000);
        view.now = 50;
        assert_eq!(exclusive.allowed(&view), 0b1111);
    }
}
