//! The README is true in a clone: every `warpscope` command of its `sh` code blocks runs
//! verbatim through the built binary (with a small cycle cap where the command takes one, so
//! the suite stays fast), the grid example is the file it names, and it sends readers to no
//! file outside the repository.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn readme() -> String {
    std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap()
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

/// Splits a shell command into words (double and single quotes; `#` starts a comment).
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    let mut any = false;
    for c in cmd.chars() {
        match (quote, c) {
            (None, '#') if !any => break,
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
    out
}

#[test]
fn shell_words_split_like_a_shell() {
    assert_eq!(words("a -x \"b; c\" 'd e'   # note"), ["a", "-x", "b; c", "d e"]);
    let b = blocks("x\n```sh\nwarpscope a \\\n    b\n```\n```ron\n()\n```\n", "sh");
    assert_eq!(b, ["warpscope a  b\n"]);
}

/// A synopsis line (`[-c CONFIG]`, `PATH|-`, `...`) or a script with shell variables is not a
/// command to run as written.
fn is_runnable(words: &[String]) -> bool {
    !words.iter().any(|w| {
        w.starts_with('[')
            || w.starts_with('(')
            || ["|", "...", "$", "<", "CONFIG", "WORKLOAD"].iter().any(|p| w.contains(p))
    })
}

#[test]
fn every_runnable_readme_command_runs_verbatim() {
    let text = readme();
    let cmds: Vec<Vec<String>> = blocks(&text, "sh")
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| l.starts_with("warpscope "))
        .map(|l| words(&l))
        .filter(|w| is_runnable(w))
        .collect();
    let subcommands: Vec<&str> = cmds.iter().map(|c| c[1].as_str()).collect();
    assert!(
        subcommands.iter().filter(|s| **s == "batch").count() >= 2
            && subcommands.iter().filter(|s| **s == "compare").count() >= 2,
        "the README's debugger and compare examples were found: {subcommands:?}"
    );
    // The README's repro example resumes into this directory and then verifies it: runs left
    // there by an older build would (rightly) fail the check.
    let _ = std::fs::remove_dir_all(std::path::Path::new(ROOT).join("results/repro-mini"));
    for cmd in &cmds {
        let mut args: Vec<String> = cmd[1..].to_vec();
        if ["run", "compare", "bench"].contains(&args[0].as_str())
            && !args.iter().any(|a| a == "--max-cycles")
        {
            args.extend(["--max-cycles".into(), "3000".into()]);
        }
        let out = Command::new(BIN).args(&args).current_dir(ROOT).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", cmd.join(" "));
        assert!(!out.stdout.is_empty(), "{}: prints its result", cmd.join(" "));
    }
}

#[test]
fn the_grid_example_is_the_file_it_names() {
    use warpscope::batch::sweep::GridSpec;
    let text = readme();
    let name = "sample-configs/sweeps/schedulers.ron";
    let at = text.find(&format!("(`{name}`")).expect("the README names the grid file");
    let example = blocks(&text[at..], "ron").into_iter().next().expect("a ron block follows");
    let example: GridSpec = ron::from_str(&example).unwrap_or_else(|e| panic!("{e}\n{example}"));
    let file: GridSpec = ron::from_str(&std::fs::read_to_string(format!("{ROOT}/{name}")).unwrap()).unwrap();
    assert_eq!(example, file);
}

#[test]
fn the_readme_names_only_files_a_clone_has() {
    let text = readme();
    assert!(!text.contains("../shared"), "a clone has no ../shared");
    for path in ["probe.wsc", "docs/trace-format.md", "docs/design.md", "docs/compare-dram-scheduler.svg"] {
        assert!(text.contains(path), "{path} is mentioned");
        assert!(std::path::Path::new(ROOT).join(path).is_file(), "{path} ships");
    }
    // Every sample the README points at exists.
    for word in text.split(|c: char| c == '`' || c.is_whitespace() || c == '(' || c == ')') {
        let w = word.trim_end_matches([',', '.', ':', ';']);
        if (w.starts_with("sample-configs/") || w.starts_with("tests/fixtures/") || w.starts_with("docs/"))
            && !w.contains(['*', '<', '{'])
            && !w.ends_with('/')
        {
            assert!(std::path::Path::new(ROOT).join(w).exists(), "README names {w}, which does not exist");
        }
    }
}

#[test]
fn gitignore_covers_what_readme_commands_leave_behind() {
    let ignore = std::fs::read_to_string(format!("{ROOT}/.gitignore")).unwrap();
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

/// Every reproduction report's claim table (and a figure's table, where the README shows one) is
/// in the README exactly as `warpscope repro` wrote it, and so are the validation reports' tables:
/// the README's numbers are the tool's, so a report regenerated without the README being brought
/// along fails here.
#[test]
fn readme_claim_tables_are_the_reports_verbatim() {
    let text = readme();
    let mut checked = 0;
    for entry in std::fs::read_dir(format!("{ROOT}/docs/repro")).unwrap() {
        let report = entry.unwrap().path().join("report.md");
        let Ok(body) = std::fs::read_to_string(&report) else { continue };
        let claims = table_after(&body, "| source | claim |").expect("a report opens with its claim table");
        assert!(
            text.contains(&claims),
            "README lacks {}'s claim table as generated:\n{claims}",
            report.display()
        );
        checked += 1;
    }
    assert!(checked >= 8, "every shipped study's report was found ({checked})");
    let seed_002 = std::fs::read_to_string(format!("{ROOT}/docs/repro/seed-002/report.md")).unwrap();
    let fig3 = table_after(&seed_002, "| benchmark | 0 | 120 |").expect("seed 002's report draws Fig. 3");
    assert!(text.contains(&fig3), "README lacks seed 002's Fig. 3 table as generated:\n{fig3}");
    // The validation against Accel-Sim: `warpscope validate`'s table, and warpscope's cycles now
    // beside it (`OURS_ONLY=1 scripts/validate-accelsim.sh`).
    for (file, header) in [
        ("accelsim-qv100.md", "| kernel | cycles peer | cycles ours | err |"),
        ("accelsim-qv100-now.md", "| kernel | cycles peer | cycles ours (table) |"),
    ] {
        let body = std::fs::read_to_string(format!("{ROOT}/docs/validation/{file}")).unwrap();
        let table = table_after(&body, header).expect("the validation report has its table");
        assert!(text.contains(&table), "README lacks docs/validation/{file}'s table as generated:\n{table}");
    }
}
