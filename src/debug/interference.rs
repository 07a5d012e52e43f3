//! Who delayed whom over a stretch of a run (issue 17 item 3): every load that finished in
//! the window is blamed (`debug::blame`), then, per DRAM channel, the cycles each warp's
//! requests spent being served ahead of another warp's at that channel, and per SM how its
//! loads' latency splits into waiting (queueing behind others, refusals, back-pressure) and
//! service (transfers, latencies, their own commands and data) — seed 000's story (§III:
//! warps interleaved at the memory controllers stretch every warp's latency) at a glance.

use super::blame::{Cause, LoadBlame, Stage, blame_all};
use super::recording::record;
use super::timetravel::TimeTravel;
use std::collections::BTreeMap;

/// A warp: (core, warp slot).
pub type WarpId = (u16, u16);

/// The interference of one DRAM channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChannelShare {
    /// Cycles the loads' requests spent at this controller.
    pub cycles: u64,
    /// Those cycles by cause.
    pub by_cause: BTreeMap<Cause, u64>,
    /// (delaying warp, delayed warp) → cycles the first's requests were served ahead of the
    /// second's here.
    pub pairs: BTreeMap<(WarpId, WarpId), u64>,
}

/// The latency of one SM's loads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmShare {
    pub loads: u64,
    /// Summed over the loads' latencies (issue to last data).
    pub latency: u64,
    /// Summed over every request: cycles waiting and cycles of service.
    pub waiting: u64,
    pub service: u64,
    /// Waiting cycles per stage.
    pub waiting_by_stage: BTreeMap<Stage, u64>,
}

/// The interference of the loads that finished in cycles [from, to).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interference {
    pub from: u64,
    pub to: u64,
    pub loads: u64,
    pub requests: u64,
    pub channels: BTreeMap<u16, ChannelShare>,
    pub sms: BTreeMap<u16, SmShare>,
}

impl Interference {
    /// Adds one load's blame.
    pub fn add(&mut self, b: &LoadBlame) {
        self.loads += 1;
        self.requests += b.requests.len() as u64;
        let sm = self.sms.entry(b.core).or_default();
        sm.loads += 1;
        sm.latency += b.latency();
        for s in b.requests.iter().flat_map(|r| &r.stages) {
            for p in &s.parts {
                if p.cause.is_service() {
                    sm.service += p.cycles;
                } else {
                    sm.waiting += p.cycles;
                    *sm.waiting_by_stage.entry(s.stage).or_default() += p.cycles;
                }
            }
            if s.stage != Stage::Dram {
                continue;
            }
            let ch = self.channels.entry(s.unit).or_default();
            ch.cycles += s.cycles();
            for p in &s.parts {
                *ch.by_cause.entry(p.cause).or_default() += p.cycles;
                if p.cause == Cause::OtherWarps {
                    for (w, c) in &p.by_warp {
                        *ch.pairs.entry((*w, (b.core, b.warp))).or_default() += c;
                    }
                }
            }
        }
    }

    /// The warps whose requests delayed others most at channel `ch`, with the cycles.
    pub fn top_pairs(&self, ch: u16, n: usize) -> Vec<((WarpId, WarpId), u64)> {
        let Some(c) = self.channels.get(&ch) else { return Vec::new() };
        let mut v: Vec<_> = c.pairs.iter().map(|(k, v)| (*k, *v)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }
}

/// The interference of the loads issued and finished in the last `window` cycles before
/// `now`, replaying that stretch of history with recording on.
pub fn interference(travel: &TimeTravel, now: u64, window: u64) -> Interference {
    let from = now.saturating_sub(window);
    let (passes, _) = record(travel, from, now, |_| false);
    let mut i = Interference { from, to: now, ..Interference::default() };
    for b in blame_all(&passes, from) {
        i.add(&b);
    }
    i
}

/// The window `show interference` looks at when not told.
pub const DEFAULT_WINDOW: u64 = 10_000;

/// The last interference a session worked out, kept while the machine stays at its cycle.
#[derive(Clone, Debug, Default)]
pub struct InterferenceCache {
    entry: Option<((u64, u64), Interference)>,
}

impl InterferenceCache {
    /// At cycle `now` over `window` cycles, if known.
    pub fn get(&self, now: u64, window: u64) -> Option<&Interference> {
        self.entry.as_ref().filter(|(k, _)| *k == (now, window)).map(|(_, v)| v)
    }

    pub fn put(&mut self, now: u64, window: u64, value: Interference) {
        self.entry = Some(((now, window), value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug::blame::{Part, RequestBlame, StageBlame};
    use crate::sim::record::Who;
    use std::collections::BTreeSet;

    fn part(cause: Cause, cycles: u64, by_warp: &[((u16, u16), u64)]) -> Part {
        Part {
            cause,
            cycles,
            requests: BTreeSet::new(),
            by_warp: by_warp.iter().copied().collect(),
            row_hits: 0,
        }
    }

    /// Seed 000 Fig. 5's story on one channel: warp 0.1's request waits 30 cycles at
    /// channel 2 behind warp 0.2 (20 cycles) and warp 1.0 (10), then 8 of its own service;
    /// before that it waited 5 cycles in the LD/ST unit and spent 4 on the request network.
    #[test]
    fn a_load_adds_its_waits_by_channel_pair_and_its_latency_by_sm() {
        let who = Who { id: 1, core: 0, warp: 1, seq: 0, index: 0, kind: None };
        let st = |stage, unit, from, to, parts| StageBlame { stage, unit, from, to, parts };
        let b = LoadBlame {
            core: 0,
            warp: 1,
            seq: 0,
            issued: 100,
            requests: vec![RequestBlame {
                who,
                stages: vec![
                    st(Stage::Ldst, 0, 100, 105, vec![part(Cause::OtherWarps, 5, &[((0, 3), 5)])]),
                    st(Stage::Request, 1, 105, 109, vec![part(Cause::Service, 4, &[])]),
                    st(
                        Stage::Dram,
                        2,
                        109,
                        147,
                        vec![
                            part(Cause::OtherWarps, 30, &[((0, 2), 20), ((1, 0), 10)]),
                            part(Cause::Service, 8, &[]),
                        ],
                    ),
                ],
            }],
        };
        let mut i = Interference::default();
        i.add(&b);
        i.add(&b);
        assert_eq!((i.loads, i.requests), (2, 2));
        let sm = &i.sms[&0];
        assert_eq!((sm.loads, sm.latency, sm.waiting, sm.service), (2, 94, 70, 24));
        assert_eq!(sm.waiting_by_stage, BTreeMap::from([(Stage::Ldst, 10), (Stage::Dram, 60)]));
        let ch = &i.channels[&2];
        assert_eq!(ch.cycles, 76);
        assert_eq!(ch.by_cause, BTreeMap::from([(Cause::OtherWarps, 60), (Cause::Service, 16)]));
        assert_eq!(i.top_pairs(2, 1), vec![(((0, 2), (0, 1)), 40)]);
        assert_eq!(i.top_pairs(2, 5).len(), 2);
        assert!(!i.channels.contains_key(&1), "the request network is no channel");
    }
}
