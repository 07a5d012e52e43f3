//! The TUI's state and input handling: which pane has focus, each pane's selection, the
//! focused core/channel/warp that panes without fixed parameters follow, the command line,
//! popups. Everything the screen shows comes from the session's views.

use super::keymap::{self, Action};
use super::layout::{Layout, PaneKind};
use super::theme::Theme;
use crate::debug::command::complete;
use crate::debug::views::{self, PANE_ROWS, Param, RowKey, Target, View, ViewSpec};
use crate::debug::{Outcome, Session};

/// Works out, on `session`, what `view` showing `target` takes a replay of history for.
fn prepare(session: &mut Session, view: &ViewSpec, target: &Target) {
    if view.takes(Param::Warp) {
        session.prepare_blame(target.warp, target.load);
    }
    if view.takes(Param::Cycles) {
        session.prepare_interference(target.cycles);
    }
}
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use std::path::PathBuf;

/// Per-pane UI state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaneState {
    pub selected: usize,
    /// The first line shown.
    pub scroll: usize,
    /// Whether the window follows the selected row (a key moved it) or stays where the
    /// wheel or a scroll key put it.
    pub follow: bool,
    /// Bank whose queue the banks pane lists.
    pub detail: Option<u8>,
    /// Set shown by an LRU pane.
    pub set: u32,
    /// Which machine of a lockstep session (`--vs`) the pane shows.
    pub machine: Machine,
}

/// Which machine of a lockstep session a pane shows: the session's (A), the second (B), or
/// both, one above the other with their differences marked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Machine {
    #[default]
    A,
    B,
    Both,
}

impl Machine {
    /// The next in the order `v` cycles through.
    pub fn next(self) -> Machine {
        match self {
            Machine::A => Machine::B,
            Machine::B => Machine::Both,
            Machine::Both => Machine::A,
        }
    }
}

/// A scrollable text popup (command output, help).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Popup {
    pub title: String,
    pub lines: Vec<String>,
    pub scroll: usize,
}

/// The command line being edited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Input {
    pub text: String,
    pub history_pos: Option<usize>,
    pub completions: Vec<String>,
    pub completion: usize,
}

pub struct App {
    pub session: Session,
    pub layout: Layout,
    pub layouts_dir: PathBuf,
    pub panes: Vec<PaneState>,
    pub focus: usize,
    pub core: u16,
    pub channel: u16,
    pub warp: (u16, u16),
    pub input: Option<Input>,
    pub history: Vec<String>,
    /// The last message (command output line, stop reason, error) and whether it is an error.
    pub message: String,
    pub error: bool,
    pub popup: Option<Popup>,
    pub quit: bool,
    pub theme: Theme,
    /// Where each pane was drawn last (for mouse clicks); empty for a hidden pane.
    pub areas: Vec<Rect>,
    /// Panes the last frame hid for want of room (see `render::MIN_PANE`).
    pub hidden: usize,
    /// What each pane drew last (for clicks and scrolling).
    pub extents: Vec<Extent>,
    /// The panes' views at the cycle last drawn, and at the one before (what changed since
    /// is marked).
    shown: Option<(u64, Vec<(View, Target)>)>,
    before: Vec<(View, Target)>,
    /// The stop the panes last turned to.
    followed: Option<crate::debug::focus::Focus>,
}

/// What a pane drew: the table row on each of its lines, its height and first screen row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    pub rows: Vec<Option<usize>>,
    pub height: usize,
    pub top: u16,
}

impl App {
    pub fn new(session: Session, layout: Layout, layouts_dir: PathBuf, theme: Theme) -> App {
        let n = layout.panes().len();
        let mut app = App {
            session,
            layout,
            layouts_dir,
            panes: vec![PaneState::default(); n],
            focus: 0,
            core: 0,
            channel: 0,
            warp: (0, 0),
            input: None,
            history: Vec::new(),
            message: "Press s to step, c to continue, : for commands, ? for help.".into(),
            error: false,
            popup: None,
            quit: false,
            theme,
            areas: Vec::new(),
            hidden: 0,
            extents: vec![Extent::default(); n],
            shown: None,
            before: Vec::new(),
            followed: None,
        };
        app.apply_layout_params();
        app
    }

    fn apply_layout_params(&mut self) {
        self.panes = self
            .layout
            .panes()
            .iter()
            .map(|p| PaneState { set: p.fixed().set.unwrap_or(0), ..PaneState::default() })
            .collect();
        self.extents = vec![Extent::default(); self.panes.len()];
        self.focus = self.focus.min(self.panes.len().saturating_sub(1));
    }

    pub fn set_layout(&mut self, layout: Layout) {
        self.layout = layout;
        self.apply_layout_params();
        (self.shown, self.before) = (None, Vec::new());
    }

    /// The view pane `idx` shows and what it looks at: the layout's parameters, else the
    /// focus, kept in range.
    fn target(&self, idx: usize) -> (&'static ViewSpec, Target) {
        let g = &self.session.gpu;
        let kind = &self.layout.panes()[idx];
        let fixed = kind.fixed();
        let st = &self.panes[idx];
        let core = (fixed.core.unwrap_or(self.core) as usize).min(g.sms.len() - 1);
        let channel = (fixed.channel.unwrap_or(self.channel) as usize).min(g.dram.len() - 1);
        // The channel of the last stop lists the bank and marks the row of its request, until
        // Enter picks another bank.
        let f = &self.session.focus;
        let at_stop = f.channel == Some(channel as u16);
        let target = Target {
            core,
            channel,
            set: (st.set as usize).min(g.sms[core].l1.tags.sets - 1),
            warp: self.warp,
            bank: st.detail.or(f.bank.filter(|_| at_stop)),
            rows: PANE_ROWS,
            load: None,
            cycles: None,
            row: f.row.filter(|_| at_stop),
        };
        (kind.view(), target)
    }

    /// Works out, while the machine is stopped, what visible panes show that takes a replay
    /// of history (who delayed the inspected warp's last load), so drawing them is quick; and
    /// when the machine has moved since the last draw, keeps what the panes showed before, so
    /// what changed stands out.
    pub fn prepare(&mut self) {
        if self.session.is_running() {
            return;
        }
        let cycle = self.session.gpu.cycle;
        if self.shown.as_ref().is_none_or(|(c, _)| *c != cycle) {
            self.before = self.shown.take().map(|(_, v)| v).unwrap_or_default();
            let now = (0..self.layout.panes().len()).map(|i| self.plain_view(i)).collect();
            self.shown = Some((cycle, now));
        }
        for idx in 0..self.layout.panes().len() {
            let (view, target) = self.target(idx);
            let machine = self.panes[idx].machine;
            if machine != Machine::B {
                prepare(&mut self.session, view, &target);
            }
            if machine != Machine::A
                && let Some(v) = self.session.vs.as_mut()
            {
                prepare(&mut v.b, view, &target);
            }
        }
    }

    /// The view a pane shows now, with what changed since the machine last moved marked.
    pub fn view(&self, idx: usize) -> View {
        let (mut now, target) = self.plain_view(idx);
        if let Some((was, t)) = self.before.get(idx)
            && *t == target
        {
            views::mark_changes(&mut now, was);
        }
        now
    }

    /// The view a pane shows now, unmarked but for the differences between two machines, and
    /// what it looks at.
    fn plain_view(&self, idx: usize) -> (View, Target) {
        let (view, target) = self.target(idx);
        let build =
            |s: &Session| view.build(&s.scene(), &target).unwrap_or_else(|e| View::new("error").text(e));
        let v = match (self.panes[idx].machine, self.session.vs.as_deref()) {
            (Machine::B, Some(vs)) => {
                let mut v = build(&vs.b);
                v.title = format!("{} — B", v.title);
                v
            }
            (Machine::Both, Some(vs)) => {
                views::both(&build(&self.session), &build(&vs.b), &vs.settings.join(" "))
            }
            _ => build(&self.session),
        };
        (v, target)
    }

    /// `v`: the focused pane shows the next machine of a lockstep session.
    fn next_machine(&mut self) {
        let Some(vs) = self.session.vs.as_deref() else {
            self.say("There is no second machine: start warpscope tui with --vs KEY=VALUE... to run one in lockstep.", true);
            return;
        };
        let pane = &mut self.panes[self.focus];
        pane.machine = pane.machine.next();
        let what = match pane.machine {
            Machine::A => "A, this session's machine".to_string(),
            Machine::B => format!("B, A with {}", vs.settings.join(" ")),
            Machine::Both => "A and B, differences marked ≠".to_string(),
        };
        self.say(format!("This pane shows {what}."), false);
        (self.shown, self.before) = (None, Vec::new());
    }

    fn say(&mut self, msg: impl Into<String>, error: bool) {
        self.message = msg.into();
        self.error = error;
    }

    /// After a move, point the panes at what the latest stop at or before the machine's cycle
    /// is about (`debug::focus`), when that changed: its core, warp and channel become the
    /// focus and the warps panes' cursor goes to the warp (the banks panes list the bank of its
    /// request, see `target`). What it names nothing of stays where it was: where the panes
    /// look is the user's to move.
    pub fn follow_stop(&mut self) {
        if self.followed == Some(self.session.focus) {
            return;
        }
        let f = self.session.focus;
        self.followed = Some(f);
        self.core = f.core.unwrap_or(self.core);
        self.warp = f.warp.unwrap_or(self.warp);
        self.channel = f.channel.unwrap_or(self.channel);
        if let Some((c, w)) = f.warp {
            self.select_warp(c, w);
        }
    }

    /// Puts the cursor of every warps pane showing warp `core.warp` on its row, so the
    /// walkthrough's `Tab, j, Enter` starts from the warp that stopped.
    fn select_warp(&mut self, core: u16, warp: u16) {
        let want = RowKey::Warp { core, warp };
        for (i, kind) in self.layout.panes().iter().enumerate() {
            if let PaneKind::Warps { .. } = kind
                && let Some(row) = self.view(i).keys().iter().position(|k| *k == want)
            {
                self.panes[i].selected = row;
                self.panes[i].follow = true;
            }
        }
    }

    /// A moving command stopped with `msg`: on the message line, each breakpoint of a stop
    /// at several after the other.
    pub fn stopped(&mut self, msg: String) {
        self.say(msg.lines().collect::<Vec<_>>().join(" · "), false);
        self.follow_stop();
    }

    /// Runs a command line from the user.
    pub fn run_line(&mut self, line: &str) {
        if !line.trim().is_empty() && self.history.last().map(|s| s.as_str()) != Some(line.trim()) {
            self.history.push(line.trim().to_string());
        }
        let stops = self.session.stops;
        match self.session.execute(line) {
            // A move done at once (`goto`, `reverse-step`, `reverse-continue`) says where it
            // stopped as a running one does.
            Ok(Outcome::Text(t)) if self.session.stops != stops => self.stopped(t),
            Ok(Outcome::Text(t)) => {
                self.show_text(line, &t);
                self.follow_stop();
            }
            Ok(Outcome::Running) => self.say("running… (Esc stops)", false),
            Ok(Outcome::Layout(name)) => self.load_layout(&name),
            Ok(Outcome::Quit) => self.quit = true,
            Err(e) => self.say(format!("error: {e}"), true),
        }
    }

    /// Runs `lines` as if typed at the command line, each to its end (a `continue` to its
    /// stop): `tui -x`, `--script` and `--screenshot` put the session at a point before the
    /// first frame. Stops at the first line that fails, with its error on the message line.
    pub fn run_script(&mut self, lines: &[String]) -> Result<(), String> {
        for line in lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
            self.run_line(line);
            while self.session.is_running() {
                if let Some(msg) = self.session.advance(u64::MAX) {
                    self.stopped(msg);
                }
            }
            if self.error {
                return Err(format!("{line}: {}", self.message.trim_start_matches("error: ")));
            }
            if self.quit {
                break;
            }
        }
        Ok(())
    }

    fn show_text(&mut self, line: &str, t: &str) {
        let lines: Vec<String> = t.lines().map(String::from).collect();
        if lines.len() > 1 {
            let title = if line.trim().is_empty() {
                self.session.last_line.clone().unwrap_or_default()
            } else {
                line.trim().to_string()
            };
            self.popup = Some(Popup { title, lines, scroll: 0 });
            self.say("", false);
        } else {
            self.say(t.trim(), false);
        }
    }

    /// Switches layout; a broken layout file is reported and the default layout used.
    pub fn load_layout(&mut self, name: &str) {
        match Layout::load(name, &self.layouts_dir) {
            Ok(l) => {
                self.say(format!("layout {}", l.name), false);
                self.set_layout(l);
            }
            Err(e) => {
                self.set_layout(Layout::default_layout());
                self.say(format!("error: {e} (using the default layout)"), true);
            }
        }
    }

    /// Handles a key press.
    pub fn key(&mut self, e: KeyEvent) {
        if self.input.is_some() {
            self.edit(e);
            return;
        }
        if let Some(p) = &mut self.popup {
            match e.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter => self.popup = None,
                // The drawing clamps the scroll to the wrapped lines the popup's width gives.
                KeyCode::Char('j') | KeyCode::Down => p.scroll += 1,
                KeyCode::Char('k') | KeyCode::Up => p.scroll = p.scroll.saturating_sub(1),
                KeyCode::PageDown => p.scroll += 20,
                KeyCode::PageUp => p.scroll = p.scroll.saturating_sub(20),
                _ => {}
            }
            return;
        }
        let Some(action) = keymap::action(&e) else { return };
        if self.session.is_running() {
            if action == Action::Interrupt
                && let Some(msg) = self.session.interrupt()
            {
                self.say(msg, false);
            }
            return;
        }
        self.act(action);
    }

    fn act(&mut self, action: Action) {
        let n = self.panes.len().max(1);
        match action {
            Action::Step(1) => self.run_line("step"),
            Action::Step(k) => self.run_line(&format!("step {k}")),
            Action::Continue => self.run_line("continue"),
            Action::ReverseStep => self.run_line("reverse-step"),
            Action::ReverseContinue => self.run_line("reverse-continue"),
            Action::Run => self.run_line("run"),
            Action::CommandLine => self.input = Some(Input::default()),
            Action::BreakPrompt => self.input = Some(Input { text: "break ".into(), ..Input::default() }),
            Action::Help => {
                // The focused pane's prose in full first: a pane shows each of its lines in one
                // row, cut with `…` when narrow; here nothing is cut.
                let view = self.view(self.focus);
                let mut lines = vec![format!("This pane: {}", view.title)];
                for b in &view.blocks {
                    if let views::Block::Lines(ls) = b {
                        lines.extend(
                            ls.iter().map(|l| {
                                format!("  {}", l.iter().map(|s| s.text.as_str()).collect::<String>())
                            }),
                        );
                    }
                }
                lines.push(String::new());
                lines.extend(super::help::help_lines());
                self.popup = Some(Popup { title: "help".into(), lines, scroll: 0 })
            }
            Action::FocusNext => self.focus_by(1),
            Action::FocusPrev => self.focus_by(n - 1),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-self.page()),
            Action::PageDown => self.move_by(self.page()),
            Action::Top => self.move_by(i64::MIN / 2),
            Action::Bottom => self.move_by(i64::MAX / 2),
            Action::Drill => self.drill(),
            Action::Prev => self.shift(-1),
            Action::Next => self.shift(1),
            Action::NextLayout => {
                let names: Vec<&str> = super::layout::BUILTIN.iter().map(|(n, _)| *n).collect();
                let i =
                    names.iter().position(|n| *n == self.layout.name).map_or(0, |i| (i + 1) % names.len());
                self.load_layout(names[i]);
            }
            Action::Machine => self.next_machine(),
            Action::Interrupt => self.say("", false),
            Action::Quit => self.quit = true,
        }
    }

    /// A page of the focused pane: its height less one line of context.
    fn page(&self) -> i64 {
        self.extents.get(self.focus).map_or(20, |e| e.height.saturating_sub(1).max(1) as i64)
    }

    /// Moves the focused pane's selection by `delta` rows, or, in a pane without rows to
    /// select, scrolls it by `delta` lines.
    /// Moves the focus `step` panes on (modulo their number), past the panes the last frame
    /// hid.
    fn focus_by(&mut self, step: usize) {
        let n = self.panes.len();
        let shown = |i: usize| self.areas.get(i).is_none_or(|a| a.area() > 0);
        let mut to = self.focus;
        for _ in 0..n {
            to = (to + step) % n;
            if shown(to) {
                break;
            }
        }
        self.focus = to;
    }

    fn move_by(&mut self, delta: i64) {
        let rows = self.view(self.focus).keys().len();
        if rows == 0 {
            self.scroll(self.focus, delta);
            return;
        }
        let st = &mut self.panes[self.focus];
        st.selected = (st.selected as i64 + delta).clamp(0, rows as i64 - 1) as usize;
        st.follow = true;
    }

    /// Scrolls pane `i` by `delta` lines, within what it drew last.
    fn scroll(&mut self, i: usize, delta: i64) {
        let e = &self.extents[i];
        let max = e.rows.len().saturating_sub(e.height) as i64;
        let st = &mut self.panes[i];
        st.scroll = (st.scroll as i64 + delta).clamp(0, max) as usize;
        st.follow = false;
    }

    /// Enter on the selected row.
    fn drill(&mut self) {
        let view = self.view(self.focus);
        let Some(&key) = view.keys().get(self.panes[self.focus].selected) else { return };
        match key {
            RowKey::Warp { core, warp } => {
                self.warp = (core, warp);
                self.core = core;
                if let Some(i) = self.layout.panes().iter().position(|p| *p == PaneKind::Inspector) {
                    self.focus = i;
                    self.say(format!("inspecting warp {core}.{warp}"), false);
                } else {
                    self.run_line(&format!("show warp {core}.{warp}"));
                }
            }
            RowKey::Bank { channel, bank } => {
                self.channel = channel;
                let st = &mut self.panes[self.focus];
                st.detail = if st.detail == Some(bank) { None } else { Some(bank) };
            }
            RowKey::Core(c) => {
                self.core = c;
                self.say(format!("focused SM {c}"), false);
            }
            RowKey::Channel(ch) => {
                self.channel = ch;
                self.say(format!("focused channel {ch}"), false);
            }
            RowKey::Cycle(c) => self.run_line(&format!("goto {c}")),
            RowKey::Breakpoint(id) => {
                let on = self.session.breakpoints.list.iter().find(|b| b.id == id).is_some_and(|b| b.enabled);
                self.run_line(&format!("{} {id}", if on { "disable" } else { "enable" }));
            }
            RowKey::None => {}
        }
    }

    /// `[` / `]`: the previous/next of the focused pane's innermost parameter that follows the
    /// focus: the set of an L1 set's view, the warp of a warp's, else its core or channel.
    fn shift(&mut self, d: i32) {
        let g = &self.session.gpu;
        let step = |v: u16, len: usize| ((v as i64 + d as i64).rem_euclid(len as i64)) as u16;
        let (view, target) = self.target(self.focus);
        let fixed = self.layout.panes()[self.focus].fixed();
        if view.takes(Param::Set) {
            let sets = g.sms[target.core].l1.tags.sets;
            let st = &mut self.panes[self.focus];
            st.set = ((st.set as i64 + d as i64).rem_euclid(sets as i64)) as u32;
        } else if view.takes(Param::Warp) {
            let sm = &g.sms[self.warp.0 as usize];
            let n = sm.exec.warps.len() as i64;
            let mut w = self.warp.1 as i64;
            for _ in 0..n {
                w = (w + d as i64).rem_euclid(n);
                if sm.exec.valid & (1 << w) != 0 {
                    break;
                }
            }
            self.warp.1 = w as u16;
        } else if view.takes(Param::Core) && fixed.core.is_none() {
            self.core = step(self.core, g.sms.len());
        } else if view.takes(Param::Channel) && fixed.channel.is_none() {
            self.channel = step(self.channel, g.dram.len());
        }
        let st = &mut self.panes[self.focus];
        (st.selected, st.scroll) = (0, 0);
    }

    /// Command-line editing.
    fn edit(&mut self, e: KeyEvent) {
        let input = self.input.as_mut().expect("editing");
        let ctrl = e.modifiers.contains(KeyModifiers::CONTROL);
        match e.code {
            KeyCode::Esc => self.input = None,
            KeyCode::Char('c') if ctrl => self.input = None,
            KeyCode::Char('u') if ctrl => input.text.clear(),
            KeyCode::Enter => {
                let line = std::mem::take(&mut input.text);
                self.input = None;
                self.run_line(&line);
            }
            KeyCode::Backspace => {
                input.text.pop();
                input.completions.clear();
            }
            KeyCode::Up | KeyCode::Down => {
                if self.history.is_empty() {
                    return;
                }
                let last = self.history.len() - 1;
                let pos = match (input.history_pos, e.code) {
                    (None, KeyCode::Up) => Some(last),
                    (Some(p), KeyCode::Up) => Some(p.saturating_sub(1)),
                    (Some(p), KeyCode::Down) if p < last => Some(p + 1),
                    _ => None,
                };
                input.history_pos = pos;
                input.text = pos.map_or(String::new(), |p| self.history[p].clone());
            }
            KeyCode::Tab => {
                if input.completions.is_empty() {
                    input.completions = complete(&input.text);
                    input.completion = 0;
                } else {
                    input.completion = (input.completion + 1) % input.completions.len();
                }
                if let Some(c) = input.completions.get(input.completion) {
                    input.text = c.clone();
                }
            }
            KeyCode::Char(ch) if !ctrl => {
                input.text.push(ch);
                input.completions.clear();
            }
            _ => {}
        }
    }

    /// Mouse (with `--mouse`): a click focuses a pane and selects the row under the pointer;
    /// the wheel scrolls the pane under the pointer.
    pub fn mouse(&mut self, m: MouseEvent) {
        let Some(i) = self.areas.iter().position(|a| a.contains((m.column, m.row).into())) else { return };
        match m.kind {
            MouseEventKind::Down(_) => {
                self.focus = i;
                let e = &self.extents[i];
                let line = (m.row.saturating_sub(e.top) as usize) + self.panes[i].scroll;
                if (e.top..e.top + e.height as u16).contains(&m.row)
                    && let Some(Some(row)) = e.rows.get(line)
                {
                    self.panes[i].selected = *row;
                    self.panes[i].follow = true;
                }
            }
            MouseEventKind::ScrollDown => self.scroll(i, 3),
            MouseEventKind::ScrollUp => self.scroll(i, -3),
            _ => {}
        }
    }
}
