//! Headline metrics so far, and their history as sparklines (IPC, DRAM bandwidth, MSHR use).

use super::super::history::Samples;
use super::{Block, Spark, Table, View, plain};
use crate::sim::Gpu;
use crate::sim::stats::metrics::{SUMMARY, format, group, unit, value};
use crate::sim::stats::report::Report;

pub fn stats(gpu: &Gpu, samples: &Samples) -> View {
    let report = Report::new(gpu, 0.0);
    let mut t = Table {
        header: vec!["metric".into(), "unit".into(), "value".into()],
        right: vec![2],
        // Narrow, the unit goes first; the metric's name is never cut.
        drop: vec![1],
        ..Table::default()
    };
    for k in SUMMARY.iter().filter(|k| !k.starts_with("sim.")) {
        if let Some(v) = value(&report, k) {
            t.rows.push(vec![plain(*k), plain(unit(k)), plain(format(k, &v))]);
            t.keys.push(super::RowKey::None);
        }
    }
    let (ipc, bw, mshr) = samples.series();
    let last = |v: &[f64], unit: &str| v.last().map_or("-".to_string(), |x| format!("{x:.1}{unit}"));
    View::new(format!("Statistics at cycle {}", group(gpu.cycle)))
        .block(Block::Sparks(vec![
            Spark { label: "IPC".into(), now: last(&ipc, ""), values: ipc },
            Spark { label: "DRAM bandwidth %".into(), now: last(&bw, "%"), values: bw },
            Spark { label: "L1 MSHRs used %".into(), now: last(&mshr, "%"), values: mshr },
        ]))
        .block(Block::Table(t))
}
