//! The layers point one way (docs/design.md): config ← {workload, output} ← sim ← debug ←
//! {tui, batch}, and the command line above them all. A file may name only its own top-level folder and the
//! folders below it — through `crate::…` or a `super::` chain that climbs out of its folder —
//! and tui and batch do not use each other. Within the crate no two files import each other,
//! directly or round a circle.

mod common;

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Top-level folders by layer; a folder may use only lower layers (and itself).
const LAYERS: &[(&str, u32)] =
    &[("config", 0), ("workload", 1), ("output", 1), ("sim", 2), ("debug", 3), ("tui", 4), ("batch", 4)];

fn rank(folder: &str) -> Option<u32> {
    LAYERS.iter().find(|(f, _)| *f == folder).map(|(_, r)| *r)
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
    let files = common::rust_files(&src);
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

/// Module paths a file's `use` and paths name (`crate::a::b::{c, d::e}`, `super::x`), each as
/// written from the crate root; `{…}` groups expand to one path per member.
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let text: String = text.lines().map(code).collect::<Vec<_>>().join("\n");
    let mut at = 0;
    while let Some(i) = text[at..].find(['c', 's']).map(|i| at + i) {
        at = i + 1;
        if text[..i].chars().last().is_some_and(|c| ident(c) || c == ':') {
            continue;
        }
        let rest = &text[i..];
        let (mut base, mut tail) = if let Some(r) = rest.strip_prefix("crate::") {
            (Vec::new(), r)
        } else if rest.starts_with("super::") {
            let mut r = rest;
            let mut k = 0;
            while let Some(x) = r.strip_prefix("super::") {
                k += 1;
                r = x;
            }
            (module[..module.len().saturating_sub(k)].to_vec(), r)
        } else {
            continue;
        };
        loop {
            let name: String = tail.chars().take_while(|&c| ident(c)).collect();
            if name.is_empty() {
                break;
            }
            base.push(name.clone());
            tail = &tail[name.len()..];
            match tail.strip_prefix("::") {
                Some(t) => tail = t,
                None => break,
            }
        }
        if let Some(group) = tail.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for member in group.split(',') {
                let member = member.split(" as ").next().unwrap_or("").trim();
                if member.is_empty() || member == "self" {
                    continue;
                }
                let mut p = base.clone();
                p.extend(member.split("::").map(String::from));
                out.push(p);
            }
        }
        out.push(base);
    }
    out
}

/// Import cycles between files (strongly connected groups of two or more), each sorted. A file
/// naming its own ancestors (a child module using its parent's items) is not counted.
fn import_cycles() -> Vec<Vec<String>> {
    let src = Path::new(ROOT).join("src");
    let files = common::rust_files(&src);
    let modules: Vec<Vec<String>> =
        files.iter().map(|f| module_of(f.strip_prefix(&src).unwrap())).filter(|m| m != &["main"]).collect();
    let index_of =
        |path: &[String]| (1..=path.len()).rev().find_map(|n| modules.iter().position(|m| m == &path[..n]));
    let edges: Vec<Vec<usize>> = modules
        .iter()
        .map(|m| {
            let file = files.iter().find(|f| &module_of(f.strip_prefix(&src).unwrap()) == m).unwrap();
            let text = std::fs::read_to_string(file).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            let mut to: Vec<usize> = named_paths(m, text)
                .iter()
                .filter_map(|p| index_of(p))
                .filter(|&j| !m.starts_with(&modules[j]))
                .collect();
            to.sort_unstable();
            to.dedup();
            to
        })
        .collect();
    // Kosaraju: finish order on the graph, then components on its transpose.
    let n = modules.len();
    let mut order = Vec::new();
    let mut seen = vec![false; n];
    for s in 0..n {
        let mut stack = vec![(s, 0usize)];
        if seen[s] {
            continue;
        }
        seen[s] = true;
        while let Some((v, i)) = stack.pop() {
            if let Some(&w) = edges[v].get(i) {
                stack.push((v, i + 1));
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                order.push(v);
            }
        }
    }
    let mut back = vec![Vec::new(); n];
    for (v, to) in edges.iter().enumerate() {
        for &w in to {
            back[w].push(v);
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut cycles = Vec::new();
    for &s in order.iter().rev() {
        if comp[s] != usize::MAX {
            continue;
        }
        let mut members = vec![s];
        comp[s] = s;
        let mut k = 0;
        while k < members.len() {
            for &w in &back[members[k]] {
                if comp[w] == usize::MAX {
                    comp[w] = s;
                    members.push(w);
                }
            }
            k += 1;
        }
        if members.len() > 1 {
            let mut names: Vec<String> = members.iter().map(|&v| modules[v].join("::")).collect();
            names.sort();
            cycles.push(names);
        }
    }
    cycles.sort();
    cycles
}

#[test]
fn no_import_cycles_between_files() {
    assert_eq!(
        import_cycles(),
        Vec::<Vec<String>>::new(),
        "import cycles between files (a child using its parent module does not count)"
    );
}

#[test]
fn the_path_scanner_expands_groups_and_climbs_supers() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let found = named_paths(
        &m("sim::core::ldst"),
        "use super::sm::{Sm, access::ctx as c};\nuse crate::sim::l1::L1;\nlet a = super::super::cache::AccessCtx::of_warp();\n",
    );
    let want: Vec<Vec<String>> = [
        "sim::core::sm::Sm",
        "sim::core::sm::access::ctx",
        "sim::core::sm",
        "sim::l1::L1",
        "sim::cache::AccessCtx::of_warp",
    ]
    .iter()
    .map(|s| m(s))
    .collect();
    assert_eq!(found, want);
}
