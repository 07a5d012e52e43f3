//! Bad configs and workloads get a message naming the file, line:column, key and what would
//! be valid — one test per kind of bad input.

mod common;

use common::cases;
use warpscope::config::{Config, DramSchedulerName, Origin, WarpSchedulerName};
use warpscope::workload::Workload;

fn config_error(text: &str) -> String {
    Config::from_text(text, Origin::File("m.ron".into()), &[]).unwrap_err().to_string()
}

fn set_error(sets: &[&str]) -> String {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Config::from_text("()", Origin::File("m.ron".into()), &sets).unwrap_err().to_string()
}

#[test]
fn syntax_error_has_a_position() {
    assert_eq!(config_error("(\n  l1: (sets: 32,\n)\n"), "m.ron:3:2: Expected comma");
}

#[test]
fn unknown_key_lists_the_valid_ones() {
    let e = config_error("(\n  l1: (setz: 4),\n)");
    assert!(
        e.starts_with("m.ron:2:8: l1.setz: unknown key `setz`; valid keys here: sets, ways, line_bytes"),
        "{e}"
    );
    let e = config_error("(\n  dramm: (),\n)");
    assert!(e.contains("unknown key `dramm`") && e.contains("dram"), "{e}");
}

#[test]
fn wrong_type_names_the_key() {
    assert_eq!(config_error("(\n  l1: (sets: \"many\"),\n)"), "m.ron:2:13: l1.sets: Expected integer");
    let e = config_error("(dram: (timing: (t_rcd: 12)))");
    assert!(
        e.contains("dram.timing.t_rcd: expected a timing value: Ns(<nanoseconds>) or Ck(<DRAM cycles>)"),
        "{e}"
    );
}

#[test]
fn zero_and_non_power_of_two_sets() {
    assert_eq!(
        config_error("(\n  l1: (sets: 0),\n)"),
        "m.ron:2:8: l1.sets = 0: must be a power of two (e.g. 32, 64) with l1.index = \"conv\""
    );
    assert!(
        config_error("(\n  l2: (sets: 48),\n)")
            .starts_with("m.ron:2:8: l2.sets = 48: must be a power of two")
    );
}

#[test]
fn zero_sized_queue() {
    assert_eq!(
        config_error("(\n  l2: (miss_queue: 0),\n)"),
        "m.ron:2:8: l2.miss_queue = 0: must be between 1 and 65536"
    );
    assert!(
        config_error("(dram: (read_queue: 0))").contains("dram.read_queue = 0: must be between 1 and 65536")
    );
}

#[test]
fn more_mshrs_than_the_id_can_address() {
    assert_eq!(
        config_error("(\n  l1: (mshr_entries: 5000),\n)"),
        "m.ron:2:8: l1.mshr_entries = 5000: must be between 1 and 4096"
    );
}

#[test]
fn watermarks_must_be_ordered() {
    let e = config_error("(\n  dram: (write_high_watermark: 16, write_low_watermark: 16),\n)");
    assert_eq!(e, "m.ron:2:36: dram.write_low_watermark = 16: must be below dram.write_high_watermark (16)");
    let e = config_error("(dram: (write_queue: 8, write_high_watermark: 16))");
    assert!(e.contains("dram.write_high_watermark = 16: must be between 1 and dram.write_queue (8)"), "{e}");
}

#[test]
fn unknown_policy_name_lists_the_valid_ones() {
    let e = config_error("(\n  dram: (scheduler: \"magic\"),\n)");
    let valid = DramSchedulerName::NAMES.join(", ");
    assert_eq!(e, format!("m.ron:2:22: dram.scheduler: unknown name \"magic\"; valid: {valid}"));
}

#[test]
fn dram_scheduler_parameters() {
    // Coordination needs several controllers.
    assert_eq!(
        config_error("(\n  dram: (channels: 1, scheduler: \"wg-m\"),\n)"),
        "m.ron:2:23: dram.scheduler = \"wg-m\": coordinates several memory controllers but dram.channels = 1; use \"wg\" for one channel"
    );
    assert!(set_error(&["dram.channels=1", "dram.scheduler=wg-bw"]).contains("use \"wg\" for one channel"));
    let one =
        Config::from_text("(dram: (channels: 1, scheduler: \"wg\"))", Origin::File("m.ron".into()), &[]);
    assert!(one.is_ok(), "WG works in one controller");
    // α-SJF's α is in (0, 1].
    for alpha in ["0.0", "1.5", "-0.25"] {
        let e = config_error(&format!("(\n  dram: (alpha_sjf: (alpha: {alpha})),\n)"));
        assert_eq!(
            e,
            format!(
                "m.ron:2:22: dram.alpha_sjf.alpha = {}: must be in (0, 1] (the paper uses 0.25, 0.5, 0.75)",
                alpha.parse::<f64>().unwrap()
            )
        );
    }
    assert!(set_error(&["dram.alpha_sjf.miss_penalty=0.5"]).contains("must be at least 1"));
    assert!(
        set_error(&["dram.gmc.cmd_queue_depth=0"])
            .contains("dram.gmc.cmd_queue_depth = 0: must be between 1 and 65536")
    );
    assert!(
        set_error(&["dram.prefetch.lower=20"])
            .contains("dram.prefetch.lower = 20: must not exceed dram.prefetch.higher (16)")
    );
    let e = config_error("(dram: (prefetch: (enabled: true), row_bytes: 16384))");
    assert!(
        e.contains("dram.prefetch.enabled = true: tracks at most 64 lines per row, but a row holds 128"),
        "{e}"
    );
    let e = config_error("(dram: (gmc: (depth: 2)))");
    assert!(
        e.contains(
            "unknown key `depth`; valid keys here: cmd_queue_depth, age_threshold, max_row_hit_streak"
        ),
        "{e}"
    );
}

#[test]
fn geometry_constraints() {
    assert!(config_error("(dram: (banks: 12))").contains("dram.banks = 12: must be a power of two"));
    assert!(
        config_error("(dram: (bank_groups: 3))")
            .contains("dram.bank_groups = 3: must be ≥ 1 and divide dram.banks (16)")
    );
    assert!(
        config_error("(l2: (line_bytes: 64))").contains("l2.line_bytes = 64: must equal l1.line_bytes (128)")
    );
    assert!(config_error("(core: (max_threads: 4096))").contains("64 warps per SM at most"));
    let e = config_error("(dram: (mapping: (scheme: \"custom\", custom: \"RRBB\")))");
    assert!(e.contains("dram.mapping.custom: needs dram.channels = 6 to be a power of two"), "{e}");
    let e = config_error("(dram: (channels: 8, mapping: (scheme: \"custom\", custom: \"RRBB\")))");
    assert!(e.contains("dram.mapping.custom: has 0 'H' bits but dram.channels = 8 needs 3"), "{e}");
}

/// Random partition indexing (GPGPU-Sim's `-gpgpu_memory_partition_indexing 4`) needs a
/// `dramid@` mapping whose lowest bank bits name the slice, and leaves nothing for the row
/// prefetcher to read back.
#[test]
fn random_partition_indexing_needs_a_channel_bit_mapping_and_no_row_prefetcher() {
    let titanx = [
        "dram.mapping.scheme=custom",
        "dram.mapping.channel_bit=Some(8)",
        "dram.mapping.custom=RRRRRRRRRRRRR.BBB.CCCC.B.CC.SSSSS",
        "dram.mapping.partition_indexing=random",
        "l2.slices_per_channel=2",
        "dram.row_bytes=2048",
    ];
    let with = |extra: &[&str]| {
        let sets: Vec<String> = titanx.iter().chain(extra).map(|s| s.to_string()).collect();
        Config::from_text("()", Origin::File("m.ron".into()), &sets).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(with(&[]), Ok(()));
    let e = set_error(&["dram.mapping.partition_indexing=random"]);
    assert!(e.contains("= \"random\": needs a custom mapping with channel_bit"), "{e}");
    let e = with(&["l2.slices_per_channel=3"]).unwrap_err();
    assert!(e.contains("l2.slices_per_channel must be a power of two and at most dram.banks"), "{e}");
    let e = with(&["dram.prefetch.enabled=true"]).unwrap_err();
    assert!(
        e.contains("dram.prefetch.enabled = true: the row prefetcher reads a row's other lines back"),
        "{e}"
    );
}

#[test]
fn index_functions_name_the_set_count_they_need() {
    // seed 004 ch. 3: the Fermi hash is defined for 32 or 64 sets, pMOD at least two sets,
    // pDisp and FUP a power of two of at least 4.
    assert_eq!(
        config_error("(\n  l1: (sets: 16,\n        index: \"fermi\"),\n)"),
        "m.ron:3:9: l1.index = \"fermi\" needs l1.sets to be 32 or 64 (the Fermi hash is defined for \
         16 KB and 48 KB L1Ds), but it is 16"
    );
    // pMOD on a power-of-two set count uses the largest prime below it (seed 004 §3.2.4).
    for sets in [31, 32, 64] {
        let text = format!("(l1: (index: \"pmod\", sets: {sets}), l2: (index: \"pmod\"))");
        assert!(Config::from_text(&text, Origin::File("m.ron".into()), &[]).is_ok(), "{sets} sets");
    }
    assert_eq!(
        config_error("(l1: (index: \"pmod\", sets: 1, ways: 4))"),
        "m.ron:1:7: l1.index = \"pmod\" needs l1.sets to be at least 2 (a prime, or the largest prime \
         below it is used), but it is 1"
    );
    assert!(
        set_error(&["l1.sets=2", "l1.index=pdisp"])
            .starts_with("--set l1.index=pdisp: l1.index = \"pdisp\" needs l1.sets to be a power of two ≥ 4")
    );
    assert!(
        set_error(&["l1.sets=48"]).starts_with(
            "--set l1.sets=48: l1.sets = 48: must be a power of two (e.g. 32, 64) with l1.index"
        )
    );
}

#[test]
fn dacache_is_l1_only_and_its_knobs_are_checked() {
    let e = config_error("(\n  l2: (replacement: \"dacache\"),\n)");
    assert!(e.starts_with("m.ron:2:8: l2.replacement = \"dacache\": DaCache needs the issuing warp"), "{e}");
    assert!(e.contains("the L2 can use lru, dip or rrip"), "{e}");
    assert_eq!(
        set_error(&["l1.dacache.partition=Static(1.5)"]),
        "--set l1.dacache.partition=Static(1.5): l1.dacache.partition = Static(1.5): F must be between 0.0 and 1.0"
    );
    assert!(set_error(&["l1.dacache.constrained=sometimes"]).contains("valid: bypass, stall, off"));
    assert_eq!(
        set_error(&["l1.dacache.promotion=0"]),
        "--set l1.dacache.promotion=0: l1.dacache.promotion = 0: must be at least 1"
    );
}

#[test]
fn a_default_value_made_invalid_by_another_key_says_so() {
    // The high watermark (32) is not in the file, but the smaller write queue makes it
    // invalid: the error names it and says it is the default.
    let e = config_error("(dram: (write_queue: 8))");
    assert!(e.contains("this is the default value"), "{e}");
}

#[test]
fn overrides_are_checked_like_the_file() {
    assert_eq!(set_error(&["l1.sets=abc"]), "--set l1.sets=abc: l1.sets: expected a whole number, not `abc`");
    assert_eq!(set_error(&["l1.ways=0"]), "--set l1.ways=0: l1.ways = 0: must be between 1 and 256");
    assert!(set_error(&["l1.sest=4"]).contains("valid keys in `l1`: sets, ways"));
    assert!(
        set_error(&["dram.scheduler=best"])
            .contains("valid: fcfs, frfcfs, frfcfs-cap, gpgpusim-frfcfs, gmc, wg, wg-m")
    );
}

#[test]
fn workload_errors_point_into_the_workload_file() {
    let bad =
        |text: &str| Workload::from_text(text, &Origin::File("w.ron".into()), 1).unwrap_err().to_string();
    let head = "(name: \"w\", kernels: [(name: \"k\", ctas: 1, threads_per_cta: 32,\n";
    assert_eq!(
        bad(&format!(
            "{head}  arrays: [(name: \"a\", elems: 4)],\n  program: [Load(array: \"a\", pattern: CsrEdge, dst: 1)])])"
        )),
        "w.ron:3:30: kernels[0].program[0].pattern: CSR patterns need the kernel to declare a `graph`"
    );
    let e = bad(&format!("{head}  program: [Lod(array: \"a\")])])"));
    assert!(
        e.starts_with("w.ron:2:13: kernels[0].program[0]: Unexpected variant named `Lod`")
            && e.contains("`Load`"),
        "{e}"
    );
    assert!(bad("(name: \"w\", kernels: [])").contains("kernels: must list at least one kernel"));
    let e = bad(&format!(
        "{head}  arrays: [(name: \"a\", elems: 4)],\n  program: [If(fraction: 1.5, body: [])])])"
    ));
    assert!(e.contains("kernels[0].program[0].fraction = 1.5: must be in [0, 1]"), "{e}");
}

#[test]
fn warp_scheduler_and_ideal_memory_choices() {
    let e = config_error("(\n  core: (warp_scheduler: \"fair\"),\n)");
    let valid = WarpSchedulerName::NAMES.join(", ");
    assert_eq!(e, format!("m.ron:2:27: core.warp_scheduler: unknown name \"fair\"; valid: {valid}"));
    assert_eq!(
        config_error("(\n  core: (oaws: (smr_percent: 150)),\n)"),
        "m.ron:2:17: core.oaws.smr_percent = 150: must be between 0 and 100"
    );
    assert_eq!(
        set_error(&["core.owl.min_group_size=0"]),
        "--set core.owl.min_group_size=0: core.owl.min_group_size = 0: must be between 1 and 64"
    );
    assert!(
        set_error(&["core.ccws.vta_ways=3"]).contains("must be ≥ 1 and divide core.ccws.vta_entries (16)")
    );
    assert!(
        set_error(&["core.warp_scheduler=mascar", "l1.mshr_entries=1"])
            .contains("core.mascar.saturation_free = 1: must be below both"),
        "a one-entry MSHR file would always count as saturated"
    );
    assert!(
        set_error(&["ideal.memory=infinite"])
            .contains("valid: real, infinite-bandwidth, infinite-dram, fixed-latency")
    );
    assert!(
        set_error(&["ideal.miss_latency=100001"])
            .contains("ideal.miss_latency = 100001: must be between 0 and 100000")
    );
}

#[test]
fn sectored_caches_need_sector_lines_an_l1_that_allocates_on_miss_and_a_sectored_l1() {
    assert_eq!(
        config_error("(\n  l2: (sectored: true),\n)"),
        "m.ron:2:8: l2.sectored = true: needs l1.sectored = true (the L2 takes the single-sector requests a sectored L1 sends)"
    );
    let e = config_error("(\n  l1: (sectored: true, allocate: \"on-fill\"),\n)");
    assert!(
        e.starts_with("m.ron:2:8: l1.sectored = true: a sectored L1 allocates its line on the miss"),
        "{e}"
    );
}

/// Clocks of any value: a config is accepted only with every clock between 1 and 100,000 MHz and
/// the interconnect and DRAM within 64× of the cores either way, else refused naming the clock
/// (issue 37: `clocks.icnt_mhz=1e12` made a 2,000-cycle run step the interconnect 10^9 times a
/// cycle, never ending). An accepted machine runs 200 cycles.
#[test]
fn clocks_are_bounded_and_so_are_their_ratios() {
    use proptest::prelude::*;
    let mhz = prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(0.0),
        Just(-700.0),
        Just(1e12),
        Just(1e-3),
        0.5f64..200_000.0,
        100.0f64..4_000.0,
    ];
    proptest!(cases::config(cases::CLOCKS), |(core in mhz.clone(), icnt in mhz.clone(), dram in mhz)| {
        let sets = [format!("clocks.core_mhz={core:?}"), format!("clocks.icnt_mhz={icnt:?}"), format!("clocks.dram_mhz={dram:?}")];
        let ok = |v: f64| (1.0..=100_000.0).contains(&v);
        let near = |v: f64| ok(v) && ok(core) && (1.0 / 64.0..=64.0).contains(&(v / core));
        match Config::from_text("()", Origin::File("m.ron".into()), &sets) {
            Ok(c) => {
                prop_assert!(ok(core) && near(icnt) && near(dram), "{sets:?} accepted");
                let tiny = include_str!("fixtures/tiny.ron");
                let w = std::sync::Arc::new(Workload::from_text(tiny, &Origin::File("tiny".into()), 1).unwrap());
                let mut g = warpscope::sim::Gpu::new(std::sync::Arc::new(c), w).unwrap();
                g.run(200);
                prop_assert_eq!(g.cycle, 200);
            }
            Err(e) => {
                let e = e.to_string();
                prop_assert!(!(ok(core) && near(icnt) && near(dram)), "{sets:?} refused: {e}");
                prop_assert!(e.contains("clocks."), "{e}");
            }
        }
    });
}

/// DRAM timing no device can have is refused with the rule it breaks (issue 37.4): a tRCD or
/// CAS latency of 0, a row cycle shorter than the row is held open, a refresh interval no
/// longer than the refresh. Accel-Sim's SM6_TITANX (RC=52, RAS=37, RP=16) is a device: tRC
/// below tRAS + tRP is allowed.
#[test]
fn dram_timing_no_device_can_have() {
    for key in ["t_rcd", "t_cas"] {
        let e = set_error(&[&format!("dram.timing.{key}=Ck(0)")]);
        assert!(e.contains(&format!("dram.timing.{key}: must be at least one DRAM cycle")), "{e}");
    }
    let e = set_error(&["dram.timing.t_rc=Ck(10)", "dram.timing.t_ras=Ck(11)"]);
    assert!(e.contains("dram.timing.t_rc = ") && e.contains("is shorter than t_ras"), "{e}");
    let e = set_error(&["dram.refresh=Some((t_refi: Ck(10), t_rfc: Ck(10)))"]);
    assert!(e.contains("dram.refresh.t_refi: must be longer than t_rfc"), "{e}");
    let titanx = ["dram.timing.t_rc=Ck(52)", "dram.timing.t_ras=Ck(37)", "dram.timing.t_rp=Ck(16)"];
    let sets: Vec<String> = titanx.iter().map(|s| s.to_string()).collect();
    assert!(warpscope::config::Config::load_or_builtin(None, &sets).is_ok());
}

/// Sizes and latencies are bounded before anything is allocated (issue 37.1), generated as a
/// class: each latency and queue key, and the cache geometry, set to an extreme value (0, its
/// bound, one past it, a power of two far beyond, u32::MAX) on the small machine. A value
/// within its bound builds a machine that runs 200 cycles; one beyond is refused naming the
/// key, never an abort on allocation.
#[test]
fn sizes_and_latencies_are_bounded_before_anything_is_allocated() {
    use proptest::prelude::*;
    use warpscope::config::{MAX_CACHE_LINES, MAX_LATENCY, MAX_QUEUE};
    const LATENCIES: &[&str] = &[
        "core.alu_latency",
        "core.shared_latency",
        "l1.hit_latency",
        "icnt.latency",
        "l2.latency",
        "dram.frontend_latency",
        "core.kernel_launch_latency",
        "ideal.miss_latency",
    ];
    const QUEUES: &[&str] = &[
        "core.reply_queue",
        "core.mem_pipeline_width",
        "l1.miss_queue",
        "l2.access_queue",
        "l2.miss_queue",
        "l2.response_queue",
        "dram.gmc.cmd_queue_depth",
        "dram.coordination.link_queue",
        "icnt.in_buffer",
        "icnt.out_buffer",
        "dram.return_queue",
    ];
    let key = prop_oneof![
        proptest::sample::select(LATENCIES).prop_map(|k| (k, MAX_LATENCY)),
        proptest::sample::select(QUEUES).prop_map(|k| (k, MAX_QUEUE)),
    ];
    let value = |bound: u32| {
        prop_oneof![Just(0), Just(bound), Just(bound + 1), Just(1 << 30), Just(u32::MAX), 1..=bound.min(4096)]
    };
    let case = key.prop_flat_map(move |(k, bound)| (Just(k), Just(bound), value(bound)));
    let tiny = include_str!("fixtures/tiny.ron");
    let w = std::sync::Arc::new(Workload::from_text(tiny, &Origin::File("tiny".into()), 1).unwrap());
    let small = include_str!("fixtures/small.ron");
    proptest!(cases::config(cases::LATENCY_AND_QUEUE_KEYS), |((k, bound, v) in case)| {
        let sets = [format!("{k}={v}")];
        match Config::from_text(small, Origin::File("small.ron".into()), &sets) {
            Ok(c) => {
                prop_assert!(v <= bound, "{sets:?} accepted");
                let mut g = warpscope::sim::Gpu::new(std::sync::Arc::new(c), w.clone()).unwrap();
                g.run(200);
                prop_assert_eq!(g.cycle, 200);
            }
            Err(e) => {
                let e = e.to_string();
                prop_assert!(v > bound || v == 0, "{sets:?} refused: {e}");
                prop_assert!(e.contains(&format!("{k} = {v}: must be between")), "{e}");
            }
        }
    });
    // Cache geometry: the machine's lines, L1s and L2 slices together, are bounded.
    let geometry = (0u32..=26, 0u32..=26, 0u32..=8);
    proptest!(cases::config(cases::CACHE_GEOMETRY), |((l1_sets, l2_sets, ways) in geometry)| {
        let (l1_sets, l2_sets, ways) = (1u64 << l1_sets, 1u64 << l2_sets, 1u64 << ways);
        let sets = [format!("l1.sets={l1_sets}"), format!("l2.sets={l2_sets}"), format!("l1.ways={ways}"), format!("l2.ways={ways}")];
        let base = Config::from_text(small, Origin::File("small.ron".into()), &[]).unwrap();
        let slices = u64::from(base.dram.channels * base.l2.slices_per_channel);
        let lines = (u64::from(base.core.count) * l1_sets + slices * l2_sets) * ways;
        match Config::from_text(small, Origin::File("small.ron".into()), &sets) {
            Ok(_) => prop_assert!(lines <= MAX_CACHE_LINES, "{sets:?} accepted with {lines} lines"),
            Err(e) => {
                let e = e.to_string();
                if lines > MAX_CACHE_LINES {
                    prop_assert!(e.contains(&format!("the machine would hold {lines} cache lines")), "{e}");
                }
            }
        }
    });
}

/// Workload arrays and strides at any size (issue 37.4): an array whose bytes would pass 2^64,
/// two arrays of a kernel sharing bytes, or a stride or offset above 2^48 is refused at its
/// field; anything accepted runs without an arithmetic panic (the test profile checks
/// overflow), whatever its grid and loop.
#[test]
fn workload_arrays_never_wrap_or_overlap_and_strides_stay_exact() {
    use proptest::prelude::*;
    // Weighted so that about a quarter of the cases are accepted and run.
    let size = prop_oneof![
        4 => 1u64..=1 << 20,
        1 => proptest::sample::select(vec![1u64 << 40, u64::MAX / 16, u64::MAX / 2, u64::MAX]),
    ];
    let base = prop_oneof![
        3 => Just(None),
        1 => Just(Some(0x1000_0000u64)),
        1 => (0u64..1 << 30).prop_map(Some),
        1 => Just(Some(u64::MAX - 4095)),
        1 => Just(Some(1u64 << 63)),
    ];
    let stride = prop_oneof![
        4 => 0u64..=4096,
        1 => proptest::sample::select(vec![1u64 << 48, (1 << 48) + 1, u64::MAX]),
    ];
    let case = (
        size.clone(),
        proptest::sample::select(vec![1u32, 4, 16]),
        size,
        base,
        stride.clone(),
        stride,
        1u32..=3,
        1u32..=40,
    );
    let small =
        Config::from_text(include_str!("fixtures/small.ron"), Origin::File("small.ron".into()), &[]).unwrap();
    let small = std::sync::Arc::new(small);
    let (ran, refused) = (std::sync::atomic::AtomicUsize::new(0), std::sync::atomic::AtomicUsize::new(0));
    proptest!(cases::config(cases::WORKLOAD_ARRAYS), |((a_elems, elem_bytes, b_elems, b_base, stride, offset, times, ctas) in case)| {
        let b_base = b_base.map_or("None".to_string(), |b| format!("Some({b})"));
        let text = format!(
            "(name: \"w\", kernels: [(name: \"k\", ctas: {ctas}, threads_per_cta: 64, arrays: [\
             (name: \"a\", elem_bytes: {elem_bytes}, elems: {a_elems}), (name: \"b\", elems: {b_elems}, base: {b_base})], \
             program: [Loop(times: {times}, body: [Load(array: \"a\", pattern: Strided(stride_bytes: {stride}, offset_bytes: {offset}), dst: 1), \
             Load(array: \"b\", pattern: Coalesced, dst: 2)])])])"
        );
        match Workload::from_text(&text, &Origin::File("w.ron".into()), 1) {
            Ok(w) => {
                prop_assert!(stride <= 1 << 48 && offset <= 1 << 48, "{text}");
                prop_assert!(a_elems.checked_mul(u64::from(elem_bytes)).is_some(), "{text}");
                let mut g = warpscope::sim::Gpu::new(small.clone(), std::sync::Arc::new(w)).unwrap();
                g.run(300);
                prop_assert!(g.cycle <= 300, "{}", g.cycle);
                ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.starts_with("w.ron:1:"), "positioned: {e}");
                let named = ["arrays[0].elems", "arrays[1].elems", "arrays[1].base", "arrays[1].name", "stride_bytes", "offset_bytes"];
                prop_assert!(named.iter().any(|f| e.contains(f)), "{e}");
                refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    });
    let (ran, refused) = (ran.into_inner(), refused.into_inner());
    assert!(ran >= 5 && refused >= 5, "both sides generated: {ran} ran, {refused} refused");
}

/// A UTF-8 byte-order mark at the start of a file (some editors write one) is no part of its
/// text: a machine, a workload and a GPGPU-Sim option file with one read as without it.
#[test]
fn a_byte_order_mark_is_not_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let with_bom = |name: &str, source: &str| {
        let p = dir.path().join(name);
        let mut bytes = "\u{feff}".as_bytes().to_vec();
        bytes.extend(std::fs::read(source).unwrap());
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let machine = with_bom("m.ron", "tests/fixtures/small.ron");
    let mut read = Config::load(&machine, &[]).unwrap();
    let plain = Config::load(std::path::Path::new("tests/fixtures/small.ron"), &[]).unwrap();
    read.name = plain.name.clone();
    assert_eq!(read, plain);
    let w = with_bom("w.ron", "tests/fixtures/tiny.ron");
    let plain = Workload::load(std::path::Path::new("tests/fixtures/tiny.ron"), 1).unwrap();
    assert_eq!(Workload::load(&w, 1).unwrap().kernels.len(), plain.kernels.len());
    let g = with_bom("gpgpusim.config", "tests/fixtures/gpgpusim/GTX480/gpgpusim.config");
    let text = warpscope::config::read_file(&g).unwrap();
    assert!(text.starts_with('#') || text.starts_with('-'), "{:?}", &text[..10]);
}

/// A file that is not text, or longer than any input file of its kinds, is refused naming it
/// (issue 37.6's endless-file test: `-c` linked to `/dev/zero` was read until memory ran out):
/// a byte that is not UTF-8 at its line and column, a file past 16 MB once that much is read.
#[test]
fn files_not_text_or_too_long_are_refused_naming_them() {
    use warpscope::config::{MAX_TEXT_BYTES, read_file};
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("m.ron");
    std::fs::write(&bad, b"(\n  l1: \xff(sets: 32),\n)\n").unwrap();
    let e = read_file(&bad).unwrap_err();
    assert_eq!(e.to_string(), format!("{}:2:7: expected text (UTF-8), found the byte 0xff", bad.display()));
    let long = dir.path().join("w.ron");
    let f = std::fs::File::create(&long).unwrap();
    f.set_len(MAX_TEXT_BYTES).unwrap();
    assert_eq!(read_file(&long).unwrap().len() as u64, MAX_TEXT_BYTES, "at the bound: read");
    f.set_len(MAX_TEXT_BYTES + 1).unwrap();
    assert_eq!(
        read_file(&long).unwrap_err().to_string(),
        format!(
            "{}: is longer than 16 MB, more than a file of this kind holds (is it the right file?)",
            long.display()
        )
    );
}

/// The machine's whole-number keys, every one found in the small machine as the config
/// serializes it (a key added later is in too), that `--set` can assign.
fn whole_number_keys(c: &Config) -> Vec<String> {
    fn walk(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    walk(v, &if path.is_empty() { k.clone() } else { format!("{path}.{k}") }, out);
                }
            }
            serde_json::Value::Number(n) if n.is_u64() => out.push(path.to_string()),
            _ => {}
        }
    }
    let mut keys = Vec::new();
    walk(&serde_json::to_value(c).unwrap(), "", &mut keys);
    let value = serde_json::to_value(c).unwrap();
    keys.retain(|k| {
        let now = k.split('.').fold(&value, |v, part| &v[part]);
        c.with_sets(&[format!("{k}={now}")]).is_ok()
    });
    keys
}

/// Every whole-number key of the machine at any value, extremes most often (0, 1, 2^16,
/// 2^32 − 1, 2^63, 2^64 − 1), either is refused naming the key, or builds a machine that runs
/// 200 cycles: nothing is allocated without bound, nothing overflows (the test profile checks),
/// nothing waits on a number that large (issue 37.6: "a run either starts within a second or
/// is refused"; `core.max_ctas=4294967295` aborted on allocating its slots, a burst length of
/// 2^32 − 1 overflowed). The keys are found in the machine as it serializes, so a key added
/// later is tried too.
#[test]
fn every_whole_number_key_at_an_extreme_is_refused_or_runs() {
    use proptest::prelude::*;
    let small = include_str!("fixtures/small.ron");
    let base = Config::from_text(small, Origin::File("small.ron".into()), &[]).unwrap();
    let keys = whole_number_keys(&base);
    assert!(keys.len() > 80, "{keys:?}");
    let tiny = include_str!("fixtures/tiny.ron");
    let w = std::sync::Arc::new(Workload::from_text(tiny, &Origin::File("tiny".into()), 1).unwrap());
    let extreme = [0u64, 1, 1 << 16, u64::from(u32::MAX), 1 << 63, u64::MAX];
    let value = prop_oneof![3 => proptest::sample::select(extreme.to_vec()), 1 => any::<u64>()];
    proptest!(cases::config(cases::WHOLE_NUMBER_KEYS), |(k in proptest::sample::select(keys.clone()), v in value)| {
        let sets = [format!("{k}={v}")];
        match Config::from_text(small, Origin::File("small.ron".into()), &sets) {
            Ok(c) => match warpscope::sim::Gpu::new(std::sync::Arc::new(c), w.clone()) {
                Ok(mut g) => {
                    g.run(200);
                    prop_assert!(g.cycle == 200 || !g.is_running(), "{sets:?}: stopped at {}", g.cycle);
                }
                // The machine cannot run the workload (a CTA too large for it), refused by the key.
                Err(e) => prop_assert!(e.contains(k.as_str()), "{sets:?}: {e}"),
            },
            Err(e) => prop_assert!(e.to_string().contains(k.as_str()), "{sets:?} refused not naming it: {e}"),
        }
    });
}
