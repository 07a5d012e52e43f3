//! IPOLY set indexing (Rau, ISCA 1991): the line number modulo an irreducible polynomial over
//! GF(2), so power-of-two strides spread over every set. GPGPU-Sim 4's set index function `P`
//! (`-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,…` in Accel-Sim's Volta configs; `HASH_IPOLY_FUNCTION`
//! in `cache_config::hash_function`), defined for 16, 32 and 64 sets: the hash itself is
//! [`crate::sim::ipoly`].

use super::SetIndex;
use crate::sim::ipoly;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ipoly {
    sets: u64,
}

impl Ipoly {
    /// `sets` is 16, 32 or 64.
    pub fn new(sets: usize) -> Ipoly {
        Ipoly { sets: sets as u64 }
    }
}

impl SetIndex for Ipoly {
    #[inline]
    fn set(&self, line: u64) -> usize {
        let n = self.sets.trailing_zeros();
        ipoly::hash(line >> n, line & (self.sets - 1), self.sets) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tag_bits_fold_into_the_index() {
        // 32 sets: line 32 (tag 1, index 0) goes where x^5 mod (x^5 + x^2 + 1) = x^2 + 1 says.
        let f = Ipoly::new(32);
        assert_eq!((f.set(0), f.set(5), f.set(32)), (0, 5, 0b00101));
        // A 4 KB stride of 128-byte lines (32 lines) puts 32 lines in 32 different sets, where
        // the modulo index puts them all in set 0.
        let mut sets: Vec<usize> = (0..32).map(|i| f.set(i * 32)).collect();
        sets.sort_unstable();
        sets.dedup();
        assert_eq!(sets.len(), 32);
    }
}
