//! FR-FCFS (Rixner et al.; the baseline of seeds 001–004): the oldest request whose column
//! command is ready on an open row first; otherwise the oldest request whose ACT or PRE is
//! ready. A bank with pending hits to its open row is never precharged for an older miss.
//! Reads and writes are not mixed: the controller's write-drain mode picks the queue.

use super::{DramScheduler, SchedCtx};
use crate::sim::dram::command::CommandKind;
use crate::sim::dram::queues::Slot;
use crate::sim::event::EventSink;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FrFcfs;

impl DramScheduler for FrFcfs {
    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        let cas = if ctx.draining { CommandKind::Wr } else { CommandKind::Rd };
        // Channel-wide constraints first: when they forbid a kind, no bank needs checking.
        let cas_open = ctx.device.channel_earliest(cas) <= ctx.now;
        let act_open = ctx.device.channel_earliest(CommandKind::Act) <= ctx.now;
        let mut best_hit: Option<(u64, Slot)> = None;
        let mut best_other: Option<(u64, Slot)> = None;
        for (bank, list) in ctx.lists().iter().enumerate() {
            let Some(oldest) = list.first() else { continue };
            let open = ctx.device.banks[bank].open_row;
            // Lists are in arrival order: the first hit is the oldest hit.
            let hit = match open {
                Some(r) if ctx.queues.row_hits(ctx.draining, bank, open) > 0 => {
                    list.iter().find(|l| l.row == r)
                }
                _ => None,
            };
            if let Some(hit) = hit {
                if cas_open
                    && best_hit.is_none_or(|(b, _)| hit.seq < b)
                    && ctx.device.earliest(cas, bank) <= ctx.now
                {
                    best_hit = Some((hit.seq, hit.slot));
                }
                continue;
            }
            let k = if open.is_some() { CommandKind::Pre } else { CommandKind::Act };
            if (k == CommandKind::Pre || act_open)
                && best_other.is_none_or(|(b, _)| oldest.seq < b)
                && ctx.device.earliest(k, bank) <= ctx.now
            {
                best_other = Some((oldest.seq, oldest.slot));
            }
        }
        best_hit.or(best_other).map(|(_, s)| s)
    }
}
