//! Clock domains (MECHANISMS §1): the interconnect/L2 and DRAM clocks tick on their own edges
//! within core cycles. Edges are computed with integer arithmetic on the frequencies (kHz),
//! never accumulated in floating point, so long runs do not drift and every run is identical.

/// A domain clocked at `freq` relative to the core clock `core`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClockDomain {
    freq_khz: u64,
    core_khz: u64,
    acc: u64,
}

impl ClockDomain {
    pub fn new(freq_mhz: f64, core_mhz: f64) -> ClockDomain {
        ClockDomain {
            freq_khz: (freq_mhz * 1000.0).round().max(1.0) as u64,
            core_khz: (core_mhz * 1000.0).round().max(1.0) as u64,
            acc: 0,
        }
    }

    /// Edges of this domain during the next core cycle.
    #[inline]
    pub fn advance(&mut self) -> u64 {
        self.acc += self.freq_khz;
        let n = self.acc / self.core_khz;
        self.acc -= n * self.core_khz;
        n
    }

    /// Edges of this domain during the next `cycles` core cycles, advancing over them (as
    /// many calls of [`ClockDomain::advance`] would).
    pub fn advance_by(&mut self, cycles: u64) -> u64 {
        let total = u128::from(self.acc) + u128::from(cycles) * u128::from(self.freq_khz);
        let core = u128::from(self.core_khz);
        self.acc = (total % core) as u64;
        (total / core) as u64
    }

    /// The most core cycles from now that contain at most `edges` edges of this domain.
    pub fn cycles_within(&self, edges: u64) -> u64 {
        // Edges in the next m cycles: ⌊(acc + m·freq) / core⌋ ≤ edges ⟺ acc + m·freq < (edges + 1)·core.
        let bound = (u128::from(edges) + 1) * u128::from(self.core_khz) - u128::from(self.acc) - 1;
        (bound / u128::from(self.freq_khz)).min(u128::from(u64::MAX)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_exact_over_long_runs() {
        let mut dram = ClockDomain::new(1500.0, 1400.0);
        let mut icnt = ClockDomain::new(700.0, 1400.0);
        let (mut d, mut i) = (0, 0);
        for _ in 0..1_400_000 {
            d += dram.advance();
            i += icnt.advance();
        }
        assert_eq!((d, i), (1_500_000, 700_000));
        let mut slow = ClockDomain::new(924.0, 1400.0);
        let pattern: Vec<u64> = (0..8).map(|_| slow.advance()).collect();
        assert!(pattern.iter().all(|&n| n <= 1));
    }

    #[test]
    fn advancing_by_many_cycles_is_advancing_one_by_one() {
        for (f, c) in [(1500.0, 1400.0), (700.0, 1400.0), (924.0, 1400.0), (1400.0, 1400.0), (3000.0, 1000.0)]
        {
            let (mut one, mut many) = (ClockDomain::new(f, c), ClockDomain::new(f, c));
            for m in [0, 1, 2, 3, 7, 100, 1023] {
                let edges: u64 = (0..m).map(|_| one.advance()).sum();
                assert_eq!(many.advance_by(m), edges, "{f}/{c} MHz, {m} cycles");
                assert_eq!(many, one);
            }
        }
    }

    #[test]
    fn cycles_within_is_the_longest_run_of_cycles_with_at_most_that_many_edges() {
        for (f, c) in [(1500.0, 1400.0), (700.0, 1400.0), (924.0, 1400.0), (3000.0, 1000.0)] {
            let mut d = ClockDomain::new(f, c);
            for _ in 0..5 {
                d.advance();
                for edges in 0..6 {
                    let m = d.cycles_within(edges);
                    let mut probe = d.clone();
                    let within = probe.advance_by(m);
                    assert!(within <= edges, "{f}/{c}: {m} cycles hold at most {edges} edges");
                    assert!(within + probe.advance() > edges, "{f}/{c}: one more cycle holds more");
                }
            }
        }
    }
}
