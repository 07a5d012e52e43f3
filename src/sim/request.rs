//! A memory request: a plain value that moves through bounded queues, from the LD/ST unit
//! through L1, the crossbar, an L2 slice and a DRAM channel, and back.
//!
//! It carries its own timeline ([`ReqTrace`]), so the warp inspector can show where each
//! request of a divergent load went and when, and the metrics of seed 000 (effective latency,
//! latency divergence) fall out of the returned timelines.

use super::dram::mapping::DramLocation;

/// What the request does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AccessKind {
    /// A load's line (read; data returns to the SM).
    Load,
    /// A line the memory controller prefetched from an open row into the L2 (no waiter).
    Prefetch,
    /// An atomic ([`Space::Atomic`](crate::workload::instr::Space::Atomic)): passes the L1,
    /// is read at the L2, which leaves the line dirty, and its data returns to the SM.
    Atomic,
    /// A store's data (write-evict, no-write-allocate at L1; no reply).
    Store,
    /// An L2 eviction of a dirty line to DRAM (no reply).
    Writeback,
}

impl AccessKind {
    /// A load's or an atomic's request: its data returns to a warp's load.
    #[inline]
    pub fn is_load(self) -> bool {
        matches!(self, AccessKind::Load | AccessKind::Atomic)
    }

    /// Writes go to the DRAM write queue (the variants after the reads).
    #[inline]
    pub fn is_write(self) -> bool {
        self as u8 >= AccessKind::Store as u8
    }
}

/// How a cache level treated the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum CacheOutcome {
    /// Not looked up (yet).
    #[default]
    None,
    Hit,
    /// Allocated an MSHR and went below.
    Miss,
    /// Merged into an MSHR already waiting for the line.
    Merged,
    /// A write that needs no lookup result (write-evict / write-allocate).
    Write,
}

impl CacheOutcome {
    /// Every outcome, in declaration order (`ALL[o as usize] == o`).
    pub const ALL: [CacheOutcome; 5] = [
        CacheOutcome::None,
        CacheOutcome::Hit,
        CacheOutcome::Miss,
        CacheOutcome::Merged,
        CacheOutcome::Write,
    ];
}

/// Row-buffer outcome of the request's first DRAM command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum RowOutcome {
    #[default]
    None,
    /// The row was open: column command first.
    Hit,
    /// The bank was closed: ACT first.
    Miss,
    /// Another row was open: PRE, ACT, then the column command.
    Conflict,
}

/// Core-cycle timestamps of a request's journey (0 = did not happen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct ReqTrace {
    /// The LD/ST unit created it.
    pub created: u64,
    /// It left the L1 miss queue into the request network.
    pub icnt_in: u64,
    /// It reached the L2 slice's access queue.
    pub l2_in: u64,
    /// It entered the DRAM controller's queue.
    pub dram_in: u64,
    /// Its first DRAM command issued.
    pub dram_sched: u64,
    /// Its data finished on the DRAM bus.
    pub dram_done: u64,
    /// The L2 put its reply into the reply network.
    pub l2_out: u64,
    /// Its data reached the warp (or a write was retired).
    pub done: u64,
    pub l1: CacheOutcome,
    /// An L1 miss that went below without a line or an MSHR (DaCache's bypass, seed 004
    /// §4.2.3): only the accessed 32 B sectors travel and the reply goes straight to the warp.
    pub bypassed: bool,
    pub l2: CacheOutcome,
    pub row: RowOutcome,
}

/// Which warp-load a request belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    pub core: u16,
    /// Warp slot within the SM.
    pub warp: u16,
    pub pc: u32,
    /// Per-warp sequence number of the load instruction (identifies a warp-group).
    pub load_seq: u32,
    /// Slot of the load in the warp's outstanding-load table.
    pub load_slot: u8,
    /// Index of this request among the load's coalesced requests.
    pub index: u8,
    /// This is the load's last request to its memory controller through its L2 slice
    /// (seed 000 §IV-B: the SM tags the last request of a warp-group so the controller knows
    /// the group is complete; with one slice per channel this is exactly the paper's tag).
    /// Set only when the DRAM scheduler groups warps.
    pub last_to_channel: bool,
    /// The L2 slices of this request's channel (bit per slice) that carry requests of the
    /// same warp-load: the controller waits for a tag from each.
    pub group_slices: u8,
}

/// A memory request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemRequest {
    /// Unique, increasing id.
    pub id: u64,
    pub kind: AccessKind,
    /// Line-aligned byte address.
    pub addr: u64,
    /// Payload bytes: the line size for loads and write-backs, the accessed 32 B sectors for
    /// bypassing loads, the written bytes for stores.
    pub bytes: u32,
    /// Active lanes served by this request.
    pub lanes: u32,
    pub origin: Origin,
    pub loc: DramLocation,
    pub trace: ReqTrace,
}

impl MemRequest {
    /// Bytes of the packet carrying this request on the request network: a write's and an
    /// atomic's carry their data (GPGPU-Sim's `mem_fetch::get_num_flits`).
    pub fn request_packet_bytes(&self, header: u32) -> u32 {
        if self.kind.is_write() || self.kind == AccessKind::Atomic { header + self.bytes } else { header }
    }

    /// Bytes of the reply packet: the header and the requested data (none for a store's
    /// acknowledgement).
    pub fn reply_packet_bytes(&self, header: u32) -> u32 {
        header + self.bytes
    }

    /// A written store as its acknowledgement to its SM (`l2.write_acks`): GPGPU-Sim's
    /// `WRITE_ACK`, whose reply packet is the request's control bytes alone.
    pub fn into_ack(mut self) -> MemRequest {
        self.bytes = 0;
        self
    }
}
