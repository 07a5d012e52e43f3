//! Replacement policies behind one trait (seed 004 ch. 4).
//!
//! A policy keeps its own per-set state; the tag array tells it about hits and insertions and
//! asks it for a victim among the ways that may be replaced (not reserved for a pending fill).
//!
//! Adding a policy: one file implementing [`Replacement`], one variant in
//! [`ReplacementKind`], one name in `config::names::ReplacementName`.

mod lru;

pub use lru::Lru;

use crate::config::ReplacementName;
use enum_dispatch::enum_dispatch;

/// A replacement policy over `sets × ways`.
#[enum_dispatch]
pub trait Replacement {
    /// A hit on `way`.
    fn touch(&mut self, set: usize, way: usize);
    /// A line was placed in `way`.
    fn insert(&mut self, set: usize, way: usize);
    /// The way to evict among those `replaceable` allows, or `None` when none may be.
    fn victim(&self, set: usize, replaceable: &dyn Fn(usize) -> bool) -> Option<usize>;
    /// Ways of a set from most to least protected (MRU → LRU for LRU), for views.
    fn order(&self, set: usize) -> Vec<usize>;
}

/// The configured policy.
#[enum_dispatch(Replacement)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplacementKind {
    Lru,
}

impl ReplacementKind {
    pub fn new(name: ReplacementName, sets: usize, ways: usize) -> ReplacementKind {
        match name {
            ReplacementName::Lru => Lru::new(sets, ways).into(),
        }
    }
}
