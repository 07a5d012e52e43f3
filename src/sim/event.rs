//! Events: the debugger's eyes. Components report anything a user may want to break on; the
//! sink keeps only the kinds someone subscribed to, so a headless run without listeners pays
//! one bit test per emission site.
//!
//! Every event is one row of the [`events!`] catalogue below: its variant, its user-facing
//! name, its fields (with their types), fields derived from them, and its one-line
//! description. The enum, the kinds, their names and field lists, field lookup and the
//! descriptions are all generated from that row, so they cannot drift apart; `break`, `log`,
//! `help break`, breakpoint filters and conditions read them.
//!
//! Adding an event: its row here and its case in `sample` in this file's tests (one event of
//! every kind with each field set); its emission site in the component that sees it
//! (`if sink.wants(EventKind::X) { sink.emit(Event::X { … }) }`); and, when the small test
//! machine does not produce it as configured, the overrides that do in `machine_for` of
//! `tests/debugger.rs`, whose `every_event_kind_breaks_where_the_machine_reports_it` breaks on
//! every kind. Its name goes in docs/debugger.md's list of `break` events (docs/debugger-reference.md is generated). Optional: the kind in
//! `debug::history::DEFAULT_LOG` to log it by default, a tone in `debug/views/events.rs`.

use super::core::StallReason;
use super::dram::command::Command;
use super::dram::sched::DrainCause;
use super::dram::sched::early::Early;
use super::record::{Pass, Point, Who};
use super::stats::metrics::{count, group};

/// A field value of an event, for breakpoint filters and conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FieldValue {
    Int(i64),
    Name(&'static str),
}

/// How a field's value reads to breakpoint filters and conditions.
pub trait ToField {
    fn to_field(&self) -> Option<FieldValue>;
}

macro_rules! int_fields {
    ($($t:ty),*) => {$(
        impl ToField for $t {
            fn to_field(&self) -> Option<FieldValue> {
                Some(FieldValue::Int(*self as i64))
            }
        }
    )*};
}
int_fields!(u8, u16, u32, u64);

impl ToField for bool {
    fn to_field(&self) -> Option<FieldValue> {
        Some(FieldValue::Int(i64::from(*self)))
    }
}

/// An absent value (a group switch with no previous group) matches no filter.
impl<T: ToField> ToField for Option<T> {
    fn to_field(&self) -> Option<FieldValue> {
        self.as_ref().and_then(ToField::to_field)
    }
}

macro_rules! name_fields {
    ($($t:ty),*) => {$(
        impl ToField for $t {
            fn to_field(&self) -> Option<FieldValue> {
                Some(FieldValue::Name(self.name()))
            }
        }
    )*};
}
name_fields!(StallReason, Early, DrainCause);

/// A name carried as is (the stage and cause of a `delayed` event).
impl ToField for &'static str {
    fn to_field(&self) -> Option<FieldValue> {
        Some(FieldValue::Name(self))
    }
}

/// A DRAM command reads as its kind (`cmd == ACT`); its bank, row and column are derived fields.
impl ToField for Command {
    fn to_field(&self) -> Option<FieldValue> {
        Some(FieldValue::Name(self.kind.name()))
    }
}

/// The catalogue: `Variant "name" { field: Type, ... } [derived { "name" = expr, ... }]
/// describe = expr;` — expressions see the fields as bindings.
macro_rules! events {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $name:literal { $($field:ident : $ty:ty),* $(,)? }
        $(derived { $($dname:literal = $dexpr:expr),* $(,)? })?
        describe = $describe:expr;
    )+) => {
        /// Something that happened at a cycle.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Event {
            $($(#[doc = $doc])* $variant { $($field: $ty),* },)+
        }

        /// The kind of an event, one bit of a subscription mask.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        #[repr(u8)]
        pub enum EventKind {
            $($variant,)+
        }

        impl EventKind {
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)+];

            /// The user-facing name (`break memory-occlusion`).
            pub fn name(self) -> &'static str {
                match self {
                    $(EventKind::$variant => $name,)+
                }
            }

            /// What an event of this kind means: its row's doc comment, as one line.
            pub fn about(self) -> &'static str {
                match self {
                    $(EventKind::$variant => concat!($($doc),*),)+
                }
            }

            /// The field names events of this kind carry (own fields, then derived ones).
            pub fn fields(self) -> &'static [&'static str] {
                match self {
                    $(EventKind::$variant => &[$(stringify!($field),)* $($($dname,)*)?],)+
                }
            }
        }

        impl Event {
            pub fn kind(&self) -> EventKind {
                match self {
                    $(Event::$variant { .. } => EventKind::$variant,)+
                }
            }

            /// A field by name (see [`EventKind::fields`]).
            pub fn field(&self, name: &str) -> Option<FieldValue> {
                match self {
                    $(Event::$variant { $($field),* } => {
                        $(if name == stringify!($field) {
                            return ToField::to_field($field);
                        })*
                        $($(if name == $dname {
                            return ToField::to_field(&$dexpr);
                        })*)?
                        None
                    })+
                }
            }

            /// One line for people: what happened, with its numbers.
            #[allow(unused_variables)]
            pub fn describe(&self) -> String {
                match self {
                    $(Event::$variant { $($field),* } => $describe,)+
                }
            }
        }
    };
}

events! {
    /// A load needs more new MSHR entries than are free: the LD/ST unit will replay it and
    /// block every other memory instruction (seed 004 §1.3, §5.2).
    MemoryOcclusion "memory-occlusion" { core: u16, warp: u16, pc: u32, needed: u16, free: u16 }
    describe = format!("memory occlusion on core {core} warp {warp} pc {pc:#06x}: needs {}, {free} free", count(u64::from(*needed), "MSHR"));

    /// An L1 miss found no free MSHR.
    MshrFull "mshr-full" { core: u16, warp: u16, pc: u32, line: u64 }
    describe = format!("MSHRs full on core {core}: warp {warp} pc {pc:#06x} cannot miss on line {line:#x}");

    /// A DRAM request opened a row: bank closed (miss) or another row open (conflict).
    RowMiss "row-miss" { channel: u16, bank: u8, row: u32, conflict: bool }
    describe = format!(
        "row {} on channel {channel} bank {bank}: opening row {row}",
        if *conflict { "conflict" } else { "miss" }
    );

    /// The controller switched to draining writes, and why.
    WriteDrainStart "write-drain-start" { channel: u16, writes: u16, reads: u16, cause: DrainCause }
    describe = format!(
        "write drain starts on channel {channel} ({}): writes queued {writes}, reads queued {reads}",
        match cause {
            DrainCause::HighWatermark => "above the high watermark",
            DrainCause::NoReads => "no read pending",
            DrainCause::QueueFull => "write queue full",
        }
    );

    /// The controller went back to reads.
    WriteDrainEnd "write-drain-end" { channel: u16, writes: u16 }
    describe = format!("write drain ends on channel {channel}: {} left", count(u64::from(*writes), "write"));

    /// A DRAM command issued (`dram_cycle` is in the channel's clock).
    DramCommand "dram-command" { channel: u16, dram_cycle: u64, cmd: Command }
    derived { "bank" = cmd.bank, "row" = cmd.row, "col" = cmd.col }
    describe = format!(
        "channel {channel} DRAM cycle {}: {} bank {} row {} col {}",
        group(*dram_cycle), cmd.kind, cmd.bank, cmd.row, cmd.col
    );

    /// A warp-aware transaction scheduler placed a warp-group in the command queues
    /// (seed 000 §IV): its SM, warp and load, score, requests and row hits; `early` says why
    /// it went before its tags completed it, if it did.
    WarpGroupScheduled "warpgroup-scheduled" {
        channel: u16, sm: u16, warp: u16, load_seq: u32, score: u32, requests: u16, row_hits: u16, early: Early,
    }
    describe = format!(
        "channel {channel} schedules warp-group {sm}.{warp} load {load_seq}: score {score}, {}, {}{}",
        count(u64::from(*requests), "request"),
        count(u64::from(*row_hits), "row hit"),
        match early {
            Early::No => "",
            Early::TimedOut => " (incomplete, timed out)",
            Early::Idle => " (incomplete, its banks idle)",
        }
    );

    /// WG-M: a message from controller `from` lowered the local score of a group of ⟨sm, warp⟩
    /// from `local` to `remote`.
    RemoteScore "remote-score" { channel: u16, from: u16, sm: u16, warp: u16, local: u32, remote: u32 }
    describe = format!("channel {channel} hears from channel {from}: warp {sm}.{warp} score {local} → {remote}");

    /// WG-Bw: a row miss on `bank` was postponed; `hits` other hits to `row` go first because
    /// the bank's burst counter (`counter`) is below MERB (`merb`).
    MerbPostpone "merb-postpone" { channel: u16, bank: u8, row: u32, counter: u32, merb: u32, hits: u16 }
    describe = format!(
        "channel {channel} bank {bank} postpones a row miss: {} to row {row} first (counter {counter} < MERB {merb})",
        count(u64::from(*hits), "hit")
    );

    /// Opportunistic prefetching read `line` of the open `row` of `bank` into the L2.
    Prefetch "prefetch" { channel: u16, bank: u8, row: u32, line: u32 }
    describe = format!("channel {channel} bank {bank} prefetches line {line} of open row {row}");

    /// Every request of a warp's load has returned: load `seq` (the warp's load number) of
    /// warp `warp_in_cta` of CTA `cta`, in warp slot `warp`.
    LoadDone "load-done" {
        core: u16, warp: u16, cta: u32, warp_in_cta: u16, seq: u32, pc: u32, requests: u8, issued: u64, first: u64,
        last: u64
    }
    derived { "latency" = last - issued, "divergence" = last - first }
    describe = format!(
        "load done on core {core} warp {warp} pc {pc:#06x}: {}, latency {}, divergence {}",
        count(u64::from(*requests), "request"),
        group(last - issued),
        group(last - first)
    );

    /// Who delayed a finished load, worked out by the debugger while a breakpoint
    /// listens: the longest wait of one of its requests in `stage` and that wait's largest
    /// cause (the names of `show blame`), at `unit` (the SM, L2 slice or DRAM channel of the
    /// stage). The machine never emits it itself.
    Delayed "delayed" { core: u16, warp: u16, load_seq: u32, stage: &'static str, unit: u16, cycles: u64, cause: &'static str }
    describe = format!("load {load_seq} of warp {core}.{warp} waited {} in {stage}, mostly {cause}", count(*cycles, "cycle"));

    /// A warp's state at the issue stage changed (emitted on change, exact for every resident
    /// warp: `Issued`, `NotSelected`, or why it could not issue).
    WarpStall "warp-stall" { core: u16, warp: u16, reason: StallReason }
    describe = format!("warp {core}.{warp} stalls: {}", reason.name());

    /// A CTA was placed on an SM.
    CtaLaunch "cta-launch" { core: u16, cta: u32 }
    describe = format!("CTA {cta} launched on core {core}");

    /// A CTA's warps have all exited.
    CtaDone "cta-done" { core: u16, cta: u32 }
    describe = format!("CTA {cta} finished on core {core}");

    /// The last CTA of a kernel finished.
    KernelEnd "kernel-end" { kernel: u16 }
    describe = format!("kernel {kernel} finished");

    /// An L1D miss of `warp` evicted a line that the same warp slot had brought in
    /// (intra-warp associativity conflict, seed 004 §1.2.1): `line` (byte address) and
    /// `line_pc` are the victim's, `pc` the evicting load's.
    SetConflict "set-conflict" { core: u16, warp: u16, pc: u32, set: u32, line: u64, line_pc: u32 }
    describe = format!(
        "set conflict on core {core} set {set}: warp {warp} pc {pc:#06x} evicts its own line {line:#x} (pc {line_pc:#06x})"
    );

    /// An L1D miss found no replaceable line in DaCache's thrashing region and went below
    /// without a line: `bytes` of 32 B sectors straight to the registers (seed 004 §4.2.3).
    Bypass "bypass" { core: u16, warp: u16, pc: u32, set: u32, line: u64, bytes: u32 }
    describe = format!(
        "bypass on core {core} set {set}: warp {warp} pc {pc:#06x} fetches {bytes} B of line {line:#x} without caching it"
    );

    /// A two-level / OWL scheduler started issuing from another group (`from` = None when it
    /// had not issued before).
    GroupSwitch "group-switch" { core: u16, scheduler: u8, from: Option<u32>, to: u32 }
    describe = match from {
        Some(f) => format!("core {core} scheduler {scheduler} switches from group {f} to group {to}"),
        None => format!("core {core} scheduler {scheduler} starts on group {to}"),
    };

    /// OAWS held a warp's load back: `predicted` misses > `available` (= free MSHRs −
    /// Miss_inflight), seed 004 Eq. 5.1. Emitted when the warp becomes disqualified.
    OawsDisqualified "oaws-disqualified" { core: u16, warp: u16, pc: u32, predicted: u16, available: u16 }
    describe = format!(
        "OAWS holds warp {core}.{warp} pc {pc:#06x}: predicts {predicted} misses, {available} MSHRs available"
    );

    /// A throttling scheduler (SWL, CCWS, FCW-only, MASCAR) started holding a warp back.
    WarpThrottled "warp-throttled" { core: u16, warp: u16, reason: StallReason }
    describe = format!("warp {core}.{warp} held back by the scheduler: {}", reason.name());

    /// MASCAR entered or left memory-pressure mode, or handed ownership to another warp.
    MascarMode "mascar-mode" { core: u16, scheduler: u8, saturated: bool, owner: Option<u16> }
    describe = match (saturated, owner) {
        (true, Some(o)) => format!("MASCAR core {core} scheduler {scheduler}: memory saturated, owner warp {o}"),
        (true, None) => format!("MASCAR core {core} scheduler {scheduler}: memory saturated, no owner"),
        (false, _) => format!("MASCAR core {core} scheduler {scheduler}: memory no longer saturated"),
    };

    /// CCWS: a warp missed on a line it had lost to an eviction (victim-tag hit); its lost
    /// locality score is now `score`.
    LostLocality "lost-locality" { core: u16, warp: u16, line: u64, score: u32 }
    describe = format!("warp {core}.{warp} lost locality on line {line:#x} (victim-tag hit): score {score}");

    /// The SM's number of fully cached warps changed (seed 004 §4.2.4, Fig. 4.3).
    FcwChange "fcw-change" { core: u16, from: u16, to: u16 }
    describe = format!("fully cached warps on core {core}: {from} → {to}");
}

impl EventKind {
    pub fn bit(self) -> u64 {
        1 << (self as u8)
    }
}

/// Collects the subscribed events of the current step. The owner drains it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EventSink {
    mask: u64,
    now: u64,
    /// Not in a checkpoint: its owner drains it after every step, and the `delayed` event's
    /// names are `&'static str`s.
    #[serde(skip)]
    events: Vec<(u64, Event)>,
    /// Requests' passes, while someone records them (`sim::record`).
    recording: bool,
    passes: Vec<Pass>,
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

    /// Starts or stops recording passes; stopping drops the passes not taken.
    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
        if !on {
            self.passes.clear();
        }
    }

    /// Whether passes are recorded. Recording points test this first.
    #[inline(always)]
    pub fn records(&self) -> bool {
        self.recording
    }

    /// Records that `who` crossed `point` of `unit` in the current core cycle (the cycle
    /// before the one events are stamped with).
    #[cold]
    pub fn pass(&mut self, point: Point, unit: u16, detail: u16, who: Who) {
        let cycle = self.now.saturating_sub(1);
        self.passes.push(Pass { cycle, point, unit, detail, who });
    }

    /// Removes and returns the recorded passes.
    pub fn take_passes(&mut self) -> Vec<Pass> {
        std::mem::take(&mut self.passes)
    }

    /// Moves the recorded passes to the end of `into`.
    pub fn append_passes(&mut self, into: &mut Vec<Pass>) {
        into.append(&mut self.passes);
    }

    /// Removes and returns the collected events.
    pub fn drain(&mut self) -> std::vec::Drain<'_, (u64, Event)> {
        self.events.drain(..)
    }

    pub fn clear(&mut self) {
        self.events.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::command::CommandKind;

    /// One event of each kind, with distinct small numbers in its fields.
    fn sample(kind: EventKind) -> Event {
        let cmd = Command { kind: CommandKind::Act, bank: 3, row: 693, col: 5 };
        match kind {
            EventKind::MemoryOcclusion => {
                Event::MemoryOcclusion { core: 1, warp: 2, pc: 3, needed: 11, free: 8 }
            }
            EventKind::MshrFull => Event::MshrFull { core: 1, warp: 2, pc: 3, line: 0x80 },
            EventKind::RowMiss => Event::RowMiss { channel: 1, bank: 2, row: 693, conflict: true },
            EventKind::WriteDrainStart => {
                Event::WriteDrainStart { channel: 1, writes: 33, reads: 2, cause: DrainCause::HighWatermark }
            }
            EventKind::WriteDrainEnd => Event::WriteDrainEnd { channel: 1, writes: 16 },
            EventKind::DramCommand => Event::DramCommand { channel: 1, dram_cycle: 99, cmd },
            EventKind::WarpGroupScheduled => Event::WarpGroupScheduled {
                channel: 1,
                sm: 2,
                warp: 3,
                load_seq: 4,
                score: 5,
                requests: 6,
                row_hits: 7,
                early: Early::TimedOut,
            },
            EventKind::RemoteScore => {
                Event::RemoteScore { channel: 1, from: 2, sm: 3, warp: 4, local: 5, remote: 6 }
            }
            EventKind::MerbPostpone => {
                Event::MerbPostpone { channel: 1, bank: 2, row: 3, counter: 4, merb: 5, hits: 6 }
            }
            EventKind::Prefetch => Event::Prefetch { channel: 1, bank: 2, row: 3, line: 4 },
            EventKind::LoadDone => Event::LoadDone {
                core: 1,
                warp: 2,
                cta: 5,
                warp_in_cta: 1,
                seq: 7,
                pc: 3,
                requests: 4,
                issued: 100,
                first: 150,
                last: 190,
            },
            EventKind::WarpStall => Event::WarpStall { core: 1, warp: 2, reason: StallReason::MemPipe },
            EventKind::CtaLaunch => Event::CtaLaunch { core: 1, cta: 2 },
            EventKind::CtaDone => Event::CtaDone { core: 1, cta: 2 },
            EventKind::KernelEnd => Event::KernelEnd { kernel: 1 },
            EventKind::SetConflict => {
                Event::SetConflict { core: 1, warp: 2, pc: 3, set: 4, line: 0x500, line_pc: 6 }
            }
            EventKind::Bypass => Event::Bypass { core: 1, warp: 2, pc: 3, set: 4, line: 0x500, bytes: 64 },
            EventKind::GroupSwitch => Event::GroupSwitch { core: 1, scheduler: 0, from: None, to: 2 },
            EventKind::OawsDisqualified => {
                Event::OawsDisqualified { core: 1, warp: 2, pc: 3, predicted: 4, available: 5 }
            }
            EventKind::WarpThrottled => {
                Event::WarpThrottled { core: 1, warp: 2, reason: StallReason::Throttled }
            }
            EventKind::MascarMode => {
                Event::MascarMode { core: 1, scheduler: 0, saturated: true, owner: Some(3) }
            }
            EventKind::LostLocality => Event::LostLocality { core: 1, warp: 2, line: 0x500, score: 7 },
            EventKind::FcwChange => Event::FcwChange { core: 1, from: 2, to: 3 },
            EventKind::Delayed => Event::Delayed {
                core: 1,
                warp: 2,
                load_seq: 3,
                stage: "dram",
                unit: 4,
                cycles: 240,
                cause: "other-warps",
            },
        }
    }

    /// Every kind's listed fields answer (only an absent optional value may not), names not
    /// listed do not, and names are unique.
    #[test]
    fn fields_and_lookups_agree_for_every_kind() {
        let mut names: Vec<&str> = EventKind::ALL.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EventKind::ALL.len());
        for &kind in EventKind::ALL {
            let e = sample(kind);
            assert_eq!(e.kind(), kind);
            for f in kind.fields() {
                let optional_absent = matches!((&e, *f), (Event::GroupSwitch { from: None, .. }, "from"));
                assert_eq!(e.field(f).is_some(), !optional_absent, "{} field {f}", kind.name());
            }
            for f in ["nonesuch", "cycle", "name"] {
                assert_eq!(e.field(f), None, "{} answers {f}", kind.name());
            }
            assert!(!e.describe().is_empty());
        }
    }

    #[test]
    fn derived_and_named_fields() {
        use FieldValue::{Int, Name};
        let d = sample(EventKind::DramCommand);
        assert_eq!(
            (d.field("cmd"), d.field("bank"), d.field("row"), d.field("col")),
            (Some(Name("ACT")), Some(Int(3)), Some(Int(693)), Some(Int(5)))
        );
        let l = sample(EventKind::LoadDone);
        assert_eq!((l.field("latency"), l.field("divergence")), (Some(Int(90)), Some(Int(40))));
        let w = sample(EventKind::WriteDrainStart);
        assert_eq!(w.field("cause"), Some(Name("high-watermark")));
        assert_eq!(sample(EventKind::RowMiss).field("conflict"), Some(Int(1)));
        assert_eq!(sample(EventKind::MascarMode).field("owner"), Some(Int(3)));
        assert_eq!(
            sample(EventKind::RowMiss).describe(),
            "row conflict on channel 1 bank 2: opening row 693"
        );
    }
}
