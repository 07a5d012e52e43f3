//! `warpscope dram`: a DRAM address trace fed straight to the memory controllers, without the
//! GPU — the input of the usual DRAM simulators. One request per line, in the formats of
//! Ramulator (`0x12345680 R`) and DRAMSim3 (`0x12345680 READ 1203`):
//!
//! ```text
//! 0x<address> <R|W|READ|WRITE> [DRAM cycle]
//! ```
//!
//! Blank lines and `#` comments are skipped. Requests enter in trace order, each no earlier
//! than its cycle (none given: as soon as possible), each controller taking at most one per
//! DRAM cycle (as from its L2 slices in the GPU); a request whose controller queue is full
//! holds back the ones behind it, as in both simulators' trace front ends. Every request is one
//! line (`l2.line_bytes`) at the address's channel, bank, row and column under the configured
//! mapping. The trace is read as it is consumed, so its size does not matter.
//!
//! Cycles in which no controller can issue a command and no request can enter are skipped in
//! one step ([`Controller::skip_to`]), and so are the refreshes of a controller idle until the
//! next request's cycle ([`Controller::leap_refreshes`]); the statistics stay exactly those of
//! ticking them. A DRAM command trace gets every REF line, so writing it costs time in
//! proportion to the refreshes (one per tREFI per channel).

use super::run::write_command;
use crate::config::{Config, ConfigError, Origin};
use crate::output::Output;
use crate::sim::dram::Controller;
use crate::sim::dram::mapping::{AddressMap, DramLocation};
use crate::sim::ledger::Ledger;
use crate::sim::request::{AccessKind, MemRequest};
use crate::sim::stats::Histogram;
use crate::sim::stats::keys::Unit;
use crate::sim::stats::metrics::{count, decimal, group};
use crate::sim::stats::report::{DramReport, dram_report};
use crate::sim::{Event, EventKind, EventSink};
use anyhow::Result;
use serde::Serialize;
use std::io::{BufRead, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Instant;

/// One request of a DRAM trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DramRequest {
    pub addr: u64,
    pub write: bool,
    /// Earliest DRAM cycle it may enter (0 = at once).
    pub cycle: u64,
}

/// Reads a DRAM trace lazily, one request at a time. Lines are parsed as bytes (a trace is
/// ASCII; a stray byte shows up in the error of the token holding it), without the digest and
/// UTF-8 pass of the Accel-Sim reader: at a million lines, reading is a fifth of DRAM mode.
pub struct DramTrace<R> {
    reader: R,
    buf: Vec<u8>,
    /// Number of the last line read (1-based).
    line: usize,
    name: String,
}

#[cold]
fn token_error(name: &str, line: usize, col: usize, tok: &[u8], what: &str) -> ConfigError {
    ConfigError {
        origin: Origin::File(name.to_string()),
        position: Some((line, col)),
        key: String::new(),
        message: match tok {
            [] => format!("expected {what}, found the end of the line"),
            _ => format!(
                "expected {what}, found {}",
                crate::workload::accelsim::line::shown(&String::from_utf8_lossy(tok))
            ),
        },
    }
}

/// The whitespace-separated tokens of a line, with their 1-based columns.
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Tokens<'a> {
    /// The next token and its column; at the end, an empty token at the end of the line.
    fn next(&mut self) -> (usize, &'a [u8]) {
        let t = self.text;
        while self.at < t.len() && t[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        let start = self.at;
        while self.at < t.len() && !t[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        (start + 1, &t[start..self.at])
    }
}

/// Parses one trace line, without its terminator (`None` for blank lines and comments).
pub fn parse_line(name: &str, line: usize, text: &[u8]) -> Result<Option<DramRequest>, ConfigError> {
    let mut toks = Tokens { text, at: 0 };
    let (col, a) = toks.next();
    if a.is_empty() || a[0] == b'#' {
        return Ok(None);
    }
    let digits = a.strip_prefix(b"0x").or_else(|| a.strip_prefix(b"0X")).unwrap_or(a);
    let Some(addr) = parse_hex(digits) else {
        return Err(token_error(name, line, col, a, "a hex address (0x...)"));
    };
    let (col, kind) = toks.next();
    let write = match kind {
        b"R" | b"READ" | b"r" | b"read" => false,
        b"W" | b"WRITE" | b"w" | b"write" => true,
        _ => return Err(token_error(name, line, col, kind, "R, W, READ or WRITE")),
    };
    let (col, c) = toks.next();
    let cycle = match c {
        [] => 0,
        _ => match parse_decimal(c) {
            Some(v) if v <= MAX_REQUEST_CYCLE => v,
            _ => {
                let what = "a DRAM cycle (decimal, at most 2^48 = 281474976710656) or the end of the line";
                return Err(token_error(name, line, col, c, what));
            }
        },
    };
    match toks.next() {
        (_, []) => Ok(Some(DramRequest { addr, write, cycle })),
        (col, extra) => Err(token_error(name, line, col, extra, "the end of the line")),
    }
}

/// 1 to 16 hex digits.
fn parse_hex(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &d in digits {
        let x = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        v = v << 4 | u64::from(x);
    }
    Some(v)
}

/// Decimal digits that fit a u64.
fn parse_decimal(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |v, &d| match d {
        b'0'..=b'9' => v.checked_mul(10)?.checked_add(u64::from(d - b'0')),
        _ => None,
    })
}

/// The longest line of a DRAM trace, in bytes (a request line reads about 30): a longer one is
/// refused before more of it is held in memory (issue 37.1: `dram --trace /dev/zero` read one
/// endless line until the allocation aborted).
pub const MAX_LINE_BYTES: u64 = 4096;

impl<R: BufRead> DramTrace<R> {
    pub fn new(reader: R, name: &str) -> DramTrace<R> {
        DramTrace { reader, buf: Vec::with_capacity(64), line: 0, name: name.to_string() }
    }

    /// The next request, or `None` at the end of the trace.
    pub fn next_request(&mut self) -> Result<Option<DramRequest>, ConfigError> {
        loop {
            self.buf.clear();
            let at = |message: String| ConfigError {
                origin: Origin::File(self.name.clone()),
                position: Some((self.line + 1, 1)),
                key: String::new(),
                message,
            };
            let n = <&mut R as Read>::take(&mut self.reader, MAX_LINE_BYTES + 1)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| at(format!("cannot read: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            if n as u64 > MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
                return Err(at(format!(
                    "the line is longer than {MAX_LINE_BYTES} bytes; a request reads `0x<addr> <R|W> [cycle]`"
                )));
            }
            self.line += 1;
            let mut text = &self.buf[..];
            if let Some(t) = text.strip_suffix(b"\n") {
                text = t.strip_suffix(b"\r").unwrap_or(t);
            }
            if let Some(r) = parse_line(&self.name, self.line, text)? {
                return Ok(Some(r));
            }
        }
    }
}

/// Requests per batch handed from the reading thread to the simulating one.
const BATCH: usize = 4096;

/// A request and where the address map places it (the reading thread maps it too).
#[derive(Clone, Copy, Debug)]
struct Placed {
    req: DramRequest,
    loc: DramLocation,
}

/// What the reading thread sends: a batch of requests in trace order, or the error that ends
/// the trace.
type Batch = Result<Vec<Placed>, ConfigError>;

impl<R: BufRead> DramTrace<R> {
    /// Parses and maps the whole trace into batches, until its end, an error (sent last), or
    /// until the receiver hangs up.
    fn read_ahead(&mut self, map: &AddressMap, tx: SyncSender<Batch>) {
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            match self.next_request() {
                Ok(Some(req)) => {
                    batch.push(Placed { req, loc: map.map(req.addr) });
                    if batch.len() == BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                        if tx.send(Ok(full)).is_err() {
                            return;
                        }
                    }
                }
                Ok(None) => return drop(tx.send(Ok(batch))),
                Err(e) => {
                    if tx.send(Ok(batch)).is_ok() {
                        drop(tx.send(Err(e)));
                    }
                    return;
                }
            }
        }
    }
}

/// The simulating thread's end of the trace: the requests the reading thread parsed, in order.
struct ReadAhead {
    rx: Receiver<Batch>,
    batch: std::vec::IntoIter<Placed>,
}

impl ReadAhead {
    fn next_request(&mut self) -> Result<Option<Placed>, ConfigError> {
        loop {
            if let Some(r) = self.batch.next() {
                return Ok(Some(r));
            }
            match self.rx.recv() {
                Ok(batch) => self.batch = batch?.into_iter(),
                // The reader finished: the trace ended.
                Err(_) => return Ok(None),
            }
        }
    }
}

/// Options of a DRAM-only run.
#[derive(Clone, Debug, Default)]
pub struct DramOptions {
    /// Write every DRAM command here.
    pub command_trace: Option<String>,
    /// Tick every cycle, and let every controller schedule in every cycle, instead of skipping
    /// idle ones (to check that skipping is exact).
    pub no_skip: bool,
}

/// Latency of requests, queue entry → last data beat, in DRAM cycles.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LatencyReport {
    pub read_mean: f64,
    pub read_p50: u64,
    pub read_p90: u64,
    pub read_p99: u64,
    pub read_max: u64,
    /// Mean read latency in nanoseconds.
    pub read_mean_ns: f64,
    pub write_mean: f64,
}

/// Simulation speed of a DRAM-only run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DramSimReport {
    pub wall_seconds: f64,
    pub requests_per_second: f64,
    pub cycles_per_second: f64,
}

/// What `warpscope dram --json` writes.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DramModeReport {
    pub config: String,
    pub trace: String,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// DRAM command-clock cycles until the last request finished.
    pub dram_cycles: u64,
    /// Bytes moved / time, and the channels' peak (one burst per tBURST on every channel).
    pub bandwidth_gbps: f64,
    pub peak_bandwidth_gbps: f64,
    pub latency: LatencyReport,
    /// The same keys as `run --json`'s `dram` object.
    pub dram: DramReport,
    pub sim: DramSimReport,
}

/// The latest cycle a trace request may name (2^48 DRAM cycles, days of simulated time at any
/// clock): the controllers' cycle arithmetic stays far from overflow.
pub const MAX_REQUEST_CYCLE: u64 = 1 << 48;

/// What DRAM-only mode cannot run: OWL's opportunistic prefetching (`dram.prefetch`) reads
/// open rows into the L2, and this mode has no L2 to fill.
pub fn check_machine(config: &Config) -> Result<(), ConfigError> {
    if config.dram.prefetch.enabled {
        return Err(ConfigError::argument(
            "dram.prefetch.enabled",
            "DRAM-only mode has no L2 for prefetched lines to fill; run the trace without prefetching, or prefetch in a `run` of the whole GPU",
        ));
    }
    Ok(())
}

/// Runs a DRAM trace through the configured controllers until every request is served.
///
/// The trace is parsed on a second thread, a few batches ahead of the simulation (reading
/// is a fifth of the work on a row-hit stream); requests still enter in trace order, so
/// results do not depend on it.
pub fn simulate<R: BufRead + Send>(
    config: &Config,
    trace: &mut DramTrace<R>,
    opts: &DramOptions,
) -> Result<(Vec<Controller>, DramModeReport)> {
    let name = trace.name.clone();
    let map = AddressMap::new(config);
    std::thread::scope(|s| {
        let (tx, rx) = sync_channel(4);
        s.spawn(|| trace.read_ahead(&map, tx));
        feed(config, &mut ReadAhead { rx, batch: Vec::new().into_iter() }, &name, opts)
    })
}

/// [`simulate`]'s loop: requests in, controllers ticked (or idle cycles skipped) until all
/// are served.
fn feed(
    config: &Config,
    trace: &mut ReadAhead,
    name: &str,
    opts: &DramOptions,
) -> Result<(Vec<Controller>, DramModeReport)> {
    let channels = config.dram.channels as usize;
    let mut mcs: Vec<Controller> = (0..channels).map(|i| Controller::new(config, i as u16)).collect();
    for mc in &mut mcs {
        mc.skip_idle = !opts.no_skip;
    }
    let mut sink = EventSink::default();
    let mut out = match &opts.command_trace {
        Some(p) => {
            sink.set(EventKind::DramCommand, true);
            Some(Output::open(p)?)
        }
        None => None,
    };
    let groups = config.dram.bank_groups as u8;
    let line_bytes = u64::from(config.l2.line_bytes);
    // The cycle each channel last accepted a request.
    let mut fed = vec![u64::MAX; channels];
    let mut head = trace.next_request()?;
    let mut ledger = Ledger::default();
    let mut now = 0u64;
    let start = Instant::now();
    loop {
        while let Some(Placed { req: r, loc }) = head {
            if r.cycle > now {
                break;
            }
            let ch = loc.channel as usize;
            if fed[ch] == now || !mcs[ch].can_accept(r.write) {
                break;
            }
            let req = MemRequest {
                id: ledger.create(),
                kind: if r.write { AccessKind::Writeback } else { AccessKind::Load },
                addr: r.addr & !(line_bytes - 1),
                bytes: line_bytes as u32,
                lanes: 0,
                origin: Default::default(),
                loc,
                trace: Default::default(),
            };
            mcs[ch].enqueue(req, now);
            fed[ch] = now;
            head = trace.next_request()?;
        }
        if finished(head, &mcs) {
            break;
        }
        for mc in &mut mcs {
            mc.tick(now, &mut sink, &mut ledger);
            while mc.pop_completed().is_some() {}
        }
        if let Some(o) = &mut out {
            for (_, e) in sink.drain() {
                if let Event::DramCommand { channel, dram_cycle, cmd } = e {
                    write_command(o, groups, channel, dram_cycle, &cmd)?;
                }
            }
        }
        now += 1;
        if !opts.no_skip && !finished(head, &mcs) {
            // Idle until the next request: the refreshes in between take no time to simulate.
            if let Some(Placed { req, .. }) = head
                && req.cycle > now
            {
                for mc in &mut mcs {
                    mc.leap_refreshes(req.cycle, &sink);
                }
            }
            let next = next_event(&mcs, head, now);
            if next > now && next != u64::MAX {
                for mc in &mut mcs {
                    mc.skip_to(next);
                }
                now = next;
            }
        }
    }
    let wall = start.elapsed().as_secs_f64();
    if let Some(o) = out {
        o.finish()?;
    }
    let report = report(config, name, &mcs, now, wall);
    Ok((mcs, report))
}

/// Whether every request has entered and been served (the run ends at this cycle).
fn finished(head: Option<Placed>, mcs: &[Controller]) -> bool {
    head.is_none() && mcs.iter().all(Controller::is_idle)
}

/// The first cycle ≥ `now` at which anything can happen: a controller can issue (or refresh)
/// or a read's data is complete, or the head request can enter (its cycle has come and its
/// controller has room).
fn next_event(mcs: &[Controller], head: Option<Placed>, now: u64) -> u64 {
    let mut t = u64::MAX;
    for mc in mcs {
        // A read whose last data beat arrives ends (maybe ending the run) in the tick before.
        let completion = mc.next_completion().map_or(u64::MAX, |done| done.saturating_sub(1));
        t = t.min(mc.next_activity()).min(completion);
        if t <= now {
            return now;
        }
    }
    if let Some(Placed { req, loc }) = head {
        // A full queue only frees when its controller issues, which is counted above.
        if mcs[loc.channel as usize].can_accept(req.write) {
            t = t.min(req.cycle.max(now));
        }
    }
    t
}

fn report(config: &Config, trace: &str, mcs: &[Controller], cycles: u64, wall: f64) -> DramModeReport {
    let mut hist = Histogram::default();
    let (mut write_sum, mut writes, mut reads) = (0u64, 0u64, 0u64);
    for mc in mcs {
        hist.merge(&mc.stats.read_latency);
        write_sum += mc.stats.write_latency_sum;
        writes += mc.stats.writes;
        reads += mc.stats.reads;
    }
    let requests = reads + writes;
    let tck = config.tck_ns();
    let seconds = cycles as f64 * tck * 1e-9;
    let line = f64::from(config.l2.line_bytes);
    let t = crate::sim::dram::timing::Timing::from_config(config);
    let peak_bytes_per_cycle = f64::from(config.dram_burst_bytes()) / t.burst.max(1) as f64;
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    DramModeReport {
        config: config.name.clone(),
        trace: trace.to_string(),
        requests,
        reads,
        writes,
        dram_cycles: cycles,
        bandwidth_gbps: ratio(requests as f64 * line, seconds) / 1e9,
        peak_bandwidth_gbps: peak_bytes_per_cycle * mcs.len() as f64 / tck,
        latency: LatencyReport {
            read_mean: hist.mean(),
            read_p50: hist.quantile(0.5),
            read_p90: hist.quantile(0.9),
            read_p99: hist.quantile(0.99),
            read_max: hist.max,
            read_mean_ns: hist.mean() * tck,
            write_mean: ratio(write_sum as f64, writes as f64),
        },
        dram: dram_report(config, mcs),
        sim: DramSimReport {
            wall_seconds: wall,
            requests_per_second: ratio(requests as f64, wall),
            cycles_per_second: ratio(cycles as f64, wall),
        },
    }
}

/// The human summary of a DRAM-only run.
pub fn summary(r: &DramModeReport) -> String {
    let n = |v: u64| group(v as i64);
    let rows = vec![
        (
            "requests",
            "count",
            format!("{} ({}, {})", n(r.requests), count(r.reads, "read"), count(r.writes, "write")),
        ),
        ("run time", "DRAM cycles", n(r.dram_cycles)),
        (
            "bandwidth",
            "GB/s",
            format!("{} of {} peak", decimal(r.bandwidth_gbps, 1), decimal(r.peak_bandwidth_gbps, 1)),
        ),
        ("bus utilization", "%", decimal(r.dram.metrics.bandwidth_utilization * 100.0, 1)),
        (
            "row hits / misses / conflicts",
            "%",
            format!(
                "{} / {} / {}",
                decimal(r.dram.metrics.row_hit_rate * 100.0, 1),
                decimal(r.dram.row_miss_rate * 100.0, 1),
                decimal(r.dram.row_conflict_rate * 100.0, 1)
            ),
        ),
        (
            "read latency mean",
            "DRAM cycles",
            format!("{} ({} ns)", decimal(r.latency.read_mean, 1), decimal(r.latency.read_mean_ns, 1)),
        ),
        (
            "read latency p50 / p90 / p99 / max",
            "DRAM cycles",
            format!(
                "{} / {} / {} / {}",
                n(r.latency.read_p50),
                n(r.latency.read_p90),
                n(r.latency.read_p99),
                n(r.latency.read_max)
            ),
        ),
        ("write latency mean", "DRAM cycles", decimal(r.latency.write_mean, 1)),
        ("simulation time", Unit::Seconds.name(), decimal(r.sim.wall_seconds, Unit::Seconds.decimals())),
        ("simulation speed", "requests/s (host)", decimal(r.sim.requests_per_second, 0)),
        ("simulation speed", "DRAM cycles/s (host)", decimal(r.sim.cycles_per_second, 0)),
    ];
    let rows: Vec<Vec<String>> =
        rows.into_iter().map(|(k, u, v)| vec![k.to_string(), u.to_string(), v]).collect();
    format!(
        "{} × {}: {} served\n\n{}",
        r.config,
        r.trace,
        count(r.requests, "request"),
        super::table::render(&["metric".into(), "unit".into(), "value".into()], &rows)
    )
}

/// Synthetic traces for the benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pattern {
    /// Uniformly random line addresses over the whole memory, one in three a write.
    Random,
    /// A sequential stream of 128-byte reads.
    Stream,
}

/// Writes `n` requests of `pattern` in Ramulator's format (`0x<addr> R|W`).
pub fn generate(config: &Config, pattern: Pattern, n: u64, out: &mut impl Write) -> std::io::Result<()> {
    let d = &config.dram;
    let capacity = u64::from(d.channels) * u64::from(d.banks) * u64::from(d.rows) * u64::from(d.row_bytes);
    let line = u64::from(config.l2.line_bytes);
    let mut w = std::io::BufWriter::new(out);
    for i in 0..n {
        let (addr, write) = match pattern {
            Pattern::Random => {
                let h = crate::workload::hash::hash(0xd7a, &[i]);
                (h % capacity / line * line, crate::workload::hash::mix(h).is_multiple_of(3))
            }
            Pattern::Stream => (i * 128, false),
        };
        writeln!(w, "{addr:#x} {}", if write { 'W' } else { 'R' })?;
    }
    w.flush()
}
