//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod cases;
pub mod mutate;
pub mod timing_checker;

use std::sync::Arc;
use warpscope::config::{Config, Origin};
use warpscope::sim::dram::Controller;
use warpscope::sim::dram::mapping::AddressMap;
use warpscope::sim::ledger::Ledger;
use warpscope::sim::request::{AccessKind, MemRequest};
use warpscope::sim::stats::report::Report;
use warpscope::sim::{Event, EventKind, EventSink, Gpu};
use warpscope::workload::Workload;

/// Runs the binary with `args`: its exit code, standard output and standard error.
pub fn run_cli(args: &[&str]) -> (i32, String, String) {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_warpscope")).args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Writes a sweep grid of `workloads` (paths or names, written as given) in `dir`, with the
/// grid's other fields `rest` (RON, after the workloads); returns its path.
pub fn grid_file(dir: &std::path::Path, workloads: &[String], rest: &str) -> std::path::PathBuf {
    let list: Vec<String> = workloads.iter().map(|w| format!("{w:?}")).collect();
    let grid = dir.join("grid.ron");
    std::fs::write(&grid, format!("(workloads: [{}], {rest})", list.join(", "))).unwrap();
    grid
}

/// The Rust files below `dir`, sorted.
pub fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// A small, fast machine for end-to-end tests: 4 SMs, 2 channels.
pub const SMALL_CONFIG: &str = include_str!("../fixtures/small.ron");

pub fn small_config(sets: &[&str]) -> Config {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Config::from_text(SMALL_CONFIG, Origin::File("tests/fixtures/small.ron".into()), &sets)
        .expect("small config")
}

pub fn workload(text: &str, seed: u64) -> Arc<Workload> {
    Arc::new(Workload::from_text(text, &Origin::File("test workload".into()), seed).expect("workload"))
}

pub fn gpu(config: Config, workload: Arc<Workload>) -> Gpu {
    Gpu::new(Arc::new(config), workload).expect("machine builds")
}

/// A request to `addr` for a standalone controller.
pub fn dram_request(map: &AddressMap, id: u64, addr: u64, write: bool) -> MemRequest {
    MemRequest {
        id,
        kind: if write { AccessKind::Writeback } else { AccessKind::Load },
        addr,
        bytes: 128,
        lanes: 0,
        origin: Default::default(),
        loc: map.map(addr),
        trace: Default::default(),
    }
}

/// Gives consecutive reads warp-load origins — groups of 1, 2, 3, 4, 1, ... reads — tagged as
/// an SM would: the last read of each group through each L2 slice, and the group's slices.
pub fn tag_warp_groups(reqs: &mut [MemRequest]) {
    let reads: Vec<usize> = (0..reqs.len()).filter(|&i| !reqs[i].kind.is_write()).collect();
    let (mut g, mut start) = (0u32, 0usize);
    while start < reads.len() {
        let end = (start + 1 + (g % 4) as usize).min(reads.len());
        let members = &reads[start..end];
        let slices = members.iter().fold(0u8, |m, &i| m | 1 << reqs[i].loc.slice);
        for (k, &i) in members.iter().enumerate() {
            let slice = reqs[i].loc.slice;
            let last = members[k + 1..].iter().all(|&j| reqs[j].loc.slice != slice);
            let o = &mut reqs[i].origin;
            (o.core, o.warp, o.load_seq, o.group_slices) = ((g % 8) as u16, (g / 8 % 32) as u16, g, slices);
            o.last_to_channel = last;
        }
        g += 1;
        start = end;
    }
}

/// What a standalone controller did with a request stream.
pub struct Driven {
    pub cmds: Vec<timing_checker::Cmd>,
    pub served: usize,
    pub total: usize,
    pub controller: Controller,
}

/// Feeds `addrs` (address, is_write) to channel 0's controller as fast as it accepts them
/// (only addresses that map to channel 0 are used) until every request is served.
pub fn drive_controller(config: &Config, addrs: &[(u64, bool)]) -> Driven {
    let map = AddressMap::new(config);
    let mut mc = Controller::new(config, 0);
    let mut sink = EventSink::default();
    sink.set(EventKind::DramCommand, true);
    let mut reqs: Vec<MemRequest> = addrs
        .iter()
        .enumerate()
        .map(|(i, &(a, w))| dram_request(&map, i as u64, a, w))
        .filter(|r| r.loc.channel == 0)
        .collect();
    tag_warp_groups(&mut reqs);
    let total = reqs.len();
    let mut next = 0;
    let mut reads_done = 0;
    let mut cmds = Vec::new();
    let mut idle = 0;
    while (next < total || !mc.is_idle()) && idle < 100_000 {
        if next < total && mc.can_accept(reqs[next].kind.is_write()) {
            mc.enqueue(reqs[next], mc.now);
            next += 1;
        }
        let before = cmds.len();
        mc.tick(mc.now, &mut sink, &mut Ledger::default());
        for (_, e) in sink.drain() {
            if let Event::DramCommand { dram_cycle, cmd, .. } = e {
                cmds.push(timing_checker::Cmd {
                    cycle: dram_cycle,
                    bank: cmd.bank as usize,
                    kind: cmd.kind,
                    row: cmd.row,
                });
            }
        }
        while let Some(r) = mc.pop_completed() {
            reads_done += usize::from(r.kind != AccessKind::Prefetch);
        }
        idle = if cmds.len() == before { idle + 1 } else { 0 };
    }
    let served = reads_done + mc.stats.writes as usize;
    Driven { cmds, served, total, controller: mc }
}

/// Runs to completion (asserting it does within `limit` cycles), returning the machine, its
/// report (wall time zeroed) and its DRAM command trace.
pub fn run_traced(mut g: Gpu, limit: u64) -> (Gpu, Report, Vec<String>) {
    g.events.set(EventKind::DramCommand, true);
    let mut trace = Vec::new();
    while g.is_running() {
        g.step();
        for (_, e) in g.events.drain() {
            if let Event::DramCommand { channel, dram_cycle, cmd } = e {
                trace.push(format!(
                    "{dram_cycle} {channel} {} {} {} {}",
                    cmd.bank, cmd.kind, cmd.row, cmd.col
                ));
            }
        }
        assert!(g.cycle < limit, "runaway simulation");
    }
    let report = Report::new(&g, 0.0);
    (g, report, trace)
}

/// Runs to completion within `limit` cycles, checking every `every` cycles that created −
/// retired requests equals the requests found in the machine's queues, and that the
/// debugger finds each request a warp still waits on somewhere (`what` names the case in a
/// failure). Returns how many checks it made.
pub fn run_conserving(g: &mut Gpu, every: u64, limit: u64, what: &str) -> u32 {
    let mut checks = 0;
    while g.is_running() {
        g.step();
        if g.cycle.is_multiple_of(every) {
            assert_eq!(
                g.ledger.in_flight() as usize,
                g.requests_in_flight(),
                "{what} cycle {}: created − retired must equal the requests found in queues",
                g.cycle
            );
            for sm in &g.sms {
                let loads = sm.exec.warps.iter().flat_map(|w| w.loads.iter().filter(|l| l.active));
                for r in loads.flat_map(|l| l.reqs.iter().filter(|r| r.trace.done == 0)) {
                    assert!(
                        warpscope::sim::inspect::locate_request(g, r.id).is_some(),
                        "{what} cycle {}: request {} of SM {} is in flight but nowhere to be found",
                        g.cycle,
                        r.id,
                        sm.id
                    );
                }
            }
            checks += 1;
        }
        assert!(g.cycle < limit, "{what}: runaway simulation");
    }
    checks
}
