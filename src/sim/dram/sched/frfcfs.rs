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
use crate::sim::dram::queues::{Queues, Slot};
use crate::sim::event::EventSink;

#[derive(Clone, Debug, PartialEq, Eq)]
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
}

impl FrFcfs {
    /// FR-FCFS over `banks` banks; with `cap`, FR-FCFS-Cap.
    pub fn new(banks: usize, cap: Option<u32>) -> FrFcfs {
        FrFcfs { bank_min: [0; 3], cap: cap.unwrap_or(u32::MAX), streak: vec![0; banks] }
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

impl DramScheduler for FrFcfs {
    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        let (device, now, cas) = (ctx.device, ctx.now, cas(ctx));
        // A command is ready when both its bank's part and the channel's part of the timing
        // allow it; the channel parts are the same for every bank.
        let chan_cas = device.channel_earliest(cas);
        let chan_act = device.channel_earliest(CommandKind::Act);
        // Per kind, the earliest bank part over the candidates (for the wake-up time).
        let (mut bank_cas, mut bank_act, mut bank_pre) = (u64::MAX, u64::MAX, u64::MAX);
        let mut best_hit: Option<(u64, Slot)> = None;
        let mut best_other: Option<(u64, Slot)> = None;
        for (bank, list) in ctx.queues.busy_lists(ctx.draining) {
            let open = device.banks[bank].open_row;
            if let Some(r) = open
                && ctx.queues.row_hits(ctx.draining, bank, open) > 0
                && self.streak[bank] < self.cap
            {
                let t = device.bank_earliest(cas, bank);
                bank_cas = bank_cas.min(t);
                if t <= now && chan_cas <= now {
                    // Lists are in arrival order: the first hit is the oldest hit.
                    let hit = list.iter().find(|l| l.row == r).expect("the bank counts a hit");
                    if best_hit.is_none_or(|(b, _)| hit.seq < b) {
                        best_hit = Some((hit.seq, hit.slot));
                    }
                }
                continue;
            }
            let (t, chan) = match open {
                // Capped: the oldest request is a hit, whose column command competes by age.
                Some(r) if list[0].row == r => {
                    let t = device.bank_earliest(cas, bank);
                    bank_cas = bank_cas.min(t);
                    (t, chan_cas)
                }
                Some(_) => {
                    let t = device.bank_earliest(CommandKind::Pre, bank);
                    bank_pre = bank_pre.min(t);
                    (t, 0)
                }
                None => {
                    let t = device.bank_earliest(CommandKind::Act, bank);
                    bank_act = bank_act.min(t);
                    (t, chan_act)
                }
            };
            let oldest = &list[0];
            if t <= now && chan <= now && best_other.is_none_or(|(b, _)| oldest.seq < b) {
                best_other = Some((oldest.seq, oldest.slot));
            }
        }
        self.bank_min = [bank_cas, bank_act, bank_pre];
        best_hit.or(best_other).map(|(_, s)| s)
    }

    fn on_issue(&mut self, _: Slot, cmd: &Command, _: &Queues) {
        let streak = &mut self.streak[cmd.bank as usize];
        match cmd.kind {
            CommandKind::Act => *streak = 0,
            CommandKind::Rd | CommandKind::Wr => *streak = streak.saturating_add(1),
            CommandKind::Pre | CommandKind::Ref => {}
        }
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
