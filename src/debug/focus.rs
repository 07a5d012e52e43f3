//! What a stop is about (issue 17 item 5): the warp, core, channel, bank and row the panes
//! and `show` turn to after a breakpoint. An event that names a warp points at the channel,
//! bank and row of that warp's oldest outstanding request (where it is likely waiting); one
//! that names a channel (and bank) points at the warp whose request is oldest in that queue.

use crate::sim::Gpu;
use crate::sim::event::{Event, FieldValue};

/// Where the panes look after a stop; `None` leaves a parameter as it was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Focus {
    pub core: Option<u16>,
    pub warp: Option<(u16, u16)>,
    pub channel: Option<u16>,
    pub bank: Option<u8>,
    /// The DRAM row of the request the stop is about, marked in the banks view.
    pub row: Option<u32>,
}

impl Focus {
    /// The focus of a breakpoint hit on `event` (none for a cycle breakpoint or a watchpoint:
    /// about nothing in particular) on machine `g` at the hit.
    pub fn of_event(event: Option<&Event>, g: &Gpu) -> Focus {
        let Some(e) = event else { return Focus::default() };
        let field = |n: &str| match e.field(n) {
            Some(FieldValue::Int(v)) => Some(v),
            _ => None,
        };
        let mut f = Focus { core: field("core").or(field("sm")).map(|c| c as u16), ..Focus::default() };
        if let (Some(c), Some(w)) = (f.core, field("warp")) {
            f.warp = Some((c, w as u16));
            if let Some(loc) = oldest_outstanding(g, c, w as u16) {
                (f.channel, f.bank, f.row) = (Some(loc.channel as u16), Some(loc.bank as u8), Some(loc.row));
            }
        }
        // A load delayed at a DRAM channel points there (the load itself is back).
        if let Event::Delayed { stage: "dram", unit, .. } = e {
            (f.channel, f.bank, f.row) = (Some(*unit), None, None);
        }
        if let Some(ch) = field("channel") {
            let bank = field("bank").map(|b| b as u8);
            if f.channel != Some(ch as u16) || bank.is_some() {
                (f.channel, f.bank, f.row) = (Some(ch as u16), bank, field("row").map(|r| r as u32));
            }
            if f.warp.is_none()
                && let Some((core, warp, row)) = head_of(g, ch as usize, bank)
            {
                (f.core, f.warp) = (Some(core), Some((core, warp)));
                f.row = f.row.or(Some(row));
            }
        }
        f
    }
}

/// The DRAM location of the oldest request of warp `core.warp` whose data is not back yet:
/// of its oldest load in flight, a request sent and not back, else the next line the LD/ST
/// unit has to send for it (an occluded load waits there).
fn oldest_outstanding(g: &Gpu, core: u16, warp: u16) -> Option<crate::sim::dram::mapping::DramLocation> {
    let sm = g.sms.get(usize::from(core))?;
    let w = sm.exec.warps.get(usize::from(warp))?;
    let mut loads: Vec<_> = w.loads.iter().filter(|l| l.active).collect();
    loads.sort_by_key(|l| (l.issued, l.seq));
    loads.iter().find_map(|l| {
        let sent = l.reqs.iter().find(|r| r.trace.done == 0).map(|r| r.addr);
        sent.or_else(|| sm.ldst.unsent(warp, l.seq).first().map(|(a, _)| *a)).map(|a| g.map.map(a))
    })
}

/// The warp (core, slot) and row of the oldest request queued at channel `ch` (in `bank`).
fn head_of(g: &Gpu, ch: usize, bank: Option<u8>) -> Option<(u16, u16, u32)> {
    let pending = g.dram.get(ch)?.queues.pending();
    let (_, p) = pending.into_iter().find(|(_, p)| bank.is_none_or(|b| p.bank == b) && !p.is_write)?;
    Some((p.req.origin.core, p.req.origin.warp, p.row))
}
