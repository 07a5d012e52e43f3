//! Miss-status holding registers: one entry per missing line in flight; later misses to the
//! same line merge into the entry instead of going below (MECHANISMS §1).
//!
//! Storage is fixed at construction: `capacity` entries, each able to hold `merge - 1` merged
//! requests besides the one that went below.

use crate::sim::request::MemRequest;

/// The key of a free entry (no line address is this large).
const NO_KEY: u64 = u64::MAX;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MshrEntry {
    pub key: u64,
    pub valid: bool,
    /// Cycle the entry was allocated.
    pub since: u64,
    /// The request that went below for this line, and its warp (L1) or SM (L2).
    pub primary: u64,
    pub owner: u16,
    /// Requests waiting for the same line.
    pub merged: Vec<MemRequest>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Mshr {
    entries: Vec<MshrEntry>,
    /// Each entry's key, or [`NO_KEY`] when it is free: the lookup every access makes scans
    /// these 8-byte keys instead of the whole entries.
    keys: Vec<u64>,
    /// One past the highest entry in use: [`Mshr::allocate`] takes the lowest free entry, so
    /// the entries in use sit below it and a lookup scans no further.
    high: usize,
    used: usize,
    merge: usize,
}

impl Mshr {
    pub fn new(capacity: usize, merge: usize) -> Mshr {
        Mshr {
            entries: (0..capacity)
                .map(|_| MshrEntry {
                    key: 0,
                    valid: false,
                    since: 0,
                    primary: 0,
                    owner: 0,
                    merged: Vec::with_capacity(merge.saturating_sub(1)),
                })
                .collect(),
            keys: vec![NO_KEY; capacity],
            high: 0,
            used: 0,
            merge,
        }
    }

    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    pub fn used(&self) -> usize {
        self.used
    }

    pub fn free(&self) -> usize {
        self.entries.len() - self.used
    }

    /// The entry waiting for `key`.
    #[inline]
    pub fn find(&self, key: u64) -> Option<usize> {
        if self.used == 0 {
            return None;
        }
        let keys = &self.keys[..self.high];
        // Eight keys compared at once (the compiler vectorises a fold without an early exit),
        // then the one that matched.
        let chunks = keys.chunks_exact(8);
        let rest = chunks.remainder();
        for (c, chunk) in chunks.enumerate() {
            if chunk.iter().fold(false, |hit, &k| hit | (k == key)) {
                return chunk.iter().position(|&k| k == key).map(|i| c * 8 + i);
            }
        }
        rest.iter().position(|&k| k == key).map(|i| keys.len() - rest.len() + i)
    }

    /// Whether another request can merge into entry `i`.
    pub fn can_merge(&self, i: usize) -> bool {
        1 + self.entries[i].merged.len() < self.merge
    }

    /// Requests merged into entry `i`.
    pub fn merged_count(&self, i: usize) -> usize {
        self.entries[i].merged.len()
    }

    pub fn merge(&mut self, i: usize, req: MemRequest) {
        debug_assert!(self.can_merge(i));
        self.entries[i].merged.push(req);
    }

    /// Allocates an entry for `key` for request `primary` of `owner` (the caller checked
    /// [`Mshr::free`]).
    pub fn allocate(&mut self, key: u64, primary: u64, owner: u16, now: u64) -> usize {
        debug_assert_ne!(key, NO_KEY);
        let i = self.keys.iter().position(|&k| k == NO_KEY).expect("a free MSHR entry");
        self.keys[i] = key;
        self.high = self.high.max(i + 1);
        let e = &mut self.entries[i];
        e.key = key;
        e.valid = true;
        e.since = now;
        e.primary = primary;
        e.owner = owner;
        self.used += 1;
        i
    }

    /// Frees the entry for `key`, moving its merged requests to `out`.
    pub fn release(&mut self, key: u64, out: &mut Vec<MemRequest>) -> bool {
        let Some(i) = self.find(key) else { return false };
        self.keys[i] = NO_KEY;
        while self.high > 0 && self.keys[self.high - 1] == NO_KEY {
            self.high -= 1;
        }
        let e = &mut self.entries[i];
        e.valid = false;
        out.append(&mut e.merged);
        self.used -= 1;
        true
    }

    /// Valid entries, for views.
    pub fn entries(&self) -> impl Iterator<Item = &MshrEntry> {
        self.entries.iter().filter(|e| e.valid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::request::{AccessKind, MemRequest};

    fn req(id: u64) -> MemRequest {
        MemRequest {
            id,
            kind: AccessKind::Load,
            addr: 0,
            bytes: 128,
            lanes: 1,
            origin: Default::default(),
            loc: Default::default(),
            trace: Default::default(),
        }
    }

    #[test]
    fn merges_up_to_the_limit_and_releases_all() {
        let mut m = Mshr::new(2, 3);
        let i = m.allocate(0x40, 1, 3, 5);
        assert_eq!((m.used(), m.free()), (1, 1));
        assert_eq!(m.find(0x40), Some(i));
        assert!(m.can_merge(i));
        m.merge(i, req(2));
        assert!(m.can_merge(i));
        m.merge(i, req(3));
        assert!(!m.can_merge(i), "primary + 2 merged = 3");
        let mut out = Vec::new();
        assert!(m.release(0x40, &mut out));
        assert_eq!(out.iter().map(|r| r.id).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(m.find(0x40), None);
        assert_eq!(m.free(), 2);
    }

    proptest::proptest! {
        #![proptest_config(crate::cases::config(crate::cases::MSHR_LOOKUPS))]

        /// The bounded, eight-at-a-time lookup finds what a plain scan of every entry finds,
        /// under random allocations and releases of 20 entries.
        #[test]
        fn lookup_equals_a_plain_scan(ops in proptest::collection::vec((proptest::bool::ANY, 1u64..40), 1..300)) {
            let mut m = Mshr::new(20, 2);
            let mut out = Vec::new();
            for (alloc, key) in ops {
                if alloc && m.free() > 0 && m.find(key).is_none() {
                    m.allocate(key, 0, 0, 0);
                } else if !alloc {
                    m.release(key, &mut out);
                }
                for probe in 1..40 {
                    proptest::prop_assert_eq!(m.find(probe), m.keys.iter().position(|&k| k == probe));
                }
            }
        }
    }
}
