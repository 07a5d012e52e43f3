//! Who delayed a load (issue 17) on whole runs: for every finished load of a run, the blame
//! worked out from the recorded passes covers the load's latency exactly — each request's
//! stages follow one another from the load's issue to its data, each stage's parts add up to
//! it, and the load's latency is the one its `load-done` event reports. Through the debugger,
//! `show blame` answers for a past load and names the causes of the seeds' stories.

mod common;

use common::{gpu, small_config, workload};
use std::collections::HashMap;
use warpscope::debug::blame::{Cause, Stage, blame};
use warpscope::debug::{Outcome, Session};
use warpscope::sim::record::Point;
use warpscope::sim::{Event, EventKind};

const TINY: &str = include_str!("fixtures/tiny.ron");

#[test]
fn every_finished_load_of_a_run_is_blamed_cycle_for_cycle() {
    let mut g = gpu(small_config(&[]), workload(TINY, 1));
    g.events.set(EventKind::LoadDone, true);
    g.events.set_recording(true);
    let (mut passes, mut done) = (Vec::new(), HashMap::new());
    while g.is_running() && g.cycle < 30_000 {
        g.step();
        passes.extend(g.events.take_passes());
        for (_, e) in g.events.drain() {
            if let Event::LoadDone { core, warp, issued, last, .. } = e {
                done.insert((core, warp, issued), last);
            }
        }
    }
    passes.sort_by_key(|p| p.cycle);
    let issues: Vec<_> =
        passes.iter().filter(|p| p.point == Point::Issue).map(|p| (p.who, p.cycle)).collect();
    let (mut checked, mut causes) = (0, Vec::new());
    for (w, issued) in issues {
        let Some(&last) = done.get(&(w.core, w.warp, issued)) else { continue };
        let b = blame(&passes, w.core, w.warp, w.seq, Some(issued)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            b.latency(),
            last - issued,
            "load {} of warp {}.{} issued at {issued}",
            w.seq,
            w.core,
            w.warp
        );
        for r in &b.requests {
            let mut at = issued;
            for s in &r.stages {
                assert_eq!(s.from, at, "{:?} of request {} follows the stage before", s.stage, r.who.id);
                assert_eq!(
                    s.parts.iter().map(|p| p.cycles).sum::<u64>(),
                    s.cycles(),
                    "{:?} adds up",
                    s.stage
                );
                causes.extend(s.parts.iter().filter(|p| p.cycles > 0).map(|p| (s.stage, p.cause)));
                at = s.to;
            }
        }
        checked += 1;
    }
    assert!(checked > 400, "{checked} loads checked");
    // The run shows the stories the blame is for: other warps ahead at the DRAM, row
    // conflicts, write drains, occlusion in the LD/ST unit.
    for want in [
        (Stage::Dram, Cause::OtherWarps),
        (Stage::Dram, Cause::RowConflict),
        (Stage::Dram, Cause::WriteDrain),
        (Stage::Ldst, Cause::Refused(warpscope::sim::stats::StallCause::Mshr)),
    ] {
        assert!(causes.contains(&want), "{want:?} appears somewhere");
    }
}

fn run(s: &mut Session, cmd: &str) -> String {
    match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        other => panic!("{cmd}: {other:?}"),
    }
}

#[test]
fn show_blame_answers_for_the_last_and_for_an_earlier_load_of_a_warp() {
    let mut s = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    run(&mut s, "until 12000");
    let last = run(&mut s, "show blame 1.3");
    assert!(last.contains("Blame — load"), "{last}");
    assert!(last.contains("latency"), "{last}");
    // An earlier load, found in history by replaying segments backwards.
    let first = run(&mut s, "show blame 1.3 0");
    assert!(first.contains("Blame — load 0 of warp 1.3"), "{first}");
    // Errors name what is wrong.
    assert!(s.execute_blocking("show blame 1.3 99999").unwrap_err().contains("issued no load 99999"));
    assert!(s.execute_blocking("show blame 9.0").unwrap_err().contains("core 9 does not exist"));
    assert!(s.execute_blocking("show blame 1.3 x").unwrap_err().contains("not a load number"));
}
