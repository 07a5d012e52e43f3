//! `warpscope trace export` end to end: every sample workload (made small), the built-in one,
//! a workload using every operation and width, and a real trace re-exported, read back through
//! the Accel-Sim importer, give the same `run --json` report bit for bit (wall-clock fields
//! aside); the files are what the importer and Accel-Sim read; bad targets exit 2 and leave
//! nothing behind.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use warpscope::batch::export::{self, ExportOptions};
use warpscope::batch::run::{RunOptions, simulate};
use warpscope::config::{Config, Origin};
use warpscope::workload::accelsim::TraceFileKind;
use warpscope::workload::accelsim::write::AddressModes;
use warpscope::workload::bench::ptxas;
use warpscope::workload::instr::{Instr, Op};
use warpscope::workload::{BUILTIN_WORKLOAD, Workload};

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

/// Every operation, space and width, a partial last warp, divergence and a barrier.
const ALL_OPS: &str = r#"(name: "all_ops", seed: 5, kernels: [(name: "k", ctas: 3, threads_per_cta: 72,
    arrays: [(name: "a", elems: 65536), (name: "b", elem_bytes: 16, elems: 4096), (name: "s", elems: 1024),
        (name: "big", elems: 17179869184)],
    program: [
        Load(array: "a", pattern: Coalesced, dst: 1, width: 1),
        Load(array: "a", pattern: Strided(stride_bytes: 4096), dst: 2, width: 2),
        Load(array: "b", pattern: Random, dst: 4, srcs: [1, 2], width: 8),
        Load(array: "b", pattern: Uniform, dst: 8, width: 16),
        Load(array: "s", pattern: Coalesced, dst: 12, space: Shared),
        Load(array: "a", pattern: Coalesced, dst: 13, space: Local, width: 8),
        Alu(count: 3, srcs: [4, 5, 8, 11], dst: 20),
        Barrier,
        If(fraction: 0.4, body: [
            Store(array: "a", pattern: Random, srcs: [20, 1], width: 4),
            Store(array: "s", pattern: Strided(stride_bytes: 12), srcs: [12], space: Shared, width: 2),
            Store(array: "a", pattern: Coalesced, srcs: [13], space: Local, width: 16),
        ]),
        Loop(times: 2, body: [Load(array: "big", pattern: Strided(stride_bytes: 3000000000), dst: 30), Alu(srcs: [30])]),
    ])])"#;

/// `text` with every grid cut to `ctas` CTAs.
fn small(text: &str, ctas: u32) -> String {
    let mut out = String::new();
    for line in text.lines() {
        match line.find("ctas:") {
            Some(at) => {
                let rest = &line[at + 5..];
                let digits = rest.trim_start().chars().take_while(char::is_ascii_digit).count();
                let skip = rest.len() - rest.trim_start().len() + digits;
                out.push_str(&format!("{}ctas: {ctas}{}\n", &line[..at], &rest[skip..]));
            }
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

fn report(w: Workload) -> serde_json::Value {
    let (_, r) = simulate(&Config::builtin(), Arc::new(w), &RunOptions::default()).unwrap();
    let mut v = serde_json::to_value(r).unwrap();
    v["sim"]["wall_seconds"] = 0.into();
    v["sim"]["cycles_per_second"] = 0.into();
    v
}

/// Exports `w` into `root/<its name>` (so the re-imported workload has the same name) and
/// loads it back.
fn round_trip(w: &Workload, root: &Path, modes: AddressModes) -> (Workload, PathBuf) {
    let dir = root.join(&w.name);
    let opts = ExportOptions { force: true, modes };
    export::export(w, export::prepare(&dir, &opts).unwrap(), &opts).unwrap();
    let list = dir.join("kernelslist.g");
    (Workload::load(&list, Config::builtin().sim.seed).unwrap(), dir)
}

fn synthetic(text: &str, name: &str) -> Workload {
    Workload::from_text(text, &Origin::File(name.into()), Config::builtin().sim.seed).unwrap()
}

#[test]
fn every_sample_workload_reads_back_as_the_same_run() {
    let root = tempfile::tempdir().unwrap();
    let mut inputs = vec![("built-in".to_string(), BUILTIN_WORKLOAD.to_string())];
    let mut files: Vec<PathBuf> = std::fs::read_dir("sample-configs/workloads")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // Benchmark files are sized, not shrunk: `benchmarks_read_back_as_the_same_run`.
        if !warpscope::workload::bench::is_bench_file(&text) {
            inputs.push((f.display().to_string(), text));
        }
    }
    inputs.push(("all_ops".into(), ALL_OPS.into()));
    for (name, text) in inputs {
        let w = synthetic(&small(&text, 4), &name);
        let (back, dir) = round_trip(&w, root.path(), AddressModes::Compressed);
        let expected = report(w.clone());
        assert_eq!(expected["status"], "done", "{name}");
        assert!(expected["warp_instructions"].as_u64().unwrap() > 100, "{name}");
        assert_eq!(report(back), expected, "{name} exported to {}", dir.display());
    }
}

#[test]
fn benchmarks_read_back_as_the_same_run() {
    let root = tempfile::tempdir().unwrap();
    for (name, sets) in [
        ("atax", &["workload.nx=64", "workload.ny=96"][..]),
        ("bicg", &["workload.nx=40", "workload.ny=72"]),
        ("mvt", &["workload.n=48"]),
        ("gesummv", &["workload.n=48"]),
        ("syrk", &["workload.n=24", "workload.m=16"]),
        ("syr2k", &["workload.n=24", "workload.m=16"]),
        ("gemm", &["workload.n=24"]),
        ("2mm", &["workload.n=24"]),
        ("3mm", &["workload.n=24"]),
        ("3dconv", &["workload.n=20"]),
        ("bfs", &["workload.nodes=600"]),
        ("spmv", &["workload.rows=300"]),
        ("sssp", &["workload.nodes=300"]),
        ("kmeans", &["workload.points=700", "workload.features=3"]),
        // Shared-memory tiles, barriers, `if`s on thread indices, half-warp CTAs.
        ("hotspot", &["workload.grid=40", "workload.pyramid=3", "workload.steps=4"]),
        ("nw", &["workload.n=48"]),
        ("backprop", &["workload.in=64"]),
        // A branch and an index on generated data; 1-byte and 8-byte accesses.
        ("streamcluster", &["workload.points=700", "workload.dim=4"]),
    ] {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let w = Workload::resolve(Some(Path::new(name)), &sets, 1).unwrap();
        let (back, dir) = round_trip(&w, root.path(), AddressModes::Compressed);
        headers_give_each_kernels_registers_and_shared_memory(&w, &dir);
        let expected = report(w);
        assert_eq!(expected["status"], "done", "{name}");
        assert_eq!(report(back), expected, "{name} exported to {}", dir.display());
        exits_carry_the_warps_threads(&dir);
        if name == "bfs" {
            // Kernel's predicated `if (!g_graph_visited[id])` body: a load of g_cost[tid] with
            // no lane active when every neighbour was visited, as in a real trace of it.
            let lines: String = (1..=w_kernels(&dir)).step_by(2).map(|i| kernel_text(&dir, i)).collect();
            assert!(lines.lines().any(|l| l.contains(" 00000000 1 R8 LDG 1 R0 4 ")), "a predicated-off load");
        }
        if name == "sssp" {
            // olddist = atomicMin(...) leaves as the ATOMG nvcc makes of an atomic whose
            // result is used, writing R13: Accel-Sim performs it at the L2. `*changed` is one
            // predicated store per warp, of no lane in a warp that lowered no distance, and
            // the `start >= end` exit is a line of no lane before the warp's last.
            let k1 = std::fs::read_to_string(dir.join("kernel-1.traceg")).unwrap();
            assert!(k1.contains(" 1 R13 ATOMG.E.MIN.S32 1 R12 4 "), "{}", &k1[..3000]);
            assert!(k1.contains(" 00000000 0 STG.E.U8 0 1 1 0x0 0 "), "{}", &k1[..3000]);
            assert!(k1.contains("0010 00000000 0 EXIT 0 0 "), "{}", &k1[..3000]);
        }
    }
}

/// Kernels listed in an exported directory.
fn w_kernels(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("kernelslist.g"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("kernel-"))
        .count()
}

/// The text of `kernel-<i>.traceg`.
fn kernel_text(dir: &Path, i: usize) -> String {
    std::fs::read_to_string(dir.join(format!("kernel-{i}.traceg"))).unwrap()
}

/// Each exported kernel's header says the shared memory its CUDA source declares per CTA and
/// the registers per thread nvcc gives it (`bench::ptxas`), which is also what warpscope's
/// occupancy uses; its program names no register beyond them.
fn headers_give_each_kernels_registers_and_shared_memory(w: &Workload, dir: &Path) {
    for (i, k) in w.kernels.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join(format!("kernel-{}.traceg", i + 1))).unwrap();
        let value =
            |key: &str| text.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim().to_string()).unwrap();
        let mut highest = 0;
        for cta in 0..k.ctas() {
            for mut p in k.cta_programs(cta).unwrap() {
                loop {
                    let mut a = [0u64; 32];
                    let i = p.fetch(k, &mut a);
                    highest = highest.max(i.register_span());
                    if i.op == Op::Exit {
                        break;
                    }
                }
            }
        }
        let nvcc = ptxas::registers(k.name()).unwrap_or_else(|| panic!("{}: no ptxas count", k.name()));
        assert!(highest <= nvcc, "{}: R{} named, nvcc gives {nvcc}", k.name(), highest - 1);
        assert_eq!(k.registers_per_thread(), nvcc, "{}", k.name());
        assert_eq!(value("-nregs = "), nvcc.to_string(), "{}", k.name());
        assert_eq!(value("-shmem = "), k.shared_bytes_per_cta().to_string(), "{}", k.name());
        let declared = match k.name() {
            "calculate_temp" => 3 * 16 * 16 * 4,
            "needle_cuda_shared_1" | "needle_cuda_shared_2" => (17 * 17 + 16 * 16) * 4,
            "bpnn_layerforward_CUDA" => (16 + 16 * 16) * 4,
            "spmv_csr_vector_kernel" => 128 * 4,
            _ => 0,
        };
        assert_eq!(k.shared_bytes_per_cta(), declared, "{}: the source's __shared__ arrays", k.name());
    }
}

/// Every warp's last line is an `EXIT`, and its `EXIT` lines (a bounds guard's `@P0 EXIT`
/// before it) leave each thread of the block in that warp exactly once (32, or what a partial
/// last warp holds: NW's 16-thread blocks, `0000ffff`): Accel-Sim finishes a thread at the
/// `EXIT` it is active in.
fn exits_carry_the_warps_threads(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "traceg") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let block = text.lines().find_map(|l| l.strip_prefix("-block dim = (")).unwrap();
        let threads: u32 =
            block.trim_end_matches(')').split(',').map(|d| d.parse::<u32>().unwrap()).product();
        // A warp's lines run from `warp = N` and `insts = M` to the blank line after them.
        let mut warps = 0;
        for part in text.split("warp = ").skip(1) {
            let (warp, rest) = part.split_once('\n').unwrap();
            let warp: u32 = warp.parse().unwrap();
            let lines: Vec<&str> = rest.split("\n\n").next().unwrap().lines().collect();
            let last = lines.last().unwrap();
            assert!(last.ends_with(" EXIT 0 0 "), "{}: warp {warp} ends with `{last}`", path.display());
            // Each thread leaves through one EXIT line: a guard's early ones and the last.
            let mut left = 0u32;
            for l in lines.iter().filter(|l| l.contains(" EXIT ")) {
                let mask = u32::from_str_radix(l.split(' ').nth(1).unwrap(), 16).unwrap();
                assert_eq!(left & mask, 0, "{}: warp {warp}: a thread leaves twice at `{l}`", path.display());
                left |= mask;
            }
            let lanes = threads.saturating_sub(warp * 32).min(32);
            assert_eq!(left, ((1u64 << lanes) - 1) as u32, "{}: warp {warp}'s threads", path.display());
            warps += 1;
        }
        assert!(warps > 0, "{}", path.display());
    }
}

#[test]
fn listed_addresses_and_a_re_exported_real_trace_read_back_the_same() {
    let root = tempfile::tempdir().unwrap();
    let w = synthetic(ALL_OPS, "all_ops");
    let (back, dir) = round_trip(&w, root.path(), AddressModes::Listed);
    let text = std::fs::read_to_string(dir.join("kernel-1.traceg")).unwrap();
    let modes: Vec<&str> = text.lines().filter_map(|l| addresses(l).map(|a| a[0])).collect();
    assert!(modes.len() > 50 && modes.iter().all(|m| *m == "0"), "{modes:?}");
    assert_eq!(report(back), report(w));

    // Rodinia BFS as traced on a GPU: exported and read back, the same run.
    let real = Workload::load(Path::new("tests/fixtures/traces/rodinia-bfs/kernelslist.g"), 1).unwrap();
    let (back, _) = round_trip(&real, root.path(), AddressModes::Compressed);
    assert_eq!(back.kernels.len(), 8);
    assert_eq!(report(back), report(real));
}

/// Every warp's instructions, active lanes' addresses and opcode names, in order.
fn streams(w: &Workload) -> Vec<(Instr, Vec<u64>, Option<String>)> {
    let mut out = Vec::new();
    for k in &w.kernels {
        for cta in 0..k.ctas() {
            for mut p in k.cta_programs(cta).unwrap() {
                loop {
                    let mut a = [0u64; 32];
                    let i = p.fetch(k, &mut a);
                    let lanes = if i.op.is_memory() {
                        (0..32).filter(|l| i.mask >> l & 1 == 1).map(|l| a[l]).collect()
                    } else {
                        vec![]
                    };
                    out.push((i, lanes, p.opcode().map(str::to_string)));
                    if i.op == Op::Exit {
                        break;
                    }
                }
            }
        }
    }
    out
}

#[test]
fn real_traces_re_export_with_their_own_opcodes() {
    // Tracer versions 3 or older (leading ids), 4 and 5 (immediates): every instruction,
    // address and SASS opcode reads back the same.
    let root = tempfile::tempdir().unwrap();
    for name in ["rodinia-bfs", "matrixmul-v4", "vectoradd-v5"] {
        let real =
            Workload::load(&Path::new("tests/fixtures/traces").join(name).join("kernelslist.g"), 1).unwrap();
        let (back, dir) = round_trip(&real, root.path(), AddressModes::Compressed);
        let (a, b) = (streams(&real), streams(&back));
        assert!(a.len() > 4000, "{name}: {}", a.len());
        assert!(a.iter().all(|(_, _, op)| op.is_some()), "{name}: every instruction has its opcode");
        assert!(a == b, "{name}: {} differs", dir.display());
        // The list keeps its MemcpyHtoD lines where they were: the same file.
        let list = |d: &Path| std::fs::read_to_string(d.join("kernelslist.g")).unwrap();
        assert_eq!(list(&dir), list(&Path::new("tests/fixtures/traces").join(name)), "{name}");
        // Their opcodes are from their architecture's table: its binary version is kept.
        let original =
            std::fs::read_to_string(Path::new("tests/fixtures/traces").join(name).join("kernel-1.traceg"))
                .unwrap();
        let text = std::fs::read_to_string(dir.join("kernel-1.traceg")).unwrap();
        let binary = |t: &str| t.lines().find(|l| l.starts_with("-binary version = ")).map(str::to_string);
        assert_eq!(binary(&text), binary(&original), "{name}");
        assert!(!text.contains(" IADD3 ") || name != "matrixmul-v4", "matrixmul has no IADD3 of its own");
    }
}

#[test]
fn the_files_follow_the_tracer_layout() {
    let root = tempfile::tempdir().unwrap();
    let w = synthetic(ALL_OPS, "all_ops");
    let (_, dir) = round_trip(&w, root.path(), AddressModes::Compressed);
    assert_eq!(std::fs::read_to_string(dir.join("kernelslist.g")).unwrap(), "kernel-1.traceg\n");
    let text = std::fs::read_to_string(dir.join("kernel-1.traceg")).unwrap();
    let head: Vec<&str> = text.lines().take(12).collect();
    assert_eq!(
        head,
        [
            "-kernel name = k",
            "-kernel id = 1",
            "-grid dim = (3,1,1)",
            "-block dim = (72,1,1)",
            "-shmem = 0",
            // R30, the highest register it names.
            "-nregs = 31",
            "-binary version = 70",
            "-cuda stream id = 0",
            // The CUDA driver's layout: local memory 32 MiB below shared memory.
            "-shmem base_addr = 0x00007f0002000000",
            "-local mem base_addr = 0x00007f0000000000",
            "-accelsim tracer version = 4",
            "-enable lineinfo = 0",
        ]
    );
    // 72 threads: warps 0, 1 and 2 (8 lanes) per block, every block in order.
    let blocks: Vec<&str> = text.lines().filter(|l| l.starts_with("thread block")).collect();
    assert_eq!(blocks, ["thread block = 0,0,0", "thread block = 1,0,0", "thread block = 2,0,0"]);
    assert_eq!(text.matches("warp = ").count(), 9);
    // Warp 0 of block 0: the byte load is coalesced (base + stride 4), the 2-byte load one
    // 4096-byte stride, the 3 GB stride does not fit a C int (base + deltas), the last warp has
    // 8 lanes, and every warp ends with EXIT.
    assert!(text.contains("0000 ffffffff 1 R1 LDG.E.U8 0 1 1 0x10000000 4 \n"), "{}", &text[..2000]);
    assert!(text.contains("0010 ffffffff 1 R2 LDG.E.U16 0 2 1 0x10000000 4096 \n"));
    // (The 64 GiB array wraps around once within the warp: one negative delta.)
    let far = text.lines().find(|l| l.contains(" R30 LDG.E 0 4 ")).unwrap();
    let fields = addresses(far).unwrap();
    assert_eq!(fields[0], "2", "{far}");
    assert_eq!(fields.len(), 2 + 31, "{far}");
    assert_eq!(fields[2..].iter().filter(|d| **d == "3000000000").count(), 30, "{far}");
    assert!(text.contains("0000 000000ff 1 R1 LDG.E.U8 0 1 1 0x10000100 4 \n"));
    // Each warp's EXIT is executed by its threads (Accel-Sim finishes a thread only as an
    // active lane of an EXIT): warps 0 and 1 of each block whole, warp 2 its 8 lanes.
    let exits: Vec<&str> =
        text.lines().filter(|l| l.ends_with(" EXIT 0 0 ")).map(|l| l.split(' ').nth(1).unwrap()).collect();
    assert_eq!(exits, ["ffffffff", "ffffffff", "000000ff"].repeat(3));
    let mut insts = text.lines().filter_map(|l| l.strip_prefix("insts = "));
    assert!(insts.all(|n| n.parse::<u32>().unwrap() > 10));
}

/// The address fields of an instruction line (mode first), `None` for a non-memory one.
fn addresses(line: &str) -> Option<Vec<&str>> {
    let t: Vec<&str> = line.split_whitespace().collect();
    // PC, mask, destination count and registers, opcode, source count and registers, width.
    let n_dsts: usize = t.get(2)?.parse().ok()?;
    let n_srcs: usize = t.get(4 + n_dsts)?.parse().ok()?;
    let width = 5 + n_dsts + n_srcs;
    (t.get(width)? != &"0").then(|| t[width + 1..].to_vec())
}

#[test]
fn a_failure_midway_leaves_neither_the_directory_nor_a_temporary_one() {
    // A trace read again at each CTA launch (nothing kept decoded) whose last kernel file
    // disappears after loading: kernels 1..7 are written, then reading kernel 8's first CTA
    // fails.
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("bfs");
    std::fs::create_dir(&src).unwrap();
    for e in std::fs::read_dir("tests/fixtures/traces/rodinia-bfs").unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), src.join(e.file_name())).unwrap();
    }
    let w = Workload::load_trace_keeping(&src.join("kernelslist.g"), TraceFileKind::List, 0).unwrap();
    std::fs::remove_file(src.join("kernel-8.traceg")).unwrap();
    let out = root.path().join("out");
    let opts = ExportOptions::default();
    let err = export::export(&w, export::prepare(&out, &opts).unwrap(), &opts).unwrap_err();
    assert!(format!("{err:#}").contains("(the trace changed after it was loaded)"), "{err:#}");
    assert_eq!(entries(root.path()), ["bfs"]);

    // The same over an existing directory with --force: the old contents stay.
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep"), "old").unwrap();
    let opts = ExportOptions { force: true, ..opts };
    export::export(&w, export::prepare(&out, &opts).unwrap(), &opts).unwrap_err();
    assert_eq!(entries(root.path()), ["bfs", "out"]);
    assert_eq!(entries(&out), ["keep"]);
}

/// Exit code and standard error; standard output must be empty unless it succeeded.
fn cli(args: &[&str]) -> (i32, String) {
    let (code, stdout, stderr) = cli_out(args);
    assert!(code == 0 || stdout.is_empty(), "{stdout}");
    (code, stderr)
}

fn cli_out(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    v.sort();
    v
}

#[test]
fn the_command_refuses_to_overwrite_and_leaves_nothing_half_written() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("tiny");
    let out_s = out.to_str().unwrap();
    let (code, summary, err) = cli_out(&["trace", "export", "-w", "tests/fixtures/tiny.ron", out_s]);
    assert_eq!(code, 0, "{err}");
    // 16 CTAs of 4 warps, 8 of 8; every warp instruction the simulator counts in a run.
    let (_, run, _) = cli_out(&["run", "-q", "-w", "tests/fixtures/tiny.ron", "--json", "-"]);
    let run: serde_json::Value = serde_json::from_str(&run).unwrap();
    let instructions = run["warp_instructions"].as_u64().unwrap();
    assert!(
        summary.starts_with(&format!(
            "tiny: 2 kernels, 24 CTAs, 128 warps, {} warp instructions",
            warpscope::sim::stats::metrics::group(instructions as i64)
        )),
        "{summary}"
    );
    assert!(
        summary.ends_with(&format!(" written to {}\n", out.join("kernelslist.g").display())),
        "{summary}"
    );
    assert_eq!(entries(&out), ["kernel-1.traceg", "kernel-2.traceg", "kernelslist.g"]);

    // An existing non-empty directory is refused, untouched, unless --force / --overwrite.
    let first = std::fs::read_to_string(out.join("kernel-1.traceg")).unwrap();
    let (code, err) = cli(&["trace", "export", "-w", "tests/fixtures/small.ron", out_s]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("error: {out_s}: exists and is not empty; pass --force (or --overwrite) to replace it\n")
    );
    assert_eq!(std::fs::read_to_string(out.join("kernel-1.traceg")).unwrap(), first);
    let (code, err) = cli(&[
        "trace",
        "export",
        "--overwrite",
        "--set",
        "sim.seed=9",
        "-w",
        "tests/fixtures/tiny.ron",
        out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(std::fs::read_to_string(out.join("kernel-1.traceg")).unwrap(), first, "another seed");
    assert_eq!(entries(root.path()), ["tiny"], "no temporary or replaced directory is left");

    // An unknown workload: exit 2 naming it, and no directory made.
    let (code, err) = cli(&["trace", "export", "-w", "no-such.ron", root.path().join("x").to_str().unwrap()]);
    assert_eq!(
        (code, err.as_str()),
        (2, "error: no-such.ron: cannot read: No such file or directory (os error 2)\n")
    );
    // A path whose parent does not exist, and a file in the way.
    let bad = root.path().join("missing/out");
    let (code, err) = cli(&["trace", "export", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "error: {}: cannot be written: the directory `{}` does not exist (create it first)\n",
            bad.display(),
            root.path().join("missing").display()
        )
    );
    std::fs::write(root.path().join("file"), "x").unwrap();
    let (code, err) = cli(&["trace", "export", "--force", root.path().join("file").to_str().unwrap()]);
    assert_eq!((code, err.contains("file: exists and is not a directory")), (2, true), "{err}");
    assert_eq!(entries(root.path()), ["file", "tiny"]);
    // No directory name, no directory at all.
    let (code, err) = cli(&["trace", "export", "."]);
    assert_eq!((code, err.as_str()), (2, "error: .: expected a directory path ending in a name\n"));
    let (code, err) = cli(&["trace", "export"]);
    assert_eq!(code, 2);
    assert!(err.contains("required arguments were not provided") && err.contains("<DIR>"), "{err}");
    // An empty existing directory is fine.
    std::fs::create_dir(root.path().join("empty")).unwrap();
    let (code, err) = cli(&[
        "trace",
        "export",
        "-w",
        "tests/fixtures/tiny.ron",
        root.path().join("empty").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(entries(&root.path().join("empty")).len(), 3);
}
