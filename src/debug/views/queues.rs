//! Every queue in the machine with its fill: where requests are piling up.

use super::{Block, RowKey, Table, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::stats::metrics::count;

pub fn queues(g: &Gpu) -> View {
    let mut t = Table {
        header: ["unit", "queue", "fill", "cap"].map(String::from).to_vec(),
        right: vec![2, 3],
        ..Table::default()
    };
    let mut row = |unit: String, queue: &str, fill: usize, cap: usize, key: RowKey| {
        if fill == 0 {
            return;
        }
        let tone = if fill >= cap {
            Tone::Bad
        } else if fill * 4 >= cap * 3 {
            Tone::Warn
        } else {
            Tone::Normal
        };
        t.rows.push(vec![plain(unit), plain(queue), span(fill.to_string(), tone), plain(cap.to_string())]);
        t.keys.push(key);
    };
    for sm in &g.sms {
        let k = RowKey::Core(sm.id);
        row(format!("SM {}", sm.id), "LD/ST", sm.ldst.queue.len(), sm.ldst.queue.capacity(), k);
        row(format!("SM {}", sm.id), "L1 MSHR", sm.l1.mshr.used(), sm.l1.mshr.capacity(), k);
        row(format!("SM {}", sm.id), "L1 miss queue", sm.l1.miss_queue.len(), sm.l1.miss_queue.capacity(), k);
        row(format!("SM {}", sm.id), "reply queue", sm.reply_queue.len(), sm.reply_queue.capacity(), k);
        let (flits, cap) = g.icnt.request.in_buffer(sm.id as usize);
        row(format!("SM {}", sm.id), "crossbar input (flits)", flits, cap, k);
    }
    for l2 in &g.l2 {
        let k = RowKey::Channel(l2.channel);
        row(format!("L2 {}", l2.id), "access", l2.access_queue.len(), l2.access_queue.capacity(), k);
        row(format!("L2 {}", l2.id), "lookup latency", l2.looking_up().count(), l2.looking_up_capacity(), k);
        row(format!("L2 {}", l2.id), "MSHR", l2.mshr.used(), l2.mshr.capacity(), k);
        row(format!("L2 {}", l2.id), "miss", l2.miss_queue.len(), l2.miss_queue.capacity(), k);
        row(format!("L2 {}", l2.id), "response", l2.response_queue.len(), l2.response_queue.capacity(), k);
        let (flits, cap) = g.icnt.reply.in_buffer(l2.id as usize);
        row(format!("L2 {}", l2.id), "crossbar input (flits)", flits, cap, k);
    }
    for mc in &g.dram {
        let k = RowKey::Channel(mc.channel);
        row(format!("DRAM {}", mc.channel), "reads", mc.queues.n_reads, mc.queues.read_capacity, k);
        row(format!("DRAM {}", mc.channel), "writes", mc.queues.n_writes, mc.queues.write_capacity, k);
    }
    let v = View::new(format!(
        "Queues — {} in flight; crossbar {} → L2, {} → SMs",
        count(g.ledger.in_flight(), "request"),
        g.icnt.request.in_flight(),
        g.icnt.reply.in_flight()
    ));
    if t.rows.is_empty() {
        v.line(vec![span("every queue is empty", Tone::Dim)])
    } else {
        v.block(Block::Table(t))
    }
}
