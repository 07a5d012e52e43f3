//! FCFS: the oldest request of the active queue, strictly in order (MECHANISMS §2).

use super::{DramScheduler, SchedCtx};
use crate::sim::dram::queues::Slot;
use crate::sim::event::EventSink;

#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Fcfs;

impl DramScheduler for Fcfs {
    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        let oldest = ctx.lists().iter().filter_map(|l| l.first()).min_by_key(|l| l.seq)?.slot;
        ctx.ready(oldest).then_some(oldest)
    }
}
