//! Time travel (rr-style): the machine is deterministic and a snapshot is a clone, so going
//! back to cycle t restores the latest snapshot at or before t and replays forward.
//!
//! Snapshots are taken every `interval` cycles. When they outgrow the memory budget, every
//! other one is dropped (the first, at cycle 0, always stays) and the interval doubles, so the
//! whole history stays reachable and replay distances stay bounded by the interval.

use crate::sim::Gpu;
use crate::sim::inspect::approx_bytes;

#[derive(Clone, Debug)]
pub struct TimeTravel {
    /// Snapshots, sorted by cycle; the first is cycle 0.
    snaps: Vec<Gpu>,
    pub interval: u64,
    budget: usize,
    /// Size estimate of one snapshot (the largest seen).
    pub snap_bytes: usize,
}

impl TimeTravel {
    pub fn new(start: &Gpu, interval: u64, budget_bytes: usize) -> TimeTravel {
        TimeTravel {
            snaps: vec![start.clone()],
            interval,
            budget: budget_bytes,
            snap_bytes: approx_bytes(start),
        }
    }

    /// Called after each step: snapshots the machine when it reaches a multiple of the
    /// interval not yet covered.
    pub fn observe(&mut self, g: &Gpu) {
        if !g.cycle.is_multiple_of(self.interval) {
            return;
        }
        let pos = self.snaps.partition_point(|s| s.cycle < g.cycle);
        if self.snaps.get(pos).is_some_and(|s| s.cycle == g.cycle) {
            return;
        }
        self.snap_bytes = self.snap_bytes.max(approx_bytes(g));
        self.snaps.insert(pos, g.clone());
        if self.snaps.len() * self.snap_bytes > self.budget && self.snaps.len() > 2 {
            self.thin();
        }
    }

    /// Drops every other snapshot (keeping cycle 0) and doubles the interval.
    fn thin(&mut self) {
        self.interval *= 2;
        let interval = self.interval;
        self.snaps.retain(|s| s.cycle.is_multiple_of(interval));
    }

    /// The latest snapshot at or before `cycle`.
    pub fn at_or_before(&self, cycle: u64) -> &Gpu {
        let pos = self.snaps.partition_point(|s| s.cycle <= cycle);
        &self.snaps[pos.saturating_sub(1)]
    }

    /// The latest snapshot strictly before `cycle`, if any.
    pub fn before(&self, cycle: u64) -> Option<&Gpu> {
        let pos = self.snaps.partition_point(|s| s.cycle < cycle);
        pos.checked_sub(1).map(|p| &self.snaps[p])
    }

    /// Cycles of the snapshots.
    pub fn cycles(&self) -> Vec<u64> {
        self.snaps.iter().map(|s| s.cycle).collect()
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
