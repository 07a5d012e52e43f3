//! FUP, full-permutation indexing (seed 004 §3.2.3, Fig. 3.2).
//!
//! F = max(feature bits, 4·log2 sets) bits of the line number are split into four groups
//! S1..S4 of b = log2(sets) bits, S4 taking whatever is left above 3b; the set is
//! (S1 ⊕ S2) ⊕ (S3 ⊕ fold(S4)). The feature bits are the address bits that a stride can
//! change: bits 7..34 with 128 B lines (any stride into a 16 GB memory, §3.2.2), i.e. address
//! bits `line_shift..=34` in general.
//!
//! When S4 is wider than b, the seed folds it "with a prime-number-based modulo" and notes
//! that this "causes limited intra-warp concentration for very large strides". The seed does
//! not say which bits the modulo covers. Here S4's low b bits enter the XOR tree like the other
//! groups and only the bits above them (the excess) are reduced modulo n′, the largest prime
//! below the set count, before joining the XOR. Strides whose five feature bits stay below the
//! excess, or reach into it without the modulo wrapping, keep the perfect concentration of the
//! two-level XOR (every stride from 128 B to 32 MB in the seed's example, 32 sets from
//! 0x80000000); only strides whose feature bits all lie in the excess pay the modulo's
//! 32/31.

use super::{SetIndex, largest_prime_below};

/// Highest address bit covered: 16 GB of device memory (seed 004 §3.2.2).
const TOP_ADDRESS_BIT: u32 = 34;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fup {
    /// b = log2(sets).
    bits: u32,
    mask: u64,
    /// Line bits that take part (F).
    width: u32,
    /// n′, the modulus of S4's excess bits.
    prime: u64,
}

impl Fup {
    /// `sets` is a power of two ≥ 4; lines are `1 << line_shift` bytes.
    pub fn new(sets: usize, line_shift: u32) -> Fup {
        let bits = sets.trailing_zeros();
        let feature_bits = (TOP_ADDRESS_BIT + 1).saturating_sub(line_shift);
        Fup {
            bits,
            mask: sets as u64 - 1,
            width: feature_bits.max(4 * bits),
            prime: largest_prime_below(sets as u64),
        }
    }
}

impl SetIndex for Fup {
    #[inline]
    fn set(&self, line: u64) -> usize {
        let (b, m) = (self.bits, self.mask);
        let f = if self.width >= 64 { line } else { line & ((1 << self.width) - 1) };
        let (s1, s2, s3) = (f & m, (f >> b) & m, (f >> (2 * b)) & m);
        let s4 = f >> (3 * b);
        let folded = (s4 & m) ^ ((s4 >> b) % self.prime);
        ((s1 ^ s2) ^ (s3 ^ folded)) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_fold_of_a_32_set_cache() {
        // 128 B lines: F = 28 line bits (address bits 7..34), b = 5: S1 = bits 0..4, S2 = 5..9,
        // S3 = 10..14, S4 = 15..27 (its bits 20..27 are reduced mod 31).
        let f = Fup::new(32, 7);
        assert_eq!(f.width, 28);
        assert_eq!(f.set(0b00011), 3);
        assert_eq!(f.set(0b00011 << 5), 3);
        assert_eq!(f.set(0b00011 << 10 | 0b00001), 2);
        assert_eq!(f.set(0b00100 << 15), 4);
        assert_eq!(f.set(33 << 20), 2, "excess 33 mod 31 = 2");
        assert_eq!(f.set(1 << 28), 0, "address bit 35 and above are not feature bits");
    }

    #[test]
    fn very_large_strides_stay_nearly_perfect() {
        // Beyond 128 MB the modulo folds tid·2^j mod 31: lane 31 meets lane 0, no worse.
        let f = Fup::new(32, 7);
        for k in 28..=30u32 {
            let mut sets: Vec<usize> = (0..32u64).map(|t| f.set((t << k) >> 7)).collect();
            sets.sort_unstable();
            sets.dedup();
            assert_eq!(sets.len(), 31, "stride 2^{k}");
        }
    }
}
