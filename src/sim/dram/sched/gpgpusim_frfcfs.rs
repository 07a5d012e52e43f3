//! GPGPU-Sim's FR-FCFS (`frfcfs_scheduler` in `dram_sched.cc`, `dram_t::cycle` in `dram.cc`,
//! GPGPU-Sim 4.x as in Accel-Sim; `-gpgpu_dram_scheduler 1` without a separate write queue),
//! which differs from the textbook FR-FCFS of [`super::FrFcfs`] in four ways that matter under
//! load:
//!
//! 1. **One queue.** Reads and writes wait in one queue of `dram.read_queue` places
//!    (`-gpgpu_frfcfs_dram_sched_queue_size`) and are scheduled together: no drain mode, so
//!    each write among reads costs its read-to-write and write-to-read turnarounds.
//! 2. **A request per bank.** Each bank serves one request at a time (`bank_t::mrq`), taken
//!    out of the queue (its place is free again) and kept until its last column command. In a
//!    DRAM cycle at most one bank takes one (`dram_t::scheduler_frfcfs`): the first bank in
//!    round-robin order from `prio` that has none and has requests waiting; `prio` then moves
//!    one on.
//! 3. **Which request.** A bank that took a request to row r takes the next to row r while
//!    any wait (the row's bin, `m_last_row`), oldest first; otherwise the oldest to the row it
//!    last activated (`bank_t::curr_row`: still that row after a precharge, row 0 before the
//!    first ACT), otherwise its oldest request.
//! 4. **Which command.** The banks are scanned from `prio`: the first whose request's column
//!    command is ready issues it, and, on the scan before that, the first whose request's ACT
//!    or PRE is ready issues it and moves `prio` to the bank after it — the scan goes on from
//!    the new `prio` at the next position, as GPGPU-Sim's loop does. So with one command bus a
//!    row command may be followed by a column command in the same cycle (GPGPU-Sim's
//!    `issue_row_command` then `issue_col_command` on a later bank), never the reverse; with
//!    two (`dram.dual_bus`, `-dram_dual_bus_interface 1`) a scan from `prio` issues one column
//!    command, then another scan from `prio` one row command, which already sees the column
//!    command: a read's tRTPL (`dram.timing.t_rtpl`) holds its bank group's precharges in the
//!    read's own cycle.
//!
//! Timing is the device's ([`Device`](crate::sim::dram::bank::Device)); GPGPU-Sim's `rwq`
//! (the read data pipeline, full only when its return queue is) is not modelled.

use super::{DramScheduler, SchedCtx};
use crate::sim::dram::command::{Command, CommandKind};
use crate::sim::dram::queues::{Banks, Listed, Pending, Queues, Slot};
use crate::sim::event::EventSink;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GpgpusimFrFcfs {
    /// Per bank: the request it serves (GPGPU-Sim's `bank_t::mrq`).
    held: Vec<Option<Slot>>,
    /// A bit per bank that holds a request.
    held_mask: u64,
    /// Per bank: the row whose requests it keeps taking while any wait (`m_last_row`).
    stay: Vec<Option<u32>>,
    /// Per bank: the row it last activated (`bank_t::curr_row`).
    curr_row: Vec<u32>,
    /// Where the round-robin scans start (`dram_t::prio`).
    prio: usize,
    /// What this cycle's second command is, once the first has issued.
    then: Then,
}

/// The second command of a cycle (`dram_t::cycle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Then {
    Nothing,
    /// One bus: the column command chosen with the row command, on a later bank.
    Column(Slot),
    /// Two buses: the row scan, made once the column command has issued.
    RowScan,
}

impl GpgpusimFrFcfs {
    pub fn new(banks: usize) -> GpgpusimFrFcfs {
        GpgpusimFrFcfs {
            held: vec![None; banks],
            held_mask: 0,
            stay: vec![None; banks],
            curr_row: vec![0; banks],
            prio: 0,
            then: Then::Nothing,
        }
    }

    /// The request bank `bank` (holding none) takes, if any waits (`frfcfs_scheduler::schedule`).
    fn take(&mut self, q: &Queues, bank: usize) -> Option<Slot> {
        let both = [q.reads[bank].as_slice(), q.writes[bank].as_slice()];
        let oldest = |row: Option<u32>| -> Option<&Listed> {
            both.iter().flat_map(|l| l.iter().find(|x| row.is_none_or(|r| x.row == r))).min_by_key(|x| x.seq)
        };
        let row = self.stay[bank].or_else(|| oldest(Some(self.curr_row[bank])).map(|x| x.row));
        let chosen = *oldest(row).or_else(|| oldest(None))?;
        let more = both.iter().flat_map(|l| l.iter()).any(|x| x.row == chosen.row && x.slot != chosen.slot);
        self.stay[bank] = more.then_some(chosen.row);
        Some(chosen.slot)
    }

    /// Bank `bank`'s request, if it holds one, and its next command's kind, if that command is
    /// ready now.
    #[inline]
    fn ready(&self, ctx: &SchedCtx<'_>, bank: usize) -> Option<(Slot, CommandKind)> {
        if self.held_mask >> bank & 1 == 0 {
            return None;
        }
        let slot = self.held[bank].expect("held bank");
        let cmd = ctx.next_command(slot);
        (ctx.device.earliest(cmd.kind, bank) <= ctx.now).then_some((slot, cmd.kind))
    }

    /// The first of `count` banks from `start` on (wrapping) whose request's ready command is
    /// of the kind asked for (column or row).
    fn first_ready(
        &self,
        ctx: &SchedCtx<'_>,
        start: usize,
        count: usize,
        column: bool,
    ) -> Option<(usize, Slot)> {
        let n = self.banks();
        (0..count).map(|k| (start + k) % n).find_map(|bank| match self.ready(ctx, bank) {
            Some((slot, kind)) if kind.is_cas() == column => Some((bank, slot)),
            _ => None,
        })
    }

    /// The two-bus row scan: the first ready row command from `prio`, which then moves to the
    /// bank after it.
    fn row_scan(&mut self, ctx: &SchedCtx<'_>) -> Option<Slot> {
        let n = self.banks();
        let (bank, slot) = self.first_ready(ctx, self.prio, n, false)?;
        self.prio = (bank + 1) % n;
        Some(slot)
    }

    fn banks(&self) -> usize {
        self.held.len()
    }
}

impl DramScheduler for GpgpusimFrFcfs {
    fn held(&self) -> Option<&[Option<Slot>]> {
        Some(&self.held)
    }

    fn select(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        let (q, n) = (ctx.queues, self.banks());
        // A bank without a request takes one (`dram_t::scheduler_frfcfs`).
        let waiting = (q.busy_mask(false) | q.busy_mask(true)) & !self.held_mask;
        if waiting != 0 {
            for i in 0..n {
                let bank = (i + self.prio) % n;
                if waiting >> bank & 1 != 0
                    && let Some(slot) = self.take(q, bank)
                {
                    self.held[bank] = Some(slot);
                    self.held_mask |= 1 << bank;
                    self.prio = (self.prio + 1) % n;
                    break;
                }
            }
        }
        // The commands (`dram_t::cycle`).
        self.then = Then::Nothing;
        if self.held_mask == 0 {
            return None;
        }
        if ctx.device.dual_bus {
            // The column command issues first; the row scan follows in `second_command`, on
            // the device as the column command left it.
            return match self.first_ready(ctx, self.prio, n, true) {
                Some((_, column)) => {
                    self.then = Then::RowScan;
                    Some(column)
                }
                None => self.row_scan(ctx),
            };
        }
        // One bus: the first ready command from `prio` on. A column command ends the scan; a
        // row command issues first, moves `prio` to the bank after it (`r`), and the scan's
        // remaining steps i (after r's own, i_r) look at bank i + r + 1 for a column command
        // to issue after it.
        for i in 0..n {
            let bank = (i + self.prio) % n;
            match self.ready(ctx, bank) {
                Some((slot, kind)) if kind.is_cas() => return Some(slot),
                Some((row, _)) => {
                    self.prio = (bank + 1) % n;
                    if let Some((_, column)) = self.first_ready(ctx, (i + 1 + self.prio) % n, n - 1 - i, true)
                    {
                        self.then = Then::Column(column);
                    }
                    return Some(row);
                }
                None => {}
            }
        }
        None
    }

    fn second_command(&mut self, ctx: &SchedCtx<'_>, _: &mut EventSink) -> Option<Slot> {
        match std::mem::replace(&mut self.then, Then::Nothing) {
            Then::Nothing => None,
            Then::Column(slot) => Some(slot),
            Then::RowScan => self.row_scan(ctx),
        }
    }

    fn on_issue(&mut self, _: Slot, cmd: &Command, _: &Queues) {
        if cmd.kind == CommandKind::Act {
            self.curr_row[cmd.bank as usize] = cmd.row;
        }
    }

    fn on_retire(&mut self, _: Slot, p: &Pending) {
        let bank = p.bank as usize;
        self.held[bank] = None;
        self.held_mask &= !(1 << bank);
    }

    /// The queue's places are shared by reads and writes, and a bank's request has left it.
    fn has_room(&self, q: &Queues, _: bool) -> bool {
        q.n_reads + q.n_writes < q.read_capacity + self.held_mask.count_ones() as usize
    }

    fn beyond_queue(&self) -> usize {
        self.banks()
    }

    /// While a bank without a request has some waiting, one is taken each cycle; otherwise
    /// nothing changes until a held request's next command is ready.
    fn wake_at(&self, ctx: &SchedCtx<'_>) -> Option<u64> {
        let q = ctx.queues;
        if (q.busy_mask(false) | q.busy_mask(true)) & !self.held_mask != 0 {
            return Some(ctx.now + 1);
        }
        let ready = Banks(self.held_mask).map(|bank| {
            let cmd = ctx.next_command(self.held[bank].expect("held bank"));
            ctx.device.earliest(cmd.kind, bank)
        });
        Some(ready.min().unwrap_or(u64::MAX).max(ctx.now + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::dram::sched::testkit::Kit;

    /// Issues the scheduler's choice `slot` at the kit's cycle, as the controller would, and
    /// retires the request after its last column command.
    fn issue(kit: &mut Kit, s: &mut GpgpusimFrFcfs, slot: Slot) -> CommandKind {
        let cmd = kit.ctx().0.next_command(slot);
        kit.device.issue(&cmd, kit.now);
        let bank = cmd.bank as usize;
        kit.queues.set_open_row(bank, kit.device.banks[bank].open_row);
        s.on_issue(slot, &cmd, &kit.queues);
        if cmd.kind.is_cas() {
            let p = kit.queues.get_mut(slot);
            p.cas_left -= 1;
            if p.cas_left == 0 {
                kit.retire(s, slot);
            }
        }
        cmd.kind
    }

    /// `frfcfs_scheduler::schedule` on one bank: the row last activated first (row 0 before any
    /// ACT), then the oldest request, then the rest of its row before anything else.
    #[test]
    fn a_bank_takes_its_open_row_then_the_oldest_then_stays_on_that_row() {
        let mut kit = Kit::new(&[]);
        let mut s = GpgpusimFrFcfs::new(16);
        let a = kit.request(&mut s, 0, 5, (0, 0, 0), true, false);
        let b = kit.request(&mut s, 0, 7, (0, 1, 0), true, true);
        let c = kit.request(&mut s, 0, 5, (0, 2, 0), true, false);
        let d = kit.request(&mut s, 0, 0, (0, 3, 0), true, false);
        let mut order = Vec::new();
        while let Some(slot) = s.take(&kit.queues, 0) {
            order.push(slot);
            kit.retire(&mut s, slot);
        }
        assert_eq!(order, [d, a, c, b], "row 0 (curr_row before any ACT), the oldest, its row, the rest");
    }

    /// One bank takes a request per cycle, the first from `prio` with some waiting, and `prio`
    /// moves one on; a row command moves it to the bank after its own. An idle scheduler wakes
    /// exactly when a held request's command is ready (seed 000 timing: tRRD = 9).
    #[test]
    fn banks_take_requests_in_turn_and_wake_when_a_command_is_ready() {
        let mut kit = Kit::new(&[]);
        let mut s = GpgpusimFrFcfs::new(16);
        let x = kit.request(&mut s, 2, 4, (0, 0, 0), true, false);
        let y = kit.request(&mut s, 1, 4, (0, 1, 0), true, false);
        assert_eq!(kit.select(&mut s).0, Some(y), "bank 1 comes first from prio 0, and its ACT is ready");
        assert_eq!(
            (s.held[1], s.held[2], s.prio),
            (Some(y), None, 2),
            "one bank a cycle; ACT moved prio past bank 1"
        );
        assert_eq!(issue(&mut kit, &mut s, y), CommandKind::Act);
        kit.now = 1;
        assert_eq!(kit.select(&mut s).0, None, "bank 2 took x, but its ACT waits for tRRD");
        assert_eq!((s.held[2], s.prio), (Some(x), 3));
        assert!(!kit.queues.is_empty() && s.has_room(&kit.queues, false));
        assert_eq!(s.wake_at(&kit.ctx().0), Some(9));
        kit.now = 8;
        assert_eq!(kit.select(&mut s).0, None);
        kit.now = 9;
        assert_eq!(kit.select(&mut s).0, Some(x));
    }

    /// With one bus, a row command may be followed by a column command on a bank later in the
    /// scan, which goes on from the moved `prio` at the next position — so the bank right after
    /// the row command's is skipped in that cycle (GPGPU-Sim's loop). With two buses, the
    /// column scan and then the row scan both start at `prio`, the column command first.
    #[test]
    fn a_row_command_may_take_a_column_command_along_on_a_later_bank() {
        for (hit_bank, dual, both) in [(2, false, true), (1, false, false), (1, true, true)] {
            let mut kit = Kit::new(&[]);
            kit.device = kit.device.clone().with_dual_bus(dual);
            let mut s = GpgpusimFrFcfs::new(16);
            let miss = kit.request(&mut s, 0, 3, (0, 0, 0), true, false);
            let hit = kit.request(&mut s, hit_bank, 6, (0, 1, 0), true, false);
            kit.open(hit_bank as usize, 6);
            kit.queues.set_open_row(hit_bank as usize, Some(6));
            s.held = vec![None; 16];
            s.held[0] = Some(miss);
            s.held[hit_bank as usize] = Some(hit);
            s.held_mask = 1 | 1 << hit_bank;
            let first = kit.select(&mut s).0.expect("a command");
            issue(&mut kit, &mut s, first);
            let second = s.second_command(&kit.ctx().0, &mut EventSink::default());
            let what = format!("hit on bank {hit_bank}, dual bus {dual}");
            let (row, column) = if dual { (second, Some(first)) } else { (Some(first), second) };
            assert_eq!(row, Some(miss), "{what}: the ACT at prio");
            assert_eq!(column, both.then_some(hit), "{what}");
            assert_eq!(s.prio, 1, "{what}: the ACT on bank 0 moved prio to bank 1");
        }
    }

    /// With two buses the row scan sees the cycle's column command, issued before it (GPGPU-Sim's
    /// `dram_t::cycle` calls `issue_col_command` before `issue_row_command`): a read's tRTPL
    /// holds the precharges of its bank group from its own cycle on, so the PRE goes to a bank
    /// of another group; without tRTPL the first bank from `prio` gets it.
    #[test]
    fn with_two_buses_a_reads_trtpl_holds_its_groups_precharge_in_its_own_cycle() {
        for (rtpl, pre_bank) in [(0, 5), (3, 6)] {
            let mut kit = Kit::new(&[&format!("dram.timing.t_rtpl=Ck({rtpl})")]);
            kit.device = kit.device.clone().with_dual_bus(true);
            let mut s = GpgpusimFrFcfs::new(16);
            // Bank 1 reads its open row; banks 5 (bank 1's group: 5 mod 4) and 6 must close theirs.
            let mut held = Vec::new();
            for (bank, row) in [(1u8, 6), (5, 3), (6, 3)] {
                held.push(kit.request(&mut s, bank, row, (0, bank.into(), 0), true, false));
                kit.open(bank as usize, 6);
                kit.queues.set_open_row(bank as usize, Some(6));
                s.held[bank as usize] = held.last().copied();
                s.held_mask |= 1 << bank;
            }
            let column = kit.select(&mut s).0;
            assert_eq!(column, Some(held[0]), "tRTPL {rtpl}: bank 1's read");
            assert_eq!(issue(&mut kit, &mut s, held[0]), CommandKind::Rd);
            let row = s.second_command(&kit.ctx().0, &mut EventSink::default());
            let chosen = row.map(|slot| kit.ctx().0.next_command(slot));
            assert_eq!(
                chosen.map(|c| (c.kind, c.bank)),
                Some((CommandKind::Pre, pre_bank)),
                "tRTPL {rtpl}: the precharge"
            );
        }
    }

    /// Reads and writes share the queue's places, and a request a bank holds has left it.
    #[test]
    fn reads_and_writes_share_the_queue_and_a_held_request_frees_its_place() {
        let mut kit = Kit::new(&[
            "dram.read_queue=2",
            "dram.write_queue=2",
            "dram.write_high_watermark=2",
            "dram.write_low_watermark=1",
        ]);
        let mut s = GpgpusimFrFcfs::new(16);
        kit.queues = kit.queues.clone().with_spare_slots(s.beyond_queue());
        kit.request(&mut s, 0, 1, (0, 0, 0), true, false);
        assert!(s.has_room(&kit.queues, true));
        kit.request(&mut s, 0, 2, (0, 1, 0), true, true);
        assert!(
            !s.has_room(&kit.queues, false) && !s.has_room(&kit.queues, true),
            "a read and a write fill 2 places"
        );
        kit.select(&mut s);
        assert_eq!(s.held_mask, 1);
        assert!(s.has_room(&kit.queues, false), "bank 0 took the read: one place is free");
        kit.request(&mut s, 1, 2, (0, 2, 0), true, false);
        assert!(!s.has_room(&kit.queues, true));
    }
}
