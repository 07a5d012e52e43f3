//! `warpscope config import`: GPGPU-Sim option files become warpscope machines (issue 14).
//! The fixtures hold the option names and values of GPGPU-Sim's GTX480 config and
//! Accel-Sim's SM7_QV100 (with its trace.config) and SM6_TITANX configs.

use std::process::Command;
use warpscope::config::gpgpusim::{Imported, import};
use warpscope::config::{
    AdaptiveL1, IndexName, L1Write, MappingScheme, PartitionIndexing, Time, WarpSchedulerName,
};

const BIN: &str = env!("CARGO_BIN_EXE_warpscope");
const GTX480: &str = "tests/fixtures/gpgpusim/GTX480/gpgpusim.config";
const QV100: &str = "tests/fixtures/gpgpusim/SM7_QV100/gpgpusim.config";
const TITANX: &str = "tests/fixtures/gpgpusim/SM6_TITANX/gpgpusim.config";
const QV100_TRACE: &str = "tests/fixtures/gpgpusim/SM7_QV100/trace.config";
const TITANX_ICNT: &str = "tests/fixtures/gpgpusim/SM6_TITANX/config_pascal_islip.icnt";

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Imports files in order.
fn import_files(paths: &[&str]) -> Imported {
    let files: Vec<(String, String)> = paths.iter().map(|p| (read(p), p.to_string())).collect();
    import(&files).unwrap()
}

/// The option names of a file, by a plain scan (`-name` at the start of a line).
fn option_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('-'))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn gtx480_keys_follow_the_options() {
    let imp = import_files(&[GTX480]);
    let c = &imp.config;
    assert_eq!(c.name, "GTX480");
    assert_eq!((c.core.count, c.core.max_threads, c.core.max_ctas, c.core.warp_schedulers), (15, 1536, 8, 2));
    // Occupancy: -gpgpu_shader_registers 32768, -gpgpu_shmem_size 49152.
    assert_eq!(
        (c.core.registers, c.core.shared_bytes, c.core.ignore_resource_limits),
        (Some(32768), Some(49152), false)
    );
    assert_eq!(c.core.warp_scheduler, WarpSchedulerName::Gto);
    // No option bounds a warp's loads in flight (only its scoreboard's registers do): the most
    // warpscope tracks, not the built-in 4.
    assert_eq!(c.core.max_loads_per_warp, warpscope::config::MAX_LOADS_PER_WARP);
    assert!(warpscope::config::Config::default().core.max_loads_per_warp < c.core.max_loads_per_warp);
    assert_eq!((c.clocks.core_mhz, c.clocks.icnt_mhz, c.clocks.dram_mhz), (700.0, 700.0, 924.0));
    // N:32:128:4,L:L:m:N:H,A:32:8,8
    assert_eq!((c.l1.sets, c.l1.line_bytes, c.l1.ways, c.l1.index), (32, 128, 4, IndexName::Fermi));
    assert_eq!((c.l1.mshr_entries, c.l1.mshr_merge, c.l1.miss_queue), (32, 8, 8));
    // N:64:128:8,L:B:m:W:L,A:32:4,4:0,32 on 2 sub-partitions per channel: 768 KB.
    assert_eq!((c.l2.sets, c.l2.ways, c.l2.mshr_merge, c.l2.data_port_bytes), (64, 8, 4, 32));
    assert_eq!(c.l2_slices() as u32 * c.l2.sets * c.l2.ways * c.l2.line_bytes, 768 * 1024);
    // 2 chips × 4 bytes, BL8 at a data/command ratio of 4.
    assert_eq!((c.dram.channels, c.dram.bus_bits, c.dram.burst_length), (6, 64, 8));
    let t = &c.dram.timing;
    assert_eq!(t.t_burst, Time::Ck(2));
    assert_eq!(
        (t.t_rcd, t.t_rp, t.t_cas, t.t_ras, t.t_rc),
        (Time::Ck(12), Time::Ck(12), Time::Ck(12), Time::Ck(28), Time::Ck(40))
    );
    assert_eq!((t.t_rrd, t.t_wl, t.t_wtr, t.t_wr), (Time::Ck(6), Time::Ck(4), Time::Ck(5), Time::Ck(12)));
    assert_eq!((t.t_ccds, t.t_ccdl, t.t_rtp, t.t_faw), (Time::Ck(2), Time::Ck(3), Time::Ck(2), Time::Ck(0)));
    assert_eq!(t.t_rtpl, Time::Ck(2), "RTPL=2");
    assert_eq!((c.dram.banks, c.dram.bank_groups), (16, 4));
    // dramid@8 with 12 R bits and 6 C + 6 S bits.
    assert_eq!(c.dram.mapping.scheme, MappingScheme::Custom);
    assert_eq!(c.dram.mapping.channel_bit, Some(8));
    assert_eq!((c.dram.rows, c.dram.row_bytes), (4096, 4096));
    assert_eq!((c.dram.read_queue, c.dram.write_queue), (16, 16));
}

#[test]
fn every_option_becomes_a_key_or_a_note() {
    for paths in [&[GTX480][..], &[QV100], &[QV100, QV100_TRACE], &[TITANX]] {
        let imp = import_files(paths);
        let path = paths.join(" ");
        for name in paths.iter().flat_map(|p| option_names(&read(p))) {
            // A key's comment names it (`count: 80, // -gpgpu_n_clusters 80 (gpgpusim.config:17) × ...`).
            let as_source = imp.ron.lines().any(|l| {
                l.split_once("// ")
                    .is_some_and(|(key, c)| !key.trim().is_empty() && c.contains(&format!("-{name} ")))
            });
            let noted = imp.notes.iter().any(|n| n.option.split(' ').next() == Some(&format!("-{name}")));
            // Agreed options are listed in the header, several with one reason on one line.
            let agreed = imp.ron.lines().any(|l| {
                l.starts_with("//   ")
                    && (l.contains(&format!(": -{name} ")) || l.contains(&format!("; -{name} ")))
            });
            assert!(
                as_source || noted || agreed,
                "{path}: -{name} is neither a key's source, a note nor agreed"
            );
        }
    }
}

#[test]
fn accel_sim_machines_import_with_their_approximations_named() {
    let qv = import_files(&[QV100]);
    assert_eq!((qv.config.core.count, qv.config.dram.channels, qv.config.core.warp_schedulers), (80, 32, 4));
    assert_eq!(qv.config.core.warp_scheduler, WarpSchedulerName::Lrr);
    assert_eq!(qv.config.l1.mshr_entries, 512, "A:512:8");
    assert_eq!(qv.config.dram.timing.t_burst, Time::Ck(1), "HBM BL2 at a ratio of 2");
    // A read holds its own bank's precharge for the burst (BL/ratio) and its bank group's for
    // tRTPL (RTPL=3), as GPGPU-Sim's `RTPc` and `bkgrp[]->RTPLc`.
    assert_eq!((qv.config.dram.timing.t_rtp, qv.config.dram.timing.t_rtpl), (Time::Ck(1), Time::Ck(3)));
    assert_eq!((qv.config.dram.rows, qv.config.dram.row_bytes), (8192, 2048));
    assert_eq!(qv.config.l2.latency, 160);
    assert!(qv.config.l2.latency_queue, "every request waits the ROP latency before the L2");
    let noted = |imp: &warpscope::config::gpgpusim::Imported, name: &str, words: &str| {
        imp.notes.iter().any(|n| n.option.starts_with(&format!("-{name} ")) && n.reason.contains(words))
    };
    // Sub-core: a register per scheduler in ID_OC_MEM (4) and in OC_EX_MEM (4) of 4 schedulers,
    // and two of the 8 generic operand collector units (the specialized ones are off).
    assert!(qv.config.core.sub_core && !noted(&qv, "gpgpu_sub_core_model", ""));
    assert_eq!(qv.config.core.mem_pipeline_width, 4, "-gpgpu_pipeline_widths 4,4,4,4,4,...");
    assert!(
        qv.ron.contains("ID_OC_MEM 4 + OC_EX_MEM 4 registers + 8 operand collector units: ")
            && qv
                .ron
                .contains("-gpgpu_operand_collector_num_units_gen 8 (gpgpusim.config:48), over 4 schedulers"),
        "{}",
        qv.ron
    );
    assert!(!noted(&qv, "gpgpu_operand_collector_num_units_gen", ""));
    // The local crossbar (-network_mode 2) keeps 512 packets in each node's output buffer.
    assert_eq!(qv.config.icnt.out_buffer, 512, "-icnt_out_buffer_limit 512");
    // It moves a packet in one Advance, whatever its size; its topology stays a note.
    assert_eq!(qv.config.icnt.latency, 1, "-network_mode 2");
    assert!(noted(&qv, "network_mode", "topology and arbitration"));
    assert!(!noted(&qv, "icnt_out_buffer_limit", ""));
    // ... and 512 packets in each node's input buffer: every QV100 packet is one 40-byte flit
    // (an 8-byte header, with a 32-byte sector at most), so 512 flits.
    assert_eq!(qv.config.icnt.in_buffer, 512, "-icnt_in_buffer_limit 512");
    assert!(!noted(&qv, "icnt_in_buffer_limit", ""));
    assert!(qv.config.l1.sectored && qv.config.icnt.header_bytes + 32 <= qv.config.icnt.request_flit_bytes);
    assert!(qv.config.l1.sectored && qv.config.l2.sectored, "S: caches import as sectored");
    assert!(!noted(&qv, "gpgpu_cache:dl1", "sectored"));
    assert!(!noted(&qv, "gpgpu_cache:dl1", "MSHR entries"), "512 entries are kept");
    // What the Volta machine models and warpscope now follows: the unified 128 KB L1/shared
    // array carved per kernel, write-through L1 with lazy fetch on read, the L1 flushed when an
    // SM empties, IPOLY over the 64 sub-partitions and the L2's 32 sets, the 5000-cycle launch.
    let l1 = &qv.config.l1;
    assert_eq!(
        l1.adaptive,
        Some(AdaptiveL1 { unified_kb: 128, shared_options_kb: vec![0, 8, 16, 32, 64, 96] })
    );
    assert_eq!((l1.sets, l1.ways, l1.write, l1.flush_when_idle), (4, 64, L1Write::Through, true));
    assert_eq!(qv.config.l1_adaptive_ways(0), Some(256), "no shared memory: 4 × 64 ways × 128 KB / 32 KB");
    // 24 KB of shared memory takes the 32 KB carve-out: 256 × (1 − 32/128) = 192 ways.
    assert_eq!(qv.config.l1_adaptive_ways(24 * 1024), Some(192));
    assert_eq!(qv.config.dram.mapping.partition_indexing, PartitionIndexing::Ipoly);
    assert_eq!(qv.config.l2.index, IndexName::Ipoly);
    assert_eq!((qv.config.core.kernel_launch_latency, qv.config.core.cta_launch_latency), (5000, 0));
    // Occupancy as max_cta computes it: 64K registers, 96 KB of shared memory; the per-block
    // limits only answer cudaDeviceProp.
    assert_eq!((qv.config.core.registers, qv.config.core.shared_bytes), (Some(65536), Some(98304)));
    assert!(noted(&qv, "gpgpu_registers_per_block", "cudaDeviceProp"));
    // -gpgpu_l1_latency 20 through the L1 latency queue; -dram_latency 100 before the DRAM queue.
    assert_eq!((l1.hit_latency, l1.latency_queue, qv.config.dram.frontend_latency), (20, true, 100));
    // Its channels' sub-partitions send DRAM at most 64 + 192 - 1 requests beyond their own.
    assert_eq!(qv.config.dram.return_queue, 192, "-gpgpu_dram_return_queue_size 192");
    assert!(!noted(&qv, "gpgpu_dram_return_queue_size", ""));
    // Without trace.config, the PTX ADD latency (4) times every ALU operation.
    assert_eq!((qv.config.core.alu_latency, qv.config.core.simd_width), (4, 32));
    assert!(
        !qv.notes.iter().any(|n| n.option.starts_with("-dram_bnkgrp_indexing_policy")),
        "policy 1 is warpscope's"
    );

    let tx = import_files(&[TITANX]);
    assert_eq!(
        tx.config.icnt.out_buffer, 0,
        "BookSim (-network_mode 1): the local crossbar's options do not apply"
    );
    assert_eq!(tx.config.icnt.in_buffer, 0, "without the BookSim file its input buffers are unknown");
    assert_eq!(
        tx.config.icnt.latency,
        warpscope::config::Config::default().icnt.latency,
        "without the BookSim file"
    );
    assert!(noted(&tx, "inter_config_file", "give it after the option files"));
    // With it, each node's injection queue holds input_buffer_size = 256 flits, and each of its
    // other statements is noted with its file and line.
    let with_icnt = import_files(&[TITANX, TITANX_ICNT]);
    assert_eq!(with_icnt.config.icnt.in_buffer, 256);
    // Its single router takes a one-flit packet from injection to ejection in 5 cycles: the
    // flit's one and 4 more.
    assert_eq!(with_icnt.config.icnt.latency, 4);
    assert!(noted(&with_icnt, "network_mode", "topology and arbitration"));
    assert!(!noted(&with_icnt, "inter_config_file", "give it after"));
    assert!(
        with_icnt.ron.contains("input_buffer_size = 256 (config_pascal_islip.icnt:12)"),
        "{}",
        with_icnt.ron
    );
    let vc = with_icnt.notes.iter().find(|n| n.option == "vc_buf_size = 64").expect("noted");
    assert_eq!((vc.file.as_str(), vc.line), (TITANX_ICNT, 11));
    assert!(vc.reason.contains("BookSim's routers"), "{}", vc.reason);
    // A BookSim file without input_buffer_size leaves BookSim's 9 flits.
    let files = [(read(TITANX), TITANX.to_string()), ("flit_size = 40;\n".to_string(), "b.icnt".to_string())];
    assert_eq!(import(&files).unwrap().config.icnt.in_buffer, 9);
    // S:4:128:96 as given (at most 256 ways).
    assert_eq!((tx.config.l1.sets, tx.config.l1.ways), (4, 96));
    // RANDOM over 12 × 2 sub-partitions, with the 12 channels taken by modulo of dramid@8.
    assert_eq!(tx.config.dram.mapping.partition_indexing, PartitionIndexing::Random);
    assert_eq!(tx.config.dram.mapping.channel_bit, Some(8));
    // The cluster's response FIFO holds 32 replies on both machines; the GTX480 file does not
    // set it, so GPGPU-Sim's default of 8 stands, which is warpscope's.
    assert_eq!((tx.config.core.reply_queue, qv.config.core.reply_queue), (32, 32));
    assert!(!noted(&tx, "gpgpu_n_cluster_ejection_buffer_size", ""));
    assert!(tx.ron.contains("reply_queue: 32, // -gpgpu_n_cluster_ejection_buffer_size 32"), "{}", tx.ron);
    assert_eq!(import_files(&[GTX480]).config.core.reply_queue, 8);
    // Every GPGPU-Sim machine acknowledges its stores, and says so in its file although
    // warpscope's default (the built-in GTX480) does too.
    assert!(tx.config.l2.write_acks && qv.config.l2.write_acks);
    assert!(tx.ron.contains("write_acks: true"), "{}", tx.ron);
    assert!(tx.config.l1.skip_global, "-gpgpu_gmem_skip_L1D 1: loads skip the L1");
    assert!(!qv.config.l1.skip_global, "-gpgpu_gmem_skip_L1D 0");
    // -gpgpu_ignore_resources_limitation 1: a kernel too large for an SM runs one CTA at a time.
    assert!(tx.config.core.ignore_resource_limits);
    assert_eq!((tx.config.core.registers, tx.config.core.shared_bytes), (Some(65536), Some(98304)));
    assert!(noted(&tx, "gpgpu_cache:dl1", "streaming allocation"));
    assert_eq!(
        (tx.config.dram.channels, tx.config.dram.bus_bits, tx.config.clocks.dram_mhz),
        (12, 32, 2500.0)
    );
}

/// Accel-Sim runs `-config gpgpusim.config -config trace.config`: the trace-driven INT timing
/// (latency 2, a new instruction every 2 cycles) replaces the PTX ADD latency, each key names
/// the file it came from, and the other units' timings are named as folded into the one ALU.
/// The places in front of the LD/ST unit per sub-core scheduler, for a machine of 4
/// schedulers with one ID_OC_MEM and one OC_EX_MEM register each and the given collector
/// options (GPGPU-Sim's `create_exec_pipeline` connects the MEM port to the generic units, and
/// to the memory units when the specialized collectors are on, its default).
#[test]
fn a_memory_instruction_waits_in_its_schedulers_collector_units() {
    let width = |collectors: &str| {
        let text = format!(
            "-gpgpu_sub_core_model 1\n-gpgpu_num_sched_per_core 4\n-gpgpu_pipeline_widths 4,4,4,4,4,4,4,4,4,4,8\n{collectors}"
        );
        import(&[(text, "gpgpusim.config".into())]).unwrap().config.core.mem_pipeline_width
    };
    let generic = "-gpgpu_enable_specialized_operand_collector 0\n-gpgpu_operand_collector_num_units_gen 8\n";
    assert_eq!(width(generic), 1 + 1 + 2, "8 generic units over 4 schedulers");
    assert_eq!(
        width("-gpgpu_enable_specialized_operand_collector 0\n"),
        1 + 1,
        "no generic units by default"
    );
    assert_eq!(
        width("-gpgpu_operand_collector_num_units_mem 8\n"),
        1 + 1 + 2,
        "specialized by default: 8 memory units"
    );
    assert_eq!(
        width("-gpgpu_operand_collector_num_units_mem 4\n-gpgpu_operand_collector_num_units_gen 8\n"),
        1 + 1 + 3,
        "both sets: 4 memory and 8 generic units"
    );
    assert_eq!(
        width("-gpgpu_enable_specialized_operand_collector 0\n-gpgpu_operand_collector_num_units_mem 8\n"),
        1 + 1,
        "the memory units are not built when the specialized collectors are off"
    );
}

#[test]
fn a_later_file_overrides_and_each_key_names_its_file() {
    let both = import_files(&[QV100, QV100_TRACE]);
    assert_eq!((both.config.core.alu_latency, both.config.core.simd_width), (2, 16));
    assert!(
        both.ron.contains("alu_latency: 2, // -trace_opcode_latency_initiation_int 2,2 (trace.config:4)"),
        "{}",
        both.ron
    );
    assert!(both.ron.contains("count: 80, // -gpgpu_n_clusters 80 (gpgpusim.config:17)"));
    let noted = |name: &str, file: &str, words: &str| {
        both.notes.iter().any(|n| {
            n.option.starts_with(&format!("-{name} ")) && n.file.ends_with(file) && n.reason.contains(words)
        })
    };
    assert!(noted("trace_opcode_latency_initiation_sfu", "trace.config", "one ALU"));
    assert!(noted("specialized_unit_1", "trace.config", "one ALU"));
    assert!(noted("ptx_opcode_latency_int", "gpgpusim.config", "trace-driven simulator"));
    // The trace.config's unit latencies share their reason, given once for lines 5 to 14.
    let units = both.ron.lines().find(|l| l.starts_with("//   trace.config:5–14: ")).expect("one line");
    assert!(
        units.contains("; -specialized_unit_1 1,4,4,4,4,BRA; ") && units.contains(" — warpscope has one ALU")
    );
    // The rest of the machine is the gpgpusim.config's.
    let alone = import_files(&[QV100]);
    let mut same = both.config.clone();
    (same.core.alu_latency, same.core.simd_width) =
        (alone.config.core.alu_latency, alone.config.core.simd_width);
    assert_eq!(same, alone.config);
}

#[test]
fn the_command_writes_a_machine_run_accepts_and_the_same_file_twice() {
    let dir = std::env::temp_dir().join(format!("warpscope-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("gtx480.ron");
    let import = || Command::new(BIN).args(["config", "import", GTX480, "-o"]).arg(&out).output().unwrap();
    let first = import();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(!stderr.contains("-gpgpu_shader_registers"), "a key now: {stderr}");
    assert!(stderr.contains("wrote ") && stderr.contains("15 SMs, 6 channels × 16 banks"), "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains(
            "count: 15, // -gpgpu_n_clusters 15 (gpgpusim.config:8) × -gpgpu_n_cores_per_cluster 1 (gpgpusim.config:9)"
        ),
        "{text}"
    );
    assert!(import().status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text, "importing twice gives the same file");
    let run =
        Command::new(BIN).args(["run", "-w", "tests/fixtures/tiny.ron", "-c"]).arg(&out).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(String::from_utf8_lossy(&run.stdout).contains("GTX480"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_files_are_errors_at_their_line() {
    let dir = std::env::temp_dir().join(format!("warpscope-import-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "-gpgpu_n_clusters 15\n-gpgpu_cache:dl1 N:32:oops\n",
            "bad.config:2:18: -gpgpu_cache:dl1: `N:32:oops` has 1 comma-separated groups; expected",
        ),
        (
            "-gpgpu_n_clusters fifteen\n",
            "bad.config:1:19: -gpgpu_n_clusters: `fifteen` is not a whole number",
        ),
        ("-gpgpu_shader_core_pipeline 1536:64\n", "warp size 64: warpscope's warps are 32 threads"),
        (
            "-gpgpu_n_cluster_ejection_buffer_size 0\n",
            "bad.config:1:39: -gpgpu_n_cluster_ejection_buffer_size: 0 packets: the cluster would never take a reply",
        ),
        ("-gpgpu_dram_timing_opt \"nbk=16:CCD\"\n", "`CCD`: expected <name>=<cycles> fields"),
        ("-gpgpu_mem_addr_mapping dramid@8;RRRR.XBBB\n", "letter `X` in the mask; valid: R (row)"),
        (
            "-gpgpu_n_mem 6\n-gpgpu_mem_addr_mapping RRRR.BBBB.CCCCCCC.DDD.SSSSSS\n",
            "dram.mapping.custom: needs dram.channels = 6 to be a power of two (from -gpgpu_mem_addr_mapping",
        ),
    ];
    for (text, want) in cases {
        let path = dir.join("bad.config");
        std::fs::write(&path, text).unwrap();
        let out =
            Command::new(BIN).current_dir(&dir).args(["config", "import", "bad.config"]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(want), "{text}: {stderr}");
        assert!(out.stdout.is_empty(), "nothing written on error");
    }
    // A bad value in a later file is named at its own file and line.
    std::fs::write(dir.join("ok.config"), "-gpgpu_n_clusters 4\n").unwrap();
    std::fs::write(dir.join("bad.trace"), "# timing\n-trace_opcode_latency_initiation_int 2,x\n").unwrap();
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args(["config", "import", "ok.config", "bad.trace"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bad.trace:2:38: -trace_opcode_latency_initiation_int: `x` is not a whole number"),
        "{stderr}"
    );
    // An unknown option is a warning naming it; the import goes on.
    std::fs::write(dir.join("odd.config"), "-gpgpu_n_clusters 4\n-gpgpu_frobnicate 3\n").unwrap();
    let out = Command::new(BIN).current_dir(&dir).args(["config", "import", "odd.config"]).output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("odd.config:2: -gpgpu_frobnicate 3 — not known to the importer")
    );
    // An output directory that does not exist is refused before reading.
    let out = Command::new(BIN)
        .args(["config", "import", GTX480, "-o", "/nonexistent/dir/m.ron"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output /nonexistent/dir/m.ron"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A file that gives no option (empty, or only comments) imports with a warning naming it
/// (issue 37.4): nothing in the machine comes from it.
#[test]
fn a_file_without_options_is_named_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.config");
    std::fs::write(&empty, "# only a comment\n\n").unwrap();
    let out =
        Command::new(BIN).args(["config", "import", GTX480]).arg(&empty).args(["-o", "-"]).output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("warning: {}: no GPGPU-Sim option found", empty.display())), "{stderr}");
    let full = Command::new(BIN).args(["config", "import", GTX480, "-o", "-"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&full.stderr).contains("no GPGPU-Sim option"));
    let machine = |ron: &[u8]| String::from_utf8_lossy(ron).split_once("\n(").map(|(_, m)| m.to_string());
    assert_eq!(machine(&out.stdout), machine(&full.stdout), "the machine is the other file's");
}

/// Options at and past the 32-bit limit GPGPU-Sim reads them with (issue 37.6's option-file
/// fuzzer: products of two such values overflowed and panicked): a value past 2^32 − 1 is
/// refused at its line and column; at the limit, the products the importer forms (SMs,
/// sub-partitions, bus bits, cache lines) are refused by the key they set, naming the option.
#[test]
fn options_at_the_32_bit_limit_are_refused_never_a_panic() {
    let refusal = |text: &str| import(&[(text.to_string(), "g.config".to_string())]).unwrap_err().to_string();
    assert_eq!(
        refusal("-gpgpu_n_mem 4294967296\n"),
        "g.config:1:14: -gpgpu_n_mem: `4294967296` is more than 4294967295, the most a 32-bit option holds"
    );
    // 2^63 channels, a power of two, were multiplied by the sub-partitions for IPOLY.
    let ipoly = "-gpgpu_mem_addr_mapping dramid@8;RRRRRRRRRRRRRRRRRRRRBBBBCCCCCCCCCC\n-gpgpu_memory_partition_indexing 2\n";
    let e =
        refusal(&format!("-gpgpu_n_mem 9223372036854775808\n-gpgpu_n_sub_partition_per_mchannel 2\n{ipoly}"));
    assert!(
        e.starts_with("g.config:1:14: -gpgpu_n_mem: `9223372036854775808` is more than 4294967295"),
        "{e}"
    );
    let max = u32::MAX;
    let cases = [
        (format!("-gpgpu_n_clusters {max}\n-gpgpu_n_cores_per_cluster {max}\n"), "core.count"),
        (format!("-gpgpu_dram_buswidth {max}\n-gpgpu_n_mem_per_ctrlr {max}\n"), "dram.bus_bits"),
        (
            format!("-gpgpu_n_mem 2147483648\n-gpgpu_n_sub_partition_per_mchannel {max}\n{ipoly}"),
            "l2.slices_per_channel",
        ),
        (format!("-gpgpu_cache:dl1 N:{max}:128:{max},L:L:m:N:L,A:32:8,8\n"), "l1."),
    ];
    for (text, key) in cases {
        let e = refusal(&text);
        assert!(e.starts_with(&format!("g.config: {key}")) && e.contains("(from -"), "{text}: {e}");
    }
}
