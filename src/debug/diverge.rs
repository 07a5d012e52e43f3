//! Where two machines part (`break diverge`, `debug::session::versus`): a unit of machine A
//! compared with the same unit of machine B at the same cycle. An SM's issue stream and a
//! channel's DRAM command stream are compared by the fingerprints the units keep
//! (`sim::fingerprint`), so two streams that differed once differ from then on; an L1's
//! contents line by line.

use crate::sim::Gpu;
use crate::sim::cache::line::{Line, LineState};
use crate::sim::core::warp::Warp;
use crate::sim::event::Event;

/// What `break diverge` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Every SM's issue stream, every channel's command stream and every L1's contents.
    Any,
    /// The issue stream of one SM, or of every SM.
    Issue(Option<u16>),
    /// The command stream of one channel, or of every channel.
    Dram(Option<u16>),
    /// The contents of one SM's L1, or of every L1.
    L1(Option<u16>),
}

/// The units `break diverge` names.
pub const UNITS: &str = "issue [SM], dram [CHANNEL], l1 [SM]";

impl Unit {
    /// Parses what follows `diverge`: nothing, or a unit and an optional SM or channel.
    pub fn parse(words: &[&str]) -> Result<Unit, String> {
        let number = |w: Option<&&str>| -> Result<Option<u16>, String> {
            w.map(|n| {
                n.parse::<u16>().map_err(|_| format!("break diverge: `{n}` is not an SM or channel number"))
            })
            .transpose()
        };
        if words.len() > 2 {
            return Err(format!("break diverge takes at most a unit and a number: {UNITS}"));
        }
        Ok(match words.first().copied() {
            None => Unit::Any,
            Some("issue") => Unit::Issue(number(words.get(1))?),
            Some("dram") => Unit::Dram(number(words.get(1))?),
            Some("l1") => Unit::L1(number(words.get(1))?),
            Some(other) => return Err(format!("break diverge {other}: units are {UNITS}")),
        })
    }

    /// How the breakpoint reads (`diverge dram 3`).
    pub fn text(self) -> String {
        let with = |unit: &str, n: Option<u16>| match n {
            Some(n) => format!("diverge {unit} {n}"),
            None => format!("diverge {unit}"),
        };
        match self {
            Unit::Any => "diverge".into(),
            Unit::Issue(n) => with("issue", n),
            Unit::Dram(n) => with("dram", n),
            Unit::L1(n) => with("l1", n),
        }
    }

    /// Refuses an SM or channel the machine does not have.
    pub fn check(self, g: &Gpu) -> Result<(), String> {
        let (n, have, what) = match self {
            Unit::Issue(Some(n)) | Unit::L1(Some(n)) => (n, g.sms.len(), "SMs"),
            Unit::Dram(Some(n)) => (n, g.dram.len(), "channels"),
            _ => return Ok(()),
        };
        if usize::from(n) >= have {
            return Err(format!("break {}: this machine has {have} {what}, 0..{}", self.text(), have - 1));
        }
        Ok(())
    }

    /// Where this unit of machine A (`a`, with its events of this cycle) differs from B's, in
    /// words naming what each machine did; `None` when they are the same.
    pub fn differs(self, a: (&Gpu, &[(u64, Event)]), b: (&Gpu, &[(u64, Event)])) -> Option<String> {
        let pick = |n: Option<u16>, len: usize| match n {
            Some(n) => n as usize..n as usize + 1,
            None => 0..len,
        };
        match self {
            Unit::Any => Unit::Issue(None)
                .differs(a, b)
                .or_else(|| Unit::Dram(None).differs(a, b))
                .or_else(|| Unit::L1(None).differs(a, b)),
            Unit::Issue(n) => pick(n, a.0.sms.len()).find_map(|c| issue_differs(c, a.0, b.0)),
            Unit::Dram(n) => pick(n, a.0.dram.len()).find_map(|ch| commands_differ(ch, a, b)),
            Unit::L1(n) => pick(n, a.0.sms.len()).find_map(|c| l1_differs(c, a.0, b.0)),
        }
    }
}

/// SM `c`'s issue streams, when they differ: the first warp slot whose instructions differ.
fn issue_differs(c: usize, a: &Gpu, b: &Gpu) -> Option<String> {
    let (ea, eb) = (&a.sms[c].exec, &b.sms[c].exec);
    if ea.issue_trace == eb.issue_trace {
        return None;
    }
    let who = |w: &Warp| {
        if w.valid {
            format!("CTA {} warp {}, {} instructions", w.cta, w.warp_in_cta, w.instructions)
        } else {
            "empty".into()
        }
    };
    let slot = ea.warps.iter().zip(&eb.warps).position(|(x, y)| {
        (x.valid, x.cta, x.warp_in_cta, x.instructions) != (y.valid, y.cta, y.warp_in_cta, y.instructions)
    });
    Some(match slot {
        Some(w) => format!(
            "SM {c} issue streams part at warp slot {w}: A {}, B {}",
            who(&ea.warps[w]),
            who(&eb.warps[w])
        ),
        None => format!("SM {c} issue streams part: the same instructions, issued in other cycles"),
    })
}

/// Channel `ch`'s command streams, when they differ, with each machine's commands of the cycle.
fn commands_differ(ch: usize, a: (&Gpu, &[(u64, Event)]), b: (&Gpu, &[(u64, Event)])) -> Option<String> {
    if a.0.dram[ch].command_trace == b.0.dram[ch].command_trace {
        return None;
    }
    let at = |events: &[(u64, Event)], cycle: u64| {
        let cmds: Vec<String> = events
            .iter()
            .filter(|(c, _)| *c == cycle)
            .filter_map(|(_, e)| match e {
                Event::DramCommand { channel, cmd, .. } if usize::from(*channel) == ch => {
                    Some(format!("{} bank {} row {}", cmd.kind.name(), cmd.bank, cmd.row))
                }
                _ => None,
            })
            .collect();
        if cmds.is_empty() { "nothing".into() } else { cmds.join(", ") }
    };
    if a.1.is_empty() && b.1.is_empty() {
        return Some(format!("channel {ch}'s command streams have parted"));
    }
    Some(format!(
        "channel {ch} command streams part: A issued {}, B {}",
        at(a.1, a.0.cycle),
        at(b.1, b.0.cycle)
    ))
}

/// SM `c`'s L1 contents, when they differ: the first line that does.
fn l1_differs(c: usize, a: &Gpu, b: &Gpu) -> Option<String> {
    let (ta, tb) = (&a.sms[c].l1.tags, &b.sms[c].l1.tags);
    let held = |l: &Line| match l.state {
        LineState::Invalid => "nothing".to_string(),
        LineState::Reserved => format!("{:#x} (reserved)", l.addr),
        LineState::Valid => format!("{:#x}", l.addr),
    };
    for set in 0..ta.sets {
        for way in 0..ta.ways {
            let (x, y) = (ta.line(set, way), tb.line(set, way));
            let same = x.state == y.state
                && (x.state == LineState::Invalid || (x.key, x.sectors) == (y.key, y.sectors));
            if !same {
                return Some(format!("SM {c} L1 set {set} way {way}: A holds {}, B {}", held(x), held(y)));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_parse_from_what_follows_diverge_and_refuse_the_rest() {
        assert_eq!(Unit::parse(&[]), Ok(Unit::Any));
        assert_eq!(Unit::parse(&["issue"]), Ok(Unit::Issue(None)));
        assert_eq!(Unit::parse(&["dram", "3"]), Ok(Unit::Dram(Some(3))));
        assert_eq!(Unit::parse(&["l1", "0"]), Ok(Unit::L1(Some(0))));
        assert!(Unit::parse(&["dram", "x"]).unwrap_err().contains("`x` is not"));
        assert!(Unit::parse(&["l2"]).unwrap_err().contains("units are issue [SM], dram [CHANNEL], l1 [SM]"));
        assert!(Unit::parse(&["dram", "1", "2"]).is_err());
        for u in [Unit::Any, Unit::Issue(Some(2)), Unit::Dram(None), Unit::L1(Some(7))] {
            let text = u.text();
            let words: Vec<&str> = text.split_whitespace().skip(1).collect();
            assert_eq!(Unit::parse(&words), Ok(u), "{text} reads back");
        }
    }
}
