//! Per-warp load tracking: a load's requests come back one by one into its [`LoadTrack`]; the
//! load is done when all have returned and all were sent. What a finished load measured —
//! effective latency, latency divergence, the channels and banks it touched (seed 000 Figs. 2,
//! 3, 10), its occlusion time (seed 004 §2.3.2) — goes to [`LoadStats`].
//!
//! The zero-latency-divergence oracle of seed 000 Fig. 4 lives here too: once a load's first
//! request is back, its other requests are deemed back one per cycle after it, whatever the
//! memory system does with them.
//!
//! The tracker only updates the warps' load tracks and says which load finished; the SM then
//! frees the load's registers and retires the warp if it was the last thing it waited for.

use super::warp::{LoadTrack, ReqRecord, Warp};
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::request::{CacheOutcome, MemRequest};
use crate::sim::stats::LoadStats;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadTracker {
    /// The zero-latency-divergence oracle is on.
    oracle: bool,
    /// Oracle: loads whose first request is back, released when the rest "arrive" one per
    /// cycle: (cycle, warp, load slot, id of the load's first request), in the order their
    /// first requests returned.
    pub released: Vec<(u64, u16, u8, u64)>,
}

impl LoadTracker {
    pub fn new(oracle: bool, loads: usize) -> LoadTracker {
        LoadTracker { oracle, released: Vec::with_capacity(if oracle { loads } else { 0 }) }
    }

    /// Request `req`'s data reached its warp at `now`; counts its miss or L2-hit latency.
    /// Returns the (warp, load slot) whose load it completed.
    pub fn returned(
        &mut self,
        warps: &mut [Warp],
        mut req: MemRequest,
        now: u64,
        stats: &mut LoadStats,
    ) -> Option<(usize, usize)> {
        req.trace.done = now;
        if matches!(req.trace.l1, CacheOutcome::Miss | CacheOutcome::Merged) {
            stats.miss_latency += now - req.trace.created;
            stats.miss_returns += 1;
        }
        if req.trace.l2 == CacheOutcome::Hit {
            stats.l2_hit_latency += now - req.trace.created;
            stats.l2_hit_returns += 1;
        }
        let w = req.origin.warp as usize;
        let slot = req.origin.load_slot as usize;
        let track = &mut warps[w].loads[slot];
        if self.oracle {
            // The oracle counted this request as returned already (its load may even be gone).
            let ours =
                track.active && track.reqs.get(req.origin.index as usize).is_some_and(|r| r.id == req.id);
            if !ours || track.returned >= track.requests {
                return None;
            }
            if track.returned == 0 {
                let first = track.reqs.first().map_or(req.id, |r| r.id);
                let rest = u64::from(track.requests) - 1;
                self.released.push((now + rest, w as u16, slot as u8, first));
            }
        }
        track.returned(&req, now);
        track.complete().then_some((w, slot))
    }

    /// Oracle: when the next load is released.
    pub fn next_release(&self) -> Option<u64> {
        self.released.iter().map(|&(at, ..)| at).min()
    }

    /// Oracle: the first load due by `now` whose other requests are now deemed back; marks
    /// them returned and gives the load when that completes it. Call until `None`: release
    /// times are not in push order (loads differ in size), so every due one is taken.
    pub fn release_due(&mut self, warps: &mut [Warp], now: u64) -> Option<Option<(usize, usize)>> {
        let i = self.released.iter().position(|&(at, ..)| at <= now)?;
        let (_, w, slot, first) = self.released.remove(i);
        let t = &mut warps[w as usize].loads[slot as usize];
        if t.active && t.reqs.first().is_some_and(|r| r.id == first) {
            t.returned = t.requests;
            t.last = now;
            if t.complete() {
                return Some(Some((w as usize, slot as usize)));
            }
        }
        Some(None)
    }
}

/// Records what finished global load `t` of warp `w` on SM `core` measured; the warp is warp
/// `warp_in_cta` of CTA `cta`.
pub fn record_finished(
    t: &LoadTrack,
    (cta, warp_in_cta): (u32, u16),
    core: u16,
    w: usize,
    s: &mut LoadStats,
    sink: &mut EventSink,
) {
    s.loads += 1;
    s.requests += u64::from(t.requests);
    if t.requests > 1 {
        s.divergent += 1;
    }
    s.effective_latency += t.last - t.issued;
    s.latency_divergence += t.last - t.first;
    let (channels, banks, service, arrival) = spread(&t.reqs);
    if channels > 0 {
        s.dram_loads += 1;
        s.channels += channels;
        s.banks += banks;
        s.warpgroups += channels;
        s.warpgroup_service += service;
        s.warpgroup_arrival += arrival;
    }
    // Seed 004 §2.3.2: a load of N accesses issued at t leaves the LD/ST unit at t + N at the
    // earliest (one access per cycle from the next cycle on); the rest is memory-occlusion time.
    let occlusion = (t.ldst_end - t.issued).saturating_sub(u64::from(t.requests));
    s.occlusion_cycles += occlusion;
    if t.requests > 2 {
        s.occlusion_divergent += occlusion;
        s.access_time_divergent += t.last - t.issued;
    } else {
        s.occlusion_coherent += occlusion;
        s.access_time_coherent += t.last - t.issued;
    }
    if sink.wants(EventKind::LoadDone) {
        sink.emit(Event::LoadDone {
            core,
            warp: w as u16,
            cta,
            warp_in_cta,
            seq: t.seq,
            pc: t.pc,
            requests: t.requests,
            issued: t.issued,
            first: t.first,
            last: t.last,
        });
    }
}

/// Among a load's requests that reached DRAM: distinct channels (its warp-groups), distinct
/// (channel, bank) pairs, and summed over the warp-groups their service times (per channel:
/// first request into the controller → last request's data done) and arrival spreads (first →
/// last request into the controller).
fn spread(reqs: &[ReqRecord]) -> (u64, u64, u64, u64) {
    let mut channels = [0u64; 4];
    let mut banks: [(u32, u32); 64] = [(u32::MAX, 0); 64];
    let mut nb = 0usize;
    let at_dram = || reqs.iter().filter(|r| r.trace.dram_in != 0);
    for r in at_dram() {
        let c = r.loc.channel as usize % 256;
        channels[c / 64] |= 1 << (c % 64);
        let key = (r.loc.channel, r.loc.bank);
        if !banks[..nb].contains(&key) && nb < banks.len() {
            banks[nb] = key;
            nb += 1;
        }
    }
    let (mut service, mut arrival) = (0, 0);
    for (i, mut m) in channels.into_iter().enumerate() {
        while m != 0 {
            let ch = (i * 64 + m.trailing_zeros() as usize) as u32;
            m &= m - 1;
            let (first, last_in, last) =
                at_dram().filter(|r| r.loc.channel % 256 == ch).fold((u64::MAX, 0, 0), |(f, li, l), r| {
                    (f.min(r.trace.dram_in), li.max(r.trace.dram_in), l.max(r.trace.dram_done))
                });
            service += last.saturating_sub(first);
            arrival += last_in.saturating_sub(first);
        }
    }
    (channels.iter().map(|m| u64::from(m.count_ones())).sum(), nb as u64, service, arrival)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(channel: u32, bank: u32, dram_in: u64, dram_done: u64) -> ReqRecord {
        let mut r =
            ReqRecord { id: 0, addr: 0, lanes: 0, loc: Default::default(), trace: Default::default() };
        (r.loc.channel, r.loc.bank) = (channel, bank);
        (r.trace.dram_in, r.trace.dram_done) = (dram_in, dram_done);
        r
    }

    /// Two warp-groups: channel 0 gets requests at 10 and 40 (done 90), channel 1 one at 20
    /// (done 60); a request served above the DRAM (`dram_in` 0) counts in neither.
    #[test]
    fn warp_groups_service_and_arrival_spread() {
        let reqs = [at(0, 3, 10, 70), at(1, 3, 20, 60), at(0, 5, 40, 90), at(2, 0, 0, 0)];
        // Channels 2; banks (0,3), (1,3), (0,5); service (90 − 10) + (60 − 20); arrival 30 + 0.
        assert_eq!(spread(&reqs), (2, 3, 120, 30));
    }
}
