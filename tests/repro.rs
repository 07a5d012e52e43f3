//! `warpscope repro`: a spec's sweep runs (resumably), and the report sets each claim's paper
//! number beside ours, computed from the results file.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const MINI: &str = "tests/fixtures/repro/mini.ron";

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("warpscope-repro-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn the_report_is_computed_from_the_runs_and_a_rerun_resumes() {
    let out = tmp("mini");
    let run = || Command::new(BIN).args(["repro", MINI, "--out"]).arg(&out).output().unwrap();
    let first = run();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(String::from_utf8_lossy(&first.stderr).contains("2 runs, 0 already done, 2 run now"));
    // Our speedup, from the results file by hand: FCFS cycles over FR-FCFS cycles.
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let cycles = |sched: &str| -> f64 {
        let line = results.lines().find(|l| l.contains(&format!("dram.scheduler={sched}\""))).unwrap();
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["report"]["cycles"].as_f64().unwrap()
    };
    let key = |sched: &str, key: &str| -> f64 {
        let line = results.lines().find(|l| l.contains(&format!("dram.scheduler={sched}\""))).unwrap();
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["report"]["dram"][key].as_f64().unwrap()
    };
    let ipc = |sched: &str| -> (f64, bool) {
        let line = results.lines().find(|l| l.contains(&format!("dram.scheduler={sched}\""))).unwrap();
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        (v["report"]["ipc"].as_f64().unwrap(), v["status"] == "max-cycles")
    };
    let speedup = cycles("fcfs") / cycles("frfcfs");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    let row = format!("| Fig. A | FR-FCFS speedup over FCFS | +50.0 % | {:+.1} % |", (speedup - 1.0) * 100.0);
    assert!(report.contains(&row), "{row}\n{report}");
    // The claim's diagnosis: the row hit rate of both runs beside the speedup.
    let (hits_fcfs, hits_frfcfs) = (key("fcfs", "row_hit_rate"), key("frfcfs", "row_hit_rate"));
    // Printed as `run` prints the key: a share as a percentage.
    let row = format!(
        "| `../tiny.ron` | {:+.1} % | {:.1}% → {:.1}% |",
        (speedup - 1.0) * 100.0,
        hits_fcfs * 100.0,
        hits_frfcfs * 100.0
    );
    assert!(
        report.contains("| benchmark | warpscope | `dram.row_hit_rate` (baseline → variant) |"),
        "{report}"
    );
    assert!(report.contains(&row), "{row}\n{report}");
    // A stated side: the floor is shown as such, the verdict says whether ours is above it, and
    // there is no size to compare.
    let row = format!(
        "| §D | FR-FCFS: no benchmark slower than with FCFS | ≥ +0.0 % | {:+.1} % | yes | – |",
        (speedup - 1.0) * 100.0
    );
    assert!(report.contains(&row), "{row}\n{report}");
    assert!(report.contains("speedup (baseline cycles / variant cycles), the smallest"), "{report}");
    assert!(report.contains("capped at 200,000 core cycles"), "{report}");
    // The figure: IPC over FCFS's at each scheduler, a line per benchmark.
    let ((fcfs, c0), (frfcfs, c1)) = (ipc("fcfs"), ipc("frfcfs"));
    let mark = |capped: bool| if capped { " *capped*" } else { "" };
    let row = format!("| `../tiny.ron` | 1.00×{} | {:.2}×{} |", mark(c0), frfcfs / fcfs, mark(c0 || c1));
    assert!(report.contains("## Fig. D: IPC by scheduler, over FCFS's"), "{report}");
    assert!(report.contains("| benchmark | fcfs | frfcfs |"), "{report}");
    assert!(report.contains(&row), "{row}\n{report}");
    let svg = std::fs::read_to_string(out.join("report.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(
        svg.contains("Fig. D: IPC by scheduler, over FCFS") && svg.contains("dram.scheduler"),
        "the curve's panel"
    );
    // A second run finds both runs done and writes the same report.
    let second = run();
    assert!(String::from_utf8_lossy(&second.stderr).contains("2 runs, 2 already done, 0 run now"));
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), report);
    // --report-only writes the same report from the stored runs, running nothing; with a run
    // missing it refuses, and writes nothing.
    std::fs::remove_file(out.join("report.md")).unwrap();
    let only =
        || Command::new(BIN).args(["repro", MINI, "--report-only", "--out"]).arg(&out).output().unwrap();
    let o = only();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("run now"));
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), report);
    let first_run = results.lines().next().unwrap().to_string() + "\n";
    std::fs::write(out.join("results.jsonl"), &first_run).unwrap();
    std::fs::remove_file(out.join("report.md")).unwrap();
    let o = only();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 of the study's 2 runs is not stored; run it without --report-only"), "{err}");
    assert!(!out.join("report.md").exists());
    assert_eq!(std::fs::read_to_string(out.join("results.jsonl")).unwrap(), first_run, "nothing ran");
    std::fs::remove_dir_all(&out).ok();
}

/// A spec that gains a point and reorders its points resumes: each stored result is matched to
/// its point by key, not by the point number stored with it, so only the new point runs and the
/// report is a fresh run's. Back at the old spec, the new point's result matches no point: it
/// stays in the file, is counted once on stderr, and the report is the old one.
#[test]
fn a_grown_and_reordered_spec_runs_only_its_new_points() {
    let dir = tmp("grown");
    std::fs::create_dir_all(&dir).unwrap();
    let tiny = std::fs::canonicalize("tests/fixtures/tiny.ron").unwrap();
    let mini = std::fs::read_to_string(MINI).unwrap().replace("../tiny.ron", &tiny.display().to_string());
    let grid = r#"grid: ["dram.scheduler=fcfs,frfcfs"]"#;
    assert!(mini.contains(grid));
    std::fs::write(dir.join("mini.ron"), &mini).unwrap();
    std::fs::write(dir.join("grown.ron"), mini.replace(grid, r#"grid: ["dram.scheduler=frfcfs,gmc,fcfs"]"#))
        .unwrap();
    let repro = |spec: &str, out: &str| {
        let o = Command::new(BIN).args(["repro", spec, "--out", out]).current_dir(&dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{stderr}");
        stderr
    };
    let read = |out: &str, file: &str| std::fs::read_to_string(dir.join(out).join(file)).unwrap();
    assert!(repro("mini.ron", "resumed").contains("2 runs, 0 already done, 2 run now"));
    let (stored, old_report) = (read("resumed", "results.jsonl"), read("resumed", "report.md"));
    let grown = repro("grown.ron", "resumed");
    assert!(grown.contains("3 runs, 2 already done, 1 run now"), "{grown}");
    assert!(!grown.contains("no point of this sweep"), "{grown}");
    let results = read("resumed", "results.jsonl");
    assert!(results.starts_with(&stored), "the stored results are kept as they were");
    assert_eq!(results.lines().count(), 3);
    assert!(results.lines().last().unwrap().contains("dram.scheduler=gmc\""), "{results}");
    assert!(repro("grown.ron", "fresh").contains("3 runs, 0 already done, 3 run now"));
    for file in ["report.md", "report.svg"] {
        assert_eq!(read("resumed", file), read("fresh", file), "{file}");
    }
    // Each run is bit-identical to the fresh run's of its point, whatever its number, apart
    // from the wall time it took.
    let reports = |text: &str| -> std::collections::BTreeMap<String, serde_json::Value> {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .map(|mut v| {
                let sim = v["report"]["sim"].as_object_mut().unwrap();
                assert!(sim.remove("wall_seconds").is_some() && sim.remove("cycles_per_second").is_some());
                (v["key"].as_str().unwrap().to_string(), v["report"].clone())
            })
            .collect()
    };
    let (resumed, fresh) = (reports(&results), reports(&read("fresh", "results.jsonl")));
    assert_eq!(resumed.keys().collect::<Vec<_>>(), fresh.keys().collect::<Vec<_>>());
    for (key, report) in &resumed {
        assert!(*report == fresh[key], "{key}: the resumed run differs from the fresh one");
    }
    let back = repro("mini.ron", "resumed");
    assert!(back.contains("2 runs, 2 already done, 0 run now"), "{back}");
    let warning = "results.jsonl: 1 stored result matches no point of this sweep";
    assert_eq!(back.matches(warning).count(), 1, "{back}");
    assert_eq!(read("resumed", "results.jsonl"), results, "left in the file");
    assert_eq!(read("resumed", "report.md"), old_report);
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `repro` on the mini spec with `from` replaced by `to`; expects it refused (exit 2)
/// before anything ran, and returns what it printed.
fn refused(name: &str, from: &str, to: &str) -> String {
    let dir = tmp(name);
    std::fs::create_dir_all(&dir).unwrap();
    let tiny = std::fs::canonicalize("tests/fixtures/tiny.ron").unwrap();
    let mini = std::fs::read_to_string(MINI).unwrap();
    assert!(mini.contains(from), "{from}");
    let spec = mini.replace(from, to).replace("../tiny.ron", &tiny.display().to_string());
    std::fs::write(dir.join("spec.ron"), spec).unwrap();
    let out = Command::new(BIN).args(["repro", "spec.ron", "--out", "o"]).current_dir(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!dir.join("o").exists(), "nothing ran, nothing was created");
    std::fs::remove_dir_all(&dir).ok();
    stderr
}

#[test]
fn a_claim_naming_a_variant_the_sweep_lacks_is_refused_before_running() {
    let stderr = refused(
        "bad",
        "variant: \"dram.scheduler=frfcfs\", baseline",
        "variant: \"dram.scheduler=gmc\", baseline",
    );
    assert!(
        stderr.contains("claims[0].variant: `dram.scheduler=gmc` is not a variant of the sweep; its variants: dram.scheduler=fcfs, dram.scheduler=frfcfs"),
        "{stderr}"
    );
}

/// A claim's unknown metric is refused where the claim names it, not at the sweep's
/// `metrics`, which the spec does not have.
#[test]
fn a_claim_naming_an_unknown_metric_is_refused_at_the_claim() {
    let stderr =
        refused("metric", "measure: Value(\"dram.row_hit_rate\")", "measure: Value(\"dram.row_hit_rat\")");
    assert!(
        stderr.contains("spec.ron:16:")
            && stderr.contains("claims[1].measure")
            && stderr.contains("unknown metric `dram.row_hit_rat`"),
        "{stderr}"
    );
    let stderr = refused("diagnosed", "diagnose: [\"dram.row_hit_rate\"]", "diagnose: [\"nope\"]");
    assert!(stderr.contains("spec.ron:15:") && stderr.contains("claims[0].diagnose[0]"), "{stderr}");
}

#[test]
fn a_figure_needs_a_key_the_variants_sweep() {
    let stderr = refused("axis", "axis: \"dram.scheduler\"", "axis: \"l1.sets\"");
    assert!(
        stderr.contains("figures[0].axis: `l1.sets` takes fewer than two values over the sweep's variants"),
        "{stderr}"
    );
}

/// Every shipped reproduction spec loads: its sweep's machine, benchmarks and variants exist
/// and every claim names them (the full runs are documented, not run here).
#[test]
fn the_shipped_specs_load() {
    let specs = shipped_specs();
    for path in &specs {
        let r = warpscope::batch::repro::Repro::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!r.spec.claims.is_empty(), "{}", path.display());
    }
    assert!(!specs.is_empty());
}

/// The reproduction specs shipped in `sample-configs/repro`.
fn shipped_specs() -> Vec<std::path::PathBuf> {
    let entries = std::fs::read_dir("sample-configs/repro").unwrap();
    let paths = entries.map(|e| e.unwrap().path());
    paths.filter(|p| p.extension().is_some_and(|x| x == "ron")).collect()
}

/// CI's smoke run of every shipped study (issue 13): each spec's whole sweep, every run capped at
/// 2,000 core cycles (`--max-cycles`), finishes cleanly and gives a report with a row for every
/// claim, stating the caps. The full runs are documented in docs/reproduction/README.md with their wall time.
#[test]
fn every_shipped_study_runs_shortened() {
    for spec in shipped_specs() {
        let name = spec.file_stem().unwrap().to_string_lossy().to_string();
        let out = tmp(&format!("smoke-{name}"));
        let run = Command::new(BIN)
            .args(["repro", "--max-cycles", "2000", "--jobs", "2", "--out"])
            .arg(&out)
            .arg(&spec)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{name}: {err}");
        assert!(err.contains(" 0 already done,") && err.contains(" 0 not finished cleanly"), "{name}: {err}");
        let report = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(report.contains("Each run is capped at 2,000 core cycles"), "{name}: {report}");
        // Every claim has its row; in 2,000 cycles a ratio can lack a divisor (no L2 access
        // yet), and the row says so rather than showing a number.
        let r = warpscope::batch::repro::Repro::load(&spec).unwrap();
        let insns = r.spec.sweep.max_instructions;
        assert!(
            insns == 0
                || report.contains(&format!(
                    "and at {} thread instructions",
                    warpscope::sim::stats::metrics::group(insns)
                )),
            "{name}: the report states the instruction cap"
        );
        for c in &r.spec.claims {
            let row = format!("| {} | {} | ", c.source, c.what);
            assert!(report.contains(&row), "{name}: no row for {row}");
        }
        assert!(std::fs::read_to_string(out.join("report.svg")).unwrap().starts_with("<svg"), "{name}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// `--verify N` runs stored runs again and compares the reports (issue 13: the stored runs
/// carry a digest of the machine, not of the simulator). Untouched runs reproduce; a report
/// edited by hand — as a run of another simulator would read — is named with the key that
/// differs, and the command fails; nothing is written; a directory without results is refused.
#[test]
fn verify_runs_stored_runs_again_and_names_what_differs() {
    let out = tmp("verify");
    let repro = |extra: &[&str]| {
        Command::new(BIN).args(["repro", MINI, "--out"]).arg(&out).args(extra).output().unwrap()
    };
    let missing = repro(&["--verify", "2"]);
    assert_eq!(missing.status.code(), Some(2), "{}", String::from_utf8_lossy(&missing.stderr));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("holds no results.jsonl to verify"));
    let zero = repro(&["--verify", "0"]);
    assert_eq!(zero.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&zero.stderr).contains("--verify 0"),
        "{}",
        String::from_utf8_lossy(&zero.stderr)
    );
    assert!(!out.exists(), "--verify creates nothing");
    assert!(repro(&[]).status.success());
    let check = repro(&["--verify", "2"]);
    let text = String::from_utf8_lossy(&check.stdout).to_string();
    assert!(check.status.success(), "{text}{}", String::from_utf8_lossy(&check.stderr));
    assert_eq!(text.matches("\nsame ").count() + usize::from(text.starts_with("same ")), 2, "{text}");
    assert!(text.contains("2 of 2 stored runs run again give the same report"), "{text}");
    let results = out.join("results.jsonl");
    let stored = std::fs::read_to_string(&results).unwrap();
    let line = stored.lines().find(|l| l.contains("dram.scheduler=fcfs\"")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    let reads = v["report"]["dram"]["reads"].as_u64().unwrap();
    v["report"]["dram"]["reads"] = (reads + 1).into();
    let edited = stored.replace(line, &serde_json::to_string(&v).unwrap());
    std::fs::write(&results, &edited).unwrap();
    let check = repro(&["--verify", "2"]);
    let text = String::from_utf8_lossy(&check.stdout).to_string();
    assert_eq!(check.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("dram.reads: stored {} → now {reads}", reads + 1)), "{text}");
    assert!(text.contains("1 of 2 stored runs run again give the same report; the others"), "{text}");
    assert_eq!(std::fs::read_to_string(&results).unwrap(), edited, "verify writes nothing");
    let _ = std::fs::remove_dir_all(&out);
}

/// `--since OLD` lists the claims whose verdict differs between an earlier results file and the
/// stored runs (issue 35.8). An old file in which FCFS ran at half (or twice) FR-FCFS's cycles
/// turns the speedup claim and the no-slowdown floor around, though made on the machine file
/// as it read before an edit (another settings digest); the same file twice changes nothing;
/// a missing file is refused.
#[test]
fn since_lists_the_claims_whose_verdict_changed() {
    let out = tmp("since");
    let repro = |extra: &[&str]| {
        Command::new(BIN).args(["repro", MINI, "--out"]).arg(&out).args(extra).output().unwrap()
    };
    assert!(repro(&[]).status.success());
    let stored = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let run = |sched: &str| -> serde_json::Value {
        let line = stored.lines().find(|l| l.contains(&format!("dram.scheduler={sched}\""))).unwrap();
        serde_json::from_str(line).unwrap()
    };
    let (fcfs, frfcfs) = (run("fcfs"), run("frfcfs"));
    let cycles = |v: &serde_json::Value| v["report"]["cycles"].as_f64().unwrap();
    let now = cycles(&fcfs) / cycles(&frfcfs);
    let then = if now > 1.0 { 0.5 } else { 2.0 };
    let mut old_fcfs = fcfs.clone();
    old_fcfs["report"]["cycles"] = ((cycles(&frfcfs) * then) as u64).into();
    assert!(old_fcfs["machine_settings"].is_string(), "{old_fcfs}");
    old_fcfs["machine_settings"] = "0123456789abcdef".into();
    let old_line = serde_json::to_string(&old_fcfs).unwrap();
    let fcfs_line = stored.lines().find(|l| l.contains("dram.scheduler=fcfs\"")).unwrap();
    let old = out.join("old.jsonl");
    std::fs::write(&old, stored.replace(fcfs_line, &old_line)).unwrap();

    let since = repro(&["--since", old.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&since.stdout).to_string();
    assert!(since.status.success(), "{text}{}", String::from_utf8_lossy(&since.stderr));
    let capped = |v: &serde_json::Value| v["status"] == "max-cycles";
    let mark = if capped(&fcfs) || capped(&frfcfs) { " *capped*" } else { "" };
    let then = cycles(&old_fcfs) / cycles(&frfcfs);
    let verdict = |s: f64| if s > 1.0 { "yes" } else { "**no**" };
    let row = format!(
        "| Fig. A | FR-FCFS speedup over FCFS | +50.0 % | {:+.1} %{mark} → {:+.1} %{mark} | {} → {} |",
        (then - 1.0) * 100.0,
        (now - 1.0) * 100.0,
        verdict(then),
        verdict(now)
    );
    assert!(text.contains(&row), "{row}\n{text}");
    assert!(text.contains("| §D | FR-FCFS: no benchmark slower than with FCFS |"), "{text}");
    assert!(!text.contains("| Fig. B |"), "the row hit rate claim did not move\n{text}");
    assert!(text.contains("2 of the 4 claims changed verdict."), "{text}");

    let same = repro(&["--since", out.join("results.jsonl").to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&same.stdout), "No verdict of the 4 claims changed.\n");
    let missing = repro(&["--since", "/nonexistent/results.jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("is not a results file"));
    let _ = std::fs::remove_dir_all(&out);
}
