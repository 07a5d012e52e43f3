//! Semantic checks: values that parse but describe an impossible machine.
//! Each rule names the key and says what would be valid.

use super::error::Issue;
use super::{Config, IndexName, MappingScheme, Partition, PartitionIndexing, ReplacementName, Time};

/// The most MSHR entries an L1 has (as an L2 slice): each access scans them, so the bound keeps
/// a lookup bounded; GPGPU-Sim's tested configurations use at most 512 (SM7_QV100's `A:512:8`).
pub const MAX_MSHR_ENTRIES: u32 = 4096;
/// Loads a warp may have in flight: a warp-group's name for the warp-aware DRAM schedulers
/// takes ⌈log2⌉ of it in bits from the score field (`sim::dram::coord`).
pub const MAX_LOADS_PER_WARP: u32 = 16;
/// Warp slots per SM are tracked in 64-bit masks.
pub const MAX_WARPS_PER_SM: u32 = 64;
/// LRU chains are stored as byte-sized way numbers (0–255).
pub const MAX_WAYS: u32 = 256;
/// The longest fixed latency, in its domain's cycles (issue 37.1): some latencies are
/// pipelines allocated one slot a cycle (the shared-memory pipe, the latency queues), and no
/// machine has one near it (GPGPU-Sim's tested configurations stay under 1,000).
pub const MAX_LATENCY: u32 = 100_000;
/// The most entries of a queue, each allocated up front (issue 37.1); GPGPU-Sim's tested
/// configurations stay under 1,024.
pub const MAX_QUEUE: u32 = 65_536;
/// The most cache lines of a machine, its L1s and L2 slices together (issue 37.1): about 4 GiB
/// of simulator state at [`LINE_STATE_BYTES`] a line, 500 times SM7_QV100's 130,000.
pub const MAX_CACHE_LINES: u64 = 1 << 26;
/// An upper bound on the simulator's state per cache line: the tag array's line, its
/// replacement state and the L1's reuse tracker (a test in `sim::cache` holds the types to it).
pub const LINE_STATE_BYTES: u64 = 64;

/// The first problem found, in key order.
pub fn first_issue(c: &Config) -> Option<Issue> {
    issues(c).into_iter().next()
}

struct Checker {
    out: Vec<Issue>,
}

impl Checker {
    fn fail(&mut self, key: &str, message: impl Into<String>) {
        self.out.push(Issue { key: key.into(), message: message.into() });
    }

    fn at_least(&mut self, key: &str, v: u32, min: u32) {
        if v < min {
            self.fail(key, format!("= {v}: must be at least {min}"));
        }
    }

    fn range(&mut self, key: &str, v: u32, min: u32, max: u32) {
        if v < min || v > max {
            self.fail(key, format!("= {v}: must be between {min} and {max}"));
        }
    }

    fn pow2(&mut self, key: &str, v: u32, min: u32) {
        if v < min || !v.is_power_of_two() {
            self.fail(
                key,
                format!(
                    "= {v}: must be a power of two ≥ {min} (e.g. {}, {})",
                    min.max(1) * 32,
                    min.max(1) * 64
                ),
            );
        }
    }

    /// The set count a cache's index function accepts. CONV's constraint is reported at the
    /// set count; a special function's at the function, which is what imposes it.
    fn sets(&mut self, cache: &str, sets: u32, index: IndexName) {
        let Some(need) = index.set_count_requirement(sets) else { return };
        if index == IndexName::Conv {
            self.fail(
                &format!("{cache}.sets"),
                format!("= {sets}: must be {need} with {cache}.index = \"conv\""),
            );
        } else {
            self.fail(
                &format!("{cache}.index"),
                format!("= \"{index}\" needs {cache}.sets to be {need}, but it is {sets}"),
            );
        }
    }

    fn positive(&mut self, key: &str, v: f64) {
        if !(v.is_finite() && v > 0.0) {
            self.fail(key, format!("= {v}: must be a positive frequency in MHz"));
        } else if !(MIN_MHZ..=MAX_MHZ).contains(&v) {
            self.fail(key, format!("= {v}: must be between {MIN_MHZ} and {MAX_MHZ} MHz"));
        }
    }

    /// A clock domain stepped from the core's: within [`MAX_CLOCK_RATIO`] of `core` either way
    /// (each core cycle steps it at most that many times; `icnt_mhz = 1e12` made a 2,000-cycle
    /// run step the interconnect 10^9 times a cycle).
    fn ratio(&mut self, key: &str, v: f64, core: f64) {
        let r = v / core;
        if v.is_finite()
            && v > 0.0
            && core.is_finite()
            && core > 0.0
            && !(1.0 / MAX_CLOCK_RATIO..=MAX_CLOCK_RATIO).contains(&r)
        {
            self.fail(
                key,
                format!("= {v}: must be within {MAX_CLOCK_RATIO}× of clocks.core_mhz ({core}) either way"),
            );
        }
    }
}

/// The clocks a config may give, MHz: from a slow FPGA prototype to well beyond any GPU.
pub const MIN_MHZ: f64 = 1.0;
pub const MAX_MHZ: f64 = 100_000.0;
/// How much faster or slower than the cores the interconnect and DRAM clocks may run.
pub const MAX_CLOCK_RATIO: f64 = 64.0;

/// Every problem, in key order.
pub fn issues(c: &Config) -> Vec<Issue> {
    let mut k = Checker { out: Vec::new() };
    k.positive("clocks.core_mhz", c.clocks.core_mhz);
    k.positive("clocks.icnt_mhz", c.clocks.icnt_mhz);
    k.positive("clocks.dram_mhz", c.clocks.dram_mhz);
    k.ratio("clocks.icnt_mhz", c.clocks.icnt_mhz, c.clocks.core_mhz);
    k.ratio("clocks.dram_mhz", c.clocks.dram_mhz, c.clocks.core_mhz);

    let core = &c.core;
    k.range("core.count", core.count, 1, 1024);
    if !core.max_threads.is_multiple_of(32)
        || core.max_threads == 0
        || core.max_threads > 32 * MAX_WARPS_PER_SM
    {
        k.fail(
            "core.max_threads",
            format!(
                "= {}: must be a multiple of 32 between 32 and {} ({} warps per SM at most)",
                core.max_threads,
                32 * MAX_WARPS_PER_SM,
                MAX_WARPS_PER_SM
            ),
        );
    }
    // A CTA has a warp at least, so no more CTAs than warp slots fit; each has a slot allocated.
    k.range("core.max_ctas", core.max_ctas, 1, MAX_WARPS_PER_SM);
    k.range("core.warp_schedulers", core.warp_schedulers, 1, 4);
    k.range("core.alu_latency", core.alu_latency, 1, MAX_LATENCY);
    if !matches!(core.simd_width, 1 | 2 | 4 | 8 | 16 | 32) {
        k.fail(
            "core.simd_width",
            format!("= {}: must divide the warp size: 1, 2, 4, 8, 16 or 32", core.simd_width),
        );
    }
    k.range("core.mem_pipeline_width", core.mem_pipeline_width, 1, MAX_QUEUE);
    k.range("core.max_loads_per_warp", core.max_loads_per_warp, 1, MAX_LOADS_PER_WARP);
    k.range("core.reply_queue", core.reply_queue, 1, MAX_QUEUE);
    k.range("core.shared_latency", core.shared_latency, 1, MAX_LATENCY);
    k.range("core.two_level.group_size", core.two_level.group_size, 1, MAX_WARPS_PER_SM);
    k.range("core.owl.min_group_size", core.owl.min_group_size, 1, MAX_WARPS_PER_SM);
    k.range("core.swl.warp_limit", core.swl.warp_limit, 1, MAX_WARPS_PER_SM);
    let cc = &core.ccws;
    k.range("core.ccws.vta_entries", cc.vta_entries, 1, 256);
    if cc.vta_ways == 0 || cc.vta_ways > cc.vta_entries || !cc.vta_entries.is_multiple_of(cc.vta_ways) {
        k.fail(
            "core.ccws.vta_ways",
            format!("= {}: must be ≥ 1 and divide core.ccws.vta_entries ({})", cc.vta_ways, cc.vta_entries),
        );
    }
    k.range("core.ccws.base_score", cc.base_score, 1, 1_000_000);
    k.range("core.ccws.k_throttle", cc.k_throttle, 0, 1_000);
    k.range("core.mascar.reexec_queue", core.mascar.reexec_queue, 1, 256);
    if core.warp_scheduler == super::WarpSchedulerName::Mascar
        && core.mascar.saturation_free >= c.l1.mshr_entries.min(c.l1.miss_queue)
    {
        k.fail(
            "core.mascar.saturation_free",
            format!(
                "= {}: must be below both l1.mshr_entries ({}) and l1.miss_queue ({}), or memory would \
                 always count as saturated",
                core.mascar.saturation_free, c.l1.mshr_entries, c.l1.miss_queue
            ),
        );
    }
    if core.warp_scheduler == super::WarpSchedulerName::Mascar && c.l1.latency_queue {
        k.fail(
            "core.warp_scheduler",
            "= \"mascar\": MASCAR parks the accesses the L1 refuses at the LD/ST unit; an L1 with a latency \
             queue (l1.latency_queue = true) refuses them later, in its banks",
        );
    }
    if c.dram.dual_bus
        && !matches!(
            c.dram.scheduler,
            super::DramSchedulerName::Fcfs
                | super::DramSchedulerName::FrFcfs
                | super::DramSchedulerName::FrFcfsCap
                | super::DramSchedulerName::GpgpusimFrFcfs
        )
    {
        k.fail(
            "dram.dual_bus",
            format!(
                "= true: a second command per cycle is chosen by fcfs, frfcfs, frfcfs-cap and gpgpusim-frfcfs only; dram.scheduler is \"{}\"",
                c.dram.scheduler
            ),
        );
    }
    k.range("core.oaws.smr_percent", core.oaws.smr_percent, 0, 100);
    k.range("core.oaws.dlc_entries", core.oaws.dlc_entries, 1, 256);

    let l1 = &c.l1;
    k.sets("l1", l1.sets, l1.index);
    k.range("l1.ways", l1.ways, 1, MAX_WAYS);
    k.pow2("l1.line_bytes", l1.line_bytes, 32);
    if l1.line_bytes > 256 {
        k.fail("l1.line_bytes", format!("= {}: at most 256 (eight 32 B sectors per line)", l1.line_bytes));
    }
    if l1.mshr_entries == 0 || l1.mshr_entries > MAX_MSHR_ENTRIES {
        k.fail("l1.mshr_entries", format!("= {}: must be between 1 and {MAX_MSHR_ENTRIES}", l1.mshr_entries));
    }
    k.range("l1.mshr_merge", l1.mshr_merge, 1, 64);
    k.range("l1.write_ratio", l1.write_ratio, 0, 100);
    k.range("l1.miss_queue", l1.miss_queue, 1, MAX_QUEUE);
    k.range("l1.hit_latency", l1.hit_latency, 1, MAX_LATENCY);
    if !(1..=32).contains(&l1.banks) || !l1.banks.is_power_of_two() {
        k.fail("l1.banks", format!("= {}: must be a power of two from 1 to 32", l1.banks));
    }
    k.pow2("l1.bank_bytes", l1.bank_bytes, 4);
    if l1.banks > 1 && !l1.latency_queue {
        k.fail(
            "l1.banks",
            format!(
                "= {}: banks take accesses into their latency queues; they need l1.latency_queue = true",
                l1.banks
            ),
        );
    }
    dacache(&mut k, c);
    adaptive(&mut k, c);
    sectored(&mut k, c);

    let ic = &c.icnt;
    k.at_least("icnt.request_flit_bytes", ic.request_flit_bytes, 1);
    k.at_least("icnt.reply_flit_bytes", ic.reply_flit_bytes, 1);
    k.range("icnt.latency", ic.latency, 1, MAX_LATENCY);
    k.range("icnt.out_buffer", ic.out_buffer, 0, MAX_QUEUE);
    k.range("icnt.in_buffer", ic.in_buffer, 0, MAX_QUEUE);
    k.at_least("icnt.header_bytes", ic.header_bytes, 1);

    let l2 = &c.l2;
    k.range("l2.slices_per_channel", l2.slices_per_channel, 1, 16);
    k.sets("l2", l2.sets, l2.index);
    k.range("l2.ways", l2.ways, 1, MAX_WAYS);
    if l2.line_bytes != l1.line_bytes {
        k.fail("l2.line_bytes", format!("= {}: must equal l1.line_bytes ({})", l2.line_bytes, l1.line_bytes));
    }
    if l2.mshr_entries == 0 || l2.mshr_entries > 4096 {
        k.fail("l2.mshr_entries", format!("= {}: must be between 1 and 4096", l2.mshr_entries));
    }
    k.range("l2.mshr_merge", l2.mshr_merge, 1, 64);
    k.range("l2.access_queue", l2.access_queue, 1, MAX_QUEUE);
    k.range("l2.miss_queue", l2.miss_queue, 1, MAX_QUEUE);
    k.range("l2.response_queue", l2.response_queue, 1, MAX_QUEUE);
    k.at_least("l2.data_port_bytes", l2.data_port_bytes, 1);
    k.range("l2.latency", l2.latency, 1, MAX_LATENCY);
    if l2.replacement == ReplacementName::Dacache {
        k.fail(
            "l2.replacement",
            "= \"dacache\": DaCache needs the issuing warp's scheduling priority and is only \
             valid for l1.replacement; the L2 can use lru, dip or rrip",
        );
    }

    dram(&mut k, c);

    if c.debug.snapshot_interval < 100 {
        k.fail(
            "debug.snapshot_interval",
            format!("= {}: must be at least 100 cycles", c.debug.snapshot_interval),
        );
    }
    if c.debug.snapshot_budget_mb < 16 {
        k.fail(
            "debug.snapshot_budget_mb",
            format!("= {}: must be at least 16 (MiB)", c.debug.snapshot_budget_mb),
        );
    }

    let id = &c.ideal;
    k.range("ideal.l2_latency", id.l2_latency, 1, MAX_LATENCY);
    k.range("ideal.dram_latency", id.dram_latency, 1, MAX_LATENCY);
    // Seed 002 Fig. 3 starts its axis at 0 ("varying the miss latencies from 0 to 250 cycles").
    k.range("ideal.miss_latency", id.miss_latency, 0, MAX_LATENCY);
    k.range("core.kernel_launch_latency", core.kernel_launch_latency, 0, MAX_LATENCY);
    k.range("core.cta_launch_latency", core.cta_launch_latency, 0, MAX_LATENCY);
    k.range("dram.frontend_latency", c.dram.frontend_latency, 0, MAX_LATENCY);
    k.range("dram.return_queue", c.dram.return_queue, 0, MAX_QUEUE);
    k.range("dram.coordination.latency", c.dram.coordination.latency, 0, MAX_LATENCY);
    cache_lines(&mut k, c);

    if c.sim.watchdog_cycles < 1000 {
        k.fail("sim.watchdog_cycles", format!("= {}: must be at least 1000", c.sim.watchdog_cycles));
    }
    k.out
}

/// Sectored caches (GPGPU-Sim's `S` caches): lines of 1 to 8 sectors of 32 bytes, an L1 that
/// allocates on the miss, and an L2 that sees single-sector requests (a sectored L1's).
fn sectored(k: &mut Checker, c: &Config) {
    let (l1, l2) = (&c.l1, &c.l2);
    if (l1.sectored || l2.sectored)
        && !(l1.line_bytes.is_multiple_of(32) && (32..=256).contains(&l1.line_bytes))
    {
        let key = if l1.sectored { "l1.sectored" } else { "l2.sectored" };
        k.fail(
            key,
            format!("= true: needs lines of 1 to 8 sectors of 32 bytes (line_bytes = {})", l1.line_bytes),
        );
    }
    if l1.sectored && l1.allocate != super::AllocPolicy::OnMiss {
        k.fail(
            "l1.sectored",
            "= true: a sectored L1 allocates its line on the miss (l1.allocate = \"on-miss\")",
        );
    }
    if l2.sectored && !l1.sectored {
        k.fail(
            "l2.sectored",
            "= true: needs l1.sectored = true (the L2 takes the single-sector requests a sectored L1 sends)",
        );
    }
}

fn adaptive(k: &mut Checker, c: &Config) {
    let l1 = &c.l1;
    let Some(a) = &l1.adaptive else { return };
    let size_kb = c.l1_kb();
    let unified_kb = u64::from(a.unified_kb);
    if size_kb == 0 || unified_kb == 0 || !unified_kb.is_multiple_of(size_kb) {
        k.fail(
            "l1.adaptive.unified_kb",
            format!(
                "= {}: must be a multiple of the L1's own size (l1.sets × l1.ways × l1.line_bytes = {size_kb} KB),                  as GPGPU-Sim requires",
                a.unified_kb
            ),
        );
    } else if u64::from(l1.ways) * (unified_kb / size_kb) > u64::from(MAX_WAYS) {
        k.fail(
            "l1.adaptive.unified_kb",
            format!(
                "= {}: the L1 would need {} ways ({} × {}), more than the {MAX_WAYS} warpscope holds",
                a.unified_kb,
                u64::from(l1.ways) * (unified_kb / size_kb),
                l1.ways,
                unified_kb / size_kb
            ),
        );
    }
    if a.shared_options_kb.is_empty() || a.shared_options_kb.iter().any(|&o| o > a.unified_kb) {
        k.fail(
            "l1.adaptive.shared_options_kb",
            format!(
                "= {:?}: needs at least one carve-out, each at most l1.adaptive.unified_kb ({})",
                a.shared_options_kb, a.unified_kb
            ),
        );
    }
}

fn dacache(k: &mut Checker, c: &Config) {
    let d = &c.l1.dacache;
    k.at_least("l1.dacache.promotion", d.promotion, 1);
    k.range("l1.dacache.mru_requests", d.mru_requests, 0, 64);
    k.range("l1.dacache.victim_cache", d.victim_cache, 1, 256);
    k.range("l1.dacache.profiler", d.profiler, 1, 256);
    if let Partition::Static(f) = d.partition
        && !(0.0..=1.0).contains(&f)
    {
        k.fail("l1.dacache.partition", format!("= Static({f}): F must be between 0.0 and 1.0"));
    }
}

/// The machine's cache lines, L1s and L2 slices together, within [`MAX_CACHE_LINES`]; the
/// error names the cache that holds the most (issue 37.1). Checked before anything is
/// allocated, in 128-bit arithmetic so no product wraps.
fn cache_lines(k: &mut Checker, c: &Config) {
    // An adaptive L1 holds up to its unified array's lines (`adaptive` bounds its ways).
    let unified = u128::from(c.l1_adaptive_multiple().max(1));
    let l1 = u128::from(c.core.count) * u128::from(c.l1.sets) * u128::from(c.l1.ways) * unified;
    let slices = u128::from(c.dram.channels) * u128::from(c.l2.slices_per_channel);
    let l2 = slices * u128::from(c.l2.sets) * u128::from(c.l2.ways);
    if l1 + l2 > u128::from(MAX_CACHE_LINES) {
        let (key, what) = if l1 >= l2 {
            (
                "l1.sets",
                format!("{} SMs × {} sets × {} ways = {l1} L1 lines", c.core.count, c.l1.sets, c.l1.ways),
            )
        } else {
            ("l2.sets", format!("{slices} slices × {} sets × {} ways = {l2} L2 lines", c.l2.sets, c.l2.ways))
        };
        k.fail(
            key,
            format!(
                "the machine would hold {} cache lines ({what}), more than the {MAX_CACHE_LINES} warpscope simulates (about {} GiB of state)",
                l1 + l2,
                (MAX_CACHE_LINES * LINE_STATE_BYTES) >> 30
            ),
        );
    }
}

fn dram(k: &mut Checker, c: &Config) {
    let d = &c.dram;
    k.range("dram.channels", d.channels, 1, 256);
    k.pow2("dram.banks", d.banks, 1);
    if d.banks > 64 {
        k.fail("dram.banks", format!("= {}: at most 64 banks per channel", d.banks));
    }
    if d.bank_groups == 0 || !d.banks.is_multiple_of(d.bank_groups) {
        k.fail(
            "dram.bank_groups",
            format!("= {}: must be ≥ 1 and divide dram.banks ({})", d.bank_groups, d.banks),
        );
    }
    if d.bus_bits == 0 || !d.bus_bits.is_multiple_of(8) {
        k.fail("dram.bus_bits", format!("= {}: must be a positive multiple of 8", d.bus_bits));
    }
    k.at_least("dram.burst_length", d.burst_length, 1);
    // In 64 bits: the two keys' product may not fit the 32 of `Config::dram_burst_bytes`.
    let burst = u64::from(d.bus_bits / 8) * u64::from(d.burst_length);
    let per_burst = format!("bytes per burst (dram.bus_bits / 8 × dram.burst_length = {burst})");
    if !burst.is_power_of_two() {
        k.fail("dram.burst_length", format!("= {}: {per_burst} must be a power of two", d.burst_length));
    } else if burst > u64::from(d.row_bytes) {
        let message = format!(
            "= {}: {per_burst} must be at most a row (dram.row_bytes = {})",
            d.burst_length, d.row_bytes
        );
        k.fail("dram.burst_length", message);
    }
    if !d.row_bytes.is_power_of_two() || d.row_bytes < c.l2.line_bytes {
        k.fail(
            "dram.row_bytes",
            format!("= {}: must be a power of two ≥ the line size ({})", d.row_bytes, c.l2.line_bytes),
        );
    }
    k.pow2("dram.rows", d.rows, 1);
    k.range("dram.read_queue", d.read_queue, 1, MAX_QUEUE);
    k.range("dram.write_queue", d.write_queue, 1, MAX_QUEUE);
    if d.write_high_watermark > d.write_queue || d.write_high_watermark == 0 {
        k.fail(
            "dram.write_high_watermark",
            format!(
                "= {}: must be between 1 and dram.write_queue ({})",
                d.write_high_watermark, d.write_queue
            ),
        );
    }
    if d.write_low_watermark >= d.write_high_watermark {
        k.fail(
            "dram.write_low_watermark",
            format!(
                "= {}: must be below dram.write_high_watermark ({})",
                d.write_low_watermark, d.write_high_watermark
            ),
        );
    }
    scheduler(k, c);
    let t = &d.timing;
    let tck = c.tck_ns();
    for (name, v) in [
        ("t_rc", t.t_rc),
        ("t_rcd", t.t_rcd),
        ("t_rp", t.t_rp),
        ("t_cas", t.t_cas),
        ("t_ras", t.t_ras),
        ("t_rrd", t.t_rrd),
        ("t_wtr", t.t_wtr),
        ("t_faw", t.t_faw),
        ("t_wl", t.t_wl),
        ("t_rtp", t.t_rtp),
        ("t_rtpl", t.t_rtpl),
        ("t_burst", t.t_burst),
        ("t_rtrs", t.t_rtrs),
        ("t_ccdl", t.t_ccdl),
        ("t_ccds", t.t_ccds),
        ("t_wr", t.t_wr),
    ] {
        let bad = match v {
            Time::Ns(ns) => !ns.is_finite() || ns < 0.0,
            Time::Ck(_) => false,
        };
        if bad {
            k.fail(&format!("dram.timing.{name}"), "must be Ns(x) with x ≥ 0, or Ck(n)");
        }
    }
    // A column command needs its row open and its data a cycle later at least: no device has a
    // tRCD or CAS latency of 0 (issue 37.4).
    for (name, v) in [
        ("t_burst", t.t_burst),
        ("t_ccds", t.t_ccds),
        ("t_ccdl", t.t_ccdl),
        ("t_rcd", t.t_rcd),
        ("t_cas", t.t_cas),
    ] {
        if v.cycles(tck) == 0 {
            k.fail(&format!("dram.timing.{name}"), "must be at least one DRAM cycle");
        }
    }
    // A row cycle holds its row open for tRAS at least, so tRC < tRAS is no device. tRC below
    // tRAS + tRP is allowed: Accel-Sim's SM6_TITANX has RC=52 against RAS=37 + RP=16, and a
    // bank waits tRAS + tRP between activates anyway (its precharge in between). Compared in
    // nanoseconds, before each is rounded up to cycles.
    let ns = |v: Time| v.ns(tck);
    if ns(t.t_rc) + 1e-9 < ns(t.t_ras) {
        k.fail(
            "dram.timing.t_rc",
            format!(
                "= {:.2} ns: is shorter than t_ras ({:.2} ns); a row cycle holds its row open for tRAS and then precharges it",
                ns(t.t_rc),
                ns(t.t_ras)
            ),
        );
    }
    if let Some(r) = &d.refresh
        && r.t_refi.cycles(tck) <= r.t_rfc.cycles(tck)
    {
        k.fail("dram.refresh.t_refi", "must be longer than t_rfc");
    }
    let m = &d.mapping;
    if !m.interleave_bytes.is_power_of_two() || m.interleave_bytes < c.l2.line_bytes {
        k.fail(
            "dram.mapping.interleave_bytes",
            format!("= {}: must be a power of two ≥ the line size ({})", m.interleave_bytes, c.l2.line_bytes),
        );
    }
    if m.scheme == MappingScheme::Custom {
        if let Err(msg) = super::CustomFields::parse(&m.custom, c) {
            k.fail("dram.mapping.custom", msg);
        }
    } else if m.scheme == MappingScheme::Xor && m.interleave_bytes > 256 * 1024 {
        k.fail("dram.mapping.interleave_bytes", "must be at most 256 KiB");
    }
    if m.partition_indexing == PartitionIndexing::Ipoly {
        let partitions = d.channels * c.l2.slices_per_channel;
        if m.scheme != MappingScheme::Custom || m.channel_bit.is_none() || !d.channels.is_power_of_two() {
            k.fail(
                "dram.mapping.partition_indexing",
                "= \"ipoly\": needs a custom mapping with channel_bit (GPGPU-Sim's dramid@N) and a power-of-two dram.channels",
            );
        } else if !super::IPOLY_SIZES.contains(&partitions) {
            k.fail(
                "dram.mapping.partition_indexing",
                format!(
                    "= \"ipoly\": dram.channels × l2.slices_per_channel = {partitions}, but the IPOLY hash is defined for 16, 32 or 64 partitions"
                ),
            );
        } else if d.banks < c.l2.slices_per_channel {
            k.fail(
                "dram.mapping.partition_indexing",
                "= \"ipoly\": the slice comes from the lowest bank bits, so dram.banks must be at least l2.slices_per_channel",
            );
        }
    }
    if m.partition_indexing == PartitionIndexing::Random {
        if m.scheme != MappingScheme::Custom || m.channel_bit.is_none() {
            k.fail(
                "dram.mapping.partition_indexing",
                "= \"random\": needs a custom mapping with channel_bit (GPGPU-Sim's dramid@N)",
            );
        } else if !c.l2.slices_per_channel.is_power_of_two() || d.banks < c.l2.slices_per_channel {
            k.fail(
                "dram.mapping.partition_indexing",
                "= \"random\": a line's sub-partition is decoded from the lowest bank bits, so l2.slices_per_channel must be a power of two and at most dram.banks",
            );
        }
        if d.prefetch.enabled {
            k.fail(
                "dram.prefetch.enabled",
                "= true: the row prefetcher reads a row's other lines back from (channel, bank, row, column), which random partition indexing cannot invert; use \"consecutive\" or \"ipoly\"",
            );
        }
    }
}

/// The scheduler's own sections, and what each scheduler needs from the machine.
fn scheduler(k: &mut Checker, c: &Config) {
    let d = &c.dram;
    let name = d.scheduler;
    if name.coordinates() && d.channels < 2 {
        k.fail(
            "dram.scheduler",
            format!(
                "= \"{name}\": coordinates several memory controllers but dram.channels = {}; use \"wg\" for one channel",
                d.channels
            ),
        );
    }
    if name.coordinates() && c.core.count > 256 {
        k.fail(
            "dram.scheduler",
            format!(
                "= \"{name}\": its 32-bit coordination message carries an 8-bit SM id, but core.count = {}",
                c.core.count
            ),
        );
    }
    if name.groups_warps() && c.l2.slices_per_channel > 8 {
        k.fail(
            "dram.scheduler",
            format!(
                "= \"{name}\": warp-group tags track at most 8 L2 slices per channel, but l2.slices_per_channel = {}",
                c.l2.slices_per_channel
            ),
        );
    }
    k.at_least("dram.row_hit_cap", d.row_hit_cap, 1);
    k.range("dram.gmc.cmd_queue_depth", d.gmc.cmd_queue_depth, 1, MAX_QUEUE);
    k.at_least("dram.gmc.max_row_hit_streak", d.gmc.max_row_hit_streak, 1);
    if d.gmc.age_threshold == 0 {
        k.fail("dram.gmc.age_threshold", "= 0: must be at least 1 DRAM cycle");
    }
    if d.warp_aware.incomplete_timeout == 0 {
        k.fail("dram.warp_aware.incomplete_timeout", "= 0: must be at least 1 DRAM cycle");
    }
    let co = &d.coordination;
    k.at_least("dram.coordination.link_bits", co.link_bits, 1);
    k.at_least("dram.coordination.message_bits", co.message_bits, 1);
    k.range("dram.coordination.link_queue", co.link_queue, 1, MAX_QUEUE);
    let a = &d.alpha_sjf;
    if !(a.alpha > 0.0 && a.alpha <= 1.0) {
        k.fail(
            "dram.alpha_sjf.alpha",
            format!("= {}: must be in (0, 1] (the paper uses 0.25, 0.5, 0.75)", a.alpha),
        );
    }
    if !(a.miss_penalty.is_finite() && a.miss_penalty >= 1.0) {
        k.fail(
            "dram.alpha_sjf.miss_penalty",
            format!("= {}: must be at least 1 (row-miss / row-hit service time; GDDR5: 3)", a.miss_penalty),
        );
    }
    let p = &d.prefetch;
    if p.lower > p.higher {
        k.fail(
            "dram.prefetch.lower",
            format!("= {}: must not exceed dram.prefetch.higher ({})", p.lower, p.higher),
        );
    }
    let lines = d.row_bytes / c.l2.line_bytes.max(1);
    if p.enabled && lines > 64 {
        k.fail(
            "dram.prefetch.enabled",
            format!("= true: tracks at most 64 lines per row, but a row holds {lines} (dram.row_bytes / l2.line_bytes)"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_machine_is_valid() {
        assert_eq!(issues(&Config::default()), vec![]);
    }
}
