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
    assert_eq!(stops, ["1,547", "1,547", "1,547", "1,547", "1,739", "1,547", "1,547"], "{text}");
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
/// the same change again, and a watchpoint that changed in the same cycle as another stop
/// does not report that change later.
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
    // A cycle breakpoint at the watch's first change stops first; the change is not reported
    // again by the next continue.
    let mut s = session(&["break cycle 1", "watch l1[1].mshr.used"]);
    run(&mut s, &format!("break cycle {c1}"));
    run(&mut s, "c");
    assert_eq!(
        run(&mut s, "c"),
        format!("Breakpoint 3, cycle {0}: reached cycle {0}", warpscope::sim::stats::metrics::group(c1))
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
