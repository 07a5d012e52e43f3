//! The crossbar between SMs and L2 slices (MECHANISMS §1; seed 002 §III, Table III).
//!
//! Two independent networks: requests (SM miss queues → L2 access queues) and replies (L2
//! response queues → SM reply queues), each with its own flit width. A packet of B bytes is
//! ⌈B / flit⌉ flits; while it crosses, its input and output port are busy for that many
//! interconnect cycles, and it arrives `latency` cycles after its last flit. Arbitration is
//! round-robin over inputs, one packet per input and per output at a time. A packet is only
//! granted when its destination queue, with the output port's buffer (`icnt.out_buffer`,
//! GPGPU-Sim's `-icnt_out_buffer_limit`), has room for it and for everything already in flight
//! toward it (credits), so a full destination stops its senders: back-pressure, never growth.
//! An arrived packet waits in the output buffer, in order, until its queue has room. With
//! input buffers (`icnt.in_buffer`, [`in_buffers`]) a sender injects into its port's buffer
//! and arbitration takes from there; without, it takes from the sender's queue itself.

mod in_buffers;
mod waiting;

use crate::sim::queue::BoundedQueue;
use crate::sim::request::MemRequest;
use in_buffers::InBuffers;
use std::collections::VecDeque;
use waiting::Waiting;

/// Flits of a packet of `bytes` on `flit_bytes`-byte flits (a header-only packet is one).
#[inline]
fn flits(bytes: u32, flit_bytes: u32) -> u32 {
    bytes.div_ceil(flit_bytes).max(1)
}

/// A queue that injects packets: its head's destination port and size.
pub trait Injector {
    fn head(&self) -> Option<(usize, u32)>;
    fn pop(&mut self) -> MemRequest;
}

/// A queue that receives packets.
pub trait Ejector {
    fn room(&self) -> usize;
    fn accept(&mut self, req: MemRequest);
}

/// Per-network counters.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct NetStats {
    pub packets: u64,
    pub flits: u64,
    /// Cycles an input had a packet but could not send it (port busy or no credit).
    pub blocked: u64,
    /// Cycles a sender had a packet its input buffer had no room for.
    pub in_buffer_full: u64,
}

/// Where arbitration takes packets from: the senders' queues, or the input buffers.
trait Inputs {
    fn head(&self, i: usize) -> Option<(usize, u32)>;
    fn pop(&mut self, i: usize) -> MemRequest;
}

/// The senders' queues themselves (no input buffers).
struct Senders<'a, I>(&'a mut [I]);

impl<I: Injector> Inputs for Senders<'_, I> {
    #[inline]
    fn head(&self, i: usize) -> Option<(usize, u32)> {
        self.0[i].head()
    }
    fn pop(&mut self, i: usize) -> MemRequest {
        self.0[i].pop()
    }
}

impl Inputs for InBuffers {
    #[inline]
    fn head(&self, i: usize) -> Option<(usize, u32)> {
        InBuffers::head(self, i)
    }
    fn pop(&mut self, i: usize) -> MemRequest {
        InBuffers::pop(self, i)
    }
}

/// One direction of the crossbar.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Network {
    pub flit_bytes: u32,
    pub latency: u64,
    /// Packets an output port holds beyond its destination queue's room.
    out_buffer: usize,
    /// Each input port's buffer of injected packets (none when `icnt.in_buffer` is 0).
    in_buffers: InBuffers,
    in_busy: Vec<u64>,
    out_busy: Vec<u64>,
    /// Packets crossing toward each output, then waiting in its output buffer: (arrival
    /// cycle, packet).
    pipes: Vec<VecDeque<(u64, MemRequest)>>,
    /// The earliest arrival among the pipes' heads (`u64::MAX`: nothing crossing), so a
    /// cycle with no arrival skips looking at every pipe. A pipe is in arrival order (its
    /// output port is busy until a packet's last flit left, so the next one arrives later),
    /// so the heads hold the earliest arrival. An arrived head its queue has no room for keeps
    /// it at or before the current cycle: the network is not quiet while it waits.
    next_arrival: u64,
    /// Round-robin start input.
    rr: usize,
    /// The inputs with a packet, by the output it goes to. The GPU files an input
    /// ([`Network::offer`]) after a step in which it may have queued a packet (an SM's worked
    /// cycle, an L2 slice's step), and a grant files it again under its next packet. With
    /// input buffers, an input is filed by its buffer's head instead, as packets enter it. A cycle
    /// then looks only at the inputs whose output is free and has credit, in round-robin
    /// order; the others would be refused anyway, so the grants are the same as looking at
    /// every input (`sim.no_skip` does, and does not file).
    waiting: Waiting,
    /// Every input is looked at every cycle (`sim.no_skip`).
    scan_all: bool,
    /// This cycle's candidate inputs in round-robin order (scratch: no allocation per cycle).
    order: Vec<u32>,
    pub stats: NetStats,
}

impl Network {
    pub fn new(
        inputs: usize,
        outputs: usize,
        flit_bytes: u32,
        latency: u64,
        out_buffer: usize,
        in_buffer: u32,
        scan_all: bool,
    ) -> Network {
        Network {
            flit_bytes,
            latency,
            out_buffer,
            in_buffers: InBuffers::new(inputs, in_buffer),
            in_busy: vec![0; inputs],
            out_busy: vec![0; outputs],
            pipes: (0..outputs).map(|_| VecDeque::with_capacity(16)).collect(),
            next_arrival: u64::MAX,
            rr: 0,
            waiting: Waiting::new(inputs, outputs),
            scan_all,
            order: Vec::with_capacity(inputs),
            stats: NetStats::default(),
        }
    }

    /// Packets in the network: in input buffers, crossing, or in output buffers.
    pub fn in_flight(&self) -> usize {
        self.in_buffers.len() + self.pipes.iter().map(|p| p.len()).sum::<usize>()
    }

    /// Input `i`'s buffer: (flits in it, flits it holds); (0, 0) without input buffers.
    pub fn in_buffer(&self, i: usize) -> (usize, usize) {
        self.in_buffers.fill_of(i)
    }

    pub fn pipes(&self) -> &[VecDeque<(u64, MemRequest)>] {
        &self.pipes
    }

    /// Interconnect cycles from `now` in which this network would do nothing but turn its
    /// round-robin pointer: no input has a packet, and none crossing arrives before then.
    pub fn quiet_ticks<I: Injector>(&self, now: u64, inputs: &[I]) -> u64 {
        if self.in_buffers.len() > 0 || inputs.iter().any(|i| i.head().is_some()) {
            return 0;
        }
        match self.next_arrival {
            u64::MAX => u64::MAX,
            at => at.saturating_sub(now),
        }
    }

    /// Passes `ticks` such cycles, as stepping through them would.
    pub fn pass_quiet(&mut self, ticks: u64) {
        if let Some(n) = std::num::NonZeroU64::new(self.in_busy.len() as u64) {
            self.rr = ((self.rr as u64 + ticks % n.get()) % n.get()) as usize;
        }
    }

    /// Input `i` may have queued a packet: `head` is its head packet's (output, bytes) now.
    #[inline]
    pub fn offer(&mut self, i: usize, head: Option<(usize, u32)>) {
        if self.in_buffers.enabled() {
            self.in_buffers.note(i, head.is_some());
        } else if !self.scan_all {
            self.waiting.set(i, head.map(|(o, _)| o));
        }
    }

    /// Delivers arrived packets, then grants new ones. `now` is the interconnect cycle;
    /// `on_grant` stamps a packet as it leaves its sender (into the network, or into its
    /// input buffer, which then fills after the grants: a packet injected in a cycle is
    /// granted in a later one, as GPGPU-Sim's senders push after the crossbar advanced),
    /// `on_deliver` as it arrives.
    pub fn step<I: Injector, E: Ejector>(
        &mut self,
        now: u64,
        inputs: &mut [I],
        outputs: &mut [E],
        mut on_grant: impl FnMut(&mut MemRequest),
        mut on_deliver: impl FnMut(&mut MemRequest),
    ) {
        if self.next_arrival <= now {
            let mut next = u64::MAX;
            for (o, pipe) in self.pipes.iter_mut().enumerate() {
                while let Some(&(at, _)) = pipe.front() {
                    if at > now || outputs[o].room() == 0 {
                        next = next.min(at.max(now));
                        break;
                    }
                    let (_, mut req) = pipe.pop_front().expect("front exists");
                    on_deliver(&mut req);
                    outputs[o].accept(req);
                }
            }
            self.next_arrival = next;
        }
        let n = inputs.len();
        if n == 0 {
            return;
        }
        if self.in_buffers.enabled() {
            let mut buffers = std::mem::take(&mut self.in_buffers);
            self.arbitrate(now, &mut buffers, outputs, &mut |_| {});
            let (flit_bytes, all) = (self.flit_bytes, self.scan_all);
            self.stats.in_buffer_full +=
                buffers.fill(inputs, flit_bytes, all, &mut self.waiting, &mut on_grant);
            self.in_buffers = buffers;
        } else {
            self.arbitrate(now, &mut Senders(inputs), outputs, &mut on_grant);
        }
        self.rr = if self.rr + 1 == n { 0 } else { self.rr + 1 };
    }

    /// Grants packets from `inputs` to the outputs that can take them.
    fn arbitrate<E: Ejector>(
        &mut self,
        now: u64,
        inputs: &mut impl Inputs,
        outputs: &[E],
        on_grant: &mut impl FnMut(&mut MemRequest),
    ) {
        if self.scan_all {
            self.grant_scanning(now, inputs, outputs, on_grant);
        } else {
            self.grant_waiting(now, inputs, outputs, on_grant);
        }
    }

    /// Grants by looking at every input in round-robin order from `rr`. An output granted
    /// this cycle is busy until at least `now + 1`, so `out_busy` also keeps a second input
    /// from taking it in the same cycle.
    fn grant_scanning<E: Ejector>(
        &mut self,
        now: u64,
        inputs: &mut impl Inputs,
        outputs: &[E],
        on_grant: &mut impl FnMut(&mut MemRequest),
    ) {
        let n = self.in_busy.len();
        for i in (self.rr..n).chain(0..self.rr) {
            let Some((o, bytes)) = inputs.head(i) else {
                continue;
            };
            if self.in_busy[i] > now || !self.can_take(o, &outputs[o], now) {
                self.stats.blocked += 1;
                continue;
            }
            self.grant(now, i, o, bytes, inputs, on_grant);
        }
    }

    /// The same grants, looking only at the waiting inputs whose output is free and has
    /// credit: every other input with a packet is refused, so it only counts as blocked.
    fn grant_waiting<E: Ejector>(
        &mut self,
        now: u64,
        inputs: &mut impl Inputs,
        outputs: &[E],
        on_grant: &mut impl FnMut(&mut MemRequest),
    ) {
        let waiting = self.waiting.count();
        if waiting == 0 {
            return;
        }
        let (out_busy, pipes, buffer) = (&self.out_busy, &self.pipes, self.out_buffer);
        self.waiting.open_where(|o| can_take(out_busy, pipes, buffer, o, &outputs[o], now));
        self.waiting.candidates(self.rr, &mut self.order);
        let mut granted = 0;
        for k in 0..self.order.len() {
            let i = self.order[k] as usize;
            let o = self.waiting.output_of(i).expect("a candidate has a packet");
            if self.in_busy[i] > now || self.out_busy[o] > now {
                continue;
            }
            let (to, bytes) = inputs.head(i).expect("a waiting input has a packet");
            debug_assert_eq!(to, o, "input {i}: filed under the wrong output");
            self.grant(now, i, o, bytes, inputs, on_grant);
            self.waiting.set(i, inputs.head(i).map(|(o, _)| o));
            granted += 1;
        }
        self.stats.blocked += (waiting - granted) as u64;
    }

    /// Whether output `o` can take a packet this cycle (see [`can_take`]).
    fn can_take<E: Ejector>(&self, o: usize, out: &E, now: u64) -> bool {
        can_take(&self.out_busy, &self.pipes, self.out_buffer, o, out, now)
    }

    /// Sends input `i`'s head packet of `bytes` to output `o`.
    fn grant(
        &mut self,
        now: u64,
        i: usize,
        o: usize,
        bytes: u32,
        inputs: &mut impl Inputs,
        on_grant: &mut impl FnMut(&mut MemRequest),
    ) {
        let flits = u64::from(flits(bytes, self.flit_bytes));
        let mut req = inputs.pop(i);
        on_grant(&mut req);
        self.in_busy[i] = now + flits;
        self.out_busy[o] = now + flits;
        let at = now + flits + self.latency;
        self.next_arrival = self.next_arrival.min(at);
        self.pipes[o].push_back((at, req));
        self.stats.packets += 1;
        self.stats.flits += flits;
    }
}

/// Whether output `o` (queue `out`) can take a packet at cycle `now`: its port is free and its
/// queue and output buffer have room beyond the packets already crossing toward it or waiting
/// in the buffer (a credit).
fn can_take<E: Ejector>(
    out_busy: &[u64],
    pipes: &[VecDeque<(u64, MemRequest)>],
    out_buffer: usize,
    o: usize,
    out: &E,
    now: u64,
) -> bool {
    out_busy[o] <= now && out.room() + out_buffer > pipes[o].len()
}

/// Both networks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Crossbar {
    pub request: Network,
    pub reply: Network,
}

impl Crossbar {
    pub fn new(c: &crate::config::Config) -> Crossbar {
        let cores = c.core.count as usize;
        let slices = c.l2_slices();
        let network = |inputs, outputs, flit_bytes| {
            let (latency, buffer) = (c.icnt.latency.into(), c.icnt.out_buffer as usize);
            Network::new(inputs, outputs, flit_bytes, latency, buffer, c.icnt.in_buffer, c.sim.no_skip)
        };
        Crossbar {
            request: network(cores, slices, c.icnt.request_flit_bytes),
            reply: network(slices, cores, c.icnt.reply_flit_bytes),
        }
    }
}

/// A bounded queue as a network endpoint.
impl Ejector for BoundedQueue<MemRequest> {
    fn room(&self) -> usize {
        self.free()
    }
    fn accept(&mut self, req: MemRequest) {
        if self.push(req).is_err() {
            unreachable!("credits guarantee room at the destination");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::request::AccessKind;

    /// A source queue of (output, packet bytes, packet).
    struct Src(VecDeque<(usize, u32, MemRequest)>);
    impl Injector for Src {
        fn head(&self) -> Option<(usize, u32)> {
            self.0.front().map(|&(d, b, _)| (d, b))
        }
        fn pop(&mut self) -> MemRequest {
            self.0.pop_front().unwrap().2
        }
    }

    pub(super) fn req(id: u64) -> MemRequest {
        MemRequest {
            id,
            kind: AccessKind::Load,
            addr: 0,
            bytes: 128,
            lanes: 1,
            origin: Default::default(),
            loc: Default::default(),
            trace: Default::default(),
        }
    }

    /// Both ways of granting: looking at every input, and at the filed ones only.
    const MODES: [bool; 2] = [true, false];

    #[test]
    fn flits_serialize_and_credits_block_senders() {
        for scan_all in MODES {
            // 136-byte packets on 32-byte flits: 5 flits each, latency 2.
            let mut net = Network::new(2, 1, 32, 2, 0, 0, scan_all);
            let mut srcs =
                vec![Src((0..3).map(|i| (0, 136, req(i))).collect()), Src([(0, 136, req(9))].into())];
            for (i, s) in srcs.iter().enumerate() {
                net.offer(i, s.head());
            }
            let mut dst = vec![BoundedQueue::new(2)];
            let mut arrivals = Vec::new();
            for now in 0..40 {
                net.step(now, &mut srcs, &mut dst, |_| {}, |r| arrivals.push((now, r.id)));
            }
            // Output port serializes: grants at 0, 5; the destination holds only two packets,
            // so the third waits for a credit that never comes (nobody drains `dst`).
            assert_eq!(arrivals, vec![(7, 0), (12, 9)]);
            assert_eq!(dst[0].len(), 2);
            assert_eq!(srcs[0].0.len(), 2, "sender stopped by back-pressure");
            // Input 0 is refused in every cycle after its first grant (its own port busy, then
            // the output's, then no credit), input 1 in cycles 0-4 (the output busy).
            assert_eq!(net.stats.blocked, 39 + 5, "scan_all {scan_all}");
        }
    }

    /// One sender of `packets` 8-byte packets (one 32-byte flit each, latency 2) to one output
    /// whose queue holds one packet, with the given output and input buffers.
    fn one_lane(
        out_buffer: usize,
        in_buffer: u32,
        packets: u64,
        scan_all: bool,
    ) -> (Network, Vec<Src>, Vec<BoundedQueue<MemRequest>>) {
        let mut net = Network::new(1, 1, 32, 2, out_buffer, in_buffer, scan_all);
        let srcs = vec![Src((0..packets).map(|i| (0, 8, req(i))).collect())];
        net.offer(0, srcs[0].head());
        (net, srcs, vec![BoundedQueue::new(1)])
    }

    /// An output buffer of two packets in front of a one-packet queue (GPGPU-Sim's
    /// `LocalInterconnect` out buffer): three packets cross before the sender is stopped, the
    /// later two wait in the buffer in order, and each enters the queue the cycle it has room.
    #[test]
    fn an_output_buffer_holds_arrivals_until_the_queue_has_room() {
        for scan_all in MODES {
            let (mut net, mut srcs, mut dst) = one_lane(2, 0, 5, scan_all);
            let mut taken = Vec::new();
            for now in 0..20 {
                // The queue's owner takes a packet in cycles 10 and 15.
                if now == 10 || now == 15 {
                    taken.push((now, dst[0].pop().unwrap().id));
                }
                net.step(now, &mut srcs, &mut dst, |_| {}, |_| {});
                net.offer(0, srcs[0].head());
            }
            // Grants at 0, 1, 2 (arrivals 3, 4, 5): packet 0 enters the queue, 1 and 2 wait
            // in the buffer; the credit for the fourth comes only when 0 is taken at 10.
            assert_eq!(taken, vec![(10, 0), (15, 1)], "scan_all {scan_all}");
            assert_eq!(dst[0].pop().unwrap().id, 2, "in order");
            assert_eq!(srcs[0].0.len(), 0, "two more crossed after the two takes");
            assert_eq!(net.in_flight(), 2, "packets 3 and 4 wait in the buffer");
        }
    }

    /// Input buffers of 4 flits in front of a one-packet queue nobody drains: the sender's
    /// packets move in one a cycle, each after its cycle's grants (so granted a cycle later at
    /// the earliest), and the sender keeps only what the buffer has no room for.
    #[test]
    fn an_input_buffer_takes_its_senders_packets_one_a_cycle() {
        for scan_all in MODES {
            let (mut net, mut srcs, mut dst) = one_lane(0, 4, 8, scan_all);
            let (mut injected, mut arrived) = (Vec::new(), Vec::new());
            for now in 0..12 {
                net.step(
                    now,
                    &mut srcs,
                    &mut dst,
                    |r| injected.push((now, r.id)),
                    |r| arrived.push((now, r.id)),
                );
                net.offer(0, srcs[0].head());
            }
            // Packet 0 enters at 0, is granted at 1 and arrives at 1 + 1 flit + 2 = 4; the queue
            // holds one packet, so packet 1 waits in the buffer with no credit from then on.
            assert_eq!(arrived, [(4, 0)], "scan_all {scan_all}");
            // Packets 1-4 fill the buffer's 4 flits by cycle 4; the sender is refused in 5-11.
            assert_eq!(injected, [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]);
            assert_eq!((srcs[0].0.len(), net.in_flight(), net.in_buffer(0)), (3, 4, (4, 4)));
            assert_eq!(net.stats.in_buffer_full, 7);
        }
    }

    /// The credit loop toward a destination drained one packet a cycle (an SM's reply queue,
    /// filled before the SM steps): a packet granted at t arrives at t + 1 flit + 8 and is taken
    /// the same cycle, so its credit serves a grant at t + 10. A queue of 8 packets therefore
    /// lets 8 grants through in every 10 cycles; one of 32 (GPGPU-Sim's
    /// `-gpgpu_n_cluster_ejection_buffer_size` in Accel-Sim's configs) covers the loop, one a
    /// cycle.
    #[test]
    fn a_destination_queue_shorter_than_the_credit_loop_throttles_its_port() {
        let grants = |queue: usize| {
            let mut net = Network::new(1, 1, 32, 8, 0, 0, false);
            let mut srcs = vec![Src((0..20).map(|i| (0, 8, req(i))).collect())];
            net.offer(0, srcs[0].head());
            let mut dst = vec![BoundedQueue::new(queue)];
            let mut at = Vec::new();
            for now in 0..40 {
                net.step(now, &mut srcs, &mut dst, |_| at.push(now), |_| {});
                net.offer(0, srcs[0].head());
                dst[0].pop();
            }
            at
        };
        let throttled: Vec<u64> = (0..8).chain(10..18).chain(20..24).collect();
        assert_eq!(grants(8), throttled);
        assert_eq!(grants(32), (0..20).collect::<Vec<u64>>());
    }

    /// Six sources feeding four outputs of two-packet queues drained at different rates, with
    /// packets of 1 to 5 flits to random outputs and new packets queued as the run goes: the
    /// filed inputs give the same arrivals, cycle for cycle, and the same counters as looking
    /// at every input, with and without output and input buffers.
    #[test]
    fn looking_only_at_filed_inputs_grants_the_same() {
        let run = |scan_all: bool, buffer: usize, in_buffer: u32| {
            let mut net = Network::new(6, 4, 32, 3, buffer, in_buffer, scan_all);
            let mut srcs: Vec<Src> = (0..6).map(|_| Src(VecDeque::new())).collect();
            let mut dst: Vec<BoundedQueue<MemRequest>> = (0..4).map(|_| BoundedQueue::new(2)).collect();
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let mut rand = move |m: u64| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed % m
            };
            let (mut arrivals, mut id) = (Vec::new(), 0);
            for now in 0..3000 {
                for (i, s) in srcs.iter_mut().enumerate() {
                    if rand(4) == 0 {
                        s.0.push_back((rand(4) as usize, 8 + 32 * rand(5) as u32, req(id)));
                        id += 1;
                        net.offer(i, s.head());
                    }
                }
                net.step(now, &mut srcs, &mut dst, |_| {}, |r| arrivals.push((now, r.id)));
                for (o, d) in dst.iter_mut().enumerate() {
                    if now % (o as u64 + 2) == 0 {
                        d.pop();
                    }
                }
            }
            (arrivals, net.stats.clone())
        };
        for (buffer, in_buffer) in [(0, 0), (3, 0), (0, 7), (3, 7)] {
            let (scanned, stats) = run(true, buffer, in_buffer);
            assert!(
                scanned.len() > 1000 && stats.blocked > 1000,
                "a busy crossbar: {} packets, {stats:?}",
                scanned.len()
            );
            assert!(in_buffer == 0 || stats.in_buffer_full > 100, "full input buffers: {stats:?}");
            assert_eq!(run(false, buffer, in_buffer), (scanned, stats));
        }
    }
}
