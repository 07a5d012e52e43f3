//! The SM side as controlled machine scenarios: memory occlusion (seed 004 Fig. 1.3), the
//! stall classes of seed 002's two-MSHR example (Fig. 6), exact stall attribution, the
//! idealized memories, and the scheduler events.

mod common;

use common::{gpu, small_config, workload};
use warpscope::sim::core::stall::{StallClass, StallReason};
use warpscope::sim::event::{Event, EventKind};
use warpscope::sim::stats::StallCause;
use warpscope::sim::stats::report::Report;
use warpscope::sim::{Gpu, Status};

const TINY: &str = include_str!("fixtures/tiny.ron");

/// Steps `g` until it is done, collecting the events of `kinds`.
fn run_collect(g: &mut Gpu, kinds: &[EventKind]) -> Vec<(u64, Event)> {
    for &k in kinds {
        g.events.set(k, true);
    }
    let mut out = Vec::new();
    while g.is_running() {
        g.step();
        out.extend(g.events.drain());
        assert!(g.cycle < 2_000_000, "runaway simulation");
    }
    assert_eq!(g.status, Status::Done);
    out
}

/// One SM, one scheduler, fixed-latency memory below the L1.
fn one_sm(extra: &[&str]) -> Vec<&'static str> {
    let mut sets: Vec<&'static str> =
        vec!["core.count=1", "core.warp_schedulers=1", "ideal.memory=fixed-latency", "ideal.miss_latency=50"];
    for e in extra {
        sets.push(Box::leak(e.to_string().into_boxed_str()));
    }
    sets
}

/// Seed 004 Fig. 1.3: 4 MSHRs, 2 taken by the misses of loads A and B. A coherent load with
/// one miss proceeds; a divergent load with four misses occludes the LD/ST unit: its first two
/// misses take the last MSHRs, the other two replay until A's and B's data return, and the
/// store behind it waits all that time.
#[test]
fn occlusion_example_of_fig_1_3() {
    let program = |pattern: &str| {
        format!(
            r#"(name: "fig1.3", kernels: [(name: "k", ctas: 1, threads_per_cta: 32,
            arrays: [(name: "a", elems: 64), (name: "b", elems: 64), (name: "c", elems: 4096),
                     (name: "d", elems: 64)],
            program: [
                Load(array: "a", pattern: Uniform, dst: 1),
                Load(array: "b", pattern: Uniform, dst: 2),
                Load(array: "c", pattern: {pattern}, dst: 3),
                Store(array: "d", pattern: Coalesced),
                Alu(srcs: [1, 2, 3]),
            ])])"#
        )
    };
    let sets = one_sm(&["l1.mshr_entries=4", "core.mem_pipeline_width=4"]);
    // Lane t of a coalesced load reads c[t] (one line); with a 16-byte stride, four lines.
    for (pattern, divergent) in [("Coalesced", false), ("Strided(stride_bytes: 16)", true)] {
        let mut g = gpu(small_config(&sets), workload(&program(pattern), 1));
        let mut store_done = None;
        g.events.set(EventKind::MemoryOcclusion, true);
        g.events.set(EventKind::MshrFull, true);
        let mut events = Vec::new();
        while g.is_running() {
            g.step();
            events.extend(g.events.drain());
            // The store has left the LD/ST unit when the queue empties after the loads issued.
            if store_done.is_none() && g.cycle > 3 && g.sms[0].ldst.queue.is_empty() {
                store_done = Some(g.cycle);
            }
        }
        let sm = &g.sms[0];
        // A at cycle 1, B at 2; C, issued at 2, reaches the LD/ST unit at 3 with 2 MSHRs free.
        if !divergent {
            assert!(events.is_empty(), "{events:?}");
            assert_eq!(sm.stats.occlusions, 0);
            assert_eq!(sm.stats.loads.occlusion_cycles, 0);
            assert_eq!(store_done, Some(5), "the store goes right after C's single access");
            continue;
        }
        // Events carry the cycle after the step they happen in.
        assert_eq!(
            events[0],
            (4, Event::MemoryOcclusion { core: 0, warp: 0, pc: events_pc(&events), needed: 4, free: 2 })
        );
        // C's third access finds no MSHR from cycle 5 until A's data is back: A's request
        // left the L1 at cycle 2 and returns 50 cycles later, at 52, when C's third access
        // goes; B's frees the last one at 53 for the fourth.
        let full: Vec<u64> =
            events.iter().filter(|(_, e)| matches!(e, Event::MshrFull { .. })).map(|&(c, _)| c - 1).collect();
        assert_eq!(full, (5..52).collect::<Vec<u64>>());
        assert_eq!(sm.stats.ldst_stalls[StallCause::Mshr as usize], 47);
        assert_eq!(sm.stats.occlusions, 1);
        // Memory-occlusion time of C: issued at 2, last access at 53, four accesses.
        assert_eq!(sm.stats.loads.occlusion_cycles, 53 - 2 - 4);
        assert_eq!(store_done, Some(55), "the store waited behind the occluded load");
    }
}

fn events_pc(events: &[(u64, Event)]) -> u32 {
    match events[0].1 {
        Event::MemoryOcclusion { pc, .. } => pc,
        _ => panic!("first event is not an occlusion: {events:?}"),
    }
}

/// Seed 002 Fig. 6: with two MSHRs, loads l1 and l2 take them, l3 misses too and stalls the
/// LD/ST unit, l4 — a hit — cannot enter it, and the independent multiply behind it waits in
/// order: the core's stall cycles are structural (str-MEM), not data hazards, until l1's data
/// frees an MSHR. With enough MSHRs the same instructions flow: no str-MEM cycle, the hit
/// and the multiply go at once.
#[test]
fn stall_classes_of_the_two_mshr_example_of_fig_6() {
    let program = r#"(name: "fig6", kernels: [(name: "k", ctas: 1, threads_per_cta: 32,
        arrays: [(name: "x", elems: 64), (name: "p", elems: 64), (name: "q", elems: 64),
                 (name: "r", elems: 64)],
        program: [
            Load(array: "x", pattern: Uniform, dst: 9),
            Alu(srcs: [9]),
            Load(array: "p", pattern: Uniform, dst: 1),
            Load(array: "q", pattern: Uniform, dst: 2),
            Load(array: "r", pattern: Uniform, dst: 3),
            Load(array: "x", pattern: Uniform, dst: 4),
            Alu(dst: 5),
            Alu(srcs: [1, 2, 3, 4]),
        ])])"#;
    let run = |mshrs: &str| {
        let sets = one_sm(&[mshrs, "core.mem_pipeline_width=1"]);
        let mut g = gpu(small_config(&sets), workload(program, 1));
        let events = run_collect(&mut g, &[EventKind::LoadDone, EventKind::WarpStall]);
        // The only load that hits (20-cycle hit latency; the misses take 50+).
        let hit_done = events.iter().find_map(|(_, e)| match e {
            Event::LoadDone { issued, last, .. } if last - issued <= 25 => Some(*last),
            _ => None,
        });
        (g, events, hit_done.expect("the hit load finished"))
    };
    let (two, two_events, two_hit) = run("l1.mshr_entries=2");
    let (many, _, many_hit) = run("l1.mshr_entries=32");
    let classes = |g: &Gpu| g.sms[0].stats.stall_classes;
    // Two MSHRs: l3 blocks the LD/ST unit from the cycle after it arrives until l1's data is
    // back — the 50-cycle miss latency less the cycle l1 took to reach the interconnect.
    // Nothing else differs: the hit, and the whole run, finish exactly that much later.
    assert_eq!(classes(&two)[StallClass::StrMem as usize], 49);
    assert_eq!(classes(&many)[StallClass::StrMem as usize], 0);
    assert_eq!(two_hit - many_hit, 49);
    assert_eq!(two.cycle - many.cycle, 49);
    // Both wait on x first and on the loads at the end: data-MEM, the same in both.
    assert_eq!(classes(&two)[StallClass::DataMem as usize], classes(&many)[StallClass::DataMem as usize]);
    assert!(classes(&two)[StallClass::DataMem as usize] > 50);
    // The warp's own state while it waited: a str-MEM stall reported as an event.
    assert!(
        two_events.iter().any(|(_, e)| matches!(e, Event::WarpStall { reason: StallReason::MemPipe, .. }))
    );
}

/// The stall class counted for each core cycle (from masks and the warps the schedulers
/// tried) equals the class of the exact per-warp reasons the `WarpStall` events report, and
/// listening does not change the run.
#[test]
fn stall_attribution_is_exact_and_listening_changes_nothing() {
    for scheduler in ["gto", "lrr", "swl", "oaws-static", "mascar", "cta-aware"] {
        let set = format!("core.warp_scheduler={scheduler}");
        let sets = [set.as_str()];
        let mut quiet = gpu(small_config(&sets), workload(TINY, 1));
        quiet.run(40_000);
        let mut g = gpu(small_config(&sets), workload(TINY, 1));
        g.events.set(EventKind::WarpStall, true);
        let n = g.sms.len();
        let mut reason = vec![vec![StallReason::Issued; 64]; n];
        let mut checked = 0;
        while g.cycle < 40_000 {
            let before: Vec<[u64; 6]> = g.sms.iter().map(|s| s.stats.stall_classes).collect();
            g.step();
            for (_, e) in g.events.drain() {
                if let Event::WarpStall { core, warp, reason: r } = e {
                    reason[core as usize][warp as usize] = r;
                }
            }
            for (i, sm) in g.sms.iter().enumerate() {
                let counted: Vec<usize> =
                    (0..6).filter(|&c| sm.stats.stall_classes[c] != before[i][c]).collect();
                if sm.issue.issued_last != 0 || sm.exec.valid == 0 {
                    assert!(counted.is_empty());
                    continue;
                }
                let reasons = (0..64)
                    .filter(|&w| sm.exec.valid & (1 << w) != 0)
                    .fold(0u16, |m, w| m | reason[i][w].bit());
                assert_eq!(
                    counted,
                    vec![StallClass::of(reasons) as usize],
                    "{scheduler}: SM {i} cycle {}",
                    g.cycle - 1
                );
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{scheduler}: {checked} stall cycles checked");
        assert_eq!(Report::new(&quiet, 0.0), Report::new(&g, 0.0), "{scheduler}");
    }
}

/// Seed 003's MemoryBlockCycles (every warp on the core waits on memory) and NoWarpCycles
/// (a core without warps while the kernel runs elsewhere), counted exactly.
#[test]
fn memory_block_and_no_warp_cycles() {
    let program = r#"(name: "wait", kernels: [(name: "k", ctas: 1, threads_per_cta: 64,
        arrays: [(name: "a", elems: 4096)],
        program: [Load(array: "a", pattern: Coalesced, dst: 1), Alu(srcs: [1])])])"#;
    let mut g = gpu(
        small_config(&["core.count=2", "ideal.memory=fixed-latency", "ideal.miss_latency=50"]),
        workload(program, 1),
    );
    g.run(0);
    let (sm0, sm1) = (&g.sms[0].stats, &g.sms[1].stats);
    // Both warps issue their load at cycle 0 (two schedulers); the LD/ST unit sends them at 1
    // and 2; the data is back at 52 and 53, when each warp issues its ALU instruction.
    // Cycles 1..=51: both wait on memory, nothing else.
    assert_eq!(sm0.memory_block_cycles, 51);
    assert_eq!(sm0.stall_classes.iter().sum::<u64>(), 51);
    // SM 1 never gets a CTA: every cycle until the kernel ends is a NoWarpCycle.
    let kernel_cycles = g.launcher.kernel_start;
    assert!(kernel_cycles > 50);
    assert_eq!(sm1.no_warp_cycles, kernel_cycles);
    assert_eq!(sm1.memory_block_cycles, 0);
    let r = Report::new(&g, 0.0);
    assert!(r.core.memory_block_rate > 0.0 && r.core.no_warp_rate > 0.4);
}

/// CTAs are spread over the SMs round-robin, one per SM per cycle (GPGPU-Sim's
/// `issue_block2core`): a grid smaller than the GPU puts one CTA on each of as many SMs, not
/// several on some while others stay empty (the launcher restarted its pass from the SM after
/// every CTA it placed, which skipped SMs: 8 CTAs on 8 SMs went two to SM 3 and none to SM 7;
/// ATAX's 32 on fermi-30sm's 30 SMs filled 13 of them, up to four CTAs each).
#[test]
fn ctas_spread_one_per_sm() {
    let program = r#"(name: "spread", kernels: [(name: "k", ctas: 8, threads_per_cta: 64,
        arrays: [(name: "a", elems: 4096)],
        program: [Load(array: "a", pattern: Coalesced, dst: 1), Alu(srcs: [1])])])"#;
    let mut g = gpu(small_config(&["core.count=8"]), workload(program, 1));
    g.step();
    let resident: Vec<u32> = g.sms.iter().map(|s| s.exec.valid.count_ones()).collect();
    assert_eq!(resident, [2; 8], "two warps (one CTA) on each SM");
    g.run(0);
    let ctas: Vec<u64> = g.sms.iter().map(|s| s.stats.ctas).collect();
    assert_eq!(ctas, [1; 8]);
}

/// SWL and FCW-Only let only their first N warps issue (seed 004 §5.5.1: SWL "limits the number
/// of warps that can be actively scheduled"). A warp waiting at a barrier or exited is not
/// actively scheduled, so it gives its place to the next: counting it, the older warps of an
/// eight-warp CTA waited at the barrier for younger ones that could never issue, and the run
/// stuck (as Rodinia HotSpot and Backprop did under both).
#[test]
fn throttling_schedulers_let_a_cta_reach_its_barrier() {
    let program = r#"(name: "sync", kernels: [(name: "k", ctas: 2, threads_per_cta: 256,
        arrays: [(name: "a", elems: 65536)],
        program: [Load(array: "a", pattern: Coalesced, dst: 1), Alu(srcs: [1]), Barrier,
                  Load(array: "a", pattern: Strided(stride_bytes: 4096), dst: 2), Alu(srcs: [2])])])"#;
    for sets in [&["core.warp_scheduler=swl", "core.swl.warp_limit=1"][..], &["core.warp_scheduler=fcw-only"]]
    {
        let mut g = gpu(small_config(&one_sm(sets)), workload(program, 1));
        g.run(200_000);
        assert_eq!(g.status, Status::Done, "{sets:?}");
        assert_eq!(g.sms[0].stats.ctas, 2, "{sets:?}");
    }
}
