//! Breakpoints are a function of the machine, not of the session's history (issue 18): after
//! any move back, `continue` stops exactly where a fresh session replayed to the same cycle
//! stops — for event breakpoints, watchpoints, temporary breakpoints and ignore counts.

mod common;

use common::{small_config, workload};
use std::process::Command;
use warpscope::debug::{Outcome, Session};

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const TINY: &str = include_str!("fixtures/tiny.ron");

fn run(s: &mut Session, cmd: &str) -> String {
    match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        Ok(other) => panic!("{cmd}: unexpected {other:?}"),
        Err(e) => panic!("{cmd}: {e}"),
    }
}

fn session(setup: &[&str]) -> Session {
    let mut s = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    for cmd in setup {
        run(&mut s, cmd);
    }
    s
}

/// The stop message of `continue` in a fresh session with the same breakpoints, replayed to
/// `cycle` first.
fn fresh_continue(setup: &[&str], cycle: u64) -> (u64, String) {
    let mut s = session(setup);
    run(&mut s, &format!("goto {cycle}"));
    let out = run(&mut s, "continue");
    (s.gpu.cycle, out)
}

/// The repro on the default machine and workload, through `warpscope batch`: every
/// way of moving back before the first occlusion finds it again.
#[test]
fn continue_after_going_back_stops_at_the_breakpoint_again() {
    let out = Command::new(BIN)
        .args(["batch", "-x", "break occlusion; c; rs; c; goto 1400; c; step 10; rs 11; c; c; rc; rs 2; c"])
        .output()
        .expect("binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let stops: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Breakpoint 1, cycle "))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    // c, c after rs, c after goto, c after step+rs, c (next), rc, c after rs 2.
    assert_eq!(stops, ["1,667", "1,667", "1,667", "1,667", "1,713", "1,667", "1,667"], "{text}");
}

/// A tiny deterministic generator (xorshift64*), so the property test needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

/// Random walks of forward and backward moves; before every `continue`, a fresh session with
/// the same breakpoints replayed to the same cycle must stop at the same cycle with the same
/// message. The setup mixes an ignore count, a temporary breakpoint and a watchpoint.
#[test]
fn continue_stops_where_a_fresh_session_does_after_random_moves() {
    let setup: &[&str] = &[
        "break occlusion",
        "ignore 1 2",
        "tbreak row-miss channel=1 bank=3",
        "watch dram[0].draining",
        "break cycle 3000",
    ];
    let mut compared = 0;
    for seed in [7u64, 1234, 99_991] {
        let mut rng = Rng(seed);
        let mut s = session(setup);
        for _ in 0..14 {
            let now = s.gpu.cycle;
            match rng.next(6) {
                0 if s.gpu.is_running() => {
                    run(&mut s, &format!("step {}", 1 + rng.next(400)));
                }
                0 => {}
                1 => {
                    run(&mut s, &format!("reverse-step {}", 1 + rng.next(300)));
                }
                2 => {
                    run(&mut s, &format!("goto {}", rng.next(now + 500)));
                }
                3 => {
                    run(&mut s, "reverse-continue");
                }
                _ => {
                    if !s.gpu.is_running() {
                        run(&mut s, &format!("goto {}", now / 2));
                        continue;
                    }
                    let from = s.gpu.cycle;
                    let out = run(&mut s, "continue");
                    let want = fresh_continue(setup, from);
                    assert_eq!((s.gpu.cycle, out), want, "seed {seed}: continue from cycle {from}");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 6, "only {compared} continues compared");
}

/// Ignore counts and temporary breakpoints across time travel: going back gives back the
/// ignores used after the new cycle and arms a used-up tbreak again.
#[test]
fn ignore_counts_and_tbreaks_are_restored_by_going_back() {
    let mut s = session(&["break occlusion", "ignore 1 2"]);
    let third = run(&mut s, "c");
    let c3 = s.gpu.cycle;
    assert!(third.starts_with(&format!("Breakpoint 1, cycle {c3}:")), "{third}");
    assert!(run(&mut s, "info b").contains("   3 "), "three hits so far");
    // Back to the start: both ignores are given back, the same hit stops again.
    run(&mut s, "goto 0");
    let info = run(&mut s, "info b");
    assert!(info.contains("(ignore next 2)") && info.contains("   0 "), "{info}");
    assert_eq!(run(&mut s, "c"), third);
    // A goto forward past the hits counts them (and uses the ignores) without stopping.
    run(&mut s, "goto 0");
    run(&mut s, &format!("goto {}", c3 - 1));
    assert!(!run(&mut s, "info b").contains("ignore next"), "the two ignores were used by the goto");
    assert_eq!(run(&mut s, "c"), third);

    let mut s = session(&["tbreak occlusion"]);
    let first = run(&mut s, "c");
    assert!(first.starts_with("Temporary breakpoint 1, cycle "), "{first}");
    assert!(run(&mut s, "info b").contains("No breakpoints"));
    run(&mut s, "rs");
    assert!(run(&mut s, "info b").contains("occlusion"), "armed again before its hit");
    assert_eq!(run(&mut s, "c"), first);
}

/// A watchpoint measures change from wherever the machine is: after going back, it stops at
/// the same change again, and a watchpoint that changed in the same cycle as another
/// breakpoint hit is named by that stop (issue 38 item 2) and does not report the change
/// later.
#[test]
fn watchpoints_measure_change_from_the_current_cycle() {
    let mut s = session(&["watch l1[1].mshr.used"]);
    let first = run(&mut s, "c");
    assert!(first.starts_with("Watchpoint 1, cycle "), "{first}");
    let c1 = s.gpu.cycle;
    let second = run(&mut s, "c");
    run(&mut s, &format!("goto {}", c1 - 1));
    assert_eq!(run(&mut s, "c"), first);
    assert_eq!(run(&mut s, "c"), second);
    // A cycle breakpoint at the watch's first change: the stop names both, in number order;
    // the change is not reported again by the next continue.
    let mut s = session(&["break cycle 1", "watch l1[1].mshr.used"]);
    run(&mut s, &format!("break cycle {c1}"));
    run(&mut s, "c");
    assert_eq!(
        run(&mut s, "c"),
        format!(
            "{}\nBreakpoint 3, cycle {1}: reached cycle {1}",
            first.replace("Watchpoint 1", "Watchpoint 2"),
            warpscope::sim::stats::metrics::group(c1)
        )
    );
    let (_, want) = fresh_continue(&["watch l1[1].mshr.used"], c1);
    assert_eq!(run(&mut s, "c"), want.replace("Watchpoint 1", "Watchpoint 2"));
}

/// A condition that cannot be evaluated stops the machine at its first evaluation and says
/// why, as gdb stops on an error in a breakpoint's condition (issue 37.4): a division by zero
/// in `break cycle N if`, a remainder by zero set by `condition`, and a name a `load-done`
/// event does not have. Reached forward or by `reverse-continue`, the stop reads the same.
#[test]
fn a_condition_that_cannot_be_evaluated_stops_and_names_its_error() {
    let mut s = session(&["break cycle 100 if 1/0 > 0"]);
    let out = run(&mut s, "continue");
    assert_eq!(s.gpu.cycle, 100);
    assert!(out.contains("Breakpoint 1, cycle 100: reached cycle 100; stopped because its condition `1/0 > 0` failed: division by zero"), "{out}");

    let mut s = session(&["break cycle 60", "condition 1 1 % 0 == 0"]);
    let out = run(&mut s, "continue");
    assert_eq!(s.gpu.cycle, 60);
    assert!(out.contains("its condition `1 % 0 == 0` failed"), "{out}");

    let mut s = session(&["break load-done if no_such_field > 3"]);
    let first = run(&mut s, "continue");
    let at = s.gpu.cycle;
    assert!(
        first.contains("its condition `no_such_field > 3` failed: unknown state `no_such_field`"),
        "{first}"
    );
    run(&mut s, "continue");
    assert!(s.gpu.cycle > at, "the next load stops it again");
    let back = run(&mut s, "reverse-continue");
    assert_eq!(s.gpu.cycle, at);
    assert_eq!(back, first, "the stop reads the same reached backwards");
}

/// The answers of `warpscope batch -x COMMANDS` on the built-in machine: each command with
/// what it printed.
fn batch(commands: &str) -> Vec<(String, String)> {
    let out = Command::new(BIN).args(["batch", "-x", commands]).output().expect("binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut answers: Vec<(String, String)> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        match (line.strip_prefix("(ws) "), answers.last_mut()) {
            (Some(cmd), _) => answers.push((cmd.to_string(), String::new())),
            (None, Some((_, answer))) => answer.push_str(&format!("{line}\n")),
            (None, None) => panic!("output before the first command: {line}"),
        }
    }
    answers
}

/// The reproduction (issue 38 items 1 and 2): a `delayed` breakpoint and a watchpoint
/// set after it both hit in cycle 2,524. Reached by reverse-continue or by stepping from
/// 2,523, the stop names both, one line each, and `info breakpoints` reads the same: the
/// breakpoint's hit at 2,524 counted, the watchpoint's not, since it counts the hits after
/// the cycle it was set at.
#[test]
fn a_stop_names_every_breakpoint_of_its_cycle_however_the_machine_got_there() {
    let a = batch(
        "break delayed stage=dram cycles>200; c; watch l1[21].mshr.used; c; c; rc; rc; info breakpoints; goto 2523; s; info breakpoints",
    );
    let answer = |i: usize| a[i].1.trim_end();
    let delayed =
        "Breakpoint 1, cycle 2,524: load 2 of warp 21.3 waited 218 cycles in dram, mostly other-warps";
    assert_eq!(answer(1), delayed);
    assert_eq!(answer(3), "Watchpoint 2, cycle 2,538: l1[21].mshr.used: 10 → 9");
    assert_eq!(answer(4), "Watchpoint 2, cycle 2,584: l1[21].mshr.used: 9 → 8");
    assert_eq!(answer(5), answer(3), "reverse-continue to 2,538");
    let both = format!("{delayed}\nWatchpoint 2, cycle 2,524: l1[21].mshr.used: 11 → 10");
    assert_eq!((a[6].0.as_str(), answer(6)), ("rc", both.as_str()));
    assert_eq!((a[9].0.as_str(), answer(9)), ("s", both.as_str()));
    let info = "── Breakpoints ──
Num  Type        Enb    Hits  What
  1  breakpoint  y         1  delayed stage=dram cycles>200
  2  watchpoint  y         0  watch l1[21].mshr.used (counts hits after cycle 2,524)
  1  hit              @2,524  ↳ hit";
    assert_eq!(answer(7), info, "at 2,524 after reverse-continue");
    assert_eq!(answer(10), info, "at 2,524 after goto 2523; step");
}

/// The Events pane at a cycle lists the same events however the machine got there (issue 38
/// item 1): the 138 events at cycle 2,524, reached forward and by reverse-continue,
/// and with the log cut to its newest 40 (`debug.event_log`), the same 40 and the same note
/// of what was dropped.
#[test]
fn the_event_log_at_a_cycle_is_the_same_reached_forward_or_back() {
    let a = batch("break delayed stage=dram cycles>200; c; show events; c; rc; show events");
    assert!(a[2].1.starts_with("── Events (newest first, 138 logged) ──\n"), "{}", a[2].1);
    assert!(a[2].1.contains("\n2,524  load 2 of warp 21.3 waited 218 cycles in dram"), "{}", a[2].1);
    assert_eq!(a[5], ("show events".to_string(), a[2].1.clone()));
    let mut s = Session::new(small_config(&["debug.event_log=40"]), workload(TINY, 1)).unwrap();
    run(&mut s, "until 9000");
    let forward = run(&mut s, "show events");
    assert!(
        forward.contains("events before cycle ") && forward.contains("(newest first, 40 logged)"),
        "{forward}"
    );
    run(&mut s, "until 14000");
    run(&mut s, "goto 9000");
    assert_eq!(run(&mut s, "show events"), forward);
}

/// The small machine for the property test: snapshots every 400 cycles and a log of 40
/// events, so moves restore snapshots often and the log drops events.
const SMALL_HISTORY: &[&str] = &["debug.snapshot_interval=400", "debug.event_log=40"];

/// Breakpoints of every kind for the property test, set at cycle 0: an event breakpoint with
/// an ignore count, a temporary one, a watchpoint, a cycle breakpoint, the debugger's own
/// `delayed` event, and a condition; and one more kind logged.
const EVERY_KIND: &[&str] = &[
    "break occlusion",
    "ignore 1 2",
    "tbreak row-miss channel=1 bank=3",
    "watch dram[0].draining",
    "break cycle 3000",
    "break delayed stage=dram cycles>150",
    "break load-done if requests > 6",
    "log row-miss on",
];

/// A session of the property test, its breakpoints set.
fn property_session() -> Session {
    let mut s = Session::new(small_config(SMALL_HISTORY), workload(TINY, 1)).unwrap();
    for cmd in EVERY_KIND {
        run(&mut s, cmd);
    }
    s
}

/// Everything the session shows at its cycle: the stop message, the focus the views follow,
/// the machine's state hash, `info breakpoints`, and every view as `show` prints it, with
/// the arguments left out (following the focus) and with explicit ones.
fn shown(s: &mut Session) -> String {
    use warpscope::debug::views::{Need, Param, VIEWS};
    let stop = s.last_stop.as_ref().map(|st| st.message()).unwrap_or_default();
    let mut out =
        format!("cycle {}\nstate {:x}\nfocus {:?}\nstop: {stop}\n", s.gpu.cycle, s.gpu.state_hash(), s.focus);
    let mut commands = vec!["info breakpoints".to_string()];
    for v in VIEWS {
        let arg = |p: Param| match p {
            Param::Core | Param::Channel | Param::Set => "1",
            Param::Warp => "1.3",
            Param::Load => "2",
            Param::Cycles => "1500",
        };
        let required: Vec<&str> =
            v.args.iter().filter(|a| a.need == Need::Required).map(|a| arg(a.param)).collect();
        let given: Vec<&str> = v.args.iter().map(|a| arg(a.param)).collect();
        // The interference of the default 10,000 cycles is left to tests/blame.rs.
        if !v.takes(Param::Cycles) {
            commands.push(format!("show {} {}", v.name, required.join(" ")));
        }
        commands.push(format!("show {} {}", v.name, given.join(" ")));
    }
    for cmd in commands {
        let answer = match s.execute(&cmd) {
            Ok(Outcome::Text(t)) => t,
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("error: {e}"),
        };
        out.push_str(&format!("(ws) {cmd}\n{answer}\n"));
    }
    out
}

/// The first line where `a` and `b` differ, with its neighbours, for a readable failure.
fn first_difference(a: &str, b: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)).unwrap_or(0);
    let around = |v: &[&str]| v[i.saturating_sub(3).min(v.len())..(i + 3).min(v.len())].join("\n");
    format!("line {}:\n--- after the moves\n{}\n--- fresh, straight there\n{}", i + 1, around(&a), around(&b))
}

/// Everything the debugger shows at a cycle is a function of the cycle (issue 38 item 1):
/// random walks of forward moves (`step`, `step N`, `continue`, `until`, `goto`) and
/// backward ones (`reverse-step`, `reverse-continue`, `goto`), with breakpoints of every kind,
/// and after each move the whole of what the session shows ([`shown`]: stop message, focus,
/// `info breakpoints`, every view) equals what a fresh session with the same breakpoints
/// shows after going straight to the same cycle.
#[test]
fn everything_shown_at_a_cycle_is_what_a_fresh_session_shows_there() {
    let mut fresh: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    let mut moves = Vec::new();
    for seed in [3u64, 77, 2024] {
        let mut rng = Rng(seed);
        let mut s = property_session();
        let mut walk = Vec::new();
        for _ in 0..12 {
            let now = s.gpu.cycle;
            // Forward while early in the run, back once far enough.
            let cmd = match (rng.next(8), now > 9_000) {
                (0, false) => format!("step {}", 2 + rng.next(400)),
                (1, false) => "step".to_string(),
                (2, false) => "continue".to_string(),
                (3, false) => format!("until {}", now + 1 + rng.next(500)),
                (4, false) => format!("goto {}", now + 1 + rng.next(700)),
                (5, _) => format!("reverse-step {}", 1 + rng.next(300)),
                (6, _) => "reverse-continue".to_string(),
                (7, _) => "reverse-step".to_string(),
                _ => format!("goto {}", rng.next(now + 1)),
            };
            run(&mut s, &cmd);
            walk.push(cmd);
            let t = s.gpu.cycle;
            let have = shown(&mut s);
            let want = fresh.entry(t).or_insert_with(|| {
                let mut f = property_session();
                run(&mut f, &format!("goto {t}"));
                shown(&mut f)
            });
            assert!(have == *want, "seed {seed}, after {walk:?}: {}", first_difference(&have, want));
        }
        moves.extend(walk);
    }
    let kinds = ["step ", "continue", "until", "goto", "reverse-step", "reverse-continue"];
    for k in kinds {
        assert!(moves.iter().any(|m| m.starts_with(k) || m == k.trim()), "the walks have a {k}: {moves:?}");
    }
}
