//! Speedups across benchmarks (issue 39.4): `compare` over several workloads and `sweep
//! --baseline` normalise to a baseline variant, per benchmark and as a geometric mean; checked
//! against the runs' own cycles.

mod common;

const SMALL: &str = "tests/fixtures/small.ron";

use common::run_cli as run;

fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines().map(warpscope::batch::sweep::csv_fields).collect()
}

/// Two small benchmark files and a list naming them (with a comment and a blank line, paths
/// relative to the list), in `dir`.
fn list(dir: &std::path::Path) -> String {
    std::fs::write(dir.join("atax.ron"), "(benchmark: \"atax\", sizes: {\"nx\": 64, \"ny\": 64})").unwrap();
    std::fs::write(dir.join("bicg.ron"), "(benchmark: \"bicg\", sizes: {\"nx\": 64, \"ny\": 64})").unwrap();
    let list = dir.join("list.txt");
    std::fs::write(&list, "# two benchmarks\natax.ron\n\nbicg.ron  # the second\n").unwrap();
    list.display().to_string()
}

#[test]
fn compare_over_several_workloads_gives_each_variant_s_speedup_and_the_geometric_mean() {
    let dir = tempfile::tempdir().unwrap();
    let list = list(dir.path());
    let p = |f: &str| dir.path().join(f).display().to_string();
    let (code, out, err) = run(&[
        "compare",
        "-c",
        SMALL,
        "-w",
        "tests/fixtures/tiny.ron",
        "--workloads",
        &list,
        "--vary",
        "dram.scheduler=fcfs,frfcfs",
        "--baseline",
        "frfcfs",
        "--csv",
        &p("s.csv"),
        "--json",
        &p("r.json"),
        "--svg",
        &p("s.svg"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("speedup over frfcfs (its cycles / the variant's):"), "{out}");
    let runs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p("r.json")).unwrap()).unwrap();
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 6, "3 workloads × 2 variants");
    let cycles = |w: usize, v: usize| runs[w * 2 + v]["report"]["cycles"].as_f64().unwrap();
    let rows = csv_rows(&std::fs::read_to_string(p("s.csv")).unwrap());
    assert_eq!(rows[0], ["benchmark", "fcfs", "frfcfs"]);
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["tiny", "atax (nx=64, ny=64)", "bicg (nx=64, ny=64)", "GM"]);
    let mut logs = 0.0;
    for w in 0..3 {
        let speedup = cycles(w, 1) / cycles(w, 0);
        assert_eq!(rows[w + 1][1].parse::<f64>().unwrap(), speedup, "frfcfs cycles / fcfs cycles");
        assert_eq!(rows[w + 1][2], "1", "the baseline over itself");
        logs += speedup.ln();
    }
    let gm: f64 = rows[4][1].parse().unwrap();
    assert!((gm - (logs / 3.0).exp()).abs() < 1e-12, "{gm}");
    let svg = std::fs::read_to_string(p("s.svg")).unwrap();
    for label in ["tiny", "atax (nx=64, ny=64)", "bicg (nx=64, ny=64)", "GM"] {
        assert!(svg.contains(label), "a group per benchmark and the GM: {label}");
    }
    assert!(warpscope::batch::chart::svg::layout_faults(&svg).is_empty());
}

#[test]
fn bad_workload_lists_and_baselines_exit_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let list = list(dir.path());
    let (code, _, err) =
        run(&["compare", "-w", "atax", "-w", "atax", "--vary", "dram.scheduler=fcfs,frfcfs"]);
    assert_eq!(code, 2);
    assert!(err.contains("-w atax: is given twice"), "{err}");
    let twice = dir.path().join("twice.txt");
    std::fs::write(&twice, "atax.ron\nbicg.ron\natax.ron\n").unwrap();
    let (code, _, err) =
        run(&["compare", "--workloads", twice.to_str().unwrap(), "--vary", "dram.scheduler=fcfs,frfcfs"]);
    assert_eq!(code, 2);
    assert!(err.contains("twice.txt:3:1: ") && err.contains("is listed twice (first on line 1)"), "{err}");
    let (code, _, err) =
        run(&["compare", "--workloads", &list, "--vary", "dram.scheduler=fcfs,frfcfs", "--baseline", "gmc"]);
    assert_eq!(code, 2);
    assert!(err.contains("--baseline gmc: names no variant; the variants are `fcfs`, `frfcfs`"), "{err}");
}

#[test]
fn a_sweep_normalises_any_grid_to_a_baseline_variant() {
    let dir = tempfile::tempdir().unwrap();
    let here = std::env::current_dir().unwrap();
    let tiny = here.join("tests/fixtures/tiny.ron").display().to_string();
    let grid = common::grid_file(
        dir.path(),
        &[tiny, "atax.ron".into()],
        &format!(
            "config: Some({:?}), grid: [\"dram.scheduler=fcfs,frfcfs\", \"l1.replacement=lru,rrip\"], metrics: [\"cycles\", \"ipc\"]",
            here.join(SMALL).display().to_string()
        ),
    );
    list(dir.path());
    let p = |f: &str| dir.path().join(f).display().to_string();
    let results = p("r.csv");
    let sweep =
        |extra: &[&str]| run(&[&["sweep", grid.to_str().unwrap(), "--csv", &results], extra].concat());
    let base = "dram.scheduler=frfcfs l1.replacement=lru";
    let (code, out, err) = sweep(&[
        "--baseline",
        base,
        "--metric",
        "ipc",
        "--normalised-csv",
        &p("n.csv"),
        "--normalised-svg",
        &p("n.svg"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&format!("ipc relative to {base}")), "{out}");
    let results = csv_rows(&std::fs::read_to_string(p("r.csv")).unwrap());
    let col = |name: &str| results[0].iter().position(|h| h == name).unwrap();
    let ipc = |workload: &str, variant: &str| -> f64 {
        let r = results
            .iter()
            .find(|r| r[col("workload")].ends_with(workload) && r[col("key")].ends_with(variant));
        r.unwrap_or_else(|| panic!("{workload} {variant}"))[col("ipc")].parse().unwrap()
    };
    let n = csv_rows(&std::fs::read_to_string(p("n.csv")).unwrap());
    let v = n[0].iter().position(|h| h == "dram.scheduler=fcfs l1.replacement=rrip").unwrap();
    let want = ipc("atax.ron", "dram.scheduler=fcfs l1.replacement=rrip") / ipc("atax.ron", base);
    assert_eq!(n[2][v].parse::<f64>().unwrap(), want, "the variant's ipc / the baseline's");
    assert_eq!(n[3][0], "GM");
    let (code, _, err) = sweep(&["--baseline", "fcfs"]);
    assert_eq!(code, 2);
    assert!(err.contains("--baseline fcfs: names no variant"), "{err}");
    let (code, _, err) = sweep(&["--baseline", base, "--metric", "l1.hit_rate"]);
    assert_eq!(code, 2);
    assert!(err.contains("--metric l1.hit_rate: is not one of the grid's metrics"), "{err}");
}
