//! Who delayed a load (issue 17) on whole runs: for every finished load of a run, the blame
//! worked out from the recorded passes covers the load's latency exactly — each request's
//! stages follow one another from the load's issue to its data, each stage's parts add up to
//! it, and the load's latency is the one its `load-done` event reports. Through the debugger,
//! `show blame` answers for a past load and names the causes of the seeds' stories.

mod common;

use common::{gpu, small_config, workload};
use std::collections::HashMap;
use warpscope::debug::blame::{Cause, Stage, blame};
use warpscope::debug::delay::delays;
use warpscope::debug::{Outcome, Session};
use warpscope::sim::record::Point;
use warpscope::sim::stats::metrics::group;
use warpscope::sim::{Event, EventKind};

const TINY: &str = include_str!("fixtures/tiny.ron");

/// Blames every load of a run of the tiny workload on the small machine with `sets` that
/// finished within its first 30,000 cycles; returns each (stage, cause) with cycles, and each
/// stage's parts.
fn blame_every_load(sets: &[&str]) -> Vec<warpscope::debug::blame::StageBlame> {
    let mut g = gpu(small_config(sets), workload(TINY, 1));
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
    let (mut checked, mut stages) = (0, Vec::new());
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
                at = s.to;
                stages.push(s.clone());
            }
        }
        checked += 1;
    }
    assert!(checked > 350, "{checked} loads checked");
    stages
}

fn causes(stages: &[warpscope::debug::blame::StageBlame]) -> Vec<(Stage, Cause)> {
    stages.iter().flat_map(|s| s.parts.iter().filter(|p| p.cycles > 0).map(|p| (s.stage, p.cause))).collect()
}

#[test]
fn every_finished_load_of_a_run_is_blamed_cycle_for_cycle() {
    let causes = causes(&blame_every_load(&[]));
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
    assert!(!causes.iter().any(|&(_, c)| c == Cause::Latency), "no latency queue, no fixed latency");
}

/// With GPGPU-Sim's fixed delays (the L2's latency before every lookup, the DRAM latency
/// queue) their cycles are the `latency` of their own stages, never another warp's or the
/// DRAM's: a request's latency part is the whole fixed delay (30 L2 cycles at half the core
/// clock: 60 core cycles, give or take the clock edge it entered on; exactly 100 for the
/// DRAM's), and what it waited past it is cut at the departures ahead or is back-pressure.
#[test]
fn fixed_delays_are_blamed_as_latency_in_their_own_stages() {
    let stages = blame_every_load(&["l2.latency_queue=true", "dram.frontend_latency=100"]);
    let latency = |s: &warpscope::debug::blame::StageBlame| {
        s.parts.iter().find(|p| p.cause == Cause::Latency).map_or(0, |p| p.cycles)
    };
    let l2: Vec<_> = stages.iter().filter(|s| s.stage == Stage::L2Latency).collect();
    let dram: Vec<_> = stages.iter().filter(|s| s.stage == Stage::DramLatency).collect();
    assert!(
        l2.len() > 400 && dram.len() > 100,
        "{} l2-latency and {} dram-latency stages",
        l2.len(),
        dram.len()
    );
    for s in &l2 {
        assert!((59..=61).contains(&latency(s)), "{s:?}");
    }
    for s in &dram {
        assert_eq!(latency(s), 100, "{s:?}");
    }
    let seen = causes(&stages);
    assert!(seen.contains(&(Stage::L2Latency, Cause::OtherWarps)), "a ready request waited behind another");
    assert!(seen.contains(&(Stage::L2Latency, Cause::BackPressure)), "a ready request waited for the slice");
    // The controller's read queue fills on this machine only when it is short: then ready
    // requests wait in the DRAM latency queue for room.
    let short = causes(&blame_every_load(&[
        "l2.latency_queue=true",
        "dram.frontend_latency=100",
        "dram.read_queue=2",
    ]));
    assert!(short.contains(&(Stage::DramLatency, Cause::BackPressure)), "a ready request waited for room");
    for (stage, cause) in seen.into_iter().chain(short) {
        if matches!(stage, Stage::L2Latency | Stage::DramLatency) {
            assert!(
                !matches!(cause, Cause::Service | Cause::RowConflict | Cause::RowMiss),
                "{stage:?} {cause:?}"
            );
        }
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

/// The `delayed` events of a whole run, worked out the slow way: every pass of the run
/// recorded from cycle 0, then each finished load blamed on all of them, in the order the
/// loads finish.
fn reference_delays(limit: u64) -> Vec<(u64, Event)> {
    let mut g = gpu(small_config(&[]), workload(TINY, 1));
    g.events.set(EventKind::LoadDone, true);
    g.events.set_recording(true);
    let (mut passes, mut done) = (Vec::new(), Vec::new());
    while g.is_running() && g.cycle < limit {
        g.step();
        passes.extend(g.events.take_passes());
        done.extend(g.events.drain());
    }
    let mut out = Vec::new();
    for (cycle, e) in done {
        let Event::LoadDone { core, warp, issued, .. } = e else { continue };
        let issue = passes
            .iter()
            .find(|p| p.point == Point::Issue && p.cycle == issued && p.unit == core && p.who.warp == warp)
            .expect("the issue was recorded");
        let b = blame(&passes, core, warp, issue.who.seq, Some(issued)).expect("blamed");
        out.extend(delays(&b).into_iter().map(|d| (cycle, d)));
    }
    out
}

#[test]
fn break_delayed_stops_where_a_load_finishes_late_in_a_stage_also_after_time_travel() {
    let all = reference_delays(40_000);
    let late = |e: &Event| matches!(e, Event::Delayed { stage: "dram", cycles, .. } if *cycles > 150);
    let hits: Vec<&(u64, Event)> = all.iter().filter(|(_, e)| late(e)).collect();
    assert!(hits.len() >= 3, "the run has late DRAM waits: {}", hits.len());
    let (first, second) = (hits[0], hits.iter().find(|(c, _)| *c > hits[0].0).expect("a later hit"));
    let mut s = session_on_tiny();
    run(&mut s, "break delayed stage=dram cycles>150");
    assert_eq!(
        run(&mut s, "continue"),
        format!("Breakpoint 1, cycle {}: {}", group(first.0), first.1.describe())
    );
    assert_eq!(s.gpu.cycle, first.0);
    // The stop's load, asked for by `show blame`, waited as long in the DRAM.
    let Event::Delayed { core, warp, load_seq, cycles, cause, .. } = first.1 else { unreachable!() };
    let text = run(&mut s, &format!("show blame {core}.{warp} {load_seq}"));
    assert!(text.contains(cause), "{text}");
    s.prepare_blame((core, warp), Some(load_seq));
    let b = s
        .blame
        .get((s.gpu.cycle, (core, warp), Some(load_seq)))
        .cloned()
        .expect("worked out")
        .expect("blamed");
    let worst = b.requests.iter().flat_map(|r| &r.stages).filter(|x| x.stage == Stage::Dram);
    let longest = worst.max_by_key(|x| x.cycles()).expect("a DRAM stage");
    assert_eq!(longest.cycles(), cycles);
    // The panes turn to the channel where it waited.
    let Event::Delayed { unit, .. } = first.1 else { unreachable!() };
    assert_eq!((s.focus.warp, s.focus.channel), (Some((core, warp)), Some(unit)));
    assert!(run(&mut s, "show banks").contains(&format!("DRAM channel {unit} — banks")));
    assert_eq!(
        run(&mut s, "continue"),
        format!("Breakpoint 1, cycle {}: {}", group(second.0), second.1.describe())
    );
    // Back before the first hit, at a cycle with loads in flight that is no snapshot's: the
    // watch replays their history and stops at the same place.
    run(&mut s, &format!("goto {}", first.0 - 37));
    assert_eq!(
        run(&mut s, "continue"),
        format!("Breakpoint 1, cycle {}: {}", group(first.0), first.1.describe())
    );
    run(&mut s, &format!("goto {}", second.0 + 1));
    assert_eq!(
        run(&mut s, "reverse-continue"),
        format!("Breakpoint 1, cycle {}: {}", group(second.0), second.1.describe())
    );
    // A filter on the warp stops at that warp's first late load.
    let Event::Delayed { core, warp, .. } = hits.last().expect("hits").1 else { unreachable!() };
    let theirs = hits
        .iter()
        .find(|(_, e)| matches!(e, Event::Delayed { core: c, warp: w, .. } if (*c, *w) == (core, warp)));
    let mut s = session_on_tiny();
    run(&mut s, &format!("break delayed stage=dram cycles>150 warp={core}.{warp}"));
    assert_eq!(
        run(&mut s, "continue"),
        format!("Breakpoint 1, cycle {}: {}", group(theirs.unwrap().0), theirs.unwrap().1.describe())
    );
}

fn session_on_tiny() -> Session {
    Session::new(small_config(&[]), workload(TINY, 1)).unwrap()
}

#[test]
fn interference_sums_the_blame_of_every_load_of_the_window() {
    let (from, now) = (6_000, 16_000);
    // The loads issued and finished in the window, from their `load-done` events.
    let mut g = gpu(small_config(&[]), workload(TINY, 1));
    g.events.set(EventKind::LoadDone, true);
    let mut expected: HashMap<u16, (u64, u64)> = HashMap::new();
    while g.cycle < now {
        g.step();
        for (cycle, e) in g.events.drain() {
            if let Event::LoadDone { core, issued, last, .. } = e
                && issued >= from
                && cycle <= now
            {
                let e = expected.entry(core).or_default();
                e.0 += 1;
                e.1 += last - issued;
            }
        }
    }
    let mut s = session_on_tiny();
    run(&mut s, &format!("until {now}"));
    s.prepare_interference(Some(now - from));
    let i = s.interference.get(now, now - from).expect("worked out").clone();
    assert_eq!((i.from, i.to), (from, now));
    assert!(i.loads > 100, "{} loads", i.loads);
    let got: HashMap<u16, (u64, u64)> = i.sms.iter().map(|(c, sm)| (*c, (sm.loads, sm.latency))).collect();
    assert_eq!(got, expected, "per SM: loads and their summed latency");
    for (ch, c) in &i.channels {
        assert_eq!(c.by_cause.values().sum::<u64>(), c.cycles, "channel {ch}: the causes add up");
        let other = c.by_cause.get(&Cause::OtherWarps).copied().unwrap_or(0);
        assert_eq!(
            c.pairs.values().sum::<u64>(),
            other,
            "channel {ch}: the pairs share the other-warps cycles"
        );
        assert!(c.pairs.keys().all(|(a, b)| a != b), "a warp does not delay itself");
    }
    assert!(i.channels.values().any(|c| !c.pairs.is_empty()), "warps delay each other somewhere");
    let text = run(&mut s, &format!("show interference {}", now - from));
    assert!(text.contains(&format!("{} loads", i.loads)) && text.contains("Per channel"), "{text}");
    assert!(s.execute_blocking("show interference 0").unwrap_err().contains("not a number of cycles"));
    assert!(s.execute_blocking("show interference x").unwrap_err().contains("not a number of cycles"));
}

/// The numbers of a table column, read as the view prints them (`1,268` is 1268).
fn column(t: &warpscope::debug::views::Table, col: usize) -> Vec<u64> {
    t.rows.iter().map(|r| r[col].text.replace(',', "").parse().unwrap()).collect()
}

/// The blame table of a multi-request load is the load's (issue 38 item 3): its stages are
/// those of the request whose data came back last and add up, cycle for cycle and to 100%, to
/// the latency the view states; each request's own latency, summed, is the request-cycles
/// the view labels apart, which is more than the latency since the requests wait at once.
#[test]
fn the_blame_table_of_a_multi_request_load_adds_up_to_its_latency() {
    use warpscope::debug::views::{Block, show};
    let mut s = session_on_tiny();
    run(&mut s, "until 12000");
    let sm = &s.gpu.sms[1].exec.warps;
    let warp = (0..sm.len()).find(|&w| sm[w].last_load.requests > 2).expect("a divergent last load");
    let l = &sm[warp].last_load;
    let (latency, requests) = (l.last - l.issued, usize::from(l.requests));
    let v = show(&s.scene(), "blame", &[format!("1.{warp}")]).unwrap();
    let text = v.to_text();
    let tables: Vec<&warpscope::debug::views::Table> =
        v.blocks.iter().filter_map(|b| if let Block::Table(t) = b { Some(t) } else { None }).collect();
    let [stages, per_request] = tables[..] else { panic!("two tables:\n{text}") };
    assert!(text.contains(&format!("{requests} requests, latency {} cycles", group(latency))), "{text}");
    assert_eq!(column(stages, 1).iter().sum::<u64>(), latency, "the stages add up to the latency:\n{text}");
    let shares: Vec<u64> =
        stages.rows.iter().map(|r| r[2].text.trim_end_matches('%').parse().unwrap()).collect();
    assert!((100 - stages.rows.len() as u64..=100 + stages.rows.len() as u64).contains(&shares.iter().sum()));
    let each = column(per_request, 1);
    assert_eq!(each.len(), requests);
    assert_eq!(each.iter().max(), Some(&latency), "the request back last is the load's latency");
    let last = each.iter().position(|c| *c == latency).unwrap();
    assert!(
        text.contains(&format!("the stages of request #{last}, back last, which add up to the latency")),
        "{text}"
    );
    let total: u64 = each.iter().sum();
    assert!(total > latency);
    assert!(
        text.contains(&format!(
            "Request-cycles: each request from the load's issue to its data, {} in all",
            group(total)
        )),
        "{text}"
    );
    // The critical request's row lists the same stages as the table.
    let path = &per_request.rows[last][2].text;
    for row in &stages.rows {
        assert!(path.contains(&format!("{} {}", row[0].text, row[1].text)), "{path} has {}", row[0].text);
    }
}
