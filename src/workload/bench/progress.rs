//! How far a benchmark's input generation has got (issue 37.2), for the command line to show
//! while a large input is made: the generators of the slow inputs (the BFS/SSSP graph and its
//! levels, SSSP's relaxation launches, Streamcluster's assignments and pgain candidates) name
//! their stage and count its steps here, and the command line draws them. Process-wide, as a
//! command generates its workload once before it simulates; nothing here changes what is
//! generated.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A stage of input generation and its steps so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// What is being made, e.g. "graph (nodes)".
    pub name: &'static str,
    pub done: u64,
    /// The stage's steps, where known in advance (a fixed point iteration's are not).
    pub total: Option<u64>,
}

static STAGE: Mutex<Option<(&'static str, Option<u64>)>> = Mutex::new(None);
static DONE: AtomicU64 = AtomicU64::new(0);

/// A stage begins, with its number of steps if known.
pub fn begin(name: &'static str, total: Option<u64>) {
    DONE.store(0, Ordering::Relaxed);
    *STAGE.lock().unwrap_or_else(|e| e.into_inner()) = Some((name, total));
}

/// `n` more steps of the current stage are done.
pub fn advance(n: u64) {
    DONE.fetch_add(n, Ordering::Relaxed);
}

/// Generation is over (no stage is shown).
pub fn end() {
    *STAGE.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

/// The stage under way, if any.
pub fn current() -> Option<Stage> {
    let stage = *STAGE.lock().unwrap_or_else(|e| e.into_inner());
    stage.map(|(name, total)| Stage { name, done: DONE.load(Ordering::Relaxed), total })
}
