//! From GPGPU-Sim options to warpscope config keys. Each key carries the option (and value)
//! it came from; every option that does not become a key, or only partly, gets a note saying
//! why, so nothing is dropped silently.
//!
//! Clock note: GPGPU-Sim's core clock is the clock at which one warp instruction issues per
//! scheduler (the Fermi configs halve the shader clock for this), which is what a warpscope
//! core cycle is with `simd_width` 32; the value is taken as given, so cycle counts compare.

use super::booksim;
use super::cache::{self, CacheSpec};
use super::options::{Opt, error};
use crate::config::{ConfigError, IPOLY_SIZES, MAX_LOADS_PER_WARP, MAX_MSHR_ENTRIES, MAX_WAYS};
use std::collections::{BTreeMap, BTreeSet};

/// One warpscope key and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// Dotted path (`dram.timing.t_rcd`).
    pub path: String,
    /// The value as RON text.
    pub value: String,
    /// The GPGPU-Sim option(s) it follows, for the comment beside it.
    pub from: String,
}

/// Something of the files the machine does not represent (fully).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Note {
    pub file: String,
    pub line: usize,
    /// `-name value`.
    pub option: String,
    pub reason: String,
}

impl Note {
    /// Notes as lines `FILE:LINE: OPTION — REASON`, one per run of notes in one file with one
    /// reason (`FILE:FIRST–LAST: OPTION; OPTION; ... — REASON`), so a reason shared by a dozen
    /// statements (BookSim's routers) is given once. `name` says how to name a file.
    pub fn lines(notes: &[Note], name: impl Fn(&str) -> String) -> Vec<String> {
        notes
            .chunk_by(|a, b| a.file == b.file && a.reason == b.reason)
            .map(|run| {
                let (first, last) = (&run[0], &run[run.len() - 1]);
                let lines = match run.len() {
                    1 => first.line.to_string(),
                    _ => format!("{}–{}", first.line, last.line),
                };
                let options: Vec<&str> = run.iter().map(|n| n.option.as_str()).collect();
                format!("{}:{lines}: {} — {}", name(&first.file), options.join("; "), first.reason)
            })
            .collect()
    }
}

/// The translation of the option files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Translation {
    pub keys: Vec<Key>,
    pub notes: Vec<Note>,
    /// Options that need no key because warpscope always behaves as they ask.
    pub agreed: Vec<Note>,
}

struct Ctx<'a> {
    opts: &'a BTreeMap<String, Opt>,
    used: BTreeSet<String>,
    out: Translation,
}

impl<'a> Ctx<'a> {
    /// An option, marked as used.
    fn get(&mut self, name: &str) -> Option<&'a Opt> {
        let o = self.opts.get(name)?;
        self.used.insert(name.to_string());
        Some(o)
    }

    fn fail(&self, o: &Opt, message: &str) -> ConfigError {
        error(&o.file, o.line, o.col, &format!("-{}", o.name), message)
    }

    /// The whole numbers of a value split at `sep` (`shape` says what was expected).
    fn numbers(&self, o: &Opt, sep: char, shape: &str) -> Result<Vec<u64>, ConfigError> {
        o.value
            .split(sep)
            .map(|s| {
                let s = s.trim();
                let v =
                    s.parse::<f64>().ok().filter(|v| *v >= 0.0 && v.fract() == 0.0).ok_or_else(|| {
                        self.fail(o, &format!("`{s}` is not a whole number; expected {shape}"))
                    })?;
                // GPGPU-Sim reads these options into 32-bit `int`s and `unsigned`s; below the
                // bound a product of two of them fits 64 bits.
                if v > f64::from(u32::MAX) {
                    return Err(self.fail(
                        o,
                        &format!("`{s}` is more than {}, the most a 32-bit option holds", u32::MAX),
                    ));
                }
                Ok(v as u64)
            })
            .collect()
    }

    /// A single whole number.
    fn number(&mut self, name: &str) -> Result<Option<(u64, &'a Opt)>, ConfigError> {
        let Some(o) = self.get(name) else { return Ok(None) };
        let v = self.numbers(o, ',', "a whole number")?;
        if v.len() != 1 {
            return Err(self.fail(o, &format!("`{}`: expected one whole number", o.value)));
        }
        Ok(Some((v[0], o)))
    }

    fn set(&mut self, path: &str, value: impl ToString, from: impl ToString) {
        self.out.keys.push(Key { path: path.into(), value: value.to_string(), from: from.to_string() });
    }

    /// `o` asks for what warpscope always does.
    fn agree(&mut self, o: &Opt, why: &str) {
        self.used.insert(o.name.clone());
        self.out.agreed.push(Note {
            file: o.file.clone(),
            line: o.line,
            option: shown(o),
            reason: why.into(),
        });
    }

    fn note(&mut self, o: &Opt, reason: impl ToString) {
        self.used.insert(o.name.clone());
        self.out.notes.push(Note {
            file: o.file.clone(),
            line: o.line,
            option: shown(o),
            reason: reason.to_string(),
        });
    }
}

/// `-name value` (a BookSim statement: `name = value`) with white space squeezed, for notes.
fn shown(o: &Opt) -> String {
    let value = o.value.split_whitespace().collect::<Vec<_>>().join("");
    match o.name.strip_prefix(booksim::PREFIX) {
        Some(name) => format!("{name} = {value}"),
        None => format!("-{} {value}", o.name),
    }
}

/// `-name value (file:line)`, for the comment beside a key: the option and where it is.
fn src(o: &Opt) -> String {
    format!("{} ({})", shown(o), at(o))
}

/// `file:line` of an option (the file's name, without its directory).
fn at(o: &Opt) -> String {
    let name = std::path::Path::new(&o.file)
        .file_name()
        .map_or(o.file.clone(), |f| f.to_string_lossy().into_owned());
    format!("{name}:{}", o.line)
}

/// Translates the options read (from one or more files).
pub fn translate(opts: &BTreeMap<String, Opt>) -> Result<Translation, ConfigError> {
    let mut c = Ctx { opts, used: BTreeSet::new(), out: Translation::default() };
    cores(&mut c)?;
    let clocks = clocks(&mut c)?;
    l1(&mut c)?;
    l2(&mut c, clocks)?;
    interconnect(&mut c)?;
    dram(&mut c)?;
    for (name, o) in opts {
        if !c.used.contains(name) {
            let reason = unrepresented(name);
            c.out.notes.push(Note {
                file: o.file.clone(),
                line: o.line,
                option: shown(o),
                reason: reason.into(),
            });
        }
    }
    c.out.notes.sort();
    c.out.agreed.sort();
    Ok(c.out)
}

fn cores(c: &mut Ctx) -> Result<(), ConfigError> {
    if let Some((clusters, o)) = c.number("gpgpu_n_clusters")? {
        let per = c.number("gpgpu_n_cores_per_cluster")?;
        let from = match per {
            Some((_, p)) => format!("{} × {}", src(o), src(p)),
            None => src(o),
        };
        c.set("core.count", clusters * per.map_or(1, |p| p.0), from);
    }
    if let Some(o) = c.get("gpgpu_shader_core_pipeline") {
        let v = c.numbers(o, ':', "<threads per SM>:<warp size>, e.g. 1536:32")?;
        match v.as_slice() {
            [threads, 32] => c.set("core.max_threads", threads, src(o)),
            [_, w] => return Err(c.fail(o, &format!("warp size {w}: warpscope's warps are 32 threads"))),
            _ => return Err(c.fail(o, "expected <threads per SM>:<warp size>, e.g. 1536:32")),
        }
    }
    if let Some((v, o)) = c.number("gpgpu_shader_cta")? {
        c.set("core.max_ctas", v, src(o));
    }
    // No option turns them off: the L2 answers every store (`WRITE_ACK`), and a warp is done
    // only when its stores are answered (`shd_warp_t::hardware_done`).
    c.set(
        "l2.write_acks",
        true,
        "GPGPU-Sim acknowledges every store to its SM, and a warp waits for its acknowledgements before it is done",
    );
    // No option counts a warp's loads in flight: a load waits only for the registers it names
    // to have no pending write (`Scoreboard::checkCollision`), so independent loads all go.
    c.set(
        "core.max_loads_per_warp",
        MAX_LOADS_PER_WARP,
        "GPGPU-Sim bounds a warp's loads in flight only by its scoreboard's registers: warpscope's most",
    );
    occupancy(c)?;
    if let Some((v, o)) = c.number("gpgpu_num_sched_per_core")? {
        c.set("core.warp_schedulers", v, src(o));
    }
    sub_core(c)?;
    if let Some(o) = c.get("gpgpu_scheduler") {
        let mut parts = o.value.split(':');
        match parts.next().unwrap_or("") {
            "gto" => c.set("core.warp_scheduler", "\"gto\"", src(o)),
            "lrr" => c.set("core.warp_scheduler", "\"lrr\"", src(o)),
            "two_level_active" => {
                let n = parts.next().and_then(|n| n.parse::<u32>().ok()).ok_or_else(|| {
                    c.fail(o, "expected two_level_active:<active warps>:<inner>:<outer>, e.g. two_level_active:6:0:1")
                })?;
                c.set("core.warp_scheduler", "\"two-level\"", src(o));
                c.set("core.two_level.group_size", n, src(o));
                c.note(o, "two-level: GPGPU-Sim's active/pending pools become warpscope's fixed fetch groups of the active-pool size");
            }
            other => {
                c.note(o, format!("warp scheduler `{other}` has no warpscope equivalent; the machine keeps gto (warpscope's schedulers: lrr, gto, two-level, cta-aware, swl, ccws, mascar, oaws-*)"));
            }
        }
    }
    alu(c)?;
    if let Some((v, o)) = c.number("gpgpu_smem_latency")? {
        c.set("core.shared_latency", v, src(o));
    }
    if let Some((v, o)) = c.number("gpgpu_kernel_launch_latency")? {
        c.set("core.kernel_launch_latency", v, src(o));
    }
    if let Some((v, o)) = c.number("gpgpu_TB_launch_latency")? {
        c.set("core.cta_launch_latency", v, src(o));
    }
    Ok(())
}

/// The registers and shared memory resident CTAs share, which limit them as GPGPU-Sim's
/// `shader_core_config::max_cta` does (`crate::sim::occupancy`): each only when the files give
/// it (GPGPU-Sim's defaults, 8192 registers and 16 KiB, are not assumed).
/// `-gpgpu_ignore_resources_limitation 1` runs a kernel too large for an SM one CTA at a time.
fn occupancy(c: &mut Ctx) -> Result<(), ConfigError> {
    if let Some((v, o)) = c.number("gpgpu_shader_registers")? {
        c.set("core.registers", format!("Some({v})"), src(o));
    }
    if let Some((v, o)) = c.number("gpgpu_shmem_size")? {
        c.set("core.shared_bytes", format!("Some({v})"), src(o));
    }
    if let Some((v, o)) = c.number("gpgpu_ignore_resources_limitation")? {
        c.set("core.ignore_resource_limits", v != 0, src(o));
    }
    Ok(())
}

/// The ALU's latency and initiation interval. Accel-Sim's trace-driven mode times an INT
/// instruction (`IADD3`, `IMAD`: the ALU opcodes warpscope's exported traces use) with
/// `-trace_opcode_latency_initiation_int <latency>,<initiation>` (`trace_config::set_latency`);
/// an initiation interval of n cycles per warp instruction is a SIMD width of 32 / n. Without a
/// `trace.config`, GPGPU-Sim's PTX-mode ADD latency stands for every ALU operation.
/// `-gpgpu_sub_core_model 1`: each warp scheduler has its own register in ID_OC_MEM and in
/// OC_EX_MEM (`register_set::has_free(sub_core_model, id)` in `scheduler_unit::cycle`), and its
/// own share of the operand collector units between the two stages
/// (`opndcoll_rfu_t::allocate_cu` gives an instruction only the units of the scheduler that
/// issued it: a set's size over the schedulers). A memory instruction the LD/ST unit has not
/// taken yet waits in any of them: ID_OC_MEM's register, a collector unit that has read its
/// operands but finds OC_EX_MEM's register taken (`collector_unit_t::ready`), OC_EX_MEM's
/// register. So `core.sub_core`, with `core.mem_pipeline_width` those places per scheduler:
/// the ID_OC_MEM and OC_EX_MEM widths (the 5th and 10th of `-gpgpu_pipeline_widths`) and the
/// collector units the MEM input port reaches (`shader_core_ctx::create_exec_pipeline`): the
/// generic ones (`-gpgpu_operand_collector_num_units_gen`), and with
/// `-gpgpu_enable_specialized_operand_collector 1` (GPGPU-Sim's default) the memory ones
/// (`-gpgpu_operand_collector_num_units_mem`, default 2), each divided among the schedulers.
/// The generic units also collect ALU instructions' operands, which warpscope does not pass
/// through a collector: its memory instructions have all of them.
fn sub_core(c: &mut Ctx) -> Result<(), ConfigError> {
    let Some((on, o)) = c.number("gpgpu_sub_core_model")? else { return Ok(()) };
    if on == 0 {
        c.agree(o, "the warp schedulers share the places in front of the LD/ST unit (core.sub_core = false)");
        return Ok(());
    }
    c.set("core.sub_core", true, src(o));
    let schedulers = match c.number("gpgpu_num_sched_per_core")? {
        Some((n, _)) => n.max(1),
        None => u64::from(crate::config::Config::default().core.warp_schedulers),
    };
    let Some(w) = c.get("gpgpu_pipeline_widths") else { return Ok(()) };
    let widths = c.numbers(w, ',', "comma-separated stage widths, e.g. 4,4,4,4,4,4,4,4,4,4,8")?;
    match (widths.get(4), widths.get(9)) {
        (Some(&id_oc), Some(&oc_ex)) if id_oc >= schedulers && oc_ex >= schedulers => {
            let (units, from) = memory_collector_units(c)?;
            c.set(
                "core.mem_pipeline_width",
                id_oc / schedulers + oc_ex / schedulers + units / schedulers,
                format!(
                    "{} (ID_OC_MEM {id_oc} + OC_EX_MEM {oc_ex} registers + {units} operand collector units{from}, over {schedulers} schedulers)",
                    src(w)
                ),
            )
        }
        _ => c.note(
            w,
            format!("ID_OC_MEM and OC_EX_MEM (the 5th and 10th widths) need a register for each of the {schedulers} sub-core schedulers; core.mem_pipeline_width keeps its default"),
        ),
    }
    Ok(())
}

/// The operand collector units a memory instruction can wait in (GPGPU-Sim's
/// `create_exec_pipeline`: the generic set, and the memory set when the specialized
/// collectors are enabled, as they are by default), and the options that said so.
fn memory_collector_units(c: &mut Ctx) -> Result<(u64, String), ConfigError> {
    let mut from = Vec::new();
    let mut count = |c: &mut Ctx, name: &str, default: u64| -> Result<u64, ConfigError> {
        Ok(match c.number(name)? {
            Some((n, o)) => {
                from.push(src(o));
                n
            }
            None => default,
        })
    };
    let specialized = count(c, "gpgpu_enable_specialized_operand_collector", 1)? != 0;
    let mut units = count(c, "gpgpu_operand_collector_num_units_gen", 0)?;
    if specialized {
        units += count(c, "gpgpu_operand_collector_num_units_mem", 2)?;
    }
    let from = if from.is_empty() { String::new() } else { format!(": {}", from.join(", ")) };
    Ok((units, from))
}

fn alu(c: &mut Ctx) -> Result<(), ConfigError> {
    const ONE_ALU: &str = "warpscope has one ALU: every non-memory instruction gets core.alu_latency and core.simd_width from -trace_opcode_latency_initiation_int (the INT unit of IADD3 and IMAD)";
    if let Some(o) = c.get("trace_opcode_latency_initiation_int") {
        let v = c.numbers(o, ',', "<latency>,<initiation interval>, e.g. 2,2")?;
        let [latency, initiation] = v[..] else {
            return Err(c.fail(o, "expected <latency>,<initiation interval>, e.g. 2,2"));
        };
        c.set("core.alu_latency", latency, format!("{} (INT latency, used for every ALU operation)", src(o)));
        match initiation {
            1 | 2 | 4 | 8 | 16 | 32 => c.set(
                "core.simd_width",
                32 / initiation,
                format!("{} (a warp instruction holds the unit {initiation} cycles)", src(o)),
            ),
            n => c.note(o, format!("initiation interval {n}: core.simd_width needs 32 / n lanes, so n must be 1, 2, 4, 8, 16 or 32")),
        }
        for name in ["ptx_opcode_latency_int", "ptx_opcode_initiation_int"] {
            if let Some(p) = c.get(name) {
                c.note(p, "PTX-mode timing: the trace-driven simulator times SASS instructions with -trace_opcode_latency_initiation_int");
            }
        }
        let others: Vec<String> = c
            .opts
            .keys()
            .filter(|n| {
                (n.starts_with("trace_opcode_latency_initiation_")
                    && *n != "trace_opcode_latency_initiation_int")
                    || n.starts_with("specialized_unit_")
            })
            .cloned()
            .collect();
        for name in others {
            let o = c.get(&name).expect("listed");
            c.note(o, ONE_ALU);
        }
    } else if let Some(o) = c.get("ptx_opcode_latency_int") {
        let v = c.numbers(o, ',', "comma-separated latencies, ADD first")?;
        c.set("core.alu_latency", v[0], format!("{} (ADD latency, used for every ALU operation)", src(o)));
    }
    Ok(())
}

/// (core MHz, L2 MHz) when given.
fn clocks(c: &mut Ctx) -> Result<Option<(f64, f64)>, ConfigError> {
    let Some(o) = c.get("gpgpu_clock_domains") else { return Ok(None) };
    let v: Vec<f64> =
        o.value.split(':').map(|s| s.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| {
            c.fail(
                o,
                "expected <core MHz>:<interconnect MHz>:<L2 MHz>:<DRAM MHz>, e.g. 700.0:700.0:700.0:924.0",
            )
        })?;
    let [core, icnt, l2, dram] = v[..] else {
        return Err(c.fail(o, "expected four clocks <core MHz>:<interconnect MHz>:<L2 MHz>:<DRAM MHz>"));
    };
    c.set("clocks.core_mhz", format!("{core:?}"), format!("{} (core)", src(o)));
    c.set(
        "clocks.icnt_mhz",
        format!("{l2:?}"),
        format!("{} (L2; warpscope's crossbar runs with it)", src(o)),
    );
    c.set("clocks.dram_mhz", format!("{dram:?}"), format!("{} (DRAM command clock)", src(o)));
    if icnt != l2 {
        c.note(o, format!("the interconnect clock ({icnt} MHz) differs from the L2's ({l2} MHz); warpscope runs both at the L2's"));
    }
    Ok(Some((core, l2)))
}

/// A cache string, parsed, with the error at the option.
fn cache_spec<'a>(c: &mut Ctx<'a>, name: &str) -> Result<Option<(CacheSpec, &'a Opt)>, ConfigError> {
    let Some(o) = c.get(name) else { return Ok(None) };
    let spec = cache::parse(&o.value).map_err(|m| c.fail(o, &format!("`{}` {m}", o.value)))?;
    Ok(Some((spec, o)))
}

/// Sets the keys shared by both cache levels.
fn cache_geometry(c: &mut Ctx, level: &str, s: &CacheSpec, o: &Opt) {
    let from = src(o);
    let mut unmodelled = Vec::new();
    let (mut sets, mut ways) = (s.sets, s.ways);
    if ways > MAX_WAYS {
        // Keep the capacity: the widest associativity warpscope holds that leaves a power-of-two
        // set count.
        // More than 2^32 lines are no cache at all: the ways are then refused as they are.
        let lines = sets.checked_mul(ways).unwrap_or(0);
        if let Some(w) =
            (1..=MAX_WAYS).rev().find(|w| lines > 0 && lines % w == 0 && (lines / w).is_power_of_two())
        {
            (sets, ways) = (lines / w, w);
            unmodelled.push(format!(
                "{} ways: warpscope holds at most {MAX_WAYS}; the same {lines} lines as {sets} sets × {ways} ways",
                s.ways
            ));
        }
    }
    let mshr = s.mshr_entries.min(MAX_MSHR_ENTRIES);
    if mshr < s.mshr_entries {
        unmodelled.push(format!("{} MSHR entries: warpscope holds at most {mshr}", s.mshr_entries));
    }
    c.set(&format!("{level}.sets"), sets, &from);
    c.set(&format!("{level}.ways"), ways, &from);
    c.set(&format!("{level}.line_bytes"), s.line_bytes, &from);
    c.set(&format!("{level}.mshr_entries"), mshr, &from);
    c.set(&format!("{level}.mshr_merge"), s.mshr_merge, &from);
    if s.sectored {
        // warpscope's sectored L2 takes the single-sector requests of a sectored L1.
        let l1_sectored =
            level == "l1" || c.get("gpgpu_cache:dl1").is_some_and(|o| o.value.trim_start().starts_with('S'));
        if l1_sectored {
            c.set(&format!("{level}.sectored"), true, &from);
        } else {
            unmodelled
                .push("sectored lines (S) behind an L1 that is not: the L2 moves whole lines".to_string());
        }
    }
    if s.replacement == 'F' {
        unmodelled.push("FIFO replacement (F): LRU is used".to_string());
    }
    match s.index {
        'L' => {}
        'H' if level == "l1" => c.set(&format!("{level}.index"), "\"fermi\"", &from),
        'P' if IPOLY_SIZES.contains(&sets) => c.set(&format!("{level}.index"), "\"ipoly\"", &from),
        i => unmodelled.push(format!(
            "set index function `{i}` over {sets} sets: warpscope's conventional modulo index is used"
        )),
    }
    if !unmodelled.is_empty() {
        c.note(o, unmodelled.join("; "));
    }
}

fn l1(c: &mut Ctx) -> Result<(), ConfigError> {
    if let Some((s, o)) = cache_spec(c, "gpgpu_cache:dl1")? {
        cache_geometry(c, "l1", &s, o);
        c.set("l1.miss_queue", s.miss_queue, src(o));
        c.set("l1.touch_on_merge", true, merge_touches(o));
        match s.alloc {
            'f' => c.set("l1.allocate", "\"on-fill\"", src(o)),
            'm' => c.set("l1.allocate", "\"on-miss\"", src(o)),
            _ => c.note(o, "streaming allocation (s): warpscope allocates on miss"),
        }
        match (s.write, s.write_alloc) {
            ('E', 'N') => c.set("l1.write", "\"evict\"", src(o)),
            ('T', 'L') => c.set("l1.write", "\"through\"", format!("{} (write-through, lazy fetch on read)", src(o))),
            (w, a) => c.note(
                o,
                format!("write policy {w}:{a}: warpscope's L1 is write-evict and no-write-allocate (E:N, the default kept) or write-through with lazy fetch on read (T:L)"),
            ),
        }
        if let Some(p) = s.data_port {
            c.note(o, format!("L1 data port of {p} bytes: not modelled"));
        }
    }
    if let Some((v, o)) = c.number("gpgpu_l1_latency")? {
        c.set("l1.hit_latency", v, src(o));
        // GPGPU-Sim 4 (the version with this option) sends every access through a latency
        // queue of this length before its tag lookup, misses and stores included.
        c.set("l1.latency_queue", v > 0, format!("{} (misses wait it out too)", src(o)));
    }
    if let Some((v, o)) = c.number("gpgpu_l1_cache_write_ratio")? {
        c.set(
            "l1.write_ratio",
            v,
            format!("{} (% of lines written before a written line is replaced)", src(o)),
        );
    }
    if let Some((v, o)) = c.number("gpgpu_l1_banks")? {
        c.set("l1.banks", v, format!("{} (one access per bank per cycle)", src(o)));
    }
    if let Some((v, o)) = c.number("gpgpu_l1_banks_byte_interleaving")? {
        c.set("l1.bank_bytes", v, src(o));
    }
    match c.number("gpgpu_l1_banks_hashing_function")? {
        Some((0, o)) => c.agree(o, "linear bank indexing"),
        Some((_, o)) => c.note(o, "hashed L1 bank indexing: warpscope indexes banks linearly"),
        None => {}
    }
    adaptive_l1(c)?;
    match c.number("gpgpu_flush_l1_cache")? {
        Some((0, o)) => c.set("l1.flush_when_idle", false, src(o)),
        Some((_, o)) => c.set("l1.flush_when_idle", true, src(o)),
        None => {}
    }
    match c.number("gpgpu_gmem_skip_L1D")? {
        Some((0, o)) => c.agree(o, "global loads are cached in the L1"),
        Some((_, o)) => {
            c.set("l1.skip_global", true, format!("{} (loads go below without a lookup)", src(o)))
        }
        None => {}
    }
    Ok(())
}

/// `-gpgpu_adaptive_cache_config 1`: the L1 and shared memory share `-gpgpu_unified_l1d_size` KB,
/// carved as `-gpgpu_shmem_option` says for each kernel.
fn adaptive_l1(c: &mut Ctx) -> Result<(), ConfigError> {
    let Some((on, o)) = c.number("gpgpu_adaptive_cache_config")? else { return Ok(()) };
    let unified = c.number("gpgpu_unified_l1d_size")?;
    let options = c.get("gpgpu_shmem_option");
    if on == 0 {
        c.agree(o, "the L1 keeps the size of -gpgpu_cache:dl1");
        for x in [unified.map(|u| u.1), options].into_iter().flatten() {
            c.note(x, "only used with -gpgpu_adaptive_cache_config 1");
        }
        return Ok(());
    }
    let (Some((kb, u)), Some(opts)) = (unified, options) else {
        c.note(o, "needs -gpgpu_unified_l1d_size and -gpgpu_shmem_option: the L1 keeps the size of -gpgpu_cache:dl1");
        for x in [unified.map(|u| u.1), options].into_iter().flatten() {
            c.note(x, "only used with both -gpgpu_unified_l1d_size and -gpgpu_shmem_option");
        }
        return Ok(());
    };
    let carve = c.numbers(opts, ',', "shared-memory sizes in KB, e.g. 0,8,16,32,64,96")?;
    let list: Vec<String> = carve.iter().map(u64::to_string).collect();
    c.set(
        "l1.adaptive",
        format!("Some((unified_kb: {kb}, shared_options_kb: [{}]))", list.join(", ")),
        format!("{} with {} and {}", src(o), src(u), src(opts)),
    );
    Ok(())
}

/// Why a GPGPU-Sim cache touches a line on a merge: every one is a `baseline_cache`, whose
/// `send_read_request` looks the line up on an MSHR hit (`HIT_RESERVED` sets its last access
/// time).
fn merge_touches(o: &Opt) -> String {
    format!("{} (a baseline_cache: a read merged into a pending miss touches its line)", src(o))
}

fn l2(c: &mut Ctx, clocks: Option<(f64, f64)>) -> Result<(), ConfigError> {
    if let Some((v, o)) = c.number("gpgpu_n_sub_partition_per_mchannel")? {
        c.set("l2.slices_per_channel", v, src(o));
    }
    let queues = match c.get("gpgpu_dram_partition_queues") {
        Some(o) => {
            let v = c.numbers(o, ':', "<icnt→L2>:<L2→DRAM>:<DRAM→L2>:<L2→icnt>, e.g. 64:64:64:64")?;
            let [to_l2, to_dram, from_dram, to_icnt] = v[..] else {
                return Err(c.fail(o, "expected four queue sizes <icnt→L2>:<L2→DRAM>:<DRAM→L2>:<L2→icnt>"));
            };
            c.set("l2.access_queue", to_l2, format!("{} (icnt→L2)", src(o)));
            c.set("l2.miss_queue", to_dram, format!("{} (L2→DRAM)", src(o)));
            c.set("l2.response_queue", to_icnt, format!("{} (L2→icnt)", src(o)));
            c.note(
                o,
                format!("the DRAM→L2 queue ({from_dram}) is not modelled: fills enter the L2 directly"),
            );
            true
        }
        None => false,
    };
    if let Some((s, o)) = cache_spec(c, "gpgpu_cache:dl2")? {
        cache_geometry(c, "l2", &s, o);
        c.set("l2.touch_on_merge", true, merge_touches(o));
        if !queues {
            c.set("l2.miss_queue", s.miss_queue, src(o));
        }
        if let Some(p) = s.data_port {
            c.set("l2.data_port_bytes", p, src(o));
        }
        if (s.write, s.write_alloc) != ('B', 'L') {
            c.note(o, format!("write policy {}:{}: warpscope's L2 is write-back and allocates on write without fetching (B:L)", s.write, s.write_alloc));
        }
        if s.alloc != 'm' {
            c.note(o, format!("allocation `{}`: warpscope's L2 allocates on miss", s.alloc));
        }
    }
    let rop = c.number("gpgpu_l2_rop_latency")?.or(c.number("rop_latency")?);
    if let Some((v, o)) = rop {
        let (core, l2) = clocks.unwrap_or((1.0, 1.0));
        let cycles = (v as f64 * l2 / core).ceil() as u64;
        c.set(
            "l2.latency",
            cycles,
            format!("{} core cycles in the ROP queue before the L2, in L2 cycles", src(o)),
        );
        // Every request from the interconnect waits out the ROP queue before the L2 sees it,
        // misses and stores included (GPGPU-Sim's `memory_partition_unit`).
        c.set("l2.latency_queue", v > 0, format!("{} (misses wait it out too)", src(o)));
    }
    Ok(())
}

fn interconnect(c: &mut Ctx) -> Result<(), ConfigError> {
    if let Some((v, o)) = c.number("icnt_flit_size")? {
        c.set("icnt.request_flit_bytes", v, src(o));
        c.set("icnt.reply_flit_bytes", v, src(o));
    }
    // The cluster's response FIFO (`simt_core_cluster::icnt_cycle`): it pops a reply from the
    // interconnect only while it holds fewer than this many packets, and hands its head to
    // the LD/ST unit, one a cycle: warpscope's SM reply queue, whose room is the reply
    // network's credit toward the SM.
    if let Some((v, o)) = c.number("gpgpu_n_cluster_ejection_buffer_size")? {
        if v == 0 {
            return Err(c.fail(o, "0 packets: the cluster would never take a reply; give at least 1"));
        }
        let why = match c.number("gpgpu_n_cores_per_cluster")? {
            Some((per, _)) if per > 1 => {
                format!(
                    "the cluster's response FIFO, shared by its {per} cores in GPGPU-Sim: each SM has its own here"
                )
            }
            _ => "the cluster's response FIFO, packets".to_string(),
        };
        c.set("core.reply_queue", v, format!("{} ({why})", src(o)));
    }
    let network_mode = c.opts.get("network_mode");
    match network_mode.map(|m| m.value.trim()) {
        // The local crossbar (`LocalInterconnect`): every node's in_buffers hold up to
        // -icnt_in_buffer_limit packets (`HasBuffer`), its out_buffers up to
        // -icnt_out_buffer_limit (the router's `Has_Buffer_Out`).
        Some("2") => {
            // A packet crosses in one `xbar_router::Advance` (`RR_Advance`, `iSLIP_Advance`:
            // from its input buffer to its output's buffer, whatever its size), and the
            // destination pops it in its next cycle: warpscope's shortest traversal.
            if let Some(o) = network_mode {
                let why = "the local crossbar moves a packet in one cycle";
                c.set("icnt.latency", 1, format!("{} ({why})", src(o)));
            }
            if let Some((v, o)) = c.number("icnt_in_buffer_limit")? {
                let why = "the local crossbar's input buffer per node, in packets: warpscope counts a packet's flits, the same where every packet is one flit";
                c.set("icnt.in_buffer", v, format!("{} ({why})", src(o)));
            }
            if let Some((v, o)) = c.number("icnt_out_buffer_limit")? {
                c.set(
                    "icnt.out_buffer",
                    v,
                    format!("{} (the local crossbar's output buffer per node)", src(o)),
                );
            }
        }
        // BookSim: each node injects into a queue of `input_buffer_size` flits
        // (`InterconnectInterface::HasBuffer`), 9 when the file gives 0 or none.
        Some("1") => {
            let given = c.opts.keys().any(|k| k.starts_with(booksim::PREFIX));
            // warpscope's crossing is the flit's cycle and then `icnt.latency`.
            if let (Some(cycles), Some(o)) =
                (booksim::zero_load_latency(c.opts), c.opts.get("inter_config_file"))
            {
                let why = format!(
                    "BookSim's single router: {cycles} cycles from injection to ejection, the flit's one and {}",
                    cycles - 1
                );
                c.set("icnt.latency", cycles - 1, format!("{} ({why})", src(o)));
            }
            match c.number(&format!("{}input_buffer_size", booksim::PREFIX))? {
                Some((v, o)) => {
                    let v = if v == 0 { 9 } else { v };
                    c.set(
                        "icnt.in_buffer",
                        v,
                        format!("{} (BookSim's injection queue per node, flits)", src(o)),
                    );
                }
                None if given => {
                    let from = c.opts.get("inter_config_file").map_or("the BookSim file".to_string(), src);
                    c.set(
                        "icnt.in_buffer",
                        9,
                        format!("{from} (gives no input_buffer_size: BookSim's 9 flits)"),
                    );
                }
                None => {
                    if let Some(o) = c.get("inter_config_file") {
                        c.note(o, "the BookSim file was not imported, so its input buffers (input_buffer_size) are not in the machine: give it after the option files");
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The keys of `-gpgpu_dram_timing_opt` and what they become.
const TIMING: &[(&str, &str)] = &[
    ("RRD", "dram.timing.t_rrd"),
    ("RCD", "dram.timing.t_rcd"),
    ("RAS", "dram.timing.t_ras"),
    ("RP", "dram.timing.t_rp"),
    ("RC", "dram.timing.t_rc"),
    ("CL", "dram.timing.t_cas"),
    ("WL", "dram.timing.t_wl"),
    ("CDLR", "dram.timing.t_wtr"),
    ("WR", "dram.timing.t_wr"),
    ("CCD", "dram.timing.t_ccds"),
];

fn dram(c: &mut Ctx) -> Result<(), ConfigError> {
    if let Some((v, o)) = c.number("gpgpu_n_mem")? {
        c.set("dram.channels", v, src(o));
    }
    if let Some((width, o)) = c.number("gpgpu_dram_buswidth")? {
        let chips = c.number("gpgpu_n_mem_per_ctrlr")?;
        let from = match chips {
            Some((_, p)) => format!("{} bytes ({}) × {}", shown(o), at(o), src(p)),
            None => format!("{} bytes ({})", shown(o), at(o)),
        };
        // Both factors are 32-bit: their product fits 64 bits, its bits 128.
        c.set("dram.bus_bits", u128::from(width * chips.map_or(1, |p| p.0)) * 8, from);
    }
    let burst = c.number("gpgpu_dram_burst_length")?;
    let ratio = c.number("dram_data_command_freq_ratio")?;
    let mut burst_cycles = None;
    if let Some((bl, o)) = burst {
        c.set("dram.burst_length", bl, src(o));
        if let Some((r, ro)) = ratio {
            if r == 0 {
                return Err(c.fail(ro, "the data/command frequency ratio must be at least 1"));
            }
            let cycles = bl.div_ceil(r);
            burst_cycles = Some(cycles);
            c.set("dram.timing.t_burst", format!("Ck({cycles})"), format!("{} / {}", src(o), src(ro)));
        }
    }
    if let Some(o) = c.get("gpgpu_dram_timing_opt") {
        let text: String = o.value.chars().filter(|ch| !ch.is_whitespace()).collect();
        let mut values = BTreeMap::new();
        for field in text.split(':').filter(|f| !f.is_empty()) {
            let parsed = field.split_once('=').and_then(|(k, v)| Some((k, v.parse::<u64>().ok()?)));
            let Some((k, v)) = parsed else {
                return Err(c.fail(
                    o,
                    &format!(
                        "`{field}`: expected <name>=<cycles> fields separated by `:`, e.g. nbk=16:CCD=2:RRD=6"
                    ),
                ));
            };
            values.insert(k.to_string(), v);
        }
        let from = |k: &str| format!("-gpgpu_dram_timing_opt {k}={} ({})", values[k], at(o));
        for (k, path) in TIMING {
            if values.contains_key(*k) {
                c.set(path, format!("Ck({})", values[*k]), from(k));
            }
        }
        if let Some(&nbk) = values.get("nbk") {
            c.set("dram.banks", nbk, from("nbk"));
        }
        let groups = values.get("nbkgrp").copied().unwrap_or(1);
        if values.contains_key("nbkgrp") {
            c.set("dram.bank_groups", groups, from("nbkgrp"));
        }
        match (values.get("CCDL"), values.get("CCD")) {
            (Some(&l), _) if groups > 1 && l > 0 => {
                c.set("dram.timing.t_ccdl", format!("Ck({l})"), from("CCDL"))
            }
            (_, Some(&s)) => {
                c.set("dram.timing.t_ccdl", format!("Ck({s})"), format!("{} (no bank groups)", from("CCD")))
            }
            _ => {}
        }
        // GPGPU-Sim holds a bank for BL/ratio cycles after a read (`bk[]->RTPc`) and its bank
        // group for tRTPL (`bkgrp[]->RTPLc`), before any precharge there.
        if let Some(b) = burst_cycles {
            c.set("dram.timing.t_rtp", format!("Ck({b})"), format!("the burst time, BL / ratio ({})", at(o)));
        }
        if let Some(&rtpl) = values.get("RTPL") {
            c.set("dram.timing.t_rtpl", format!("Ck({rtpl})"), from("RTPL"));
        }
        c.set("dram.timing.t_faw", "Ck(0)", "GPGPU-Sim has no four-activate window");
        let known: BTreeSet<&str> =
            TIMING.iter().map(|(k, _)| *k).chain(["nbk", "nbkgrp", "CCDL", "RTPL"]).collect();
        let unknown: Vec<String> = values
            .iter()
            .filter(|(k, _)| !known.contains(k.as_str()))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !unknown.is_empty() {
            c.note(o, format!("timing parameters not modelled: {}", unknown.join(", ")));
        }
    }
    dram_queues(c)?;
    bank_indexing(c);
    if let Some((v, o)) = c.number("dram_latency")? {
        c.set(
            "dram.frontend_latency",
            v,
            format!("{} (core cycles between the L2 and the DRAM queue)", src(o)),
        );
    }
    match c.number("dram_dual_bus_interface")? {
        Some((0, o)) => c.agree(o, "one command bus"),
        Some((_, o)) => {
            c.set("dram.dual_bus", true, format!("{} (a row and a column command per cycle)", src(o)))
        }
        None => {}
    }
    if let Some((v, o)) = c.number("gpgpu_dram_scheduler")? {
        match v {
            0 => c.set("dram.scheduler", "\"fcfs\"", src(o)),
            // GPGPU-Sim's own FR-FCFS (one queue, a request per bank, banks round-robin);
            // with a separate write queue its read and write modes are warpscope's drain.
            1 if separate_write_queue(c)? => c.set(
                "dram.scheduler",
                "\"frfcfs\"",
                format!("{} (with a separate write queue: writes drain between its watermarks)", src(o)),
            ),
            1 => c.set(
                "dram.scheduler",
                "\"gpgpusim-frfcfs\"",
                format!(
                    "{} (GPGPU-Sim's FR-FCFS: reads and writes in one queue, a request per bank)",
                    src(o)
                ),
            ),
            _ => return Err(c.fail(o, &format!("`{v}`: expected 0 (FIFO) or 1 (FR-FCFS)"))),
        }
    }
    mapping(c)
}

/// `-gpgpu_dram_return_queue_size`: with the scheduler queue it sizes the credits a channel's
/// sub-partitions spend to send requests to DRAM (`arbitration_metadata`,
/// `sim::dram::credits`); GPGPU-Sim sets no limit when either queue is unbounded (0).
fn return_queue(c: &mut Ctx, sched_queue: u64) -> Result<(), ConfigError> {
    let Some((v, o)) = c.number("gpgpu_dram_return_queue_size")? else { return Ok(()) };
    match (v, sched_queue) {
        (0, _) => c.agree(
            o,
            "an unbounded return queue: no limit on the requests a channel's sub-partitions send to DRAM",
        ),
        (_, 0) => c.agree(
            o,
            "with an unbounded scheduler queue GPGPU-Sim sets no limit on the requests sent to DRAM either",
        ),
        _ => c.set(
            "dram.return_queue",
            v,
            format!(
                "{} (with the scheduler queue, the requests a channel's sub-partitions may send to DRAM)",
                src(o)
            ),
        ),
    }
    Ok(())
}

fn dram_queues(c: &mut Ctx) -> Result<(), ConfigError> {
    let Some((q, o)) = c.number("gpgpu_frfcfs_dram_sched_queue_size")? else { return Ok(()) };
    return_queue(c, q)?;
    let q = if q == 0 {
        c.note(o, "0 (unlimited) has no warpscope equivalent: 64 entries are used");
        64
    } else {
        q
    };
    c.set("dram.read_queue", q, src(o));
    match c.get("dram_write_queue_size") {
        Some(w) if separate_write_queue(c)? => {
            let v = c.numbers(w, ':', "<size>:<high watermark>:<low watermark>, e.g. 64:56:32")?;
            let [size, high, low] = v[..] else {
                return Err(c.fail(w, "expected <size>:<high watermark>:<low watermark>, e.g. 64:56:32"));
            };
            c.set("dram.write_queue", size, src(w));
            c.set("dram.write_high_watermark", high, src(w));
            c.set("dram.write_low_watermark", low, src(w));
        }
        other => {
            if let Some(w) = other {
                c.note(w, "ignored by GPGPU-Sim too: the separate write queue is not enabled");
            }
            c.set("dram.write_queue", q, format!("{} (GPGPU-Sim queues writes with reads)", src(o)));
            c.set("dram.write_high_watermark", q / 2, "half the queue (for a scheduler with a write drain)");
            c.set("dram.write_low_watermark", q / 4, "a quarter of the queue");
        }
    }
    Ok(())
}

/// `-dram_seperate_write_queue_enable` (GPGPU-Sim's spelling): writes wait in a queue of their own.
fn separate_write_queue(c: &mut Ctx) -> Result<bool, ConfigError> {
    Ok(c.number("dram_seperate_write_queue_enable")?.is_some_and(|(v, _)| v != 0))
}

fn mapping(c: &mut Ctx) -> Result<(), ConfigError> {
    let mask = c.get("gpgpu_mem_address_mask");
    let Some(o) = c.get("gpgpu_mem_addr_mapping") else {
        if let Some(m) = mask {
            c.note(m, "GPGPU-Sim's built-in address mapping is not imported (give -gpgpu_mem_addr_mapping): warpscope's default xor mapping is used");
        }
        return Ok(());
    };
    if let Some(m) = mask {
        c.note(m, "superseded by -gpgpu_mem_addr_mapping, as in GPGPU-Sim");
    }
    let (channel_bit, mask) = match o.value.split_once(';') {
        Some((id, mask)) => {
            let bit = id.strip_prefix("dramid@").and_then(|b| b.trim().parse::<u32>().ok()).ok_or_else(|| {
                c.fail(o, &format!("`{id}`: expected dramid@<bit> before `;`, e.g. dramid@8;0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS"))
            })?;
            (Some(bit), mask.trim())
        }
        None => (None, o.value.trim()),
    };
    let mut letters = String::new();
    for ch in mask.chars() {
        letters.push(match ch {
            'D' => 'H',
            'R' | 'B' | 'C' | 'S' | '0' | '.' => ch,
            other => {
                return Err(c.fail(o, &format!("letter `{other}` in the mask; valid: R (row), B (bank), C (column), S (burst byte), D (channel), 0 (unused), `.`")));
            }
        });
    }
    let count = |l: char| letters.chars().filter(|&x| x == l).count() as u32;
    c.set("dram.mapping.scheme", "\"custom\"", src(o));
    let name = format!("-{} ({})", o.name, at(o));
    c.set("dram.mapping.custom", format!("{letters:?}"), format!("{name}, D bits become H"));
    if let Some(bit) = channel_bit {
        c.set("dram.mapping.channel_bit", format!("Some({bit})"), format!("{name}, dramid@{bit}"));
    }
    c.set("dram.rows", 1u64 << count('R'), format!("{name}, R bits"));
    c.set("dram.row_bytes", 1u64 << (count('C') + count('S')), format!("{name}, C and S bits"));
    partition_indexing(c, o, channel_bit);
    Ok(())
}

/// `-gpgpu_memory_partition_indexing`: 0 spreads lines as the mapping says, 2 (IPOLY) hashes the
/// sub-partition as warpscope's `dram.mapping.partition_indexing = "ipoly"` does — for a
/// `dramid@` mapping over a power-of-two channel count and 16, 32 or 64 sub-partitions, the
/// cases GPGPU-Sim's hash is defined for without a modulo — and 4 (RANDOM) draws it per chunk
/// as `"random"` does, for a `dramid@` mapping (any channel count).
fn partition_indexing(c: &mut Ctx, mapping: &Opt, channel_bit: Option<u32>) {
    const SLICES: &str = "L2 sub-partition: GPGPU-Sim takes it from the low bank bits, warpscope alternates the lines of a row between slices";
    let Some(p) = c.get("gpgpu_memory_partition_indexing") else {
        c.note(mapping, SLICES);
        return;
    };
    // 32-bit options, as GPGPU-Sim reads them: their product fits 64 bits.
    let option =
        |name: &str| c.opts.get(name).and_then(|o| o.value.trim().parse::<u32>().ok()).map(u64::from);
    let (channels, per) =
        (option("gpgpu_n_mem").unwrap_or(0), option("gpgpu_n_sub_partition_per_mchannel").unwrap_or(1));
    match p.value.trim() {
        "0" => {
            c.agree(p, "no partition hashing");
            c.note(mapping, SLICES);
        }
        "2" if channel_bit.is_some()
            && channels.is_power_of_two()
            && IPOLY_SIZES.iter().any(|&n| u64::from(n) == channels * per) =>
        {
            c.set("dram.mapping.partition_indexing", "\"ipoly\"", format!("{} (IPOLY over {} sub-partitions)", src(p), channels * per));
        }
        "2" => c.note(p, format!("IPOLY over {channels} × {per} sub-partitions: warpscope hashes only a dramid@ mapping over a power-of-two channel count and 16, 32 or 64 sub-partitions; the channel is the plain modulo of dramid@")),
        "4" if channel_bit.is_some() && per.is_power_of_two() => {
            c.set("dram.mapping.partition_indexing", "\"random\"", format!("{} (RANDOM over {} sub-partitions)", src(p), channels * per));
        }
        "4" => c.note(p, format!("RANDOM over {channels} × {per} sub-partitions: warpscope draws sub-partitions only for a dramid@ mapping and a power-of-two sub-partition count; the channel is the plain modulo of dramid@")),
        other => c.note(p, format!("partition indexing {other}: only 0 (none), 2 (IPOLY) and 4 (RANDOM) are modelled; the channel is the plain modulo of dramid@")),
    }
}

/// Bank and bank-group indexing: warpscope's bank group is the bank number modulo the groups,
/// which is GPGPU-Sim's policy 1 for groups (low bits) and 0 for banks (no bank hashing).
fn bank_indexing(c: &mut Ctx) {
    for (name, ours) in [("dram_bnk_indexing_policy", "0"), ("dram_bnkgrp_indexing_policy", "1")] {
        match c.get(name) {
            Some(o) if o.value.trim() == ours => {
                c.agree(o, "bank group = bank number modulo dram.bank_groups, no bank hashing");
            }
            Some(o) => c.note(o, format!("policy {}: warpscope indexes as policy {ours} (bank group = bank number modulo dram.bank_groups, no bank hashing)", o.value.trim())),
            None => {}
        }
    }
}

/// The reason given for options that only steer GPGPU-Sim's functional model, statistics or
/// run control.
pub const NO_TIMING_EFFECT: &str =
    "functional, statistics or run-control option: no timing effect to represent";

/// Why an option that became no key is not represented.
fn unrepresented(name: &str) -> &'static str {
    const TABLE: &[(&[&str], &str)] = &[
        (
            &[
                "ptx",
                "gpgpu_ptx",
                "enable_ptx",
                "visualizer",
                "power_",
                "gpuwattch",
                "trace",
                "gpgpu_runtime_stat",
                "gpgpu_memlatency_stat",
                "gpgpu_stack_size_limit",
                "gpgpu_heap_size_limit",
                "gpgpu_runtime_sync_depth_limit",
                "gpgpu_runtime_pending_launch_count_limit",
                "gpgpu_compute_capability",
                "gpgpu_perf_sim_memcpy",
                "gpgpu_simd_model",
                "gpgpu_deadlock_detect",
                "gpgpu_max_cycle",
                "gpgpu_max_insn",
                "gpgpu_max_cta",
                "gpgpu_max_completed_cta",
                "gpgpu_cache:dl2_texture_only",
                "save_embedded_ptx",
                "keep",
            ],
            NO_TIMING_EFFECT,
        ),
        (&["gpgpu_shmem_option", "gpgpu_unified_l1d_size"], "only used with -gpgpu_adaptive_cache_config 1"),
        (
            &["trace_opcode_latency_initiation", "specialized_unit"],
            "warpscope has one ALU: every non-memory instruction gets core.alu_latency and core.simd_width (from -trace_opcode_latency_initiation_int when given)",
        ),
        (
            &["gpgpu_cache:dl1Pref", "gpgpu_shmem_size_Pref"],
            "the alternative L1 configuration for a cudaFuncCachePrefer* kernel: the import uses -gpgpu_cache:dl1",
        ),
        (
            &[
                "gpgpu_cache:il1",
                "gpgpu_tex_cache",
                "gpgpu_const_cache",
                "gpgpu_perfect_inst_const_cache",
                "gpgpu_inst_fetch_throughput",
            ],
            "instruction, texture and constant caches are not modelled (instruction fetch is ideal)",
        ),
        (
            &[
                "gpgpu_operand_collector",
                "gpgpu_enable_specialized_operand_collector",
                "gpgpu_num_reg_banks",
                "gpgpu_reg_file_port_throughput",
                "gpgpu_pipeline_widths",
                "gpgpu_num_sp_units",
                "gpgpu_num_sfu_units",
                "gpgpu_num_dp_units",
                "gpgpu_num_int_units",
                "gpgpu_tensor_core_avail",
                "gpgpu_num_tensor_core_units",
                "gpgpu_max_insn_issue_per_warp",
                "gpgpu_dual_issue_diff_exec_units",
                "gpgpu_clock_gated_lanes",
                "ptx_opcode_initiation",
                "ptx_opcode_latency",
            ],
            "execution-pipeline detail is not modelled: each scheduler issues one instruction per cycle, ALU results after core.alu_latency",
        ),
        (
            &["gpgpu_registers_per_block", "gpgpu_shmem_per_block"],
            "reported to the CUDA program (cudaDeviceProp) only: GPGPU-Sim's max_cta limits resident CTAs by -gpgpu_shader_registers and -gpgpu_shmem_size (core.registers, core.shared_bytes)",
        ),
        (
            &["gpgpu_occupancy_sm_number"],
            "PTX mode's ptxas target for counting a kernel's registers: a trace names its own (-nregs)",
        ),
        (
            &["gpgpu_shmem_num_banks", "gpgpu_shmem_limited_broadcast", "gpgpu_shmem_warp_parts"],
            "shared-memory bank conflicts are not modelled (a fixed core.shared_latency)",
        ),
        (
            &["network_mode", "inter_config_file", "icnt_"],
            "the interconnect's topology and arbitration are not modelled: warpscope's crossbar has a fixed latency plus flit serialization, with input and output buffers (icnt.in_buffer, icnt.out_buffer) from the local crossbar's -icnt_in_buffer_limit and -icnt_out_buffer_limit, or BookSim's input_buffer_size",
        ),
        (
            &[booksim::PREFIX],
            "BookSim's routers (topology, routing, virtual channels, allocators and their buffers) are not modelled: warpscope's crossbar has a fixed latency plus flit serialization, and input_buffer_size as icnt.in_buffer",
        ),
        (
            &["gpgpu_max_concurrent_kernel"],
            "concurrent kernels are not modelled: warpscope runs kernels one after another (as GPGPU-Sim does within one stream)",
        ),
        (
            &["gpgpu_coalesce_arch"],
            "warpscope coalesces per L1 line, or per 32-byte sector for a sectored L1 (`S` in -gpgpu_cache:dl1)",
        ),
        (
            &[
                "gpgpu_n_cores_per_cluster",
                "gpgpu_n_mem_per_ctrlr",
                "dram_data_command_freq_ratio",
                "dram_seperate_write_queue_enable",
            ],
            "only meaningful with the option it completes, which the file does not give",
        ),
    ];
    // The longest matching prefix decides (`ptx_opcode_initiation` before `ptx`).
    TABLE
        .iter()
        .flat_map(|(prefixes, reason)| prefixes.iter().map(move |p| (*p, *reason)))
        .filter(|(p, _)| name.starts_with(p))
        .max_by_key(|(p, _)| p.len())
        .map_or("not known to the importer: no warpscope equivalent", |(_, reason)| reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(file: &str, line: usize, option: &str, reason: &str) -> Note {
        Note { file: file.into(), line, option: option.into(), reason: reason.into() }
    }

    /// Consecutive notes of one file with one reason share a line; another reason or file
    /// starts the next.
    #[test]
    fn notes_with_one_reason_share_a_line() {
        let notes = [
            note("a.icnt", 3, "use_map = 0", "routers"),
            note("a.icnt", 4, "flit_size = 40", "routers"),
            note("a.icnt", 9, "k = 52", "routers"),
            note("a.icnt", 10, "x = 1", "other"),
            note("g.config", 11, "-y 2", "other"),
        ];
        assert_eq!(
            Note::lines(&notes, |f| f.to_uppercase()),
            [
                "A.ICNT:3–9: use_map = 0; flit_size = 40; k = 52 — routers",
                "A.ICNT:10: x = 1 — other",
                "G.CONFIG:11: -y 2 — other",
            ]
        );
    }
}
