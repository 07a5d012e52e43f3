//! The per-SM L1 data cache (MECHANISMS §1): tags, MSHRs with merging, a miss queue toward
//! the crossbar, allocate-on-miss or allocate-on-fill, and for stores (which need no MSHR)
//! either write-evict and no-write-allocate (Fermi) or write-through with lazy fetch on read
//! (Volta, GPGPU-Sim's `T:L`: a hit keeps the line, a miss writing the whole line installs
//! it). With an adaptive unified L1/shared array the tag array holds the largest L1 and the
//! kernel's launch sets how many ways are in use ([`L1::use_ways`]).
//!
//! One access per cycle arrives from the LD/ST unit, with its [`AccessCtx`] (issuing warp,
//! its GTO priority, the load's request count). Only requests that go below are mapped to their
//! memory partition (hits and merges never leave the SM). An access that cannot proceed
//! returns the reason ([`StallCause`]) and is retried by the LD/ST unit next cycle.
//!
//! With `l1.latency_queue` (GPGPU-Sim 4) accesses instead enter banked latency queues
//! ([`L1::offer`], [`BankQueues`]: up to one per bank per cycle) and are looked up at their
//! head `hit_latency` cycles later ([`L1::lookups`]); an access the lookup refuses waits there,
//! holding up its bank only. The outcomes are reported as [`Looked`]; the miss queue holds only
//! the misses looked up.
//!
//! When the replacement policy finds no victim and bypasses (DaCache, seed 004 §4.2.3), the
//! access goes below without a line or an MSHR, asking only for its 32 B sectors; the reply
//! goes straight to the warp.
//!
//! The L1 also follows each load as its accesses are serviced (seed 004 §4.2.4's Div-reg and
//! FCW-reg): when the last one is, it records the load's misses (MPLI), its intra-warp
//! concentration, and trains the SM's fully-cached-warp counter ([`FcwTrainer`]) on divergent
//! loads. Misses are classified cold / intra-warp / inter-warp from a record of who evicted
//! each line (seed 004 §2.1.1).

use crate::config::{AllocPolicy, Config, L1Write};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::index::IndexKind;
use crate::sim::cache::line::{Line, LineState};
use crate::sim::cache::mshr::Mshr;
use crate::sim::cache::replace::{Replacement, ReplacementKind};
use crate::sim::cache::sectors;
use crate::sim::cache::tags::{Probe, TagArray};
use crate::sim::core::coalescer::SECTOR_BYTES;
use crate::sim::core::fcw::FcwTrainer;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::l1_banks::BankQueues;
use crate::sim::queue::{BoundedQueue, LatencyQueue};
use crate::sim::record::{Point, Who};
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest};
use crate::sim::stats::{CacheStats, L1LoadStats, StallCause, mpli_bin};
use crate::workload::hash::mix;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Marks a line that is in the cache (or on its way) in [`LineHistory`].
const RESIDENT: u16 = u16::MAX;

/// For every line this L1 has missed on: [`RESIDENT`], or the warp slot that last evicted it
/// (or bypassed it, or wrote it away). A line absent from the map was never here: a cold miss.
/// Only looked up, never iterated to decide anything.
#[derive(Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LineHistory(HashMap<u64, u16, BuildHasherDefault<LineHasher>>);

impl std::fmt::Debug for LineHistory {
    /// In line order: the map's own order depends on how it grew, which a machine read from a
    /// checkpoint (the map built again) does not share with the one that saved it, and state
    /// hashes format the machine with `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut lines: Vec<_> = self.0.iter().collect();
        lines.sort_unstable();
        f.debug_map().entries(lines).finish()
    }
}

/// A fixed (deterministic) mixing hash for line numbers.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct LineHasher(u64);

impl Hasher for LineHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        // SplitMix64: strided line numbers spread over every bucket.
        self.0 = mix(x ^ self.0);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Why a missing line was missing (seed 004 §2.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MissKind {
    Cold,
    IntraWarp,
    InterWarp,
}

impl LineHistory {
    /// Records that `warp` misses on `key` and marks it `now` (resident or dropped by
    /// `warp`); returns why it was missing.
    fn miss(&mut self, key: u64, warp: u16, now: u16) -> MissKind {
        match self.0.insert(key, now) {
            None => MissKind::Cold,
            Some(w) if w == warp => MissKind::IntraWarp,
            Some(_) => MissKind::InterWarp,
        }
    }

    /// `warp` evicted (or invalidated) `key`.
    fn dropped(&mut self, key: u64, warp: u16) {
        self.0.insert(key, warp);
    }
}

/// The accesses of the load being serviced so far.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
struct LoadService {
    accesses: u32,
    misses: u32,
    /// Sets touched, one bit per set.
    sets: Vec<u64>,
}

/// An access the L1 looked up after it waited in its bank's latency queue (or that MASCAR
/// parked and the L1 took later): whose it is and the L1's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Looked {
    pub warp: u16,
    pub load_slot: u8,
    pub index: u8,
    pub addr: u64,
    pub load: bool,
    pub outcome: CacheOutcome,
}

impl Looked {
    pub fn of(req: &MemRequest, outcome: CacheOutcome) -> Looked {
        let o = req.origin;
        Looked {
            warp: o.warp,
            load_slot: o.load_slot,
            index: o.index,
            addr: req.addr,
            load: req.kind.is_load(),
            outcome,
        }
    }
}

/// Why a bank's head was refused, and what must change before it can be taken: its lookup is
/// not redone until then (as the LD/ST unit's replays, `Ldst::replay_refusal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Refusal {
    cause: StallCause,
    fills: u64,
}

/// One line of a set's chain, as the LRU-chain view shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChainLine {
    pub way: usize,
    /// Byte address of the line.
    pub addr: u64,
    pub state: LineState,
    /// Warp slot that brought it in, and the PC of that load.
    pub owner: u16,
    pub pc: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct L1 {
    pub core: u16,
    pub tags: TagArray,
    pub mshr: Mshr,
    pub miss_queue: BoundedQueue<MemRequest>,
    /// The banked latency queues accesses wait in before their lookup (`l1.latency_queue`).
    banks: Option<BankQueues>,
    /// Each bank's refused head.
    refused: Vec<Option<Refusal>>,
    /// Hits on their way back (`hit_latency`; none with latency queues, where the access
    /// waited before its lookup).
    hits: LatencyQueue<MemRequest>,
    pub alloc: AllocPolicy,
    write: L1Write,
    /// Lines of 32-byte sectors, MSHR entries per sector (`l1.sectored`).
    sectored: bool,
    /// A merge into a pending miss touches its line (`l1.touch_on_merge`).
    touch_on_merge: bool,
    flush_when_idle: bool,
    line_shift: u32,
    /// Fills so far (a replay can only change outcome after one).
    pub fills: u64,
    /// PMEM (seed 003 §3): every access hits; stores are absorbed.
    pub perfect: bool,
    /// `l1.skip_global`: loads go below without a lookup.
    skip: bool,
    /// `l1.write_ratio`, and the valid lines a store has written.
    write_ratio: u32,
    written: usize,
    /// Valid lines evicted since the SM last drained them: (owner warp, line key). Recorded
    /// only when `record_victims` is set (CCWS's victim tags).
    pub victims: Vec<(u16, u64)>,
    pub record_victims: bool,
    pub stats: CacheStats,
    /// Divergence metrics (MPLI, miss kinds, concentration, balance, bypasses).
    pub loads: L1LoadStats,
    /// The SM's fully-cached-warp partitioning, trained on divergent loads (seed 004 §4.2.4);
    /// DaCache sizes its locality region from it.
    pub fcw: FcwTrainer,
    history: LineHistory,
    /// The loads being serviced: one at a time, or with latency queues, whose banks may look
    /// up a load's accesses out of order and interleave loads, one per warp and load slot.
    current: Vec<LoadService>,
    loads_per_warp: usize,
}

impl L1 {
    pub fn new(c: &Config, core: u16) -> L1 {
        let l = &c.l1;
        let sets = l.sets as usize;
        // An adaptive L1 is allocated at the whole unified array; it starts at its own ways.
        let ways = l.ways as usize * c.l1_adaptive_multiple() as usize;
        let line_shift = l.line_bytes.trailing_zeros();
        let fcw = FcwTrainer::new(c.core.warp_schedulers, c.warps_per_sm() as u32);
        let mut replacement = ReplacementKind::new(l.replacement, sets, ways, c);
        replacement.repartition(fcw.fcw);
        let mut tags = TagArray::new(sets, ways, IndexKind::new(l.index, sets, line_shift), replacement);
        tags.set_active_ways(l.ways as usize);
        tags.track_reuse(c.warps_per_scheduler());
        // Loads that skip the L1 go below at once, one a cycle, with no latency queue.
        let banks = (l.latency_queue && !l.skip_global)
            .then(|| BankQueues::new(l.banks, l.bank_bytes, l.hit_latency));
        let loads_per_warp = c.core.max_loads_per_warp as usize;
        let services = if banks.is_some() { c.warps_per_sm() * loads_per_warp } else { 1 };
        L1 {
            core,
            tags,
            mshr: Mshr::new(l.mshr_entries as usize, l.mshr_merge as usize),
            miss_queue: BoundedQueue::new(l.miss_queue as usize),
            refused: vec![None; banks.as_ref().map_or(0, |b| b.banks())],
            hits: if banks.is_some() {
                LatencyQueue::new(0, l.banks as usize)
            } else {
                LatencyQueue::new(l.hit_latency.into(), l.hit_latency as usize + 1)
            },
            banks,
            alloc: l.allocate,
            write: l.write,
            sectored: l.sectored,
            touch_on_merge: l.touch_on_merge,
            flush_when_idle: l.flush_when_idle,
            line_shift,
            fills: 0,
            perfect: c.ideal.perfect_l1,
            skip: l.skip_global,
            write_ratio: l.write_ratio,
            written: 0,
            victims: Vec::with_capacity(2),
            record_victims: false,
            stats: CacheStats::default(),
            loads: L1LoadStats { set_accesses: vec![0; sets], ..L1LoadStats::default() },
            fcw,
            history: LineHistory::default(),
            current: vec![
                LoadService { sets: vec![0; sets.div_ceil(64)], ..LoadService::default() };
                services
            ],
            loads_per_warp,
        }
    }

    #[inline]
    pub fn key(&self, addr: u64) -> u64 {
        addr >> self.line_shift
    }

    /// The MSHR key of `addr`: its line's, or in a sectored L1 its sector's.
    #[inline]
    fn mshr_key(&self, addr: u64) -> u64 {
        if self.sectored { sectors::key(self.key(addr), addr, 1 << self.line_shift) } else { self.key(addr) }
    }

    /// Looks up what a load of `addr` needs: its line, or in a sectored L1 its sector
    /// (`Pending` then also for a present line without the sector, [`sectors::probe`]).
    #[inline]
    fn probe(&self, addr: u64) -> (usize, Probe) {
        let (set, probe) = self.tags.probe(self.key(addr));
        if self.sectored {
            (set, sectors::probe(&self.tags, set, probe, sectors::bit(addr, 1 << self.line_shift)))
        } else {
            (set, probe)
        }
    }

    /// Whether a load of this line (or sector) would need a new MSHR entry (a miss not
    /// mergeable into one in flight). Used to predict a load's MSHR demand (memory occlusion).
    pub fn needs_mshr(&self, addr: u64) -> bool {
        !matches!(self.probe(addr).1, Probe::Hit(_)) && self.mshr.find(self.mshr_key(addr)).is_none()
    }

    /// Tries one access. On success the request is consumed (queued below, merged, bypassed,
    /// or on its way back as a hit); on failure the cause is returned and the LD/ST unit
    /// retries. A perfect L1 returns every access as a hit after the hit latency (stores
    /// included; the SM retires them when they come back).
    #[inline(always)]
    pub fn access(
        &mut self,
        mut req: MemRequest,
        ctx: &AccessCtx,
        now: u64,
        map: &AddressMap,
        sink: &mut EventSink,
    ) -> Result<CacheOutcome, StallCause> {
        if self.perfect {
            return Ok(self.perfect_access(req, now));
        }
        let key = self.key(req.addr);
        if req.kind == AccessKind::Store {
            if self.miss_queue_full(false) {
                self.stats.stall(StallCause::MissQueue);
                return Err(StallCause::MissQueue);
            }
            match self.write {
                L1Write::Evict => {
                    if self.tags.invalidate(key) {
                        self.stats.write_hits += 1;
                        self.history.dropped(key, req.origin.warp);
                    }
                }
                L1Write::Through => {
                    if let Err(cause) = self.write_through(key, &req, ctx, sink) {
                        self.stats.stall(cause);
                        return Err(cause);
                    }
                }
            }
            self.stats.writes += 1;
            req.trace.l1 = CacheOutcome::Write;
            req.loc = map.map(req.addr);
            self.send_below(req, now);
            return Ok(CacheOutcome::Write);
        }
        if self.skip || req.kind == AccessKind::Atomic {
            return self.skip_load(req, ctx, (map, now), sink);
        }
        let (set, probe) = self.probe(req.addr);
        let service = self.service_slot(&req);
        if let Probe::Hit(way) = probe {
            self.tags.touch_by(set, way, ctx.warp);
            self.stats.reads += 1;
            self.stats.read_hits += 1;
            req.trace.l1 = CacheOutcome::Hit;
            self.hits.push(now, req);
            self.serviced(service, set, false, ctx, sink);
            return Ok(CacheOutcome::Hit);
        }
        if let Some(i) = self.mshr.find(self.mshr_key(req.addr)) {
            if !self.mshr.can_merge(i) {
                self.stats.stall(StallCause::MergeFull);
                return Err(StallCause::MergeFull);
            }
            self.stats.reads += 1;
            self.stats.merged += 1;
            req.trace.l1 = CacheOutcome::Merged;
            self.mshr.merge(i, req);
            if let Probe::Pending(way) = probe
                && self.touch_on_merge
            {
                self.tags.touch_pending(set, way);
            }
            self.serviced(service, set, true, ctx, sink);
            return Ok(CacheOutcome::Merged);
        }
        let cause = if self.mshr.free() == 0 {
            Some(StallCause::Mshr)
        } else if self.miss_queue_full(true) {
            Some(StallCause::MissQueue)
        } else {
            None
        };
        if let Some(cause) = cause {
            self.stats.stall(cause);
            return Err(cause);
        }
        if let Probe::Pending(way) = probe {
            // A sector missing from a present line: the line stays, reserved until none of its
            // sectors waits (only a sectored L1 has a reserved line without an MSHR entry).
            self.tags.touch_by(set, way, ctx.warp);
            self.tags.line_mut(set, way).state = LineState::Reserved;
        } else if self.alloc == AllocPolicy::OnMiss {
            let Some(way) = self.victim(set) else {
                if self.tags.replacement.bypasses() {
                    self.bypass(req, (set, service), ctx, (map, now), sink);
                    return Ok(CacheOutcome::Miss);
                }
                self.stats.stall(StallCause::LineAlloc);
                return Err(StallCause::LineAlloc);
            };
            let line = Line {
                key,
                addr: req.addr - req.addr % (1u64 << self.line_shift),
                state: LineState::Reserved,
                dirty: false,
                owner: req.origin.warp,
                pc: req.origin.pc,
                sectors: 0,
                dirty_sectors: 0,
            };
            if let Some(old) = self.tags.install(set, way, line, ctx) {
                self.evicted(&old, set, ctx, sink);
            }
        }
        self.stats.reads += 1;
        self.stats.read_misses += 1;
        self.classify_miss(key, ctx.warp, RESIDENT);
        req.trace.l1 = CacheOutcome::Miss;
        req.loc = map.map(req.addr);
        self.mshr.allocate(self.mshr_key(req.addr), req.id, req.origin.warp, now);
        self.send_below(req, now);
        self.serviced(service, set, true, ctx, sink);
        Ok(CacheOutcome::Miss)
    }

    /// Whether accesses wait in banked latency queues before their lookup.
    pub fn banked(&self) -> bool {
        self.banks.is_some()
    }

    /// How many accesses the L1 can take in a cycle: one per bank (one without latency queues).
    pub fn bank_count(&self) -> usize {
        self.banks.as_ref().map_or(1, |b| b.banks())
    }

    /// An access enters its bank's latency queue (with `l1.latency_queue`), if the bank can
    /// take one this cycle; its lookup comes `hit_latency` cycles later ([`L1::lookups`]).
    /// Refused: the bank already took an access this cycle, or is full behind a refused head.
    pub fn offer(&mut self, req: MemRequest, ctx: &AccessCtx) -> Result<(), StallCause> {
        let banks = self.banks.as_mut().expect("offer needs latency queues");
        if !banks.can_enter(banks.bank_of(req.addr)) {
            self.stats.stall(StallCause::Bank);
            return Err(StallCause::Bank);
        }
        banks.enter(req, *ctx);
        Ok(())
    }

    /// Looks up each bank's head access, then moves every access one stage forward; appends
    /// what each lookup decided to `out`. A refused head stays for the next cycle, and is not
    /// looked up again until what refused it can have changed (a fill, or room in the miss
    /// queue). Returns whether anything was looked up or moved.
    pub fn lookups(
        &mut self,
        now: u64,
        map: &AddressMap,
        sink: &mut EventSink,
        out: &mut Vec<Looked>,
    ) -> bool {
        let Some(n) = self.banks.as_ref().filter(|b| !b.is_empty()).map(|b| b.banks()) else {
            return false;
        };
        for b in 0..n {
            let Some((req, ctx)) = self.banks.as_ref().expect("banked").head(b) else { continue };
            if let Some(r) = self.refused[b]
                && self.refusal_persists(r)
            {
                self.stats.stall(r.cause);
                continue;
            }
            match self.access(req, &ctx, now, map, sink) {
                Ok(outcome) => {
                    self.refused[b] = None;
                    let banks = self.banks.as_mut().expect("banked");
                    banks.take_head(b);
                    if sink.records() {
                        let past = (now - req.trace.created).saturating_sub(banks.latency()).min(4095);
                        sink.pass(
                            Point::L1Lookup,
                            self.core,
                            outcome as u16 | (past as u16) << 4,
                            Who::of(&req),
                        );
                    }
                    out.push(Looked::of(&req, outcome));
                }
                Err(cause) => {
                    if self.refused[b].is_none() && sink.records() {
                        sink.pass(Point::L1Refused, self.core, cause as u16, Who::of(&req));
                    }
                    self.refused[b] = Some(Refusal { cause, fills: self.fills });
                }
            }
        }
        self.banks.as_mut().expect("banked").advance();
        true
    }

    /// Whether a lookup refused for `r` would be refused again now.
    fn refusal_persists(&self, r: Refusal) -> bool {
        match r.cause {
            StallCause::Mshr => self.mshr.free() == 0,
            StallCause::MissQueue => self.fills == r.fills && self.miss_queue_full(true),
            StallCause::LineAlloc | StallCause::MergeFull => self.fills == r.fills,
            _ => false,
        }
    }

    /// The accesses in the latency queues: (bank, stage, request); stage 0 is looked up next.
    pub fn in_banks(&self) -> impl Iterator<Item = (usize, usize, &MemRequest)> {
        self.banks.iter().flat_map(|b| b.iter())
    }

    /// The L1 side of a write-through store with lazy fetch on read (GPGPU-Sim's
    /// `data_cache::wr_hit_wt` and `wr_miss_wa_lazy_fetch_on_read`): a hit updates the line and
    /// keeps it; a miss that writes every byte of the line installs it valid, so the next load
    /// of it hits (GPGPU-Sim makes a fully written sector readable; a partly written line it
    /// would fetch on that load is not installed here). A sectored L1's store is one sector's:
    /// written whole, the sector becomes readable, in a present line or a newly installed one.
    /// The data goes below either way.
    fn write_through(
        &mut self,
        key: u64,
        req: &MemRequest,
        ctx: &AccessCtx,
        sink: &mut EventSink,
    ) -> Result<(), StallCause> {
        let (set, probe) = self.tags.probe(key);
        let line_bytes = 1u32 << self.line_shift;
        let segment = if self.sectored { SECTOR_BYTES as u32 } else { line_bytes };
        let whole = req.bytes >= segment && ctx.sectors.count_ones() == segment / SECTOR_BYTES as u32;
        let readable = if self.sectored && whole { sectors::bit(req.addr, line_bytes) } else { 0 };
        match probe {
            Probe::Hit(way) => {
                self.tags.touch_by(set, way, ctx.warp);
                self.tags.line_mut(set, way).sectors |= readable;
                self.stats.write_hits += 1;
                self.mark_written(set, way);
            }
            // A line waiting for a fill: the fill decides what is readable (GPGPU-Sim's
            // modified-on-fill marks are not modelled).
            Probe::Pending(_) => {}
            Probe::Miss => {
                // A sectored L1 allocates every store miss (lazy fetch on read) and waits for a
                // replaceable way (GPGPU-Sim's LINE_ALLOC_FAIL); a non-sectored one only a
                // store that writes the whole line, when a way is free to take.
                let way = match (self.sectored, whole) {
                    (true, _) => Some(self.victim(set).ok_or(StallCause::LineAlloc)?),
                    (false, true) => self.tags.victim(set),
                    (false, false) => None,
                };
                if let Some(way) = way {
                    let line = Line {
                        key,
                        addr: req.addr - req.addr % u64::from(line_bytes),
                        state: LineState::Valid,
                        dirty: false,
                        owner: req.origin.warp,
                        pc: req.origin.pc,
                        sectors: readable,
                        dirty_sectors: 0,
                    };
                    self.history.0.insert(key, RESIDENT);
                    if let Some(old) = self.tags.install(set, way, line, ctx) {
                        self.evicted(&old, set, ctx, sink);
                    }
                    if self.sectored {
                        self.mark_written(set, way);
                    }
                }
            }
        }
        Ok(())
    }

    /// A store wrote the valid line at (`set`, `way`).
    fn mark_written(&mut self, set: usize, way: usize) {
        let line = self.tags.line_mut(set, way);
        if !line.dirty {
            line.dirty = true;
            self.written += 1;
        }
    }

    /// The way a miss in `set` may take: with `l1.write_ratio`, a line a store wrote is kept
    /// while fewer than that percentage of the L1's lines are written (`tag_array::probe`).
    fn victim(&self, set: usize) -> Option<usize> {
        let keep = self.written * 100 < self.write_ratio as usize * self.tags.active_lines();
        self.tags.victim_keeping(set, keep)
    }

    /// Whether the miss queue has no room for a read miss (`read`) or a store. With latency
    /// queues a read miss needs one slot to spare, as GPGPU-Sim 4's `rd_miss_base` asks
    /// `miss_queue_full(1)`: the queue holds at most `miss_queue − 1` read misses.
    fn miss_queue_full(&self, read: bool) -> bool {
        let spare = usize::from(read && self.banks.is_some());
        self.miss_queue.len() + spare >= self.miss_queue.capacity()
    }

    /// Sends a request toward the crossbar: into the miss queue.
    fn send_below(&mut self, req: MemRequest, _now: u64) {
        let _ = self.miss_queue.push(req);
    }

    /// Uses `ways` ways of every set (an adaptive L1 at a kernel's launch).
    pub fn use_ways(&mut self, ways: usize) {
        self.tags.set_active_ways(ways);
    }

    /// No thread is resident on the SM: an L1 that flushes when idle drops every valid line
    /// (GPGPU-Sim's `-gpgpu_flush_l1_cache`: `simt_core_cluster::cache_invalidate` each cycle a
    /// cluster has no thread left, after that cycle's CTA launches).
    pub fn sm_idle(&mut self) {
        if self.flush_when_idle {
            self.tags.invalidate_all();
            self.written = 0;
        }
    }

    /// Whether [`L1::sm_idle`] may still drop lines (an SM without warps is quiet only once
    /// it has nothing left to flush).
    pub fn flush_due(&self) -> bool {
        self.flush_when_idle && self.tags.holds_lines()
    }

    /// A load that skips the L1 (`l1.skip_global`; GPGPU-Sim's `-gpgpu_gmem_skip_L1D` path of
    /// `ldst_unit::memory_cycle`), or an atomic (which Accel-Sim marks `CACHE_GLOBAL`, the same
    /// path, whatever the L1's banks): it goes below as its sectors when the miss queue has room
    /// (GPGPU-Sim's `m_icnt->full` check), with no lookup, line or MSHR, and is not an L1
    /// access in the statistics (GPGPU-Sim counts none); its reply passes through.
    fn skip_load(
        &mut self,
        mut req: MemRequest,
        ctx: &AccessCtx,
        (map, now): (&AddressMap, u64),
        sink: &mut EventSink,
    ) -> Result<CacheOutcome, StallCause> {
        if self.miss_queue_full(false) {
            self.stats.stall(StallCause::MissQueue);
            return Err(StallCause::MissQueue);
        }
        let service = self.service_slot(&req);
        let set = self.tags.probe(self.key(req.addr)).0;
        req.bytes = (SECTOR_BYTES as u32) * ctx.sectors.count_ones().max(1);
        req.trace.l1 = CacheOutcome::Miss;
        req.trace.bypassed = true;
        req.loc = map.map(req.addr);
        self.send_below(req, now);
        self.serviced(service, set, true, ctx, sink);
        Ok(CacheOutcome::Miss)
    }

    /// Sends a missing access below without a line: only its 32 B sectors, no MSHR (the data
    /// goes to the registers).
    fn bypass(
        &mut self,
        mut req: MemRequest,
        (set, service): (usize, usize),
        ctx: &AccessCtx,
        (map, now): (&AddressMap, u64),
        sink: &mut EventSink,
    ) {
        self.stats.reads += 1;
        self.stats.read_misses += 1;
        self.loads.bypassed += 1;
        let key = self.key(req.addr);
        self.classify_miss(key, ctx.warp, ctx.warp);
        req.bytes = (SECTOR_BYTES as u32) * ctx.sectors.count_ones().max(1);
        req.trace.l1 = CacheOutcome::Miss;
        req.trace.bypassed = true;
        req.loc = map.map(req.addr);
        if sink.wants(EventKind::Bypass) {
            sink.emit(Event::Bypass {
                core: self.core,
                warp: ctx.warp,
                pc: ctx.pc,
                set: set as u32,
                line: req.addr,
                bytes: req.bytes,
            });
        }
        self.send_below(req, now);
        self.serviced(service, set, true, ctx, sink);
    }

    fn classify_miss(&mut self, key: u64, warp: u16, now: u16) {
        match self.history.miss(key, warp, now) {
            MissKind::Cold => self.loads.misses_cold += 1,
            MissKind::IntraWarp => self.loads.misses_intra_warp += 1,
            MissKind::InterWarp => self.loads.misses_inter_warp += 1,
        }
    }

    /// `ctx`'s insertion displaced the valid line `old` (noted for CCWS's victim tags when
    /// `record_victims` is set).
    fn evicted(&mut self, old: &Line, set: usize, ctx: &AccessCtx, sink: &mut EventSink) {
        self.stats.evictions += 1;
        if old.dirty {
            self.written -= 1;
        }
        if self.record_victims {
            self.victims.push((old.owner, old.key));
        }
        self.history.dropped(old.key, ctx.warp);
        if old.owner == ctx.warp && sink.wants(EventKind::SetConflict) {
            sink.emit(Event::SetConflict {
                core: self.core,
                warp: ctx.warp,
                pc: ctx.pc,
                set: set as u32,
                line: old.addr,
                line_pc: old.pc,
            });
        }
    }

    /// Where the load of `req` is followed as its accesses are serviced: one record, or with
    /// latency queues (which look a load's accesses up out of order) its warp's load slot's.
    fn service_slot(&self, req: &MemRequest) -> usize {
        if self.current.len() == 1 {
            0
        } else {
            usize::from(req.origin.warp) * self.loads_per_warp + usize::from(req.origin.load_slot)
        }
    }

    /// One access of the load followed at `slot` was serviced (`missed`: it did not hit);
    /// after its last one, the load's metrics are recorded and divergent loads train FCW. In
    /// order, a load starts at its first access; out of order, when the last one was counted.
    fn serviced(&mut self, slot: usize, set: usize, missed: bool, ctx: &AccessCtx, sink: &mut EventSink) {
        let in_order = self.current.len() == 1;
        let cur = &mut self.current[slot];
        if in_order && ctx.index == 0 {
            cur.accesses = 0;
            cur.misses = 0;
            cur.sets.iter_mut().for_each(|w| *w = 0);
        }
        cur.accesses += 1;
        cur.misses += u32::from(missed);
        cur.sets[set / 64] |= 1 << (set % 64);
        self.loads.set_accesses[set] += 1;
        let last = if in_order {
            usize::from(ctx.index) + 1 >= usize::from(ctx.requests)
        } else {
            cur.accesses >= u32::from(ctx.requests)
        };
        if !last {
            return;
        }
        let (accesses, misses) = (cur.accesses, cur.misses);
        let touched: u32 = cur.sets.iter().map(|w| w.count_ones()).sum();
        if !in_order {
            cur.accesses = 0;
            cur.misses = 0;
            cur.sets.iter_mut().for_each(|w| *w = 0);
        }
        let bin = mpli_bin(misses);
        if accesses >= 2 {
            self.loads.concentration_ppm += u64::from(accesses) * 1_000_000 / u64::from(touched);
            self.loads.concentration_loads += 1;
        }
        if ctx.coherent() {
            self.loads.mpli_coherent[bin] += 1;
            return;
        }
        self.loads.mpli_divergent[bin] += 1;
        let before = self.fcw.fcw;
        if misses == 0 {
            self.fcw.fully_cached();
        } else {
            self.fcw.partially_cached(ctx.rank.into());
        }
        if self.fcw.fcw != before {
            self.tags.replacement.repartition(self.fcw.fcw);
            if sink.wants(EventKind::FcwChange) {
                sink.emit(Event::FcwChange { core: self.core, from: before as u16, to: self.fcw.fcw as u16 });
            }
        }
    }

    /// PMEM: the access hits (a store is absorbed) and comes back after the hit latency.
    #[cold]
    fn perfect_access(&mut self, mut req: MemRequest, now: u64) -> CacheOutcome {
        let outcome = if req.kind == AccessKind::Store {
            self.stats.writes += 1;
            self.stats.write_hits += 1;
            CacheOutcome::Write
        } else {
            self.stats.reads += 1;
            self.stats.read_hits += 1;
            CacheOutcome::Hit
        };
        req.trace.l1 = outcome;
        self.hits.push(now, req);
        outcome
    }

    /// A reply arrived: fill the line and hand back the returning request and every request
    /// merged behind it (appended to `out`). `ctx` is the reply's load (allocate-on-fill
    /// inserts its line for it). A bypassed reply only passes through.
    pub fn fill(
        &mut self,
        reply: MemRequest,
        ctx: &AccessCtx,
        out: &mut Vec<MemRequest>,
        sink: &mut EventSink,
    ) {
        if reply.trace.bypassed {
            out.push(reply);
            return;
        }
        self.fills += 1;
        let key = self.key(reply.addr);
        let (set, probe) = self.tags.probe(key);
        if self.sectored {
            // Allocate-on-miss only (`config::validate`).
            let addr = reply.addr;
            out.push(reply);
            self.mshr.release(self.mshr_key(addr), out);
            if let Probe::Pending(way) = probe {
                sectors::filled(&mut self.tags, (set, way), addr, 1 << self.line_shift, &self.mshr);
            }
            return;
        }
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
                    sectors: 0,
                    dirty_sectors: 0,
                };
                if let Some(old) = self.tags.install(set, way, line, ctx) {
                    self.evicted(&old, set, ctx, sink);
                }
            }
            _ => {}
        }
        out.push(reply);
        self.mshr.release(key, out);
    }

    /// When the next returning hit's latency elapses.
    pub fn next_hit_at(&self) -> Option<u64> {
        self.hits.next_at()
    }

    /// The next hit whose latency has elapsed.
    pub fn pop_hit(&mut self, now: u64) -> Option<MemRequest> {
        self.hits.pop_ready(now)
    }

    /// Requests held here: in the latency queues, queued below, merged in MSHRs, or returning
    /// hits.
    pub fn occupancy(&self) -> usize {
        self.banks.as_ref().map_or(0, |b| b.len())
            + self.miss_queue.len()
            + self.hits.len()
            + self.mshr.entries().map(|e| e.merged.len()).sum::<usize>()
    }

    pub fn hits_in_flight(&self) -> impl Iterator<Item = &(u64, MemRequest)> {
        self.hits.iter()
    }

    /// The LRU-chain view of a set: its lines from the most protected (MRU) to the least
    /// (LRU), with state (reserved lines are waiting for their fill), owner warp and load PC.
    pub fn chain(&self, set: usize) -> Vec<ChainLine> {
        self.tags
            .chain(set)
            .into_iter()
            .map(|(way, l)| ChainLine { way, addr: l.addr, state: l.state, owner: l.owner, pc: l.pc })
            .collect()
    }

    /// DaCache's locality/thrashing boundary: the number of chain positions (from MRU) that
    /// can never be victims now. `None` for policies without a locality region.
    pub fn locality_ways(&self) -> Option<usize> {
        self.tags.replacement.locality_ways()
    }

    /// Where in [`L1::chain`] a line missing now for `ctx` would be inserted (build `ctx`
    /// with `Sm::access_ctx`).
    pub fn insertion_position(&self, set: usize, ctx: &AccessCtx) -> usize {
        self.tags.replacement.insertion_position(set, ctx)
    }

    /// Roughly the bytes the miss-classification record takes (it grows with the lines this L1
    /// has missed on).
    pub fn history_bytes(&self) -> usize {
        self.history.0.capacity() * (std::mem::size_of::<(u64, u16)>() + 1)
    }

    /// The set a byte address maps to.
    pub fn set_of(&self, addr: u64) -> usize {
        self.tags.set_of(self.key(addr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::request::AccessKind;

    /// An L1 of the default machine with `sets` overrides, its address map and an event sink
    /// listening to every kind.
    struct Rig {
        l1: L1,
        map: AddressMap,
        sink: EventSink,
        next_id: u64,
    }

    fn rig(sets: &[&str]) -> Rig {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::default().with_sets(&sets).unwrap();
        let mut sink = EventSink::default();
        sink.set_mask(u64::MAX);
        Rig { l1: L1::new(&c, 3), map: AddressMap::new(&c), sink, next_id: 0 }
    }

    fn req(id: u64, addr: u64, warp: u16) -> MemRequest {
        MemRequest {
            id,
            kind: AccessKind::Load,
            addr,
            bytes: 128,
            lanes: 1,
            origin: crate::sim::request::Origin { warp, ..Default::default() },
            loc: Default::default(),
            trace: Default::default(),
        }
    }

    /// A coherent single-access load of warp 0.
    fn one(warp: u16) -> AccessCtx {
        AccessCtx { warp, requests: 1, sectors: 1, ..AccessCtx::default() }
    }

    impl Rig {
        fn access(&mut self, addr: u64, ctx: &AccessCtx, now: u64) -> Result<CacheOutcome, StallCause> {
            self.next_id += 1;
            let r = req(self.next_id, addr, ctx.warp);
            self.l1.access(r, ctx, now, &self.map, &mut self.sink)
        }

        /// A whole load of `warp` (rank `rank`) over `addrs`, one access per line.
        fn load(&mut self, warp: u16, rank: u16, addrs: &[u64]) -> Vec<CacheOutcome> {
            (0..addrs.len())
                .map(|k| {
                    let ctx = AccessCtx {
                        warp,
                        rank,
                        prio: (rank / 2) as u8,
                        requests: addrs.len() as u8,
                        index: k as u8,
                        sectors: 1,
                        ..AccessCtx::default()
                    };
                    self.access(addrs[k], &ctx, 0).expect("no stall")
                })
                .collect()
        }

        /// Fills every miss waiting below.
        fn fill_all(&mut self) -> Vec<MemRequest> {
            let mut out = Vec::new();
            while let Some(r) = self.l1.miss_queue.pop() {
                self.l1.fill(r, &AccessCtx::default(), &mut out, &mut self.sink);
            }
            out
        }

        fn events(&mut self) -> Vec<Event> {
            self.sink.drain().map(|(_, e)| e).collect()
        }

        fn fcw_changes(&mut self) -> Vec<Event> {
            self.events().into_iter().filter(|e| matches!(e, Event::FcwChange { .. })).collect()
        }
    }

    /// A store of `bytes` bytes over `sectors` of the line at `addr`, at cycle `now`.
    fn store(r: &mut Rig, addr: u64, bytes: u32, sectors: u8, now: u64) {
        r.next_id += 1;
        let req = MemRequest { kind: AccessKind::Store, bytes, ..req(r.next_id, addr, 0) };
        let ctx = AccessCtx { sectors, ..one(0) };
        assert_eq!(r.l1.access(req, &ctx, now, &r.map, &mut r.sink), Ok(CacheOutcome::Write));
    }

    /// The store the L1 sent below last.
    fn sent_store(r: &mut Rig) -> Option<AccessKind> {
        r.l1.miss_queue.pop().map(|w| w.kind)
    }

    #[test]
    fn stores_evict_or_write_through_and_install_whole_lines() {
        // Write-evict: a store hit drops the line, so the next load misses.
        let mut r = rig(&[]);
        assert_eq!(r.access(0x1000, &one(0), 0), Ok(CacheOutcome::Miss));
        r.fill_all();
        store(&mut r, 0x1000, 128, 0b1111, 0);
        assert_eq!(sent_store(&mut r), Some(AccessKind::Store), "the data goes below");
        assert_eq!(r.access(0x1000, &one(0), 1), Ok(CacheOutcome::Miss));
        assert_eq!((r.l1.stats.writes, r.l1.stats.write_hits), (1, 1));
        // Write-through: the hit keeps the line; a miss writing all 128 bytes installs it; a
        // miss writing 4 bytes of one sector does not.
        let mut r = rig(&["l1.write=\"through\""]);
        assert_eq!(r.access(0x1000, &one(0), 0), Ok(CacheOutcome::Miss));
        r.fill_all();
        for (addr, bytes, sectors) in [(0x1000, 128, 0b1111), (0x2000, 128, 0b1111), (0x3000, 4, 0b0001)] {
            store(&mut r, addr, bytes, sectors, 0);
            assert_eq!(sent_store(&mut r), Some(AccessKind::Store), "the data goes below");
        }
        assert_eq!(r.access(0x1000, &one(0), 1), Ok(CacheOutcome::Hit));
        assert_eq!(r.access(0x2000, &one(0), 1), Ok(CacheOutcome::Hit));
        assert_eq!(r.access(0x3000, &one(0), 1), Ok(CacheOutcome::Miss));
        assert_eq!((r.l1.stats.writes, r.l1.stats.write_hits), (3, 1));
    }

    /// Volta's L1 (`T:L`, `-gpgpu_l1_cache_write_ratio`): a sectored write-through L1 allocates
    /// every store miss and keeps written lines from replacement while fewer than
    /// `write_ratio` % of its lines are written. Two sets of two ways (four lines), lines 256 B
    /// apart in set 0.
    #[test]
    fn stores_allocate_and_written_lines_are_kept_below_the_write_ratio() {
        let setup = |ratio: u32| {
            let sets = ["l1.sectored=true", "l1.write=\"through\"", "l1.sets=2", "l1.ways=2"];
            let mut sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            sets.push(format!("l1.write_ratio={ratio}"));
            rig(&sets.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let lines = |r: &Rig| {
            r.l1.chain(0).iter().filter(|l| l.state != LineState::Invalid).map(|l| l.addr).collect::<Vec<_>>()
        };
        // Half the lines may be written before a written line is replaced.
        let mut r = setup(50);
        store(&mut r, 0, 4, 0b0001, 0);
        sent_store(&mut r);
        assert_eq!(lines(&r), [0], "a 4-byte store miss allocates its line");
        assert_eq!(r.access(256, &one(0), 1), Ok(CacheOutcome::Miss));
        r.fill_all();
        // One line of four written (25 % < 50 %): the next miss takes 256, not the older 0.
        assert_eq!(r.access(512, &one(0), 2), Ok(CacheOutcome::Miss));
        r.fill_all();
        assert_eq!(lines(&r), [512, 0]);
        // A second written line (50 %): written lines are candidates again, 0 is the oldest.
        store(&mut r, 768, 32, 0b0001, 3);
        sent_store(&mut r);
        assert_eq!(lines(&r), [768, 0], "the store took 512's way");
        assert_eq!(r.access(1024, &one(0), 4), Ok(CacheOutcome::Miss));
        assert_eq!(lines(&r), [1024, 768]);
        // Every way written and under the ratio: loads and stores wait for a line.
        let mut r = setup(100);
        for (i, addr) in [0, 256].into_iter().enumerate() {
            store(&mut r, addr, 4, 0b0001, i as u64);
            sent_store(&mut r);
        }
        assert_eq!(r.access(512, &one(0), 2), Err(StallCause::LineAlloc));
        let st = MemRequest { kind: AccessKind::Store, bytes: 4, ..req(99, 768, 0) };
        assert_eq!(r.l1.access(st, &one(0), 2, &r.map, &mut r.sink), Err(StallCause::LineAlloc));
        assert_eq!(sent_store(&mut r), None, "a refused store sends nothing");
        // Without the ratio the same loads replace written lines.
        let mut r = setup(0);
        for (i, addr) in [0, 256].into_iter().enumerate() {
            store(&mut r, addr, 4, 0b0001, i as u64);
            sent_store(&mut r);
        }
        assert_eq!(r.access(512, &one(0), 2), Ok(CacheOutcome::Miss));
    }

    /// GPGPU-Sim 4's L1 (`l1.latency_queue`, 4 banks of 32-byte sectors, latency 3 here):
    /// the four sectors of a line enter in one cycle, one per bank, and are looked up 3 cycles
    /// later (a miss then enters the miss queue, a hit returns at once); a bank takes one access
    /// per cycle; with no MSHR free the head of a bank is refused and stays, its bank fills
    /// behind it while another bank's accesses go on, and it is taken once a fill frees an
    /// entry.
    #[test]
    fn banked_latency_queues_look_accesses_up_late_and_a_refused_head_holds_only_its_bank() {
        let mut r = rig(&[
            "l1.latency_queue=true",
            "l1.banks=4",
            "l1.hit_latency=3",
            "l1.sectored=true",
            "l1.mshr_entries=5",
            "l1.miss_queue=8",
        ]);
        let mut looked = Vec::new();
        let offer = |r: &mut Rig, addr: u64, warp: u16| {
            r.next_id += 1;
            let q = MemRequest { bytes: 32, ..req(r.next_id, addr, warp) };
            r.l1.offer(q, &one(warp))
        };
        for k in 0..4 {
            assert_eq!(offer(&mut r, 0x1000 + 32 * k, 0), Ok(()), "sector {k} enters bank {k}");
        }
        assert_eq!(offer(&mut r, 0x2000, 1), Err(StallCause::Bank), "bank 0 took an access this cycle");
        let cycle = |r: &mut Rig, now: u64, looked: &mut Vec<Looked>| {
            looked.clear();
            r.l1.lookups(now, &r.map, &mut r.sink, looked);
        };
        cycle(&mut r, 1, &mut looked);
        cycle(&mut r, 2, &mut looked);
        assert!(looked.is_empty() && r.l1.miss_queue.is_empty(), "nothing is looked up before the latency");
        cycle(&mut r, 3, &mut looked);
        assert_eq!(looked.iter().map(|l| l.outcome).collect::<Vec<_>>(), [CacheOutcome::Miss; 4]);
        assert_eq!((r.l1.miss_queue.len(), r.l1.mshr.free()), (4, 1));
        // A second line's sector 0 (bank 0) takes the last MSHR; a third's (bank 0 again) is
        // refused at the head, and bank 0 fills up behind it; bank 1 still works.
        assert_eq!(offer(&mut r, 0x2000, 1), Ok(()));
        cycle(&mut r, 4, &mut looked);
        assert_eq!(offer(&mut r, 0x3000, 2), Ok(()));
        for now in 5..8 {
            cycle(&mut r, now, &mut looked);
            if now == 5 {
                assert_eq!(offer(&mut r, 0x4000, 3), Ok(()));
            }
        }
        assert_eq!(r.l1.mshr.free(), 0);
        assert_eq!(r.l1.stats.stalls[StallCause::Mshr as usize], 1, "the head of bank 0 was refused once");
        assert_eq!(offer(&mut r, 0x5000, 4), Ok(()), "bank 0 has room behind its head");
        assert_eq!(offer(&mut r, 0x1020, 4), Ok(()), "bank 1 takes accesses");
        let mut merged = Vec::new();
        for now in 8..12 {
            cycle(&mut r, now, &mut looked);
            merged.extend(looked.iter().map(|l| (l.addr, l.outcome)));
        }
        assert_eq!(merged, [(0x1020, CacheOutcome::Merged)], "bank 1's access (to a pending sector) went on");
        assert_eq!(offer(&mut r, 0x6000, 5), Err(StallCause::Bank), "bank 0 is full behind its refused head");
        let in_bank_0 = r.l1.in_banks().filter(|(b, _, _)| *b == 0).count();
        assert_eq!(in_bank_0, 3, "0x3000 at the head, 0x4000 and 0x5000 behind it");
        // A fill frees an entry: the head is taken at the next lookup.
        let first = r.l1.miss_queue.pop().expect("a miss below");
        let mut out = Vec::new();
        r.l1.fill(first, &AccessCtx::default(), &mut out, &mut r.sink);
        cycle(&mut r, 12, &mut looked);
        assert_eq!(
            looked.iter().map(|l| (l.addr, l.outcome)).collect::<Vec<_>>(),
            [(0x3000, CacheOutcome::Miss)]
        );
        // The miss queue holds the first line's four sectors, 0x2000 and 0x3000, less the one
        // filled: 5 read misses.
        assert_eq!(r.l1.miss_queue.len(), 5);
    }
    #[test]
    fn an_idle_sm_flushes_only_a_flushing_l1() {
        for (flush, after) in [(false, CacheOutcome::Hit), (true, CacheOutcome::Miss)] {
            let mut r = rig(&[&format!("l1.flush_when_idle={flush}")]);
            assert_eq!(r.access(0x1000, &one(0), 0), Ok(CacheOutcome::Miss));
            r.fill_all();
            r.l1.sm_idle();
            assert_eq!(r.access(0x1000, &one(0), 1), Ok(after), "flush_when_idle = {flush}");
        }
    }

    /// A sectored L1 (GPGPU-Sim's `S` caches): two warps missing two sectors of one line take
    /// one line and an MSHR entry per sector and send two 32-byte requests; a sector that has
    /// arrived hits while the line still waits for another, and the line is valid (evictable)
    /// only once no sector of it waits.
    #[test]
    fn a_sectored_l1_misses_and_fills_per_sector() {
        let mut r = rig(&["l1.sectored=true"]);
        let sector = |r: &mut Rig, addr: u64, warp: u16| {
            r.next_id += 1;
            let q = MemRequest { bytes: 32, ..req(r.next_id, addr, warp) };
            r.l1.access(q, &one(warp), 0, &r.map, &mut r.sink)
        };
        let free = r.l1.mshr.free();
        assert_eq!(sector(&mut r, 0x1000, 0), Ok(CacheOutcome::Miss));
        assert_eq!(sector(&mut r, 0x1040, 1), Ok(CacheOutcome::Miss), "another sector of the line");
        assert_eq!(sector(&mut r, 0x1040, 2), Ok(CacheOutcome::Merged), "the same sector");
        assert_eq!((r.l1.tags.reserved(), free - r.l1.mshr.free()), (1, 2), "one line, two sector entries");
        let mut below = Vec::new();
        while let Some(q) = r.l1.miss_queue.pop() {
            below.push(q);
        }
        assert_eq!(below.iter().map(|q| (q.addr, q.bytes)).collect::<Vec<_>>(), [(0x1000, 32), (0x1040, 32)]);
        let fill = |r: &mut Rig, q: MemRequest| {
            let mut out = Vec::new();
            r.l1.fill(q, &AccessCtx::default(), &mut out, &mut r.sink);
            out.iter().map(|q| q.id).collect::<Vec<_>>()
        };
        assert_eq!(fill(&mut r, below[0]), [1], "sector 0 releases its own load only");
        assert_eq!(sector(&mut r, 0x1000, 3), Ok(CacheOutcome::Hit), "an arrived sector hits");
        assert_eq!(sector(&mut r, 0x1020, 3), Ok(CacheOutcome::Miss), "a sector never fetched misses");
        assert_eq!(fill(&mut r, below[1]), [2, 3], "sector 2 releases its load and the merged one");
        assert_eq!(r.l1.tags.reserved(), 1, "sector 1 still on its way");
        let third = r.l1.miss_queue.pop().expect("sector 1 went below");
        assert_eq!((third.addr, third.bytes), (0x1020, 32));
        assert_eq!(fill(&mut r, third), [5]);
        assert_eq!((r.l1.tags.reserved(), r.l1.mshr.free()), (0, free), "the line is valid");
        assert_eq!(sector(&mut r, 0x1040, 4), Ok(CacheOutcome::Hit));
        assert_eq!(sector(&mut r, 0x1060, 4), Ok(CacheOutcome::Miss), "sector 3 was never fetched");
        assert_eq!((r.l1.stats.reads, r.l1.stats.read_hits, r.l1.stats.read_misses), (7, 2, 4));
    }

    /// A sectored write-through L1 makes a sector written whole readable; a partly written
    /// one is fetched on the next load.
    #[test]
    fn a_sectored_l1_store_makes_the_sector_it_writes_whole_readable() {
        let mut r = rig(&["l1.sectored=true", "l1.write=\"through\""]);
        store(&mut r, 0x2000, 32, 1, 0);
        store(&mut r, 0x2020, 4, 1, 0);
        let load = |r: &mut Rig, addr: u64| {
            r.next_id += 1;
            let q = MemRequest { bytes: 32, ..req(r.next_id, addr, 0) };
            r.l1.access(q, &one(0), 1, &r.map, &mut r.sink)
        };
        assert_eq!(load(&mut r, 0x2000), Ok(CacheOutcome::Hit));
        assert_eq!(load(&mut r, 0x2020), Ok(CacheOutcome::Miss));
    }

    #[test]
    fn miss_merge_fill_then_hit() {
        let mut r = rig(&[]);
        let ctx = one(0);
        assert_eq!(r.access(0x1000, &ctx, 0), Ok(CacheOutcome::Miss));
        assert_eq!(r.access(0x1000, &ctx, 1), Ok(CacheOutcome::Merged));
        assert_eq!(r.l1.mshr.used(), 1);
        let sent = r.l1.miss_queue.pop().unwrap();
        assert_eq!((sent.id, sent.loc), (1, r.map.map(0x1000)), "only the first miss goes below, mapped");
        let mut out = Vec::new();
        r.l1.fill(sent, &ctx, &mut out, &mut r.sink);
        assert_eq!(out.iter().map(|r| r.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(r.l1.mshr.used(), 0);
        assert_eq!(r.access(0x1040, &ctx, 10), Ok(CacheOutcome::Hit));
        assert_eq!(r.l1.pop_hit(10 + 19), None);
        assert_eq!(r.l1.pop_hit(10 + 20).map(|r| r.id), Some(3), "hit latency 20");
    }

    /// GPGPU-Sim's `send_read_request` (`l1.touch_on_merge`): a load merging into a pending
    /// miss makes the line the most recently used (its `HIT_RESERVED` sets the last access
    /// time), for lines and for sectors alike. Two ways of set 0: A misses, then B, then a load
    /// of A merges; once both are filled B is the LRU line and C replaces it. Without the key
    /// the merge touches nothing and C replaces A.
    #[test]
    fn a_merge_into_a_pending_line_makes_it_most_recently_used() {
        for sectored in ["l1.sectored=false", "l1.sectored=true"] {
            for touch in [true, false] {
                let key = format!("l1.touch_on_merge={touch}");
                let mut r = rig(&["l1.ways=2", &key, sectored]);
                let (a, b, c) = (0, 4096, 8192);
                assert_eq!(r.access(a, &one(0), 0), Ok(CacheOutcome::Miss));
                assert_eq!(r.access(b, &one(1), 1), Ok(CacheOutcome::Miss));
                assert_eq!(r.access(a, &one(2), 2), Ok(CacheOutcome::Merged), "{sectored}");
                r.fill_all();
                assert_eq!(r.access(c, &one(3), 3), Ok(CacheOutcome::Miss));
                r.fill_all();
                let (kept, replaced) = if touch { (a, b) } else { (b, a) };
                assert_eq!(r.access(kept, &one(0), 4), Ok(CacheOutcome::Hit), "{sectored} {key}");
                assert_eq!(r.access(replaced, &one(1), 5), Ok(CacheOutcome::Miss), "{sectored} {key}");
            }
        }
    }

    /// Seed 004 §4.2.2's premise, measured: each line's first re-reference counts at its LRU
    /// stack distance, by the priority of the warp that inserted it. Four ways of set 0 under
    /// LRU; lines A–F lie 4096 B apart, all in set 0.
    #[test]
    fn first_re_references_count_at_their_stack_distance_by_inserting_priority() {
        let mut r = rig(&["l1.ways=4"]);
        let line = |k: u64| k * 4096;
        let (a, b, c, d, e, f) = (line(0), line(1), line(2), line(3), line(4), line(5));
        let by = |prio: u8| AccessCtx { prio, ..one(u16::from(prio)) };
        let go = |r: &mut Rig, addr: u64, prio: u8| r.access(addr, &by(prio), 0).expect("no stall");
        let reuse = |r: &Rig| r.l1.tags.reuse.as_ref().unwrap().stats.clone();
        go(&mut r, a, 0);
        go(&mut r, b, 1);
        go(&mut r, c, 2);
        r.fill_all();
        // A, hit after B and C came in: distance 2. Its second hit is no first re-reference.
        assert_eq!(go(&mut r, a, 5), CacheOutcome::Hit);
        assert_eq!(go(&mut r, a, 5), CacheOutcome::Hit);
        // D and E (priority 3) fill the set; E replaces B, the LRU line, never re-referenced.
        go(&mut r, d, 3);
        go(&mut r, e, 3);
        r.fill_all();
        assert_eq!(reuse(&r).never_reused, [0, 1, 0, 0].iter().chain(&[0; 12]).copied().collect::<Vec<_>>());
        // C: A, D and E since its insertion, distance 3; D: E and C since, distance 2.
        assert_eq!(go(&mut r, c, 0), CacheOutcome::Hit);
        assert_eq!(go(&mut r, d, 0), CacheOutcome::Hit);
        // A store drops E unreused (write-evict) and F takes its way: E counts nowhere.
        store(&mut r, e, 128, 0b1111, 0);
        go(&mut r, f, 0);
        let s = reuse(&r);
        let depths = |p: usize| s.depth[p * 4..(p + 1) * 4].to_vec();
        assert_eq!(
            (depths(0), depths(1), depths(2), depths(3)),
            (vec![0, 0, 1, 0], vec![0; 4], vec![0, 0, 0, 1], vec![0, 0, 1, 0])
        );
        assert_eq!(s.depth.len(), 16 * 4, "16 priorities (16 warps per scheduler) × 4 ways");
        assert_eq!(&s.inserted[..4], &[2, 1, 1, 2]);
        assert_eq!(s.never_reused.iter().sum::<u64>(), 1);
        assert!(s.insert_position.iter().all(|&p| p == 0), "LRU inserts at MRU");
    }

    /// TITANX's `-gpgpu_gmem_skip_L1D 1`: loads of the same line go below one by one as their
    /// sectors, with no line, MSHR or L1 access counted, until the miss queue (2) is full; a
    /// reply passes through and fills nothing, so the line still is not there.
    #[test]
    fn skipping_loads_go_below_as_sectors_without_line_mshr_or_lookup() {
        let mut r = rig(&["l1.skip_global=true", "l1.miss_queue=2", "l1.latency_queue=true", "l1.banks=4"]);
        assert_eq!(r.l1.bank_count(), 1, "one access a cycle, no latency queue");
        let wide = AccessCtx { sectors: 0b1011, ..one(0) };
        assert_eq!(r.access(0x1000, &wide, 0), Ok(CacheOutcome::Miss));
        assert_eq!(r.access(0x1000, &one(1), 0), Ok(CacheOutcome::Miss), "no merge: it goes below too");
        assert_eq!(r.access(0x2000, &one(2), 0), Err(StallCause::MissQueue));
        assert_eq!((r.l1.mshr.used(), r.l1.stats.reads, r.l1.stats.read_misses), (0, 0, 0));
        let first = r.l1.miss_queue.pop().unwrap();
        assert_eq!((first.bytes, first.trace.bypassed), (96, true), "three sectors");
        let mut out = Vec::new();
        r.l1.fill(first, &wide, &mut out, &mut r.sink);
        assert_eq!((out.len(), r.l1.fills), (1, 0), "passed through, nothing filled");
        assert_eq!(r.access(0x1000, &one(0), 1), Ok(CacheOutcome::Miss), "still not cached");
    }

    /// An atomic passes the L1 as a skipping load does (Accel-Sim's CACHE_GLOBAL): its
    /// sectors go below, no lookup, line or MSHR, not even on a line the L1 holds; its reply
    /// passes through.
    #[test]
    fn atomics_pass_the_l1_without_a_lookup() {
        let mut r = rig(&[]);
        // A load caches line 0x1000.
        assert_eq!(r.access(0x1000, &one(0), 0), Ok(CacheOutcome::Miss));
        let fill = r.l1.miss_queue.pop().unwrap();
        r.l1.fill(fill, &one(0), &mut Vec::new(), &mut r.sink);
        let before = (r.l1.stats.reads, r.l1.mshr.used(), r.l1.fills);
        let atomic = MemRequest { kind: AccessKind::Atomic, ..req(r.next_id, 0x1000, 0) };
        assert_eq!(r.l1.access(atomic, &one(1), 1, &r.map, &mut r.sink), Ok(CacheOutcome::Miss));
        assert_eq!((r.l1.stats.reads, r.l1.mshr.used(), r.l1.fills), before, "no lookup, MSHR or fill");
        let below = r.l1.miss_queue.pop().expect("the atomic goes below");
        assert_eq!((below.kind, below.bytes, below.trace.bypassed), (AccessKind::Atomic, 32, true));
        let mut out = Vec::new();
        r.l1.fill(below, &one(1), &mut out, &mut r.sink);
        assert_eq!((out.len(), r.l1.fills), (1, 1), "passed through");
    }

    #[test]
    fn each_stall_cause() {
        // Two MSHRs, merge of 2, miss queue of 2, one way per set (so lines can all be reserved).
        let mut r = rig(&["l1.mshr_entries=2", "l1.mshr_merge=2", "l1.miss_queue=2", "l1.ways=1"]);
        let ctx = one(0);
        assert!(r.access(0, &ctx, 0).is_ok());
        assert!(r.access(0, &ctx, 0).is_ok(), "merge");
        assert_eq!(r.access(0, &ctx, 0), Err(StallCause::MergeFull));
        // Same set (32 sets × 128 B apart = 4096 B), way reserved by the first miss.
        assert_eq!(r.access(4096, &ctx, 0), Err(StallCause::LineAlloc));
        assert!(r.access(128, &ctx, 0).is_ok());
        assert_eq!(r.access(256, &ctx, 0), Err(StallCause::Mshr));
        let first = r.l1.miss_queue.pop().unwrap();
        r.l1.fill(first, &ctx, &mut Vec::new(), &mut r.sink);
        let mut store = req(7, 512, 0);
        store.kind = AccessKind::Store;
        assert_eq!(r.l1.access(store, &ctx, 0, &r.map, &mut r.sink), Ok(CacheOutcome::Write));
        let mut store = req(8, 640, 0);
        store.kind = AccessKind::Store;
        assert_eq!(r.l1.access(store, &ctx, 0, &r.map, &mut r.sink), Err(StallCause::MissQueue));
        assert_eq!(r.l1.stats.stalls[StallCause::MergeFull as usize], 1);
        assert_eq!(r.l1.stats.stalls[StallCause::LineAlloc as usize], 1);
    }

    #[test]
    fn stores_evict_and_do_not_allocate() {
        let mut r = rig(&[]);
        r.access(0x2000, &one(0), 0).unwrap();
        r.fill_all();
        let mut store = req(2, 0x2000, 1);
        store.kind = AccessKind::Store;
        assert_eq!(r.l1.access(store, &one(1), 1, &r.map, &mut r.sink), Ok(CacheOutcome::Write));
        assert_eq!(r.access(0x2000, &one(0), 2), Ok(CacheOutcome::Miss), "write-evict dropped the line");
        assert_eq!(r.l1.loads.misses_inter_warp, 1, "warp 1's store took it away");
        let mut store = req(4, 0x3000, 0);
        store.kind = AccessKind::Store;
        r.l1.access(store, &one(0), 3, &r.map, &mut r.sink).unwrap();
        assert!(r.l1.needs_mshr(0x3000), "no-write-allocate");
    }

    #[test]
    fn misses_are_cold_intra_or_inter_warp_and_self_evictions_are_set_conflicts() {
        // One way per set: every miss in set 0 evicts the previous line.
        let mut r = rig(&["l1.ways=1"]);
        let (a, b) = (0x0, 0x1000);
        r.access(a, &one(0), 0).unwrap();
        r.fill_all();
        r.access(b, &one(0), 0).unwrap();
        r.fill_all();
        assert_eq!(r.l1.loads.misses_cold, 2);
        let events = r.events();
        assert_eq!(
            events,
            vec![Event::SetConflict { core: 3, warp: 0, pc: 0, set: 0, line: a, line_pc: 0 }],
            "warp 0 evicted its own line"
        );
        r.access(a, &one(0), 0).unwrap(); // b was evicted by warp 0's own miss on a... a by warp 0
        r.fill_all();
        assert_eq!(r.l1.loads.misses_intra_warp, 1, "warp 0 missing on what it evicted itself");
        r.access(b, &one(1), 0).unwrap();
        r.fill_all();
        assert_eq!(r.l1.loads.misses_inter_warp, 1, "warp 1 missing on what warp 0 evicted");
        assert_eq!(r.l1.stats.read_misses, 4);
        assert!(
            !r.events().iter().any(|e| matches!(e, Event::SetConflict { warp: 1, .. })),
            "warp 1 evicting warp 0's line is no set conflict"
        );
    }

    #[test]
    fn mpli_and_fully_cached_loads_by_divergence() {
        let mut r = rig(&[]);
        let lines: Vec<u64> = (0..8).map(|i| i * 128).collect();
        assert_eq!(r.load(0, 0, &lines).iter().filter(|o| **o == CacheOutcome::Miss).count(), 8);
        r.fill_all();
        r.load(0, 0, &lines);
        r.load(0, 0, &[0, 8 * 128, 9 * 128]); // one hit, two misses
        r.load(0, 0, &[0]); // coherent, hit
        r.load(0, 0, &[0, 10 * 128]); // coherent (two requests), one miss
        assert_eq!(r.l1.loads.mpli_divergent, [1, 0, 1, 1, 0], "MPLI 8 (3–31), 0, 2");
        assert_eq!(r.l1.loads.mpli_coherent, [1, 1, 0, 0, 0]);
        // Eight lines in eight sets: concentration 1 for the two 8-access loads, 1 for the
        // three-access one, 1 for the pair.
        assert_eq!(r.l1.loads.concentration_loads, 4);
        assert_eq!(r.l1.loads.concentration_ppm, 4_000_000);
        assert_eq!(r.l1.loads.set_accesses[0], 5);
    }

    #[test]
    fn a_column_strided_warp_has_concentration_32_under_conv_and_1_under_fup() {
        let warp: Vec<u64> = (0..32).map(|t| 0x8000_0000 + t * 4096).collect();
        for (index, expect) in [("conv", 32_000_000), ("fup", 1_000_000)] {
            let mut r = rig(&["l1.ways=32", "l1.miss_queue=32", &format!("l1.index={index}")]);
            r.load(0, 0, &warp);
            assert_eq!(r.l1.loads.concentration_ppm, expect, "{index}");
        }
    }

    #[test]
    fn fcw_counter_walk_through_the_l1() {
        // Fig. 4.3 driven by real loads: three-access divergent loads over two lines kept hot
        // (sets 0 and 1) and a third either hot (fully cached) or new (partially cached).
        let mut r = rig(&[]);
        let hot = [0u64, 128, 256];
        r.load(0, 0, &hot);
        r.fill_all();
        // The warm-up load missed three times in the oldest warp (rank 0 < FCW 4): CNT −4.
        assert_eq!((r.l1.fcw.cnt, r.l1.fcw.fcw), (124, 4));
        r.events();
        // ❶❷ 132 fully cached loads: CNT reaches 256, FCW 4 → 5, CNT back to 128.
        for _ in 0..131 {
            assert!(r.load(2, 4, &hot).iter().all(|o| *o == CacheOutcome::Hit));
        }
        assert_eq!((r.l1.fcw.cnt, r.l1.fcw.fcw), (255, 4));
        r.load(2, 4, &hot);
        assert_eq!((r.l1.fcw.cnt, r.l1.fcw.fcw), (128, 5));
        assert_eq!(r.fcw_changes(), vec![Event::FcwChange { core: 3, from: 4, to: 5 }]);
        // New lines land in set 5 (address 5·128 + i·4096), away from the hot lines.
        let mut fresh = (0..).map(|i: u64| 5 * 128 + (i + 1) * 4096);
        let mut partial = |r: &mut Rig, warp: u16, rank: u16| {
            let line = fresh.next().unwrap();
            let out = r.load(warp, rank, &[0, 128, line]);
            r.fill_all();
            out
        };
        // ❹ a thrashing warp (rank 7 ≥ FCW 5) costs 1; ❺ a locality warp (rank 1) 5 − 1 = 4.
        assert_eq!(partial(&mut r, 7, 7), vec![CacheOutcome::Hit, CacheOutcome::Hit, CacheOutcome::Miss]);
        assert_eq!(r.l1.fcw.cnt, 127);
        partial(&mut r, 1, 1);
        assert_eq!(r.l1.fcw.cnt, 123);
        // ❻ the oldest warp losing data costs 5 per load: 25 loads bring CNT to 0, FCW 5 → 4.
        for _ in 0..24 {
            partial(&mut r, 0, 0);
        }
        assert_eq!((r.l1.fcw.cnt, r.l1.fcw.fcw), (3, 5));
        assert!(r.fcw_changes().is_empty());
        partial(&mut r, 0, 0);
        assert_eq!((r.l1.fcw.cnt, r.l1.fcw.fcw), (128, 4));
        assert_eq!(r.fcw_changes(), vec![Event::FcwChange { core: 3, from: 5, to: 4 }]);
        // Coherent loads (≤ 2 requests) never train.
        r.load(0, 0, &[0, 8 * 4096]);
        assert_eq!((r.l1.fcw.cnt, r.l1.fcw.fcw), (128, 4));
        assert_eq!(r.l1.loads.mpli_divergent[0], 132);
        assert_eq!(r.l1.loads.mpli_divergent[1], 27);
    }

    #[test]
    fn constrained_replacement_bypasses_with_sectors_and_no_line_or_mshr() {
        // Two ways: DaCache keeps position 0 as the locality region (FCW 4 · 32/32 capped at
        // ways − 1), so only position 1 may be a victim.
        let mut r = rig(&["l1.ways=2", "l1.replacement=dacache"]);
        assert_eq!(r.l1.locality_ways(), Some(1));
        let (x, y, z) = (0x0, 0x1000, 0x2000);
        assert_eq!(r.access(x, &one(0), 0), Ok(CacheOutcome::Miss));
        assert_eq!(r.access(y, &one(1), 0), Ok(CacheOutcome::Miss));
        // Coherent loads without profiled locality insert at LRU: y is at position 1, x at 0.
        assert_eq!(r.l1.chain(0).iter().map(|l| l.addr).collect::<Vec<_>>(), vec![x, y]);
        r.events();
        let wide = AccessCtx { sectors: 0b0110, ..one(2) };
        assert_eq!(r.access(z, &wide, 5), Ok(CacheOutcome::Miss), "y is reserved, x is protected");
        assert_eq!(r.l1.mshr.used(), 2, "no MSHR for the bypass");
        assert_eq!(r.l1.loads.bypassed, 1);
        assert_eq!(r.l1.stats.read_misses, 3);
        assert_eq!(r.events(), vec![Event::Bypass { core: 3, warp: 2, pc: 0, set: 0, line: z, bytes: 64 }]);
        let replies = r.fill_all();
        let bypassed = replies.iter().find(|q| q.addr == z).unwrap();
        assert_eq!((bypassed.bytes, bypassed.trace.bypassed), (64, true), "two sectors");
        assert_eq!(r.l1.fills, 2, "the bypass reply fills nothing");
        assert!(r.l1.needs_mshr(z), "z was not cached");
        // With x and y valid, z still may only replace y (position 1).
        assert_eq!(r.access(z, &one(2), 6), Ok(CacheOutcome::Miss));
        assert_eq!(r.l1.chain(0).iter().map(|l| l.addr).collect::<Vec<_>>(), vec![x, z]);
    }

    #[test]
    fn constrained_replacement_can_stall_instead_or_be_off() {
        for (mode, third) in [("stall", Err(StallCause::LineAlloc)), ("off", Err(StallCause::LineAlloc))] {
            let mut r =
                rig(&["l1.ways=2", "l1.replacement=dacache", &format!("l1.dacache.constrained={mode}")]);
            r.access(0x0, &one(0), 0).unwrap();
            r.access(0x1000, &one(1), 0).unwrap();
            assert_eq!(r.access(0x2000, &one(2), 0), third, "{mode}: both ways reserved");
            // Fill x only (the first miss): "off" may now replace it, "stall" may not.
            let x = r.l1.miss_queue.pop().unwrap();
            r.l1.fill(x, &one(0), &mut Vec::new(), &mut r.sink);
            let expect = if mode == "off" { Ok(CacheOutcome::Miss) } else { Err(StallCause::LineAlloc) };
            assert_eq!(r.access(0x2000, &one(2), 0), expect, "{mode}");
        }
    }

    /// Twelve warps (rank = slot) each load the same 32 lines over and over, `per_set` of
    /// them in each of 32 / `per_set` sets (CONV indexing), every warp in the same sets, four
    /// loads in flight at a time, for 20 rounds; FCW held at 4. Each rank's fully cached loads
    /// after the first two rounds (18 at most).
    fn fully_cached_by_rank(policy: &str, per_set: u64) -> Vec<u32> {
        let policy = format!("l1.replacement={policy}");
        let mut r = rig(&[&policy, "l1.mshr_entries=128", "l1.miss_queue=128"]);
        r.l1.fcw = FcwTrainer { cnt: 128, fcw: 4, c_max: 256, w_min: 4, w_max: 4 };
        let sets = 32 / per_set;
        let mut full = vec![0; 12];
        for round in 0..20 {
            for w in 0..12u16 {
                let base = (u64::from(w) + 1) << 20;
                let lines: Vec<u64> = (0..32).map(|k| base + (k % sets) * 128 + (k / sets) * 4096).collect();
                let cached = r.load(w, w, &lines).iter().all(|o| *o == CacheOutcome::Hit);
                if round >= 2 && cached {
                    full[usize::from(w)] += 1;
                }
                if w % 4 == 3 {
                    r.fill_all();
                }
            }
        }
        full
    }

    #[test]
    fn dacache_caches_the_fcw_oldest_warps_whole_when_a_load_puts_one_line_per_set() {
        // Seed 004 §4.2.2 spaces the gauged insertions assuming a load's accesses "are equally
        // distributed into N_set sets" (Width / N_set = 1 line per set here), and §4.2.3 sizes
        // the locality region the same way (FCW 4: positions 0–3). Twelve warps cycling over
        // 12 · 32 lines thrash LRU completely; DaCache keeps the four locality warps whole and
        // sends the thrashing warps' lines to LRU.
        assert_eq!(fully_cached_by_rank("lru", 1), vec![0; 12]);
        assert_eq!(fully_cached_by_rank("dacache", 1), [vec![18; 4], vec![0; 8]].concat());
        // Two lines per set (the Fermi hash gives SYRK's row walks 2 and ATAX's 4): the four
        // locality warps bring 8 lines per set into a 4-way region. Ranks 1–3 insert at
        // positions 0 and 2 after the oldest warp, pushing its lines into the thrashing
        // region, where the thrashing warps' misses evict them: the oldest warp, which DaCache
        // protects first, is never cached whole, and of the others only rank 3, the last to
        // insert, mostly is. With four lines per set nothing is.
        let two = fully_cached_by_rank("dacache", 2);
        assert_eq!(two, [vec![0, 1, 0, 17], vec![0; 8]].concat());
        assert_eq!(fully_cached_by_rank("dacache", 4), vec![0; 12]);
    }
}
