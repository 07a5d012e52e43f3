//! Accel-Sim traces end to end: the shared samples (copied from `../shared/traces` into
//! `tests/fixtures/traces`, so the suite runs wherever the repository is cloned) parse with the
//! instruction counts their files declare and run to completion headless and in the debugger,
//! per-kernel numbers are deterministic, bad traces exit with code 2 and a `file:line:col`
//! message, and mutated real lines never panic the parser.

mod common;

use common::cases;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use warpscope::batch::run::{RunOptions, simulate};
use warpscope::config::Config;
use warpscope::debug::{Outcome, Session};
use warpscope::workload::accelsim::line::{self, LineFormat};
use warpscope::workload::accelsim::{TraceKernel, TraceSource};
use warpscope::workload::{Kernel, Workload};

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const SAMPLES: [&str; 3] = ["rodinia-bfs", "vectoradd-v5", "matrixmul-v4"];

fn sample(name: &str) -> PathBuf {
    let dir = Path::new("tests/fixtures/traces").join(name);
    assert!(
        dir.is_dir(),
        "the Accel-Sim samples (copies of ../shared/traces) are expected at {}",
        dir.display()
    );
    dir
}

/// (Σ `insts =`, number of `#BEGIN_TB`) of a kernel file, counted independently of the parser.
fn declared(path: &Path) -> (u64, u32) {
    let text = std::fs::read_to_string(path).unwrap();
    let insts = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("insts = "))
        .map(|n| n.parse::<u64>().unwrap())
        .sum();
    let blocks = text.lines().filter(|l| l.trim() == "#BEGIN_TB").count() as u32;
    (insts, blocks)
}

fn kernel_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(dir.join("kernelslist.g"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("kernel-"))
        .map(|l| dir.join(l))
        .collect()
}

#[test]
fn the_shared_samples_parse_with_their_declared_instruction_counts() {
    for name in SAMPLES {
        let dir = sample(name);
        let w = Workload::load(&dir.join("kernelslist.g"), 1).unwrap_or_else(|e| panic!("{e}"));
        let files = kernel_files(&dir);
        assert_eq!(w.kernels.len(), files.len(), "{name}");
        for (k, file) in w.kernels.iter().zip(&files) {
            let Kernel::Trace(t) = k else { panic!("a trace kernel") };
            let (insts, blocks) = declared(file);
            assert_eq!((t.instructions, t.ctas()), (insts, blocks), "{}", file.display());
            assert_eq!(u64::from(blocks), t.header.ctas());
        }
    }
}

fn zero_wall(mut r: serde_json::Value) -> serde_json::Value {
    r["sim"]["wall_seconds"] = 0.into();
    r["sim"]["cycles_per_second"] = 0.into();
    r
}

#[test]
fn the_shared_samples_run_to_completion_and_issue_every_traced_instruction() {
    for name in SAMPLES {
        let dir = sample(name);
        let w = Arc::new(Workload::load(&dir.join("kernelslist.g"), 1).unwrap());
        let (gpu, report) = simulate(&Config::builtin(), Arc::clone(&w), &RunOptions::default()).unwrap();
        assert_eq!(report.status, "done", "{name}");
        let insts: u64 = kernel_files(&dir).iter().map(|f| declared(f).0).sum();
        assert_eq!(report.warp_instructions, insts, "{name}: one issue per traced line");
        assert_eq!(report.core.ctas, w.kernels.iter().map(|k| u64::from(k.ctas())).sum::<u64>());
        assert_eq!(gpu.ledger.in_flight(), 0);
        assert!(report.memory.loads > 0 && report.dram.metrics.reads > 0, "{name} reaches DRAM");
    }
}

#[test]
fn per_kernel_numbers_are_deterministic() {
    for file in kernel_files(&sample("rodinia-bfs")) {
        let w = Arc::new(Workload::load(&file, 1).unwrap());
        let run = || {
            let (_, r) = simulate(&Config::builtin(), Arc::clone(&w), &RunOptions::default()).unwrap();
            zero_wall(serde_json::to_value(r).unwrap())
        };
        let (a, b) = (run(), run());
        assert_eq!(a, b, "{}", file.display());
        assert_eq!(a["status"], "done");
    }
}

#[test]
fn the_shared_samples_run_in_the_debugger_with_sass_names() {
    for name in SAMPLES {
        let w = Arc::new(Workload::load(&sample(name).join("kernelslist.g"), 1).unwrap());
        let mut s = Session::new(Config::builtin(), w).unwrap();
        s.execute_blocking("until 300").unwrap();
        let Ok(Outcome::Text(warps)) = s.execute_blocking("show warps 0") else { panic!("a view") };
        // The `op` column of a resident warp holds an opcode of the trace.
        let row = warps.lines().nth(3).unwrap_or_else(|| panic!("{name}: a warp is resident: {warps}"));
        let op = row.split_whitespace().nth(5).unwrap();
        let opcodes = opcodes(&sample(name));
        assert!(opcodes.iter().any(|o| o == op), "{name}: {op} is not among the trace's opcodes");
        s.execute_blocking("break cycle 600").unwrap();
        s.execute_blocking("continue").unwrap();
        s.execute_blocking("reverse-step 50").unwrap();
        assert_eq!(s.gpu.cycle, 550);
        s.execute_blocking("delete").unwrap();
        s.execute_blocking("continue").unwrap();
        assert_eq!(s.gpu.status, warpscope::sim::Status::Done, "{name}");
    }
}

/// Every opcode in a sample's kernel files.
fn opcodes(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in kernel_files(dir) {
        for l in std::fs::read_to_string(f).unwrap().lines() {
            let t: Vec<&str> = l.split_whitespace().collect();
            if t.len() > 3 && t[0].len() == 4 && t[1].len() == 8 {
                let n: usize = t[2].parse().unwrap();
                out.push(t[3 + n].to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn run_cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn warpscope_run_finishes_every_shared_sample() {
    for name in SAMPLES {
        let list = sample(name).join("kernelslist.g");
        let (code, out, err) = run_cli(&["run", "-q", "--json", "-", "-w", list.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {err}");
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(r["status"], "done", "{name}");
        let insts: u64 = kernel_files(&sample(name)).iter().map(|f| declared(f).0).sum();
        assert_eq!(r["warp_instructions"].as_u64(), Some(insts), "{name}");
    }
}

#[test]
fn bad_traces_exit_2_naming_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let src = sample("vectoradd-v5").join("kernel-1.traceg");
    let text = std::fs::read_to_string(&src).unwrap();
    // A truncated file: cut between two lines of the last thread block.
    let cut = dir.path().join("kernel-1.traceg");
    let end = text[..text.len() - 300].rfind('\n').unwrap() + 1;
    std::fs::write(&cut, &text[..end]).unwrap();
    let (code, _, err) = run_cli(&["run", "-w", cut.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let n = text[..end].lines().count() + 1;
    assert!(err.starts_with(&format!("error: {}:{n}:1: expected ", cut.display())), "{err}");
    assert!(err.contains("found the end of the file (the file is truncated"), "{err}");
    // A malformed line.
    let bad = text.replacen("0x7fb0fc430e00 4 0", "0x7fb0fc430e00 four 0", 1);
    let line = bad.lines().position(|l| l.contains(" four ")).unwrap() + 1;
    std::fs::write(&cut, bad).unwrap();
    let (code, _, err) = run_cli(&["run", "-w", cut.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        format!("error: {}:{line}:50: expected the stride (decimal), found `four`", cut.display())
    );
    // A kernelslist naming a missing kernel.
    let list = dir.path().join("kernelslist.g");
    std::fs::write(&list, "MemcpyHtoD,0x00007fb0fc400000,200000\nkernel-1.traceg\nkernel-2.traceg\n")
        .unwrap();
    std::fs::write(&cut, &text).unwrap();
    let (code, _, err) = run_cli(&["run", "-w", list.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        format!(
            "error: {}:3:1: expected the kernel file {}, found no such file",
            list.display(),
            dir.path().join("kernel-2.traceg").display()
        )
    );
    std::fs::write(&list, "kernel-1.traceg\nMemcpyHtoD,0x0,12\nlaunch kernel-1.traceg\n").unwrap();
    let (code, _, err) = run_cli(&["run", "-w", list.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("kernelslist.g:3:1: expected `kernel-<N>.traceg` or `MemcpyHtoD,0x<address>,<bytes>`, found `launch kernel-1.traceg`"), "{err}");
    // A copy line Accel-Sim could not read (it splits on commas and asserts three fields).
    std::fs::write(&list, "kernel-1.traceg\nMemcpyHtoD 0x0 12\n").unwrap();
    let (code, _, err) = run_cli(&["run", "-w", list.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "kernelslist.g:2:1: expected `MemcpyHtoD,0x<address>,<bytes>`, found `MemcpyHtoD 0x0 12`"
        ),
        "{err}"
    );
    // A list of copies only, or empty: the position after its last line (issue 37.6's fuzzer
    // found this refusal without one).
    for (text, line) in [("MemcpyHtoD,0x0,12\n\n", 3), ("", 1)] {
        std::fs::write(&list, text).unwrap();
        let (code, _, err) = run_cli(&["run", "-w", list.to_str().unwrap()]);
        assert_eq!(code, 2);
        assert_eq!(
            err.trim(),
            format!(
                "error: {}:{line}:1: expected at least one `kernel-<N>.traceg` line, found the end of the file",
                list.display()
            )
        );
    }
}

/// The fuzzer's seeds: real lines with their tracer versions.
fn corpus() -> Vec<(u32, String)> {
    include_str!("fixtures/trace-lines.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (v, line) = l.split_once('\t').unwrap();
            (v.parse().unwrap(), line.to_string())
        })
        .collect()
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Replace(usize, String),
    Truncate(usize),
    Insert(usize, char),
}

fn mutate(line: &str, m: &Mutation) -> String {
    let mut toks: Vec<String> = line.split_whitespace().map(String::from).collect();
    let n = toks.len();
    if n == 0 && !matches!(m, Mutation::Truncate(_) | Mutation::Insert(..)) {
        return line.to_string();
    }
    match m {
        Mutation::Delete(i) => {
            toks.remove(i % n);
        }
        Mutation::Duplicate(i) => {
            let t = toks[i % n].clone();
            toks.insert(i % n, t);
        }
        Mutation::Replace(i, s) => toks[i % n] = s.clone(),
        Mutation::Truncate(i) => return line.chars().take(i % (line.len() + 1)).collect(),
        Mutation::Insert(i, c) => {
            let mut s: Vec<char> = line.chars().collect();
            s.insert(i % (s.len() + 1), *c);
            return s.into_iter().collect();
        }
    }
    toks.join(" ")
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let token = prop_oneof![
        "[0-9]{1,3}",
        "-?[0-9]{1,20}",
        "0x[0-9a-f]{0,17}",
        "R[0-9]{1,3}",
        "[A-Z][A-Z0-9.]{0,12}",
        "[ -~]{0,6}",
    ];
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), token).prop_map(|(i, s)| Mutation::Replace(i, s)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<char>()).prop_map(|(i, c)| Mutation::Insert(i, c)),
    ]
}

proptest! {
    #![proptest_config(cases::config(cases::TRACE_LINES))]

    /// Any mutation of a real line parses or fails with a column inside (or just past) it.
    #[test]
    fn mutated_real_lines_never_panic(seed in any::<prop::sample::Index>(), ms in prop::collection::vec(mutation(), 1..4), lineinfo in any::<bool>()) {
        let c = corpus();
        let (v, line) = &c[seed.index(c.len())];
        let mut l = line.clone();
        for m in &ms {
            l = mutate(&l, m);
        }
        for version in [Some(*v), Some(2), Some(5), None] {
            if let Err(e) = line::parse(&l, LineFormat::new(version, lineinfo)) {
                prop_assert!(e.col >= 1 && e.col <= l.len() + 2, "column {} of {:?}: {}", e.col, l, e.message);
                prop_assert!(e.message.starts_with("expected ") || e.message.starts_with("mask "), "{}", e.message);
            }
        }
    }
}

proptest! {
    #![proptest_config(cases::config(cases::TRACE_KERNELS))]

    /// A real kernel cut anywhere, or with a mutated line, loads or reports an error — and a cut
    /// before its last `#END_TB` is always an error.
    #[test]
    fn mutated_and_truncated_kernels_never_panic(cut in 0usize..4000, at in any::<prop::sample::Index>(), m in mutation()) {
        let text = SMALL_KERNEL;
        let cut = cut.min(text.len());
        let truncated: &'static str = Box::leak(text[..cut].to_string().into_boxed_str());
        let r = TraceKernel::load(TraceSource::Embedded(truncated), "k.traceg");
        if cut < text.rfind("#END_TB").unwrap() {
            prop_assert!(r.is_err());
        }
        let lines: Vec<&str> = text.lines().collect();
        let i = at.index(lines.len());
        let mut changed: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        changed[i] = mutate(lines[i], &m);
        let changed: &'static str = Box::leak(changed.join("\n").into_boxed_str());
        match TraceKernel::load(TraceSource::Embedded(changed), "k.traceg") {
            // What validation accepted, the per-CTA reads decode.
            Ok(k) => {
                for cta in 0..k.ctas() {
                    prop_assert!(k.load_cta(cta).is_ok());
                }
            }
            Err(e) => prop_assert!(e.to_string().starts_with("k.traceg:"), "{e}"),
        }
    }
}

/// Trace lines are bounded, as `dram --trace` lines are (issue 37.1): a kernel name of the
/// longest line allowed, longer than any mangled C++ name, loads; one byte more is refused at
/// its line before more of it is read; an endless kernel file is refused at its first line.
#[test]
fn trace_lines_are_bounded() {
    use warpscope::workload::accelsim::body::MAX_LINE_BYTES;
    let first = SMALL_KERNEL.lines().next().unwrap();
    let named = |len: u64| {
        let line = format!("-kernel name = {}", "K".repeat(len as usize - "-kernel name = ".len()));
        let text = SMALL_KERNEL.replacen(first, &line, 1);
        TraceKernel::load(TraceSource::Embedded(Box::leak(text.into_boxed_str())), "k.traceg")
    };
    let k = named(MAX_LINE_BYTES).unwrap();
    assert_eq!(k.header.name.len() as u64, MAX_LINE_BYTES - 15);
    assert_eq!(
        named(MAX_LINE_BYTES + 1).unwrap_err().to_string(),
        "k.traceg:1:1: expected a line of at most 1 MB (an instruction line is under 1 KB), found a longer one"
    );
    let dir = tempfile::tempdir().unwrap();
    let endless = dir.path().join("kernel-1.traceg");
    std::os::unix::fs::symlink("/dev/zero", &endless).unwrap();
    let (code, _, err) = run_cli(&["run", "-w", endless.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("error: {}:1:1: expected a line of at most 1 MB", endless.display())),
        "{err}"
    );
}

/// Two thread blocks of rodinia-bfs kernel-1 lines (tracer 3).
const SMALL_KERNEL: &str = "-kernel name = _Z6KernelP4NodePiPbS2_S2_S1_i
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem = 0
-shmem base_addr = 0x00007fc867000000
-local mem base_addr = 0x00007fc865000000
-accelsim tracer version = 3

#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]

#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = 6
0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 
0090 ffffffff 1 R0 LDG.E.U8 1 R4 1 1 0x7fc841520000 1 
00b0 fffffffe 0 EXIT 0 0 
00d0 00000001 0 STG.E.U8 2 R4 R255 1 2 0x7fc841520000 
00f0 00212428 1 R8 LDG.E 1 R2 4 2 0x7fc841500d1c 16 40 24 24 40 
0100 ffffffff 0 EXIT 0 0 

warp = 1
insts = 2
01f0 00000000 1 R7 LDG.E 1 R4 4 1 0x0 0 
0100 ffffffff 0 EXIT 0 0 
#END_TB

#BEGIN_TB
thread block = 1,0,0
warp = 0
insts = 1
0100 ffffffff 0 EXIT 0 0 
warp = 1
insts = 1
0100 ffffffff 0 EXIT 0 0 
#END_TB
";

#[test]
fn a_trace_directory_stands_for_its_kernel_list() {
    let dir = sample(SAMPLES[0]);
    let by_dir = Workload::load(&dir, 1).unwrap_or_else(|e| panic!("{e}"));
    let by_list = Workload::load(&dir.join("kernelslist.g"), 1).unwrap();
    assert_eq!(format!("{by_dir:?}"), format!("{by_list:?}"));
    let e = Workload::load(Path::new("tests/fixtures"), 1).unwrap_err().to_string();
    assert!(e.contains("tests/fixtures") && e.contains("without a kernelslist.g"), "{e}");
}
