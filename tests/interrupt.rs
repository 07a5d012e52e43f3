//! Ctrl-C (issue 39.2): `run` stops cleanly and writes its report so far as `interrupted`;
//! `sweep` keeps the points that finished and resumes from them. Each test starts the binary
//! and sends it SIGINT, as a terminal's Ctrl-C does.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

fn sigint(child: &Child) {
    let ok = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(ok.success());
}

/// Waits until `ready` holds (polling), at most a minute.
fn wait_for(mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(60), "the child never got there");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_interrupted_run_writes_its_report_so_far_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut child = Command::new(BIN)
        .args(["run", "-c", "sample-configs/fermi-30sm.ron", "-w", "atax"])
        .args(["--set", "workload.nx=4096", "--set", "workload.ny=4096", "--progress-every", "1000"])
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first progress line says the simulation runs (the input is made, the handler set).
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.starts_with("cycles simulated: 1,000 "), "{line}");
    sigint(&child);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{rest}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("interrupted (Ctrl-C) after"), "the summary is printed: {stdout}");
    assert!(rest.contains("interrupted at cycle"), "{rest}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["status"], "interrupted");
    let cycles = report["cycles"].as_u64().unwrap();
    assert!(cycles >= 1_000, "{cycles}");
    // The one launch begun runs to where the run stopped.
    assert_eq!(report["kernels"].as_array().unwrap().len(), 1);
    assert_eq!(report["kernels"][0]["end_cycle"].as_u64(), Some(cycles));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, vec![std::ffi::OsString::from("r.json")], "no temporary file left");
}

fn rows(csv: &Path) -> usize {
    std::fs::read_to_string(csv).map_or(0, |t| t.lines().count().saturating_sub(1))
}

#[test]
fn an_interrupted_sweep_keeps_the_finished_points_and_resumes_from_them() {
    let dir = tempfile::tempdir().unwrap();
    let bfs = std::env::current_dir().unwrap().join("sample-configs/workloads/bfs.ron");
    let grid = common::grid_file(
        dir.path(),
        &[bfs.display().to_string()],
        "grid: [\"l2.ways=4,8,16,32,64,128\"], metrics: [\"cycles\"]",
    );
    let csv = dir.path().join("out.csv");
    let child = Command::new(BIN)
        .arg("sweep")
        .arg(&grid)
        .arg("--csv")
        .arg(&csv)
        .args(["--jobs", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(|| rows(&csv) >= 1);
    sigint(&child);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let kept = rows(&csv);
    assert!((1..6).contains(&kept), "{kept} rows");
    assert!(err.contains(&format!("interrupted: {kept} point")), "{err}");
    assert!(err.contains("The same command resumes"), "{err}");
    assert!(!std::fs::read_to_string(&csv).unwrap().contains("interrupted"), "no partial run stored");
    // Resumed, it runs only the others.
    let out = Command::new(BIN).arg("sweep").arg(&grid).arg("--csv").arg(&csv).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("{kept} already done, {} run", 6 - kept)), "{err}");
    assert_eq!(rows(&csv), 6);
}
