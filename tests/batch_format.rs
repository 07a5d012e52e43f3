//! `batch --format csv|json` (issue 39.5): `show` views as data, the same cells the text view
//! shows.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

fn batch(args: &[&str]) -> String {
    let out = Command::new(BIN).arg("batch").args(args).output().expect("binary runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const SCRIPT: &str = "break occlusion; continue; show stats; show blame 22.3; show interference";

#[test]
fn json_gives_a_line_per_command_and_the_views_tables_as_the_text_shows_them() {
    let out = batch(&["--format", "json", "-x", SCRIPT]);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5, "a line per command: {out}");
    assert_eq!(lines[1]["command"], "continue");
    let stop = lines[1]["text"].as_str().unwrap();
    // "Breakpoint 1, cycle 1,667: ..." — the stats view's cycles row holds the same cycle.
    let cycle = stop.split("cycle ").nth(1).unwrap().split(':').next().unwrap();
    let blocks = lines[2]["view"]["blocks"].as_array().unwrap();
    let table = blocks.iter().find_map(|b| b.get("table")).expect("the stats view has a table");
    assert_eq!(table["header"], serde_json::json!(["metric", "unit", "value"]));
    let cycles = table["rows"].as_array().unwrap().iter().find(|r| r[0] == "cycles").unwrap();
    assert_eq!(cycles[2], cycle);
    assert!(lines[2]["view"]["blocks"].as_array().unwrap().iter().any(|b| b.get("sparks").is_some()));
    // The blame view's stage table: each row's stage and cycles, as the text view prints them.
    let text = batch(&["-x", SCRIPT]);
    let blame = lines[3]["view"]["blocks"].as_array().unwrap().iter().find_map(|b| b.get("table")).unwrap();
    for row in blame["rows"].as_array().unwrap() {
        let (stage, cycles) = (row[0].as_str().unwrap(), row[1].as_str().unwrap());
        assert!(
            text.lines().any(|l| l.split_whitespace().take(2).eq([stage, cycles])),
            "{stage} {cycles} not in the text view"
        );
    }
    assert!(lines[4]["view"]["title"].as_str().unwrap().starts_with("Interference"), "{}", lines[4]);
}

#[test]
fn csv_gives_each_table_with_a_header_and_comments_for_the_rest() {
    let out = batch(&["--format", "csv", "-x", SCRIPT]);
    assert!(out.starts_with("# (ws) break occlusion\n"), "{out}");
    assert!(out.contains("\nmetric,unit,value\ncycles,core cycles,"), "{out}");
    assert!(out.contains("\nstage,cycles,share,what it went to\n"), "{out}");
    assert!(out.contains("\nseries,values\nIPC,"), "{out}");
}
