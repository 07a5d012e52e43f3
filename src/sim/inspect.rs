//! Read-only questions about the whole machine that no single component can answer: where a
//! request is right now, and roughly how much memory a snapshot of the machine takes.
//! Used by the debugger; never on the simulation's hot path.

use super::Gpu;
use super::request::MemRequest;
use std::mem::size_of;

/// Where a request waits or travels.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Place {
    L1LatencyQueue {
        core: u16,
        bank: usize,
        stage: usize,
    },
    L1MissQueue {
        core: u16,
    },
    L1Hit {
        core: u16,
        ready: u64,
    },
    L1MshrMerged {
        core: u16,
    },
    RequestNetwork {
        slice: u16,
        arrival: u64,
    },
    L2AccessQueue {
        slice: u16,
    },
    L2LatencyQueue {
        slice: u16,
        ready: u64,
    },
    L2MshrMerged {
        slice: u16,
    },
    L2Pipeline {
        slice: u16,
        ready: u64,
    },
    L2MissQueue {
        slice: u16,
    },
    DramLatencyQueue {
        channel: u16,
        ready: u64,
    },
    DramQueue {
        channel: u16,
        bank: u8,
        started: bool,
    },
    DramDataBus {
        channel: u16,
        done: u64,
    },
    L2Fill {
        slice: u16,
    },
    L2ResponseQueue {
        slice: u16,
    },
    ReplyNetwork {
        core: u16,
        arrival: u64,
    },
    SmReplyQueue {
        core: u16,
    },
    /// In an idealized memory (`ideal.memory`), answered at `ready`.
    IdealMemory {
        ready: u64,
    },
}

impl Place {
    /// A short description for views.
    pub fn describe(&self) -> String {
        match self {
            Place::L1LatencyQueue { core, bank, stage } => match stage {
                0 => format!("SM {core} L1 bank {bank}, being looked up"),
                s => format!("SM {core} L1 bank {bank} latency queue, {s} stages from its lookup"),
            },
            Place::L1MissQueue { core } => format!("SM {core} L1 miss queue"),
            Place::L1Hit { core, ready } => format!("SM {core} L1 hit, back at {ready}"),
            Place::L1MshrMerged { core } => format!("SM {core} L1 MSHR (merged)"),
            Place::RequestNetwork { slice, arrival } => {
                format!("crossbar → L2 slice {slice} (arrives icnt {arrival})")
            }
            Place::L2AccessQueue { slice } => format!("L2 slice {slice} access queue"),
            Place::L2LatencyQueue { slice, ready } => {
                format!("L2 slice {slice} latency queue (lookup at icnt {ready})")
            }
            Place::L2MshrMerged { slice } => format!("L2 slice {slice} MSHR (merged)"),
            Place::L2Pipeline { slice, ready } => {
                format!("L2 slice {slice} hit pipeline (ready icnt {ready})")
            }
            Place::L2MissQueue { slice } => format!("L2 slice {slice} miss queue"),
            Place::DramLatencyQueue { channel, ready } => {
                format!("DRAM channel {channel} latency queue (queued from {ready})")
            }
            Place::DramQueue { channel, bank, started } => format!(
                "DRAM channel {channel} bank {bank} queue{}",
                if *started { " (being served)" } else { "" }
            ),
            Place::DramDataBus { channel, done } => format!("DRAM channel {channel} data bus (done {done})"),
            Place::L2Fill { slice } => format!("L2 slice {slice} fill queue"),
            Place::L2ResponseQueue { slice } => format!("L2 slice {slice} response queue"),
            Place::ReplyNetwork { core, arrival } => format!("crossbar → SM {core} (arrives icnt {arrival})"),
            Place::SmReplyQueue { core } => format!("SM {core} reply queue"),
            Place::IdealMemory { ready } => format!("ideal memory (back at {ready})"),
        }
    }
}

/// Finds request `id` in the machine, with its live copy (whose timeline is filled up to
/// where it is). For a miss this is the copy travelling below; merged copies are found only
/// when no other copy exists.
pub fn locate_request(g: &Gpu, id: u64) -> Option<(Place, MemRequest)> {
    let is = |r: &&MemRequest| r.id == id;
    let is_timed = |(_, r): &&(u64, MemRequest)| r.id == id;
    for sm in &g.sms {
        let core = sm.id;
        if let Some((bank, stage, r)) = sm.l1.in_banks().find(|(_, _, r)| r.id == id) {
            return Some((Place::L1LatencyQueue { core, bank, stage }, *r));
        }
        if let Some(r) = sm.l1.miss_queue.iter().find(is) {
            return Some((Place::L1MissQueue { core }, *r));
        }
        if let Some((ready, r)) = sm.l1.hits_in_flight().find(is_timed) {
            return Some((Place::L1Hit { core, ready: *ready }, *r));
        }
        if let Some(r) = sm.reply_queue.iter().find(is) {
            return Some((Place::SmReplyQueue { core }, *r));
        }
    }
    for (slice, pipe) in g.icnt.request.pipes().iter().enumerate() {
        if let Some((arrival, r)) = pipe.iter().find(is_timed) {
            return Some((Place::RequestNetwork { slice: slice as u16, arrival: *arrival }, *r));
        }
    }
    for (core, pipe) in g.icnt.reply.pipes().iter().enumerate() {
        if let Some((arrival, r)) = pipe.iter().find(is_timed) {
            return Some((Place::ReplyNetwork { core: core as u16, arrival: *arrival }, *r));
        }
    }
    for l2 in &g.l2 {
        let slice = l2.id;
        if let Some(r) = l2.access_queue.iter().find(is) {
            return Some((Place::L2AccessQueue { slice }, *r));
        }
        if let Some((ready, r)) = l2.looking_up().find(is_timed) {
            return Some((Place::L2LatencyQueue { slice, ready: *ready }, *r));
        }
        if let Some((ready, r)) = l2.pipe().find(is_timed) {
            return Some((Place::L2Pipeline { slice, ready: *ready }, *r));
        }
        if let Some(r) = l2.miss_queue.iter().find(is) {
            return Some((Place::L2MissQueue { slice }, *r));
        }
        if let Some(r) = l2.fills.iter().find(is) {
            return Some((Place::L2Fill { slice }, *r));
        }
        if let Some(r) = l2.response_queue.iter().find(is) {
            return Some((Place::L2ResponseQueue { slice }, *r));
        }
    }
    for mc in &g.dram {
        if let Some((ready, r)) = mc.frontend().find(is_timed) {
            return Some((Place::DramLatencyQueue { channel: mc.channel, ready: *ready }, *r));
        }
        if let Some((_, p)) = mc.queues.pending().into_iter().find(|(_, p)| p.req.id == id) {
            return Some((Place::DramQueue { channel: mc.channel, bank: p.bank, started: p.started }, p.req));
        }
        if let Some((done, r)) = mc.in_flight().find(is_timed) {
            return Some((Place::DramDataBus { channel: mc.channel, done: *done }, *r));
        }
    }
    if let Some((ready, r)) = g.ideal.fast.iter().chain(&g.ideal.slow).flatten().find(is_timed) {
        return Some((Place::IdealMemory { ready: *ready }, *r));
    }
    for sm in &g.sms {
        if let Some(r) = sm.l1.mshr.entries().flat_map(|e| e.merged.iter()).find(is) {
            return Some((Place::L1MshrMerged { core: sm.id }, *r));
        }
    }
    for l2 in &g.l2 {
        if let Some(r) = l2.mshr.entries().flat_map(|e| e.merged.iter()).find(is) {
            return Some((Place::L2MshrMerged { slice: l2.id }, *r));
        }
    }
    None
}

/// A rough size in bytes of a clone of the machine (for the snapshot budget). Counts the
/// large arrays by length; fixed-size parts by their type size.
pub fn approx_bytes(g: &Gpu) -> usize {
    let req = size_of::<MemRequest>();
    let mut total = size_of::<Gpu>();
    for sm in &g.sms {
        total += size_of_val(sm);
        for w in &sm.exec.warps {
            total += size_of_val(w)
                + w.loads
                    .iter()
                    .map(|l| size_of_val(l) + l.reqs.len() * size_of::<super::core::warp::ReqRecord>())
                    .sum::<usize>()
                + w.last_load.reqs.len() * size_of::<super::core::warp::ReqRecord>();
        }
        total += sm.l1.tags.sets * sm.l1.tags.ways * (size_of::<super::cache::line::Line>() + 1);
        total += sm.l1.mshr.capacity() * (size_of::<super::cache::mshr::MshrEntry>() + 8 * req);
        total += (sm.l1.miss_queue.capacity() + sm.reply_queue.capacity()) * req;
        total += sm.l1.history_bytes() + sm.l1.loads.set_accesses.len() * 8;
    }
    for l2 in &g.l2 {
        total += size_of_val(l2) + l2.tags.sets * l2.tags.ways * (size_of::<super::cache::line::Line>() + 1);
        total += l2.mshr.capacity() * (size_of::<super::cache::mshr::MshrEntry>() + 8 * req);
        total += (l2.access_queue.capacity() + l2.miss_queue.capacity() + l2.response_queue.capacity()) * req;
    }
    for mc in &g.dram {
        total += size_of_val(mc) + (mc.queues.read_capacity + mc.queues.write_capacity) * (req + 64);
        total += mc.stats.read_latency_buckets() * 8;
    }
    total
}
