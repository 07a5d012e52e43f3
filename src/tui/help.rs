//! The help screen's lines: every key (from the key table) and every command (from the
//! command table).

use super::keymap::BINDINGS;
use crate::debug::command::COMMANDS;

/// The help screen: every key (from the key table) and command (from the command table).
pub fn help_lines() -> Vec<String> {
    let mut out = vec!["Keys".to_string()];
    for b in BINDINGS {
        let keys = b.keys.iter().map(|k| k.label()).collect::<Vec<_>>().join(" / ");
        out.push(format!("  {keys:<28} {}", b.help));
    }
    out.push(String::new());
    out.push("Commands (after :, any unambiguous prefix; Enter on an empty line repeats)".into());
    for c in COMMANDS {
        let names = std::iter::once(c.name).chain(c.aliases.iter().copied()).collect::<Vec<_>>().join(", ");
        out.push(format!("  {:<24} {:<26} {}", names, c.args, c.help));
    }
    out.push(String::new());
    out.push("More: :help break, :help watch, :help show".into());
    out
}
