//! Checkpoints (issue 38 item 5): `checkpoint save FILE` writes the machine's state, and a
//! session resumed from it is the machine that saved it — same state hash, and the same next
//! 10,000 cycles, state and report — while a checkpoint of another machine, workload or
//! format version, or a damaged one, is refused with a message saying what differs.

mod common;

use common::{cases, small_config, workload};
use proptest::prelude::*;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use warpscope::config::Config;
use warpscope::debug::checkpoint::{FORMAT_VERSION, config_digest, workload_digest};
use warpscope::debug::{Outcome, Session};
use warpscope::sim::stats::report::Report;
use warpscope::workload::Workload;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const TINY: &str = include_str!("fixtures/tiny.ron");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(s: &mut Session, cmd: &str) -> String {
    match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        Ok(other) => panic!("{cmd}: unexpected {other:?}"),
        Err(e) => panic!("{cmd}: {e}"),
    }
}

fn report(s: &Session) -> serde_json::Value {
    serde_json::to_value(Report::new(&s.gpu, 0.0)).unwrap()
}

/// What the views show of the machine (not of the session's history).
fn views(s: &mut Session) -> String {
    ["show warps 0", "show warp 0.1", "show banks 0", "show mshr 0", "show queues", "info breakpoints"]
        .iter()
        .map(|v| run(s, v))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Saves a checkpoint of a session gone to cycle `at`, resumes it, and checks that the resumed
/// session is that machine, and that the next 10,000 cycles of both (a thousand at a time) go
/// through the same states and end with the same report.
fn resumes_exactly(config: Config, w: Arc<Workload>, at: u64, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("at.wsck").display().to_string();
    let mut straight = Session::new(config.clone(), Arc::clone(&w)).unwrap();
    run(&mut straight, &format!("until {at}"));
    let saved = run(&mut straight, &format!("checkpoint save {file}"));
    assert!(saved.starts_with(&format!("Checkpoint of cycle {}", group(at))), "{what}: {saved}");
    let mut resumed = Session::resume(config, w, &file).unwrap();
    assert_eq!(resumed.gpu.cycle, at, "{what}");
    assert_eq!(resumed.gpu.state_hash(), straight.gpu.state_hash(), "{what}");
    assert!(resumed.gpu == straight.gpu, "{what}: the resumed machine equals the saved one");
    assert_eq!(views(&mut resumed), views(&mut straight), "{what}");
    for k in 1..=10 {
        run(&mut straight, "step 1000");
        run(&mut resumed, "step 1000");
        assert_eq!(resumed.gpu.state_hash(), straight.gpu.state_hash(), "{what}: {k}000 cycles on");
    }
    assert_eq!(resumed.gpu.cycle, at + 10_000, "{what}: still running");
    assert_eq!(report(&resumed), report(&straight), "{what}");
    assert_eq!(views(&mut resumed), views(&mut straight), "{what}");
}

fn group(n: u64) -> String {
    warpscope::sim::stats::metrics::group(n)
}

#[test]
fn a_resumed_synthetic_workload_runs_on_as_the_uninterrupted_machine() {
    resumes_exactly(small_config(&[]), workload(TINY, 1), 20_000, "tiny");
}

/// A benchmark's warps keep the name of the instruction they fetched last; its digest follows
/// its knobs.
#[test]
fn a_resumed_benchmark_runs_on_as_the_uninterrupted_machine() {
    let bfs = |nodes: u32| {
        Workload::resolve(Some(Path::new("bfs")), &[format!("workload.nodes={nodes}")], 1).unwrap()
    };
    assert_ne!(workload_digest(&bfs(300)), workload_digest(&bfs(301)));
    resumes_exactly(small_config(&[]), Arc::new(bfs(300)), 5_000, "bfs");
}

/// A trace's warps find their thread blocks' instructions again; its digest is of its
/// contents, however its path is spelled.
#[test]
fn a_resumed_trace_runs_on_as_the_uninterrupted_machine() {
    let trace =
        |dir: &str| Workload::resolve(Some(Path::new(&format!("{dir}/kernelslist.g"))), &[], 1).unwrap();
    let w = trace(&format!("{ROOT}/tests/fixtures/traces/vectoradd-v5"));
    let elsewhere = trace(&format!("{ROOT}/tests/fixtures/traces/../traces/vectoradd-v5"));
    assert_eq!(workload_digest(&w), workload_digest(&elsewhere));
    let other = trace(&format!("{ROOT}/tests/fixtures/traces/matrixmul-v4"));
    assert_ne!(workload_digest(&w), workload_digest(&other));
    resumes_exactly(small_config(&[]), Arc::new(w), 8_000, "vectoradd");
}

/// A checkpoint of the small machine and tiny workload at cycle 3,000, as bytes.
fn saved(dir: &Path) -> (String, Vec<u8>) {
    let file = dir.join("c.wsck").display().to_string();
    let mut s = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    run(&mut s, "until 3000");
    run(&mut s, &format!("checkpoint save {file}"));
    let bytes = std::fs::read(&file).unwrap();
    (file, bytes)
}

fn refusal(config: Config, w: Arc<Workload>, file: &str) -> String {
    match Session::resume(config, w, file) {
        Ok(_) => panic!("{file} was resumed"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_checkpoint_of_another_machine_or_workload_is_refused_naming_both_digests() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = saved(dir.path());
    let other = small_config(&["dram.scheduler=fcfs"]);
    let err = refusal(other.clone(), workload(TINY, 1), &file);
    assert!(err.starts_with(&format!("{file}: saved on another machine")), "{err}");
    for digest in [config_digest(&small_config(&[])), config_digest(&other)] {
        assert!(err.contains(&digest), "{err} names {digest}");
    }
    assert!(err.contains("(dram.scheduler: \"frfcfs\" → \"fcfs\", as saved → as given)"), "{err}");
    // Many settings: the first four by name, then how many more.
    let many =
        small_config(&["l1.ways=2", "l2.ways=2", "l1.mshr_entries=8", "l2.mshr_entries=8", "dram.banks=4"]);
    let err = refusal(many, workload(TINY, 1), &file);
    assert!(err.contains("l1.mshr_entries: ") && err.contains(" and 1 more, as saved → as given)"), "{err}");
    let (mine, theirs) = (workload(TINY, 1), workload(TINY, 2));
    assert_ne!(workload_digest(&mine), workload_digest(&theirs), "another seed, another workload");
    let err = refusal(small_config(&[]), Arc::clone(&theirs), &file);
    assert!(err.starts_with(&format!("{file}: saved with another workload: tiny (2 kernels")), "{err}");
    for digest in [workload_digest(&mine), workload_digest(&theirs)] {
        assert!(err.contains(&digest), "{err} names {digest}");
    }
    // The debugger's own settings and the machine's name are not the machine.
    let renamed = small_config(&["debug.snapshot_interval=700", "name=\"renamed\""]);
    assert_eq!(Session::resume(renamed, mine, &file).unwrap().gpu.cycle, 3000);
}

#[test]
fn a_checkpoint_of_another_format_version_is_refused_naming_both_versions() {
    let dir = tempfile::tempdir().unwrap();
    let (file, mut bytes) = saved(dir.path());
    let at = b"warpscope checkpoint\n".len();
    bytes[at..at + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    std::fs::write(&file, &bytes).unwrap();
    let err = refusal(small_config(&[]), workload(TINY, 1), &file);
    assert_eq!(
        err,
        format!(
            "{file}: a checkpoint of format version {}; this warpscope reads version {FORMAT_VERSION} only (save it again with this warpscope)",
            FORMAT_VERSION + 1
        )
    );
}

#[test]
fn a_damaged_or_foreign_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = saved(dir.path());
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("cut", bytes[..bytes.len() / 2].to_vec(), "the checkpoint is cut short: its body is"),
        ("flipped", flipped(&bytes, bytes.len() - 10), "its contents do not match their digest"),
        ("empty", Vec::new(), "not a warpscope checkpoint"),
        ("ron", TINY.as_bytes().to_vec(), "not a warpscope checkpoint"),
    ];
    for (what, content, says) in cases {
        std::fs::write(&file, content).unwrap();
        let err = refusal(small_config(&[]), workload(TINY, 1), &file);
        assert!(err.starts_with(&format!("{file}: ")) && err.contains(says), "{what}: {err}");
    }
    let err = refusal(small_config(&[]), workload(TINY, 1), "no/such.wsck");
    assert!(err.starts_with("no/such.wsck: cannot read"), "{err}");
}

fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at] ^= 0x10;
    b
}

/// A checkpoint cut anywhere, or with any byte changed, generated as a class: always a
/// refusal naming the file, never a panic or a machine.
#[test]
fn truncated_and_flipped_checkpoints_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = saved(dir.path());
    let (config, w) = (small_config(&[]), workload(TINY, 1));
    let n = bytes.len();
    let damage = prop_oneof![
        (0..n).prop_map(|cut| (cut, None)),
        (0..n, 1..=255u8).prop_map(move |(at, x)| (n, Some((at, x)))),
    ];
    proptest!(cases::config(cases::CHECKPOINT_FILES), |((cut, flip) in damage)| {
        let mut b = bytes[..cut].to_vec();
        if let Some((at, x)) = flip {
            b[at] ^= x;
        }
        std::fs::write(&file, &b).unwrap();
        let err = match Session::resume(config.clone(), Arc::clone(&w), &file) {
            Ok(_) => return Err(TestCaseError::fail(format!("cut at {cut}, flip {flip:?}: resumed"))),
            Err(e) => e.to_string(),
        };
        prop_assert!(err.starts_with(&format!("{file}: ")), "{}", err);
    });
}

/// Time travel in a resumed session reaches back to the checkpoint's cycle, with breakpoints
/// set too, and refuses to go further.
#[test]
fn a_resumed_session_goes_back_to_the_checkpoint_and_no_further() {
    let dir = tempfile::tempdir().unwrap();
    let (file, _) = saved(dir.path());
    let mut s = Session::resume(small_config(&[]), workload(TINY, 1), &file).unwrap();
    run(&mut s, "break cycle 3500");
    run(&mut s, "continue");
    assert_eq!(s.gpu.cycle, 3500);
    let out = run(&mut s, "reverse-continue");
    assert!(
        out.starts_with("No earlier breakpoint hit: at the checkpoint this session was resumed from."),
        "{out}"
    );
    assert_eq!(s.gpu.cycle, 3000);
    run(&mut s, "step 5");
    run(&mut s, "reverse-step 5");
    assert_eq!(s.gpu.cycle, 3000);
    let err = s.execute_blocking("reverse-step").unwrap_err();
    assert!(err.starts_with("cycle 2,999 is before this session's history"), "{err}");
    assert_eq!(s.gpu.cycle, 3000);
    assert!(run(&mut s, "info snapshots").contains("history covers cycles 3,000..3,500"));
}

/// Through the program: `batch -x "until N; checkpoint save F"`, then `batch --resume F` goes
/// on from there as one uninterrupted session does; `goto` before the checkpoint is refused.
#[test]
fn batch_saves_and_resumes_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.wsck").display().to_string();
    let small = format!("{ROOT}/tests/fixtures/small.ron");
    let tiny = format!("{ROOT}/tests/fixtures/tiny.ron");
    let batch = |args: &[&str]| {
        let out = Command::new(BIN).args(["batch", "-c", &small, "-w", &tiny]).args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = batch(&["-x", &format!("until 6000; checkpoint save {file}")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&format!("Checkpoint of cycle 6,000 written to {file}")), "{out}");
    let then = "print cycle; until 9000; show warps 1; print l1[1].mshr.used";
    let (code, resumed, err) = batch(&["--resume", &file, "-x", then]);
    assert_eq!(code, Some(0), "{err}");
    assert!(resumed.contains("cycle = 6000"), "{resumed}");
    let (_, straight, _) = batch(&["-x", &format!("until 6000; {then}")]);
    let tail = |s: &str| s[s.find("(ws) until 9000").expect("until ran")..].to_string();
    assert_eq!(tail(&resumed), tail(&straight));
    let (code, _, err) = batch(&["--resume", &file, "-x", "goto 5000"]);
    assert_eq!(code, Some(2), "a command batch refuses is bad input");
    assert!(
        err.contains("goto 5000: cycle 5,000 is before this session's history: it was resumed from a checkpoint of cycle 6,000"),
        "{err}"
    );
    let (code, _, err) = batch(&["--set", "dram.scheduler=fcfs", "--resume", &file, "-x", "print cycle"]);
    assert_eq!(code, Some(2), "another machine is bad input");
    assert!(err.starts_with(&format!("error: {file}: saved on another machine")), "{err}");
}
