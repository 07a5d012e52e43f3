//! Warp schedulers behind one trait (MECHANISMS §6, §9).
//!
//! Each cycle the issue stage hands a scheduler its *candidates*: resident warps not known to
//! be blocked (waiting on a load, at a barrier, exited). The scheduler first *qualifies* them
//! (throttling policies hold some back: SWL, CCWS, MASCAR, OAWS, FCW-only), then offers the
//! qualified ones in its priority order to the issue stage (`try_issue`) until one issues.
//! Contract: when nothing issues, every qualified candidate has been offered once, so the
//! issue stage can attribute the stall exactly (`super::stall`).
//!
//! Schedulers see the SM through a [`SchedView`]: warp ages and GTO priorities, OWL CTA
//! groups, which warps' next instruction is a memory access, MSHR and miss-queue room, and
//! the SM-wide state of the policies that learn from the memory system ([`Learner`]: CCWS
//! victim tags, OAWS divergent-load classifier), which the SM feeds through
//! [`MemoryFeedback`] without naming the policy (see [`learner`]).
//!
//! Adding a scheduler touches three files: its own, implementing [`WarpScheduler`]; this one,
//! with its `mod` and `pub use` lines, one variant of [`WarpSchedulerKind`] and one arm of
//! [`WarpSchedulerKind::new`]; and its row in `config::names::WarpSchedulerName`. A scheduler
//! that learns from the memory system also implements [`MemoryFeedback`] for its state type in
//! its file and registers that state in `learner.rs`, a fourth (see [`learner`]). Its
//! parameters, if it has any, are a section of `CoreConfig` in `config/mod.rs` (field, struct
//! and default); its name goes in docs/machines.md's table of policies. No test lists them
//! all.

mod ccws;
mod cta_aware;
mod cta_locality;
mod cta_locality_blp;
mod fcw_only;
pub mod grouped;
mod gto;
pub mod learner;
mod lrr;
mod mascar;
mod oaws;
mod oaws_dyn;
mod oaws_static;
pub mod owl;
mod swl;
mod two_level;

pub use ccws::{Ccws, LostLocality, VictimTags};
pub use cta_aware::CtaAware;
pub use cta_locality::CtaLocality;
pub use cta_locality_blp::CtaLocalityBlp;
pub use fcw_only::FcwOnly;
pub use gto::{AgeOrder, Gto};
pub use learner::{Learner, MemoryFeedback};
pub use lrr::Lrr;
pub use mascar::{Mascar, ReexecQueue};
pub use oaws::{Dlc, DlcEntry, OawsMode, OawsState};
pub use oaws_dyn::OawsDyn;
pub use oaws_static::OawsStatic;
pub use swl::Swl;
pub use two_level::TwoLevel;

use super::stall::StallReason;
use crate::config::{Config, WarpSchedulerName};
use enum_dispatch::enum_dispatch;

/// What a scheduler may read about the warps of its SM.
#[derive(Clone, Copy)]
pub struct SchedView<'a> {
    /// The SM's id (OWL's BLP priority depends on it).
    pub core: u16,
    /// The current core cycle.
    pub now: u64,
    /// Launch order per warp slot (smaller = older).
    pub ages: &'a [u64],
    /// Every resident warp of this scheduler (candidates are a subset: those not known to be
    /// blocked). Changes only when CTAs arrive or leave.
    pub members: u64,
    /// Bumped whenever `members`, `ages`, priorities or CTA groups change, so policies can
    /// cache orderings.
    pub generation: u64,
    /// GTO priority per warp slot: rank by age among its scheduler's warps (0 = oldest).
    pub priority: &'a [u8],
    /// GTO priority within the whole SM (seed 004 §5.4.2's GTO_gprio).
    pub global_priority: &'a [u8],
    /// OWL CTA group per warp slot (Algorithm 1; see [`owl`]).
    pub cta_group: &'a [u32],
    /// g_core: CTA groups per core for the running kernel.
    pub groups_per_core: u32,
    /// Warps that cannot issue until something else happens: waiting on a load's data, at a
    /// barrier, or exited (the candidates exclude them).
    pub blocked: u64,
    /// Warps of the SM at a barrier or exited (a subset of `blocked`): not actively
    /// scheduled. GPGPU-Sim's scheduler order puts such warps after every other one, so a
    /// policy that lets only its first N warps issue (SWL, FCW-Only) does not count them.
    pub waiting: u64,
    /// Warps whose next instruction is a load or store.
    pub mem_next: u64,
    /// Warps whose next instruction is a global/local load (the ones that take MSHRs).
    pub load_next: u64,
    /// Warps whose next instruction is a global/local load or store (the ones that go
    /// through the L1 and its memory port).
    pub global_next: u64,
    /// Free L1 MSHR entries and their total.
    pub mshr_free: u32,
    pub mshr_capacity: u32,
    /// Free slots of the L1 miss queue (the memory port toward the interconnect).
    pub miss_queue_free: u32,
    /// The L1's fully cached warps (seed 004 §4.2.4): warps of SM-wide GTO priority below it
    /// are locality warps (FCW-only, dynamic OAWS).
    pub fcw: u32,
    pub learner: &'a Learner,
}

/// What a scheduler is doing, for views, events and the report (empty for stateless
/// policies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SchedStatus {
    /// Two-level / OWL: the group it is issuing from, and how often it changed.
    pub group: Option<u32>,
    pub group_switches: u64,
    /// MASCAR: memory saturated (memory-pressure mode), the owner warp, and the issue slots
    /// spent saturated.
    pub saturated: Option<bool>,
    pub owner: Option<u16>,
    pub saturated_slots: u64,
}

/// A warp-scheduling policy for one scheduler of an SM.
#[enum_dispatch]
pub trait WarpScheduler {
    /// The candidates this policy lets issue this cycle; the others are held back (and
    /// counted with [`WarpScheduler::hold_reason`]). Default: all of them.
    fn qualify(&mut self, candidates: u64, _view: &SchedView<'_>) -> u64 {
        candidates
    }

    /// Why a warp this policy holds back cannot issue.
    fn hold_reason(&self) -> StallReason {
        StallReason::Throttled
    }

    /// Offers the warps in `candidates` (bit = warp slot) in priority order to `try_issue`,
    /// stopping at the first that issues. Returns that warp. When none issues, every
    /// candidate must have been offered.
    fn pick(
        &mut self,
        candidates: u64,
        view: &SchedView<'_>,
        try_issue: &mut dyn FnMut(usize) -> bool,
    ) -> Option<usize>;

    /// The scheduling group of warp `w` (two-level fetch group, OWL CTA group), if the policy
    /// has groups.
    fn group_of(&self, _w: usize, _view: &SchedView<'_>) -> Option<u32> {
        None
    }

    /// The policy's current mode, for views and events.
    fn status(&self) -> SchedStatus {
        SchedStatus::default()
    }
}

/// The configured policy.
#[enum_dispatch(WarpScheduler)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WarpSchedulerKind {
    Lrr,
    Gto,
    TwoLevel,
    CtaAware,
    CtaLocality,
    CtaLocalityBlp,
    Swl,
    Ccws,
    Mascar,
    OawsStatic,
    FcwOnly,
    OawsDyn,
}

impl WarpSchedulerKind {
    /// The configured policy for one scheduler of an SM.
    pub fn new(c: &Config) -> WarpSchedulerKind {
        let core = &c.core;
        match core.warp_scheduler {
            WarpSchedulerName::Lrr => Lrr::default().into(),
            WarpSchedulerName::Gto => Gto::default().into(),
            WarpSchedulerName::TwoLevel => {
                TwoLevel::new(core.two_level.group_size, core.warp_schedulers).into()
            }
            WarpSchedulerName::CtaAware => CtaAware::default().into(),
            WarpSchedulerName::CtaLocality => CtaLocality::default().into(),
            WarpSchedulerName::CtaLocalityBlp => CtaLocalityBlp::default().into(),
            WarpSchedulerName::Swl => Swl::new(core.swl.warp_limit).into(),
            WarpSchedulerName::Ccws => Ccws::new(core.ccws.priority, core.ccws.access).into(),
            WarpSchedulerName::Mascar => Mascar::new(core.mascar.saturation_free).into(),
            WarpSchedulerName::OawsStatic => OawsStatic::default().into(),
            WarpSchedulerName::FcwOnly => FcwOnly::default().into(),
            WarpSchedulerName::OawsDyn => OawsDyn::default().into(),
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

/// Warps of `members` whose rank (`rank`: 0 = first) among the warps not `waiting` is below
/// `limit`: the first `limit` of them once the waiting warps are set aside (a waiting warp
/// older than a member moves it up one place). Without waiting warps, those ranked below
/// `limit`.
pub fn first_active(members: u64, rank: &[u8], waiting: u64, limit: u32) -> u64 {
    let mut pool = 0;
    for w in bits(members & !waiting) {
        let r = u32::from(rank[w]);
        let ahead = bits(waiting).filter(|&v| rank[v] < rank[w]).count() as u32;
        if r - ahead < limit {
            pool |= 1 << w;
        }
    }
    pool
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

/// Test helpers: a hand-built view over up to 64 warp slots.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Owned backing storage for a [`SchedView`].
    pub struct ViewData {
        pub ages: Vec<u64>,
        pub priority: Vec<u8>,
        pub global_priority: Vec<u8>,
        pub cta_group: Vec<u32>,
        pub members: u64,
        pub blocked: u64,
        pub waiting: u64,
        pub mem_next: u64,
        pub load_next: u64,
        pub global_next: u64,
        pub mshr_free: u32,
        pub mshr_capacity: u32,
        pub miss_queue_free: u32,
        pub fcw: u32,
        pub groups_per_core: u32,
        pub core: u16,
        pub learner: Learner,
    }

    impl ViewData {
        /// `members` with ages equal to their slot numbers (slot 0 oldest).
        pub fn new(members: u64) -> ViewData {
            let ages: Vec<u64> = (0..64).collect();
            let mut priority = vec![0u8; 64];
            for (rank, w) in bits(members).enumerate() {
                priority[w] = rank as u8;
            }
            ViewData {
                ages,
                global_priority: priority.clone(),
                priority,
                cta_group: vec![0; 64],
                members,
                blocked: 0,
                waiting: 0,
                mem_next: 0,
                load_next: 0,
                global_next: 0,
                mshr_free: 32,
                mshr_capacity: 32,
                miss_queue_free: 8,
                fcw: 4,
                groups_per_core: 1,
                core: 0,
                learner: Learner::default(),
            }
        }

        pub fn view(&self) -> SchedView<'_> {
            SchedView {
                core: self.core,
                now: 0,
                ages: &self.ages,
                members: self.members,
                generation: 0,
                priority: &self.priority,
                global_priority: &self.global_priority,
                cta_group: &self.cta_group,
                groups_per_core: self.groups_per_core,
                blocked: self.blocked,
                waiting: self.waiting,
                mem_next: self.mem_next,
                load_next: self.load_next,
                global_next: self.global_next,
                mshr_free: self.mshr_free,
                mshr_capacity: self.mshr_capacity,
                miss_queue_free: self.miss_queue_free,
                fcw: self.fcw,
                learner: &self.learner,
            }
        }
    }

    /// The order in which a scheduler offers `candidates` when none of them can issue.
    pub fn offer_order<S: WarpScheduler>(s: &mut S, candidates: u64, view: &SchedView<'_>) -> Vec<usize> {
        let mut order = Vec::new();
        assert_eq!(
            s.pick(candidates, view, &mut |w| {
                order.push(w);
                false
            }),
            None
        );
        order
    }
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
