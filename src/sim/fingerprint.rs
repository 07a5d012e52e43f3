//! Fingerprints of a unit's output streams: each instruction an SM issues and each command a
//! DRAM channel issues is folded, with its cycle, into a 64-bit value the unit keeps. Two
//! machines whose unit has issued the same things in the same cycles hold equal fingerprints,
//! and from the first cycle their streams differ on, different ones (but for a 2^-64 chance),
//! so the debugger finds where two machines part from their states alone, whichever way it
//! reached a cycle (`break diverge`, `debug::diverge`).

/// `h` with `words` folded in (FNV-1a over 64-bit words).
#[inline]
pub fn fold(h: u64, words: [u64; 3]) -> u64 {
    words.iter().fold(h, |h, w| (h ^ w).wrapping_mul(0x0000_0100_0000_01b3))
}

/// A fingerprint of an empty stream.
pub const EMPTY: u64 = 0xcbf2_9ce4_8422_2325;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_items_in_the_same_order_fold_alike_and_any_change_does_not() {
        let stream = |items: &[[u64; 3]]| items.iter().fold(EMPTY, |h, w| fold(h, *w));
        let a = [[10, 3, 0x120], [11, 4, 0x128]];
        assert_eq!(stream(&a), stream(&a));
        assert_ne!(stream(&a), stream(&[[10, 3, 0x120], [12, 4, 0x128]]), "a later cycle");
        assert_ne!(stream(&a), stream(&[[11, 4, 0x128], [10, 3, 0x120]]), "another order");
        assert_ne!(stream(&a), stream(&a[..1]), "one item fewer");
        assert_ne!(stream(&[]), stream(&[[0, 0, 0]]), "an item of zeros");
    }
}
