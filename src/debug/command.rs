//! The command language shared by the TUI command line and `warpscope batch`, following gdb:
//! commands and view names may be shortened to any unambiguous prefix, common ones have
//! one- or two-letter aliases (`s`, `c`, `b`, `rs`, `rc`), and an empty line repeats the last
//! command. [`COMMANDS`] is the single table that parsing, completion and help all use; the
//! views `show` knows come from the view catalogue ([`VIEWS`]).

use super::views::VIEWS;

/// One command of the language.
#[derive(Clone, Copy, Debug)]
pub struct CommandSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub args: &'static str,
    pub help: &'static str,
}

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "step",
        aliases: &["s"],
        args: "[N]",
        help: "advance N core cycles (default 1); stops at breakpoints",
    },
    CommandSpec {
        name: "continue",
        aliases: &["c"],
        args: "",
        help: "run until a breakpoint hits or the program ends",
    },
    CommandSpec {
        name: "until",
        aliases: &["u"],
        args: "CYCLE",
        help: "run until the machine reaches CYCLE (stops at breakpoints)",
    },
    CommandSpec {
        name: "run",
        aliases: &["r"],
        args: "",
        help: "run to the end of the program, ignoring breakpoints",
    },
    CommandSpec {
        name: "reverse-step",
        aliases: &["rs"],
        args: "[N]",
        help: "go back N core cycles (default 1)",
    },
    CommandSpec {
        name: "reverse-continue",
        aliases: &["rc"],
        args: "",
        help: "go back to the previous breakpoint hit",
    },
    CommandSpec {
        name: "goto",
        aliases: &["g"],
        args: "CYCLE",
        help: "go to CYCLE, backwards or forwards, ignoring breakpoints",
    },
    CommandSpec {
        name: "break",
        aliases: &["b"],
        args: "EVENT [field=value]... [if EXPR] | cycle N",
        help: "stop when an event happens (see `help break`)",
    },
    CommandSpec {
        name: "tbreak",
        aliases: &["tb"],
        args: "EVENT ... | cycle N",
        help: "like break, stops once; going back before it re-arms it",
    },
    CommandSpec {
        name: "watch",
        aliases: &["w"],
        args: "EXPR",
        help: "stop when the value of EXPR changes (see `help watch`)",
    },
    CommandSpec {
        name: "condition",
        aliases: &[],
        args: "N [EXPR]",
        help: "set (or clear) breakpoint N's condition",
    },
    CommandSpec {
        name: "ignore",
        aliases: &[],
        args: "N COUNT",
        help: "ignore the next COUNT hits of N; going back returns them",
    },
    CommandSpec {
        name: "delete",
        aliases: &["d"],
        args: "[N...]",
        help: "delete breakpoints (all of them without N)",
    },
    CommandSpec {
        name: "disable",
        aliases: &[],
        args: "[N...]",
        help: "disable breakpoints (all of them without N)",
    },
    CommandSpec {
        name: "enable",
        aliases: &[],
        args: "[N...]",
        help: "enable breakpoints (all of them without N)",
    },
    CommandSpec {
        name: "info",
        aliases: &["i"],
        args: "breakpoints|snapshots|log",
        help: "list breakpoints, time-travel snapshots or logged events",
    },
    CommandSpec {
        name: "show",
        aliases: &["sh"],
        args: "VIEW [ARGS]",
        help: "print a view (see `help show`)",
    },
    CommandSpec {
        name: "vs",
        aliases: &[],
        args: "[show VIEW [ARGS]]",
        help: "the second machine (--vs): where it stands against this one, or one of its views",
    },
    CommandSpec {
        name: "print",
        aliases: &["p"],
        args: "EXPR",
        help: "evaluate an expression over machine state",
    },
    CommandSpec {
        name: "log",
        aliases: &[],
        args: "[EVENT on|off]",
        help: "choose which events the event log records",
    },
    CommandSpec {
        name: "timeline",
        aliases: &[],
        args: "FILE [FROM TO]",
        help: "write cycles FROM..TO (default: the last 2000) as a Perfetto/Chrome trace",
    },
    CommandSpec {
        name: "checkpoint",
        aliases: &[],
        args: "save FILE",
        help: "write the machine's state to FILE; --resume FILE starts a session there",
    },
    CommandSpec {
        name: "layout",
        aliases: &[],
        args: "NAME",
        help: "switch the TUI layout (layouts/NAME.ron)",
    },
    CommandSpec { name: "help", aliases: &["h"], args: "[COMMAND]", help: "list commands, or explain one" },
    CommandSpec { name: "quit", aliases: &["q"], args: "", help: "leave warpscope" },
];

/// A parsed command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Step(u64),
    Continue,
    Until(u64),
    Run,
    ReverseStep(u64),
    ReverseContinue,
    Goto(u64),
    Break {
        temporary: bool,
        spec: String,
    },
    Watch(String),
    Condition {
        id: u32,
        expr: Option<String>,
    },
    Ignore {
        id: u32,
        count: u64,
    },
    Delete(Vec<u32>),
    Disable(Vec<u32>),
    Enable(Vec<u32>),
    Info(Info),
    Show {
        view: &'static str,
        args: Vec<String>,
    },
    Print(String),
    /// The second machine of a lockstep session: a summary, or one of its views.
    Vs(Option<(&'static str, Vec<String>)>),
    Log {
        event: Option<String>,
        on: bool,
    },
    Layout(String),
    /// Write a window of history as a trace-event file (the last cycles up to now when `None`).
    Timeline {
        path: String,
        window: Option<(u64, u64)>,
    },
    /// `checkpoint save FILE`.
    CheckpointSave(String),
    Help(Option<String>),
    Quit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Info {
    Breakpoints,
    Snapshots,
    Log,
}

/// Resolves a (possibly abbreviated) word against names and aliases.
pub fn resolve<'a>(
    word: &str,
    names: &[&'a str],
    aliases: &[(&str, &'a str)],
    what: &str,
) -> Result<&'a str, String> {
    if let Some(n) = names.iter().find(|n| **n == word) {
        return Ok(n);
    }
    if let Some((_, n)) = aliases.iter().find(|(a, _)| *a == word) {
        return Ok(n);
    }
    let matches: Vec<&&str> = names.iter().filter(|n| n.starts_with(word)).collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("unknown {what} `{word}`; try `help`")),
        many => Err(format!(
            "ambiguous {what} `{word}`: {}",
            many.iter().map(|s| **s).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn command_name(word: &str) -> Result<&'static str, String> {
    let names: Vec<&'static str> = COMMANDS.iter().map(|c| c.name).collect();
    let aliases: Vec<(&str, &'static str)> =
        COMMANDS.iter().flat_map(|c| c.aliases.iter().map(move |a| (*a, c.name))).collect();
    resolve(word, &names, &aliases, "command")
}

/// Resolves a view name of `show`.
pub fn view_name(word: &str) -> Result<&'static str, String> {
    let names: Vec<&'static str> = VIEWS.iter().map(|v| v.name).collect();
    resolve(word, &names, &[], "view").map_err(|e| format!("{e}; views: {}", names.join(", ")))
}

fn number(s: &str, what: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    let v = match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    };
    v.map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("{what}: `{s}` is too large (at most {})", u64::MAX),
        _ => format!("{what}: `{s}` is not a number"),
    })
}

/// A breakpoint number: one that fits the 32 bits breakpoints are numbered in, refused
/// otherwise rather than cut to its low bits (`delete 4294967297` is not `delete 1`).
fn id(s: &str, what: &str) -> Result<u32, String> {
    let n = number(s, what)?;
    u32::try_from(n)
        .map_err(|_| format!("{what}: `{s}` is too large for a breakpoint number (at most {})", u32::MAX))
}

fn ids(args: &[&str], cmd: &str) -> Result<Vec<u32>, String> {
    args.iter().map(|a| id(a, cmd)).collect()
}

impl Command {
    /// Parses one command line (non-empty; the caller handles repeats).
    pub fn parse(line: &str) -> Result<Command, String> {
        let line = line.trim();
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (line, ""),
        };
        if word.is_empty() {
            return Err("empty command".into());
        }
        let args: Vec<&str> = rest.split_whitespace().collect();
        let name = command_name(word)?;
        let one_number = |default: Option<u64>| -> Result<u64, String> {
            match (args.as_slice(), default) {
                ([], Some(d)) => Ok(d),
                ([], None) => Err(format!("{name} needs a cycle number")),
                ([n], _) => number(n, name),
                _ => Err(format!("{name} takes one number")),
            }
        };
        let no_args = |c: Command| -> Result<Command, String> {
            if args.is_empty() { Ok(c) } else { Err(format!("{name} takes no arguments")) }
        };
        Ok(match name {
            "step" => Command::Step(one_number(Some(1))?),
            "continue" => no_args(Command::Continue)?,
            "until" => Command::Until(one_number(None)?),
            "run" => no_args(Command::Run)?,
            "reverse-step" => Command::ReverseStep(one_number(Some(1))?),
            "reverse-continue" => no_args(Command::ReverseContinue)?,
            "goto" => Command::Goto(one_number(None)?),
            "break" | "tbreak" => {
                if rest.is_empty() {
                    return Err(format!(
                        "{name} what? e.g. `{name} occlusion core=3` or `{name} cycle 1000`"
                    ));
                }
                Command::Break { temporary: name == "tbreak", spec: rest.to_string() }
            }
            "watch" => {
                if rest.is_empty() {
                    return Err("watch what? e.g. `watch l1[3].mshr.used`".into());
                }
                Command::Watch(rest.to_string())
            }
            "condition" => {
                let Some(first) = args.first() else { return Err("condition N [EXPR]".into()) };
                let id = id(first, "condition")?;
                let expr = rest[first.len()..].trim();
                Command::Condition { id, expr: (!expr.is_empty()).then(|| expr.to_string()) }
            }
            "ignore" => match args.as_slice() {
                [id, count] => {
                    Command::Ignore { id: self::id(id, "ignore")?, count: number(count, "ignore")? }
                }
                _ => return Err("ignore N COUNT".into()),
            },
            "delete" => Command::Delete(ids(&args, "delete")?),
            "disable" => Command::Disable(ids(&args, "disable")?),
            "enable" => Command::Enable(ids(&args, "enable")?),
            "info" => {
                let what = args.first().copied().unwrap_or("breakpoints");
                match resolve(
                    what,
                    &["breakpoints", "snapshots", "log", "watchpoints"],
                    &[("b", "breakpoints")],
                    "info topic",
                )? {
                    "snapshots" => Command::Info(Info::Snapshots),
                    "log" => Command::Info(Info::Log),
                    _ => Command::Info(Info::Breakpoints),
                }
            }
            "show" => {
                let Some(v) = args.first() else {
                    let names: Vec<&str> = VIEWS.iter().map(|v| v.name).collect();
                    return Err(format!("show what? views: {}", names.join(", ")));
                };
                Command::Show { view: view_name(v)?, args: args[1..].iter().map(|s| s.to_string()).collect() }
            }
            "vs" => match args.as_slice() {
                [] => Command::Vs(None),
                ["show", v, more @ ..] => {
                    Command::Vs(Some((view_name(v)?, more.iter().map(|s| s.to_string()).collect())))
                }
                _ => return Err("vs [show VIEW [ARGS]], e.g. `vs show queues`".into()),
            },
            "print" => {
                if rest.is_empty() {
                    return Err("print what? e.g. `print l1[0].mshr.used`".into());
                }
                Command::Print(rest.to_string())
            }
            "log" => match args.as_slice() {
                [] => Command::Log { event: None, on: true },
                [e, v] if matches!(*v, "on" | "off") => {
                    Command::Log { event: Some(e.to_string()), on: *v == "on" }
                }
                _ => return Err("log [EVENT on|off]".into()),
            },
            "layout" => match args.as_slice() {
                [n] => Command::Layout(n.to_string()),
                _ => return Err("layout NAME (default, dram, cache, warp)".into()),
            },
            "timeline" => match args.as_slice() {
                [path] => Command::Timeline { path: path.to_string(), window: None },
                [path, from, to] => Command::Timeline {
                    path: path.to_string(),
                    window: Some((number(from, "timeline FROM")?, number(to, "timeline TO")?)),
                },
                _ => return Err("timeline FILE [FROM TO], e.g. `timeline run.json 1000 3000`".into()),
            },
            "checkpoint" => match args.as_slice() {
                ["save", path] => Command::CheckpointSave(path.to_string()),
                _ => return Err("checkpoint save FILE, e.g. `checkpoint save run.wsck`".into()),
            },
            "help" => Command::Help(args.first().map(|s| s.to_string())),
            "quit" => no_args(Command::Quit)?,
            other => unreachable!("command {other} is in the table"),
        })
    }

    /// Whether this command moves the machine (the TUI runs these incrementally).
    pub fn moves(&self) -> bool {
        matches!(self, Command::Step(_) | Command::Continue | Command::Until(_) | Command::Run)
    }
}

/// Completions of the word being typed at the end of `line` (command or view names).
pub fn complete(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let trailing_space = line.ends_with(' ');
    match (words.as_slice(), trailing_space) {
        ([], _) => COMMANDS.iter().map(|c| c.name.to_string()).collect(),
        ([w], false) => {
            COMMANDS.iter().filter(|c| c.name.starts_with(w)).map(|c| c.name.to_string()).collect()
        }
        ([cmd], true) | ([cmd, _], false) if command_name(cmd).is_ok_and(|c| c == "show") => {
            let prefix = if trailing_space { "" } else { words[1] };
            VIEWS.iter().filter(|v| v.name.starts_with(prefix)).map(|v| format!("{cmd} {}", v.name)).collect()
        }
        ([cmd], true) | ([cmd, _], false)
            if command_name(cmd).is_ok_and(|c| c == "break" || c == "tbreak") =>
        {
            let prefix = if trailing_space { "" } else { words[1] };
            super::breakpoint::event_names()
                .into_iter()
                .chain(["occlusion", "cycle"])
                .filter(|e| e.starts_with(prefix))
                .map(|e| format!("{cmd} {e}"))
                .collect()
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_prefixes_and_arguments() {
        assert_eq!(Command::parse("s"), Ok(Command::Step(1)));
        assert_eq!(Command::parse("step 100"), Ok(Command::Step(100)));
        assert_eq!(Command::parse("ste 0x10"), Ok(Command::Step(16)));
        assert_eq!(Command::parse("c"), Ok(Command::Continue));
        assert_eq!(Command::parse("cont"), Ok(Command::Continue));
        assert_eq!(Command::parse("rs 5"), Ok(Command::ReverseStep(5)));
        assert_eq!(Command::parse("reverse-c"), Ok(Command::ReverseContinue));
        assert_eq!(Command::parse("goto 1_000"), Ok(Command::Goto(1000)));
        assert_eq!(
            Command::parse("b occlusion core=3 if needed > 20"),
            Ok(Command::Break { temporary: false, spec: "occlusion core=3 if needed > 20".into() })
        );
        assert_eq!(
            Command::parse("tb cycle 10"),
            Ok(Command::Break { temporary: true, spec: "cycle 10".into() })
        );
        assert_eq!(
            Command::parse("condition 2 free == 0"),
            Ok(Command::Condition { id: 2, expr: Some("free == 0".into()) })
        );
        assert_eq!(Command::parse("condition 2"), Ok(Command::Condition { id: 2, expr: None }));
        assert_eq!(Command::parse("ignore 1 5"), Ok(Command::Ignore { id: 1, count: 5 }));
        assert_eq!(Command::parse("d"), Ok(Command::Delete(vec![])));
        assert_eq!(Command::parse("disable 1 3"), Ok(Command::Disable(vec![1, 3])));
        assert_eq!(Command::parse("i b"), Ok(Command::Info(Info::Breakpoints)));
        assert_eq!(
            Command::parse("sh warp 3.17"),
            Ok(Command::Show { view: "warp", args: vec!["3.17".into()] })
        );
        assert_eq!(Command::parse("show warps"), Ok(Command::Show { view: "warps", args: vec![] }));
        assert_eq!(Command::parse("show ban 2"), Ok(Command::Show { view: "banks", args: vec!["2".into()] }));
        assert_eq!(Command::parse("p l1[0].mshr.used + 1"), Ok(Command::Print("l1[0].mshr.used + 1".into())));
        assert_eq!(Command::parse("q"), Ok(Command::Quit));
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(
            Command::parse("re"),
            Err("ambiguous command `re`: reverse-step, reverse-continue".into())
        );
        assert_eq!(Command::parse("frobnicate"), Err("unknown command `frobnicate`; try `help`".into()));
        assert_eq!(Command::parse("step x"), Err("step: `x` is not a number".into()));
        assert_eq!(
            Command::parse("goto 99999999999999999999"),
            Err("goto: `99999999999999999999` is too large (at most 18446744073709551615)".into())
        );
        assert_eq!(
            Command::parse("goto 0x1ffffffffffffffff"),
            Err("goto: `0x1ffffffffffffffff` is too large (at most 18446744073709551615)".into())
        );
        assert_eq!(Command::parse("continue 3"), Err("continue takes no arguments".into()));
        assert_eq!(
            Command::parse("delete 4294967297"),
            Err("delete: `4294967297` is too large for a breakpoint number (at most 4294967295)".into())
        );
        assert_eq!(Command::parse("until"), Err("until needs a cycle number".into()));
        assert!(Command::parse("show b").unwrap_err().starts_with("ambiguous view `b`: banks, breakpoints"));
        assert!(Command::parse("show nothing").unwrap_err().contains("views: banks, warpgroups"));
        assert!(Command::parse("break").unwrap_err().contains("break occlusion core=3"));
    }

    #[test]
    fn completes_commands_views_and_events() {
        assert_eq!(complete("rev"), vec!["reverse-step", "reverse-continue"]);
        assert_eq!(complete("show wa"), vec!["show warpgroups", "show warps", "show warp"]);
        assert!(complete("b occ").contains(&"b occlusion".to_string()));
        assert!(complete("break ").len() > 5);
    }
}
