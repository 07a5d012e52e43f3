//! Idle skipping is exact (issue 16): every warp scheduler, DRAM scheduler, L1 replacement
//! policy and index function, the oracles and idealized memories, on every sample workload,
//! give the same report, the same DRAM command trace and the same events with `sim.no_skip`
//! (every unit stepped in every cycle) as without.
//!
//! Each variant runs on one sample workload (the list is walked in turn, so every workload is
//! covered too) on the built-in 30-SM machine for a few thousand cycles; the runs listen to
//! every event but the two whose cycles are never skipped (`MshrFull`, `WarpStall`), so an
//! event moved by one cycle fails the test.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use warpscope::config::{Config, DramSchedulerName, IndexName, ReplacementName, WarpSchedulerName};
use warpscope::sim::stats::report::Report;
use warpscope::sim::{EventKind, Gpu};
use warpscope::workload::Workload;

const CYCLES: u64 = 6000;

/// Every policy and mechanism switch, as `--set` assignments.
fn variants() -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = vec![vec![]];
    let one = |k: &str, names: &[&str]| names.iter().map(|n| vec![format!("{k}={n}")]).collect::<Vec<_>>();
    v.extend(one("dram.scheduler", DramSchedulerName::NAMES));
    v.extend(one("core.warp_scheduler", WarpSchedulerName::NAMES));
    v.extend(one("l1.replacement", ReplacementName::NAMES));
    v.extend(one("l1.index", IndexName::NAMES));
    v.extend(one("ideal.memory", &["infinite-bandwidth", "infinite-dram", "fixed-latency"]));
    for s in [
        "core.zero_latency_divergence=true",
        "core.perfect_coalescing=true",
        "ideal.perfect_l1=true",
        "ideal.perfect_l2=true",
        "l1.allocate=on-fill",
        "dram.prefetch.enabled=true",
    ] {
        v.push(vec![s.to_string()]);
    }
    v
}

fn sample_workloads() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir("sample-configs/workloads")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron" || e == "traceg"))
        .collect();
    v.sort();
    v
}

/// Runs `CYCLES` cycles (or to the end), returning the report without its wall-clock part and
/// every event but those of never-skipped cycles, with the cycle it came in.
fn run(config: &Config, workload: &Arc<Workload>) -> (String, Vec<String>) {
    let mut g = Gpu::new(Arc::new(config.clone()), Arc::clone(workload)).expect("machine builds");
    g.events.set_mask(!(EventKind::MshrFull.bit() | EventKind::WarpStall.bit()));
    let mut events = Vec::new();
    while g.is_running() && g.cycle < CYCLES {
        g.step();
        events.extend(g.events.drain().map(|(at, e)| format!("{at} {e:?}")));
    }
    let mut report = serde_json::to_value(Report::new(&g, 0.0)).unwrap();
    report.as_object_mut().unwrap().remove("sim");
    (report.to_string(), events)
}

#[test]
fn every_policy_on_every_sample_workload_gives_the_same_results_with_and_without_skipping() {
    let workloads = sample_workloads();
    let variants = variants();
    let n = variants.len().max(workloads.len());
    let loaded: Vec<Arc<Workload>> =
        workloads.iter().map(|p| Arc::new(Workload::load(p, 1).unwrap_or_else(|e| panic!("{e}")))).collect();
    let mut skipped_somewhere = false;
    for i in 0..n {
        let sets = &variants[i % variants.len()];
        let w = i % workloads.len();
        let what = format!("{} {}", workloads[w].display(), sets.join(" "));
        let config = |no_skip: bool| {
            let mut s = sets.clone();
            s.push(format!("sim.no_skip={no_skip}"));
            Config::builtin().with_sets(&s).unwrap_or_else(|e| panic!("{what}: {e}"))
        };
        let (report, events) = run(&config(false), &loaded[w]);
        let (every, every_events) = run(&config(true), &loaded[w]);
        assert_eq!(report, every, "{what}: report");
        assert_eq!(events.len(), every_events.len(), "{what}: number of events");
        if let Some(k) = (0..events.len()).find(|&k| events[k] != every_events[k]) {
            panic!("{what}: event {k} differs:\n  skipping: {}\n  stepping: {}", events[k], every_events[k]);
        }
        skipped_somewhere |= quiet_cycles(&config(false), &loaded[w]) > 0;
    }
    assert!(skipped_somewhere, "some run must have quiet cycles, or this test checks nothing");
}

/// SM cycles spent quiet (only counted) in a run of `CYCLES` cycles.
fn quiet_cycles(config: &Config, workload: &Arc<Workload>) -> u64 {
    let mut g = Gpu::new(Arc::new(config.clone()), Arc::clone(workload)).expect("machine builds");
    let mut quiet = 0;
    while g.is_running() && g.cycle < CYCLES {
        quiet += g.sms.iter().filter(|s| s.quiet.is_some_and(|q| q.until > g.cycle)).count() as u64;
        g.step();
    }
    quiet
}
