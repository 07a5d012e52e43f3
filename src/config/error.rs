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

/// Reads a whole text file; failing, an error naming it. A leading UTF-8 byte-order mark,
/// which some editors write, is dropped: it is no part of the text, and left in it would be read
/// as a stray character before the first key or option.
pub fn read_file(path: &std::path::Path) -> Result<String, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::cannot_read(&path.display().to_string(), &e))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}
