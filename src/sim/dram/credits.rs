//! The credits a channel's L2 slices spend to send requests to DRAM (GPGPU-Sim's
//! `memory_partition_unit::arbitration_metadata`).
//!
//! A slice may move a request from its miss queue towards the controller only while it holds a
//! credit: one of its own (each slice has one, so none is starved), else one of the channel's
//! shared pool of `dram.read_queue + dram.return_queue − (slices − 1)`
//! (`-gpgpu_frfcfs_dram_sched_queue_size` + `-gpgpu_dram_return_queue_size` − the other
//! sub-partitions). The credit is spent when the request leaves the miss queue
//! (`borrow_credit` in `memory_partition_unit::dram_cycle`) and comes back when a read's data
//! is returned towards its slice, or a write has been written (`return_credit`, `set_done`).
//! So however long GPGPU-Sim's DRAM latency queue (`dram.frontend_latency`) is, a channel has
//! at most that many requests between its slices and their replies. GPGPU-Sim sets no limit
//! when either queue is unbounded; `dram.return_queue = 0` is that case.

/// One channel's credits.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Credits {
    /// Each slice's own credit, taken (1) or not (0).
    own: Vec<u8>,
    /// Shared credits taken.
    shared: u32,
    /// Shared credits in all.
    limit: u32,
}

impl Credits {
    /// A channel of `slices` slices with a shared pool of `limit` credits.
    pub fn new(slices: usize, limit: u32) -> Credits {
        Credits { own: vec![0; slices], shared: 0, limit }
    }

    /// The pool GPGPU-Sim gives a channel: its scheduler queue and return queue, less a credit
    /// for each slice but one (they are the slices' own); `None` without a return queue.
    pub fn shared_limit(read_queue: u32, return_queue: u32, slices: u32) -> Option<u32> {
        (return_queue > 0 && read_queue > 0).then(|| (read_queue + return_queue).saturating_sub(slices - 1))
    }

    /// Whether `slice` may send a request now.
    pub fn available(&self, slice: usize) -> bool {
        self.own[slice] == 0 || self.shared < self.limit
    }

    /// `slice` sends a request: its own credit first, else a shared one (the caller checked
    /// [`Credits::available`]).
    pub fn spend(&mut self, slice: usize) {
        if self.own[slice] == 0 {
            self.own[slice] = 1;
        } else {
            debug_assert!(self.shared < self.limit, "no credit to spend");
            self.shared += 1;
        }
    }

    /// A request of `slice` is answered: its own credit comes back first, as GPGPU-Sim's
    /// `return_credit` gives it.
    pub fn give_back(&mut self, slice: usize) {
        if self.own[slice] == 1 {
            self.own[slice] = 0;
        } else {
            debug_assert!(self.shared > 0, "more credits returned than spent");
            self.shared -= 1;
        }
    }

    /// Credits taken, own and shared.
    pub fn taken(&self) -> u32 {
        self.own.iter().map(|&o| u32::from(o)).sum::<u32>() + self.shared
    }

    /// Credits in all: each slice's own and the shared pool.
    pub fn total(&self) -> u32 {
        self.own.len() as u32 + self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SM6_TITANX's channel: a 64-request scheduler queue, a 64-reply return queue and two
    /// sub-partitions, so 127 shared credits and one of each slice's own.
    #[test]
    fn a_channel_lends_its_slices_own_credits_then_the_shared_pool() {
        let limit = Credits::shared_limit(64, 64, 2).unwrap();
        assert_eq!(limit, 127);
        let mut c = Credits::new(2, limit);
        for _ in 0..128 {
            assert!(c.available(0));
            c.spend(0);
        }
        assert_eq!(c.taken(), 128, "slice 0's own credit and the whole pool");
        assert!(!c.available(0), "slice 0 waits once the pool is spent");
        assert!(c.available(1), "slice 1 still has its own credit");
        c.spend(1);
        assert!(!c.available(1));
        c.give_back(0);
        assert!(!c.available(1), "slice 0's own credit came back, not a shared one");
        assert!(c.available(0), "slice 0 may send on its own credit again");
        c.give_back(0);
        assert!(c.available(1), "the second reply frees a shared credit");
        assert_eq!(c.taken(), 127);
    }

    #[test]
    fn no_return_queue_means_no_limit() {
        assert_eq!(Credits::shared_limit(64, 0, 2), None);
        assert_eq!(Credits::shared_limit(0, 64, 2), None);
        assert_eq!(Credits::shared_limit(16, 16, 4), Some(29));
    }
}
