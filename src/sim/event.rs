//! Events: the debugger's eyes. Components report anything a user may want to break on; the
//! sink keeps only the kinds someone subscribed to, so a headless run without listeners pays
//! one bit test per emission site.

use super::core::StallReason;
use super::dram::command::Command;
use super::dram::sched::DrainCause;
use super::dram::sched::warp_groups::Early;

/// A field value of an event, for breakpoint filters and conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValue {
    Int(i64),
    Name(&'static str),
}

/// Something that happened at a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A load needs more new MSHR entries than are free: the LD/ST unit will replay it and
    /// block every other memory instruction (seed 004 §1.3, §5.2).
    MemoryOcclusion { core: u16, warp: u16, pc: u32, needed: u16, free: u16 },
    /// An L1 miss found no free MSHR.
    MshrFull { core: u16, warp: u16, pc: u32, line: u64 },
    /// A DRAM request opened a row: bank closed (miss) or another row open (conflict).
    RowMiss { channel: u16, bank: u8, row: u32, conflict: bool },
    /// The controller switched to draining writes, and why.
    WriteDrainStart { channel: u16, writes: u16, reads: u16, cause: DrainCause },
    /// The controller went back to reads.
    WriteDrainEnd { channel: u16, writes: u16 },
    /// A DRAM command issued (`dram_cycle` is in the channel's clock).
    DramCommand { channel: u16, dram_cycle: u64, cmd: Command },
    /// A warp-aware transaction scheduler placed a warp-group in the command queues
    /// (seed 000 §IV): its SM, warp and load, score, requests and row hits; `early` says why
    /// it went before its tags completed it, if it did.
    WarpGroupScheduled {
        channel: u16,
        sm: u16,
        warp: u16,
        load_seq: u32,
        score: u32,
        requests: u16,
        row_hits: u16,
        early: Early,
    },
    /// WG-M: a message from controller `from` lowered the local score of a group of ⟨sm, warp⟩
    /// from `local` to `remote`.
    RemoteScore { channel: u16, from: u16, sm: u16, warp: u16, local: u32, remote: u32 },
    /// WG-Bw: a row miss on `bank` was postponed; `hits` other hits to `row` go first because
    /// the bank's burst counter (`counter`) is below MERB (`merb`).
    MerbPostpone { channel: u16, bank: u8, row: u32, counter: u32, merb: u32, hits: u16 },
    /// Opportunistic prefetching read `line` of the open `row` of `bank` into the L2.
    Prefetch { channel: u16, bank: u8, row: u32, line: u32 },
    /// Every request of a warp's load has returned.
    LoadDone { core: u16, warp: u16, pc: u32, requests: u8, issued: u64, first: u64, last: u64 },
    /// A warp's state at the issue stage changed (emitted on change, exact for every resident
    /// warp: `Issued`, `NotSelected`, or why it could not issue).
    WarpStall { core: u16, warp: u16, reason: StallReason },
    /// A two-level / OWL scheduler started issuing from another group (`from` = None when it
    /// had not issued before).
    GroupSwitch { core: u16, scheduler: u8, from: Option<u32>, to: u32 },
    /// OAWS held a warp's load back: `predicted` misses > `available` (= free MSHRs −
    /// Miss_inflight), seed 004 Eq. 5.1. Emitted when the warp becomes disqualified.
    OawsDisqualified { core: u16, warp: u16, pc: u32, predicted: u16, available: u16 },
    /// A throttling scheduler (SWL, CCWS, FCW-only, MASCAR) started holding a warp back.
    WarpThrottled { core: u16, warp: u16, reason: StallReason },
    /// MASCAR entered or left memory-pressure mode, or handed ownership to another warp.
    MascarMode { core: u16, scheduler: u8, saturated: bool, owner: Option<u16> },
    /// CCWS: a warp missed on a line it had lost to an eviction (victim-tag hit); its lost
    /// locality score is now `score`.
    LostLocality { core: u16, warp: u16, line: u64, score: u32 },
    /// A CTA was placed on an SM.
    CtaLaunch { core: u16, cta: u32 },
    /// A CTA's warps have all exited.
    CtaDone { core: u16, cta: u32 },
    /// The last CTA of a kernel finished.
    KernelEnd { kernel: u16 },
    /// An L1D miss of `warp` evicted a line that the same warp slot had brought in
    /// (intra-warp associativity conflict, seed 004 §1.2.1): `line` (byte address) and
    /// `line_pc` are the victim's, `pc` the evicting load's.
    SetConflict { core: u16, warp: u16, pc: u32, set: u32, line: u64, line_pc: u32 },
    /// An L1D miss found no replaceable line in DaCache's thrashing region and went below
    /// without a line: `bytes` of 32 B sectors straight to the registers (seed 004 §4.2.3).
    Bypass { core: u16, warp: u16, pc: u32, set: u32, line: u64, bytes: u32 },
    /// The SM's number of fully cached warps changed (seed 004 §4.2.4, Fig. 4.3).
    FcwChange { core: u16, from: u16, to: u16 },
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
    WarpGroupScheduled,
    RemoteScore,
    MerbPostpone,
    Prefetch,
    LoadDone,
    WarpStall,
    CtaLaunch,
    CtaDone,
    KernelEnd,
    SetConflict,
    Bypass,
    GroupSwitch,
    OawsDisqualified,
    WarpThrottled,
    MascarMode,
    LostLocality,
    FcwChange,
}

impl EventKind {
    pub const ALL: &'static [EventKind] = &[
        EventKind::MemoryOcclusion,
        EventKind::MshrFull,
        EventKind::RowMiss,
        EventKind::WriteDrainStart,
        EventKind::WriteDrainEnd,
        EventKind::DramCommand,
        EventKind::WarpGroupScheduled,
        EventKind::RemoteScore,
        EventKind::MerbPostpone,
        EventKind::Prefetch,
        EventKind::LoadDone,
        EventKind::WarpStall,
        EventKind::CtaLaunch,
        EventKind::CtaDone,
        EventKind::KernelEnd,
        EventKind::SetConflict,
        EventKind::Bypass,
        EventKind::GroupSwitch,
        EventKind::OawsDisqualified,
        EventKind::WarpThrottled,
        EventKind::MascarMode,
        EventKind::LostLocality,
        EventKind::FcwChange,
    ];

    pub fn bit(self) -> u64 {
        1 << (self as u8)
    }

    /// The user-facing name (`break memory-occlusion`).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::MemoryOcclusion => "memory-occlusion",
            EventKind::MshrFull => "mshr-full",
            EventKind::RowMiss => "row-miss",
            EventKind::WriteDrainStart => "write-drain-start",
            EventKind::WriteDrainEnd => "write-drain-end",
            EventKind::DramCommand => "dram-command",
            EventKind::WarpGroupScheduled => "warpgroup-scheduled",
            EventKind::RemoteScore => "remote-score",
            EventKind::MerbPostpone => "merb-postpone",
            EventKind::Prefetch => "prefetch",
            EventKind::LoadDone => "load-done",
            EventKind::WarpStall => "warp-stall",
            EventKind::CtaLaunch => "cta-launch",
            EventKind::CtaDone => "cta-done",
            EventKind::KernelEnd => "kernel-end",
            EventKind::SetConflict => "set-conflict",
            EventKind::Bypass => "bypass",
            EventKind::GroupSwitch => "group-switch",
            EventKind::OawsDisqualified => "oaws-disqualified",
            EventKind::WarpThrottled => "warp-throttled",
            EventKind::MascarMode => "mascar-mode",
            EventKind::LostLocality => "lost-locality",
            EventKind::FcwChange => "fcw-change",
        }
    }

    /// The field names events of this kind carry.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            EventKind::MemoryOcclusion => &["core", "warp", "pc", "needed", "free"],
            EventKind::MshrFull => &["core", "warp", "pc", "line"],
            EventKind::RowMiss => &["channel", "bank", "row", "conflict"],
            EventKind::WriteDrainStart => &["channel", "writes", "reads", "cause"],
            EventKind::WriteDrainEnd => &["channel", "writes"],
            EventKind::DramCommand => &["channel", "dram_cycle", "bank", "row", "col", "cmd"],
            EventKind::WarpGroupScheduled => {
                &["channel", "sm", "warp", "load_seq", "score", "requests", "row_hits", "early"]
            }
            EventKind::RemoteScore => &["channel", "from", "sm", "warp", "local", "remote"],
            EventKind::MerbPostpone => &["channel", "bank", "row", "counter", "merb", "hits"],
            EventKind::Prefetch => &["channel", "bank", "row", "line"],
            EventKind::LoadDone => {
                &["core", "warp", "pc", "requests", "issued", "first", "last", "latency", "divergence"]
            }
            EventKind::WarpStall => &["core", "warp", "reason"],
            EventKind::CtaLaunch | EventKind::CtaDone => &["core", "cta"],
            EventKind::KernelEnd => &["kernel"],
            EventKind::SetConflict => &["core", "warp", "pc", "set", "line", "line_pc"],
            EventKind::Bypass => &["core", "warp", "pc", "set", "line", "bytes"],
            EventKind::GroupSwitch => &["core", "scheduler", "from", "to"],
            EventKind::OawsDisqualified => &["core", "warp", "pc", "predicted", "available"],
            EventKind::WarpThrottled => &["core", "warp", "reason"],
            EventKind::MascarMode => &["core", "scheduler", "saturated", "owner"],
            EventKind::LostLocality => &["core", "warp", "line", "score"],
            EventKind::FcwChange => &["core", "from", "to"],
        }
    }
}

impl Event {
    /// A field by name (see [`EventKind::fields`]).
    pub fn field(&self, name: &str) -> Option<FieldValue> {
        use FieldValue::{Int, Name};
        let i = |v: u64| Some(Int(v as i64));
        match (self, name) {
            (Event::MemoryOcclusion { core, .. }, "core")
            | (Event::MshrFull { core, .. }, "core")
            | (Event::LoadDone { core, .. }, "core")
            | (Event::WarpStall { core, .. }, "core")
            | (Event::CtaLaunch { core, .. }, "core")
            | (Event::CtaDone { core, .. }, "core")
            | (Event::SetConflict { core, .. }, "core")
            | (Event::Bypass { core, .. }, "core")
            | (Event::GroupSwitch { core, .. }, "core")
            | (Event::OawsDisqualified { core, .. }, "core")
            | (Event::WarpThrottled { core, .. }, "core")
            | (Event::MascarMode { core, .. }, "core")
            | (Event::LostLocality { core, .. }, "core")
            | (Event::FcwChange { core, .. }, "core") => i(u64::from(*core)),
            (Event::MemoryOcclusion { warp, .. }, "warp")
            | (Event::MshrFull { warp, .. }, "warp")
            | (Event::LoadDone { warp, .. }, "warp")
            | (Event::WarpStall { warp, .. }, "warp")
            | (Event::SetConflict { warp, .. }, "warp")
            | (Event::Bypass { warp, .. }, "warp")
            | (Event::OawsDisqualified { warp, .. }, "warp")
            | (Event::WarpThrottled { warp, .. }, "warp")
            | (Event::LostLocality { warp, .. }, "warp") => i(u64::from(*warp)),
            (Event::MemoryOcclusion { pc, .. }, "pc")
            | (Event::MshrFull { pc, .. }, "pc")
            | (Event::LoadDone { pc, .. }, "pc")
            | (Event::SetConflict { pc, .. }, "pc")
            | (Event::Bypass { pc, .. }, "pc")
            | (Event::OawsDisqualified { pc, .. }, "pc") => i(u64::from(*pc)),
            (Event::SetConflict { set, .. }, "set") | (Event::Bypass { set, .. }, "set") => {
                i(u64::from(*set))
            }
            (Event::SetConflict { line, .. }, "line")
            | (Event::Bypass { line, .. }, "line")
            | (Event::LostLocality { line, .. }, "line") => i(*line),
            (Event::SetConflict { line_pc, .. }, "line_pc") => i(u64::from(*line_pc)),
            (Event::Bypass { bytes, .. }, "bytes") => i(u64::from(*bytes)),
            (Event::FcwChange { from, .. }, "from") => i(u64::from(*from)),
            (Event::FcwChange { to, .. }, "to") => i(u64::from(*to)),
            (Event::GroupSwitch { scheduler, .. }, "scheduler")
            | (Event::MascarMode { scheduler, .. }, "scheduler") => i(u64::from(*scheduler)),
            (Event::GroupSwitch { from, .. }, "from") => from.map(|g| Int(i64::from(g))),
            (Event::GroupSwitch { to, .. }, "to") => i(u64::from(*to)),
            (Event::OawsDisqualified { predicted, .. }, "predicted") => i(u64::from(*predicted)),
            (Event::OawsDisqualified { available, .. }, "available") => i(u64::from(*available)),
            (Event::WarpThrottled { reason, .. }, "reason") => Some(Name(reason.name())),
            (Event::MascarMode { saturated, .. }, "saturated") => i(u64::from(*saturated)),
            (Event::MascarMode { owner, .. }, "owner") => owner.map(|w| Int(i64::from(w))),
            (Event::LostLocality { score, .. }, "score") => i(u64::from(*score)),
            (Event::MemoryOcclusion { needed, .. }, "needed") => i(u64::from(*needed)),
            (Event::MemoryOcclusion { free, .. }, "free") => i(u64::from(*free)),
            (Event::MshrFull { line, .. }, "line") => i(*line),
            (Event::RowMiss { channel, .. }, "channel")
            | (Event::WriteDrainStart { channel, .. }, "channel")
            | (Event::WriteDrainEnd { channel, .. }, "channel")
            | (Event::DramCommand { channel, .. }, "channel")
            | (Event::WarpGroupScheduled { channel, .. }, "channel")
            | (Event::RemoteScore { channel, .. }, "channel")
            | (Event::MerbPostpone { channel, .. }, "channel")
            | (Event::Prefetch { channel, .. }, "channel") => i(u64::from(*channel)),
            (Event::RowMiss { bank, .. }, "bank")
            | (Event::MerbPostpone { bank, .. }, "bank")
            | (Event::Prefetch { bank, .. }, "bank") => i(u64::from(*bank)),
            (Event::RowMiss { row, .. }, "row")
            | (Event::MerbPostpone { row, .. }, "row")
            | (Event::Prefetch { row, .. }, "row") => i(u64::from(*row)),
            (Event::Prefetch { line, .. }, "line") => i(u64::from(*line)),
            (Event::WarpGroupScheduled { sm, .. }, "sm") | (Event::RemoteScore { sm, .. }, "sm") => {
                i(u64::from(*sm))
            }
            (Event::WarpGroupScheduled { warp, .. }, "warp") | (Event::RemoteScore { warp, .. }, "warp") => {
                i(u64::from(*warp))
            }
            (Event::WarpGroupScheduled { load_seq, .. }, "load_seq") => i(u64::from(*load_seq)),
            (Event::WarpGroupScheduled { score, .. }, "score") => i(u64::from(*score)),
            (Event::WarpGroupScheduled { requests, .. }, "requests") => i(u64::from(*requests)),
            (Event::WarpGroupScheduled { row_hits, .. }, "row_hits") => i(u64::from(*row_hits)),
            (Event::WarpGroupScheduled { early, .. }, "early") => Some(Name(early.name())),
            (Event::RemoteScore { from, .. }, "from") => i(u64::from(*from)),
            (Event::RemoteScore { local, .. }, "local") => i(u64::from(*local)),
            (Event::RemoteScore { remote, .. }, "remote") => i(u64::from(*remote)),
            (Event::MerbPostpone { counter, .. }, "counter") => i(u64::from(*counter)),
            (Event::MerbPostpone { merb, .. }, "merb") => i(u64::from(*merb)),
            (Event::MerbPostpone { hits, .. }, "hits") => i(u64::from(*hits)),
            (Event::RowMiss { conflict, .. }, "conflict") => i(u64::from(*conflict)),
            (Event::WriteDrainStart { writes, .. }, "writes")
            | (Event::WriteDrainEnd { writes, .. }, "writes") => i(u64::from(*writes)),
            (Event::WriteDrainStart { reads, .. }, "reads") => i(u64::from(*reads)),
            (Event::WriteDrainStart { cause, .. }, "cause") => Some(Name(cause.name())),
            (Event::DramCommand { dram_cycle, .. }, "dram_cycle") => i(*dram_cycle),
            (Event::DramCommand { cmd, .. }, "bank") => i(u64::from(cmd.bank)),
            (Event::DramCommand { cmd, .. }, "row") => i(u64::from(cmd.row)),
            (Event::DramCommand { cmd, .. }, "col") => i(u64::from(cmd.col)),
            (Event::DramCommand { cmd, .. }, "cmd") => Some(Name(cmd.kind.name())),
            (Event::LoadDone { requests, .. }, "requests") => i(u64::from(*requests)),
            (Event::LoadDone { issued, .. }, "issued") => i(*issued),
            (Event::LoadDone { first, .. }, "first") => i(*first),
            (Event::LoadDone { last, .. }, "last") => i(*last),
            (Event::LoadDone { issued, last, .. }, "latency") => i(last - issued),
            (Event::LoadDone { first, last, .. }, "divergence") => i(last - first),
            (Event::WarpStall { reason, .. }, "reason") => Some(Name(reason.name())),
            (Event::CtaLaunch { cta, .. }, "cta") | (Event::CtaDone { cta, .. }, "cta") => i(u64::from(*cta)),
            (Event::KernelEnd { kernel }, "kernel") => i(u64::from(*kernel)),
            _ => None,
        }
    }

    /// One line for people: what happened, with its numbers.
    pub fn describe(&self) -> String {
        match self {
            Event::MemoryOcclusion { core, warp, pc, needed, free } => {
                format!(
                    "memory occlusion on core {core} warp {warp} pc {pc:#06x}: needs {needed} MSHRs, {free} free"
                )
            }
            Event::MshrFull { core, warp, pc, line } => {
                format!("MSHRs full on core {core}: warp {warp} pc {pc:#06x} cannot miss on line {line:#x}")
            }
            Event::RowMiss { channel, bank, row, conflict } => format!(
                "row {} on channel {channel} bank {bank}: opening row {row}",
                if *conflict { "conflict" } else { "miss" }
            ),
            Event::WriteDrainStart { channel, writes, reads, cause } => {
                let why = match cause {
                    DrainCause::HighWatermark => "above the high watermark",
                    DrainCause::NoReads => "no read pending",
                    DrainCause::QueueFull => "write queue full",
                };
                format!(
                    "write drain starts on channel {channel} ({why}): writes queued {writes}, reads queued {reads}"
                )
            }
            Event::WriteDrainEnd { channel, writes } => {
                format!("write drain ends on channel {channel}: {writes} writes left")
            }
            Event::DramCommand { channel, dram_cycle, cmd } => format!(
                "channel {channel} DRAM cycle {dram_cycle}: {} bank {} row {} col {}",
                cmd.kind, cmd.bank, cmd.row, cmd.col
            ),
            Event::WarpGroupScheduled { channel, sm, warp, load_seq, score, requests, row_hits, early } => {
                format!(
                    "channel {channel} schedules warp-group {sm}.{warp} load {load_seq}: score {score}, {requests} requests, {row_hits} row hits{}",
                    match early {
                        Early::No => "",
                        Early::TimedOut => " (incomplete, timed out)",
                        Early::Idle => " (incomplete, queues idle)",
                    }
                )
            }
            Event::RemoteScore { channel, from, sm, warp, local, remote } => format!(
                "channel {channel} hears from channel {from}: warp {sm}.{warp} score {local} → {remote}"
            ),
            Event::MerbPostpone { channel, bank, row, counter, merb, hits } => format!(
                "channel {channel} bank {bank} postpones a row miss: {hits} hits to row {row} first (counter {counter} < MERB {merb})"
            ),
            Event::Prefetch { channel, bank, row, line } => {
                format!("channel {channel} bank {bank} prefetches line {line} of open row {row}")
            }
            Event::LoadDone { core, warp, pc, requests, issued, first, last } => format!(
                "load done on core {core} warp {warp} pc {pc:#06x}: {requests} requests, latency {}, divergence {}",
                last - issued,
                last - first
            ),
            Event::WarpStall { core, warp, reason } => {
                format!("warp {core}.{warp} stalls: {}", reason.name())
            }
            Event::CtaLaunch { core, cta } => format!("CTA {cta} launched on core {core}"),
            Event::CtaDone { core, cta } => format!("CTA {cta} finished on core {core}"),
            Event::KernelEnd { kernel } => format!("kernel {kernel} finished"),
            Event::SetConflict { core, warp, pc, set, line, line_pc } => format!(
                "set conflict on core {core} set {set}: warp {warp} pc {pc:#06x} evicts its own line {line:#x} (pc {line_pc:#06x})"
            ),
            Event::Bypass { core, warp, pc, set, line, bytes } => format!(
                "bypass on core {core} set {set}: warp {warp} pc {pc:#06x} fetches {bytes} B of line {line:#x} without caching it"
            ),
            Event::FcwChange { core, from, to } => {
                format!("fully cached warps on core {core}: {from} → {to}")
            }
            Event::GroupSwitch { core, scheduler, from, to } => match from {
                Some(f) => format!("core {core} scheduler {scheduler} switches from group {f} to group {to}"),
                None => format!("core {core} scheduler {scheduler} starts on group {to}"),
            },
            Event::OawsDisqualified { core, warp, pc, predicted, available } => format!(
                "OAWS holds warp {core}.{warp} pc {pc:#06x}: predicts {predicted} misses, {available} MSHRs available"
            ),
            Event::WarpThrottled { core, warp, reason } => {
                format!("warp {core}.{warp} held back by the scheduler: {}", reason.name())
            }
            Event::MascarMode { core, scheduler, saturated, owner } => match (saturated, owner) {
                (true, Some(o)) => {
                    format!("MASCAR core {core} scheduler {scheduler}: memory saturated, owner warp {o}")
                }
                (true, None) => {
                    format!("MASCAR core {core} scheduler {scheduler}: memory saturated, no owner")
                }
                (false, _) => format!("MASCAR core {core} scheduler {scheduler}: memory no longer saturated"),
            },
            Event::LostLocality { core, warp, line, score } => {
                format!("warp {core}.{warp} lost locality on line {line:#x} (victim-tag hit): score {score}")
            }
        }
    }

    pub fn kind(&self) -> EventKind {
        match self {
            Event::MemoryOcclusion { .. } => EventKind::MemoryOcclusion,
            Event::MshrFull { .. } => EventKind::MshrFull,
            Event::RowMiss { .. } => EventKind::RowMiss,
            Event::WriteDrainStart { .. } => EventKind::WriteDrainStart,
            Event::WriteDrainEnd { .. } => EventKind::WriteDrainEnd,
            Event::DramCommand { .. } => EventKind::DramCommand,
            Event::WarpGroupScheduled { .. } => EventKind::WarpGroupScheduled,
            Event::RemoteScore { .. } => EventKind::RemoteScore,
            Event::MerbPostpone { .. } => EventKind::MerbPostpone,
            Event::Prefetch { .. } => EventKind::Prefetch,
            Event::LoadDone { .. } => EventKind::LoadDone,
            Event::WarpStall { .. } => EventKind::WarpStall,
            Event::CtaLaunch { .. } => EventKind::CtaLaunch,
            Event::CtaDone { .. } => EventKind::CtaDone,
            Event::KernelEnd { .. } => EventKind::KernelEnd,
            Event::SetConflict { .. } => EventKind::SetConflict,
            Event::Bypass { .. } => EventKind::Bypass,
            Event::GroupSwitch { .. } => EventKind::GroupSwitch,
            Event::OawsDisqualified { .. } => EventKind::OawsDisqualified,
            Event::WarpThrottled { .. } => EventKind::WarpThrottled,
            Event::MascarMode { .. } => EventKind::MascarMode,
            Event::LostLocality { .. } => EventKind::LostLocality,
            Event::FcwChange { .. } => EventKind::FcwChange,
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
