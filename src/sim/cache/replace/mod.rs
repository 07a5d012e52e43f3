//! Replacement policies behind one trait (seed 004 ch. 4, MECHANISMS §8).
//!
//! A policy keeps its own per-set state; the tag array tells it about hits and insertions and
//! asks it for a victim among the ways that may be replaced (not reserved for a pending fill).
//! Insertion sees the access's [`AccessCtx`] (issuing warp, its scheduling priority, the
//! load's divergence), which DaCache needs; DaCache also hears of the SM's fully-cached-warp
//! count through [`Replacement::repartition`].
//!
//! Adding a policy touches three files: its own, implementing [`Replacement`]; this one, with
//! its `mod` and `pub use` lines, one variant of [`ReplacementKind`] and one arm of
//! [`ReplacementKind::new`]; and its row in `config::names::ReplacementName`. A policy only the
//! L1 can run (as DaCache, which needs the issuing warps) is refused for `l2.replacement` in
//! `config/validate.rs`; its name goes in docs/machines.md's table of policies.

mod chain;
mod dacache;
mod dip;
mod duel;
mod lru;
mod rrip;

pub use dacache::{DaCache, Fifo, Victim};
pub use dip::Dip;
pub use duel::{Role, SetDueling};
pub use lru::Lru;
pub use rrip::Rrip;

use super::AccessCtx;
use super::line::Line;
use crate::config::{Config, ReplacementName};
use enum_dispatch::enum_dispatch;

/// A replacement policy over `sets × ways`.
#[enum_dispatch]
pub trait Replacement {
    /// A hit on `way`.
    fn touch(&mut self, set: usize, way: usize);
    /// Line `key` was placed in `way` for access `ctx`, displacing `evicted` (a valid line).
    fn insert(&mut self, set: usize, way: usize, key: u64, ctx: &AccessCtx, evicted: Option<&Line>);
    /// The way to evict among those `replaceable` allows, or `None` when none may be. A pure
    /// query (views preview it); the policy updates its state in [`Replacement::insert`].
    fn victim(&self, set: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize>;
    /// Ways of a set from most to least protected (MRU → LRU for LRU chains), for views.
    fn order(&self, set: usize) -> Vec<usize>;
    /// Where `way` stands in [`Replacement::order`] now (0 = most protected), without building
    /// the order: the L1 reads it on every insertion and first hit (`cache::reuse`).
    fn position(&self, set: usize, way: usize) -> usize;
    /// Where in [`Replacement::order`] a line inserted now for `ctx` would land.
    fn insertion_position(&self, set: usize, ctx: &AccessCtx) -> usize;
    /// How many of the most protected positions can never be victims (DaCache's locality
    /// region), for policies that partition the set.
    fn locality_ways(&self) -> Option<usize> {
        None
    }
    /// The SM now has `fcw` fully cached warps (seed 004 §4.2.4).
    fn repartition(&mut self, _fcw: u32) {}
    /// Whether a miss that finds no victim bypasses the cache instead of stalling.
    fn bypasses(&self) -> bool {
        false
    }
}

/// The configured policy.
#[enum_dispatch(Replacement)]
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ReplacementKind {
    Lru,
    Dip,
    Rrip,
    DaCache,
}

impl ReplacementKind {
    /// The policy `name` over `sets × ways`; DaCache reads its knobs from `c` (L1D only).
    pub fn new(name: ReplacementName, sets: usize, ways: usize, c: &Config) -> ReplacementKind {
        match name {
            ReplacementName::Lru => Lru::new(sets, ways).into(),
            ReplacementName::Dip => Dip::new(sets, ways).into(),
            ReplacementName::Rrip => Rrip::new(sets, ways).into(),
            ReplacementName::Dacache => DaCache::new(sets, ways, c).into(),
        }
    }
}
