//! GPGPU-Sim's store acknowledgements (`l2.write_acks`): the L2 answers every store it writes
//! with a header-only reply (`WRITE_ACK`), and a warp is done only when its stores are
//! answered (`shd_warp_t::hardware_done` waits for `stores_done`).

mod common;

use common::{gpu, small_config, workload};
use warpscope::debug::{Outcome, Session};
use warpscope::sim::event::{Event, EventKind};

/// One warp stores 32 coalesced words (one access) and exits, alone on one SM.
const STORE_THEN_EXIT: &str = r#"(name: "store", kernels: [(name: "k", ctas: 1, threads_per_cta: 32,
    arrays: [(name: "d", elems: 64)],
    program: [Store(array: "d", pattern: Coalesced)])])"#;

/// The cycle the CTA finished, the cycle the store left the memory system (the ledger's last
/// retirement), and the reply packets the crossbar carried.
fn run(acks: bool) -> (u64, u64, u64) {
    run_on(acks, &[])
}

/// As [`run`], on the small machine with `sets` too.
fn run_on(acks: bool, sets: &[&str]) -> (u64, u64, u64) {
    let acks = format!("l2.write_acks={acks}");
    let sets: Vec<&str> = ["core.count=1", acks.as_str()].into_iter().chain(sets.iter().copied()).collect();
    let mut g = gpu(small_config(&sets), workload(STORE_THEN_EXIT, 1));
    g.events.set(EventKind::CtaDone, true);
    let (mut done, mut retired_at) = (None, None);
    while g.is_running() {
        let before = g.ledger.retired();
        g.step();
        if g.ledger.retired() > before {
            retired_at = Some(g.cycle);
        }
        for (at, e) in g.events.drain() {
            if matches!(e, Event::CtaDone { .. }) {
                done = Some(at);
            }
        }
        assert!(g.cycle < 100_000, "runaway");
    }
    assert_eq!(g.ledger.created(), g.ledger.retired(), "every request left");
    (done.expect("the CTA finished"), retired_at.expect("the store retired"), g.icnt.reply.stats.packets)
}

#[test]
fn a_warp_exits_only_when_its_store_is_acknowledged() {
    let (done, acked, replies) = run(true);
    assert_eq!(replies, 1, "the acknowledgement crossed the reply network");
    assert_eq!(done, acked, "the warp, and its CTA, finished in the cycle its store was answered");
    let (done, retired, replies) = run(false);
    assert_eq!(replies, 0, "nothing goes back");
    assert!(done < retired, "the warp finished before its store was written ({done} against {retired})");
}

/// An ideal memory below the L1 answers a store after its latency, as GPGPU-Sim's perfect
/// memory answers every request through the cluster's response FIFO: the warp's CTA finishes
/// exactly 100 cycles later when the fixed miss latency is 100 cycles longer, and without the
/// acknowledgements the latency does not hold it at all. No packet crosses the crossbar.
#[test]
fn an_ideal_memory_answers_a_store_after_its_latency() {
    let at = |acks: bool, latency: u32| {
        let latency = format!("ideal.miss_latency={latency}");
        run_on(acks, &["ideal.memory=fixed-latency", &latency])
    };
    let ((short, short_acked, replies), (long, long_acked, _)) = (at(true, 50), at(true, 150));
    assert_eq!(replies, 0, "the ideal memory has no crossbar");
    assert_eq!((short, long), (short_acked, long_acked), "each CTA finished as its store was answered");
    assert_eq!(long - short, 100, "the acknowledgement waits out the miss latency");
    let ((short, _, _), (long, _, _)) = (at(false, 50), at(false, 150));
    assert_eq!(short, long, "without acknowledgements the store does not hold its warp");
}

/// The debugger shows what an exited warp waits for: `print` reads its unacknowledged stores,
/// and the warp inspector names them, in the cycle before the acknowledgement arrives.
#[test]
fn the_debugger_shows_a_warps_unacknowledged_stores() {
    let (acked, _, _) = run(true);
    let config = small_config(&["core.count=1", "l2.write_acks=true"]);
    let mut s = Session::new(config, workload(STORE_THEN_EXIT, 1)).unwrap();
    let text = |s: &mut Session, cmd: &str| match s.execute_blocking(cmd) {
        Ok(Outcome::Text(t)) => t,
        other => panic!("{cmd}: {other:?}"),
    };
    text(&mut s, &format!("until {}", acked - 1));
    assert!(text(&mut s, "print sm[0].warp[0].stores_out").contains("= 1"));
    let warp = text(&mut s, "show warp 0.0");
    assert!(warp.contains("stores unacknowledged 1"), "{warp}");
    text(&mut s, "step");
    assert!(text(&mut s, "show warp 0.0").contains("no warp in this slot now"));
}
