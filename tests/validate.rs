//! `warpscope validate`: warpscope's runs beside a peer simulator's stored results on the same
//! traces and machine. The peer's logs are recorded into a results file tied to the option files
//! and traces by their digests; a stored number made with other files or another trace is
//! refused, and a kernel missing on one side is listed.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn warpscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    let s = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code().unwrap_or(-1), s(&out.stdout), s(&out.stderr))
}

/// A study of two kernels on the GTX 480 option files, in a fresh directory.
fn study(dir: &Path) -> PathBuf {
    let spec = dir.join("study.ron");
    std::fs::write(
        &spec,
        format!(
            r#"(
    title: "test study",
    peer: (
        simulator: "a peer",
        sources: ["owner/peer@abc123"],
        command: "peer -trace TRACE/kernelslist.g",
        configs: ["{ROOT}/tests/fixtures/gpgpusim/GTX480/gpgpusim.config"],
        results: "results.ron",
    ),
    kernels: [
        (name: "tiny", workload: "{ROOT}/tests/fixtures/tiny.ron"),
        (name: "bfs5", workload: "{ROOT}/sample-configs/workloads/rodinia-bfs-kernel5.traceg"),
    ],
    targets: (mean_cycle_error: Some(10.0), bandwidth_points: Some(5.0)),
)"#
        ),
    )
    .unwrap();
    spec
}

/// A log in GPGPU-Sim's shape: `cycles` cycles, IPC 20, hit rates from the breakdowns.
fn log(cycles: u64) -> String {
    format!(
        "gpu_tot_sim_cycle = {cycles}\ngpu_tot_ipc = 20.0\n\
         \tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT] = 50\n\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 30\n\
         \tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][HIT_RESERVED] = 20\n\
         gpu_sim_cycle = {cycles}\nDRAM[0]: 16 bks, busW=4 BL=8 CL=12, tRCD=12\n\
         n_cmd=100 n_nop=50 n_act=4 n_pre=2 n_req=9 n_rd=1000 n_write=10 n_wr_bk=0 bw_util=0.25\n\
         gpgpu_simulation_time = 0 days, 0 hrs, 0 min, 7 sec (7 sec)\n"
    )
}

#[test]
fn recorded_logs_validate_offline_and_refuse_other_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = study(dir.path());
    let spec_s = spec.to_str().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    // Exporting writes each kernel's trace for the peer.
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let (code, out, err) = warpscope(&["validate", spec_s, "--export", traces.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("traces/tiny/kernelslist.g") && traces.join("bfs5/kernel-1.traceg").is_file(),
        "{out}"
    );
    // Recording needs a log for every kernel.
    std::fs::write(logs.join("tiny.log"), log(12345)).unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s, "--record", logs.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no log for bfs5"), "{err}");
    std::fs::write(logs.join("bfs5.log"), log(2000)).unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s, "--record", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let stored = std::fs::read_to_string(dir.path().join("results.ron")).unwrap();
    assert!(
        stored.contains("cycles\": 12345")
            && stored.contains("trace_sha256")
            && stored.contains("owner/peer@abc123"),
        "{stored}"
    );

    // The tables: our cycles beside the stored ones, with the error.
    let (code, table, err) = warpscope(&["validate", spec_s, "--kernels", "tiny"]);
    assert_eq!(code, 0, "{err}");
    let machine = dir.path().join("gtx480.ron");
    let (code, _, err) = warpscope(&[
        "config",
        "import",
        &format!("{ROOT}/tests/fixtures/gpgpusim/GTX480/gpgpusim.config"),
        "-o",
        machine.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, json, _) = warpscope(&[
        "run",
        "-w",
        &format!("{ROOT}/tests/fixtures/tiny.ron"),
        "-c",
        machine.to_str().unwrap(),
        "--json",
        "-",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cycles = report["cycles"].as_u64().unwrap();
    let err_pct = (cycles as f64 - 12345.0) / 12345.0 * 100.0;
    let row = format!(
        "| tiny | 12,345 | {} | {err_pct:+.1} % |",
        warpscope::sim::stats::metrics::group(cycles as i64)
    );
    assert!(table.contains(&row), "{row}\n{table}");
    let bw = report["dram"]["bandwidth_utilization"].as_f64().unwrap() * 100.0;
    assert!(table.contains(&format!("| 25.0 / {bw:.1} ({:+.1}) |", bw - 25.0)), "{table}");
    // 1000 reads of 4 bytes × BL 8 = 0.032 MB; 50 % L1 hits.
    assert!(table.contains("| 0.0 / ") && table.contains("| 50.0 / "), "{table}");
    // The L1's 100 reads: 50 hits, 30 misses, and 20 merged into a pending miss.
    let l1 = |key: &str| warpscope::sim::stats::metrics::group(report["l1"][key].as_i64().unwrap());
    let cells = format!("| 100 / {} | 30 / {} | 20 / {} |", l1("reads"), l1("read_misses"), l1("merged"));
    assert!(table.contains(&cells), "{cells}\n{table}");
    assert!(table.contains("Stored but not run here: bfs5."), "the kernel left out is listed: {table}");
    assert!(table.contains("| mean absolute cycle error, % | ≤ 10.0 |"), "{table}");

    // A log whose thread instructions are not the trace's is of another trace: refused,
    // nothing written; with the trace's count it is recorded.
    let lanes = report["thread_instructions"].as_u64().unwrap();
    std::fs::write(logs.join("tiny.log"), format!("{}gpu_tot_sim_insn = {}\n", log(12345), lanes + 32))
        .unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s, "--record", logs.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "the peer ran {} thread instructions (gpu_tot_sim_insn) but tiny's trace has {lanes}",
            lanes + 32
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("results.ron")).unwrap(), stored, "nothing written");
    std::fs::write(logs.join("tiny.log"), format!("{}gpu_tot_sim_insn = {lanes}\n", log(12345))).unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s, "--record", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");

    // A kernel whose trace is unchanged keeps its stored result without a log; `--stale`
    // exports only the others.
    let recorded = std::fs::read_to_string(dir.path().join("results.ron")).unwrap();
    let stale = dir.path().join("stale");
    std::fs::create_dir_all(&stale).unwrap();
    let stale_s = stale.to_str().unwrap();
    let (code, out, err) = warpscope(&["validate", spec_s, "--export", stale_s, "--stale"]);
    assert_eq!((code, out.as_str()), (0, "\n"), "nothing is stale: {err}");
    std::fs::remove_file(logs.join("bfs5.log")).unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s, "--record", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("kept the stored results of bfs5 (no log; trace unchanged)"), "{err}");
    let body = |t: &str| t.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&std::fs::read_to_string(dir.path().join("results.ron")).unwrap()), body(&recorded));
    let at = recorded.find("name: \"bfs5\"").unwrap();
    let older = format!(
        "{}{}",
        &recorded[..at],
        recorded[at..].replacen("trace_sha256: \"", "trace_sha256: \"00", 1)
    );
    std::fs::write(dir.path().join("results.ron"), &older).unwrap();
    let (code, out, err) = warpscope(&["validate", spec_s, "--export", stale_s, "--stale"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("stale/bfs5/kernelslist.g") && !out.contains("tiny"), "{out}");
    let (code, _, err) = warpscope(&["validate", spec_s, "--record", logs.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no log for bfs5"), "{err}");
    std::fs::write(logs.join("bfs5.log"), log(2000)).unwrap();
    std::fs::write(dir.path().join("results.ron"), &recorded).unwrap();

    // A stored trace digest that is not today's export: refused, naming the kernel.
    let other = stored.replacen("trace_sha256: \"", "trace_sha256: \"00", 1);
    std::fs::write(dir.path().join("results.ron"), &other).unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s]);
    assert_eq!(code, 1);
    assert!(
        err.contains("the trace export of tiny (stored 00") && err.contains("changed since the peer ran it"),
        "{err}"
    );
    // Results made with another option file: refused, both digests named.
    let other = stored.replacen("options_sha256: \"", "options_sha256: \"ff", 1);
    std::fs::write(dir.path().join("results.ron"), &other).unwrap();
    let (code, _, err) = warpscope(&["validate", spec_s]);
    assert_eq!(code, 2);
    assert!(
        err.contains("were made with gpgpusim.config of options digest ff")
            && err.contains("but the spec's gpgpusim.config has "),
        "{err}"
    );
    // A kernel with no stored results is run and listed, not dropped.
    std::fs::write(dir.path().join("results.ron"), stored.replace("name: \"bfs5\"", "name: \"gone\""))
        .unwrap();
    let (code, table, err) = warpscope(&["validate", spec_s]);
    assert_eq!(code, 0, "{err}");
    assert!(
        table.contains("No peer results stored for: bfs5")
            && table.contains("Stored but not run here: gone."),
        "{table}"
    );
    assert!(table.contains("\n| bfs5 | – | "), "{table}");
    // An unknown kernel in --kernels names the valid ones.
    let (code, _, err) = warpscope(&["validate", spec_s, "--kernels", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("`nope` is no kernel of") && err.contains("kernels: tiny, bfs5"), "{err}");
}

/// Every error about an entry of a study — a kernel named twice, one that sets the machine, a
/// seed or size that is no number, a workload or option file that cannot be read — names the
/// study's line and column of the entry and its key (they named the key or a `--set` only),
/// with exit code 2.
#[test]
fn errors_about_a_studys_entries_name_their_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let spec = study(dir.path());
    let original = std::fs::read_to_string(&spec).unwrap();
    let tiny = "(name: \"tiny\", workload:";
    let bfs = format!("workload: \"{ROOT}/sample-configs/workloads/rodinia-bfs-kernel5.traceg\"");
    let gtx = format!("{ROOT}/tests/fixtures/gpgpusim/GTX480/gpgpusim.config");
    for (from, to, line, key, says) in [
        (
            tiny,
            "(name: \"tiny\", sets: [\"dram.scheduler=fcfs\"], workload:",
            11,
            "kernels[0].sets[0]",
            "the machine is the peer's",
        ),
        ("(name: \"bfs5\"", "(name: \"tiny\"", 12, "kernels[1].name", "`tiny` is named twice"),
        (
            tiny,
            "(name: \"tiny\", sets: [\"sim.seed=x\"], workload:",
            11,
            "kernels[0].sets[0]",
            "the seed is a whole number",
        ),
        (&bfs, "workload: \"atax\", sets: [\"workload.nx=abc\"]", 12, "workload.nx", "`abc`"),
        (
            "tests/fixtures/tiny.ron",
            "tests/fixtures/no-such.ron",
            11,
            "kernels[0].workload",
            "no-such.ron: cannot read",
        ),
        (&gtx, "/no/such/gpgpusim.config", 7, "peer.configs[0]", "/no/such/gpgpusim.config: cannot read"),
    ] {
        std::fs::write(&spec, original.replace(from, to)).unwrap();
        let out = dir.path();
        let (code, _, err) =
            warpscope(&["validate", spec.to_str().unwrap(), "--export", out.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        let place = format!("error: {}:{line}:", spec.display());
        assert!(err.starts_with(&place), "{key}: not at line {line}: {err}");
        assert!(err.contains(&format!(": {key}: ")) && err.contains(says), "{err}");
    }
}

/// The overview in docs/validation/README.md repeats each generated table's summary (mean and
/// largest cycle error, IPC correlation); it must say what the table says.
#[test]
fn the_validation_overview_repeats_each_tables_summary() {
    let dir = Path::new(ROOT).join("docs/validation");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| [`") && l.contains(".ron`]")).collect();
    assert_eq!(rows.len(), 4, "one overview row per study");
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        let page = cells[5].split_once("](").and_then(|(_, p)| p.strip_suffix(')')).unwrap();
        let table = std::fs::read_to_string(dir.join(page)).unwrap();
        let summary = table.lines().find(|l| l.starts_with("IPC correlation ")).unwrap();
        let ipc = summary["IPC correlation ".len()..].split('.').take(2).collect::<Vec<_>>().join(".");
        let mean = summary.split("mean of the absolute ").nth(1).unwrap().split(',').next().unwrap();
        let largest = summary.split("largest ").nth(1).unwrap().split(')').next().unwrap();
        assert_eq!(cells[3], format!("{mean} / {largest})"), "{page}: {summary}");
        assert_eq!(cells[4], ipc, "{page}: {summary}");
    }
}
