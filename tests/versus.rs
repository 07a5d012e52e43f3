//! Two machines in lockstep (`--vs`, `debug::session::versus`): `break diverge` stops where an
//! independent comparison of two plain runs finds the machines part; `load-done ... if delta`
//! compares the same load on both as two plain runs measure it; identical machines never part;
//! every move takes both machines to the same cycle, and where a breakpoint hits does not
//! depend on how the session got there; a pane shows A, B or both with differences marked.

mod common;

use common::{gpu, small_config, workload};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use warpscope::debug::{Outcome, Session};
use warpscope::sim::Gpu;
use warpscope::sim::event::{Event, EventKind};
use warpscope::tui::{App, Layout, Theme, draw};

const TINY: &str = include_str!("fixtures/tiny.ron");
const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
/// What makes B: another DRAM scheduler.
const B: &str = "dram.scheduler=fcfs";

/// A session on the small machine with B beside it, made with `vs`.
fn lockstep(vs: &str) -> Session {
    lockstep_on(&[], vs)
}

/// The same, both machines with `sets`.
fn lockstep_on(sets: &[&str], vs: &str) -> Session {
    let a = Session::new(small_config(sets), workload(TINY, 1)).unwrap();
    let b = Session::new(small_config(&[sets, &[vs]].concat()), workload(TINY, 1)).unwrap();
    a.with_vs(vec![vs.to_string()], b).unwrap()
}

fn run(s: &mut Session, cmd: &str) -> String {
    match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        Ok(other) => panic!("{cmd}: unexpected {other:?}"),
        Err(e) => panic!("{cmd}: {e}"),
    }
}

/// The cycle a stop message names (`Breakpoint 1, cycle 1,234: ...`).
fn stop_cycle(msg: &str) -> u64 {
    let at = msg.split("cycle ").nth(1).unwrap_or_else(|| panic!("no cycle in {msg}"));
    at.split(|c: char| !c.is_ascii_digit() && c != ',').next().unwrap().replace(',', "").parse().unwrap()
}

/// A plain run of the small machine with `sets`, stepped cycle by cycle up to `limit`,
/// reporting `kinds`: the events, and `each` called after every step.
fn plain_run(
    sets: &[&str],
    kinds: &[EventKind],
    limit: u64,
    mut each: impl FnMut(&Gpu),
) -> Vec<(u64, Event)> {
    let mut g = gpu(small_config(sets), workload(TINY, 1));
    for k in kinds {
        g.events.set(*k, true);
    }
    let mut out = Vec::new();
    while g.is_running() && g.cycle < limit {
        g.step();
        out.extend(g.events.drain());
        each(&g);
    }
    out
}

/// Both machines stand at the same cycle, and B's state is that of a plain run of B there.
fn in_step(s: &Session) {
    let b = &s.vs.as_ref().unwrap().b.gpu;
    assert_eq!(b.cycle, s.gpu.cycle, "B follows A");
    let mut fresh = gpu(small_config(&[B]), workload(TINY, 1));
    while fresh.cycle < b.cycle {
        fresh.step();
    }
    assert_eq!(fresh.state_hash(), b.state_hash(), "B at cycle {} is a plain run's", b.cycle);
}

#[test]
fn diverge_dram_stops_where_the_command_streams_of_two_plain_runs_part() {
    let commands = |sets: &[&str]| {
        let cmds = plain_run(sets, &[EventKind::DramCommand], 20_000, |_| {});
        cmds.into_iter()
            .filter_map(|(c, e)| match e {
                Event::DramCommand { channel, cmd, .. } => Some((channel, c, cmd)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = (commands(&[]), commands(&[B]));
    // Per channel, the first command that is not the other's at the same cycle.
    let channels = a.iter().chain(&b).map(|x| x.0).max().unwrap() + 1;
    let parting = (0..channels)
        .filter_map(|ch| {
            let of =
                |v: &[(u16, u64, _)]| v.iter().filter(|x| x.0 == ch).map(|x| (x.1, x.2)).collect::<Vec<_>>();
            let (ca, cb) = (of(&a), of(&b));
            let i = ca.iter().zip(&cb).position(|(x, y)| x != y).unwrap_or(ca.len().min(cb.len()));
            let at = [ca.get(i).map(|x| x.0), cb.get(i).map(|x| x.0)].into_iter().flatten().min()?;
            Some((at, ch))
        })
        .min()
        .expect("FR-FCFS and FCFS part on the test workload");
    let mut s = lockstep(B);
    run(&mut s, "break diverge dram");
    let msg = run(&mut s, "continue");
    assert_eq!(stop_cycle(&msg), parting.0, "{msg}");
    assert!(msg.contains(&format!("channel {} command streams part", parting.1)), "{msg}");
    in_step(&s);
    // One channel only: it parts where that channel's streams do, not earlier.
    let mut s = lockstep(B);
    run(&mut s, &format!("break diverge dram {}", parting.1));
    assert_eq!(stop_cycle(&run(&mut s, "continue")), parting.0);
}

#[test]
fn diverge_issue_stops_where_the_warps_of_two_plain_runs_first_issue_differently() {
    let counts = |sets: &[&str]| {
        let mut per_cycle = Vec::new();
        plain_run(sets, &[], 5_000, |g| {
            let warps: Vec<(bool, u32, u64)> = g
                .sms
                .iter()
                .flat_map(|s| s.exec.warps.iter().map(|w| (w.valid, w.cta, w.instructions)))
                .collect();
            per_cycle.push((g.cycle, warps));
        });
        per_cycle
    };
    let (a, b) = (counts(&[]), counts(&[B]));
    let first = a.iter().zip(&b).find(|(x, y)| x.1 != y.1).map(|(x, _)| x.0).expect("the issue streams part");
    let mut s = lockstep(B);
    run(&mut s, "break diverge issue");
    let msg = run(&mut s, "continue");
    assert_eq!(stop_cycle(&msg), first, "{msg}");
    assert!(msg.contains("issue streams part"), "{msg}");
}

#[test]
fn identical_machines_never_part() {
    // FR-FCFS is the small machine's scheduler already: B is A.
    let mut s = lockstep("dram.scheduler=frfcfs");
    run(&mut s, "break diverge");
    run(&mut s, "break load-done if delta != 0");
    assert_eq!(run(&mut s, "until 3000"), "cycle 3,000");
    let info = run(&mut s, "vs");
    for unit in ["issue streams: the same", "DRAM command streams: the same", "L1 contents: the same"] {
        assert!(info.contains(unit), "{info}");
    }
    assert!(info.contains("0 on A, 0 on B"), "every load finished on both: {info}");
}

#[test]
fn delta_compares_the_same_load_on_both_machines_when_the_later_finishes_it() {
    // Each load's (CTA, warp in CTA, load number, pc) → (cycle done, latency), in plain runs.
    let done = |sets: &[&str]| {
        let events = plain_run(sets, &[EventKind::LoadDone], 20_000, |_| {});
        events
            .into_iter()
            .filter_map(|(c, e)| match e {
                Event::LoadDone { cta, warp_in_cta, seq, pc, issued, last, .. } => {
                    Some(((cta, warp_in_cta, seq, pc), (c, (last - issued) as i64)))
                }
                _ => None,
            })
            .collect::<HashMap<_, _>>()
    };
    let (a, b) = (done(&[]), done(&[B]));
    let mut pairs: Vec<(u64, i64)> =
        a.iter().filter_map(|(k, (ca, la))| b.get(k).map(|(cb, lb)| ((*ca).max(*cb), lb - la))).collect();
    pairs.sort();
    let n = 200;
    let expected: Vec<(u64, i64)> = pairs.iter().copied().filter(|p| p.1 > n).collect();
    assert!(expected.len() >= 3, "some loads are over {n} cycles slower on B");
    let mut cycles: Vec<u64> = expected.iter().map(|p| p.0).collect();
    cycles.dedup();
    let mut s = lockstep(B);
    run(&mut s, &format!("break load-done if delta > {n}"));
    for c in &cycles[..3] {
        let msg = run(&mut s, "continue");
        assert_eq!(stop_cycle(&msg), *c, "{msg}");
        let here: Vec<i64> = expected.iter().filter(|p| p.0 == *c).map(|p| p.1).collect();
        assert!(here.iter().any(|d| msg.contains(&format!("B's latency {d:+} cycles"))), "{msg}: {here:?}");
    }
}

#[test]
fn every_move_takes_both_machines_and_hits_do_not_depend_on_the_path() {
    // Snapshots every 200 cycles, so moves back restore both machines mid-run.
    let often = ["debug.snapshot_interval=200"];
    let mut s = lockstep_on(&often, B);
    run(&mut s, "break diverge l1 0");
    run(&mut s, "break load-done if delta > 150");
    let mut forward = Vec::new();
    for _ in 0..4 {
        let msg = run(&mut s, "continue");
        in_step(&s);
        forward.push(msg);
    }
    // Going back over them, one at a time, names the same stops.
    let mut back = Vec::new();
    for _ in 0..3 {
        back.push(run(&mut s, "reverse-continue"));
        in_step(&s);
    }
    back.reverse();
    assert_eq!(back, forward[..3]);
    // From a fresh session, a jump past them and back to just before each: a step lands on it.
    let mut t = lockstep_on(&often, B);
    run(&mut t, "break diverge l1 0");
    run(&mut t, "break load-done if delta > 150");
    run(&mut t, &format!("goto {}", stop_cycle(&forward[3]) + 500));
    in_step(&t);
    for msg in &forward {
        run(&mut t, &format!("goto {}", stop_cycle(msg) - 1));
        assert_eq!(&run(&mut t, "step"), msg);
        in_step(&t);
    }
    run(&mut t, "reverse-step 7");
    in_step(&t);
    // And from the start again, forward: the same stops, no more.
    run(&mut t, "goto 0");
    let again: Vec<String> = (0..forward.len()).map(|_| run(&mut t, "continue")).collect();
    assert_eq!(again, forward);
    // What the session holds of the pairing is the same at a cycle however it got there.
    let mut straight = lockstep_on(&often, B);
    run(&mut straight, "until 1300");
    run(&mut t, "goto 2500");
    run(&mut t, "goto 1300");
    assert_eq!(run(&mut t, "vs"), run(&mut straight, "vs"));
}

#[test]
fn refusals_name_what_lockstep_needs() {
    let mut one = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    for line in ["break diverge", "break load-done if delta > 5"] {
        let e = one.execute(line).unwrap_err();
        assert!(e.contains("--vs KEY=VALUE"), "{line}: {e}");
    }
    let mut s = lockstep(B);
    let e = s.execute("break row-miss if delta > 5").unwrap_err();
    assert!(e.contains("load-done"), "{e}");
    assert!(
        s.execute("break diverge dram 9").unwrap_err().contains("0..1"),
        "the small machine has 2 channels"
    );
    run(&mut s, "break load-done");
    assert!(s.execute("condition 1 delta > 3").is_ok());
    assert!(one.execute("vs").unwrap_err().contains("no second machine"));
    // A B of another shape is refused, with what differs.
    let (a, b) = (
        Session::new(small_config(&[]), workload(TINY, 1)).unwrap(),
        Session::new(small_config(&["core.count=2"]), workload(TINY, 1)).unwrap(),
    );
    let e = a.with_vs(vec!["core.count=2".into()], b).err().unwrap();
    assert!(e.contains("SMs: 4 on A, 2 on B") && e.contains("warpscope diff"), "{e}");
    // The command line names the argument as given.
    let out = Command::new(BIN).args(["batch", "--vs", "core.count=2", "-x", "vs"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--vs core.count=2") && err.contains("shape"), "{err}");
    let out = Command::new(BIN).args(["batch", "--vs", "dram.bankz=3", "-x", "vs"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--vs dram.bankz=3"), "{err}");
}

#[test]
fn a_pane_shows_a_b_or_both_with_the_differences_marked() {
    let mut app =
        App::new(lockstep(B), Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    app.run_line("break diverge dram");
    app.run_line("continue");
    while app.session.is_running() {
        if let Some(msg) = app.session.advance(10_000) {
            app.stopped(msg);
        }
    }
    let screen = |app: &mut App| {
        app.prepare();
        let mut t = Terminal::new(TestBackend::new(160, 48)).unwrap();
        t.draw(|f| draw(f, app)).unwrap();
        let buf = t.backend().buffer();
        (0..48)
            .map(|y| (0..160).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let key = |app: &mut App, c: KeyCode| app.key(KeyEvent::new(c, KeyModifiers::NONE));
    // The banks pane of the stopped channel: fourth in the default layout.
    for _ in 0..3 {
        key(&mut app, KeyCode::Tab);
    }
    let a = screen(&mut app);
    assert!(a.contains("vs B: dram.scheduler=fcfs") && !a.contains('≠'), "{a}");
    key(&mut app, KeyCode::Char('v'));
    let b = screen(&mut app);
    assert!(b.contains("banks (DRAM cycle") && b.contains(" — B"), "{b}");
    key(&mut app, KeyCode::Char('v'));
    let both = screen(&mut app);
    assert!(both.contains("A and B") && both.contains("A: this session's machine"), "{both}");
    let whole = app.view(3).to_text();
    assert!(whole.contains("B: A with dram.scheduler=fcfs"), "B's half, below A's: {whole}");
    assert!(both.contains('≠'), "the bank A activated differs: {both}");
    key(&mut app, KeyCode::Char('v'));
    assert!(!screen(&mut app).contains('≠'), "back to A");
    // Without a second machine, `v` says how to get one.
    let mut one = App::new(
        Session::new(small_config(&[]), workload(TINY, 1)).unwrap(),
        Layout::default_layout(),
        PathBuf::from("layouts"),
        Theme { color: false },
    );
    key(&mut one, KeyCode::Char('v'));
    assert!(one.error && one.message.contains("--vs"), "{}", one.message);
}
