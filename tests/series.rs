//! `run --series`, `--progress-every` and `-q` (issue 39.1, 39.5): what the files and lines say,
//! checked against the run's own report, and the bad input refused before anything runs.

mod common;

const SMALL: &str = "tests/fixtures/small.ron";

use common::run_cli as run;

/// `run` on the small machine with ATAX of n × n and the further arguments `extra`.
fn run_atax(n: u32, extra: &[&str]) -> (i32, String, String) {
    let (nx, ny) = (format!("workload.nx={n}"), format!("workload.ny={n}"));
    run(&[&["run", "-c", SMALL, "-w", "atax", "--set", &nx, "--set", &ny], extra].concat())
}

#[test]
fn the_series_has_a_row_per_interval_whose_counts_make_up_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (series, json) = (dir.path().join("s.csv"), dir.path().join("r.json"));
    let (series, json) = (series.to_str().unwrap(), json.to_str().unwrap());
    let (code, _, err) = run_atax(64, &["--series", series, "--every", "500", "--json", json, "-q"]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let cycles = report["cycles"].as_u64().unwrap();
    let text = std::fs::read_to_string(series).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header, warpscope::batch::run::SERIES_COLUMNS);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|c| c.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len() as u64, cycles.div_ceil(500), "a row per interval, the last one short");
    let mut at = 0.0;
    let mut instructions = 0.0;
    for r in &rows {
        assert_eq!(r[col("cycle_start")], at, "intervals follow each other");
        at = r[col("cycle_end")];
        instructions += r[col("ipc")] * (r[col("cycle_end")] - r[col("cycle_start")]);
        for share in [
            "l1_hit_rate",
            "l2_hit_rate",
            "dram_bandwidth_utilization",
            "l1_mshr_occupancy",
            "dram_read_queue_occupancy",
        ] {
            assert!((0.0..=1.0).contains(&r[col(share)]), "{share} is a share of 1: {r:?}");
        }
    }
    assert_eq!(at, cycles as f64, "the last row ends at the run's end");
    let total = report["thread_instructions"].as_f64().unwrap();
    // Each IPC is printed with 6 decimals: the rebuilt total is within half a unit of the last
    // decimal per cycle.
    assert!((instructions - total).abs() <= 0.5e-6 * cycles as f64 + 1e-6, "{instructions} vs {total}");
    // Both kernels appear, in order.
    let kernels: Vec<f64> = rows.iter().map(|r| r[col("kernel")]).collect();
    assert_eq!((kernels[0], *kernels.last().unwrap()), (0.0, 1.0));
    assert!(kernels.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn progress_lines_go_to_standard_error_every_n_cycles_and_q_silences_them() {
    let (code, out, err) = run_atax(32, &["--progress-every", "1000"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.len() >= 2, "{err}");
    assert!(lines[0].starts_with("cycles simulated: 1,000  inst.: "), "{err}");
    assert!(lines[1].starts_with("cycles simulated: 2,000  inst.: "), "{err}");
    let last = lines.last().unwrap();
    let done = out.lines().next().unwrap();
    // The last line is at the run's end, the summary's cycle count.
    let cycles = done.split("done in ").nth(1).unwrap().split(' ').next().unwrap();
    assert!(last.starts_with(&format!("cycles simulated: {cycles}  ")), "{last} / {done}");
    let (code, out, err) = run_atax(32, &["--progress-every", "1000", "-q"]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
}

#[test]
fn bad_series_and_progress_arguments_exit_2_before_anything_runs() {
    let (code, _, err) = run(&["run", "-c", SMALL, "--series", "-", "--every", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--every 0") && err.contains("1 or more"), "{err}");
    let (code, _, err) = run(&["run", "-c", SMALL, "--progress-every", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--progress-every 0"), "{err}");
    let (code, _, err) = run(&["run", "-c", SMALL, "--series", "/nonexistent-dir/s.csv"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--series /nonexistent-dir/s.csv"), "{err}");
}
