//! LRU: each set keeps its ways ordered MRU → LRU; hits and insertions move a way to MRU and
//! the victim is the least recently used replaceable way.

use super::Replacement;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lru {
    ways: usize,
    /// Per set, way numbers from MRU (position 0) to LRU.
    order: Vec<u8>,
}

impl Lru {
    pub fn new(sets: usize, ways: usize) -> Lru {
        Lru { ways, order: (0..sets).flat_map(|_| 0..ways as u8).collect() }
    }

    fn chain(&mut self, set: usize) -> &mut [u8] {
        &mut self.order[set * self.ways..(set + 1) * self.ways]
    }

    fn move_to_mru(&mut self, set: usize, way: usize) {
        let chain = self.chain(set);
        let pos = chain.iter().position(|&w| w as usize == way).expect("way in chain");
        chain[..=pos].rotate_right(1);
    }
}

impl Replacement for Lru {
    fn touch(&mut self, set: usize, way: usize) {
        self.move_to_mru(set, way);
    }

    fn insert(&mut self, set: usize, way: usize) {
        self.move_to_mru(set, way);
    }

    fn victim(&self, set: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize> {
        self.order[set * self.ways..(set + 1) * self.ways]
            .iter()
            .rev()
            .map(|&w| w as usize)
            .find(|&w| replaceable(w))
    }

    fn order(&self, set: usize) -> Vec<usize> {
        self.order[set * self.ways..(set + 1) * self.ways].iter().map(|&w| w as usize).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_move_move_to_mru_and_victim_is_lru_replaceable() {
        let mut l = Lru::new(2, 4);
        assert_eq!(l.order(1), vec![0, 1, 2, 3]);
        l.touch(1, 2);
        assert_eq!(l.order(1), vec![2, 0, 1, 3]);
        l.insert(1, 3);
        assert_eq!(l.order(1), vec![3, 2, 0, 1]);
        assert_eq!(l.victim(1, &|_| true), Some(1));
        assert_eq!(l.victim(1, &|w| w != 1), Some(0));
        assert_eq!(l.victim(1, &|_| false), None);
        assert_eq!(l.order(0), vec![0, 1, 2, 3], "other sets untouched");
    }
}
