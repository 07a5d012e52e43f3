//! Config and workload errors for people: file, line:column, key path, what would be valid.

use super::locate::{self, line_col, parse_path};
use std::fmt;

/// Where a piece of configuration text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file (path as the user gave it).
    File(String),
    /// A `--set key=value` argument.
    Override(String),
    /// Another command-line argument, flag and value as given (`--shard 4/4`).
    Argument(String),
}

/// A configuration problem, printed as `file:line:col: key: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub origin: Origin,
    /// 1-based line and column, when known.
    pub position: Option<(usize, usize)>,
    /// Dotted key path (`l1.sets`), empty when the error is not about one key.
    pub key: String,
    pub message: String,
}

/// A semantic problem with one key of an otherwise well-formed config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub key: String,
    pub message: String,
}

impl ConfigError {
    /// A command-line argument (`origin`: the flag and its value, or what it names) that is
    /// bad input, and why.
    pub fn argument(origin: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError {
            origin: Origin::Argument(origin.into()),
            position: None,
            key: String::new(),
            message: message.into(),
        }
    }

    /// A file that could not be read (or opened), and why.
    pub fn cannot_read(file: &str, e: &std::io::Error) -> ConfigError {
        ConfigError {
            origin: Origin::File(file.to_string()),
            position: None,
            key: String::new(),
            message: format!("cannot read: {e}"),
        }
    }

    /// Wraps a serde/ron error, adding the key path and the list of valid keys where serde only
    /// says "unknown field".
    pub(crate) fn from_serde(origin: &Origin, key: String, e: ron::error::SpannedError) -> ConfigError {
        let message = match (&e.code, expected_value(&key)) {
            (ron::Error::NoSuchStructField { expected, found, .. }, _) => {
                format!("unknown key `{found}`; valid keys here: {}", expected.join(", "))
            }
            // ron's own words ("invalid std identifier") would mislead here.
            (_, Some(expected)) => format!("expected {expected}"),
            (other, None) => other.to_string(),
        };
        ConfigError {
            origin: origin.clone(),
            position: Some((e.span.start.line, e.span.start.col)),
            key,
            message,
        }
    }

    /// Points a semantic issue at the `--set` that caused it, or at its key in the file.
    pub(crate) fn at_key(text: &str, origin: &Origin, sets: &[String], issue: Issue) -> ConfigError {
        if let Some(arg) = sets.iter().rev().find(|s| {
            let k = s.split('=').next().unwrap_or("");
            issue.key == k
                || issue.key.starts_with(&format!("{k}."))
                || k.starts_with(&format!("{}.", issue.key))
        }) {
            return ConfigError {
                origin: Origin::Override(arg.clone()),
                position: None,
                key: issue.key,
                message: issue.message,
            };
        }
        let mut e = error_at_path(text, origin, &issue.key, &issue.message);
        if e.position.is_none() {
            e.message.push_str(" (this is the default value; set it in the file)");
        }
        e
    }
}

/// What a value at `key` should look like, where serde's message would not say it well.
fn expected_value(key: &str) -> Option<&'static str> {
    if key.starts_with("dram.timing.") || key.starts_with("dram.refresh.") {
        Some("a timing value: Ns(<nanoseconds>) or Ck(<DRAM cycles>), e.g. Ns(12.0) or Ck(4)")
    } else {
        None
    }
}

/// An error about the key at `path` of `text`, positioned at the key when it is in the text.
pub fn error_at_path(text: &str, origin: &Origin, path: &str, message: &str) -> ConfigError {
    let position =
        parse_path(path).and_then(|p| locate::locate(text, &p)).map(|l| line_col(text, l.key_offset));
    ConfigError { origin: origin.clone(), position, key: path.to_string(), message: message.to_string() }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.origin {
            Origin::File(file) => {
                write!(f, "{file}")?;
                if let Some((l, c)) = self.position {
                    write!(f, ":{l}:{c}")?;
                }
            }
            Origin::Override(arg) => write!(f, "--set {arg}")?,
            Origin::Argument(arg) => write!(f, "{arg}")?,
        }
        if !self.key.is_empty() {
            write!(f, ": {}", self.key)?;
        }
        // "l1.sets = 0: must be ..." reads better than "l1.sets: = 0: ...".
        if self.message.starts_with("= ") && !self.key.is_empty() {
            write!(f, " {}", self.message)
        } else {
            write!(f, ": {}", self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

/// The longest text file warpscope reads whole, in bytes: machines, workloads, grids, specs,
/// layouts, option files, scripts and kernel lists are written by hand or by a tool in
/// kilobytes (a kernel list of 10,000 kernels is 200 KB). A longer file is refused once this
/// much is read, so an endless one (`-c /dev/zero`) ends in an error, not in all of memory
/// (issue 37.1, the class of `dram --trace /dev/zero`).
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// Reads a whole text file of at most [`MAX_TEXT_BYTES`]; failing, an error naming it.
pub fn read_file(path: &std::path::Path) -> Result<String, ConfigError> {
    read_text(path, MAX_TEXT_BYTES)
}

/// Reads a whole text file of at most `max_bytes`; failing, an error naming it (and the line
/// and column of a byte that is not UTF-8). A leading UTF-8 byte-order mark, which some editors
/// write, is dropped: it is no part of the text, and left in it would be read as a stray
/// character before the first key or option.
pub fn read_text(path: &std::path::Path, max_bytes: u64) -> Result<String, ConfigError> {
    use std::io::Read;
    let file = path.display().to_string();
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max_bytes + 1).read_to_end(&mut bytes))
        .map_err(|e| ConfigError::cannot_read(&file, &e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(ConfigError {
            origin: Origin::File(file),
            position: None,
            key: String::new(),
            message: format!(
                "is longer than {} MB, more than a file of this kind holds (is it the right file?)",
                max_bytes >> 20
            ),
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // The text up to the bad byte is valid, so its lines and columns are.
        let (line, col) = line_col(std::str::from_utf8(valid).unwrap_or_default(), valid.len());
        ConfigError {
            origin: Origin::File(file.clone()),
            position: Some((line, col)),
            key: String::new(),
            message: format!(
                "expected text (UTF-8), found the byte 0x{:02x}",
                e.as_bytes()[e.utf8_error().valid_up_to()]
            ),
        }
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}
