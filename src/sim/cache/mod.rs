//! Cache building blocks shared by the L1D and the L2 slices: the tag array with its
//! set-index function and replacement policy, and the MSHR table.

pub mod index;
pub mod line;
pub mod mshr;
pub mod replace;
pub mod reuse;
pub mod sectors;
pub mod tags;

/// What a cache knows about an access beyond its address: the issuing warp and how divergent
/// its load is. DaCache's insertion and the L1's per-load metrics need it (seed 004 §4.2);
/// the L2 passes the default (no warp).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AccessCtx {
    /// Warp slot within the SM.
    pub warp: u16,
    /// PC of the load.
    pub pc: u32,
    /// GTO priority of the warp within its scheduler (0 = oldest; `Sm::priority`).
    pub prio: u8,
    /// The warp's rank across the SM's schedulers: prio × schedulers + scheduler index, so
    /// the n oldest warps of the SM have ranks below n (what FCW counts).
    pub rank: u16,
    /// Coalesced requests of the load (its accesses to this cache).
    pub requests: u8,
    /// This access's index among them.
    pub index: u8,
    /// 32-byte sectors of the line the access's lanes touch, one bit each.
    pub sectors: u8,
}

impl AccessCtx {
    /// An access by warp `w` of an SM with `schedulers` warp schedulers and GTO `priority` per
    /// warp (seed 004 §4.2.2): its priority and SM-wide rank, and the load's `requests` and this
    /// access's `index` among them.
    pub fn of_warp(
        schedulers: usize,
        priority: &[u8],
        w: usize,
        pc: u32,
        requests: u8,
        index: u8,
        sectors: u8,
    ) -> AccessCtx {
        let prio = priority[w];
        AccessCtx {
            warp: w as u16,
            pc,
            prio,
            rank: u16::from(prio) * schedulers as u16 + (w % schedulers) as u16,
            requests,
            index,
            sectors,
        }
    }
}

impl AccessCtx {
    /// Coherent loads make at most two requests (seed 004 §2.2.1, MECHANISMS §8).
    pub fn coherent(&self) -> bool {
        self.requests <= 2
    }
}
