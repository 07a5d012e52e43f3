//! WG-M's coordination network (seed 000 §IV-C): a dedicated all-to-all network between the
//! memory controllers, separate from the crossbar. Every ordered pair of controllers has its
//! own narrow link (six controllers: 30 links of 16 bits); a message ⟨SM, warp, score⟩ is
//! 32 bits — an 8-bit SM id, an 8-bit warp id and a 16-bit score, of which the load's slot
//! takes ⌈log2 core.max_loads_per_warp⌉ bits when messages name warp-loads
//! (`dram.coordination.names`, [`CoordinationKey`]) — so it occupies its link for ⌈message_bits / link_bits⌉ DRAM cycles and arrives
//! `latency` DRAM cycles after its last flit. A link holds at most `link_queue` messages
//! waiting or in flight; a message that finds it full is dropped (the messages are hints, and
//! a real design would not stall a transaction scheduler for one) and counted.
//!
//! The network runs on the DRAM command clock. `Gpu::step` delivers the messages due at a
//! DRAM cycle before the controllers tick, and collects what they broadcast after.

use crate::config::{Config, CoordinationKey};
use std::collections::VecDeque;

/// "Warp-group ⟨sm, warp, load slot⟩ was selected at controller `from` with local score
/// `score`."
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CoordMessage {
    pub from: u16,
    pub sm: u16,
    pub warp: u16,
    /// The load's slot in its warp's outstanding-load table (`Origin::load_slot`): with the
    /// SM and warp it names the warp-load among those in flight.
    pub load_slot: u8,
    /// Saturated to the message's score field.
    pub score: u32,
}

/// The widest score of a 32-bit message with an 8-bit SM id and an 8-bit warp id and no
/// load slot.
pub const MAX_SCORE: u32 = u16::MAX as u32;

/// The widest score the message carries when `names` decides whether the load's slot takes
/// some of the score field's 16 bits.
pub fn max_score(names: CoordinationKey, max_loads_per_warp: u32) -> u32 {
    let slot_bits = match names {
        CoordinationKey::WarpLoad => max_loads_per_warp.max(1).next_power_of_two().trailing_zeros(),
        CoordinationKey::Warp => 0,
    };
    MAX_SCORE >> slot_bits
}

/// One directed link.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Link {
    pub from: u16,
    pub to: u16,
    /// First DRAM cycle the link can start serializing another message.
    pub free_at: u64,
    /// Messages with the DRAM cycle they arrive, oldest first.
    pub in_flight: VecDeque<(u64, CoordMessage)>,
}

/// Counters of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CoordStats {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
    /// Σ DRAM cycles from broadcast to delivery.
    pub latency_sum: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CoordNetwork {
    /// Links in (from, to) order: link `from * (n − 1) + k`.
    pub links: Vec<Link>,
    pub latency: u64,
    /// Cycles a message occupies its link.
    pub flits: u64,
    pub link_queue: usize,
    /// Scores saturate here (the message's score field).
    pub max_score: u32,
    pub stats: CoordStats,
    channels: usize,
}

impl CoordNetwork {
    pub fn new(c: &Config) -> CoordNetwork {
        let n = c.dram.channels as usize;
        let k = &c.dram.coordination;
        let links = (0..n)
            .flat_map(|from| (0..n).filter(move |&to| to != from).map(move |to| (from, to)))
            .map(|(from, to)| Link {
                from: from as u16,
                to: to as u16,
                free_at: 0,
                in_flight: VecDeque::with_capacity(k.link_queue as usize),
            })
            .collect();
        CoordNetwork {
            links,
            latency: k.latency.into(),
            flits: k.message_bits.div_ceil(k.link_bits).max(1).into(),
            link_queue: k.link_queue as usize,
            max_score: max_score(k.names, c.core.max_loads_per_warp),
            stats: CoordStats::default(),
            channels: n,
        }
    }

    /// Broadcasts `msg` from its controller to every other one at DRAM cycle `now`.
    pub fn send(&mut self, mut msg: CoordMessage, now: u64) {
        msg.score = msg.score.min(self.max_score);
        let n = self.channels;
        let from = msg.from as usize;
        for link in &mut self.links[from * (n - 1)..(from + 1) * (n - 1)] {
            self.stats.sent += 1;
            if link.in_flight.len() >= self.link_queue {
                self.stats.dropped += 1;
                continue;
            }
            let start = link.free_at.max(now);
            link.free_at = start + self.flits;
            link.in_flight.push_back((start + self.flits + self.latency, msg));
        }
    }

    /// Delivers every message due by DRAM cycle `now`, as (destination, message, sent-at
    /// latency), in link order.
    pub fn deliver(&mut self, now: u64, mut to: impl FnMut(usize, &CoordMessage)) {
        for link in &mut self.links {
            while let Some(&(at, msg)) = link.in_flight.front() {
                if at > now {
                    break;
                }
                link.in_flight.pop_front();
                self.stats.delivered += 1;
                to(link.to as usize, &msg);
            }
        }
    }

    /// Messages waiting or on a link.
    pub fn in_flight(&self) -> usize {
        self.links.iter().map(|l| l.in_flight.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(latency: u32, link_queue: u32) -> CoordNetwork {
        let mut c = Config::default();
        c.dram.coordination.latency = latency;
        c.dram.coordination.link_queue = link_queue;
        CoordNetwork::new(&c)
    }

    #[test]
    fn six_controllers_have_30_links_and_a_message_takes_two_flits() {
        let mut n = net(4, 8);
        assert_eq!((n.links.len(), n.flits), (30, 2), "32-bit messages on 16-bit links");
        n.send(CoordMessage { from: 2, sm: 7, warp: 3, load_slot: 0, score: 90_000 }, 100);
        n.send(CoordMessage { from: 2, sm: 7, warp: 4, load_slot: 1, score: 5 }, 100);
        let mut got = Vec::new();
        for now in 100..120 {
            n.deliver(now, |to, m| got.push((now, to, m.warp, m.score)));
        }
        // Five destinations each; the second message waits for the first's two flits.
        assert_eq!(got.len(), 10);
        // Four loads per warp: the slot takes 2 of the score's 16 bits.
        assert!(got.iter().filter(|g| g.2 == 3).all(|g| g.0 == 106 && g.3 == 16_383));
        assert!(got.iter().filter(|g| g.2 == 4).all(|g| g.0 == 108));
        assert!(got.iter().all(|g| g.1 != 2), "no message to itself");
    }

    #[test]
    fn the_load_slot_takes_its_bits_from_the_score_field() {
        assert_eq!(max_score(CoordinationKey::WarpLoad, 4), 16_383);
        assert_eq!(max_score(CoordinationKey::WarpLoad, 3), 16_383);
        assert_eq!(max_score(CoordinationKey::WarpLoad, 16), 4_095);
        assert_eq!(max_score(CoordinationKey::WarpLoad, 1), MAX_SCORE);
        assert_eq!(max_score(CoordinationKey::Warp, 16), MAX_SCORE);
    }

    #[test]
    fn a_full_link_drops_and_counts() {
        let mut n = net(10, 1);
        for w in 0..3 {
            n.send(CoordMessage { from: 0, sm: 0, warp: w, load_slot: 0, score: 1 }, 0);
        }
        assert_eq!(n.stats.sent, 15);
        assert_eq!(n.stats.dropped, 10);
        assert_eq!(n.in_flight(), 5);
    }
}
