//! The Fermi L1D hash (seed 004 §2.2, Table 4.1; Nugteren et al., HPCA 2014, as implemented
//! by GPGPU-Sim's hashed set-index function): the five line bits right above the offset are
//! XOR-ed with byte-address bits 13, 14, 15, 17 and 19; a 64-set (48 KB) L1D takes address
//! bit 12 as the sixth, most significant set bit. Defined for 32 and 64 sets only.

use super::SetIndex;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fermi {
    line_shift: u32,
    /// 64 sets: address bit 12 is set bit 5.
    wide: bool,
}

impl Fermi {
    /// `sets` is 32 or 64; lines are `1 << line_shift` bytes.
    pub fn new(sets: usize, line_shift: u32) -> Fermi {
        Fermi { line_shift, wide: sets == 64 }
    }
}

impl SetIndex for Fermi {
    #[inline]
    fn set(&self, line: u64) -> usize {
        let addr = line << self.line_shift;
        let bit = |b: u32| (addr >> b) & 1;
        let lower = line & 0x1f;
        let upper = bit(13) | bit(14) << 1 | bit(15) << 2 | bit(17) << 3 | bit(19) << 4;
        let high = if self.wide { bit(12) << 5 } else { 0 };
        ((lower ^ upper) | high) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xors_the_line_bits_with_the_chosen_address_bits() {
        let f = Fermi::new(32, 7);
        let set = |addr: u64| f.set(addr >> 7);
        assert_eq!(set(0x0000), 0);
        assert_eq!(set(0x0080), 1, "line bit 0 = address bit 7");
        assert_eq!(set(0x2000), 1, "address bit 13 → set bit 0");
        assert_eq!(set(0x2080), 0, "…and cancels line bit 0");
        assert_eq!(set(0x2_0000), 8, "bit 17 → set bit 3");
        assert_eq!(set(0x8_0000), 16, "bit 19 → set bit 4");
        assert_eq!(set(0x1000), 0, "bit 12 is not used with 32 sets");
        assert_eq!(set(0x4_0000), 0, "nor bit 18");
        let f = Fermi::new(64, 7);
        assert_eq!(f.set(0x1000 >> 7), 32, "with 64 sets bit 12 is set bit 5");
        assert_eq!(f.set(0x3080 >> 7), 32, "bit 13 cancels line bit 0 below it");
    }

    #[test]
    fn a_4_kb_stride_warp_lands_in_eight_sets() {
        // Bits 12 and 16 of a 4 KB stride are not hashed: 32 lines share 8 sets.
        let f = Fermi::new(32, 7);
        let mut sets: Vec<usize> = (0..32u64).map(|t| f.set((0x8000_0000 + t * 4096) >> 7)).collect();
        sets.sort_unstable();
        sets.dedup();
        assert_eq!(sets.len(), 8);
    }
}
