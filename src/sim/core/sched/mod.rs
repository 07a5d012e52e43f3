//! Warp schedulers behind one trait (MECHANISMS §6, §9).
//!
//! Each cycle a scheduler offers its warps to the issue stage in its priority order; the
//! issue stage tries each in turn (`try_issue`) until one issues. Schedulers see each warp's
//! age, so policies like GTO need no per-cycle sorting.
//!
//! Adding a scheduler: one file implementing [`WarpScheduler`], one variant in
//! [`WarpSchedulerKind`], one name in `config::names::WarpSchedulerName`.

mod gto;
mod lrr;

pub use gto::Gto;
pub use lrr::Lrr;

use crate::config::WarpSchedulerName;
use enum_dispatch::enum_dispatch;

/// What a scheduler may read about the warps of its SM.
pub struct SchedView<'a> {
    /// Launch order per warp slot (smaller = older).
    pub ages: &'a [u64],
    /// Every resident warp of this scheduler (candidates are a subset: those not known to be
    /// blocked). Changes only when CTAs arrive or leave.
    pub members: u64,
    /// Bumped whenever `members` or `ages` change, so policies can cache orderings.
    pub generation: u64,
}

/// A warp-scheduling policy for one scheduler of an SM.
#[enum_dispatch]
pub trait WarpScheduler {
    /// Offers the warps in `candidates` (bit = warp slot) in priority order to `try_issue`,
    /// stopping at the first that issues. Returns that warp.
    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize>;
}

/// The configured policy.
#[enum_dispatch(WarpScheduler)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarpSchedulerKind {
    Lrr,
    Gto,
}

impl WarpSchedulerKind {
    pub fn new(name: WarpSchedulerName) -> WarpSchedulerKind {
        match name {
            WarpSchedulerName::Lrr => Lrr::default().into(),
            WarpSchedulerName::Gto => Gto::default().into(),
        }
    }
}

/// Visits set bits of `mask` starting after `after` and wrapping around.
pub(crate) fn rotate(mask: u64, after: usize) -> impl Iterator<Item = usize> {
    let split = (after + 1) % 64;
    let high = if split == 0 { mask } else { mask & !((1u64 << split) - 1) };
    let low = mask & !high;
    bits(high).chain(bits(low))
}

/// Set bits, lowest first.
pub(crate) fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let b = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_wraps() {
        let v: Vec<usize> = rotate(0b1011_0101, 2).collect();
        assert_eq!(v, vec![4, 5, 7, 0, 2]);
        let v: Vec<usize> = rotate(1 | 1 << 63, 63).collect();
        assert_eq!(v, vec![0, 63]);
    }
}
