//! Writing result files and directories atomically: a temporary one next to the target, then a
//! rename, so a reader never sees half a report or half a trace. `-` means standard output; a
//! device or FIFO is written through, and a symbolic link is followed, never replaced.

pub mod paths;

use crate::config::ConfigError;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Checks, before any work, that `target` (given with `flag`) can be written: `-`, or a path
/// whose directory exists and that is not itself a directory. The error names the path as the
/// user gave it.
pub fn check_target(flag: &str, target: &str) -> Result<(), ConfigError> {
    if target == "-" {
        return Ok(());
    }
    let path = Path::new(target);
    if path.is_dir() || target.ends_with('/') {
        return Err(argument_error(flag, target, "is a directory; give a file path".into()));
    }
    let written = paths::written_as(path);
    if written.as_path() != path {
        if written.is_dir() {
            return Err(argument_error(
                flag,
                target,
                format!("links to the directory `{}`; give a file path", written.display()),
            ));
        }
        if let Some(dir) = written.parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
            return Err(argument_error(
                flag,
                target,
                format!("is a symbolic link into `{}`, a directory that does not exist", dir.display()),
            ));
        }
    }
    check_parent(flag, target)
}

/// Checks, before any work, that the directory `target` (given as `flag`) can be written by an
/// [`AtomicDir`]: its parent exists, and it does not exist, or is an empty directory, or any
/// directory when `replace` (`--force`) is given.
pub fn check_dir_target(flag: &str, target: &str, replace: bool) -> Result<(), ConfigError> {
    let path = Path::new(target);
    if path.file_name().is_none() {
        return Err(argument_error(flag, target, "expected a directory path ending in a name".into()));
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.is_dir() {
            return Err(argument_error(flag, target, "exists and is not a directory".into()));
        }
        let mut entries = std::fs::read_dir(path)
            .map_err(|e| argument_error(flag, target, format!("cannot read the existing directory: {e}")))?;
        if !replace && entries.next().is_some() {
            return Err(argument_error(
                flag,
                target,
                "exists and is not empty; pass --force (or --overwrite) to replace it".into(),
            ));
        }
    }
    check_parent(flag, target)
}

/// The directory `target` is written in must exist.
fn check_parent(flag: &str, target: &str) -> Result<(), ConfigError> {
    match Path::new(target).parent().filter(|d| !d.as_os_str().is_empty() && !d.is_dir()) {
        Some(d) => Err(argument_error(
            flag,
            target,
            format!("cannot be written: the directory `{}` does not exist (create it first)", d.display()),
        )),
        None => Ok(()),
    }
}

/// A problem with an output path given on the command line (exit code 2).
fn argument_error(flag: &str, target: &str, message: String) -> ConfigError {
    let origin = if flag.is_empty() { target.to_string() } else { format!("{flag} {target}") };
    ConfigError::argument(origin, message)
}

/// Quotes a CSV field when needed (a comma, a quote, a line break, or spaces at either end).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes `text` to `target` (`-` = stdout) atomically.
pub fn write_atomic(target: &str, text: &str) -> Result<()> {
    write_bytes_atomic(target, text.as_bytes())
}

/// Writes `bytes` (a checkpoint) to `target` (`-` = stdout) atomically.
pub fn write_bytes_atomic(target: &str, bytes: &[u8]) -> Result<()> {
    let mut out = Output::open(target)?;
    out.write_all(bytes)?;
    out.finish()
}

/// A streamed output: standard output, a device or FIFO written through, or a file that
/// appears only when finished. A failed write (a full disk, a closed pipe) names the output.
pub struct Output {
    /// The path as given, or "standard output".
    name: String,
    sink: Sink,
}

enum Sink {
    Stdout(std::io::BufWriter<std::io::Stdout>),
    Special(std::io::BufWriter<std::fs::File>),
    File(AtomicFile),
}

impl Output {
    /// `-` is standard output; anything else a file path. An existing path that is neither a
    /// file nor a directory (`/dev/null`, a FIFO) is opened and written, not replaced.
    pub fn open(target: &str) -> Result<Output> {
        if target == "-" {
            let sink = Sink::Stdout(std::io::BufWriter::new(std::io::stdout()));
            return Ok(Output { name: "standard output".into(), sink });
        }
        let path = Path::new(target);
        let sink = if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("{target}: cannot open for writing"))?;
            Sink::Special(std::io::BufWriter::new(file))
        } else {
            Sink::File(AtomicFile::create(path)?)
        };
        Ok(Output { name: target.to_string(), sink })
    }

    /// Flushes, and renames a file into place.
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        match self.sink {
            Sink::File(f) => f.commit(),
            Sink::Stdout(_) | Sink::Special(_) => Ok(()),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Stdout(w) => w,
            Sink::Special(w) => w,
            Sink::File(f) => f,
        }
    }

    /// `e` with the output's name.
    fn named(&self, e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("{}: cannot write: {e}", self.name))
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer().write(buf).map_err(|e| self.named(e))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer().flush().map_err(|e| self.named(e))
    }
}

/// A file written under a temporary name and renamed into place on [`AtomicFile::commit`].
pub struct AtomicFile {
    tmp: std::path::PathBuf,
    target: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl AtomicFile {
    /// Starts the file that will replace `target`, or the file `target` links to.
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let target = &paths::written_as(target);
        let name = target.file_name().with_context(|| format!("{}: not a file path", target.display()))?;
        let tmp = target.with_file_name(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
        let file =
            std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", target.display()))?;
        Ok(AtomicFile { tmp, target: target.to_path_buf(), out: std::io::BufWriter::new(file) })
    }

    pub fn commit(mut self) -> Result<()> {
        self.out.flush()?;
        std::fs::rename(&self.tmp, &self.target)
            .with_context(|| format!("{}: cannot write", self.target.display()))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// A directory written under a temporary name beside its target and renamed into place on
/// [`AtomicDir::commit`]; dropped uncommitted, it is removed with everything in it.
pub struct AtomicDir {
    tmp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl AtomicDir {
    /// Creates the temporary directory beside `target`, which [`check_dir_target`] has checked.
    pub fn create(target: &Path) -> Result<AtomicDir> {
        let name =
            target.file_name().with_context(|| format!("{}: not a directory path", target.display()))?;
        let tmp = target.with_file_name(format!(".{}.tmp-{}", name.to_string_lossy(), std::process::id()));
        std::fs::create_dir(&tmp).with_context(|| format!("{}: cannot create", target.display()))?;
        Ok(AtomicDir { tmp, target: target.to_path_buf(), committed: false })
    }

    /// The temporary directory to write into.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Moves the written directory into place, replacing the target's old contents.
    pub fn commit(mut self) -> Result<()> {
        let old = self.target.with_file_name(format!(
            ".{}.old-{}",
            self.target.file_name().expect("checked at create").to_string_lossy(),
            std::process::id()
        ));
        let had_old = self.target.exists();
        if had_old {
            std::fs::rename(&self.target, &old)
                .with_context(|| format!("{}: cannot move the old directory aside", self.target.display()))?;
        }
        if let Err(e) = std::fs::rename(&self.tmp, &self.target) {
            if had_old {
                let _ = std::fs::rename(&old, &self.target);
            }
            return Err(e).with_context(|| format!("{}: cannot write", self.target.display()));
        }
        self.committed = true;
        if had_old {
            std::fs::remove_dir_all(&old)
                .with_context(|| format!("{}: cannot remove the replaced directory", old.display()))?;
        }
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}
