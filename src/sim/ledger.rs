//! The request ledger: one place that hands out request ids and counts the requests that
//! enter and leave the memory system (DESIGN rule 5: every request that enters leaves; a
//! drained machine has `created == retired`).
//!
//! Every unit that creates or retires a request takes `&mut Ledger` — the LD/ST unit (loads
//! and stores), the L2 (write-backs, and stores it writes unless `l2.write_acks` sends them
//! back), the memory controllers (prefetches, which carry ids of their own, and DRAM writes,
//! which end there), the L1 (hits a perfect L1 absorbs), the SM (data back at its warp, a
//! store's acknowledgement) and the idealized memories.

/// Request ids and conservation counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ledger {
    next_id: u64,
    created: u64,
    retired: u64,
}

impl Ledger {
    /// A new request enters the memory system: its id (global, increasing).
    #[inline]
    pub fn create(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.created += 1;
        id
    }

    /// A request that carries an id of its own (a prefetch) enters the memory system.
    #[inline]
    pub fn create_numbered(&mut self) {
        self.created += 1;
    }

    /// A request leaves the memory system.
    #[inline]
    pub fn retire(&mut self) {
        self.retired += 1;
    }

    /// Requests created so far.
    pub fn created(&self) -> u64 {
        self.created
    }

    /// Requests retired so far.
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Requests inside the memory system now.
    pub fn in_flight(&self) -> u64 {
        self.created - self.retired
    }

    /// The id the next request will get.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// A ledger whose next id is `id` (tests that want recognisable ids).
    pub fn starting_at(id: u64) -> Ledger {
        Ledger { next_id: id, ..Ledger::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_increase_and_counts_balance_when_everything_retires() {
        let mut l = Ledger::starting_at(7);
        assert_eq!((l.create(), l.create()), (7, 8));
        l.create_numbered();
        assert_eq!((l.created(), l.retired(), l.in_flight(), l.next_id()), (3, 0, 3, 9));
        (0..3).for_each(|_| l.retire());
        assert_eq!((l.created(), l.retired(), l.in_flight()), (3, 3, 0));
    }
}
