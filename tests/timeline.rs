//! The timeline export (issue 17 item 4): a window of history as a Chrome/Perfetto
//! trace-event file. The slices of a known load are where the blame (worked out from the same
//! replay by its own code) puts its requests' stages, cycle for cycle; flows link the load's
//! requests; DRAM commands are instants on bank tracks; every event is one chrome://tracing
//! reads; the file is the same byte for byte however and however often it is made; bad
//! windows and paths are refused with clear errors.

mod common;

use common::{small_config, workload};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;
use warpscope::debug::blame::{LoadBlame, Stage};
use warpscope::debug::recording::warp_load_blame;
use warpscope::debug::{Outcome, Session};
use warpscope::sim::stats::metrics::group;

const TINY: &str = include_str!("fixtures/tiny.ron");
const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

fn run(s: &mut Session, cmd: &str) -> String {
    match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        other => panic!("{cmd}: {other:?}"),
    }
}

/// A parsed trace: its events, and the names of its processes and threads.
struct Trace {
    events: Vec<Value>,
    processes: BTreeMap<u64, String>,
    threads: BTreeMap<(u64, u64), String>,
}

impl Trace {
    fn read(path: &std::path::Path) -> Trace {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("valid JSON");
        assert_eq!(v["displayTimeUnit"], "ns");
        assert!(v["otherData"]["time"].as_str().unwrap().contains("1 trace microsecond = 1 core cycle"));
        let events = v["traceEvents"].as_array().expect("a traceEvents array").clone();
        let (mut processes, mut threads) = (BTreeMap::new(), BTreeMap::new());
        for e in &events {
            let name = || e["args"]["name"].as_str().unwrap().to_string();
            match e["name"].as_str().unwrap() {
                "process_name" => {
                    processes.insert(e["pid"].as_u64().unwrap(), name());
                }
                "thread_name" => {
                    threads.insert((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()), name());
                }
                _ => {}
            }
        }
        Trace { events, processes, threads }
    }

    fn of_ph<'a>(&'a self, ph: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.events.iter().filter(move |e| e["ph"] == ph)
    }

    /// The process and thread names of an event.
    fn place(&self, e: &Value) -> (String, String) {
        let (pid, tid) = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        (self.processes[&pid].clone(), self.threads.get(&(pid, tid)).cloned().unwrap_or_default())
    }
}

/// Where a stage of the blame should be drawn: the process and the track (thread names are the
/// track's, with ` #N` on extra lanes).
fn track_of(b: &LoadBlame, stage: Stage, unit: u16) -> (String, &'static str) {
    let sm = format!("SM {}", b.core);
    match stage {
        Stage::Ldst => (sm, "LD/ST"),
        Stage::L1Latency => (sm, "L1 latency queue"),
        Stage::L1Hit | Stage::L1Merged | Stage::L1MissQueue => (sm, "L1"),
        Stage::Request => ("crossbar".into(), "request network"),
        Stage::L2Queue => (format!("L2 slice {unit}"), "access queue"),
        Stage::L2Latency => (format!("L2 slice {unit}"), "latency queue"),
        Stage::DramLatency => (format!("DRAM channel {unit}"), "latency queue"),
        Stage::L2Hit | Stage::L2Merged | Stage::L2Fill => (format!("L2 slice {unit}"), "lookup and fill"),
        Stage::L2MissQueue => (format!("L2 slice {unit}"), "miss queue"),
        Stage::Dram => unreachable!("split in two tracks"),
        Stage::Reply => ("crossbar".into(), "reply network"),
        Stage::ReplyQueue => (sm, "reply queue"),
    }
}

fn on_track(thread: &str, track: &str) -> bool {
    thread == track || thread.strip_prefix(track).is_some_and(|r| r.starts_with(" #"))
}

/// A finished load that went to the DRAM, of some warp, at the session's cycle.
fn a_dram_load(s: &Session) -> LoadBlame {
    for core in 0..4 {
        for warp in 0..8 {
            if let Ok(b) = warp_load_blame(&s.gpu, &s.travel, (core, warp), None)
                && b.requests.len() > 1
                && b.requests.iter().all(|r| r.stages.iter().any(|st| st.stage == Stage::Dram))
            {
                return b;
            }
        }
    }
    panic!("no finished load of several DRAM requests");
}

#[test]
fn a_known_load_is_drawn_where_the_blame_puts_it() {
    a_known_load_is_drawn_where_the_blame_puts_it_on(&[]);
}

/// With GPGPU-Sim's fixed delays each has a track of its own, the L2's and the DRAM's
/// latency queue, on which the load's requests stay as long as the blame's stage says.
#[test]
fn a_known_load_is_drawn_where_the_blame_puts_it_through_the_latency_queues() {
    a_known_load_is_drawn_where_the_blame_puts_it_on(&["l2.latency_queue=true", "dram.frontend_latency=100"]);
}

fn a_known_load_is_drawn_where_the_blame_puts_it_on(sets: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(small_config(sets), workload(TINY, 1)).unwrap();
    run(&mut s, "until 9000");
    let b = a_dram_load(&s);
    let (from, to) = (b.issued.saturating_sub(200), 9000);
    let path = dir.path().join("run.json");
    let said = run(&mut s, &format!("timeline {} {from} {to}", path.display()));
    assert!(
        said.starts_with(&format!("wrote {}: cycles {}..{}", path.display(), group(from), group(to))),
        "{said}"
    );
    let t = Trace::read(&path);

    // chrome://tracing needs these on every event; slices and counters lie in the window.
    for e in &t.events {
        for key in ["name", "ph", "ts", "pid", "tid"] {
            assert!(!e[key].is_null(), "{key} missing from {e}");
        }
        let ts = e["ts"].as_u64().unwrap();
        match e["ph"].as_str().unwrap() {
            "M" => {}
            "X" => {
                let end = ts + e["dur"].as_u64().unwrap();
                assert!(from <= ts && ts < end && end <= to, "slice outside the window: {e}");
                assert!(!t.place(e).1.is_empty(), "slice on an unnamed thread: {e}");
            }
            "i" | "C" | "s" | "t" | "f" => assert!((from..=to).contains(&ts), "outside the window: {e}"),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }

    // Every stage of every request of the load is a slice on its track, with the blame's cycles.
    let label = format!("{}.{} load {}", b.core, b.warp, b.seq);
    for r in &b.requests {
        let slices: Vec<&Value> = t.of_ph("X").filter(|e| e["args"]["request"] == r.who.id).collect();
        assert!(slices.iter().all(|e| e["name"] == label.as_str()), "slices named by their warp-load");
        let find = |process: &str, track: &str| {
            let found: Vec<&&Value> = slices
                .iter()
                .filter(|e| {
                    let (p, th) = t.place(e);
                    p == process && on_track(&th, track)
                })
                .collect();
            assert_eq!(found.len(), 1, "request {} on {process} / {track}: {found:?}", r.who.id);
            let e = found[0];
            let ts = e["ts"].as_u64().unwrap();
            (ts, ts + e["dur"].as_u64().unwrap())
        };
        let mut expected = 0;
        for st in r.stages.iter().filter(|st| st.to > st.from) {
            if st.stage == Stage::Dram {
                let channel = format!("DRAM channel {}", st.unit);
                let bank_slice = slices
                    .iter()
                    .find(|e| {
                        let (p, th) = t.place(e);
                        p == channel && th.starts_with("bank ") && th.contains(" requests")
                    })
                    .expect("a slice on a bank");
                let (_, bank_track) = t.place(bank_slice);
                let bank = bank_track.split(' ').nth(1).unwrap().to_string();
                let (b0, b1) = find(&channel, &format!("bank {bank} requests"));
                assert_eq!(b1, st.to, "the DRAM stage of request {} ends with its data", r.who.id);
                expected += 1;
                // Until its column command it waited in the controller's queue (its PRE and ACT,
                // if it needed them, issued meanwhile): its commands are instants on its bank.
                if b0 > st.from {
                    assert_eq!(find(&channel, "controller queue"), (st.from, b0), "request {}", r.who.id);
                    expected += 1;
                }
                let own: Vec<&Value> = t.of_ph("i").filter(|e| e["args"]["request"] == r.who.id).collect();
                assert!(own.iter().any(|c| c["name"] == "RD" && c["ts"] == b0), "a RD at {b0}: {own:?}");
                for c in own {
                    assert_eq!(t.place(c), (channel.clone(), format!("bank {bank}")));
                    assert!((st.from..=b0).contains(&c["ts"].as_u64().unwrap()), "{c}");
                }
            } else {
                let (process, track) = track_of(&b, st.stage, st.unit);
                assert_eq!(find(&process, track), (st.from, st.to), "{:?} of request {}", st.stage, r.who.id);
                expected += 1;
            }
        }
        assert_eq!(slices.len(), expected, "one slice per stage, the DRAM's in two");
    }

    // Flows: each request's slices in journey order, and the load's requests linked by return.
    let mut flows: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for e in t.events.iter().filter(|e| matches!(e["ph"].as_str(), Some("s" | "t" | "f"))) {
        flows.entry(e["id"].as_u64().unwrap()).or_default().push(e);
    }
    let mut slices_of: BTreeMap<(u64, u64), Vec<(u64, u64)>> = BTreeMap::new();
    for x in t.of_ph("X") {
        let ts = x["ts"].as_u64().unwrap();
        let place = (x["pid"].as_u64().unwrap(), x["tid"].as_u64().unwrap());
        slices_of.entry(place).or_default().push((ts, ts + x["dur"].as_u64().unwrap()));
    }
    // A thread's slices do not overlap (the viewers want them nested; lanes keep them apart).
    for (place, lane) in &mut slices_of {
        lane.sort_unstable();
        assert!(lane.windows(2).all(|w| w[0].1 < w[1].0), "slices overlap on thread {place:?}");
    }
    for chain in flows.values() {
        let phases: Vec<&str> = chain.iter().map(|e| e["ph"].as_str().unwrap()).collect();
        assert!(phases.len() >= 2 && phases[0] == "s" && phases[phases.len() - 1] == "f", "{phases:?}");
        assert!(phases[1..phases.len() - 1].iter().all(|p| *p == "t"), "{phases:?}");
        assert_eq!(chain.last().unwrap()["bp"], "e");
        // Each flow event lies inside a slice of its thread.
        for e in chain {
            let ts = e["ts"].as_u64().unwrap();
            let place = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
            let lane = &slices_of[&place];
            let at = lane.partition_point(|(a, _)| *a <= ts);
            assert!(at > 0 && ts < lane[at - 1].1, "flow event not on a slice: {e}");
        }
    }
    let of_load: Vec<&Vec<&Value>> = flows.values().filter(|c| c[0]["name"] == label.as_str()).collect();
    let returns: Vec<&&Vec<&Value>> = of_load.iter().filter(|c| c[0]["cat"] == "load").collect();
    assert_eq!(returns.len(), 1, "one flow links the load's requests");
    assert_eq!(returns[0].len(), b.requests.len(), "through each of its requests");
    let mut back: Vec<u64> = returns[0].iter().map(|e| e["ts"].as_u64().unwrap()).collect();
    assert!(back.is_sorted(), "in the order their data came back");
    back.sort_unstable();
    let mut want: Vec<u64> = b.requests.iter().map(|r| r.stages.last().unwrap().to - 1).collect();
    want.sort_unstable();
    assert_eq!(back, want, "at the last cycle of each request's journey");
    assert_eq!(of_load.iter().filter(|c| c[0]["cat"] == "request").count(), b.requests.len());

    // DRAM commands are instants on bank tracks of channels; queue counters are there.
    let commands: Vec<&Value> = t.of_ph("i").filter(|e| e["cat"] == "dram").collect();
    assert!(commands.len() > 50, "{} commands", commands.len());
    for c in &commands {
        let (p, th) = t.place(c);
        assert!(p.starts_with("DRAM channel "), "{c}");
        assert_eq!(th, format!("bank {}", c["args"]["bank"]), "{c}");
        assert!(["ACT", "PRE", "RD", "WR", "REF"].contains(&c["name"].as_str().unwrap()), "{c}");
    }
    assert!(t.of_ph("C").any(|e| e["name"] == "L1 miss queue" && e["args"]["requests"].as_u64() > Some(0)));
    // The controller queue's counter is the machine's read and write queues: a sample at cycle
    // t is the state after that cycle (the machine at t + 1).
    let queue: Vec<(String, u64, Value)> = t
        .of_ph("C")
        .filter(|e| e["name"] == "controller queue")
        .map(|e| {
            (t.processes[&e["pid"].as_u64().unwrap()].clone(), e["ts"].as_u64().unwrap(), e["args"].clone())
        })
        .collect();
    assert!(queue.len() > 50, "{} controller queue samples", queue.len());
    for (channel, ts, args) in queue.iter().step_by(queue.len() / 12) {
        let ch = channel.strip_prefix("DRAM channel ").unwrap();
        run(&mut s, &format!("goto {}", ts + 1));
        for (series, path) in [("reads", "read_queue"), ("writes", "write_queue")] {
            let state = run(&mut s, &format!("print dram[{ch}].{path}"));
            assert_eq!(state, format!("dram[{ch}].{path} = {}", args[series]), "at cycle {ts}");
        }
    }

    // Deterministic: the same window again, from elsewhere in time, is the same file.
    run(&mut s, "goto 100");
    let again = dir.path().join("again.json");
    run(&mut s, &format!("timeline {} {from} {to}", again.display()));
    assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&again).unwrap());
}

#[test]
fn the_debugger_refuses_bad_windows_and_paths() {
    let mut s = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    run(&mut s, "until 3000");
    let err = |s: &mut Session, cmd: &str| s.execute_blocking(cmd).unwrap_err();
    assert!(err(&mut s, "timeline x.json 2000 1000").contains("is empty: FROM must be before TO"));
    assert!(err(&mut s, "timeline x.json 0 900000").contains("more than the limit of 200,000"));
    assert!(
        err(&mut s, "timeline x.json 1000 5000").contains("beyond the history, which reaches cycle 3,000")
    );
    assert!(err(&mut s, "timeline /no/such/dir/x.json").contains("does not exist"));
    assert!(err(&mut s, "timeline -").contains("give its path"));
    assert!(err(&mut s, "timeline").contains("timeline FILE [FROM TO]"));
    // The default window is the last 2000 cycles.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("last.json");
    let said = run(&mut s, &format!("timeline {}", path.display()));
    assert!(said.contains("cycles 1,000..3,000"), "{said}");
}

/// The exit code, standard output and standard error of the binary.
fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().expect("binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_command_line_writes_what_the_debugger_writes_and_refuses_bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cli.json");
    let base = ["timeline", "-c", "tests/fixtures/small.ron", "-w", "tests/fixtures/tiny.ron"];
    let with = |extra: &[&str]| -> Vec<String> { base.iter().chain(extra).map(|s| s.to_string()).collect() };
    let args = with(&["--from", "2000", "--to", "3000", "--out", out.to_str().unwrap()]);
    let (code, said, err) = cli(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    assert!(said.contains("cycles 2,000..3,000") && said.contains("ui.perfetto.dev"), "{said}");
    let mut s = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    run(&mut s, "until 3000");
    let debugger = dir.path().join("debugger.json");
    run(&mut s, &format!("timeline {} 2000 3000", debugger.display()));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&debugger).unwrap(), "the same bytes");

    let refused = |extra: &[&str], want: &str| {
        let args = with(extra);
        let (code, _, err) = cli(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    };
    let o = out.to_str().unwrap();
    refused(&["--from", "3000", "--to", "2000", "--out", o], "is empty: FROM must be before TO");
    refused(&["--from", "0", "--to", "5000000", "--out", o], "more than the limit of 200,000");
    refused(
        &["--from", "0", "--to", "10", "--out", "/no/such/dir/t.json"],
        "does not exist (create it first)",
    );
    refused(
        &["--from", "190000", "--to", "200000", "--out", o],
        "is beyond the run's end: the program finished at cycle",
    );
}
