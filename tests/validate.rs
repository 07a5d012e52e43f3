//! `warpscope validate`: warpscope's runs beside a peer simulator's logs on the same traces
//! and machine, errors computed against the peer.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn the_table_sets_our_run_beside_the_peer_log() {
    let dir = std::env::temp_dir().join(format!("warpscope-validate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let machine = dir.join("gtx480.ron");
    let import = Command::new(BIN)
        .args(["config", "import", &format!("{ROOT}/tests/fixtures/gpgpusim/GTX480/gpgpusim.config"), "-o"])
        .arg(&machine)
        .output()
        .unwrap();
    assert!(import.status.success());
    let trace = format!("{ROOT}/sample-configs/workloads/rodinia-bfs-kernel5.traceg");
    // The peer's log: 12345 cycles, IPC 20.
    std::fs::write(
        dir.join("peer.log"),
        "gpu_tot_sim_cycle = 12345\ngpu_tot_ipc = 20.0\nL1D_total_cache_miss_rate = 0.5\nL2_total_cache_miss_rate = 0.25\ngpgpu_simulation_time = 0 days, 0 hrs, 0 min, 7 sec (7 sec)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spec.ron"),
        format!(
            "(machine: \"gtx480.ron\", kernels: [(name: \"bfs5\", trace: {trace:?}, peer_log: \"peer.log\")])"
        ),
    )
    .unwrap();
    let out = Command::new(BIN).args(["validate"]).arg(dir.join("spec.ron")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    // Ours, from an ordinary run of the same trace on the same machine.
    let run =
        Command::new(BIN).args(["run", "-w", &trace, "--json", "-", "-c"]).arg(&machine).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let cycles = report["cycles"].as_f64().unwrap();
    let err = (cycles - 12345.0) / 12345.0 * 100.0;
    let row = format!("| bfs5 | 12345 | {cycles} | {err:+.1} % | 20.00 |");
    assert!(table.contains(&row), "{row}\n{table}");
    // Hit rates in percent, peer first, and warpscope's difference in points.
    let l1 = report["l1"]["hit_rate"].as_f64().unwrap() * 100.0;
    assert!(table.contains(&format!("| 50.0 / {l1:.1} ({:+.1}) |", l1 - 50.0)), "{table}");
    assert!(table.contains("| 75.0 / "), "{table}");
    assert!(table.contains("IPC correlation: –"), "one kernel has no correlation: {table}");
    // More than 30 % off (the peer's cycle count is made up): both simulators' units.
    if err.abs() > 30.0 {
        assert!(
            table.contains("| kernel | L1 reads | L1 read misses |") && table.contains("\n| bfs5 | – / "),
            "{table}"
        );
    }
    // A missing log is named before anything runs.
    std::fs::remove_file(dir.join("peer.log")).unwrap();
    let out = Command::new(BIN).args(["validate"]).arg(dir.join("spec.ron")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("kernels[0].peer_log: `"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The shipped study: its spec parses, names at least 12 kernels, and names the kernels the
/// script exports, in the script's order (the script writes the spec; this keeps a hand edit of
/// either from going unnoticed).
#[test]
fn the_shipped_spec_is_the_scripts() {
    use warpscope::batch::validate::ValidateSpec;
    use warpscope::config::{Origin, parse_ron};
    let path = format!("{ROOT}/sample-configs/validation/accelsim-qv100.ron");
    let spec: ValidateSpec =
        parse_ron(&std::fs::read_to_string(&path).unwrap(), &Origin::File(path.clone())).unwrap();
    let script = std::fs::read_to_string(format!("{ROOT}/scripts/validate-accelsim.sh")).unwrap();
    let exported: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"')?.strip_suffix('"')?.split_once('|').map(|(name, _)| name))
        .collect();
    let named: Vec<&str> = spec.kernels.iter().map(|k| k.name.as_str()).collect();
    assert!(named.len() >= 12, "{named:?}");
    assert_eq!(named, exported);
    for k in &spec.kernels {
        assert_eq!(k.trace, format!("../../validation-run/traces/{}/kernelslist.g", k.name));
        assert_eq!(k.peer_log, format!("../../validation-run/peer/{}.log", k.name));
    }
}
