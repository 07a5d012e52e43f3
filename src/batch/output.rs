//! Writing result files atomically: a temporary file next to the target, then a rename, so a
//! reader never sees half a report. `-` means standard output.

use crate::config::{ConfigError, Origin};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// Checks, before any work, that `target` (given with `flag`) can be written: `-`, or a path
/// whose directory exists and that is not itself a directory. The error names the path as the
/// user gave it.
pub fn check_target(flag: &str, target: &str) -> Result<(), ConfigError> {
    if target == "-" {
        return Ok(());
    }
    let path = Path::new(target);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let problem = if path.is_dir() || target.ends_with('/') {
        Some("is a directory; give a file path".to_string())
    } else {
        dir.filter(|d| !d.is_dir()).map(|d| {
            format!("cannot be written: the directory `{}` does not exist (create it first)", d.display())
        })
    };
    match problem {
        Some(message) => Err(ConfigError {
            origin: Origin::Argument(format!("{flag} {target}")),
            position: None,
            key: String::new(),
            message,
        }),
        None => Ok(()),
    }
}

/// Writes `text` to `target` (`-` = stdout) atomically.
pub fn write_atomic(target: &str, text: &str) -> Result<()> {
    let mut out = Output::open(target)?;
    out.write_all(text.as_bytes())?;
    out.finish()
}

/// A streamed output: standard output, or a file that appears only when finished.
pub enum Output {
    Stdout(std::io::BufWriter<std::io::Stdout>),
    File(AtomicFile),
}

impl Output {
    /// `-` is standard output; anything else a file path.
    pub fn open(target: &str) -> Result<Output> {
        Ok(if target == "-" {
            Output::Stdout(std::io::BufWriter::new(std::io::stdout()))
        } else {
            Output::File(AtomicFile::create(Path::new(target))?)
        })
    }

    /// Flushes, and renames a file into place.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut w) => Ok(w.flush()?),
            Output::File(f) => f.commit(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

/// A file written under a temporary name and renamed into place on [`AtomicFile::commit`].
pub struct AtomicFile {
    tmp: std::path::PathBuf,
    target: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl AtomicFile {
    pub fn create(target: &Path) -> Result<AtomicFile> {
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
