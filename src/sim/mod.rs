//! The machine. [`Gpu::step`] advances one core cycle: DRAM channels tick on their clock
//! edges, then the crossbar and L2 slices on theirs, then the CTA launcher and the SMs.
//!
//! Everything here is plain data: `Gpu` is `Clone` (a snapshot is a clone), uses indices, not
//! pointers, and has no clock-time or terminal dependency; its one file dependency is a trace
//! workload's file, read (read-only, validated at load) when a CTA launches. Components emit [`Event`]s
//! into one sink, which keeps only subscribed kinds.

pub mod cache;
pub mod clock;
pub mod core;
pub mod dram;
pub mod event;
pub mod fingerprint;
pub mod icnt;
pub mod ideal;
pub mod inspect;
pub mod ipoly;
pub mod l1;
pub mod l1_banks;
pub mod l2;
mod leap;
pub mod ledger;
pub mod occupancy;
pub mod queue;
pub mod record;
pub mod request;
pub mod stats;
mod watchdog;

use crate::config::Config;
use crate::config::IdealMemory;
use crate::workload::{Kernel, Workload};
use clock::ClockDomain;
use core::Sm;
use core::sm::SmEnv;
use dram::Controller;
use dram::coord::CoordNetwork;
use dram::mapping::AddressMap;
pub use event::{Event, EventKind, EventSink};
use icnt::{Crossbar, Ejector, Injector};
use ideal::IdealPipe;
use l2::L2Slice;
use ledger::Ledger;
use record::{Point, Who};
use request::AccessKind;
use request::MemRequest;
use std::sync::Arc;
pub use watchdog::Watchdog;

/// Where a run is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Status {
    Running,
    /// Every kernel finished and the memory system drained.
    Done,
    /// The watchdog saw nothing move; the text says which queues hold requests.
    Stuck(String),
}

/// Hands CTAs of the current kernel to SMs, round-robin and load-balanced (seed 003 §2.1):
/// each cycle every SM with room gets at most one CTA, starting after the last SM served.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CtaLauncher {
    /// Kernel being run (== number of kernels when all are done).
    pub kernel: usize,
    pub next_cta: u32,
    pub done_ctas: u32,
    rr: usize,
    /// Core cycle the current kernel started.
    pub kernel_start: u64,
    /// Every SM was full at the last attempt and no warp slot has been freed since.
    saturated: bool,
    /// Per kernel, the CTAs an SM holds at once ([`occupancy::ctas_per_sm`]).
    fits: Arc<[u32]>,
}

impl CtaLauncher {
    /// The first core cycle at which kernel `k`, the current one, may launch a CTA: GPGPU-Sim's
    /// m_kernel_TB_latency, the kernel's launch latency and each CTA's after its start.
    fn first_launch_at(&self, c: &Config, k: &Kernel) -> u64 {
        let c = &c.core;
        self.kernel_start
            + u64::from(c.kernel_launch_latency)
            + u64::from(k.ctas()) * u64::from(c.cta_launch_latency)
    }
}

/// The whole GPU.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Gpu {
    /// Not in a checkpoint: the machine and workload are built again from the command line
    /// and checked against its digests ([`Gpu::reattach`]).
    #[serde(skip)]
    pub config: Arc<Config>,
    #[serde(skip)]
    pub workload: Arc<Workload>,
    pub map: AddressMap,
    /// Core cycles simulated.
    pub cycle: u64,
    /// Interconnect/L2 cycles simulated.
    pub icnt_cycle: u64,
    dram_clock: ClockDomain,
    icnt_clock: ClockDomain,
    pub sms: Vec<Sm>,
    pub icnt: Crossbar,
    pub l2: Vec<L2Slice>,
    pub dram: Vec<Controller>,
    /// The idealized memory below the L1 or the L2, when one is configured (`ideal.memory`).
    pub ideal: IdealPipe,
    /// WG-M's network between the controllers (coordinated schedulers only).
    pub coord: Option<CoordNetwork>,
    pub launcher: CtaLauncher,
    pub events: EventSink,
    /// Request ids, and the requests created and retired (conservation: equal when the
    /// machine is drained).
    pub ledger: Ledger,
    dram_feed_rr: Vec<usize>,
    /// The DRAM scheduler groups warps: L2 slices forward warp-group tags to it.
    tags_groups: bool,
    pub watchdog: Watchdog,
    pub status: Status,
    leap_backoff: leap::Backoff,
}

impl Gpu {
    /// Builds the machine. Fails when a kernel's CTA cannot fit on an SM.
    pub fn new(config: Arc<Config>, workload: Arc<Workload>) -> Result<Gpu, String> {
        let c = &*config;
        let mut fits = Vec::with_capacity(workload.kernels.len());
        for (i, k) in workload.kernels.iter().enumerate() {
            if k.threads_per_cta() > c.core.max_threads || k.warps_per_cta() as usize > c.warps_per_sm() {
                return Err(format!(
                    "kernel {i} ({}): a CTA of {} threads does not fit on an SM (core.max_threads = {})",
                    k.name(),
                    k.threads_per_cta(),
                    c.core.max_threads
                ));
            }
            fits.push(occupancy::ctas_per_sm(c, k).map_err(|e| format!("kernel {i} ({}): {e}", k.name()))?);
        }
        let Some(first) = workload.kernels.first() else {
            return Err("the workload has no kernels".into());
        };
        let placeholder = first.placeholder_program();
        let slices = c.l2_slices();
        Ok(Gpu {
            map: AddressMap::new(c),
            cycle: 0,
            icnt_cycle: 0,
            dram_clock: ClockDomain::new(c.clocks.dram_mhz, c.clocks.core_mhz),
            icnt_clock: ClockDomain::new(c.clocks.icnt_mhz, c.clocks.core_mhz),
            sms: (0..c.core.count).map(|i| Sm::new(c, i as u16, placeholder.clone())).collect(),
            icnt: Crossbar::new(c),
            l2: (0..slices).map(|i| L2Slice::new(c, i as u16)).collect(),
            dram: (0..c.dram.channels).map(|i| Controller::new(c, i as u16).serving_slices(c)).collect(),
            ideal: IdealPipe::new(c),
            coord: c.dram.scheduler.coordinates().then(|| CoordNetwork::new(c)),
            launcher: CtaLauncher { fits: fits.into(), ..CtaLauncher::default() },
            events: EventSink::default(),
            ledger: Ledger::default(),
            dram_feed_rr: vec![0; c.dram.channels as usize],
            tags_groups: c.dram.scheduler.groups_warps(),
            watchdog: Watchdog::new(c.sim.watchdog_cycles),
            status: Status::Running,
            leap_backoff: leap::Backoff::default(),
            config,
            workload,
        })
    }

    /// The kernel currently running (the last one while draining after the end).
    pub fn kernel(&self) -> &Kernel {
        let k = self.launcher.kernel.min(self.workload.kernels.len() - 1);
        &self.workload.kernels[k]
    }

    pub fn is_running(&self) -> bool {
        self.status == Status::Running
    }

    /// A kernel is running or still to launch (the launcher has not passed the last one). An
    /// SM's cycle counts differently when none is (`Sm::step`), so every place that tells an
    /// SM asks this.
    fn kernel_active(&self) -> bool {
        self.launcher.kernel < self.workload.kernels.len()
    }

    /// Advances one core cycle, its statistics settled.
    pub fn step(&mut self) {
        self.advance();
        self.settle();
    }

    /// Counts the quiet SMs' cycles up to now into their statistics (a quiet stretch is
    /// counted in one go: `core::quiet`). [`Gpu::run`], [`Gpu::step`] and [`Gpu::leap`] end
    /// with it, so the statistics are complete whenever the machine is between them.
    fn settle(&mut self) {
        self.settle_through(self.cycle);
    }

    /// Counts the quiet SMs' cycles before `now`, with the kernel state as it is.
    fn settle_through(&mut self, now: u64) {
        let kernel_active = self.kernel_active();
        for sm in &mut self.sms {
            sm.settle(now, kernel_active);
        }
    }

    /// Advances one core cycle, leaving quiet SMs' cycles to be counted later.
    fn advance(&mut self) {
        let stamp = self.cycle;
        // Events carry the cycle count after the step they happen in: the machine state a
        // debugger stops at (and `goto` returns to) when it breaks on them.
        self.events.set_now(stamp + 1);
        match self.ideal.mode {
            IdealMemory::Real => {
                for _ in 0..self.dram_clock.advance() {
                    self.dram_tick(stamp);
                }
            }
            IdealMemory::InfiniteDram => self.ideal.serve_l2_misses(stamp, &mut self.l2, &mut self.ledger),
            IdealMemory::InfiniteBandwidth | IdealMemory::FixedLatency => {
                let acks = self.config.l2.write_acks;
                self.ideal.serve_l1_misses(stamp, acks, &mut self.sms, &mut self.l2, &mut self.ledger)
            }
        }
        if matches!(self.ideal.mode, IdealMemory::Real | IdealMemory::InfiniteDram) {
            for _ in 0..self.icnt_clock.advance() {
                self.icnt_tick(stamp);
                self.icnt_cycle += 1;
            }
        }
        let launched = self.launch_ctas();
        let kernel_idx = self.launcher.kernel.min(self.workload.kernels.len() - 1);
        let kernel_active = self.kernel_active();
        let mut env = SmEnv {
            kernel: &self.workload.kernels[kernel_idx],
            kernel_active,
            map: &self.map,
            quiet_heard: core::quiet::heard(&self.events),
            sink: &mut self.events,
            ledger: &mut self.ledger,
        };
        let mut finished = 0;
        let mut freed = false;
        for (i, sm) in self.sms.iter_mut().enumerate() {
            // Only a worked cycle can queue a request for the crossbar.
            if sm.step(stamp, &mut env) {
                finished += std::mem::take(&mut sm.exec.finished_ctas);
                freed |= std::mem::take(&mut sm.exec.slots_freed);
                // An empty queue has nothing to file; checking that first keeps the offer
                // off the hot path (callgrind: +6 % instructions on atax without it).
                if !sm.l1.miss_queue.is_empty() {
                    self.icnt.request.offer(i, sm.head());
                }
            }
        }
        if freed {
            self.launcher.saturated = false;
        }
        if launched || finished > 0 {
            self.report_core_warps();
        }
        self.finish_ctas(finished);
        self.cycle += 1;
        self.end_cycle();
    }

    /// After a cycle: the run is done when every kernel finished and the machine drained;
    /// the watchdog looks every `CHECK_EVERY` cycles.
    fn end_cycle(&mut self) {
        if !self.kernel_active() && self.drained() {
            debug_assert_eq!(self.ledger.in_flight(), 0, "request conservation");
            self.status = Status::Done;
        }
        if self.cycle.is_multiple_of(watchdog::CHECK_EVERY)
            && self.watchdog.stalled(self.progress(), self.cycle)
        {
            self.status = Status::Stuck(watchdog::diagnose(self));
        }
    }

    /// Runs until done, stuck, `max_cycles` core cycles (0 = no limit) or the instruction cap
    /// (`sim.max_instructions`), leaping over the cycles in which nothing can happen (`leap`;
    /// no instruction issues in them, so a leap never passes the cap).
    pub fn run(&mut self, max_cycles: u64) {
        self.drive(max_cycles, false);
    }

    /// Runs as [`Gpu::run`] does, and stops too at the end of the cycle in which a kernel
    /// ended (`launcher.kernel` moved on): where a run's driver takes its per-kernel counters.
    pub fn run_within_kernel(&mut self, max_cycles: u64) {
        self.drive(max_cycles, true);
    }

    fn drive(&mut self, max_cycles: u64, stop_at_kernel_end: bool) {
        let limit = if max_cycles == 0 { u64::MAX } else { max_cycles };
        let kernel = self.launcher.kernel;
        while self.may_continue(limit) && !(stop_at_kernel_end && self.launcher.kernel != kernel) {
            if self.leap_over(limit) == 0 {
                self.advance();
            }
        }
        self.settle();
    }

    /// Running, before cycle `limit` and below the instruction cap: what every loop that drives
    /// the machine a slice at a time asks (the DRAM trace writer's ran on past the cap).
    pub fn may_continue(&self, limit: u64) -> bool {
        self.is_running() && self.cycle < limit && !self.instruction_cap_reached()
    }

    /// The thread instructions issued so far have reached `sim.max_instructions` (never when it
    /// is 0). A run stops at the end of the first cycle in which this holds.
    pub fn instruction_cap_reached(&self) -> bool {
        let cap = self.config.sim.max_instructions;
        cap != 0 && self.sms.iter().map(|s| s.stats.thread_instructions).sum::<u64>() >= cap
    }

    fn dram_tick(&mut self, stamp: u64) {
        let spc = self.config.l2.slices_per_channel as usize;
        if let Some(net) = &mut self.coord {
            let (dram, events) = (&mut self.dram, &mut self.events);
            net.deliver(dram[0].now, |to, msg| dram[to].receive(msg, events));
        }
        for ch in 0..self.dram.len() {
            let mc = &mut self.dram[ch];
            if self.tags_groups {
                for s in ch * spc..(ch + 1) * spc {
                    while let Some((key, slice)) = self.l2[s].group_ends.pop_front() {
                        mc.group_end(key, slice);
                    }
                }
            }
            if mc.prefetch.is_some() {
                let room = self.l2[ch * spc..(ch + 1) * spc].iter().map(|s| s.prefetch_fills.free()).min();
                mc.set_prefetch_room(room.unwrap_or(0));
            }
            // The channel's slices from the one after the last served, round-robin (`rr + k`
            // wraps by one subtraction: rr < spc and k < spc).
            let rr = self.dram_feed_rr[ch];
            for k in 0..spc {
                let j = if rr + k >= spc { rr + k - spc } else { rr + k };
                let s = ch * spc + j;
                let Some(head) = self.l2[s].miss_queue.front() else {
                    continue;
                };
                if mc.takes_from_slice(head) {
                    let req = self.l2[s].miss_queue.pop().expect("head exists");
                    if self.events.records() {
                        self.events.pass(Point::DramArrive, ch as u16, s as u16, Who::of(&req));
                    }
                    mc.accept(req, stamp);
                    self.dram_feed_rr[ch] = if j + 1 == spc { 0 } else { j + 1 };
                    break;
                }
            }
            // Stores retire at the L2; the DRAM's writes are L2 write-backs, retired there.
            // Prefetches are created there and retire at the L2.
            mc.tick(stamp, &mut self.events, &mut self.ledger);
            while let Some(mut r) = mc.pop_completed() {
                r.trace.dram_done = stamp;
                if self.events.records() {
                    self.events.pass(Point::DramDone, ch as u16, 0, Who::of(&r));
                }
                let slice = &mut self.l2[ch * spc + r.loc.slice as usize];
                if r.kind == AccessKind::Prefetch {
                    slice.prefetch_fills.accept(r);
                } else {
                    slice.fills.push_back(r);
                }
            }
            if let Some(net) = &mut self.coord {
                while let Some(msg) = mc.pop_message() {
                    net.send(msg, mc.now);
                }
            }
        }
    }

    /// Tells the controllers how many warps each SM has assigned (α-SJF's tolerance; seed
    /// 001 §V-A: sent when it changes).
    fn report_core_warps(&mut self) {
        if !self.config.dram.scheduler.hears_core_warps() {
            return;
        }
        for sm in &self.sms {
            let warps = sm.assigned_warps();
            for mc in &mut self.dram {
                mc.core_warps(sm.id, warps);
            }
        }
    }

    fn icnt_tick(&mut self, stamp: u64) {
        let now = self.icnt_cycle;
        let spc = self.config.l2.slices_per_channel;
        let slice = move |r: &MemRequest| (r.loc.channel * spc + r.loc.slice) as u16;
        // Passes of the networks' grants and deliveries, when recording: the two closures of a
        // network step cannot share the sink, so each keeps its own until the step is over.
        let recording = self.events.records();
        let mut granted: Vec<(Point, u16, Who)> = Vec::new();
        let mut delivered: Vec<(Point, u16, Who)> = Vec::new();
        self.icnt.reply.step(
            now,
            &mut self.l2,
            &mut self.sms,
            |r| {
                r.trace.l2_out = stamp;
                if recording {
                    granted.push((Point::Reply, slice(r), Who::of(r)));
                }
            },
            |r| {
                if recording {
                    delivered.push((Point::SmArrive, r.origin.core, Who::of(r)));
                }
            },
        );
        for (i, slice) in self.l2.iter_mut().enumerate() {
            slice.step(now, stamp, &self.map, &mut self.ledger, &mut self.events);
            if !slice.response_queue.is_empty() {
                self.icnt.reply.offer(i, slice.head());
            }
        }
        self.icnt.request.step(
            now,
            &mut self.sms,
            &mut self.l2,
            |r| {
                r.trace.icnt_in = stamp;
                if recording {
                    granted.push((Point::Inject, r.origin.core, Who::of(r)));
                }
            },
            |r| {
                r.trace.l2_in = stamp;
                if recording {
                    delivered.push((Point::L2Arrive, slice(r), Who::of(r)));
                }
            },
        );
        if recording {
            for (point, unit, who) in granted.into_iter().chain(delivered) {
                self.events.pass(point, unit, 0, who);
            }
        }
    }

    /// Launches what fits; returns whether a CTA was launched.
    fn launch_ctas(&mut self) -> bool {
        let kernels = &self.workload.kernels;
        let l = &mut self.launcher;
        if l.kernel >= kernels.len() {
            return false;
        }
        let k = &kernels[l.kernel];
        if l.saturated || l.next_cta >= k.ctas() {
            return false;
        }
        if l.next_cta == 0 {
            if self.cycle < l.first_launch_at(&self.config, k) {
                return false;
            }
            let resident = occupancy::resident_ctas(&self.config, k, l.fits[l.kernel]);
            let shared = u64::from(k.shared_bytes_per_cta()) * resident;
            if let Some(ways) = self.config.l1_adaptive_ways(shared) {
                for sm in &mut self.sms {
                    sm.l1.use_ways(ways as usize);
                }
            }
        }
        let first = l.next_cta;
        let fit = l.fits[l.kernel];
        let n = self.sms.len();
        // One pass over the SMs from the one after the last served, as GPGPU-Sim's
        // issue_block2core; `rr` follows the CTAs placed but the pass does not restart from it
        // (it did, which skipped SMs: with room everywhere the CTAs went to SMs 0, 2, 5, 9,
        // 14, ..., and ATAX's 32 CTAs filled 13 of fermi-30sm's 30 SMs, up to four each).
        let start = l.rr;
        for i in 0..n {
            if l.next_cta >= k.ctas() {
                break;
            }
            let s = (start + i) % n;
            if self.sms[s].can_launch(k.warps_per_cta(), fit) {
                let programs = match k.cta_programs(l.next_cta) {
                    Ok(p) => p,
                    Err(e) => {
                        self.status = Status::Stuck(format!("cannot launch CTA {}: {e}", l.next_cta));
                        return false;
                    }
                };
                self.sms[s].launch(self.cycle, l.kernel, k, l.next_cta, fit, programs, &mut self.events);
                l.next_cta += 1;
                l.rr = (s + 1) % n;
            }
        }
        l.saturated = l.next_cta < k.ctas() && !self.sms.iter().any(|s| s.can_launch(k.warps_per_cta(), fit));
        l.next_cta > first
    }

    fn finish_ctas(&mut self, finished: u32) {
        self.launcher.done_ctas += finished;
        if self.kernel_active() && self.launcher.done_ctas == self.kernel().ctas() {
            // Whether a kernel is active decides how a quiet cycle counts: the quiet SMs'
            // cycles so far, this one included, count with the kernel that ends (still the
            // launcher's current one).
            self.settle_through(self.cycle + 1);
            let l = &mut self.launcher;
            if self.events.wants(EventKind::KernelEnd) {
                self.events.emit(Event::KernelEnd { kernel: l.kernel as u16 });
            }
            l.kernel += 1;
            l.next_cta = 0;
            l.done_ctas = 0;
            l.saturated = false;
            l.kernel_start = self.cycle + 1;
        }
    }

    /// No request anywhere and no warp resident.
    pub fn drained(&self) -> bool {
        self.ledger.in_flight() == 0
            && self.sms.iter().all(|s| s.is_idle())
            && self.icnt.request.in_flight() == 0
            && self.icnt.reply.in_flight() == 0
            && self.l2.iter().all(|s| s.occupancy() == 0)
            && self.dram.iter().all(|d| d.is_idle())
            && self.ideal.in_flight() == 0
    }

    /// A counter that grows whenever anything moves (instructions, returns, DRAM commands).
    pub fn progress(&self) -> u64 {
        self.ledger.retired()
            + self.ledger.created()
            + self.sms.iter().map(|s| s.stats.instructions).sum::<u64>()
            + self.dram.iter().map(|d| d.stats.commands.iter().sum::<u64>()).sum::<u64>()
            + self.ideal.requests
    }

    /// Requests currently inside the memory system, counted queue by queue (equals
    /// `created − retired`; the conservation test checks it).
    pub fn requests_in_flight(&self) -> usize {
        self.sms.iter().map(|s| s.requests_held()).sum::<usize>()
            + self.icnt.request.in_flight()
            + self.icnt.reply.in_flight()
            + self.l2.iter().map(|s| s.occupancy()).sum::<usize>()
            + self.dram.iter().map(|d| d.occupancy()).sum::<usize>()
            + self.ideal.in_flight()
    }

    /// Gives a machine read from a checkpoint the config and workload it ran (which a
    /// checkpoint leaves out, keeping their digests) and the warps' programs what they share
    /// with the workload.
    pub fn reattach(&mut self, config: Arc<Config>, workload: Arc<Workload>) -> Result<(), String> {
        for sm in &mut self.sms {
            for w in &mut sm.exec.warps {
                w.program.reattach(&workload)?;
            }
        }
        (self.config, self.workload) = (config, workload);
        Ok(())
    }

    /// A hash of the whole machine state (for time-travel and determinism checks).
    pub fn state_hash(&self) -> u64 {
        use std::fmt::Write;
        use std::hash::Hasher;
        struct H(std::collections::hash_map::DefaultHasher);
        impl Write for H {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                self.0.write(s.as_bytes());
                Ok(())
            }
        }
        let mut h = H(std::collections::hash_map::DefaultHasher::new());
        let _ = write!(
            h,
            "{:?}",
            (
                &self.sms,
                &self.icnt,
                &self.l2,
                &self.dram,
                &self.ideal,
                &self.launcher,
                self.cycle,
                self.ledger.next_id()
            )
        );
        h.0.finish()
    }
}

/// The request network takes from the SM's L1 miss queue.
impl Injector for Sm {
    fn head(&self) -> Option<(usize, u32)> {
        self.l1.miss_queue.front().map(|r| (self.slice_of(r), r.request_packet_bytes(self.header_bytes)))
    }
    fn pop(&mut self) -> MemRequest {
        self.poke();
        self.l1.miss_queue.pop().expect("head exists")
    }
}

/// The reply network delivers into the SM's reply queue.
impl Ejector for Sm {
    fn room(&self) -> usize {
        self.reply_queue.free()
    }
    fn accept(&mut self, req: MemRequest) {
        self.poke();
        self.reply_queue.accept(req);
    }
}
