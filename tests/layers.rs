//! The layers point one way (docs/design.md): config ← workload ← sim ← debug ← {tui, batch},
//! and the command line above them all. A file may name only its own top-level folder and the
//! folders below it — through `crate::…` or a `super::` chain that climbs out of its folder —
//! and tui and batch do not use each other.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Top-level folders by layer; a folder may use only lower layers (and itself).
const LAYERS: &[(&str, u32)] =
    &[("config", 0), ("workload", 1), ("sim", 2), ("debug", 3), ("tui", 4), ("batch", 4)];

fn rank(folder: &str) -> Option<u32> {
    LAYERS.iter().find(|(f, _)| *f == folder).map(|(_, r)| *r)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `src/` (`src/sim/dram/mod.rs` → `["sim", "dram"]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a line without its `//` comment.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// Top-level folders a file names: `crate::x` and `super::` chains that leave the crate root's
/// child the file lives in.
fn named_folders(module: &[String], text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = code(line);
        for (i, _) in line.match_indices("crate::") {
            let before = line[..i].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let name: String =
                line[i + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.push((n + 1, name));
        }
        for (i, _) in line.match_indices("super::") {
            if line[..i].ends_with("super::") {
                continue;
            }
            let mut rest = &line[i..];
            let mut k = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                k += 1;
                rest = r;
            }
            // A file's own module counts as one level (`super` of `sim::dram::bank` is `sim::dram`);
            // inline `mod tests` blocks add one, which only makes the chain stay inside.
            if k >= module.len() {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.push((n + 1, name));
            }
        }
    }
    out
}

#[test]
fn no_file_imports_against_the_layers() {
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let module = module_of(rel);
        let Some(top) = module.first() else { continue };
        let Some(own) = rank(top) else { continue };
        let text = std::fs::read_to_string(f).unwrap();
        for (line, folder) in named_folders(&module, &text) {
            let Some(theirs) = rank(&folder) else { continue };
            if folder != *top && theirs >= own {
                wrong.push(format!("src/{}:{line}: {top} uses {folder}", rel.display()));
            }
        }
    }
    assert!(files.len() > 50, "read the sources ({} files)", files.len());
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}

#[test]
fn the_scanner_finds_what_it_should() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let found = named_folders(
        &m("config::validate"),
        "use crate::sim::cache::index::requirement;\n// crate::tui in a comment\nlet x = super::super::batch::run();\n",
    );
    assert_eq!(found, [(1, "sim".to_string()), (3, "batch".to_string())]);
    assert!(
        named_folders(&m("sim::dram::bank"), "use super::super::event::Event;").is_empty(),
        "stays in sim"
    );
}
