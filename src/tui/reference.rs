//! The debugger's reference page (`docs/debugger-reference.md`), generated from the tables the
//! program itself reads: the key table that also feeds the help screen, the command table, the
//! event catalogue, the view catalogue and the machine-state paths of expressions. A test
//! rewrites the page when it differs, so it cannot fall behind the program.

use super::keymap::BINDINGS;
use crate::debug::command::COMMANDS;
use crate::debug::state::PATHS;
use crate::debug::views::VIEWS;
use crate::sim::EventKind;

/// `s` with `|` escaped for a markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The page.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Debugger reference\n\n\
         <!-- Generated from the program's own tables by `cargo test` (tests/docs.rs): edit src/tui/keymap.rs, \
         src/debug/command.rs, src/sim/event.rs, src/debug/views/catalogue.rs or src/debug/state.rs. -->\n\n\
         How to use them: [the debugger](debugger.md). Inside warpscope, `?` (TUI) and `help`, `help break`,\n\
         `help watch`, `help show` print the same tables.\n\n\
         ## Keys\n\n| keys | what they do |\n|---|---|\n",
    );
    for b in BINDINGS {
        let keys: Vec<String> = b.keys.iter().map(|k| format!("`{}`", k.label())).collect();
        out.push_str(&format!("| {} | {} |\n", keys.join(", "), cell(b.help)));
    }
    out.push_str(
        "\n## Commands\n\nAny unambiguous prefix of a command works; Enter on an empty command line repeats the last one.\n\n\
         | command | arguments | what it does |\n|---|---|---|\n",
    );
    for c in COMMANDS {
        let names: Vec<String> =
            std::iter::once(c.name).chain(c.aliases.iter().copied()).map(|n| format!("`{n}`")).collect();
        let args = if c.args.is_empty() { String::new() } else { format!("`{}`", cell(c.args)) };
        out.push_str(&format!("| {} | {args} | {} |\n", names.join(", "), cell(c.help)));
    }
    out.push_str(
        "\n## Events\n\n`break EVENT [field=value]... [if EXPR]` stops after a cycle in which such an event happened; \
         `log EVENT on|off` chooses what the Events pane records. `occlusion` is short for `memory-occlusion`; \
         `warp=C.W` sets `core` and `warp` together, and numbers also compare (`cycles>200`, `bank!=3`).\n\n\
         | event | fields | what happened |\n|---|---|---|\n",
    );
    for k in EventKind::ALL {
        let fields: Vec<String> = k.fields().iter().map(|f| format!("`{f}`")).collect();
        let about = k.about().split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!("| `{}` | {} | {} |\n", k.name(), fields.join(" "), cell(&about)));
    }
    out.push_str("\n## Views\n\nEach is a `show` command and a pane of the TUI's layouts.\n\n| command | pane | what it shows |\n|---|---|---|\n");
    for v in VIEWS {
        let usage = v.usage();
        let cmd = if usage.is_empty() {
            format!("`show {}`", v.name)
        } else {
            format!("`show {} {}`", v.name, cell(&usage))
        };
        out.push_str(&format!("| {cmd} | `{}` | {} |\n", v.pane, cell(v.help)));
    }
    out.push_str(
        "\n## Expressions\n\n`watch`, `print`, `condition` and `break ... if` take expressions: numbers (`12`, `0x1f`), \
         `\"names\"`, `+ - * / %`, `== != < <= > >=`, `&& || !` and parentheses, over the event's fields (in a \
         breakpoint's condition) and the paths into the machine below. Arithmetic is on 64-bit signed integers; an \
         overflow or a division by zero is an error, not a wrapped number. A condition that gives an error when it \
         is evaluated (`1/0 > 0`, a field the event lacks) stops the machine there, as gdb does, and the stop names \
         the error; fix it with `condition N EXPR`.\n\n| path | value |\n|---|---|\n",
    );
    for (p, what) in PATHS {
        out.push_str(&format!("| `{}` | {} |\n", cell(p), cell(what)));
    }
    out
}
