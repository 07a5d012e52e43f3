//! Sectored lines (GPGPU-Sim 4's `S` caches: `-gpgpu_cache:dl1 S:…` and `-gpgpu_cache:dl2 S:…`
//! in Accel-Sim's Volta configs; `l1.sectored`, `l2.sectored`). A line's tag covers 32-byte
//! sectors, each readable on its own. With a sectored L1 the coalescer cuts a warp's access
//! into one request per 32-byte sector it touches (GPGPU-Sim's Volta coalescing,
//! `-gpgpu_coalesce_arch 70`, uses 32-byte segments), and each request then looks up, misses,
//! waits in an MSHR entry of its own sector, crosses the interconnect and, from a sectored
//! L2, is fetched from DRAM as 32 bytes. A miss on a sector of a line that is present keeps the
//! line and reserves it until none of its sectors waits (GPGPU-Sim: SECTOR_MISS); a miss on a
//! missing line takes a victim as any miss does.
//!
//! A sectored cache's MSHR is keyed by sector ([`key`], from the line's key), its tag array by
//! line.

use super::line::LineState;
use super::mshr::Mshr;
use super::tags::{Probe, TagArray};
use crate::config::Config;
use crate::sim::core::coalescer::SECTOR_BYTES;

/// Bytes the coalescer merges a warp's lanes into per request: a sector for a sectored L1,
/// else the L1's line.
pub fn coalesce_bytes(c: &Config) -> u32 {
    if c.l1.sectored { SECTOR_BYTES as u32 } else { c.l1.line_bytes }
}

/// The bit of `addr`'s sector within its line of `line_bytes`.
pub fn bit(addr: u64, line_bytes: u32) -> u8 {
    1 << ((addr % u64::from(line_bytes)) / SECTOR_BYTES)
}

/// Every sector of a line of `line_bytes`.
pub fn all(line_bytes: u32) -> u8 {
    ((1u16 << (u64::from(line_bytes) / SECTOR_BYTES)) - 1) as u8
}

/// The MSHR key of `addr`'s sector, in the line whose tag-array key is `line`.
pub fn key(line: u64, addr: u64, line_bytes: u32) -> u64 {
    line * (u64::from(line_bytes) / SECTOR_BYTES) + (addr % u64::from(line_bytes)) / SECTOR_BYTES
}

/// What a lookup of `bit`'s sector finds, from the line's probe: `Hit` when the line is
/// present (valid, or reserved for other sectors) with the sector readable, `Pending` when it
/// is present without it, `Miss` when it is not present.
pub fn probe(tags: &TagArray, set: usize, line: Probe, bit: u8) -> Probe {
    match line {
        Probe::Hit(w) | Probe::Pending(w) if tags.line(set, w).sectors & bit != 0 => Probe::Hit(w),
        Probe::Hit(w) | Probe::Pending(w) => Probe::Pending(w),
        Probe::Miss => Probe::Miss,
    }
}

/// The sector at `addr` arrived in line (`set`, `way`) after its MSHR entry was released:
/// it becomes readable, and the line valid once no sector of it waits in `mshr`.
pub fn filled(tags: &mut TagArray, (set, way): (usize, usize), addr: u64, line_bytes: u32, mshr: &Mshr) {
    let first = key(tags.line(set, way).key, 0, line_bytes);
    let waiting = (0..u64::from(line_bytes) / SECTOR_BYTES).any(|s| mshr.find(first + s).is_some());
    let line = tags.line_mut(set, way);
    line.sectors |= bit(addr, line_bytes);
    if !waiting {
        line.state = LineState::Valid;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_of_a_line() {
        assert_eq!((all(128), all(256), all(32)), (0b1111, 0xff, 0b1));
        assert_eq!((bit(0x1000, 128), bit(0x1020, 128), bit(0x107f, 128), bit(0x10a0, 128)), (1, 2, 8, 2));
        assert_eq!(
            (key(0x20, 0x1000, 128), key(0x20, 0x101f, 128), key(0x20, 0x1060, 128)),
            (0x80, 0x80, 0x83)
        );
        let mut c = Config::default();
        assert_eq!(coalesce_bytes(&c), 128);
        c.l1.sectored = true;
        assert_eq!(coalesce_bytes(&c), 32);
    }
}
