//! The L1's banked latency queues, as GPGPU-Sim 4 has them (`-gpgpu_l1_latency`,
//! `-gpgpu_l1_banks`; `ldst_unit::process_memory_access_queue_l1cache` and
//! `ldst_unit::L1_latency_queue_cycle` in `shader.cc`): every access enters the latency queue of
//! its bank — the bank is `(address / bank_bytes) mod banks` — at the queue's last stage, moves
//! one stage forward per cycle into an empty stage, and is looked up in the tags at stage 0,
//! `latency` cycles after it entered. At most one access enters a bank per cycle (its last
//! stage must be free), so up to `banks` accesses enter the L1 per cycle. An access the lookup
//! refuses (no MSHR, no line, a full miss queue) stays at stage 0 and is looked up again the
//! next cycle; its bank's queue fills behind it and stops taking accesses, while the other banks
//! go on.
//!
//! This holds the accesses; the L1 looks them up (`L1::lookups`).

use crate::sim::cache::AccessCtx;
use crate::sim::request::MemRequest;
use std::collections::VecDeque;

/// The stages are not stored as an array that every access crosses one slot at a time (which
/// would copy every held access every cycle): each bank keeps its accesses in stage order with
/// their stage numbers, and a cycle's advance lowers the stage of every access above the lowest
/// empty stage — the same state, as the test against a stage array checks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BankQueues {
    /// log2 of the bytes of consecutive addresses in one bank.
    shift: u32,
    /// Stages per bank: the latency.
    depth: usize,
    /// Bank b's accesses, nearest its lookup first.
    queues: Vec<VecDeque<Staged>>,
    held: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Staged {
    /// 0 is looked up; an access enters at `depth - 1`.
    stage: usize,
    req: MemRequest,
    ctx: AccessCtx,
}

impl BankQueues {
    pub fn new(banks: u32, bank_bytes: u32, latency: u32) -> BankQueues {
        let (banks, depth) = (banks.max(1) as usize, latency.max(1) as usize);
        BankQueues {
            shift: bank_bytes.trailing_zeros(),
            depth,
            queues: vec![VecDeque::with_capacity(depth); banks],
            held: 0,
        }
    }

    pub fn banks(&self) -> usize {
        self.queues.len()
    }

    /// Cycles from entering a bank to the lookup, when nothing holds the access up.
    pub fn latency(&self) -> u64 {
        self.depth as u64
    }

    /// The bank of a byte address.
    #[inline]
    pub fn bank_of(&self, addr: u64) -> usize {
        ((addr >> self.shift) as usize) & (self.queues.len() - 1)
    }

    /// Whether bank `b` can take an access this cycle: its last stage is free.
    #[inline]
    pub fn can_enter(&self, b: usize) -> bool {
        self.queues[b].back().is_none_or(|s| s.stage + 1 < self.depth)
    }

    /// An access enters its bank's last stage (which [`BankQueues::can_enter`] found free).
    pub fn enter(&mut self, req: MemRequest, ctx: AccessCtx) {
        let b = self.bank_of(req.addr);
        debug_assert!(self.can_enter(b), "the bank's last stage is taken");
        self.queues[b].push_back(Staged { stage: self.depth - 1, req, ctx });
        self.held += 1;
    }

    /// The access at bank `b`'s stage 0, waiting for its lookup.
    #[inline]
    pub fn head(&self, b: usize) -> Option<(MemRequest, AccessCtx)> {
        self.queues[b].front().filter(|s| s.stage == 0).map(|s| (s.req, s.ctx))
    }

    /// Takes bank `b`'s stage-0 access (its lookup succeeded).
    pub fn take_head(&mut self, b: usize) -> (MemRequest, AccessCtx) {
        debug_assert!(self.head(b).is_some(), "a head to take");
        self.held -= 1;
        let s = self.queues[b].pop_front().expect("a head to take");
        (s.req, s.ctx)
    }

    /// Every access moves one stage forward into an empty stage (a bank whose head stays
    /// fills up behind it): the accesses above a bank's lowest empty stage move down by one.
    pub fn advance(&mut self) {
        if self.held == 0 {
            return;
        }
        for q in &mut self.queues {
            // Stages are distinct and ascending: the first access not at its index has the
            // lowest empty stage below it.
            if let Some(first) = q.iter().enumerate().position(|(i, s)| s.stage != i) {
                q.iter_mut().skip(first).for_each(|s| s.stage -= 1);
            }
        }
    }

    /// Accesses held.
    pub fn len(&self) -> usize {
        self.held
    }

    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// The accesses held, each with its bank and stage (0 = being looked up).
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, &MemRequest)> {
        self.queues.iter().enumerate().flat_map(|(b, q)| q.iter().map(move |s| (b, s.stage, &s.req)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u64, addr: u64) -> (MemRequest, AccessCtx) {
        let r = MemRequest {
            id,
            kind: crate::sim::request::AccessKind::Load,
            addr,
            bytes: 32,
            lanes: 1,
            origin: Default::default(),
            loc: Default::default(),
            trace: Default::default(),
        };
        (r, AccessCtx::default())
    }

    /// Four banks of 32-byte interleaving and a latency of 3 (QV100 has 4 banks, latency 20):
    /// the four sectors of a line go to the four banks; an access reaches stage 0 after two
    /// advances; a bank whose head stays fills behind it and refuses a fourth access, while
    /// another bank still takes one.
    #[test]
    fn accesses_cross_their_bank_s_stages_and_a_stuck_head_fills_its_bank_only() {
        let mut q = BankQueues::new(4, 32, 3);
        assert_eq!([0, 32, 64, 96, 128].map(|a| q.bank_of(a)), [0, 1, 2, 3, 0]);
        let (r, c) = req(1, 0);
        q.enter(r, c);
        assert!(!q.can_enter(0) && q.can_enter(1), "one access per bank per cycle");
        assert!(q.head(0).is_none());
        q.advance();
        assert!(q.head(0).is_none() && q.can_enter(0));
        q.advance();
        assert_eq!(q.head(0).map(|h| h.0.id), Some(1), "at stage 0 after latency − 1 advances");
        // The head stays (refused): two more accesses fill the bank's three stages.
        for id in 2..=3 {
            let (r, c) = req(id, 128 * id);
            assert!(q.can_enter(0));
            q.enter(r, c);
            q.advance();
        }
        assert!(!q.can_enter(0) && q.can_enter(2), "the bank is full behind its head; bank 2 is free");
        q.advance();
        assert!(!q.can_enter(0), "and stays full");
        assert_eq!(q.len(), 3);
        assert_eq!(q.take_head(0).0.id, 1);
        q.advance();
        assert_eq!(q.head(0).map(|h| h.0.id), Some(2));
        assert!(q.can_enter(0), "the bank moved on");
        let (r, c) = req(4, 512);
        q.enter(r, c);
        let stages: Vec<(usize, usize, u64)> = q.iter().map(|(b, s, r)| (b, s, r.id)).collect();
        assert_eq!(stages, [(0, 0, 2), (0, 1, 3), (0, 2, 4)]);
    }

    /// The stages as GPGPU-Sim's `L1_latency_queue_cycle` keeps them: an array per bank, every
    /// access moving into the empty stage below it each cycle.
    struct StageArray {
        depth: usize,
        stages: Vec<Option<u64>>,
    }

    impl StageArray {
        fn advance(&mut self) {
            for bank in self.stages.chunks_mut(self.depth) {
                for s in 1..bank.len() {
                    if bank[s - 1].is_none() {
                        bank[s - 1] = bank[s].take();
                    }
                }
            }
        }
        fn held(&self) -> Vec<(usize, usize, u64)> {
            let d = self.depth;
            self.stages.iter().enumerate().filter_map(|(i, s)| s.map(|id| (i / d, i % d, id))).collect()
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::cases::config(crate::cases::L1_BANK_STAGES))]

        /// Random cycles of entries, lookups that succeed or are refused, and advances leave
        /// the same accesses at the same stages as the stage array.
        #[test]
        fn stage_numbers_equal_the_stage_array(
            depth in 1usize..6,
            cycles in proptest::collection::vec((0u64..8, proptest::bool::ANY, proptest::bool::ANY), 1..120),
        ) {
            let mut q = BankQueues::new(2, 32, depth as u32);
            let mut reference = StageArray { depth, stages: vec![None; 2 * depth] };
            for (id, (line, enter, take)) in cycles.into_iter().enumerate() {
                let id = id as u64;
                for b in 0..2 {
                    let looked = q.head(b).map(|h| h.0.id);
                    proptest::prop_assert_eq!(looked, reference.stages[b * depth]);
                    if take && looked.is_some() {
                        q.take_head(b);
                        reference.stages[b * depth] = None;
                    }
                }
                let (r, c) = req(id, line * 32);
                let b = q.bank_of(r.addr);
                proptest::prop_assert_eq!(q.can_enter(b), reference.stages[b * depth + depth - 1].is_none());
                if enter && q.can_enter(b) {
                    q.enter(r, c);
                    reference.stages[b * depth + depth - 1] = Some(id);
                }
                q.advance();
                reference.advance();
                let held: Vec<(usize, usize, u64)> = q.iter().map(|(b, s, r)| (b, s, r.id)).collect();
                proptest::prop_assert_eq!(held, reference.held());
            }
        }
    }
}
