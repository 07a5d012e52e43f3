//! `warpscope dram`: Ramulator and DRAMSim3 trace lines, the analytic peak of a pure row-hit
//! stream, idle-cycle skipping that changes nothing, the JSON report and bad-trace errors.

mod common;

use common::cases;
use proptest::prelude::*;
use std::io::Cursor;
use std::process::Command;
use warpscope::batch::dram::{DramOptions, DramRequest, DramTrace, MAX_REQUEST_CYCLE, simulate};
use warpscope::config::Config;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

fn requests(text: &str) -> Vec<DramRequest> {
    let mut t = DramTrace::new(Cursor::new(text.to_string()), "t.trace");
    std::iter::from_fn(|| t.next_request().unwrap()).collect()
}

fn run(config: &Config, text: String, no_skip: bool) -> warpscope::batch::dram::DramModeReport {
    let mut t = DramTrace::new(Cursor::new(text), "t.trace");
    simulate(config, &mut t, &DramOptions { command_trace: None, no_skip }).unwrap().1
}

#[test]
fn reads_ramulator_and_dramsim3_lines() {
    let r = requests("# a comment\n0x1000 R\n\n0x2040 W\n0X80 READ 17\n  0xffff WRITE 20  \n40 r\n");
    assert_eq!(
        r,
        vec![
            DramRequest { addr: 0x1000, write: false, cycle: 0 },
            DramRequest { addr: 0x2040, write: true, cycle: 0 },
            DramRequest { addr: 0x80, write: false, cycle: 17 },
            DramRequest { addr: 0xffff, write: true, cycle: 20 },
            DramRequest { addr: 0x40, write: false, cycle: 0 },
        ]
    );
}

/// The summary speaks of one request in the singular and gives every row a unit, the host's
/// timing included.
#[test]
fn the_summary_counts_in_words_and_names_every_unit() {
    let c = Config::builtin();
    let one = warpscope::batch::dram::summary(&run(&c, "0x1000 R\n".into(), false));
    assert!(one.contains(": 1 request served"), "{one}");
    assert!(one.contains("1 (1 read, 0 writes)"), "{one}");
    let two = warpscope::batch::dram::summary(&run(&c, "0x1000 W\n0x2000 W\n".into(), false));
    assert!(two.contains(": 2 requests served") && two.contains("2 (0 reads, 2 writes)"), "{two}");
    let rows: Vec<&str> = one.lines().skip_while(|l| !l.starts_with("---")).skip(1).collect();
    assert!(rows.len() >= 9, "{one}");
    for row in &rows {
        // Cells are set apart by at least two spaces: a name, a unit and a value.
        let cells: Vec<&str> = row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(cells.len(), 3, "a row without its unit: {row:?}\n{one}");
    }
    assert!(rows.iter().any(|r| r.starts_with("simulation time") && r.contains("s (host)")), "{one}");
}

/// A stream of reads that walks every row of every bank column by column: after each row's
/// activation every access is a row hit, so the data buses should stay busy.
fn row_hit_stream(c: &Config, rows_per_bank: u64) -> String {
    let line = u64::from(c.l2.line_bytes);
    let n = u64::from(c.dram.channels) * u64::from(c.dram.banks) * u64::from(c.dram.row_bytes) / line
        * rows_per_bank;
    (0..n).map(|i| format!("{:#x} R\n", i * line)).collect()
}

#[test]
fn a_pure_row_hit_stream_reaches_the_analytic_peak_bandwidth() {
    let c = Config::builtin();
    // Peak: one burst of bus_bits/8 · burst_length bytes per tBURST on every channel.
    let tck = c.tck_ns();
    let t_burst = warpscope::sim::dram::timing::Timing::from_config(&c).burst as f64;
    let peak = f64::from(c.dram_burst_bytes()) / t_burst * f64::from(c.dram.channels) / tck;
    let r = run(&c, row_hit_stream(&c, 4), false);
    assert!((r.peak_bandwidth_gbps - peak).abs() < 1e-9, "{} vs {peak}", r.peak_bandwidth_gbps);
    assert!(r.dram.metrics.row_hit_rate > 0.95, "row hits {}", r.dram.metrics.row_hit_rate);
    let ratio = r.bandwidth_gbps / peak;
    assert!(ratio > 0.95 && ratio <= 1.0, "{:.1} GB/s of {peak:.1} GB/s ({ratio:.3})", r.bandwidth_gbps);
}

#[test]
fn skipping_idle_cycles_gives_the_same_report_as_ticking_every_cycle() {
    let schedulers =
        warpscope::config::DramSchedulerName::NAMES.iter().map(|n| format!("dram.scheduler={n}"));
    for set in schedulers.chain(["dram.prefetch.enabled=true".to_string()]) {
        skipping_is_exact(&Config::builtin().with_sets(&[set]).unwrap());
    }
}

fn skipping_is_exact(c: &Config) {
    // Sparse requests with cycles (long idle gaps), writes mixed in, and a burst at the end.
    let mut text = String::new();
    for i in 0..300u64 {
        let addr = ((i * 0x9e37_79b9) % (1 << 28)) & !127;
        let w = if i % 3 == 0 { "WRITE" } else { "READ" };
        text.push_str(&format!("{addr:#x} {w} {}\n", i * 97));
    }
    for i in 0..200u64 {
        text.push_str(&format!("{:#x} R\n", i * 4096));
    }
    // Then random lines all at once: full queues, write drains starting and stopping as
    // commands retire requests.
    for i in 0..3000u64 {
        let h = warpscope::workload::hash::hash(7, &[i]);
        let kind = if h.is_multiple_of(3) { 'W' } else { 'R' };
        text.push_str(&format!("{:#x} {kind}\n", (h % (1 << 30)) & !127));
    }
    let mut a = serde_json::to_value(run(c, text.clone(), false)).unwrap();
    let mut b = serde_json::to_value(run(c, text, true)).unwrap();
    for r in [&mut a, &mut b] {
        r["sim"] = serde_json::Value::Null;
    }
    assert_eq!(a, b, "{}", c.name);
    assert_eq!(a["requests"], 3500);
    assert!(a["dram_cycles"].as_u64().unwrap() > 299 * 97, "requests wait for their cycle");
}

#[test]
fn the_cli_writes_a_json_report_and_a_command_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    let json = dir.path().join("r.json");
    let cmds = dir.path().join("cmds.txt");
    let st = Command::new(BIN)
        .args(["dram", "-c", "tests/fixtures/small.ron", "--generate", "random", "--requests", "3000"])
        .arg("--trace")
        .arg(&trace)
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(text.lines().count(), 3000);
    let writes = text.lines().filter(|l| l.ends_with(" W")).count();
    assert!((800..1200).contains(&writes), "about a third are writes: {writes}");
    let out = Command::new(BIN)
        .args(["dram", "-c", "tests/fixtures/small.ron", "-q", "--trace"])
        .arg(&trace)
        .arg("--json")
        .arg(&json)
        .arg("--dram-trace")
        .arg(&cmds)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["requests"], 3000);
    assert_eq!(r["writes"].as_u64().unwrap(), writes as u64);
    assert_eq!(r["dram"]["reads"].as_u64().unwrap() + r["dram"]["writes"].as_u64().unwrap(), 3000);
    for key in ["bandwidth_gbps", "peak_bandwidth_gbps"] {
        assert!(r[key].as_f64().unwrap() > 0.0, "{key}");
    }
    let lat = &r["latency"];
    assert!(
        lat["read_p50"].as_u64() <= lat["read_p99"].as_u64()
            && lat["read_p99"].as_u64() <= lat["read_max"].as_u64()
    );
    assert!(r["sim"]["requests_per_second"].as_f64().unwrap() > 0.0);
    assert!(r["dram"]["row_hit_rate"].as_f64().is_some());
    // Every line read or written needs a column command: at least one RD/WR per request.
    let cmds = std::fs::read_to_string(&cmds).unwrap();
    let cols = cmds.lines().filter(|l| l.contains(" RD ") || l.contains(" WR ")).count();
    assert!(cols >= 3000, "{cols} column commands");
}

#[test]
fn a_bad_trace_line_exits_2_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("bad.trace");
    for (text, line, col, what) in [
        ("0x100 R\n0x200 X\n", 2, 7, "expected R, W, READ or WRITE, found `X`"),
        ("0x100 R\nzz W\n", 2, 1, "expected a hex address (0x...), found `zz`"),
        (
            "0x100 READ 1O\n",
            1,
            12,
            "expected a DRAM cycle (decimal, at most 2^48 = 281474976710656) or the end of the line, found `1O`",
        ),
        ("0x100\n", 1, 6, "expected R, W, READ or WRITE, found the end of the line"),
        ("0x100 W 5 extra\r\n", 1, 11, "expected the end of the line, found `extra`"),
        ("0x1\u{e9} R\n", 1, 1, "expected a hex address (0x...), found `0x1\u{e9}`"),
        ("0x12345678901234567 R\n", 1, 1, "expected a hex address (0x...), found `0x12345678901234567`"),
        (
            "0x100 W 18446744073709551616\n",
            1,
            9,
            "expected a DRAM cycle (decimal, at most 2^48 = 281474976710656) or the end of the line, found `18446744073709551616`",
        ),
        // Past the first batches the reading thread hands over: the error still names its line.
        (
            &format!("{}0x40 R\n0x80 Q\n", "0x40 R\n".repeat(9999)),
            10001,
            6,
            "expected R, W, READ or WRITE, found `Q`",
        ),
    ] {
        std::fs::write(&trace, text).unwrap();
        let out = Command::new(BIN).args(["dram", "--trace"]).arg(&trace).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim(), format!("error: {}:{line}:{col}: {what}", trace.display()), "{text:?}");
    }
    // A byte that is not text is shown as U+FFFD in the token that holds it.
    std::fs::write(&trace, b"0x100 R\n0x2\xff0 W\n").unwrap();
    let out = Command::new(BIN).args(["dram", "--trace"]).arg(&trace).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let want =
        format!("error: {}:2:1: expected a hex address (0x...), found `0x2\u{fffd}0`", trace.display());
    assert_eq!(err.trim(), want);
}

/// `bench --dram` simulates both generated traces from files, as often as asked, and shows
/// every run: the stream is nearly all row hits, the random trace nearly none.
#[test]
fn bench_dram_runs_both_generated_traces() {
    let out =
        Command::new(BIN).args(["bench", "--dram", "--requests", "3000", "--runs", "2"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let row = |name: &str| -> Vec<String> {
        let line =
            text.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name} row:\n{text}"));
        line.split_whitespace().map(String::from).collect()
    };
    let (random, stream) = (row("random"), row("stream"));
    for r in [&random, &stream] {
        assert_eq!(r[1], "3000", "{text}");
        assert_eq!(r.len(), 7, "trace, requests, cycles, hits, two runs, median:\n{text}");
    }
    let hits = |r: &[String]| r[3].trim_end_matches('%').parse::<f64>().unwrap();
    assert!(hits(&stream) > 90.0 && hits(&random) < 5.0, "{text}");
    // It measures DRAM mode alone: a workload or a cycle limit is a mistake, not ignored.
    for extra in [&["-w", "x.ron"][..], &["--max-cycles", "5"]] {
        let out = Command::new(BIN).args(["bench", "--dram"]).args(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"), "{extra:?}");
    }
}

/// `--generate ... --trace -` writes to standard output (it created a file named `-` and, with
/// 2^64 - 1 requests, filled the disk), and ends as soon as its reader does (`| head`).
#[test]
fn a_generated_trace_goes_to_standard_output_and_stops_with_its_reader() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(["dram", "--generate", "stream", "--requests", "5", "--trace", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "0x0 R\n0x80 R\n0x100 R\n0x180 R\n0x200 R\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "no file named - (or any other)");

    let mut endless = Command::new(BIN)
        .current_dir(dir.path())
        .args(["dram", "--generate", "random", "--requests", "18446744073709551615", "--trace", "-"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(endless.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("0x") && (first.ends_with(" R") || first.ends_with(" W")), "{first}");
    drop(lines);
    // The writer sees a broken pipe and stops; give it far longer than that takes.
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = endless.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            endless.kill().unwrap();
            panic!("the generator kept writing after its reader left");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "a reader that leaves is no error: {status}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A trace line is at most `MAX_LINE_BYTES` long (issue 37.1): an endless line (`--trace
/// /dev/zero`) is refused at its line once that many bytes are read, a line of exactly that
/// length is read, and the command exits 2 naming the line.
#[test]
fn an_endless_line_is_refused_at_the_length_limit() {
    use warpscope::batch::dram::MAX_LINE_BYTES;
    let endless = std::io::BufReader::new(std::io::Read::chain(
        Cursor::new(b"0x40 R\n".to_vec()),
        std::io::repeat(b'0'),
    ));
    let mut t = DramTrace::new(endless, "zero");
    assert!(t.next_request().unwrap().is_some());
    let e = t.next_request().unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "zero:2:1: the line is longer than {MAX_LINE_BYTES} bytes; a request reads `0x<addr> <R|W> [cycle]`"
        )
    );
    let padded = format!("0x80 W{}\n", " ".repeat(MAX_LINE_BYTES as usize - 6));
    assert_eq!(padded.len() as u64, MAX_LINE_BYTES + 1, "the line and its newline");
    assert_eq!(requests(&padded).len(), 1);
    let out = Command::new(BIN).args(["dram", "--trace", "/dev/zero"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/dev/zero:1:1: the line is longer than"));
}

/// OWL's prefetching fills the L2, which DRAM-only mode has not: refused before the trace is
/// read (issue 37.4; it was silently accepted), exit 2 naming the key.
#[test]
fn prefetching_without_an_l2_is_refused() {
    let out = Command::new(BIN)
        .args(["dram", "--trace", "/dev/zero", "--set", "dram.prefetch.enabled=true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: dram.prefetch.enabled: DRAM-only mode has no L2"), "{err}");
}

proptest! {
    #![proptest_config(cases::config(cases::DRAM_TRACE_BYTES))]

    /// Any bytes as a trace, generated as a class (issue 37.6): the reader never panics, and
    /// every error names the trace, a line and a column.
    #[test]
    fn any_bytes_read_as_requests_or_a_positioned_error(lines in proptest::collection::vec(
        prop_oneof![
            proptest::string::string_regex("0x[0-9a-f]{1,17} (R|W|READ|WRITE|X)( [0-9]{1,21})?( x)?").unwrap(),
            proptest::collection::vec(any::<u8>(), 0..64)
                .prop_map(|b| String::from_utf8_lossy(&b).replace('\n', " ")),
        ],
        0..12,
    )) {
        let text = lines.join("\n");
        let mut t = DramTrace::new(Cursor::new(text.clone()), "t.trace");
        for _ in 0..=lines.len() {
            match t.next_request() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    let e = e.to_string();
                    prop_assert!(e.starts_with("t.trace:"), "{e}");
                    let pos: Vec<&str> = e.splitn(4, ':').collect();
                    prop_assert!(pos[1].parse::<usize>().is_ok() && pos[2].parse::<usize>().is_ok(), "{e}");
                    break;
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(cases::config(cases::DRAM_REQUEST_CYCLES))]

    /// Request cycles anywhere in 64 bits (issue 37.1): a cycle above 2^48 is refused at its
    /// line and column; a trace at or below it, however far apart its requests, is served
    /// whole, and a read far out takes as long as at cycle 0 (the controller skips the idle
    /// gap; a cycle near 2^64 overflowed its arithmetic).
    #[test]
    fn request_cycles_are_bounded_and_far_ones_are_served(cycles in proptest::collection::vec(
        prop_oneof![
            0u64..10_000,
            Just(MAX_REQUEST_CYCLE - 1),
            Just(MAX_REQUEST_CYCLE),
            Just(MAX_REQUEST_CYCLE + 1),
            Just(u64::MAX),
        ],
        1..6,
    )) {
        let text: String = cycles.iter().enumerate().map(|(i, c)| format!("0x{:x} R {c}\n", 0x1000 * (i + 1))).collect();
        let config = Config::default();
        match cycles.iter().position(|&c| c > MAX_REQUEST_CYCLE) {
            Some(i) => {
                let mut t = DramTrace::new(Cursor::new(text.clone()), "t.trace");
                let e = std::iter::from_fn(|| t.next_request().transpose()).find_map(Result::err).expect("refused");
                let col = format!("0x{:x} R ", 0x1000 * (i + 1)).len() + 1;
                prop_assert!(e.to_string().starts_with(&format!("t.trace:{}:{col}: expected a DRAM cycle", i + 1)), "{e}");
            }
            None => {
                let r = run(&config, text, false);
                prop_assert_eq!(r.reads, cycles.len() as u64);
                // Without refresh nothing depends on the absolute cycle: a read alone at the
                // latest cycle takes as long as at cycle 0 (tRCD and CAS kept near 2^48 too).
                let last = *cycles.iter().max().unwrap();
                let alone = |c: u64| run(&config, format!("0x1000 R {c}\n"), false);
                let (far, first) = (alone(last), alone(0));
                prop_assert_eq!(&far.latency, &first.latency);
                prop_assert_eq!(far.dram_cycles - last, first.dram_cycles);
            }
        }
    }
}

/// The default machine with all-bank refresh every 2,000 DRAM cycles (tRFC 120).
fn refreshing() -> Config {
    Config::builtin()
        .with_sets(&["dram.refresh=Some((t_refi: Ck(2000), t_rfc: Ck(120)))".to_string()])
        .unwrap()
}

fn without_host_time(r: &warpscope::batch::dram::DramModeReport) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v["sim"] = serde_json::Value::Null;
    v
}

/// Idle gaps of many refresh intervals, some requests landing just before or on a REF and
/// bursts meeting a refresh with rows open: the refreshes leapt while idle give the report of
/// ticking every cycle (issue 37.1: a request far out no longer simulates each REF), ending
/// with the last request's data.
#[test]
fn leaping_idle_refreshes_gives_the_same_report_as_ticking_every_cycle() {
    let c = refreshing();
    let mut text = String::new();
    let mut cycle = 0u64;
    for i in 0..40u64 {
        // Gaps of 0 to 12 intervals, give or take a few cycles around a REF.
        cycle += (i * 7 % 13) * 2000 + [0, 1, 1999, 2000, 2001, 37][i as usize % 6];
        for j in 0..1 + i % 4 {
            let addr = (warpscope::workload::hash::hash(3, &[i, j]) % (1 << 28)) & !127;
            let w = if (i + j) % 3 == 0 { 'W' } else { 'R' };
            text.push_str(&format!("{addr:#x} {w} {cycle}\n"));
        }
    }
    let leapt = run(&c, text.clone(), false);
    assert!(leapt.dram.commands.refresh > 12 * 100, "{:?}", leapt.dram.commands);
    assert_eq!(without_host_time(&leapt), without_host_time(&run(&c, text, true)));
}

/// A read whole refresh intervals later takes as long as the first and meets exactly one more
/// REF per interval on every channel; at the latest request cycle this is served at once
/// rather than after hours of refreshes. A command trace, which needs every REF line and so
/// does not leap, gives the same report, one REF line per refresh counted.
#[test]
fn a_read_far_out_with_refresh_meets_one_ref_per_interval() {
    let c = refreshing();
    let channels = u64::from(c.dram.channels);
    let alone = |cycle: u64| run(&c, format!("0x1000 R {cycle}\n"), false);
    let near = alone(2_345);
    for far in [2_345 + 2000 * 5_000, 2_345 + 2000 * ((MAX_REQUEST_CYCLE - 2_345) / 2000)] {
        let r = alone(far);
        assert_eq!(r.latency, near.latency, "at {far}");
        assert_eq!(r.dram_cycles - far, near.dram_cycles - 2_345, "at {far}");
        let more = r.dram.commands.refresh - near.dram.commands.refresh;
        assert_eq!(more, channels * (far - 2_345) / 2000, "at {far}");
    }
    let dir = tempfile::tempdir().unwrap();
    let cmds = dir.path().join("cmds.txt");
    let text = format!("0x1000 R 100\n0x2000 W {}\n", 100 + 2000 * 5_000 + 7);
    let mut t = DramTrace::new(Cursor::new(text.clone()), "t.trace");
    let opts = DramOptions { command_trace: Some(cmds.to_str().unwrap().into()), no_skip: false };
    let traced = simulate(&c, &mut t, &opts).unwrap().1;
    assert_eq!(without_host_time(&traced), without_host_time(&run(&c, text, false)));
    let lines = std::fs::read_to_string(&cmds).unwrap();
    let refs = lines.lines().filter(|l| l.contains("REF")).count() as u64;
    assert_eq!(refs, traced.dram.commands.refresh);
    assert!(refs >= channels * 5_000, "{refs}");
}
