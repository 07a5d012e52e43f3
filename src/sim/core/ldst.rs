//! The LD/ST unit: memory instructions wait in a short queue (seed 002's "memory pipeline
//! width"); the head sends one coalesced access per cycle into the L1, so a divergent load of
//! N requests takes at least N cycles. An access the L1 refuses is replayed next cycle and
//! blocks everything behind it — memory occlusion when the cause is a lack of MSHRs
//! (seed 004 §1.3, §5.2).
//!
//! With MASCAR (seed 004 §5.5.1) a load access the L1 refuses for lack of an MSHR, merge
//! slot, line or miss-queue slot is parked in the re-execution queue instead, and the head
//! moves on (so hits behind it proceed); each cycle the oldest parked access is retried
//! first. Only when the re-execution queue is full does a refused access block the unit.
//!
//! With an L1 of banked latency queues (`l1.latency_queue`, GPGPU-Sim 4) the head sends up to
//! one access per bank per cycle, in order, until one finds its bank unable to take it
//! (`BK_CONF` in GPGPU-Sim's `process_memory_access_queue_l1cache`); the L1 looks the
//! accesses up later and refuses them there, so the unit moves on to its next instruction once
//! every access of the head is in a bank.
//!
//! The unit steps on its own ([`Ldst::step`]): it talks to the L1 (and the warp-group tagger
//! beside it) and reports what happened to the SM's warps in an [`LdstStep`] and the accesses
//! sent, which the SM applies to its load tracking and its learning policy.

use super::coalescer::Coalesced;
use super::group_tags::GroupTagger;
use crate::sim::cache::AccessCtx;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::l1::L1;
use crate::sim::ledger::Ledger;
use crate::sim::queue::{BoundedQueue, SlotQueue};
use crate::sim::record::{Point, Who};
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest, Origin, ReqTrace};
use crate::sim::stats::{CoreStats, StallCause};
use crate::workload::instr::Space;
use std::collections::VecDeque;

/// "Not a load" in a request's load slot.
pub const NO_LOAD: u8 = u8::MAX;

/// A memory instruction handed to the LD/ST unit by the issue stage (built in its queue slot).
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct MemInstr {
    pub warp: u16,
    pub pc: u32,
    pub load: bool,
    pub space: Space,
    pub width: u8,
    /// The warp's outstanding-load slot, or [`NO_LOAD`] for stores.
    pub load_slot: u8,
    pub seq: u32,
    pub issued: u64,
    /// OAWS Miss_pred charged to Miss_inflight while the instruction is in the unit.
    pub miss_pred: u16,
    pub coalesced: Coalesced,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ldst {
    pub queue: SlotQueue<MemInstr>,
    /// Index of the head instruction's next access.
    pub next: usize,
    /// Cycle the head instruction started, if it has.
    pub started: Option<u64>,
    /// Why the head could not send an access last cycle.
    pub stalled: Option<StallCause>,
    /// The L1's fill count when it stalled.
    pub stalled_fills: u64,
    /// Shared-memory loads completing: (cycle, warp, load slot).
    pub shared: VecDeque<(u64, u16, u8)>,
    /// L1 misses (and merges) among the head instruction's accesses so far.
    pub head_misses: u32,
    /// MASCAR's re-execution queue of refused load accesses, each with what the L1 needs to
    /// know about its load (capacity 0 when disabled).
    pub reexec: BoundedQueue<(MemRequest, AccessCtx)>,
    /// Under `core.sub_core`, the places of the queue each warp scheduler has of its own; 0
    /// when the schedulers share the queue.
    places: usize,
}

impl Ldst {
    /// The lines (address, lanes) load `seq` of warp `warp` has still to send, when it is in
    /// the unit (the head's from its next access on). For the debugger.
    pub fn unsent(&self, warp: u16, seq: u32) -> Vec<(u64, u32)> {
        let Some(i) = self.queue.iter().position(|m| m.load && m.warp == warp && m.seq == seq) else {
            return Vec::new();
        };
        let m = self.queue.iter().nth(i).expect("found above");
        m.coalesced.iter().skip(if i == 0 { self.next } else { 0 }).collect()
    }

    /// A unit whose queue holds `width` instructions, or with `sub_core` `width` of each of
    /// `schedulers` warp schedulers.
    pub fn new(
        width: usize,
        sub_core: bool,
        schedulers: usize,
        shared_latency: usize,
        reexec: usize,
    ) -> Ldst {
        let (schedulers, places) = if sub_core { (schedulers, width) } else { (1, 0) };
        Ldst {
            queue: SlotQueue::new(width * schedulers),
            next: 0,
            started: None,
            stalled: None,
            stalled_fills: 0,
            shared: VecDeque::with_capacity(shared_latency + 1),
            head_misses: 0,
            reexec: BoundedQueue::new(reexec),
            places,
        }
    }

    /// The warp slots whose memory instruction the queue cannot take now, as a mask: every
    /// slot when the shared queue is full; under `core.sub_core`, the slots of each scheduler
    /// (`sched_masks`, the issue stage's) whose own places are taken (GPGPU-Sim's
    /// `register_set::has_free(sub_core_model, id)` on ID_OC_MEM). The queue stays in issue
    /// order, so its head, which the unit serves, is the oldest instruction of all
    /// (`ldst_unit::issue`'s `get_ready`).
    #[inline]
    pub fn refused(&self, sched_masks: &[u64]) -> u64 {
        if self.places == 0 {
            return if self.queue.is_full() { u64::MAX } else { 0 };
        }
        let full =
            |&&slots: &&u64| self.queue.iter().filter(|m| slots >> m.warp & 1 == 1).count() >= self.places;
        sched_masks.iter().filter(full).fold(0, |refused, slots| refused | slots)
    }

    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.shared.is_empty() && self.reexec.is_empty()
    }

    /// Whether refused load accesses are parked (MASCAR) rather than replayed in place.
    pub fn parks(&self) -> bool {
        self.reexec.capacity() > 0
    }
}

/// What the unit needs from around it for one step.
pub struct LdstIo<'a> {
    pub core: u16,
    pub now: u64,
    pub l1: &'a mut L1,
    pub tagger: &'a mut GroupTagger,
    pub stats: &'a mut CoreStats,
    pub map: &'a AddressMap,
    pub sink: &'a mut EventSink,
    /// Request ids and the conservation count.
    pub ledger: &'a mut Ledger,
    /// Bytes per coalesced request: the L1 line, or a sector of a sectored L1
    /// (`cache::sectors::coalesce_bytes`).
    pub line_bytes: u64,
    pub shared_latency: u64,
    /// What the L1 learns about an access: the SM's warp schedulers and GTO priorities.
    pub schedulers: usize,
    pub priority: &'a [u8],
    /// The accesses the L1 took this step, in order (appended).
    pub sent: &'a mut Vec<Sent>,
}

/// A parked access the L1 took: whose it is and the L1's answer.
pub type Retried = crate::sim::l1::Looked;

/// An access the L1 took from the head instruction (or MASCAR parked).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sent {
    pub warp: u16,
    pub load_slot: u8,
    pub load: bool,
    pub id: u64,
    pub addr: u64,
    pub lanes: u32,
    /// The L1's answer (`None` for a parked access, or one that entered a bank's latency
    /// queue: the L1 answers when it looks it up).
    pub outcome: CacheOutcome,
    /// MASCAR parked it: the L1 has not looked at it yet.
    pub parked: bool,
}

/// The head instruction sent its last access and left the unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Left {
    pub warp: u16,
    pub load_slot: u8,
    pub load: bool,
    pub pc: u32,
    pub accesses: u32,
    /// L1 misses and merges among its accesses.
    pub misses: u32,
    pub miss_pred: u16,
    /// The cycle its first access went.
    pub started: u64,
}

/// What one step of the unit did that concerns the SM's warps, in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct LdstStep {
    /// A parked access the L1 took now.
    pub retried: Option<Retried>,
    /// The head load found fewer free MSHRs than it needs (memory occlusion): its warp and
    /// load slot.
    pub occluded: Option<(u16, u8)>,
    pub left: Option<Left>,
}

impl Ldst {
    /// One cycle: retry the oldest parked access, else send the head instruction's next access
    /// into the L1 (shared-memory instructions take their fixed latency instead).
    #[inline]
    pub fn step(&mut self, mut io: LdstIo<'_>) -> LdstStep {
        let mut out = LdstStep::default();
        let parked = !self.reexec.is_empty();
        if !parked && self.queue.is_empty() {
            return out;
        }
        if parked {
            let (req, ctx) = *self.reexec.front().expect("parked access");
            if let Ok(outcome) = io.l1.access(req, &ctx, io.now, io.map, io.sink) {
                self.reexec.pop();
                io.stats.ldst.replays += 1;
                out.retried = Some(Retried::of(&req, outcome));
                return out;
            }
            io.stats.ldst.mascar_replay += 1;
        }
        let Some(head) = self.queue.front() else {
            io.stats.ldst.idle_replays += 1;
            return out;
        };
        let load_slot = head.load_slot;
        if self.started.is_none() {
            self.started = Some(io.now);
            self.head_misses = 0;
            if head.space == Space::Shared {
                io.stats.shared_accesses += 1;
                if head.load {
                    self.shared.push_back((io.now + io.shared_latency, head.warp, load_slot));
                }
                self.queue.pop();
                self.started = None;
                return out;
            }
            if head.load {
                out.occluded = self.check_occlusion(&mut io);
                if io.tagger.enabled {
                    let head = self.queue.front().expect("head present");
                    io.tagger.start(&head.coalesced, io.l1, io.map);
                }
            }
        }
        if self.replay_refusal(io.l1, io.stats, io.core, io.sink) {
            return out;
        }
        // One access a cycle, or with banked latency queues one per bank.
        let sends = io.l1.bank_count();
        for _ in 0..sends {
            if !self.send_next(&mut io, &mut out) || out.left.is_some() {
                break;
            }
        }
        out
    }

    /// Sends the head instruction's next access into the L1; returns whether the L1 took it
    /// (`out.left` is set when it was the instruction's last).
    #[inline]
    fn send_next(&mut self, io: &mut LdstIo<'_>, out: &mut LdstStep) -> bool {
        let head = self.queue.front().expect("head present");
        let (w, load_slot, head_load) = (head.warp, head.load_slot, head.load);
        let k = self.next;
        let (addr, lanes) = (head.coalesced.lines[k], head.coalesced.lanes[k]);
        let ctx = AccessCtx::of_warp(
            io.schedulers,
            io.priority,
            usize::from(w),
            head.pc,
            head.coalesced.n as u8,
            k as u8,
            head.coalesced.sectors[k],
        );
        let kind = match (head.load, head.space) {
            (true, Space::Atomic) => AccessKind::Atomic,
            (true, _) => AccessKind::Load,
            (false, _) => AccessKind::Store,
        };
        let bytes = if head.load { io.line_bytes as u32 } else { lanes.count_ones() * u32::from(head.width) };
        let mut req = MemRequest {
            id: io.ledger.next_id(),
            kind,
            addr,
            bytes,
            lanes,
            origin: Origin {
                core: io.core,
                warp: head.warp,
                pc: head.pc,
                load_seq: head.seq,
                load_slot,
                index: k as u8,
                last_to_channel: false,
                group_slices: 0,
            },
            loc: Default::default(),
            trace: ReqTrace { created: io.now, ..ReqTrace::default() },
        };
        let tagging = io.tagger.enabled && head_load;
        if tagging {
            io.tagger.tag(k, head.coalesced.n, &mut req.origin);
        }
        let mut parked = false;
        let taken = if io.l1.banked() && kind != AccessKind::Atomic {
            // The lookup comes later: the tags leave what the prediction at the head's start said.
            // (An atomic passes the L1 without a lookup, as a skipped load does.)
            io.l1.offer(req, &ctx).map(|()| CacheOutcome::None)
        } else {
            io.l1.access(req, &ctx, io.now, io.map, io.sink)
        };
        let outcome = match taken {
            Ok(outcome) => {
                self.stalled = None;
                if tagging && !io.l1.banked() {
                    io.tagger.sent(k, outcome == CacheOutcome::Miss);
                }
                if head_load && matches!(outcome, CacheOutcome::Miss | CacheOutcome::Merged) {
                    self.head_misses += 1;
                }
                outcome
            }
            Err(_) if self.parks() && head_load && !self.reexec.is_full() => {
                // MASCAR: park the refused access and move on; it will miss.
                self.stalled = None;
                parked = true;
                self.head_misses += 1;
                if self.reexec.push((req, ctx)).is_err() {
                    unreachable!("re-execution queue room checked");
                }
                if tagging {
                    // It leaves the SM when the L1 takes it (it will miss).
                    io.tagger.sent(k, true);
                }
                CacheOutcome::None
            }
            Err(cause) => {
                if io.sink.records() {
                    io.sink.pass(Point::Refused, io.core, cause as u16, Who::of(&req));
                }
                self.stalled = Some(cause);
                self.stalled_fills = io.l1.fills;
                io.stats.ldst_stalls[cause as usize] += 1;
                self.emit_mshr_full(cause, io.core, io.sink);
                return false;
            }
        };
        io.ledger.create();
        if io.sink.records() {
            io.sink.pass(Point::Access, io.core, outcome as u16, Who::of(&req));
        }
        io.stats.ldst.accesses += 1;
        io.sent.push(Sent { warp: w, load_slot, load: head_load, id: req.id, addr, lanes, outcome, parked });
        self.next += 1;
        let head = self.queue.front().expect("head present");
        if self.next < head.coalesced.n {
            io.stats.ldst.coal += 1;
            return true;
        }
        // The instruction has sent every access.
        let started = self.started.take().unwrap_or(io.now);
        self.next = 0;
        let mi = self.queue.pop().expect("head present");
        out.left = Some(Left {
            warp: w,
            load_slot,
            load: mi.load,
            pc: mi.pc,
            accesses: mi.coalesced.n as u32,
            misses: self.head_misses,
            miss_pred: mi.miss_pred,
            started,
        });
        true
    }

    /// Whether the head's next access would be refused again for the cause that refused it
    /// last time; if so, counts the stall and returns true. A replay gives the same answer
    /// until a fill changes the L1 (a fill is the only way an MSHR entry frees or a missing
    /// line appears) or the miss queue drains, so the lookup is not redone. (With MASCAR a
    /// refused load is parked instead, unless the re-execution queue is full.)
    ///
    /// The SM asks this first when nothing is parked and the head has started, the common
    /// case of a stalled unit, so that it need not gather the rest of [`LdstIo`].
    #[inline(always)]
    pub fn replay_refusal(
        &self,
        l1: &mut L1,
        stats: &mut CoreStats,
        core: u16,
        sink: &mut EventSink,
    ) -> bool {
        let Some(cause) = self.stalled else { return false };
        let persists = match cause {
            StallCause::Mshr => l1.mshr.free() == 0,
            StallCause::MissQueue => l1.fills == self.stalled_fills && l1.miss_queue.is_full(),
            // No free line in the set (all reserved for misses in flight), or no merge slot
            // left in the line's MSHR entry: only a fill frees either.
            StallCause::LineAlloc | StallCause::MergeFull => l1.fills == self.stalled_fills,
            _ => false,
        };
        let head_load = self.queue.front().is_some_and(|h| h.load);
        if !persists || (self.parks() && head_load && !self.reexec.is_full()) {
            return false;
        }
        // The L1 counts its own stalls on a real attempt; here the attempt is skipped, so
        // both are counted.
        stats.ldst_stalls[cause as usize] += 1;
        l1.stats.stall(cause);
        self.emit_mshr_full(cause, core, sink);
        true
    }

    /// A load entering the unit that needs more new MSHRs than are free is occluded
    /// (seed 004 §1.2.3, Fig. 1.3).
    fn check_occlusion(&self, io: &mut LdstIo<'_>) -> Option<(u16, u8)> {
        let head = self.queue.front().expect("head present");
        let needed = head.coalesced.iter().filter(|&(line, _)| io.l1.needs_mshr(line)).count();
        let free = io.l1.mshr.free();
        if needed <= free {
            return None;
        }
        io.stats.occlusions += 1;
        if io.sink.wants(EventKind::MemoryOcclusion) {
            io.sink.emit(Event::MemoryOcclusion {
                core: io.core,
                warp: head.warp,
                pc: head.pc,
                needed: needed as u16,
                free: free as u16,
            });
        }
        Some((head.warp, head.load_slot))
    }

    #[inline]
    fn emit_mshr_full(&self, cause: StallCause, core: u16, sink: &mut EventSink) {
        if cause == StallCause::Mshr && sink.wants(EventKind::MshrFull) {
            let head = self.queue.front().expect("head present");
            let line = head.coalesced.lines[self.next];
            sink.emit(Event::MshrFull { core, warp: head.warp, pc: head.pc, line });
        }
    }
}
