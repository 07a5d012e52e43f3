//! Events: the debugger's eyes. Components report anything a user may want to break on; the
//! sink keeps only the kinds someone subscribed to, so a headless run without listeners pays
//! one bit test per emission site.

use super::core::StallReason;
use super::dram::command::Command;

/// Something that happened at a cycle.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A load needs more new MSHR entries than are free: the LD/ST unit will replay it and
    /// block every other memory instruction (seed 004 §1.3, §5.2).
    MemoryOcclusion { core: u16, warp: u16, pc: u32, needed: u16, free: u16 },
    /// An L1 miss found no free MSHR.
    MshrFull { core: u16, warp: u16, pc: u32, line: u64 },
    /// A DRAM request opened a row: bank closed (miss) or another row open (conflict).
    RowMiss { channel: u16, bank: u8, row: u32, conflict: bool },
    /// The controller switched to draining writes.
    WriteDrainStart { channel: u16, writes: u16, reads: u16 },
    /// The controller went back to reads.
    WriteDrainEnd { channel: u16, writes: u16 },
    /// A DRAM command issued (`dram_cycle` is in the channel's clock).
    DramCommand { channel: u16, dram_cycle: u64, cmd: Command },
    /// Every request of a warp's load has returned.
    LoadDone { core: u16, warp: u16, pc: u32, requests: u8, issued: u64, first: u64, last: u64 },
    /// A warp could not issue this cycle.
    WarpStall { core: u16, warp: u16, reason: StallReason },
    /// A CTA was placed on an SM.
    CtaLaunch { core: u16, cta: u32 },
    /// A CTA's warps have all exited.
    CtaDone { core: u16, cta: u32 },
    /// The last CTA of a kernel finished.
    KernelEnd { kernel: u16 },
}

/// The kind of an event, one bit of a subscription mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EventKind {
    MemoryOcclusion,
    MshrFull,
    RowMiss,
    WriteDrainStart,
    WriteDrainEnd,
    DramCommand,
    LoadDone,
    WarpStall,
    CtaLaunch,
    CtaDone,
    KernelEnd,
}

impl EventKind {
    pub const ALL: &'static [EventKind] = &[
        EventKind::MemoryOcclusion,
        EventKind::MshrFull,
        EventKind::RowMiss,
        EventKind::WriteDrainStart,
        EventKind::WriteDrainEnd,
        EventKind::DramCommand,
        EventKind::LoadDone,
        EventKind::WarpStall,
        EventKind::CtaLaunch,
        EventKind::CtaDone,
        EventKind::KernelEnd,
    ];

    pub fn bit(self) -> u64 {
        1 << (self as u8)
    }
}

impl Event {
    pub fn kind(&self) -> EventKind {
        match self {
            Event::MemoryOcclusion { .. } => EventKind::MemoryOcclusion,
            Event::MshrFull { .. } => EventKind::MshrFull,
            Event::RowMiss { .. } => EventKind::RowMiss,
            Event::WriteDrainStart { .. } => EventKind::WriteDrainStart,
            Event::WriteDrainEnd { .. } => EventKind::WriteDrainEnd,
            Event::DramCommand { .. } => EventKind::DramCommand,
            Event::LoadDone { .. } => EventKind::LoadDone,
            Event::WarpStall { .. } => EventKind::WarpStall,
            Event::CtaLaunch { .. } => EventKind::CtaLaunch,
            Event::CtaDone { .. } => EventKind::CtaDone,
            Event::KernelEnd { .. } => EventKind::KernelEnd,
        }
    }
}

/// Collects the subscribed events of the current step. The owner drains it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventSink {
    mask: u64,
    now: u64,
    events: Vec<(u64, Event)>,
}

impl EventSink {
    /// Subscribes to (or unsubscribes from) a kind.
    pub fn set(&mut self, kind: EventKind, on: bool) {
        if on {
            self.mask |= kind.bit();
        } else {
            self.mask &= !kind.bit();
        }
    }

    /// Replaces the subscription mask.
    pub fn set_mask(&mut self, mask: u64) {
        self.mask = mask;
    }

    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Whether anyone listens for `kind`. Emission sites test this before building an event.
    #[inline(always)]
    pub fn wants(&self, kind: EventKind) -> bool {
        self.mask & kind.bit() != 0
    }

    /// Sets the core cycle stamped on events.
    #[inline]
    pub fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    /// Records an event (callers check [`EventSink::wants`] first).
    pub fn emit(&mut self, e: Event) {
        debug_assert!(self.wants(e.kind()));
        self.events.push((self.now, e));
    }

    /// The events collected since the last drain.
    pub fn events(&self) -> &[(u64, Event)] {
        &self.events
    }

    /// Removes and returns the collected events.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (u64, Event)> {
        self.events.drain(..)
    }

    pub fn clear(&mut self) {
        self.events.clear();
    }
}
