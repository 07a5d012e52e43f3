//! Re-reference depth of cache lines by the GTO priority of the warp that inserted them (seed
//! 004 §4.2.2). Gauged insertion places a divergent load's lines deeper in the LRU chain the
//! younger its warp, on the premise that "the cache blocks of frequently scheduled warps have
//! short re-reference intervals, while the blocks of infrequently [scheduled] warps have long
//! re-reference intervals". This measures that interval: each line remembers its inserting
//! priority until its first re-reference (a hit), which is counted at the line's position in
//! the replacement order just before the hit — under LRU, which inserts at MRU, its stack
//! distance: how many other lines of the set were inserted or hit since. A line replaced
//! before any hit counts as never reused; one invalidated (a store under write-evict, a flush)
//! before either is dropped from both counts.
//!
//! The tag array calls [`Reuse::inserted`] after placing a line and [`Reuse::hit`] before
//! promoting one; the counts are [`ReuseStats`], sized at build time.

use crate::sim::stats::ReuseStats;

/// Per-line marker of a line not re-referenced since its insertion: its priority + 1 (0 =
/// nothing pending: no line, already re-referenced, or counted).
type Pending = u8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reuse {
    ways: usize,
    priorities: usize,
    /// Per line (set × ways + way).
    pending: Vec<Pending>,
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
            stats: ReuseStats {
                inserted: vec![0; priorities],
                insert_position: vec![0; priorities],
                depth: vec![0; priorities * ways],
                never_reused: vec![0; priorities],
            },
        }
    }

    /// Ways per priority in [`ReuseStats::depth`].
    pub fn ways(&self) -> usize {
        self.ways
    }

    /// A line was placed in `way` of `set` for an access of a warp of priority `prio`, landing
    /// at `position` of the order; `replaced` when it displaced a valid line.
    #[inline]
    pub fn inserted(&mut self, set: usize, way: usize, prio: u8, position: usize, replaced: bool) {
        let i = set * self.ways + way;
        if replaced && let Some(old) = usize::from(self.pending[i]).checked_sub(1) {
            self.stats.never_reused[old] += 1;
        }
        let p = usize::from(prio).min(self.priorities - 1);
        self.pending[i] = (p + 1) as Pending;
        self.stats.inserted[p] += 1;
        self.stats.insert_position[p] += position as u64;
    }

    /// The line in `way` of `set`, at `position` of the order, is about to be promoted by a hit.
    #[inline]
    pub fn hit(&mut self, set: usize, way: usize, position: usize) {
        let i = set * self.ways + way;
        if let Some(p) = usize::from(self.pending[i]).checked_sub(1) {
            self.stats.depth[p * self.ways + position] += 1;
            self.pending[i] = 0;
        }
    }
}
