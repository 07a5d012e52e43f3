//! The machine's headline counters at one cycle ([`Sample`]) and what happened between two such
//! samples ([`Interval`]): the one snapshot that the debugger's sparklines, `run`'s per-kernel
//! statistics (`kernels[]`), its time series (`--series`) and its progress lines all read, so
//! they cannot disagree. Taking one sums a few counters over the units and allocates nothing.

use crate::sim::Gpu;

/// Cumulative counters of the whole machine at one cycle (they only grow), and the occupancy
/// of its queues at that cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Sample {
    pub cycle: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    /// L1 / L2 read lookups and read hits (`{l1,l2}.hit_rate`).
    pub l1_reads: u64,
    pub l1_read_hits: u64,
    pub l2_reads: u64,
    pub l2_read_hits: u64,
    /// DRAM data-bus busy cycles and DRAM cycles, summed over channels
    /// (`dram.bandwidth_utilization`).
    pub dram_busy: u64,
    pub dram_cycles: u64,
    /// DRAM requests by their first command, and those that were row hits (`dram.row_hit_rate`).
    pub dram_requests: u64,
    pub dram_row_hits: u64,
    /// Σ requests in the controllers' read / write queues over DRAM cycles.
    pub dram_read_queue_sum: u64,
    pub dram_write_queue_sum: u64,
    /// Memory occlusions (`core.occlusions`).
    pub occlusions: u64,
    /// Σ latency of L1-missing load requests and their number (`memory.avg_latency`).
    pub load_latency_sum: u64,
    pub load_returns: u64,
    /// At this cycle: L1 MSHR entries in use and their capacity, summed over SMs; the same for
    /// the L1 miss queues, the L2 slices' MSHRs and access queues.
    pub mshr_used: u64,
    pub mshr_capacity: u64,
    pub l1_miss_queue_used: u64,
    pub l1_miss_queue_capacity: u64,
    pub l2_mshr_used: u64,
    pub l2_mshr_capacity: u64,
    pub l2_access_queue_used: u64,
    pub l2_access_queue_capacity: u64,
    /// A controller's read and write queue capacity.
    pub dram_read_queue_capacity: u64,
    pub dram_write_queue_capacity: u64,
    pub requests_in_flight: u64,
}

impl Sample {
    pub fn of(g: &Gpu) -> Sample {
        let sms = || g.sms.iter();
        let channels = || g.dram.iter().map(|d| &d.stats);
        Sample {
            cycle: g.cycle,
            warp_instructions: sms().map(|s| s.stats.instructions).sum(),
            thread_instructions: sms().map(|s| s.stats.thread_instructions).sum(),
            l1_reads: sms().map(|s| s.l1.stats.reads).sum(),
            l1_read_hits: sms().map(|s| s.l1.stats.read_hits).sum(),
            l2_reads: g.l2.iter().map(|s| s.stats.reads).sum(),
            l2_read_hits: g.l2.iter().map(|s| s.stats.read_hits).sum(),
            dram_busy: channels().map(|s| s.busy_cycles).sum(),
            dram_cycles: channels().map(|s| s.cycles).sum(),
            dram_requests: channels().map(|s| s.served()).sum(),
            dram_row_hits: channels().map(|s| s.row_hits).sum(),
            dram_read_queue_sum: channels().map(|s| s.read_queue_sum).sum(),
            dram_write_queue_sum: channels().map(|s| s.write_queue_sum).sum(),
            occlusions: sms().map(|s| s.stats.occlusions).sum(),
            load_latency_sum: sms().map(|s| s.stats.loads.miss_latency).sum(),
            load_returns: sms().map(|s| s.stats.loads.miss_returns).sum(),
            mshr_used: sms().map(|s| s.l1.mshr.used() as u64).sum(),
            mshr_capacity: sms().map(|s| s.l1.mshr.capacity() as u64).sum(),
            l1_miss_queue_used: sms().map(|s| s.l1.miss_queue.len() as u64).sum(),
            l1_miss_queue_capacity: sms().map(|s| s.l1.miss_queue.capacity() as u64).sum(),
            l2_mshr_used: g.l2.iter().map(|s| s.mshr.used() as u64).sum(),
            l2_mshr_capacity: g.l2.iter().map(|s| s.mshr.capacity() as u64).sum(),
            l2_access_queue_used: g.l2.iter().map(|s| s.access_queue.len() as u64).sum(),
            l2_access_queue_capacity: g.l2.iter().map(|s| s.access_queue.capacity() as u64).sum(),
            dram_read_queue_capacity: u64::from(g.config.dram.read_queue),
            dram_write_queue_capacity: u64::from(g.config.dram.write_queue),
            requests_in_flight: g.ledger.in_flight(),
        }
    }
}

/// `a / b`, 0 when `b` is 0.
fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// What happened from one sample to a later one: differences of the counters, the rates of the
/// report's keys over them, and the occupancies at the later sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub from: Sample,
    pub to: Sample,
}

impl Interval {
    pub fn new(from: Sample, to: Sample) -> Interval {
        Interval { from, to }
    }

    /// How much the counter `f` grew.
    pub fn delta(&self, f: impl Fn(&Sample) -> u64) -> u64 {
        f(&self.to) - f(&self.from)
    }

    pub fn cycles(&self) -> u64 {
        self.delta(|s| s.cycle)
    }

    /// Thread instructions per core cycle (`ipc`).
    pub fn ipc(&self) -> f64 {
        ratio(self.delta(|s| s.thread_instructions), self.cycles())
    }

    pub fn l1_hit_rate(&self) -> f64 {
        ratio(self.delta(|s| s.l1_read_hits), self.delta(|s| s.l1_reads))
    }

    pub fn l2_hit_rate(&self) -> f64 {
        ratio(self.delta(|s| s.l2_read_hits), self.delta(|s| s.l2_reads))
    }

    /// Data-bus busy cycles / DRAM cycles (`dram.bandwidth_utilization`).
    pub fn dram_bandwidth_utilization(&self) -> f64 {
        ratio(self.delta(|s| s.dram_busy), self.delta(|s| s.dram_cycles))
    }

    pub fn dram_row_hit_rate(&self) -> f64 {
        ratio(self.delta(|s| s.dram_row_hits), self.delta(|s| s.dram_requests))
    }

    /// Mean latency of L1-missing load requests that returned (`memory.avg_latency`).
    pub fn load_latency_mean(&self) -> f64 {
        ratio(self.delta(|s| s.load_latency_sum), self.delta(|s| s.load_returns))
    }

    /// The controllers' read / write queues' mean occupancy over the interval, as a share of
    /// a queue's capacity (the queue sums and cycles are over every channel, so their ratio is
    /// a channel's mean).
    pub fn dram_read_queue_occupancy(&self) -> f64 {
        self.dram_queue_occupancy(|s| s.dram_read_queue_sum, self.to.dram_read_queue_capacity)
    }

    pub fn dram_write_queue_occupancy(&self) -> f64 {
        self.dram_queue_occupancy(|s| s.dram_write_queue_sum, self.to.dram_write_queue_capacity)
    }

    fn dram_queue_occupancy(&self, sum: impl Fn(&Sample) -> u64, capacity: u64) -> f64 {
        ratio(self.delta(sum), self.delta(|s| s.dram_cycles)) / (capacity as f64).max(1.0)
    }
}
