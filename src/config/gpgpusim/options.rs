//! Reading GPGPU-Sim option files (`gpgpusim.config`, Accel-Sim's `trace.config`): `-name value`
//! pairs separated by white space, `#` comments to the end of the line, and values in double
//! quotes that may span lines (the DRAM timing string usually does). A later occurrence of an
//! option replaces an earlier one, in the same file or a later one, as GPGPU-Sim's option
//! parser does with repeated `-config` files.

use crate::config::{ConfigError, Origin};
use std::collections::BTreeMap;

/// One option as written in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    /// The name without its leading `-` (`gpgpu_n_clusters`).
    pub name: String,
    /// The value, without quotes.
    pub value: String,
    /// The file it is in, and the 1-based line and column of the value.
    pub file: String,
    pub line: usize,
    pub col: usize,
}

/// A word of the file and where it starts.
struct Token {
    text: String,
    line: usize,
    col: usize,
    quoted: bool,
}

fn tokens(text: &str, file: &str) -> Result<Vec<Token>, ConfigError> {
    let mut out = Vec::new();
    let (mut line, mut col) = (1, 1);
    let mut chars = text.chars().peekable();
    let advance = |c: char, line: &mut usize, col: &mut usize| {
        if c == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
    };
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            advance(c, &mut line, &mut col);
        } else if c == '#' {
            while let Some(&c) = chars.peek() {
                if c == '\n' {
                    break;
                }
                chars.next();
                advance(c, &mut line, &mut col);
            }
        } else if c == '"' {
            let (l0, c0) = (line, col);
            chars.next();
            advance(c, &mut line, &mut col);
            let mut word = String::new();
            loop {
                match chars.next() {
                    Some('"') => {
                        advance('"', &mut line, &mut col);
                        break;
                    }
                    Some(c) => {
                        advance(c, &mut line, &mut col);
                        word.push(c);
                    }
                    None => {
                        return Err(error(file, l0, c0, "", "this quoted value has no closing `\"`"));
                    }
                }
            }
            out.push(Token { text: word, line: l0, col: c0, quoted: true });
        } else {
            let (l0, c0) = (line, col);
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '#' {
                    break;
                }
                word.push(c);
                chars.next();
                advance(c, &mut line, &mut col);
            }
            out.push(Token { text: word, line: l0, col: c0, quoted: false });
        }
    }
    Ok(out)
}

/// An error at a position of the option file, about `option` (may be empty).
pub fn error(file: &str, line: usize, col: usize, option: &str, message: &str) -> ConfigError {
    ConfigError {
        origin: Origin::File(file.to_string()),
        position: Some((line, col)),
        key: option.to_string(),
        message: message.to_string(),
    }
}

/// Adds the options of a file to `opts` by name (the last occurrence of each wins); returns how
/// many options the file gave.
pub fn read(text: &str, file: &str, opts: &mut BTreeMap<String, Opt>) -> Result<usize, ConfigError> {
    let mut words = tokens(text, file)?.into_iter();
    let mut read = 0;
    while let Some(t) = words.next() {
        let name = match t.text.strip_prefix('-') {
            Some(n) if !t.quoted && !n.is_empty() => n.to_string(),
            _ => {
                return Err(error(
                    file,
                    t.line,
                    t.col,
                    "",
                    &format!("expected an option such as `-gpgpu_n_clusters 15`, found `{}`", t.text),
                ));
            }
        };
        let v = match words.next() {
            None => return Err(error(file, t.line, t.col, &format!("-{name}"), "has no value")),
            // An option name on a later line is the next option, not this one's value (a
            // negative number is a value: `-` then a digit).
            Some(v) if v.line > t.line && !v.quoted && is_option_name(&v.text) => {
                return Err(error(
                    file,
                    t.line,
                    t.col,
                    &format!("-{name}"),
                    &format!("has no value before the next option, `{}` on line {}", v.text, v.line),
                ));
            }
            Some(v) => v,
        };
        opts.insert(
            name.clone(),
            Opt { name, value: v.text, file: file.to_string(), line: v.line, col: v.col },
        );
        read += 1;
    }
    Ok(read)
}

/// Whether a word reads as an option's name: `-` then a letter or `_`.
fn is_option_name(word: &str) -> bool {
    word.strip_prefix('-').and_then(|n| n.chars().next()).is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_one(text: &str, file: &str) -> Result<BTreeMap<String, Opt>, ConfigError> {
        let mut o = BTreeMap::new();
        read(text, file, &mut o).map(|_| o)
    }

    #[test]
    fn options_comments_quotes_and_repeats() {
        let text = "# a comment\n-gpgpu_n_clusters 15 # trailing\n-gpgpu_dram_timing_opt \"nbk=16:CCD=2:\n   CL=12\"\n-gpgpu_n_clusters 14\n";
        let mut o = read_one(text, "g.config").unwrap();
        assert_eq!(o["gpgpu_n_clusters"].value, "14", "the last occurrence wins");
        assert_eq!((o["gpgpu_n_clusters"].line, o["gpgpu_n_clusters"].col), (5, 19));
        assert_eq!(o["gpgpu_dram_timing_opt"].value, "nbk=16:CCD=2:\n   CL=12");
        assert_eq!(o["gpgpu_dram_timing_opt"].line, 3);
        // A later file overrides, and each option remembers its file.
        read("-gpgpu_n_clusters 80\n-trace_opcode_latency_initiation_int 2,2\n", "trace.config", &mut o)
            .unwrap();
        assert_eq!(
            (o["gpgpu_n_clusters"].value.as_str(), o["gpgpu_n_clusters"].file.as_str()),
            ("80", "trace.config")
        );
        assert_eq!(
            (o["gpgpu_dram_timing_opt"].file.as_str(), o["trace_opcode_latency_initiation_int"].line),
            ("g.config", 2)
        );
    }

    #[test]
    fn malformed_files_name_the_position() {
        let e = read_one("-a 1\nstray 2\n", "g.config").unwrap_err();
        assert_eq!(
            e.to_string(),
            "g.config:2:1: expected an option such as `-gpgpu_n_clusters 15`, found `stray`"
        );
        let e = read_one("-a 1\n-b\n", "g.config").unwrap_err();
        assert_eq!(e.to_string(), "g.config:2:1: -b: has no value");
        let e = read_one("-gpgpu_n_mem\n-gpgpu_n_clusters 4\n", "g.config").unwrap_err();
        assert_eq!(
            e.to_string(),
            "g.config:1:1: -gpgpu_n_mem: has no value before the next option, `-gpgpu_n_clusters` on line 2"
        );
        // A negative number on the next line is a value.
        assert_eq!(read_one("-a\n-1\n", "g.config").unwrap()["a"].value, "-1");
        let e = read_one("-t \"nbk=16:\n", "g.config").unwrap_err();
        assert_eq!(e.to_string(), "g.config:1:4: this quoted value has no closing `\"`");
    }
}
