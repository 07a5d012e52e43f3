//! The report of a run: what `run --json` writes and `compare` tabulates. Keys are stable
//! (documented in docs/report-keys.md, generated from stats/keys.rs); nested objects read as dotted paths (`dram.row_hit_rate`).

use super::{CacheStats, ChannelStats, L1LoadStats, ReuseStats, StallCause, balance, total};
use crate::config::Config;
use crate::sim::core::sched::WarpScheduler;
use crate::sim::core::stall::StallClass;
use crate::sim::dram::Controller;
use crate::sim::dram::command::CommandKind;
use crate::sim::dram::sched::{DramScheduler, SchedulerStats};
use crate::sim::{Gpu, Status};
use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    pub config: String,
    pub workload: String,
    /// "done", "stuck", "max-cycles" or "max-instructions" (stopped by `sim.max_instructions`).
    pub status: String,
    /// Core cycles.
    pub cycles: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// Thread instructions per core cycle (GPGPU-Sim's IPC).
    pub ipc: f64,
    /// Warp instructions per core cycle.
    pub warp_ipc: f64,
    pub core: CoreReport,
    pub l1: CacheReport,
    pub l2: CacheReport,
    pub icnt: IcntReport,
    pub dram: DramReport,
    pub memory: MemoryReport,
    pub sim: SimReport,
    /// One entry per kernel launch, in launch order (filled in by the run's driver,
    /// `batch::run::simulate`; empty where the report is of a machine taken as it is).
    pub kernels: Vec<KernelReport>,
}

/// One kernel launch's share of the run: its cycles run from the end of the launch before it
/// (cycle 0 for the first) to the cycle its last CTA finished (the last launch's to the run's
/// end, the memory system's drain included), so the launches' cycles and counts add up to the
/// run's and its rates are the launches' weighted by their cycles, reads or requests.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct KernelReport {
    /// The launch's place in the workload (0-based).
    pub launch: u64,
    pub name: String,
    pub start_cycle: u64,
    pub end_cycle: u64,
    pub cycles: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub ipc: f64,
    pub l1_reads: u64,
    pub l1_hit_rate: f64,
    pub l2_reads: u64,
    pub l2_hit_rate: f64,
    pub dram_bandwidth_utilization: f64,
    /// DRAM requests by their first command, of them row hits, and their share.
    pub dram_requests: u64,
    pub dram_row_hits: u64,
    pub dram_row_hit_rate: f64,
    pub occlusions: u64,
    /// L1-missing load requests that returned, and their mean latency (`memory.avg_latency`).
    pub load_returns: u64,
    pub load_latency_mean: f64,
}

impl KernelReport {
    /// Launch `launch`, named `name`, over `span` (its first to its last cycle's sample).
    pub fn of(launch: usize, name: &str, span: &super::sample::Interval) -> KernelReport {
        KernelReport {
            launch: launch as u64,
            name: name.to_string(),
            start_cycle: span.from.cycle,
            end_cycle: span.to.cycle,
            cycles: span.cycles(),
            warp_instructions: span.delta(|s| s.warp_instructions),
            thread_instructions: span.delta(|s| s.thread_instructions),
            ipc: span.ipc(),
            l1_reads: span.delta(|s| s.l1_reads),
            l1_hit_rate: span.l1_hit_rate(),
            l2_reads: span.delta(|s| s.l2_reads),
            l2_hit_rate: span.l2_hit_rate(),
            dram_bandwidth_utilization: span.dram_bandwidth_utilization(),
            dram_requests: span.delta(|s| s.dram_requests),
            dram_row_hits: span.delta(|s| s.dram_row_hits),
            dram_row_hit_rate: span.dram_row_hit_rate(),
            occlusions: span.delta(|s| s.occlusions),
            load_returns: span.delta(|s| s.load_returns),
            load_latency_mean: span.load_latency_mean(),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CoreReport {
    pub ctas: u64,
    /// Fraction of issue slots that issued / found no ready warp / had no warp at all.
    pub issue_rate: f64,
    pub no_ready_rate: f64,
    pub idle_rate: f64,
    /// Loads that needed more new MSHRs than were free (memory occlusion, seed 004 §5.2).
    pub occlusions: u64,
    /// LD/ST unit replay cycles by cause.
    pub ldst_stalls: StallReport,
    /// Core cycles with resident warps in which no scheduler issued (issue-stall cycles).
    pub stall_cycles: u64,
    /// Their distribution over seed 002's issue-stall classes (§IV-A5, Fig. 7).
    pub stall_share: StallShare,
    /// Every core cycle: issued / LD/ST stall (a str-MEM stall cycle) / no warp ready (any
    /// other stall cycle) / idle (no resident warp) (seed 004 Fig. 5.8).
    pub cycle_share: CycleShare,
    /// Cycles the LD/ST unit had work, and their share per stall category (seed 004 Fig. 5.5).
    pub ldst_active_cycles: u64,
    pub ldst_share: LdstShare,
    /// Share of SM cycles in which every resident warp waited on memory (seed 003
    /// MemoryBlockCycles), with no resident warp while a kernel ran (NoWarpCycles), without
    /// issuing anything while a kernel ran (core inactive time, CINV).
    pub memory_block_rate: f64,
    pub no_warp_rate: f64,
    pub inactive_rate: f64,
    /// Issues by the GTO priority of the issuing warp (seed 004 Fig. 2.3).
    pub scheduler_occupancy: SchedulerOccupancy,
    /// Warp-scheduler policy activity.
    pub policy: PolicyReport,
}

/// Seed 002's issue-stall classes, as shares of the issue-stall cycles.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct StallShare {
    pub data_mem: f64,
    pub data_alu: f64,
    pub str_mem: f64,
    pub str_alu: f64,
    /// No instruction to issue: barrier waits and warps draining after EXIT (no I-cache is
    /// modelled).
    pub fetch: f64,
    /// Only warps a throttling scheduler holds back could have issued.
    pub throttled: f64,
}

/// Core cycles by outcome.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CycleShare {
    pub issued: f64,
    pub ldst_stall: f64,
    pub no_ready: f64,
    pub idle: f64,
}

/// LD/ST unit cycles by seed 004 category, as shares of its active cycles.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct LdstShare {
    pub coal: f64,
    pub mshr: f64,
    pub icnt: f64,
    pub line_alloc: f64,
    pub mascar_replay: f64,
    pub bank: f64,
}

/// What the warp-scheduling policy did.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct PolicyReport {
    /// Share of issue slots in which the policy held a warp back.
    pub held_rate: f64,
    /// OAWS: warps newly held by Eq. 5.1.
    pub disqualifications: u64,
    /// Two-level / OWL: times a scheduler changed group.
    pub group_switches: u64,
    /// CCWS: victim-tag hits (lost intra-warp locality).
    pub vta_hits: u64,
    /// MASCAR: share of issue slots in memory-pressure mode. The mode is judged (and the
    /// `mascar-mode` event raised) only in slots where the scheduler has a candidate, so this
    /// understates how long memory is saturated: on kmeans-like (fermi-30sm) it reads 4.8 %,
    /// while SM 0's L1 had at most one free MSHR or miss-queue slot in all 2,000 samples taken
    /// every 37 cycles from cycle 10,000 (GTO: 117 of 2,000).
    pub saturated_rate: f64,
}

/// Warp-scheduler occupancy by GTO priority (seed 004 §2.2.2, Fig. 2.3: "the CDF of warp
/// scheduler occupancy by all active warps", the share of issues by warps of each GTO
/// priority — rank by age within the scheduler, 0 = oldest), over every scheduler.
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct SchedulerOccupancy {
    /// Share of issues by the three oldest warps of their scheduler (Fig. 2.3's "top 3
    /// prioritized warps": 58–91 % on the memory-divergent benchmarks).
    pub top3: f64,
    /// Entry r: share of issues by warps of priority 0 to r (the curve of Fig. 2.3).
    pub cdf: Vec<f64>,
}

impl SchedulerOccupancy {
    /// From a histogram whose entry r counts issues by warps of GTO priority r.
    pub fn from_histogram(h: &[u64]) -> SchedulerOccupancy {
        let issues: u64 = h.iter().sum();
        let cdf: Vec<f64> = h
            .iter()
            .scan(0, |below, &n| {
                *below += n;
                Some(ratio(*below, issues))
            })
            .collect();
        SchedulerOccupancy { top3: ratio(h.iter().take(3).sum(), issues), cdf }
    }
}

/// A queue's occupancy over its usage lifetime (cycles with at least one entry), in quarters
/// of its capacity (seed 002 Figs. 4, 5).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct OccupancyShare {
    pub upto_25: f64,
    pub upto_50: f64,
    pub upto_75: f64,
    pub below_100: f64,
    pub full: f64,
}

impl OccupancyShare {
    /// From a histogram whose entry i counts cycles with i entries (capacity = len − 1).
    pub fn from_histogram(h: &[u64]) -> OccupancyShare {
        let cap = h.len().saturating_sub(1).max(1) as f64;
        let used: u64 = h.iter().skip(1).sum();
        let mut q = [0u64; 5];
        for (i, &n) in h.iter().enumerate().skip(1) {
            let f = i as f64 / cap;
            let b = if f <= 0.25 {
                0
            } else if f <= 0.5 {
                1
            } else if f <= 0.75 {
                2
            } else if f < 1.0 {
                3
            } else {
                4
            };
            q[b] += n;
        }
        OccupancyShare {
            upto_25: ratio(q[0], used),
            upto_50: ratio(q[1], used),
            upto_75: ratio(q[2], used),
            below_100: ratio(q[3], used),
            full: ratio(q[4], used),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct StallReport {
    pub mshr: u64,
    pub merge_full: u64,
    pub line_alloc: u64,
    pub miss_queue: u64,
    pub response: u64,
    pub data_port: u64,
    pub bank: u64,
}

impl StallReport {
    fn from(stalls: &[u64; StallCause::COUNT]) -> StallReport {
        let g = |c: StallCause| stalls[c as usize];
        StallReport {
            mshr: g(StallCause::Mshr),
            merge_full: g(StallCause::MergeFull),
            line_alloc: g(StallCause::LineAlloc),
            miss_queue: g(StallCause::MissQueue),
            response: g(StallCause::Response),
            data_port: g(StallCause::DataPort),
            bank: g(StallCause::Bank),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CacheReport {
    pub reads: u64,
    /// Read hits / reads (merged reads count as misses).
    pub hit_rate: f64,
    /// 1 − `hit_rate`: the miss rate whose reduction seed 003 Table 3 gives.
    pub miss_rate: f64,
    pub read_misses: u64,
    pub merged: u64,
    pub writes: u64,
    pub evictions: u64,
    pub writebacks: u64,
    /// Read misses per thousand warp instructions.
    pub mpki: f64,
    /// Cycles an access could not proceed, by cause. For the L1D these are its reservation
    /// failures: `mshr` (MSHR full), `line_alloc` (no replaceable line), `miss_queue`.
    pub stalls: StallReport,
    /// L1D only: the divergence-aware metrics of seed 004.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<DivergenceReport>,
    /// The same stall cycles as shares (seed 002 Figs. 8, 9).
    pub stall_share: StallShareByCause,
    /// L2 only: the access queue's occupancy over its usage lifetime (seed 002 Fig. 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access_queue_occupancy: Option<OccupancyShare>,
}

/// Divergence-aware L1D metrics (seed 004 §2.1.1, §2.2.1, §3.2.1, §3.3.4, §4.3.2).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DivergenceReport {
    /// Read misses that went below, by why the line was missing.
    pub misses: MissKinds,
    /// Load instructions serviced, divergent (> 2 requests) and coherent.
    pub loads: LoadKinds,
    /// Share of those loads whose every access hit (MPLI 0, seed 004 Fig. 4.5).
    pub fully_cached: FullyCached,
    /// Loads by misses per load instruction (seed 004 Fig. 2.2).
    pub mpli: Mpli,
    /// Mean intra-warp concentration (accesses / sets touched) of loads of ≥ 2 accesses
    /// (seed 004 Eq. 3.1, Fig. 3.7).
    pub concentration_mean: f64,
    /// Kharbutli's balance of accesses over sets, mean over the L1Ds (seed 004 Eq. 3.2).
    pub balance: f64,
    /// Accesses that bypassed the L1D (DaCache's constrained replacement).
    pub bypassed: u64,
    /// Fully cached warps per SM at the end of the run (seed 004 §4.2.4), mean over SMs.
    pub fcw_mean: f64,
    /// Lines' first re-reference by the GTO priority of the warp that inserted them (seed 004
    /// §4.2.2's premise for gauged insertion).
    pub reuse: ReuseReport,
}

/// L1D lines by the GTO priority of the warp whose access inserted them (seed 004 §4.2.2:
/// gauged insertion puts the lines of a warp of priority p at way 2p on the baseline, assuming
/// their re-reference interval grows with p), priorities 0, 1 and 2 apart and 3 and up together
/// for claims, and each priority apart in the JSON.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReuseReport {
    /// How fast the first re-reference's depth grows with priority over priorities 0–3: the
    /// least-squares slope of `depth_mean` on priority (those with re-references), in chain
    /// positions per step. Under LRU the premise of Eq. 4.1 puts it near N_sched × Width /
    /// N_set, the spacing of the insertion positions (2 on the baseline).
    pub depth_slope: f64,
    pub p0: ReuseClass,
    pub p1: ReuseClass,
    pub p2: ReuseClass,
    pub p3_up: ReuseClass,
    pub by_priority: Vec<ReuseClass>,
}

/// The lines inserted by warps of some GTO priorities: how many, where they landed, and how
/// deep in the replacement order they were at their first re-reference (their stack distance
/// under LRU).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReuseClass {
    pub inserted: u64,
    /// Mean chain position at insertion (0 = MRU; LRU always inserts at 0).
    pub insert_position_mean: f64,
    /// Lines re-referenced (hit) at least once, and their mean chain position just before the
    /// first hit.
    pub reused: u64,
    pub depth_mean: f64,
    /// Share of lines replaced before any re-reference, among those re-referenced or replaced.
    pub never_reused_rate: f64,
    /// First re-references made by the warp that inserted the line (intra-warp reuse), and
    /// their share of `reused`; the rest are another warp's (inter-warp reuse).
    pub self_first_hits: u64,
    pub self_first_hit_rate: f64,
    /// First re-references by chain position (0 = MRU).
    pub depth: Vec<u64>,
}

impl ReuseClass {
    /// Priorities `prios` of `s`, whose depth histogram has `ways` entries per priority.
    fn of(s: &ReuseStats, ways: usize, prios: std::ops::Range<usize>) -> ReuseClass {
        let prios = prios.start.min(s.inserted.len())..prios.end.min(s.inserted.len());
        let sum = |v: &[u64]| -> u64 { v[prios.clone()].iter().sum() };
        let mut depth = vec![0; ways];
        for p in prios.clone() {
            for (d, n) in depth.iter_mut().zip(&s.depth[p * ways..(p + 1) * ways]) {
                *d += n;
            }
        }
        let reused: u64 = depth.iter().sum();
        let depths: u64 = depth.iter().enumerate().map(|(d, &n)| d as u64 * n).sum();
        let never = sum(&s.never_reused);
        let own = sum(&s.self_hits);
        ReuseClass {
            inserted: sum(&s.inserted),
            insert_position_mean: ratio(sum(&s.insert_position), sum(&s.inserted)),
            reused,
            depth_mean: ratio(depths, reused),
            never_reused_rate: ratio(never, never + reused),
            self_first_hits: own,
            self_first_hit_rate: ratio(own, reused),
            depth,
        }
    }
}

/// The least-squares slope of y on x; 0 with fewer than two distinct x.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let sxx: f64 = points.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    if sxx == 0.0 { 0.0 } else { sxy / sxx }
}

impl ReuseReport {
    fn from(s: &ReuseStats, ways: usize) -> ReuseReport {
        let n = s.inserted.len();
        let by_priority: Vec<ReuseClass> = (0..n).map(|p| ReuseClass::of(s, ways, p..p + 1)).collect();
        let head: Vec<(f64, f64)> = by_priority
            .iter()
            .take(4)
            .enumerate()
            .filter(|(_, c)| c.reused > 0)
            .map(|(p, c)| (p as f64, c.depth_mean))
            .collect();
        ReuseReport {
            depth_slope: slope(&head),
            p0: ReuseClass::of(s, ways, 0..1),
            p1: ReuseClass::of(s, ways, 1..2),
            p2: ReuseClass::of(s, ways, 2..3),
            p3_up: ReuseClass::of(s, ways, 3..n),
            by_priority,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MissKinds {
    pub cold: u64,
    pub intra_warp: u64,
    pub inter_warp: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LoadKinds {
    pub divergent: u64,
    pub coherent: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FullyCached {
    pub divergent_rate: f64,
    pub coherent_rate: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Mpli {
    pub divergent: MpliBins,
    pub coherent: MpliBins,
}

/// Load instructions with 0, 1, 2, 3–31 and ≥ 32 misses.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MpliBins {
    #[serde(rename = "0")]
    pub zero: u64,
    #[serde(rename = "1")]
    pub one: u64,
    #[serde(rename = "2")]
    pub two: u64,
    #[serde(rename = "3-31")]
    pub some: u64,
    #[serde(rename = "32")]
    pub all: u64,
}

impl MpliBins {
    fn from(b: &[u64; 5]) -> MpliBins {
        MpliBins { zero: b[0], one: b[1], two: b[2], some: b[3], all: b[4] }
    }
}

impl DivergenceReport {
    fn from(g: &Gpu) -> DivergenceReport {
        let t: L1LoadStats = total(g.sms.iter().map(|sm| &sm.l1.loads));
        let balances: Vec<f64> = g
            .sms
            .iter()
            .map(|sm| &sm.l1.loads.set_accesses)
            .filter(|a| a.iter().any(|&n| n > 0))
            .map(|a| balance(a))
            .collect();
        let fcw: u64 = g.sms.iter().map(|sm| u64::from(sm.l1.fcw.fcw)).sum();
        let trackers = || g.sms.iter().filter_map(|sm| sm.l1.tags.reuse.as_ref());
        let reuse: ReuseStats = total(trackers().map(|r| &r.stats));
        let ways = trackers().next().map_or(0, |r| r.ways());
        let divergent: u64 = t.mpli_divergent.iter().sum();
        let coherent: u64 = t.mpli_coherent.iter().sum();
        DivergenceReport {
            misses: MissKinds {
                cold: t.misses_cold,
                intra_warp: t.misses_intra_warp,
                inter_warp: t.misses_inter_warp,
            },
            loads: LoadKinds { divergent, coherent },
            fully_cached: FullyCached {
                divergent_rate: ratio(t.mpli_divergent[0], divergent),
                coherent_rate: ratio(t.mpli_coherent[0], coherent),
            },
            mpli: Mpli {
                divergent: MpliBins::from(&t.mpli_divergent),
                coherent: MpliBins::from(&t.mpli_coherent),
            },
            concentration_mean: ratio(t.concentration_ppm, t.concentration_loads) / 1e6,
            balance: if balances.is_empty() {
                0.0
            } else {
                balances.iter().sum::<f64>() / balances.len() as f64
            },
            bypassed: t.bypassed,
            fcw_mean: ratio(fcw, g.sms.len() as u64),
            reuse: ReuseReport::from(&reuse, ways),
        }
    }
}

/// A cache's stall cycles by cause, as shares of all its stall cycles (seed 002 Figs. 8, 9):
/// lack of an MSHR (or of merge slots in one), of a replaceable line, back-pressure from
/// below (miss queue full: bp-L2 at the L1, bp-DRAM at the L2), from the reply network
/// (response queue full, L2 only: bp-ICNT), and the busy data port (L2 only).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct StallShareByCause {
    pub mshr: f64,
    pub line_alloc: f64,
    pub miss_queue: f64,
    pub response: f64,
    pub data_port: f64,
    pub bank: f64,
}

impl StallShareByCause {
    fn from(stalls: &[u64; StallCause::COUNT]) -> StallShareByCause {
        let total: u64 = stalls.iter().sum();
        let g = |c: StallCause| ratio(stalls[c as usize], total);
        StallShareByCause {
            mshr: ratio(stalls[StallCause::Mshr as usize] + stalls[StallCause::MergeFull as usize], total),
            line_alloc: g(StallCause::LineAlloc),
            miss_queue: g(StallCause::MissQueue),
            response: g(StallCause::Response),
            data_port: g(StallCause::DataPort),
            bank: g(StallCause::Bank),
        }
    }
}

impl CacheReport {
    fn from(s: &CacheStats, warp_instructions: u64) -> CacheReport {
        CacheReport {
            reads: s.reads,
            hit_rate: ratio(s.read_hits, s.reads),
            miss_rate: ratio(s.reads - s.read_hits, s.reads),
            read_misses: s.read_misses,
            merged: s.merged,
            writes: s.writes,
            evictions: s.evictions,
            writebacks: s.writebacks,
            mpki: ratio(s.read_misses * 1000, warp_instructions),
            stalls: StallReport::from(&s.stalls),
            divergence: None,
            stall_share: StallShareByCause::from(&s.stalls),
            access_queue_occupancy: None,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct IcntReport {
    pub request_packets: u64,
    pub request_flits: u64,
    pub reply_packets: u64,
    pub reply_flits: u64,
}

/// What each DRAM channel and all of them together report alike, derived from their
/// [`ChannelStats`] by [`ChannelMetrics::of`] (the total from the channels' summed stats).
/// Flattened into [`ChannelReport`] and [`DramReport`]: its keys sit beside theirs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ChannelMetrics {
    pub reads: u64,
    pub writes: u64,
    /// Requests whose first command was a column access.
    pub row_hit_rate: f64,
    /// Data-bus busy cycles / all DRAM cycles.
    pub bandwidth_utilization: f64,
    /// Data-bus busy cycles / cycles with at least one pending request (seed 002 §IV).
    pub bandwidth_efficiency: f64,
    /// Mean banks with pending requests, over cycles with at least one.
    pub bank_level_parallelism: f64,
    /// Writes / (reads + writes).
    pub write_intensity: f64,
    /// Mean read latency, queue entry → last data beat, in DRAM cycles.
    pub read_latency_mean: f64,
    /// Write-drain episodes.
    pub write_drains: u64,
}

impl ChannelMetrics {
    /// The metrics of a channel's counters, or of several channels' summed with [`total`].
    pub fn of(s: &ChannelStats) -> ChannelMetrics {
        ChannelMetrics {
            reads: s.reads,
            writes: s.writes,
            row_hit_rate: ratio(s.row_hits, s.served()),
            bandwidth_utilization: ratio(s.busy_cycles, s.cycles),
            bandwidth_efficiency: ratio(s.busy_cycles, s.pending_cycles),
            bank_level_parallelism: ratio(s.blp_sum, s.blp_cycles),
            write_intensity: ratio(s.writes, s.reads + s.writes),
            read_latency_mean: ratio(s.read_latency_sum, s.reads),
            write_drains: s.drains,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DramReport {
    #[serde(flatten)]
    pub metrics: ChannelMetrics,
    /// Requests whose first command was an ACT to a closed bank / a PRE of another row.
    pub row_miss_rate: f64,
    pub row_conflict_rate: f64,
    pub read_latency_p50: u64,
    pub read_latency_p99: u64,
    pub read_queue_mean: f64,
    pub write_queue_mean: f64,
    /// Read / write queue occupancy over their usage lifetime (seed 002 Fig. 5).
    pub read_queue_occupancy: OccupancyShare,
    pub write_queue_occupancy: OccupancyShare,
    pub commands: CommandCounts,
    pub scheduler: SchedulerReport,
    pub prefetch: PrefetchReport,
    pub channels: Vec<ChannelReport>,
}

/// What the DRAM scheduler did (zero where the scheduler lacks the mechanism), summed over
/// the controllers.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SchedulerReport {
    /// The `dram.scheduler` of the run.
    pub name: String,
    /// Warp-groups placed in the command queues; those placed incomplete after the timeout,
    /// and those placed incomplete because no complete group could go
    /// (`dram.warp_aware.incomplete`).
    pub groups_scheduled: u64,
    pub groups_timed_out: u64,
    pub groups_forced: u64,
    /// WG-Bw/WG-W: row misses postponed by MERB, the hits served ahead of them, and the
    /// orphan hits served so as not to leave one or two behind.
    pub merb_postponements: u64,
    pub merb_hits_moved: u64,
    pub orphans_moved: u64,
    /// WG-W: single-request groups taken first near a write drain.
    pub single_request_first: u64,
    /// WG-M: messages broadcast (per destination), dropped on a full link, received, and
    /// applied (a local score lowered).
    pub coord_messages: u64,
    pub coord_dropped: u64,
    pub coord_received: u64,
    pub coord_applied: u64,
    /// GMC: requests placed because they passed the age threshold.
    pub aged: u64,
    /// α-SJF: commands issued on a choice between the shortest hit queue Hs and the
    /// shortest missing queue Ms; of them, those with len(Hs) > m · len(Ms), the only ones
    /// some α < 1 decides for Ms; and those this α served from Ms (seed 001 §IV).
    pub sjf_contests: u64,
    pub sjf_contests_above_m: u64,
    pub sjf_misses_chosen: u64,
    /// α-SJF: commands issued for the least tolerant core's row miss while another core had
    /// a hit to the bank's open row (the PREs its core selection issues over them).
    pub sjf_hits_passed_over: u64,
}

/// Opportunistic prefetching (seed 003 §4.4).
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct PrefetchReport {
    /// Lines read from open rows.
    pub issued: u64,
    /// Prefetched lines a demand later hit in the L2.
    pub useful: u64,
    /// Prefetched lines whose demand had already missed in the L2 when they arrived.
    pub late: u64,
    /// Prefetched lines already in the L2, or evicted without a demand hit.
    pub useless: u64,
    /// useful / issued.
    pub accuracy: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CommandCounts {
    pub act: u64,
    pub pre: u64,
    pub rd: u64,
    pub wr: u64,
    #[serde(rename = "ref")]
    pub refresh: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ChannelReport {
    #[serde(flatten)]
    pub metrics: ChannelMetrics,
    pub prefetches: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MemoryReport {
    /// Global/local warp-loads completed.
    pub loads: u64,
    /// Mean latency of L1-missing load requests, creation → data at the warp (core cycles).
    pub avg_latency: f64,
    /// Coalesced requests per warp-load.
    pub requests_per_load: f64,
    /// Fraction of warp-loads with more than one request.
    pub divergent_load_fraction: f64,
    /// Mean (last request back − issue) per warp-load (seed 000 "effective latency").
    pub effective_latency_mean: f64,
    /// Mean (last − first request back) per warp-load (seed 000 "latency divergence").
    pub latency_divergence_mean: f64,
    /// Mean distinct DRAM channels / banks per warp-load that reached DRAM.
    pub channels_per_load_mean: f64,
    pub banks_per_load_mean: f64,
    /// Mean memory-occlusion time per load: cycles from issue until its last access left
    /// the LD/ST unit, beyond one per access (seed 004 §2.3.2).
    pub occlusion_cycles_per_load: f64,
    /// Occlusion time as a share of L1D access time (issue → last data) for coherent (≤ 2
    /// requests) and divergent loads (seed 004 Fig. 2.6).
    pub occlusion_share: OcclusionShare,
    /// Mean latency of requests that hit in the L2, creation → data at the warp (seed 002's
    /// L2-AHL; `avg_latency` is its AML).
    pub l2_hit_latency_mean: f64,
    /// Mean warp-group service time (core cycles): per warp-load and DRAM channel, first
    /// request into the controller → last request's data off the bus (seed 000 §IV-B).
    pub warpgroup_service_mean: f64,
    /// Warp-groups (DRAM channels touched) per warp-load that reached DRAM.
    pub warpgroups: u64,
    /// Mean warp-group arrival spread (core cycles): per warp-load and DRAM channel, first →
    /// last request into the controller, the time a warp-aware controller waits for a group to
    /// be complete (seed 000 §III-A assumes "a warp's requests arrive at the memory controller
    /// within short intervals of each other").
    pub warpgroup_arrival_spread_mean: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct OcclusionShare {
    pub coherent: f64,
    pub divergent: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SimReport {
    /// Wall-clock seconds of the simulation loop (0 when not measured).
    pub wall_seconds: f64,
    /// Simulated core cycles per wall-clock second.
    pub cycles_per_second: f64,
    /// Memory requests created.
    pub requests: u64,
    /// The run's instruction cap (`sim.max_instructions`; 0 = none), which a stored run is
    /// checked against when a sweep resumes.
    pub max_instructions: u64,
}

/// Whether a report's `status` says its run stopped at a limit (`max-cycles`,
/// `max-instructions`) rather than at its end: its numbers cover part of the run.
pub fn stopped_at_limit(status: &str) -> bool {
    matches!(status, "max-cycles" | "max-instructions")
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

impl Report {
    /// Derives the report from the machine's counters. `wall_seconds` is the measured
    /// simulation time (the simulator itself has no clock).
    pub fn new(g: &Gpu, wall_seconds: f64) -> Report {
        let cycles = g.cycle;
        let core: super::CoreStats = total(g.sms.iter().map(|sm| &sm.stats));
        let l1: CacheStats = total(g.sms.iter().map(|s| &s.l1.stats));
        let l2: CacheStats = total(g.l2.iter().map(|s| &s.stats));
        let mut l2_report = CacheReport::from(&l2, core.instructions);
        l2_report.access_queue_occupancy =
            Some(OccupancyShare::from_histogram(&total(g.l2.iter().map(|s| &s.access_occupancy))));
        let core_cycles = cycles * g.sms.len() as u64;
        let issue_slots: u64 = g.sms.iter().map(|s| cycles * s.issue.schedulers.len() as u64).sum();
        let stalled: u64 = core.stall_classes.iter().sum();
        let share = |c: StallClass| ratio(core.stall_classes[c as usize], stalled);
        let ldst_stall = core.stall_classes[StallClass::StrMem as usize];
        let stall = |c: StallCause| core.ldst_stalls[c as usize];
        let ldst_active = core.ldst.accesses
            + core.ldst_stalls.iter().sum::<u64>()
            + core.shared_accesses
            + core.ldst.replays
            + core.ldst.idle_replays;
        let policy = policy_report(g, issue_slots, core.held_slots, core.disqualifications);
        let mut dram = dram_report(&g.config, &g.dram);
        if let Some(net) = &g.coord {
            dram.scheduler.coord_messages = net.stats.sent;
            dram.scheduler.coord_dropped = net.stats.dropped;
        }
        let p = &mut dram.prefetch;
        (p.useful, p.late, p.useless) = (l2.prefetch_useful, l2.prefetch_late, l2.prefetch_useless);
        p.accuracy = ratio(p.useful, p.issued);
        let loads = &core.loads;
        Report {
            config: g.config.name.clone(),
            workload: g.workload.name.clone(),
            status: match &g.status {
                Status::Done => "done".into(),
                Status::Stuck(_) => "stuck".into(),
                Status::Running if g.instruction_cap_reached() => "max-instructions".into(),
                Status::Running => "max-cycles".into(),
            },
            cycles,
            warp_instructions: core.instructions,
            thread_instructions: core.thread_instructions,
            ipc: ratio(core.thread_instructions, cycles),
            warp_ipc: ratio(core.instructions, cycles),
            core: CoreReport {
                ctas: core.ctas,
                issue_rate: ratio(core.issued, issue_slots),
                no_ready_rate: ratio(issue_slots - core.issued - core.idle, issue_slots),
                idle_rate: ratio(core.idle, issue_slots),
                occlusions: core.occlusions,
                ldst_stalls: StallReport::from(&core.ldst_stalls),
                stall_cycles: stalled,
                stall_share: StallShare {
                    data_mem: share(StallClass::DataMem),
                    data_alu: share(StallClass::DataAlu),
                    str_mem: share(StallClass::StrMem),
                    str_alu: share(StallClass::StrAlu),
                    fetch: share(StallClass::Fetch),
                    throttled: share(StallClass::Throttled),
                },
                cycle_share: CycleShare {
                    issued: ratio(core.issued_cycles, core_cycles),
                    ldst_stall: ratio(ldst_stall, core_cycles),
                    no_ready: ratio(stalled - ldst_stall, core_cycles),
                    idle: ratio(core_cycles - core.issued_cycles - stalled, core_cycles),
                },
                ldst_active_cycles: ldst_active,
                ldst_share: LdstShare {
                    coal: ratio(core.ldst.coal, ldst_active),
                    mshr: ratio(stall(StallCause::Mshr) + stall(StallCause::MergeFull), ldst_active),
                    icnt: ratio(stall(StallCause::MissQueue), ldst_active),
                    line_alloc: ratio(stall(StallCause::LineAlloc), ldst_active),
                    mascar_replay: ratio(core.ldst.mascar_replay, ldst_active),
                    bank: ratio(stall(StallCause::Bank), ldst_active),
                },
                memory_block_rate: ratio(core.memory_block_cycles, core_cycles),
                no_warp_rate: ratio(core.no_warp_cycles, core_cycles),
                inactive_rate: ratio(core.inactive_cycles, core_cycles),
                scheduler_occupancy: SchedulerOccupancy::from_histogram(&core.issue_priority),
                policy,
            },
            l1: CacheReport {
                divergence: Some(DivergenceReport::from(g)),
                ..CacheReport::from(&l1, core.instructions)
            },
            l2: l2_report,
            icnt: IcntReport {
                request_packets: g.icnt.request.stats.packets,
                request_flits: g.icnt.request.stats.flits,
                reply_packets: g.icnt.reply.stats.packets,
                reply_flits: g.icnt.reply.stats.flits,
            },
            dram,
            memory: MemoryReport {
                loads: loads.loads,
                avg_latency: ratio(loads.miss_latency, loads.miss_returns),
                requests_per_load: ratio(loads.requests, loads.loads),
                divergent_load_fraction: ratio(loads.divergent, loads.loads),
                effective_latency_mean: ratio(loads.effective_latency, loads.loads),
                latency_divergence_mean: ratio(loads.latency_divergence, loads.loads),
                channels_per_load_mean: ratio(loads.channels, loads.dram_loads),
                banks_per_load_mean: ratio(loads.banks, loads.dram_loads),
                occlusion_cycles_per_load: ratio(loads.occlusion_cycles, loads.loads),
                occlusion_share: OcclusionShare {
                    coherent: ratio(loads.occlusion_coherent, loads.access_time_coherent),
                    divergent: ratio(loads.occlusion_divergent, loads.access_time_divergent),
                },
                l2_hit_latency_mean: ratio(loads.l2_hit_latency, loads.l2_hit_returns),
                warpgroup_service_mean: ratio(loads.warpgroup_service, loads.warpgroups),
                warpgroups: loads.warpgroups,
                warpgroup_arrival_spread_mean: ratio(loads.warpgroup_arrival, loads.warpgroups),
            },
            sim: SimReport {
                wall_seconds,
                cycles_per_second: if wall_seconds > 0.0 { cycles as f64 / wall_seconds } else { 0.0 },
                requests: g.ledger.created(),
                max_instructions: g.config.sim.max_instructions,
            },
            kernels: Vec::new(),
        }
    }

    /// The report as a flat list of (dotted key, value), in document order. Per-channel
    /// entries are left out (they are in the JSON).
    pub fn flat(&self) -> Vec<(String, serde_json::Value)> {
        let mut out = Vec::new();
        flatten("", &serde_json::to_value(self).expect("report serializes"), false, &mut out);
        out
    }
}

/// The leaves of the JSON value `v` as (dotted key under `prefix`, value), in document order;
/// an array is one leaf when `arrays`, else left out.
pub fn flatten(
    prefix: &str,
    v: &serde_json::Value,
    arrays: bool,
    out: &mut Vec<(String, serde_json::Value)>,
) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&key, v, arrays, out);
            }
        }
        serde_json::Value::Array(_) if !arrays => {}
        other => out.push((prefix.to_string(), other.clone())),
    }
}

fn policy_report(g: &Gpu, issue_slots: u64, held_slots: u64, disqualifications: u64) -> PolicyReport {
    let statuses = || g.sms.iter().flat_map(|s| s.issue.schedulers.iter().map(|k| k.status()));
    PolicyReport {
        held_rate: ratio(held_slots, issue_slots),
        disqualifications,
        group_switches: statuses().map(|s| s.group_switches).sum(),
        vta_hits: g.sms.iter().filter_map(|s| s.learner.lost_locality().map(|c| c.vta_hits)).sum(),
        saturated_rate: ratio(statuses().map(|s| s.saturated_slots).sum(), issue_slots),
    }
}

/// The `dram` object of a report, from a set of controllers (the WG-M network's messages and
/// the fate of prefetched lines are left at zero: they belong to the rest of the machine).
pub fn dram_report(config: &Config, controllers: &[Controller]) -> DramReport {
    let t: ChannelStats = total(controllers.iter().map(|d| &d.stats));
    let stats: Vec<SchedulerStats> = controllers.iter().map(|d| d.scheduler.stats()).collect();
    let sched: SchedulerStats = total(&stats);
    let channels: Vec<ChannelReport> = controllers
        .iter()
        .map(|d| ChannelReport { metrics: ChannelMetrics::of(&d.stats), prefetches: d.stats.prefetches })
        .collect();
    let cmds = t.commands;
    DramReport {
        metrics: ChannelMetrics::of(&t),
        row_miss_rate: ratio(t.row_misses, t.served()),
        row_conflict_rate: ratio(t.row_conflicts, t.served()),
        read_latency_p50: t.read_latency.quantile(0.5),
        read_latency_p99: t.read_latency.quantile(0.99),
        read_queue_mean: ratio(t.read_queue_sum, t.cycles),
        write_queue_mean: ratio(t.write_queue_sum, t.cycles),
        read_queue_occupancy: OccupancyShare::from_histogram(&t.read_queue_occupancy),
        write_queue_occupancy: OccupancyShare::from_histogram(&t.write_queue_occupancy),
        commands: CommandCounts {
            act: cmds[CommandKind::Act as usize],
            pre: cmds[CommandKind::Pre as usize],
            rd: cmds[CommandKind::Rd as usize],
            wr: cmds[CommandKind::Wr as usize],
            refresh: cmds[CommandKind::Ref as usize],
        },
        scheduler: SchedulerReport {
            name: config.dram.scheduler.name().to_string(),
            groups_scheduled: sched.groups_scheduled,
            groups_timed_out: sched.groups_timed_out,
            groups_forced: sched.groups_forced,
            merb_postponements: sched.merb_postponements,
            merb_hits_moved: sched.merb_hits_moved,
            orphans_moved: sched.orphans_moved,
            single_request_first: sched.single_request_first,
            // The network belongs to the machine: `Report::new` fills these in.
            coord_messages: 0,
            coord_dropped: 0,
            coord_received: sched.coord_received,
            coord_applied: sched.coord_applied,
            aged: sched.aged,
            sjf_contests: sched.sjf_contests,
            sjf_contests_above_m: sched.sjf_contests_above_m,
            sjf_misses_chosen: sched.sjf_misses_chosen,
            sjf_hits_passed_over: sched.sjf_hits_passed_over,
        },
        // What became of the lines is the L2's to say: `Report::new` fills it in.
        prefetch: PrefetchReport { issued: t.prefetches, ..PrefetchReport::default() },
        channels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stall_shares_group_mshr_and_merge_slots_and_sum_to_one() {
        // 3 MSHR + 1 merge-full + 2 line-alloc + 4 miss-queue + 0 response + 10 data-port = 20.
        let s = StallShareByCause::from(&[3, 1, 2, 4, 0, 10, 0]);
        assert_eq!(
            s,
            StallShareByCause {
                mshr: 0.2,
                line_alloc: 0.1,
                miss_queue: 0.2,
                response: 0.0,
                data_port: 0.5,
                bank: 0.0
            }
        );
        assert_eq!(StallShareByCause::from(&[0; 7]), StallShareByCause::default(), "no stalls: all zero");
    }

    #[test]
    fn each_channel_and_the_total_report_the_same_metrics_at_their_level() {
        let config = Config::default();
        let mut mcs: Vec<Controller> = (0..2).map(|i| Controller::new(&config, i)).collect();
        mcs[0].stats = ChannelStats {
            reads: 3,
            writes: 1,
            row_hits: 3,
            row_misses: 1,
            cycles: 10,
            busy_cycles: 4,
            ..ChannelStats::default()
        };
        mcs[1].stats = ChannelStats {
            reads: 1,
            row_conflicts: 1,
            cycles: 10,
            busy_cycles: 1,
            prefetches: 2,
            ..ChannelStats::default()
        };
        let r = dram_report(&config, &mcs);
        let (a, b) = (&r.channels[0], &r.channels[1]);
        assert_eq!(
            (a.metrics.row_hit_rate, a.metrics.write_intensity, a.metrics.bandwidth_utilization),
            (0.75, 0.25, 0.4)
        );
        assert_eq!((b.metrics.row_hit_rate, b.prefetches), (0.0, 2));
        // The total is of the summed counters, not a mean of the channels' rates.
        assert_eq!(
            (r.metrics.reads, r.metrics.row_hit_rate, r.metrics.bandwidth_utilization),
            (4, 0.6, 0.25)
        );
        assert_eq!((r.row_miss_rate, r.row_conflict_rate, r.prefetch.issued), (0.2, 0.2, 2));
        // In JSON the shared metrics sit beside each level's own keys.
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            (v["row_hit_rate"].as_f64(), v["channels"][0]["row_hit_rate"].as_f64()),
            (Some(0.6), Some(0.75))
        );
        assert!(
            v.get("metrics").is_none()
                && v["channels"][1]["prefetches"] == 2
                && v.get("prefetches").is_none()
        );
    }

    #[test]
    fn scheduler_occupancy_accumulates_issues_from_the_oldest_warp_down() {
        // 8 issues: 5 by priority 0, 1 by 1, none by 2, 2 by 3.
        let o = SchedulerOccupancy::from_histogram(&[5, 1, 0, 2]);
        assert_eq!((o.top3, o.cdf), (0.75, vec![0.625, 0.75, 0.75, 1.0]));
        let none = SchedulerOccupancy::from_histogram(&[0; 3]);
        assert_eq!((none.top3, none.cdf), (0.0, vec![0.0; 3]), "no issues: all zero");
    }

    #[test]
    fn reuse_classes_add_priorities_and_weigh_depths() {
        // Two ways, four priorities: priority 0 hit twice at MRU and once at way 1, priority 3
        // once at way 1; priority 3 also lost two lines unreused, priority 2 inserted only.
        let s = ReuseStats {
            inserted: vec![3, 0, 1, 4],
            insert_position: vec![0, 0, 1, 4],
            depth: vec![2, 1, 0, 0, 0, 0, 0, 1],
            never_reused: vec![0, 0, 0, 2],
            self_hits: vec![1, 0, 0, 1],
        };
        let r = ReuseReport::from(&s, 2);
        assert_eq!((r.p0.reused, r.p0.depth, r.p0.depth_mean), (3, vec![2, 1], 1.0 / 3.0));
        assert_eq!((r.p0.never_reused_rate, r.p1.inserted, r.p1.depth_mean), (0.0, 0, 0.0));
        assert_eq!((r.p2.inserted, r.p2.insert_position_mean, r.p2.reused), (1, 1.0, 0));
        assert_eq!((r.p3_up.reused, r.p3_up.depth_mean, r.p3_up.never_reused_rate), (1, 1.0, 2.0 / 3.0));
        assert_eq!(r.p3_up.insert_position_mean, 1.0);
        assert_eq!((r.p0.self_first_hits, r.p0.self_first_hit_rate), (1, 1.0 / 3.0));
        assert_eq!((r.p2.self_first_hit_rate, r.p3_up.self_first_hit_rate), (0.0, 1.0));
        assert_eq!(r.by_priority.len(), 4);
        assert_eq!(r.by_priority[3], r.p3_up, "priority 3 is the last");
        // Depths 1/3 at priority 0 and 1 at priority 3 (1 and 2 have no re-references).
        assert!((r.depth_slope - 2.0 / 9.0).abs() < 1e-12, "{}", r.depth_slope);
        assert_eq!(slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]), 2.0);
        assert_eq!(slope(&[(1.0, 4.0)]), 0.0, "one point: no slope");
    }

    #[test]
    fn occupancy_quarters_of_a_four_entry_queue() {
        // Capacity 4: 1 entry is ≤ 25 %, 2 ≤ 50 %, 3 ≤ 75 %, 4 full; empty cycles do not count.
        let o = OccupancyShare::from_histogram(&[100, 1, 2, 3, 4]);
        assert_eq!((o.upto_25, o.upto_50, o.upto_75, o.below_100, o.full), (0.1, 0.2, 0.3, 0.0, 0.4));
        // Capacity 8: 7 entries are above 75 % but not full.
        let o = OccupancyShare::from_histogram(&[0, 0, 0, 0, 0, 0, 0, 5, 5]);
        assert_eq!((o.below_100, o.full), (0.5, 0.5));
    }
}
