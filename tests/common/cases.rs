// How many cases each generative test of the suite runs (issue 37.6: "report the number of
// generated cases each runs in CI"), in one table: every `proptest!` in src/ and tests/ takes
// its count from a constant here, tests/docs.rs checks that each is in [`GENERATIVE`] and
// writes the table of docs/robustness.md from it. The unit tests under src/ `include!` this
// file, so it has no inner attributes or `//!` comments.

/// The configuration of a generative test of `cases` cases. Its seed is fixed, so every run
/// (and CI) tries the same cases and a failure repeats, unless `PROPTEST_RNG_SEED` gives another
/// to explore with.
pub fn config(cases: u32) -> proptest::test_runner::Config {
    let mut c = proptest::test_runner::Config::with_cases(cases);
    if c.rng_seed == proptest::test_runner::RngSeed::Random {
        c.rng_seed = proptest::test_runner::RngSeed::Fixed(37);
    }
    c
}

/// One generative test: the input class it generates, how, where it is, and its cases.
pub struct Generative {
    /// The kind of input, as the manual names it.
    pub class: &'static str,
    /// What each case is.
    pub generated: &'static str,
    /// The file and the test function.
    pub file: &'static str,
    pub test: &'static str,
    /// The constant's name, as the test names it.
    pub constant: &'static str,
    pub cases: u32,
}

// Parsers of input files and arguments.
pub const MACHINE_FILES: u32 = 512;
pub const SET_ASSIGNMENTS: u32 = 256;
pub const WORKLOAD_FILES: u32 = 256;
pub const TRACE_LINES: u32 = 2000;
pub const TRACE_KERNELS: u32 = 2000;
pub const KERNEL_LISTS: u32 = 64;
pub const MEMCPY_LINES: u32 = 256;
pub const GPGPUSIM_FILES: u32 = 256;
pub const DRAM_TRACE_BYTES: u32 = 256;
pub const EXPRESSIONS: u32 = 2000;
pub const DEBUGGER_COMMANDS: u32 = 512;
pub const BATCH_SCRIPTS: u32 = 12;
pub const LAYOUT_FILES: u32 = 256;
pub const LAYOUT_TREES: u32 = 48;
pub const GRID_FILES: u32 = 128;
pub const VARY_ARGUMENTS: u32 = 256;
pub const DIFF_SETTINGS: u32 = 128;
pub const WORKLOAD_LISTS: u32 = 128;
pub const BASELINES: u32 = 128;
pub const RUN_OUTPUT_ARGUMENTS: u32 = 12;
pub const REPRO_SPECS: u32 = 64;
pub const VALIDATION_SPECS: u32 = 256;
pub const RESULT_FILES: u32 = 128;
pub const MERGE_FILES: u32 = 24;
pub const CHECKPOINT_FILES: u32 = 256;
pub const PEER_LOGS: u32 = 64;
// Extreme settings and outputs.
pub const CLOCKS: u32 = 64;
pub const LATENCY_AND_QUEUE_KEYS: u32 = 64;
pub const WHOLE_NUMBER_KEYS: u32 = 512;
pub const CACHE_GEOMETRY: u32 = 64;
pub const WORKLOAD_ARRAYS: u32 = 96;
pub const DRAM_REQUEST_CYCLES: u32 = 48;
pub const RUN_CAPS: u32 = 12;
pub const OUTPUT_PATHS: u32 = 48;
// The machine's parts against their references.
pub const DRAM_STREAMS: u32 = 24;
pub const MSHR_LOOKUPS: u32 = 256;
pub const L1_BANK_STAGES: u32 = 256;
pub const JOB_POOLS: u32 = 256;

/// Every generative test, in the order of docs/robustness.md's table.
pub const GENERATIVE: &[Generative] = &[
    Generative {
        class: "machine (RON)",
        generated: "a sample machine or test machine with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_machine_files",
        constant: "MACHINE_FILES",
        cases: MACHINE_FILES,
    },
    Generative {
        class: "`--set key=value`",
        generated: "assignments from the manual, each with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_set_assignments",
        constant: "SET_ASSIGNMENTS",
        cases: SET_ASSIGNMENTS,
    },
    Generative {
        class: "workload (RON: synthetic or benchmark)",
        generated: "a sample workload with one to three edits, and sizes from the manual, edited",
        file: "tests/fuzz.rs",
        test: "mutated_workload_files",
        constant: "WORKLOAD_FILES",
        cases: WORKLOAD_FILES,
    },
    Generative {
        class: "Accel-Sim trace: instruction lines",
        generated: "a real line with one to three token edits, under four tracer versions",
        file: "tests/traces.rs",
        test: "mutated_real_lines_never_panic",
        constant: "TRACE_LINES",
        cases: TRACE_LINES,
    },
    Generative {
        class: "Accel-Sim trace: kernel files",
        generated: "a real kernel cut anywhere, and with one line edited",
        file: "tests/traces.rs",
        test: "mutated_and_truncated_kernels_never_panic",
        constant: "TRACE_KERNELS",
        cases: TRACE_KERNELS,
    },
    Generative {
        class: "Accel-Sim trace: `kernelslist.g`",
        generated: "a real kernel list, four in five with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_kernel_lists",
        constant: "KERNEL_LISTS",
        cases: KERNEL_LISTS,
    },
    Generative {
        class: "Accel-Sim trace: `MemcpyHtoD` lines",
        generated: "any tail after `MemcpyHtoD`; any address and size",
        file: "src/workload/accelsim/mod.rs",
        test: "any_copy_line_parses_or_is_refused",
        constant: "MEMCPY_LINES",
        cases: MEMCPY_LINES,
    },
    Generative {
        class: "`gpgpusim.config`, `trace.config`, BookSim `.icnt`",
        generated: "a shipped option file set with one file edited one to three times",
        file: "tests/fuzz.rs",
        test: "mutated_gpgpusim_files",
        constant: "GPGPUSIM_FILES",
        cases: GPGPUSIM_FILES,
    },
    Generative {
        class: "DRAM trace",
        generated: "up to 12 lines, each a request or any bytes",
        file: "tests/dram_mode.rs",
        test: "any_bytes_read_as_requests_or_a_positioned_error",
        constant: "DRAM_TRACE_BYTES",
        cases: DRAM_TRACE_BYTES,
    },
    Generative {
        class: "debugger expressions",
        generated: "expressions over numbers at the 64-bit limits, nested up to 2,000 deep",
        file: "src/debug/expr.rs",
        test: "no_expression_panics",
        constant: "EXPRESSIONS",
        cases: EXPRESSIONS,
    },
    Generative {
        class: "debugger commands",
        generated: "a command from the manual with one to three edits, run on a small machine",
        file: "tests/fuzz.rs",
        test: "mutated_debugger_commands",
        constant: "DEBUGGER_COMMANDS",
        cases: DEBUGGER_COMMANDS,
    },
    Generative {
        class: "`batch --script` files",
        generated: "a script of commands from the manual, one edited, run by the program",
        file: "tests/fuzz.rs",
        test: "mutated_batch_scripts",
        constant: "BATCH_SCRIPTS",
        cases: BATCH_SCRIPTS,
    },
    Generative {
        class: "checkpoints (`--resume`)",
        generated: "a real checkpoint cut anywhere, or with one byte changed",
        file: "tests/checkpoint.rs",
        test: "truncated_and_flipped_checkpoints_are_refused",
        constant: "CHECKPOINT_FILES",
        cases: CHECKPOINT_FILES,
    },
    Generative {
        class: "layouts (RON)",
        generated: "a shipped layout with one to three edits, drawn when it loads",
        file: "tests/fuzz.rs",
        test: "mutated_layout_files",
        constant: "LAYOUT_FILES",
        cases: LAYOUT_FILES,
    },
    Generative {
        class: "layouts (RON)",
        generated: "a layout tree of any shape and sizes, on any terminal size",
        file: "tests/tui.rs",
        test: "any_layout_draws_at_any_size_with_what_does_not_fit_hidden",
        constant: "LAYOUT_TREES",
        cases: LAYOUT_TREES,
    },
    Generative {
        class: "sweep grids (RON)",
        generated: "a shipped grid with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_grid_files",
        constant: "GRID_FILES",
        cases: GRID_FILES,
    },
    Generative {
        class: "`--vary` and `--variant`",
        generated: "arguments from the manual, each with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_vary_arguments",
        constant: "VARY_ARGUMENTS",
        cases: VARY_ARGUMENTS,
    },
    Generative {
        class: "`diff --a` and `--b`; the debugger's `--vs`",
        generated: "one or two `--set` assignments from the manual for each machine, each edited or not",
        file: "tests/fuzz.rs",
        test: "mutated_diff_settings",
        constant: "DIFF_SETTINGS",
        cases: DIFF_SETTINGS,
    },
    Generative {
        class: "`compare --workloads` lists",
        generated: "one to six names and paths (duplicates, blanks and comments among them), one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_workload_lists",
        constant: "WORKLOAD_LISTS",
        cases: WORKLOAD_LISTS,
    },
    Generative {
        class: "`--baseline` of `compare` and `sweep`",
        generated: "a variant's name from the manual's `--vary`, edited or not",
        file: "tests/fuzz.rs",
        test: "mutated_baselines",
        constant: "BASELINES",
        cases: BASELINES,
    },
    Generative {
        class: "`run --series`, `--every`, `--progress-every`",
        generated: "an interval of 0, 1 or any size, and a series path in a directory that exists or not",
        file: "tests/fuzz.rs",
        test: "run_series_arguments",
        constant: "RUN_OUTPUT_ARGUMENTS",
        cases: RUN_OUTPUT_ARGUMENTS,
    },
    Generative {
        class: "repro specs (RON)",
        generated: "the test spec with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_repro_specs",
        constant: "REPRO_SPECS",
        cases: REPRO_SPECS,
    },
    Generative {
        class: "validation specs (RON)",
        generated: "a shipped study with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_validation_specs",
        constant: "VALIDATION_SPECS",
        cases: VALIDATION_SPECS,
    },
    Generative {
        class: "sweep results (`--merge`, resuming, `repro`)",
        generated: "the first lines of a shipped study's stored runs with one to three edits",
        file: "tests/fuzz.rs",
        test: "mutated_results_files",
        constant: "RESULT_FILES",
        cases: RESULT_FILES,
    },
    Generative {
        class: "sweep results (`--merge`)",
        generated: "up to three files of a grid's points, or a CSV that is not results",
        file: "tests/sweep.rs",
        test: "merging_refuses_files_that_are_not_results",
        constant: "MERGE_FILES",
        cases: MERGE_FILES,
    },
    Generative {
        class: "peer logs (`validate --record`)",
        generated: "a log of one to five kernels' statistics, each with one to four DRAM channels",
        file: "src/batch/peer_log.rs",
        test: "a_log_of_any_kernels_gives_the_last_ones_numbers",
        constant: "PEER_LOGS",
        cases: PEER_LOGS,
    },
    Generative {
        class: "clock settings",
        generated: "three clocks, each finite, not a number, 0, negative or far out",
        file: "tests/config_errors.rs",
        test: "clocks_are_bounded_and_so_are_their_ratios",
        constant: "CLOCKS",
        cases: CLOCKS,
    },
    Generative {
        class: "latencies and queue sizes",
        generated: "one key at 0, its bound, past it, 2^30 or 2^32 − 1",
        file: "tests/config_errors.rs",
        test: "sizes_and_latencies_are_bounded_before_anything_is_allocated",
        constant: "LATENCY_AND_QUEUE_KEYS",
        cases: LATENCY_AND_QUEUE_KEYS,
    },
    Generative {
        class: "every whole-number setting",
        generated: "any whole-number key of the machine at 0, 1, 2^16, 2^32 − 1, 2^63, 2^64 − 1 or any value",
        file: "tests/config_errors.rs",
        test: "every_whole_number_key_at_an_extreme_is_refused_or_runs",
        constant: "WHOLE_NUMBER_KEYS",
        cases: WHOLE_NUMBER_KEYS,
    },
    Generative {
        class: "cache geometry",
        generated: "L1 and L2 sets up to 2^26 and ways up to 2^8",
        file: "tests/config_errors.rs",
        test: "sizes_and_latencies_are_bounded_before_anything_is_allocated",
        constant: "CACHE_GEOMETRY",
        cases: CACHE_GEOMETRY,
    },
    Generative {
        class: "workload arrays and strides",
        generated: "two arrays, sizes, bases, strides and offsets up to 2^64",
        file: "tests/config_errors.rs",
        test: "workload_arrays_never_wrap_or_overlap_and_strides_stay_exact",
        constant: "WORKLOAD_ARRAYS",
        cases: WORKLOAD_ARRAYS,
    },
    Generative {
        class: "DRAM request cycles",
        generated: "up to 5 requests at cycles up to 2^64 − 1",
        file: "tests/dram_mode.rs",
        test: "request_cycles_are_bounded_and_far_ones_are_served",
        constant: "DRAM_REQUEST_CYCLES",
        cases: DRAM_REQUEST_CYCLES,
    },
    Generative {
        class: "cycle and instruction caps",
        generated: "a cycle cap and an instruction cap, run at once, with a trace and by the debugger",
        file: "tests/machine.rs",
        test: "every_way_of_running_stops_at_the_same_limit",
        constant: "RUN_CAPS",
        cases: RUN_CAPS,
    },
    Generative {
        class: "output paths",
        generated: "a command's outputs and inputs among files, links, aliases and devices",
        file: "tests/output_paths.rs",
        test: "no_command_replaces_a_file_it_was_not_told_to_write",
        constant: "OUTPUT_PATHS",
        cases: OUTPUT_PATHS,
    },
    Generative {
        class: "DRAM timing",
        generated: "adversarial request streams to one controller",
        file: "tests/dram_timing.rs",
        test: "adversarial_streams_obey_every_constraint",
        constant: "DRAM_STREAMS",
        cases: DRAM_STREAMS,
    },
    Generative {
        class: "MSHR lookup",
        generated: "up to 300 allocations and releases",
        file: "src/sim/cache/mshr.rs",
        test: "lookup_equals_a_plain_scan",
        constant: "MSHR_LOOKUPS",
        cases: MSHR_LOOKUPS,
    },
    Generative {
        class: "L1 bank pipeline",
        generated: "up to 120 cycles of entries, lookups and advances",
        file: "src/sim/l1_banks.rs",
        test: "stage_numbers_equal_the_stage_array",
        constant: "L1_BANK_STAGES",
        cases: L1_BANK_STAGES,
    },
    Generative {
        class: "`--jobs`",
        generated: "any job count, point count and core count",
        file: "src/batch/jobs.rs",
        test: "any_request_is_bounded",
        constant: "JOB_POOLS",
        cases: JOB_POOLS,
    },
];
