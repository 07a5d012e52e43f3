//! What the debugger remembers of the past besides the machine: a bounded log of events and
//! periodic samples of headline counters (for sparklines). Snapshots keep both as they were at
//! their cycle (`debug::timetravel`): going back restores them with the machine and the
//! replay refills them, so they are at every cycle what a forward run has there.

use crate::sim::Gpu;
use crate::sim::event::{Event, EventKind};
pub use crate::sim::stats::sample::{Interval, Sample};
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
    /// The log holds every logged event from this cycle on: events before it were dropped to
    /// keep `capacity` (0: nothing was dropped).
    pub complete_from: u64,
}

impl EventLog {
    pub fn new(capacity: usize) -> EventLog {
        EventLog {
            entries: VecDeque::with_capacity(capacity.min(1 << 16)),
            capacity,
            mask: DEFAULT_LOG.iter().fold(0, |m, k| m | k.bit()),
            complete_from: 0,
        }
    }

    pub fn wants(&self, kind: EventKind) -> bool {
        self.mask & kind.bit() != 0
    }

    pub fn push(&mut self, cycle: u64, e: Event) {
        if self.entries.len() == self.capacity
            && let Some((dropped, _)) = self.entries.pop_front()
        {
            // Other events of the dropped one's cycle may remain; the log is whole only after it.
            self.complete_from = self.complete_from.max(dropped + 1);
        }
        self.entries.push_back((cycle, e));
    }

    /// Its size, roughly.
    pub fn bytes(&self) -> usize {
        self.entries.len() * size_of::<(u64, Event)>()
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

    /// Its size, roughly.
    pub fn bytes(&self) -> usize {
        self.list.len() * size_of::<Sample>()
    }

    /// Per-interval series: IPC, DRAM bandwidth utilization (%), MSHR occupancy (%).
    pub fn series(&self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut ipc = Vec::new();
        let mut bw = Vec::new();
        let mut mshr = Vec::new();
        for (a, b) in self.list.iter().zip(self.list.iter().skip(1)) {
            let i = Interval::new(*a, *b);
            ipc.push(i.ipc());
            bw.push(100.0 * i.dram_bandwidth_utilization());
            mshr.push(100.0 * b.mshr_used as f64 / b.mshr_capacity.max(1) as f64);
        }
        (ipc, bw, mshr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(cta: u32) -> Event {
        Event::CtaLaunch { core: 0, cta }
    }

    /// The log says from which cycle on it is whole: after dropping the oldest entries to keep
    /// its capacity.
    #[test]
    fn the_log_knows_from_which_cycle_it_is_whole() {
        let mut log = EventLog::new(3);
        for c in 1..=3 {
            log.push(c, launch(c as u32));
        }
        assert_eq!(log.complete_from, 0, "nothing dropped yet");
        log.push(4, launch(4));
        log.push(5, launch(5));
        assert_eq!(log.complete_from, 3, "cycles 1 and 2 dropped");
        assert_eq!(log.entries.iter().map(|(c, _)| *c).collect::<Vec<_>>(), [3, 4, 5]);
    }
}
