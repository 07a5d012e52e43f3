//! An L2 slice of a memory partition (MECHANISMS §1; seed 002 Fig. 2, Table III).
//!
//! Requests from the crossbar wait in the access queue; one is looked up per L2 cycle.
//! A read hit goes through the tag/data pipeline (`latency` cycles) into the response queue;
//! with `l2.latency_queue` the latency comes before the lookup instead, for every access (see
//! `L2Slice::latency_queue`), and a hit goes to the response queue at once. A read miss
//! takes an MSHR (or merges into one) and a reserved line, and waits in the miss queue for the
//! memory controller. Writes are write-back, write-allocate without fetch
//! (lines are written whole by coalesced stores): a write marks the line dirty; a dirty victim
//! becomes a write-back in the miss queue. DRAM fills wake every merged request. The data port
//! moves `data_port_bytes` per cycle, so a fill occupies it for line/port cycles and a hit for
//! the requested bytes/port cycles.
//!
//! Lines are whole: a request for only some 32 B sectors (an L1 bypass) hits on its line,
//! and on a miss the slice fetches and fills the whole line from DRAM (line / burst bursts)
//! like any read; only its reply is short.
//!
//! Stall causes are counted per cycle in `stats.stalls` (seed 002 §IV: back-pressure from
//! DRAM = miss queue full, from the reply network = response queue full, data port,
//! MSHR, line allocation).
//!
//! Two memory-controller mechanisms reach into the slice. A warp-group's tagged last request
//! that ends here (hit or merge) would leave its group incomplete at the controller, so the
//! slice forwards the tag ([`L2Slice::forward_tag`]). Lines the controller prefetches arrive in
//! `prefetch_fills` and are installed without waiters when the data port is otherwise idle;
//! the slice counts them useful (a demand hits them), late (a demand had already missed on the
//! line) or useless (already present, or evicted unused).

use crate::config::Config;
use crate::sim::cache::AccessCtx;
use crate::sim::cache::index::IndexKind;
use crate::sim::cache::line::{Line, LineState};
use crate::sim::cache::mshr::Mshr;
use crate::sim::cache::replace::ReplacementKind;
use crate::sim::cache::sectors;
use crate::sim::cache::tags::{Probe, TagArray};
use crate::sim::core::coalescer::SECTOR_BYTES;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::dram::sched::GroupKey;
use crate::sim::event::EventSink;
use crate::sim::icnt::{Ejector, Injector};
use crate::sim::ledger::Ledger;
use crate::sim::queue::{BoundedQueue, LatencyQueue};
use crate::sim::record::{Point, Who};
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest, Origin, ReqTrace};
use crate::sim::stats::{CacheStats, StallCause};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct L2Slice {
    /// Global slice index.
    pub id: u16,
    pub channel: u16,
    pub tags: TagArray,
    pub mshr: Mshr,
    pub access_queue: BoundedQueue<MemRequest>,
    pub miss_queue: BoundedQueue<MemRequest>,
    pub response_queue: BoundedQueue<MemRequest>,
    /// Hits in the tag/data pipeline (`latency`); their response slots are reserved. Empty
    /// with `latency_queue`.
    pipe: LatencyQueue<MemRequest>,
    /// Requests waiting out `latency` before their tag lookup; empty unless `latency_queue`.
    looking_up: LatencyQueue<MemRequest>,
    /// Every access (hit, miss or store) waits `latency` L2 cycles before its tag lookup, and a
    /// hit then responds without waiting again: GPGPU-Sim's ROP queue
    /// (`memory_sub_partition::push` puts every non-texture request in `m_rop` for
    /// `-gpgpu_l2_rop_latency`; `cache_cycle` moves it to the L2's input queue once that has
    /// passed), so a miss leaves for the DRAM `latency` after it arrived, as seed 002 §II
    /// describes the baseline: an L2 "access latency of around 120 cycles" and off-chip memory
    /// "an additional access latency of around 100 cycles". Off: only hits wait it, after the
    /// lookup, and an unloaded miss can return sooner than a hit.
    ///
    /// The head of the access queue moves into `looking_up` once per L2 cycle, at most
    /// `latency + 1` requests wait there (one entering per cycle, the oldest leaving in the
    /// same cycle), and the lookup takes the oldest once its time has come. So the crossbar
    /// still sees the access queue's room: when lookups stall, `looking_up` fills up, then the
    /// access queue, and then the crossbar's credits stop the senders.
    latency_queue: bool,
    /// DRAM returns waiting to be filled (bounded by the MSHRs).
    pub fills: VecDeque<MemRequest>,
    /// The waiters of a fill that outnumbered the whole response queue (an `l2.mshr_merge`
    /// above `l2.response_queue`, as SM6_TITANX's 64 and 32), leaving as the queue has room,
    /// as GPGPU-Sim's `memory_sub_partition::cache_cycle` drains `access_ready` one response
    /// at a time; no other fill is taken until they have left. A fill whose waiters fit
    /// waits for room for all of them and returns them together.
    ready: VecDeque<MemRequest>,
    /// Prefetched lines from the memory controller waiting to be installed.
    pub prefetch_fills: BoundedQueue<MemRequest>,
    /// Per line (set × ways + way): installed by a prefetch and not yet hit by a demand.
    pub prefetched: Vec<bool>,
    /// Warp-group tags this slice forwards to its memory controller: (group, slice within
    /// the channel). Drained by the controller every DRAM cycle.
    pub group_ends: VecDeque<(GroupKey, u8)>,
    port_free: u64,
    /// A sectored slice fills through a port of its own (GPGPU-Sim 4's `use_fill_port`), so
    /// a fill and a lookup can share an L2 cycle; this is when it is free.
    fill_port_free: u64,
    /// Data-port cycles of a whole line.
    port_cycles: u64,
    port_bytes: u32,
    latency: u64,
    line_bytes: u32,
    /// Lines of 32-byte sectors, MSHR entries per sector (`l2.sectored`).
    sectored: bool,
    /// A merge into a pending miss touches its line (`l2.touch_on_merge`).
    touch_on_merge: bool,
    /// Every store written is answered to its SM (`l2.write_acks`).
    write_acks: bool,
    header_bytes: u32,
    slices_per_channel: u16,
    /// Response slots promised to requests in the pipe.
    reserved: usize,
    scratch: Vec<MemRequest>,
    pub stats: CacheStats,
    /// Occupancy histogram of the access queue over cycles it is non-empty (seed 002 Fig. 4):
    /// entry i counts L2 cycles with i requests waiting (with `latency_queue`, waiting to enter
    /// it).
    pub access_occupancy: Vec<u64>,
    /// Perfect L2 (seed 003 §5.1): every access hits; stores are absorbed.
    pub perfect: bool,
    /// The head of the access queue found every way of its set reserved
    /// (`StallCause::LineAlloc`), and no fill has changed the tags or MSHRs since: it would
    /// find the same again, so it is only counted, not looked up. Exact because a lookup's
    /// outcome depends on the head (which only a lookup removes), this slice's tags and MSHRs
    /// (which only a fill, a prefetch fill or a lookup changes), and its miss queue's room,
    /// which only a lookup uses up (the controller's pops only add room, and a head refused
    /// for a line had room). `sim.no_skip` turns it off.
    line_wait: bool,
    /// Idle skipping is on (`sim.no_skip` off): `line_wait` may be set.
    skip: bool,
}

impl L2Slice {
    pub fn new(c: &Config, id: u16) -> L2Slice {
        let l = &c.l2;
        let (sets, ways) = (l.sets as usize, l.ways as usize);
        let mut tags = TagArray::new(
            sets,
            ways,
            IndexKind::new(l.index, sets, l.line_bytes.trailing_zeros()),
            ReplacementKind::new(l.replacement, sets, ways, c),
        );
        tags.group_keys(AddressMap::new(c).set_group());
        L2Slice {
            id,
            channel: id / l.slices_per_channel as u16,
            tags,
            mshr: Mshr::new(l.mshr_entries as usize, l.mshr_merge as usize),
            access_queue: BoundedQueue::new(l.access_queue as usize),
            miss_queue: BoundedQueue::new(l.miss_queue as usize),
            response_queue: BoundedQueue::new(l.response_queue as usize),
            pipe: LatencyQueue::new(
                l.latency.into(),
                if l.latency_queue { 0 } else { l.latency as usize + 1 },
            ),
            looking_up: LatencyQueue::new(
                l.latency.into(),
                if l.latency_queue { l.latency as usize + 1 } else { 0 },
            ),
            latency_queue: l.latency_queue,
            fills: VecDeque::with_capacity(l.mshr_entries as usize),
            ready: VecDeque::with_capacity(l.mshr_merge as usize + 1),
            prefetch_fills: BoundedQueue::new(l.miss_queue as usize),
            prefetched: vec![false; (l.sets * l.ways) as usize],
            group_ends: VecDeque::with_capacity(4),
            port_free: 0,
            fill_port_free: 0,
            port_cycles: u64::from(l.line_bytes.div_ceil(l.data_port_bytes)),
            port_bytes: l.data_port_bytes,
            latency: l.latency.into(),
            line_bytes: l.line_bytes,
            sectored: l.sectored,
            touch_on_merge: l.touch_on_merge,
            write_acks: l.write_acks,
            header_bytes: c.icnt.header_bytes,
            slices_per_channel: l.slices_per_channel as u16,
            reserved: 0,
            scratch: Vec::with_capacity(l.mshr_merge as usize + 1),
            stats: CacheStats::default(),
            access_occupancy: vec![0; l.access_queue as usize + 1],
            perfect: c.ideal.perfect_l2,
            line_wait: false,
            skip: !c.sim.no_skip,
        }
    }

    /// Requests held by the slice.
    pub fn occupancy(&self) -> usize {
        self.access_queue.len()
            + self.miss_queue.len()
            + self.response_queue.len()
            + self.pipe.len()
            + self.looking_up.len()
            + self.fills.len()
            + self.ready.len()
            + self.prefetch_fills.len()
            + self.mshr.entries().map(|e| e.merged.len()).sum::<usize>()
    }

    pub fn pipe(&self) -> impl Iterator<Item = &(u64, MemRequest)> {
        self.pipe.iter()
    }

    /// Requests waiting out the latency before their lookup (`l2.latency_queue`): (L2 cycle
    /// they may be looked up, request).
    pub fn looking_up(&self) -> impl Iterator<Item = &(u64, MemRequest)> {
        self.looking_up.iter()
    }

    /// How many requests the latency queue before the lookup holds at most (0 without
    /// `l2.latency_queue`).
    pub fn looking_up_capacity(&self) -> usize {
        if self.latency_queue { self.latency as usize + 1 } else { 0 }
    }

    fn response_room(&self) -> usize {
        self.response_queue.free() - self.reserved
    }

    /// L2 cycles from `now` in which this slice's step would do nothing: no access, fill or
    /// prefetched line waits, no hit finishes its latency and no request in the latency queue
    /// reaches its lookup before then. (What waits in its miss and response queues moves when
    /// the DRAM and the reply network take it.)
    pub fn quiet_ticks(&self, now: u64) -> u64 {
        if !self.access_queue.is_empty()
            || !self.fills.is_empty()
            || !self.ready.is_empty()
            || !self.prefetch_fills.is_empty()
        {
            return 0;
        }
        // One of the two delays is in use: the hit pipeline, or the latency queue before the
        // lookup (whose hits respond at once, leaving the pipeline empty).
        let delay = if self.latency_queue { &self.looking_up } else { &self.pipe };
        delay.next_at().map_or(u64::MAX, |at| at.saturating_sub(now))
    }

    /// One L2 cycle. `stamp` is the core cycle for traces; the ledger counts the write-backs
    /// created and the requests that end here (stores, prefetched lines).
    #[inline]
    pub fn step(
        &mut self,
        now: u64,
        stamp: u64,
        map: &AddressMap,
        ledger: &mut Ledger,
        sink: &mut EventSink,
    ) {
        // A quiet cycle (nothing queued, no hit leaving the pipeline) changes nothing, not
        // even a counter: the call is skipped, which is the same as making it.
        if self.quiet_ticks(now) == 0 {
            self.work(now, stamp, map, ledger, sink);
        }
    }

    /// A cycle with something to do.
    fn work(&mut self, now: u64, stamp: u64, map: &AddressMap, ledger: &mut Ledger, sink: &mut EventSink) {
        if !self.access_queue.is_empty() {
            self.access_occupancy[self.access_queue.len()] += 1;
        }
        while let Some(req) = self.pipe.pop_ready(now) {
            self.reserved -= 1;
            self.respond(req);
        }
        while self.response_room() > 0
            && let Some(req) = self.ready.pop_front()
        {
            self.respond(req);
        }
        if self.latency_queue {
            if sink.records() {
                self.pass_ready(now, sink);
            }
            if self.looking_up.len() < self.looking_up_capacity()
                && let Some(req) = self.access_queue.pop()
            {
                if sink.records() {
                    sink.pass(Point::L2Latency, self.id, 0, Who::of(&req));
                }
                self.looking_up.push(now, req);
            }
        }
        if self.sectored {
            // GPGPU-Sim 4's `memory_sub_partition::cache_cycle`: a fill through the fill port,
            // then a lookup through the data port, in the same cycle.
            if self.fill_port_free <= now {
                self.fill(now);
            }
            if self.port_free > now {
                if self.head(now).is_some() {
                    self.stats.stall(StallCause::DataPort);
                }
                return;
            }
        } else {
            if self.port_free > now {
                if self.head(now).is_some() || !self.fills.is_empty() {
                    self.stats.stall(StallCause::DataPort);
                }
                return;
            }
            if self.fill(now) {
                return;
            }
        }
        if self.line_wait {
            self.stats.stall(StallCause::LineAlloc);
        } else {
            self.lookup(now, stamp, map, ledger, sink);
        }
        if self.port_free <= now && !self.prefetch_fills.is_empty() {
            self.fill_prefetch(now, stamp, map, ledger);
        }
    }

    /// A warp-group's tagged last request ends in this slice (an L2 hit or an MSHR merge):
    /// the tag moves to the group's latest request still in this slice's miss queue (which
    /// will reach the controller last), or, if none is left, goes to the controller directly
    /// (`group_ends`), which marks the group complete for this slice.
    pub fn forward_tag(&mut self, req: &MemRequest) {
        let o = &req.origin;
        let same = |r: &&mut MemRequest| {
            r.kind == AccessKind::Load
                && r.origin.core == o.core
                && r.origin.warp == o.warp
                && r.origin.load_seq == o.load_seq
        };
        if let Some(r) = self.miss_queue.iter_mut().rev().find(same) {
            r.origin.last_to_channel = true;
            return;
        }
        let slice = (self.id % self.slices_per_channel) as u8;
        self.group_ends.push_back((GroupKey::of(o), slice));
    }

    /// Installs one prefetched line, if the slice does not have it already and can place it
    /// at once (a prefetch never waits for a victim or for miss-queue room: it is dropped).
    fn fill_prefetch(&mut self, now: u64, stamp: u64, map: &AddressMap, ledger: &mut Ledger) {
        let Some(&req) = self.prefetch_fills.front() else {
            return;
        };
        let key = req.loc.slice_line;
        let (set, probe) = self.tags.probe(key);
        match probe {
            Probe::Hit(_) => self.stats.prefetch_useless += 1,
            Probe::Pending(_) => self.stats.prefetch_late += 1,
            Probe::Miss => match self.tags.victim(set) {
                Some(way) if !(self.tags.line(set, way).dirty && self.miss_queue.is_full()) => {
                    self.evict_and_install(set, way, &req, LineState::Valid, stamp, map, ledger);
                    self.tags.line_mut(set, way).sectors = sectors::all(self.line_bytes);
                    self.prefetched[set * self.tags.ways + way] = true;
                    self.stats.prefetch_fills += 1;
                    self.port_free = now + self.port_cycles;
                }
                _ => self.stats.prefetch_useless += 1,
            },
        }
        self.prefetch_fills.pop();
        self.line_wait = false;
        ledger.retire();
    }

    /// The head found every way of its set reserved: a stall, and (when skipping) no new
    /// lookup until a fill changes the slice (`line_wait`).
    fn wait_for_line(&mut self) {
        self.stats.stall(StallCause::LineAlloc);
        self.line_wait = self.skip;
    }

    /// A demand hit line `way` of `set`: a prefetched line has proven useful.
    #[inline]
    fn demand_hit(&mut self, set: usize, way: usize) {
        let p = &mut self.prefetched[set * self.tags.ways + way];
        if *p {
            *p = false;
            self.stats.prefetch_useful += 1;
        }
    }

    /// An atomic was performed on line `way` of `set` (on a hit, or when the line it missed
    /// arrives): the line, or in a sectored slice the atomic's sector, is now dirty
    /// (GPGPU-Sim's `data_cache::rd_hit_base` and `baseline_cache::fill` mark a line an atomic
    /// read MODIFIED, for the atomic's sector mask).
    fn performed_atomic(&mut self, set: usize, way: usize, addr: u64) {
        let sector = sectors::bit(addr, self.line_bytes);
        let line = self.tags.line_mut(set, way);
        line.dirty = true;
        if self.sectored {
            line.dirty_sectors |= sector;
        }
    }

    /// A store is written: it retires here, or with `l2.write_acks` goes back to its SM as
    /// its acknowledgement ([`MemRequest::into_ack`]), for which the slice checked the
    /// response queue's room before the store's lookup.
    fn written(&mut self, store: MemRequest, ledger: &mut Ledger) {
        if self.write_acks {
            self.respond(store.into_ack());
        } else {
            ledger.retire();
        }
    }

    fn respond(&mut self, req: MemRequest) {
        if self.response_queue.push(req).is_err() {
            unreachable!("response slot reserved");
        }
    }

    /// Processes one DRAM return. Returns whether the data port was used.
    fn fill(&mut self, now: u64) -> bool {
        let Some(front) = self.fills.front() else {
            return false;
        };
        let key = self.mshr_key(front);
        let waiting = 1 + self.mshr.find(key).map_or(0, |i| self.mshr.merged_count(i));
        if !self.ready.is_empty() || self.response_room() < waiting.min(self.response_queue.capacity()) {
            self.stats.stall(StallCause::Response);
            return false;
        }
        let reply = self.fills.pop_front().expect("front exists");
        self.line_wait = false;
        let (addr, bytes) = (reply.addr, reply.bytes);
        let (set, probe) = self.tags.probe(reply.loc.slice_line);
        let mut out = std::mem::take(&mut self.scratch);
        out.push(reply);
        self.mshr.release(key, &mut out);
        let atomic = out.iter().any(|r| r.kind == AccessKind::Atomic);
        for r in out.drain(..) {
            if self.response_room() > 0 {
                self.respond(r);
            } else {
                self.ready.push_back(r);
            }
        }
        self.scratch = out;
        if let Probe::Pending(way) = probe {
            if self.sectored {
                sectors::filled(&mut self.tags, (set, way), addr, self.line_bytes, &self.mshr);
            } else {
                self.tags.line_mut(set, way).state = LineState::Valid;
            }
            if atomic {
                self.performed_atomic(set, way, addr);
            }
        }
        // A sectored slice writes the sector it fetched through its fill port.
        if self.sectored {
            self.fill_port_free = now + u64::from(bytes.div_ceil(self.port_bytes));
        } else {
            self.port_free = now + self.port_cycles;
        }
        true
    }

    /// The MSHR key of `req`: its line's, or in a sectored slice its sector's.
    #[inline]
    fn mshr_key(&self, req: &MemRequest) -> u64 {
        let line = req.loc.slice_line;
        if self.sectored { sectors::key(line, req.addr, self.line_bytes) } else { line }
    }

    /// The request the next lookup takes: the head of the access queue, or with the latency
    /// queue the oldest request whose latency has passed.
    #[inline]
    fn head(&self, now: u64) -> Option<&MemRequest> {
        if self.latency_queue { self.looking_up.ready(now) } else { self.access_queue.front() }
    }

    /// Takes [`L2Slice::head`].
    #[inline]
    fn pop_head(&mut self, now: u64) -> MemRequest {
        let head = if self.latency_queue { self.looking_up.pop_ready(now) } else { self.access_queue.pop() };
        head.expect("head exists")
    }

    /// Looks up [`L2Slice::head`].
    fn lookup(&mut self, now: u64, stamp: u64, map: &AddressMap, ledger: &mut Ledger, sink: &mut EventSink) {
        let Some(&req) = self.head(now) else {
            return;
        };
        // A sectored slice looks nothing up, hits included, while its miss queue toward the
        // DRAM or its response queue is full (`cache_cycle`'s condition on the L2-to-DRAM and
        // L2-to-interconnect queues).
        if self.sectored && !self.perfect {
            if self.miss_queue.is_full() {
                self.stats.stall(StallCause::MissQueue);
                return;
            }
            if self.response_room() == 0 {
                self.stats.stall(StallCause::Response);
                return;
            }
        }
        let key = req.loc.slice_line;
        let (set, probe) = if self.perfect { (0, Probe::Hit(0)) } else { self.tags.probe(key) };
        // What a read finds: the line, or in a sectored slice its sector (`sectors::probe`).
        let read_probe = if self.sectored && !self.perfect {
            sectors::probe(&self.tags, set, probe, sectors::bit(req.addr, self.line_bytes))
        } else {
            probe
        };
        if req.kind == AccessKind::Store && self.write_acks && self.response_room() == 0 {
            self.stats.stall(StallCause::Response);
            return;
        }
        if self.perfect && req.kind == AccessKind::Store {
            self.stats.writes += 1;
            self.stats.write_hits += 1;
            let store = self.pop_head(now);
            self.looked_up(&req, CacheOutcome::Write, sink);
            self.port_free = now + self.port_cycles;
            self.written(store, ledger);
            return;
        }
        if req.kind == AccessKind::Store {
            let mut written_back = 0;
            let way = match probe {
                Probe::Hit(way) | Probe::Pending(way) => way,
                Probe::Miss => {
                    let Some(way) = self.tags.victim(set) else {
                        self.wait_for_line();
                        return;
                    };
                    if self.tags.line(set, way).dirty && self.miss_queue.is_full() {
                        self.stats.stall(StallCause::MissQueue);
                        return;
                    }
                    written_back =
                        self.evict_and_install(set, way, &req, LineState::Valid, stamp, map, ledger);
                    way
                }
            };
            if matches!(probe, Probe::Hit(_)) {
                self.stats.write_hits += 1;
                self.tags.touch(set, way);
                self.demand_hit(set, way);
            }
            let line = self.tags.line_mut(set, way);
            line.dirty = true;
            if self.sectored {
                let sector = sectors::bit(req.addr, self.line_bytes);
                line.dirty_sectors |= sector;
                if u64::from(req.bytes) >= SECTOR_BYTES {
                    // A sector written whole is readable without a fetch (lazy fetch on read).
                    line.sectors |= sector;
                }
            }
            self.stats.writes += 1;
            let store = self.pop_head(now);
            self.looked_up(&req, CacheOutcome::Write, sink);
            self.port_free = now
                + if self.sectored {
                    // GPGPU-Sim 4's `use_data_port`: a hit writes its bytes, a miss (lazy fetch)
                    // nothing; a write-back reads its dirty sectors out.
                    let hit = if matches!(probe, Probe::Miss) { 0 } else { req.bytes };
                    u64::from(hit.div_ceil(self.port_bytes) + written_back.div_ceil(self.port_bytes))
                } else {
                    self.port_cycles
                };
            self.written(store, ledger);
            return;
        }
        let key = self.mshr_key(&req);
        match read_probe {
            Probe::Hit(way) => {
                if self.response_room() == 0 {
                    self.stats.stall(StallCause::Response);
                    return;
                }
                if !self.perfect {
                    self.tags.touch(set, way);
                    self.demand_hit(set, way);
                    if req.kind == AccessKind::Atomic {
                        self.performed_atomic(set, way, req.addr);
                    }
                }
                let mut req = self.pop_head(now);
                if req.origin.last_to_channel {
                    self.forward_tag(&req);
                }
                req.trace.l2 = CacheOutcome::Hit;
                self.looked_up(&req, CacheOutcome::Hit, sink);
                self.stats.reads += 1;
                self.stats.read_hits += 1;
                if self.latency_queue {
                    // The latency was waited before the lookup.
                    self.respond(req);
                } else {
                    self.reserved += 1;
                    self.pipe.push(now, req);
                }
                self.port_free = now + u64::from(req.bytes.div_ceil(self.port_bytes));
            }
            Probe::Pending(_) | Probe::Miss if self.mshr.find(key).is_some() => {
                let i = self.mshr.find(key).expect("found");
                if !self.mshr.can_merge(i) {
                    self.stats.stall(StallCause::MergeFull);
                    return;
                }
                let mut req = self.pop_head(now);
                if req.origin.last_to_channel {
                    self.forward_tag(&req);
                }
                req.trace.l2 = CacheOutcome::Merged;
                self.looked_up(&req, CacheOutcome::Merged, sink);
                self.stats.reads += 1;
                self.stats.merged += 1;
                self.mshr.merge(i, req);
                if let Probe::Pending(way) = read_probe
                    && self.touch_on_merge
                {
                    self.tags.touch_pending(set, way);
                }
            }
            _ => {
                let cause = if self.mshr.free() == 0 {
                    Some(StallCause::Mshr)
                } else if self.miss_queue.free() < 2 {
                    // Room for the miss and a possible dirty write-back.
                    Some(StallCause::MissQueue)
                } else {
                    None
                };
                if let Some(c) = cause {
                    self.stats.stall(c);
                    return;
                }
                if let Probe::Pending(way) = read_probe {
                    // A sector missing from a present line: the line stays, reserved until none
                    // of its sectors waits (only a sectored slice has a reserved line without
                    // an MSHR entry).
                    self.tags.touch(set, way);
                    self.tags.line_mut(set, way).state = LineState::Reserved;
                } else {
                    let Some(way) = self.tags.victim(set) else {
                        self.wait_for_line();
                        return;
                    };
                    let written_back =
                        self.evict_and_install(set, way, &req, LineState::Reserved, stamp, map, ledger);
                    if self.sectored {
                        // A sectored slice reads a dirty victim out through its data port.
                        self.port_free = now + u64::from(written_back.div_ceil(self.port_bytes));
                    }
                }
                let mut req = self.pop_head(now);
                req.trace.l2 = CacheOutcome::Miss;
                self.looked_up(&req, CacheOutcome::Miss, sink);
                self.stats.reads += 1;
                self.stats.read_misses += 1;
                self.mshr.allocate(key, req.id, req.origin.core, now);
                if self.miss_queue.push(req).is_err() {
                    unreachable!("miss queue room checked");
                }
            }
        }
    }

    /// Records the request in the latency queue whose latency runs out at L2 cycle `now` (at
    /// most one: one enters per L2 cycle, and all wait as long). The slice is stepped in that
    /// cycle: `quiet_ticks` waits for the head's ready cycle, and while a ready head waits for
    /// its lookup every cycle is worked.
    fn pass_ready(&self, now: u64, sink: &mut EventSink) {
        let due = self.looking_up.iter().map(|(at, r)| (*at, r)).find(|&(at, _)| at >= now);
        if let Some((_, r)) = due.filter(|&(at, _)| at == now) {
            sink.pass(Point::L2Ready, self.id, 0, Who::of(r));
        }
    }

    /// Records (when someone records) that `req` left the access queue with `outcome`.
    #[inline(always)]
    fn looked_up(&self, req: &MemRequest, outcome: CacheOutcome, sink: &mut EventSink) {
        if sink.records() {
            sink.pass(Point::L2Lookup, self.id, outcome as u16, Who::of(req));
        }
    }

    /// Puts `req`'s line in `way`, writing back a dirty victim; returns the bytes written back.
    #[allow(clippy::too_many_arguments)]
    fn evict_and_install(
        &mut self,
        set: usize,
        way: usize,
        req: &MemRequest,
        state: LineState,
        stamp: u64,
        map: &AddressMap,
        ledger: &mut Ledger,
    ) -> u32 {
        let line = Line {
            key: req.loc.slice_line,
            addr: req.addr - req.addr % u64::from(self.line_bytes),
            state,
            dirty: false,
            owner: req.origin.core,
            pc: req.origin.pc,
            sectors: 0,
            dirty_sectors: 0,
        };
        if let Some(old) = self.tags.install(set, way, line, &AccessCtx::default()) {
            self.stats.evictions += 1;
            let p = &mut self.prefetched[set * self.tags.ways + way];
            if std::mem::take(p) {
                self.stats.prefetch_useless += 1;
            }
            if old.dirty {
                self.stats.writebacks += 1;
                // A sectored line writes back its written sectors only, a burst each.
                let bytes = match old.dirty_sectors {
                    0 => self.line_bytes,
                    d if self.sectored => d.count_ones() * SECTOR_BYTES as u32,
                    _ => self.line_bytes,
                };
                let wb = MemRequest {
                    id: ledger.create(),
                    kind: AccessKind::Writeback,
                    addr: old.addr,
                    bytes,
                    lanes: 0,
                    // The warp whose miss evicted the line caused the write (α-SJFW).
                    origin: Origin { core: req.origin.core, warp: req.origin.warp, ..Origin::default() },
                    loc: map.map(old.addr),
                    trace: ReqTrace { created: stamp, l2: CacheOutcome::Write, ..ReqTrace::default() },
                };
                if self.miss_queue.push(wb).is_err() {
                    unreachable!("write-back room checked");
                }
                return bytes;
            }
        }
        0
    }
}

/// The reply network takes from the response queue; the destination is the requesting SM.
impl Injector for L2Slice {
    fn head(&self) -> Option<(usize, u32)> {
        self.response_queue.front().map(|r| (r.origin.core as usize, r.reply_packet_bytes(self.header_bytes)))
    }
    fn pop(&mut self) -> MemRequest {
        self.response_queue.pop().expect("head exists")
    }
}

/// The request network delivers into the access queue.
impl Ejector for L2Slice {
    fn room(&self) -> usize {
        self.access_queue.free()
    }
    fn accept(&mut self, req: MemRequest) {
        self.access_queue.accept(req);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(id: u64, addr: u64, bytes: u32, map: &AddressMap) -> MemRequest {
        MemRequest {
            id,
            kind: AccessKind::Load,
            addr,
            bytes,
            lanes: 1,
            origin: Default::default(),
            loc: map.map(addr),
            trace: Default::default(),
        }
    }

    /// What steps a hand-built slice: its address map, a ledger and an event sink.
    struct Stepper {
        map: AddressMap,
        ledger: Ledger,
        sink: EventSink,
    }

    impl Stepper {
        fn step(&mut self, s: &mut L2Slice, now: u64) {
            s.step(now, now, &self.map, &mut self.ledger, &mut self.sink);
        }
    }

    /// The first `n` 128-byte lines that map to set 0 of slice 0.
    fn lines_in_set_0(s: &L2Slice, map: &AddressMap, n: usize) -> Vec<u64> {
        let in_set = |a: u64| {
            let l = map.map(a);
            (l.channel == 0 && l.slice == 0).then(|| s.tags.set_of(l.slice_line))
        };
        (0..1u64 << 16).map(|i| i * 128).filter(|&a| in_set(a) == Some(0)).take(n).collect()
    }

    /// Slice 0 of the default machine with `sets`, its address map, and what steps it.
    fn slice(sets: &[&str]) -> (L2Slice, AddressMap, Stepper) {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::default().with_sets(&sets).unwrap();
        let map = AddressMap::new(&c);
        let stepper =
            Stepper { map: map.clone(), ledger: Ledger::starting_at(100), sink: EventSink::default() };
        (L2Slice::new(&c, 0), map, stepper)
    }

    #[test]
    fn a_sector_request_fills_the_whole_line_but_moves_only_its_bytes() {
        // 32 B/cycle data port, 128 B lines, header 8 B.
        let (mut s, map, mut st) = slice(&[]);
        let mut step = |s: &mut L2Slice, now: u64| st.step(s, now);
        s.access_queue.accept(read(1, 0x1000, 32, &map));
        step(&mut s, 0);
        // A miss: the line is reserved and the request goes to DRAM as is (the controller
        // reads whole lines: line / burst column commands).
        let below = s.miss_queue.pop().expect("miss goes to DRAM");
        assert_eq!((below.id, below.bytes, below.trace.l2), (1, 32, CacheOutcome::Miss));
        s.fills.push_back(below);
        step(&mut s, 1);
        let reply = s.response_queue.pop().expect("filled");
        assert_eq!(reply.reply_packet_bytes(8), 40, "the reply carries one sector");
        // Port busy for the 128 B fill: cycles 1..4. Then a sector hit takes one port cycle,
        // a line hit four.
        s.access_queue.accept(read(2, 0x1000, 32, &map));
        s.access_queue.accept(read(3, 0x1000, 128, &map));
        s.access_queue.accept(read(4, 0x1000, 32, &map));
        for now in 2..5 {
            step(&mut s, now);
        }
        assert_eq!(s.access_queue.len(), 3, "port busy with the fill until cycle 5");
        step(&mut s, 5);
        step(&mut s, 6);
        assert_eq!(s.access_queue.len(), 1, "sector hit at 5, line hit at 6");
        for now in 7..10 {
            step(&mut s, now);
        }
        assert_eq!(s.access_queue.len(), 1, "the line hit holds the port for four cycles");
        step(&mut s, 10);
        assert!(s.access_queue.is_empty());
        assert_eq!(s.stats.read_hits, 3);
    }

    /// SM6_TITANX merges 64 requests into an L2 MSHR entry but has 32 response slots: a fill
    /// whose waiters outnumber the whole response queue (here 4 and 2) is taken when the queue
    /// is empty, returns what fits, and the rest leave as room appears; the next fill waits
    /// until they have left. Without this the slice waited forever for room for all four.
    #[test]
    fn a_fill_with_more_waiters_than_response_slots_returns_them_as_room_appears() {
        let (mut s, map, mut st) = slice(&["l2.response_queue=2", "l2.mshr_merge=4", "l2.latency=1"]);
        let mut step = |s: &mut L2Slice, now: u64| st.step(s, now);
        for id in 1..=4 {
            s.access_queue.accept(read(id, 0x1000, 128, &map));
        }
        s.access_queue.accept(read(5, 0x2000, 128, &map));
        for now in 0..8 {
            step(&mut s, now);
        }
        let below: Vec<MemRequest> = std::iter::from_fn(|| s.miss_queue.pop()).collect();
        assert_eq!(below.iter().map(|q| q.id).collect::<Vec<_>>(), [1, 5], "2, 3 and 4 merged into 1");
        s.fills.push_back(below[0]);
        s.fills.push_back(below[1]);
        step(&mut s, 20);
        let ids =
            |s: &mut L2Slice| std::iter::from_fn(|| s.response_queue.pop()).map(|q| q.id).collect::<Vec<_>>();
        assert_eq!(ids(&mut s), [1, 2], "two fit; 3 and 4 wait");
        step(&mut s, 21);
        assert_eq!(ids(&mut s), [3, 4], "they leave before the next fill");
        step(&mut s, 30);
        assert_eq!(ids(&mut s), [5]);
        assert_eq!(s.occupancy(), 0);
    }

    /// A sectored slice (`-gpgpu_cache:dl2 S:…`): a sector miss goes to DRAM alone and its fill
    /// holds the data port one cycle, not four; another sector of the present line misses
    /// without taking a line; sectors that arrived hit.
    #[test]
    fn a_sectored_slice_fetches_and_fills_per_sector() {
        let (mut s, map, mut st) = slice(&["l1.sectored=true", "l2.sectored=true"]);
        let mut step = |s: &mut L2Slice, now: u64| st.step(s, now);
        s.access_queue.accept(read(1, 0x1000, 32, &map));
        s.access_queue.accept(read(2, 0x1020, 32, &map));
        step(&mut s, 0);
        step(&mut s, 1);
        let below: Vec<MemRequest> = std::iter::from_fn(|| s.miss_queue.pop()).collect();
        assert_eq!(below.iter().map(|q| (q.id, q.bytes)).collect::<Vec<_>>(), [(1, 32), (2, 32)]);
        assert_eq!((s.tags.reserved(), s.mshr.used(), s.stats.read_misses), (1, 2, 2), "one line");
        s.fills.push_back(below[0]);
        step(&mut s, 2);
        assert_eq!(s.response_queue.pop().map(|q| q.id), Some(1));
        assert_eq!(s.tags.reserved(), 1, "sector 1 still on its way");
        // The fill held the port for cycle 2 only: the sector that arrived hits at 3.
        s.access_queue.accept(read(3, 0x1000, 32, &map));
        step(&mut s, 3);
        assert_eq!((s.access_queue.len(), s.stats.read_hits), (0, 1));
        s.fills.push_back(below[1]);
        step(&mut s, 4);
        assert_eq!((s.tags.reserved(), s.mshr.used()), (0, 0), "the line is valid");
        s.access_queue.accept(read(4, 0x1060, 32, &map));
        step(&mut s, 5);
        assert_eq!(s.miss_queue.pop().map(|q| (q.id, q.bytes)), Some((4, 32)), "sector 3 was never fetched");
    }

    /// GPGPU-Sim's `send_read_request` (`l2.touch_on_merge`): a read merging into a pending
    /// miss makes the line the most recently used (its `HIT_RESERVED` sets the last access
    /// time). Two ways: A misses, then B, then a read of A merges; so the LRU line once both
    /// are filled is B, and C replaces it. Without the key C replaces A.
    #[test]
    fn a_merge_into_a_pending_line_makes_it_most_recently_used() {
        for touch in [true, false] {
            let key = format!("l2.touch_on_merge={touch}");
            let (mut s, map, mut st) = slice(&["l2.ways=2", &key]);
            let lines = lines_in_set_0(&s, &map, 3);
            let (a, b, c) = (lines[0], lines[1], lines[2]);
            let mut now = 0;
            let mut run = |s: &mut L2Slice, until: &dyn Fn(&L2Slice) -> bool| {
                while !until(s) {
                    st.step(s, now);
                    now += 1;
                    assert!(now < 1000, "the slice never got there");
                }
            };
            for (id, addr) in [(1, a), (2, b), (3, a)] {
                s.access_queue.accept(read(id, addr, 32, &map));
            }
            run(&mut s, &|s| s.stats.merged == 1);
            let below: Vec<MemRequest> = std::iter::from_fn(|| s.miss_queue.pop()).collect();
            assert_eq!(below.iter().map(|q| q.id).collect::<Vec<_>>(), [1, 2], "3 merged into 1");
            s.fills.extend(below);
            run(&mut s, &|s| s.response_queue.len() == 3);
            s.access_queue.accept(read(4, c, 32, &map));
            run(&mut s, &|s| !s.miss_queue.is_empty());
            let present = |addr: u64| matches!(s.tags.probe(map.map(addr).slice_line).1, Probe::Hit(_));
            assert_eq!(
                (present(a), present(b)),
                (touch, !touch),
                "{key}: C replaced {}",
                if touch { "B" } else { "A" }
            );
        }
    }

    /// An atomic is a read at the L2 that leaves its line dirty (GPGPU-Sim marks an atomic's
    /// line MODIFIED on a hit and when its miss fills): it replies with the data, and the
    /// line's eviction writes it back. One way per set: two lines of a set evict each other.
    #[test]
    fn an_atomic_reads_its_line_replies_and_leaves_it_dirty() {
        let (mut s, map, mut st) = slice(&["l2.ways=1"]);
        let mut step = |s: &mut L2Slice, now: u64| st.step(s, now);
        let lines = lines_in_set_0(&s, &map, 2);
        let atomic = |id: u64, addr: u64| MemRequest { kind: AccessKind::Atomic, ..read(id, addr, 32, &map) };
        let mut now = 0;
        let mut run = |s: &mut L2Slice, until: &dyn Fn(&L2Slice) -> bool| {
            while !until(s) {
                step(s, now);
                now += 1;
                assert!(now < 1000, "the slice never got there");
            }
        };
        // A miss: the line is read from DRAM as for a load, not written.
        s.access_queue.accept(atomic(1, lines[0]));
        run(&mut s, &|s| !s.miss_queue.is_empty());
        let below = s.miss_queue.pop().expect("the atomic's read");
        assert_eq!((below.kind, s.stats.read_misses, s.stats.writes), (AccessKind::Atomic, 1, 0));
        s.fills.push_back(below);
        run(&mut s, &|s| !s.response_queue.is_empty());
        assert_eq!(
            s.response_queue.pop().map(|r| (r.id, r.kind)),
            Some((1, AccessKind::Atomic)),
            "the old value returns"
        );
        // The filled line is dirty: a load of the other line of the set writes it back.
        s.access_queue.accept(read(2, lines[1], 32, &map));
        run(&mut s, &|s| s.miss_queue.len() == 2);
        let kinds: Vec<AccessKind> = std::iter::from_fn(|| s.miss_queue.pop()).map(|r| r.kind).collect();
        assert_eq!(kinds, [AccessKind::Writeback, AccessKind::Load]);
        // A load's line is clean: filled and evicted by an atomic that hits nothing, no write-back.
        s.fills.push_back(MemRequest { loc: map.map(lines[1]), ..read(2, lines[1], 32, &map) });
        run(&mut s, &|s| !s.response_queue.is_empty());
        s.response_queue.pop();
        s.access_queue.accept(atomic(3, lines[0]));
        run(&mut s, &|s| !s.miss_queue.is_empty());
        let kinds: Vec<AccessKind> = std::iter::from_fn(|| s.miss_queue.pop()).map(|r| r.kind).collect();
        assert_eq!(kinds, [AccessKind::Atomic], "the load's line was clean");
        // An atomic that hits dirties the line it hits.
        let (mut s, map, mut st) = slice(&["l2.ways=1"]);
        s.access_queue.accept(read(4, lines[0], 32, &map));
        let mut t = 0;
        while s.miss_queue.is_empty() {
            st.step(&mut s, t);
            t += 1;
        }
        let below = s.miss_queue.pop().unwrap();
        s.fills.push_back(below);
        s.access_queue.accept(atomic(5, lines[0]));
        s.access_queue.accept(read(6, lines[1], 32, &map));
        while s.miss_queue.len() < 2 {
            st.step(&mut s, t);
            t += 1;
            assert!(t < 1000);
        }
        assert_eq!(s.stats.read_hits, 1, "the atomic hit the filled line");
        let kinds: Vec<AccessKind> = std::iter::from_fn(|| s.miss_queue.pop()).map(|r| r.kind).collect();
        assert_eq!(kinds, [AccessKind::Writeback, AccessKind::Load]);
    }

    /// A sectored slice as GPGPU-Sim 4 has it (`S:` L2, write-back with lazy fetch on read):
    /// a store hit holds the data port one cycle for its sector, a store miss none (nothing is
    /// fetched); an evicted line writes back only its written sectors (two here: 64 bytes), and
    /// reading them out holds the port two cycles; a fill uses a port of its own, so a lookup
    /// happens in the same cycle.
    #[test]
    fn a_sectored_slice_writes_back_written_sectors_only_and_fills_beside_lookups() {
        let (mut s, map, mut st) = slice(&["l1.sectored=true", "l2.sectored=true", "l2.ways=1"]);
        let mut step = |s: &mut L2Slice, now: u64| st.step(s, now);
        let lines = lines_in_set_0(&s, &map, 2);
        let store = |id: u64, addr: u64, bytes: u32| MemRequest {
            kind: AccessKind::Store,
            ..read(id, addr, bytes, &map)
        };
        // A 4-byte store misses: the line is allocated, nothing is fetched, the port stays free.
        s.access_queue.accept(store(1, lines[0], 4));
        step(&mut s, 0);
        assert_eq!((s.stats.writes, s.port_free), (1, 0));
        // A store to sector 2 hits: one port cycle.
        s.access_queue.accept(store(2, lines[0] + 64, 32));
        step(&mut s, 1);
        assert_eq!((s.stats.write_hits, s.port_free), (1, 2));
        // A read of the other line evicts it: 2 dirty sectors, 64 bytes, two port cycles.
        s.access_queue.accept(read(3, lines[1], 32, &map));
        step(&mut s, 2);
        let below: Vec<MemRequest> = std::iter::from_fn(|| s.miss_queue.pop()).collect();
        assert_eq!(
            below.iter().map(|q| (q.kind, q.bytes)).collect::<Vec<_>>(),
            [(AccessKind::Writeback, 64), (AccessKind::Load, 32)]
        );
        assert_eq!(s.port_free, 4, "the write-back's two sectors read out at cycles 2 and 3");
        // Both stores were answered (`l2.write_acks`), ahead of the read.
        let acks: Vec<(u64, u32)> =
            std::iter::from_fn(|| s.response_queue.pop()).map(|q| (q.id, q.bytes)).collect();
        assert_eq!(acks, [(1, 0), (2, 0)]);
        // The read's fill arrives at 4 with a hit queued behind: both in cycle 4.
        s.fills.push_back(below[1]);
        s.access_queue.accept(store(4, lines[1] + 32, 32));
        step(&mut s, 4);
        assert_eq!(s.response_queue.pop().map(|q| q.id), Some(3), "filled");
        assert_eq!(s.stats.writes, 3, "and looked up the store in the same cycle");
    }

    /// GPGPU-Sim's `WRITE_ACK` (`l2.write_acks`): a written store goes back to its SM as a
    /// header-only reply in the response queue, in order with the reads' data, and stays in
    /// flight until the SM takes it; a store finds no room for its acknowledgement, it waits
    /// at the head. Without, it retires where it is written.
    #[test]
    fn a_written_store_is_acknowledged_to_its_sm() {
        let (mut s, map, mut st) = slice(&["l2.response_queue=1"]);
        let store = |id: u64, addr: u64| MemRequest { kind: AccessKind::Store, ..read(id, addr, 32, &map) };
        let mut ack = store(1, 0x1000);
        ack.origin.core = 5;
        s.access_queue.accept(ack);
        st.step(&mut s, 0);
        let r = s.response_queue.front().expect("the acknowledgement");
        assert_eq!((r.id, r.kind, r.bytes, r.origin.core), (1, AccessKind::Store, 0, 5));
        assert_eq!(r.reply_packet_bytes(8), 8, "the header alone");
        assert_eq!(st.ledger.retired(), 0, "still in flight");
        // The response queue (one place) is full: the next store waits for its room.
        s.access_queue.accept(store(2, 0x2000));
        for now in 1..10 {
            st.step(&mut s, now);
        }
        assert_eq!((s.stats.writes, s.access_queue.len()), (1, 1));
        assert!(s.stats.stalls[StallCause::Response as usize] > 0, "refused for want of room");
        s.response_queue.pop();
        st.step(&mut s, 10);
        assert_eq!((s.stats.writes, s.response_queue.front().map(|r| r.id)), (2, Some(2)));
        // Without acknowledgements a store retires at once and nothing goes back.
        let (mut s, map, mut st) = slice(&["l2.write_acks=false", "l2.response_queue=1"]);
        s.access_queue.accept(MemRequest { kind: AccessKind::Store, ..read(3, 0x1000, 32, &map) });
        st.step(&mut s, 0);
        assert_eq!((s.stats.writes, s.response_queue.len(), st.ledger.retired()), (1, 0, 1));
    }

    /// How many L2 cycles after arriving an unloaded miss reaches the miss queue, a hit (of
    /// the line the miss filled) reaches the response queue, and a store is looked up, on the
    /// default machine with `sets`. Each is the first cycle whose step did it, so one cycle
    /// earlier it had not happened.
    fn unloaded_timings(sets: &[&str]) -> (u64, u64, u64) {
        let (mut s, map, mut st) = slice(sets);
        let mut step = |s: &mut L2Slice, now: u64| st.step(s, now);
        let miss =
            after_arrival(&mut s, &mut step, read(1, 0x1000, 128, &map), 0, |s| !s.miss_queue.is_empty());
        let below = s.miss_queue.pop().expect("the miss");
        s.fills.push_back(below);
        step(&mut s, miss + 1);
        assert_eq!(s.response_queue.pop().map(|r| r.id), Some(1), "filled");
        // Well after the fill has left the data port.
        let hit = after_arrival(&mut s, &mut step, read(2, 0x1000, 128, &map), 100, |s| {
            !s.response_queue.is_empty()
        });
        assert_eq!(s.stats.read_hits, 1);
        let store = MemRequest { kind: AccessKind::Store, ..read(3, 0x2000, 128, &map) };
        let store = after_arrival(&mut s, &mut step, store, 200, |s| s.stats.writes == 1);
        (miss, hit, store)
    }

    /// L2 cycles from `arrival` (`req` enters the access queue before that cycle's step) to
    /// the first cycle whose step makes `done` true.
    fn after_arrival(
        s: &mut L2Slice,
        step: &mut impl FnMut(&mut L2Slice, u64),
        req: MemRequest,
        arrival: u64,
        done: impl Fn(&L2Slice) -> bool,
    ) -> u64 {
        s.access_queue.accept(req);
        let at = (arrival..arrival + 1000)
            .find(|&now| {
                step(s, now);
                done(s)
            })
            .expect("happens");
        at - arrival
    }

    #[test]
    fn with_a_latency_queue_misses_and_stores_wait_the_latency_before_the_lookup_and_hits_once() {
        let latency = u64::from(Config::default().l2.latency);
        assert_eq!(unloaded_timings(&["l2.latency_queue=true"]), (latency, latency, latency));
    }

    #[test]
    fn without_a_latency_queue_misses_and_stores_are_looked_up_at_once_and_hits_wait_after() {
        let latency = u64::from(Config::default().l2.latency);
        assert_eq!(unloaded_timings(&[]), (0, latency, 0));
    }

    /// The latency queue is a pipeline: an access arriving every cycle responds every cycle,
    /// each `latency` after it arrived. When lookups stall (here the response queue is never
    /// drained), at most `latency + 1` requests wait in it, then the access queue fills and
    /// the crossbar sees no room.
    #[test]
    fn the_latency_queue_passes_an_access_per_cycle_and_backs_up_into_the_access_queue() {
        let c = Config::default()
            .with_sets(&["l2.latency_queue=true".into(), "ideal.perfect_l2=true".into()])
            .unwrap();
        let latency = u64::from(c.l2.latency);
        let map = AddressMap::new(&c);
        let mut s = L2Slice::new(&c, 0);
        let mut ledger = Ledger::starting_at(1000);
        let mut sink = EventSink::default();
        // 32 B reads hold the data port for one cycle.
        for now in 0..3 * latency {
            s.access_queue.accept(read(now, 0x1000 + 32 * now, 32, &map));
            s.step(now, now, &map, &mut ledger, &mut sink);
            let out = s.response_queue.pop();
            assert_eq!(out.map(|r| r.id), now.checked_sub(latency), "cycle {now}");
        }
        let mut now = 3 * latency;
        while s.room() > 0 {
            s.access_queue.accept(read(now, 0x1000, 32, &map));
            s.step(now, now, &map, &mut ledger, &mut sink);
            now += 1;
        }
        assert!(s.response_queue.is_full());
        assert_eq!(s.looking_up.len() as u64, latency + 1);
        for now in now..now + 10 {
            s.step(now, now, &map, &mut ledger, &mut sink);
        }
        assert_eq!((s.looking_up.len() as u64, s.room()), (latency + 1, 0), "nothing moves while stalled");
    }

    fn load(map: &AddressMap, id: u64, addr: u64, warp: u16, last: bool) -> MemRequest {
        MemRequest {
            id,
            kind: AccessKind::Load,
            addr,
            bytes: 128,
            lanes: 1,
            origin: Origin {
                core: 3,
                warp,
                load_seq: 7,
                last_to_channel: last,
                group_slices: 1,
                ..Origin::default()
            },
            loc: map.map(addr),
            trace: ReqTrace::default(),
        }
    }

    #[test]
    fn a_tagged_request_served_here_passes_its_tag_on() {
        let c = Config::default();
        let map = AddressMap::new(&c);
        let mut s = L2Slice::new(&c, 0);
        let lines: Vec<u64> = (0..)
            .map(|i| i * 128)
            .filter(|&a| (map.map(a).channel, map.map(a).slice) == (0, 0))
            .take(2)
            .collect();
        // lines[1] is in the slice already.
        let key = map.map(lines[1]).slice_line;
        let (set, _) = s.tags.probe(key);
        let way = s.tags.victim(set).unwrap();
        s.tags.install(
            set,
            way,
            Line { key, addr: lines[1], state: LineState::Valid, ..Line::default() },
            &AccessCtx::default(),
        );
        let mut ledger = Ledger::starting_at(100);
        let mut run = |s: &mut L2Slice, reqs: Vec<MemRequest>| {
            for r in reqs {
                s.access_queue.push(r).unwrap();
            }
            for now in 0..100 {
                s.step(now, now, &map, &mut ledger, &mut EventSink::default());
            }
        };
        // Warp 1's load misses on lines[0], then its tagged last request hits lines[1]: the
        // tag moves to the miss still waiting for the controller.
        run(&mut s, vec![load(&map, 1, lines[0], 1, false), load(&map, 2, lines[1], 1, true)]);
        assert_eq!(s.miss_queue.len(), 1);
        assert!(s.miss_queue.front().unwrap().origin.last_to_channel);
        assert!(s.group_ends.is_empty());
        // Warp 2's only request to this slice hits: the controller is told directly.
        run(&mut s, vec![load(&map, 3, lines[1], 2, true)]);
        assert_eq!(
            s.group_ends.pop_front(),
            Some((GroupKey { core: 3, warp: 2, load_seq: 7, load_slot: 0 }, 0))
        );
    }
}
