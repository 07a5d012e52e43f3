//! A command's files checked together before any work (issue 37.3): no output may replace one
//! of the command's inputs, and no two outputs may name the same file, however the paths are
//! spelled (`x` and `./x`, a symbolic link or a hard link to it).

use super::{argument_error, check_target};
use crate::config::ConfigError;
use std::path::{Path, PathBuf};

/// What a path names on disk, for telling whether two paths are one file.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// `-`: standard output (for an output) or input.
    Standard,
    /// A file that exists: its device and inode, which every spelling and link shares.
    Existing(u64, u64),
    /// A file still to be made: its directory, links resolved, and its name.
    Planned(PathBuf),
    /// A device or FIFO: written through, so several outputs may share one (`/dev/null`).
    Special,
}

/// The identity of `path`, or `None` when it names nothing a file could be written as (a
/// built-in name given where a file is optional, a path in a directory that does not exist).
fn identity(path: &str) -> Option<Identity> {
    if path == "-" {
        return Some(Identity::Standard);
    }
    let p = Path::new(path);
    match std::fs::metadata(p) {
        Ok(meta) if meta.is_file() => Some(existing(&meta)),
        Ok(meta) if meta.is_dir() => None,
        Ok(_) => Some(Identity::Special),
        Err(_) => {
            let p = &written_as(p);
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let dir = std::fs::canonicalize(dir).ok()?;
            Some(Identity::Planned(dir.join(p.file_name()?)))
        }
    }
}

#[cfg(unix)]
fn existing(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity::Existing(meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn existing(_: &std::fs::Metadata) -> Identity {
    Identity::Special
}

/// Checks each output as [`check_target`] does, then that no output is one of `inputs` and no
/// two outputs are one file. Each entry is the flag and the path as the user gave them; `None`
/// is a flag not given.
pub fn check_paths<'a>(
    outputs: &[(&'a str, Option<&'a str>)],
    inputs: &[(&'a str, Option<&'a str>)],
) -> Result<(), ConfigError> {
    let given = |list: &[(&'a str, Option<&'a str>)]| -> Vec<(&'a str, &'a str)> {
        list.iter().filter_map(|&(f, p)| p.map(|p| (f, p))).collect()
    };
    let outputs = given(outputs);
    for (flag, path) in &outputs {
        check_target(flag, path)?;
    }
    // `-` reads standard input and writes standard output: an input there is never an output.
    let inputs: Vec<(&str, &str, Identity)> = given(inputs)
        .into_iter()
        .filter_map(|(f, p)| identity(p).filter(|id| *id != Identity::Standard).map(|id| (f, p, id)))
        .collect();
    let ids: Vec<Option<Identity>> = outputs.iter().map(|(_, p)| identity(p)).collect();
    for (i, (flag, path)) in outputs.iter().enumerate() {
        let Some(id) = ids[i].as_ref().filter(|id| **id != Identity::Special) else { continue };
        if let Some((in_flag, in_path, _)) = inputs.iter().find(|(_, _, input)| input == id) {
            return Err(argument_error(
                flag,
                path,
                format!(
                    "is the same file as the input `{in_path}` ({}); writing it would replace what the command reads — give the output another path",
                    given_as(in_flag)
                ),
            ));
        }
        if let Some(j) = (0..i).find(|&j| ids[j].as_ref() == Some(id)) {
            let (other_flag, other_path) = &outputs[j];
            let what = if *id == Identity::Standard {
                "also writes to standard output; send one of them to a file".to_string()
            } else {
                format!("is the same file as `{other_flag} {other_path}`; give each output its own path")
            };
            return Err(argument_error(flag, path, what));
        }
    }
    Ok(())
}

/// How an input was given: its flag, or its place among the command's arguments.
fn given_as(flag: &str) -> String {
    if flag.starts_with('-') { format!("given with {flag}") } else { format!("the {flag}") }
}

/// The file an output to `target` is written as: the file a symbolic link points to, through
/// a chain of links, so each link stays a link (issue 37.3); `target` itself otherwise. The
/// file need not exist yet.
pub fn written_as(target: &Path) -> PathBuf {
    let mut path = target.to_path_buf();
    // As the kernel does, give up on a chain longer than 40 links; writing then fails plainly.
    for _ in 0..40 {
        let Ok(to) = std::fs::read_link(&path) else { break };
        path = match path.parent() {
            Some(dir) if to.is_relative() => dir.join(to),
            _ => to,
        };
    }
    path
}
