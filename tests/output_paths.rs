//! No command replaces a file the user did not name as its output (issue 37.3), generated as a
//! class: commands whose input and output slots are filled from a pool of spellings of a few
//! files (the same path, `./` and `dir/..` forms, a symbolic link, a hard link, a new file,
//! standard output, `/dev/null`). After each command every file keeps its content unless an
//! output names it, every input keeps its content whatever happened, links stay links, and a
//! refusal exits 2 naming the flag.

mod common;

use common::cases;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Spellings of the files in the scratch directory: `cfg.ron` (a machine), `wl.ron` (a
/// workload), `g.config` (GPGPU-Sim options), `req.trace` (DRAM requests), links to them, and
/// names of files that do not exist yet.
const POOL: &[&str] = &[
    "cfg.ron",
    "./cfg.ron",
    "sub/../cfg.ron",
    "cfg-link.ron",
    "cfg-hard.ron",
    "wl.ron",
    "wl-link.ron",
    "g.config",
    "req.trace",
    "new-a",
    "./new-a",
    "new-b",
    "out-link",
    "-",
    "/dev/null",
];

/// A command with its inputs fixed and its output slots (flag, index into [`POOL`]) to fill.
#[derive(Debug, Clone)]
struct Case {
    args: Vec<String>,
    inputs: Vec<&'static str>,
    outputs: Vec<(&'static str, &'static str)>,
}

fn case() -> impl Strategy<Value = Case> {
    let pick = || proptest::sample::select(POOL);
    let machine_in = proptest::sample::select(&["cfg.ron", "cfg-link.ron", "./cfg.ron"][..]);
    let workload_in = proptest::sample::select(&["wl.ron", "wl-link.ron"][..]);
    (0..5usize, machine_in, workload_in, pick(), pick(), pick()).prop_map(|(kind, c, w, o1, o2, o3)| {
        let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        match kind {
            0 => Case {
                args: s(&["run", "-c", c, "-w", w, "--max-cycles", "50", "-q"]),
                inputs: vec![c, w],
                outputs: vec![("--json", o1), ("--dram-trace", o2)],
            },
            1 => Case {
                args: s(&[
                    "compare",
                    "-c",
                    c,
                    "-w",
                    w,
                    "--max-cycles",
                    "50",
                    "--vary",
                    "dram.scheduler=fcfs,frfcfs",
                ]),
                inputs: vec![c, w],
                outputs: vec![("--csv", o1), ("--json", o2), ("--svg", o3)],
            },
            2 => Case {
                args: s(&["config", "import", "g.config"]),
                inputs: vec!["g.config"],
                outputs: vec![("--output", o1)],
            },
            3 => Case {
                args: s(&["dram", "-c", c, "--trace", "req.trace", "-q"]),
                inputs: vec![c, "req.trace"],
                outputs: vec![("--json", o1), ("--dram-trace", o2)],
            },
            _ => Case {
                args: s(&["timeline", "-c", c, "-w", w, "--from", "0", "--to", "40"]),
                inputs: vec![c, w],
                outputs: vec![("--out", o1)],
            },
        }
    })
}

/// Every entry of the scratch directory: its content, or where it links.
fn snapshot(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let meta = std::fs::symlink_metadata(&p).unwrap();
        let what = if meta.file_type().is_symlink() {
            format!("link to {}", std::fs::read_link(&p).unwrap().display())
        } else if meta.is_dir() {
            "directory".into()
        } else {
            std::fs::read_to_string(&p).unwrap_or_else(|_| "binary".into())
        };
        files.insert(name, what);
    }
    files
}

/// The scratch directory's entry a path spelling ends at (links followed), if any.
fn entry(dir: &Path, spelling: &str) -> Option<String> {
    let real = std::fs::canonicalize(dir.join(spelling)).ok()?;
    (real.parent()? == std::fs::canonicalize(dir).ok()?)
        .then(|| real.file_name().unwrap().to_string_lossy().into())
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(Path::new(ROOT).join("tests/fixtures/small.ron"), d.join("cfg.ron")).unwrap();
    std::fs::copy(Path::new(ROOT).join("tests/fixtures/tiny.ron"), d.join("wl.ron")).unwrap();
    std::fs::write(d.join("g.config"), "-gpgpu_n_clusters 2\n-gpgpu_n_mem 2\n").unwrap();
    std::fs::write(d.join("req.trace"), "0x0 R\n0x80 W 3\n0x1000 R 9\n").unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::os::unix::fs::symlink("cfg.ron", d.join("cfg-link.ron")).unwrap();
    std::os::unix::fs::symlink("wl.ron", d.join("wl-link.ron")).unwrap();
    std::os::unix::fs::symlink("new-b", d.join("out-link")).unwrap();
    std::fs::hard_link(d.join("cfg.ron"), d.join("cfg-hard.ron")).unwrap();
    dir
}

proptest! {
    #![proptest_config(cases::config(cases::OUTPUT_PATHS))]

    #[test]
    fn no_command_replaces_a_file_it_was_not_told_to_write(c in case()) {
        let dir = scratch();
        let d = dir.path();
        let before = snapshot(d);
        let mut args = c.args.clone();
        for (flag, path) in &c.outputs {
            args.push(flag.to_string());
            args.push(path.to_string());
        }
        let out = Command::new(BIN).args(&args).current_dir(d).output().unwrap();
        let code = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let after = snapshot(d);
        // Files an output names (the hard link shares the machine's content: both may change).
        let mut named: Vec<String> = c.outputs.iter().filter_map(|(_, p)| entry(d, p)).collect();
        if named.iter().any(|n| n == "cfg.ron" || n == "cfg-hard.ron") {
            named.extend(["cfg.ron".to_string(), "cfg-hard.ron".to_string()]);
        }
        let inputs: Vec<String> = c.inputs.iter().filter_map(|p| entry(d, p)).collect();
        for (name, was) in &before {
            let now = after.get(name);
            prop_assert!(now.is_some(), "{args:?} removed {name}: {stderr}");
            if now != Some(was) {
                prop_assert!(!was.starts_with("link to"), "{args:?} replaced the link {name}");
                prop_assert!(named.contains(name), "{args:?} changed {name}, which no output names: {stderr}");
                prop_assert!(!inputs.contains(name), "{args:?} replaced its input {name}");
            }
        }
        for name in after.keys().filter(|n| !before.contains_key(*n)) {
            prop_assert!(named.contains(name), "{args:?} left {name} behind: {stderr}");
        }
        prop_assert!(code == 0 || code == 2, "{args:?} exited {code}: {stderr}");
        if code == 0 {
            for (flag, path) in c.outputs.iter().filter(|(_, p)| !["-", "/dev/null"].contains(p)) {
                prop_assert!(entry(d, path).is_some(), "{args:?}: {flag} {path} was not written");
            }
        }
        if code == 2 {
            prop_assert!(c.outputs.iter().any(|(f, p)| stderr.contains(&format!("error: {f} {p}"))), "{args:?}: {stderr}");
        }
    }
}

/// The rules the generated cases rest on, one case each: what is refused and why, and what is
/// written where.
#[test]
fn outputs_onto_inputs_or_each_other_are_refused_and_links_are_written_through() {
    let dir = scratch();
    let d = dir.path();
    let ws = |args: &[&str]| {
        let out = Command::new(BIN).args(args).current_dir(d).output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let run = ["run", "-c", "cfg.ron", "-w", "wl.ron", "--max-cycles", "50", "-q"];
    let with = |more: &[&'static str]| [&run[..], more].concat();
    let (code, err) = ws(&with(&["--json", "cfg-hard.ron"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("error: --json cfg-hard.ron: is the same file as the input `cfg.ron` (given with -c)"),
        "{err}"
    );
    let (code, err) = ws(&with(&["--json", "sub/../new-a", "--dram-trace", "new-a"]));
    assert_eq!(code, 2);
    assert!(err.contains("error: --dram-trace new-a: is the same file as `--json sub/../new-a`"), "{err}");
    let (code, err) = ws(&with(&["--json", "-", "--dram-trace", "-"]));
    assert_eq!(code, 2);
    assert!(err.contains("error: --dram-trace -: also writes to standard output"), "{err}");
    let (code, err) = ws(&["config", "import", "g.config", "-o", "./g.config"]);
    assert_eq!(code, 2);
    assert!(err.contains("as the input `g.config` (the option file)"), "{err}");
    std::os::unix::fs::symlink("missing/x", d.join("dangling")).unwrap();
    let (code, err) = ws(&with(&["--json", "dangling"]));
    assert_eq!(code, 2);
    assert!(
        err.contains("is a symbolic link into `")
            && err.contains("missing`, a directory that does not exist"),
        "{err}"
    );
    // A link is followed, a device written through, and both outputs may be /dev/null.
    let (code, err) = ws(&with(&["--json", "out-link", "--dram-trace", "/dev/null"]));
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(d.join("out-link")).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(d.join("new-b")).unwrap().contains("\"cycles\""));
    let (code, err) = ws(&with(&["--json", "/dev/null", "--dram-trace", "/dev/null"]));
    assert_eq!(code, 0, "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null").unwrap().file_type().is_char_device(),
        "/dev/null is still a device"
    );
}
