//! Per-set recency chains: each set's ways ordered from position 0 (MRU, most protected) to
//! `ways − 1` (LRU). Shared by the LRU-chain policies (LRU, DIP, DaCache).

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Chains {
    ways: usize,
    /// Per set, way numbers from MRU to LRU.
    order: Vec<u8>,
}

impl Chains {
    pub fn new(sets: usize, ways: usize) -> Chains {
        // Way numbers fit a byte: at most 256 ways (`config::MAX_WAYS`).
        Chains { ways, order: (0..sets).flat_map(|_| (0..ways).map(|w| w as u8)).collect() }
    }

    pub fn ways(&self) -> usize {
        self.ways
    }

    /// The set's ways from MRU to LRU.
    #[inline]
    pub fn chain(&self, set: usize) -> &[u8] {
        &self.order[set * self.ways..(set + 1) * self.ways]
    }

    /// Position of `way` in its set's chain.
    #[inline]
    pub fn position(&self, set: usize, way: usize) -> usize {
        self.chain(set).iter().position(|&w| w as usize == way).expect("way in chain")
    }

    /// Moves `way` to position `pos`, shifting the ways in between by one.
    #[inline]
    pub fn move_to(&mut self, set: usize, way: usize, pos: usize) {
        let from = self.position(set, way);
        let chain = &mut self.order[set * self.ways..(set + 1) * self.ways];
        if from > pos {
            chain.copy_within(pos..from, pos + 1);
        } else if from < pos {
            chain.copy_within(from + 1..=pos, from);
        }
        chain[pos] = way as u8;
    }

    /// The way closest to LRU, at position `from` or beyond, that `replaceable` allows.
    #[inline]
    pub fn lru_victim(&self, set: usize, from: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize> {
        self.chain(set).get(from..)?.iter().rev().map(|&w| w as usize).find(|&w| replaceable(w))
    }

    /// The set's ways from MRU to LRU, for views.
    pub fn order(&self, set: usize) -> Vec<usize> {
        self.chain(set).iter().map(|&w| w as usize).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_both_ways_and_searches_from_a_position() {
        let mut c = Chains::new(2, 5);
        c.move_to(1, 3, 1);
        assert_eq!(c.order(1), vec![0, 3, 1, 2, 4]);
        c.move_to(1, 0, 3);
        assert_eq!(c.order(1), vec![3, 1, 2, 0, 4]);
        assert_eq!(c.lru_victim(1, 0, &|w| w != 4), Some(0));
        assert_eq!(c.lru_victim(1, 4, &|w| w != 4), None, "only position 4 may be chosen");
        assert_eq!(c.lru_victim(1, 5, &|_| true), None, "empty range");
        assert_eq!(c.order(0), vec![0, 1, 2, 3, 4], "other sets untouched");
    }
}
