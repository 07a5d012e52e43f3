//! The command line as a user drives it: exit codes, stable JSON keys, the DRAM command
//! trace (checked against GDDR5 timing end to end), compare output, error messages.

mod common;

use common::timing_checker::{Cmd, check};
use std::process::Command;
use warpscope::sim::dram::command::CommandKind;
use warpscope::sim::dram::timing::Timing;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const SMALL: &str = "tests/fixtures/small.ron";
const TINY: &str = "tests/fixtures/tiny.ron";

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Keys of `run --json` (docs/report-keys.md).
const KEYS: &[&str] = &[
    "cycles",
    "warp_instructions",
    "ipc",
    "l1.hit_rate",
    "l2.hit_rate",
    "l1.miss_rate",
    "dram.row_hit_rate",
    "dram.bandwidth_utilization",
    "memory.avg_latency",
    "memory.requests_per_load",
    "memory.effective_latency_mean",
    "memory.latency_divergence_mean",
    "memory.channels_per_load_mean",
    "memory.banks_per_load_mean",
    "memory.occlusion_cycles_per_load",
    "memory.occlusion_share.divergent",
    "memory.l2_hit_latency_mean",
    "core.stall_cycles",
    "core.stall_share.data_mem",
    "core.stall_share.str_mem",
    "core.cycle_share.issued",
    "core.ldst_share.mshr",
    "core.memory_block_rate",
    "core.no_warp_rate",
    "core.policy.held_rate",
    "core.scheduler_occupancy.top3",
    "l1.reuse.p1.depth_mean",
    "l1.reuse.p3_up.self_first_hit_rate",
    "l1.stall_share.mshr",
    "l2.stall_share.response",
    "l2.access_queue_occupancy.full",
    "dram.read_queue_occupancy.upto_25",
    "dram.write_queue_occupancy.full",
    "sim.cycles_per_second",
];

fn get<'a>(v: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    key.split('.').fold(v, |v, k| &v[k])
}

#[test]
fn run_writes_json_and_a_dram_trace_that_obeys_gddr5_timing() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let trace = dir.path().join("dram.txt");
    let (code, stdout, stderr) = run(&[
        "run",
        "-c",
        SMALL,
        "-w",
        TINY,
        "--json",
        json.to_str().unwrap(),
        "--dram-trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("small × tiny: done in"), "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for k in KEYS {
        assert!(get(&report, k).is_number(), "missing report key {k}");
    }
    let rate = |k| get(&report, k).as_f64().unwrap();
    assert!((rate("l1.miss_rate") + rate("l1.hit_rate") - 1.0).abs() < 1e-12, "the miss rate is the rest");
    assert_eq!(report["status"], "done");
    // Every command line parses, and each channel's commands obey every constraint.
    let text = std::fs::read_to_string(&trace).unwrap();
    let config = common::small_config(&[]);
    let mut per_channel: Vec<Vec<Cmd>> = vec![Vec::new(); config.dram.channels as usize];
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 7, "{line}");
        let kind = match f[4] {
            "ACT" => CommandKind::Act,
            "PRE" => CommandKind::Pre,
            "RD" => CommandKind::Rd,
            "WR" => CommandKind::Wr,
            "REF" => CommandKind::Ref,
            other => panic!("unknown command {other}"),
        };
        let bank: usize = f[3].parse().unwrap();
        assert_eq!(f[2].parse::<usize>().unwrap(), bank % config.dram.bank_groups as usize);
        per_channel[f[1].parse::<usize>().unwrap()].push(Cmd {
            cycle: f[0].parse().unwrap(),
            bank,
            kind,
            row: f[5].parse().unwrap(),
        });
    }
    let t = Timing::from_config(&config);
    for cmds in &per_channel {
        assert!(cmds.len() > 100);
        let errors = check(&t, config.dram.banks as usize, config.dram.bank_groups as usize, cmds);
        assert!(errors.is_empty(), "{:?}", &errors[..errors.len().min(3)]);
    }
    // No temporary files are left next to the outputs.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn repeated_runs_give_identical_reports_and_traces() {
    let one = || {
        let (code, stdout, _) = run(&["run", "-c", SMALL, "-w", TINY, "--json", "-"]);
        assert_eq!(code, 0);
        let mut v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        v["sim"]["wall_seconds"] = 0.into();
        v["sim"]["cycles_per_second"] = 0.into();
        let (_, trace, _) = run(&["run", "-c", SMALL, "-w", TINY, "-q", "--dram-trace", "-"]);
        (v, trace)
    };
    assert_eq!(one(), one());
}

#[test]
fn compare_runs_variants_into_one_table_and_csv() {
    let (code, stdout, stderr) =
        run(&["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs,frfcfs"]);
    assert_eq!(code, 0, "{stderr}");
    let header = stdout.lines().next().unwrap();
    assert!(header.starts_with("metric") && header.contains("fcfs") && header.contains("frfcfs"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("dram.row_hit_rate")));
    let (code, csv, _) = run(&[
        "compare",
        "-c",
        SMALL,
        "-w",
        TINY,
        "--vary",
        "dram.scheduler=fcfs,frfcfs",
        "--metrics",
        "cycles,dram.row_hit_rate",
        "--csv",
        "-",
    ]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "metric,fcfs,frfcfs");
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[1], "status,done,done");
    assert!(lines[3].starts_with("dram.row_hit_rate,0."));
    // An unknown metric is an argument error found before any variant runs: no table.
    let (code, stdout, stderr) = run(&[
        "compare",
        "-c",
        SMALL,
        "-w",
        TINY,
        "--vary",
        "dram.scheduler=fcfs",
        "--metrics",
        "cycles,nope",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr
            .contains("error: --metrics cycles,nope: unknown metric `nope`; valid metrics: config, workload"),
        "{stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
}

/// Runs stopped at the cycle limit are marked: in the table's header with a line saying what
/// the mark means, and in the CSV's status row.
#[test]
fn compare_marks_capped_runs() {
    let args =
        ["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs,frfcfs", "--metrics", "cycles"];
    let (code, stdout, stderr) = run(&[&args[..], &["--max-cycles", "50"]].concat());
    assert_eq!(code, 0, "{stderr}");
    let header = stdout.lines().next().unwrap();
    assert!(header.contains("fcfs (capped)") && header.contains("frfcfs (capped)"), "{stdout}");
    assert!(stdout.contains("(capped): the run stopped at a cycle or instruction limit"), "{stdout}");
    let (_, csv, _) = run(&[&args[..], &["--max-cycles", "50", "--csv", "-"]].concat());
    assert_eq!(csv.lines().nth(1), Some("status,max-cycles,max-cycles"), "{csv}");
    // Whole runs carry no mark.
    let (_, stdout, _) = run(&args);
    assert!(!stdout.contains("capped"), "{stdout}");
}

#[test]
fn compare_variants_set_several_keys_under_one_name() {
    let (code, csv, stderr) = run(&[
        "compare",
        "-c",
        SMALL,
        "-w",
        TINY,
        "--variant",
        "base:",
        "--variant",
        "tiny:l1.mshr_entries=2,l2.mshr_entries=2",
        "--vary",
        "core.warp_scheduler=gto,oaws-static",
        "--metrics",
        "cycles",
        "--csv",
        "-",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], r#"metric,"base gto","base oaws-static","tiny gto","tiny oaws-static""#);
    let cycles: Vec<u64> = lines[2].split(',').skip(1).map(|c| c.parse().unwrap()).collect();
    assert!(cycles[2] > cycles[0], "two MSHRs in L1 and L2 slow the tiny kernel down: {cycles:?}");
    let (code, _, stderr) = run(&["compare", "-c", SMALL, "-w", TINY, "--variant", "nameonly"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("error: --variant nameonly: expected NAME:key.path=value"), "{stderr}");
    let (code, _, stderr) = run(&["compare", "-c", SMALL, "-w", TINY, "--variant", "x:l1.nope=3"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("l1.nope: unknown key"), "{stderr}");
    // The same machine under two names is refused (issue 37.4): a key varied twice, a value
    // listed twice.
    let (code, _, stderr) = run(&[
        "compare",
        "-c",
        SMALL,
        "-w",
        TINY,
        "--vary",
        "dram.scheduler=fcfs,frfcfs",
        "--vary",
        " dram.scheduler=fcfs",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: --vary  dram.scheduler=fcfs: dram.scheduler: is varied twice"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs, fcfs"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("dram.scheduler: lists `fcfs` twice"), "{stderr}");
    let (code, _, stderr) = run(&["bench", "--dram", "--runs", "0", "--requests", "10"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("error: --runs 0: give the number of runs of each trace, 1 or more"), "{stderr}");
}

#[test]
fn bad_input_exits_2_with_a_located_message() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ron");
    std::fs::write(&bad, "(\n  l1: (sets: 0),\n)\n").unwrap();
    let (code, _, stderr) = run(&["run", "-c", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr.trim(),
        format!(
            "error: {}:2:8: l1.sets = 0: must be a power of two (e.g. 32, 64) with l1.index = \"conv\"",
            bad.display()
        )
    );
    let (code, _, stderr) = run(&["run", "--set", "dram.scheduler=nope"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("valid: fcfs, frfcfs"));
    let (code, _, stderr) = run(&["compare", "--vary", "dram.banks=16,12", "-c", SMALL, "-w", TINY]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: --vary dram.banks=16,12: dram.banks = 12: must be a power of two"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["compare", "--vary", "l1.sets=32,abc", "-c", SMALL, "-w", TINY]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: --vary l1.sets=32,abc: l1.sets: expected a whole number, not `abc`"),
        "{stderr}"
    );
    let args = ["compare", "--variant", "big:l1.ways=8,dram.banks=12", "-c", SMALL, "-w", TINY];
    let (code, _, stderr) = run(&args);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("error: --variant big:l1.ways=8,dram.banks=12: dram.banks = 12: must be"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["run", "-w", "/no/such/workload.ron"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/no/such/workload.ron: cannot read"));
    // A workload the machine cannot hold is bad input too, in the headless and debugger paths.
    for cmd in ["run", "batch"] {
        let mut args = vec![cmd, "-c", SMALL, "-w", TINY, "--set", "core.max_threads=64"];
        if cmd == "batch" {
            args.extend(["-x", "info"]);
        }
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 2, "{cmd}: {stderr}");
        assert!(
            stderr.contains("a CTA of 128 threads does not fit on an SM (core.max_threads = 64)"),
            "{cmd}: {stderr}"
        );
    }
}

/// A debugger command `batch` refuses — unknown, malformed, naming what does not exist, an
/// expression that cannot be evaluated, a move the machine cannot make — is bad input like any
/// other: exit 2, naming its place and the command (it exited 1). As in gdb's batch mode the
/// commands after it do not run, and the message says how many.
#[test]
fn batch_stops_at_a_refused_command_with_exit_2() {
    for (bad, why) in [
        ("frobnicate", "unknown command `frobnicate`"),
        ("break nosuchthing", "unknown event `nosuchthing`"),
        ("print 1/0", "division by zero"),
        ("until 3", "already at cycle 10"),
    ] {
        let x = format!("step 10; {bad}; step 5; print cycle");
        let (code, stdout, stderr) = run(&["batch", "-c", SMALL, "-w", TINY, "-x", &x]);
        assert_eq!(code, 2, "{bad}: {stderr}");
        let line = stderr.trim();
        assert!(line.starts_with(&format!("error: -x command 2: {bad}: ")), "{line}");
        assert!(line.contains(why) && line.ends_with("(not run: 2 commands after it)"), "{line}");
        assert!(stdout.contains(&format!("(ws) {bad}")) && !stdout.contains("(ws) step 5"), "{stdout}");
    }
}

/// Every output flag of every command: a path in a missing directory is refused before the
/// run, naming the path as given, with exit code 2; so are argument mistakes without a file.
#[test]
fn output_paths_are_checked_before_the_run_and_argument_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.trace");
    std::fs::write(&trace, "0x1000 R\n").unwrap();
    let trace = trace.to_str().unwrap();
    let bad = "no-such-dir/out.txt";
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("--json", vec!["run", "-c", SMALL, "-w", TINY, "--json", bad]),
        ("--dram-trace", vec!["run", "-c", SMALL, "-w", TINY, "--dram-trace", bad]),
        ("--csv", vec!["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs", "--csv", bad]),
        ("--json", vec!["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs", "--json", bad]),
        ("--svg", vec!["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs", "--svg", bad]),
        ("--json", vec!["dram", "-c", SMALL, "--trace", trace, "--json", bad]),
        ("--dram-trace", vec!["dram", "-c", SMALL, "--trace", trace, "--dram-trace", bad]),
        ("--trace", vec!["dram", "--generate", "random", "--requests", "4", "--trace", bad]),
    ];
    for (flag, args) in &cases {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(
            stderr.trim(),
            format!(
                "error: {flag} {bad}: cannot be written: the directory `no-such-dir` does not exist (create it first)"
            ),
            "{args:?}"
        );
        assert!(stdout.is_empty(), "{args:?}: nothing ran: {stdout}");
    }
    // The same flags given `-` write to standard output, never to a file named `-` (issue 37:
    // `dram --generate --trace -` did, endlessly with 2^64 - 1 requests).
    for (_, args) in &cases {
        let args: Vec<&str> = args.iter().map(|&a| if a == bad { "-" } else { a }).collect();
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert!(!stdout.is_empty(), "{args:?}");
        assert!(!std::path::Path::new("-").exists(), "{args:?} wrote a file named -");
    }
    let d = dir.path().to_str().unwrap();
    let (code, _, stderr) = run(&["run", "-c", SMALL, "-w", TINY, "--json", d]);
    assert_eq!(code, 2);
    assert!(stderr.contains(&format!("error: --json {d}: is a directory")), "{stderr}");
    let (code, _, stderr) = run(&["batch", "-c", SMALL, "-w", TINY]);
    assert_eq!(code, 2);
    assert!(stderr.contains("needs --script FILE or -x"), "{stderr}");
    let (code, _, stderr) = run(&["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("error: --vary dram.scheduler: expected key.path=value1,value2"), "{stderr}");
}

/// `compare --svg` of a cross product: one bar slot per variant, the long names numbered with
/// one key below the panels, capped runs outlined, not filled (stopped by the cycle limit or by
/// the instruction cap), the title naming the machine and keys, and no label over another.
#[test]
fn compare_svg_of_a_cross_product_is_readable_and_marks_capped_runs() {
    for limit in [["--max-cycles", "40"], ["--set", "sim.max_instructions=2000"]] {
        let dir = tempfile::tempdir().unwrap();
        let svg = dir.path().join("c.svg");
        let (code, _, stderr) = run(&[
            "compare",
            "-c",
            SMALL,
            "-w",
            TINY,
            "--vary",
            "dram.scheduler=fcfs,frfcfs",
            "--vary",
            "l1.replacement=lru,rrip",
            "--metrics",
            "cycles,ipc",
            limit[0],
            limit[1],
            "--svg",
            svg.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let chart = std::fs::read_to_string(&svg).unwrap();
        let text = |t: &str| chart.contains(&format!(">{t}</text>"));
        let faults = warpscope::batch::chart::svg::layout_faults(&chart);
        assert!(faults.is_empty(), "{}", faults.join("\n"));
        assert!(text("tiny on small, varying dram.scheduler, l1.replacement"), "title");
        for (i, name) in [
            "dram.scheduler=fcfs l1.replacement=lru",
            "dram.scheduler=fcfs l1.replacement=rrip",
            "dram.scheduler=frfcfs l1.replacement=lru",
            "dram.scheduler=frfcfs l1.replacement=rrip",
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(
                chart.matches(&format!(">{}: {name}</text>", i + 1)).count(),
                1,
                "one key line for {name}"
            );
        }
        let outlined =
            chart.lines().filter(|l| l.starts_with("<rect x=") && l.contains("stroke-dasharray")).count();
        assert_eq!(outlined, 8, "{limit:?}: 2 panels × 4 capped bars");
        assert!(
            chart.contains("dashed outline: the run hit a cycle or instruction limit"),
            "{limit:?}: the note"
        );
        assert!(text("core cycles") && text("per core cycle"), "units");
    }
}

/// `bench --debugger` measures the debugger with breakpoints that never match; they must be
/// ones the machine accepts (an id it does not have is refused before a run).
#[test]
fn bench_measures_the_debugger_on_a_trace() {
    let (code, out, err) = run(&[
        "bench",
        "--debugger",
        "-w",
        "tests/fixtures/traces/rodinia-bfs/kernelslist.g",
        "--max-cycles",
        "3000",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("debugger: continue with 3 breakpoints"), "{out}");
    assert!(out.contains("time travel within cycles 0..1,500"), "{out}");
}

/// A full disk (`/dev/full`) under every kind of output — standard output, a report or trace
/// path written through as a device, streamed or whole — ends the program with exit code 1
/// and a message naming the output; a closed pipe (`| head`) ends it quietly with 0.
#[test]
fn write_errors_end_the_program_naming_the_output() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let cases: &[(&[&str], &str)] = &[
        (&["run", "-c", SMALL, "-w", TINY], "standard output"),
        (&["run", "-c", SMALL, "-w", TINY, "--json", "/dev/full", "-q"], "/dev/full"),
        (&["run", "-c", SMALL, "-w", TINY, "--dram-trace", "/dev/full", "-q"], "/dev/full"),
        (&["compare", "-c", SMALL, "-w", TINY, "--vary", "dram.scheduler=fcfs,gmc"], "standard output"),
        (&["batch", "-c", SMALL, "-w", TINY, "-x", "info breakpoints"], "standard output"),
        (&["dram", "--generate", "stream", "--requests", "100000", "--trace", "-"], "standard output"),
        (&["dram", "--generate", "stream", "--requests", "100000", "--trace", "/dev/full"], "/dev/full"),
        (&["config", "import", "tests/fixtures/gpgpusim/GTX480/gpgpusim.config"], "standard output"),
    ];
    for (args, named) in cases {
        let out = Command::new(BIN).args(*args).stdout(full()).output().expect("binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&format!("error: {named}: cannot write: No space left on device")),
            "{args:?}: {err}"
        );
    }
    // A reader that stops early is no error.
    let mut child = Command::new(BIN)
        .args(["dram", "--generate", "stream", "--requests", "18446744073709551615", "--trace", "-"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
