//! Idle skipping is exact (issue 16): every warp scheduler, DRAM scheduler, L1 replacement
//! policy and index function, the oracles and idealized memories, on every sample workload,
//! give the same report, the same DRAM command trace and the same events with `sim.no_skip`
//! (every unit stepped in every cycle) as without.
//!
//! Each variant runs on one sample workload (the list is walked in turn, so every workload is
//! covered too) on the built-in 30-SM machine for a few thousand cycles; the runs listen to
//! every event but the two whose cycles are never skipped (`MshrFull`, `WarpStall`), so an
//! event moved by one cycle fails the test. The report includes the warp-scheduler occupancy
//! by GTO priority (seed 004 Fig. 2.3), counted at each issue: some runs must issue from
//! warps beyond the three oldest of a scheduler, so that its histogram is compared too. It
//! also includes the L1 lines' first re-reference by their inserting warp's priority (seed 004
//! §4.2.2), counted at hits and insertions: some runs must re-reference lines of warps of
//! priority 3 or more and replace some lines unreused, so that those counts are compared too,
//! and some lines must be first re-referenced by their inserting warp and some by another
//! (`self_first_hit_rate` strictly between 0 and 1), so that the per-line inserter is too.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use warpscope::config::{
    Config, DramSchedulerName, IndexName, IssueOrder, ReplacementName, WarpSchedulerName,
};
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
    v.extend(one("core.issue_order", IssueOrder::NAMES));
    v.extend(one("ideal.memory", &["infinite-bandwidth", "infinite-dram", "fixed-latency"]));
    for s in [
        "core.zero_latency_divergence=true",
        "core.perfect_coalescing=true",
        "ideal.perfect_l1=true",
        "ideal.perfect_l2=true",
        "l1.allocate=on-fill",
        "dram.prefetch.enabled=true",
        "l2.latency_queue=true",
    ] {
        v.push(vec![s.to_string()]);
    }
    v.push(vec!["l1.sectored=true".into(), "l2.sectored=true".into()]);
    // Stores retiring where they are written, at the L2 slices and at the ideal memories below
    // the L1 (the machines above answer them: `l2.write_acks` is the default).
    for m in ["real", "infinite-bandwidth", "fixed-latency"] {
        v.push(vec!["l2.write_acks=false".into(), format!("ideal.memory={m}")]);
    }
    v.push(vec!["core.warp_scheduler=ccws".into(), "core.ccws.priority=lost-locality".into()]);
    v.push(vec!["core.warp_scheduler=ccws".into(), "core.ccws.access=exclusive".into()]);
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

/// What a run of `CYCLES` cycles (or to the end) gave: the report without its wall-clock
/// part, every event but those of never-skipped cycles with the cycle it came in, the SM
/// cycles spent quiet and the cycles leapt over.
struct Outcome {
    report: String,
    events: Vec<String>,
    quiet: u64,
    leapt: u64,
}

fn run(config: &Config, workload: &Arc<Workload>, cycles: u64) -> Outcome {
    let mut g = Gpu::new(Arc::new(config.clone()), Arc::clone(workload)).expect("machine builds");
    g.events.set_mask(!(EventKind::MshrFull.bit() | EventKind::WarpStall.bit()));
    let (mut events, mut quiet, mut leapt) = (Vec::new(), 0, 0);
    while g.is_running() && g.cycle < cycles {
        let m = g.leap(cycles);
        if m == 0 {
            quiet += g.sms.iter().filter(|s| s.quiet.is_some_and(|q| q.until > g.cycle)).count() as u64;
            g.step();
        }
        leapt += m;
        events.extend(g.events.drain().map(|(at, e)| format!("{at} {e:?}")));
    }
    Outcome { report: report_of(&g), events, quiet, leapt }
}

/// The report without its wall-clock part.
fn report_of(g: &Gpu) -> String {
    let mut report = serde_json::to_value(Report::new(g, 0.0)).unwrap();
    report.as_object_mut().unwrap().remove("sim");
    report.to_string()
}

/// The report of a run of `cycles` cycles through [`Gpu::run`], which counts the SMs' quiet
/// stretches only when they end and once at its end, where `step` and `leap` settle them
/// after every call.
fn run_report(config: &Config, workload: &Arc<Workload>, cycles: u64) -> String {
    let mut g = Gpu::new(Arc::new(config.clone()), Arc::clone(workload)).expect("machine builds");
    g.run(cycles);
    report_of(&g)
}

#[test]
fn every_policy_on_every_sample_workload_gives_the_same_results_with_and_without_skipping() {
    let workloads = sample_workloads();
    let variants = variants();
    let n = variants.len().max(workloads.len());
    let loaded: Vec<Arc<Workload>> =
        workloads.iter().map(|p| Arc::new(Workload::load(p, 1).unwrap_or_else(|e| panic!("{e}")))).collect();
    let (mut quiet, mut leapt, mut beyond_top3, mut reuse_p3_up, mut self_and_other) = (0, 0, 0, 0, 0);
    for i in 0..n {
        let sets = &variants[i % variants.len()];
        let w = i % workloads.len();
        let what = format!("{} {}", workloads[w].display(), sets.join(" "));
        let config = |no_skip: bool| {
            let mut s = sets.clone();
            s.push(format!("sim.no_skip={no_skip}"));
            Config::builtin().with_sets(&s).unwrap_or_else(|e| panic!("{what}: {e}"))
        };
        let (q, l, report) = compare(&what, &config(false), &config(true), &loaded[w], CYCLES);
        quiet += q;
        leapt += l;
        let top3 = report["core"]["scheduler_occupancy"]["top3"].as_f64();
        let top3 = top3.unwrap_or_else(|| panic!("{what}: no scheduler occupancy"));
        beyond_top3 += usize::from(top3 > 0.0 && top3 < 1.0);
        let p3_up = &report["l1"]["reuse"]["p3_up"];
        let lost = p3_up["never_reused_rate"].as_f64().unwrap_or_else(|| panic!("{what}: no reuse"));
        reuse_p3_up += usize::from(p3_up["reused"].as_u64() > Some(0) && lost > 0.0);
        let own = p3_up["self_first_hit_rate"].as_f64().unwrap_or_else(|| panic!("{what}: no self hits"));
        self_and_other += usize::from(own > 0.0 && own < 1.0);
    }
    assert!(
        quiet > 0 && leapt > 0,
        "quiet SM cycles ({quiet}) and leaps ({leapt}) must happen, or this checks nothing"
    );
    assert!(beyond_top3 > 0, "no run issued from a warp of GTO priority 3 or more");
    assert!(reuse_p3_up > 0, "no run both re-referenced and lost lines of warps of priority 3 or more");
    assert!(
        self_and_other > 0,
        "no run's priority-3-or-more lines were first hit both by their own and another warp"
    );
}

/// Runs `workload` for `cycles` cycles on the `skipping` (also through `Gpu::run`) and
/// `stepping` machines, fails on any difference, and returns the skipping run's quiet SM
/// cycles, cycles leapt over, and report.
fn compare(
    what: &str,
    skipping: &Config,
    stepping: &Config,
    workload: &Arc<Workload>,
    cycles: u64,
) -> (u64, u64, serde_json::Value) {
    let ran = run_report(skipping, workload, cycles);
    let (skipping, stepping) = (run(skipping, workload, cycles), run(stepping, workload, cycles));
    assert_eq!(skipping.report, stepping.report, "{what}: report");
    assert_eq!(ran, stepping.report, "{what}: report of Gpu::run");
    let (a, b) = (&skipping.events, &stepping.events);
    assert_eq!(a.len(), b.len(), "{what}: number of events");
    if let Some(k) = (0..a.len()).find(|&k| a[k] != b[k]) {
        panic!("{what}: event {k} differs:\n  skipping: {}\n  stepping: {}", a[k], b[k]);
    }
    assert_eq!((stepping.quiet, stepping.leapt), (0, 0), "{what}: sim.no_skip skips nothing");
    let report = serde_json::from_str(&skipping.report).unwrap();
    (skipping.quiet, skipping.leapt, report)
}

/// Accel-Sim's QV100 as `config import` makes it: the Volta mechanisms that wait by time
/// (kernel launch latency, the L1 latency queue, `-dram_latency` before the DRAM queue) and
/// the L1 flushed while its SM has no warps, on Needleman-Wunsch's short launches (each
/// waits out the launch latency and leaves SMs idle) and the memory-bound stream.
#[test]
fn the_imported_volta_machine_gives_the_same_results_with_and_without_skipping() {
    let files: Vec<(String, String)> = [
        "tests/fixtures/gpgpusim/SM7_QV100/gpgpusim.config",
        "tests/fixtures/gpgpusim/SM7_QV100/trace.config",
    ]
    .iter()
    .map(|p| (std::fs::read_to_string(p).unwrap(), p.to_string()))
    .collect();
    let volta = warpscope::config::gpgpusim::import(&files).unwrap().config;
    assert!(
        volta.core.kernel_launch_latency > 0
            && volta.l1.latency_queue
            && volta.l1.flush_when_idle
            && volta.dram.frontend_latency > 0
            && volta.dram.return_queue > 0,
        "the imported machine has the mechanisms this test is about"
    );
    let (mut quiet, mut leapt) = (0, 0);
    for (workload, cycles) in [("rodinia-nw.ron", 40_000), ("stream.ron", 20_000)] {
        let w =
            Arc::new(Workload::load(&PathBuf::from("sample-configs/workloads").join(workload), 1).unwrap());
        let with = |no_skip: bool| volta.with_sets(&[format!("sim.no_skip={no_skip}")]).unwrap();
        let (q, l, _) = compare(&format!("QV100 {workload}"), &with(false), &with(true), &w, cycles);
        quiet += q;
        leapt += l;
    }
    assert!(quiet > 0 && leapt > 0, "quiet SM cycles ({quiet}) and leaps ({leapt}) on the Volta machine");
}

/// The debugger lands on the same cycles with and without skipping: `step N`, `until`,
/// `continue` to event breakpoints, `break cycle`, watchpoints, `goto` both ways and
/// `reverse-continue`, with the same printed values. Needleman-Wunsch's 255 short launches
/// leave the machine idle between waves often enough to leap.
#[test]
fn the_debugger_stops_at_the_same_cycles_with_and_without_skipping() {
    let workload =
        Arc::new(Workload::load(std::path::Path::new("sample-configs/workloads/rodinia-nw.ron"), 1).unwrap());
    let script = "step 700; print cycle; until 2500; print sm[3].instructions; break kernel-end; \
                  continue; continue; print cycle; info breakpoints; delete; break cycle 18520; continue; \
                  print l1[2].mshr.used; watch sm[0].instructions; continue; delete; \
                  break load-done core=2; continue; goto 1000; continue; reverse-continue; \
                  goto 30000; print cycle; show stats";
    let outputs: Vec<String> = [false, true]
        .iter()
        .map(|&no_skip| {
            let config = Config::builtin().with_sets(&[format!("sim.no_skip={no_skip}")]).unwrap();
            let mut s = warpscope::debug::Session::new(config, Arc::clone(&workload)).unwrap();
            let mut text = String::new();
            for cmd in script.split("; ") {
                match s.execute_blocking(cmd) {
                    Ok(warpscope::debug::Outcome::Text(t)) => text += &format!("{cmd}: {t}\n"),
                    other => panic!("{cmd}: {other:?}"),
                }
            }
            assert_eq!(s.gpu.cycle, 30000);
            text
        })
        .collect();
    assert!(outputs[0].contains("Breakpoint 1, cycle"), "{}", outputs[0]);
    assert_eq!(outputs[0], outputs[1]);
    let mut g = Gpu::new(Arc::new(Config::builtin()), workload).unwrap();
    let mut leapt = 0;
    while g.cycle < 30000 {
        let m = g.leap(30000);
        if m == 0 {
            g.step();
        }
        leapt += m;
    }
    assert!(leapt > 0, "the run leaps");
}
