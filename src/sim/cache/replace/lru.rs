//! LRU (seed 004 §4.2.1 baseline): hits and insertions move a way to MRU; the victim is the
//! least recently used replaceable way.

use super::Replacement;
use super::chain::Chains;
use crate::sim::cache::AccessCtx;
use crate::sim::cache::line::Line;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lru {
    chains: Chains,
}

impl Lru {
    pub fn new(sets: usize, ways: usize) -> Lru {
        Lru { chains: Chains::new(sets, ways) }
    }
}

impl Replacement for Lru {
    fn touch(&mut self, set: usize, way: usize) {
        self.chains.move_to(set, way, 0);
    }

    fn insert(&mut self, set: usize, way: usize, _key: u64, _ctx: &AccessCtx, _evicted: Option<&Line>) {
        self.chains.move_to(set, way, 0);
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

    fn insertion_position(&self, _set: usize, _ctx: &AccessCtx) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_move_to_mru_and_victim_is_lru_replaceable() {
        let mut l = Lru::new(2, 4);
        let ctx = AccessCtx::default();
        assert_eq!(l.order(1), vec![0, 1, 2, 3]);
        l.touch(1, 2);
        assert_eq!(l.order(1), vec![2, 0, 1, 3]);
        l.insert(1, 3, 0, &ctx, None);
        assert_eq!(l.order(1), vec![3, 2, 0, 1]);
        assert_eq!(l.victim(1, &|_| true), Some(1));
        assert_eq!(l.victim(1, &|w| w != 1), Some(0));
        assert_eq!(l.victim(1, &|_| false), None);
        assert_eq!(l.order(0), vec![0, 1, 2, 3], "other sets untouched");
    }
}
