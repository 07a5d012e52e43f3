//! What the views read of a debugging session: the machine and its history, borrowed. Views
//! take a [`Scene`] rather than the session, so the session can run `show` and list
//! breakpoints through the views without the two importing each other.

use super::breakpoint::Breakpoints;
use super::history::{EventLog, Samples};
use super::recording::BlameCache;
use super::timetravel::TimeTravel;
use crate::sim::Gpu;

/// A session's machine, breakpoints, event log, samples and snapshots, as the views see them.
#[derive(Clone, Copy)]
pub struct Scene<'a> {
    pub gpu: &'a Gpu,
    pub breakpoints: &'a Breakpoints,
    pub log: &'a EventLog,
    pub samples: &'a Samples,
    /// The snapshots, for views that replay history (the blame of a past load).
    pub travel: &'a TimeTravel,
    /// The blame the session last worked out.
    pub blame: &'a BlameCache,
}
