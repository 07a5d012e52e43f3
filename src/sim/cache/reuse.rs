//! Re-reference depth of cache lines by the GTO priority of the warp that inserted them (seed
//! 004 §4.2.2). Gauged insertion places a divergent load's lines deeper in the LRU chain the
//! younger its warp, on the premise that "the cache blocks of frequently scheduled warps have
//! short re-reference intervals, while the blocks of infrequently [scheduled] warps have long
//! re-reference intervals". This measures that interval: each line remembers its inserting
//! priority until its first re-reference (a hit), which is counted at the line's position in
//! the replacement order just before the hit — under LRU, which inserts at MRU, its stack
//! distance: how many other lines of the set were inserted, hit or merged into since. A line
//! replaced before any hit counts as never reused; one invalidated (a store under write-evict,
//! a flush) before either is dropped from both counts.
//!
//! Each line also remembers the warp that inserted it, so that its first re-reference counts as
//! made by that warp itself (intra-warp reuse, the locality gauged insertion assumes: a warp's
//! lines serve that warp) or by another warp (inter-warp reuse).
//!
//! The tag array calls [`Reuse::inserted`] after placing a line and [`Reuse::hit`] before
//! promoting one, each with the accessing warp; the counts are [`ReuseStats`], sized at build time.

use crate::sim::stats::ReuseStats;

/// Per-line marker of a line not re-referenced since its insertion: its priority + 1 (0 =
/// nothing pending: no line, already re-referenced, or counted).
type Pending = u8;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reuse {
    ways: usize,
    priorities: usize,
    /// Per line (set × ways + way).
    pending: Vec<Pending>,
    /// Per line: the warp slot whose access inserted it (meaningful while pending).
    inserter: Vec<u16>,
    pub stats: ReuseStats,
}

impl Reuse {
    /// A tracker for `sets × ways` lines inserted by warps of priorities `0..priorities` (at
    /// most 255; a higher priority counts at the last).
    pub fn new(sets: usize, ways: usize, priorities: usize) -> Reuse {
        let priorities = priorities.clamp(1, usize::from(Pending::MAX));
        Reuse {
            ways,
            priorities,
            pending: vec![0; sets * ways],
            inserter: vec![0; sets * ways],
            stats: ReuseStats {
                inserted: vec![0; priorities],
                insert_position: vec![0; priorities],
                depth: vec![0; priorities * ways],
                never_reused: vec![0; priorities],
                self_hits: vec![0; priorities],
            },
        }
    }

    /// Ways per priority in [`ReuseStats::depth`].
    pub fn ways(&self) -> usize {
        self.ways
    }

    /// A line was placed in `way` of `set` for an access of warp slot `warp` of priority `prio`,
    /// landing at `position` of the order; `replaced` when it displaced a valid line.
    #[inline]
    pub fn inserted(&mut self, set: usize, way: usize, warp: u16, prio: u8, position: usize, replaced: bool) {
        let i = set * self.ways + way;
        if replaced && let Some(old) = usize::from(self.pending[i]).checked_sub(1) {
            self.stats.never_reused[old] += 1;
        }
        let p = usize::from(prio).min(self.priorities - 1);
        self.pending[i] = (p + 1) as Pending;
        self.inserter[i] = warp;
        self.stats.inserted[p] += 1;
        self.stats.insert_position[p] += position as u64;
    }

    /// The line in `way` of `set`, at `position` of the order, is about to be promoted by a hit
    /// of warp slot `warp`.
    #[inline]
    pub fn hit(&mut self, set: usize, way: usize, position: usize, warp: u16) {
        let i = set * self.ways + way;
        if let Some(p) = usize::from(self.pending[i]).checked_sub(1) {
            self.stats.depth[p * self.ways + position] += 1;
            self.stats.self_hits[p] += u64::from(self.inserter[i] == warp);
            self.pending[i] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-built sequence on two sets of two ways, warps 7 (priority 0) and 9 (priority 2):
    /// the first hit of each line counts as its inserting warp's own or another's; later hits,
    /// and lines replaced unreused, count as neither.
    #[test]
    fn first_hits_count_as_the_inserting_warps_own_or_anothers() {
        let mut r = Reuse::new(2, 2, 4);
        // Warp 7 (prio 0) inserts A (set 0, way 0) and B (set 1, way 0); warp 9 (prio 2)
        // inserts C (set 0, way 1) and D (set 1, way 1).
        r.inserted(0, 0, 7, 0, 0, false);
        r.inserted(1, 0, 7, 0, 0, false);
        r.inserted(0, 1, 9, 2, 0, false);
        r.inserted(1, 1, 9, 2, 0, false);
        // A first hit by warp 7 itself, then by warp 9 (no longer a first hit).
        r.hit(0, 0, 1, 7);
        r.hit(0, 0, 0, 9);
        // B first hit by warp 9: another warp's.
        r.hit(1, 0, 1, 9);
        // C first hit by warp 9 itself; D by warp 7, whose priority now differs (the line
        // keeps its inserter's priority and warp).
        r.hit(0, 1, 1, 9);
        r.hit(1, 1, 0, 7);
        // Warp 9, now at priority 3, replaces A; the new line E is first hit by warp 7.
        r.inserted(0, 0, 9, 3, 0, true);
        r.hit(0, 0, 1, 7);
        // Warp 7 replaces C (already reused) with F, which is replaced unreused by G, whose
        // first hit is warp 7's own.
        r.inserted(0, 1, 7, 1, 0, true);
        r.inserted(0, 1, 7, 1, 0, true);
        r.hit(0, 1, 1, 7);
        let s = &r.stats;
        let reused = |p: usize| s.depth[p * 2..(p + 1) * 2].iter().sum::<u64>();
        assert_eq!((0..4).map(reused).collect::<Vec<_>>(), [2, 1, 2, 1]);
        assert_eq!(s.self_hits, [1, 1, 1, 0], "A, G, C own; B, D, E another's");
        assert_eq!(s.never_reused, [0, 1, 0, 0], "F");
        assert_eq!(s.inserted, [2, 2, 2, 1]);
    }
}
