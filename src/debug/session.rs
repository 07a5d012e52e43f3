//! A debugging session: the machine, its breakpoints, time travel, event log and samples,
//! driven by commands. UI-free: the TUI and `warpscope batch` both call [`Session::execute`];
//! moving commands (`step`, `continue`, `until`, `run`) then advance in bounded chunks through
//! [`Session::advance`], so a terminal can redraw and be interrupted between chunks.
//!
//! What the session shows at a cycle is a function of the cycle, whichever moves led there
//! (issue 38 item 1): the machine is deterministic; the event log and samples are restored
//! with it from snapshots; breakpoints keep their counted hits by cycle (`breakpoint`); the
//! stop message names every breakpoint that hits in the cycle the machine is at, worked out
//! by stepping into that cycle, however the machine came to it; and the focus is that of the
//! latest stop at or before it.

pub mod versus;

use super::breakpoint::{
    Breakpoints, DELTA, EventScope, Hit, Mate, Trigger, Watched, check_filters, event_kind, parse_trigger,
};
use super::checkpoint;
use super::command::{COMMANDS, Command, Info};
use super::delay::DelayWatch;
use super::diverge::Unit;
use super::expr::Expr;
use super::focus::Focus;
use super::history::{EventLog, Samples};
use super::interference::{DEFAULT_WINDOW, InterferenceCache, interference};
use super::recording::{BlameCache, warp_load_blame};
use super::scene::Scene;
use super::timeline;
use super::timetravel::{Snapshot, TimeTravel};
use super::views;
use crate::config::{Config, ConfigError};
use crate::sim::event::{Event, EventKind};
use crate::sim::stats::metrics::{count, group};
use crate::sim::{Gpu, Status};
use crate::workload::Workload;
use std::sync::Arc;
use versus::Versus;

/// Why a moving command stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Breakpoints and watchpoints hit in the cycle the machine is at, in number order: one
    /// line each, as gdb names every breakpoint of a stop (issue 38 item 2).
    Hits(Vec<Hit>),
    /// The requested cycle (step count, `until`, `goto`) was reached.
    Reached(u64),
    /// Every kernel finished and the memory system drained.
    Finished(u64),
    /// The run's cycle or instruction limit (`sim.max_cycles`, `sim.max_instructions`) was
    /// reached: the machine goes no further, as `warpscope run` stops there.
    Limit {
        cycle: u64,
        limit: Limit,
    },
    Stuck(String),
    /// Interrupted by the user (Esc in the TUI).
    Interrupted(u64),
}

impl Stop {
    pub fn message(&self) -> String {
        match self {
            Stop::Hits(hits) => hits.iter().map(Hit::message).collect::<Vec<_>>().join("\n"),
            Stop::Reached(c) => format!("cycle {}", group(*c)),
            Stop::Finished(c) => {
                format!("The program finished at cycle {}: every kernel done, memory drained.", group(*c))
            }
            Stop::Limit { cycle, limit: Limit::Cycles(n) } => format!(
                "Stopped at the cycle limit at cycle {} (sim.max_cycles = {n}): a partial run.",
                group(*cycle)
            ),
            Stop::Limit { cycle, limit: Limit::Instructions(n) } => format!(
                "Stopped at the instruction limit at cycle {} (sim.max_instructions = {n}): a partial run.",
                group(*cycle)
            ),
            Stop::Stuck(why) => format!("The machine is stuck: {why}"),
            Stop::Interrupted(c) => format!("Interrupted at cycle {}.", group(*c)),
        }
    }
}

/// Which limit of the run stopped it, and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `sim.max_cycles`.
    Cycles(u64),
    /// `sim.max_instructions`.
    Instructions(u64),
}

/// What a command produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Text to show.
    Text(String),
    /// A moving command started; call [`Session::advance`] until it stops.
    Running,
    Layout(String),
    Quit,
}

/// What breakpoints do while the machine moves forward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Breaks {
    /// Count hits and stop at them (`continue`, `step`, `until`).
    Stop,
    /// Count hits without stopping (`run`, `goto` forward, and the last cycle of a move
    /// back): counts stay a function of the cycles the machine went through, however it went.
    Count,
    /// Replaying cycles already counted (going back).
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    /// Stop when the machine reaches this cycle.
    until: Option<u64>,
    breaks: Breaks,
}

/// A debugging session.
pub struct Session {
    pub gpu: Gpu,
    pub breakpoints: Breakpoints,
    pub travel: TimeTravel,
    pub log: EventLog,
    pub samples: Samples,
    /// The last non-empty command line (an empty line repeats it).
    pub last_line: Option<String>,
    /// The last stop, for status lines.
    pub last_stop: Option<Stop>,
    /// How many times the machine has stopped (a user interface tells a move from an answer).
    pub stops: u64,
    /// The breakpoints that hit in the cycle the machine is at and stop it.
    here: Vec<Hit>,
    /// The watchpoints' values at the machine's cycle.
    watched: Watched,
    /// The furthest cycle the machine has reached (time travel can go anywhere up to it
    /// cheaply).
    pub furthest: u64,
    run: Option<Run>,
    buf: Vec<(u64, Event)>,
    /// The last blame worked out (`prepare_blame`).
    pub blame: BlameCache,
    /// The interference last worked out (`prepare_interference`).
    pub interference: InterferenceCache,
    /// What the last breakpoint stop was about: `show` and the panes turn to it.
    pub focus: Focus,
    /// The passes a `delayed` breakpoint needs.
    delay: DelayWatch,
    /// While this machine follows another (`step_to`): the event kinds it reports besides its
    /// own, and its steps keep their events in `captured`.
    following: Option<u64>,
    /// The events of the steps made while following, for the machine followed.
    captured: Vec<(u64, Event)>,
    /// The second machine of a lockstep session (`--vs`), which follows this one.
    pub vs: Option<Box<Versus>>,
}

impl Session {
    pub fn new(config: Config, workload: Arc<Workload>) -> Result<Session, String> {
        Ok(Session::at(Gpu::new(Arc::new(config), workload)?))
    }

    /// A session at the checkpoint `path`, which must have been saved with `config` and
    /// `workload` ([`checkpoint::load`]). Its history begins there: time travel reaches back
    /// to the checkpoint's cycle, and the event log and samples start empty.
    pub fn resume(config: Config, workload: Arc<Workload>, path: &str) -> Result<Session, ConfigError> {
        let (_, gpu) = checkpoint::load(path, Arc::new(config), workload)?;
        Ok(Session::at(gpu))
    }

    /// A session whose history begins with `gpu`.
    fn at(gpu: Gpu) -> Session {
        let d = gpu.config.debug.clone();
        let (log, samples) = (EventLog::new(d.event_log as usize), Samples::new(500, 4096));
        let first = gpu.cycle;
        let start = Snapshot { gpu: gpu.clone(), log: log.clone(), samples: samples.clone() };
        Session {
            travel: TimeTravel::new(start, d.snapshot_interval, (d.snapshot_budget_mb as usize) << 20),
            gpu,
            breakpoints: Breakpoints::default(),
            log,
            samples,
            last_line: None,
            last_stop: None,
            stops: 0,
            here: Vec::new(),
            watched: Watched::default(),
            furthest: first,
            run: None,
            buf: Vec::new(),
            blame: BlameCache::default(),
            interference: InterferenceCache::default(),
            focus: Focus::default(),
            delay: DelayWatch::default(),
            following: None,
            captured: Vec::new(),
            vs: None,
        }
    }

    /// This session with a second machine in lockstep: `b`, made with `settings` (`--vs`).
    /// Refused when the two differ in shape or do not stand at the same cycle (a session
    /// resumed from a checkpoint).
    pub fn with_vs(mut self, settings: Vec<String>, b: Session) -> Result<Session, String> {
        self.vs = Some(Box::new(Versus::new(&self.gpu, settings, b)?));
        self.watched = self.read_watched();
        Ok(self)
    }

    /// The watched values at the machine's cycle (the second machine's too, for `diverge`).
    fn read_watched(&self) -> Watched {
        Watched::read(&self.breakpoints, &self.gpu, self.vs.as_ref().map(|v| &v.b.gpu))
    }

    /// Steps to cycle `t` (at most; not past the program's end), keeping the events of the
    /// cycles it goes through in `out`, with event kinds `mask` reported besides its own: how
    /// the second machine of a lockstep session follows the first.
    fn step_to(&mut self, t: u64, mask: u64, out: &mut Vec<(u64, Event)>) {
        self.following = Some(mask);
        while self.gpu.cycle < t && self.finished().is_none() {
            self.step_once(Breaks::Count, t);
        }
        self.following = None;
        out.append(&mut self.captured);
    }

    /// The earliest cycle time travel reaches: 0, or the cycle of the checkpoint the session
    /// was resumed from.
    pub fn earliest(&self) -> u64 {
        self.travel.first_cycle()
    }

    /// Refuses a move back to before the session's history begins.
    fn reachable(&self, t: u64) -> Result<u64, String> {
        let first = self.earliest();
        if t < first {
            return Err(format!(
                "cycle {} is before this session's history: it was resumed from a checkpoint of cycle {}, the earliest cycle it can go to",
                group(t),
                group(first)
            ));
        }
        Ok(t)
    }

    /// What the views read: the machine and the session's history.
    pub fn scene(&self) -> Scene<'_> {
        Scene {
            gpu: &self.gpu,
            breakpoints: &self.breakpoints,
            log: &self.log,
            samples: &self.samples,
            travel: &self.travel,
            blame: &self.blame,
            interference: &self.interference,
            focus: &self.focus,
        }
    }

    /// A moving command is in progress.
    pub fn is_running(&self) -> bool {
        self.run.is_some()
    }

    /// Executes one command line; an empty line repeats the last command (gdb).
    pub fn execute(&mut self, line: &str) -> Result<Outcome, String> {
        let line = line.trim();
        let line = if line.is_empty() {
            match &self.last_line {
                Some(l) => l.clone(),
                None => return Ok(Outcome::Text(String::new())),
            }
        } else {
            line.to_string()
        };
        let cmd = Command::parse(&line)?;
        self.last_line = Some(line);
        self.command(cmd)
    }

    /// Executes a command line to its end (moving commands run until they stop): the
    /// behaviour of `warpscope batch`.
    pub fn execute_blocking(&mut self, line: &str) -> Result<Outcome, String> {
        match self.execute(line)? {
            Outcome::Running => {
                let mut out = None;
                while out.is_none() {
                    out = self.advance(u64::MAX);
                }
                Ok(Outcome::Text(out.unwrap_or_default()))
            }
            other => Ok(other),
        }
    }

    /// Runs a parsed command.
    pub fn command(&mut self, cmd: Command) -> Result<Outcome, String> {
        let text = |s: String| Ok(Outcome::Text(s));
        match cmd {
            Command::Step(n) => self.start(Some(self.gpu.cycle.saturating_add(n)), Breaks::Stop),
            Command::Continue => self.start(None, Breaks::Stop),
            Command::Until(c) => {
                if c <= self.gpu.cycle {
                    return Err(format!(
                        "until: already at cycle {}; use goto to go back",
                        group(self.gpu.cycle)
                    ));
                }
                self.start(Some(c), Breaks::Stop)
            }
            Command::Run => self.start(None, Breaks::Count),
            Command::ReverseStep(n) => {
                let t = self.reachable(self.gpu.cycle.saturating_sub(n))?;
                text(self.goto(t))
            }
            Command::Goto(c) => text(self.goto(self.reachable(c)?)),
            Command::ReverseContinue => text(self.reverse_continue()),
            Command::Break { temporary, spec } => {
                let (trigger, cond) = parse_trigger(&spec)?;
                check_filters(&trigger, &self.gpu)?;
                self.check_lockstep(&trigger, cond.as_ref().map(|(_, c)| c))?;
                let desc = match &trigger {
                    Trigger::Cycle(c) => format!("cycle {}", group(*c)),
                    _ => spec.clone(),
                };
                let id = self.breakpoints.add(trigger, cond, temporary, self.gpu.cycle);
                // A `diverge` breakpoint measures parting from now.
                self.watched = self.read_watched();
                text(format!(
                    "{} {id}: {desc}",
                    if temporary { "Temporary breakpoint" } else { "Breakpoint" }
                ))
            }
            Command::Watch(e) => {
                let expr = Expr::parse(&e)?;
                let v = expr.eval(&EventScope::new(None, &self.gpu))?;
                let id = self.breakpoints.add(
                    Trigger::Watch { text: e.clone(), expr },
                    None,
                    false,
                    self.gpu.cycle,
                );
                self.watched = self.read_watched();
                text(format!("Watchpoint {id}: {e} (now {v})"))
            }
            Command::Condition { id, expr } => {
                let parsed = match &expr {
                    Some(e) => Some((e.clone(), Expr::parse(e)?)),
                    None => None,
                };
                let trigger = self.breakpoints.get_mut(id)?.trigger.clone();
                self.check_lockstep(&trigger, parsed.as_ref().map(|(_, c)| c))?;
                self.breakpoints.set_condition(id, parsed, self.gpu.cycle)?;
                text(match expr {
                    Some(e) => format!("Breakpoint {id} now stops only if {e}"),
                    None => format!("Breakpoint {id} is now unconditional"),
                })
            }
            Command::Ignore { id, count: n } => {
                self.breakpoints.set_ignore(id, n, self.gpu.cycle)?;
                text(format!("Will ignore the next {} of breakpoint {id}", count(n, "hit")))
            }
            Command::Delete(ids) => {
                if ids.is_empty() {
                    let n = self.breakpoints.clear();
                    return text(format!("Deleted {}", count(n as u64, "breakpoint")));
                }
                for id in &ids {
                    self.breakpoints.delete(*id)?;
                }
                text(format!("Deleted {}", join_ids(&ids)))
            }
            Command::Disable(ids) => self.set_enabled(&ids, false),
            Command::Enable(ids) => self.set_enabled(&ids, true),
            Command::Info(Info::Breakpoints) => text(views::breakpoints(&self.breakpoints).to_text()),
            Command::Info(Info::Snapshots) => text(self.snapshot_info()),
            Command::Info(Info::Log) => text(self.log_info()),
            Command::Show { view, args } => text(views::show(&self.scene(), view, &args)?.to_text()),
            Command::Print(e) => {
                let v = Expr::parse(&e)?.eval(&EventScope::new(None, &self.gpu))?;
                text(format!("{e} = {v}"))
            }
            Command::Vs(None) => text(self.vs_info()?),
            Command::Vs(Some((view, args))) => {
                text(views::show(&self.mate()?.b.scene(), view, &args)?.to_text())
            }
            Command::Log { event: None, .. } => text(self.log_info()),
            Command::Log { event: Some(name), on } => {
                let kind = event_kind(&name)?;
                if on {
                    self.log.mask |= kind.bit();
                } else {
                    self.log.mask &= !kind.bit();
                }
                text(format!("{} events are {}logged", kind.name(), if on { "" } else { "no longer " }))
            }
            Command::Layout(name) => Ok(Outcome::Layout(name)),
            Command::Timeline { path, window } => text(self.write_timeline(&path, window)?),
            Command::CheckpointSave(path) => text(checkpoint::save(&self.gpu, &path)?),
            Command::Help(topic) => text(help(topic.as_deref())?),
            Command::Quit => Ok(Outcome::Quit),
        }
    }

    /// Refuses a breakpoint that compares two machines (`diverge`, `delta`) in a session of one,
    /// and `delta` outside a `load-done` breakpoint.
    fn check_lockstep(&self, trigger: &Trigger, cond: Option<&Expr>) -> Result<(), String> {
        let delta = cond.is_some_and(|c| c.reads(DELTA));
        if self.vs.is_none() && (delta || matches!(trigger, Trigger::Diverge(_))) {
            return Err(format!(
                "{} compares two machines: start the debugger with a second one, `--vs KEY=VALUE...` (e.g. \
                 `warpscope tui --vs dram.scheduler=fcfs`)",
                if delta { "`delta`" } else { "break diverge" }
            ));
        }
        if delta && !matches!(trigger, Trigger::Event { kind: EventKind::LoadDone, .. }) {
            return Err(
                "`delta` is a load's latency on B less A's: it belongs to a `load-done` breakpoint".into()
            );
        }
        Ok(())
    }

    fn set_enabled(&mut self, ids: &[u32], on: bool) -> Result<Outcome, String> {
        let verb = if on { "Enabled" } else { "Disabled" };
        let all: Vec<u32>;
        let which = if ids.is_empty() {
            all = self.breakpoints.list.iter().filter(|b| !b.used_up()).map(|b| b.id).collect();
            &all[..]
        } else {
            ids
        };
        for id in which {
            self.breakpoints.set_enabled(*id, on, self.gpu.cycle)?;
        }
        // A watchpoint enabled again measures change from now.
        self.watched = self.read_watched();
        let what = if ids.is_empty() { "every breakpoint".to_string() } else { join_ids(ids) };
        Ok(Outcome::Text(format!("{verb} {what}")))
    }

    fn start(&mut self, until: Option<u64>, breaks: Breaks) -> Result<Outcome, String> {
        if let Some(stop) = self.finished() {
            return Err(format!("{} Use goto or reverse commands to look back.", stop.message()));
        }
        self.run = Some(Run { until, breaks });
        Ok(Outcome::Running)
    }

    /// Whether the machine can move forward: not when it finished, got stuck or reached a
    /// limit of the run, which bounds a session as it bounds `warpscope run`.
    fn finished(&self) -> Option<Stop> {
        let (cycle, sim) = (self.gpu.cycle, &self.gpu.config.sim);
        match &self.gpu.status {
            Status::Done => Some(Stop::Finished(cycle)),
            Status::Stuck(why) => Some(Stop::Stuck(why.clone())),
            Status::Running if sim.max_cycles != 0 && cycle >= sim.max_cycles => {
                Some(Stop::Limit { cycle, limit: Limit::Cycles(sim.max_cycles) })
            }
            Status::Running if self.gpu.instruction_cap_reached() => {
                Some(Stop::Limit { cycle, limit: Limit::Instructions(sim.max_instructions) })
            }
            Status::Running => None,
        }
    }

    /// Advances the running command by at most `budget` cycles. Returns the stop message when
    /// it stops, `None` when the budget ran out first.
    pub fn advance(&mut self, budget: u64) -> Option<String> {
        let run = self.run?;
        for _ in 0..budget {
            if let Some(until) = run.until
                && self.gpu.cycle >= until
            {
                return Some(self.stop(Stop::Reached(self.gpu.cycle)));
            }
            if let Some(stop) = self.step_once(run.breaks, run.until.unwrap_or(u64::MAX)) {
                return Some(self.stop(stop));
            }
        }
        None
    }

    /// Stops the running command (the user pressed Esc).
    pub fn interrupt(&mut self) -> Option<String> {
        self.run?;
        Some(self.stop(Stop::Interrupted(self.gpu.cycle)))
    }

    /// Ends a move at the machine's cycle: the stop names the breakpoints that hit there, else
    /// the end of the program, else `otherwise`; the panes turn to what the latest stop at or
    /// before the cycle is about.
    fn stop(&mut self, otherwise: Stop) -> String {
        self.run = None;
        // Deleted or disabled since the machine got here, a breakpoint is not named.
        let bps = &self.breakpoints.list;
        self.here.retain(|h| bps.iter().any(|b| b.id == h.id && b.enabled));
        let stop = if !self.here.is_empty() {
            Stop::Hits(self.here.clone())
        } else {
            self.finished().unwrap_or(otherwise)
        };
        let mut here = self.here.iter().map(|h| Focus::of_event(h.event.as_ref(), &self.gpu));
        self.focus = here.find(|f| *f != Focus::default()).unwrap_or_else(|| self.breakpoints.latest_focus());
        let msg = stop.message();
        self.last_stop = Some(stop);
        self.stops += 1;
        msg
    }

    /// Event kinds the machine must report now.
    /// In a lockstep session both machines report every finished load, which the pairing of
    /// loads (`debug::session::versus`) follows whatever the breakpoints; the second reports what the
    /// first's breakpoints need.
    fn event_mask(&self, breaks: Breaks) -> u64 {
        let lockstep = match (&self.vs, self.following) {
            (_, Some(mask)) => mask | EventKind::LoadDone.bit(),
            (Some(_), None) => EventKind::LoadDone.bit(),
            (None, None) => 0,
        };
        let bps = if breaks == Breaks::Off { 0 } else { self.breakpoints.event_mask() };
        self.log.mask | bps | lockstep
    }

    /// One core cycle — or, when nothing can happen in them, every cycle up to the next one
    /// that matters (`limit`, a snapshot, a sample, a `break cycle`; never with a watchpoint,
    /// whose value could be read each cycle): step, log, sample, snapshot, count breakpoint
    /// hits (stopping at one if `breaks` says so).
    fn step_once(&mut self, breaks: Breaks, limit: u64) -> Option<Stop> {
        if let Some(stop) = self.finished() {
            return Some(stop);
        }
        self.gpu.events.set_mask(self.event_mask(breaks));
        let delayed = breaks != Breaks::Off && self.breakpoints.listens(EventKind::Delayed);
        if delayed {
            self.delay.before_step(&mut self.gpu, &self.travel);
        } else {
            self.gpu.events.set_recording(false);
            self.delay.reset();
        }
        if self.gpu.leap(self.leap_limit(breaks, limit)) == 0 {
            self.gpu.step();
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.extend(self.gpu.events.drain());
        if delayed {
            let bps = &self.breakpoints;
            let found = self.delay.after_step(&mut self.gpu, &buf, |c, w, l| bps.delayed_may_match(c, w, l));
            buf.extend(found);
        }
        let cycle = self.gpu.cycle;
        let mut pairs = Vec::new();
        if let Some(vs) = &mut self.vs {
            vs.follow(cycle, self.breakpoints.event_mask());
            pairs = vs.pair(&buf);
        }
        self.here.clear();
        if breaks != Breaks::Off && self.breakpoints.any_enabled() {
            let mate = self.vs.as_ref().map(|v| Mate { gpu: &v.b.gpu, events: &v.events, pairs: &pairs });
            let found = self.breakpoints.found(cycle, &buf, &self.gpu, &mut self.watched, mate.as_ref());
            self.here = self.breakpoints.count(cycle, found, &self.gpu);
        }
        if self.following.is_some() {
            self.captured.extend(buf.iter().cloned());
        }
        for (cycle, e) in buf.drain(..) {
            if self.log.wants(e.kind()) {
                self.log.push(cycle, e);
            }
        }
        self.buf = buf;
        self.furthest = self.furthest.max(cycle);
        self.samples.observe(&self.gpu);
        let due = cycle.is_multiple_of(self.travel.interval);
        self.travel.observe(&self.gpu, &self.log, &self.samples);
        if let Some(vs) = &mut self.vs
            && due
        {
            vs.saw_snapshots(cycle, &self.travel.cycles());
        }
        if breaks == Breaks::Stop && !self.here.is_empty() {
            return Some(Stop::Hits(self.here.clone()));
        }
        self.finished()
    }

    /// Works out who delayed load `seq` of `warp` (its latest finished load when `None`) at
    /// the current cycle, unless already known, so views can show it at once.
    pub fn prepare_blame(&mut self, warp: (u16, u16), seq: Option<u32>) {
        let key = (self.gpu.cycle, warp, seq);
        if self.blame.get(key).is_none() {
            self.blame.put(key, warp_load_blame(&self.gpu, &self.travel, warp, seq));
        }
    }

    /// Works out who delayed whom over the last `window` cycles (the default when `None`),
    /// unless already known, so the interference pane draws at once.
    pub fn prepare_interference(&mut self, window: Option<u64>) {
        let window = window.unwrap_or(DEFAULT_WINDOW);
        if self.interference.get(self.gpu.cycle, window).is_none() {
            let i = interference(&self.travel, self.gpu.cycle, window);
            self.interference.put(self.gpu.cycle, window, i);
        }
    }

    /// Writes cycles `window` (the last [`timeline::DEFAULT_WINDOW`] up to now when `None`) of
    /// history to the trace-event file `path`, replaying them with recording on.
    fn write_timeline(&self, path: &str, window: Option<(u64, u64)>) -> Result<String, String> {
        if path == "-" {
            return Err("timeline writes a file: give its path, e.g. `timeline run.json`".into());
        }
        crate::output::check_target("", path).map_err(|e| e.to_string())?;
        let now = self.gpu.cycle;
        let from = now.saturating_sub(timeline::DEFAULT_WINDOW).max(self.earliest());
        let (from, to) = window.unwrap_or((from, now));
        let t = timeline::export(&self.travel, &self.gpu, self.furthest, from, to)?;
        let json = t.to_json();
        crate::output::write_atomic(path, &json).map_err(|e| format!("{e:#}"))?;
        Ok(t.summary(path, json.len()))
    }

    /// The last cycle a leap may reach from now (see `step_once`).
    fn leap_limit(&self, breaks: Breaks, limit: u64) -> u64 {
        let now = self.gpu.cycle;
        if breaks != Breaks::Off && self.breakpoints.has_watches() {
            return now;
        }
        let next = |every: u64| now - now % every + every;
        let mut t = limit.min(next(self.travel.interval)).min(next(self.samples.every));
        if self.gpu.config.sim.max_cycles != 0 {
            t = t.min(self.gpu.config.sim.max_cycles);
        }
        if breaks != Breaks::Off {
            t = t.min(self.breakpoints.next_cycle_trigger(now).unwrap_or(u64::MAX));
        }
        t
    }

    /// Moves to cycle `t` (back by restoring a snapshot and replaying, forward by stepping),
    /// without stopping at breakpoints. Lands on exactly the state a forward run shows at `t`:
    /// the breakpoints' counts as they are at `t` (see [`Breakpoints::rewind`]), the event log
    /// and samples restored with the machine, and the breakpoints that hit in cycle `t` worked
    /// out by stepping into it.
    pub fn goto(&mut self, t: u64) -> String {
        self.run = None;
        let now = self.gpu.cycle;
        if t == now {
            return self.stop(Stop::Reached(t));
        }
        let checks = self.breakpoints.any_enabled();
        // Back with breakpoints, the replay stops a cycle short and the last cycle is stepped
        // into with them. Forward, every cycle after now must be counted while a breakpoint is
        // enabled, so a later snapshot is a shortcut only without breakpoints. The cycle where
        // the history begins has none before it to step from.
        let back = t < now;
        let short = u64::from(back && checks && t > self.earliest());
        let snap = self.travel.snapshot(t - short);
        if back || (snap.gpu.cycle > now && !checks) {
            self.gpu = snap.gpu.clone();
            let mask = self.log.mask;
            (self.log, self.samples) = (snap.log.clone(), snap.samples.clone());
            self.log.mask = mask;
            self.delay.reset();
            self.here.clear();
            if let Some(vs) = &mut self.vs {
                vs.restore(self.gpu.cycle);
            }
        }
        if back {
            self.breakpoints.rewind(t - short);
        }
        let mut stop = None;
        while self.gpu.cycle < t - short && stop.is_none() {
            stop = self.step_once(if back { Breaks::Off } else { Breaks::Count }, t - short);
        }
        if short == 1 && stop.is_none() {
            self.watched = self.read_watched();
            stop = self.step_once(Breaks::Count, t);
        }
        self.watched = self.read_watched();
        self.stop(stop.unwrap_or(Stop::Reached(t)))
    }

    /// Goes back to the most recent cycle before the current one in which a breakpoint hits
    /// and stops the machine: replays the snapshot segments before now, newest first, until
    /// one holds such a hit, then goes there ([`Session::goto`] names every breakpoint of
    /// that cycle).
    fn reverse_continue(&mut self) -> String {
        let now = self.gpu.cycle;
        let mut end = now;
        // A used-up `tbreak` hit before it was used up.
        let any = self.breakpoints.list.iter().any(|b| b.enabled);
        while any && let Some(snap) = self.travel.before(end) {
            let start = snap.cycle;
            let found = if self.vs.is_some() {
                self.last_stop_in_lockstep(start, end, now)
            } else {
                self.last_stop_between(snap.clone(), end, now)
            };
            if let Some(c) = found {
                return self.goto(c);
            }
            end = start;
        }
        let first = self.earliest();
        let at = self.goto(first);
        if first == 0 {
            format!("No earlier breakpoint hit: at the start of the program.\n{at}")
        } else {
            format!("No earlier breakpoint hit: at the checkpoint this session was resumed from.\n{at}")
        }
    }

    /// [`Session::last_stop_between`] for a lockstep session, whose breakpoints may compare
    /// the two machines: both go to cycle `start` and step to `end` together, counting hits as
    /// any move forward does (which leaves the counts as they are at each cycle), and the last
    /// cycle before `limit` with a hit that stops the machine is returned.
    fn last_stop_in_lockstep(&mut self, start: u64, end: u64, limit: u64) -> Option<u64> {
        self.goto(start);
        let mut last = None;
        while self.gpu.cycle < end.min(limit.saturating_sub(1)) && self.finished().is_none() {
            self.step_once(Breaks::Count, end);
            if !self.here.is_empty() && self.gpu.cycle < limit {
                last = Some(self.gpu.cycle);
            }
        }
        last
    }

    /// Replays `g` up to cycle `end` and returns the last cycle before `limit` in which a
    /// breakpoint hits and stops the machine. Pure: no hit is counted.
    fn last_stop_between(&self, mut g: Gpu, end: u64, limit: u64) -> Option<u64> {
        g.events.set_mask(self.breakpoints.past_event_mask());
        let mut watched = Watched::read(&self.breakpoints, &g, None);
        let mut last = None;
        let delayed = self.breakpoints.past_event_mask() & EventKind::Delayed.bit() != 0;
        let mut delay = DelayWatch::default();
        let mut events = Vec::new();
        while g.cycle < end && g.is_running() {
            if delayed {
                delay.before_step(&mut g, &self.travel);
            }
            g.step();
            events.clear();
            events.extend(g.events.drain());
            if delayed {
                let bps = &self.breakpoints;
                let found = delay.after_step(&mut g, &events, |c, w, l| bps.delayed_may_match(c, w, l));
                events.extend(found);
            }
            let found = self.breakpoints.found(g.cycle, &events, &g, &mut watched, None);
            if g.cycle < limit && found.iter().any(|(i, _)| self.breakpoints.stops(*i, g.cycle)) {
                last = Some(g.cycle);
            }
        }
        last
    }

    /// The second machine, or why there is none.
    pub fn mate(&self) -> Result<&Versus, String> {
        self.vs.as_deref().ok_or_else(|| {
            "there is no second machine: start the debugger with `--vs KEY=VALUE...` to run one in lockstep".into()
        })
    }

    /// `vs`: the second machine's settings and cycle, a few counters of both, and where the
    /// two differ now.
    fn vs_info(&self) -> Result<String, String> {
        let v = self.mate()?;
        let (a, b) = (&self.gpu, &v.b.gpu);
        let sum = |g: &Gpu, f: &dyn Fn(&crate::sim::stats::ChannelStats) -> u64| {
            g.dram.iter().map(|c| f(&c.stats)).sum::<u64>()
        };
        let instr = |g: &Gpu| g.sms.iter().map(|s| s.stats.instructions).sum::<u64>();
        let mut s = format!("B is A with {}, at cycle {}", v.settings.join(" "), group(b.cycle));
        if let Some(stop) = v.b.finished().filter(|_| b.cycle < a.cycle) {
            s.push_str(&format!(" ({})", stop.message()));
        }
        s.push_str(&format!(
            "\n{:<16}{:>14}{:>14}\n{:<16}{:>14}{:>14}\n{:<16}{:>14}{:>14}\n{:<16}{:>14}{:>14}\n",
            "",
            "A",
            "B",
            "instructions",
            group(instr(a)),
            group(instr(b)),
            "DRAM reads",
            group(sum(a, &|c| c.reads)),
            group(sum(b, &|c| c.reads)),
            "DRAM row hits",
            group(sum(a, &|c| c.row_hits)),
            group(sum(b, &|c| c.row_hits)),
        ));
        let (wa, wb) = v.unpaired.waiting();
        s.push_str(&format!(
            "finished loads waiting for the other machine: {} on A, {} on B\n",
            group(wa as u64),
            group(wb as u64)
        ));
        for (name, unit) in [
            ("issue streams", Unit::Issue(None)),
            ("DRAM command streams", Unit::Dram(None)),
            ("L1 contents", Unit::L1(None)),
        ] {
            let now = match unit.differs((a, &[]), (b, &[])) {
                Some(d) => format!("differ ({d})"),
                None => "the same".into(),
            };
            s.push_str(&format!("{name}: {now}\n"));
        }
        Ok(s.trim_end().to_string())
    }

    fn snapshot_info(&self) -> String {
        let cycles = self.travel.cycles();
        format!(
            "{} every {} cycles, about {:.1} MiB each, budget {} MiB; history covers cycles {}..{}",
            count(cycles.len() as u64, "snapshot"),
            group(self.travel.interval),
            self.travel.snap_bytes as f64 / (1 << 20) as f64,
            self.travel.budget_bytes() >> 20,
            group(cycles.first().copied().unwrap_or(0)),
            group(self.furthest),
        )
    }

    fn log_info(&self) -> String {
        let on: Vec<&str> = EventKind::ALL.iter().filter(|k| self.log.wants(**k)).map(|k| k.name()).collect();
        format!(
            "logging: {}; {} kept (of at most {})",
            if on.is_empty() { "nothing".into() } else { on.join(", ") },
            count(self.log.entries.len() as u64, "event"),
            group(self.log.capacity as u64)
        )
    }
}

fn join_ids(ids: &[u32]) -> String {
    ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

/// `help` and `help TOPIC`.
pub fn help(topic: Option<&str>) -> Result<String, String> {
    let Some(topic) = topic else {
        let mut s = String::from(
            "Commands (any unambiguous prefix works; an empty line repeats the last command):\n",
        );
        for c in COMMANDS {
            let names =
                std::iter::once(c.name).chain(c.aliases.iter().copied()).collect::<Vec<_>>().join(", ");
            s.push_str(&format!("  {:<22} {:<28} {}\n", names, c.args, c.help));
        }
        s.push_str("Type `help break`, `help watch` or `help show` for details.");
        return Ok(s);
    };
    Ok(match topic {
        "break" | "b" | "tbreak" => {
            let mut s = String::from(
                "break EVENT [field=value]... [if EXPR]   stop when an event with these fields happens\n\
                 break cycle N                           stop when the machine reaches cycle N\n\
                 (warp=C.W sets core and warp together; numbers also compare: cycles>200, bank!=3; conditions see the event's fields and machine state)\n\nEvents and their fields:\n",
            );
            let width = EventKind::ALL.iter().map(|k| k.name().len()).max().unwrap_or(0);
            for k in EventKind::ALL {
                s.push_str(&format!("  {:<width$} {}\n", k.name(), k.fields().join(" ")));
            }
            s.push_str(&format!("  {:<width$} = memory-occlusion\n", "occlusion"));
            s.push_str(
                "Breakpoints follow the machine, not the session: a hit is counted in every cycle the machine\n\
                 goes through (continue, step, until, run, goto), and going back to cycle T takes back the hits\n\
                 after T — hit counts, ignore counts (`ignore N COUNT` ignores the next COUNT hits) and used-up\n\
                 tbreaks are restored, so `continue` stops where it did from T. A breakpoint counts the hits\n\
                 after the cycle it was set at; one before stops the machine but is not counted. A stop names\n\
                 every breakpoint that hit in its cycle, one line each.\n",
            );
            s.push_str(
                "With a second machine (--vs KEY=VALUE...):\n\
                 break diverge [issue|dram|l1] [N]        stop where the two machines' issue streams, DRAM command streams or L1 contents part\n\
                 break load-done ... if delta > N         delta: the load's latency on B less A's, compared when the later one finishes it\n",
            );
            s.push_str("Examples: break occlusion core=3 | break row-miss channel=2 bank=5 | break load-done warp=0.4 if divergence > 300 | break delayed stage=dram cycles>200 (stages and causes as `show blame` names them)");
            s
        }
        "watch" | "print" | "condition" => {
            let mut s = String::from(
                "Expressions: numbers (12, 0x1f), \"names\", + - * / %, == != < <= > >=, && || !, parentheses,\n\
                 event fields (in conditions) and machine state:\n",
            );
            for (p, what) in super::state::PATHS {
                s.push_str(&format!("  {p:<34} {what}\n"));
            }
            s.push_str("Example: watch l1[3].mshr.used | print dram[0].bank[5].queue_len");
            s
        }
        "show" => {
            let mut s = String::from("Views (each is also a TUI pane):\n");
            for v in views::VIEWS {
                s.push_str(&format!("  show {:<12} {:<10} {}\n", v.name, v.usage(), v.help));
            }
            s.trim_end().to_string()
        }
        other => {
            let name = super::command::resolve(
                other,
                &COMMANDS.iter().map(|c| c.name).collect::<Vec<_>>(),
                &COMMANDS
                    .iter()
                    .flat_map(|c| c.aliases.iter().map(move |a| (*a, c.name)))
                    .collect::<Vec<_>>(),
                "command",
            )?;
            let c = COMMANDS.iter().find(|c| c.name == name).expect("resolved");
            format!("{} {}\n  {}", c.name, c.args, c.help)
        }
    })
}
