//! Hand-built controller states for the schedulers' unit tests: queues, a device whose open
//! rows the test sets, and requests with the origin (SM, warp, load) the test chooses.

use super::{DramScheduler, SchedCtx};
use crate::config::Config;
use crate::sim::dram::bank::Device;
use crate::sim::dram::queues::{Pending, Queues, Slot};
use crate::sim::dram::timing::Timing;
use crate::sim::event::{Event, EventKind, EventSink};
use crate::sim::request::{AccessKind, MemRequest, Origin};

pub struct Kit {
    pub config: Config,
    pub queues: Queues,
    pub device: Device,
    pub now: u64,
    pub draining: bool,
    pub sink: EventSink,
    next_id: u64,
}

impl Kit {
    /// The default machine with `sets` applied.
    pub fn new(sets: &[&str]) -> Kit {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::default().with_sets(&sets).expect("test config");
        let d = &c.dram;
        let mut sink = EventSink::default();
        for k in EventKind::ALL {
            sink.set(*k, true);
        }
        Kit {
            queues: Queues::new(d.banks as usize, d.read_queue as usize, d.write_queue as usize),
            device: Device::new(Timing::from_config(&c), d.banks as usize, d.bank_groups as usize),
            config: c,
            now: 0,
            draining: false,
            sink,
            next_id: 0,
        }
    }

    /// Opens `row` in `bank` (timing as if long ago).
    pub fn open(&mut self, bank: usize, row: u32) {
        self.device.banks[bank].open_row = Some(row);
    }

    /// Queues a request of warp-load (core, warp, load) to (bank, row); `last` tags it as the
    /// group's last request (its only L2 slice is slice 0). The load's number is also its slot
    /// in the warp's outstanding-load table (a test keeps few loads of a warp in flight).
    pub fn request(
        &mut self,
        sched: &mut impl DramScheduler,
        bank: u8,
        row: u32,
        who: (u16, u16, u32),
        last: bool,
        write: bool,
    ) -> Slot {
        let origin = Origin {
            core: who.0,
            warp: who.1,
            load_seq: who.2,
            load_slot: who.2 as u8,
            last_to_channel: last,
            group_slices: 1,
            ..Origin::default()
        };
        let mut req = MemRequest {
            id: self.next_id,
            kind: if write { AccessKind::Writeback } else { AccessKind::Load },
            addr: self.next_id * 128,
            bytes: 128,
            lanes: 0,
            origin,
            loc: Default::default(),
            trace: Default::default(),
        };
        req.loc.bank = bank.into();
        req.loc.row = row;
        self.next_id += 1;
        let slot = self.queues.insert(Pending {
            req,
            arrival: self.now,
            seq: 0,
            bank,
            row,
            col: 0,
            cas_left: 2,
            started: false,
            is_write: write,
        });
        sched.on_arrival(slot, &self.queues);
        slot
    }

    /// A group of reads (core, warp, load) to `targets` (bank, row), the last one tagged.
    pub fn group(
        &mut self,
        sched: &mut impl DramScheduler,
        who: (u16, u16, u32),
        targets: &[(u8, u32)],
    ) -> Vec<Slot> {
        let n = targets.len();
        targets
            .iter()
            .enumerate()
            .map(|(i, &(b, r))| self.request(sched, b, r, who, i + 1 == n, false))
            .collect()
    }

    /// Removes a served request, as the controller does after its last column command.
    pub fn retire(&mut self, sched: &mut impl DramScheduler, slot: Slot) {
        let p = self.queues.remove(slot);
        sched.on_retire(slot, &p);
    }

    /// What the scheduler sees, and the event sink.
    pub fn ctx(&mut self) -> (SchedCtx<'_>, &mut EventSink) {
        let ctx = SchedCtx {
            queues: &self.queues,
            device: &self.device,
            now: self.now,
            draining: self.draining,
            channel: 0,
            write_high: self.config.dram.write_high_watermark as usize,
        };
        (ctx, &mut self.sink)
    }

    /// One call of the scheduler; returns its choice and the events it emitted.
    pub fn select(&mut self, sched: &mut impl DramScheduler) -> (Option<Slot>, Vec<Event>) {
        let (ctx, sink) = self.ctx();
        let choice = sched.select(&ctx, sink);
        (choice, self.sink.drain().map(|(_, e)| e).collect())
    }
}
