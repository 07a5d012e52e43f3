//! Per-kernel statistics (issue 39.3): one entry per kernel launch, whose cycles, counts and
//! rates make up the whole run's, taken without changing what the run does.

mod common;

use std::path::Path;
use std::sync::Arc;
use warpscope::batch::run::{RunOptions, kernels_csv, simulate};
use warpscope::config::Config;
use warpscope::sim::stats::report::Report;
use warpscope::workload::Workload;

fn run(config: &Config, workload: Workload, max_cycles: u64) -> Report {
    let opts = RunOptions { max_cycles, ..RunOptions::default() };
    simulate(config, Arc::new(workload), &opts).expect("runs").1
}

/// `num / den`'s share, as the report computes its rates.
fn weighted(parts: &[(f64, u64)], den: u64) -> f64 {
    parts.iter().map(|(rate, weight)| rate * *weight as f64).sum::<f64>() / den as f64
}

/// The whole run's numbers are the launches' sums, and its rates their means weighted by
/// what each rate is over (cycles, reads, requests, returned loads).
fn check_adds_up(r: &Report, launches: usize) {
    let k = &r.kernels;
    assert_eq!(k.len(), launches, "an entry per launch");
    assert_eq!(k.iter().map(|k| k.launch).collect::<Vec<_>>(), (0..launches as u64).collect::<Vec<_>>());
    assert_eq!(k[0].start_cycle, 0);
    for w in k.windows(2) {
        assert_eq!(w[0].end_cycle, w[1].start_cycle, "launches follow each other without a gap");
    }
    assert_eq!(k.last().unwrap().end_cycle, r.cycles, "the last launch runs to the run's end");
    let sum = |f: fn(&warpscope::sim::stats::report::KernelReport) -> u64| k.iter().map(f).sum::<u64>();
    assert_eq!(sum(|k| k.cycles), r.cycles);
    assert_eq!(sum(|k| k.thread_instructions), r.thread_instructions);
    assert_eq!(sum(|k| k.warp_instructions), r.warp_instructions);
    assert_eq!(sum(|k| k.occlusions), r.core.occlusions);
    assert_eq!(sum(|k| k.l1_reads), r.l1.reads);
    assert_eq!(sum(|k| k.l2_reads), r.l2.reads);
    let close =
        |a: f64, b: f64, what: &str| assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{what}: {a} ≠ {b}");
    close(weighted(&k.iter().map(|k| (k.ipc, k.cycles)).collect::<Vec<_>>(), r.cycles), r.ipc, "ipc");
    close(
        weighted(&k.iter().map(|k| (k.l1_hit_rate, k.l1_reads)).collect::<Vec<_>>(), r.l1.reads),
        r.l1.hit_rate,
        "l1",
    );
    close(
        weighted(&k.iter().map(|k| (k.l2_hit_rate, k.l2_reads)).collect::<Vec<_>>(), r.l2.reads),
        r.l2.hit_rate,
        "l2",
    );
    let requests = sum(|k| k.dram_requests);
    close(
        weighted(&k.iter().map(|k| (k.dram_row_hit_rate, k.dram_requests)).collect::<Vec<_>>(), requests),
        r.dram.metrics.row_hit_rate,
        "row hits",
    );
    let returns = sum(|k| k.load_returns);
    close(
        weighted(&k.iter().map(|k| (k.load_latency_mean, k.load_returns)).collect::<Vec<_>>(), returns),
        r.memory.avg_latency,
        "load latency",
    );
}

fn atax(n: u32) -> Workload {
    let sizes = vec![format!("workload.nx={n}"), format!("workload.ny={n}")];
    Workload::resolve(Some(Path::new("atax")), &sizes, 1).expect("atax")
}

#[test]
fn atax_has_two_launches_that_add_up_to_the_run() {
    let config = common::small_config(&[]);
    let r = run(&config, atax(64), 0);
    assert_eq!(r.status, "done");
    check_adds_up(&r, 2);
    assert_eq!((r.kernels[0].name.as_str(), r.kernels[1].name.as_str()), ("atax_kernel1", "atax_kernel2"));
    // ATAX's two kernels each run nx × ny multiply-adds: the same thread instructions.
    assert_eq!(r.kernels[0].thread_instructions, r.kernels[1].thread_instructions);
}

#[test]
fn a_trace_of_several_launches_has_an_entry_each_with_its_name() {
    let dir = Path::new("tests/fixtures/traces/rodinia-bfs");
    let w = Workload::load(&dir.join("kernelslist.g"), 1).expect("trace");
    let names: Vec<String> = w.kernels.iter().map(|k| k.name().to_string()).collect();
    let r = run(&common::small_config(&[]), w, 0);
    check_adds_up(&r, names.len());
    assert_eq!(r.kernels.iter().map(|k| k.name.clone()).collect::<Vec<_>>(), names);
}

#[test]
fn taking_them_changes_nothing_else_in_the_report() {
    let config = common::small_config(&[]);
    let w = Arc::new(atax(64));
    let (gpu, mut with) = simulate(&config, Arc::clone(&w), &RunOptions::default()).unwrap();
    let mut plain = common::gpu(config.clone(), w);
    plain.run(0);
    let mut without = Report::new(&plain, 0.0);
    with.sim.wall_seconds = 0.0;
    with.sim.cycles_per_second = 0.0;
    with.kernels.clear();
    without.kernels.clear();
    assert_eq!(with, without, "the per-kernel stops leave the run as it was");
    assert_eq!(gpu.state_hash(), plain.state_hash());
}

#[test]
fn a_capped_run_ends_its_last_entry_at_the_cap_and_lists_no_launch_not_begun() {
    let r = run(&common::small_config(&[]), atax(64), 3_000);
    assert_eq!(r.status, "max-cycles");
    let last = r.kernels.last().unwrap();
    assert_eq!((r.kernels.len(), last.launch, last.end_cycle), (1, 0, 3_000), "{:?}", r.kernels);
}

#[test]
fn the_csv_has_the_json_keys_and_a_row_per_launch() {
    let r = run(&common::small_config(&[]), atax(32), 0);
    let csv = kernels_csv(&r);
    let lines: Vec<&str> = csv.lines().collect();
    let v = serde_json::to_value(&r.kernels[1]).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(lines[0].split(',').collect::<Vec<_>>(), keys);
    assert_eq!(lines.len(), 3);
    let row: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(row[0], "1");
    assert_eq!(row[1], "atax_kernel2");
    assert_eq!(row[4], r.kernels[1].cycles.to_string());
}
