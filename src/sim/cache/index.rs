//! Set-index functions (seed 004 ch. 3). The key is the line number (address / line size).

use crate::config::IndexName;

/// A set-index function over line numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexFn {
    /// CONV: set = line mod sets (sets is a power of two).
    Conv { mask: u64 },
}

impl IndexFn {
    pub fn new(name: IndexName, sets: usize) -> IndexFn {
        match name {
            IndexName::Conv => IndexFn::Conv { mask: sets as u64 - 1 },
        }
    }

    #[inline]
    pub fn set(&self, line: u64) -> usize {
        match self {
            IndexFn::Conv { mask } => (line & mask) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conv_example_of_seed_004() {
        // 32 sets, 128-byte lines, 4096-byte stride: both addresses land in set 0.
        let f = IndexFn::new(IndexName::Conv, 32);
        assert_eq!(f.set(0x8000_0000 / 128), 0);
        assert_eq!(f.set(0x8000_1000 / 128), 0);
        assert_eq!(f.set(0x8000_0080 / 128), 1);
    }
}
