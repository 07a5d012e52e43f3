//! Counters kept by the components (plain data inside each), and the derived report.

mod counters;
mod histogram;
pub mod keys;
pub mod metrics;
pub mod report;
pub mod sample;

pub(crate) use counters::counters;
pub use counters::{Counters, total};
pub use histogram::Histogram;

counters! {
    /// Per DRAM channel (MECHANISMS §2, §3, §5).
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct ChannelStats {
        /// DRAM cycles simulated.
        pub cycles: u64,
        /// Cycles with at least one request queued or data on the bus.
        pub pending_cycles: u64,
        /// Data-bus cycles transferring bursts.
        pub busy_cycles: u64,
        /// Σ banks with pending requests, over cycles with at least one (bank-level parallelism).
        pub blp_sum: u64,
        pub blp_cycles: u64,
        /// Σ queue occupancy over cycles.
        pub read_queue_sum: u64,
        pub write_queue_sum: u64,
        /// Occupancy histograms over the queues' usage lifetime (seed 002 Fig. 5): entry i counts
        /// DRAM cycles with i requests in the read (write) queue, for i ≥ 1.
        pub read_queue_occupancy: Vec<u64>,
        pub write_queue_occupancy: Vec<u64>,
        /// Requests served.
        pub reads: u64,
        pub writes: u64,
        /// First command of a request: column (hit), ACT (miss), PRE (conflict).
        pub row_hits: u64,
        pub row_misses: u64,
        pub row_conflicts: u64,
        /// Write-drain episodes.
        pub drains: u64,
        /// Lines read by opportunistic prefetching.
        pub prefetches: u64,
        /// Commands issued, indexed by `CommandKind as usize`.
        pub commands: [u64; 5],
        /// Σ read latency, queue entry → last data beat (DRAM cycles).
        pub read_latency_sum: u64,
        pub write_latency_sum: u64,
        pub read_latency: Histogram,
    }
}

impl ChannelStats {
    /// Requests counted by their first command (row hits, misses and conflicts).
    pub fn served(&self) -> u64 {
        self.row_hits + self.row_misses + self.row_conflicts
    }

    /// Buckets of the read-latency histogram (for memory estimates).
    pub fn read_latency_buckets(&self) -> usize {
        self.read_latency.buckets()
    }
}

/// Why a cache could not accept an access this cycle (seed 002 §IV; seed 004 §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum StallCause {
    /// No free MSHR entry.
    Mshr,
    /// The line's MSHR entry cannot merge more requests.
    MergeFull,
    /// No replaceable line in the set (all reserved).
    LineAlloc,
    /// The miss queue toward the next level is full.
    MissQueue,
    /// The reply/response queue is full (back-pressure from the reply network).
    Response,
    /// The data port is busy.
    DataPort,
    /// The access's L1 bank took an access this cycle already, or is full behind a refused
    /// one (`l1.latency_queue`; GPGPU-Sim's `BK_CONF`).
    Bank,
}

impl StallCause {
    pub const COUNT: usize = 7;
    pub const ALL: [StallCause; StallCause::COUNT] = [
        StallCause::Mshr,
        StallCause::MergeFull,
        StallCause::LineAlloc,
        StallCause::MissQueue,
        StallCause::Response,
        StallCause::DataPort,
        StallCause::Bank,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StallCause::Mshr => "mshr",
            StallCause::MergeFull => "merge_full",
            StallCause::LineAlloc => "line_alloc",
            StallCause::MissQueue => "miss_queue",
            StallCause::Response => "response",
            StallCause::DataPort => "data_port",
            StallCause::Bank => "bank",
        }
    }
}

counters! {
    /// Per cache (an L1D or an L2 slice).
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct CacheStats {
        /// Read lookups (a merged or stalled-then-retried access counts once).
        pub reads: u64,
        pub read_hits: u64,
        /// Reads that went below: allocated an MSHR, or bypassed the L1D.
        pub read_misses: u64,
        /// Reads merged into an MSHR.
        pub merged: u64,
        pub writes: u64,
        pub write_hits: u64,
        /// Valid lines evicted; dirty ones written back.
        pub evictions: u64,
        pub writebacks: u64,
        /// Cycles an access could not proceed, by cause (`StallCause as usize`).
        pub stalls: [u64; StallCause::COUNT],
        /// Prefetched lines (L2): installed; later hit by a demand (useful); arriving after a
        /// demand had already missed on the line (late); dropped as already present, or evicted
        /// without a demand hit (useless).
        pub prefetch_fills: u64,
        pub prefetch_useful: u64,
        pub prefetch_late: u64,
        pub prefetch_useless: u64,
    }
}

impl CacheStats {
    pub fn stall(&mut self, cause: StallCause) {
        self.stalls[cause as usize] += 1;
    }
}

/// MPLI bins of seed 004 Fig. 2.2: a load instruction with 0, 1, 2, 3–31 or ≥ 32 misses.
pub const MPLI_BINS: [&str; 5] = ["0", "1", "2", "3-31", "32"];

/// The [`MPLI_BINS`] index of a load with `misses` misses.
pub fn mpli_bin(misses: u32) -> usize {
    match misses {
        0..=2 => misses as usize,
        3..=31 => 3,
        _ => 4,
    }
}

counters! {
    /// Divergence-aware L1D metrics (seed 004 §2.1.1, §2.2.1, §3.2.1, §3.3.4, §4.3).
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct L1LoadStats {
        /// Read misses that went below (MSHR or bypass), by why the line was missing: never held
        /// before (cold), last evicted by the missing warp itself (intra-warp) or by another warp
        /// (inter-warp).
        pub misses_cold: u64,
        pub misses_intra_warp: u64,
        pub misses_inter_warp: u64,
        /// Load instructions per MPLI bin (misses = accesses that did not hit: misses, merges,
        /// bypasses), divergent (more than 2 requests) and coherent loads apart.
        pub mpli_divergent: [u64; 5],
        pub mpli_coherent: [u64; 5],
        /// Σ intra-warp concentration (accesses / distinct sets, seed 004 Eq. 3.1) in millionths,
        /// over loads of at least two accesses, and their number.
        pub concentration_ppm: u64,
        pub concentration_loads: u64,
        /// Accesses sent below without a line (DaCache's constrained-replacement bypass).
        pub bypassed: u64,
        /// Read accesses per set (for the balance metric).
        pub set_accesses: Vec<u64>,
    }
}

counters! {
    /// L1D lines by the GTO priority of the warp whose access inserted them (seed 004 §4.2.2:
    /// gauged insertion assumes a line's re-reference interval grows with that priority). Each
    /// vector has an entry per priority (0 = the oldest warp of its scheduler), sized at build
    /// time for the most warps a scheduler holds; `depth` has `ways` entries per priority.
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct ReuseStats {
        /// Lines inserted, and Σ the chain position (0 = MRU) each landed at.
        pub inserted: Vec<u64>,
        pub insert_position: Vec<u64>,
        /// First re-references (the first hit after insertion) by the line's chain position
        /// just before the hit, its stack distance under LRU: entry `prio × ways + position`.
        pub depth: Vec<u64>,
        /// Lines evicted by a replacement before any re-reference.
        pub never_reused: Vec<u64>,
        /// First re-references made by the warp whose access inserted the line (intra-warp
        /// reuse; the rest of `depth`'s are another warp's).
        pub self_hits: Vec<u64>,
    }
}

/// Kharbutli's balance of a cache's per-set access counts (seed 004 Eq. 3.2):
/// Σ b_j(b_j + 1)/2 ÷ [(m / 2n)(m + 2n − 1)]: 1 for the spread of uniformly random
/// addresses, below for a more even one, above for a concentrated one. 0 when nothing was
/// accessed.
pub fn balance(set_accesses: &[u64]) -> f64 {
    let n = set_accesses.len() as f64;
    let m: f64 = set_accesses.iter().map(|&b| b as f64).sum();
    if m == 0.0 {
        return 0.0;
    }
    let weights: f64 = set_accesses.iter().map(|&b| b as f64 * (b as f64 + 1.0) / 2.0).sum();
    weights / (m / (2.0 * n) * (m + 2.0 * n - 1.0))
}

counters! {
    /// Per-warp-load metrics of seed 000 (effective latency, latency divergence, spread).
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct LoadStats {
        /// Global/local loads completed.
        pub loads: u64,
        /// Σ requests after coalescing.
        pub requests: u64,
        /// Loads with more than one request.
        pub divergent: u64,
        /// Σ (last return − issue): the warp's effective memory latency.
        pub effective_latency: u64,
        /// Σ (last return − first return).
        pub latency_divergence: u64,
        /// Σ distinct DRAM channels / banks touched by the load's requests that reached DRAM.
        pub channels: u64,
        pub banks: u64,
        /// Loads with at least one request that reached DRAM.
        pub dram_loads: u64,
        /// Σ memory-occlusion time (seed 004 §2.3.2): cycles from issue until the LD/ST unit sent
        /// the load's last access, beyond one per access.
        pub occlusion_cycles: u64,
        /// The same split by coherent (≤ 2 requests) and divergent loads, with their L1D access
        /// time (issue → last data at the warp) for Fig. 2.6's shares.
        pub occlusion_coherent: u64,
        pub occlusion_divergent: u64,
        pub access_time_coherent: u64,
        pub access_time_divergent: u64,
        /// Σ latency of requests that hit in the L2 (creation → data at the warp), and their count
        /// (seed 002's L2-AHL).
        pub l2_hit_latency: u64,
        pub l2_hit_returns: u64,
        /// Warp-groups (a load's requests that reached one DRAM channel) and Σ their service
        /// times: first request into the controller → last request's data off the DRAM bus.
        pub warpgroups: u64,
        pub warpgroup_service: u64,
        /// Σ warp-groups' arrival spreads: first → last request into the controller (how long
        /// a warp-aware controller waits for a group to be complete).
        pub warpgroup_arrival: u64,
        /// Σ latency (creation → data at the warp) of requests that missed in L1, and their count.
        pub miss_latency: u64,
        pub miss_returns: u64,
    }
}

counters! {
    /// Per SM.
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct CoreStats {
        /// Warp instructions issued.
        pub instructions: u64,
        /// Thread instructions (active lanes) issued.
        pub thread_instructions: u64,
        pub mem_instructions: u64,
        pub stores: u64,
        pub shared_accesses: u64,
        /// Cycles with at least one resident warp.
        pub active_cycles: u64,
        /// Issue slots (one per scheduler per cycle) that issued / had no warps at all; the
        /// others found no warp that could issue (`stall_classes` splits them).
        pub issued: u64,
        pub idle: u64,
        /// Memory occlusion: loads that found fewer free MSHRs than they need.
        pub occlusions: u64,
        /// Cycles the LD/ST unit spent replaying, by cause (`StallCause as usize`).
        pub ldst_stalls: [u64; StallCause::COUNT],
        /// The LD/ST unit's cycles in seed 004's categories (§2.3.1, Fig. 5.5).
        pub ldst: LdstStats,
        /// Core cycles in which a scheduler issued; and those with resident warps in which none
        /// did, by `core::stall::StallClass as usize` (seed 002 §IV-A5, Fig. 7).
        pub issued_cycles: u64,
        pub stall_classes: [u64; 6],
        /// Core cycles in which every resident warp waited on memory (seed 003
        /// MemoryBlockCycles); with no resident warp while a kernel still runs (NoWarpCycles); in
        /// which the core issued nothing while a kernel runs (core inactive time, CINV).
        pub memory_block_cycles: u64,
        pub no_warp_cycles: u64,
        pub inactive_cycles: u64,
        /// Issue slots in which the scheduler's policy held at least one ready warp back
        /// (throttling, OAWS, MASCAR), and OAWS disqualifications (a warp newly held by Eq. 5.1).
        /// Group switches, CCWS victim-tag hits and MASCAR's saturated slots are kept by the
        /// policies themselves (`SchedStatus`, `LostLocality`).
        pub held_slots: u64,
        pub disqualifications: u64,
        /// Warp-scheduler occupancy by GTO priority (seed 004 §2.2.2, Fig. 2.3): entry r counts
        /// the issues, by every scheduler of the SM, of a warp whose GTO priority — its rank by
        /// age among its scheduler's resident warps, 0 = oldest, the priority DaCache and FCW
        /// read — was r. Sized at build time for the most warps a scheduler holds.
        pub issue_priority: Vec<u64>,
        pub loads: LoadStats,
        pub ctas: u64,
    }
}

counters! {
    /// LD/ST unit activity (seed 004 §2.3.1). Its busy cycles are derived: each one sent (or
    /// parked) an access of the head instruction, replayed a refused access (`CoreStats::
    /// ldst_stalls`), issued a shared-memory instruction, or handled MASCAR's parked accesses.
    #[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct LdstStats {
        /// Accesses of head instructions the L1 took (or MASCAR parked).
        pub accesses: u64,
        /// Of those, accesses after which the instruction had more to send (LDST_COAL: the unit
        /// stays busy with one divergent instruction).
        pub coal: u64,
        /// MASCAR: parked accesses the L1 took; cycles a parked access could not be sent
        /// (MASCAR_Replay), and those of them in which there was no head instruction either.
        pub replays: u64,
        pub mascar_replay: u64,
        pub idle_replays: u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_is_below_one_for_an_even_spread_and_grows_with_concentration() {
        // m = 64 accesses over n = 32 sets, two each: Σ 3 = 96 over (64/64)(64 + 63) = 127.
        assert!((balance(&[2; 32]) - 96.0 / 127.0).abs() < 1e-12);
        // All in one set: 64·65/2 = 2080 over 127.
        let mut one = [0u64; 32];
        one[0] = 64;
        assert!((balance(&one) - 2080.0 / 127.0).abs() < 1e-12);
        assert_eq!(balance(&[0; 4]), 0.0);
    }

    #[test]
    fn mpli_bins_of_fig_2_2() {
        let bins: Vec<usize> = [0, 1, 2, 3, 31, 32, 64].iter().map(|&m| mpli_bin(m)).collect();
        assert_eq!(bins, vec![0, 1, 2, 3, 3, 4, 4]);
    }
}
