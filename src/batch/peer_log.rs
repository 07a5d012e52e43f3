//! Reading what GPGPU-Sim / Accel-Sim print at the end of a run, for side-by-side validation.
//!
//! The simulator prints `name = value` statistics after every kernel (`gpu_tot_sim_cycle`,
//! `gpu_tot_ipc`, `L1D_total_cache_miss_rate`, `L2_total_cache_miss_rate`, the cache
//! breakdowns `Total_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = N` (L1) and
//! `L2_cache_stats_breakdown[...]`, `averagemflatency`, … — cumulative over the kernels so far,
//! so the last occurrence is the whole run's), one `Row_Buffer_Locality` and one `n_rd=… bw_util=`
//! line per DRAM channel, and at the very end its wall time (`gpgpu_simulation_time = … (N sec)`)
//! and speed (`gpgpu_simulation_rate = N (cycle/sec)`). A log may also carry `/usr/bin/time -v`
//! output (`Maximum resident set size (kbytes): N`).
//!
//! Read hit rates are taken from the breakdowns when present, as warpscope counts them: hits
//! over global and local reads that hit, merged into a pending miss (`HIT_RESERVED`) or missed
//! (`MISS`, `SECTOR_MISS`) — retries after a reservation failure are not accesses. GPGPU-Sim 4
//! counts 32-byte sectors where warpscope counts lines. Without breakdowns, one minus the
//! `*_total_cache_miss_rate` (which counts writes too).

macro_rules! peer_counters {
    ($($(#[doc = $doc:literal])* $name:ident,)+) => {
        /// The numbers compared with warpscope's report; a counter the log does not have stays
        /// `None`. Stored peer results (`validate --record`) keep them by name.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct PeerStats {
            $($(#[doc = $doc])* pub $name: Option<f64>,)+
        }

        impl PeerStats {
            /// The counters the log had, by name.
            pub fn to_map(&self) -> std::collections::BTreeMap<String, f64> {
                let mut m = std::collections::BTreeMap::new();
                $(if let Some(v) = self.$name {
                    m.insert(stringify!($name).to_string(), v);
                })+
                m
            }

            /// The counters of a map written by [`PeerStats::to_map`]; an unknown name is an
            /// error naming the valid ones.
            pub fn from_map(m: &std::collections::BTreeMap<String, f64>) -> Result<PeerStats, String> {
                let mut s = PeerStats::default();
                for (k, v) in m {
                    match k.as_str() {
                        $(stringify!($name) => s.$name = Some(*v),)+
                        other => return Err(format!(
                            "unknown peer counter `{other}`; valid: {}",
                            [$(stringify!($name)),+].join(", ")
                        )),
                    }
                }
                Ok(s)
            }
        }
    };
}

peer_counters! {
    cycles,
    instructions,
    ipc,
    l1_hit_rate,
    l2_hit_rate,
    /// Read accesses and read misses (`MISS` + `SECTOR_MISS`) of the L1s and of the L2.
    l1_reads,
    l1_read_misses,
    l2_reads,
    l2_read_misses,
    /// DRAM column reads and writes over the channels (`n_rd`; `n_write` + `n_wr_bk`, the L2's
    /// write-backs), and the bytes they moved: each is a burst of the channel's bus width ×
    /// burst length (`busW` × `BL`).
    dram_reads,
    dram_writes,
    dram_read_bytes,
    dram_write_bytes,
    /// Mean latency of requests that missed the L1, core cycles (`averagemflatency`).
    miss_latency,
    /// Mean over the DRAM channels of the last kernel's statistics block.
    row_hit_rate,
    bandwidth_utilization,
    wall_seconds,
    cycles_per_second,
    peak_rss_mb,
}

/// The value after `key` = on a line (`key = 12.5`, `key=12.5`, `key = 12 (cycle/sec)`).
fn value_after(line: &str, key: &str) -> Option<f64> {
    let rest = line.trim_start().strip_prefix(key)?.trim_start().strip_prefix('=')?;
    rest.split_whitespace().next()?.parse().ok()
}

/// Every `key=value` value in a line (`... n_req=5 bw_util=0.0123`).
fn inline_value(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Read accesses and read hits/misses of a cache breakdown (`prefix[SPACE_ACC_R][OUTCOME]`), summed
/// over global and local reads: (accesses, hits, misses).
fn reads(last: &dyn Fn(&str) -> Option<f64>, prefix: &str) -> Option<(f64, f64, f64)> {
    let mut any = false;
    let (mut hits, mut merged, mut misses) = (0.0, 0.0, 0.0);
    for space in ["GLOBAL_ACC_R", "LOCAL_ACC_R"] {
        let get = |outcome: &str| last(&format!("{prefix}[{space}][{outcome}]"));
        if let Some(h) = get("HIT") {
            any = true;
            hits += h;
            merged += get("HIT_RESERVED").unwrap_or(0.0);
            misses += get("MISS").unwrap_or(0.0) + get("SECTOR_MISS").unwrap_or(0.0);
        }
    }
    any.then_some((hits + merged + misses, hits, misses))
}

/// Parses a log; values the log does not have stay `None`.
pub fn parse(log: &str) -> PeerStats {
    let mut s = PeerStats::default();
    let last = |key: &str| log.lines().rev().find_map(|l| value_after(l, key));
    s.cycles = last("gpu_tot_sim_cycle");
    s.instructions = last("gpu_tot_sim_insn");
    s.ipc = last("gpu_tot_ipc");
    for (prefix, total, rate, accesses, misses) in [
        (
            "Total_core_cache_stats_breakdown",
            "L1D_total_cache_miss_rate",
            &mut s.l1_hit_rate,
            &mut s.l1_reads,
            &mut s.l1_read_misses,
        ),
        (
            "L2_cache_stats_breakdown",
            "L2_total_cache_miss_rate",
            &mut s.l2_hit_rate,
            &mut s.l2_reads,
            &mut s.l2_read_misses,
        ),
    ] {
        match reads(&last, prefix) {
            Some((n, hits, missed)) => {
                *rate = (n > 0.0).then(|| hits / n);
                (*accesses, *misses) = (Some(n), Some(missed));
            }
            None => *rate = last(total).map(|m| 1.0 - m),
        }
    }
    s.miss_latency = last("averagemflatency");
    // The DRAM lines of the last statistics block (after the last kernel's cycle count).
    let block = log.rfind("gpu_sim_cycle").map_or(log, |i| &log[i..]);
    let rbl: Vec<f64> = block.lines().filter_map(|l| value_after(l, "Row_Buffer_Locality")).collect();
    let bw: Vec<f64> = block.lines().filter_map(|l| inline_value(l, "bw_util")).collect();
    s.row_hit_rate = mean(&rbl);
    s.bandwidth_utilization = mean(&bw);
    // `DRAM[0]: 16 bks, busW=16 BL=2 CL=12, ...` gives the burst; each channel's `n_rd=` follows.
    let burst = block.lines().find_map(|l| {
        let bus = inline_value(l, "busW")?;
        let bl = l.split_whitespace().find_map(|w| w.strip_prefix("BL=")?.parse::<f64>().ok())?;
        Some(bus * bl)
    });
    let sum = |key: &str| -> Option<f64> {
        let v: Vec<f64> = block.lines().filter_map(|l| inline_value(l, key)).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    };
    let writebacks = sum("n_wr_bk");
    (s.dram_reads, s.dram_writes) = (sum("n_rd"), sum("n_write").map(|w| w + writebacks.unwrap_or(0.0)));
    s.dram_read_bytes = burst.and_then(|b| Some(s.dram_reads? * b));
    s.dram_write_bytes = burst.and_then(|b| Some(s.dram_writes? * b));
    s.wall_seconds = log
        .lines()
        .rev()
        .filter(|l| l.contains("gpgpu_simulation_time"))
        .filter_map(|l| l.rsplit('(').next()?.split_whitespace().next()?.parse().ok())
        .next();
    s.cycles_per_second = log
        .lines()
        .rev()
        .filter(|l| l.contains("(cycle/sec)"))
        .filter_map(|l| value_after(l, "gpgpu_simulation_rate"))
        .next();
    s.peak_rss_mb = log
        .lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .filter_map(|v| v.trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .next();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log in the shape GPGPU-Sim prints it (two kernels; two DRAM channels in the last).
    const LOG: &str = "\
gpu_sim_cycle = 1000
gpu_sim_insn = 64000
gpu_ipc =      64.0000
gpu_tot_sim_cycle = 1000
gpu_tot_sim_insn = 64000
gpu_tot_ipc =      64.0000
L1D_total_cache_miss_rate = 0.5000
L2_total_cache_miss_rate = 0.2000
DRAM[0]: 16 bks, busW=4 BL=8 CL=12, tRCD=12 tRAS=28 tRP=12 tRC=40
n_cmd=100 n_nop=50 n_act=4 n_pre=2 n_ref_event=0 n_req=9 n_rd=9 n_rd_L2_A=0 n_write=0 n_wr_bk=0 bw_util=0.9
Row_Buffer_Locality = 0.900000
gpu_sim_cycle = 3000
gpu_sim_insn = 96000
gpu_tot_sim_cycle = 4000
gpu_tot_sim_insn = 160000
gpu_tot_ipc =      40.0000
L1D_total_cache_miss_rate = 0.2500
L2_total_cache_miss_rate = 0.4000
\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 60
\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT_RESERVED] = 10
\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 20
\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][RESERVATION_FAIL] = 99
\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS] = 10
\tTotal_core_cache_stats_breakdown[LOCAL_ACC_R][HIT] = 0
\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_W][HIT] = 500
averagemflatency = 226
DRAM[0]: 16 bks, busW=4 BL=8 CL=12, tRCD=12 tRAS=28 tRP=12 tRC=40
n_cmd=100 n_nop=50 n_act=4 n_pre=2 n_ref_event=0 n_req=9 n_rd=9 n_rd_L2_A=0 n_write=0 n_wr_bk=0 bw_util=0.1
Row_Buffer_Locality = 0.600000
DRAM[1]: 16 bks, busW=4 BL=8 CL=12, tRCD=12 tRAS=28 tRP=12 tRC=40
n_cmd=100 n_nop=50 n_act=4 n_pre=2 n_ref_event=0 n_req=9 n_rd=9 n_rd_L2_A=0 n_write=0 n_wr_bk=0 bw_util=0.3
Row_Buffer_Locality = 0.800000
gpgpu_simulation_time = 0 days, 0 hrs, 1 min, 5 sec (65 sec)
gpgpu_simulation_rate = 2461 (inst/sec)
gpgpu_simulation_rate = 61 (cycle/sec)
\tMaximum resident set size (kbytes): 204800
";

    #[test]
    fn the_last_totals_and_the_last_blocks_channels() {
        let s = parse(LOG);
        assert_eq!((s.cycles, s.instructions, s.ipc), (Some(4000.0), Some(160000.0), Some(40.0)));
        // L1 reads from the breakdown: 60 hits of 60 + 10 merged + 20 + 10 missed (the 99
        // retries and the writes are not reads); the L2 has no breakdown: 1 − 0.4.
        assert_eq!((s.l1_hit_rate, s.l2_hit_rate), (Some(0.6), Some(0.6)));
        assert_eq!((s.l1_reads, s.l1_read_misses, s.l2_reads), (Some(100.0), Some(30.0), None));
        // Two channels of 9 column reads of 4-byte × BL8 bursts.
        assert_eq!((s.dram_read_bytes, s.miss_latency), (Some(2.0 * 9.0 * 32.0), Some(226.0)));
        assert_eq!((s.dram_reads, s.dram_writes, s.dram_write_bytes), (Some(18.0), Some(0.0), Some(0.0)));
        // Stored by name and read back the same; an unknown name is refused.
        assert_eq!(PeerStats::from_map(&s.to_map()), Ok(s.clone()));
        let mut bad = s.to_map();
        bad.insert("cycels".into(), 1.0);
        assert!(
            PeerStats::from_map(&bad).unwrap_err().contains("unknown peer counter `cycels`; valid: cycles")
        );
        let close = |a: Option<f64>, b: f64| (a.unwrap() - b).abs() < 1e-9;
        assert!(close(s.row_hit_rate, 0.7), "{:?}", s.row_hit_rate);
        assert!(close(s.bandwidth_utilization, 0.2), "{:?}", s.bandwidth_utilization);
        assert_eq!(
            (s.wall_seconds, s.cycles_per_second, s.peak_rss_mb),
            (Some(65.0), Some(61.0), Some(200.0))
        );
        assert_eq!(parse("nothing here"), PeerStats::default());
    }
}
