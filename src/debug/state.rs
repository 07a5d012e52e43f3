//! Machine-state paths for expressions: `l1[3].mshr.used`, `dram[2].bank[5].queue_len`, ...
//! [`PATHS`] documents every one (shown by `help watch` and in error messages).

use super::expr::{Seg, Val, path_text};
use crate::sim::Gpu;

/// Every readable path, with what it means.
pub const PATHS: &[(&str, &str)] = &[
    ("cycle", "core cycle"),
    ("requests_in_flight", "memory requests anywhere in the machine"),
    ("sm[C].warps", "resident warps on SM C"),
    ("sm[C].instructions", "warp instructions issued by SM C"),
    ("sm[C].occlusions", "loads of SM C that found too few free MSHRs"),
    ("sm[C].ldst.queue", "memory instructions waiting in SM C's LD/ST unit"),
    ("sm[C].warp[W].loads_out", "outstanding loads of warp W"),
    ("sm[C].warp[W].stores_out", "store accesses of warp W not acknowledged yet (l2.write_acks)"),
    ("sm[C].warp[W].instructions", "instructions warp W issued"),
    ("sm[C].warp[W].pc", "PC of warp W's next instruction"),
    ("sm[C].warp[W].stall", "warp W's stall reason (a name)"),
    ("l1[C].mshr.used", "L1 MSHR entries in use on SM C"),
    ("l1[C].mshr.free", "free L1 MSHR entries on SM C"),
    ("l1[C].miss_queue", "requests in SM C's L1 miss queue"),
    ("l1[C].reads", "L1 read lookups so far"),
    ("l1[C].hits", "L1 read hits so far"),
    ("l2[S].access_queue", "requests in L2 slice S's access queue"),
    ("l2[S].miss_queue", "requests in L2 slice S's miss queue"),
    ("l2[S].response_queue", "replies in L2 slice S's response queue"),
    ("l2[S].mshr.used", "L2 MSHR entries in use"),
    ("dram[CH].read_queue", "reads queued at channel CH"),
    ("dram[CH].write_queue", "writes queued at channel CH"),
    ("dram[CH].draining", "1 while channel CH drains writes"),
    ("dram[CH].row_hits", "row hits so far"),
    ("dram[CH].bank[B].queue_len", "requests queued for bank B"),
    ("dram[CH].bank[B].open_row", "open row of bank B (-1 when closed)"),
    ("dram[CH].bank[B].cas_since_act", "column accesses since bank B's last ACT"),
    (
        "icnt.request.in_flight",
        "packets in the request network: in input buffers, crossing, in output buffers",
    ),
    ("icnt.reply.in_flight", "packets in the reply network: in input buffers, crossing, in output buffers"),
];

fn index(seg: &Seg, len: usize, what: &str) -> Result<usize, String> {
    match seg.index {
        None => Err(format!("`{}` needs an index: {}[0..{}]", seg.name, seg.name, len.saturating_sub(1))),
        Some(i) if i >= len => {
            Err(format!("{}[{i}]: there are {len} {what} (0..{})", seg.name, len.saturating_sub(1)))
        }
        Some(i) => Ok(i),
    }
}

fn unknown(path: &[Seg]) -> String {
    let root = path.first().map_or("", |s| s.name.as_str());
    let mut valid: Vec<&str> = PATHS.iter().map(|p| p.0).filter(|p| p.starts_with(root)).collect();
    if valid.is_empty() {
        valid = PATHS.iter().map(|p| p.0).collect();
    }
    format!("unknown state `{}`; valid: {}", path_text(path), valid.join(", "))
}

/// Reads a state path.
pub fn lookup(g: &Gpu, path: &[Seg]) -> Result<Val, String> {
    let int = |v: u64| Ok(Val::Int(v as i64));
    let names: Vec<&str> = path.iter().map(|s| s.name.as_str()).collect();
    match names.as_slice() {
        ["cycle"] => int(g.cycle),
        ["requests_in_flight"] => int(g.requests_in_flight() as u64),
        ["sm", rest @ ..] => {
            let sm = &g.sms[index(&path[0], g.sms.len(), "SMs")?];
            match rest {
                ["warps"] => int(u64::from(sm.exec.valid.count_ones())),
                ["instructions"] => int(sm.stats.instructions),
                ["occlusions"] => int(sm.stats.occlusions),
                ["ldst", "queue"] => int(sm.ldst.queue.len() as u64),
                ["warp", field] => {
                    let slot = index(&path[1], sm.exec.warps.len(), "warp slots")?;
                    let w = &sm.exec.warps[slot];
                    match *field {
                        "loads_out" => int(u64::from(w.loads_out)),
                        "stores_out" => int(u64::from(w.stores_out)),
                        "instructions" => int(w.instructions),
                        "pc" => int(u64::from(w.next.pc)),
                        "stall" => Ok(Val::Str(sm.issue.reported[slot].name().into())),
                        _ => Err(unknown(path)),
                    }
                }
                _ => Err(unknown(path)),
            }
        }
        ["l1", rest @ ..] => {
            let l1 = &g.sms[index(&path[0], g.sms.len(), "SMs")?].l1;
            match rest {
                ["mshr", "used"] => int(l1.mshr.used() as u64),
                ["mshr", "free"] => int(l1.mshr.free() as u64),
                ["miss_queue"] => int(l1.miss_queue.len() as u64),
                ["reads"] => int(l1.stats.reads),
                ["hits"] => int(l1.stats.read_hits),
                _ => Err(unknown(path)),
            }
        }
        ["l2", rest @ ..] => {
            let l2 = &g.l2[index(&path[0], g.l2.len(), "L2 slices")?];
            match rest {
                ["access_queue"] => int(l2.access_queue.len() as u64),
                ["miss_queue"] => int(l2.miss_queue.len() as u64),
                ["response_queue"] => int(l2.response_queue.len() as u64),
                ["mshr", "used"] => int(l2.mshr.used() as u64),
                _ => Err(unknown(path)),
            }
        }
        ["dram", rest @ ..] => {
            let mc = &g.dram[index(&path[0], g.dram.len(), "channels")?];
            match rest {
                ["read_queue"] => int(mc.queues.n_reads as u64),
                ["write_queue"] => int(mc.queues.n_writes as u64),
                ["draining"] => int(u64::from(mc.draining)),
                ["row_hits"] => int(mc.stats.row_hits),
                ["bank", field] => {
                    let b = index(&path[1], mc.device.banks.len(), "banks")?;
                    let bank = &mc.device.banks[b];
                    match *field {
                        "queue_len" => int((mc.queues.reads[b].len() + mc.queues.writes[b].len()) as u64),
                        "open_row" => Ok(Val::Int(bank.open_row.map_or(-1, i64::from))),
                        "cas_since_act" => int(u64::from(bank.cas_since_act)),
                        _ => Err(unknown(path)),
                    }
                }
                _ => Err(unknown(path)),
            }
        }
        ["icnt", "request", "in_flight"] => int(g.icnt.request.in_flight() as u64),
        ["icnt", "reply", "in_flight"] => int(g.icnt.reply.in_flight() as u64),
        _ => Err(unknown(path)),
    }
}
