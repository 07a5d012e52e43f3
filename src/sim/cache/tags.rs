//! The tag array: sets × ways of lines, a set-index function and a replacement policy.
//!
//! Lines are keyed by line number (the L1 uses address / line size, an L2 slice its
//! slice-local line number). The set index reads the key divided by the array's set group,
//! 1 but for an L2 slice under random partition indexing, whose keys carry the line's decoded
//! sub-partition below its partition line (`sim::dram::mapping`). A line is *reserved* from the miss that allocated it until its
//! fill arrives (allocate-on-miss); reserved lines cannot be victims.
//!
//! Only the first `active_ways` ways of a set are looked up and replaced: the L1 of an
//! adaptive unified L1/shared array is allocated at its largest and given fewer ways when a
//! kernel takes shared memory, as GPGPU-Sim's `tag_array` (allocated for the largest size) is
//! searched over the associativity the kernel's launch set (`cache_config::set_assoc`).

use super::AccessCtx;
use super::index::{IndexKind, SetIndex};
use super::line::{Line, LineState};
use super::replace::{Replacement, ReplacementKind};
use super::reuse::Reuse;

/// Result of looking a key up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Probe {
    Hit(usize),
    /// The line is reserved for a fill in flight.
    Pending(usize),
    Miss,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TagArray {
    pub sets: usize,
    pub ways: usize,
    /// Ways in use, from way 0 (at most `ways`).
    active_ways: usize,
    /// Some line may be valid or reserved (cleared by [`TagArray::invalidate_all`]).
    holds_lines: bool,
    lines: Vec<Line>,
    pub index: IndexKind,
    /// Keys per set-index input (see the module doc).
    set_group: u64,
    pub replacement: ReplacementKind,
    /// Re-reference depth by inserting priority (`cache::reuse`; the L1D turns it on).
    pub reuse: Option<Reuse>,
}

impl TagArray {
    pub fn new(sets: usize, ways: usize, index: IndexKind, replacement: ReplacementKind) -> TagArray {
        TagArray {
            sets,
            ways,
            active_ways: ways,
            holds_lines: false,
            lines: vec![Line::default(); sets * ways],
            index,
            set_group: 1,
            replacement,
            reuse: None,
        }
    }

    /// Indexes sets by the key divided by `n` from now on (`n` ≥ 1; see the module doc).
    pub fn group_keys(&mut self, n: u64) {
        debug_assert!(n >= 1);
        self.set_group = n;
    }

    /// Counts each line's first re-reference by the priority of the warp that inserted it,
    /// for warps of priorities `0..priorities` (`cache::reuse`).
    pub fn track_reuse(&mut self, priorities: usize) {
        self.reuse = Some(Reuse::new(self.sets, self.ways, priorities));
    }

    /// Ways in use.
    pub fn active_ways(&self) -> usize {
        self.active_ways
    }

    /// Uses ways `0..n` of every set from now on (`n` ≤ `ways`); lines in the other ways stay
    /// but are neither found nor replaced until the ways are used again.
    pub fn set_active_ways(&mut self, n: usize) {
        debug_assert!((1..=self.ways).contains(&n), "{n} of {} ways", self.ways);
        self.active_ways = n;
    }

    #[inline]
    pub fn set_of(&self, key: u64) -> usize {
        self.index.set(if self.set_group == 1 { key } else { key / self.set_group })
    }

    #[inline]
    pub fn line(&self, set: usize, way: usize) -> &Line {
        &self.lines[set * self.ways + way]
    }

    #[inline]
    pub fn line_mut(&mut self, set: usize, way: usize) -> &mut Line {
        &mut self.lines[set * self.ways + way]
    }

    /// Looks a key up without changing any state.
    #[inline]
    pub fn probe(&self, key: u64) -> (usize, Probe) {
        let set = self.set_of(key);
        let base = set * self.ways;
        for (way, l) in self.lines[base..base + self.active_ways].iter().enumerate() {
            if l.key == key {
                match l.state {
                    LineState::Valid => return (set, Probe::Hit(way)),
                    LineState::Reserved => return (set, Probe::Pending(way)),
                    LineState::Invalid => {}
                }
            }
        }
        (set, Probe::Miss)
    }

    /// Records a hit for the replacement policy, in an array that tracks no reuse (whose
    /// accesses carry no warp: the L2s; the L1D calls [`TagArray::touch_by`]).
    pub fn touch(&mut self, set: usize, way: usize) {
        debug_assert!(self.reuse.is_none(), "a reuse-tracking array is touched by a warp");
        self.replacement.touch(set, way);
    }

    /// Records a read merging into the pending fill of line (`set`, `way`): the replacement
    /// policy counts it as an access, as GPGPU-Sim's `baseline_cache::send_read_request` does
    /// on an MSHR hit (its `tag_array::access` finds the line `HIT_RESERVED` and sets its last
    /// access time). `cache::reuse` does not count it: its re-references are hits on data
    /// that has arrived.
    pub fn touch_pending(&mut self, set: usize, way: usize) {
        self.replacement.touch(set, way);
    }

    /// Records a hit of warp slot `warp` for the replacement policy (and `cache::reuse`).
    pub fn touch_by(&mut self, set: usize, way: usize, warp: u16) {
        if let Some(r) = &mut self.reuse {
            r.hit(set, way, self.replacement.position(set, way), warp);
        }
        self.replacement.touch(set, way);
    }

    /// The way a new line would take: an invalid way, else the policy's victim among lines
    /// that are not reserved. `None` when the policy finds none (every way reserved, or
    /// DaCache's thrashing region all reserved).
    pub fn victim(&self, set: usize) -> Option<usize> {
        self.victim_keeping(set, false)
    }

    /// [`TagArray::victim`], but with `keep_dirty` no dirty line is a candidate (an L1's
    /// written lines under `l1.write_ratio`).
    pub fn victim_keeping(&self, set: usize, keep_dirty: bool) -> Option<usize> {
        let base = set * self.ways;
        let lines = &self.lines[base..base + self.ways];
        let active = self.active_ways;
        let candidate = |l: &Line| l.state == LineState::Valid && !(keep_dirty && l.dirty);
        let mut any = false;
        for (w, l) in lines[..active].iter().enumerate() {
            if l.state == LineState::Invalid {
                return Some(w);
            }
            any |= candidate(l);
        }
        // Every way reserved (or kept): no policy has a replaceable way to offer (a miss
        // waiting for a fill asks again every cycle, so this answer is worth having without
        // the policy).
        if !any {
            return None;
        }
        self.replacement.victim(set, &|w| w < active && candidate(&lines[w]))
    }

    /// Lines in the active ways of every set.
    pub fn active_lines(&self) -> usize {
        self.active_ways * (self.lines.len() / self.ways)
    }

    /// Places `new` in `way` for access `ctx`, returning the valid line it displaced.
    pub fn install(&mut self, set: usize, way: usize, new: Line, ctx: &AccessCtx) -> Option<Line> {
        self.holds_lines = true;
        let slot = self.line_mut(set, way);
        let old = *slot;
        *slot = new;
        let evicted = (old.state == LineState::Valid).then_some(old);
        self.replacement.insert(set, way, new.key, ctx, evicted.as_ref());
        if let Some(r) = &mut self.reuse {
            r.inserted(set, way, ctx.warp, ctx.prio, self.replacement.position(set, way), evicted.is_some());
        }
        evicted
    }

    /// Drops a valid line (write-evict). Returns whether it was present.
    pub fn invalidate(&mut self, key: u64) -> bool {
        if let (set, Probe::Hit(way)) = self.probe(key) {
            self.line_mut(set, way).state = LineState::Invalid;
            true
        } else {
            false
        }
    }

    /// Whether some line may be valid or reserved (false after [`TagArray::invalidate_all`]
    /// with no fill pending).
    pub fn holds_lines(&self) -> bool {
        self.holds_lines
    }

    /// Invalidates every valid line (reserved ones wait for their fills).
    pub fn invalidate_all(&mut self) {
        if !self.holds_lines {
            return;
        }
        for l in &mut self.lines {
            if l.state == LineState::Valid {
                l.state = LineState::Invalid;
            }
        }
        self.holds_lines = self.reserved() > 0;
    }

    /// Lines currently reserved for fills.
    pub fn reserved(&self) -> usize {
        self.lines.iter().filter(|l| l.state == LineState::Reserved).count()
    }

    /// A set's lines from the most to the least protected (MRU → LRU), for views.
    pub fn chain(&self, set: usize) -> Vec<(usize, Line)> {
        self.replacement.order(set).into_iter().map(|w| (w, *self.line(set, w))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, IndexName, ReplacementName};

    /// `sets` × `ways` of 128-byte lines, modulo set index, LRU.
    fn lru(sets: usize, ways: usize) -> TagArray {
        let c = Config::default();
        TagArray::new(
            sets,
            ways,
            IndexKind::new(IndexName::Conv, sets, 7),
            ReplacementKind::new(ReplacementName::Lru, sets, ways, &c),
        )
    }

    fn line(key: u64, state: LineState) -> Line {
        Line { key, state, ..Line::default() }
    }

    /// The configuration's bound on a machine's cache lines rests on
    /// [`crate::config::LINE_STATE_BYTES`] bounding each line's state: the line, the
    /// most replacement state a line has (DaCache's chain position and sampled flag; RRIP's
    /// one RRPV byte is less) and the reuse tracker's marker and inserting warp.
    #[test]
    fn a_lines_state_fits_the_bound_the_config_checks() {
        use std::mem::size_of;
        let replacement = size_of::<u8>() + size_of::<bool>();
        let reuse = size_of::<u8>() + size_of::<u16>();
        let per_line = size_of::<Line>() + replacement + reuse;
        assert!(per_line as u64 <= crate::config::LINE_STATE_BYTES, "{per_line} bytes a line");
    }

    #[test]
    fn reserved_lines_are_never_victims() {
        let mut t = lru(1, 2);
        let ctx = AccessCtx::default();
        assert_eq!(t.victim(0), Some(0));
        t.install(0, 0, line(10, LineState::Reserved), &ctx);
        assert_eq!(t.victim(0), Some(1));
        t.install(0, 1, line(11, LineState::Reserved), &ctx);
        assert_eq!(t.victim(0), None, "all ways reserved");
        assert_eq!(t.probe(10), (0, Probe::Pending(0)));
        t.line_mut(0, 0).state = LineState::Valid;
        assert_eq!(t.probe(10), (0, Probe::Hit(0)));
        assert_eq!(t.victim(0), Some(0));
        assert_eq!(t.chain(0).iter().map(|(w, l)| (*w, l.key)).collect::<Vec<_>>(), vec![(1, 11), (0, 10)]);
        let evicted = t.install(0, 0, line(12, LineState::Valid), &ctx);
        assert_eq!(evicted.map(|l| l.key), Some(10));
        assert_eq!(t.probe(10).1, Probe::Miss);
    }

    #[test]
    fn only_active_ways_are_found_and_replaced_and_a_flush_keeps_pending_fills() {
        let mut t = lru(1, 4);
        let ctx = AccessCtx::default();
        for way in 0..4 {
            t.install(0, way, line(10 + way as u64, LineState::Valid), &ctx);
        }
        t.set_active_ways(2);
        assert_eq!(
            (t.probe(10).1, t.probe(11).1, t.probe(12).1),
            (Probe::Hit(0), Probe::Hit(1), Probe::Miss)
        );
        // Way 0 is the least recently installed of the two in use (ways 2 and 3 are older
        // in nothing: they are out of reach).
        assert_eq!(t.victim(0), Some(0));
        t.set_active_ways(4);
        assert_eq!(t.probe(13).1, Probe::Hit(3), "a way back in use finds its line again");
        t.install(0, 1, line(20, LineState::Reserved), &ctx);
        t.invalidate_all();
        assert_eq!(
            (t.probe(10).1, t.probe(13).1, t.probe(20).1),
            (Probe::Miss, Probe::Miss, Probe::Pending(1))
        );
        assert_eq!(t.reserved(), 1);
    }

    /// Keys grouped by 24 (a slice under random partition indexing over 24 sub-partitions):
    /// keys 24·p … 24·p + 23 index the set of partition line p, and stay distinct lines there.
    #[test]
    fn grouped_keys_share_their_groups_set_and_keep_their_own_tags() {
        let mut t = lru(8, 2);
        t.group_keys(24);
        assert_eq!((t.set_of(24 * 3), t.set_of(24 * 3 + 23), t.set_of(24 * 11 + 5)), (3, 3, 3));
        assert_eq!(t.set_of(24 * 4), 4);
        let ctx = AccessCtx::default();
        t.install(3, 0, line(24 * 3 + 1, LineState::Valid), &ctx);
        t.install(3, 1, line(24 * 3 + 7, LineState::Valid), &ctx);
        assert_eq!(
            (t.probe(24 * 3 + 1), t.probe(24 * 3 + 7), t.probe(24 * 3 + 2).1),
            ((3, Probe::Hit(0)), (3, Probe::Hit(1)), Probe::Miss)
        );
    }
}
