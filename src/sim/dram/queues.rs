//! The controller's read and write queues: a slab of pending requests plus, per bank, that
//! bank's reads and writes in arrival order (what schedulers scan). List entries carry the
//! row and arrival order inline, so a scan never leaves the list.

use super::command::{Command, CommandKind};
use crate::sim::request::MemRequest;

/// Index of a pending request in the controller's slab.
pub type Slot = u16;

/// A pending request as listed under its bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Listed {
    pub slot: Slot,
    pub row: u32,
    /// Arrival order (smaller = older).
    pub seq: u64,
}

/// A request waiting in (or being served from) a controller queue.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pending {
    pub req: MemRequest,
    /// DRAM cycle it entered the queue.
    pub arrival: u64,
    /// Arrival order (unique, increasing).
    pub seq: u64,
    pub bank: u8,
    pub row: u32,
    /// Column of the next burst.
    pub col: u32,
    /// Column commands still to issue.
    pub cas_left: u8,
    /// A command has issued on its behalf.
    pub started: bool,
    pub is_write: bool,
}

/// The banks of a bit mask (bit b = bank b), in bank order.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Banks(pub u64);

impl Iterator for Banks {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let bank = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(bank)
    }
}

/// Sets (`on`) or clears bank `bank`'s bit of `mask`.
#[inline]
fn set_bit(mask: &mut u64, bank: usize, on: bool) {
    *mask = if on { *mask | 1 << bank } else { *mask & !(1 << bank) };
}

/// A bit per bank whose entry satisfies `has` (what a kept mask must equal: debug checks).
fn mask_where<T>(per_bank: &[T], has: impl Fn(&T) -> bool) -> u64 {
    per_bank.iter().enumerate().filter(|(_, x)| has(x)).fold(0, |m, (b, _)| m | 1 << b)
}

/// Read and write queues of one controller.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Queues {
    slots: Vec<Option<Pending>>,
    free: Vec<Slot>,
    /// Per bank: reads, oldest first.
    pub reads: Vec<Vec<Listed>>,
    /// Per bank: writes, oldest first.
    pub writes: Vec<Vec<Listed>>,
    pub n_reads: usize,
    pub n_writes: usize,
    pub read_capacity: usize,
    pub write_capacity: usize,
    /// Banks with at least one pending request.
    pub banks_pending: usize,
    next_seq: u64,
    /// Per bank: the row the device has open, as last told by [`Queues::set_open_row`].
    open: Vec<Option<u32>>,
    /// Per direction (reads `[0]`, writes `[1]`) and bank: listed requests to the open row,
    /// so schedulers know whether a bank has a row hit without scanning its list.
    hits: [Vec<u16>; 2],
    /// Per direction: a bit per bank with listed requests, so scans skip idle banks.
    busy: [u64; 2],
    /// Per direction: a bit per bank with listed requests to its open row (`hits` above 0).
    hit_banks: [u64; 2],
    /// A bit per bank with an open row, as last told by [`Queues::set_open_row`].
    open_banks: u64,
}

impl Queues {
    pub fn new(banks: usize, read_capacity: usize, write_capacity: usize) -> Queues {
        let total = read_capacity + write_capacity;
        Queues {
            slots: vec![None; total],
            free: (0..total as Slot).rev().collect(),
            reads: (0..banks).map(|_| Vec::with_capacity(read_capacity)).collect(),
            writes: (0..banks).map(|_| Vec::with_capacity(write_capacity)).collect(),
            n_reads: 0,
            n_writes: 0,
            read_capacity,
            write_capacity,
            banks_pending: 0,
            next_seq: 0,
            open: vec![None; banks],
            hits: [vec![0; banks], vec![0; banks]],
            busy: [0; 2],
            hit_banks: [0; 2],
            open_banks: 0,
        }
    }

    /// The queues with `n` slots more than their capacities (for a scheduler that takes
    /// requests out of their count while they are served: [`DramScheduler::beyond_queue`]).
    ///
    /// [`DramScheduler::beyond_queue`]: super::sched::DramScheduler::beyond_queue
    pub fn with_spare_slots(mut self, n: usize) -> Queues {
        let total = self.slots.len();
        self.slots.resize(total + n, None);
        self.free.splice(0..0, (total as Slot..(total + n) as Slot).rev());
        self
    }

    /// Whether a request of this direction fits.
    pub fn has_room(&self, is_write: bool) -> bool {
        if is_write { self.n_writes < self.write_capacity } else { self.n_reads < self.read_capacity }
    }

    /// Adds a request (the caller checked [`Queues::has_room`]).
    pub fn insert(&mut self, mut p: Pending) -> Slot {
        let slot = self.free.pop().expect("has_room checked");
        p.seq = self.next_seq;
        self.next_seq += 1;
        let bank = p.bank as usize;
        if self.reads[bank].is_empty() && self.writes[bank].is_empty() {
            self.banks_pending += 1;
        }
        let listed = Listed { slot, row: p.row, seq: p.seq };
        if self.open[bank] == Some(p.row) {
            self.hits[p.is_write as usize][bank] += 1;
            self.hit_banks[p.is_write as usize] |= 1 << bank;
        }
        self.busy[p.is_write as usize] |= 1 << bank;
        if p.is_write {
            self.writes[bank].push(listed);
            self.n_writes += 1;
        } else {
            self.reads[bank].push(listed);
            self.n_reads += 1;
        }
        self.slots[slot as usize] = Some(p);
        slot
    }

    /// Removes a served request.
    pub fn remove(&mut self, slot: Slot) -> Pending {
        let p = self.slots[slot as usize].take().expect("removing a live slot");
        let bank = p.bank as usize;
        let list = if p.is_write { &mut self.writes[bank] } else { &mut self.reads[bank] };
        let pos = list.iter().position(|l| l.slot == slot).expect("slot is listed");
        list.remove(pos);
        if list.is_empty() {
            self.busy[p.is_write as usize] &= !(1 << bank);
        }
        if self.open[bank] == Some(p.row) {
            let hits = &mut self.hits[p.is_write as usize][bank];
            *hits -= 1;
            if *hits == 0 {
                self.hit_banks[p.is_write as usize] &= !(1 << bank);
            }
        }
        if p.is_write {
            self.n_writes -= 1;
        } else {
            self.n_reads -= 1;
        }
        if self.reads[bank].is_empty() && self.writes[bank].is_empty() {
            self.banks_pending -= 1;
        }
        self.free.push(slot);
        p
    }

    #[inline]
    pub fn get(&self, slot: Slot) -> &Pending {
        self.slots[slot as usize].as_ref().expect("live slot")
    }

    #[inline]
    pub fn get_mut(&mut self, slot: Slot) -> &mut Pending {
        self.slots[slot as usize].as_mut().expect("live slot")
    }

    /// The device opened `row` in `bank` (or closed it: `None`); recounts the bank's hits.
    pub fn set_open_row(&mut self, bank: usize, row: Option<u32>) {
        self.open[bank] = row;
        set_bit(&mut self.open_banks, bank, row.is_some());
        for (dir, lists) in [&self.reads, &self.writes].into_iter().enumerate() {
            let hits = match row {
                Some(r) => lists[bank].iter().filter(|l| l.row == r).count() as u16,
                None => 0,
            };
            self.hits[dir][bank] = hits;
            set_bit(&mut self.hit_banks[dir], bank, hits > 0);
        }
    }

    /// Listed requests of one direction to `bank`'s open row (`open_row`, the device's: it
    /// must be the row last given to [`Queues::set_open_row`]).
    #[inline]
    pub fn row_hits(&self, writes: bool, bank: usize, open_row: Option<u32>) -> usize {
        let hits = usize::from(self.hits[writes as usize][bank]);
        debug_assert_eq!(self.open[bank], open_row, "bank {bank}: the queues missed a row change");
        debug_assert_eq!(
            hits,
            open_row.map_or(0, |r| self.lists(writes)[bank].iter().filter(|l| l.row == r).count()),
            "bank {bank}: stale row-hit count"
        );
        hits
    }

    /// Banks with requests of one direction waiting (WG-Bw's b, seed 000 §IV-D).
    pub fn busy_banks(&self, writes: bool) -> usize {
        self.busy[writes as usize].count_ones() as usize
    }

    /// A bit per bank with requests of one direction waiting.
    #[inline]
    pub fn busy_mask(&self, writes: bool) -> u64 {
        let bits = self.busy[writes as usize];
        debug_assert_eq!(bits, mask_where(self.lists(writes), |l| !l.is_empty()), "stale busy-bank mask");
        bits
    }

    /// A bit per bank with requests of one direction to its open row (those whose
    /// [`Queues::row_hits`] is above 0).
    #[inline]
    pub fn hit_mask(&self, writes: bool) -> u64 {
        let bits = self.hit_banks[writes as usize];
        debug_assert_eq!(bits, mask_where(&self.hits[writes as usize], |&h| h > 0), "stale hit-bank mask");
        bits
    }

    /// A bit per bank with an open row (as last given to [`Queues::set_open_row`]).
    #[inline]
    pub fn open_mask(&self) -> u64 {
        debug_assert_eq!(self.open_banks, mask_where(&self.open, Option::is_some), "stale open-bank mask");
        self.open_banks
    }

    /// The banks with requests of one direction waiting, in bank order, with their lists.
    #[inline]
    pub fn busy_lists(&self, writes: bool) -> impl Iterator<Item = (usize, &[Listed])> + '_ {
        let lists = self.lists(writes);
        Banks(self.busy_mask(writes)).map(move |bank| (bank, lists[bank].as_slice()))
    }

    /// Per-bank lists of one direction.
    #[inline]
    pub fn lists(&self, writes: bool) -> &[Vec<Listed>] {
        if writes { &self.writes } else { &self.reads }
    }

    /// Every pending request, oldest first (for views; not for the hot path).
    pub fn pending(&self) -> Vec<(Slot, &Pending)> {
        let mut v: Vec<(Slot, &Pending)> =
            self.slots.iter().enumerate().filter_map(|(i, p)| p.as_ref().map(|p| (i as Slot, p))).collect();
        v.sort_by_key(|(_, p)| p.seq);
        v
    }

    pub fn is_empty(&self) -> bool {
        self.n_reads == 0 && self.n_writes == 0
    }

    /// The command the request needs next, given the bank's open row.
    #[inline]
    pub fn next_command(&self, slot: Slot, open_row: Option<u32>) -> Command {
        let p = self.get(slot);
        let kind = match open_row {
            Some(r) if r == p.row => {
                if p.is_write {
                    CommandKind::Wr
                } else {
                    CommandKind::Rd
                }
            }
            Some(_) => CommandKind::Pre,
            None => CommandKind::Act,
        };
        Command { kind, bank: p.bank, row: p.row, col: p.col }
    }
}
