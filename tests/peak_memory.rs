//! The peak-memory probe `validate` measures each run with. Alone in its test binary: other
//! tests allocating in parallel threads would move the peak.

use warpscope::batch::peak_memory::{peak_rss_mb, reset_peak};

#[test]
fn a_reset_peak_forgets_memory_given_back() {
    if peak_rss_mb().is_none() || !reset_peak() {
        return; // not Linux: nothing to measure
    }
    let before = peak_rss_mb().unwrap();
    // 64 MB touched, then freed: the peak holds it until reset.
    let big = vec![1u8; 64 << 20];
    assert!(big.iter().step_by(4096).all(|&b| b == 1));
    drop(big);
    assert!(peak_rss_mb().unwrap() >= before + 60.0);
    assert!(reset_peak());
    assert!(peak_rss_mb().unwrap() < before + 30.0, "the freed 64 MB no longer count");
}
