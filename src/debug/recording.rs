//! Replaying a stretch of history with recording on (issue 17): the machine is deterministic
//! and every snapshot is a clone, so the passes of any past cycles can be had by restoring
//! the snapshot before them and stepping again with the sink recording — nothing is recorded
//! while the machine runs normally.

use super::blame::{LoadBlame, blame};
use super::timetravel::TimeTravel;
use crate::sim::record::{Pass, Point, Who};
use crate::sim::stats::metrics::group;
use crate::sim::{Gpu, Status};

/// The passes of cycles [from snapshot ≤ `start`, `end`), and the cycle recording began.
/// Stops early once `enough` says the passes so far are enough (checked every 256 cycles).
pub fn record(
    travel: &TimeTravel,
    start: u64,
    end: u64,
    enough: impl Fn(&[Pass]) -> bool,
) -> (Vec<Pass>, u64) {
    let mut g: Gpu = travel.at_or_before(start).clone();
    let began = g.cycle;
    g.events.set_mask(0);
    g.events.set_recording(true);
    let mut passes = refusals_in_progress(&g);
    while g.cycle < end && g.status == Status::Running {
        let bound = (g.cycle + 256).min(end);
        while g.cycle < bound && g.status == Status::Running {
            if g.leap(bound) == 0 {
                g.step();
            }
        }
        passes.extend(g.events.take_passes());
        if enough(&passes) {
            break;
        }
    }
    passes.sort_by_key(|p| p.cycle);
    (passes, began)
}

/// Refusals that began before recording did: a LD/ST unit whose head the L1 is refusing at
/// the snapshot gets a `Refused` pass at the snapshot's cycle, so the wait that follows is
/// seen as occlusion rather than as the head's service.
fn refusals_in_progress(g: &Gpu) -> Vec<Pass> {
    g.sms
        .iter()
        .filter_map(|sm| {
            let (cause, head) = (sm.ldst.stalled?, sm.ldst.queue.front()?);
            let who = Who { id: u64::MAX, core: sm.id, warp: head.warp, seq: head.seq, index: 0, kind: None };
            Some(Pass { cycle: g.cycle, point: Point::Refused, unit: sm.id, detail: cause as u16, who })
        })
        .collect()
}

/// The blame of load `seq` of warp `core.warp`: the latest such load issued in cycles
/// [`from`, `now`) (the latest one whose data is back when `seq` is `None`; `last` says which
/// that is if known). Replays from the snapshot before its issue until its last request is
/// back.
pub fn load_blame(
    travel: &TimeTravel,
    [from, now]: [u64; 2],
    (core, warp): (u16, u16),
    seq: Option<u32>,
    last: Option<(u64, u32)>,
) -> Result<LoadBlame, String> {
    let (issued, seq) = match (seq, last) {
        (None, Some(l)) => l,
        (Some(s), Some((t, ls))) if s == ls => (t, s),
        _ => find_load(travel, [from, now], core, warp, seq)?,
    };
    let finished = |passes: &[Pass]| {
        passes
            .iter()
            .find(|p| {
                p.point == Point::Issue && p.cycle == issued && p.who.core == core && p.who.warp == warp
            })
            .is_some_and(|issue| load_done(passes, issue))
    };
    let (passes, _) = record(travel, issued, now, finished);
    blame(&passes, core, warp, seq, Some(issued))
}

/// The blame of load `seq` of warp `core.warp` of machine `g` (its latest finished load when
/// `None`). A slot's loads are its current warp's: those issued since its CTA was launched
/// (issue 38 item 4); an empty slot's are those of the warps it held.
pub fn warp_load_blame(
    g: &Gpu,
    travel: &TimeTravel,
    (core, warp): (u16, u16),
    seq: Option<u32>,
) -> Result<LoadBlame, String> {
    let sm = g
        .sms
        .get(usize::from(core))
        .ok_or_else(|| format!("core {core} does not exist (0..{})", g.sms.len() - 1))?;
    let w = sm.exec.warps.get(usize::from(warp)).ok_or_else(|| {
        format!("warp slot {warp} does not exist on core {core} (0..{})", sm.exec.warps.len() - 1)
    })?;
    let last = (w.last_load.requests > 0).then_some((w.last_load.issued, w.last_load.seq));
    if !w.valid {
        return load_blame(travel, [0, g.cycle], (core, warp), seq, last);
    }
    let occupant = || format!("warp {core}.{warp} (CTA {}, launched at cycle {})", w.cta, group(w.launched));
    if seq.is_none() && last.is_none() {
        return Err(format!("{} has finished no global load yet", occupant()));
    }
    if let Some(s) = seq
        && s >= w.load_seq
    {
        let so_far = match w.load_seq {
            0 => "none yet".to_string(),
            n => format!("its loads so far are 0..{}", n - 1),
        };
        return Err(format!("{} issued no load {s} ({so_far})", occupant()));
    }
    load_blame(travel, [w.launched, g.cycle], (core, warp), seq, last)
}

/// When load `seq` of warp `core.warp` was issued (the latest such load in cycles [`from`,
/// `now`); with no `seq`, the latest that finished): looked up segment by segment backwards
/// from `now`.
fn find_load(
    travel: &TimeTravel,
    [from, now]: [u64; 2],
    core: u16,
    warp: u16,
    seq: Option<u32>,
) -> Result<(u64, u32), String> {
    let mut end = now;
    while end > from
        && let Some(snap) = travel.before(end)
    {
        let start = snap.cycle;
        let (passes, _) = record(travel, start, end, |_| false);
        let mut issues = passes.iter().filter(|p| {
            p.point == Point::Issue && p.cycle >= from && p.who.core == core && p.who.warp == warp
        });
        let found = match seq {
            Some(s) => issues.rfind(|p| p.who.seq == s),
            None => issues.rfind(|i| load_done(&passes, i)),
        };
        if let Some(f) = found {
            return Ok((f.cycle, f.who.seq));
        }
        end = start;
    }
    Err(match seq {
        Some(s) => format!("warp {core}.{warp} issued no global load {s} before cycle {}", group(now)),
        None => format!("no load of warp {core}.{warp} has finished by cycle {}", group(now)),
    })
}

/// Whether every request of the load issued at `issue` is back within `passes`.
fn load_done(passes: &[Pass], issue: &Pass) -> bool {
    let w = issue.who;
    let n = usize::from(issue.detail);
    let ids: Vec<u64> = passes
        .iter()
        .filter(|p| {
            p.point == Point::Access
                && p.cycle >= issue.cycle
                && (p.who.core, p.who.warp, p.who.seq) == (w.core, w.warp, w.seq)
        })
        .take(n)
        .map(|p| p.who.id)
        .collect();
    ids.len() == n && ids.iter().all(|id| passes.iter().any(|p| p.point == Point::Done && p.who.id == *id))
}

/// The last blame a session worked out, kept while the machine stays at its cycle, so panes
/// redrawn many times do not replay history each time.
#[derive(Clone, Debug, Default)]
pub struct BlameCache {
    entry: Option<(BlameKey, Result<LoadBlame, String>)>,
}

/// The cycle, the warp and the load (`None`: its latest finished one).
pub type BlameKey = (u64, (u16, u16), Option<u32>);

impl BlameCache {
    pub fn get(&self, key: BlameKey) -> Option<&Result<LoadBlame, String>> {
        self.entry.as_ref().filter(|(k, _)| *k == key).map(|(_, v)| v)
    }

    pub fn put(&mut self, key: BlameKey, value: Result<LoadBlame, String>) {
        self.entry = Some((key, value));
    }
}
