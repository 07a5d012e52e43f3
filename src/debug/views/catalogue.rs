//! The catalogue of views: one row of [`views!`] per view gives its pane's name in layout
//! files with the parameters a layout may fix, the parameters that always follow the focus,
//! its `show` name, its one-line help and how it is built. Generated from the rows, so they
//! cannot drift apart:
//!
//! - [`PaneKind`], the panes of `layouts/*.ron` with the serde form those files use
//!   (`Warps(core: Some(3))`, `Mshr()`, `Inspector`, `Lru(core: Some(1), set: Some(0))`);
//! - [`VIEWS`], which `show`, its help and completion list, with each view's usage
//!   (`[CORE]`, `CORE SET`) derived from its parameters;
//! - [`ViewSpec::build`], the one function through which `show` and the TUI's panes make a
//!   view: `show` reads the parameters from its arguments ([`ViewSpec::target`]), a pane from
//!   its layout and the focus.
//!
//! Adding a view/pane touches three files: its own in `src/debug/views/` (a function returning
//! a [`View`] of what it reads from the [`Scene`]: the machine, breakpoints, event log or
//! samples); its `mod` line in `views/mod.rs`; and, here, one row below and its module in the
//! `use super::{…}` line. `show NAME`, `help show`, completion, the layout files' `Pane(Name)`
//! and `[` / `]` in its pane follow from the row; `tests/tui.rs` checks that every row is a
//! `show` command, a layout pane and a line of `help show`, and needs no edit. Its name goes in
//! the manual's lists of views and panes (docs/debugger.md, generated docs/debugger-reference.md); to see it without typing `layout`, add its pane to
//! one of `layouts/*.ron` (whose snapshots in `tests/snapshots/` then change).

use super::super::focus::Focus;
use super::super::scene::Scene;
use super::{
    View, banks, blame, breakpoints, events, inspector, interference, lru, merb, mshr, queues, stats,
    unavailable, warpgroups, warps,
};
use crate::sim::Gpu;
use serde::{Deserialize, Serialize};

/// What a view may be pointed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Core,
    Channel,
    /// An L1 set of the view's core.
    Set,
    /// A warp, `CORE.WARP`.
    Warp,
    /// One of the warp's loads, by its sequence number (the warp's latest finished load when
    /// left out).
    Load,
    /// A number of cycles back from now.
    Cycles,
}

impl Param {
    /// How `show`'s usage names it.
    pub fn word(self) -> &'static str {
        match self {
            Param::Core => "CORE",
            Param::Channel => "CH",
            Param::Set => "SET",
            Param::Warp => "CORE.WARP",
            Param::Load => "LOAD",
            Param::Cycles => "CYCLES",
        }
    }
}

/// Whether `show` may leave a parameter out (it is then 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    Optional,
    Required,
}

/// A parameter of a view, in the order `show` takes its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arg {
    pub param: Param,
    pub need: Need,
}

/// How many entries of a growing list (the event log) a view lists: `show` prints a
/// screenful, a pane holds more to scroll through.
pub const SHOW_ROWS: usize = 40;
pub const PANE_ROWS: usize = 200;

/// What a view looks at: its parameters, resolved and in range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Target {
    pub core: usize,
    pub channel: usize,
    pub set: usize,
    pub warp: (u16, u16),
    /// The bank whose queue the banks view lists (Enter on a bank in its pane; `show` lists none).
    pub bank: Option<u8>,
    /// [`SHOW_ROWS`] or [`PANE_ROWS`].
    pub rows: usize,
    /// A load of the warp, by sequence number.
    pub load: Option<u32>,
    /// How many cycles back a view of a stretch of history looks.
    pub cycles: Option<u64>,
    /// A DRAM row to mark (the row of the request a stop is about).
    pub row: Option<u32>,
}

/// A view parameter's [`Param`], and (after `ty`) the type a layout file gives it in.
macro_rules! param {
    (core) => {
        Param::Core
    };
    (channel) => {
        Param::Channel
    };
    (set) => {
        Param::Set
    };
    (warp) => {
        Param::Warp
    };
    (load) => {
        Param::Load
    };
    (cycles) => {
        Param::Cycles
    };
    (ty core) => {
        u16
    };
    (ty channel) => {
        u16
    };
    (ty set) => {
        u32
    };
}

/// The parameters a layout fixed for a pane; `None` follows the focus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fixed {
    pub core: Option<param!(ty core)>,
    pub channel: Option<param!(ty channel)>,
    pub set: Option<param!(ty set)>,
}

/// One view of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct ViewSpec {
    /// Its name in `show`.
    pub name: &'static str,
    /// Its pane's name in layout files.
    pub pane: &'static str,
    pub args: &'static [Arg],
    pub help: &'static str,
    make: fn(&Scene, &Target) -> Result<View, String>,
}

impl ViewSpec {
    /// The view of `s` at `t`.
    pub fn build(&self, s: &Scene, t: &Target) -> Result<View, String> {
        (self.make)(s, t)
    }

    /// Whether the view takes parameter `p`.
    pub fn takes(&self, p: Param) -> bool {
        self.args.iter().any(|a| a.param == p)
    }

    /// `show`'s arguments as the help writes them (`[CORE]`, `CORE SET`).
    pub fn usage(&self) -> String {
        let words: Vec<String> = self
            .args
            .iter()
            .map(|a| match a.need {
                Need::Optional => format!("[{}]", a.param.word()),
                Need::Required => a.param.word().to_string(),
            })
            .collect();
        words.join(" ")
    }

    /// The target `show NAME ARGS` names: each argument checked against the machine; a core,
    /// channel or warp left out is the last stop's (`focus`), else 0. A channel that is the
    /// stop's shows its bank and row.
    pub fn target(&self, g: &Gpu, args: &[String], focus: &Focus) -> Result<Target, String> {
        let mut t = Target { rows: SHOW_ROWS, ..Target::default() };
        let or = |v: Option<u16>| v.map_or(0, usize::from);
        for (i, a) in self.args.iter().enumerate() {
            let given = args.get(i).map(String::as_str);
            match a.param {
                Param::Core => t.core = index_arg(given, "core", g.sms.len(), a.need, or(focus.core))?,
                Param::Channel => {
                    t.channel = index_arg(given, "channel", g.dram.len(), a.need, or(focus.channel))?;
                    if focus.channel == Some(t.channel as u16) {
                        (t.bank, t.row) = (focus.bank, focus.row);
                    }
                }
                Param::Set => t.set = index_arg(given, "set", g.sms[t.core].l1.tags.sets, a.need, 0)?,
                Param::Warp => {
                    t.warp = match (given, focus.warp) {
                        (Some(w), _) => parse_warp(w)?,
                        (None, Some(w)) => w,
                        (None, None) => return Err("which warp? e.g. show warp 3.17".into()),
                    }
                }
                Param::Load => {
                    t.load = given
                        .map(|a| {
                            a.parse::<u32>().map_err(|_| {
                                format!("`{a}` is not a load number (its sequence number in the warp)")
                            })
                        })
                        .transpose()?
                }
                Param::Cycles => {
                    t.cycles = given
                        .map(|a| match a.parse::<u64>() {
                            Ok(n) if n > 0 => Ok(n),
                            _ => Err(format!("`{a}` is not a number of cycles (1 or more)")),
                        })
                        .transpose()?
                }
            }
        }
        Ok(t)
    }
}

/// A numbered argument below `len`, or `default` if it is optional and left out.
fn index_arg(arg: Option<&str>, what: &str, len: usize, need: Need, default: usize) -> Result<usize, String> {
    let v = match (arg, need) {
        (Some(a), _) => a.parse::<usize>().map_err(|_| format!("`{a}` is not a {what} number"))?,
        (None, Need::Optional) => default.min(len.saturating_sub(1)),
        (None, Need::Required) => return Err(format!("which {what}? (0..{})", len.saturating_sub(1))),
    };
    if v >= len {
        return Err(format!("{what} {v} does not exist (0..{})", len.saturating_sub(1)));
    }
    Ok(v)
}

/// Parses `C.W`.
fn parse_warp(s: &str) -> Result<(u16, u16), String> {
    let (c, w) = s.split_once('.').ok_or_else(|| format!("`{s}`: a warp is CORE.WARP, e.g. 3.17"))?;
    let c = c.parse().map_err(|_| format!("`{s}`: `{c}` is not a core number"))?;
    let w = w.parse().map_err(|_| format!("`{s}`: `{w}` is not a warp number"))?;
    Ok((c, w))
}

/// Builds the view `name` with its arguments (the `show` command).
pub fn show(s: &Scene, name: &str, args: &[String]) -> Result<View, String> {
    let view = VIEWS.iter().find(|v| v.name == name).ok_or_else(|| format!("no view `{name}`"))?;
    view.build(s, &view.target(s.gpu, args, s.focus)?)
}

/// The catalogue: `Pane { layout params } (params that follow the focus) "show name" "help"
/// => |scene, target| build;` — a parameter is `core`, `channel`, `set` or `warp` with its
/// [`Need`] in `show`; a pane without layout parameters is a unit variant (`Pane(Stats)`).
macro_rules! views {
    ($(
        $pane:ident $({ $($field:ident : $need:ident),+ })? $(( $($follows:ident : $fneed:ident),+ ))?
            $name:literal $help:literal => $make:expr;
    )+) => {
        /// A pane of a layout file and the view it shows. Parameters left out follow the
        /// focused core, channel, set or warp.
        #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub enum PaneKind {
            $(
                #[doc = $help]
                $pane $({ $(#[serde(default)] $field: Option<param!(ty $field)>),+ })?,
            )+
        }

        /// Every view, in the order `show` lists and completes them.
        pub const VIEWS: &[ViewSpec] = &[$(
            ViewSpec {
                name: $name,
                pane: stringify!($pane),
                args: &[
                    $($(Arg { param: param!($field), need: Need::$need },)+)?
                    $($(Arg { param: param!($follows), need: Need::$fneed },)+)?
                ],
                help: $help,
                make: $make,
            },
        )+];

        impl PaneKind {
            /// The view this pane shows.
            pub fn view(&self) -> &'static ViewSpec {
                let pane = match self {
                    $(PaneKind::$pane { .. } => stringify!($pane),)+
                };
                VIEWS.iter().find(|v| v.pane == pane).expect("every pane is a row of the catalogue")
            }

            /// The parameters the layout fixed.
            pub fn fixed(&self) -> Fixed {
                match self {
                    $(PaneKind::$pane $({ $($field),+ })? => Fixed {
                        $($($field: *$field,)+)?
                        ..Fixed::default()
                    },)+
                }
            }
        }
    };
}

views! {
    Banks { channel: Optional } "banks" "a channel's banks: open row, queued commands, timing countdowns"
        => |s, t| Ok(banks::banks(s.gpu, t.channel, t.bank, t.row));
    WarpGroups { channel: Optional } "warpgroups"
        "warp-group scores and completeness (warp-aware DRAM schedulers)"
        => |s, t| Ok(warpgroups::warpgroups(s.gpu, t.channel).unwrap_or_else(|| {
            let needs = format!("warp-aware DRAM schedulers ({})", warpgroups::schedulers());
            unavailable("Warp-group scores", &needs, s.gpu)
        }));
    Merb { channel: Optional } "merb" "row-hit counters against the MERB threshold (WG-Bw)"
        => |s, t| Ok(merb::merb(s.gpu, t.channel)
            .unwrap_or_else(|| unavailable("MERB counters", "the WG-Bw scheduler (wg-bw)", s.gpu)));
    Mshr { core: Optional } "mshr" "an SM's MSHR entries, merged requests, waiting warps, occlusion"
        => |s, t| Ok(mshr::mshr(s.gpu, t.core));
    Lru { core: Required, set: Required } "lru" "one L1 set's lines from MRU to LRU"
        => |s, t| Ok(lru::lru(s.gpu, t.core, t.set));
    Warps { core: Optional } "warps" "an SM's warps: stall reason, priority, next instruction, loads"
        => |s, t| Ok(warps::warps(s.gpu, t.core));
    Inspector (warp: Required) "warp" "the warp inspector: each load's requests through the memory system"
        => |s, t| Ok(blame::under(inspector::inspector(s.gpu, t.warp.0, t.warp.1)?, s, t.warp));
    Stats "stats" "headline metrics and their history" => |s, _| Ok(stats::stats(s.gpu, s.samples));
    Events "events" "the most recent logged events and events breakpoints hit on"
        => |s, t| Ok(events::events(s.log, s.breakpoints, t.rows));
    Queues "queues" "occupancy of every queue in the machine" => |s, _| Ok(queues::queues(s.gpu));
    Breakpoints "breakpoints" "breakpoints and watchpoints" => |s, _| Ok(breakpoints(s.breakpoints));
    Blame (warp: Required, load: Optional) "blame"
        "who delayed a warp's load: each stage's wait split by cause and by the warps served ahead"
        => |s, t| blame::load(s, t.warp, t.load);
    Interference (cycles: Optional) "interference"
        "who delayed whom lately: per SM waiting vs service, per channel the warps served ahead"
        => |s, t| Ok(interference::view(s, t.cycles));
}
