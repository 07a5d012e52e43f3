//! Idealized memories (seed 002 §III, Fig. 3; seed 003 PMEM and Perfect-L2): exact latencies
//! of a lone load, what each switch removes from the machine, and request conservation.

mod common;

use common::{gpu, run_conserving, small_config, workload};
use warpscope::sim::event::{Event, EventKind};
use warpscope::sim::stats::report::Report;
use warpscope::sim::{Gpu, Status};

const TINY: &str = include_str!("fixtures/tiny.ron");

/// Every CTA's single warp loads the same element once, then uses it.
const ONE_LOAD: &str = r#"(name: "one-load", kernels: [(name: "k", ctas: 2, threads_per_cta: 32,
    arrays: [(name: "a", elems: 64)],
    program: [Load(array: "a", pattern: Uniform, dst: 1), Alu(srcs: [1])])])"#;

/// Runs `ONE_LOAD` on two SMs, one CTA each (SM 0 gets its CTA a cycle before SM 1);
/// returns (issue → data latency of the load on each SM, machine).
fn one_load(sets: &[&str]) -> (Vec<u64>, Gpu) {
    let mut all = vec!["core.count=2", "core.max_ctas=1"];
    all.extend_from_slice(sets);
    let mut g = gpu(small_config(&all), workload(ONE_LOAD, 1));
    g.events.set(EventKind::LoadDone, true);
    let mut lat = vec![0; 2];
    while g.is_running() {
        g.step();
        for (_, e) in g.events.drain() {
            if let Event::LoadDone { core, issued, last, .. } = e {
                lat[core as usize] = last - issued;
            }
        }
    }
    assert_eq!(g.status, Status::Done);
    assert_eq!(g.ledger.in_flight(), 0);
    (lat, g)
}

#[test]
fn a_lone_load_takes_exactly_the_ideal_latency() {
    // Issue at t, L1 access at t+1, the request leaves the miss queue at t+2: the ideal
    // latency counts from there.
    let (lat, g) = one_load(&["ideal.memory=fixed-latency", "ideal.miss_latency=77"]);
    assert_eq!(lat, vec![79, 79]);
    // Seed 002 Fig. 3 starts at 0: the miss comes back the cycle it leaves the miss queue.
    let (lat, _) = one_load(&["ideal.memory=fixed-latency", "ideal.miss_latency=0"]);
    assert_eq!(lat, vec![2, 2]);
    assert_eq!((g.icnt.request.stats.packets, g.dram.iter().map(|d| d.stats.reads).sum::<u64>()), (0, 0));
    // P∞: SM 0's request misses in the L2 tags (120 + 100), SM 1's, a cycle later, finds the
    // line SM 0 installed (120).
    let (lat, g) = one_load(&["ideal.memory=infinite-bandwidth"]);
    assert_eq!(lat, vec![222, 122]);
    assert_eq!((g.ideal.requests, g.ideal.l2_hits), (2, 1));
    let (lat, _) =
        one_load(&["ideal.memory=infinite-bandwidth", "ideal.l2_latency=30", "ideal.dram_latency=5"]);
    assert_eq!(lat, vec![37, 32]);
}

#[test]
fn perfect_caches_keep_requests_where_they_are() {
    // PMEM: the L1 hit latency (20) after the access; nothing leaves the SM.
    let (lat, g) = one_load(&["ideal.perfect_l1=true"]);
    assert_eq!(lat, vec![21, 21]);
    let r = Report::new(&g, 0.0);
    assert_eq!((r.l1.hit_rate, r.icnt.request_packets), (1.0, 0));
    // Perfect L2: the real crossbar and L2 hit pipeline, no DRAM.
    let (_, g) = one_load(&["ideal.perfect_l2=true"]);
    let r = Report::new(&g, 0.0);
    assert_eq!((r.l2.hit_rate, r.dram.metrics.reads), (1.0, 0));
    // P_DRAM: the real L2 misses, but DRAM answers `dram_latency` after the miss queue,
    // untimed: the lone load's latency grows by exactly the difference of two settings.
    let (a, g) = one_load(&["ideal.memory=infinite-dram", "ideal.dram_latency=100"]);
    let (b, _) = one_load(&["ideal.memory=infinite-dram", "ideal.dram_latency=300"]);
    assert!(g.dram.iter().all(|d| d.stats.commands.iter().sum::<u64>() == 0));
    assert!(Report::new(&g, 0.0).l2.read_misses > 0);
    assert_eq!((b[0] - a[0], b[1] - a[1]), (200, 200));
}

#[test]
fn every_ideal_memory_conserves_requests() {
    for sets in [
        &["ideal.perfect_l1=true"][..],
        &["ideal.perfect_l2=true"][..],
        &["ideal.memory=infinite-bandwidth"][..],
        &["ideal.memory=infinite-dram"][..],
        &["ideal.memory=fixed-latency", "ideal.miss_latency=200"][..],
    ] {
        let mut g = gpu(small_config(sets), workload(TINY, 1));
        run_conserving(&mut g, 89, 2_000_000, &format!("{sets:?}"));
        assert_eq!(g.status, Status::Done, "{sets:?}");
        assert_eq!(g.ledger.in_flight(), 0, "{sets:?}");
    }
}

#[test]
fn idealizing_the_memory_speeds_up_a_memory_bound_kernel() {
    let cycles = |sets: &[&str]| {
        let mut g = gpu(small_config(sets), workload(TINY, 1));
        g.run(0);
        g.cycle
    };
    let real = cycles(&[]);
    let pinf = cycles(&["ideal.memory=infinite-bandwidth"]);
    let pmem = cycles(&["ideal.perfect_l1=true"]);
    let pl2 = cycles(&["ideal.perfect_l2=true"]);
    assert!(pmem < pinf && pinf < real, "PMEM {pmem} < P∞ {pinf} < real {real}");
    assert!(pl2 < real, "perfect L2 {pl2}, real {real}");
}
