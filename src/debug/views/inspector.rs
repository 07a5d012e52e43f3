//! The warp inspector: for each of a warp's loads in flight (and its last finished one),
//! every coalesced request: its lanes and line, how L1 treated it, the crossbar, the L2 slice,
//! the DRAM channel/bank/row and whether the row was open, and when it came back — as a table
//! and as a per-request timeline whose first–last spread is the load's latency divergence
//! (seed 000 §III).

use super::{Bar, Block, Segment, Table, Timeline, Tone, View, plain, span};
use crate::sim::Gpu;
use crate::sim::core::warp::LoadTrack;
use crate::sim::inspect::locate_request;
use crate::sim::request::{CacheOutcome, ReqTrace, RowOutcome};
use crate::sim::stats::metrics::{count, group};

const LEGEND: &str = "legend: h L1 hit  ~ merged, waiting  . L1 miss queue  > crossbar  = L2  q DRAM queue  # DRAM service  < reply";

pub fn inspector(g: &Gpu, core: u16, warp: u16) -> Result<View, String> {
    let sm = g
        .sms
        .get(core as usize)
        .ok_or_else(|| format!("core {core} does not exist (0..{})", g.sms.len() - 1))?;
    let w = sm.exec.warps.get(warp as usize).ok_or_else(|| {
        format!("warp slot {warp} does not exist on core {core} (0..{})", sm.exec.warps.len() - 1)
    })?;
    let mut v = View::new(format!("Warp {core}.{warp} — inspector (cycle {})", group(g.cycle)));
    if sm.exec.valid & (1 << warp) == 0 {
        v = v.line(vec![span("no warp in this slot now", Tone::Dim)]);
    } else {
        // Stores waiting for their acknowledgements (`l2.write_acks`) hold an exited warp's slot.
        let stores = if w.stores_out > 0 {
            format!("  stores unacknowledged {}", w.stores_out)
        } else {
            String::new()
        };
        v = v.line(vec![plain(format!(
            "CTA {}  GTO priority {}  state {}  next {:#06x} {}  loads out {}{stores}  launched at {}",
            w.cta,
            sm.issue.priority[warp as usize],
            sm.stall_reason(warp as usize, g.cycle).name(),
            w.next.pc,
            super::warps::warp_op_name(w),
            w.loads_out,
            group(w.launched)
        ))]);
    }
    let mut active: Vec<&LoadTrack> = w.loads.iter().filter(|l| l.active && l.requests > 0).collect();
    active.sort_by_key(|l| l.seq);
    for l in active {
        // Lines the LD/ST unit has not sent yet (the load is queued there or replaying).
        v = load(v, g, l, true, &sm.ldst.unsent(warp, l.seq));
    }
    if w.last_load.requests > 0 {
        v = load(v, g, &w.last_load, false, &[]);
    }
    if v.blocks.len() <= 1 {
        v = v.line(vec![span("no global loads yet", Tone::Dim)]);
    }
    Ok(v)
}

fn outcome(o: CacheOutcome) -> &'static str {
    match o {
        CacheOutcome::None => "-",
        CacheOutcome::Hit => "hit",
        CacheOutcome::Miss => "miss",
        CacheOutcome::Merged => "merged",
        CacheOutcome::Write => "write",
    }
}

fn row_outcome(o: RowOutcome) -> (&'static str, Tone) {
    match o {
        RowOutcome::None => ("-", Tone::Dim),
        RowOutcome::Hit => ("hit", Tone::Good),
        RowOutcome::Miss => ("miss", Tone::Warn),
        RowOutcome::Conflict => ("conf", Tone::Bad),
    }
}

fn stamp(t: u64) -> String {
    if t == 0 { "-".into() } else { group(t) }
}

fn load(mut v: View, g: &Gpu, l: &LoadTrack, in_flight: bool, unsent: &[(u64, u32)]) -> View {
    let div = if l.returned > 0 { l.last - l.first } else { 0 };
    let head = if in_flight {
        format!(
            "load #{} pc {:#06x} issued {}: {} of {} back{}",
            l.seq,
            l.pc,
            group(l.issued),
            l.returned,
            count(u64::from(l.requests), "request"),
            if l.returned > 0 {
                format!(", first at {}, spread so far {}", group(l.first), group(div))
            } else {
                String::new()
            }
        )
    } else {
        format!(
            "last load #{} pc {:#06x} issued {}: {}, first back {}, last {} → latency {}, divergence {}",
            l.seq,
            l.pc,
            group(l.issued),
            count(u64::from(l.requests), "request"),
            group(l.first),
            group(l.last),
            group(l.last - l.issued),
            group(div)
        )
    };
    v = v.line(vec![span(head, Tone::Accent)]);
    if l.occluded {
        let when = if l.all_sent {
            format!("; it held the LD/ST unit for cycles {}..{}", group(l.ldst_start), group(l.ldst_end))
        } else {
            String::new()
        };
        v = v.line(vec![span(
            format!(
                "  OCCLUDED: it needed more new MSHRs than were free when it reached the LD/ST unit{when}"
            ),
            Tone::Bad,
        )]);
    }
    let mut t = Table {
        header: ["#", "lanes", "line", "L1", "L2", "ch/bank/row", "row", "DRAM done", "back", "now at"]
            .map(String::from)
            .to_vec(),
        right: vec![0, 1, 7, 8],
        ..Table::default()
    };
    let mut bars = Vec::new();
    let mut to = l.issued + 1;
    for (i, r) in l.reqs.iter().enumerate() {
        // Requests still out: read their live copy.
        let (trace, loc, place) = if r.trace.done == 0 {
            match locate_request(g, r.id) {
                Some((p, live)) => (live.trace, live.loc, p.describe()),
                None => (r.trace, r.loc, "-".into()),
            }
        } else {
            (r.trace, r.loc, "returned".into())
        };
        let went_to_dram = trace.dram_in != 0 || trace.row != RowOutcome::None;
        let (row_text, row_tone) = row_outcome(trace.row);
        let l2 = if trace.l2_in == 0 && trace.l2 == CacheOutcome::None {
            "-".to_string()
        } else {
            let slice = loc.channel * g.config.l2.slices_per_channel + loc.slice;
            format!("{slice}:{}", outcome(trace.l2))
        };
        t.rows.push(vec![
            plain(i.to_string()),
            plain(r.lanes.count_ones().to_string()),
            plain(format!("{:#x}", r.addr)),
            if trace.bypassed {
                span("bypass", Tone::Warn)
            } else {
                span(outcome(trace.l1), if trace.l1 == CacheOutcome::Hit { Tone::Good } else { Tone::Normal })
            },
            plain(l2),
            plain(if went_to_dram {
                format!("{}/{}/{}", loc.channel, loc.bank, loc.row)
            } else {
                "-".into()
            }),
            span(row_text, row_tone),
            plain(stamp(trace.dram_done)),
            span(stamp(trace.done), if trace.done == 0 { Tone::Warn } else { Tone::Normal }),
            span(place, if trace.done == 0 { Tone::Warn } else { Tone::Dim }),
        ]);
        let end = if trace.done == 0 { g.cycle } else { trace.done };
        to = to.max(end);
        bars.push(Bar {
            label: format!("#{i:<2}"),
            segments: segments(&trace, r.trace.created, end),
            note: if trace.done == 0 { "…".into() } else { group(trace.done) },
        });
    }
    for (k, &(line, lanes)) in unsent.iter().enumerate() {
        let i = l.reqs.len() + k;
        let dash = || span("-", Tone::Dim);
        t.rows.push(vec![
            plain(i.to_string()),
            plain(lanes.count_ones().to_string()),
            plain(format!("{line:#x}")),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            dash(),
            span("LD/ST unit, not sent", Tone::Warn),
        ]);
    }
    v = v.block(Block::Table(t));
    if bars.is_empty() {
        return v;
    }
    v.block(Block::Timeline(Timeline { from: l.issued, to, bars, legend: LEGEND.into() }))
}

/// The stages of one request's journey as timeline segments.
fn segments(t: &ReqTrace, created: u64, end: u64) -> Vec<Segment> {
    let seg = |from: u64, to: u64, fill: char, tone: Tone| Segment { from, to: to.max(from + 1), fill, tone };
    match t.l1 {
        CacheOutcome::Hit => return vec![seg(created, end, 'h', Tone::Good)],
        CacheOutcome::Merged => return vec![seg(created, end, '~', Tone::Dim)],
        _ => {}
    }
    // Stage boundaries in order; a stage ends where the next known one starts.
    let marks: [(u64, char, Tone); 6] = [
        (created, '.', Tone::Dim),
        (t.icnt_in, '>', Tone::Normal),
        (t.l2_in, '=', Tone::Accent),
        (t.dram_in, 'q', Tone::Warn),
        (t.dram_sched, '#', Tone::Bad),
        (t.dram_done, '=', Tone::Accent),
    ];
    let mut known: Vec<(u64, char, Tone)> =
        marks.into_iter().filter(|(c, _, _)| *c != 0 || c == &created).collect();
    if t.l2_out != 0 {
        known.push((t.l2_out, '<', Tone::Normal));
    }
    known.sort_by_key(|m| m.0);
    let mut out = Vec::new();
    for (i, &(from, fill, tone)) in known.iter().enumerate() {
        let to = known.get(i + 1).map_or(end, |m| m.0);
        if to > from {
            out.push(seg(from, to, fill, tone));
        }
    }
    out
}
