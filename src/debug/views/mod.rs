//! Views: what a pane shows, as plain data (titles, tables, timelines, sparklines) that also
//! renders as text — so every pane is a `show` command and testable without a terminal.
//! State is carried in the text itself (words and symbols), and additionally in a [`Tone`]
//! a terminal may colour; nothing depends on colour alone. Which views there are, their
//! `show` names and their panes in layout files come from one table, [`VIEWS`] in
//! `catalogue.rs` (whose doc lists what adding a view touches).

mod banks;
mod blame;
mod both;
mod catalogue;
mod changes;
mod events;
pub mod export;
mod inspector;
mod interference;
mod lru;
mod merb;
mod mshr;
mod queues;
mod stats;
mod text;
mod warpgroups;
mod warps;

pub use both::both;
pub use catalogue::{Need, PANE_ROWS, PaneKind, Param, SHOW_ROWS, Target, VIEWS, ViewSpec, show};
pub use changes::{mark_changes, mark_differences};
pub use text::{bar_columns, sparkline};
pub use warps::{is_locality_warp, miss_inflight, oaws_allowance, oaws_prediction};

use super::breakpoint::{Breakpoint, Breakpoints, Trigger};
use crate::sim::stats::metrics::group;

/// How a piece of text should stand out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tone {
    #[default]
    Normal,
    Dim,
    Good,
    Warn,
    Bad,
    Accent,
    /// Changed by the last move of the machine.
    Changed,
    /// Differs from the other machine of a lockstep session.
    Differs,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub text: String,
    pub tone: Tone,
}

/// A span of text with a tone.
pub fn span(text: impl Into<String>, tone: Tone) -> Span {
    Span { text: text.into(), tone }
}

/// Plain text.
pub fn plain(text: impl Into<String>) -> Span {
    span(text, Tone::Normal)
}

/// `part` as a whole percentage of `whole` (`37%`; 0 of nothing is `0%`).
fn pct(part: u64, whole: u64) -> String {
    format!("{:.0}%", 100.0 * part as f64 / whole.max(1) as f64)
}

/// What a table row refers to (Enter on it drills in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RowKey {
    #[default]
    None,
    Warp {
        core: u16,
        warp: u16,
    },
    Bank {
        channel: u16,
        bank: u8,
    },
    Core(u16),
    Channel(u16),
    Breakpoint(u32),
    /// Something that happened at a cycle (Enter goes there).
    Cycle(u64),
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Span>>,
    /// Right-align these columns.
    pub right: Vec<usize>,
    pub keys: Vec<RowKey>,
    /// A prose column that may narrow (its cells then cut between words) before it is hidden.
    pub flex: Option<usize>,
    /// The order in which a pane too narrow for the table hides whole columns, least
    /// important first; empty means the rightmost first (the first column is never hidden).
    pub drop: Vec<usize>,
}

/// A piece of a timeline bar: cycles [from, to) drawn with `fill`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub from: u64,
    pub to: u64,
    pub fill: char,
    pub tone: Tone,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bar {
    pub label: String,
    pub segments: Vec<Segment>,
    /// Text after the bar (e.g. the return cycle).
    pub note: String,
}

/// Horizontal bars over a cycle range (the warp inspector's request timelines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    pub from: u64,
    pub to: u64,
    pub bars: Vec<Bar>,
    pub legend: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Spark {
    pub label: String,
    pub values: Vec<f64>,
    /// The current value, formatted.
    pub now: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Lines(Vec<Vec<Span>>),
    Table(Table),
    Timeline(Timeline),
    Sparks(Vec<Spark>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub title: String,
    pub blocks: Vec<Block>,
}

impl View {
    pub fn new(title: impl Into<String>) -> View {
        View { title: title.into(), blocks: Vec::new() }
    }

    pub fn line(mut self, spans: Vec<Span>) -> View {
        match self.blocks.last_mut() {
            Some(Block::Lines(lines)) => lines.push(spans),
            _ => self.blocks.push(Block::Lines(vec![spans])),
        }
        self
    }

    pub fn text(self, s: impl Into<String>) -> View {
        self.line(vec![plain(s)])
    }

    pub fn block(mut self, b: Block) -> View {
        self.blocks.push(b);
        self
    }

    /// The first table's row keys (for selection in a pane).
    pub fn keys(&self) -> &[RowKey] {
        self.blocks
            .iter()
            .find_map(|b| match b {
                Block::Table(t) => Some(t.keys.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Plain-text rendering (what `show` prints).
    pub fn to_text(&self) -> String {
        text::render(self, 100)
    }
}

/// A view for a mechanism this machine does not run.
fn unavailable(what: &str, needs: &str, g: &crate::sim::Gpu) -> View {
    View::new(what.to_string()).line(vec![span(
        format!(
            "{what} are kept by {needs}; this machine uses dram.scheduler = \"{}\".",
            g.config.dram.scheduler
        ),
        Tone::Dim,
    )])
}

/// How many of the latest hits the breakpoints view lists.
const RECENT_HITS: usize = 8;

/// Breakpoints and watchpoints, then their latest counted hits.
pub fn breakpoints(set: &Breakpoints) -> View {
    let mut t = Table {
        header: ["Num", "Type", "Enb", "Hits", "What"].map(String::from).to_vec(),
        right: vec![0, 3],
        flex: Some(4),
        ..Table::default()
    };
    let listed: Vec<&Breakpoint> = set.list.iter().filter(|b| !b.used_up()).collect();
    for b in &listed {
        let kind = match (&b.trigger, b.temporary) {
            (Trigger::Watch { .. }, _) => "watchpoint",
            (_, true) => "tbreak",
            _ => "breakpoint",
        };
        let mut what = b.what();
        if b.ignores_left() > 0 {
            what.push_str(&format!(" (ignore next {})", b.ignores_left()));
        }
        if b.since > 0 {
            what.push_str(&format!(" (counts hits after cycle {})", group(b.since)));
        }
        let tone = if b.enabled { Tone::Normal } else { Tone::Dim };
        t.rows.push(vec![
            plain(b.id.to_string()),
            span(kind, tone),
            span(if b.enabled { "y" } else { "n" }, tone),
            plain(b.hits.len().to_string()),
            span(what, tone),
        ]);
        t.keys.push(RowKey::Breakpoint(b.id));
    }
    // The latest hits of the listed breakpoints, newest first (Enter in the pane goes to
    // one's cycle).
    let mut recent: Vec<(u64, u32, bool)> = listed
        .iter()
        .flat_map(|b| {
            let from = b.hits.len().saturating_sub(RECENT_HITS);
            (from..b.hits.len()).map(move |i| (b.hits[i].cycle, b.id, b.ignored(i)))
        })
        .collect();
    recent.sort_by_key(|&(cycle, id, _)| (std::cmp::Reverse(cycle), id));
    for (cycle, id, ignored) in recent.into_iter().take(RECENT_HITS) {
        // The cycle sits in a numeric column, which a narrow pane hides whole rather than cuts.
        let what = if ignored { "↳ hit, ignored" } else { "↳ hit" };
        t.rows.push(vec![
            plain(id.to_string()),
            span("hit", Tone::Dim),
            plain(""),
            plain(format!("@{}", group(cycle))),
            span(what, Tone::Dim),
        ]);
        t.keys.push(RowKey::Cycle(cycle));
    }
    let v = View::new("Breakpoints");
    if t.rows.is_empty() {
        v.text("No breakpoints. Try `break occlusion` or `watch l1[0].mshr.used`.")
    } else {
        v.block(Block::Table(t))
    }
}
