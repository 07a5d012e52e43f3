//! Every parser of warpscope's input fuzzed as a class (issue 37.6): real files and arguments of
//! the repository, each with a few edits (`common::mutate`), read the way the program reads
//! them. None may panic. Each is accepted and then used — a machine built and run, a layout
//! drawn, a command run — or refused as `docs/run.md` ("Exit codes") promises: a `ConfigError`
//! (which the program exits with, code 2) naming the file and a line and column inside it, or
//! the key; an argument's refusal names its flag. The number of cases of each:
//! `tests/common/cases.rs`, tabulated in `docs/robustness.md`.

mod common;

use common::cases::{self, config};
use common::mutate::{Edit, apply, apply_one, check_place, check_refusal, edits};
use common::{small_config, workload};
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use warpscope::config::{Config, ConfigError, Origin};
use warpscope::debug::Session;
use warpscope::debug::command::{COMMANDS, Command};
use warpscope::sim::Gpu;
use warpscope::workload::Workload;

const TINY: &str = include_str!("fixtures/tiny.ron");
const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The files of `dir` (from the repository's root) whose names end in `ext`, as (path, text),
/// in name order.
fn corpus(dir: &str, ext: &str) -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(format!("{ROOT}/{dir}"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = format!("{dir}/{}", p.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The words that follow `flag` in the README and the manual, unquoted: the arguments users are
/// shown, as samples to mutate.
fn shown_arguments(flag: &str) -> Vec<String> {
    let mut pages = vec![format!("{ROOT}/README.md")];
    for dir in ["docs", "docs/reproduction", "docs/validation"] {
        for (name, _) in corpus(dir, ".md") {
            pages.push(format!("{ROOT}/{name}"));
        }
    }
    let mut out: Vec<String> = Vec::new();
    for page in pages {
        let text = std::fs::read_to_string(page).unwrap();
        let words: Vec<&str> = text.split_whitespace().collect();
        for w in words.windows(2).filter(|w| w[0].trim_start_matches(['`', '[']) == flag) {
            let arg = w[1].trim_matches(|c| matches!(c, '`' | '\'' | '"' | ']' | ')' | '.' | ','));
            if !arg.is_empty() && !out.iter().any(|a| a == arg) {
                out.push(arg.to_string());
            }
        }
    }
    assert!(out.len() >= 3, "the manual shows {flag}: {out:?}");
    out
}

/// A machine or workload that was accepted builds and runs a few hundred cycles without a
/// panic (whether the workload fits the machine is the machine's to say).
fn builds_and_runs(config: Config, workload: Arc<Workload>) {
    if let Ok(mut g) = Gpu::new(Arc::new(config), workload) {
        g.run(300);
    }
}

/// How many cases a fuzzer's parser accepted and refused, checked at its end: a fuzzer whose
/// every case was refused (or accepted) would test less than it claims.
#[derive(Default)]
struct Tally {
    accepted: std::sync::atomic::AtomicUsize,
    refused: std::sync::atomic::AtomicUsize,
}

impl Tally {
    fn count<T, E>(&self, r: &Result<T, E>) {
        let n = if r.is_ok() { &self.accepted } else { &self.refused };
        n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn check(&self, what: &str) {
        let (a, r) = (
            self.accepted.load(std::sync::atomic::Ordering::Relaxed),
            self.refused.load(std::sync::atomic::Ordering::Relaxed),
        );
        assert!(a > 0 && r > 0, "{what}: {a} accepted, {r} refused");
    }
}

/// Sample workloads whose inputs take over 100 ms each to generate in the test build (a graph
/// or point set of their default size): read hundreds of times they would take minutes. Their
/// text is read by the same reader as the other benchmarks'.
const SLOW_TO_GENERATE: &[&str] =
    &["lonestar-sssp", "rodinia-bfs.ron", "rodinia-bfs-256k", "rodinia-streamcluster"];

#[test]
fn edits_apply_at_any_position() {
    let text = "(a: 12, b: \"é\")";
    assert_eq!(apply_one(text, &Edit::Number(7, "NaN".into())), "(a: NaN, b: \"é\")");
    assert_eq!(apply_one(text, &Edit::Swap(1, 3)), "(12: a, b: \"é\")");
    assert_eq!(apply_one(text, &Edit::Copy(1, 3)), "(12: 12, b: \"é\")");
    assert_eq!(apply_one(text, &Edit::Delete(2, 3)), "(a2, b: \"é\")");
    assert_eq!(apply_one(text, &Edit::Duplicate(4, 2)), "(a: 1212, b: \"é\")");
    assert_eq!(apply_one(text, &Edit::Truncate(0)), "");
    assert_eq!(apply_one(text, &Edit::Truncate(3)), "(a:");
    assert_eq!(apply_one(text, &Edit::Insert(usize::MAX, "x".into())), "(a: 12, b: \"é\")x");
    assert_eq!(apply_one(text, &Edit::Replace(11, "[".into())), "[a: 12, b: \"é\")");
    assert_eq!(apply_one("", &Edit::Swap(3, 4)), "");
    assert_eq!(apply_one("", &Edit::Number(3, "1".into())), "1");
}

/// Machine files: the shipped machines and the test machines.
#[test]
fn mutated_machine_files() {
    let mut files = corpus("sample-configs", ".ron");
    files.extend(corpus("tests/fixtures", "small.ron"));
    let tiny = workload(TINY, 1);
    let tally = Tally::default();
    proptest!(config(cases::MACHINE_FILES), |(pick in any::<Index>(), e in edits())| {
        let (name, text) = &files[pick.index(files.len())];
        let text = apply(text, &e);
        let r = Config::from_text(&text, Origin::File(name.clone()), &[]);
        tally.count(&r);
        match r {
            Ok(c) => builds_and_runs(c, Arc::clone(&tiny)),
            Err(err) => check_refusal(&err, name, &text)?,
        }
    });
    tally.check("machine files");
}

/// `--set` assignments: those the manual shows, edited, on the small machine. A refusal names
/// the assignment it is about (or the machine file's key the assignment broke).
#[test]
fn mutated_set_assignments() {
    let sets: Vec<String> =
        shown_arguments("--set").into_iter().filter(|s| !s.starts_with("workload.")).collect();
    let small = include_str!("fixtures/small.ron");
    let tiny = workload(TINY, 1);
    let tally = Tally::default();
    proptest!(config(cases::SET_ASSIGNMENTS), |(picks in proptest::collection::vec((any::<Index>(), proptest::option::of(edits())), 1..3))| {
        let given: Vec<String> = picks
            .iter()
            .map(|(i, e)| {
                let s = i.get(&sets);
                e.as_ref().map_or(s.clone(), |e| apply(s, e))
            })
            .collect();
        let r = Config::from_text(small, Origin::File("small.ron".into()), &given);
        tally.count(&r);
        match r {
            Ok(c) => builds_and_runs(c, Arc::clone(&tiny)),
            Err(err) => {
                check_place(&err, small)?;
                match &err.origin {
                    Origin::Override(s) => prop_assert!(given.contains(s), "{} names no assignment of {:?}", err, given),
                    Origin::File(_) => check_refusal(&err, "small.ron", small)?,
                    Origin::Argument(_) => prop_assert!(false, "{}", err),
                }
            }
        }
    });
    tally.check("--set assignments");
}

/// Workload files: the shipped synthetic and benchmark workloads and the test workload, edited,
/// sized by none, one or two of the manual's `--set workload.KNOB=N`, themselves edited or not.
/// A refusal names the file, or the size assignment it is about.
#[test]
fn mutated_workload_files() {
    let mut files = corpus("sample-configs/workloads", ".ron");
    files.retain(|(name, _)| !SLOW_TO_GENERATE.iter().any(|s| name.contains(s)));
    files.extend(corpus("tests/fixtures", "tiny.ron"));
    let sizes: Vec<String> =
        shown_arguments("--set").into_iter().filter(|s| s.starts_with("workload.")).collect();
    let size = (any::<Index>(), proptest::option::weighted(0.3, edits()));
    let sized = prop_oneof![2 => Just(Vec::new()), 1 => proptest::collection::vec(size, 1..3)];
    let machine = small_config(&[]);
    let tally = Tally::default();
    proptest!(config(cases::WORKLOAD_FILES), |(pick in any::<Index>(), e in edits(), picked in sized)| {
        let (name, text) = &files[pick.index(files.len())];
        let text = apply(text, &e);
        let given: Vec<String> = picked
            .iter()
            .map(|(i, e)| {
                let s: &String = i.get(&sizes);
                e.as_ref().map_or(s.clone(), |e| apply(s, e))
            })
            .collect();
        let r = Workload::from_file_text(&text, &Origin::File(name.clone()), &given, 1);
        tally.count(&r);
        match r {
            Ok(w) => builds_and_runs(machine.clone(), Arc::new(w)),
            Err(err) => match &err.origin {
                Origin::Override(s) => {
                    prop_assert!(given.contains(s), "{} names no size of {:?}", err, given);
                    prop_assert!(!err.message.trim().is_empty());
                }
                _ => check_refusal(&err, name, &text)?,
            },
        }
    });
    tally.check("workload files");
}

/// `kernelslist.g`: the test traces' kernel lists, edited, beside their kernels (a list names
/// its kernels relative to itself). A refusal names the list or the file it named.
#[test]
fn mutated_kernel_lists() {
    let dir = tempfile::tempdir().unwrap();
    let mut lists = Vec::new();
    for trace in ["matrixmul-v4", "vectoradd-v5"] {
        let d = dir.path().join(trace);
        std::fs::create_dir(&d).unwrap();
        let src = format!("{ROOT}/tests/fixtures/traces/{trace}");
        std::os::unix::fs::symlink(format!("{src}/kernel-1.traceg"), d.join("kernel-1.traceg")).unwrap();
        lists.push((d, std::fs::read_to_string(format!("{src}/kernelslist.g")).unwrap()));
    }
    let case = std::sync::atomic::AtomicUsize::new(0);
    let tally = Tally::default();
    // A list is three lines, and nearly every edit breaks one: a fifth are read unedited, so
    // that any seed has lists to accept.
    proptest!(config(cases::KERNEL_LISTS), |(pick in any::<Index>(), e in proptest::option::weighted(0.8, edits()))| {
        let (d, text) = &lists[pick.index(lists.len())];
        let text = e.map_or(text.clone(), |e| apply(text, &e));
        let list = d.join(format!("list-{}.g", case.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        std::fs::write(&list, &text).unwrap();
        let r = Workload::load(&list, 1);
        tally.count(&r);
        match r {
            Ok(_) => {}
            Err(err) => {
                let Origin::File(f) = &err.origin else { return Err(TestCaseError::fail(format!("{err}"))) };
                if *f == list.display().to_string() {
                    check_refusal(&err, f, &text)?;
                } else {
                    prop_assert!(Path::new(f).starts_with(d), "{} names a file outside the list's folder", err);
                    prop_assert!(!err.message.is_empty());
                }
            }
        }
    });
    tally.check("kernel lists");
}

/// GPGPU-Sim option files: each shipped set (`gpgpusim.config`, Accel-Sim's `trace.config`,
/// the BookSim `.icnt` file) with one file edited, imported as `config import` imports it. A
/// refusal names one of the files, with the line and column of the option or the key it set.
#[test]
fn mutated_gpgpusim_files() {
    let sets: Vec<Vec<(String, String)>> = ["GTX480", "SM6_TITANX", "SM7_QV100"]
        .iter()
        .map(|m| {
            let dir = format!("tests/fixtures/gpgpusim/{m}");
            let mut files = corpus(&dir, "gpgpusim.config");
            files.extend(corpus(&dir, "trace.config"));
            files.extend(corpus(&dir, ".icnt"));
            files.into_iter().map(|(name, text)| (text, name)).collect()
        })
        .collect();
    let tiny = workload(TINY, 1);
    let tally = Tally::default();
    proptest!(config(cases::GPGPUSIM_FILES), |(pick in any::<Index>(), which in any::<Index>(), e in edits())| {
        let mut files = pick.get(&sets).clone();
        let edited = which.index(files.len());
        files[edited].0 = apply(&files[edited].0, &e);
        let r = warpscope::config::gpgpusim::import(&files);
        tally.count(&r);
        match r {
            Ok(imported) => builds_and_runs(imported.config, Arc::clone(&tiny)),
            Err(err) => {
                let Origin::File(f) = &err.origin else { return Err(TestCaseError::fail(format!("{err}"))) };
                let (text, name) = files.iter().find(|(_, n)| n == f).expect("names one of the files");
                check_refusal(&err, name, text)?;
            }
        }
    });
    tally.check("option files");
}

/// Every debugger command as the manual shows it (`-x` examples) and as the command table
/// writes its synopsis.
fn shown_commands() -> Vec<String> {
    let mut out: Vec<String> = shown_arguments("-x")
        .iter()
        .flat_map(|x| x.split(';').map(|c| c.trim().to_string()).collect::<Vec<_>>())
        .collect();
    // `-x` strings of more than one word were cut at spaces: take them whole from the pages.
    for page in ["README.md", "docs/debugger.md"] {
        let text = std::fs::read_to_string(format!("{ROOT}/{page}")).unwrap();
        for part in text.split("-x \"").skip(1) {
            let x = part.split('"').next().unwrap();
            out.extend(x.split(';').map(|c| c.trim().to_string()));
        }
    }
    out.extend(COMMANDS.iter().map(|c| format!("{} {}", c.name, c.args)));
    out.retain(|c| !c.is_empty());
    out.sort();
    out.dedup();
    out
}

/// The test workload cut to three thread blocks, so that a command that runs the small machine
/// to its end (the debugger keeps no cycle cap) ends in milliseconds.
fn mini_workload() -> String {
    TINY.replace("ctas: 16", "ctas: 2").replace("ctas: 8,", "ctas: 1,")
}

/// Debugger commands: every command the manual shows, edited, run on the small machine after
/// a breakpoint stop. None panics; a refusal says why. (`timeline` and `checkpoint save` write
/// the file they name: they are parsed, not run.)
#[test]
fn mutated_debugger_commands() {
    let commands = shown_commands();
    let machine = small_config(&[]);
    let tiny = workload(&mini_workload(), 1);
    let tally = Tally::default();
    proptest!(config(cases::DEBUGGER_COMMANDS), |(pick in any::<Index>(), e in proptest::option::of(edits()), steps in 0u64..1000)| {
        let c = pick.get(&commands);
        let line = e.map_or(c.clone(), |e| apply(c, &e));
        if matches!(Command::parse(&line), Ok(Command::Timeline { .. } | Command::CheckpointSave(_))) {
            return Ok(());
        }
        let mut s = Session::new(machine.clone(), Arc::clone(&tiny)).unwrap();
        s.execute_blocking(&format!("step {steps}")).unwrap();
        let r = s.execute_blocking(&line);
        tally.count(&r);
        if let Err(message) = r {
            prop_assert!(!message.trim().is_empty(), "{:?} refused without a word", line);
        }
    });
    tally.check("debugger commands");
}

/// `batch --script`: a script of commands from the manual, one of them edited, run by the
/// program in a scratch folder. It ends with 0, or with 2 naming the script and the line of
/// the command the debugger refused, having run none after it (as gdb's batch mode stops).
#[test]
fn mutated_batch_scripts() {
    let commands = shown_commands();
    let dir = tempfile::tempdir().unwrap();
    let case = std::sync::atomic::AtomicUsize::new(0);
    let small = format!("{ROOT}/tests/fixtures/small.ron");
    std::fs::write(dir.path().join("mini.ron"), mini_workload()).unwrap();
    let script = proptest::collection::vec(any::<Index>(), 1..6);
    proptest!(config(cases::BATCH_SCRIPTS), |(picks in script, edited in any::<Index>(), e in edits())| {
        let mut lines: Vec<String> = picks.iter().map(|i| i.get(&commands).clone()).collect();
        let k = edited.index(lines.len());
        lines[k] = apply(&lines[k], &e);
        let name = format!("s{}.wsc", case.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let text = lines.join("\n");
        std::fs::write(dir.path().join(&name), &text).unwrap();
        let out = std::process::Command::new(BIN)
            .current_dir(dir.path())
            .args(["batch", "-c", &small, "-w", "mini.ron", "--script", &name])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        prop_assert!(!err.contains("panicked"), "{}", err);
        if out.status.code() != Some(0) {
            prop_assert_eq!(out.status.code(), Some(2), "{}", err);
            let place = err.strip_prefix(&format!("error: {name}:")).and_then(|r| r.split(':').next());
            let line = place.and_then(|l| l.parse::<usize>().ok());
            prop_assert!(line.is_some_and(|l| l >= 1 && l <= text.split('\n').count()), "{:?}: {}", text, err);
            // Each command run is echoed: those of the lines up to the refused one, no more.
            let echoed = String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.starts_with("(ws) ")).count();
            let ran = text.split('\n').take(line.unwrap_or(0)).filter(|l| !l.split('#').next().unwrap_or("").trim().is_empty()).count();
            prop_assert_eq!(echoed, ran, "{:?}: {}", text, err);
        }
    });
}

/// Layout files: the shipped layouts, edited; what loads is drawn on a terminal of any size.
#[test]
fn mutated_layout_files() {
    use warpscope::tui::{App, Layout, Theme, screenshot};
    let files = corpus("layouts", ".ron");
    let session = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    let app = std::cell::RefCell::new(App::new(
        session,
        Layout::default_layout(),
        PathBuf::from(format!("{ROOT}/layouts")),
        Theme { color: false },
    ));
    let tally = Tally::default();
    proptest!(config(cases::LAYOUT_FILES), |(pick in any::<Index>(), e in edits(), w in 1u16..300, h in 1u16..100)| {
        let (name, text) = &files[pick.index(files.len())];
        let text = apply(text, &e);
        let r = Layout::parse(&text, &Origin::File(name.clone()));
        tally.count(&r);
        match r {
            Ok(layout) => {
                let mut app = app.borrow_mut();
                app.set_layout(layout);
                screenshot::svg(&mut app, w, h);
            }
            Err(err) => check_refusal(&err, name, &text)?,
        }
    });
    tally.check("layout files");
}

/// Sweep grids: the shipped grids, edited, read from where they are (their paths are relative
/// to the grid). A refusal names the grid, or the machine or workload file it named. (The
/// benchmark grids load 18 benchmarks each, seconds a case; the other grids share their reader.)
#[test]
fn mutated_grid_files() {
    let mut files = corpus("sample-configs/sweeps", ".ron");
    files.retain(|(name, _)| !name.contains("/benchmarks"));
    fuzz_specs(&files, cases::GRID_FILES, "grid files", warpscope::batch::sweep::Sweep::from_text);
}

/// Reads each of `files`, edited, with `read` as from where it is, `cases` times: a spec (a
/// grid, a repro or validation spec) is accepted, or refused as [`check_spec_refusal`] asks.
fn fuzz_specs<T>(
    files: &[(String, String)],
    cases: u32,
    what: &str,
    read: impl Fn(&str, &Path) -> Result<T, ConfigError>,
) {
    let tally = Tally::default();
    proptest!(config(cases), |(pick in any::<Index>(), e in edits())| {
        let (name, text) = &files[pick.index(files.len())];
        let text = apply(text, &e);
        let r = read(&text, Path::new(name));
        tally.count(&r);
        if let Err(err) = r {
            check_spec_refusal(&err, name, &text)?;
        }
    });
    tally.check(what);
}

/// A refusal of a spec (a grid, a repro or validation spec) at `name`: it names the spec, in
/// its line and column, or another file the spec names (a machine, a workload) with its own.
fn check_spec_refusal(err: &ConfigError, name: &str, text: &str) -> Result<(), TestCaseError> {
    match &err.origin {
        Origin::File(f) if f == name => {
            prop_assert!(err.position.is_some(), "{} has no line and column", err);
            check_refusal(err, name, text)
        }
        Origin::File(f) => {
            prop_assert!(f.starts_with("sample-configs/") || f.starts_with("tests/"), "{}", err);
            prop_assert!(!err.message.is_empty(), "{}", err);
            Ok(())
        }
        _ => Err(TestCaseError::fail(format!("{err} does not name {name}"))),
    }
}

/// One of `from`, edited or not.
fn edited(from: &[String]) -> impl Strategy<Value = String> {
    let from = from.to_vec();
    (any::<Index>(), proptest::option::of(edits())).prop_map(move |(i, e)| {
        let s = i.get(&from);
        e.map_or(s.clone(), |e| apply(s, &e))
    })
}

/// A refusal of arguments (`given`, each as `--flag value`) names the argument it is about, or
/// for a problem several make together those arguments, as given (an argument may hold ", "),
/// never a `--set` the user did not give.
fn names_given(refusal: &ConfigError, given: &[String]) -> Result<(), TestCaseError> {
    let shown = refusal.to_string();
    prop_assert!(!refusal.message.trim().is_empty(), "{}", shown);
    let Origin::Argument(named) = &refusal.origin else {
        return Err(TestCaseError::fail(format!("{shown} names no argument")));
    };
    let mut rest = named.as_str();
    while let Some(arg) = given.iter().filter(|g| rest.starts_with(g.as_str())).max_by_key(|g| g.len()) {
        rest = rest[arg.len()..].strip_prefix(", ").unwrap_or(&rest[arg.len()..]);
    }
    prop_assert!(rest.is_empty(), "{} names no argument of {:?}", shown, given);
    Ok(())
}

/// The arguments as given on the command line: `--flag value` each.
fn flagged(flag: &str, values: &[String]) -> impl Iterator<Item = String> {
    values.iter().map(move |v| format!("{flag} {v}"))
}

/// `diff --a` and `--b`: the manual's `--set` assignments, edited or not, for each machine on
/// the small one. A refusal names the flag and the argument exactly as given.
#[test]
fn mutated_diff_settings() {
    use warpscope::batch::diff::{machines, versus};
    let sets: Vec<String> =
        shown_arguments("--set").into_iter().filter(|s| !s.starts_with("workload.")).collect();
    let base = small_config(&[]);
    let side = || proptest::collection::vec(edited(&sets), 0..3);
    let tally = Tally::default();
    proptest!(config(cases::DIFF_SETTINGS), |((a, b) in (side(), side()))| {
        let r = machines(&base, &a, &b);
        tally.count(&r);
        if let Err(refusal) = r {
            names_given(&refusal, &flagged("--a", &a).chain(flagged("--b", &b)).collect::<Vec<_>>())?;
        }
        // The debugger's second machine takes the same settings after `--vs`.
        if let Err(refusal) = versus(&base, &b) {
            names_given(&refusal, &flagged("--vs", &b).collect::<Vec<_>>())?;
        }
    });
    tally.check("diff --a and --b");
}

/// `--vary` and `--variant`: the arguments the manual shows, edited, on the small machine. A
/// refusal names the flag and its argument, also when the machine refuses the assignment it
/// made (it was reported as a `--set`).
#[test]
fn mutated_vary_arguments() {
    use warpscope::batch::compare::{configs, named_variants};
    let varies = shown_arguments("--vary");
    let named = shown_arguments("--variant");
    let base = small_config(&[]);
    let args =
        (proptest::collection::vec(edited(&varies), 0..3), proptest::collection::vec(edited(&named), 0..2));
    let tally = Tally::default();
    proptest!(config(cases::VARY_ARGUMENTS), |((vary, variant) in args)| {
        let r = named_variants(&variant, &vary).and_then(|v| configs(&base, &v));
        tally.count(&r);
        if let Err(refusal) = r {
            names_given(&refusal, &flagged("--vary", &vary).chain(flagged("--variant", &variant)).collect::<Vec<_>>())?;
        }
    });
    tally.check("--vary and --variant");
}

/// `compare --workloads FILE`: lists of names and paths, duplicates, blank lines and comments
/// among them, edited. A list is accepted only with each workload once; a refusal names the
/// file and a line inside it (a duplicate, both lines) or the flag (an empty list).
#[test]
fn mutated_workload_lists() {
    use warpscope::batch::compare::workload_list;
    let items: Vec<String> = ["atax", "bicg", "w/a.ron", "k.traceg", "", "# a comment", "atax  # again"]
        .map(String::from)
        .to_vec();
    let dir = tempfile::tempdir().unwrap();
    let case = std::sync::atomic::AtomicUsize::new(0);
    let tally = Tally::default();
    let list = (proptest::collection::vec(any::<Index>(), 1..7), proptest::option::of(edits()));
    proptest!(config(cases::WORKLOAD_LISTS), |((picks, e) in list)| {
        let text: String = picks.iter().map(|i| i.get(&items).clone() + "\n").collect();
        let text = e.map_or(text.clone(), |e| apply(&text, &e));
        let path = dir.path().join(format!("l{}.txt", case.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        std::fs::write(&path, &text).unwrap();
        let r = workload_list(&path);
        tally.count(&r);
        match r {
            Ok(list) => {
                prop_assert!(!list.is_empty());
                for (i, w) in list.iter().enumerate() {
                    prop_assert!(!list[..i].contains(w), "{} listed twice in {:?}", w, text);
                }
            }
            Err(refusal) => {
                let shown = refusal.to_string();
                match &refusal.origin {
                    Origin::File(f) => {
                        prop_assert_eq!(f, &path.display().to_string());
                        let (line, _) = refusal.position.expect("a duplicate has a line");
                        prop_assert!(line >= 1 && line <= text.lines().count(), "{}", shown);
                        prop_assert!(shown.contains("is listed twice (first on line "), "{}", shown);
                    }
                    Origin::Argument(a) => prop_assert!(a.starts_with("--workloads ") && shown.contains("lists no workload"), "{}", shown),
                    _ => return Err(TestCaseError::fail(shown)),
                }
            }
        }
    });
    tally.check("workload lists");
}

/// `--baseline`: a variant's name from the manual's `--vary` lists, edited or not, against
/// those variants. It is accepted exactly when it is one of their names, else refused naming
/// the flag, the name given and every variant.
#[test]
fn mutated_baselines() {
    use warpscope::batch::compare::variants;
    use warpscope::batch::speedup::baseline_index;
    let varies: Vec<String> =
        shown_arguments("--vary").into_iter().filter(|v| variants(std::slice::from_ref(v)).is_ok()).collect();
    let tally = Tally::default();
    proptest!(config(cases::BASELINES), |(vary in any::<Index>(), pick in any::<Index>(), e in proptest::option::of(edits()))| {
        let names: Vec<String> = variants(&[vary.get(&varies).clone()]).unwrap().into_iter().map(|v| v.name).collect();
        let name = pick.get(&names).clone();
        let name = e.map_or(name.clone(), |e| apply(&name, &e));
        let r = baseline_index("--baseline", &name, &names);
        tally.count(&r);
        match r {
            Ok(i) => prop_assert_eq!(&names[i], &name),
            Err(refusal) => {
                prop_assert!(!names.contains(&name));
                let shown = refusal.to_string();
                prop_assert!(shown.contains(&format!("--baseline {name}: names no variant")), "{}", shown);
                for n in &names {
                    prop_assert!(shown.contains(&format!("`{n}`")), "{}", shown);
                }
            }
        }
    });
    tally.check("--baseline");
}

/// `run --series PATH --every N` and `--progress-every N`: an interval of 0 or a series file in
/// a directory that does not exist is refused before anything runs (exit 2, naming the flag);
/// anything else runs and writes the series.
#[test]
fn run_series_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let small = format!("{ROOT}/tests/fixtures/small.ron");
    std::fs::write(dir.path().join("mini.ron"), mini_workload()).unwrap();
    let case = std::sync::atomic::AtomicUsize::new(0);
    let interval = prop_oneof![Just(0u64), Just(1u64), 1u64..u64::MAX];
    proptest!(config(cases::RUN_OUTPUT_ARGUMENTS), |(every in interval.clone(), progress in interval, missing: bool)| {
        let n = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let series = if missing { format!("no-such-dir/s{n}.csv") } else { format!("s{n}.csv") };
        let out = std::process::Command::new(BIN)
            .current_dir(dir.path())
            .args(["run", "-c", &small, "-w", "mini.ron", "--max-cycles", "300", "--series", &series])
            .args(["--every", &every.to_string(), "--progress-every", &progress.to_string()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        prop_assert!(!err.contains("panicked"), "{}", err);
        if missing || every == 0 || progress == 0 {
            prop_assert_eq!(out.status.code(), Some(2), "{}", err);
            let named = if missing { format!("--series {series}") } else if every == 0 { "--every 0".into() } else { "--progress-every 0".into() };
            prop_assert!(err.contains(&named), "{} does not name {}", err, named);
            prop_assert!(!dir.path().join(&series).exists());
        } else {
            prop_assert_eq!(out.status.code(), Some(0), "{}", err);
            let text = std::fs::read_to_string(dir.path().join(&series)).unwrap();
            let end: u64 = text.lines().last().unwrap().split(',').nth(1).unwrap().parse().unwrap();
            prop_assert!(end > 0 && end <= 300, "{}", text);
            prop_assert_eq!((text.lines().count() - 1) as u64, end.div_ceil(every), "a row per interval of {}", every);
        }
    });
}

/// Repro specs: the test spec, edited (the seeds' specs load whole benchmark sets, too slow
/// to load hundreds of times; they share its reader).
#[test]
fn mutated_repro_specs() {
    let files = corpus("tests/fixtures/repro", ".ron");
    fuzz_specs(&files, cases::REPRO_SPECS, "repro specs", warpscope::batch::repro::Repro::from_text);
}

/// Validation specs: the shipped studies, edited.
#[test]
fn mutated_validation_specs() {
    let files = corpus("sample-configs/validation", ".ron");
    fuzz_specs(
        &files,
        cases::VALIDATION_SPECS,
        "validation specs",
        warpscope::batch::validate::spec::Study::from_text,
    );
}

/// Endless input files, the class of `dram --trace /dev/zero` (issue 37.1): every file the
/// program reads, named as the kind of file it expects but an endless stream, is refused
/// within seconds with exit code 2 and a message naming it — never read until memory runs out.
#[test]
fn endless_input_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let zero = |name: &str| {
        std::os::unix::fs::symlink("/dev/zero", d.join(name)).unwrap();
        name.to_string()
    };
    let cases: Vec<(String, Vec<String>)> = vec![
        (zero("m.ron"), vec!["run".into(), "-c".into(), "m.ron".into()]),
        (zero("w.ron"), vec!["run".into(), "-w".into(), "w.ron".into()]),
        (zero("kernelslist.g"), vec!["run".into(), "-w".into(), "kernelslist.g".into()]),
        (zero("kernel-1.traceg"), vec!["run".into(), "-w".into(), "kernel-1.traceg".into()]),
        (zero("grid.ron"), vec!["sweep".into(), "grid.ron".into(), "--csv".into(), "out.csv".into()]),
        (zero("spec.ron"), vec!["repro".into(), "spec.ron".into(), "--out".into(), "out".into()]),
        (zero("study.ron"), vec!["validate".into(), "study.ron".into()]),
        (zero("gpgpusim.config"), vec!["config".into(), "import".into(), "gpgpusim.config".into()]),
        (zero("s.wsc"), vec!["batch".into(), "--script".into(), "s.wsc".into()]),
        (zero("t.trace"), vec!["dram".into(), "--trace".into(), "t.trace".into()]),
        (
            zero("r.jsonl"),
            vec!["sweep".into(), "--merge".into(), "r.jsonl".into(), "--json".into(), "m.jsonl".into()],
        ),
    ];
    let runs: Vec<_> = cases
        .into_iter()
        .map(|(file, args)| {
            let child = std::process::Command::new(BIN)
                .current_dir(d)
                .args(&args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (file, args, child)
        })
        .collect();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    for (file, args, mut child) in runs {
        while child.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{args:?} still reading after a minute");
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with(&format!("error: {file}")), "{args:?}: {err}");
    }
}

/// Sweep results files (read by `--merge`, by a resumed sweep and by `repro`): the first lines
/// of shipped studies' stored runs, edited, merged into a new file. A refusal names the file
/// and the line.
#[test]
fn mutated_results_files() {
    use warpscope::batch::sweep::merge;
    let mut files: Vec<(String, String)> = Vec::new();
    for study in ["seed-001", "seed-002", "seed-004-oaws"] {
        let name = format!("docs/repro/{study}/results.jsonl");
        let text = std::fs::read_to_string(format!("{ROOT}/{name}")).unwrap();
        files.push((name, text.lines().take(2).map(|l| format!("{l}\n")).collect()));
    }
    let dir = tempfile::tempdir().unwrap();
    let case = std::sync::atomic::AtomicUsize::new(0);
    let tally = Tally::default();
    proptest!(config(cases::RESULT_FILES), |(pick in any::<Index>(), e in edits())| {
        let (_, text) = &files[pick.index(files.len())];
        let text = apply(text, &e);
        let n = case.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (input, out) = (dir.path().join(format!("r{n}.jsonl")), dir.path().join(format!("m{n}.jsonl")));
        std::fs::write(&input, &text).unwrap();
        let r = merge(&out, std::slice::from_ref(&input));
        tally.count(&r);
        if let Err(e) = r {
            let err = e.downcast_ref::<ConfigError>().ok_or_else(|| TestCaseError::fail(format!("{e:#}: not bad input")))?;
            check_refusal(err, &input.display().to_string(), &text)?;
        }
    });
    tally.check("results files");
}
