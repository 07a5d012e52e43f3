//! Leaping over cycles in which no unit of the machine can act (issue 16).
//!
//! When every SM is in a quiet stretch (`core::quiet`), no crossbar input has a packet to
//! send, no L2 slice has an access, fill or prefetched line to take, no memory controller can
//! issue a command, refresh or complete a read, nothing waits to enter a controller that has
//! room for it (from an L2 slice, or out of its `dram.frontend_latency` wait), and no CTA can
//! be launched (a kernel's launch latency ends at a known cycle), then the cycles until the first of those things
//! can happen change nothing but counters and clocks. [`Gpu::leap`] passes them in one go:
//! each SM's quiet stretch goes on (it is counted when it ends), each controller counts its
//! idle DRAM cycles, each crossbar network turns its round-robin pointer, and the clock
//! domains advance by their edges. The result is the same, counter for counter, as stepping
//! through them (`sim.no_skip` steps; `tests/idle_skipping.rs` compares).
//!
//! Conservative on purpose: idealized memories, WG-M's coordination network with messages on
//! the way, warp-group tags on their way to a controller, and listened-to events of quiet
//! cycles all make a cycle count as busy.

use super::core::quiet;
use super::watchdog::CHECK_EVERY;
use super::{Gpu, Status};
use crate::config::IdealMemory;

impl Gpu {
    /// Core cycles from now, ending no later than cycle `limit`, in which no unit can act.
    fn quiet_cycles(&self, limit: u64) -> u64 {
        let now = self.cycle;
        // The watchdog looks at every multiple of CHECK_EVERY: stop there.
        let mut m = limit.min(now - now % CHECK_EVERY + CHECK_EVERY).saturating_sub(now);
        if m == 0
            || self.config.sim.no_skip
            || self.status != Status::Running
            || self.ideal.mode != IdealMemory::Real
            || quiet::heard(&self.events)
        {
            return 0;
        }
        m = m.min(self.launcher_quiet_cycles());
        for mc in &self.dram {
            // A request waiting out `dram.frontend_latency` enters the queue on the first DRAM
            // tick of a cycle at or after its time (`Controller::next_entry`).
            m = m.min(mc.next_entry(now).saturating_sub(now));
        }
        if m == 0 {
            return 0;
        }
        // Cheapest and most often busy first: the controllers, then the SMs, then the crossbar.
        let dram = self.dram_quiet_ticks();
        if dram == 0 {
            return 0;
        }
        m = m.min(self.dram_clock.cycles_within(dram));
        for sm in &self.sms {
            match sm.quiet {
                Some(q) if q.until > now => m = m.min(q.until - now),
                _ => return 0,
            }
        }
        let icnt = self.icnt_quiet_ticks();
        if icnt == 0 {
            return 0;
        }
        m.min(self.icnt_clock.cycles_within(icnt))
    }

    /// Cycles from now in which the CTA launcher cannot act: 0 when a CTA could be launched
    /// or the last kernel is done and the machine drained (the next step says so); until the
    /// kernel's launch latency has passed when it waits for that; unbounded when only an SM
    /// (freeing slots, finishing CTAs) can change that.
    fn launcher_quiet_cycles(&self) -> u64 {
        let (l, kernels) = (&self.launcher, &self.workload.kernels);
        match kernels.get(l.kernel) {
            Some(k) if l.saturated || l.next_cta >= k.ctas() => u64::MAX,
            Some(k) if l.next_cta == 0 => l.first_launch_at(&self.config, k).saturating_sub(self.cycle),
            Some(_) => 0,
            None if self.drained() => 0,
            None => u64::MAX,
        }
    }

    /// Interconnect/L2 cycles in which the crossbar and every L2 slice would only count.
    fn icnt_quiet_ticks(&self) -> u64 {
        let now = self.icnt_cycle;
        let mut k = self.icnt.request.quiet_ticks(now, &self.sms);
        k = k.min(self.icnt.reply.quiet_ticks(now, &self.l2));
        for slice in &self.l2 {
            k = k.min(slice.quiet_ticks(now));
        }
        k
    }

    /// DRAM cycles in which every controller would only count, and nothing would enter one.
    fn dram_quiet_ticks(&self) -> u64 {
        if self.coord.as_ref().is_some_and(|net| net.in_flight() > 0)
            || self.tags_groups && self.l2.iter().any(|s| !s.group_ends.is_empty())
        {
            return 0;
        }
        let spc = self.config.l2.slices_per_channel as usize;
        let mut k = u64::MAX;
        for (ch, mc) in self.dram.iter().enumerate() {
            let fed = self.l2[ch * spc..(ch + 1) * spc]
                .iter()
                .any(|s| s.miss_queue.front().is_some_and(|h| mc.takes_from_slice(h)));
            if fed {
                return 0;
            }
            // A read completes in the tick after which the controller's clock reaches it.
            let completion = mc.next_completion().map_or(u64::MAX, |done| done.saturating_sub(1));
            k = k.min(mc.next_activity().min(completion).saturating_sub(mc.now));
            if k == 0 {
                return 0;
            }
        }
        k
    }

    /// Leaps over the cycles, up to cycle `limit`, in which no unit can act; returns how many.
    /// Nothing happens in them but counting, so the machine lands where stepping would.
    pub fn leap(&mut self, limit: u64) -> u64 {
        let m = self.leap_over(limit);
        if m > 0 {
            self.settle();
        }
        m
    }

    /// [`Gpu::leap`], leaving the SMs' quiet cycles to be counted later: every SM is quiet
    /// through the leap, so each one's stretch just goes on.
    pub(super) fn leap_over(&mut self, limit: u64) -> u64 {
        if self.cycle < self.leap_backoff.next_try {
            return 0;
        }
        let m = self.quiet_cycles(limit);
        self.leap_backoff.tried(self.cycle, m > 0);
        if m == 0 {
            return 0;
        }
        let icnt = self.icnt_clock.advance_by(m);
        self.icnt.request.pass_quiet(icnt);
        self.icnt.reply.pass_quiet(icnt);
        self.icnt_cycle += icnt;
        let dram = self.dram_clock.advance_by(m);
        for mc in &mut self.dram {
            mc.skip_to(mc.now + dram);
        }
        self.cycle += m;
        self.end_cycle();
        m
    }
}

/// How often to look for a leap: on a busy machine the look itself costs, so after each look
/// that finds no quiet cycle the next waits twice as long, up to `MAX_WAIT` cycles; a leap
/// resets it. Looking less often only leaps less: what the machine does is the same.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Backoff {
    next_try: u64,
    wait: u64,
}

const MAX_WAIT: u64 = 16;

impl Backoff {
    fn tried(&mut self, now: u64, leaped: bool) {
        self.wait = if leaped { 0 } else { (self.wait * 2).clamp(1, MAX_WAIT) };
        self.next_try = now + self.wait;
    }
}
