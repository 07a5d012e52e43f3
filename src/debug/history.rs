//! What the debugger remembers of the past besides snapshots: a bounded log of events and
//! periodic samples of headline counters (for sparklines). Both are cut back when time
//! travel moves before their entries, and refilled by replay.

use crate::sim::Gpu;
use crate::sim::event::{Event, EventKind};
use std::collections::VecDeque;

/// The event kinds logged by default: rare enough not to flood the log.
pub const DEFAULT_LOG: &[EventKind] = &[
    EventKind::MemoryOcclusion,
    EventKind::WriteDrainStart,
    EventKind::WriteDrainEnd,
    EventKind::CtaLaunch,
    EventKind::CtaDone,
    EventKind::KernelEnd,
];

#[derive(Clone, Debug)]
pub struct EventLog {
    pub entries: VecDeque<(u64, Event)>,
    pub capacity: usize,
    pub mask: u64,
}

impl EventLog {
    pub fn new(capacity: usize) -> EventLog {
        EventLog {
            entries: VecDeque::with_capacity(capacity.min(1 << 16)),
            capacity,
            mask: DEFAULT_LOG.iter().fold(0, |m, k| m | k.bit()),
        }
    }

    pub fn wants(&self, kind: EventKind) -> bool {
        self.mask & kind.bit() != 0
    }

    pub fn push(&mut self, cycle: u64, e: Event) {
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back((cycle, e));
    }

    /// Forgets entries after `cycle`.
    pub fn truncate_after(&mut self, cycle: u64) {
        while self.entries.back().is_some_and(|(c, _)| *c > cycle) {
            self.entries.pop_back();
        }
    }
}

/// Cumulative counters at one cycle; rates come from consecutive samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub cycle: u64,
    pub thread_instructions: u64,
    pub dram_busy: u64,
    pub dram_cycles: u64,
    /// L1 MSHR entries in use, summed over SMs, and their capacity.
    pub mshr_used: u64,
    pub mshr_capacity: u64,
    pub requests_in_flight: u64,
}

impl Sample {
    pub fn of(g: &Gpu) -> Sample {
        Sample {
            cycle: g.cycle,
            thread_instructions: g.sms.iter().map(|s| s.stats.thread_instructions).sum(),
            dram_busy: g.dram.iter().map(|d| d.stats.busy_cycles).sum(),
            dram_cycles: g.dram.iter().map(|d| d.stats.cycles).sum(),
            mshr_used: g.sms.iter().map(|s| s.l1.mshr.used() as u64).sum(),
            mshr_capacity: g.sms.iter().map(|s| s.l1.mshr.capacity() as u64).sum(),
            requests_in_flight: g.created - g.retired,
        }
    }
}

/// Samples every `every` cycles, at most `capacity` (the oldest are dropped).
#[derive(Clone, Debug)]
pub struct Samples {
    pub list: VecDeque<Sample>,
    pub every: u64,
    pub capacity: usize,
}

impl Samples {
    pub fn new(every: u64, capacity: usize) -> Samples {
        Samples { list: VecDeque::with_capacity(capacity), every, capacity }
    }

    pub fn observe(&mut self, g: &Gpu) {
        if !g.cycle.is_multiple_of(self.every) || self.list.back().is_some_and(|s| s.cycle >= g.cycle) {
            return;
        }
        if self.list.len() == self.capacity {
            self.list.pop_front();
        }
        self.list.push_back(Sample::of(g));
    }

    pub fn truncate_after(&mut self, cycle: u64) {
        while self.list.back().is_some_and(|s| s.cycle > cycle) {
            self.list.pop_back();
        }
    }

    /// Per-interval series: IPC, DRAM bandwidth utilization (%), MSHR occupancy (%).
    pub fn series(&self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut ipc = Vec::new();
        let mut bw = Vec::new();
        let mut mshr = Vec::new();
        for w in self.list.iter().collect::<Vec<_>>().windows(2) {
            let (a, b) = (w[0], w[1]);
            let dc = (b.cycle - a.cycle).max(1) as f64;
            ipc.push((b.thread_instructions - a.thread_instructions) as f64 / dc);
            let dd = (b.dram_cycles - a.dram_cycles).max(1) as f64;
            bw.push(100.0 * (b.dram_busy - a.dram_busy) as f64 / dd);
            mshr.push(100.0 * b.mshr_used as f64 / b.mshr_capacity.max(1) as f64);
        }
        (ipc, bw, mshr)
    }
}
