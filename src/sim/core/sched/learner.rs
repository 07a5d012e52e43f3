//! What an SM tells the warp-scheduling policies that learn from the memory system (issue 15).
//!
//! CCWS (seed 004 §5.2.1) scores warps by the lines the L1 evicted from under them, OAWS and
//! FCW-only (§5.4) predict a divergent load's misses from what earlier instances of it missed,
//! and MASCAR (§5.5.1) parks refused L1 accesses in a re-execution queue. Their SM-wide state
//! is a [`Learner`], which the SM feeds through [`MemoryFeedback`] at fixed points of its
//! pipeline — a kernel starts, a warp is launched, an instruction is decoded, a load issues,
//! leaves the LD/ST unit, or is accessed in the L1, a line is evicted — without knowing which
//! policy listens. The schedulers read the state through their [`super::SchedView`].
//!
//! Adding a learning scheduler: its state type and that type's `MemoryFeedback` impl in the
//! scheduler's file (the type exported by its `pub use` line in [`super`]); in this file, the
//! type in the `use super::{…}` line, one variant of [`Learner`], one arm of [`Learner::new`]
//! and, when the scheduler reads the state through [`super::SchedView::learner`], an accessor
//! like [`Learner::lost_locality`]; then the scheduler itself as any other (see [`super`]).

use super::{LostLocality, OawsMode, OawsState, ReexecQueue};
use crate::config::{Config, WarpSchedulerName};
use crate::sim::core::stall::StallReason;
use crate::sim::event::Event;
use crate::sim::request::CacheOutcome;
use crate::workload::instr::Instr;
use enum_dispatch::enum_dispatch;

/// The points at which an SM informs a learning policy. Every method has a default that
/// ignores the news, so a policy implements the ones it needs.
#[enum_dispatch]
pub trait MemoryFeedback {
    /// Whether the policy watches the L1 ([`Self::evicted`], [`Self::accessed`]); the L1 then
    /// remembers which warp brought each line in.
    fn watches_l1(&self) -> bool {
        false
    }

    /// Entries of the LD/ST unit's re-execution queue for refused L1 accesses (0: none).
    fn reexec_entries(&self) -> usize {
        0
    }

    /// A new kernel's first CTA arrived on the SM.
    fn kernel_started(&mut self) {}

    /// A new warp took slot `w`.
    fn warp_launched(&mut self, _w: usize) {}

    /// Warp `w` decoded `next`, a global or local load when `global_load`; `gprio` is its
    /// SM-wide GTO priority and `fcw` the L1's fully cached warps.
    fn decoded(&mut self, _w: usize, _next: &Instr, _global_load: bool, _gprio: u8, _fcw: u32) {}

    /// Warp `w` issued the global load it decoded; returns the misses predicted for it, which
    /// the SM hands back with [`Self::load_dropped`] or [`Self::load_left`].
    fn load_issued(&mut self, _w: usize) -> u16 {
        0
    }

    /// The event saying why the policy just held warp `w` of SM `core` back for `reason`, its
    /// next instruction at `pc`, with `mshr_free` L1 MSHRs free; `None` for the generic
    /// "throttled" event.
    fn hold_event(
        &self,
        _reason: StallReason,
        _core: u16,
        _w: usize,
        _pc: u32,
        _mshr_free: u32,
    ) -> Option<Event> {
        None
    }

    /// An issued load with `predicted` misses made no access (no active lane).
    fn load_dropped(&mut self, _predicted: u16) {}

    /// A load at `pc` with `predicted` misses left the LD/ST unit after `accesses` L1
    /// accesses, `misses` of which missed.
    fn load_left(&mut self, _pc: u32, _accesses: u32, _misses: u32, _predicted: u16) {}

    /// The L1 evicted line `key`, which warp `owner` had brought in.
    fn evicted(&mut self, _owner: usize, _key: u64) {}

    /// An access of warp `w` to line `key` had `outcome` in the L1 at cycle `now`, with
    /// `instructions` issued by the SM so far and `warps` resident. Returns the warp's new
    /// lost-locality score when the access raised it.
    fn accessed(
        &mut self,
        _w: usize,
        _key: u64,
        _outcome: CacheOutcome,
        _now: u64,
        _instructions: u64,
        _warps: u32,
    ) -> Option<u32> {
        None
    }
}

/// A policy with nothing to learn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Deaf;

impl MemoryFeedback for Deaf {}

/// The SM-wide state of the configured policy's learning (shared by the SM's schedulers).
#[enum_dispatch(MemoryFeedback)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Learner {
    Deaf,
    /// CCWS: per-warp victim tag arrays and lost-locality scores.
    LostLocality,
    /// OAWS and FCW-only: divergent load classifier, per-warp miss predictions, Miss_inflight.
    OawsState,
    /// MASCAR: the re-execution queue's size.
    ReexecQueue,
}

impl Default for Learner {
    fn default() -> Learner {
        Deaf.into()
    }
}

impl Learner {
    pub fn new(c: &Config) -> Learner {
        match c.core.warp_scheduler {
            WarpSchedulerName::Ccws => LostLocality::new(&c.core.ccws, c.warps_per_sm()).into(),
            WarpSchedulerName::Mascar => ReexecQueue { entries: c.core.mascar.reexec_queue }.into(),
            _ => OawsMode::of(c).map_or(Deaf.into(), |mode| OawsState::new(c, mode).into()),
        }
    }

    /// CCWS's state, if the policy is CCWS.
    pub fn lost_locality(&self) -> Option<&LostLocality> {
        match self {
            Learner::LostLocality(ll) => Some(ll),
            _ => None,
        }
    }

    /// OAWS's (or FCW-only's) state, if the policy is one of them.
    pub fn oaws(&self) -> Option<&OawsState> {
        match self {
            Learner::OawsState(o) => Some(o),
            _ => None,
        }
    }

    pub fn oaws_mut(&mut self) -> Option<&mut OawsState> {
        match self {
            Learner::OawsState(o) => Some(o),
            _ => None,
        }
    }
}
