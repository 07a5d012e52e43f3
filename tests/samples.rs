//! Every shipped machine and workload loads, validates and runs.

mod common;

use std::sync::Arc;
use warpscope::config::Config;
use warpscope::workload::Workload;

/// The files of `dir` with one of the extensions.
fn files_with(dir: &str, exts: &[&str]) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    v.sort();
    v
}

fn files(dir: &str) -> Vec<std::path::PathBuf> {
    files_with(dir, &["ron"])
}

#[test]
fn every_sample_config_loads_and_runs_a_few_thousand_cycles() {
    let configs = files("sample-configs");
    assert!(configs.len() >= 4);
    let w = Arc::new(Workload::load_or_builtin(None, 1).unwrap());
    for path in configs {
        let c = Config::load(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut g = common::gpu(c, Arc::clone(&w));
        g.run(3000);
        assert!(g.is_running(), "{}", path.display());
        assert!(g.sms.iter().map(|s| s.stats.instructions).sum::<u64>() > 0, "{}", path.display());
    }
}

#[test]
fn every_sample_workload_compiles_and_runs_on_the_small_machine() {
    // Synthetic kernels and the real Rodinia BFS kernel (an Accel-Sim trace).
    let workloads = files_with("sample-configs/workloads", &["ron", "traceg"]);
    assert!(workloads.len() >= 6);
    assert!(workloads.iter().any(|p| p.extension().is_some_and(|e| e == "traceg")));
    for path in workloads {
        let w = Arc::new(Workload::load(&path, 1).unwrap_or_else(|e| panic!("{e}")));
        // LonestarGPU's SSSP launches CTAs of 1,024 threads.
        let mut g = common::gpu(common::small_config(&["core.max_threads=1024"]), w);
        g.run(3000);
        assert!(g.ledger.created() > 0, "{} issues memory requests", path.display());
    }
}

#[test]
fn the_built_in_machine_and_workload_are_the_gtx480_sc14_bfs_files() {
    assert_eq!(
        Config::builtin(),
        Config::load(std::path::Path::new("sample-configs/gtx480-sc14.ron"), &[]).unwrap()
    );
    let file = Workload::load(std::path::Path::new("sample-configs/workloads/bfs.ron"), 1).unwrap();
    assert_eq!(Workload::load_or_builtin(None, 1).unwrap(), file);
}

/// One warp loads line a (an L2 miss), line b (another miss, which evicts a from a one-line L1)
/// and a again (an L2 hit), each load waited for before the next.
const LONE_LOADS: &str = r#"(name: "lone-loads", seed: 1, kernels: [(name: "k", ctas: 1, threads_per_cta: 32,
    arrays: [(name: "a", elems: 1024), (name: "b", elems: 1024)],
    program: [Load(array: "a", pattern: Coalesced, dst: 1), Alu(count: 1, srcs: [1]),
              Load(array: "b", pattern: Coalesced, dst: 2), Alu(count: 1, srcs: [2]),
              Load(array: "a", pattern: Coalesced, dst: 3), Alu(count: 1, srcs: [3])])])"#;

/// Core cycles from issue to data of a lone load that hits the L2 and of one that misses it.
fn unloaded_latencies(machine: &str) -> (f64, f64) {
    let c = Config::load(std::path::Path::new(machine), &["l1.sets=1".into(), "l1.ways=1".into()])
        .unwrap_or_else(|e| panic!("{e}"));
    let mut g = common::gpu(c, common::workload(LONE_LOADS, 1));
    g.run(0);
    let r = warpscope::sim::stats::report::Report::new(&g, 0.0);
    assert_eq!((r.l2.hit_rate, r.l1.hit_rate), (1.0 / 3.0, 0.0), "{machine}: one L2 hit of three");
    let hit = r.memory.l2_hit_latency_mean;
    (hit, (3.0 * r.memory.avg_latency - hit) / 2.0)
}

/// The seeds give their machines' unloaded latencies: seed 002 §II an L2 "access latency of
/// around 120 cycles" and "an additional access latency of around 100 cycles" to off-chip
/// memory, seed 004 Table 5.1 "Min. L2 Latency 120 cycles" and "Min. DRAM Latency 100 cycles"
/// (core clock). A miss waits the L2's latency and the DRAM's fixed one on top of the DRAM's
/// own timing (tRCD + tCL + the burst: 28 DRAM cycles, 42 core cycles at 924 MHz).
#[test]
fn the_seed_machines_unloaded_latencies_are_their_papers() {
    assert_eq!(unloaded_latencies("sample-configs/gtx480-15sm.ron"), (110.0, 253.0));
    assert_eq!(unloaded_latencies("sample-configs/fermi-30sm.ron"), (120.0, 262.0));
}
