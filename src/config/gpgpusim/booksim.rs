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

/// The cycles a one-flit packet takes from its injection to the ejection buffer at zero load,
/// for the network Accel-Sim's files build: one router (`topology = fly; n = 1`) with
/// lookahead routing (`routing_delay = 0`, the route worked out at injection), one-cycle VC
/// and switch allocation and `internal_speedup` of at least 2 (the router steps twice a cycle,
/// so both allocations finish in the cycle the flit arrives), and BookSim's one-cycle crossbar
/// (`st_prepare_delay` 0, `st_final_delay` 1) and channels. Injected at cycle t onto the
/// injection channel, the flit reaches the router at t + 2, crosses the switch onto the
/// ejection channel at t + 3 and enters the ejection buffer at t + 5 (`GPUTrafficManager::_Step`,
/// `IQRouter::_InternalStep`): 5 cycles, the minimum network latency the peer's own
/// statistics report on SM6_TITANX. `None` for any other pipeline, which is not derived.
pub fn zero_load_latency(opts: &BTreeMap<String, Opt>) -> Option<u64> {
    let value = |name: &str| opts.get(&format!("{PREFIX}{name}")).map(|o| o.value.trim());
    let is = |name: &str, want: &str| value(name) == Some(want);
    let default_or = |name: &str, want: &str| value(name).is_none_or(|v| v == want);
    let speedup = value("internal_speedup").and_then(|v| v.parse::<f64>().ok());
    let derived = is("topology", "fly")
        && is("n", "1")
        && is("routing_delay", "0")
        && is("vc_alloc_delay", "1")
        && is("sw_alloc_delay", "1")
        && speedup.is_some_and(|s| s >= 2.0)
        && default_or("st_prepare_delay", "0")
        && default_or("st_final_delay", "1");
    derived.then_some(5)
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

    /// Accel-Sim's pipeline is derived; a change to any stage of it is not.
    #[test]
    fn the_single_router_pipeline_takes_five_cycles() {
        let pascal = "topology = fly;\nk = 52;\nn = 1;\nrouting_delay = 0;\nvc_alloc_delay = 1;\n\
                      sw_alloc_delay = 1;\ninternal_speedup = 2.0;\n";
        let mut o = BTreeMap::new();
        read(pascal, "a.icnt", &mut o).unwrap();
        assert_eq!(zero_load_latency(&o), Some(5));
        for other in [
            "n = 2;",
            "routing_delay = 1;",
            "sw_alloc_delay = 2;",
            "internal_speedup = 1.0;",
            "st_final_delay = 2;",
        ] {
            let mut changed = o.clone();
            read(other, "b.icnt", &mut changed).unwrap();
            assert_eq!(zero_load_latency(&changed), None, "{other}");
        }
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
