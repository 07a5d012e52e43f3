//! DRAM schedulers behind one trait (MECHANISMS §2–4).
//!
//! Each cycle the controller asks its scheduler which pending request should get a command;
//! the controller derives the command (PRE, ACT or the column command) from the bank's open
//! row, and the scheduler must only name a request whose next command is ready now
//! ([`SchedCtx::ready`]). Schedulers may keep their own structures (row sorters, warp sorters,
//! per-bank command queues) keyed by slot and updated through the `on_*` hooks.
//!
//! Adding a scheduler: one file implementing [`DramScheduler`], one variant in
//! [`DramSchedulerKind`], one name in `config::names::DramSchedulerName`.

mod fcfs;
mod frfcfs;

pub use fcfs::Fcfs;
pub use frfcfs::FrFcfs;

use super::bank::Device;
use super::command::Command;
use super::queues::{Listed, Queues, Slot};
use crate::config::{Config, DramSchedulerName};
use enum_dispatch::enum_dispatch;

/// What a scheduler sees when choosing.
pub struct SchedCtx<'a> {
    pub queues: &'a Queues,
    pub device: &'a Device,
    /// DRAM cycle.
    pub now: u64,
    /// The controller is draining writes: choose among writes, not reads.
    pub draining: bool,
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

/// A DRAM scheduling policy.
#[enum_dispatch]
pub trait DramScheduler {
    /// A request entered the queues.
    fn on_arrival(&mut self, _slot: Slot, _queues: &Queues) {}
    /// Chooses the request whose next command issues this cycle.
    fn select(&mut self, ctx: &SchedCtx<'_>) -> Option<Slot>;
    /// A command issued for `slot` (before a finished request is removed).
    fn on_issue(&mut self, _slot: Slot, _cmd: &Command, _queues: &Queues) {}
}

/// The configured scheduler (enum dispatch keeps controller state plain, cloneable data).
#[enum_dispatch(DramScheduler)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DramSchedulerKind {
    Fcfs,
    FrFcfs,
}

impl DramSchedulerKind {
    pub fn new(c: &Config) -> DramSchedulerKind {
        match c.dram.scheduler {
            DramSchedulerName::Fcfs => Fcfs.into(),
            DramSchedulerName::FrFcfs => FrFcfs.into(),
        }
    }
}
