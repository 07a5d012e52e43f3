//! DRAM schedulers behind one trait (MECHANISMS §2–4).
//!
//! Each cycle the controller asks its scheduler which pending request should get a command;
//! the controller derives the command (PRE, ACT or the column command) from the bank's open
//! row, and the scheduler must only name a request whose next command is ready now
//! ([`SchedCtx::ready`]). Schedulers may keep their own structures (row sorters, warp sorters,
//! per-bank command queues) keyed by slot and updated through the `on_*` hooks.
//!
//! **Skipping idle cycles.** When `select` returns nothing the controller does not call it
//! again until [`DramScheduler::wake_at`] (by default: the first cycle some pending request's
//! next command can be ready), or until something changes (an arrival, a drain-mode switch,
//! a forwarded tag, a coordination message, a command; after a command or an arrival the
//! scheduler may bound its next choice: [`DramScheduler::wake_after_issue`],
//! [`DramScheduler::wake_after_arrival`]). A scheduler whose decisions depend on
//! time passing alone (ageing, timeouts, a transaction scheduler that moves one request per
//! cycle) must say so through `wake_at`, so that skipping stays exact: results are the same as
//! calling `select` every cycle.
//!
//! Adding a scheduler touches three files: its own, implementing [`DramScheduler`] (or, for a
//! warp-aware policy, [`warp_groups::WarpGroupPolicy`], wrapped in [`WarpAware`]); this one,
//! with its `mod` and `pub use` lines, one variant of [`DramSchedulerKind`] and one arm of
//! [`DramSchedulerKind::new`]; and its row in `config::names::DramSchedulerName`, marked with
//! what it needs of the machine (`[groups_warps]`, `[coordinates]`, `[hears_core_warps]`, which
//! `Gpu`, the SMs and the config checks read). Its parameters, if it has any, are a section of
//! `DramConfig` in `config/mod.rs` (field, struct and default) with their checks in
//! `config/validate.rs`; its name goes in docs/machines.md's table of policies. No test lists
//! them all.

mod alpha_sjf;
pub mod early;
mod fcfs;
mod frfcfs;
mod gmc;
mod gpgpusim_frfcfs;
pub mod row_sorter;
#[cfg(test)]
mod testkit;
mod wafcfs;
pub mod warp_groups;
mod wg;
mod wg_bw;
mod wg_m;
mod wg_w;

pub use alpha_sjf::{AlphaSjf, k_threshold};
pub use fcfs::Fcfs;
pub use frfcfs::FrFcfs;
pub use gmc::Gmc;
pub use gpgpusim_frfcfs::GpgpusimFrFcfs;
pub use wafcfs::Wafcfs;
pub use warp_groups::{GroupKey, WarpAware, WarpGroup, WarpGroupPolicy, WarpSorter};
pub use wg::Wg;
pub use wg_bw::WgBw;
pub use wg_m::WgM;
pub use wg_w::WgW;

use super::bank::Device;
use super::cmd_queue::CommandQueues;
use super::command::Command;
use super::coord::CoordMessage;
use super::merb::MerbTable;
use super::queues::{Listed, Pending, Queues, Slot};
use crate::config::{Config, DramSchedulerName};
use crate::sim::event::EventSink;
use crate::sim::stats::counters;
use enum_dispatch::enum_dispatch;

/// What a scheduler sees when choosing.
pub struct SchedCtx<'a> {
    pub queues: &'a Queues,
    pub device: &'a Device,
    /// DRAM cycle.
    pub now: u64,
    /// The controller is draining writes: choose among writes, not reads.
    pub draining: bool,
    pub channel: u16,
    /// The write queue's high watermark (WG-W watches the distance to it).
    pub write_high: usize,
}

impl SchedCtx<'_> {
    /// Per-bank lists of the direction being served.
    #[inline]
    pub fn lists(&self) -> &[Vec<Listed>] {
        self.queues.lists(self.draining)
    }

    /// The command the request needs next.
    #[inline]
    pub fn next_command(&self, slot: Slot) -> Command {
        let p = self.queues.get(slot);
        self.queues.next_command(slot, self.device.banks[p.bank as usize].open_row)
    }

    /// Whether the request's next command can issue now.
    #[inline]
    pub fn ready(&self, slot: Slot) -> bool {
        let cmd = self.next_command(slot);
        self.device.earliest(cmd.kind, cmd.bank as usize) <= self.now
    }
}

/// How reads and writes share the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WritePolicy {
    /// Writes drain in batches: from above the high watermark down to the low one, or while
    /// no read is pending (seed 000 §II-C).
    Watermarks,
    /// Writes only while no read is pending (α-SJF, seed 001 §V) — or, once the write queue
    /// is full, down to the low watermark: a full write queue would block the L2's write-backs
    /// and the reads queued behind them.
    AfterReads,
    /// No drain mode: the scheduler sees reads and writes together (α-SJFW).
    Mixed,
}

/// Why a controller started draining writes (the `cause` of a `write-drain-start` event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DrainCause {
    /// More writes queued than the high watermark (seed 000 §II-C).
    HighWatermark,
    /// No read was pending, so writes could go without delaying one.
    NoReads,
    /// The write queue was full while reads were pending (`AfterReads`).
    QueueFull,
}

impl DrainCause {
    /// The name breakpoint conditions compare against (`cause == high-watermark`).
    pub fn name(self) -> &'static str {
        match self {
            DrainCause::HighWatermark => "high-watermark",
            DrainCause::NoReads => "no-reads",
            DrainCause::QueueFull => "queue-full",
        }
    }
}

counters! {
    /// What the schedulers count (all zero for a scheduler without the mechanism).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
    pub struct SchedulerStats {
        /// Warp-groups placed in the command queues.
        pub groups_scheduled: u64,
        /// ...of which went incomplete: after `incomplete_timeout`, or because no complete group
        /// could go and their banks had room (`dram.warp_aware.incomplete`).
        pub groups_timed_out: u64,
        pub groups_forced: u64,
        /// Row misses postponed by MERB, and the other groups' hits served ahead of them.
        pub merb_postponements: u64,
        pub merb_hits_moved: u64,
        /// Hits served because only one or two would have been left behind (orphan control).
        pub orphans_moved: u64,
        /// WG-W: single-request groups chosen ahead of the lowest score near a write drain.
        pub single_request_first: u64,
        /// WG-M coordination messages sent, received, and applied (a local score lowered).
        pub coord_sent: u64,
        pub coord_received: u64,
        pub coord_applied: u64,
        /// GMC: requests placed because they had waited past the age threshold.
        pub aged: u64,
        /// α-SJF: commands issued on a choice between the shortest hit queue Hs and the
        /// shortest missing queue Ms; of them, those with len(Hs) > m · len(Ms) (where some
        /// α < 1 picks Ms), and those for which Ms was picked (seed 001 §IV).
        pub sjf_contests: u64,
        pub sjf_contests_above_m: u64,
        pub sjf_misses_chosen: u64,
        /// α-SJF: commands issued for a row miss of the least tolerant core while another
        /// core had a hit to the bank's open row (seed 001 §III's core selection passing over
        /// it; each is a PRE that closes the row those hits wanted).
        pub sjf_hits_passed_over: u64,
    }
}

/// A DRAM scheduling policy.
#[enum_dispatch]
pub trait DramScheduler {
    /// A request entered the queues.
    fn on_arrival(&mut self, _slot: Slot, _queues: &Queues) {}
    /// Right after `slot` arrived (`ctx` shows the queues with it): the first DRAM cycle at
    /// which the arrival can change what `select` chooses; `None`: at once. Until then the
    /// controller keeps the wake-up it had.
    fn wake_after_arrival(&self, _ctx: &SchedCtx<'_>, _slot: Slot) -> Option<u64> {
        None
    }
    /// Chooses the request whose next command issues this cycle.
    fn select(&mut self, ctx: &SchedCtx<'_>, sink: &mut EventSink) -> Option<Slot>;
    /// Right after this cycle's first command issued (`ctx` shows the state after it): a
    /// second command for this cycle, if the scheduler issues one. By default one of the
    /// other kind on a channel with separate row and column buses (`dram.dual_bus`;
    /// GPGPU-Sim's `dram_t::cycle` with `dual_bus_interface`): the bus just used is busy until
    /// the next cycle, so only those are ready.
    fn second_command(&mut self, ctx: &SchedCtx<'_>, sink: &mut EventSink) -> Option<Slot> {
        if ctx.device.dual_bus { self.select(ctx, sink) } else { None }
    }
    /// Whether the queue has a place for a request of this direction.
    fn has_room(&self, queues: &Queues, is_write: bool) -> bool {
        queues.has_room(is_write)
    }
    /// How many requests the scheduler may take out of the queues' count while they are
    /// still served from them (GPGPU-Sim's per-bank request): the queues keep that many
    /// places more.
    fn beyond_queue(&self) -> usize {
        0
    }
    /// A command issued for `slot` (before a finished request is removed).
    fn on_issue(&mut self, _slot: Slot, _cmd: &Command, _queues: &Queues) {}
    /// A request finished its last column command and left the queues.
    fn on_retire(&mut self, _slot: Slot, _p: &Pending) {}
    /// Refresh closed banks (no request was involved).
    fn on_refresh(&mut self) {}
    /// The first DRAM cycle `select` may choose something if nothing but time changes
    /// (see the module doc); `None`: when some pending request's next command is ready.
    fn wake_at(&self, _ctx: &SchedCtx<'_>) -> Option<u64> {
        None
    }
    /// Right after `cmd` issued for this cycle's choice (`ctx` shows the state after it): the
    /// first DRAM cycle `select` may choose again if nothing but time changes; `None`: it may
    /// at once (the next cycle).
    fn wake_after_issue(&self, _ctx: &SchedCtx<'_>, _cmd: &Command) -> Option<u64> {
        None
    }
    /// How this scheduler wants reads and writes to share the channel.
    fn write_policy(&self) -> WritePolicy {
        WritePolicy::Watermarks
    }
    /// The L2 slice `slice` of this channel satisfied the tagged last request of a warp-group.
    fn on_group_end(&mut self, _key: GroupKey, _slice: u8, _now: u64) {}
    /// A coordination message from another controller arrived (WG-M).
    fn on_remote(&mut self, _msg: &CoordMessage, _ctx: &SchedCtx<'_>, _sink: &mut EventSink) {}
    /// The next coordination message to broadcast (WG-M).
    fn pop_message(&mut self) -> Option<CoordMessage> {
        None
    }
    /// Core `core` now has `warps` warps assigned (α-SJF's tolerance).
    fn on_core_warps(&mut self, _core: u16, _warps: u16) {}
    /// Counters of the scheduler's mechanisms.
    fn stats(&self) -> SchedulerStats {
        SchedulerStats::default()
    }
    /// The per-bank command queues, for schedulers that have them (views).
    fn command_queues(&self) -> Option<&CommandQueues> {
        None
    }
    /// The warp sorter with the groups' scores, for warp-aware schedulers (views).
    fn warp_sorter(&self) -> Option<&WarpSorter> {
        None
    }
    /// The MERB table, for WG-Bw and WG-W (views: compare with `CommandQueues::row_bursts`).
    fn merb_table(&self) -> Option<&MerbTable> {
        None
    }
    /// Per bank, the request it holds, for a scheduler that gives each bank one request at a
    /// time (GPGPU-Sim's `bank_t::mrq`; views).
    fn held(&self) -> Option<&[Option<Slot>]> {
        None
    }
}

impl<P: WarpGroupPolicy> DramScheduler for WarpAware<P> {
    fn on_arrival(&mut self, slot: Slot, queues: &Queues) {
        WarpAware::on_arrival(self, slot, queues);
    }
    fn select(&mut self, ctx: &SchedCtx<'_>, sink: &mut EventSink) -> Option<Slot> {
        WarpAware::select(self, ctx, sink)
    }
    fn on_issue(&mut self, _: Slot, _: &Command, _: &Queues) {
        self.on_changed();
    }
    fn on_retire(&mut self, slot: Slot, p: &Pending) {
        WarpAware::on_retire(self, slot, p.bank as usize);
    }
    fn on_refresh(&mut self) {
        self.on_changed();
    }
    fn wake_at(&self, ctx: &SchedCtx<'_>) -> Option<u64> {
        Some(WarpAware::wake_at(self, ctx))
    }
    fn on_group_end(&mut self, key: GroupKey, slice: u8, now: u64) {
        WarpAware::on_group_end(self, key, slice, now);
    }
    fn on_remote(&mut self, msg: &CoordMessage, ctx: &SchedCtx<'_>, sink: &mut EventSink) {
        WarpAware::on_remote(self, msg, ctx, sink);
    }
    fn pop_message(&mut self) -> Option<CoordMessage> {
        self.outbox.pop_front()
    }
    fn stats(&self) -> SchedulerStats {
        SchedulerStats { aged: self.rows.aged, ..self.stats }
    }
    fn command_queues(&self) -> Option<&CommandQueues> {
        Some(&self.cmdq)
    }
    fn warp_sorter(&self) -> Option<&WarpSorter> {
        Some(&self.sorter)
    }
    fn merb_table(&self) -> Option<&MerbTable> {
        self.merb.as_ref()
    }
}

/// The configured scheduler (enum dispatch keeps controller state plain, cloneable data, and
/// forwards every method of [`DramScheduler`] to the policy: none can be forgotten).
#[enum_dispatch(DramScheduler)]
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum DramSchedulerKind {
    Fcfs,
    FrFcfs,
    Gmc(Gmc),
    GpgpusimFrFcfs,
    Wg(WarpAware<Wg>),
    WgM(WarpAware<WgM>),
    WgBw(WarpAware<WgBw>),
    WgW(WarpAware<WgW>),
    Wafcfs(WarpAware<Wafcfs>),
    AlphaSjf(AlphaSjf),
}

impl DramSchedulerKind {
    pub fn new(c: &Config) -> DramSchedulerKind {
        match c.dram.scheduler {
            DramSchedulerName::Fcfs => Fcfs.into(),
            DramSchedulerName::FrFcfs => FrFcfs::new(c.dram.banks as usize, None).into(),
            DramSchedulerName::FrFcfsCap => {
                FrFcfs::new(c.dram.banks as usize, Some(c.dram.row_hit_cap)).into()
            }
            DramSchedulerName::Gmc => Gmc::new(c).into(),
            DramSchedulerName::GpgpusimFrFcfs => GpgpusimFrFcfs::new(c.dram.banks as usize).into(),
            DramSchedulerName::Wg => WarpAware::<Wg>::new(c).into(),
            DramSchedulerName::WgM => WarpAware::<WgM>::new(c).into(),
            DramSchedulerName::WgBw => WarpAware::<WgBw>::new(c).into(),
            DramSchedulerName::WgW => WarpAware::<WgW>::new(c).into(),
            DramSchedulerName::Wafcfs => WarpAware::<Wafcfs>::new(c).into(),
            DramSchedulerName::AlphaSjf => AlphaSjf::new(c, false).into(),
            DramSchedulerName::AlphaSjfW => AlphaSjf::new(c, true).into(),
        }
    }
}
