//! IPOLY hashing (Rau, "Pseudo-randomly interleaved memory", ISCA 1991): an index of `n` bits
//! is the address taken modulo an irreducible polynomial of degree `n` over GF(2), so every
//! power-of-two stride spreads over all `2^n` banks or sets.
//!
//! GPGPU-Sim 4 uses it for the L2 set index (`-gpgpu_cache:dl2 …,L:B:m:L:P,…`, set index
//! function `P`) and for the memory sub-partition (`-gpgpu_memory_partition_indexing 2`), for 16,
//! 32 and 64 sets or sub-partitions (`ipoly_hash_function` in `gpgpu-sim/hashing.cc`, with the
//! polynomials of Khairy et al., "SACAT", IEEE TPDS 2017). It XORs the `n` low index bits with
//! the remainder of the bits above them, `higher · x^n mod P(x)`, counting only the lowest 13,
//! 15 or 19 of those higher bits; the same truncation is kept here, so the two agree bit for
//! bit.

/// The polynomial (bit k = coefficient of x^k, degree `n`) and how many bits above the index
/// take part, for an index of `n` bits.
fn polynomial(n: u32) -> Option<(u64, u32)> {
    match n {
        4 => Some((0b1_0011, 13)),   // x^4 + x + 1
        5 => Some((0b10_0101, 15)),  // x^5 + x^2 + 1
        6 => Some((0b100_0011, 19)), // x^6 + x + 1
        _ => None,
    }
}

/// The hashed index: `index` (below `count`) XOR `higher · x^n mod P(x)`, `count` = 2^n being
/// one of 16, 32, 64 (`config::IPOLY_SIZES`, which the config checks).
pub fn hash(higher: u64, index: u64, count: u64) -> u64 {
    let n = count.trailing_zeros();
    let (p, bits) = polynomial(n).expect("IPOLY is defined for 16, 32 and 64 (checked with the config)");
    // Reduce higher · x^n modulo P, one bit at a time from the top.
    let mut r = (higher & ((1u64 << bits) - 1)) << n;
    for b in (n..n + bits).rev() {
        if r >> b & 1 == 1 {
            r ^= p << (b - n);
        }
    }
    (index ^ r) & (count - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remainders_of_single_higher_bits() {
        // x^4 ≡ x + 1 (mod x^4 + x + 1): the lowest higher bit flips index bits 0 and 1;
        // x^5 ≡ x^2 + x, x^7 ≡ x^3 + x + 1.
        assert_eq!(hash(1, 0, 16), 0b0011);
        assert_eq!(hash(0b10, 0, 16), 0b0110);
        assert_eq!(hash(0b1000, 0b0001, 16), 0b1011 ^ 0b0001);
        // x^5 ≡ x^2 + 1 (mod x^5 + x^2 + 1); x^6 ≡ x + 1 (mod x^6 + x + 1).
        assert_eq!(hash(1, 0, 32), 0b00101);
        assert_eq!(hash(1, 0b11_1111, 64), 0b11_1111 ^ 0b00_0011);
        // Higher bits past the 13 / 15 / 19 taken part do not count.
        assert_eq!(hash(1 << 13, 7, 16), 7);
        assert_eq!(hash(1 << 15, 7, 32), 7);
        assert_eq!(hash(1 << 19, 7, 64), 7);
        assert_eq!(hash(1 << 18, 0, 64), hash((1 << 18) | (1 << 40), 0, 64));
    }

    #[test]
    fn power_of_two_strides_spread_over_every_set() {
        // Rau's property: 2^n consecutive multiples of any power-of-two stride hit 2^n sets.
        for count in [16u64, 32, 64] {
            let n = count.trailing_zeros();
            for k in 0..12 {
                let mut seen: Vec<u64> = (0..count)
                    .map(|i| {
                        let line = i << k;
                        hash(line >> n, line & (count - 1), count)
                    })
                    .collect();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len() as u64, count, "{count} sets, stride 2^{k}");
            }
        }
        // Exactly the sizes the config accepts have a polynomial.
        for n in 0..10 {
            let size = 1u32 << n;
            assert_eq!(polynomial(n).is_some(), crate::config::IPOLY_SIZES.contains(&size), "{size}");
        }
    }
}
