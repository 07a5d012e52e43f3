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
        let mut g = common::gpu(common::small_config(&[]), w);
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
