//! Reading a BookSim network file, GPGPU-Sim's `-inter_config_file` under `-network_mode 1`
//! (Accel-Sim's SM6_TITANX names `config_pascal_islip.icnt`): `name = value;` statements, `//`
//! comments to the end of the line. Its options join the GPGPU-Sim ones under the prefix
//! [`PREFIX`], so the translation reads them, and notes those it does not represent, the same way.

use super::options::{Opt, error};
use crate::config::ConfigError;
use std::collections::BTreeMap;

/// Prefix of a BookSim option's name among the GPGPU-Sim ones (`booksim:input_buffer_size`).
pub const PREFIX: &str = "booksim:";

/// The text without its `//` comments, line by line.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.find("//").map_or(l, |c| &l[..c])))
}

/// Whether `text` is a BookSim file: its first statement is `name = ...`, where a GPGPU-Sim
/// option file's first word is an option (`-name`) or a `#` comment.
pub fn is_booksim(text: &str) -> bool {
    let Some((_, first)) = lines(text).find(|(_, l)| !l.trim().is_empty()) else {
        return false;
    };
    first.split_once('=').is_some_and(|(name, _)| is_name(name.trim()))
}

fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Adds the statements of a BookSim file to `opts` (a later one wins); returns how many it gave.
pub fn read(text: &str, file: &str, opts: &mut BTreeMap<String, Opt>) -> Result<usize, ConfigError> {
    // Statements end at `;` and may span lines; a value's position is where its text starts.
    let mut read = 0;
    let mut statement = String::new();
    let mut start: Option<(usize, usize)> = None;
    for (line, text) in lines(text) {
        for (i, c) in text.char_indices() {
            if c == ';' {
                let (l, col) = start.take().unwrap_or((line, i + 1));
                add(&statement, file, l, col, opts)?;
                statement.clear();
                read += 1;
            } else {
                if start.is_none() && !c.is_whitespace() {
                    start = Some((line, i + 1));
                }
                statement.push(c);
            }
        }
        statement.push('\n');
    }
    if let Some((l, col)) = start {
        return Err(error(
            file,
            l,
            col,
            "",
            "this BookSim statement has no closing `;` (it reads `name = value;`)",
        ));
    }
    Ok(read)
}

fn add(
    statement: &str,
    file: &str,
    line: usize,
    col: usize,
    opts: &mut BTreeMap<String, Opt>,
) -> Result<(), ConfigError> {
    let expected = "expected a BookSim statement such as `input_buffer_size = 256;`";
    let Some((name, value)) = statement.split_once('=') else {
        return Err(error(file, line, col, "", &format!("{expected}, found `{}`", statement.trim())));
    };
    let (name, value) = (name.trim(), value.trim());
    if !is_name(name) || value.is_empty() {
        return Err(error(file, line, col, "", &format!("{expected}, found `{}`", statement.trim())));
    }
    let name = format!("{PREFIX}{name}");
    opts.insert(name.clone(), Opt { name, value: value.to_string(), file: file.to_string(), line, col });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ICNT: &str = "//21*1 fly\nuse_map = 0;\nflit_size = 40; // bytes\n\n\
                        packet_size ={{1,2,3,4},\n  {10,20}};\ninput_buffer_size = 256;\n";

    #[test]
    fn statements_comments_and_lists() {
        assert!(is_booksim(ICNT));
        assert!(!is_booksim("# GPGPU-Sim\n-network_mode 1\n-inter_config_file a.icnt\n"));
        assert!(!is_booksim("-gpgpu_dram_timing_opt \"nbk=16:CCD=2\"\n"));
        let mut o = BTreeMap::new();
        assert_eq!(read(ICNT, "a.icnt", &mut o).unwrap(), 4);
        let b = &o["booksim:input_buffer_size"];
        assert_eq!((b.value.as_str(), b.line, b.col), ("256", 7, 1));
        assert_eq!(o["booksim:packet_size"].value, "{{1,2,3,4},\n  {10,20}}");
        assert_eq!(o["booksim:flit_size"].value, "40");
    }

    #[test]
    fn malformed_statements_name_the_position() {
        let mut o = BTreeMap::new();
        let e = read("a = 1;\n  stray;\n", "a.icnt", &mut o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.icnt:2:3: expected a BookSim statement such as `input_buffer_size = 256;`, found `stray`"
        );
        let e = read("a = 1;\nb = 2\n", "a.icnt", &mut o).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.icnt:2:1: this BookSim statement has no closing `;` (it reads `name = value;`)"
        );
        let e = read("a = ;\n", "a.icnt", &mut o).unwrap_err();
        assert!(e.to_string().starts_with("a.icnt:1:1: expected a BookSim statement"), "{e}");
    }
}
