//! Clock domains (MECHANISMS §1): the interconnect/L2 and DRAM clocks tick on their own edges
//! within core cycles. Edges are computed with integer arithmetic on the frequencies (kHz),
//! never accumulated in floating point, so long runs do not drift and every run is identical.

/// A domain clocked at `freq` relative to the core clock `core`.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}
