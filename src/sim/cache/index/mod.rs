//! Set-index functions (seed 004 ch. 3, MECHANISMS §7), one per file behind [`SetIndex`].
//!
//! The key is the line number (byte address / line size). Each function fixes the number of
//! sets it can serve; [`IndexName::set_count_requirement`] states it so the config validator
//! can name it.
//!
//! Adding a function touches three files: its own, implementing [`SetIndex`]; this one, with
//! its `mod` and `pub use` lines, one variant of [`IndexKind`] and one arm of
//! [`IndexKind::new`]; and, in `config/names.rs`, its row in `IndexName` and its arm of
//! [`IndexName::set_count_requirement`] (the set counts it serves, and how to say so). Its name
//! goes in docs/machines.md's table of policies.

mod bxor;
mod conv;
mod fermi;
mod fup;
mod ipoly;
mod pdisp;
mod pmod;

pub use bxor::Bxor;
pub use conv::Conv;
pub use fermi::Fermi;
pub use fup::Fup;
pub use ipoly::Ipoly;
pub use pdisp::Pdisp;
pub use pmod::Pmod;

use crate::config::IndexName;
use enum_dispatch::enum_dispatch;

/// Maps a line number to its set.
#[enum_dispatch]
pub trait SetIndex {
    fn set(&self, line: u64) -> usize;
}

/// The configured set-index function.
#[enum_dispatch(SetIndex)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum IndexKind {
    Conv,
    Bxor,
    Pmod,
    Pdisp,
    Fermi,
    Fup,
    Ipoly,
}

impl IndexKind {
    /// The function `name` over `sets` sets of `1 << line_shift`-byte lines. The set count
    /// must satisfy [`IndexName::set_count_requirement`] (the config validator checks it).
    pub fn new(name: IndexName, sets: usize, line_shift: u32) -> IndexKind {
        debug_assert_eq!(name.set_count_requirement(sets as u32), None, "{name} with {sets} sets");
        match name {
            IndexName::Conv => Conv::new(sets).into(),
            IndexName::Bxor => Bxor::new(sets).into(),
            IndexName::Pmod => Pmod::new(sets).into(),
            IndexName::Pdisp => Pdisp::new(sets).into(),
            IndexName::Fermi => Fermi::new(sets, line_shift).into(),
            IndexName::Fup => Fup::new(sets, line_shift).into(),
            IndexName::Ipoly => Ipoly::new(sets).into(),
        }
    }
}

/// Whether `n` is prime.
pub fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
}

/// The largest prime below `n` (`n` ≥ 3).
pub fn largest_prime_below(n: u64) -> u64 {
    (2..n).rev().find(|&p| is_prime(p)).expect("a prime below n ≥ 3")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Intra-warp concentration of one load (seed 004 Eq. 3.1): accesses / distinct sets.
    fn concentration(f: &impl SetIndex, lines: &[u64]) -> f64 {
        let mut sets: Vec<usize> = lines.iter().map(|&l| f.set(l)).collect();
        sets.sort_unstable();
        sets.dedup();
        lines.len() as f64 / sets.len() as f64
    }

    /// Lines of a fully divergent warp `A[tid·stride]`, tid 0..32, from the seed's base.
    fn warp(stride: u64) -> Vec<u64> {
        (0..32).map(|tid| (0x8000_0000 + tid * stride) >> 7).collect()
    }

    #[test]
    fn conv_example_of_seed_004() {
        // §2.1.2: 32 sets, 128-byte lines, 4096-byte stride: both addresses land in set 0.
        let f = IndexKind::new(IndexName::Conv, 32, 7);
        assert_eq!(f.set(0x8000_0000 >> 7), 0);
        assert_eq!(f.set(0x8000_1000 >> 7), 0);
        assert_eq!(f.set(0x8000_0080 >> 7), 1);
    }

    #[test]
    fn fully_divergent_warp_concentration_conv_versus_fup() {
        // Strides 128 B … 32 MB (Fig. 3.1). CONV puts all 32 lines in one set once the stride
        // is a multiple of sets × line (4 KB); FUP spreads them over all 32 sets at every stride.
        let conv = IndexKind::new(IndexName::Conv, 32, 7);
        let fup = IndexKind::new(IndexName::Fup, 32, 7);
        for k in 7..=25 {
            let lines = warp(1 << k);
            let expect_conv = if k >= 12 { 32.0 } else { f64::from(1u32 << (k - 7)) };
            assert_eq!(concentration(&conv, &lines), expect_conv, "CONV, stride 2^{k}");
            assert_eq!(concentration(&fup, &lines), 1.0, "FUP, stride 2^{k}");
        }
    }

    #[test]
    fn bxor_covers_medium_strides_only() {
        // §3.2.4: x ⊕ t covers 2·log2(sets) = 10 line bits: perfect while the five feature
        // bits stay inside them (strides up to 4 KB), then invariable bits come back.
        let f = IndexKind::new(IndexName::Bxor, 32, 7);
        for k in 7..=12 {
            assert_eq!(concentration(&f, &warp(1 << k)), 1.0, "stride 2^{k}");
        }
        assert_eq!(concentration(&f, &warp(1 << 13)), 2.0);
        assert_eq!(concentration(&f, &warp(1 << 15)), 8.0);
        for k in 17..=25 {
            assert_eq!(concentration(&f, &warp(1 << k)), 32.0, "stride 2^{k}");
        }
    }

    #[test]
    fn prime_based_functions_spread_over_the_prime_sets() {
        // pMOD with 31 sets reaches 32/31 on every stride; so does pDisp with 32 sets (n′ = 31)
        // on unit and large strides, while small strides that carry into the tag do worse
        // (§3.3.5: higher concentration for the small strides of SYRK and SYR2K).
        let pmod = IndexKind::new(IndexName::Pmod, 31, 7);
        let pdisp = IndexKind::new(IndexName::Pdisp, 32, 7);
        for k in 7..=25 {
            assert_eq!(concentration(&pmod, &warp(1 << k)), 32.0 / 31.0, "pMOD stride 2^{k}");
            if k == 7 || k >= 12 {
                assert_eq!(concentration(&pdisp, &warp(1 << k)), 32.0 / 31.0, "pDisp stride 2^{k}");
            }
        }
        assert_eq!(concentration(&pdisp, &warp(256)), 32.0 / 23.0);
    }

    #[test]
    fn requirements_name_the_set_count() {
        assert_eq!(IndexName::Conv.set_count_requirement(32), None);
        assert!(IndexName::Conv.set_count_requirement(48).unwrap().contains("power of two"));
        assert_eq!(IndexName::Pmod.set_count_requirement(31), None);
        assert_eq!(IndexName::Pmod.set_count_requirement(32), None, "the largest prime below, 31, is used");
        assert!(IndexName::Pmod.set_count_requirement(1).unwrap().contains("at least 2"));
        assert_eq!(IndexName::Fermi.set_count_requirement(64), None);
        assert!(IndexName::Fermi.set_count_requirement(16).unwrap().contains("32 or 64"));
        assert!(IndexName::Pdisp.set_count_requirement(2).is_some());
        assert_eq!((largest_prime_below(32), largest_prime_below(64), largest_prime_below(4)), (31, 61, 3));
    }
}
