//! pMOD, prime modulo (seed 004 §3.2.4; Kharbutli et al.): the cache has a prime number of
//! sets and set = line mod sets, which breaks the regularity of power-of-two strides.

use super::SetIndex;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pmod {
    sets: u64,
}

impl Pmod {
    /// `sets` is prime.
    pub fn new(sets: usize) -> Pmod {
        Pmod { sets: sets as u64 }
    }
}

impl SetIndex for Pmod {
    #[inline]
    fn set(&self, line: u64) -> usize {
        (line % self.sets) as usize
    }
}
