//! DIP, dynamic insertion (Qureshi et al.; seed 004 §4.3 comparator): an LRU chain whose
//! insertion position is chosen by set dueling between LRU's MRU insertion (policy A) and
//! bimodal insertion, BIP (policy B: at the LRU position, at MRU once in 32). Hits promote
//! to MRU; the victim is the least recently used replaceable way.

use super::Replacement;
use super::chain::Chains;
use super::duel::{Bimodal, SetDueling};
use crate::sim::cache::AccessCtx;
use crate::sim::cache::line::Line;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dip {
    chains: Chains,
    pub duel: SetDueling,
    bimodal: Bimodal,
}

impl Dip {
    pub fn new(sets: usize, ways: usize) -> Dip {
        Dip { chains: Chains::new(sets, ways), duel: SetDueling::new(sets), bimodal: Bimodal::default() }
    }
}

impl Replacement for Dip {
    fn touch(&mut self, set: usize, way: usize) {
        self.chains.move_to(set, way, 0);
    }

    fn insert(&mut self, set: usize, way: usize, _key: u64, _ctx: &AccessCtx, _evicted: Option<&Line>) {
        let pos = if self.duel.uses_b(set) && !self.bimodal.tick() { self.chains.ways() - 1 } else { 0 };
        self.duel.miss(set);
        self.chains.move_to(set, way, pos);
    }

    fn victim(&self, set: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize> {
        self.chains.lru_victim(set, 0, replaceable)
    }

    fn order(&self, set: usize) -> Vec<usize> {
        self.chains.order(set)
    }

    fn position(&self, set: usize, way: usize) -> usize {
        self.chains.position(set, way)
    }

    fn insertion_position(&self, set: usize, _ctx: &AccessCtx) -> usize {
        if self.duel.uses_b(set) && !self.bimodal.next_is_rare() { self.chains.ways() - 1 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaders_insert_by_their_policy_and_followers_follow_psel() {
        let mut d = Dip::new(32, 4);
        let ctx = AccessCtx::default();
        // Set 0 leads for MRU insertion, set 7 for BIP, set 3 follows (MRU while PSEL is low).
        d.insert(0, 2, 0, &ctx, None);
        assert_eq!(d.order(0), vec![2, 0, 1, 3]);
        assert_eq!(d.insertion_position(7, &ctx), 3);
        d.insert(7, 2, 0, &ctx, None);
        assert_eq!(d.order(7), vec![0, 1, 3, 2], "BIP inserts at LRU");
        assert_eq!(d.insertion_position(3, &ctx), 0);
        // Set 0 missed once, set 7 once: PSEL back at its midpoint. Two more MRU-leader
        // misses tip the followers to BIP.
        d.insert(0, 3, 0, &ctx, None);
        d.insert(0, 1, 0, &ctx, None);
        assert_eq!(d.insertion_position(3, &ctx), 3);
        d.insert(3, 0, 0, &ctx, None);
        assert_eq!(d.order(3), vec![1, 2, 3, 0]);
        // Hits go to MRU in every set.
        d.touch(3, 0);
        assert_eq!(d.order(3), vec![0, 1, 2, 3]);
        assert_eq!(d.victim(3, &|w| w != 3), Some(2));
    }

    #[test]
    fn bip_sends_one_insertion_in_32_to_mru() {
        let mut d = Dip::new(32, 4);
        let ctx = AccessCtx::default();
        let mut mru = 0;
        for i in 0..64 {
            d.insert(7, i % 4, 0, &ctx, None);
            mru += usize::from(d.order(7)[0] == i % 4);
        }
        assert_eq!(mru, 2);
    }
}
