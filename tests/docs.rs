//! The manual's generated parts are the program's own output: the report-keys page is made
//! from the key table in `src/sim/stats/keys.rs`, and the pictures in `docs/img/` are frames the
//! TUI's renderer draws after the commands listed here. A stale file is rewritten and the test
//! fails, so a change that moves them is committed with them.

use std::sync::Arc;
use warpscope::config::Config;
use warpscope::debug::Session;
use warpscope::sim::Gpu;
use warpscope::sim::stats::keys;
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
