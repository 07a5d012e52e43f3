//! What the views read of a debugging session: the machine and its history, borrowed. Views
//! take a [`Scene`] rather than the session, so the session can run `show` and list
//! breakpoints through the views without the two importing each other.

use super::breakpoint::Breakpoints;
use super::history::{EventLog, Samples};
use crate::sim::Gpu;

/// A session's machine, breakpoints, event log and samples, as the views see them.
#[derive(Clone, Copy)]
pub struct Scene<'a> {
    pub gpu: &'a Gpu,
    pub breakpoints: &'a Breakpoints,
    pub log: &'a EventLog,
    pub samples: &'a Samples,
}
