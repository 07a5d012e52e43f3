//! CONV, the conventional index (seed 004 §2.1.2, §3.2.4): set = line mod sets, i.e. the
//! log2(sets) line bits right above the offset. Strides that are multiples of sets × line
//! put a whole divergent warp in one set.

use super::SetIndex;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Conv {
    mask: u64,
}

impl Conv {
    /// `sets` is a power of two.
    pub fn new(sets: usize) -> Conv {
        Conv { mask: sets as u64 - 1 }
    }
}

impl SetIndex for Conv {
    #[inline]
    fn set(&self, line: u64) -> usize {
        (line & self.mask) as usize
    }
}
