//! pMOD, prime modulo (seed 004 §3.2.4; Kharbutli et al.): "*pMOD* uses a prime number of sets
//! in the cache", set = line mod that prime. On a set count that is not prime — every
//! power-of-two cache — the prime is the largest one below it, the n′ of the same section's
//! pDisp ("the largest prime number that is smaller than n_set"), so the sets from n′ up are
//! unused, which is how a prime number of sets is had from power-of-two hardware.

use super::{SetIndex, is_prime, largest_prime_below};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pmod {
    /// The prime number of sets in use: the set count when prime, else the largest prime below.
    prime: u64,
}

impl Pmod {
    /// `sets` ≥ 2.
    pub fn new(sets: usize) -> Pmod {
        let sets = sets as u64;
        Pmod { prime: if is_prime(sets) { sets } else { largest_prime_below(sets) } }
    }
}

impl SetIndex for Pmod {
    #[inline]
    fn set(&self, line: u64) -> usize {
        (line % self.prime) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prime_set_count_is_used_whole_and_a_power_of_two_falls_back_to_the_prime_below() {
        for (sets, prime) in [(31usize, 31u64), (32, 31), (64, 61), (128, 127), (2, 2)] {
            let f = Pmod::new(sets);
            for line in [0u64, 1, prime - 1, prime, prime + 5, 1 << 20] {
                assert_eq!(f.set(line) as u64, line % prime, "{sets} sets, line {line}");
            }
            let top = (0..10_000).map(|l| f.set(l)).max().unwrap();
            assert_eq!(top as u64, prime - 1, "{sets} sets: sets ≥ the prime are never used");
        }
    }
}
