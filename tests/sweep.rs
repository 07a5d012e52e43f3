//! `warpscope sweep`: results appended per point, resume after an interrupted run, `--shard I/N`
//! and `--merge` giving the same rows as one whole run, SVG line charts, grid errors.

mod common;

use common::cases;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

/// A 2 × 2 grid of the tiny workload on the small machine; the metrics are simulated numbers
/// only (no wall-clock), so rows of different runs compare equal.
fn grid(dir: &Path) -> PathBuf {
    let root = std::env::current_dir().unwrap();
    let text = format!(
        "(\n    config: Some(\"{}\"),\n    workloads: [\"{}\"],\n    grid: [\"dram.scheduler=fcfs,frfcfs\", \"l1.ways=2,4\"],\n    \
         metrics: [\"cycles\", \"ipc\", \"dram.row_hit_rate\"],\n)\n",
        root.join("tests/fixtures/small.ron").display(),
        root.join("tests/fixtures/tiny.ron").display()
    );
    let p = dir.join("grid.ron");
    std::fs::write(&p, text).unwrap();
    p
}

fn sweep(args: &[&Path]) -> (i32, String) {
    let out = Command::new(BIN).arg("sweep").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into())
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// How a refusal of the stored run of `point` (the end of its key) in `file` begins: the file
/// and the run's line.
fn stored_run_of(file: &Path, point: &str) -> String {
    let text = read(file);
    let mut lines = text.lines();
    let line = 1 + lines
        .position(|l| l.contains(&format!("{point}\"")) || l.contains(&format!("{point},")))
        .unwrap();
    format!("{}:{line}:1: the stored run of `", file.display())
}

/// Data rows sorted by point index.
fn rows_by_point(csv: &str) -> Vec<String> {
    let mut rows: Vec<String> = csv.lines().skip(1).map(String::from).collect();
    rows.sort_by_key(|r| r.split(',').next().unwrap().parse::<usize>().unwrap());
    rows
}

#[test]
fn a_sweep_appends_every_point_and_a_rerun_skips_them() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let (csv, json) = (dir.path().join("r.csv"), dir.path().join("r.jsonl"));
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("4 points in this shard, 0 already done, 4 run, 0 not finished cleanly"), "{err}");
    let text = read(&csv);
    assert_eq!(
        text.lines().next().unwrap(),
        "point,key,workload,dram.scheduler,l1.ways,status,cycles,ipc,dram.row_hit_rate,machine,machine_settings,max_cycles,max_instructions"
    );
    let rows = rows_by_point(&text);
    assert_eq!(rows.len(), 4);
    assert!(rows[1].contains(",fcfs,4,done,"), "point 1 is fcfs × 4 ways: {}", rows[1]);
    // The JSON line of each point carries its full report, with the CSV's numbers.
    let lines: Vec<serde_json::Value> =
        read(&json).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4);
    for row in &rows {
        let f: Vec<&str> = row.split(',').collect();
        let j = lines.iter().find(|l| l["point"].as_u64() == f[0].parse().ok()).unwrap();
        assert_eq!(j["report"]["cycles"].to_string(), f[6]);
        assert_eq!(j["status"], "done");
    }
    // The scheduler matters for this workload: the points differ.
    assert_ne!(rows[0].split(',').nth(6), rows[2].split(',').nth(6));

    // A re-run finds everything done and writes nothing.
    let (before_csv, before_json) = (read(&csv), read(&json));
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0);
    assert!(err.contains("4 already done, 0 run"), "{err}");
    assert_eq!((read(&csv), read(&json)), (before_csv.clone(), before_json));

    // Interrupted: the CSV lost its last row and has half a line; the JSON file lost two lines.
    let mut cut: Vec<&str> = before_csv.lines().collect();
    cut.pop();
    std::fs::write(&csv, cut.join("\n") + "\n3,tiny").unwrap();
    let kept: Vec<String> = read(&json).lines().take(2).map(String::from).collect();
    std::fs::write(&json, kept.join("\n") + "\n").unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 already done, 2 run"), "{err}");
    assert_eq!(rows_by_point(&read(&csv)), rows, "resumed rows are those of the whole run");
    assert_eq!(read(&json).lines().count(), 4);
}

/// Results are appended as runs finish, in an order that depends on the threads; a finished
/// sweep leaves its files in point order, the same bytes whatever `--jobs`. Here the stored
/// results of an earlier run are out of order (points 3 and 1, as two threads may finish them),
/// and the resumed sweep's files end in point order.
#[test]
fn a_finished_sweep_leaves_its_files_in_point_order() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let (csv, json) = (dir.path().join("r.csv"), dir.path().join("r.jsonl"));
    let jobs = Path::new("--jobs");
    // --jobs 0 is refused; a pool far larger than the four points is cut to them (issue 37:
    // it spent minutes starting 100,000 threads).
    let (code, err) = sweep(&[&g, jobs, Path::new("0"), Path::new("--csv"), &csv]);
    assert_eq!((code, err.contains("--jobs 0")), (2, true), "{err}");
    let (code, err) =
        sweep(&[&g, jobs, Path::new("100000"), Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    let (whole_csv, whole_json) = (read(&csv), read(&json));
    let points: Vec<&str> = whole_csv.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(points, ["0", "1", "2", "3"], "point order after a run with several threads");
    let csv_lines: Vec<&str> = whole_csv.lines().collect();
    std::fs::write(&csv, format!("{}\n{}\n{}\n", csv_lines[0], csv_lines[4], csv_lines[2])).unwrap();
    let json_lines: Vec<&str> = whole_json.lines().collect();
    std::fs::write(&json, format!("{}\n{}\n", json_lines[3], json_lines[1])).unwrap();
    let (code, err) =
        sweep(&[&g, jobs, Path::new("2"), Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("2 already done, 2 run"), "{err}");
    assert_eq!(read(&csv), whole_csv);
    // JSON lines carry each run's wall time, so only their order compares.
    let json_points: Vec<u64> = read(&json)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["point"].as_u64().unwrap())
        .collect();
    assert_eq!(json_points, [0, 1, 2, 3]);
}

#[test]
fn shards_merge_into_the_rows_of_one_whole_run_and_chart_as_svg() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let whole = dir.path().join("whole.csv");
    let svg = dir.path().join("sweep.svg");
    let (code, err) = sweep(&[&g, Path::new("--csv"), &whole, Path::new("--svg"), &svg]);
    assert_eq!(code, 0, "{err}");
    let s: Vec<PathBuf> = (0..2).map(|i| dir.path().join(format!("s{i}.csv"))).collect();
    for (i, out) in s.iter().enumerate() {
        let shard = format!("{i}/2");
        let (code, err) = sweep(&[&g, Path::new("--shard"), Path::new(&shard), Path::new("--csv"), out]);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("2 points in this shard"), "{err}");
    }
    // Shard 0 holds the even points, shard 1 the odd ones.
    let points = |p: &Path| {
        rows_by_point(&read(p)).iter().map(|r| r.split(',').next().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(points(&s[0]), ["0", "2"]);
    assert_eq!(points(&s[1]), ["1", "3"]);
    let merged = dir.path().join("merged.csv");
    let (code, err) = sweep(&[Path::new("--merge"), &s[1], &s[0], Path::new("--csv"), &merged]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "every point is there: {err}");
    let text = read(&merged);
    assert_eq!(text.lines().next(), read(&whole).lines().next());
    assert_eq!(
        text.lines().skip(1).map(String::from).collect::<Vec<_>>(),
        rows_by_point(&read(&whole)),
        "ordered by point"
    );

    // Shard 0 alone leaves gaps at points 1 (and 3, past the last point it holds, which
    // the merge cannot know of); they are named.
    let (code, err) = sweep(&[Path::new("--merge"), &s[0], Path::new("--csv"), &merged]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("merged 2 points from 1 file"), "{err}");
    assert!(err.contains("warning: 1 point missing: 1 (a shard not given, or not finished"), "{err}");
    let only_odd = dir.path().join("odd.csv");
    let (code, err) = sweep(&[Path::new("--merge"), &s[1], Path::new("--csv"), &only_odd]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: 2 points missing: 0, 2 "), "{err}");

    let chart = read(&svg);
    assert!(chart.starts_with("<svg"), "{}", &chart[..100.min(chart.len())]);
    for label in ["dram.scheduler", "l1.ways", "frfcfs", "cycles", "dram.row_hit_rate", "<polyline"] {
        assert!(chart.contains(label), "{label}");
    }
}

#[test]
fn bad_grids_and_shards_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let csv = dir.path().join("r.csv");
    let (code, err) = sweep(&[&g, Path::new("--shard"), Path::new("2/2"), Path::new("--csv"), &csv]);
    assert_eq!(code, 2);
    assert!(err.contains("error: --shard 2/2: expected I/N with 0 ≤ I < N"), "{err}");
    std::fs::write(&g, read(&g).replace("l1.ways=2,4", "l1.wayz=2,4")).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("l1.wayz"), "{err}");
    // A metric name the report does not have is refused before any point runs, at its line.
    std::fs::write(&g, read(&g).replace("l1.wayz=2,4", "l1.ways=2,4").replace("\"ipc\"", "\"ipcc\""))
        .unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("grid.ron:5:") && err.contains("unknown metric `ipcc`; valid metrics: "), "{err}");
    assert!(!csv.exists(), "nothing ran, nothing was written");
    // A grid axis without `=` is the grid file's error, not a `--vary` flag's.
    std::fs::write(&g, read(&g).replace("l1.ways=2,4", "l1.ways")).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("grid.ron:4:") && err.contains("grid: `l1.ways`: expected key.path="), "{err}");
    assert!(!err.contains("--vary"), "{err}");
    // A key given by two grid entries is refused, and the hint speaks of grid entries.
    std::fs::write(&g, read(&g).replace("\"l1.ways\"", "\"l1.ways=2\", \"l1.ways=4\"")).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("grid: `l1.ways=4`: is varied twice; give each key one grid entry"), "{err}");
    std::fs::write(&g, read(&g).replace("\"l1.ways=2\", \"l1.ways=4\"", "\"l1.ways\"")).unwrap();
    // Output paths in a missing directory are refused before anything runs, as given.
    std::fs::write(&g, read(&g).replace("\"l1.ways\"", "\"l1.ways=2,4\"").replace("ipcc", "ipc")).unwrap();
    for flag in ["--csv", "--json", "--svg"] {
        let mut args: Vec<&Path> = vec![&g, Path::new(flag), Path::new("no-such-dir/out")];
        if flag == "--svg" {
            args.extend([Path::new("--csv"), csv.as_path()]);
        }
        let (code, err) = sweep(&args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("error: {flag} no-such-dir/out: cannot be written")), "{err}");
        assert!(!csv.exists());
    }
    let (code, err) = sweep(&[&g]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs somewhere to write"), "{err}");
    std::fs::write(&g, "(workloads: [], colour: 1)").unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("grid.ron:1:") && err.contains("colour"), "{err}");
}

/// A results file with a line that is no result is bad input: refused at its line and column
/// with exit code 2, as every input file is (issue 37.6's results fuzzer: it exited with 1).
#[test]
fn a_results_file_s_bad_line_is_refused_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let first = b"{\"point\": 0, \"key\": \"a\"}\n".to_vec();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "r.jsonl",
            [&first[..], b"not json\n"].concat(),
            "r.jsonl:2:2: expected a JSON object per line: expected ident",
        ),
        ("r.csv", b"point,key\n0\n".to_vec(), "r.csv:2:1: expected a sweep result with a point and a key"),
        ("s.jsonl", [&first[..], b"{\"key\": \"\xff\"}\n"].concat(), "s.jsonl:2:10: expected text (UTF-8)"),
    ];
    for (name, bytes, want) in cases {
        let input = dir.path().join(name);
        std::fs::write(&input, bytes).unwrap();
        let out = dir.path().join(format!("m.{}", name.rsplit('.').next().unwrap()));
        let flag = if name.ends_with(".csv") { "--csv" } else { "--json" };
        let (code, err) = sweep(&[Path::new("--merge"), &input, Path::new(flag), &out]);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with(&format!("error: {}/{want}", dir.path().display())), "{err}");
        assert!(!out.exists());
    }
}

/// What a grid names is refused at its entry in the grid, as every error of a file is (issue
/// 37.6's grid fuzzer found an assignment of a grid refused as a `--set` the user never gave;
/// of the same class, a machine or workload file it names that cannot be read was named without
/// the grid, and a repeated workload or point had no place).
#[test]
fn a_grid_s_entries_are_refused_where_they_are() {
    use warpscope::batch::sweep::Sweep;
    let cases = [
        (
            "(\n    config: Some(\"../nope.ron\"),\n    workloads: [\"builtin\"],\n)",
            "g.ron:2:5: config: ../nope.ron: cannot read: No such file or directory (os error 2)",
        ),
        (
            "(\n    workloads: [\"nope.ron\", \"builtin\"],\n)",
            "g.ron:2:17: workloads[0]: nope.ron: cannot read: No such file or directory (os error 2)",
        ),
        (
            "(\n    workloads: [\"builtin\", \"builtin\"],\n)",
            "g.ron:2:28: workloads[1]: lists `builtin` twice",
        ),
        (
            "(\n    workloads: [\"builtin\"],\n    sets: [\"core.count=0\"],\n)",
            "g.ron:3:12: core.count = 0: must be between 1 and 1024",
        ),
        (
            "(\n    workloads: [\"builtin\"],\n    grid: [\"l1.sets=32,48\"],\n)",
            "g.ron:3:12: l1.sets = 48: must be a power of two (e.g. 32, 64) with l1.index = \"conv\"",
        ),
        (
            "(\n    workloads: [\"builtin\"],\n    points: [[\"l1.ways=2\"], [\"l1.ways=0\"]],\n)",
            "g.ron:3:30: l1.ways = 0: must be between 1 and 256",
        ),
        (
            "(\n    workloads: [\"builtin\"],\n    points: [[\"l1.ways=2\"], [\"l1.ways\"]],\n)",
            "g.ron:3:30: points[1][0]: `l1.ways`: expected key.path=value",
        ),
        (
            "(\n    workloads: [\"builtin\"],\n    points: [[\"l1.ways=2\"], [\"l1.ways=2\"]],\n)",
            "g.ron:3:29: points[1]: is a point the grid or an earlier point already gives (same assignments)",
        ),
    ];
    for (text, want) in cases {
        let e = Sweep::from_text(text, Path::new("g.ron")).err().expect(text);
        assert_eq!(e.to_string(), want);
    }
}

#[test]
fn the_sample_grid_loads_with_its_points_and_axes() {
    let s = warpscope::batch::sweep::Sweep::load(Path::new("sample-configs/sweeps/schedulers.ron"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.points.len(), 12);
    assert_eq!(s.axes, ["dram.scheduler", "l1.replacement"]);
    assert_eq!(s.points[5].key, "../workloads/spmv.ron | dram.scheduler=fcfs l1.replacement=rrip");
    let s =
        warpscope::batch::sweep::Sweep::load(Path::new("sample-configs/sweeps/bfs-real-vs-synthetic.ron"))
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.points.len(), s.axes.len()), (2, 0));
    assert!(matches!(s.workloads[1].1.kernels[0], warpscope::workload::Kernel::Trace(_)));
}

/// Runs stopped at the grid's cycle limit are drawn as capped, not as results; the title
/// names the machine and the swept keys, the axes their units.
#[test]
fn a_chart_marks_runs_that_hit_the_cycle_limit() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    std::fs::write(&g, read(&g).replace("metrics:", "max_cycles: 40,\n    metrics:")).unwrap();
    let (csv, svg) = (dir.path().join("r.csv"), dir.path().join("r.svg"));
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--svg"), &svg]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(&csv).matches(",max-cycles,").count(), 4);
    let chart = read(&svg);
    // 3 metrics × 2 axes = 6 panels: dram.scheduler's names as grouped bars (2 series × 2
    // groups, all capped: outlined), l1.ways's numbers as lines (2 series × 2 points, all
    // capped: hollow markers, no line between them).
    let outlined =
        chart.lines().filter(|l| l.starts_with("<rect x=") && l.contains("stroke-dasharray")).count();
    assert_eq!(outlined, 3 * 4, "every bar outlined");
    let hollow = chart
        .lines()
        .filter(|l| (l.starts_with("<circle") || l.starts_with("<polygon")) && l.contains("fill=\"#FFFFFF\""))
        .count();
    assert_eq!(hollow, 3 * 4, "every point hollow");
    let data_lines =
        chart.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).count();
    assert_eq!(data_lines, 2, "no data line: only the two marks of the legend the line panels share");
    assert!(chart.contains("the run hit a cycle or instruction limit"));
    assert!(chart.contains(">sweep grid on small, varying dram.scheduler, l1.ways</text>"), "title");
    assert!(chart.contains(">core cycles</text>") && chart.contains(">%</text>"), "units");
    let faults = warpscope::batch::chart::svg::layout_faults(&chart);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    // Each of the two legends (bars over dram.scheduler, lines over l1.ways) is drawn once for
    // the six panels, under a caption naming its axis, and each note on capped runs once.
    let texts = warpscope::batch::chart::svg::text_boxes(&chart).0;
    let drawn = |t: &str| texts.iter().filter(|b| b.text == t).count();
    let tiny = std::env::current_dir().unwrap().join("tests/fixtures/tiny.ron").display().to_string();
    for entry in ["l1.ways=2", "l1.ways=4", "dram.scheduler=fcfs", "dram.scheduler=frfcfs"] {
        assert_eq!(drawn(&format!("{tiny} {entry}")), 1, "legend entry {entry}: {texts:?}");
    }
    assert_eq!((drawn("over dram.scheduler:"), drawn("over l1.ways:")), (1, 1), "{texts:?}");
    for note in ["dashed outline: the run hit", "hollow marker: the run hit"] {
        assert_eq!(texts.iter().filter(|b| b.text.starts_with(note)).count(), 1, "{note}: {texts:?}");
    }
}

/// A grid that does not name its metrics charts `run`'s summary without the host's speed, as
/// `compare --svg` does; named, the host's speed is charted.
#[test]
fn a_chart_leaves_the_host_s_speed_out_unless_the_grid_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let named = read(&g).replace("metrics:", "max_cycles: 40,\n    metrics:");
    let default =
        named.lines().filter(|l| !l.trim_start().starts_with("metrics:")).collect::<Vec<_>>().join("\n");
    for (text, host) in
        [(default, false), (named.replace("\"cycles\",", "\"cycles\", \"sim.cycles_per_second\","), true)]
    {
        std::fs::write(&g, text).unwrap();
        let (json, svg) =
            (dir.path().join(format!("r{host}.jsonl")), dir.path().join(format!("r{host}.svg")));
        let (code, err) = sweep(&[&g, Path::new("--json"), &json, Path::new("--svg"), &svg]);
        assert_eq!(code, 0, "{err}");
        let chart = read(&svg);
        assert!(chart.contains(">ipc</text>"), "a metric of the machine is charted");
        assert_eq!(chart.contains(">sim.cycles_per_second</text>"), host, "host speed charted: {host}");
        assert_eq!(chart.contains("(host)"), host);
    }
}

/// A cycle limit that comes from the grid's points (`sets: ["sim.max_cycles=40"]`, the form
/// the module's example shows) or from the machine file is the limit their runs are checked
/// against when a sweep resumes: the capped runs are this sweep's until that limit changes;
/// the grid's own `max_cycles` replaces it.
#[test]
fn a_cycle_limit_from_the_points_or_the_machine_is_the_one_a_resume_checks() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let plain = read(&g);
    let json = dir.path().join("r.jsonl");
    let capped_runs = || read(&json).lines().filter(|l| l.contains("\"status\":\"max-cycles\"")).count();
    std::fs::write(&g, plain.replace("grid:", "sets: [\"sim.max_cycles=40\"],\n    grid:")).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(capped_runs(), 4, "every run stopped at 40");
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!((code, err.contains("4 already done")), (0, true), "{err}");
    // The machine file's own limit.
    let small = std::env::current_dir().unwrap().join("tests/fixtures/small.ron");
    let machine = dir.path().join("small.ron");
    let with_limit = |n: u32| read(&small).replace("sim: (", &format!("sim: (max_cycles: {n}, "));
    std::fs::write(&machine, with_limit(40)).unwrap();
    std::fs::write(&g, plain.replace(&small.display().to_string(), &machine.display().to_string())).unwrap();
    std::fs::remove_file(&json).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(capped_runs(), 4, "every run stopped at the machine's 40");
    let stored = read(&json);
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!((code, err.contains("4 already done")), (0, true), "{err}");
    std::fs::write(&machine, with_limit(60)).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("was stopped at 40 cycles, and this sweep stops at 60"), "{err}");
    assert_eq!(read(&json), stored, "nothing ran, nothing was written");
    let grid_limit = read(&g).replace("metrics:", "max_cycles: 40,\n    metrics:");
    std::fs::write(&g, grid_limit).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!(
        (code, err.contains("4 already done")),
        (0, true),
        "the grid's limit replaces the machine's: {err}"
    );
}

/// The limits a sweep states (a repro report's header) are its points' when they agree: the
/// grid's where it sets them, else each point's own, and `--max-cycles` replaces them all.
#[test]
fn a_sweep_states_its_limits_only_when_every_point_shares_them() {
    use warpscope::batch::sweep::{Limits, Sweep};
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let plain = read(&g);
    let two =
        plain.replace("grid:", "points: [[\"sim.max_cycles=40\"], [\"sim.max_cycles=60\"]],\n    grid:");
    std::fs::write(&g, &two).unwrap();
    let mut s = Sweep::load(&g).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.limits(), None, "40 and 60");
    s.set_max_cycles(70);
    assert_eq!(s.limits(), Some(Limits { cycles: 70, instructions: 0 }));
    std::fs::write(&g, two.replace("metrics:", "max_cycles: 50,\n    max_instructions: 9,\n    metrics:"))
        .unwrap();
    let s = Sweep::load(&g).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.limits(), Some(Limits { cycles: 50, instructions: 9 }));
}

/// A results file holds runs of one machine and one cycle limit: resuming into it after the
/// grid's limit or machine changed is refused (the point keys cover neither), before anything
/// runs, naming the file, the line of the stored run, the point and what differs; the report
/// of the file is refused too.
#[test]
fn resuming_after_the_cycle_limit_or_machine_changed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let capped = read(&g).replace("metrics:", "max_cycles: 40,\n    metrics:");
    std::fs::write(&g, &capped).unwrap();
    let (csv, json) = (dir.path().join("r.csv"), dir.path().join("r.jsonl"));
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    let stored = (read(&csv), read(&json));
    let point = "tiny.ron | dram.scheduler=fcfs l1.ways=2";
    for (limit, why) in [
        ("max_cycles: 60,", "was stopped at 40 cycles, and this sweep stops at 60"),
        ("", "was stopped at 40 cycles, and this sweep stops at none (max_cycles 0)"),
    ] {
        std::fs::write(&g, capped.replace("max_cycles: 40,", limit)).unwrap();
        for out in [&csv, &json] {
            let flag = if out == &csv { "--csv" } else { "--json" };
            let (code, err) = sweep(&[&g, Path::new(flag), out]);
            assert_eq!(code, 2, "{err}");
            assert!(err.starts_with(&format!("error: {}", stored_run_of(out, point))), "{err}");
            assert!(err.contains(&format!("{point}` {why}")), "{err}");
        }
        assert_eq!((read(&csv), read(&json)), stored, "nothing ran, nothing was written");
    }
    // A whole run needs more than 40 cycles: under a lower limit it would have been capped.
    std::fs::write(&g, read(&g).replace("metrics:", "max_cycles: 0,\n    metrics:")).unwrap();
    let whole = dir.path().join("whole.jsonl");
    assert_eq!(sweep(&[&g, Path::new("--json"), &whole]).0, 0);
    std::fs::write(&g, capped.clone()).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &whole]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("error: {}", stored_run_of(&whole, point))), "{err}");
    assert!(err.contains("cycles, past this sweep's limit of 40"), "{err}");
    // The JSON line names the machine its run was on.
    let root = std::env::current_dir().unwrap();
    let other = capped.replace(
        &root.join("tests/fixtures/small.ron").display().to_string(),
        &root.join("sample-configs/gtx480-sc14.ron").display().to_string(),
    );
    std::fs::write(&g, other).unwrap();
    for (out, flag, before) in [(&json, "--json", &stored.1), (&csv, "--csv", &stored.0)] {
        let (code, err) = sweep(&[&g, Path::new(flag), out]);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with(&format!("error: {}", stored_run_of(out, point))), "{err}");
        assert!(err.contains("ran on machine `small`, and this sweep's machine is `gtx480-sc14`"), "{err}");
        assert_eq!(&read(out), before);
    }
}

/// A CSV whose header is not the sweep's is refused at its first line, as bad input (exit 2;
/// it exited 1 without a position), and left as it was.
#[test]
fn resuming_a_csv_of_other_columns_is_refused_at_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let csv = dir.path().join("r.csv");
    std::fs::write(&csv, "point,key,other\n0,x,1\n").unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    let want = format!("error: {}:1:1: holds results with other columns (point,key,other)", csv.display());
    assert!(err.starts_with(&want), "{err}");
    assert_eq!(read(&csv), "point,key,other\n0,x,1\n");
}

/// A CSV row says what its run was made on and under, so a resumed CSV refuses a run whose
/// results alone do not betray it: one that finished under another instruction cap, or on the
/// machine file as it read before an edit. A CSV begun before those columns is still resumed,
/// its new rows written in its own columns.
#[test]
fn a_csv_remembers_its_runs_machine_and_limits() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let csv = dir.path().join("r.csv");
    assert_eq!(sweep(&[&g, Path::new("--csv"), &csv]).0, 0);
    let stored = read(&csv);
    // The tiny kernel finishes far below a cap of 10^9 thread instructions.
    std::fs::write(&g, read(&g).replace("metrics:", "max_instructions: 1000000000,\n    metrics:")).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "was made under max_instructions none (max_instructions 0), and this sweep's is 1000000000"
        ),
        "{err}"
    );
    assert_eq!(read(&csv), stored);
    // A CSV without the provenance columns resumes, and its new rows keep its columns.
    let columns = 9;
    let legacy: Vec<String> =
        stored.lines().take(3).map(|l| l.split(',').take(columns).collect::<Vec<_>>().join(",")).collect();
    std::fs::write(&csv, legacy.join("\n") + "\n").unwrap();
    grid(dir.path());
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv]);
    assert_eq!(code, 0, "{err}");
    let text = read(&csv);
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.lines().all(|l| l.split(',').count() == columns), "{text}");
}

#[test]
fn merging_a_missing_or_mismatched_shard_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.csv");
    let missing = dir.path().join("nope.csv");
    let (code, err) = sweep(&[Path::new("--merge"), &missing, Path::new("--csv"), &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope.csv: no such results file"), "{err}");
    let jsonl = dir.path().join("s.jsonl");
    std::fs::write(&jsonl, "").unwrap();
    let (code, err) = sweep(&[Path::new("--merge"), &jsonl, Path::new("--csv"), &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("s.jsonl: cannot merge JsonLines into Csv"), "{err}");
    assert!(!out.exists());
}

/// Merging results files as a class (issue 37.4): files of one grid (any split of its points,
/// repeats included) merge into its rows, one a point in point order; a CSV that is not a
/// sweep's results among them is refused naming that file, exit 2, and nothing is written.
#[test]
fn merging_refuses_files_that_are_not_results() {
    use proptest::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let header = "point,key,workload,dram.scheduler,status,cycles";
    let row = |p: usize, name: &str| format!("{p},w | dram.scheduler={name},w,{name},done,{}", 1000 + p);
    let names = ["fcfs", "frfcfs", "gmc", "wg"];
    // Up to three files, each some points of the grid where point p is names[p] (kind 0, 2-5)
    // or a CSV that is no sweep's (kind 1).
    let files = proptest::collection::vec((proptest::collection::btree_set(0usize..4, 1..4), 0u8..6), 1..4);
    let case = std::sync::atomic::AtomicUsize::new(0);
    proptest!(cases::config(cases::MERGE_FILES), |(files in files)| {
        let n = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut paths = Vec::new();
        let mut pairs: Vec<(usize, &str)> = Vec::new();
        for (i, (points, kind)) in files.iter().enumerate() {
            let path = dir.path().join(format!("c{n}-{i}.csv"));
            let body: Vec<String> = match kind {
                1 => vec!["1,2,3".into()],
                _ => points.iter().map(|&p| row(p, names[p])).collect(),
            };
            let head = if *kind == 1 { "a,b,c" } else { header };
            std::fs::write(&path, format!("{head}\n{}\n", body.join("\n"))).unwrap();
            if *kind != 1 {
                pairs.extend(points.iter().map(|&p| (p, names[p])));
            }
            paths.push(path);
        }
        let junk = files.iter().any(|f| f.1 == 1);
        let out = dir.path().join(format!("m{n}.csv"));
        let mut args: Vec<&Path> = vec![Path::new("--merge")];
        args.extend(paths.iter().map(PathBuf::as_path));
        args.extend([Path::new("--csv"), out.as_path()]);
        let (code, err) = sweep(&args);
        if junk {
            prop_assert_eq!(code, 2, "{}", err);
            prop_assert!(err.contains("not a sweep's results"), "{}", err);
            prop_assert!(!out.exists());
        } else {
            prop_assert_eq!(code, 0, "{}", err);
            let merged = read(&out);
            let held: std::collections::BTreeSet<usize> = pairs.iter().map(|p| p.0).collect();
            let rows: Vec<usize> = merged.lines().skip(1).map(|l| l.split(',').next().unwrap().parse().unwrap()).collect();
            prop_assert_eq!(rows, held.into_iter().collect::<Vec<_>>(), "one row a point, in order");
        }
    });
}

/// `--md` tabulates every finished point with the CSV's numbers as `run` formats them.
#[test]
fn a_markdown_table_of_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let (csv, md) = (dir.path().join("r.csv"), dir.path().join("r.md"));
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--md"), &md]);
    assert_eq!(code, 0, "{err}");
    let table = read(&md);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "| workload | variant | run | `cycles` | `ipc` | `dram.row_hit_rate` |");
    assert_eq!(lines.len(), 2 + 4);
    for row in rows_by_point(&read(&csv)) {
        let f: Vec<&str> = row.split(',').collect();
        let cycles: u64 = f[6].parse().unwrap();
        let grouped = warpscope::sim::stats::metrics::group(cycles as i64);
        let ipc: f64 = f[7].parse().unwrap();
        let hit: f64 = f[8].parse().unwrap();
        let want = format!(
            "| `{}` | dram.scheduler={} l1.ways={} | done, {grouped} cycles | {grouped} | {ipc:.3} | {:.1}% |",
            f[2],
            f[3],
            f[4],
            hit * 100.0
        );
        assert!(lines.contains(&want.as_str()), "{want}\n{table}");
    }
}

/// A machine file edited in place keeps its name, so the name alone would let a resumed sweep
/// count runs of the old machine as the new one's: a JSON line carries a digest of the
/// machine's config, and a changed one is refused like a changed name. A digest-free line (one
/// written before digests, or a CSV row) is trusted by name.
#[test]
fn resuming_after_the_machine_file_was_edited_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::env::current_dir().unwrap();
    let machine = dir.path().join("small.ron");
    let original = read(&root.join("tests/fixtures/small.ron"));
    std::fs::write(&machine, &original).unwrap();
    let text = read(&grid(dir.path()))
        .replace(&root.join("tests/fixtures/small.ron").display().to_string(), &machine.display().to_string())
        .replace("metrics:", "max_cycles: 40,\n    metrics:");
    let g = dir.path().join("grid.ron");
    std::fs::write(&g, text).unwrap();
    let json = dir.path().join("r.jsonl");
    assert_eq!(sweep(&[&g, Path::new("--json"), &json]).0, 0);
    let stored = read(&json);
    assert_eq!(stored.matches("\"machine_settings\":\"").count(), 4, "every line carries the digest");
    // The same machine written out again: same digest, nothing to run.
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!((code, read(&json)), (0, stored.clone()), "{err}");
    // The same machine with a key spelled out at its default (as a key added to the simulator
    // later, whose default keeps the old behaviour, would be): still the same machine.
    let spelled = original.replace("dram: (channels: 2,", "dram: (frontend_latency: 0, channels: 2,");
    assert_ne!(spelled, original);
    std::fs::write(&machine, &spelled).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!((code, read(&json)), (0, stored.clone()), "{err}");
    // The machine edited under its name: refused before anything runs.
    let edited = original.replace("dram: (channels: 2,", "dram: (frontend_latency: 100, channels: 2,");
    assert_ne!(edited, original);
    std::fs::write(&machine, &edited).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("configured otherwise than the machine file"), "{err}");
    assert_eq!(read(&json), stored, "nothing ran, nothing was written");
    // Lines without a digest are trusted by name.
    let legacy: String = stored
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("machine_settings");
            format!("{v}\n")
        })
        .collect();
    std::fs::write(&json, &legacy).unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
    assert_eq!((code, read(&json)), (0, legacy), "{err}");
}

/// The instruction cap (`max_instructions`, the seeds' "1 billion instructions or to
/// completion") is a limit like the cycle cap: its runs are marked `max-instructions`, and a
/// results file resumed under another cap, or a stored run that issued past the new cap
/// without stopping, is refused before anything runs.
#[test]
fn resuming_after_the_instruction_cap_changed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let plain = read(&g);
    let capped = plain.replace("metrics:", "max_instructions: 2000,\n    metrics:");
    std::fs::write(&g, &capped).unwrap();
    let (csv, json) = (dir.path().join("r.csv"), dir.path().join("r.jsonl"));
    let (code, err) = sweep(&[&g, Path::new("--csv"), &csv, Path::new("--json"), &json]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(read(&csv).matches(",max-instructions,").count(), 4);
    let stored = read(&json);
    for (cap, why) in [
        (
            "max_instructions: 3000,",
            "was stopped at its cap of 2000 thread instructions, and this sweep's is 3000",
        ),
        (
            "",
            "was stopped at its cap of 2000 thread instructions, and this sweep's is none (max_instructions 0)",
        ),
    ] {
        std::fs::write(&g, capped.replace("max_instructions: 2000,", cap)).unwrap();
        let (code, err) = sweep(&[&g, Path::new("--json"), &json]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("tiny.ron | dram.scheduler=fcfs l1.ways=2") && err.contains(why), "{err}");
    }
    assert_eq!(read(&json), stored, "nothing ran, nothing was written");
    // Runs stopped at 400 cycles issued more than 2000 thread instructions: under the cap they
    // would have stopped earlier.
    std::fs::write(&g, plain.replace("metrics:", "max_cycles: 400,\n    metrics:")).unwrap();
    let short = dir.path().join("short.jsonl");
    assert_eq!(sweep(&[&g, Path::new("--json"), &short]).0, 0);
    std::fs::write(
        &g,
        plain.replace("metrics:", "max_cycles: 400,\n    max_instructions: 2000,\n    metrics:"),
    )
    .unwrap();
    let (code, err) = sweep(&[&g, Path::new("--json"), &short]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("thread instructions without stopping, past this sweep's cap of 2000"), "{err}");
}

/// Files of different sweeps do not merge (issue 37.4): shards of one grid number their points
/// alike, so the same number under another key in another file is another grid's point; and a
/// run made under other limits is another sweep's. Each refusal names the file, the line and
/// the point, exit 2, nothing written.
#[test]
fn merging_refuses_files_of_different_grids_or_limits() {
    let dir = tempfile::tempdir().unwrap();
    let g = grid(dir.path());
    let plain = read(&g);
    let run = |text: String, name: &str| {
        std::fs::write(&g, text).unwrap();
        let out = dir.path().join(name);
        assert_eq!(sweep(&[&g, Path::new("--csv"), &out]).0, 0);
        out
    };
    let fcfs = run(plain.replace("fcfs,frfcfs", "fcfs"), "fcfs.csv");
    let frfcfs = run(plain.replace("fcfs,frfcfs", "frfcfs"), "frfcfs.csv");
    let capped = run(
        plain.replace("fcfs,frfcfs", "fcfs").replace("metrics:", "max_cycles: 30,\n    metrics:"),
        "capped.csv",
    );
    let out = dir.path().join("m.csv");
    for (other, why) in [
        (&frfcfs, "point 0 is `"),
        (&capped, "was run on `small` under max_cycles 30 and max_instructions 0, and the runs of"),
    ] {
        let (code, err) = sweep(&[Path::new("--merge"), &fcfs, other, Path::new("--csv"), &out]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("{}:2:1: ", other.display())) && err.contains(why), "{err}");
        assert!(err.contains("do not merge"), "{err}");
        assert!(!out.exists());
    }
}
