//! `warpscope config import`: a GPGPU-Sim 3.x/4.x `gpgpusim.config` as a warpscope machine.
//!
//! The option file is read ([`options`]), each option it can represent becomes a config key
//! with a comment naming the option it came from ([`translate`]), and the keys are written as
//! a RON machine that is then loaded like any config, so what `run` accepts is what the import
//! wrote. Options the machine cannot represent come back as notes, printed as a warning and
//! kept in the file's header; nothing is dropped silently.

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
}

/// Imports the option text of `file` (the path is also where the machine's name comes from:
/// the directory of a `gpgpusim.config`, else the file's stem).
pub fn import(text: &str, file: &str) -> Result<Imported, ConfigError> {
    let opts = options::read(text, file)?;
    let t = translate::translate(&opts, file)?;
    let name = machine_name(file);
    let ron = write_ron(&name, file, &t);
    let config = Config::from_text(&ron, Origin::File(format!("{file} (imported)")), &[]).map_err(|e| {
        // Point at the GPGPU-Sim option the offending key came from.
        let from =
            t.keys.iter().rev().find(|k| e.key == k.path || e.key.starts_with(&format!("{}.", k.path)));
        ConfigError {
            origin: Origin::File(file.to_string()),
            position: None,
            key: e.key.clone(),
            message: match from {
                Some(k) => format!("{} (from {}): warpscope cannot simulate this machine", e.message, k.from),
                None => format!("{}: warpscope cannot simulate this machine", e.message),
            },
        }
    })?;
    Ok(Imported { ron, config, notes: t.notes })
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

/// Writes the keys as nested RON structs in the order they were set, each with its source.
fn write_ron(name: &str, file: &str, t: &Translation) -> String {
    let source = Path::new(file).file_name().map_or(file.into(), |f| f.to_string_lossy().into_owned());
    let mut out = format!(
        "// Imported from GPGPU-Sim's {source} by `warpscope config import`; each key names the\n// option it came from. Keys not listed keep warpscope's defaults (its built-in gtx480-sc14 machine).\n"
    );
    if !t.notes.is_empty() {
        out.push_str("//\n// Not represented in this machine:\n");
        for n in &t.notes {
            out.push_str(&format!("//   line {}: {} — {}\n", n.line, n.option, n.reason));
        }
    }
    if !t.agreed.is_empty() {
        out.push_str("//\n// As warpscope always models it (no key needed):\n");
        for n in &t.agreed {
            out.push_str(&format!("//   line {}: {} — {}\n", n.line, n.option, n.reason));
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
