//! OWL's opportunistic memory-side prefetching (seed 003 §4.4; MECHANISMS §6), a controller
//! option that works under any scheduler.
//!
//! Per bank the controller keeps one bit per line of the open row, cleared on ACT and set when
//! a column command reads or writes the line. When no demand (read or write) is pending for a
//! bank's open row and the row still has unfetched lines, the prefetcher reads them, lowest
//! first, into the L2 slice that owns them (fills without waiters; `L2Slice` counts them
//! useful, late or useless).
//!
//! **Degree and stop rule** (the paper's second scheme): C lines are prefetched from an
//! activation, C = `higher` while fewer than `threshold` demands are pending at the controller
//! (default threshold: the average queue length so far) and `lower` otherwise — the paper's
//! "prefetch degree", 0 meaning no prefetching and a row's line count all of it. A demand to
//! another row of the bank does not interrupt them: the bank's precharge is withheld
//! ([`super::bank::Device::pre_hold`]) and those prefetches go ahead of the scheduler's
//! commands. Without such a demand, prefetches only use cycles in which the scheduler issues
//! nothing.
//!
//! A prefetch never blocks demands for long: it is only issued (and a bank only held) in read
//! mode and while the L2 slices can take its data (`room`, set by the GPU from the slices'
//! prefetch queues), and a slice drops a prefetched line it cannot place at once.

use super::bank::Device;
use super::command::{Command, CommandKind};
use super::mapping::AddressMap;
use super::queues::Queues;
use crate::config::Config;
use crate::sim::request::{AccessKind, MemRequest, ReqTrace};

/// Prefetch requests get ids from here up (SM requests count up from 0).
pub const PREFETCH_ID_BASE: u64 = 1 << 62;

/// Counters of the prefetcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct PrefetchStats {
    /// Lines read by prefetches.
    pub issued: u64,
    /// Of those, lines issued ahead of the scheduler because a demand to another row waited.
    pub urgent: u64,
}

/// A bank's prefetching state for its open row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RowPrefetch {
    /// Lines of the open row read since its ACT (bit i = line i).
    pub fetched: u64,
    /// Lines prefetched from it.
    pub prefetched: u32,
    /// The line being prefetched and its bursts still to issue.
    pub current: Option<(u32, u32)>,
}

/// This cycle's prefetch candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    /// A held bank whose prefetch burst is ready: it goes before the scheduler.
    pub urgent: Option<usize>,
    /// A bank whose prefetch burst is ready, used if the scheduler issues nothing.
    pub idle: Option<usize>,
    /// Some bank wants to prefetch (ready or not): the controller does not skip cycles.
    pub active: bool,
}

/// What the prefetcher would do for one bank this cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Want {
    Nothing,
    /// Prefetch now, ahead of the scheduler (the bank is held).
    Urgent,
    /// Prefetch if the scheduler issues nothing.
    Idle,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prefetcher {
    pub lower: u32,
    pub higher: u32,
    pub threshold: Option<u32>,
    pub lines_per_row: u32,
    /// Bursts per line.
    pub cas: u32,
    pub line_bytes: u32,
    pub banks: Vec<RowPrefetch>,
    /// Prefetched lines the L2 slices can still take (set by the GPU each DRAM cycle).
    pub room: usize,
    pub stats: PrefetchStats,
    channel: u16,
    map: AddressMap,
    next_id: u64,
    rr: usize,
}

impl Prefetcher {
    pub fn new(c: &Config, channel: u16) -> Prefetcher {
        let p = &c.dram.prefetch;
        Prefetcher {
            lower: p.lower,
            higher: p.higher,
            threshold: p.threshold,
            lines_per_row: c.dram.row_bytes / c.l2.line_bytes,
            cas: c.l2.line_bytes.div_ceil(c.dram_burst_bytes()).max(1),
            line_bytes: c.l2.line_bytes,
            banks: vec![RowPrefetch::default(); c.dram.banks as usize],
            room: usize::MAX,
            stats: PrefetchStats::default(),
            channel,
            map: AddressMap::new(c),
            next_id: PREFETCH_ID_BASE | (u64::from(channel) << 48),
            rr: 0,
        }
    }

    /// A command issued (by the scheduler or refresh): track the open row's fetched lines.
    pub fn on_command(&mut self, cmd: &Command) {
        let b = &mut self.banks[cmd.bank as usize];
        match cmd.kind {
            CommandKind::Act => *b = RowPrefetch::default(),
            CommandKind::Rd | CommandKind::Wr => b.fetched |= 1 << (cmd.col / self.cas),
            CommandKind::Pre => b.current = None,
            CommandKind::Ref => {}
        }
    }

    /// Refresh needs every bank closed: prefetching lets go of them (a half-read line is lost).
    pub fn release_all(&mut self, device: &mut Device) {
        for b in &mut self.banks {
            b.current = None;
        }
        device.pre_hold = 0;
    }

    /// C: the lines to prefetch from a row before a demand to another row may take the bank.
    pub fn degree(&self, queues: &Queues, average_pending: f64) -> u32 {
        let pending = queues.n_reads + queues.n_writes;
        let below = match self.threshold {
            Some(t) => pending < t as usize,
            None => (pending as f64) < average_pending,
        };
        if below { self.higher } else { self.lower }
    }

    fn want(&self, bank: usize, device: &Device, queues: &Queues, degree: u32, start: bool) -> Want {
        let Some(row) = device.banks[bank].open_row else { return Want::Nothing };
        let full = if self.lines_per_row >= 64 { u64::MAX } else { (1 << self.lines_per_row) - 1 };
        let b = self.banks[bank];
        if b.current.is_some() {
            return Want::Urgent;
        }
        if !start || b.prefetched >= degree || b.fetched & full == full {
            return Want::Nothing;
        }
        let lists = [&queues.reads[bank], &queues.writes[bank]];
        if lists.iter().any(|l| l.iter().any(|x| x.row == row)) {
            return Want::Nothing;
        }
        if lists.iter().any(|l| !l.is_empty()) { Want::Urgent } else { Want::Idle }
    }

    /// Updates which banks hold their row (`device.pre_hold`) and plans this cycle's prefetch
    /// burst (see [`Plan`]). While draining writes only a line already started continues.
    pub fn plan(
        &mut self,
        device: &mut Device,
        queues: &Queues,
        now: u64,
        average_pending: f64,
        draining: bool,
    ) -> Plan {
        let degree = self.degree(queues, average_pending);
        // A new line starts only in read mode and when its data will find room in the L2.
        let started = self.banks.iter().filter(|b| b.current.is_some()).count();
        let start = !draining && self.room > started;
        let n = self.banks.len();
        let mut hold = 0u64;
        let mut urgent = None;
        let mut idle = None;
        let mut active = false;
        for i in 0..n {
            let bank = (self.rr + i) % n;
            let w = self.want(bank, device, queues, degree, start);
            if w == Want::Nothing {
                continue;
            }
            active = true;
            let ready = device.earliest(CommandKind::Rd, bank) <= now;
            if w == Want::Urgent {
                hold |= 1 << bank;
                if ready && urgent.is_none() {
                    urgent = Some(bank);
                }
            } else if ready && idle.is_none() {
                idle = Some(bank);
            }
        }
        device.pre_hold = hold;
        if urgent.is_some_and(|b| self.banks[b].current.is_none()) {
            self.stats.urgent += 1;
        }
        Plan { urgent, idle, active }
    }

    /// Issues the next prefetch burst of `bank`'s open row at `now`. Returns the command and,
    /// after the line's last burst, the prefetch request whose data arrives with it.
    pub fn issue(&mut self, bank: usize, device: &Device, stamp: u64) -> (Command, Option<MemRequest>) {
        self.rr = (bank + 1) % self.banks.len();
        let row = device.banks[bank].open_row.expect("prefetching an open row");
        let b = &mut self.banks[bank];
        let (line, left) = b.current.unwrap_or_else(|| {
            let line = (!b.fetched).trailing_zeros();
            (line, self.cas)
        });
        let col = line * self.cas + (self.cas - left);
        let cmd = Command { kind: CommandKind::Rd, bank: bank as u8, row, col };
        if left > 1 {
            b.current = Some((line, left - 1));
            return (cmd, None);
        }
        b.current = None;
        b.prefetched += 1;
        self.stats.issued += 1;
        let addr = self.map.unmap(u32::from(self.channel), bank as u32, row, line * self.cas);
        let req = MemRequest {
            id: self.next_id,
            kind: AccessKind::Prefetch,
            addr,
            bytes: self.line_bytes,
            lanes: 0,
            origin: Default::default(),
            loc: self.map.map(addr),
            trace: ReqTrace { dram_in: stamp, dram_sched: stamp, ..ReqTrace::default() },
        };
        self.next_id += 1;
        (cmd, Some(req))
    }
}
