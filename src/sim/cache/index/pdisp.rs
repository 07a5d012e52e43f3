//! pDisp, prime displacement (seed 004 §3.2.4; Kharbutli et al.):
//! set = (p·T + x) mod n′, with x the CONV index bits, T the tag (the line bits above them),
//! p a prime displacement and n′ the largest prime below the number of sets. Intra-warp
//! accesses spread over n′ sets, so the sets n′..sets−1 are never used and the best
//! concentration is sets / n′ (32/31 in the seed's L1D).

use super::{SetIndex, largest_prime_below};

/// The displacement p. It must be coprime with n′; 17 is a prime that is never the largest
/// prime below a power of two, so it is coprime with every n′ this function meets.
const DISPLACEMENT: u64 = 17;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pdisp {
    bits: u32,
    mask: u64,
    /// n′: the largest prime below the set count.
    prime: u64,
}

impl Pdisp {
    /// `sets` is a power of two ≥ 4.
    pub fn new(sets: usize) -> Pdisp {
        Pdisp { bits: sets.trailing_zeros(), mask: sets as u64 - 1, prime: largest_prime_below(sets as u64) }
    }
}

impl SetIndex for Pdisp {
    #[inline]
    fn set(&self, line: u64) -> usize {
        let tag = line >> self.bits;
        let x = line & self.mask;
        (tag.wrapping_mul(DISPLACEMENT).wrapping_add(x) % self.prime) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_uses_the_sets_above_the_prime() {
        // 32 sets: n′ = 31, set 31 stays empty whatever the address; 64 sets: n′ = 61.
        for (sets, prime) in [(32usize, 31usize), (64, 61)] {
            let f = Pdisp::new(sets);
            let mut used = vec![0u32; sets];
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for line in (0..20_000u64).chain((0..20_000).map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x >> 20
            })) {
                used[f.set(line)] += 1;
            }
            assert!(used[..prime].iter().all(|&n| n > 0), "{sets} sets: every set below n′ is used");
            assert!(used[prime..].iter().all(|&n| n == 0), "{sets} sets: sets ≥ n′ are never used");
        }
    }
}
