//! `warpscope config import`: a GPGPU-Sim 3.x/4.x `gpgpusim.config` (and Accel-Sim's
//! `trace.config` after it) as a warpscope machine.
//!
//! The option files are read in order, a later file overriding an earlier one as GPGPU-Sim's
//! repeated `-config` does ([`options`]); each option the machine can represent becomes a
//! config key with a comment naming the option and the file and line it came from
//! ([`translate`]), and the keys are written as a RON machine that is then loaded like any
//! config, so what `run` accepts is what the import wrote. Options the machine cannot represent
//! come back as notes, printed as a warning and kept in the file's header; nothing is dropped
//! silently. A BookSim network file (`-inter_config_file`) may be given among them; it is
//! recognised by its `name = value;` statements ([`booksim`]).

mod booksim;
mod cache;
mod options;
mod translate;

use super::{Config, ConfigError, Origin};
use std::path::Path;
use translate::{Key, Translation};
pub use translate::{NO_TIMING_EFFECT, Note};

/// A finished import.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The machine as RON text, with comments.
    pub ron: String,
    /// The machine it describes.
    pub config: Config,
    /// Options not (fully) represented, by line.
    pub notes: Vec<Note>,
    /// Files that gave no option (empty, or only comments): each leaves GPGPU-Sim's defaults.
    pub empty: Vec<String>,
}

/// Imports option files, given as (text, path) in order (the first path is also where the
/// machine's name comes from: the directory of a `gpgpusim.config`, else the file's stem).
pub fn import(files: &[(String, String)]) -> Result<Imported, ConfigError> {
    let mut opts = std::collections::BTreeMap::new();
    let mut empty = Vec::new();
    for (text, file) in files {
        let read = if booksim::is_booksim(text) { booksim::read } else { options::read };
        if read(text, file, &mut opts)? == 0 {
            empty.push(file.clone());
        }
    }
    let t = translate::translate(&opts)?;
    let first = files.first().map_or("", |(_, f)| f.as_str());
    let name = machine_name(first);
    let names: Vec<&str> = files.iter().map(|(_, f)| f.as_str()).collect();
    let ron = write_ron(&name, &names, &t);
    let config = Config::from_text(&ron, Origin::File(format!("{first} (imported)")), &[]).map_err(|e| {
        // Point at the GPGPU-Sim option the offending key came from.
        let from =
            t.keys.iter().rev().find(|k| e.key == k.path || e.key.starts_with(&format!("{}.", k.path)));
        ConfigError {
            origin: Origin::File(first.to_string()),
            position: None,
            key: e.key.clone(),
            message: match from {
                Some(k) => format!("{} (from {}): warpscope cannot simulate this machine", e.message, k.from),
                None => format!("{}: warpscope cannot simulate this machine", e.message),
            },
        }
    })?;
    Ok(Imported { ron, config, notes: t.notes, empty })
}

fn machine_name(file: &str) -> String {
    let p = Path::new(file);
    let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let dir = p.parent().and_then(|d| d.file_name()).map(|d| d.to_string_lossy().into_owned());
    match dir {
        Some(d) if stem == "gpgpusim" => d,
        _ => stem,
    }
}

/// A file's name without its directory.
fn base_name(file: &str) -> String {
    Path::new(file).file_name().map_or(file.into(), |f| f.to_string_lossy().into_owned())
}

/// Writes the keys as nested RON structs in the order they were set, each with its source.
fn write_ron(name: &str, files: &[&str], t: &Translation) -> String {
    let sources: Vec<String> = files.iter().map(|f| base_name(f)).collect();
    let mut out = format!(
        "// Imported from GPGPU-Sim's {} by `warpscope config import` (a later file overriding an\n// earlier one); each key names the option, file and line it came from. Keys not listed keep\n// warpscope's defaults (its built-in gtx480-sc14 machine).\n",
        sources.join(" and ")
    );
    for (title, notes) in [
        ("Not represented in this machine", &t.notes),
        ("As warpscope always models it (no key needed)", &t.agreed),
    ] {
        if !notes.is_empty() {
            out.push_str(&format!("//\n// {title}:\n"));
            for line in Note::lines(notes, base_name) {
                out.push_str(&format!("//   {line}\n"));
            }
        }
    }
    out.push_str(&format!("(\n    name: {name:?},\n"));
    write_level(&mut out, &t.keys, "", 1);
    out.push_str(")\n");
    out
}

/// Writes the keys under `prefix` at indentation `depth`, sub-structs in first-seen order.
fn write_level(out: &mut String, keys: &[Key], prefix: &str, depth: usize) {
    let pad = "    ".repeat(depth);
    let mut seen: Vec<&str> = Vec::new();
    for k in keys {
        let Some(rest) = k.path.strip_prefix(prefix) else { continue };
        let head = rest.split('.').next().unwrap_or(rest);
        if seen.contains(&head) {
            continue;
        }
        seen.push(head);
        if rest.contains('.') {
            out.push_str(&format!("{pad}{head}: (\n"));
            write_level(out, keys, &format!("{prefix}{head}."), depth + 1);
            out.push_str(&format!("{pad}),\n"));
        } else {
            // The last assignment of a key wins, as in the option file.
            let k = keys.iter().rev().find(|x| x.path == k.path).expect("present");
            out.push_str(&format!("{pad}{head}: {}, // {}\n", k.value, k.from));
        }
    }
}
