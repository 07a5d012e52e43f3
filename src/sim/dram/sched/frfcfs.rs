//! FR-FCFS (Rixner et al.; the baseline of seeds 001–004): the oldest request whose column
//! command is ready on an open row first; otherwise the oldest request whose ACT or PRE is
//! ready. A bank with pending hits to its open row is never precharged for an older miss.
//! Reads and writes are not mixed: the controller's write-drain mode picks the queue.
//!
//! **FR-FCFS-Cap** (Mutlu and Moscibroda, MICRO'07; Ramulator's `FRFCFS_Cap`, cap 16): an open
//! row may serve at most `cap` column commands since its ACT ahead of older requests; after
//! that its hits lose their priority and the bank's oldest request competes by age like any
//! other (its column command if it is a hit, else its PRE), so a stream of hits cannot starve
//! an older miss. Plain FR-FCFS is the same with no cap.

use super::{DramScheduler, SchedCtx};
use crate::sim::dram::command::{Command, CommandKind};
use crate::sim::dram::queues::{Banks, Listed, Queues, Slot};
use crate::sim::event::EventSink;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FrFcfs {
    /// The last scan's earliest bank parts of its candidates' timing (a bank's oldest hit,
    /// or else its oldest request's PRE or ACT), per kind: CAS, ACT, PRE. The same scan that
    /// chooses finds them, so an idle controller knows how long to sleep without a second
    /// pass. A command only pushes timing registers later, and only changes the candidate of
    /// its own bank, so with that bank's times they still bound the next choice from below
    /// ([`DramScheduler::wake_after_issue`]).
    bank_min: [u64; 3],
    /// Column commands an open row may serve ahead of older requests (`u32::MAX`: no cap).
    cap: u32,
    /// Per bank: column commands since its last ACT.
    streak: Vec<u32>,
    /// A bit per bank whose streak has reached the cap: its hits have lost their priority.
    capped: u64,
}

impl FrFcfs {
    /// FR-FCFS over `banks` banks; with `cap`, FR-FCFS-Cap.
    pub fn new(banks: usize, cap: Option<u32>) -> FrFcfs {
        FrFcfs { bank_min: [0; 3], cap: cap.unwrap_or(u32::MAX), streak: vec![0; banks], capped: 0 }
    }
}

/// The column command of the direction being served.
fn cas(ctx: &SchedCtx<'_>) -> CommandKind {
    if ctx.draining { CommandKind::Wr } else { CommandKind::Rd }
}

/// The first cycle a candidate can be ready, from the earliest bank parts per kind
/// (CAS, ACT, PRE) and the channel's timing now.
fn wake(ctx: &SchedCtx<'_>, [c, a, p]: [u64; 3]) -> u64 {
    let d = ctx.device;
    d.earliest_from(c, cas(ctx)).min(d.earliest_from(a, CommandKind::Act)).min(p)
}

/// The least of `part` over the banks of `mask`, or `floor` as soon as one is at or below it.
/// Where only the wake-up time needs the minimum, with `floor` the kind's channel part now,
/// that comes to the same: the wake-up takes the later of the minimum and the channel part
/// then, which is at least `floor` (a channel part only grows).
#[inline(always)]
fn least_part(mask: u64, floor: u64, part: impl Fn(usize) -> u64) -> u64 {
    let mut least = u64::MAX;
    for bank in Banks(mask) {
        least = least.min(part(bank));
        if least <= floor {
            return floor;
        }
    }
    least
}

impl DramScheduler for FrFcfs {
    /// Each busy bank offers one candidate, found by class through the queues' bank masks
    /// instead of from every bank's state: a bank with hits to its open row (under the cap)
    /// its oldest hit; a capped bank with hits its oldest request, by age (the column command
    /// if a hit, else a PRE); another open bank its oldest request's PRE; a closed bank its
    /// oldest request's ACT. The oldest ready hit wins, else the oldest other ready candidate
    /// (arrival numbers are unique, so the order of the scan does not matter). A class whose
    /// channel part is not ready, or that cannot win, is only scanned for its wake-up time.
    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        let (device, now, cas) = (ctx.device, ctx.now, cas(ctx));
        let (q, lists) = (ctx.queues, ctx.lists());
        let (busy, open, hits) = (q.busy_mask(ctx.draining), q.open_mask(), q.hit_mask(ctx.draining));
        // A command is ready when both its bank's part and the channel's part of the timing
        // allow it; the channel parts are the same for every bank.
        let chan_cas = device.channel_earliest(cas);
        let chan_act = device.channel_earliest(CommandKind::Act);
        // 0 unless the channel has a row command bus of its own (`dram.dual_bus`).
        let chan_pre = device.channel_earliest(CommandKind::Pre);
        let first = hits & !self.capped;
        let mut best_hit: Option<(u64, Slot)> = None;
        // Per kind, the earliest bank part over the candidates (for the wake-up time).
        let mut bank_cas = u64::MAX;
        if chan_cas <= now {
            for bank in Banks(first) {
                let t = device.bank_earliest(cas, bank);
                bank_cas = bank_cas.min(t);
                if t <= now {
                    let r = device.banks[bank].open_row;
                    // Lists are in arrival order: the first hit is the oldest hit.
                    let hit = lists[bank].iter().find(|l| Some(l.row) == r).expect("the bank counts a hit");
                    if best_hit.is_none_or(|(b, _)| hit.seq < b) {
                        best_hit = Some((hit.seq, hit.slot));
                    }
                }
            }
        } else {
            bank_cas = least_part(first, chan_cas, |bank| device.bank_earliest(cas, bank));
        }
        // The other candidates can only win without a ready hit.
        let look = best_hit.is_none();
        let mut best_other: Option<(u64, Slot)> = None;
        let mut offer = |list: &[Listed], t: u64, chan: u64| {
            let oldest = &list[0];
            if look && t <= now && chan <= now && best_other.is_none_or(|(b, _)| oldest.seq < b) {
                best_other = Some((oldest.seq, oldest.slot));
            }
        };
        let mut bank_pre = u64::MAX;
        for bank in Banks(hits & self.capped) {
            let list = lists[bank].as_slice();
            if Some(list[0].row) == device.banks[bank].open_row {
                let t = device.bank_earliest(cas, bank);
                bank_cas = bank_cas.min(t);
                offer(list, t, chan_cas);
            } else {
                let t = device.bank_earliest(CommandKind::Pre, bank);
                bank_pre = bank_pre.min(t);
                offer(list, t, chan_pre);
            }
        }
        for bank in Banks(busy & open & !hits) {
            let t = device.bank_earliest(CommandKind::Pre, bank);
            bank_pre = bank_pre.min(t);
            offer(&lists[bank], t, chan_pre);
        }
        let closed = busy & !open;
        let bank_act = if look && chan_act <= now {
            let mut least = u64::MAX;
            for bank in Banks(closed) {
                let t = device.bank_earliest(CommandKind::Act, bank);
                least = least.min(t);
                offer(&lists[bank], t, chan_act);
            }
            least
        } else {
            least_part(closed, chan_act, |bank| device.bank_earliest(CommandKind::Act, bank))
        };
        self.bank_min = [bank_cas, bank_act, bank_pre];
        best_hit.or(best_other).map(|(_, s)| s)
    }

    fn on_issue(&mut self, _: Slot, cmd: &Command, _: &Queues) {
        let bank = cmd.bank as usize;
        let streak = &mut self.streak[bank];
        match cmd.kind {
            CommandKind::Act => *streak = 0,
            CommandKind::Rd | CommandKind::Wr => *streak = streak.saturating_add(1),
            CommandKind::Pre | CommandKind::Ref => {}
        }
        let bit = 1 << bank;
        self.capped = if *streak >= self.cap { self.capped | bit } else { self.capped & !bit };
    }

    /// The arrival is the youngest request: it changes no candidate but its own bank's, and
    /// that one only as the bank's first request of the direction served or as its first hit
    /// with priority, when it becomes the candidate itself. Otherwise every candidate is as
    /// before and so is the choice, until the wake-up the controller has.
    fn wake_after_arrival(&self, ctx: &SchedCtx<'_>, slot: Slot) -> Option<u64> {
        let (q, p) = (ctx.queues, ctx.queues.get(slot));
        let bank = p.bank as usize;
        let open = ctx.device.banks[bank].open_row;
        let first_hit =
            open == Some(p.row) && self.capped >> bank & 1 == 0 && q.row_hits(ctx.draining, bank, open) == 1;
        let candidate = p.is_write == ctx.draining && (ctx.lists()[bank].len() == 1 || first_hit);
        Some(if candidate { ctx.device.earliest(ctx.next_command(slot).kind, bank) } else { u64::MAX })
    }

    fn wake_at(&self, ctx: &SchedCtx<'_>) -> Option<u64> {
        Some(wake(ctx, self.bank_min))
    }

    /// The scan before the command bounds every other bank; the command's bank may now need
    /// anything (a hit after its ACT, a PRE after its last hit left).
    fn wake_after_issue(&self, ctx: &SchedCtx<'_>, cmd: &Command) -> Option<u64> {
        let (d, bank) = (ctx.device, cmd.bank as usize);
        let [mut c, mut a, mut p] = self.bank_min;
        match d.banks[bank].open_row {
            Some(_) => {
                c = c.min(d.bank_earliest(cas(ctx), bank));
                p = p.min(d.bank_earliest(CommandKind::Pre, bank));
            }
            None => a = a.min(d.bank_earliest(CommandKind::Act, bank)),
        }
        Some(wake(ctx, [c, a, p]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::DramSchedulerKind;
    use crate::sim::dram::sched::testkit::Kit;

    /// Issues `kind` for `slot`'s request at the kit's cycle, as the controller would.
    fn issue(kit: &mut Kit, kind: CommandKind, slot: Slot) {
        let p = kit.queues.get(slot);
        let cmd = Command { kind, bank: p.bank, row: p.row, col: 0 };
        kit.device.issue(&cmd, kit.now);
        let bank = cmd.bank as usize;
        kit.queues.set_open_row(bank, kit.device.banks[bank].open_row);
    }

    /// The wake-up time of an idle FR-FCFS is the first cycle its choice is ready: one cycle
    /// earlier it still finds nothing, at that cycle it chooses (seed 000 Table II timing:
    /// tRRD = 9, tRCD = 18).
    #[test]
    fn wakes_exactly_when_a_candidate_becomes_ready() {
        let mut kit = Kit::new(&[]);
        let mut s = FrFcfs::new(16, None);
        let a = kit.request(&mut s, 0, 5, (0, 0, 0), true, false);
        let b = kit.request(&mut s, 1, 7, (0, 1, 0), true, false);
        assert_eq!(kit.select(&mut s).0, Some(a), "both banks closed: the oldest ACT");
        issue(&mut kit, CommandKind::Act, a);
        // b's ACT waits for tRRD (a channel constraint), a's RD for tRCD (its bank's).
        kit.now = 1;
        assert_eq!(kit.select(&mut s).0, None);
        assert_eq!(s.wake_at(&kit.ctx().0), Some(9));
        kit.now = 8;
        assert_eq!(kit.select(&mut s).0, None);
        kit.now = 9;
        assert_eq!(kit.select(&mut s).0, Some(b));
        issue(&mut kit, CommandKind::Act, b);
        kit.now = 10;
        assert_eq!(kit.select(&mut s).0, None);
        assert_eq!(s.wake_at(&kit.ctx().0), Some(18), "a's RD at tRCD after its ACT, before b's at 9 + tRCD");
        kit.now = 17;
        assert_eq!(kit.select(&mut s).0, None);
        kit.now = 18;
        assert_eq!(kit.select(&mut s).0, Some(a));
    }

    /// FR-FCFS-Cap with cap 2: two hits to the open row go ahead of an older miss, then the
    /// miss (the oldest) gets its PRE although a third hit waits; plain FR-FCFS serves all
    /// three hits first.
    #[test]
    fn the_cap_lets_an_older_miss_through_after_cap_hits() {
        for (cap, want) in [(Some(2), vec!["hit", "hit", "miss"]), (None, vec!["hit", "hit", "hit", "miss"])]
        {
            let mut kit = Kit::new(&[]);
            let mut s = FrFcfs::new(16, cap);
            let miss = kit.request(&mut s, 2, 1, (0, 0, 0), true, false);
            let hits: Vec<Slot> = (1..4).map(|w| kit.request(&mut s, 2, 4, (0, w, 0), true, false)).collect();
            let served = |kit: &mut Kit, s: &mut FrFcfs, kind: CommandKind, slot: Slot| {
                let p = kit.queues.get(slot);
                let cmd = Command { kind, bank: p.bank, row: p.row, col: 0 };
                s.on_issue(slot, &cmd, &kit.queues);
                issue(kit, kind, slot);
            };
            served(&mut kit, &mut s, CommandKind::Act, hits[0]);
            let mut got = Vec::new();
            for _ in 0..want.len() {
                kit.now += 1000;
                let slot = kit.select(&mut s).0.expect("a ready candidate");
                if slot == miss {
                    got.push("miss");
                    assert_eq!(
                        kit.queues.next_command(miss, kit.device.banks[2].open_row).kind,
                        CommandKind::Pre
                    );
                    break;
                }
                got.push("hit");
                served(&mut kit, &mut s, CommandKind::Rd, slot);
                kit.retire(&mut s, slot);
            }
            assert_eq!(got, want, "cap {cap:?}");
        }
    }

    /// FR-FCFS as first written: every busy bank looked at in turn, its candidate found from
    /// its open row and list. Returns the choice and the earliest bank parts per kind.
    fn bank_by_bank(s: &FrFcfs, ctx: &SchedCtx<'_>) -> (Option<Slot>, [u64; 3]) {
        let (device, now, cas) = (ctx.device, ctx.now, cas(ctx));
        let mut min = [u64::MAX; 3];
        let mut best_hit: Option<(u64, Slot)> = None;
        let mut best_other: Option<(u64, Slot)> = None;
        for (bank, list) in ctx.queues.busy_lists(ctx.draining) {
            let open = device.banks[bank].open_row;
            let is_hit = |l: &&Listed| Some(l.row) == open;
            let (kind, cand, best) = match list.iter().find(is_hit) {
                Some(hit) if s.streak[bank] < s.cap => (cas, hit, &mut best_hit),
                _ if open == Some(list[0].row) => (cas, &list[0], &mut best_other),
                _ if open.is_some() => (CommandKind::Pre, &list[0], &mut best_other),
                _ => (CommandKind::Act, &list[0], &mut best_other),
            };
            let t = device.bank_earliest(kind, bank);
            let k = [cas, CommandKind::Act, CommandKind::Pre].iter().position(|&c| c == kind).unwrap();
            min[k] = min[k].min(t);
            if device.earliest(kind, bank) <= now && best.is_none_or(|(b, _)| cand.seq < b) {
                *best = Some((cand.seq, cand.slot));
            }
        }
        (best_hit.or(best_other).map(|(_, s)| s), min)
    }

    /// A busy controller with random reads and writes to few rows of every bank (row hits,
    /// misses, conflicts, write drains, refreshes), as FR-FCFS and as FR-FCFS-Cap (cap 2): in
    /// every cycle the class scan chooses what the bank-by-bank scan chooses and wakes up when
    /// its earliest bank parts say, idle or after a command; and the controller issues the
    /// same commands at the same cycles whether it skips the cycles its wake-ups (after a
    /// choice, a command or an arrival) rule out or selects in every cycle.
    #[test]
    fn the_class_scan_and_its_wake_ups_match_the_bank_by_bank_scan_in_every_cycle() {
        use crate::config::Config;
        use crate::sim::dram::controller::Controller;
        use crate::sim::event::{Event, EventKind};
        use crate::sim::ledger::Ledger;
        use crate::sim::request::{AccessKind, MemRequest};
        use crate::workload::hash::hash;
        fn ctx_of(mc: &Controller) -> SchedCtx<'_> {
            SchedCtx {
                queues: &mc.queues,
                device: &mc.device,
                now: mc.now,
                draining: mc.draining,
                channel: mc.channel,
                write_high: mc.high_watermark,
            }
        }
        // Cycle `id`'s draw `what`, in 0..m.
        let rand = |id: u64, what: u64, m: u64| hash(11, &[id, what]) % m;
        let run = |sched: &str, skip_idle: bool| {
            let c = Config::default()
                .with_sets(&[
                    format!("dram.scheduler={sched}"),
                    "dram.row_hit_cap=2".into(),
                    "dram.refresh=Some((t_refi: Ck(2000), t_rfc: Ck(120)))".into(),
                ])
                .expect("test config");
            let mut mc = Controller::new(&c, 0);
            mc.skip_idle = skip_idle;
            let (mut sink, mut ledger) = (EventSink::default(), Ledger::default());
            sink.set(EventKind::DramCommand, true);
            let (mut chosen, mut waits) = (0, 0);
            for id in 0..40_000 {
                let write = rand(id, 0, 3) == 0;
                if rand(id, 1, 8) == 0 && mc.can_accept(write) {
                    let kind = if write { AccessKind::Writeback } else { AccessKind::Load };
                    let mut req = MemRequest {
                        id,
                        kind,
                        addr: 0,
                        bytes: 128,
                        lanes: 0,
                        origin: Default::default(),
                        loc: Default::default(),
                        trace: Default::default(),
                    };
                    (req.loc.bank, req.loc.row) = (rand(id, 2, 16) as u32, rand(id, 3, 3) as u32);
                    mc.enqueue(req, id);
                }
                let DramSchedulerKind::FrFcfs(s) = &mc.scheduler else { panic!("{sched}") };
                let ctx = ctx_of(&mc);
                let (want, min) = bank_by_bank(s, &ctx);
                let first = FrFcfs { bank_min: min, ..s.clone() };
                let mut s = s.clone();
                let got = s.select(&ctx, &mut EventSink::default());
                assert_eq!(got, want, "{sched}, DRAM cycle {}", mc.now);
                if got.is_none() {
                    assert_eq!(s.wake_at(&ctx), first.wake_at(&ctx), "{sched}, DRAM cycle {}", mc.now);
                    waits += 1;
                }
                let cmd = got.map(|slot| ctx.next_command(slot));
                let draining = mc.draining;
                mc.tick(id, &mut sink, &mut ledger);
                while mc.pop_completed().is_some() {}
                if let Some(cmd) = cmd.filter(|_| mc.draining == draining) {
                    let ctx = ctx_of(&mc);
                    assert_eq!(s.wake_after_issue(&ctx, &cmd), first.wake_after_issue(&ctx, &cmd));
                    chosen += 1;
                }
            }
            let s = &mc.stats;
            let counts = (s.reads, s.writes, s.row_hits, s.row_conflicts, s.drains, s.commands);
            assert!(
                chosen > 10_000 && waits > 1_000,
                "{sched}: a busy controller ({chosen} chosen, {waits} waits)"
            );
            assert!(s.reads > 2_000 && s.row_hits > 1_000 && s.drains > 10, "{sched}: {counts:?}");
            let commands: Vec<(u64, Command)> = sink
                .drain()
                .map(|(_, e)| match e {
                    Event::DramCommand { dram_cycle, cmd, .. } => (dram_cycle, cmd),
                    e => panic!("{e:?}"),
                })
                .collect();
            (commands, mc.stats)
        };
        for sched in ["frfcfs", "frfcfs-cap"] {
            assert!(
                run(sched, true) == run(sched, false),
                "{sched}: skipping changed the commands or the stats"
            );
        }
    }

    /// A bank with hits to its open row is not precharged for an older miss to another row;
    /// the hit goes first even though it is younger.
    #[test]
    fn hits_go_first_and_protect_their_row() {
        let mut kit = Kit::new(&[]);
        let mut s = FrFcfs::new(16, None);
        let miss = kit.request(&mut s, 2, 1, (0, 0, 0), true, false);
        let hit = kit.request(&mut s, 2, 4, (0, 1, 0), true, false);
        issue(&mut kit, CommandKind::Act, hit);
        kit.now = 1000;
        assert_eq!(kit.select(&mut s).0, Some(hit));
        kit.retire(&mut s, hit);
        assert_eq!(kit.select(&mut s).0, Some(miss), "no hit left: PRE for the miss");
        assert_eq!(kit.queues.next_command(miss, kit.device.banks[2].open_row).kind, CommandKind::Pre);
    }
}
