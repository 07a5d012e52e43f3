//! `--jobs N` of `compare`, `sweep` and `repro`: how many simulations run at once.
//!
//! The pool never has more threads than there are simulations to run, nor more than
//! [`PER_CORE`] per core: a thread beyond those only costs its start-up and memory (issue 37:
//! `--jobs 100000` on two points spent minutes starting threads before running either).

/// Threads allowed per core.
pub const PER_CORE: usize = 4;

/// The pool's size for `--jobs jobs` (≥ 1) with `points` simulations to run on `cores` cores.
pub fn pool_size(jobs: usize, points: usize, cores: usize) -> usize {
    jobs.min(points).min(PER_CORE * cores).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_pool_is_cut_to_the_points_and_the_cores() {
        assert_eq!(pool_size(100_000, 2, 2), 2, "two points need two threads");
        assert_eq!(pool_size(100_000, 1_000, 2), 8, "four per core");
        assert_eq!(pool_size(3, 1_000, 2), 3, "what was asked, when it fits");
        assert_eq!(pool_size(5, 0, 2), 1, "nothing to run still builds a pool");
    }

    proptest! {
        #![proptest_config(crate::cases::config(crate::cases::JOB_POOLS))]

        /// Any request gives a pool of at least one thread and at most the points, the cores'
        /// share and what was asked.
        #[test]
        fn any_request_is_bounded(jobs in 1usize..=usize::MAX, points in 0usize..1 << 20, cores in 1usize..512) {
            let n = pool_size(jobs, points, cores);
            prop_assert!(n >= 1);
            prop_assert!(n <= jobs && n <= PER_CORE * cores && n <= points.max(1));
            prop_assert!(n == jobs || n == points.max(1) || n == PER_CORE * cores);
        }
    }
}
