//! Agreement with the peer, held: a few of the validation studies' small kernels run against the
//! peer's stored results (docs/validation/peer/), and the test fails when warpscope moves further
//! from the reference than the tolerances below. A model change that makes one of them worse has
//! to explain itself here; the whole tables are `warpscope validate SPEC` (docs/validation/).

use warpscope::batch::validate::{self, spec::Study, table};

/// The most a kernel's cycles may differ from the peer's, percent.
const CYCLE_TOLERANCE: f64 = 10.0;
/// The most its DRAM bandwidth utilization and L2 read hit rate may differ, percentage points.
const RATE_TOLERANCE: f64 = 5.0;

/// Kernels that take seconds: on both machines a write-only stream (L2 write-backs and the
/// DRAM write path); on SM7_QV100 the 160-CTA BFS-like kernel (divergent gathers, stores, row
/// misses through the banked L1), on SM6_TITANX the random gather (every lane its own sector,
/// past the L1 it skips).
const CHECKED: &[(&str, &[&str])] = &[
    ("sample-configs/validation/qv100-memory.ron", &["stream-write", "bfs-synth-160"]),
    ("sample-configs/validation/titanx-memory.ron", &["stream-write", "gather"]),
];

#[test]
fn small_kernels_stay_within_tolerance_of_the_stored_peer_results() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    for (spec, kernels) in CHECKED {
        let study = Study::load(&root.join(spec)).unwrap();
        let only: Vec<String> = kernels.iter().map(|k| k.to_string()).collect();
        let v = validate::validate(&study, Some(&only)).unwrap();
        assert_eq!(v.rows.len(), kernels.len());
        for row in &v.rows {
            let peer =
                row.peer.as_ref().unwrap_or_else(|| panic!("{spec}: no stored result for {}", row.name));
            let cycles = table::error(row.ours.cycles as f64, peer.cycles).expect("the peer's cycles");
            let bandwidth =
                (row.ours.dram.metrics.bandwidth_utilization - peer.bandwidth_utilization.unwrap()) * 100.0;
            let l2 = peer.l2_hit_rate.map_or(0.0, |p| (row.ours.l2.hit_rate - p) * 100.0);
            let line = format!(
                "{spec} {}: cycles {cycles:+.1} %, bandwidth {bandwidth:+.1} points, L2 hits {l2:+.1} points",
                row.name
            );
            eprintln!("{line}");
            if cycles.abs() > CYCLE_TOLERANCE || bandwidth.abs() > RATE_TOLERANCE || l2.abs() > RATE_TOLERANCE
            {
                failures.push(line);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "further from the peer than {CYCLE_TOLERANCE} % in cycles or {RATE_TOLERANCE} points in rates:\n{}",
        failures.join("\n")
    );
}
