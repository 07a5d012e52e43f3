//! Warp-group tags (seed 000 §IV-B): the SM marks the last request of each warp-load that it
//! sends to each memory controller, so a warp-aware controller knows when it holds the whole
//! group. Only requests that miss in the L1 leave the SM, and the LD/ST unit sends a load's
//! requests one per cycle, so whether a later request will leave is predicted when the load
//! starts (an L1 probe per line: a miss that cannot merge into an MSHR leaves) and corrected
//! with each real outcome. Between the start and a request's turn only fills change the L1,
//! so the prediction is almost always right; the controller's incomplete-group timeout covers
//! the rest.
//!
//! A channel with several L2 slices receives a group through each of them, and the slices
//! may reorder one SM's requests (they queue separately), so the tag is per slice: the last
//! request to each (channel, slice) is tagged, and every request carries the mask of its
//! channel's slices that the load uses (`Origin::group_slices`).

use super::coalescer::Coalesced;
use crate::sim::dram::mapping::AddressMap;
use crate::sim::l1::L1;
use crate::sim::request::Origin;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GroupTagger {
    /// Tag at all (the DRAM scheduler groups warps).
    pub enabled: bool,
    slices_per_channel: u32,
    /// Requests of the current load that leave (or are predicted to leave) the SM.
    below: u64,
    /// Global L2 slice (channel × slices + slice) of each request of the current load.
    #[serde(with = "serde_big_array::BigArray")]
    dest: [u32; 64],
}

impl GroupTagger {
    pub fn new(enabled: bool, slices_per_channel: u32) -> GroupTagger {
        GroupTagger { enabled, slices_per_channel, below: 0, dest: [0; 64] }
    }

    /// A load starts in the LD/ST unit: predict which of its requests will leave the SM.
    pub fn start(&mut self, c: &Coalesced, l1: &L1, map: &AddressMap) {
        self.below = 0;
        for (k, (line, _)) in c.iter().enumerate() {
            let loc = map.map(line);
            self.dest[k] = loc.channel * self.slices_per_channel + loc.slice;
            if l1.needs_mshr(line) {
                self.below |= 1 << k;
            }
        }
    }

    /// Sets the tag fields of request `k` (assuming it leaves the SM).
    pub fn tag(&self, k: usize, n: usize, origin: &mut Origin) {
        let spc = self.slices_per_channel;
        let dest = self.dest[k];
        let channel = dest / spc;
        let leaving = self.below | 1 << k;
        let mut slices = 0u8;
        let mut last = true;
        for j in (0..n).filter(|&j| leaving >> j & 1 != 0) {
            if self.dest[j] / spc == channel {
                slices |= 1 << (self.dest[j] % spc);
                last &= j <= k || self.dest[j] != dest;
            }
        }
        origin.group_slices = slices;
        origin.last_to_channel = last;
    }

    /// Request `k` was sent: record whether it really left the SM.
    pub fn sent(&mut self, k: usize, left: bool) {
        if left {
            self.below |= 1 << k;
        } else {
            self.below &= !(1 << k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::sim::cache::AccessCtx;
    use crate::sim::event::EventSink;
    use crate::sim::request::{AccessKind, MemRequest};

    /// The tags an SM with perfect knowledge would set, from which requests left.
    fn reference(dest: &[u32], left: &[bool], spc: u32) -> Vec<(bool, u8)> {
        (0..dest.len())
            .map(|k| {
                let same_ch = |j: usize| left[j] && dest[j] / spc == dest[k] / spc;
                let slices =
                    (0..dest.len()).filter(|&j| same_ch(j)).fold(0u8, |m, j| m | 1 << (dest[j] % spc));
                let last = !(k + 1..dest.len()).any(|j| left[j] && dest[j] == dest[k]);
                (last, slices)
            })
            .collect()
    }

    #[test]
    fn the_last_leaving_request_per_slice_is_tagged() {
        let c = Config::default();
        let map = AddressMap::new(&c);
        let mut l1 = L1::new(&c, 0);
        let spc = c.l2.slices_per_channel;
        for seed in 0..40u64 {
            // A divergent load of 12 lines spread over a few channels; some already in L1.
            let mut co = Coalesced::default();
            for k in 0..12u64 {
                let line = ((seed * 7919 + k * 104_729) % 4096) * 128 * 3;
                co.lines[k as usize] = line;
                co.lanes[k as usize] = 1 << k;
            }
            co.n = 12;
            for k in (0..12).filter(|k| (k + seed) % 3 == 0) {
                let line = co.lines[k as usize];
                let req = MemRequest {
                    id: 0,
                    kind: AccessKind::Load,
                    addr: line,
                    bytes: 128,
                    lanes: 1,
                    origin: Origin::default(),
                    loc: Default::default(),
                    trace: Default::default(),
                };
                let (ctx, mut sink) = (AccessCtx::default(), EventSink::default());
                if l1.access(req, &ctx, 0, &map, &mut sink).is_ok() {
                    let r = l1.miss_queue.pop().unwrap();
                    l1.fill(r, &ctx, &mut Vec::new(), &mut sink);
                }
            }
            let mut t = GroupTagger::new(true, spc);
            t.start(&co, &l1, &map);
            let left: Vec<bool> = co.iter().map(|(line, _)| l1.needs_mshr(line)).collect();
            let dest: Vec<u32> =
                co.iter().map(|(line, _)| map.map(line)).map(|l| l.channel * spc + l.slice).collect();
            let want = reference(&dest, &left, spc);
            for k in 0..co.n {
                let mut o = Origin::default();
                t.tag(k, co.n, &mut o);
                if left[k] {
                    assert_eq!((o.last_to_channel, o.group_slices), want[k], "seed {seed} request {k}");
                }
                t.sent(k, left[k]);
            }
            assert!(left.iter().any(|&l| l) && left.iter().any(|&l| !l), "seed {seed} mixes hits and misses");
        }
    }

    #[test]
    fn an_unexpected_miss_is_tagged_when_it_is_last() {
        let c = Config::default();
        let map = AddressMap::new(&c);
        let l1 = L1::new(&c, 0);
        // Two lines that go to the same controller through the same L2 slice.
        let a = map.map(0x10000);
        let second = (1..10_000u64)
            .map(|i| 0x10000 + i * 128)
            .find(|&x| (map.map(x).channel, map.map(x).slice) == (a.channel, a.slice))
            .unwrap();
        let mut co = Coalesced::default();
        (co.lines[0], co.lines[1], co.n) = (0x10000, second, 2);
        let mut t = GroupTagger::new(true, c.l2.slices_per_channel);
        t.start(&co, &l1, &map);
        let mut o = Origin::default();
        t.tag(0, 2, &mut o);
        assert!(!o.last_to_channel, "the second line is predicted to leave after it");
        // It did not (say it hit after all): request 0 should have been the last, and the
        // second, if it does leave, is tagged.
        t.sent(0, true);
        t.tag(1, 2, &mut o);
        assert!(o.last_to_channel);
    }
}
