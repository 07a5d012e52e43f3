//! A log-linear histogram for latencies: exact below 64, then 32 buckets per power of two
//! (≤ 3% relative error), fixed size, no allocation after construction.

const LINEAR: u64 = 64;
const SUB: u64 = 32;
const BUCKETS: usize = (LINEAR + SUB * 58) as usize;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Histogram {
    counts: Vec<u64>,
    pub count: u64,
    pub sum: u64,
    pub max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { counts: vec![0; BUCKETS], count: 0, sum: 0, max: 0 }
    }
}

fn bucket(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let e = 63 - v.leading_zeros() as u64; // v in [2^e, 2^(e+1)), e ≥ 6
    let sub = (v >> (e - 5)) & (SUB - 1);
    (LINEAR + (e - 6) * SUB + sub) as usize
}

fn lower_bound(b: usize) -> u64 {
    let b = b as u64;
    if b < LINEAR {
        return b;
    }
    let e = (b - LINEAR) / SUB + 6;
    let sub = (b - LINEAR) % SUB;
    (1 << e) + (sub << (e - 5))
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        self.counts[bucket(v).min(BUCKETS - 1)] += 1;
        self.count += 1;
        self.sum += v;
        self.max = self.max.max(v);
    }

    /// Number of buckets.
    pub fn buckets(&self) -> usize {
        self.counts.len()
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum as f64 / self.count as f64 }
    }

    /// The value at quantile `q` (0..=1): the lower bound of its bucket.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let target = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return lower_bound(b).min(self.max);
            }
        }
        self.max
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut last = 0;
        for v in 0..100_000u64 {
            let b = bucket(v);
            assert!(b >= last);
            last = b;
            let lb = lower_bound(b);
            assert!(lb <= v && v - lb <= v / 32 + 1, "v {v} lb {lb}");
        }
    }

    #[test]
    fn quantiles() {
        let mut h = Histogram::default();
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), 50);
        assert_eq!(h.quantile(1.0), 100);
        assert!((h.quantile(0.99) as i64 - 99).abs() <= 2);
        assert_eq!(h.mean(), 50.5);
    }
}
