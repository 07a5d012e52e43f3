//! Views: what a pane shows, as plain data (titles, tables, timelines, sparklines) that also
//! renders as text — so every pane is a `show` command and testable without a terminal.
//! State is carried in the text itself (words and symbols), and additionally in a [`Tone`]
//! a terminal may colour; nothing depends on colour alone.

mod banks;
mod events;
mod inspector;
mod lru;
mod merb;
mod mshr;
mod queues;
mod stats;
mod text;
mod warpgroups;
mod warps;

pub use text::{bar_columns, sparkline};

use super::breakpoint::Trigger;
use super::session::Session;

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

/// What a table row refers to (Enter on it drills in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
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

/// Parses `C.W`.
pub fn parse_warp(s: &str) -> Result<(u16, u16), String> {
    let (c, w) = s.split_once('.').ok_or_else(|| format!("`{s}`: a warp is CORE.WARP, e.g. 3.17"))?;
    let c = c.parse().map_err(|_| format!("`{s}`: `{c}` is not a core number"))?;
    let w = w.parse().map_err(|_| format!("`{s}`: `{w}` is not a warp number"))?;
    Ok((c, w))
}

fn index_arg(
    args: &[String],
    i: usize,
    what: &str,
    len: usize,
    default: Option<usize>,
) -> Result<usize, String> {
    let v = match (args.get(i), default) {
        (Some(a), _) => a.parse::<usize>().map_err(|_| format!("`{a}` is not a {what} number"))?,
        (None, Some(d)) => d,
        (None, None) => return Err(format!("which {what}? (0..{})", len.saturating_sub(1))),
    };
    if v >= len {
        return Err(format!("{what} {v} does not exist (0..{})", len.saturating_sub(1)));
    }
    Ok(v)
}

/// Builds the view `name` with its arguments (the `show` command).
pub fn show(s: &Session, name: &str, args: &[String]) -> Result<View, String> {
    let g = &s.gpu;
    match name {
        "banks" => Ok(banks::banks(g, index_arg(args, 0, "channel", g.dram.len(), Some(0))?, None)),
        "warpgroups" => {
            let ch = index_arg(args, 0, "channel", g.dram.len(), Some(0))?;
            Ok(warpgroups::warpgroups(g, ch).unwrap_or_else(|| {
                unavailable(
                    "Warp-group scores",
                    "warp-aware DRAM schedulers (wg, wg-m, wg-bw, wg-w, wafcfs)",
                    g,
                )
            }))
        }
        "merb" => {
            let ch = index_arg(args, 0, "channel", g.dram.len(), Some(0))?;
            Ok(merb::merb(g, ch)
                .unwrap_or_else(|| unavailable("MERB counters", "the WG-Bw scheduler (wg-bw)", g)))
        }
        "mshr" => Ok(mshr::mshr(g, index_arg(args, 0, "core", g.sms.len(), Some(0))?)),
        "lru" => {
            let core = index_arg(args, 0, "core", g.sms.len(), None)?;
            let set = index_arg(args, 1, "set", g.sms[core].l1.tags.sets, None)?;
            Ok(lru::lru(g, core, set))
        }
        "warps" => Ok(warps::warps(g, index_arg(args, 0, "core", g.sms.len(), Some(0))?)),
        "warp" => {
            let a = args.first().ok_or("which warp? e.g. show warp 3.17")?;
            let (c, w) = parse_warp(a)?;
            inspector::inspector(g, c, w)
        }
        "stats" => Ok(stats::stats(s)),
        "events" => Ok(events::events(s, 40)),
        "queues" => Ok(queues::queues(g)),
        "breakpoints" => Ok(breakpoints(s)),
        other => Err(format!("no view `{other}`")),
    }
}

pub use banks::banks;
pub use events::events;
pub use inspector::inspector;
pub use lru::lru;
pub use mshr::mshr;
pub use queues::queues;
pub use stats::stats;
pub use warps::{is_locality_warp, miss_inflight, oaws_allowance, oaws_prediction, warps};

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

/// Breakpoints and watchpoints.
pub fn breakpoints(s: &Session) -> View {
    let mut t = Table {
        header: ["Num", "Type", "Enb", "Hits", "What"].map(String::from).to_vec(),
        right: vec![0, 3],
        flex: Some(4),
        ..Table::default()
    };
    for b in &s.breakpoints.list {
        let kind = match (&b.trigger, b.temporary) {
            (Trigger::Watch { .. }, _) => "watchpoint",
            (_, true) => "tbreak",
            _ => "breakpoint",
        };
        let mut what = b.what();
        if b.ignore > 0 {
            what.push_str(&format!(" (ignore next {})", b.ignore));
        }
        let tone = if b.enabled { Tone::Normal } else { Tone::Dim };
        t.rows.push(vec![
            plain(b.id.to_string()),
            span(kind, tone),
            span(if b.enabled { "y" } else { "n" }, tone),
            plain(b.hits.to_string()),
            span(what, tone),
        ]);
        t.keys.push(RowKey::Breakpoint(b.id));
    }
    let v = View::new("Breakpoints");
    if t.rows.is_empty() {
        v.text("No breakpoints. Try `break occlusion` or `watch l1[0].mshr.used`.")
    } else {
        v.block(Block::Table(t))
    }
}
