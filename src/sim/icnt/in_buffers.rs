//! The input buffers of a crossbar network (`icnt.in_buffer`): each input port holds the
//! packets its sender has injected and the crossbar has not yet granted, up to a number of
//! flits. GPGPU-Sim has them in both of its networks: the local crossbar's in_buffers
//! (`-icnt_in_buffer_limit`, `LocalInterconnect::HasBuffer` and `Push`) and BookSim's
//! injection queues (`input_buffer_size` of the `-inter_config_file`,
//! `InterconnectInterface::HasBuffer`, counted in flits). A sender moves its head packet in
//! when the buffer has room for all of its flits, one packet a cycle (an L1 pushes its miss
//! queue's head each cycle, a memory partition its reply queue's), and arbitration takes
//! packets from the buffer's head.

use super::Injector;
use super::waiting::Waiting;
use crate::sim::request::MemRequest;
use std::collections::VecDeque;

/// A packet in an input buffer: its output port, bytes and flits.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Buffered {
    output: usize,
    bytes: u32,
    flits: u32,
    req: MemRequest,
}

/// Every input port's buffer.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct InBuffers {
    /// Flits each buffer holds (0: no buffers; arbitration takes from the senders).
    capacity: u32,
    queues: Vec<VecDeque<Buffered>>,
    /// Flits in each buffer.
    flits: Vec<u32>,
    /// Packets in all buffers.
    packets: usize,
    /// Inputs whose sender may have a packet not yet moved in, one bit each.
    pending: Vec<u64>,
}

impl InBuffers {
    pub fn new(inputs: usize, capacity: u32) -> InBuffers {
        InBuffers {
            capacity,
            queues: (0..inputs).map(|_| VecDeque::new()).collect(),
            flits: vec![0; inputs],
            packets: 0,
            pending: vec![0; inputs.div_ceil(64)],
        }
    }

    /// Whether the ports have buffers.
    #[inline]
    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    /// Packets in all buffers.
    pub fn len(&self) -> usize {
        self.packets
    }

    /// Input `i`'s buffer: (flits in it, flits it holds).
    pub fn fill_of(&self, i: usize) -> (usize, usize) {
        (self.flits[i] as usize, self.capacity as usize)
    }

    /// Input `i`'s sender has (or has not) a packet to move in.
    #[inline]
    pub fn note(&mut self, i: usize, has_packet: bool) {
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if has_packet {
            self.pending[w] |= bit;
        } else {
            self.pending[w] &= !bit;
        }
    }

    /// Moves each sender's head packet into its buffer where all its flits fit, one a sender
    /// (every sender when `all`, else those noted). `on_inject` stamps a packet as it enters
    /// the network; `waiting`, unless `all`, files an input whose buffer had been empty under
    /// its new head's output. Returns the senders refused for want of room.
    pub fn fill<I: Injector>(
        &mut self,
        senders: &mut [I],
        flit_bytes: u32,
        all: bool,
        waiting: &mut Waiting,
        on_inject: &mut impl FnMut(&mut MemRequest),
    ) -> u64 {
        let mut refused = 0;
        for w in 0..self.pending.len() {
            let mut bits = if all { !0 } else { self.pending[w] };
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if i >= senders.len() {
                    break;
                }
                let Some((output, bytes)) = senders[i].head() else {
                    self.note(i, false);
                    continue;
                };
                let flits = super::flits(bytes, flit_bytes);
                if self.flits[i] + flits > self.capacity {
                    refused += 1;
                    continue;
                }
                let mut req = senders[i].pop();
                on_inject(&mut req);
                if self.queues[i].is_empty() && !all {
                    waiting.set(i, Some(output));
                }
                self.queues[i].push_back(Buffered { output, bytes, flits, req });
                self.flits[i] += flits;
                self.packets += 1;
                self.note(i, senders[i].head().is_some());
            }
        }
        refused
    }

    /// Input `i`'s head packet: (output, bytes).
    #[inline]
    pub fn head(&self, i: usize) -> Option<(usize, u32)> {
        self.queues[i].front().map(|b| (b.output, b.bytes))
    }

    /// Takes input `i`'s head packet.
    pub fn pop(&mut self, i: usize) -> MemRequest {
        let b = self.queues[i].pop_front().expect("a granted input has a packet");
        self.flits[i] -= b.flits;
        self.packets -= 1;
        b.req
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sender of (output, bytes) packets.
    struct Src(VecDeque<(usize, u32)>);
    impl Injector for Src {
        fn head(&self) -> Option<(usize, u32)> {
            self.0.front().copied()
        }
        fn pop(&mut self) -> MemRequest {
            let (_, bytes) = self.0.pop_front().unwrap();
            MemRequest { bytes, ..super::super::tests::req(0) }
        }
    }

    /// A buffer of 5 flits on 32-byte flits takes a 2-flit packet, then a 1-flit one, then
    /// refuses a 3-flit one (2 + 1 + 3 > 5) until the head leaves; one packet a sender a cycle.
    #[test]
    fn a_packet_enters_when_all_its_flits_fit() {
        let mut b = InBuffers::new(1, 5);
        let mut w = Waiting::new(1, 2);
        let mut src = vec![Src([(0, 64), (1, 8), (1, 96)].into())];
        let mut injected = 0;
        let mut inject = |_: &mut MemRequest| injected += 1;
        b.note(0, true);
        assert_eq!(b.fill(&mut src, 32, false, &mut w, &mut inject), 0);
        assert_eq!((b.len(), b.head(0), w.output_of(0)), (1, Some((0, 64)), Some(0)));
        assert_eq!(b.fill(&mut src, 32, false, &mut w, &mut inject), 0);
        assert_eq!(b.len(), 2);
        assert_eq!(b.fill(&mut src, 32, false, &mut w, &mut inject), 1, "3 flits do not fit in 2");
        assert_eq!(b.pop(0).bytes, 64);
        assert_eq!(b.fill(&mut src, 32, false, &mut w, &mut inject), 0, "1 + 3 flits fit in 5");
        assert_eq!((b.len(), b.head(0)), (2, Some((1, 8))));
        // The sender is empty: filling forgets it.
        assert_eq!(b.fill(&mut src, 32, false, &mut w, &mut inject), 0);
        assert_eq!(b.pending, [0]);
        assert_eq!(injected, 3);
    }
}
