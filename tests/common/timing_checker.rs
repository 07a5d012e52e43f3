//! An independent GDDR5 timing checker: replays a DRAM command trace and checks every
//! constraint of MECHANISMS §2 against the full history, pairwise. It shares no code with the
//! simulator's bank model, so a bug there cannot hide here.

use warpscope::sim::dram::command::CommandKind;
use warpscope::sim::dram::timing::Timing;

#[derive(Clone, Copy, Debug)]
pub struct Cmd {
    pub cycle: u64,
    pub bank: usize,
    pub kind: CommandKind,
    pub row: u32,
}

/// What may share a cycle on the one command bus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bus {
    /// One command per cycle.
    OneCommand,
    /// An ACT or PRE, then a column command to another bank, as GPGPU-Sim's `dram_t::cycle`
    /// issues them with one bus (`gpgpusim-frfcfs`).
    RowThenColumn,
}

/// Checks a channel's command trace (in issue order). Returns every violation found.
pub fn check(t: &Timing, banks: usize, groups: usize, cmds: &[Cmd]) -> Vec<String> {
    check_bus(t, banks, groups, cmds, Bus::OneCommand)
}

/// [`check`] with what the command bus allows in one cycle.
pub fn check_bus(t: &Timing, banks: usize, groups: usize, cmds: &[Cmd], bus: Bus) -> Vec<String> {
    let mut errors = Vec::new();
    let mut open: Vec<Option<u32>> = vec![None; banks];
    let mut err = |i: usize, c: &Cmd, what: String| {
        errors
            .push(format!("command {i} ({:?} bank {} row {} at {}): {what}", c.kind, c.bank, c.row, c.cycle));
    };
    for (i, c) in cmds.iter().enumerate() {
        let earlier = &cmds[..i];
        // One command per cycle on the command bus (or a row and then a column command), in
        // time order.
        if let Some(p) = earlier.last()
            && p.cycle >= c.cycle
        {
            let pair = bus == Bus::RowThenColumn
                && p.cycle == c.cycle
                && matches!(p.kind, CommandKind::Act | CommandKind::Pre)
                && c.kind.is_cas()
                && p.bank != c.bank
                && (i < 2 || earlier[i - 2].cycle < c.cycle);
            if !pair {
                err(i, c, format!("not after the previous command at {}", p.cycle));
            }
        }
        let last = |pred: &dyn Fn(&Cmd) -> bool| earlier.iter().rev().find(|p| pred(p)).copied();
        let gap = |p: Option<Cmd>, need: u64, name: &str, err: &mut dyn FnMut(String)| {
            if let Some(p) = p
                && c.cycle < p.cycle + need
            {
                err(format!(
                    "{name}: only {} cycles after {:?} at {} (need {need})",
                    c.cycle - p.cycle,
                    p.kind,
                    p.cycle
                ));
            }
        };
        let same_bank = |k: CommandKind| last(&|p: &Cmd| p.bank == c.bank && p.kind == k);
        let any = |k: CommandKind| last(&|p: &Cmd| p.kind == k);
        let mut e = |s: String| err(i, c, s);
        match c.kind {
            CommandKind::Act => {
                if open[c.bank].is_some() {
                    e("ACT to an open bank".into());
                }
                gap(same_bank(CommandKind::Act), t.rc, "tRC", &mut e);
                gap(same_bank(CommandKind::Pre), t.rp, "tRP", &mut e);
                gap(any(CommandKind::Act), t.rrd, "tRRD", &mut e);
                gap(any(CommandKind::Ref), t.rfc, "tRFC", &mut e);
                let acts: Vec<&Cmd> = earlier.iter().filter(|p| p.kind == CommandKind::Act).collect();
                if acts.len() >= 4 {
                    let fourth = acts[acts.len() - 4];
                    if c.cycle < fourth.cycle + t.faw {
                        e(format!(
                            "tFAW: fifth ACT {} cycles after the ACT at {}",
                            c.cycle - fourth.cycle,
                            fourth.cycle
                        ));
                    }
                }
                open[c.bank] = Some(c.row);
            }
            CommandKind::Pre => {
                if open[c.bank].is_none() {
                    e("PRE to a closed bank".into());
                }
                gap(same_bank(CommandKind::Act), t.ras, "tRAS", &mut e);
                gap(same_bank(CommandKind::Rd), t.rtp, "tRTP", &mut e);
                gap(same_bank(CommandKind::Wr), t.wl + t.burst + t.wr, "tWR", &mut e);
                open[c.bank] = None;
            }
            CommandKind::Rd | CommandKind::Wr => {
                if open[c.bank] != Some(c.row) {
                    e(format!("column command to row {} but open row is {:?}", c.row, open[c.bank]));
                }
                gap(same_bank(CommandKind::Act), t.rcd, "tRCD", &mut e);
                let cas = last(&|p: &Cmd| p.kind.is_cas());
                gap(cas, t.ccds.max(t.burst), "tCCDS", &mut e);
                let group = c.bank % groups;
                let cas_group = last(&|p: &Cmd| p.kind.is_cas() && p.bank % groups == group);
                gap(cas_group, t.ccdl.max(t.burst), "tCCDL", &mut e);
                if c.kind == CommandKind::Wr {
                    let rtw = (t.cas + t.burst + t.rtrs).saturating_sub(t.wl);
                    gap(any(CommandKind::Rd), rtw, "RD→WR turnaround", &mut e);
                } else {
                    gap(any(CommandKind::Wr), t.wl + t.burst + t.wtr, "tWTR", &mut e);
                }
            }
            CommandKind::Ref => {
                if open.iter().any(|r| r.is_some()) {
                    e("REF with an open bank".into());
                }
                for b in 0..banks {
                    gap(
                        last(&|p: &Cmd| p.bank == b && p.kind == CommandKind::Pre),
                        t.rp,
                        "tRP before REF",
                        &mut e,
                    );
                    gap(
                        last(&|p: &Cmd| p.bank == b && p.kind == CommandKind::Act),
                        t.rc,
                        "tRC before REF",
                        &mut e,
                    );
                }
                gap(any(CommandKind::Ref), t.rfc, "tRFC", &mut e);
            }
        }
    }
    errors
}
