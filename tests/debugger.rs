//! The debugger session: every event kind breaks exactly where an independent run of the
//! machine sees the event; conditions, ignore counts, temporary breakpoints and watchpoints;
//! time travel lands on the same state (hash) as a forward run, in both directions.

mod common;

use common::{gpu, small_config, workload};
use warpscope::debug::views::{is_locality_warp, miss_inflight, oaws_allowance, oaws_prediction};
use warpscope::debug::{Outcome, Session};
use warpscope::sim::event::{Event, EventKind};
use warpscope::sim::stats::metrics::group;

const TINY: &str = include_str!("fixtures/tiny.ron");

fn session() -> Session {
    session_on(&[])
}

/// A session on the small machine with `sets` overrides.
fn session_on(sets: &[&str]) -> Session {
    Session::new(small_config(sets), workload(TINY, 1)).unwrap()
}

/// Overrides under which the test workload produces events of `kind`: bypasses need DaCache
/// with a thrashing region that fills up (two ways); warp-scheduler and memory-controller
/// events need their scheduler (MERB postponement: WG-Bw) or prefetching.
fn machine_for(kind: EventKind) -> &'static [&'static str] {
    match kind {
        EventKind::Bypass => &["l1.replacement=dacache", "l1.ways=2"],
        EventKind::GroupSwitch => &["core.warp_scheduler=cta-aware"],
        EventKind::OawsDisqualified => &["core.warp_scheduler=oaws-static"],
        EventKind::WarpThrottled => &["core.warp_scheduler=swl"],
        EventKind::MascarMode => &["core.warp_scheduler=mascar"],
        EventKind::LostLocality => &["core.warp_scheduler=ccws"],
        EventKind::WarpGroupScheduled => &["dram.scheduler=wg"],
        EventKind::RemoteScore => &["dram.scheduler=wg-m"],
        EventKind::MerbPostpone => &["dram.scheduler=wg-bw"],
        EventKind::Prefetch => &["dram.prefetch.enabled=true"],
        _ => &[],
    }
}

/// Runs a command to its end and returns its text.
fn run(s: &mut Session, cmd: &str) -> String {
    match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        Ok(other) => panic!("{cmd}: unexpected {other:?}"),
        Err(e) => panic!("{cmd}: {e}"),
    }
}

/// The events of `kind` a plain forward run of the machine reports, up to `limit` cycles.
fn reference_events(kind: EventKind, limit: u64) -> Vec<(u64, Event)> {
    reference_events_on(&[], kind, limit)
}

/// The same on the small machine with `sets` overrides.
fn reference_events_on(sets: &[&str], kind: EventKind, limit: u64) -> Vec<(u64, Event)> {
    let mut g = gpu(small_config(sets), workload(TINY, 1));
    g.events.set(kind, true);
    let mut out = Vec::new();
    while g.is_running() && g.cycle < limit {
        g.step();
        out.extend(g.events.drain());
    }
    out
}

/// The state hash a forward run has at `cycle`.
fn hash_at(cycle: u64) -> u64 {
    let mut g = gpu(small_config(&[]), workload(TINY, 1));
    while g.cycle < cycle {
        g.step();
    }
    g.state_hash()
}

#[test]
fn every_event_kind_breaks_where_the_machine_reports_it() {
    // `delayed` is worked out by the debugger, not reported by the machine (tests/blame.rs).
    for kind in EventKind::ALL.iter().filter(|k| **k != EventKind::Delayed) {
        let events = reference_events_on(machine_for(*kind), *kind, 400_000);
        let Some((cycle, first)) = events.first().cloned() else {
            panic!("the test workload never produces {}", kind.name());
        };
        let mut s = session_on(machine_for(*kind));
        run(&mut s, &format!("break {}", kind.name()));
        let out = run(&mut s, "continue");
        assert_eq!(
            out,
            format!("Breakpoint 1, cycle {}: {}", group(cycle), first.describe()),
            "{}",
            kind.name()
        );
        assert_eq!(s.gpu.cycle, cycle, "{}: the machine stops at the event's cycle", kind.name());
    }
}

#[test]
fn filters_select_the_matching_event() {
    let loads = reference_events(EventKind::LoadDone, 400_000);
    let (cycle, target) = loads
        .iter()
        .find(|(_, e)| matches!(e, Event::LoadDone { core: 2, warp: 5, .. }))
        .cloned()
        .expect("warp 2.5 finishes a load");
    let mut s = session();
    run(&mut s, "break load-done warp=2.5");
    assert_eq!(run(&mut s, "c"), format!("Breakpoint 1, cycle {}: {}", group(cycle), target.describe()));
    let misses = reference_events(EventKind::RowMiss, 400_000);
    let (cycle, _) = misses
        .iter()
        .find(|(_, e)| matches!(e, Event::RowMiss { channel: 1, bank: 3, .. }))
        .cloned()
        .expect("a row miss on channel 1 bank 3");
    let mut s = session();
    run(&mut s, "break row-miss channel=1 bank=3");
    assert!(run(&mut s, "c").starts_with(&format!("Breakpoint 1, cycle {}:", group(cycle))));
}

#[test]
fn conditions_ignore_counts_and_temporary_breakpoints() {
    let occl = per_cycle(reference_events(EventKind::MemoryOcclusion, 400_000));
    let big = |e: &Event| matches!(e, Event::MemoryOcclusion { needed, .. } if *needed > 12);
    let all = reference_events(EventKind::MemoryOcclusion, 400_000);
    let mut bigs: Vec<&(u64, Event)> = all.iter().filter(|(_, e)| big(e)).collect();
    bigs.dedup_by_key(|(c, _)| *c);
    assert!(bigs.len() >= 4, "enough large occlusions to test with");
    // Condition over event fields.
    let mut s = session();
    run(&mut s, "break occlusion if needed > 12");
    assert!(run(&mut s, "c").starts_with(&format!("Breakpoint 1, cycle {}:", group(bigs[0].0))));
    // Ignore the next two hits: the fourth matching event stops it.
    run(&mut s, "ignore 1 2");
    assert!(run(&mut s, "c").starts_with(&format!("Breakpoint 1, cycle {}:", group(bigs[3].0))));
    let info = run(&mut s, "info breakpoints");
    assert!(info.contains("memory-occlusion if needed > 12") && info.contains("   4 "), "{info}");
    // A condition set later, over machine state, and cleared again.
    let mut s = session();
    run(&mut s, "break occlusion");
    run(&mut s, "condition 1 l1[0].mshr.used > 100");
    let out = run(&mut s, "c");
    assert!(out.starts_with("The program finished"), "never true, so it runs to the end: {out}");
    // tbreak stops once and is gone.
    let mut s = session();
    run(&mut s, "tbreak occlusion");
    assert!(run(&mut s, "c").starts_with(&format!("Temporary breakpoint 1, cycle {}:", group(occl[0].0))));
    assert!(run(&mut s, "info b").contains("No breakpoints"));
    // disable / enable.
    let mut s = session();
    run(&mut s, "break cycle 5000");
    run(&mut s, "break cycle 2000");
    run(&mut s, "disable 2");
    assert_eq!(run(&mut s, "c"), "Breakpoint 1, cycle 5,000: reached cycle 5,000");
}

#[test]
fn watchpoints_stop_when_the_value_changes() {
    let mut g = gpu(small_config(&[]), workload(TINY, 1));
    let mut prev = g.sms[1].l1.mshr.used();
    let (mut change, mut from, mut to) = (0, 0, 0);
    while g.is_running() {
        g.step();
        let now = g.sms[1].l1.mshr.used();
        if now != prev {
            (change, from, to) = (g.cycle, prev, now);
            break;
        }
        prev = now;
    }
    let mut s = session();
    assert_eq!(run(&mut s, "watch l1[1].mshr.used"), "Watchpoint 1: l1[1].mshr.used (now 0)");
    assert_eq!(run(&mut s, "c"), format!("Watchpoint 1, cycle {change}: l1[1].mshr.used: {from} → {to}"));
    assert_eq!(run(&mut s, "print l1[1].mshr.used * 2"), format!("l1[1].mshr.used * 2 = {}", to * 2));
}

#[test]
fn going_back_lands_on_the_state_a_forward_run_shows() {
    let mut s = session();
    run(&mut s, "until 12000");
    assert_eq!(s.gpu.cycle, 12000);
    for target in [11_999, 7_321, 5_000, 1, 0, 9_876] {
        run(&mut s, &format!("goto {target}"));
        assert_eq!(s.gpu.cycle, target);
        assert_eq!(s.gpu.state_hash(), hash_at(target), "goto {target}");
    }
    // Forward again from the past, past where we had been.
    run(&mut s, "step 4000");
    assert_eq!((s.gpu.cycle, s.gpu.state_hash()), (13_876, hash_at(13_876)));
    run(&mut s, "reverse-step 100");
    assert_eq!((s.gpu.cycle, s.gpu.state_hash()), (13_776, hash_at(13_776)));
    run(&mut s, "rs");
    assert_eq!(s.gpu.cycle, 13_775);
}

/// The first event of each cycle: a breakpoint hits at most once per cycle, since the machine
/// stops between cycles.
fn per_cycle(mut events: Vec<(u64, Event)>) -> Vec<(u64, Event)> {
    events.dedup_by_key(|(c, _)| *c);
    events
}

#[test]
fn reverse_continue_returns_to_the_previous_hit() {
    let occl = per_cycle(reference_events(EventKind::MemoryOcclusion, 400_000));
    let mut s = session();
    run(&mut s, "break occlusion");
    run(&mut s, "c");
    run(&mut s, "c");
    run(&mut s, "c");
    assert_eq!(s.gpu.cycle, occl[2].0);
    run(&mut s, "step 50");
    // Back to the third hit, then the second: each time on exactly the forward state.
    let out = run(&mut s, "reverse-continue");
    assert_eq!(out, format!("Breakpoint 1, cycle {}: {}", group(occl[2].0), occl[2].1.describe()));
    assert_eq!(s.gpu.state_hash(), hash_at(occl[2].0));
    let out = run(&mut s, "rc");
    let second = occl.iter().rev().find(|(c, _)| *c < occl[2].0).expect("an earlier hit");
    assert_eq!(out, format!("Breakpoint 1, cycle {}: {}", group(second.0), second.1.describe()));
    assert_eq!(s.gpu.state_hash(), hash_at(second.0));
    // A breakpoint set after the fact is found too.
    run(&mut s, "delete");
    run(&mut s, "break cycle 100");
    assert_eq!(run(&mut s, "rc"), "Breakpoint 2, cycle 100: reached cycle 100");
    assert_eq!(s.gpu.cycle, 100);
    assert_eq!(run(&mut s, "rc"), "No earlier breakpoint hit: at the start of the program.\ncycle 0");
}

#[test]
fn snapshots_are_thinned_to_the_budget_and_history_stays_reachable() {
    let c = small_config(&["debug.snapshot_interval=200", "debug.snapshot_budget_mb=16"]);
    let mut s = Session::new(c, workload(TINY, 1)).unwrap();
    run(&mut s, "run");
    let bytes = s.travel.len() * s.travel.snap_bytes;
    assert!(bytes <= 16 << 20, "{} snapshots of {} bytes", s.travel.len(), s.travel.snap_bytes);
    assert!(s.travel.interval > 200, "the interval doubled as the budget filled");
    let end = s.gpu.cycle;
    run(&mut s, "goto 777");
    assert_eq!(s.gpu.state_hash(), hash_at(777));
    let end = group(end);
    assert!(run(&mut s, "info snapshots").contains(&format!("history covers cycles 0..{end}")));
}

#[test]
fn the_machine_refuses_to_move_past_the_end_and_empty_lines_repeat() {
    let mut s = session();
    assert_eq!(run(&mut s, "s 10"), "cycle 10");
    assert_eq!(run(&mut s, ""), "cycle 20", "an empty line repeats the last command");
    let out = run(&mut s, "run");
    assert!(out.starts_with("The program finished at cycle"), "{out}");
    let e = s.execute("step").unwrap_err();
    assert!(e.contains("Use goto or reverse commands"), "{e}");
}

#[test]
fn command_errors_are_reported_not_panicked() {
    let mut s = session();
    for (cmd, want) in [
        ("break occlusoin", "unknown event `occlusoin`"),
        ("break row-miss core=1", "row-miss has no field `core`"),
        ("watch l1[99].mshr.used", "l1[99]: there are 4 SMs (0..3)"),
        ("print nonsense", "unknown state `nonsense`"),
        ("show warp 9.9", "core 9 does not exist"),
        ("show lru 0", "which set?"),
        ("condition 7 needed > 1", "no breakpoint number 7"),
        ("until 0", "already at cycle 0"),
        ("break row-miss channel=2", "channel=2: this machine has 2 channels, so channel must be 0..1"),
        ("break row-miss bank=16", "bank=16: this machine has 16 banks per channel, so bank must be 0..15"),
        ("break occlusion core=4", "core=4: this machine has 4 SMs, so core must be 0..3"),
        ("goto 99999999999999999999", "`99999999999999999999` is too large (at most 18446744073709551615)"),
        ("frob", "unknown command `frob`"),
    ] {
        let e = s.execute_blocking(cmd).unwrap_err();
        assert!(e.contains(want), "{cmd}: {e}");
    }
}

#[test]
fn every_view_renders_as_text() {
    let mut s = session();
    run(&mut s, "break occlusion");
    run(&mut s, "c");
    let Some(warpscope::debug::Stop::Hits(hits)) = s.last_stop.clone() else { panic!() };
    let Some(Event::MemoryOcclusion { core, warp, needed, free, .. }) = hits[0].event else { panic!() };
    let inspector = run(&mut s, &format!("show warp {core}.{warp}"));
    assert!(inspector.contains(&format!("Warp {core}.{warp} — inspector")), "{inspector}");
    assert!(inspector.contains("OCCLUDED"), "{inspector}");
    assert!(inspector.contains("LD/ST unit, not sent"), "{inspector}");
    assert!(needed as usize > free as usize);
    // The view is of the end of the stop's cycle, in which the occluded head may already have
    // sent an access (then it needs one MSHR fewer and one fewer is free).
    let mshr = run(&mut s, &format!("show mshr {core}"));
    let occluded = |n: u16, f: u16| mshr.contains(&format!("OCCLUDED: needs {n} MSHRs, {f} free"));
    assert!(mshr.contains(&format!("LD/ST head: warp {warp} pc")), "{mshr}");
    assert!(occluded(needed, free) || occluded(needed - 1, free.saturating_sub(1)), "{mshr}");
    for (cmd, want) in [
        ("show banks 1", "DRAM channel 1 — banks"),
        ("show warps 0", "SM 0 — warps"),
        ("show lru 0 3", "SM 0 — L1 set 3"),
        ("show stats", "Statistics at cycle"),
        ("show events", "memory occlusion on core"),
        ("show queues", "Queues —"),
        ("show breakpoints", "memory-occlusion"),
        ("show warpgroups", "this machine uses dram.scheduler = \"frfcfs\""),
        ("show merb 1", "MERB counters"),
        ("help", "reverse-continue"),
        ("help break", "memory-occlusion"),
        ("help watch", "dram[CH].bank[B].queue_len"),
    ] {
        let out = run(&mut s, cmd);
        assert!(out.contains(want), "{cmd}:\n{out}");
    }
}

/// Under DaCache the LRU-chain view splits the set at the locality boundary p (seed 004
/// §4.2.3): the positions above it say `locality`, the rest `thrashing`, and the header names
/// the boundary and the FCW the boundary was derived from.
#[test]
fn lru_view_shows_dacache_regions() {
    let mut s = session_on(&["l1.replacement=dacache"]);
    run(&mut s, "until 400");
    let g = &s.gpu;
    let p = g.sms[0].l1.locality_ways().expect("DaCache has a locality region");
    let ways = g.config.l1.ways as usize;
    assert!(p >= 1 && p < ways, "p = {p} of {ways} ways");
    let out = run(&mut s, "show lru 0 0");
    assert!(out.contains(&format!("locality region: positions 0..{}", p - 1)), "{out}");
    let regions: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .filter_map(|l| {
            if l.contains(" locality ") {
                Some("locality")
            } else if l.contains(" thrashing ") {
                Some("thrashing")
            } else {
                None
            }
        })
        .collect();
    assert_eq!(regions.len(), ways, "one region per way:\n{out}");
    assert!(regions[..p].iter().all(|r| *r == "locality") && regions[p..].iter().all(|r| *r == "thrashing"));
    // Plain LRU has no regions.
    let mut lru = session();
    run(&mut lru, "until 400");
    let out = run(&mut lru, "show lru 0 0");
    assert!(!out.contains("locality") && out.contains("FCW ="), "{out}");
}

/// The warps view grows a column for each piece of per-warp scheduler state the configured
/// policy has, and says the SM-wide state in a line: OAWS's Eq. 5.1 budget and each warp's
/// Miss_pred against it (seed 004 §5.2), OWL's CTA groups (seed 003 Alg. 1), CCWS's
/// lost-locality scores. GTO shows none of them.
#[test]
fn warps_view_shows_the_scheduler_state() {
    let view = |scheduler: &str| {
        let mut s = session_on(&[&format!("core.warp_scheduler={scheduler}")]);
        run(&mut s, "until 600");
        let out = run(&mut s, "show warps 0");
        (s, out)
    };
    let header = |out: &str| out.lines().find(|l| l.starts_with("warp ")).unwrap_or_default().to_string();

    let (_, gto) = view("gto");
    for column in ["group", "class", "miss pred", "lls"] {
        assert!(!header(&gto).contains(column), "{gto}");
    }

    // Step until the divergent-load classifier has predicted some warp's next load.
    let (mut s, _) = view("oaws-dyn");
    let predicted = |s: &Session| {
        let sm = &s.gpu.sms[0];
        (0..sm.exec.warps.len())
            .any(|w| sm.exec.valid & (1 << w) != 0 && oaws_prediction(sm, w).unwrap().0 > 0)
    };
    while !predicted(&s) && s.gpu.is_running() {
        run(&mut s, "step");
    }
    let oaws = run(&mut s, "show warps 0");
    let sm = &s.gpu.sms[0];
    let allowance = oaws_allowance(sm).unwrap();
    assert!(
        oaws.contains(&format!(
            "Avail_mshr {} − Miss_inflight {} = {allowance}",
            sm.l1.mshr.free(),
            miss_inflight(sm).unwrap()
        )),
        "{oaws}"
    );
    assert!(header(&oaws).contains("class") && header(&oaws).contains("miss pred"), "{oaws}");
    let resident: Vec<usize> = (0..sm.exec.warps.len()).filter(|&w| sm.exec.valid & (1 << w) != 0).collect();
    assert!(resident.iter().any(|&w| oaws_prediction(sm, w).unwrap().0 > 0), "no prediction yet:\n{oaws}");
    for &w in &resident {
        let row = oaws.lines().find(|l| l.split_whitespace().next() == Some(&w.to_string())).unwrap();
        let want = match oaws_prediction(sm, w).unwrap() {
            (0, _) => None,
            (pred, fits) => Some(format!("{pred} {}", if fits { "✓ fits" } else { "✗ held" })),
        };
        if let Some(want) = want {
            assert!(row.contains(&want), "warp {w}: {row}");
        }
        let class = if is_locality_warp(sm, w).unwrap() { " locality " } else { " thrashing " };
        assert!(row.contains(class), "warp {w}: {row}");
    }

    let (s, owl) = view("cta-locality-blp");
    assert!(header(&owl).contains("group") && owl.contains("scheduler 0: issuing from group"), "{owl}");
    let sm = &s.gpu.sms[0];
    let w = (0..sm.exec.warps.len()).find(|&w| sm.exec.valid & (1 << w) != 0).unwrap();
    let row = owl.lines().find(|l| l.split_whitespace().next() == Some(&w.to_string())).unwrap();
    assert_eq!(row.split_whitespace().nth(3), Some(sm.group_of(w).unwrap().to_string().as_str()), "{owl}");

    let (_, ccws) = view("ccws");
    assert!(header(&ccws).contains("lls") && ccws.contains("CCWS: lls = lost-locality score"), "{ccws}");
}

/// Under WG-Bw, stopped where a row miss was postponed (seed 000 §IV-D): the warp-group view
/// lists exactly the warp sorter's live groups with their scores, and the MERB view shows the
/// start-up table with the entry for the current b marked, and each bank's counter.
#[test]
fn warpgroup_and_merb_views_show_the_scheduler_state() {
    use warpscope::sim::dram::sched::DramScheduler;
    let mut s = session_on(&["dram.scheduler=wg-bw"]);
    run(&mut s, "break merb-postpone");
    let hit = run(&mut s, "continue");
    assert!(hit.contains("MERB"), "{hit}");
    let Some(warpscope::debug::Stop::Hits(hits)) = s.last_stop.clone() else { panic!("{hit}") };
    let Some(Event::MerbPostpone { channel, bank, .. }) = hits[0].event else { panic!("{hit}") };
    let ch = channel as usize;

    let view = run(&mut s, &format!("show warpgroups {ch}"));
    let mc = &s.gpu.dram[ch];
    let sorter = mc.scheduler.warp_sorter().unwrap();
    let rows: Vec<&str> =
        view.lines().filter(|l| l.split_whitespace().next().is_some_and(|w| w.contains('.'))).collect();
    assert!(!rows.is_empty(), "{view}");
    assert_eq!(rows.len(), sorter.active().count(), "{view}");
    for (row, (_, wg)) in rows.iter().zip(sorter.active()) {
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cols[0], format!("{}.{}", wg.key.core, wg.key.warp), "{row}");
        assert_eq!(cols[2], wg.slots.len().to_string(), "{row}");
        assert!(row.contains(&format!(" {} ", wg.score())), "score {}: {row}", wg.score());
    }
    let wq = mc.write_queue();
    assert!(view.contains(&format!("write queue {}/{}", wq.writes, wq.capacity)), "{view}");

    let merb = run(&mut s, &format!("show merb {ch}"));
    let mc = &s.gpu.dram[ch];
    let table = mc.scheduler.merb_table().unwrap();
    let busy = mc.queues.lists(mc.draining).iter().filter(|l| !l.is_empty()).count();
    assert!(
        merb.contains(&format!(
            "b = {busy} banks with pending work → MERB({busy}) = {} bursts",
            table.get(busy)
        )),
        "{merb}"
    );
    assert!(merb.contains(&format!("[{}]", table.get(busy))), "{merb}");
    let cmdq = mc.scheduler.command_queues().unwrap();
    let row = merb.lines().find(|l| l.split_whitespace().next() == Some(&bank.to_string())).unwrap();
    assert_eq!(
        row.split_whitespace().nth(2),
        Some(cmdq.row_bursts[bank as usize].to_string().as_str()),
        "{merb}"
    );
}

/// With `l2.latency_queue` the queues view shows, per L2 slice, the requests waiting out the
/// latency before their lookup, against the queue's room (latency + 1), so the requests it
/// counts in flight are all somewhere in the view; without it there is no such row.
#[test]
fn the_queues_view_shows_the_l2_latency_queue() {
    let mut s = session_on(&["l2.latency_queue=true"]);
    let mut seen = 0;
    for cycle in (50..=2000).step_by(50) {
        run(&mut s, &format!("goto {cycle}"));
        let text = run(&mut s, "show queues");
        for l2 in &s.gpu.l2 {
            let fill = l2.looking_up().count();
            let line = text
                .lines()
                .find(|l| l.starts_with(&format!("L2 {} ", l2.id)) && l.contains("lookup latency"));
            if fill == 0 {
                assert!(line.is_none(), "cycle {cycle}: an empty queue is not listed: {text}");
                continue;
            }
            let line = line.unwrap_or_else(|| panic!("cycle {cycle}: L2 {} holds {fill}: {text}", l2.id));
            let nums: Vec<&str> = line.split_whitespace().rev().take(2).collect();
            assert_eq!(nums, [l2.looking_up_capacity().to_string(), fill.to_string()], "{line}");
            assert_eq!(l2.looking_up_capacity(), s.gpu.config.l2.latency as usize + 1);
            seen += 1;
        }
    }
    assert!(seen > 0, "some slice held requests in its latency queue");
    let mut s = session();
    run(&mut s, "goto 800");
    assert!(!run(&mut s, "show queues").contains("lookup latency"));
}

/// Under GMC the banks view shows each bank's command queue, entry by entry as the scheduler
/// holds it (row and requester, in issue order); under FR-FCFS, which has none, no such column.
#[test]
fn the_banks_view_shows_gmc_command_queues() {
    use warpscope::sim::dram::sched::DramScheduler;
    use warpscope::sim::request::AccessKind;
    let mut s = session_on(&["dram.scheduler=gmc"]);
    let mut seen_entries = 0;
    for cycle in (100..=3000).step_by(100) {
        run(&mut s, &format!("goto {cycle}"));
        for ch in 0..s.gpu.dram.len() {
            let text = run(&mut s, &format!("show banks {ch}"));
            assert!(text.contains("cmd queue (row warp|wb)"), "{text}");
            let mc = &s.gpu.dram[ch];
            let cq = mc.scheduler.command_queues().expect("GMC has command queues");
            let rows: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("bank")).skip(1).collect();
            for (b, queue) in cq.banks.iter().enumerate() {
                let want: Vec<String> = queue
                    .iter()
                    .map(|e| {
                        let r = &mc.queues.get(e.slot).req;
                        let who = match r.kind {
                            AccessKind::Writeback => "wb".to_string(),
                            _ => format!("{}.{}", r.origin.core, r.origin.warp),
                        };
                        format!("{} {who}", e.row)
                    })
                    .collect();
                seen_entries += want.len();
                let cell = if want.is_empty() { "-".to_string() } else { want.join(", ") };
                assert!(rows[b].trim_end().ends_with(&cell), "bank {b}: want `{cell}` in `{}`", rows[b]);
            }
        }
        if seen_entries > 0 {
            break;
        }
    }
    assert!(seen_entries > 0, "some command queue held a request");
    let mut s = session();
    run(&mut s, "goto 800");
    assert!(!run(&mut s, "show banks 0").contains("cmd queue"));
}

/// With GPGPU-Sim's arbitration credits (`dram.return_queue`) the banks view says how many the
/// L2 slices hold, of how many, and how many of their requests wait in the latency queue; a
/// machine without them says nothing of credits.
#[test]
fn the_banks_view_shows_the_slices_credits() {
    let mut s = session_on(&["dram.return_queue=4", "dram.frontend_latency=40"]);
    let mut held = 0;
    for cycle in (200..=3000).step_by(200) {
        run(&mut s, &format!("goto {cycle}"));
        let mc = &s.gpu.dram[0];
        let (taken, total) = mc.credits().expect("credits");
        let want = format!(
            "credits: {taken}/{total} held by the L2 slices (requests sent and not answered), {} in the latency queue",
            mc.frontend().count()
        );
        let text = run(&mut s, "show banks 0");
        assert!(text.contains(&want), "want `{want}` in {text}");
        held = held.max(taken);
    }
    assert!(held > 0, "some credit was held");
    let mut s = session();
    run(&mut s, "goto 800");
    assert!(!run(&mut s, "show banks 0").contains("credits"));
}

#[test]
fn show_after_a_stop_looks_where_the_stop_is() {
    let mut s = session();
    run(&mut s, "break row-miss channel=1 bank=3");
    run(&mut s, "continue");
    let pending = s.gpu.dram[1].queues.pending();
    let head = pending.iter().find(|(_, p)| p.bank == 3 && !p.is_write).expect("a read queued at bank 3").1;
    let (core, warp) = (head.req.origin.core, head.req.origin.warp);
    assert_eq!(s.focus.warp, Some((core, warp)), "the warp whose read heads the bank's queue");
    let banks = run(&mut s, "show banks");
    assert!(banks.contains("DRAM channel 1 — banks") && banks.contains("bank 3 queue"), "{banks}");
    assert!(run(&mut s, "show warps").contains(&format!("SM {core} — warps")));
    assert!(run(&mut s, "show warp").contains(&format!("Warp {core}.{warp} — inspector")));
    // Arguments still win.
    assert!(run(&mut s, "show banks 0").contains("DRAM channel 0 — banks"));
    // Before any stop, `show warp` still asks which.
    let mut fresh = session();
    assert_eq!(fresh.execute_blocking("show warp").unwrap_err(), "which warp? e.g. show warp 3.17");
}

/// A session on the built-in machine and workload (the README's first command).
fn builtin_session() -> Session {
    use warpscope::config::Config;
    let config = Config::builtin();
    let w = warpscope::workload::Workload::load_or_builtin(None, config.sim.seed).unwrap();
    Session::new(config, std::sync::Arc::new(w)).unwrap()
}

/// Every load the inspector of `core.warp` shows lists as many requests as its heading counts
/// (`… of 4 requests back`, `last load … 4 requests, …`): rows sent and rows not sent yet.
fn assert_loads_have_their_rows(s: &Session, core: u16, warp: u16) {
    use warpscope::debug::views::{Block, show};
    let v = show(&s.scene(), "warp", &[format!("{core}.{warp}")]).unwrap();
    for (i, b) in v.blocks.iter().enumerate() {
        let Block::Lines(lines) = b else { continue };
        let Some(head) = lines.last().map(|l| l.iter().map(|s| s.text.as_str()).collect::<String>()) else {
            continue;
        };
        if !head.contains("load #") {
            continue;
        }
        let words: Vec<&str> = head.split([' ', ',']).collect();
        let at = words.iter().position(|w| w.starts_with("request")).expect("a request count");
        let n: usize = words[at - 1].parse().unwrap();
        let Some(Block::Table(t)) = v.blocks.get(i + 1) else { panic!("{head}: no table follows") };
        assert_eq!(t.rows.len(), n, "warp {core}.{warp} at cycle {}: {head}", s.gpu.cycle);
    }
}

/// A warp slot refilled by a new CTA shows its new warp only (issue 38 item 4): the issue's
/// reproduction, where CTA 120 takes slots 0–7 of SM 0 at cycle 190,209 from the warps of a
/// finished CTA, which had issued loads. The warps view lists no last load for them, the inspector no
/// load and no empty request table, and `show blame` looks among the new warp's loads only.
#[test]
fn a_warp_slot_refilled_by_a_new_cta_shows_the_new_warp_only() {
    let mut s = builtin_session();
    run(&mut s, "until 10");
    run(&mut s, "break cta-launch");
    assert_eq!(run(&mut s, "continue"), "Breakpoint 1, cycle 190,209: CTA 120 launched on core 0");
    let warps = run(&mut s, "show warps 0");
    let new: Vec<&str> = warps.lines().filter(|l| l.split_whitespace().nth(1) == Some("120")).collect();
    assert_eq!(new.len(), 8, "{warps}");
    for row in &new {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[cells.len() - 2..], ["0", "-"], "no instructions, no last load: {row}");
    }
    let inspector = run(&mut s, "show warp 0.4");
    assert!(inspector.contains("CTA 120 ") && inspector.contains("launched at 190,208"), "{inspector}");
    assert!(inspector.contains("no global loads yet") && !inspector.contains("load #"), "{inspector}");
    assert!(!inspector.contains("ch/bank/row"), "no request table: {inspector}");
    let err = |s: &mut Session, cmd: &str| s.execute_blocking(cmd).unwrap_err();
    assert_eq!(
        err(&mut s, "show blame 0.4"),
        "warp 0.4 (CTA 120, launched at cycle 190,208) has finished no global load yet"
    );
    assert_eq!(
        err(&mut s, "show blame 0.4 0"),
        "warp 0.4 (CTA 120, launched at cycle 190,208) issued no load 0 (none yet)"
    );
    // Once the new warp's first load is back, it is the one shown and blamed.
    run(&mut s, "delete");
    run(&mut s, "break load-done warp=0.4");
    run(&mut s, "continue");
    let inspector = run(&mut s, "show warp 0.4");
    assert!(inspector.contains("last load #0 pc 0x0000 issued 384,779: 1 request,"), "{inspector}");
    assert_loads_have_their_rows(&s, 0, 4);
    assert!(run(&mut s, "show blame 0.4").contains("Blame — load 0 of warp 0.4"));
}

/// The inspector never shows a request count without its rows (issue 38 item 4): every load
/// of every warp of the small machine, at each CTA launch of the test workload's two kernels
/// (slots refilled by new CTAs) and every 2,000 cycles between (loads in flight with lines not
/// sent yet, finished loads).
#[test]
fn every_load_the_inspector_shows_has_a_row_for_each_of_its_requests() {
    let mut s = session();
    run(&mut s, "break cta-launch if cycle > 1");
    let (mut loads, mut refills, mut stops) = (0, 0, 0);
    while s.gpu.is_running() {
        let at = s.gpu.cycle;
        // `until` stops at the launches on the way.
        run(&mut s, &format!("until {}", at + 2_000));
        stops += 1;
        for core in 0..4u16 {
            for warp in 0..s.gpu.sms[core as usize].exec.warps.len() as u16 {
                let w = &s.gpu.sms[core as usize].exec.warps[warp as usize];
                refills += usize::from(w.valid && w.launched > at);
                loads += w.loads.iter().filter(|l| l.active).count() + usize::from(w.last_load.requests > 0);
                assert_loads_have_their_rows(&s, core, warp);
            }
        }
    }
    assert!(
        refills > 20 && loads > 500 && stops > 20,
        "{refills} warps launched, {loads} loads, {stops} stops"
    );
}

/// Under GPGPU-Sim's FR-FCFS each bank serves one request at a time (`bank_t::mrq`): the banks
/// view lists it per bank, as the scheduler holds it, and `-` for a bank holding none.
#[test]
fn the_banks_view_shows_the_request_each_bank_holds_under_gpgpusim_frfcfs() {
    use warpscope::debug::views::{Block, show};
    use warpscope::sim::dram::sched::DramScheduler;
    let mut s = session_on(&["dram.scheduler=gpgpusim-frfcfs"]);
    let holding =
        |s: &Session| s.gpu.dram[0].scheduler.held().unwrap().iter().filter(|h| h.is_some()).count();
    while holding(&s) < 2 {
        run(&mut s, "step");
        assert!(s.gpu.cycle < 20_000, "two banks of channel 0 hold requests at some point");
    }
    let v = show(&s.scene(), "banks", &["0".into()]).unwrap();
    let Some(Block::Table(t)) = v.blocks.iter().find(|b| matches!(b, Block::Table(_))) else {
        panic!("a table")
    };
    assert_eq!(t.header.last().map(String::as_str), Some("holds (warp|wb row)"));
    let mc = &s.gpu.dram[0];
    for (b, held) in mc.scheduler.held().unwrap().iter().enumerate() {
        let want = held.map_or("-".to_string(), |slot| {
            let p = mc.queues.get(slot);
            let who = match p.req.kind {
                warpscope::sim::request::AccessKind::Writeback => "wb".to_string(),
                _ => format!("{}.{}", p.req.origin.core, p.req.origin.warp),
            };
            format!("{who} {}", p.row)
        });
        assert_eq!(t.rows[b].last().unwrap().text, want, "bank {b}");
    }
    // Other schedulers hold nothing per bank: no such column.
    assert!(!run(&mut session(), "show banks 0").contains("holds"));
}
