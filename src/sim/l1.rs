//! The per-SM L1 data cache (MECHANISMS §1): tags, MSHRs with merging, a miss queue toward
//! the crossbar, allocate-on-miss or allocate-on-fill, write-evict and no-write-allocate for
//! stores (stores need no MSHR).
//!
//! One access per cycle arrives from the LD/ST unit. Only requests that go below are
//! mapped to their memory partition (hits and merges never leave the SM).
//! An access that cannot proceed returns
//! the reason ([`StallCause`]) and is retried by the LD/ST unit next cycle.

use crate::config::{AllocPolicy, Config};
use crate::sim::cache::mshr::Mshr;
use crate::sim::cache::tags::{Line, LineState, Probe, TagArray};
use crate::sim::dram::mapping::AddressMap;
use crate::sim::queue::BoundedQueue;
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest};
use crate::sim::stats::{CacheStats, StallCause};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct L1 {
    pub tags: TagArray,
    pub mshr: Mshr,
    pub miss_queue: BoundedQueue<MemRequest>,
    /// Hits on their way back: (ready cycle, request).
    hits: VecDeque<(u64, MemRequest)>,
    alloc: AllocPolicy,
    line_shift: u32,
    hit_latency: u64,
    /// Fills so far (a replay can only change outcome after one).
    pub fills: u64,
    pub stats: CacheStats,
}

impl L1 {
    pub fn new(c: &Config) -> L1 {
        let l = &c.l1;
        L1 {
            tags: TagArray::new(l.sets as usize, l.ways as usize, l.index, l.replacement),
            mshr: Mshr::new(l.mshr_entries as usize, l.mshr_merge as usize),
            miss_queue: BoundedQueue::new(l.miss_queue as usize),
            hits: VecDeque::with_capacity(l.hit_latency as usize + 1),
            alloc: l.allocate,
            line_shift: l.line_bytes.trailing_zeros(),
            hit_latency: l.hit_latency.into(),
            fills: 0,
            stats: CacheStats::default(),
        }
    }

    #[inline]
    pub fn key(&self, addr: u64) -> u64 {
        addr >> self.line_shift
    }

    /// Whether a load of this line would need a new MSHR entry (a miss not mergeable into
    /// one in flight). Used to predict a load's MSHR demand (memory occlusion).
    pub fn needs_mshr(&self, addr: u64) -> bool {
        let key = self.key(addr);
        matches!(self.tags.probe(key).1, Probe::Miss) && self.mshr.find(key).is_none()
    }

    /// Tries one access. On success the request is consumed (queued below, merged, or on its
    /// way back as a hit); on failure the cause is returned and the LD/ST unit retries.
    pub fn access(
        &mut self,
        mut req: MemRequest,
        now: u64,
        map: &AddressMap,
    ) -> Result<CacheOutcome, StallCause> {
        let key = self.key(req.addr);
        if req.kind == AccessKind::Store {
            if self.miss_queue.is_full() {
                self.stats.stall(StallCause::MissQueue);
                return Err(StallCause::MissQueue);
            }
            self.stats.writes += 1;
            if self.tags.invalidate(key) {
                self.stats.write_hits += 1;
            }
            req.trace.l1 = CacheOutcome::Write;
            req.loc = map.map(req.addr);
            let _ = self.miss_queue.push(req);
            return Ok(CacheOutcome::Write);
        }
        let (set, probe) = self.tags.probe(key);
        if let Probe::Hit(way) = probe {
            self.tags.touch(set, way);
            self.stats.reads += 1;
            self.stats.read_hits += 1;
            req.trace.l1 = CacheOutcome::Hit;
            self.hits.push_back((now + self.hit_latency, req));
            return Ok(CacheOutcome::Hit);
        }
        if let Some(i) = self.mshr.find(key) {
            if !self.mshr.can_merge(i) {
                self.stats.stall(StallCause::MergeFull);
                return Err(StallCause::MergeFull);
            }
            self.stats.reads += 1;
            self.stats.merged += 1;
            req.trace.l1 = CacheOutcome::Merged;
            self.mshr.merge(i, req);
            return Ok(CacheOutcome::Merged);
        }
        let cause = if self.mshr.free() == 0 {
            Some(StallCause::Mshr)
        } else if self.miss_queue.is_full() {
            Some(StallCause::MissQueue)
        } else {
            None
        };
        if let Some(cause) = cause {
            self.stats.stall(cause);
            return Err(cause);
        }
        if self.alloc == AllocPolicy::OnMiss {
            let Some(way) = self.tags.victim(set) else {
                self.stats.stall(StallCause::LineAlloc);
                return Err(StallCause::LineAlloc);
            };
            let line = Line {
                key,
                addr: req.addr,
                state: LineState::Reserved,
                dirty: false,
                owner: req.origin.warp,
                pc: req.origin.pc,
            };
            if self.tags.install(set, way, line).is_some() {
                self.stats.evictions += 1;
            }
        }
        self.stats.reads += 1;
        self.stats.read_misses += 1;
        req.trace.l1 = CacheOutcome::Miss;
        req.loc = map.map(req.addr);
        self.mshr.allocate(key, req.id, req.origin.warp, now);
        let _ = self.miss_queue.push(req);
        Ok(CacheOutcome::Miss)
    }

    /// A reply arrived: fill the line and hand back the returning request and every request
    /// merged behind it (appended to `out`).
    pub fn fill(&mut self, reply: MemRequest, out: &mut Vec<MemRequest>) {
        self.fills += 1;
        let key = self.key(reply.addr);
        let (set, probe) = self.tags.probe(key);
        match (self.alloc, probe) {
            (AllocPolicy::OnMiss, Probe::Pending(way)) => {
                self.tags.line_mut(set, way).state = LineState::Valid;
            }
            (AllocPolicy::OnFill, Probe::Miss) => {
                let way = self.tags.victim(set).expect("allocate-on-fill never reserves");
                let line = Line {
                    key,
                    addr: reply.addr,
                    state: LineState::Valid,
                    dirty: false,
                    owner: reply.origin.warp,
                    pc: reply.origin.pc,
                };
                if self.tags.install(set, way, line).is_some() {
                    self.stats.evictions += 1;
                }
            }
            _ => {}
        }
        out.push(reply);
        self.mshr.release(key, out);
    }

    /// The next hit whose latency has elapsed.
    pub fn pop_hit(&mut self, now: u64) -> Option<MemRequest> {
        match self.hits.front() {
            Some(&(at, _)) if at <= now => self.hits.pop_front().map(|(_, r)| r),
            _ => None,
        }
    }

    /// Requests held here: queued below, merged in MSHRs, or returning hits.
    pub fn occupancy(&self) -> usize {
        self.miss_queue.len() + self.hits.len() + self.mshr.entries().map(|e| e.merged.len()).sum::<usize>()
    }

    pub fn hits_in_flight(&self) -> impl Iterator<Item = &(u64, MemRequest)> {
        self.hits.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::request::AccessKind;

    fn setup(sets: &[&str]) -> (L1, AddressMap) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::default().with_sets(&sets).unwrap();
        (L1::new(&c), AddressMap::new(&c))
    }

    fn load(id: u64, addr: u64) -> MemRequest {
        MemRequest {
            id,
            kind: AccessKind::Load,
            addr,
            bytes: 128,
            lanes: 1,
            origin: Default::default(),
            loc: Default::default(),
            trace: Default::default(),
        }
    }

    #[test]
    fn miss_merge_fill_then_hit() {
        let (mut l1, map) = setup(&[]);
        assert_eq!(l1.access(load(1, 0x1000), 0, &map), Ok(CacheOutcome::Miss));
        assert_eq!(l1.access(load(2, 0x1000), 1, &map), Ok(CacheOutcome::Merged));
        assert_eq!(l1.mshr.used(), 1);
        let sent = l1.miss_queue.pop().unwrap();
        assert_eq!((sent.id, sent.loc), (1, map.map(0x1000)), "only the first miss goes below, mapped");
        let mut out = Vec::new();
        l1.fill(sent, &mut out);
        assert_eq!(out.iter().map(|r| r.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(l1.mshr.used(), 0);
        assert_eq!(l1.access(load(3, 0x1040), 10, &map), Ok(CacheOutcome::Hit));
        assert_eq!(l1.pop_hit(10 + 19), None);
        assert_eq!(l1.pop_hit(10 + 20).map(|r| r.id), Some(3), "hit latency 20");
    }

    #[test]
    fn each_stall_cause() {
        // Two MSHRs, merge of 2, miss queue of 2, one way per set (so lines can all be reserved).
        let (mut l1, map) = setup(&["l1.mshr_entries=2", "l1.mshr_merge=2", "l1.miss_queue=2", "l1.ways=1"]);
        assert!(l1.access(load(1, 0), 0, &map).is_ok());
        assert!(l1.access(load(2, 0), 0, &map).is_ok(), "merge");
        assert_eq!(l1.access(load(3, 0), 0, &map), Err(StallCause::MergeFull));
        // Same set (32 sets × 128 B apart = 4096 B), way reserved by the first miss.
        assert_eq!(l1.access(load(4, 4096), 0, &map), Err(StallCause::LineAlloc));
        assert!(l1.access(load(5, 128), 0, &map).is_ok());
        assert_eq!(l1.access(load(6, 256), 0, &map), Err(StallCause::Mshr));
        let mut out = Vec::new();
        let r = l1.miss_queue.pop().unwrap();
        l1.fill(r, &mut out);
        let mut store = load(7, 512);
        store.kind = AccessKind::Store;
        assert_eq!(l1.access(store, 0, &map), Ok(CacheOutcome::Write));
        let mut store = load(8, 640);
        store.kind = AccessKind::Store;
        assert_eq!(l1.access(store, 0, &map), Err(StallCause::MissQueue));
        assert_eq!(l1.stats.stalls[StallCause::MergeFull as usize], 1);
        assert_eq!(l1.stats.stalls[StallCause::LineAlloc as usize], 1);
    }

    #[test]
    fn stores_evict_and_do_not_allocate() {
        let (mut l1, map) = setup(&[]);
        l1.access(load(1, 0x2000), 0, &map).unwrap();
        let r = l1.miss_queue.pop().unwrap();
        l1.fill(r, &mut Vec::new());
        let mut store = load(2, 0x2000);
        store.kind = AccessKind::Store;
        assert_eq!(l1.access(store, 1, &map), Ok(CacheOutcome::Write));
        assert_eq!(
            l1.access(load(3, 0x2000), 2, &map),
            Ok(CacheOutcome::Miss),
            "write-evict dropped the line"
        );
        let mut store = load(4, 0x3000);
        store.kind = AccessKind::Store;
        l1.access(store, 3, &map).unwrap();
        assert!(l1.needs_mshr(0x3000), "no-write-allocate");
    }
}
