//! Every DRAM command the controllers issue obeys every GDDR5 constraint (MECHANISMS §2),
//! checked by an independent replay of the command trace, under each scheduler, on random
//! and adversarial request streams.

mod common;

use common::timing_checker::{Bus, check, check_bus};
use common::{drive_controller, small_config};
use proptest::prelude::*;
use warpscope::config::{Config, DramSchedulerName};
use warpscope::sim::dram::timing::Timing;

fn assert_legal(config: &Config, addrs: &[(u64, bool)]) -> common::Driven {
    let d = drive_controller(config, addrs);
    assert_eq!(d.served, d.total, "every request is served");
    assert!(d.total == 0 || d.cmds.len() >= 2 * d.total, "each request needs at least two bursts");
    let t = Timing::from_config(config);
    let bus = match config.dram.scheduler {
        DramSchedulerName::GpgpusimFrFcfs => Bus::RowThenColumn,
        _ => Bus::OneCommand,
    };
    let errors = check_bus(&t, config.dram.banks as usize, config.dram.bank_groups as usize, &d.cmds, bus);
    assert!(errors.is_empty(), "{} violations, first: {:?}", errors.len(), &errors[..errors.len().min(5)]);
    d
}

/// Every scheduler, with and without refresh, with the seed-000 timings and with a timing set
/// where tFAW binds (with seed 000's, 4 × tRRD = 36 ≥ tFAW = 35, so it never does) and
/// turnarounds are long; and opportunistic prefetching (which holds rows open) under two of
/// them.
fn configs() -> Vec<Config> {
    let mut out = Vec::new();
    for prefetch in ["frfcfs", "wg-bw"] {
        out.push(small_config(&[
            &format!("dram.scheduler={prefetch}"),
            "dram.prefetch.enabled=true",
            "dram.refresh=Some((t_refi: Ck(2000), t_rfc: Ck(120)))",
        ]));
    }
    for &sched in DramSchedulerName::NAMES {
        for refresh in ["None", "Some((t_refi: Ck(2000), t_rfc: Ck(120)))"] {
            for timing in [
                &[][..],
                &["dram.timing.t_faw=Ck(60)", "dram.timing.t_rtrs=Ck(4)", "dram.timing.t_wtr=Ck(12)"][..],
            ] {
                let mut sets = vec![format!("dram.scheduler={sched}"), format!("dram.refresh={refresh}")];
                sets.extend(timing.iter().map(|s| s.to_string()));
                let sets: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
                out.push(small_config(&sets));
            }
        }
    }
    out
}

/// Addresses concentrated on few banks and rows of channel 0: row conflicts, same-group
/// CAS pairs, read/write turnarounds and ACT bursts that hit tFAW.
fn adversarial() -> impl Strategy<Value = Vec<(u64, bool)>> {
    prop::collection::vec((0u64..4, 0u64..3, 0u64..32, prop::bool::weighted(0.3)), 1..300).prop_map(|v| {
        v.into_iter()
            .map(|(bank_sel, row, col, w)| {
                // With the linear mapping on 2 channels: 256 B chunks alternate channels;
                // a channel row holds 4096 B (16 chunks); banks are the next 4 bits.
                let chunk = col % 16 + 16 * (bank_sel * 4 % 16) + 16 * 16 * row;
                (chunk * 2 * 256 + (col & 1) * 128, w)
            })
            .collect()
    })
}

fn random_stream() -> impl Strategy<Value = Vec<(u64, bool)>> {
    prop::collection::vec((0u64..(1 << 28), prop::bool::weighted(0.33)), 1..400)
        .prop_map(|v| v.into_iter().map(|(a, w)| (a & !127, w)).collect())
}

proptest! {
    #![proptest_config(common::cases::config(common::cases::DRAM_STREAMS))]

    #[test]
    fn adversarial_streams_obey_every_constraint(addrs in adversarial()) {
        for mut c in configs() {
            c.dram.mapping.scheme = warpscope::config::MappingScheme::Linear;
            assert_legal(&c, &addrs);
        }
    }

    #[test]
    fn random_streams_obey_every_constraint(addrs in random_stream()) {
        for c in configs() {
            assert_legal(&c, &addrs);
        }
    }
}

#[test]
fn the_checker_catches_violations() {
    use common::timing_checker::Cmd;
    use warpscope::sim::dram::command::CommandKind::*;
    let c = small_config(&[]);
    let t = Timing::from_config(&c);
    let bad =
        [Cmd { cycle: 0, bank: 0, kind: Act, row: 1 }, Cmd { cycle: t.rcd - 1, bank: 0, kind: Rd, row: 1 }];
    assert!(check(&t, 16, 4, &bad)[0].contains("tRCD"));
    let bad = [
        Cmd { cycle: 0, bank: 0, kind: Act, row: 1 },
        Cmd { cycle: t.rrd, bank: 1, kind: Act, row: 1 },
        Cmd { cycle: 2 * t.rrd, bank: 2, kind: Act, row: 1 },
        Cmd { cycle: 3 * t.rrd, bank: 3, kind: Act, row: 1 },
        Cmd { cycle: t.faw - 1, bank: 4, kind: Act, row: 1 },
    ];
    assert!(check(&t, 16, 4, &bad).iter().any(|e| e.contains("tFAW") || e.contains("tRRD")));
    let bad = [Cmd { cycle: 0, bank: 0, kind: Rd, row: 1 }];
    assert!(check(&t, 16, 4, &bad)[0].contains("open row"));
    // GPGPU-Sim's one bus takes a row command and then a column command to another bank in
    // one cycle, never a column command first, nor a third command.
    let open = Cmd { cycle: 0, bank: 1, kind: Act, row: 2 };
    let row_col = [
        open,
        Cmd { cycle: t.rcd, bank: 0, kind: Act, row: 1 },
        Cmd { cycle: t.rcd, bank: 1, kind: Rd, row: 2 },
    ];
    assert!(check(&t, 16, 4, &row_col)[0].contains("not after the previous command"));
    assert_eq!(check_bus(&t, 16, 4, &row_col, Bus::RowThenColumn), Vec::<String>::new());
    let col_row = [
        open,
        Cmd { cycle: t.rcd, bank: 1, kind: Rd, row: 2 },
        Cmd { cycle: t.rcd, bank: 0, kind: Act, row: 1 },
    ];
    assert!(check_bus(&t, 16, 4, &col_row, Bus::RowThenColumn)[0].contains("not after the previous command"));
    let three = [open, row_col[1], row_col[2], Cmd { cycle: t.rcd, bank: 2, kind: Act, row: 1 }];
    assert!(check_bus(&t, 16, 4, &three, Bus::RowThenColumn)[0].contains("not after the previous command"));
}

#[test]
fn a_single_bank_row_hit_stream_is_bound_by_tccdl() {
    // The 32 lines of one row of one bank of channel 0 (linear mapping), over and over:
    // back-to-back reads in one bank group are tCCDL = 3 apart for tBURST = 2 of data, so the
    // bus can be at most 2/3 busy.
    let mut c = small_config(&["dram.scheduler=frfcfs"]);
    c.dram.mapping.scheme = warpscope::config::MappingScheme::Linear;
    let addrs: Vec<(u64, bool)> =
        (0..4000u64).map(|i| (((i % 32) / 2) * 512 + (i % 2) * 128, false)).collect();
    let d = assert_legal(&c, &addrs);
    let s = &d.controller.stats;
    let util = s.busy_cycles as f64 / s.cycles as f64;
    assert!((0.60..=0.667).contains(&util), "utilization {util}");
    assert!(s.row_hits as f64 / d.total as f64 > 0.95);
}

#[test]
fn row_hits_spread_over_bank_groups_fill_the_bus() {
    // The same lines but visiting four banks of different groups in turn: tCCDS = tBURST,
    // so the bus can be (almost) fully busy.
    let mut c = small_config(&["dram.scheduler=frfcfs"]);
    c.dram.mapping.scheme = warpscope::config::MappingScheme::Linear;
    let row = 4096 * 2; // one channel-0 row spans 16 chunks, i.e. 8 KiB of addresses
    let addrs: Vec<(u64, bool)> = (0..4000u64)
        .map(|i| {
            let bank = i % 4;
            let k = i / 4;
            (bank * row + (k / 2) * 512 + (k % 2) * 128, false)
        })
        .collect();
    let d = assert_legal(&c, &addrs);
    let s = &d.controller.stats;
    let util = s.busy_cycles as f64 / s.cycles as f64;
    assert!(util > 0.9, "utilization {util}");
}
