//! Time travel (rr-style): the machine is deterministic and a snapshot is a clone, so going
//! back to cycle t restores the latest snapshot at or before t and replays forward. What the
//! debugger remembers of the past that a replay cannot rebuild — the event log, whose oldest
//! entries are dropped as it fills, and the samples — is taken with the machine, so the replay
//! rebuilds them as a forward run has them at t (issue 38 item 1).
//!
//! Snapshots are taken every `interval` cycles. When they outgrow the memory budget, every
//! other one is dropped (the first, at cycle 0 or a resumed checkpoint's, always stays) and the
//! interval doubles, so the whole history stays reachable and replay distances stay bounded by
//! the interval.

use super::history::{EventLog, Samples};
use crate::sim::Gpu;
use crate::sim::inspect::approx_bytes;

/// The machine at a cycle, with the session's event log and samples at that cycle.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub gpu: Gpu,
    pub log: EventLog,
    pub samples: Samples,
}

impl Snapshot {
    /// Its size, roughly.
    fn bytes(&self) -> usize {
        approx_bytes(&self.gpu) + self.log.bytes() + self.samples.bytes()
    }
}

#[derive(Clone, Debug)]
pub struct TimeTravel {
    /// Snapshots, sorted by cycle; the first is where the history begins: cycle 0, or the
    /// cycle of the checkpoint the session was resumed from.
    snaps: Vec<Snapshot>,
    pub interval: u64,
    budget: usize,
    /// Size estimate of one snapshot (the largest seen).
    pub snap_bytes: usize,
}

impl TimeTravel {
    pub fn new(start: Snapshot, interval: u64, budget_bytes: usize) -> TimeTravel {
        TimeTravel { snap_bytes: start.bytes(), snaps: vec![start], interval, budget: budget_bytes }
    }

    /// Called after each step (with the log and samples brought up to the step's end):
    /// snapshots the machine when it reaches a multiple of the interval not yet covered.
    pub fn observe(&mut self, g: &Gpu, log: &EventLog, samples: &Samples) {
        if !g.cycle.is_multiple_of(self.interval) {
            return;
        }
        let pos = self.snaps.partition_point(|s| s.gpu.cycle < g.cycle);
        if self.snaps.get(pos).is_some_and(|s| s.gpu.cycle == g.cycle) {
            return;
        }
        let snap = Snapshot { gpu: g.clone(), log: log.clone(), samples: samples.clone() };
        self.snap_bytes = self.snap_bytes.max(snap.bytes());
        self.snaps.insert(pos, snap);
        if self.snaps.len() * self.snap_bytes > self.budget && self.snaps.len() > 2 {
            self.thin();
        }
    }

    /// Drops every other snapshot (keeping the first) and doubles the interval.
    fn thin(&mut self) {
        self.interval *= 2;
        let (interval, first) = (self.interval, self.snaps[0].gpu.cycle);
        self.snaps.retain(|s| s.gpu.cycle == first || s.gpu.cycle.is_multiple_of(interval));
    }

    /// The latest snapshot at or before `cycle`, with the log and samples of its cycle.
    pub fn snapshot(&self, cycle: u64) -> &Snapshot {
        let pos = self.snaps.partition_point(|s| s.gpu.cycle <= cycle);
        &self.snaps[pos.saturating_sub(1)]
    }

    /// The cycle where the history begins: 0, or a resumed checkpoint's.
    pub fn first_cycle(&self) -> u64 {
        self.snaps[0].gpu.cycle
    }

    /// The machine of the latest snapshot at or before `cycle`.
    pub fn at_or_before(&self, cycle: u64) -> &Gpu {
        &self.snapshot(cycle).gpu
    }

    /// The latest snapshot strictly before `cycle`, if any.
    pub fn before(&self, cycle: u64) -> Option<&Gpu> {
        let pos = self.snaps.partition_point(|s| s.gpu.cycle < cycle);
        pos.checked_sub(1).map(|p| &self.snaps[p].gpu)
    }

    /// Cycles of the snapshots.
    pub fn cycles(&self) -> Vec<u64> {
        self.snaps.iter().map(|s| s.gpu.cycle).collect()
    }

    pub fn len(&self) -> usize {
        self.snaps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.snaps.is_empty()
    }

    pub fn budget_bytes(&self) -> usize {
        self.budget
    }
}
