//! Benchmark workloads from the command line: selection by name or file, size knobs, errors.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn warp_instructions(json: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(json).expect("json report");
    v["warp_instructions"].as_u64().expect("warp_instructions")
}

#[test]
fn atax_by_name_runs_the_hand_counted_instructions() {
    let (code, out, err) =
        run(&["run", "-w", "atax", "--set", "workload.nx=64", "--set", "workload.ny=64", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    // Per kernel: one CTA of 8 warps. The 2 warps holding threads 0..63 run 2 index slots, the
    // bounds guard's `@P0 EXIT` (of no lane), the accumulator's load, 64 iterations of (2 loads,
    // FFMA, store, branch) and EXIT; the other 6 run 2 slots and end at the guard's EXIT.
    let per_kernel = 2 * (2 + 1 + 1 + 64 * 5 + 1) + 6 * (2 + 1);
    assert_eq!(warp_instructions(&out), 2 * per_kernel);
}

#[test]
fn a_benchmark_file_sets_sizes_and_the_command_line_overrides_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("atax-small.ron");
    std::fs::write(&file, "(benchmark: \"atax\", sizes: {\"nx\": 32, \"ny\": 64})").unwrap();
    let f = file.to_str().unwrap();
    let (code, out, err) = run(&["run", "-w", f, "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    // nx = 32: kernel 1 has 1 active warp of 64 iterations; ny = 64: kernel 2 has 2 of 32.
    let k1 = (2 + 1 + 1 + 64 * 5 + 1) + 7 * 3;
    let k2 = 2 * (2 + 1 + 1 + 32 * 5 + 1) + 6 * 3;
    assert_eq!(warp_instructions(&out), k1 + k2);
    let (code, out, _) = run(&["run", "-w", f, "--set", "workload.ny=32", "--json", "-"]);
    assert_eq!(code, 0);
    assert_eq!(warp_instructions(&out), 2 * ((2 + 1 + 1 + 32 * 5 + 1) + 7 * 3));
}

/// `-w nw` where a directory `nw` lies could mean either: it is refused naming both (issue
/// 39.6); `./nw` is the directory, and a bare word that names no benchmark is still a path.
#[test]
fn a_benchmark_name_that_is_also_a_path_here_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("nw")).unwrap();
    let here = |args: &[&str]| {
        let out = Command::new(BIN).current_dir(dir.path()).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = here(&["run", "-w", "nw", "--max-cycles", "10"]);
    assert_eq!(code, Some(2));
    assert_eq!(
        err.trim(),
        "error: nw: `nw` is both the benchmark nw and a directory here; write `./nw` for the directory, or run the benchmark where nothing is called `nw`"
    );
    // Every benchmark name, as a file or a directory.
    for (i, name) in warpscope::workload::bench::names().split(", ").enumerate() {
        let path = dir.path().join(name);
        let kind = match (path.exists(), i % 2) {
            (true, _) => {
                if path.is_dir() {
                    "directory"
                } else {
                    "file"
                }
            }
            (false, 0) => std::fs::write(&path, "").map(|_| "file").unwrap(),
            (false, _) => std::fs::create_dir(&path).map(|_| "directory").unwrap(),
        };
        let (code, err) = here(&["run", "-w", name, "--max-cycles", "10"]);
        assert_eq!(code, Some(2), "{name}");
        assert!(err.contains(&format!("both the benchmark {name} and a {kind} here")), "{err}");
        if name != "nw" {
            let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir(&path));
        }
    }
    let (code, err) = here(&["run", "-w", "./nw", "--max-cycles", "10"]);
    assert_eq!(code, Some(2));
    assert!(!err.contains("both the benchmark") && err.contains("./nw"), "the directory is read: {err}");
    let (code, err) = here(&["run", "-w", "2mm", "--max-cycles", "10"]);
    assert_eq!(code, Some(0), "no file called 2mm here: the benchmark runs: {err}");
}

#[test]
fn bad_benchmark_input_exits_2_saying_what_is_valid() {
    let (code, _, err) = run(&["run", "-w", "atx"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: atx: no such workload file, and not a benchmark name; benchmarks: atax, bicg, mvt, gesummv, syrk, syr2k, gemm, 2mm, 3mm, 3dconv, bfs, spmv, sssp, kmeans, hotspot, nw, backprop, streamcluster"
    );
    let (code, _, err) = run(&["run", "-w", "atax", "--set", "workload.nx=0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--set workload.nx=0") && err.contains("must be between 1 and 65536"), "{err}");
    let (code, _, err) = run(&["run", "-w", "atax", "--set", "workload.nz=4"]);
    assert_eq!(code, 2);
    assert!(err.contains("`nz` is not a size of atax; valid: nx, ny"), "{err}");
    let (code, _, err) = run(&["run", "-w", "atax", "--set", "workload.nx=big"]);
    assert_eq!(code, 2);
    assert!(err.contains("`big` is not a whole number"), "{err}");
    let (code, _, err) = run(&["run", "--set", "workload.nx=4"]);
    assert_eq!(code, 2);
    assert!(err.contains("sizes apply to benchmark workloads"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.ron");
    std::fs::write(&file, "(\n  benchmark: \"gemm2\",\n)").unwrap();
    let (code, _, err) = run(&["run", "-w", file.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("b.ron:2:3: benchmark: \"gemm2\" is not a benchmark; valid: atax, bicg, mvt, gesummv, syrk, syr2k, gemm, 2mm, 3mm, 3dconv, bfs, spmv, sssp, kmeans, hotspot, nw, backprop, streamcluster"), "{err}");
}

#[test]
fn a_sweep_grid_names_benchmarks_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let grid = dir.path().join("g.ron");
    std::fs::write(&grid, "(workloads: [\"gemm\", \"spmv\"], metrics: [\"cycles\"], max_cycles: 2000)")
        .unwrap();
    let csv = dir.path().join("out.csv");
    let (code, _, err) = run(&["sweep", grid.to_str().unwrap(), "--csv", csv.to_str().unwrap(), "-j", "1"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("gemm") && text.contains("spmv") && text.contains("max-cycles"), "{text}");
}

#[test]
fn the_debugger_shows_the_source_kernels_instruction_names() {
    for (bench, size, names) in [
        ("bfs", "nodes=3000", &["g_graph_", "g_cost", "g_updating_graph_mask", "tid"][..]),
        ("spmv", "rows=512", &["rowDelimiters[", "cols[j]", "val[j]", "vec[col]", "myRow"]),
        ("sssp", "nodes=3000", &["noutgoing[", "srcsrc[", "psrc[", "edgessrc", "dist["]),
        ("kmeans", "points=2000", &["features[", "clusters[", "diff", "point_id"]),
        ("atax", "nx=256", &["A[i*NY+j]", "tmp", "x[j]", "blockIdx"]),
        (
            "hotspot",
            "grid=64",
            &["temp_src[index]", "power[index]", "temp_on_cuda", "small_block", "BAR.SYNC"],
        ),
        ("nw", "n=64", &["ref[ty][tx]", "referrence[", "matrix_cuda[", "temp[", "index_nw", "BAR.SYNC"]),
        (
            "backprop",
            "in=64",
            &["input_cuda[", "input_hidden_cuda[", "weight_matrix", "index_in", "BAR.SYNC"],
        ),
    ] {
        let set = format!("workload.{size}");
        let (code, out, err) = run(&["batch", "-w", bench, "--set", &set, "-x", "step 300; show warps 0"]);
        assert_eq!(code, 0, "{bench}: {err}");
        let table = out.split("show warps 0").nth(1).expect("the view");
        assert!(names.iter().any(|n| table.contains(n)), "{bench}: {table}");
    }
}
