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

use crate::config::{ConfigError, Origin};
use std::io::{BufRead, Read};

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

impl PeerStats {
    /// Reads of the L1s merged into a pending miss (`HIT_RESERVED`): those that neither hit
    /// nor missed, from the breakdown's counts (a log without one has no reads to count).
    pub fn l1_read_merged(&self) -> Option<f64> {
        merged(self.l1_reads, self.l1_hit_rate, self.l1_read_misses)
    }

    /// Reads of the L2 merged into a pending miss, as [`PeerStats::l1_read_merged`].
    pub fn l2_read_merged(&self) -> Option<f64> {
        merged(self.l2_reads, self.l2_hit_rate, self.l2_read_misses)
    }
}

/// Reads less hits (`rate` of them) and misses, rounded to whole reads.
fn merged(reads: Option<f64>, rate: Option<f64>, misses: Option<f64>) -> Option<f64> {
    let n = reads?;
    Some((n - rate? * n - misses?).round())
}

/// The `key = value` of a line (`key = 12.5`, `key=12.5`, `key = 12 (cycle/sec)`), when its
/// value is a number.
fn key_value(line: &str) -> Option<(&str, f64)> {
    let (key, rest) = line.trim_start().split_once('=')?;
    Some((key.trim_end(), rest.split_whitespace().next()?.parse().ok()?))
}

/// The value after `key` = on a line.
fn value_after(line: &str, key: &str) -> Option<f64> {
    key_value(line).filter(|(k, _)| *k == key).map(|(_, v)| v)
}

/// Every `key=value` value in a line (`... n_req=5 bw_util=0.0123`).
fn inline_value(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

/// The totals whose last value is the whole run's.
const TOTALS: [&str; 6] = [
    "gpu_tot_sim_cycle",
    "gpu_tot_sim_insn",
    "gpu_tot_ipc",
    "L1D_total_cache_miss_rate",
    "L2_total_cache_miss_rate",
    "averagemflatency",
];

/// The cache breakdowns (`prefix[SPACE_ACC_R][OUTCOME]`) and the reads and outcomes counted.
const BREAKDOWNS: [&str; 2] = ["Total_core_cache_stats_breakdown", "L2_cache_stats_breakdown"];
const READ_SPACES: [&str; 2] = ["GLOBAL_ACC_R", "LOCAL_ACC_R"];
const OUTCOMES: [&str; 4] = ["HIT", "HIT_RESERVED", "MISS", "SECTOR_MISS"];

/// A sum of values in the order read, `None` until there is one.
#[derive(Clone, Copy, Debug, Default)]
struct Sum(Option<(f64, u64)>);

impl Sum {
    fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v {
            self.0 = Some(self.0.map_or((v, 1), |(s, n)| (s + v, n + 1)));
        }
    }

    fn total(self) -> Option<f64> {
        self.0.map(|(s, _)| s)
    }

    fn mean(self) -> Option<f64> {
        self.0.map(|(s, n)| s / n as f64)
    }
}

/// The DRAM lines of one statistics block (from a kernel's `gpu_sim_cycle` on): each channel's
/// row-buffer locality, bandwidth use and column commands, and the first channel's burst.
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    row_hits: Sum,
    bandwidth: Sum,
    burst: Option<f64>,
    reads: Sum,
    writes: Sum,
    writebacks: Sum,
}

impl Block {
    fn line(&mut self, l: &str) {
        self.row_hits.add(value_after(l, "Row_Buffer_Locality"));
        self.bandwidth.add(inline_value(l, "bw_util"));
        // `DRAM[0]: 16 bks, busW=16 BL=2 CL=12, ...` gives the burst; each channel's `n_rd=` follows.
        if self.burst.is_none() {
            self.burst = inline_value(l, "busW").and_then(|bus| {
                let bl = l.split_whitespace().find_map(|w| w.strip_prefix("BL=")?.parse::<f64>().ok())?;
                Some(bus * bl)
            });
        }
        self.reads.add(inline_value(l, "n_rd"));
        self.writes.add(inline_value(l, "n_write"));
        self.writebacks.add(inline_value(l, "n_wr_bk"));
    }
}

/// A log read a line at a time, keeping only what [`PeerStats`] needs: the last value of
/// each total and breakdown counter, the last statistics block's DRAM lines, the last wall
/// time, speed and peak memory. Its size is fixed, whatever the log's length.
#[derive(Debug, Default)]
struct Reading {
    /// By [`TOTALS`], then by prefix, space and outcome of [`BREAKDOWNS`].
    last: [Option<f64>; TOTALS.len() + BREAKDOWNS.len() * READ_SPACES.len() * OUTCOMES.len()],
    block: Block,
    wall_seconds: Option<f64>,
    cycles_per_second: Option<f64>,
    peak_rss_kb: Option<f64>,
}

/// The counter `key` keeps its last value in, in [`Reading::last`].
fn counter(key: &str) -> Option<usize> {
    if let Some(i) = TOTALS.iter().position(|t| *t == key) {
        return Some(i);
    }
    let (prefix, rest) = key.split_once('[')?;
    let (space, outcome) = rest.strip_suffix(']')?.split_once("][")?;
    let p = BREAKDOWNS.iter().position(|b| *b == prefix)?;
    let s = READ_SPACES.iter().position(|r| *r == space)?;
    let o = OUTCOMES.iter().position(|x| *x == outcome)?;
    Some(TOTALS.len() + (p * READ_SPACES.len() + s) * OUTCOMES.len() + o)
}

impl Reading {
    fn line(&mut self, l: &str) {
        if let Some((key, v)) = key_value(l)
            && let Some(i) = counter(key)
        {
            self.last[i] = Some(v);
        }
        // The DRAM lines of the last statistics block (after the last kernel's cycle count).
        match l.rfind("gpu_sim_cycle") {
            Some(at) => {
                self.block = Block::default();
                self.block.line(&l[at..]);
            }
            None => self.block.line(l),
        }
        if l.contains("gpgpu_simulation_time")
            && let Some(s) = l.rsplit('(').next().and_then(|t| t.split_whitespace().next()?.parse().ok())
        {
            self.wall_seconds = Some(s);
        }
        if l.contains("(cycle/sec)")
            && let Some(r) = value_after(l, "gpgpu_simulation_rate")
        {
            self.cycles_per_second = Some(r);
        }
        if let Some(kb) =
            l.trim().strip_prefix("Maximum resident set size (kbytes):").and_then(|v| v.trim().parse().ok())
        {
            self.peak_rss_kb = Some(kb);
        }
    }

    fn stats(&self) -> PeerStats {
        let last = |key: &str| counter(key).and_then(|i| self.last[i]);
        let mut s = PeerStats {
            cycles: last("gpu_tot_sim_cycle"),
            instructions: last("gpu_tot_sim_insn"),
            ipc: last("gpu_tot_ipc"),
            miss_latency: last("averagemflatency"),
            ..PeerStats::default()
        };
        for (prefix, total, rate, accesses, misses) in [
            (
                BREAKDOWNS[0],
                "L1D_total_cache_miss_rate",
                &mut s.l1_hit_rate,
                &mut s.l1_reads,
                &mut s.l1_read_misses,
            ),
            (
                BREAKDOWNS[1],
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
        let b = &self.block;
        s.row_hit_rate = b.row_hits.mean();
        s.bandwidth_utilization = b.bandwidth.mean();
        let writebacks = b.writebacks.total();
        (s.dram_reads, s.dram_writes) =
            (b.reads.total(), b.writes.total().map(|w| w + writebacks.unwrap_or(0.0)));
        s.dram_read_bytes = b.burst.and_then(|burst| Some(s.dram_reads? * burst));
        s.dram_write_bytes = b.burst.and_then(|burst| Some(s.dram_writes? * burst));
        s.wall_seconds = self.wall_seconds;
        s.cycles_per_second = self.cycles_per_second;
        s.peak_rss_mb = self.peak_rss_kb.map(|kb| kb / 1024.0);
        s
    }
}

/// Read accesses and read hits/misses of a cache breakdown (`prefix[SPACE_ACC_R][OUTCOME]`), summed
/// over global and local reads: (accesses, hits, misses).
fn reads(last: &dyn Fn(&str) -> Option<f64>, prefix: &str) -> Option<(f64, f64, f64)> {
    let mut any = false;
    let (mut hits, mut merged, mut misses) = (0.0, 0.0, 0.0);
    for space in READ_SPACES {
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

/// The longest line of a peer's log, in bytes: GPGPU-Sim's lines are short (a statistic, a
/// DRAM channel's counters, a mangled kernel name of kilobytes). A longer one is refused once
/// this much of it is read, so a file without line ends is not read into memory whole.
pub const MAX_LOG_LINE_BYTES: u64 = 1 << 20;

/// Reads the peer's log `name` from `log` a line at a time, in memory of a fixed size whatever
/// its length (a log of many kernels is gigabytes); values it does not have stay `None`. A
/// line that is not UTF-8 or longer than [`MAX_LOG_LINE_BYTES`] is refused at its line.
pub fn read(mut log: impl BufRead, name: &str) -> Result<PeerStats, ConfigError> {
    let at = |line: usize, col: usize, message: String| ConfigError {
        origin: Origin::File(name.to_string()),
        position: Some((line, col)),
        key: String::new(),
        message,
    };
    let mut reading = Reading::default();
    let mut buf = Vec::new();
    for i in 1.. {
        buf.clear();
        let n = (&mut log)
            .take(MAX_LOG_LINE_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| ConfigError::cannot_read(name, &e))?;
        if n == 0 {
            break;
        }
        if n as u64 > MAX_LOG_LINE_BYTES {
            let message =
                format!("the line is longer than {} MB, longer than a log's", MAX_LOG_LINE_BYTES >> 20);
            return Err(at(i, 1, message));
        }
        // As `str::lines` ends a line: at `\n`, dropping a `\r` before it.
        let end = match buf.strip_suffix(b"\n") {
            Some(l) => l.strip_suffix(b"\r").unwrap_or(l),
            None => &buf[..],
        };
        let line = std::str::from_utf8(end).map_err(|e| {
            let valid = std::str::from_utf8(&end[..e.valid_up_to()]).unwrap_or_default();
            at(
                i,
                valid.chars().count() + 1,
                format!("expected text (UTF-8), found the byte 0x{:02x}", end[e.valid_up_to()]),
            )
        })?;
        // A byte-order mark some editors write is no part of the text.
        reading.line(if i == 1 { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line });
    }
    Ok(reading.stats())
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

    fn parse(log: &str) -> PeerStats {
        read(log.as_bytes(), "peer.log").unwrap()
    }

    #[test]
    fn the_last_totals_and_the_last_blocks_channels() {
        let s = parse(LOG);
        assert_eq!((s.cycles, s.instructions, s.ipc), (Some(4000.0), Some(160000.0), Some(40.0)));
        // L1 reads from the breakdown: 60 hits of 60 + 10 merged + 20 + 10 missed (the 99
        // retries and the writes are not reads); the L2 has no breakdown: 1 − 0.4.
        assert_eq!((s.l1_hit_rate, s.l2_hit_rate), (Some(0.6), Some(0.6)));
        assert_eq!((s.l1_reads, s.l1_read_misses, s.l2_reads), (Some(100.0), Some(30.0), None));
        assert_eq!((s.l1_read_merged(), s.l2_read_merged()), (Some(10.0), None));
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

    /// A log read a line at a time, whatever its line ends: a statistics block begins mid-line
    /// at its `gpu_sim_cycle`, a byte-order mark is dropped; a line that is not text or has no
    /// end within [`MAX_LOG_LINE_BYTES`] is refused at its line.
    #[test]
    fn lines_are_read_as_text_lines_and_refused_at_their_place() {
        let crlf = LOG.replace('\n', "\r\n");
        assert_eq!(parse(&format!("\u{feff}{crlf}")), parse(LOG));
        let s = parse("n_rd=5 busW=4 BL=8\nx n_rd=6 gpu_sim_cycle n_rd=2 busW=2 BL=2\nn_rd=3");
        assert_eq!((s.dram_reads, s.dram_read_bytes), (Some(5.0), Some(20.0)));
        let e = read(&b"gpu_tot_sim_cycle = 4\nab\xffc\n"[..], "p.log").unwrap_err();
        assert_eq!(e.to_string(), "p.log:2:3: expected text (UTF-8), found the byte 0xff");
        let long = format!("gpu_tot_sim_cycle = 4\n{}", "x".repeat(MAX_LOG_LINE_BYTES as usize + 1));
        let e = read(long.as_bytes(), "p.log").unwrap_err();
        assert!(e.to_string().starts_with("p.log:2:1: the line is longer than 1 MB"), "{e}");
    }

    /// A DRAM channel's column reads, writes and write-backs, bandwidth use and row locality.
    type Channel = (u32, u32, u32, f64, f64);

    /// One kernel's end-of-run statistics as GPGPU-Sim prints them, between progress lines.
    fn kernel_block(cycles: u64, ipc: f64, channels: &[Channel]) -> String {
        let mut b = format!(
            "GPGPU-Sim uArch: cycles simulated: {cycles}  inst.: 7 (ipc= 1.0) sim_rate=3 (inst/sec)\n\
             gpu_sim_cycle = {cycles}\ngpu_tot_sim_cycle = {cycles}\ngpu_tot_ipc =  {ipc}\n"
        );
        for (i, (rd, wr, wb, bw, rbl)) in channels.iter().enumerate() {
            b += &format!(
                "DRAM[{i}]: 16 bks, busW=4 BL=8 CL=12, tRCD=12\n\
                 n_cmd=100 n_nop=50 n_req=9 n_rd={rd} n_rd_L2_A=0 n_write={wr} n_wr_bk={wb} bw_util={bw}\n\
                 Row_Buffer_Locality = {rbl}\n"
            );
        }
        b
    }

    proptest::proptest! {
        #![proptest_config(crate::cases::config(crate::cases::PEER_LOGS))]

        /// A log of any number of kernels, each with its totals and DRAM channels, read a line
        /// at a time: the totals are the last kernel's and the DRAM numbers its channels'.
        #[test]
        fn a_log_of_any_kernels_gives_the_last_ones_numbers(
            kernels in proptest::collection::vec(
                (1u64..1 << 40, 0.0f64..1e4, proptest::collection::vec((0u32..1 << 30, 0u32..1 << 30, 0u32..1 << 20, 0.0f64..1.0, 0.0f64..1.0), 1..5)),
                1..6,
            ),
            crlf in proptest::bool::ANY,
        ) {
            let log: String = kernels.iter().map(|(c, ipc, ch)| kernel_block(*c, *ipc, ch)).collect();
            let log = if crlf { log.replace('\n', "\r\n") } else { log };
            let s = parse(&log);
            let (cycles, ipc, channels) = kernels.last().unwrap();
            let n = channels.len() as f64;
            let sum = |f: &dyn Fn(&Channel) -> f64| channels.iter().map(f).fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a + v)));
            proptest::prop_assert_eq!((s.cycles, s.ipc), (Some(*cycles as f64), Some(*ipc)));
            proptest::prop_assert_eq!(s.dram_reads, sum(&|c| f64::from(c.0)));
            proptest::prop_assert_eq!(s.dram_writes, Some(sum(&|c| f64::from(c.1)).unwrap() + sum(&|c| f64::from(c.2)).unwrap()));
            proptest::prop_assert_eq!(s.dram_read_bytes, Some(s.dram_reads.unwrap() * 32.0));
            proptest::prop_assert_eq!(s.bandwidth_utilization, sum(&|c| c.3).map(|t| t / n));
            proptest::prop_assert_eq!(s.row_hit_rate, sum(&|c| c.4).map(|t| t / n));
        }
    }
}
