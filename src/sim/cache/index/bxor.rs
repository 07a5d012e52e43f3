//! BXOR, bitwise-XOR indexing (seed 004 §3.2.4, Fig. 3.3; González et al.): set = x ⊕ t,
//! where x are the CONV index bits and t the next log2(sets) bits of the line number.
//! It covers small and medium strides; for large strides both x and t are invariable.

use super::SetIndex;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bxor {
    bits: u32,
    mask: u64,
}

impl Bxor {
    /// `sets` is a power of two.
    pub fn new(sets: usize) -> Bxor {
        Bxor { bits: sets.trailing_zeros(), mask: sets as u64 - 1 }
    }
}

impl SetIndex for Bxor {
    #[inline]
    fn set(&self, line: u64) -> usize {
        ((line ^ (line >> self.bits)) & self.mask) as usize
    }
}
