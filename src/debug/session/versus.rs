//! Two machines in lockstep (issue 40 item 2): `tui --vs KEY=VALUE...` (and `batch --vs`) runs
//! a second machine, B — the session's machine A with those settings — beside A. Every move of
//! A moves B to the same cycle: B follows each of A's steps, and goes back with its own time
//! travel when A does. So panes can show A, B or both with their differences marked, and
//! breakpoints can compare the two:
//!
//! - `break diverge [issue|dram|l1] [N]` hits in a cycle in which the chosen unit of the two
//!   machines becomes different (`debug::diverge`): an SM's issue stream (every instruction with
//!   its cycle, warp slot and pc), a channel's command stream (both kept as fingerprints,
//!   `sim::fingerprint`), or an L1's contents; N picks one SM or channel, and without a unit
//!   any of them counts.
//! - `break load-done ... if delta > N`: `delta` is B's latency of a load less A's. The same
//!   load is the same load number of the same warp of the same CTA on both machines; it is
//!   compared in the cycle the later of the two finishes it, with that machine's event.
//!
//! What the session holds of the pairing (the loads one machine has finished and the other not
//! yet) is saved with each of A's snapshots, so it too is a function of the cycle. Lockstep
//! compares unit by unit, so B must have A's shape (SMs, warp slots, channels, banks, L1 sets
//! and ways); `warpscope diff` compares machines of any shape.

use super::Session;
use crate::sim::Gpu;
use crate::sim::event::Event;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// The second machine and what lockstep keeps beside it.
pub struct Versus {
    /// The settings that make B from A, as given (`dram.scheduler=fcfs`).
    pub settings: Vec<String>,
    pub b: Session,
    /// B's events of the cycles it last followed A through.
    pub events: Vec<(u64, Event)>,
    /// Loads finished on one machine and not yet on the other.
    pub unpaired: Unpaired,
    /// `unpaired` at each of A's snapshots, by cycle.
    saved: BTreeMap<u64, Unpaired>,
}

impl Versus {
    /// B, made from the same workload with `settings`, next to A (`a`), both at their first
    /// cycle. Refused when B's shape differs from A's.
    pub fn new(a: &Gpu, settings: Vec<String>, b: Session) -> Result<Versus, String> {
        if let Some(why) = shape_change(a, &b.gpu) {
            return Err(format!(
                "it changes the machine's shape ({why}): lockstep compares the two machines unit by unit, so \
                 they need the same SMs, warp slots, channels, banks, L2 slices, L1 sets and ways; `warpscope \
                 diff` compares machines of any shape"
            ));
        }
        if b.gpu.cycle != a.cycle {
            return Err("--vs starts both machines at cycle 0; it cannot resume a checkpoint".into());
        }
        let saved = BTreeMap::from([(a.cycle, Unpaired::default())]);
        Ok(Versus { settings, b, events: Vec::new(), unpaired: Unpaired::default(), saved })
    }

    /// Brings B to cycle `t` after A stepped there, keeping B's events of the cycles it went
    /// through (none when it was there already or had finished).
    pub fn follow(&mut self, t: u64, mask: u64) {
        self.events.clear();
        if self.b.gpu.cycle > t {
            self.b.goto(t);
            return;
        }
        self.b.step_to(t, mask, &mut self.events);
    }

    /// A restored its snapshot of cycle `at`: B goes there, and the pairing is as it was there.
    pub fn restore(&mut self, at: u64) {
        self.unpaired = self.saved.range(..=at).next_back().map(|(_, u)| u.clone()).unwrap_or_default();
        self.b.goto(at);
        self.events.clear();
    }

    /// A took (or holds) snapshots at `cycles`: keeps the pairing of A's latest cycle `now` if
    /// one was taken there, and forgets those A dropped.
    pub fn saw_snapshots(&mut self, now: u64, cycles: &[u64]) {
        if cycles.binary_search(&now).is_ok() && !self.saved.contains_key(&now) {
            self.saved.insert(now, self.unpaired.clone());
        }
        if self.saved.len() > cycles.len() {
            self.saved.retain(|c, _| cycles.binary_search(c).is_ok());
        }
    }

    /// The loads of `a_events` (A's, this cycle) and of B's events that the other machine has
    /// finished too, each with the later machine's event and `delta`, B's latency less A's.
    pub fn pair(&mut self, a_events: &[(u64, Event)]) -> Vec<(Event, i64)> {
        let mut out = Vec::new();
        for (_, e) in a_events {
            if let Some((key, lat)) = finished(e)
                && let Some(b) = self.unpaired.take(key, lat, Side::A)
            {
                out.push((e.clone(), b as i64 - lat as i64));
            }
        }
        for (_, e) in &self.events {
            if let Some((key, lat)) = finished(e)
                && let Some(a) = self.unpaired.take(key, lat, Side::B)
            {
                out.push((e.clone(), lat as i64 - a as i64));
            }
        }
        out
    }
}

/// Which machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

/// The same load on both machines: its CTA, warp in the CTA, load number and pc.
type LoadKey = (u32, u16, u32, u32);

/// A finished load's key and latency.
fn finished(e: &Event) -> Option<(LoadKey, u64)> {
    match *e {
        Event::LoadDone { cta, warp_in_cta, seq, pc, issued, last, .. } => {
            Some(((cta, warp_in_cta, seq, pc), last - issued))
        }
        _ => None,
    }
}

/// Loads finished on one machine only, with their latencies, oldest first; at most
/// [`Unpaired::CAPACITY`] a machine (the oldest are forgotten: a load the other machine never
/// finishes, or finishes far later, is not compared).
#[derive(Clone, Debug, Default)]
pub struct Unpaired {
    latency: [HashMap<LoadKey, u64>; 2],
    order: [VecDeque<LoadKey>; 2],
}

impl Unpaired {
    pub const CAPACITY: usize = 1 << 16;

    /// A load finished on `side` with `latency`: the other side's latency of it if that side
    /// finished it already (the pair is complete), else it waits for it.
    fn take(&mut self, key: LoadKey, latency: u64, side: Side) -> Option<u64> {
        let (mine, other) = match side {
            Side::A => (0, 1),
            Side::B => (1, 0),
        };
        if let Some(l) = self.latency[other].remove(&key) {
            return Some(l);
        }
        if self.order[mine].len() == Self::CAPACITY
            && let Some(old) = self.order[mine].pop_front()
        {
            self.latency[mine].remove(&old);
        }
        self.latency[mine].insert(key, latency);
        self.order[mine].push_back(key);
        None
    }

    /// How many loads wait for the other machine, on A and on B.
    pub fn waiting(&self) -> (usize, usize) {
        (self.latency[0].len(), self.latency[1].len())
    }
}

/// How B's shape differs from A's, if it does.
pub fn shape_change(a: &Gpu, b: &Gpu) -> Option<String> {
    let shape = |g: &Gpu| {
        [
            ("SMs", g.sms.len()),
            ("warp slots per SM", g.config.warps_per_sm()),
            ("DRAM channels", g.dram.len()),
            ("banks per channel", g.config.dram.banks as usize),
            ("L2 slices", g.l2.len()),
            ("L1 sets", g.sms[0].l1.tags.sets),
            ("L1 ways", g.sms[0].l1.tags.ways),
        ]
    };
    let (sa, sb) = (shape(a), shape(b));
    sa.iter()
        .zip(&sb)
        .find(|(x, y)| x.1 != y.1)
        .map(|((what, n), (_, m))| format!("{what}: {n} on A, {m} on B"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_pairs_with_the_same_load_on_the_other_machine_whichever_finishes_first() {
        let mut u = Unpaired::default();
        let (k1, k2) = ((3, 1, 7, 0x40), (3, 1, 8, 0x40));
        assert_eq!(u.take(k1, 500, Side::A), None, "A first: it waits");
        assert_eq!(u.take(k2, 300, Side::B), None, "B first: it waits");
        assert_eq!(u.waiting(), (1, 1));
        assert_eq!(u.take(k1, 650, Side::B), Some(500), "B finishes k1: A's latency");
        assert_eq!(u.take(k2, 320, Side::A), Some(300), "A finishes k2: B's latency");
        assert_eq!(u.waiting(), (0, 0));
    }
}
