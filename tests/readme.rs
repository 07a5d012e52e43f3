//! The README and the manual are true in a clone: every `warpscope` command of their `sh` code
//! blocks runs verbatim through the built binary, in order, from the repository's root (with a
//! small cycle cap where the command takes one, so the suite stays fast; `mkdir -p DIR` lines
//! are run too), the grid example is the file it names, every link and sample path points at a
//! file the repository has, the README stays a front door, and the reproduction and validation
//! pages carry the generated tables as the tools wrote them.
//!
//! A command whose comment starts with `long` (`warpscope sweep ... # long: 12 runs`) is run
//! only by `cargo test -- --ignored`: CI keeps to the cheap ones.

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

#[test]
fn shell_words_split_like_a_shell() {
    assert_eq!(words("a -x \"b; c\" 'd e'   # note").0, ["a", "-x", "b; c", "d e"]);
    assert_eq!(words("a b # long: 12 runs").1, "long: 12 runs");
    let b = blocks("x\n```sh\nwarpscope a \\\n    b\n```\n```ron\n()\n```\n", "sh");
    assert_eq!(b, ["warpscope a  b\n"]);
}

/// A synopsis line (`[-c CONFIG]`, `PATH|-`, `...`) or a script with shell variables is not a
/// command to run as written.
fn is_runnable(words: &[String]) -> bool {
    !words.iter().any(|w| {
        w.starts_with('[')
            || w.starts_with('(')
            || ["|", "...", "$", "<", "CONFIG", "WORKLOAD", "SPEC", "GRID"].iter().any(|p| w.contains(p))
    })
}

/// One line of a page's `sh` blocks to run: `warpscope ...` or `mkdir -p DIR`.
struct Line {
    page: String,
    words: Vec<String>,
    long: bool,
}

fn lines_to_run() -> Vec<Line> {
    let mut out = Vec::new();
    for page in pages() {
        for block in blocks(&read(&page), "sh") {
            for l in block.lines() {
                let (w, comment) = words(l);
                let runs = match w.first().map(String::as_str) {
                    Some("warpscope") => is_runnable(&w),
                    Some("mkdir") => w.len() == 3 && w[1] == "-p",
                    _ => false,
                };
                if runs {
                    out.push(Line { page: page.clone(), words: w, long: comment.starts_with("long") });
                }
            }
        }
    }
    out
}

fn run_lines(long: bool) -> usize {
    // The README's repro example resumes into this directory and then verifies it: runs left
    // there by an older build would (rightly) fail the check.
    let _ = std::fs::remove_dir_all(Path::new(ROOT).join("results/repro-mini"));
    let mut ran = 0;
    for l in lines_to_run().into_iter().filter(|l| l.long == long) {
        if l.words[0] == "mkdir" {
            std::fs::create_dir_all(Path::new(ROOT).join(&l.words[2])).unwrap();
            continue;
        }
        let mut args: Vec<String> = l.words[1..].to_vec();
        if !long
            && ["run", "compare", "bench"].contains(&args[0].as_str())
            && !args.iter().any(|a| a == "--max-cycles")
        {
            args.extend(["--max-cycles".into(), "3000".into()]);
        }
        let out = Command::new(BIN).args(&args).current_dir(ROOT).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {}: {stderr}", l.page, l.words.join(" "));
        let quiet = args.iter().any(|a| a == "--screenshot" || a == "--generate");
        assert!(quiet || !out.stdout.is_empty(), "{}: {}: prints its result", l.page, l.words.join(" "));
        ran += 1;
    }
    ran
}

#[test]
fn every_runnable_command_of_the_readme_and_the_manual_runs_verbatim() {
    let all = lines_to_run();
    let readme: Vec<&str> =
        all.iter().filter(|l| l.page == "README.md").map(|l| l.words[1].as_str()).collect();
    for sub in ["batch", "run", "compare", "repro"] {
        assert!(readme.contains(&sub), "the README's {sub} example was found: {readme:?}");
    }
    let ran = run_lines(false);
    assert!(ran >= 25, "the manual's examples were found ({ran})");
}

#[test]
#[ignore = "long: the manual's examples marked `# long`, minutes in a debug build"]
fn the_manual_s_long_commands_run_verbatim() {
    run_lines(false);
    assert!(run_lines(true) > 0);
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

#[test]
fn gitignore_covers_what_the_manual_s_commands_leave_behind() {
    let ignore = read(".gitignore");
    for pattern in ["callgrind.out.*", "results/"] {
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
