//! Minimum Efficient Row Burst (seed 000 §IV-D, Table I): how many data transfers other banks
//! must make to hide one bank's switch to a new row (RD → PRE → ACT → RD), as a function of
//! `b`, the number of banks with pending work.
//!
//! ```text
//! MERB(b) = ⌈max( (tRTP + tRP + tRCD) / ((b − 1) · tBURST),  max(tRRD, tFAW / 4) / tBURST )⌉   b > 1
//! MERB(1) = 31                                                     (the 5-bit counter's limit)
//! ```
//!
//! **Unit.** The formula divides by tBURST, so MERB counts *bursts* (column accesses, one
//! tBURST of data each). A 128-byte line is two 64-byte bursts here, so one row-hit line
//! advances a bank's counter by two; the counter is [`super::bank::Bank::cas_since_act`]'s
//! unit. With the seed-000 timings in DRAM cycles (tRTP = 3, tRP = tRCD = 18, tRRD = 9,
//! tFAW = 35, tBURST = 2) the table is exactly Table I: 31, 20, 10, 7, 5, 5, …, 5.
//!
//! The table is computed once from the timing parameters when the controller is built (the
//! paper's "computed at boot-time").

use super::timing::Timing;

/// The 5-bit per-bank row-hit counter saturates here; it is also MERB(1).
pub const MERB_COUNTER_MAX: u32 = 31;

/// MERB(b) for b = 1 ..= banks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MerbTable {
    /// `values[b - 1]` = MERB(b), in bursts.
    pub values: Vec<u32>,
}

impl MerbTable {
    pub fn new(t: &Timing, banks: usize) -> MerbTable {
        MerbTable { values: (1..=banks.max(1)).map(|b| merb(t, b)).collect() }
    }

    /// MERB for `b` banks with pending work (0 is treated as 1; more than the table as its last).
    #[inline]
    pub fn get(&self, b: usize) -> u32 {
        self.values[b.clamp(1, self.values.len()) - 1]
    }
}

/// One entry of the table (bursts), capped by the counter width.
pub fn merb(t: &Timing, b: usize) -> u32 {
    if b <= 1 {
        return MERB_COUNTER_MAX;
    }
    let burst = t.burst.max(1);
    // ⌈max(x, y)⌉ = max(⌈x⌉, ⌈y⌉); tFAW / 4 is kept exact by scaling both sides by 4.
    let switch = (t.rtp + t.rp + t.rcd).div_ceil((b as u64 - 1) * burst);
    let act_rate = (4 * t.rrd).max(t.faw).div_ceil(4 * burst);
    switch.max(act_rate).min(u64::from(MERB_COUNTER_MAX)) as u32
}

/// Data-bus utilization of one bank serving `n` bursts per activation with nothing to
/// overlap its row switches (seed 000 §IV-D):
/// `tBURST·n / (tRCD + tBURST·n + (tRTP − tBURST + tCK) + tRP)`, all in DRAM cycles (tCK = 1).
pub fn single_bank_utilization(t: &Timing, n: u32) -> f64 {
    let data = (t.burst * u64::from(n)) as f64;
    let tail = t.rtp as f64 - t.burst as f64 + 1.0;
    data / (t.rcd as f64 + data + tail + t.rp as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn seed000_gddr5_gives_table_i() {
        let t = Timing::from_config(&Config::default());
        let table = MerbTable::new(&t, 16);
        assert_eq!(table.values, vec![31, 20, 10, 7, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]);
        assert_eq!((table.get(0), table.get(3), table.get(40)), (31, 10, 5));
    }

    #[test]
    fn the_table_follows_the_timing_parameters() {
        // Slower row switches need longer bursts elsewhere; a wider tFAW raises the floor.
        let mut t = Timing::from_config(&Config::default());
        t.rp = 30;
        assert_eq!(merb(&t, 2), 26, "(3 + 30 + 18) / 2 = 25.5");
        t.faw = 80;
        assert_eq!(merb(&t, 16), 10, "tFAW / 4 / tBURST = 10");
        assert_eq!(merb(&t, 1), 31);
    }

    #[test]
    fn one_bank_at_merb_1_reaches_62_percent() {
        // 1.33n / (1.33n + 25.33) ns with n = 31: 62 / (18 + 62 + 2 + 18) = 0.62 exactly.
        let t = Timing::from_config(&Config::default());
        assert_eq!(single_bank_utilization(&t, MERB_COUNTER_MAX), 0.62);
        assert!(single_bank_utilization(&t, 2) < 0.13);
    }
}
