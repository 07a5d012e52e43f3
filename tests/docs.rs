//! The manual's generated parts are the program's own output: the report-keys page is made
//! from the key table in `src/sim/stats/keys.rs`, the pictures in `docs/img/` are frames the
//! TUI's renderer draws after the commands listed here, and the robustness page's table of
//! generative tests is `tests/common/cases.rs`. A stale file is rewritten and the test
//! fails, so a change that moves them is committed with them.

mod common;

use common::cases::GENERATIVE;
use std::sync::Arc;
use warpscope::config::Config;
use warpscope::debug::Session;
use warpscope::sim::Gpu;
use warpscope::sim::stats::keys;
use warpscope::sim::stats::metrics::group;
use warpscope::sim::stats::report::Report;
use warpscope::tui::{TuiOptions, prepared_app, screenshot};
use warpscope::workload::Workload;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Checks that `path` (from the repository's root) holds `want`; if not, writes it and fails.
fn generated(path: &str, want: &str) {
    let full = format!("{ROOT}/{path}");
    let have = std::fs::read_to_string(&full).unwrap_or_default();
    if have != want {
        std::fs::write(&full, want).unwrap();
        panic!("{path} was out of date and has been regenerated: review and commit it");
    }
}

#[test]
fn the_report_keys_page_is_the_key_table() {
    generated("docs/report-keys.md", &keys::markdown());
}

#[test]
fn the_debugger_reference_is_the_program_s_tables() {
    generated("docs/debugger-reference.md", &warpscope::tui::reference::markdown());
}

/// Every key a report has is documented, with a unit, and every documented key exists: the
/// page cannot fall behind the report nor list keys it no longer has.
#[test]
fn every_report_key_has_a_row_and_every_row_a_key() {
    let config = Config::builtin();
    let gpu = Gpu::new(Arc::new(config), Arc::new(Workload::load_or_builtin(None, 1).unwrap())).unwrap();
    let report = Report::new(&gpu, 0.0);
    let flat: Vec<String> = report.flat().into_iter().map(|(k, _)| k).collect();
    for k in &flat {
        assert!(keys::doc(k).is_some(), "report key `{k}` has no row in src/sim/stats/keys.rs");
    }
    // Arrays are in the JSON only: their paths, with `[]`.
    fn arrays(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    arrays(&if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") }, v, out)
                }
            }
            serde_json::Value::Array(_) => out.push(format!("{prefix}[]")),
            _ => {}
        }
    }
    let mut array_keys = Vec::new();
    arrays("", &serde_json::to_value(&report).unwrap(), &mut array_keys);
    for d in keys::KEYS {
        let found = match d.pattern.strip_suffix("[]") {
            Some(_) => array_keys
                .iter()
                .any(|a| keys::matches(d.pattern.trim_end_matches("[]"), a.trim_end_matches("[]"))),
            None => flat.iter().any(|k| keys::doc(k).is_some_and(|r| std::ptr::eq(r, d))),
        };
        assert!(found, "documented key `{}` is in no report", d.pattern);
    }
}

/// The manual's pictures: file, layout, terminal size, commands before the frame.
const SCREENSHOTS: &[(&str, &str, (u16, u16), &str)] = &[
    ("docs/img/breakpoint.svg", "default", (160, 48), "break occlusion; continue"),
    (
        "docs/img/inspector.svg",
        "warp",
        (160, 48),
        "break load-done if requests > 8 && divergence > 300; continue",
    ),
];

#[test]
fn the_screenshots_are_the_renderer_s_frames() {
    for (path, layout, (w, h), commands) in SCREENSHOTS {
        let session = Session::new(
            Config::builtin(),
            Arc::new(Workload::load_or_builtin(None, Config::builtin().sim.seed).unwrap()),
        )
        .unwrap();
        let opts = TuiOptions {
            layout: Some(layout.to_string()),
            layouts_dir: format!("{ROOT}/layouts").into(),
            commands: commands.split(';').map(str::to_string).collect(),
            ..TuiOptions::default()
        };
        let (mut app, ran) = prepared_app(session, &opts, warpscope::tui::Theme { color: true });
        ran.unwrap();
        generated(path, &screenshot::svg(&mut app, *w, *h));
    }
}

/// The robustness page's table of generative tests is the table their case counts come from
/// (issue 37.6: the number of cases each runs in CI, stated in one place).
#[test]
fn the_robustness_page_states_every_generative_test_s_cases() {
    let path = "docs/robustness.md";
    let page = std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap();
    let header = "| input | each case | test | cases |";
    let at = page.find(header).expect("the robustness page has the table of generative tests");
    let old: usize = page[at..].lines().take_while(|l| l.starts_with('|')).map(|l| l.len() + 1).sum();
    let mut table = format!("{header}\n|---|---|---|---:|\n");
    for g in GENERATIVE {
        table +=
            &format!("| {} | {} | `{}` `{}` | {} |\n", g.class, g.generated, g.file, g.test, group(g.cases));
    }
    table += &format!("| all | | | {} |\n", group(GENERATIVE.iter().map(|g| g.cases).sum::<u32>()));
    let rest = page.get(at + old..).unwrap_or_default();
    generated(path, &format!("{}{table}{rest}", &page[..at]));
}

/// Every generative test (`proptest!`) of `src/` and `tests/` takes its number of cases from
/// `tests/common/cases.rs`, and the constants each file takes are those of its rows in
/// [`GENERATIVE`], whose tests it has, so the table cannot drift from what runs.
#[test]
fn every_generative_test_takes_its_cases_from_the_table() {
    let constants = std::fs::read_to_string(format!("{ROOT}/tests/common/cases.rs")).unwrap();
    let mut files = common::rust_files(&std::path::Path::new(ROOT).join("src"));
    files.extend(common::rust_files(&std::path::Path::new(ROOT).join("tests")));
    let mut rows = 0;
    for f in files {
        let rel = f.strip_prefix(ROOT).unwrap().to_string_lossy().trim_start_matches('/').to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        let code: String =
            text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        // The macro's name, spelt so that this line is not an invocation; its configuration
        // comes first, within a few lines.
        for (i, _) in code.match_indices(concat!("proptest", "!")) {
            let head = code[i..].chars().take(160).collect::<String>();
            assert!(
                head.contains("cases"),
                "{rel}: a generative test not sized by tests/common/cases.rs: {head}"
            );
        }
        let named: std::collections::BTreeSet<&str> = code
            .match_indices("cases::")
            .map(|(i, _)| {
                code[i + 7..]
                    .split(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                    .next()
                    .unwrap()
            })
            .filter(|n| constants.contains(&format!("pub const {n}: u32 =")))
            .collect();
        let mine: Vec<_> = GENERATIVE.iter().filter(|g| g.file == rel).collect();
        let listed: std::collections::BTreeSet<&str> = mine.iter().map(|g| g.constant).collect();
        assert_eq!(named, listed, "{rel}: the constants it takes and its rows in tests/common/cases.rs");
        for g in mine {
            assert!(code.contains(&format!("fn {}(", g.test)), "{rel} has no test {}", g.test);
            let def = format!("pub const {}: u32 = {};", g.constant, g.cases);
            assert!(constants.contains(&def), "tests/common/cases.rs: the row of {} is not `{def}`", g.test);
            rows += 1;
        }
    }
    assert_eq!(rows, GENERATIVE.len(), "every row's file is in src/ or tests/");
}
