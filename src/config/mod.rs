//! The machine description: serde structs for the RON config files in `sample-configs/`.
//!
//! Every knob of MECHANISMS.md §1, §2 and §5 is a key here. Defaults are the seed-000 machine
//! (Chatterjee et al., SC'14, Table II), which is also the embedded built-in config
//! (`sample-configs/gtx480-sc14.ron`; a test asserts the two agree).
//!
//! Loading goes file text → serde (syntax, unknown keys, wrong types; with line:column and key
//! path) → `--set` overrides (see [`overrides`]) → semantic validation (see [`validate`]), and
//! every failure is a [`ConfigError`] naming the file, position, key and what would be valid.

mod custom_mapping;
mod error;
pub mod gpgpusim;
pub mod locate;
pub mod names;
pub mod overrides;
mod validate;

pub use custom_mapping::CustomFields;
pub use error::{ConfigError, MAX_TEXT_BYTES, Origin, error_at_path, read_file, read_text};
pub use names::{
    AllocPolicy, CcwsAccess, CcwsPriority, Constrained, CoordinationKey, DramSchedulerName, IPOLY_SIZES,
    IdealMemory, IncompleteGroups, IndexName, IssueOrder, L1Write, MappingScheme, PartitionIndexing,
    ReplacementName, WarpSchedulerName,
};
pub use validate::{
    LINE_STATE_BYTES, MAX_CACHE_LINES, MAX_LATENCY, MAX_LOADS_PER_WARP, MAX_MSHR_ENTRIES, MAX_QUEUE, MAX_WAYS,
};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The built-in machine (seed 000, Table II), embedded in the binary.
pub const BUILTIN_CONFIG: &str = include_str!("../../sample-configs/gtx480-sc14.ron");
/// The file name shown for errors in the built-in config.
pub const BUILTIN_CONFIG_NAME: &str = "sample-configs/gtx480-sc14.ron (built-in)";

/// A whole machine.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Short name shown in reports.
    pub name: String,
    pub clocks: Clocks,
    pub core: CoreConfig,
    pub l1: L1Config,
    pub icnt: IcntConfig,
    pub l2: L2Config,
    pub dram: DramConfig,
    /// Idealized memories (seed 002 §III, seed 003 §3); all off by default.
    pub ideal: IdealConfig,
    pub sim: SimConfig,
    pub debug: DebugConfig,
}

/// Clock domains (MECHANISMS §1). The debugger's "cycle" is a core cycle; the other domains
/// tick on their own edges, computed exactly from these frequencies.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Clocks {
    /// SM clock (MHz).
    pub core_mhz: f64,
    /// Interconnect and L2 clock (MHz).
    pub icnt_mhz: f64,
    /// DRAM command clock (MHz); tCK = 1000 / dram_mhz ns.
    pub dram_mhz: f64,
}

/// Streaming multiprocessors (MECHANISMS §1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CoreConfig {
    /// Number of SMs.
    pub count: u32,
    /// Maximum resident threads per SM (warps = threads / 32, at most 64).
    pub max_threads: u32,
    /// Maximum resident CTAs per SM.
    pub max_ctas: u32,
    /// Registers per SM that resident CTAs share (GPGPU-Sim's `-gpgpu_shader_registers`), or
    /// `None`: registers do not limit residency. As in GPGPU-Sim's `shader_core_config::
    /// max_cta`, a CTA takes its threads padded to whole warps × its kernel's registers per
    /// thread (`-nregs`) rounded up to a multiple of 4; a kernel naming no registers takes none.
    pub registers: Option<u32>,
    /// Shared memory per SM that resident CTAs share, bytes (`-gpgpu_shmem_size`), or `None`:
    /// shared memory does not limit residency. A CTA takes its kernel's declared shared memory
    /// (`-shmem`).
    pub shared_bytes: Option<u32>,
    /// A kernel whose CTA needs more registers or shared memory than an SM has runs one CTA per
    /// SM (`-gpgpu_ignore_resources_limitation 1`) instead of being refused.
    pub ignore_resource_limits: bool,
    /// Warp schedulers per SM; warps are split between them by warp slot (even/odd for 2).
    pub warp_schedulers: u32,
    /// Warp scheduling policy.
    pub warp_scheduler: WarpSchedulerName,
    /// Which scheduler offers first each cycle (`"rotate"`, GPGPU-Sim's, or
    /// `"ldst-round-robin"`).
    pub issue_order: IssueOrder,
    /// Cycles until an ALU result can be consumed by a dependent instruction.
    pub alu_latency: u32,
    /// SIMD lanes per ALU; a warp instruction occupies the ALU for 32 / simd_width cycles.
    pub simd_width: u32,
    /// Memory instructions that can wait in front of the LD/ST unit (seed 002 "memory pipeline
    /// width"); with `sub_core`, per warp scheduler.
    pub mem_pipeline_width: u32,
    /// GPGPU-Sim's sub-core model (`-gpgpu_sub_core_model 1`): each warp scheduler has its own
    /// `mem_pipeline_width` places in front of the LD/ST unit instead of all sharing them, and
    /// the unit takes the oldest instruction issued (`ldst_unit::issue` takes
    /// `register_set::get_ready`, the lowest instruction id), so the schedulers are served in
    /// turn whatever the rotation of the first to offer.
    pub sub_core: bool,
    /// Loads a warp may have outstanding before it stalls.
    pub max_loads_per_warp: u32,
    /// Reply packets from the interconnect buffered at the SM before the L1 fills them, one a
    /// cycle; its room is the reply network's credit toward the SM. GPGPU-Sim's cluster
    /// response FIFO (`-gpgpu_n_cluster_ejection_buffer_size`, 8 by default).
    pub reply_queue: u32,
    /// Latency of a shared-memory access (cycles).
    pub shared_latency: u32,
    /// Core cycles from a kernel's launch (cycle 0, or the end of the kernel before it) to
    /// its first CTA; GPGPU-Sim's `-gpgpu_kernel_launch_latency`.
    pub kernel_launch_latency: u32,
    /// Further core cycles per CTA of the kernel before its first CTA (GPGPU-Sim's
    /// `-gpgpu_TB_launch_latency`: the kernel waits latency + CTAs × this, `m_kernel_TB_latency`).
    pub cta_launch_latency: u32,
    /// Two-level scheduler parameters.
    pub two_level: TwoLevelConfig,
    /// OWL CTA-aware schedulers' parameters (`cta-aware`, `cta-locality`, `cta-locality-blp`).
    pub owl: OwlConfig,
    /// Static warp limiting parameters.
    pub swl: SwlConfig,
    /// CCWS parameters.
    pub ccws: CcwsConfig,
    /// MASCAR parameters.
    pub mascar: MascarConfig,
    /// OAWS parameters (`oaws-static`, `fcw-only`, `oaws-dyn`).
    pub oaws: OawsConfig,
    /// Oracle (seed 000 Fig. 4): every load makes exactly one memory request (the line of its
    /// first active lane serves every lane).
    pub perfect_coalescing: bool,
    /// Oracle (seed 000 Fig. 4): once a load's first request returns, the rest count as
    /// returned one per cycle after it; the requests still travel and use the DRAM bus.
    pub zero_latency_divergence: bool,
}

/// Two-level warp scheduling (Narasiman et al., MICRO'11; seed 003 §6): each scheduler's
/// warps form fixed fetch groups; one group runs round-robin until none of its warps can
/// issue, then the next group does.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TwoLevelConfig {
    /// Warps per fetch group.
    pub group_size: u32,
}

/// OWL CTA-aware warp scheduling (seed 003 §4.1–4.3, Algorithm 1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OwlConfig {
    /// g_size: minimum warps per CTA group (the paper's best is 8; it first used 5, the
    /// pipeline depth).
    pub min_group_size: u32,
}

/// Static warp limiting (Rogers et al.; seed 004 §5.5.1, Table 5.3).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SwlConfig {
    /// Warps each scheduler may issue from: its oldest `warp_limit` warps.
    pub warp_limit: u32,
}

/// Cache-conscious wavefront scheduling (Rogers et al.; seed 004 Table 5.3).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CcwsConfig {
    /// Victim tag array entries per warp.
    pub vta_entries: u32,
    /// Its associativity (entries / ways sets).
    pub vta_ways: u32,
    /// Score every warp starts at and decays back to (one point per cycle).
    pub base_score: u32,
    /// Gain of the score increase on a victim-tag hit.
    pub k_throttle: u32,
    /// Which allowed warp issues first.
    pub priority: CcwsPriority,
    /// Which warps may issue loads while scores stack above the cutoff.
    pub access: CcwsAccess,
}

/// MASCAR (Sethia et al., HPCA'15; seed 004 §5.5.1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MascarConfig {
    /// Entries of the re-execution queue that parks L1 accesses refused for lack of an MSHR
    /// or memory-port slot.
    ///
    /// What it costs an L1-capacity-bound workload (kmeans-like on fermi-30sm: each warp
    /// reuses 34 lines, a 32 KB L1 holds 256): parked misses no longer block the LD/ST unit,
    /// so the loads of more warps reach the L1 and more warps run at once — on SM 0 at cycle
    /// 50,000 none had finished and 10 warps had issued 42–224 instructions each, while GTO
    /// had finished 6 and was running three (366–449 issued) — and their lines no longer
    /// fit. Measured over the whole run: 32 entries 733,650 cycles, L1 hit rate 80.9 %,
    /// 992,013 inter-warp misses; 8 entries 382,941; 2 entries 369,431; 1 entry 193,837 and
    /// 99.4 % (GTO 194,381 and 99.3 %). The scheduler half is not the cause: with 32 entries and MASCAR's
    /// scheduler reduced to greedy-then-oldest (no owner, no memory-first order) the run
    /// takes 1,073,852 cycles. With a 64 KB L1 (16 ways) MASCAR takes 192,211 cycles against
    /// GTO's 194,570.
    pub reexec_queue: u32,
    /// Memory counts as saturated when at most this many MSHRs or miss-queue slots are free.
    pub saturation_free: u32,
}

/// Memory-occlusion-aware warp scheduling (seed 004 ch. 5).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OawsConfig {
    /// SMR of static OAWS, in percent of the active lanes (§5.3; 50 is the paper's best).
    pub smr_percent: u32,
    /// Entries of the divergent load classifier (§5.4.3).
    pub dlc_entries: u32,
}

/// Idealized memories as switches (seed 002 §III and Fig. 3; seed 003 §3 PMEM, §5.1 Perfect-L2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct IdealConfig {
    /// PMEM: every global/local access hits in the L1 (nothing leaves the SM).
    pub perfect_l1: bool,
    /// Every access that reaches an L2 slice hits (nothing reaches DRAM).
    pub perfect_l2: bool,
    /// What serves L1 misses.
    pub memory: IdealMemory,
    /// `infinite-bandwidth`: core cycles from L1 miss to data for an L2 hit.
    pub l2_latency: u32,
    /// `infinite-bandwidth` / `infinite-dram`: extra core cycles for an L2 miss.
    pub dram_latency: u32,
    /// `fixed-latency`: core cycles from L1 miss to data, for every miss (0 allowed: seed 002
    /// Fig. 3's axis starts there).
    pub miss_latency: u32,
}

/// Per-SM L1 data cache (MECHANISMS §1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct L1Config {
    pub sets: u32,
    pub ways: u32,
    pub line_bytes: u32,
    /// MSHR entries (distinct missing lines in flight).
    pub mshr_entries: u32,
    /// Requests that can merge into one MSHR entry.
    pub mshr_merge: u32,
    /// Misses waiting to enter the interconnect.
    pub miss_queue: u32,
    /// Hit latency (core cycles).
    pub hit_latency: u32,
    /// Every access waits `hit_latency` in its bank's latency queue before its tag lookup, so
    /// misses and stores too leave that much later, and an access the lookup refuses holds up
    /// only its bank (GPGPU-Sim 4's L1 latency queues, `-gpgpu_l1_latency`; `sim::l1_banks`);
    /// false: the lookup is at once and a hit returns after `hit_latency`.
    pub latency_queue: bool,
    /// Banks of the L1 with a latency queue (`-gpgpu_l1_banks`): up to this many accesses
    /// enter it per cycle, one per bank.
    pub banks: u32,
    /// Bytes of consecutive addresses in one bank before the next
    /// (`-gpgpu_l1_banks_byte_interleaving`).
    pub bank_bytes: u32,
    /// Loads skip the L1 (GPGPU-Sim's `-gpgpu_gmem_skip_L1D`, `ldst_unit::memory_cycle`): one
    /// access a cycle goes below with no lookup, line or MSHR, as its sectors, and its reply
    /// passes through to the registers; the L1 counts neither as an access.
    pub skip_global: bool,
    pub allocate: AllocPolicy,
    /// Set-index function (seed 004 ch. 3); some need a particular set count.
    pub index: IndexName,
    /// Replacement policy (seed 004 ch. 4).
    pub replacement: ReplacementName,
    /// DaCache's knobs, used when `replacement` is `"dacache"`.
    pub dacache: DacacheConfig,
    /// Sectored lines (GPGPU-Sim's `S` caches, `-gpgpu_cache:dl1 S:…`): the coalescer makes one
    /// request per 32-byte sector a warp touches, and each sector of a line is valid, missed,
    /// held in an MSHR and fetched on its own (`sim::cache::sectors`).
    pub sectored: bool,
    /// A read merging into the MSHR entry of a pending miss counts as an access of its reserved
    /// line for the replacement policy, so the line becomes the most recently used, as in
    /// GPGPU-Sim (`baseline_cache::send_read_request` looks the line up on an MSHR hit, finds it
    /// `HIT_RESERVED` and sets its last access time). False: only hits and misses touch lines.
    pub touch_on_merge: bool,
    /// What a store does: `"evict"` (write-evict, no write-allocate) or `"through"`
    /// (write-through; a hit keeps the line, a miss that writes the whole line allocates it).
    pub write: L1Write,
    /// Percent of the L1's lines that may be written (by `"through"` stores) before a written
    /// line may be replaced (GPGPU-Sim's `-gpgpu_l1_cache_write_ratio`, `tag_array::probe`):
    /// below it, only lines no store wrote are replacement candidates. 0: every line is.
    pub write_ratio: u32,
    /// The L1 and shared memory split one array, sized per kernel (GPGPU-Sim's adaptive cache);
    /// `None`: the L1 keeps `sets × ways`.
    pub adaptive: Option<AdaptiveL1>,
    /// Invalidate the L1 whenever no thread is resident on the SM (GPGPU-Sim's
    /// `-gpgpu_flush_l1_cache`).
    pub flush_when_idle: bool,
}

/// The unified L1/shared-memory array of Volta and later (GPGPU-Sim's
/// `-gpgpu_adaptive_cache_config 1`, `shader_core_config::max_cta`): when a kernel starts,
/// the shared memory its resident CTAs need is rounded up to the smallest carve-out of
/// `shared_options_kb` that holds it, and the L1 gets the rest of `unified_kb` as ways —
/// `round(max_ways × (1 − carve-out / unified_kb))`, `max_ways` being `l1.ways × unified_kb /
/// (l1.sets × l1.ways × l1.line_bytes / 1024)`; the set count stays.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AdaptiveL1 {
    /// Size of the unified array, KB (`-gpgpu_unified_l1d_size`).
    pub unified_kb: u32,
    /// Shared-memory carve-outs, KB (`-gpgpu_shmem_option`).
    pub shared_options_kb: Vec<u32>,
}

/// DaCache (seed 004 ch. 4, MECHANISMS §8).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DacacheConfig {
    /// Positions a hit moves a line toward MRU (§4.2.2 incremental promotion; the seed's best
    /// is 4). A value ≥ l1.ways promotes to MRU.
    pub promotion: u32,
    /// What a miss does when the thrashing region has no replaceable line (§4.2.3).
    pub constrained: Constrained,
    /// Split of the ways into locality and thrashing regions (§4.2.3, §4.2.4).
    pub partition: Partition,
    /// Divergent loads with at most this many requests are inserted at MRU (§4.2.2: 5).
    pub mru_requests: u32,
    /// Entries of the victim cache that detects coherent-load locality (16).
    pub victim_cache: u32,
    /// Entries of the coherent-load profiler (32).
    pub profiler: u32,
}

/// How DaCache sizes its locality region.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub enum Partition {
    /// From the fully-cached-warp count trained on divergent loads (§4.2.4).
    Dynamic,
    /// p = Assoc · F / (Width / N_set) − 1 with this F in [0, 1] (§4.2.3).
    Static(f64),
}

impl Default for DacacheConfig {
    fn default() -> Self {
        DacacheConfig {
            promotion: 4,
            constrained: Constrained::Bypass,
            partition: Partition::Dynamic,
            mru_requests: 5,
            victim_cache: 16,
            profiler: 32,
        }
    }
}

/// Crossbar between SMs and memory partitions (MECHANISMS §1, seed 002 Table III).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct IcntConfig {
    /// Flit width of the request network (SM → L2), bytes.
    pub request_flit_bytes: u32,
    /// Flit width of the reply network (L2 → SM), bytes.
    pub reply_flit_bytes: u32,
    /// Pipeline latency of a traversal (interconnect cycles), added to the flit serialization.
    pub latency: u32,
    /// Header bytes of every packet (a read request is only a header).
    pub header_bytes: u32,
    /// Packets each node's output port holds beyond its destination queue (GPGPU-Sim's
    /// `LocalInterconnect` out buffers, `-icnt_out_buffer_limit`): arrivals wait there in
    /// order while the queue is full, and senders stop only when it is full too. 0: none,
    /// a full destination queue stops its senders at once.
    pub out_buffer: u32,
    /// Flits each input port holds of the packets its sender injected and the crossbar has not
    /// granted (GPGPU-Sim's local crossbar in_buffers, `-icnt_in_buffer_limit`; BookSim's
    /// injection queues, `input_buffer_size`). A sender moves its head packet in, one a
    /// cycle, when all its flits fit, so a sender's queue fills only when its buffer is full.
    /// 0: none, the crossbar takes packets straight from the senders' queues.
    pub in_buffer: u32,
}

/// L2 slices, one or more per memory channel (MECHANISMS §1, seed 002 Table III).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct L2Config {
    /// L2 slices (banks) per memory channel.
    pub slices_per_channel: u32,
    /// Sets per slice.
    pub sets: u32,
    pub ways: u32,
    pub line_bytes: u32,
    pub mshr_entries: u32,
    pub mshr_merge: u32,
    /// Requests from the interconnect waiting for a tag lookup.
    pub access_queue: u32,
    /// Misses and write-backs waiting to enter the memory controller.
    pub miss_queue: u32,
    /// Replies waiting to enter the reply network.
    pub response_queue: u32,
    /// Bytes the data array moves per L2 cycle.
    pub data_port_bytes: u32,
    /// Tag + data pipeline latency (L2 cycles): what a hit waits after its lookup.
    pub latency: u32,
    /// Every access, hit, miss or store, waits `latency` before its tag lookup instead, and a
    /// hit then responds at once: an unloaded hit takes as long as without, a miss leaves for
    /// the DRAM `latency` later (GPGPU-Sim's ROP queue, `-gpgpu_l2_rop_latency`, which every
    /// non-texture request waits out before the L2; seed 002 §II's L2 "access latency of
    /// around 120 cycles" before "an additional access latency of around 100 cycles" to
    /// off-chip memory). False: misses and stores are looked up at once.
    pub latency_queue: bool,
    /// Set-index function over the slice's lines.
    pub index: IndexName,
    /// Sectored lines, as `l1.sectored` (`-gpgpu_cache:dl2 S:…`): a sector miss fetches only its
    /// 32 bytes from DRAM. Needs a sectored L1, whose requests are single sectors.
    pub sectored: bool,
    /// As `l1.touch_on_merge`, for the slice's MSHRs (GPGPU-Sim's L2 is the same
    /// `baseline_cache`).
    pub touch_on_merge: bool,
    /// The slice answers every store it writes with a header-only reply to its SM, and a warp
    /// is done only when its stores are answered: GPGPU-Sim's `WRITE_ACK` (the L2 sends it
    /// back like a read's data; `shader_core_ctx::store_ack` counts it off, and
    /// `shd_warp_t::hardware_done` waits for `stores_done`). False: a store retires at the L2.
    /// The ideal memories below the L1 answer a store after their short latency instead
    /// ([`crate::sim::ideal`]).
    pub write_acks: bool,
    /// Replacement policy (LRU, DIP or RRIP; DaCache needs warps and is L1-only).
    pub replacement: ReplacementName,
}

/// GDDR5 channels and their memory controllers (MECHANISMS §2).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DramConfig {
    pub channels: u32,
    /// Banks per channel (one rank).
    pub banks: u32,
    /// Bank groups; bank b is in group b mod bank_groups.
    pub bank_groups: u32,
    /// Data bus width of the channel (bits), all chips of the rank together.
    pub bus_bits: u32,
    /// Beats per burst; bytes per column access = bus_bits / 8 · burst_length.
    pub burst_length: u32,
    /// Row (page) size across the rank, bytes.
    pub row_bytes: u32,
    /// Rows per bank.
    pub rows: u32,
    pub timing: DramTiming,
    pub read_queue: u32,
    pub write_queue: u32,
    /// Start draining writes above this write-queue occupancy...
    pub write_high_watermark: u32,
    /// ...and stop at this one.
    pub write_low_watermark: u32,
    pub scheduler: DramSchedulerName,
    /// Core cycles a request from the L2 waits before it enters the controller's queue
    /// (GPGPU-Sim's `-dram_latency`: its DRAM latency queue); 0 = none.
    pub frontend_latency: u32,
    /// GPGPU-Sim's DRAM return queue (`-gpgpu_dram_return_queue_size`), which with the read
    /// queue bounds the requests a channel's L2 slices may have between their miss queues and
    /// their replies (`sim::dram::credits`); 0 = no bound.
    pub return_queue: u32,
    /// FR-FCFS-Cap: column commands an open row may serve ahead of older requests.
    pub row_hit_cap: u32,
    /// Separate row and column command buses (HBM; GPGPU-Sim's `-dram_dual_bus_interface 1`):
    /// a cycle can issue an ACT or PRE and a RD or WR; false: one command per cycle.
    pub dual_bus: bool,
    /// GMC's transaction and command scheduling (also the command queues and write sorting
    /// of the warp-aware schedulers).
    pub gmc: GmcConfig,
    /// Warp-group scheduling (WG, WG-M, WG-Bw, WG-W, WAFCFS).
    pub warp_aware: WarpAwareConfig,
    /// WG-M's network between the controllers.
    pub coordination: CoordinationConfig,
    /// α-SJF / α-SJFW.
    pub alpha_sjf: AlphaSjfConfig,
    /// Opportunistic prefetching of open rows into the L2 (any scheduler).
    pub prefetch: PrefetchConfig,
    pub mapping: MappingConfig,
    /// All-bank refresh; `None` disables refresh (the seeds do not model it).
    pub refresh: Option<Refresh>,
}

/// The baseline GPU memory controller (seed 000 §II-C, Fig. 1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct GmcConfig {
    /// Requests a bank's command queue holds before the transaction scheduler stops placing
    /// work there.
    pub cmd_queue_depth: u32,
    /// DRAM cycles after which a waiting request is placed before row hits (no starvation).
    /// GMC applies it to reads and writes; the warp-aware schedulers only to writes, which
    /// they place with GMC's row sorter (their warp sorter, seed 000 §IV-B, has no age rule).
    pub age_threshold: u64,
    /// Requests of one row placed back to back before another row of the bank gets a turn.
    pub max_row_hit_streak: u32,
}

/// Warp-group scheduling (seed 000 §IV).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct WarpAwareConfig {
    /// DRAM cycles without arrivals after which an incomplete warp-group is scheduled anyway
    /// (a safety net; tags normally complete groups).
    pub incomplete_timeout: u64,
    /// When a group may be placed before its tags complete it (see [`IncompleteGroups`]).
    pub incomplete: IncompleteGroups,
    /// WG-W: prefer single-request groups once the write queue is within this many entries
    /// of its high watermark (seed 000 §IV-E: 8).
    pub write_window: u32,
}

/// WG-M's all-to-all network between controllers (seed 000 §IV-C).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CoordinationConfig {
    /// DRAM cycles from a message's last flit leaving to its arrival.
    pub latency: u32,
    /// Width of each link (16 bits: 30 links for 6 controllers).
    pub link_bits: u32,
    /// Size of a message ⟨SM, warp, score⟩ (32 bits).
    pub message_bits: u32,
    /// Messages a link holds (waiting or in flight) before it drops new ones.
    pub link_queue: u32,
    /// Which local warp-groups a message names (see [`CoordinationKey`]).
    pub names: CoordinationKey,
}

/// α-SJF (seed 001).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AlphaSjfConfig {
    /// 0 < α ≤ 1: toward 0 shortest-job-first, 1 FR-FCFS-like (paper: 0.25, 0.5, 0.75).
    pub alpha: f64,
    /// m: row-miss over row-hit service time (GDDR5: 3).
    pub miss_penalty: f64,
    /// Seed 001 §III's tolerance-aware core selection: each bank first picks the core with
    /// the least tolerance and chooses among that core's warp queues only. `false` chooses
    /// among every core's warp queues, the variant §V names ("If α-SJF is implemented without
    /// the core-selection step, then it produces the same results as FR-FCFS for α = 1.0");
    /// a cause check, not the paper's α-SJF.
    pub core_selection: bool,
}

/// Opportunistic memory-side prefetching (seed 003 §4.4): when no demand is left for a bank's
/// open row, read its not-yet-fetched lines into the L2 slice.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PrefetchConfig {
    pub enabled: bool,
    /// Lines prefetched from a row at least, even once a demand to another row waits...
    pub lower: u32,
    /// ...or this many while fewer than `threshold` demands are pending at the controller.
    pub higher: u32,
    /// The pending-demand threshold; `None`: the controller's average queue length so far.
    pub threshold: Option<u32>,
}

/// A DRAM timing value, in nanoseconds or in command-clock cycles (tCK).
/// Converted once to cycles, rounding up.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub enum Time {
    Ns(f64),
    Ck(u32),
}

impl Time {
    /// Cycles of a clock with period `tck_ns`, rounded up.
    pub fn cycles(self, tck_ns: f64) -> u32 {
        match self {
            Time::Ck(c) => c,
            // The epsilon keeps 12 ns at tCK = 0.6667 ns (17.99...) from becoming 19 by
            // floating-point noise while still rounding 17.4 up to 18.
            Time::Ns(ns) => ((ns / tck_ns) - 1e-6).ceil().max(0.0) as u32,
        }
    }

    /// Nanoseconds, a count of cycles of period `tck_ns` taken whole (no rounding).
    pub fn ns(self, tck_ns: f64) -> f64 {
        match self {
            Time::Ns(ns) => ns,
            Time::Ck(c) => f64::from(c) * tck_ns,
        }
    }
}

/// GDDR5 timing constraints (MECHANISMS §2; seed 000 Table II).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DramTiming {
    /// ACT → ACT, same bank.
    pub t_rc: Time,
    /// ACT → RD/WR, same bank.
    pub t_rcd: Time,
    /// PRE → ACT, same bank.
    pub t_rp: Time,
    /// RD → first data beat (CL).
    pub t_cas: Time,
    /// ACT → PRE, same bank.
    pub t_ras: Time,
    /// ACT → ACT, different banks.
    pub t_rrd: Time,
    /// End of write data → RD.
    pub t_wtr: Time,
    /// Window holding at most four ACTs.
    pub t_faw: Time,
    /// WR → first data beat.
    pub t_wl: Time,
    /// RD → PRE, same bank.
    pub t_rtp: Time,
    /// RD → PRE, any bank of the read's bank group (GPGPU-Sim's tRTPL, which a read sets on
    /// its group, `bkgrp[]->RTPLc`, and every precharge in the group waits out). `Ck(0)`: no
    /// group-wide rule, only `t_rtp`.
    pub t_rtpl: Time,
    /// Data-bus time of one burst.
    pub t_burst: Time,
    /// Bus turnaround (read → write data).
    pub t_rtrs: Time,
    /// CAS → CAS, same bank group.
    pub t_ccdl: Time,
    /// CAS → CAS, different bank groups.
    pub t_ccds: Time,
    /// End of write data → PRE (write recovery).
    pub t_wr: Time,
}

/// All-bank refresh parameters.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Refresh {
    /// Average interval between REF commands.
    pub t_refi: Time,
    /// REF → next ACT.
    pub t_rfc: Time,
}

impl Default for Refresh {
    fn default() -> Self {
        Refresh { t_refi: Time::Ns(3900.0), t_rfc: Time::Ns(110.0) }
    }
}

/// Physical address → (channel, bank, row, column) (seed 000 §II-C).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MappingConfig {
    pub scheme: MappingScheme,
    /// Bytes of consecutive addresses kept in one channel before moving to the next.
    pub interleave_bytes: u32,
    /// For `custom`: one letter per address bit, most significant first: `R` row, `B` bank,
    /// `C` column, `H` channel, `S` byte within a burst, `0` ignored; `.` and `_` are spacers.
    pub custom: String,
    /// For `custom`, optional: the channel is `(addr >> channel_bit) mod channels` (any
    /// channel count), and `custom` (then without `H` bits) describes the address with the
    /// channel taken out — the quotient put back above bit `channel_bit`. This is GPGPU-Sim's
    /// `-gpgpu_mem_addr_mapping dramid@N;...` address decoding.
    pub channel_bit: Option<u32>,
    /// How lines are spread over the memory partitions and their L2 slices: `"consecutive"`
    /// (as the scheme says); for a `custom` mapping with `channel_bit`, `"ipoly"` (GPGPU-Sim's
    /// `-gpgpu_memory_partition_indexing 2`: the slice is numbered channel × slices_per_channel
    /// plus the lowest bank bits and then IPOLY-hashed with the address bits above them) or
    /// `"random"` (`-gpgpu_memory_partition_indexing 4`: each chunk of the address just below
    /// the channel bits, 128 bytes with `dramid@8` and two slices, goes to a sub-partition drawn
    /// uniformly; bank, row and column stay as decoded). See `sim::dram::mapping`.
    pub partition_indexing: PartitionIndexing,
}

/// The debugger's time travel and event log.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DebugConfig {
    /// Core cycles between time-travel snapshots (doubles when the budget fills).
    pub snapshot_interval: u64,
    /// Memory for time-travel snapshots, in MiB.
    pub snapshot_budget_mb: u64,
    /// Events kept in the event log.
    pub event_log: u32,
}

impl Default for DebugConfig {
    fn default() -> Self {
        DebugConfig { snapshot_interval: 5000, snapshot_budget_mb: 512, event_log: 5000 }
    }
}

/// Simulation control.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Seed mixed into every workload random choice.
    pub seed: u64,
    /// Stop with a diagnosis when nothing moves for this many core cycles.
    pub watchdog_cycles: u64,
    /// Stop after this many core cycles (0 = run to completion).
    pub max_cycles: u64,
    /// Stop at the end of the first core cycle by which this many thread instructions have
    /// issued (0 = no limit): GPGPU-Sim's `-gpgpu_max_insn`, which counts each warp
    /// instruction by its active threads, and the cap of seeds 000 (§V: "1 billion
    /// instructions or to completion, whichever is earlier") and 003 (§4). We count at issue
    /// where GPGPU-Sim counts at completion; the two differ by the instructions in flight.
    pub max_instructions: u64,
    /// Step every unit in every cycle: no idle skipping (issue 16). Results are the same
    /// either way (tests check it); only speed differs. For those checks and for doubt.
    pub no_skip: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            name: "gtx480-sc14".into(),
            clocks: Clocks::default(),
            core: CoreConfig::default(),
            l1: L1Config::default(),
            icnt: IcntConfig::default(),
            l2: L2Config::default(),
            dram: DramConfig::default(),
            ideal: IdealConfig::default(),
            sim: SimConfig::default(),
            debug: DebugConfig::default(),
        }
    }
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks { core_mhz: 1400.0, icnt_mhz: 700.0, dram_mhz: 1500.0 }
    }
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            count: 30,
            max_threads: 1024,
            max_ctas: 8,
            registers: None,
            shared_bytes: None,
            ignore_resource_limits: false,
            warp_schedulers: 2,
            warp_scheduler: WarpSchedulerName::Gto,
            issue_order: IssueOrder::Rotate,
            alu_latency: 8,
            simd_width: 32,
            mem_pipeline_width: 2,
            sub_core: false,
            max_loads_per_warp: 4,
            reply_queue: 8,
            shared_latency: 24,
            kernel_launch_latency: 0,
            cta_launch_latency: 0,
            two_level: TwoLevelConfig::default(),
            owl: OwlConfig::default(),
            swl: SwlConfig::default(),
            ccws: CcwsConfig::default(),
            mascar: MascarConfig::default(),
            oaws: OawsConfig::default(),
            perfect_coalescing: false,
            zero_latency_divergence: false,
        }
    }
}

impl Default for TwoLevelConfig {
    fn default() -> Self {
        TwoLevelConfig { group_size: 8 }
    }
}

impl Default for OwlConfig {
    fn default() -> Self {
        OwlConfig { min_group_size: 8 }
    }
}

impl Default for SwlConfig {
    /// Table 5.3's most common SWL-Best value.
    fn default() -> Self {
        SwlConfig { warp_limit: 2 }
    }
}

impl Default for CcwsConfig {
    /// Table 5.3: 16-entry 8-way VTA per warp, base score 100, K_THROTTLE 8.
    fn default() -> Self {
        CcwsConfig {
            vta_entries: 16,
            vta_ways: 8,
            base_score: 100,
            k_throttle: 8,
            priority: CcwsPriority::Gto,
            access: CcwsAccess::Cutoff,
        }
    }
}

impl Default for MascarConfig {
    /// §5.5.1: a 32-entry re-execution queue; saturation = one free MSHR or port slot.
    fn default() -> Self {
        MascarConfig { reexec_queue: 32, saturation_free: 1 }
    }
}

impl Default for OawsConfig {
    fn default() -> Self {
        OawsConfig { smr_percent: 50, dlc_entries: 32 }
    }
}

impl Default for IdealConfig {
    /// Seed 002 §II-A: 120 core cycles to the L2, another 100 to DRAM.
    fn default() -> Self {
        IdealConfig {
            perfect_l1: false,
            perfect_l2: false,
            memory: IdealMemory::Real,
            l2_latency: 120,
            dram_latency: 100,
            miss_latency: 200,
        }
    }
}

impl Default for L1Config {
    fn default() -> Self {
        L1Config {
            sets: 32,
            ways: 8,
            line_bytes: 128,
            mshr_entries: 32,
            mshr_merge: 8,
            miss_queue: 8,
            hit_latency: 20,
            latency_queue: false,
            banks: 1,
            bank_bytes: 32,
            skip_global: false,
            allocate: AllocPolicy::OnMiss,
            index: IndexName::Conv,
            replacement: ReplacementName::Lru,
            dacache: DacacheConfig::default(),
            sectored: false,
            touch_on_merge: true,
            write: L1Write::Evict,
            write_ratio: 0,
            adaptive: None,
            flush_when_idle: false,
        }
    }
}

impl Default for IcntConfig {
    fn default() -> Self {
        IcntConfig {
            request_flit_bytes: 32,
            reply_flit_bytes: 32,
            latency: 8,
            header_bytes: 8,
            out_buffer: 0,
            in_buffer: 0,
        }
    }
}

impl Default for L2Config {
    fn default() -> Self {
        L2Config {
            slices_per_channel: 2,
            sets: 32,
            ways: 16,
            line_bytes: 128,
            mshr_entries: 32,
            mshr_merge: 8,
            access_queue: 8,
            miss_queue: 8,
            response_queue: 8,
            data_port_bytes: 32,
            latency: 30,
            latency_queue: false,
            index: IndexName::Conv,
            sectored: false,
            touch_on_merge: true,
            write_acks: true,
            replacement: ReplacementName::Lru,
        }
    }
}

impl Default for DramConfig {
    fn default() -> Self {
        DramConfig {
            channels: 6,
            banks: 16,
            bank_groups: 4,
            bus_bits: 64,
            burst_length: 8,
            row_bytes: 4096,
            rows: 8192,
            timing: DramTiming::default(),
            read_queue: 64,
            write_queue: 64,
            write_high_watermark: 32,
            write_low_watermark: 16,
            scheduler: DramSchedulerName::FrFcfs,
            frontend_latency: 0,
            return_queue: 0,
            row_hit_cap: 16,
            dual_bus: false,
            gmc: GmcConfig::default(),
            warp_aware: WarpAwareConfig::default(),
            coordination: CoordinationConfig::default(),
            alpha_sjf: AlphaSjfConfig::default(),
            prefetch: PrefetchConfig::default(),
            mapping: MappingConfig::default(),
            refresh: None,
        }
    }
}

impl Default for GmcConfig {
    fn default() -> Self {
        GmcConfig { cmd_queue_depth: 1, age_threshold: 1000, max_row_hit_streak: 16 }
    }
}

impl Default for WarpAwareConfig {
    fn default() -> Self {
        WarpAwareConfig { incomplete_timeout: 1500, incomplete: IncompleteGroups::IdleBanks, write_window: 8 }
    }
}

impl Default for CoordinationConfig {
    fn default() -> Self {
        CoordinationConfig {
            latency: 4,
            link_bits: 16,
            message_bits: 32,
            link_queue: 8,
            names: CoordinationKey::WarpLoad,
        }
    }
}

impl Default for AlphaSjfConfig {
    fn default() -> Self {
        AlphaSjfConfig { alpha: 0.5, miss_penalty: 3.0, core_selection: true }
    }
}

impl Default for PrefetchConfig {
    fn default() -> Self {
        PrefetchConfig { enabled: false, lower: 8, higher: 16, threshold: None }
    }
}

impl Default for DramTiming {
    /// Seed 000 Table II (Hynix H5GQ1H24AFR GDDR5). tWR is not in the table; 12 ns is the
    /// part's write recovery and the value seeds 002/004 use.
    fn default() -> Self {
        DramTiming {
            t_rc: Time::Ns(40.0),
            t_rcd: Time::Ns(12.0),
            t_rp: Time::Ns(12.0),
            t_cas: Time::Ns(12.0),
            t_ras: Time::Ns(28.0),
            t_rrd: Time::Ns(5.5),
            t_wtr: Time::Ns(5.0),
            t_faw: Time::Ns(23.0),
            t_wl: Time::Ck(4),
            t_rtp: Time::Ns(2.0),
            t_rtpl: Time::Ck(0),
            t_burst: Time::Ck(2),
            t_rtrs: Time::Ck(1),
            t_ccdl: Time::Ck(3),
            t_ccds: Time::Ck(2),
            t_wr: Time::Ns(12.0),
        }
    }
}

impl Default for MappingConfig {
    fn default() -> Self {
        MappingConfig {
            scheme: MappingScheme::Xor,
            interleave_bytes: 256,
            custom: String::new(),
            channel_bit: None,
            partition_indexing: PartitionIndexing::Consecutive,
        }
    }
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { seed: 1, watchdog_cycles: 200_000, max_cycles: 0, max_instructions: 0, no_skip: false }
    }
}

impl Config {
    /// The machine alone: this config without its name and the debugger's own settings
    /// (snapshot interval and budget, event log size), which do not change what it does (what
    /// a checkpoint's and a sweep's digests of a machine cover).
    pub fn machine_only(&self) -> Config {
        let mut c = self.clone();
        c.name.clear();
        c.debug = Default::default();
        c
    }

    /// The embedded default machine.
    pub fn builtin() -> Config {
        // The built-in text is checked by a unit test; failing here is a build defect.
        parse_ron(BUILTIN_CONFIG, &Origin::File(BUILTIN_CONFIG_NAME.into())).expect("built-in config parses")
    }

    /// Reads, overrides and validates a config file.
    pub fn load(path: &Path, sets: &[String]) -> Result<Config, ConfigError> {
        let text = read_file(path)?;
        Config::from_text(&text, Origin::File(path.display().to_string()), sets)
    }

    /// Parses, overrides and validates config text.
    pub fn from_text(text: &str, origin: Origin, sets: &[String]) -> Result<Config, ConfigError> {
        let config: Config = parse_ron(text, &origin)?;
        let config = overrides::apply(&config, sets)?;
        if let Some(issue) = validate::first_issue(&config) {
            return Err(ConfigError::at_key(text, &origin, sets, issue));
        }
        Ok(config)
    }

    /// This config with `--set` assignments applied and validated; problems are reported
    /// against the assignment that caused them.
    pub fn with_sets(&self, sets: &[String]) -> Result<Config, ConfigError> {
        let c = overrides::apply(self, sets)?;
        if let Some(issue) = validate::first_issue(&c) {
            return Err(ConfigError::at_key("", &Origin::Override(sets.join(" ")), sets, issue));
        }
        Ok(c)
    }

    /// Loads `path`, or the built-in machine when `None`.
    pub fn load_or_builtin(path: Option<&Path>, sets: &[String]) -> Result<Config, ConfigError> {
        match path {
            Some(p) => Config::load(p, sets),
            None => Config::from_text(BUILTIN_CONFIG, Origin::File(BUILTIN_CONFIG_NAME.into()), sets),
        }
    }

    /// Warps resident per SM.
    pub fn warps_per_sm(&self) -> usize {
        (self.core.max_threads / 32) as usize
    }

    /// The most warps one warp scheduler holds: how many GTO priorities (ranks by age within
    /// a scheduler) a warp can have.
    pub fn warps_per_scheduler(&self) -> usize {
        self.warps_per_sm().div_ceil(self.core.warp_schedulers as usize)
    }

    /// How many times its own size (`l1.sets × l1.ways × l1.line_bytes`) the adaptive unified
    /// L1/shared array is; 1 without one.
    pub fn l1_adaptive_multiple(&self) -> u32 {
        match &self.l1.adaptive {
            // The quotient is at most unified_kb, so it fits.
            Some(a) => (u64::from(a.unified_kb) / self.l1_kb().max(1)) as u32,
            None => 1,
        }
    }

    /// One L1's own capacity in KB (`l1.sets × l1.ways × l1.line_bytes`), in 64 bits.
    pub fn l1_kb(&self) -> u64 {
        u64::from(self.l1.sets) * u64::from(self.l1.ways) * u64::from(self.l1.line_bytes) / 1024
    }

    /// The L2's capacity in KB, every slice together, in 64 bits.
    pub fn l2_kb(&self) -> u64 {
        self.l2_slices() as u64
            * u64::from(self.l2.sets)
            * u64::from(self.l2.ways)
            * u64::from(self.l2.line_bytes)
            / 1024
    }

    /// The ways an adaptive L1 gets for a kernel whose resident CTAs take `shared_bytes` of
    /// shared memory per SM (`None` without an adaptive L1). As GPGPU-Sim's
    /// `shader_core_config::max_cta`: the smallest carve-out holding them (the largest when none
    /// does), and `round(max_ways × (1 − carve-out / unified))` ways, at least one.
    pub fn l1_adaptive_ways(&self, shared_bytes: u64) -> Option<u32> {
        let a = self.l1.adaptive.as_ref()?;
        let mut options = a.shared_options_kb.clone();
        options.sort_unstable();
        let carve = options.iter().copied().find(|&kb| u64::from(kb) * 1024 >= shared_bytes);
        let carve = carve.or(options.last().copied()).unwrap_or(0);
        let max_ways = f64::from(self.l1.ways * self.l1_adaptive_multiple());
        let ratio = 1.0 - f64::from(carve) / f64::from(a.unified_kb);
        Some(((max_ways * ratio + 0.5) as u32).max(1))
    }

    /// L2 slices in the whole machine.
    pub fn l2_slices(&self) -> usize {
        (self.dram.channels * self.l2.slices_per_channel) as usize
    }

    /// Bytes moved by one DRAM column access (burst).
    pub fn dram_burst_bytes(&self) -> u32 {
        self.dram.bus_bits / 8 * self.dram.burst_length
    }

    /// DRAM clock period in ns.
    pub fn tck_ns(&self) -> f64 {
        1000.0 / self.clocks.dram_mhz
    }
}

/// Deserializes RON text, reporting the key path and line:column of any error.
pub fn parse_ron<T: DeserializeOwned>(text: &str, origin: &Origin) -> Result<T, ConfigError> {
    let mut de = ron::de::Deserializer::from_str(text).map_err(|e| ConfigError {
        origin: origin.clone(),
        position: Some((e.span.start.line, e.span.start.col)),
        key: String::new(),
        message: e.code.to_string(),
    })?;
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." || key == "?" { String::new() } else { key };
        let spanned = de.span_error(e.inner().clone());
        ConfigError::from_serde(origin, key, spanned)
    })?;
    de.end().map_err(|e| {
        let spanned = de.span_error(e);
        ConfigError {
            origin: origin.clone(),
            position: Some((spanned.span.start.line, spanned.span.start.col)),
            key: String::new(),
            message: spanned.code.to_string(),
        }
    })?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_config_is_the_default_machine() {
        assert_eq!(Config::builtin(), Config::default());
    }

    #[test]
    fn timing_converts_rounding_up() {
        let tck = 1000.0 / 1500.0;
        assert_eq!(Time::Ns(12.0).cycles(tck), 18);
        assert_eq!(Time::Ns(40.0).cycles(tck), 60);
        assert_eq!(Time::Ns(5.5).cycles(tck), 9);
        assert_eq!(Time::Ns(23.0).cycles(tck), 35);
        assert_eq!(Time::Ns(2.0).cycles(tck), 3);
        assert_eq!(Time::Ns(28.0).cycles(tck), 42);
        assert_eq!(Time::Ck(4).cycles(tck), 4);
    }
}
