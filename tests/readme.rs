//! The README and the manual are true in a clone: every `warpscope` command they show runs
//! verbatim through the built binary, in page order, from the repository's root; every
//! synopsis names only options the command has; the stop messages the pages quote are the
//! debugger's; the grid example is the file it names; every link and sample path points at a
//! file the repository has; the README stays a front door; and the reproduction pages carry
//! the generated claim tables as the tool wrote them.
//!
//! How a page shows a command, which this test holds it to:
//!
//! - A ` ```sh ` block holds commands to type. Each `warpscope ...` line (and `mkdir -p DIR`)
//!   runs exactly as written, nothing appended. A line whose comment starts with `long`
//!   (`warpscope sweep ... # long: 12 runs, about 30 s`) runs only under `cargo test --
//!   --ignored`, so CI keeps to the cheap ones: a command is cheap, or marked.
//! - A block may open with synopsis lines, written as `--help` writes usage: UPPERCASE words
//!   for values (`FILE`, `N`), `[...]` for options, `a|b` for a choice, `...` for more. They are
//!   not run; each option they name must be one `warpscope CMD --help` lists. A synopsis line
//!   after a command, or any other placeholder (`<w>`), fails.
//! - A block right after the comment `<!-- not run: WHY -->` is a script for elsewhere (a
//!   Slurm job file) and is not run.
//! - In prose, `` `warpscope CMD ...` `` with more than the command's name and flags is a
//!   command too, run as written (so it must be cheap), or a synopsis checked as above; text in
//!   HTML comments is not read.
//! - A command that writes under `docs/` (a picture of the manual) must leave the committed
//!   file as it is: a stale one is rewritten and the test fails, to be reviewed and committed.
//! - A ` ```text ` block right after a ` ```sh ` block is what the `sh` block's last command
//!   prints (of a `batch`, the answer of its last debugger command), verbatim: a stale one is
//!   rewritten in its page and the test fails, to be reviewed and committed (issue 38 item 3).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The README and every page of the manual written by hand (the generated reports under
/// `docs/repro/` excluded), as paths relative to the root.
fn pages() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p.file_name() != Some("repro".as_ref()) {
                    walk(&p, out);
                }
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut files = vec![Path::new(ROOT).join("README.md"), Path::new(ROOT).join("CHANGELOG.md")];
    walk(&Path::new(ROOT).join("docs"), &mut files);
    files.sort();
    files.iter().map(|p| p.strip_prefix(ROOT).unwrap().display().to_string()).collect()
}

/// The code blocks of `text` fenced with language `lang`, each with `\` continuations joined.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        match (&mut cur, t.strip_prefix("```")) {
            (None, Some(l)) if l == lang => cur = Some(String::new()),
            (Some(_), Some("")) => out.push(cur.take().unwrap()),
            (Some(b), _) => {
                b.push_str(t);
                b.push('\n');
            }
            _ => {}
        }
    }
    out.into_iter().map(|b| b.replace("\\\n", " ")).collect()
}

/// Splits a shell command into words (double and single quotes; `#` starts a comment, which is
/// returned apart).
fn words(cmd: &str) -> (Vec<String>, String) {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut any = false;
    for (i, c) in cmd.char_indices() {
        match (quote, c) {
            (None, '#') if !any => return (out, cmd[i + 1..].trim().to_string()),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (_, c) => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    (out, String::new())
}

/// The words of `cmd` outside quotes, as written (a quoted debugger command may hold `[` or
/// `|` of its own).
fn unquoted(cmd: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quote = None;
    for c in cmd.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if out.last().is_some_and(String::is_empty) => break,
            (None, c) if c.is_whitespace() => out.push(String::new()),
            (None, c) => out.last_mut().unwrap().push(c),
            _ => {}
        }
    }
    out.retain(|w| !w.is_empty());
    out
}

/// Whether a command is written as a synopsis: an UPPERCASE word standing for a value,
/// `[options]`, `(a group)`, `a|b` or `...`.
fn is_synopsis(cmd: &str) -> bool {
    unquoted(cmd).iter().any(|w| {
        let metavariable = w
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
        metavariable || w.starts_with(['[', '(']) || w.contains('|') || w.contains("...") || w.contains('…')
    })
}

#[test]
fn shell_words_split_like_a_shell() {
    assert_eq!(words("a -x \"b; c\" 'd e'   # note").0, ["a", "-x", "b; c", "d e"]);
    assert_eq!(words("a b # long: 12 runs").1, "long: 12 runs");
    let b = blocks("x\n```sh\nwarpscope a \\\n    b\n```\n```ron\n()\n```\n", "sh");
    assert_eq!(b, ["warpscope a  b\n"]);
    assert_eq!(unquoted("a -x \"print l1[0] | x\" [b] # c"), ["a", "-x", "[b]"]);
}

#[test]
fn synopses_are_told_from_commands() {
    for synopsis in [
        "warpscope run [-c CONFIG]",
        "warpscope dram --trace FILE|-",
        "warpscope compare --vary key=v1,v2,...",
        "warpscope sweep --merge SHARD-RESULTS... (--csv PATH | --json PATH)",
        "warpscope trace export DIR -w WORKLOAD",
        "warpscope run --set sim.seed=N",
    ] {
        assert!(is_synopsis(synopsis), "{synopsis}");
    }
    for command in [
        "warpscope batch -x \"break occlusion; continue; print l1[0].mshr.used\"",
        "warpscope run -c sample-configs/validation/SM7_QV100.ron -w atax --set workload.nx=512",
        "warpscope compare -w x.ron <w>.ron",
    ] {
        assert!(!is_synopsis(command), "{command}");
    }
}

/// What a page asks its reader to type.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// A command to run as written; `long` ones only under `--ignored`.
    Run { long: bool },
    /// `mkdir -p DIR`.
    Mkdir,
    /// A synopsis: checked against `--help`, not run.
    Synopsis,
    /// `warpscope CMD` and its flags, named in prose.
    Mention,
}

/// One command of a page, with the line it starts on; `inline` when it is in prose.
#[derive(Clone, Debug)]
struct Line {
    page: String,
    at: usize,
    text: String,
    words: Vec<String>,
    kind: Kind,
    inline: bool,
    /// The `text` block after its `sh` block, if it is the block's last command.
    output: Option<String>,
}

impl Line {
    fn name(&self) -> String {
        format!("{}:{}: `{}`", self.page, self.at, self.text)
    }
}

/// The subcommands that take a second word (`trace export`).
const TWO_WORD: [&str; 2] = ["trace", "config"];

/// The words naming the command (`run`, `trace export`), as many as lead `words[1..]`.
fn command_path(words: &[String]) -> Vec<String> {
    let n = if words.get(1).is_some_and(|w| TWO_WORD.contains(&w.as_str())) { 2 } else { 1 };
    words.iter().skip(1).take(n).filter(|w| !w.starts_with('-')).cloned().collect()
}

/// `text` with HTML comments blanked out (line breaks kept, so positions stay on their lines).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("-->").map_or(rest.len(), |e| i + e + 3);
        out.extend(rest[i..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Every command of `page` in page order: the lines of its `sh` blocks and its prose's
/// `` `warpscope ...` `` spans.
fn page_lines(page: &str) -> Vec<Line> {
    let text = read(page);
    let mut out = Vec::new();
    let mut prose = String::new();
    let mut fence: Option<(String, usize, bool)> = None; // language, first line, not run
    let mut block = String::new();
    let mut previous = "";
    // The language of the block that closed last, if nothing but blank lines followed it.
    let mut closed: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        match (&fence, t.strip_prefix("```")) {
            (None, Some(lang)) => {
                let skip = previous.starts_with("<!-- not run:") && previous.ends_with("-->");
                fence = Some((lang.to_string(), i + 1, skip));
                block.clear();
            }
            (Some((lang, first, skip)), Some("")) => {
                if lang == "sh" && !skip {
                    out.extend(block_lines(page, *first + 1, &block));
                }
                if lang == "text"
                    && closed.as_deref() == Some("sh")
                    && let Some(last) =
                        out.last_mut().filter(|l| !l.inline && l.kind == Kind::Run { long: false })
                {
                    last.output = Some(block.clone());
                }
                closed = Some(lang.clone());
                fence = None;
            }
            (Some(_), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, None) => {}
        }
        // Prose keeps its line count (blank for code) so spans know their lines.
        prose.push_str(if fence.is_none() && !t.starts_with("```") { line } else { "" });
        prose.push('\n');
        if !t.is_empty() {
            previous = t;
            if fence.is_none() && !t.starts_with("```") {
                closed = None;
            }
        }
    }
    let prose = without_comments(&prose);
    let mut spans = prose.split('`');
    let mut offset = 0;
    while let (Some(outside), Some(span)) = (spans.next(), spans.next()) {
        offset += outside.len() + 1;
        let at = prose[..offset].matches('\n').count() + 1;
        offset += span.len() + 1;
        let text = span.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.starts_with("warpscope ") && text != "warpscope" {
            continue;
        }
        let (w, _) = words(&text);
        let path = command_path(&w);
        let kind = if w.iter().skip(1 + path.len()).all(|x| x.starts_with('-')) {
            Kind::Mention
        } else if is_synopsis(&text) {
            Kind::Synopsis
        } else {
            Kind::Run { long: false }
        };
        out.push(Line { page: page.to_string(), at, text, words: w, kind, inline: true, output: None });
    }
    out.sort_by_key(|l| l.at);
    out
}

/// The commands of one `sh` block whose first line is line `first` of its page: its leading
/// synopsis lines, then commands to run (a `\` continuation joined to its line).
fn block_lines(page: &str, first: usize, block: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut leading = true;
    let mut joined = String::new();
    let mut start = first;
    for (i, raw) in block.lines().enumerate() {
        if joined.is_empty() {
            start = first + i;
        }
        match raw.trim_end().strip_suffix('\\') {
            Some(part) => {
                joined.push_str(part.trim());
                joined.push(' ');
                continue;
            }
            None => joined.push_str(raw.trim()),
        }
        let text = std::mem::take(&mut joined);
        let (w, comment) = words(&text);
        let kind = match w.first().map(String::as_str) {
            Some("warpscope") if is_synopsis(&text) => {
                assert!(
                    leading,
                    "{page}:{start}: `{text}` is a synopsis after a command: synopses open a block"
                );
                Kind::Synopsis
            }
            Some("warpscope") => Kind::Run { long: comment.starts_with("long") },
            Some("mkdir") if w.len() == 3 && w[1] == "-p" => Kind::Mkdir,
            _ => continue,
        };
        leading &= kind == Kind::Synopsis;
        out.push(Line {
            page: page.to_string(),
            at: start,
            text,
            words: w,
            kind,
            inline: false,
            output: None,
        });
    }
    out
}

/// Every command of the README and the manual (the CHANGELOG, a record of the past, excluded).
fn lines_to_run() -> Vec<Line> {
    pages().iter().filter(|p| *p != "CHANGELOG.md").flat_map(|p| page_lines(p)).collect()
}

/// Checks that every option a synopsis or mention names is one its command's `--help` lists
/// (a placeholder of another style, `<w>`, fails here).
fn check_options(l: &Line, help: &mut BTreeMap<Vec<String>, String>) {
    let path = command_path(&l.words);
    let text = help.entry(path.clone()).or_insert_with(|| {
        let out = Command::new(BIN).args(&path).arg("--help").output().unwrap();
        assert!(out.status.success(), "{}: `warpscope {} --help` fails", l.name(), path.join(" "));
        String::from_utf8_lossy(&out.stdout).into_owned()
    });
    for w in unquoted(&l.text) {
        assert!(
            !w.contains('<'),
            "{}: `{w}`: write a placeholder in UPPER case (`FILE`), or give a real value",
            l.name()
        );
        for part in w.trim_matches(|c| "[](),".contains(c)).split('|') {
            let flag = part.split('=').next().unwrap();
            if flag.len() < 2
                || !flag.starts_with('-')
                || flag.chars().nth(1).is_some_and(|c| c.is_ascii_digit())
            {
                continue;
            }
            let listed = [' ', ',', '\n', '='].iter().any(|end| text.contains(&format!("{flag}{end}")));
            assert!(listed, "{}: `warpscope {} --help` lists no {flag}", l.name(), path.join(" "));
        }
    }
}

/// The file at `path`, or the files of the directory at `path`, with their bytes (none when
/// there is nothing there yet).
fn files_at(path: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let files: Vec<PathBuf> = match std::fs::read_dir(path) {
        Ok(dir) => dir.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect(),
        Err(_) => vec![path.to_path_buf()],
    };
    files.into_iter().filter_map(|f| Some((f.clone(), std::fs::read(&f).ok()?))).collect()
}

/// Runs the pages' commands (the `long` ones, or the others) and checks the synopses and
/// mentions; returns how many ran and the standard output of each `batch` command.
fn run_lines(long: bool) -> (usize, Vec<String>) {
    // The README's repro example resumes into this directory and then verifies it: runs left
    // there by an older build would (rightly) fail the check.
    let _ = std::fs::remove_dir_all(Path::new(ROOT).join("results/repro-mini"));
    let mut help = BTreeMap::new();
    let mut ran = 0;
    let mut batch = Vec::new();
    let mut stale = Vec::new();
    for l in lines_to_run() {
        match l.kind {
            Kind::Synopsis | Kind::Mention => {
                check_options(&l, &mut help);
                continue;
            }
            Kind::Mkdir => {
                std::fs::create_dir_all(Path::new(ROOT).join(&l.words[2])).unwrap();
                continue;
            }
            Kind::Run { long: this } if this != long => continue,
            Kind::Run { .. } => {}
        }
        let args = &l.words[1..];
        assert!(
            !unquoted(&l.text).iter().any(|w| w.contains('<')),
            "{}: a placeholder: give a real value (or write a synopsis in UPPER case)",
            l.name()
        );
        // What a command writes under docs/ (a picture, a study's report) is the committed file.
        let docs: Vec<BTreeMap<PathBuf, Vec<u8>>> = args
            .iter()
            .filter(|a| a.starts_with("docs/"))
            .map(|a| files_at(&Path::new(ROOT).join(a)))
            .collect();
        let out = Command::new(BIN).args(args).current_dir(ROOT).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", l.name());
        // A sweep writes its results to files; a screenshot and a generated trace are files too.
        let quiet = args[0] == "sweep" || args.iter().any(|a| a == "--screenshot" || a == "--generate");
        assert!(quiet || !out.stdout.is_empty(), "{}: prints its result", l.name());
        for before in docs {
            for (file, bytes) in before {
                if std::fs::read(&file).ok().as_ref() != Some(&bytes) {
                    let file = file.strip_prefix(ROOT).unwrap().display();
                    stale.push(format!(
                        "{}: {file} was out of date and has been rewritten: review and commit it",
                        l.name()
                    ));
                }
            }
        }
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if let Some(want) = &l.output {
            let have = last_answer(&stdout, args[0] == "batch");
            if have.trim_end() != want.trim_end() {
                rewrite_block(&l.page, want, &have);
                stale.push(format!(
                    "{}: the output shown after it is not what it prints, and has been rewritten: review and commit it",
                    l.name()
                ));
            }
        }
        if args[0] == "batch" {
            batch.push(stdout);
        }
        ran += 1;
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
    (ran, batch)
}

/// What a command printed last: of a `batch`, the answer of its last debugger command (what
/// follows its last `(ws) ` line); else all of it.
fn last_answer(stdout: &str, batch: bool) -> String {
    let lines: Vec<&str> = stdout.lines().collect();
    let from =
        if batch { lines.iter().rposition(|l| l.starts_with("(ws) ")).map_or(0, |i| i + 1) } else { 0 };
    lines[from..].iter().map(|l| format!("{l}\n")).collect()
}

/// Puts `have` in place of the `text` block holding `want` in `page`.
fn rewrite_block(page: &str, want: &str, have: &str) {
    let path = Path::new(ROOT).join(page);
    let text = read(page);
    let old = format!("```text\n{want}```");
    assert!(text.contains(&old), "{page}: the output block is where it was read");
    std::fs::write(path, text.replacen(&old, &format!("```text\n{have}```"), 1)).unwrap();
}

#[test]
fn every_command_of_the_readme_and_the_manual_runs_verbatim() {
    let all = lines_to_run();
    let readme: Vec<&str> = all
        .iter()
        .filter(|l| l.page == "README.md" && l.kind == Kind::Run { long: false })
        .map(|l| l.words[1].as_str())
        .collect();
    for sub in ["batch", "run", "compare", "repro"] {
        assert!(readme.contains(&sub), "the README's {sub} example was found: {readme:?}");
    }
    assert!(
        all.iter().any(|l| l.inline && l.kind == Kind::Run { long: false }),
        "prose commands are run too"
    );
    assert!(
        all.iter().any(
            |l| l.page == "docs/debugger.md" && l.output.as_ref().is_some_and(|o| o.contains("Blame — "))
        ),
        "the blame example's output is checked"
    );
    let (ran, batch) = run_lines(false);
    assert!(ran >= 25, "the manual's examples were found ({ran})");
    // The stop messages a page quotes are ones the manual's batch examples print.
    for page in pages().iter().filter(|p| *p != "CHANGELOG.md") {
        for quote in read(page).split('`').skip(1).step_by(2).filter(|q| q.starts_with("Breakpoint ")) {
            let quote = quote.trim_end_matches("...").trim_end();
            assert!(
                batch.iter().any(|out| out.lines().any(|l| l.starts_with(quote))),
                "{page} quotes `{quote}`, which no batch example of the manual prints"
            );
        }
    }
}

#[test]
#[ignore = "long: the manual's examples marked `# long`, minutes in a debug build"]
fn the_manual_s_long_commands_run_verbatim() {
    run_lines(false);
    assert!(run_lines(true).0 > 0);
}

#[test]
fn the_grid_example_is_the_file_it_names() {
    use warpscope::batch::sweep::GridSpec;
    let text = read("docs/sweep.md");
    let name = "sample-configs/sweeps/schedulers.ron";
    let at = text.find(&format!("(`{name}`")).expect("the sweep page names the grid file");
    let example = blocks(&text[at..], "ron").into_iter().next().expect("a ron block follows");
    let example: GridSpec = ron::from_str(&example).unwrap_or_else(|e| panic!("{e}\n{example}"));
    let file: GridSpec = ron::from_str(&read(name)).unwrap();
    assert_eq!(example, file);
}

/// A heading's anchor as GitHub makes it: lower case, spaces to `-`, other punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every relative link of every page resolves to a file of the repository, and to one of its
/// headings where it names an anchor; every sample path a page names in backquotes exists.
#[test]
fn the_pages_name_only_files_a_clone_has() {
    for page in pages() {
        let text = read(&page);
        assert!(!text.contains("../shared"), "{page}: a clone has no ../shared");
        let dir = Path::new(ROOT).join(&page).parent().unwrap().to_path_buf();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')').unwrap_or(rest.len())];
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            if target.contains("://") {
                continue;
            }
            let linked = if file.is_empty() { Path::new(ROOT).join(&page) } else { dir.join(file) };
            assert!(linked.exists(), "{page} links to {target}, which does not exist");
            if !anchor.is_empty() {
                let body = std::fs::read_to_string(&linked).unwrap();
                let found = body
                    .lines()
                    .filter_map(|l| l.strip_prefix('#'))
                    .any(|h| slug(h.trim_start_matches('#')) == anchor);
                assert!(found, "{page} links to {target}: no such heading");
            }
        }
        for word in text.split(|c: char| c == '`' || c.is_whitespace() || c == '(' || c == ')') {
            let w = word.trim_end_matches([',', '.', ':', ';']).split('#').next().unwrap();
            if (w.starts_with("sample-configs/")
                || w.starts_with("tests/fixtures/")
                || w.starts_with("docs/"))
                && !w.contains(['*', '<', '{'])
                && !is_synopsis(w)
                && !w.ends_with('/')
            {
                assert!(Path::new(ROOT).join(w).exists(), "{page} names {w}, which does not exist");
            }
        }
    }
}

/// The README is a front door: short, its pictures generated (`tests/docs.rs`), no history.
#[test]
fn the_readme_is_a_front_door() {
    let text = read("README.md");
    assert!(text.lines().count() <= 300, "README.md has {} lines; the manual is docs/", text.lines().count());
    for img in ["docs/img/breakpoint.svg", "docs/img/inspector.svg"] {
        assert!(text.contains(&format!("]({img})")), "the README shows {img}");
    }
    for history in ["this stop", "the rule before", "out of date", "issue 1", "issue 2", "issue 3"] {
        assert!(!text.contains(history), "the README speaks of history: `{history}`");
    }
    let version = read("Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \"")?.strip_suffix('"').map(String::from));
    let version = version.expect("Cargo.toml states rust-version");
    assert!(
        text.contains(&format!("version {version} or later")),
        "the README's prerequisite is Cargo.toml's {version}"
    );
    // The set-up commands CI runs (.ci/run calls the README's test command).
    assert!(text.contains("cargo run --release") && text.contains("cargo test "));
    assert!(
        read(".ci/run").lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs the README's test command"
    );
}

/// The manual describes the tool as it is: what a past build did or measured is in the
/// CHANGELOG. A few phrases that only history uses are refused.
#[test]
fn the_manual_speaks_of_the_tool_as_it_is() {
    for page in pages().iter().filter(|p| *p != "CHANGELOG.md") {
        let text = read(page).to_lowercase();
        for history in [
            "the old rule",
            "since 20",
            "measured on 20",
            "checked so on",
            "today's simulator",
            "in an earlier",
        ] {
            assert!(
                !text.contains(history),
                "{page} speaks of history (`{history}`): move it to CHANGELOG.md"
            );
        }
    }
}

#[test]
fn gitignore_covers_what_the_manual_s_commands_leave_behind() {
    let ignore = read(".gitignore");
    for pattern in ["callgrind.out.*", "results/", "bfs-real.md", "benchmarks*.md"] {
        assert!(ignore.lines().any(|l| l == pattern), "{pattern}");
    }
}

/// The first table of `text` whose header line starts with `header`, as its lines.
fn table_after(text: &str, header: &str) -> Option<String> {
    let at = text.find(header)?;
    let table: Vec<&str> = text[at..].lines().take_while(|l| l.starts_with('|')).collect();
    Some(table.join("\n"))
}

/// Every reproduction report's claim table (and a figure's table, where a page shows one) is on
/// its seed's page exactly as `warpscope repro` wrote it: the pages' numbers are the tool's, so
/// a report regenerated without its page being brought along fails here.
#[test]
fn claim_tables_are_the_reports_verbatim() {
    let mut checked = 0;
    for entry in std::fs::read_dir(Path::new(ROOT).join("docs/repro")).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(body) = std::fs::read_to_string(dir.join("report.md")) else { continue };
        let study = dir.file_name().unwrap().to_str().unwrap().to_string();
        let page = format!("docs/reproduction/{}.md", &study[..8]);
        let claims = table_after(&body, "| source | claim |").expect("a report opens with its claim table");
        assert!(read(&page).contains(&claims), "{page} lacks {study}'s claim table as generated:\n{claims}");
        checked += 1;
    }
    assert!(checked >= 8, "every shipped study's report was found ({checked})");
    let seed_002 = read("docs/repro/seed-002/report.md");
    let fig3 = table_after(&seed_002, "| benchmark | 0 | 120 |").expect("seed 002's report draws Fig. 3");
    assert!(
        read("docs/reproduction/seed-002.md").contains(&fig3),
        "seed 002's page lacks Fig. 3 as generated"
    );
}
