//! Seeded, stateless randomness for workloads: every random choice is a hash of the seed and
//! of where it is made (thread, iteration, instruction), so a warp's program needs no RNG
//! state and replaying any cycle gives the same addresses.

/// SplitMix64 finalizer (Steele et al.): a well-mixed 64-bit hash of one word.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hash of several words.
#[inline]
pub fn hash(seed: u64, words: &[u64]) -> u64 {
    words.iter().fold(mix(seed), |h, &w| mix(h ^ w))
}

/// A uniform number in [0, 1) from a hash.
#[inline]
pub fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_deterministic_and_spread() {
        assert_eq!(hash(1, &[2, 3]), hash(1, &[2, 3]));
        assert_ne!(hash(1, &[2, 3]), hash(1, &[3, 2]));
        let mean: f64 = (0..10_000).map(|i| unit(hash(7, &[i]))).sum::<f64>() / 10_000.0;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }
}
