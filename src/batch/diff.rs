//! `warpscope diff` (issue 40): one workload on two machines that differ in some settings, A
//! and B, and where B's cycles went against A's. Both run with their passes recorded
//! ([`crate::sim::record`]), and every load's critical request is blamed
//! ([`crate::debug::blame`]) as its data comes back ([`Streaming::push_critical`]: the passes
//! kept are those of the loads in flight, and the parts are cycles per cause only):
//!
//! - the **load wait** per stage and cause: over all loads, the cycles of each load's critical
//!   request (the one its warp waited for) in each stage and for each cause, in A and in B, and
//!   B − A, largest change first. A load's parts add up to its latency, so the differences add
//!   up to the difference in total load latency, cycle for cycle;
//! - the **report keys** that moved most (relative change);
//! - the **loads** whose latency changed most, matched by warp and per-warp load number, with
//!   their critical request's stages side by side;
//! - where the machines **part**: the first load issue and the first DRAM command (per channel,
//!   the earliest) that differ, with what each machine did there.

use super::compare::{Variant, configs};
use super::run::{Observer, RunOptions, simulate_observed};
use super::table;
use crate::config::{Config, ConfigError};
use crate::debug::blame::{Cause, CriticalBlame, FastMap, Stage, Streaming};
use crate::sim::record::Point;
use crate::sim::stats::report::{Report, flatten};
use crate::sim::{Event, EventKind, Gpu};
use crate::workload::Workload;
use anyhow::Result;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// What one machine did: its report, its loads' blame, its load issues and DRAM commands.
pub struct Side {
    pub report: Report,
    pub loads: Vec<LoadWait>,
    /// Per (stage, cause), the cycles of every load's critical request.
    pub wait: BTreeMap<(Stage, Cause), u64>,
    pub issues: Vec<Issue>,
    pub commands: Vec<Cmd>,
}

/// A warp issued a global load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Issue {
    pub cycle: u64,
    pub core: u16,
    pub warp: u16,
    /// The warp's load number.
    pub load: u32,
}

/// A DRAM command: the core cycle and the DRAM cycle it issued in, and what it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cmd {
    pub cycle: u64,
    pub dram_cycle: u64,
    pub channel: u16,
    pub kind: &'static str,
    pub bank: u8,
    pub row: u32,
}

/// What a load's blame comes to here: its latency and its critical request's cycles per
/// stage (the blame without the requests served ahead, which a long run could not hold for
/// every load), in as little room as it takes: a long run holds one for every load.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadWait {
    pub core: u16,
    pub warp: u16,
    pub seq: u32,
    pub issued: u64,
    pub latency: u64,
    /// Cycles in each stage, in [`Stage::ALL`]'s order (a stage of more than 2³² − 1 cycles,
    /// a load waiting for over four billion, counts that many).
    stages: [u32; Stage::ALL.len()],
}

impl LoadWait {
    /// The load's summary, and its critical request's cycles per (stage, cause) added to `wait`.
    pub fn of(l: &CriticalBlame, wait: &mut BTreeMap<(Stage, Cause), u64>) -> LoadWait {
        let mut stages = [0u32; Stage::ALL.len()];
        for s in l.request.iter().flat_map(|r| &r.stages) {
            let at = &mut stages[s.stage as usize];
            *at = at.saturating_add(u32::try_from(s.cycles()).unwrap_or(u32::MAX));
            for p in &s.parts {
                *wait.entry((s.stage, p.cause)).or_insert(0) += p.cycles;
            }
        }
        LoadWait { core: l.core, warp: l.warp, seq: l.seq, issued: l.issued, latency: l.latency(), stages }
    }
}

/// Machines A and B: `base` with `--a`'s settings and with `--b`'s. A refused setting is named
/// by its flag and argument as given (`--a dram.bankz=16`).
pub fn machines(base: &Config, a: &[String], b: &[String]) -> Result<[Config; 2], ConfigError> {
    let [ca, cb]: [Config; 2] = configs(base, &[side("A", "--a", a), side("B", "--b", b)])?
        .try_into()
        .expect("two variants, two machines");
    Ok([ca, cb])
}

/// Machine `name`: the settings `sets`, given after `flag`, which a refusal names.
fn side(name: &str, flag: &str, sets: &[String]) -> Variant {
    Variant {
        name: name.into(),
        sets: sets.to_vec(),
        from: sets.iter().map(|s| format!("{flag} {s}")).collect(),
    }
}

/// The second machine of a lockstep debugging session: `base` with `--vs`'s settings, a refused
/// one named as given (`--vs dram.bankz=16`).
pub fn versus(base: &Config, sets: &[String]) -> Result<Config, ConfigError> {
    let [b]: [Config; 1] =
        configs(base, &[side("B", "--vs", sets)])?.try_into().expect("one variant, one machine");
    Ok(b)
}

/// Records a run as it goes: every load's blame as its data comes back, the load issues and
/// the DRAM commands.
#[derive(Default)]
struct Recorder {
    blame: Streaming,
    loads: Vec<LoadWait>,
    wait: BTreeMap<(Stage, Cause), u64>,
    issues: Vec<Issue>,
    commands: Vec<Cmd>,
}

impl Observer for Recorder {
    fn start(&mut self, g: &mut Gpu) {
        g.events.set_mask(0);
        g.events.set(EventKind::DramCommand, true);
        g.events.set_recording(true);
    }

    fn slice(&mut self, g: &mut Gpu) {
        let mut passes = g.events.take_passes();
        passes.sort_by_key(|p| p.cycle);
        self.issues.extend(passes.iter().filter(|p| p.point == Point::Issue).map(|p| Issue {
            cycle: p.cycle,
            core: p.who.core,
            warp: p.who.warp,
            load: p.who.seq,
        }));
        let wait = &mut self.wait;
        self.loads.extend(self.blame.push_critical(&passes).iter().map(|l| LoadWait::of(l, wait)));
        self.commands.extend(g.events.drain().filter_map(|(cycle, e)| match e {
            Event::DramCommand { channel, dram_cycle, cmd } => {
                Some(Cmd { cycle, dram_cycle, channel, kind: cmd.kind.name(), bank: cmd.bank, row: cmd.row })
            }
            _ => None,
        }));
    }
}

/// Runs `workload` on `config` for at most `max_cycles` core cycles (0: the config's cap) as
/// `run` does, recording every pass. A run stopped by Ctrl-C reports `interrupted`.
pub fn record(config: &Config, workload: Arc<Workload>, max_cycles: u64) -> Result<Side> {
    let mut r = Recorder::default();
    let opts = RunOptions { max_cycles, ..RunOptions::default() };
    let (_, report) = simulate_observed(config, workload, &opts, &mut r)?;
    // In issue order, as the per-warp load numbers count them.
    r.loads.sort_by_key(|l| (l.issued, l.core, l.warp, l.seq));
    Ok(Side { report, loads: r.loads, wait: r.wait, issues: r.issues, commands: r.commands })
}

/// One (stage, cause)'s cycles of load wait on both machines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WaitRow {
    pub stage: &'static str,
    pub cause: &'static str,
    pub a: u64,
    pub b: u64,
    pub change: i64,
}

/// A report key on both machines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyRow {
    pub key: String,
    pub a: f64,
    pub b: f64,
    /// (b − a) / |a|; `None` where a is 0.
    pub relative: Option<f64>,
}

/// A load both machines ran, with its latency and its critical request's stages on each.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoadRow {
    pub core: u16,
    pub warp: u16,
    pub load: u32,
    pub latency_a: u64,
    pub latency_b: u64,
    pub change: i64,
    /// Per stage the critical request spent cycles in on either machine: (stage, cycles in A,
    /// cycles in B).
    pub stages: Vec<StageCycles>,
}

/// A stage's cycles in A and in B; in JSON `["stage", a, b]`. Small, as a run's every changed
/// load has a list of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageCycles(pub Stage, pub u32, pub u32);

impl Serialize for StageCycles {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.0.name(), self.1, self.2).serialize(s)
    }
}

/// The first place two event streams part: its index, and what each did there (`None`: the
/// stream had ended).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Parting<T> {
    pub index: usize,
    pub cycle: u64,
    pub a: Option<T>,
    pub b: Option<T>,
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    pub workload: String,
    pub a_sets: Vec<String>,
    pub b_sets: Vec<String>,
    pub cycles_a: u64,
    pub cycles_b: u64,
    /// How each run ended (`done`, `max-cycles`, ...).
    pub status_a: String,
    pub status_b: String,
    pub instructions_a: u64,
    pub instructions_b: u64,
    /// A's cycles over B's (above 1 when B is faster); where both stopped at the cycle cap,
    /// B's thread instructions over A's.
    pub speedup: f64,
    pub loads_a: usize,
    pub loads_b: usize,
    /// Total load latency (the sum over loads) on each machine.
    pub load_wait_a: u64,
    pub load_wait_b: u64,
    pub wait: Vec<WaitRow>,
    pub keys: Vec<KeyRow>,
    pub loads: Vec<LoadRow>,
    pub issue_parting: Option<Parting<Issue>>,
    pub command_parting: Option<Parting<Cmd>>,
}

/// The first index at which `a` and `b` differ, and the cycle there (the earlier of the two
/// events); `None` when they are the same.
pub fn parting<T: PartialEq + Copy>(a: &[T], b: &[T], cycle: impl Fn(&T) -> u64) -> Option<Parting<T>> {
    let index = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    let (x, y) = (a.get(index).copied(), b.get(index).copied());
    let at = x.iter().chain(y.iter()).map(&cycle).min().unwrap_or(0);
    Some(Parting { index, cycle: at, a: x, b: y })
}

/// The DRAM command streams' parting: per channel the first difference, the earliest of them.
fn command_parting(a: &[Cmd], b: &[Cmd]) -> Option<Parting<Cmd>> {
    let channels = a.iter().chain(b).map(|c| c.channel).max().map_or(0, |c| c + 1);
    (0..channels)
        .filter_map(|ch| {
            let of = |s: &[Cmd]| s.iter().filter(|c| c.channel == ch).copied().collect::<Vec<_>>();
            parting(&of(a), &of(b), |c| c.cycle)
        })
        .min_by_key(|p| {
            let first = p.a.iter().chain(p.b.iter()).map(|c| c.dram_cycle).min();
            (p.cycle, first, p.a.or(p.b).map_or(0, |c| c.channel))
        })
}

/// Report keys a comparison leaves out: the host's timing, not the machine's.
fn host_key(key: &str) -> bool {
    key.starts_with("sim.wall_seconds")
        || key.starts_with("sim.cycles_per_second")
        || key.starts_with("sim.peak")
}

/// The numeric report keys on both sides, those that changed, largest relative change first
/// (keys that were 0 in A after them, by absolute change).
fn moved_keys(a: &Report, b: &Report) -> Vec<KeyRow> {
    let flat = |r: &Report| {
        let mut out = Vec::new();
        flatten("", &serde_json::to_value(r).expect("a report serializes"), false, &mut out);
        out.into_iter().filter_map(|(k, v)| Some((k, v.as_f64()?))).collect::<HashMap<String, f64>>()
    };
    let (fa, fb) = (flat(a), flat(b));
    let mut rows: Vec<KeyRow> = fa
        .iter()
        .filter(|(k, _)| !host_key(k))
        .filter_map(|(k, &x)| {
            let y = *fb.get(k)?;
            (x != y).then(|| KeyRow {
                key: k.clone(),
                a: x,
                b: y,
                relative: (x != 0.0).then(|| (y - x) / x.abs()),
            })
        })
        .collect();
    rows.sort_by(|p, q| {
        let size = |r: &KeyRow| (r.relative.is_some(), r.relative.map_or((r.b - r.a).abs(), f64::abs));
        let (sp, sq) = (size(p), size(q));
        sq.0.cmp(&sp.0).then(sq.1.total_cmp(&sp.1)).then(p.key.cmp(&q.key))
    });
    rows
}

/// Each load with its key for matching: its SM, warp slot and load number, and how many loads
/// of the same key came before it (a warp slot's next warp numbers its loads from 0 again).
fn keyed(loads: &[LoadWait]) -> impl Iterator<Item = ((u16, u16, u32, usize), &LoadWait)> {
    let mut seen: FastMap<(u16, u16, u32), usize> = FastMap::default();
    loads.iter().map(move |l| {
        let n = seen.entry((l.core, l.warp, l.seq)).or_insert(0);
        *n += 1;
        ((l.core, l.warp, l.seq, *n - 1), l)
    })
}

/// The loads both machines ran whose latency differs, by warp and load number, largest change
/// first.
fn changed_loads(a: &[LoadWait], b: &[LoadWait]) -> Vec<LoadRow> {
    let by_warp: FastMap<(u16, u16, u32, usize), &LoadWait> = keyed(b).collect();
    let mut rows: Vec<LoadRow> = keyed(a)
        .filter_map(|(key, la)| by_warp.get(&key).filter(|lb| lb.latency != la.latency).map(|lb| (la, *lb)))
        .map(|(la, lb)| {
            let both = |s: Stage| (la.stages[s as usize], lb.stages[s as usize]);
            let mut stages = Vec::with_capacity(Stage::ALL.iter().filter(|&&s| both(s) != (0, 0)).count());
            stages.extend(Stage::ALL.into_iter().filter(|&s| both(s) != (0, 0)).map(|s| {
                let (x, y) = both(s);
                StageCycles(s, x, y)
            }));
            LoadRow {
                core: la.core,
                warp: la.warp,
                load: la.seq,
                latency_a: la.latency,
                latency_b: lb.latency,
                change: lb.latency as i64 - la.latency as i64,
                stages,
            }
        })
        .collect();
    rows.sort_by(|p, q| {
        q.change.abs().cmp(&p.change.abs()).then((p.core, p.warp, p.load).cmp(&(q.core, q.warp, q.load)))
    });
    rows
}

/// Whether both runs stopped at the cycle cap: then their work, not their cycles, compares.
fn both_capped(a: &Report, b: &Report) -> bool {
    a.status == "max-cycles" && b.status == "max-cycles"
}

/// Compares the two runs.
pub fn diff(workload: &str, a_sets: &[String], b_sets: &[String], a: &Side, b: &Side) -> Diff {
    let (wa, wb) = (&a.wait, &b.wait);
    let mut wait: Vec<WaitRow> = wa
        .keys()
        .chain(wb.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|&(stage, cause)| {
            let (x, y) = (
                wa.get(&(stage, cause)).copied().unwrap_or(0),
                wb.get(&(stage, cause)).copied().unwrap_or(0),
            );
            WaitRow { stage: stage.name(), cause: cause.name(), a: x, b: y, change: y as i64 - x as i64 }
        })
        .collect();
    wait.sort_by(|p, q| q.change.abs().cmp(&p.change.abs()).then(q.b.cmp(&p.b)));
    let total = |loads: &[LoadWait]| loads.iter().map(|l| l.latency).sum::<u64>();
    Diff {
        workload: workload.to_string(),
        a_sets: a_sets.to_vec(),
        b_sets: b_sets.to_vec(),
        cycles_a: a.report.cycles,
        cycles_b: b.report.cycles,
        status_a: a.report.status.clone(),
        status_b: b.report.status.clone(),
        instructions_a: a.report.thread_instructions,
        instructions_b: b.report.thread_instructions,
        speedup: if both_capped(&a.report, &b.report) {
            b.report.thread_instructions as f64 / a.report.thread_instructions.max(1) as f64
        } else {
            a.report.cycles as f64 / b.report.cycles.max(1) as f64
        },
        loads_a: a.loads.len(),
        loads_b: b.loads.len(),
        load_wait_a: total(&a.loads),
        load_wait_b: total(&b.loads),
        wait,
        keys: moved_keys(&a.report, &b.report),
        loads: changed_loads(&a.loads, &b.loads),
        issue_parting: parting(&a.issues, &b.issues, |i| i.cycle),
        command_parting: command_parting(&a.commands, &b.commands),
    }
}

/// How many rows of each ranked table the text and Markdown reports show.
pub const SHOWN: usize = 12;

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn signed(v: i64) -> String {
    if v > 0 { format!("+{v}") } else { v.to_string() }
}

fn issue_text(i: &Option<Issue>) -> String {
    i.map_or("(ended)".into(), |i| {
        format!("cycle {}: warp {}.{} issues its load {}", i.cycle, i.core, i.warp, i.load)
    })
}

fn cmd_text(c: &Option<Cmd>) -> String {
    c.map_or("(ended)".into(), |c| {
        format!(
            "cycle {} (DRAM cycle {}): {} to bank {} row {} of channel {}",
            c.cycle, c.dram_cycle, c.kind, c.bank, c.row, c.channel
        )
    })
}

impl Diff {
    /// The report's tables: (title, header, rows), in the order the report shows them.
    fn tables(&self) -> Vec<(String, Vec<String>, Vec<Vec<String>>)> {
        let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let wait = self
            .wait
            .iter()
            .take(SHOWN)
            .map(|w| vec![w.stage.into(), w.cause.into(), w.a.to_string(), w.b.to_string(), signed(w.change)])
            .collect();
        let keys = self
            .keys
            .iter()
            .take(SHOWN)
            .map(|k| {
                let rel = k.relative.map_or("new".into(), |r| format!("{:+.1} %", 100.0 * r));
                vec![k.key.clone(), format!("{:.4}", k.a), format!("{:.4}", k.b), rel]
            })
            .collect();
        let loads = self
            .loads
            .iter()
            .take(SHOWN)
            .map(|l| {
                let stages: Vec<String> = l
                    .stages
                    .iter()
                    .filter(|StageCycles(_, x, y)| x != y)
                    .map(|StageCycles(s, x, y)| format!("{} {x}→{y}", s.name()))
                    .collect();
                vec![
                    format!("{}.{} load {}", l.core, l.warp, l.load),
                    l.latency_a.to_string(),
                    l.latency_b.to_string(),
                    signed(l.change),
                    stages.join(", "),
                ]
            })
            .collect();
        vec![
            (
                "Load wait by stage and cause (cycles of each load's critical request)".into(),
                h(&["stage", "cause", "A", "B", "B − A"]),
                wait,
            ),
            ("Report keys that moved most".into(), h(&["key", "A", "B", "change"]), keys),
            (
                "Loads whose latency changed most".into(),
                h(&["load", "A", "B", "B − A", "stages that changed (A→B)"]),
                loads,
            ),
        ]
    }

    fn headline(&self) -> Vec<String> {
        let sets = |s: &[String]| if s.is_empty() { "the machine as given".to_string() } else { s.join(" ") };
        let mut lines = vec![
            format!("workload {}; A: {}; B: {}", self.workload, sets(&self.a_sets), sets(&self.b_sets)),
            if self.status_a == "max-cycles" && self.status_b == "max-cycles" {
                format!(
                    "both stopped at cycle {} (the cap); thread instructions A {}, B {}: B did {:.3}x A's work",
                    self.cycles_a, self.instructions_a, self.instructions_b, self.speedup
                )
            } else {
                format!(
                    "cycles: A {} ({}), B {} ({}); speedup of B over A {:.3}",
                    self.cycles_a, self.status_a, self.cycles_b, self.status_b, self.speedup
                )
            },
            format!(
                "loads: A {}, B {}; total load latency A {}, B {} ({})",
                self.loads_a,
                self.loads_b,
                self.load_wait_a,
                self.load_wait_b,
                signed(self.load_wait_b as i64 - self.load_wait_a as i64)
            ),
        ];
        match &self.issue_parting {
            None => lines.push("load issues: the same on both".into()),
            Some(p) => lines.push(format!(
                "load issues part at the {} issue (cycle {}): A {}; B {}",
                ordinal(p.index + 1),
                p.cycle,
                issue_text(&p.a),
                issue_text(&p.b)
            )),
        }
        match &self.command_parting {
            None => lines.push("DRAM commands: the same on both".into()),
            Some(p) => lines.push(format!(
                "DRAM commands part at cycle {}, the {} command of the channel: A {}; B {}",
                p.cycle,
                ordinal(p.index + 1),
                cmd_text(&p.a),
                cmd_text(&p.b)
            )),
        }
        lines
    }

    /// The terminal report.
    pub fn text(&self) -> String {
        let mut out = self.headline().join("\n");
        out.push('\n');
        for (title, header, rows) in self.tables() {
            out.push_str(&format!("\n{title}\n"));
            if rows.is_empty() {
                out.push_str("(no difference)\n");
            } else {
                out.push_str(&table::render(&header, &rows));
            }
        }
        out
    }

    /// The Markdown report.
    pub fn markdown(&self) -> String {
        let mut out = format!("# diff: {}\n\n", self.workload);
        for l in self.headline() {
            out.push_str(&format!("- {l}\n"));
        }
        for (title, header, rows) in self.tables() {
            out.push_str(&format!("\n## {title}\n\n"));
            if rows.is_empty() {
                out.push_str("No difference.\n");
                continue;
            }
            out.push_str(&format!("| {} |\n", header.join(" | ")));
            out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
            for r in rows {
                out.push_str(&format!("| {} |\n", r.join(" | ")));
            }
        }
        out
    }

    /// The JSON report: every row, not only the shown ones.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a diff serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(cycle: u64, channel: u16, kind: &'static str, bank: u8) -> Cmd {
        Cmd { cycle, dram_cycle: 2 * cycle, channel, kind, bank, row: 7 }
    }

    /// Streams part at their first difference, including one stream ending early; the channels'
    /// command streams at the earliest channel's.
    #[test]
    fn streams_part_at_their_first_difference() {
        assert_eq!(parting(&[1u64, 2, 3], &[1, 2, 3], |&c| c), None);
        let p = parting(&[1u64, 2, 5], &[1, 2, 4], |&c| c).unwrap();
        assert_eq!((p.index, p.cycle, p.a, p.b), (2, 4, Some(5), Some(4)));
        let p = parting(&[1u64, 2], &[1, 2, 9], |&c| c).unwrap();
        assert_eq!((p.index, p.cycle, p.a, p.b), (2, 9, None, Some(9)));
        let a = [cmd(3, 0, "ACT", 1), cmd(5, 1, "ACT", 2), cmd(9, 0, "RD", 1)];
        let b = [cmd(3, 0, "ACT", 1), cmd(5, 1, "PRE", 2), cmd(8, 0, "RD", 1)];
        let p = command_parting(&a, &b).unwrap();
        assert_eq!(
            (p.cycle, p.a, p.b),
            (5, Some(a[1]), Some(b[1])),
            "channel 1 parts at 5, before channel 0 at 8"
        );
    }
}
