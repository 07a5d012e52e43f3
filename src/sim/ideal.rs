//! Idealized memories below the L1 (MECHANISMS §5; seed 002 §III-B and Fig. 3).
//!
//! - `infinite-bandwidth` (P∞): every L1 miss leaves its SM's miss queue the cycle it enters
//!   it and returns after `l2_latency` core cycles when its line is in the L2 (looked up in
//!   the real L2 slice's tags, which a miss then fills), or `l2_latency + dram_latency` when
//!   it is not. No crossbar, L2 queue, port or DRAM timing is modelled: no congestion.
//! - `fixed-latency`: every L1 miss returns after exactly `miss_latency` cycles.
//! - `infinite-dram` (P_DRAM): the real crossbar and L2 slices; every L2 miss (and write-back)
//!   leaves the slice's miss queue the cycle it enters it, and the data is back in the slice
//!   `dram_latency` cycles later, with no DRAM queueing or timing.
//!
//! Stores and write-backs retire when they enter the ideal memory, but with `l2.write_acks` a
//! store below the L1 is answered to its SM after the memory's short latency (`l2_latency`,
//! or `miss_latency`) as a header-only reply, as GPGPU-Sim's perfect memory answers every
//! request, stores included, through the cluster's response FIFO
//! (`perfect_memory_interface::push`, then `store_ack`). Requests in flight wait in one FIFO
//! per destination and latency — each FIFO has a constant latency, so it stays in return
//! order — and their count is bounded by the MSHRs that issued them.

use crate::config::{Config, IdealMemory};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::line::{Line, LineState};
use crate::sim::cache::tags::Probe;
use crate::sim::core::Sm;
use crate::sim::l2::L2Slice;
use crate::sim::ledger::Ledger;
use crate::sim::request::{AccessKind, CacheOutcome, MemRequest};
use std::collections::VecDeque;

/// Requests waiting to return: (core cycle due, request).
type Fifo = VecDeque<(u64, MemRequest)>;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IdealPipe {
    pub mode: IdealMemory,
    pub l2_latency: u64,
    pub dram_latency: u64,
    pub miss_latency: u64,
    /// Per SM (P∞, fixed latency) or per L2 slice (P_DRAM): the short-latency FIFO (L2 hits,
    /// every fixed-latency miss, every P_DRAM return) and the long one (P∞ L2 misses).
    pub fast: Vec<Fifo>,
    pub slow: Vec<Fifo>,
    /// Requests that went through, and those that hit in the L2 tags (P∞).
    pub requests: u64,
    pub l2_hits: u64,
}

impl IdealPipe {
    pub fn new(c: &Config) -> IdealPipe {
        let lanes = match c.ideal.memory {
            IdealMemory::Real => 0,
            IdealMemory::InfiniteDram => c.l2_slices(),
            IdealMemory::InfiniteBandwidth | IdealMemory::FixedLatency => c.core.count as usize,
        };
        let depth = (c.l1.mshr_entries + c.l2.mshr_entries) as usize;
        IdealPipe {
            mode: c.ideal.memory,
            l2_latency: c.ideal.l2_latency.into(),
            dram_latency: c.ideal.dram_latency.into(),
            miss_latency: c.ideal.miss_latency.into(),
            fast: (0..lanes).map(|_| VecDeque::with_capacity(depth)).collect(),
            slow: (0..lanes).map(|_| VecDeque::with_capacity(depth)).collect(),
            requests: 0,
            l2_hits: 0,
        }
    }

    /// The short-latency FIFOs' one latency below the L1 (P∞, fixed latency): every
    /// fixed-latency miss, every P∞ L2 hit, every store's acknowledgement.
    fn fast_latency(&self) -> u64 {
        if self.mode == IdealMemory::FixedLatency { self.miss_latency } else { self.l2_latency }
    }

    /// Requests inside the ideal memory.
    pub fn in_flight(&self) -> usize {
        self.fast.iter().chain(&self.slow).map(|f| f.len()).sum()
    }

    /// P∞ / fixed latency, one core cycle: take every SM's L1 misses, return what is due;
    /// with `write_acks` a store is answered through the short-latency FIFO.
    pub fn serve_l1_misses(
        &mut self,
        now: u64,
        write_acks: bool,
        sms: &mut [Sm],
        l2: &mut [L2Slice],
        ledger: &mut Ledger,
    ) {
        for (i, sm) in sms.iter_mut().enumerate() {
            if !sm.l1.miss_queue.is_empty() {
                sm.poke();
            }
            while let Some(mut r) = sm.l1.miss_queue.pop() {
                self.requests += 1;
                r.trace.icnt_in = now;
                r.trace.l2_in = now;
                let slice = sm.slice_of(&r);
                let hit = self.mode == IdealMemory::FixedLatency || l2_lookup(&mut l2[slice], &r);
                let fast_due = now + self.fast_latency();
                if r.kind == AccessKind::Store {
                    if write_acks {
                        self.fast[i].push_back((fast_due, r.into_ack()));
                    } else {
                        ledger.retire();
                    }
                    continue;
                }
                if self.mode == IdealMemory::FixedLatency {
                    self.fast[i].push_back((fast_due, r));
                } else if hit {
                    self.l2_hits += 1;
                    r.trace.l2 = CacheOutcome::Hit;
                    self.fast[i].push_back((fast_due, r));
                } else {
                    r.trace.l2 = CacheOutcome::Miss;
                    r.trace.dram_in = now;
                    self.slow[i].push_back((now + self.l2_latency + self.dram_latency, r));
                }
            }
            for fifo in [&mut self.fast[i], &mut self.slow[i]] {
                while let Some(&(due, _)) = fifo.front() {
                    if due > now || sm.reply_queue.is_full() {
                        break;
                    }
                    let (_, mut r) = fifo.pop_front().expect("front exists");
                    r.trace.l2_out = now;
                    sm.poke();
                    if sm.reply_queue.push(r).is_err() {
                        unreachable!("reply queue room checked");
                    }
                }
            }
        }
    }

    /// P_DRAM, one core cycle: take every L2 slice's misses and write-backs, return what is
    /// due into the slice's fill queue.
    pub fn serve_l2_misses(&mut self, now: u64, l2: &mut [L2Slice], ledger: &mut Ledger) {
        for (i, slice) in l2.iter_mut().enumerate() {
            while let Some(mut r) = slice.miss_queue.pop() {
                self.requests += 1;
                r.trace.dram_in = now;
                if r.kind.is_write() {
                    ledger.retire();
                } else {
                    self.fast[i].push_back((now + self.dram_latency, r));
                }
            }
            while let Some(&(due, _)) = self.fast[i].front() {
                if due > now {
                    break;
                }
                let (_, mut r) = self.fast[i].pop_front().expect("front exists");
                r.trace.dram_done = now;
                slice.fills.push_back(r);
            }
        }
    }
}

/// Looks a P∞ request up in its L2 slice's tags: a hit refreshes the line, a miss installs
/// it (stores too: write-allocate; nothing is ever written back, there is no DRAM). A perfect
/// L2 always hits.
fn l2_lookup(slice: &mut L2Slice, r: &MemRequest) -> bool {
    if slice.perfect {
        return true;
    }
    let key = r.loc.slice_line;
    let (set, probe) = slice.tags.probe(key);
    match probe {
        Probe::Hit(way) | Probe::Pending(way) => {
            slice.tags.touch(set, way);
            true
        }
        Probe::Miss => {
            if let Some(way) = slice.tags.victim(set) {
                let line = Line {
                    key,
                    addr: r.addr,
                    state: LineState::Valid,
                    dirty: false,
                    owner: r.origin.core,
                    pc: r.origin.pc,
                    sectors: 0,
                    dirty_sectors: 0,
                };
                slice.tags.install(set, way, line, &AccessCtx::default());
            }
            false
        }
    }
}
