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
    let row = format!(
        "| `../tiny.ron` | {:+.1} % | {:.3} → {:.3} |",
        (speedup - 1.0) * 100.0,
        hits_fcfs,
        hits_frfcfs
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
    assert!(report.contains("capped at 200000 core cycles"));
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
    std::fs::remove_dir_all(&out).ok();
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
    let mut n = 0;
    for e in std::fs::read_dir("sample-configs/repro").unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "ron") {
            let r = warpscope::batch::repro::Repro::load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(!r.spec.claims.is_empty(), "{}", path.display());
            n += 1;
        }
    }
    assert!(n >= 1);
}
