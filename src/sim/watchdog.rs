//! The watchdog: a run in which nothing moves for `sim.watchdog_cycles` core cycles stops with
//! a report of which queues and units hold requests, instead of spinning forever.

use super::Gpu;
use std::fmt::Write;

/// How often (core cycles) progress is sampled.
pub const CHECK_EVERY: u64 = 1024;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Watchdog {
    limit: u64,
    last_progress: u64,
    last_change: u64,
}

impl Watchdog {
    pub fn new(limit: u64) -> Watchdog {
        Watchdog { limit, last_progress: u64::MAX, last_change: 0 }
    }

    /// Records a progress sample; true when nothing moved for the limit.
    pub fn stalled(&mut self, progress: u64, cycle: u64) -> bool {
        if progress != self.last_progress {
            self.last_progress = progress;
            self.last_change = cycle;
            return false;
        }
        cycle - self.last_change >= self.limit
    }
}

/// Describes every non-empty queue and busy unit.
pub fn diagnose(g: &Gpu) -> String {
    let mut s = format!(
        "no progress for {} cycles (cycle {}); requests in flight: {} (created {}, retired {})\n",
        g.watchdog.limit,
        g.cycle,
        g.ledger.in_flight(),
        g.ledger.created(),
        g.ledger.retired()
    );
    for sm in &g.sms {
        let mut parts = Vec::new();
        if let Some(head) = sm.ldst.queue.front() {
            parts.push(format!(
                "LD/ST head warp {} pc {:#06x} access {}/{}{}",
                head.warp,
                head.pc,
                sm.ldst.next,
                head.coalesced.n,
                sm.ldst.stalled.map_or(String::new(), |c| format!(" stalled on {}", c.name()))
            ));
        }
        if !sm.l1.miss_queue.is_empty() {
            parts.push(format!("L1 miss queue {}/{}", sm.l1.miss_queue.len(), sm.l1.miss_queue.capacity()));
        }
        if sm.l1.mshr.used() > 0 {
            parts.push(format!("MSHR {}/{}", sm.l1.mshr.used(), sm.l1.mshr.capacity()));
        }
        if !sm.reply_queue.is_empty() {
            parts.push(format!("reply queue {}/{}", sm.reply_queue.len(), sm.reply_queue.capacity()));
        }
        if sm.exec.valid != 0 {
            parts.push(format!("{} warps resident", sm.exec.valid.count_ones()));
        }
        if !parts.is_empty() {
            let _ = writeln!(s, "  SM {}: {}", sm.id, parts.join(", "));
        }
    }
    for (name, net) in [("request", &g.icnt.request), ("reply", &g.icnt.reply)] {
        if net.in_flight() > 0 {
            let _ = writeln!(s, "  crossbar {name} network: {} packets in flight", net.in_flight());
        }
    }
    for l2 in &g.l2 {
        if l2.occupancy() > 0 {
            let _ = writeln!(
                s,
                "  L2 slice {}: access {}/{}, miss {}/{}, response {}/{}, fills {}, MSHR {}/{}",
                l2.id,
                l2.access_queue.len(),
                l2.access_queue.capacity(),
                l2.miss_queue.len(),
                l2.miss_queue.capacity(),
                l2.response_queue.len(),
                l2.response_queue.capacity(),
                l2.fills.len(),
                l2.mshr.used(),
                l2.mshr.capacity()
            );
        }
    }
    for d in &g.dram {
        if !d.is_idle() {
            let _ = writeln!(
                s,
                "  DRAM channel {}: reads {}/{}, writes {}/{}, {}",
                d.channel,
                d.queues.n_reads,
                d.queues.read_capacity,
                d.queues.n_writes,
                d.queues.write_capacity,
                if d.draining { "draining writes" } else { "serving reads" }
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_only_after_the_limit_without_change() {
        let mut w = Watchdog::new(3000);
        assert!(!w.stalled(5, 1024));
        assert!(!w.stalled(5, 2048));
        assert!(!w.stalled(6, 3072));
        assert!(!w.stalled(6, 5120));
        assert!(w.stalled(6, 6144));
    }
}
