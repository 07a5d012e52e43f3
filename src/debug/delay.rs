//! The `delayed` event (issue 17 item 3): while a breakpoint listens for it, the session
//! records the machine's passes as it moves forward and, when a load's data is all back (its
//! `load-done`), works out who delayed the load (`debug::blame`) and reports one `delayed`
//! per stage its requests waited in — the longest wait of one request there and that wait's
//! largest cause — so `break delayed stage=dram cycles>200` stops at the cycle the load
//! finishes. Nothing is recorded while nobody listens.
//!
//! The passes kept reach back to the issue of the oldest load in flight; when recording
//! (re)starts, that stretch of history is replayed from a snapshot first, so a load issued
//! before the breakpoint was set, or before the cycle time travel moved to, is judged on the
//! same passes as a load issued later, and the events are a function of the machine.

use super::blame::{LoadBlame, Stage, blame};
use super::recording::record;
use super::timetravel::TimeTravel;
use crate::sim::Gpu;
use crate::sim::event::{Event, EventKind};
use crate::sim::record::{Pass, Point};

/// Cycles between two prunings of the passes.
const PRUNE_EVERY: u64 = 1024;

/// The passes a listener for `delayed` needs.
#[derive(Clone, Debug, Default)]
pub struct DelayWatch {
    /// Passes since the issue of the oldest load in flight; `None` until recording (re)starts.
    passes: Option<Vec<Pass>>,
    pruned: u64,
}

impl DelayWatch {
    /// Forgets the passes: the machine moved in time, or nobody listens any more.
    pub fn reset(&mut self) {
        self.passes = None;
    }

    /// Before a step of machine `g` with a listener: records from now on, and the first time
    /// (or after a reset) replays the history of the loads in flight.
    pub fn before_step(&mut self, g: &mut Gpu, travel: &TimeTravel) {
        g.events.set(EventKind::LoadDone, true);
        if self.passes.is_none() {
            g.events.set_recording(false);
            let from = oldest_in_flight(g).unwrap_or(g.cycle);
            let passes = if from < g.cycle { record(travel, from, g.cycle, |_| false).0 } else { Vec::new() };
            self.passes = Some(passes);
            self.pruned = g.cycle;
        }
        g.events.set_recording(true);
    }

    /// After a step: keeps its passes and returns the `delayed` events of the loads that
    /// finished in it (among `events`, the step's events) and that `wanted` (core, warp,
    /// latency) does not rule out.
    pub fn after_step(
        &mut self,
        g: &mut Gpu,
        events: &[(u64, Event)],
        wanted: impl Fn(u16, u16, u64) -> bool,
    ) -> Vec<(u64, Event)> {
        let Some(passes) = self.passes.as_mut() else { return Vec::new() };
        g.events.append_passes(passes);
        let mut out = Vec::new();
        for (cycle, e) in events {
            let Event::LoadDone { core, warp, issued, last, .. } = *e else { continue };
            if !wanted(core, warp, last - issued) {
                continue;
            }
            let from = &passes[passes.partition_point(|p| p.cycle < issued)..];
            let issue = from.iter().find(|p| {
                p.point == Point::Issue && p.cycle == issued && p.unit == core && p.who.warp == warp
            });
            let found = issue.map(|i| blame(from, core, warp, i.who.seq, Some(issued)));
            if let Some(Ok(b)) = found {
                out.extend(delays(&b).into_iter().map(|e| (*cycle, e)));
            }
        }
        if g.cycle >= self.pruned + PRUNE_EVERY {
            let keep = oldest_in_flight(g).unwrap_or(g.cycle);
            passes.drain(..passes.partition_point(|p| p.cycle < keep));
            self.pruned = g.cycle;
        }
        out
    }
}

/// One `delayed` event per stage the load's requests waited in, in the order requests meet
/// the stages: the longest wait of one request there and its largest cause.
pub fn delays(b: &LoadBlame) -> Vec<Event> {
    Stage::ALL
        .iter()
        .filter_map(|&stage| {
            let worst = b
                .requests
                .iter()
                .flat_map(|r| &r.stages)
                .filter(|s| s.stage == stage && s.cycles() > 0)
                .reduce(|a, s| if s.cycles() > a.cycles() { s } else { a })?;
            Some(Event::Delayed {
                core: b.core,
                warp: b.warp,
                load_seq: b.seq,
                stage: stage.name(),
                unit: worst.unit,
                cycles: worst.cycles(),
                cause: worst.parts.first()?.cause.name(),
            })
        })
        .collect()
}

/// The issue cycle of the oldest load in flight on the machine.
fn oldest_in_flight(g: &Gpu) -> Option<u64> {
    let loads = g.sms.iter().flat_map(|sm| &sm.exec.warps).flat_map(|w| &w.loads);
    loads.filter(|l| l.active).map(|l| l.issued).min()
}
