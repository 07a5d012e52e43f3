//! `warpscope diff` (issue 40): two machines on one workload. Identical machines part nowhere
//! and differ by nothing; the first DRAM command two schedulers issue differently is the one a
//! plain comparison of their command traces finds; the load wait's differences by stage and
//! cause add up to the difference in total load latency, which a loop over the recorded issues
//! and data arrivals computes on its own.

mod common;

use common::{run_traced, small_config, workload};
use std::collections::HashMap;
use std::process::Command;
use std::sync::Arc;
use warpscope::batch::diff::{self, Side};
use warpscope::config::Config;
use warpscope::sim::Gpu;
use warpscope::sim::record::Point;

const TINY: &str = include_str!("fixtures/tiny.ron");
const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

fn side(sets: &[&str]) -> Side {
    diff::record(&small_config(sets), workload(TINY, 1), 0).expect("runs")
}

fn sets(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

#[test]
fn identical_machines_part_nowhere_and_differ_by_nothing() {
    let (a, b) = (side(&[]), side(&[]));
    let d = diff::diff("tiny", &[], &[], &a, &b);
    assert!(d.loads_a > 100, "the workload has loads to compare ({})", d.loads_a);
    assert_eq!((d.issue_parting, d.command_parting), (None, None));
    assert!(d.wait.iter().all(|w| w.change == 0 && w.a == w.b), "{:?}", d.wait);
    assert!(d.keys.is_empty(), "{:?}", d.keys);
    assert!(d.loads.is_empty());
    assert_eq!((d.cycles_a, d.load_wait_a), (d.cycles_b, d.load_wait_b));
    assert_eq!(d.speedup, 1.0);
}

/// Per channel, the first place two command traces (`<dram_cycle> <channel> <bank> <CMD>
/// <row> <col>`, as the controllers' events give them, one step at a time) differ; the
/// earliest of them.
fn first_difference(a: &[String], b: &[String]) -> Option<(u16, Option<String>, Option<String>)> {
    let of = |t: &[String], ch: u16| -> Vec<String> {
        t.iter().filter(|l| l.split(' ').nth(1) == Some(&ch.to_string())).cloned().collect()
    };
    let cycle =
        |l: &Option<String>| l.as_ref().map_or(u64::MAX, |l| l.split(' ').next().unwrap().parse().unwrap());
    (0..2u16)
        .filter_map(|ch| {
            let (x, y) = (of(a, ch), of(b, ch));
            let i = (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i))?;
            Some((ch, x.get(i).cloned(), y.get(i).cloned()))
        })
        .min_by_key(|(_, x, y)| cycle(x).min(cycle(y)))
}

/// FR-FCFS serves a younger row hit ahead of an older miss where FCFS serves the miss: the
/// first command where they choose differently is where `diff` says the streams part.
#[test]
fn the_first_dram_command_two_schedulers_issue_differently_is_found() {
    let (ca, cb) = (small_config(&["dram.scheduler=frfcfs"]), small_config(&["dram.scheduler=fcfs"]));
    let trace =
        |c: &Config| run_traced(Gpu::new(Arc::new(c.clone()), workload(TINY, 1)).unwrap(), 3_000_000).2;
    let (ta, tb) = (trace(&ca), trace(&cb));
    let (channel, ra, rb) = first_difference(&ta, &tb).expect("the schedulers choose differently somewhere");
    let (a, b) =
        (diff::record(&ca, workload(TINY, 1), 0).unwrap(), diff::record(&cb, workload(TINY, 1), 0).unwrap());
    let d = diff::diff("tiny", &sets(&["dram.scheduler=frfcfs"]), &sets(&["dram.scheduler=fcfs"]), &a, &b);
    let p = d.command_parting.expect("the streams part");
    let line = |c: &Option<diff::Cmd>| {
        c.map(|c| format!("{} {} {} {} {}", c.dram_cycle, c.channel, c.bank, c.kind, c.row))
    };
    let prefix = |l: &Option<String>| l.as_ref().map(|l| l.split(' ').take(5).collect::<Vec<_>>().join(" "));
    assert_eq!(p.a.or(p.b).unwrap().channel, channel);
    assert_eq!((line(&p.a), line(&p.b)), (prefix(&ra), prefix(&rb)), "the two commands where they part");
}

/// Total load latency from the passes alone: each load's issue to the last of its requests'
/// data at the warp, over the loads whose data is all back.
fn total_latency(config: &Config) -> (u64, usize) {
    let mut g = Gpu::new(Arc::new(config.clone()), workload(TINY, 1)).unwrap();
    g.events.set_mask(0);
    g.events.set_recording(true);
    let mut passes = Vec::new();
    while g.is_running() {
        g.step();
        passes.extend(g.events.take_passes());
    }
    // A warp slot's next warp numbers its loads from 0 again: a data arrival belongs to the
    // latest issue of its (core, warp slot, load number).
    let mut latest: HashMap<(u16, u16, u32), usize> = HashMap::new();
    let mut loads: Vec<(u64, usize, Vec<u64>)> = Vec::new();
    for p in &passes {
        let key = (p.who.core, p.who.warp, p.who.seq);
        match p.point {
            Point::Issue => {
                latest.insert(key, loads.len());
                loads.push((p.cycle, usize::from(p.detail), Vec::new()));
            }
            Point::Done if p.who.kind.is_some_and(|k| k.is_load()) => loads[latest[&key]].2.push(p.cycle),
            _ => {}
        }
    }
    let mut total = (0, 0);
    for (issued, requests, back) in loads {
        if back.len() == requests {
            total.0 += back.iter().max().unwrap() - issued;
            total.1 += 1;
        }
    }
    total
}

#[test]
fn the_stage_differences_add_up_to_the_difference_in_total_load_latency() {
    let (ca, cb) = (small_config(&["dram.scheduler=frfcfs"]), small_config(&["dram.scheduler=fcfs"]));
    let (a, b) =
        (diff::record(&ca, workload(TINY, 1), 0).unwrap(), diff::record(&cb, workload(TINY, 1), 0).unwrap());
    let d = diff::diff("tiny", &[], &[], &a, &b);
    assert_eq!((d.load_wait_a, d.loads_a), total_latency(&ca), "A's loads, counted from the passes");
    assert_eq!((d.load_wait_b, d.loads_b), total_latency(&cb), "B's loads, counted from the passes");
    let (sum_a, sum_b, change): (u64, u64, i64) =
        d.wait.iter().fold((0, 0, 0), |(x, y, c), w| (x + w.a, y + w.b, c + w.change));
    assert_eq!(
        (sum_a, sum_b),
        (d.load_wait_a, d.load_wait_b),
        "each machine's parts add up to its load latency"
    );
    assert_eq!(change, d.load_wait_b as i64 - d.load_wait_a as i64);
    assert_ne!(change, 0, "the schedulers make a difference here");
    assert!(
        d.wait.windows(2).all(|w| w[0].change.abs() >= w[1].change.abs()),
        "ranked by the size of the change"
    );
}

#[test]
fn the_command_writes_its_reports_and_names_a_bad_setting() {
    let dir = tempfile::tempdir().unwrap();
    let (json, md) = (dir.path().join("d.json"), dir.path().join("d.md"));
    let base = ["diff", "-c", "tests/fixtures/small.ron", "-w", "tests/fixtures/tiny.ron"];
    let out = Command::new(BIN)
        .args(base)
        .args(["--a", "dram.scheduler=frfcfs", "--b", "dram.scheduler=fcfs", "--json"])
        .arg(&json)
        .arg("--md")
        .arg(&md)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Load wait by stage and cause") && text.contains("DRAM commands part at cycle"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["a_sets"][0], "dram.scheduler=frfcfs");
    assert!(std::fs::read_to_string(&md).unwrap().starts_with("# diff: "));
    let same = Command::new(BIN)
        .args(base)
        .args(["--a", "dram.banks=16", "--b", "dram.banks=16"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stderr).contains("--a and --b give the same machine"));
    let bad = Command::new(BIN)
        .args(base)
        .args(["--a", "dram.bankz=16"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("--a dram.bankz=16") && err.contains("unknown key"), "{err}");
}

/// Blaming loads as their data comes back, a slice of history at a time and holding only the
/// passes of the loads in flight, gives every load the blame a pass over the whole history
/// gives it; `push_critical` gives its critical request's stages and cycles per cause.
#[test]
fn streaming_blame_is_the_whole_historys_blame() {
    use warpscope::debug::blame::{CriticalBlame, LoadBlame, RequestBlame, Streaming, blame_all};
    // A request's stages and their cycles per cause, leaving out what only the detailed blame
    // has: the requests served ahead, and stages and parts of no cycles.
    type Stages = Vec<(&'static str, u64, u64, Vec<(&'static str, u64)>)>;
    fn cycles(r: &RequestBlame) -> (u64, Stages) {
        let stages = r.stages.iter().filter(|s| s.to > s.from).map(|s| {
            let parts = s.parts.iter().filter(|p| p.cycles > 0).map(|p| (p.cause.name(), p.cycles));
            (s.stage.name(), s.from, s.to, parts.collect())
        });
        (r.who.id, stages.collect())
    }
    for sched in ["frfcfs", "wg-w"] {
        let mut g =
            Gpu::new(Arc::new(small_config(&[&format!("dram.scheduler={sched}")])), workload(TINY, 1))
                .unwrap();
        g.events.set_mask(0);
        g.events.set_recording(true);
        let (mut all, mut streamed, mut s) = (Vec::new(), Vec::new(), Streaming::default());
        let (mut critical, mut c) = (Vec::new(), Streaming::default());
        while g.is_running() {
            // An odd slice, so that loads straddle the slices' edges.
            let end = g.cycle + 97;
            g.run(end);
            let mut passes = g.events.take_passes();
            passes.sort_by_key(|p| p.cycle);
            streamed.extend(s.push(&passes));
            critical.extend(c.push_critical(&passes));
            all.extend(passes);
        }
        all.sort_by_key(|p| p.cycle);
        let key = |l: &LoadBlame| (l.issued, l.core, l.warp, l.seq);
        streamed.sort_by_key(key);
        let mut whole = blame_all(&all, 0);
        whole.sort_by_key(key);
        assert!(whole.len() > 1000, "{sched}: {} loads", whole.len());
        assert_eq!(streamed.len(), whole.len(), "{sched}");
        assert!(streamed == whole, "{sched}: the streamed blame differs");
        critical.sort_by_key(|l: &CriticalBlame| (l.issued, l.core, l.warp, l.seq));
        assert_eq!(critical.len(), whole.len(), "{sched}");
        for (c, w) in critical.iter().zip(&whole) {
            assert_eq!((c.issued, c.core, c.warp, c.seq), key(w), "{sched}");
            assert_eq!(c.latency(), w.latency(), "{sched}: load {} of {}.{}", w.seq, w.core, w.warp);
            assert_eq!(c.request.as_ref().map(cycles), w.critical().map(cycles), "{sched}: {w:?}");
        }
    }
}
