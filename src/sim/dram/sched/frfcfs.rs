//! FR-FCFS (Rixner et al.; the baseline of seeds 001–004): the oldest request whose column
//! command is ready on an open row first; otherwise the oldest request whose ACT or PRE is
//! ready. A bank with pending hits to its open row is never precharged for an older miss.
//! Reads and writes are not mixed: the controller's write-drain mode picks the queue.

use super::{DramScheduler, SchedCtx};
use crate::sim::dram::command::CommandKind;
use crate::sim::dram::queues::Slot;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FrFcfs;

impl DramScheduler for FrFcfs {
    fn select(&mut self, ctx: &SchedCtx<'_>) -> Option<Slot> {
        let cas = if ctx.draining { CommandKind::Wr } else { CommandKind::Rd };
        let mut best_hit: Option<(u64, Slot)> = None;
        let mut best_other: Option<(u64, Slot)> = None;
        for (bank, list) in ctx.lists().iter().enumerate() {
            let Some(&oldest) = list.first() else { continue };
            match ctx.device.banks[bank].open_row {
                Some(open) => {
                    // Lists are in arrival order: the first hit is the oldest hit.
                    if let Some(&hit) = list.iter().find(|&&s| ctx.queues.get(s).row == open) {
                        let seq = ctx.queues.get(hit).seq;
                        if best_hit.is_none_or(|(b, _)| seq < b) && ctx.device.earliest(cas, bank) <= ctx.now
                        {
                            best_hit = Some((seq, hit));
                        }
                        continue;
                    }
                    let seq = ctx.queues.get(oldest).seq;
                    if best_other.is_none_or(|(b, _)| seq < b)
                        && ctx.device.earliest(CommandKind::Pre, bank) <= ctx.now
                    {
                        best_other = Some((seq, oldest));
                    }
                }
                None => {
                    let seq = ctx.queues.get(oldest).seq;
                    if best_other.is_none_or(|(b, _)| seq < b)
                        && ctx.device.earliest(CommandKind::Act, bank) <= ctx.now
                    {
                        best_other = Some((seq, oldest));
                    }
                }
            }
        }
        best_hit.or(best_other).map(|(_, s)| s)
    }
}
