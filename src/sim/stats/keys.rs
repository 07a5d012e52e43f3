//! Every key of a report with its unit and meaning: the one table that the report-keys page of
//! the manual (`docs/report-keys.md`), the unit column of `run` and `compare`, chart axes and
//! number formatting are all made from, so they cannot disagree. A test checks that every key a
//! report has matches a row, and every row a key.
//!
//! A row's pattern is a dotted key in which `{a,b}` stands for either name and `*` for any one
//! name; a trailing `[]` is an array, in the JSON only.

/// What a number counts, which sets how it is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Unit {
    /// Core-clock cycles (the SMs' clock).
    CoreCycles,
    /// DRAM command-clock cycles.
    DramCycles,
    /// A share of 1, printed as a percentage.
    Percent,
    /// Something counted: loads, requests, commands, lines.
    Count,
    /// Instructions per core cycle.
    PerCycle,
    /// A mean or ratio of counts without a unit of its own (requests per load, banks).
    Mean,
    /// Misses per 1000 warp instructions.
    Mpki,
    /// Wall-clock seconds of the host.
    Seconds,
    /// Simulated core cycles per wall-clock second of the host.
    CyclesPerSecond,
    /// A name or status.
    Text,
}

impl Unit {
    /// How tables and the manual name the unit.
    pub fn name(self) -> &'static str {
        match self {
            Unit::CoreCycles => "core cycles",
            Unit::DramCycles => "DRAM cycles",
            Unit::Percent => "%",
            Unit::Count => "count",
            Unit::PerCycle => "per core cycle",
            Unit::Mean => "mean",
            Unit::Mpki => "per 1000 warp instr.",
            Unit::Seconds => "s (host)",
            Unit::CyclesPerSecond => "cycles/s (host)",
            Unit::Text => "",
        }
    }

    /// Decimals a non-integer value shows, the same at every magnitude.
    pub fn decimals(self) -> usize {
        match self {
            Unit::CoreCycles | Unit::DramCycles | Unit::Percent | Unit::Mpki => 1,
            Unit::CyclesPerSecond | Unit::Count => 0,
            Unit::Seconds | Unit::PerCycle | Unit::Mean | Unit::Text => 3,
        }
    }

    /// Whether the number measures the host running the simulation, not the machine simulated.
    pub fn is_host(self) -> bool {
        matches!(self, Unit::Seconds | Unit::CyclesPerSecond)
    }
}

/// One documented key (or family of keys).
pub struct KeyDoc {
    pub pattern: &'static str,
    pub unit: Unit,
    pub meaning: &'static str,
}

macro_rules! keys {
    ($($pattern:literal, $unit:ident, $meaning:literal;)*) => {
        /// The report's keys, in the order the manual lists them.
        pub static KEYS: &[KeyDoc] = &[$(KeyDoc { pattern: $pattern, unit: Unit::$unit, meaning: $meaning }),*];
    };
}

keys! {
    "config", Text, "the machine's name";
    "workload", Text, "the workload's name";
    "status", Text, "`done`, `stuck`, `max-cycles` or `max-instructions` (stopped at a limit: its numbers are a partial run's), or `interrupted` (`run` stopped by Ctrl-C: a partial run's too)";
    "cycles", CoreCycles, "until every kernel finished and the memory system drained (or the run stopped)";
    "{warp_instructions,thread_instructions}", Count, "instructions issued, counting a warp instruction once or once per active thread";
    "ipc", PerCycle, "thread instructions per core cycle";
    "warp_ipc", PerCycle, "warp instructions per core cycle";
    "core.ctas", Count, "thread blocks (CTAs) run";
    "core.{issue_rate,no_ready_rate,idle_rate}", Percent, "share of warp-scheduler issue slots that issued / found no ready warp / had no warp";
    "core.occlusions", Count, "loads that needed more new MSHRs than were free (memory occlusion, seed 004 §2.3.2)";
    "core.ldst_stalls.*", Count, "LD/ST unit replay cycles by cause: `mshr`, `merge_full`, `line_alloc`, `miss_queue`, `response`, `data_port`, `bank` (an L1 bank's latency queue could not take the access)";
    "core.stall_cycles", CoreCycles, "SM cycles with resident warps and no issue";
    "core.stall_share.*", Percent, "those cycles split into seed 002's issue-stall classes (§IV-A5, Fig. 7), in precedence order: `str_mem` / `str_alu` (a warp free of dependencies is stopped by the LD/ST unit — full, too many loads out, or held by OAWS/MASCAR for lack of MSHRs — or by the ALU), `data_mem` / `data_alu` (every warp waits on a dependency: a load if any does, else an ALU result), `throttled` (only warps a throttling scheduler holds back could issue), `fetch` (all at a barrier or draining after EXIT)";
    "core.cycle_share.*", Percent, "every SM cycle: `issued` / `ldst_stall` (str-MEM) / `no_ready` (other stall) / `idle` (no resident warp) (seed 004 Fig. 5.8)";
    "core.ldst_active_cycles", CoreCycles, "cycles the LD/ST unit was busy";
    "core.ldst_share.*", Percent, "those cycles by seed 004's categories (Fig. 5.5): `coal` (a divergent instruction still sending), `mshr` (MSHR or merge slots full), `icnt` (miss queue full), `line_alloc` (no replaceable line), `mascar_replay`, `bank` (an L1 bank could not take the access)";
    "core.{memory_block_rate,no_warp_rate,inactive_rate}", Percent, "share of SM cycles in which every resident warp waited on memory (seed 003's MemoryBlockCycles) / no warp was resident while a kernel ran (NoWarpCycles) / nothing issued while a kernel ran";
    "core.scheduler_occupancy.top3", Percent, "share of issues made by each scheduler's three oldest warps (GTO priorities 0–2; seed 004 §2.2.2, Fig. 2.3)";
    "core.scheduler_occupancy.cdf[]", Percent, "the whole distribution: entry r is the share made by priorities 0 to r";
    "core.policy.{held_rate,saturated_rate}", Percent, "issue slots in which the warp scheduler held a warp back; MASCAR slots in memory-pressure mode";
    "core.policy.{disqualifications,group_switches,vta_hits}", Count, "OAWS disqualifications (Eq. 5.1); two-level and OWL group changes; CCWS victim-tag hits";
    "{l1,l2}.{hit_rate,miss_rate}", Percent, "read hits / reads (a merged read counts as a miss), and 1 − that (seed 003 Table 3 gives the miss rate's reduction)";
    "{l1,l2}.{reads,read_misses,merged,writes,evictions,writebacks}", Count, "reads, reads that went below (MSHR or bypass), reads merged into an MSHR, writes, lines evicted, dirty lines written back";
    "{l1,l2}.mpki", Mpki, "read misses per 1000 warp instructions";
    "{l1,l2}.stalls.*", Count, "reservation failures per attempt (replays included): `mshr` full, `merge_full`, no replaceable line (`line_alloc`: all reserved, or DaCache's thrashing region when constrained to stall), `miss_queue` full, `response` (reply network full), `data_port`, `bank` (an L1 bank's latency queue is full or took an access this cycle)";
    "{l1,l2}.stall_share.*", Percent, "the caches' stall cycles as shares by cause (seed 002 Figs. 8, 9): `mshr`, `line_alloc`, `miss_queue` (back-pressure from below: bp-L2 at the L1, bp-DRAM at the L2), `response` (bp-ICNT), `data_port`, `bank`";
    "l1.misses.*", Count, "read misses by why the line was missing: `cold` (never in this L1), `intra_warp` (last evicted by the missing warp itself), `inter_warp` (by another warp; seed 004 §2.1.1)";
    "l1.loads.*", Count, "load instructions the L1 serviced: `divergent` (more than 2 requests) or `coherent` (at most 2)";
    "l1.fully_cached.*", Percent, "share of those loads whose every access hit (seed 004 Fig. 4.5)";
    "l1.mpli.*.*", Count, "loads by misses per load instruction, `0`, `1`, `2`, `3-31`, `32` (32 or more), per class (a merge or bypass counts as a miss; seed 004 Fig. 2.2)";
    "l1.concentration_mean", Mean, "intra-warp concentration, accesses / distinct sets, over loads of two or more accesses (1 ideal, 32 worst; seed 004 Eq. 3.1)";
    "l1.balance", Mean, "Kharbutli's balance of accesses over sets, mean over L1s (1 = a random spread, lower = more even; seed 004 Eq. 3.2)";
    "l1.bypassed", Count, "accesses DaCache sent below without allocating a line";
    "l1.fcw_mean", Mean, "fully cached warps per SM at the end (seed 004 §4.2.4)";
    "l1.reuse.*.{inserted,reused,self_first_hits}", Count, "L1 lines by the GTO priority of the warp that inserted them (`p0`, `p1`, `p2`, `p3_up`; seed 004 §4.2.2's premise that a line's re-reference interval grows with that priority): lines inserted; lines hit again; first hits made by the inserting warp itself";
    "l1.reuse.*.{insert_position_mean,depth_mean}", Mean, "mean chain position on insertion (0 = MRU); mean chain position just before the first hit (under LRU the stack distance)";
    "l1.reuse.*.{never_reused_rate,self_first_hit_rate}", Percent, "lines replaced before any hit, among those hit or replaced; the inserting warp's share of first hits";
    "l1.reuse.*.depth[]", Count, "first hits by chain position";
    "l1.reuse.depth_slope", Mean, "least-squares slope of `depth_mean` on priority over priorities 0–3, chain positions per step (Eq. 4.1 spaces insertions 2 apart)";
    "l1.reuse.by_priority[]", Count, "the same per priority, every priority apart";
    "{l2.access_queue_occupancy,dram.read_queue_occupancy,dram.write_queue_occupancy}.*", Percent, "a queue's occupancy over the cycles it holds an entry, as shares `upto_25`, `upto_50`, `upto_75`, `below_100`, `full` of its capacity (seed 002 Figs. 4, 5)";
    "icnt.{request_packets,request_flits,reply_packets,reply_flits}", Count, "crossbar traffic each way";
    "dram.{reads,writes}", Count, "column commands served";
    "dram.{row_hit_rate,row_miss_rate,row_conflict_rate}", Percent, "by each request's first command: a column command to the open row / ACT to a closed bank / PRE of another row";
    "dram.bandwidth_utilization", Percent, "data-bus busy cycles / DRAM cycles";
    "dram.bandwidth_efficiency", Percent, "data-bus busy cycles / cycles with a request pending (seed 002)";
    "dram.bank_level_parallelism", Mean, "banks with requests pending, when at least one has";
    "dram.write_intensity", Percent, "writes / (reads + writes)";
    "dram.{read_latency_mean,read_latency_p50,read_latency_p99}", DramCycles, "controller queue entry → last data beat, mean and percentiles";
    "dram.{read_queue_mean,write_queue_mean}", Mean, "requests in the controller's read / write queue, mean over DRAM cycles";
    "dram.write_drains", Count, "write drains (the write queue above its high watermark)";
    "dram.commands.*", Count, "commands issued: `act`, `pre`, `rd`, `wr`, `ref`";
    "dram.scheduler.name", Text, "the DRAM scheduler";
    "dram.scheduler.{groups_scheduled,groups_timed_out,groups_forced}", Count, "warp-groups placed in the command queues; of them, placed incomplete after `incomplete_timeout` / because no complete group could go while their banks had room";
    "dram.scheduler.{merb_postponements,merb_hits_moved,orphans_moved,single_request_first,aged}", Count, "WG-Bw row misses postponed by MERB, hits served ahead of them, orphan hits; WG-W single-request groups taken near a drain; GMC requests placed past the age threshold";
    "dram.scheduler.{sjf_contests,sjf_contests_above_m,sjf_misses_chosen}", Count, "α-SJF commands issued on a choice between the shortest hit queue Hs and the shortest missing queue Ms; of them, those with len(Hs) > m · len(Ms) (the only ones an α < 1 can decide for Ms); those for which this α chose Ms";
    "dram.scheduler.sjf_hits_passed_over", Count, "α-SJF commands for the least tolerant core's row miss while another core had a request to the bank's open row";
    "dram.scheduler.{coord_messages,coord_dropped,coord_received,coord_applied}", Count, "WG-M network messages sent (per destination), dropped on a full link, received, applied (a local score lowered)";
    "dram.prefetch.{issued,useful,late,useless}", Count, "lines prefetched from open rows (seed 003 §4.4); hit later by a demand / arrived after a demand missed / already present or evicted unused";
    "dram.prefetch.accuracy", Percent, "useful / issued";
    "dram.channels[]", Text, "the same numbers per channel, with `write_drains`, `prefetches`, `bandwidth_efficiency`, `write_intensity`";
    "memory.loads", Count, "global and local warp-loads completed";
    "memory.{avg_latency,l2_hit_latency_mean}", CoreCycles, "mean latency of L1-missing load requests, issue → data at the warp (seed 002's AML), and of those that hit the L2 (L2-AHL)";
    "memory.{effective_latency_mean,latency_divergence_mean}", CoreCycles, "per warp-load: last request back − issue; last − first request back (seed 000)";
    "memory.requests_per_load", Mean, "coalesced requests per warp-load";
    "memory.divergent_load_fraction", Percent, "warp-loads with more than one request";
    "memory.{channels_per_load_mean,banks_per_load_mean}", Mean, "distinct channels / banks a warp-load's DRAM requests touch";
    "memory.occlusion_cycles_per_load", CoreCycles, "memory-occlusion time per load (seed 004 §2.3.2): issue until its last access left the LD/ST unit, beyond one cycle per access";
    "memory.occlusion_share.*", Percent, "occlusion time as a share of L1 access time (issue → last data) of `coherent` (≤ 2 requests) and `divergent` loads (seed 004 Fig. 2.6)";
    "memory.{warpgroup_service_mean,warpgroup_arrival_spread_mean}", CoreCycles, "per warp-load and channel: first request into the controller → last data off the bus (seed 000 §IV-B); first → last request into the controller (how long a warp-aware controller waits for a group)";
    "memory.warpgroups", Count, "warp-groups: (warp-load, channel) pairs that reached DRAM";
    "sim.wall_seconds", Seconds, "how long the simulation took";
    "sim.cycles_per_second", CyclesPerSecond, "simulation speed";
    "sim.requests", Count, "memory requests the machine created";
    "sim.max_instructions", Count, "the run's instruction cap (0 = none)";
    "kernels[]", Text, "an entry per kernel launch, in launch order: `launch` (0-based), `name`, `start_cycle`, `end_cycle` and `cycles` (from the end of the launch before, or cycle 0, to the cycle its last CTA finished; the last launch's to the run's end, the drain included, so the launches' cycles add up to the run's), `warp_instructions`, `thread_instructions`, `ipc`, `l1_reads`, `l1_hit_rate`, `l2_reads`, `l2_hit_rate`, `dram_bandwidth_utilization`, `dram_requests`, `dram_row_hits`, `dram_row_hit_rate`, `occlusions`, `load_returns` and `load_latency_mean` (core cycles, as `memory.avg_latency`); each as the whole run's key of that name, over the launch's cycles";
}

/// Whether `key` is one of the keys `pattern` stands for.
pub fn matches(pattern: &str, key: &str) -> bool {
    let p: Vec<&str> = split(pattern);
    let k: Vec<&str> = key.split('.').collect();
    p.len() == k.len()
        && p.iter().zip(&k).all(|(p, k)| {
            *p == "*"
                || match p.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(alts) => alts.split(',').any(|a| a == *k),
                    None => p == k,
                }
        })
}

/// A pattern's dotted parts; dots inside `{...}` do not split (`{a.b,c.d}.x` has two parts).
fn split(pattern: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in pattern.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '.' if depth == 0 => {
                parts.push(&pattern[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&pattern[start..]);
    parts
}

/// The row that documents `key`, if any. A pattern with dotted alternatives is tried with
/// them expanded.
pub fn doc(key: &str) -> Option<&'static KeyDoc> {
    KEYS.iter().find(|d| expand(d.pattern).iter().any(|p| matches(p, key)))
}

/// `pattern` with alternatives that hold dots (`{l2.a,dram.b}.*`) expanded into patterns of
/// plain parts.
fn expand(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else { return vec![pattern.to_string()] };
    let close = open + pattern[open..].find('}').expect("a pattern's braces close");
    let alts = &pattern[open + 1..close];
    if !alts.contains('.') {
        let rest = expand(&pattern[close + 1..]);
        return rest.into_iter().map(|r| format!("{}{r}", &pattern[..close + 1])).collect();
    }
    alts.split(',')
        .flat_map(|a| expand(&format!("{}{a}{}", &pattern[..open], &pattern[close + 1..])))
        .collect()
}

/// The unit of `key` (a plain count when no row documents it).
pub fn unit(key: &str) -> Unit {
    doc(key).map_or(Unit::Count, |d| d.unit)
}

/// The manual's page of report keys, generated from [`KEYS`].
pub fn markdown() -> String {
    let mut out = String::from(
        "# Report keys\n\n\
         <!-- Generated from src/sim/stats/keys.rs by `cargo test` (tests/docs.rs); edit the table there. -->\n\n\
         `warpscope run --json` writes these keys as nested objects: read `l1.hit_rate` as\n\
         `report[\"l1\"][\"hit_rate\"]`. `compare --metrics`, sweep grids and repro claims name them the\n\
         same way. In a key, `{a,b}` stands for either name and `*` for any one name; `[]` is an\n\
         array, in the JSON only. Shares are stored as fractions of 1 and printed as percentages.\n\
         Keys are stable; new ones may be added.\n\n\
         | key | unit | meaning |\n|---|---|---|\n",
    );
    for d in KEYS {
        let unit = if d.unit == Unit::Text { "–" } else { d.unit.name() };
        out.push_str(&format!("| `{}` | {unit} | {} |\n", d.pattern, d.meaning));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_alternatives_and_wildcards() {
        assert!(matches("core.{issue_rate,idle_rate}", "core.idle_rate"));
        assert!(!matches("core.{issue_rate,idle_rate}", "core.issue"));
        assert!(matches("l1.mpli.*.*", "l1.mpli.divergent.3-31"));
        assert!(!matches("l1.mpli.*.*", "l1.mpli.divergent"));
        assert_eq!(doc("dram.read_queue_occupancy.full").unwrap().unit, Unit::Percent);
        assert_eq!(unit("l2.access_queue_occupancy.upto_25"), Unit::Percent);
        assert_eq!(unit("dram.read_latency_p99"), Unit::DramCycles);
        assert_eq!(unit("memory.avg_latency"), Unit::CoreCycles);
        assert!(unit("sim.cycles_per_second").is_host());
    }
}
