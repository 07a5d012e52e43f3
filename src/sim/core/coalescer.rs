//! The coalescer: merges the lane addresses of a warp's memory instruction into as few
//! line-sized requests as possible (MECHANISMS §1). Requests keep the order in which their
//! first lane appears; each carries the mask of lanes it serves and of the 32 B sectors of
//! the line those lanes touch (what a bypassing access fetches, seed 004 §4.2.3).

use crate::workload::instr::LaneAddrs;
use crate::workload::synth::lanes;

/// The smallest coalesced segment: a bypassed access moves whole 32 B sectors.
pub const SECTOR_BYTES: u64 = 32;

/// The coalesced requests of one instruction (at most one per lane, two if an access
/// straddles a line boundary). Only the first `n` entries are requests: one built again in
/// place (the LD/ST queue's slots, `queue::SlotQueue`) keeps stale entries after them, so
/// comparisons and the debug view look at the first `n` only.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Coalesced {
    #[serde(with = "serde_big_array::BigArray")]
    pub lines: [u64; 64],
    #[serde(with = "serde_big_array::BigArray")]
    pub lanes: [u32; 64],
    /// Per request, the 32 B sectors of its line that its lanes touch (bit s = bytes
    /// 32s..32s+31 of the line; lines have at most 8 sectors).
    #[serde(with = "serde_big_array::BigArray")]
    pub sectors: [u8; 64],
    pub n: usize,
}

impl Default for Coalesced {
    fn default() -> Self {
        Coalesced { lines: [0; 64], lanes: [0; 64], sectors: [0; 64], n: 0 }
    }
}

impl PartialEq for Coalesced {
    fn eq(&self, other: &Self) -> bool {
        let n = self.n;
        n == other.n
            && self.lines[..n] == other.lines[..n]
            && self.lanes[..n] == other.lanes[..n]
            && self.sectors[..n] == other.sectors[..n]
    }
}

impl Eq for Coalesced {}

impl std::fmt::Debug for Coalesced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.n;
        f.debug_struct("Coalesced")
            .field("lines", &&self.lines[..n])
            .field("lanes", &&self.lanes[..n])
            .field("sectors", &&self.sectors[..n])
            .finish()
    }
}

impl Coalesced {
    /// Adds `lane`'s bytes `first..=last` (within one line) to the request for `line`.
    fn add(&mut self, line: u64, lane: u32, first: u64, last: u64) {
        let (lo, hi) = ((first - line) / SECTOR_BYTES, (last - line) / SECTOR_BYTES);
        let bits = ((2u16 << hi) - (1u16 << lo)) as u8;
        for k in 0..self.n {
            if self.lines[k] == line {
                self.lanes[k] |= 1 << lane;
                self.sectors[k] |= bits;
                return;
            }
        }
        self.lines[self.n] = line;
        self.lanes[self.n] = 1 << lane;
        self.sectors[self.n] = bits;
        self.n += 1;
    }

    /// Coalesces the active lanes' `width`-byte accesses into `line_bytes` lines.
    pub fn build(&mut self, addrs: &LaneAddrs, mask: u32, width: u32, line_bytes: u64) {
        self.n = 0;
        let line_mask = !(line_bytes - 1);
        for lane in lanes(mask) {
            let a = addrs[lane as usize];
            let end = a + u64::from(width.max(1)) - 1;
            let (first_line, last_line) = (a & line_mask, end & line_mask);
            if first_line == last_line {
                self.add(first_line, lane, a, end);
            } else {
                self.add(first_line, lane, a, last_line - 1);
                self.add(last_line, lane, last_line, end);
            }
        }
    }

    /// Coalesces an atomic's active lanes as GPGPU-Sim does
    /// (`warp_inst_t::memory_coalescing_arch_atomic`): into 32 B segments, where lanes whose
    /// bytes overlap — atomics to one address — need requests of their own: each lane joins
    /// the first request of its segment that does not touch its bytes yet. An access that
    /// would cross its segment (GPGPU-Sim asserts none does) is cut at the segment's end.
    pub fn build_atomic(&mut self, addrs: &LaneAddrs, mask: u32, width: u32) {
        self.n = 0;
        // Per request, the bytes of its segment its lanes touch.
        let mut touched = [0u32; 64];
        for lane in lanes(mask) {
            let a = addrs[lane as usize];
            let segment = a & !(SECTOR_BYTES - 1);
            let offset = (a - segment) as u32;
            let bytes = width.clamp(1, SECTOR_BYTES as u32 - offset);
            let bits = (((1u64 << bytes) - 1) << offset) as u32;
            let k = (0..self.n).find(|&k| self.lines[k] == segment && touched[k] & bits == 0).unwrap_or_else(
                || {
                    self.lines[self.n] = segment;
                    self.lanes[self.n] = 0;
                    self.sectors[self.n] = 1;
                    self.n += 1;
                    self.n - 1
                },
            );
            self.lanes[k] |= 1 << lane;
            touched[k] |= bits;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (0..self.n).map(|k| (self.lines[k], self.lanes[k]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coalesce(f: impl Fn(u64) -> u64, mask: u32, width: u32) -> Coalesced {
        let mut a = [0u64; 32];
        for (l, x) in a.iter_mut().enumerate() {
            *x = f(l as u64);
        }
        let mut c = Coalesced::default();
        c.build(&a, mask, width, 128);
        c
    }

    #[test]
    fn unit_stride_is_one_line_and_column_stride_is_32() {
        let c = coalesce(|l| 0x1000 + 4 * l, u32::MAX, 4);
        assert_eq!((c.n, c.lines[0], c.lanes[0]), (1, 0x1000, u32::MAX));
        assert_eq!(c.sectors[0], 0b1111, "128 bytes: all four sectors");
        let c = coalesce(|l| 0x1000 + 4096 * l, u32::MAX, 4);
        assert_eq!(c.n, 32);
        assert_eq!(c.lanes[5], 1 << 5);
        assert_eq!(c.sectors[5], 1, "one 4-byte lane: one sector");
    }

    #[test]
    fn masks_misalignment_and_wide_accesses() {
        let c = coalesce(|l| 0x1000 + 4 * l, 0xffff_0000, 4);
        assert_eq!((c.n, c.lanes[0]), (1, 0xffff_0000));
        // 16-byte accesses of 32 lanes span 512 bytes: 4 lines.
        let c = coalesce(|l| 0x1000 + 16 * l, u32::MAX, 16);
        assert_eq!(c.n, 4);
        assert_eq!(c.lanes[1], 0xff00);
        // An 8-byte access at 0x107c straddles two lines.
        let c = coalesce(|_| 0x107c, 1, 8);
        assert_eq!(&c.lines[..c.n], &[0x1000, 0x1080]);
        assert_eq!(&c.sectors[..c.n], &[0b1000, 0b0001], "last sector of one line, first of the next");
        // Lanes 2 and 3 of a 16-byte access at 0x1010 + 16·lane: bytes 0x30..0x4f, sectors 1 and 2.
        let c = coalesce(|l| 0x1010 + 16 * l, 0b1100, 16);
        assert_eq!(c.sectors[0], 0b0110);
        assert_eq!(coalesce(|l| l, 0, 4).n, 0);
    }

    /// GPGPU-Sim's atomic coalescing: 32 B segments; lanes on one address are serialised into
    /// as many requests as the most lanes on one address, others share them.
    #[test]
    fn atomics_coalesce_into_segments_and_split_lanes_on_one_address() {
        let atomic = |f: &dyn Fn(u64) -> u64, mask: u32, width: u32| {
            let mut a = [0u64; 32];
            for (l, x) in a.iter_mut().enumerate() {
                *x = f(l as u64);
            }
            let mut c = Coalesced::default();
            c.build_atomic(&a, mask, width);
            c
        };
        // Unit stride, 4 bytes: four 32 B segments of eight lanes.
        let c = atomic(&|l| 0x1000 + 4 * l, u32::MAX, 4);
        assert_eq!(&c.lines[..c.n], &[0x1000, 0x1020, 0x1040, 0x1060]);
        assert_eq!(c.lanes[1], 0xff00);
        // Every lane on one address: 32 requests, one lane each.
        let c = atomic(&|_| 0x2004, u32::MAX, 4);
        assert_eq!(c.n, 32);
        assert!((0..32).all(|k| c.lines[k] == 0x2000 && c.lanes[k] == 1 << k));
        // Lanes 0, 1 on 0x3000, lane 2 on 0x3004, lane 3 on 0x3000 again: lane 2 joins the
        // first request, lane 3 needs a third.
        let c = atomic(&|l| [0x3000, 0x3000, 0x3004, 0x3000][l as usize % 4], 0b1111, 4);
        assert_eq!(&c.lanes[..c.n], &[0b0101, 0b0010, 0b1000]);
        // 8-byte atomics overlap at 4-byte distance.
        let c = atomic(&|l| 0x4000 + 4 * l, 0b11, 8);
        assert_eq!(c.n, 2);
        assert_eq!(atomic(&|l| l, 0, 4).n, 0);
    }

    #[test]
    fn building_again_in_place_equals_building_fresh() {
        let mut a = [0u64; 32];
        for (l, x) in a.iter_mut().enumerate() {
            *x = 0x1000 + 4096 * l as u64;
        }
        let mut reused = Coalesced::default();
        reused.build(&a, u32::MAX, 4, 128);
        reused.build(&a, 0b11, 4, 128);
        let mut fresh = Coalesced::default();
        fresh.build(&a, 0b11, 4, 128);
        assert_eq!(reused.n, 2);
        assert_ne!(reused.lines[5], fresh.lines[5], "stale entries stay");
        assert_eq!(reused, fresh);
        assert_eq!(format!("{reused:?}"), format!("{fresh:?}"));
    }
}
