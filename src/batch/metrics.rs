//! Metric names given on the command line or in a grid, checked against what the machines
//! report before anything runs.

use crate::config::Config;
use crate::sim::Gpu;
use crate::sim::stats::metrics::keys;
use crate::sim::stats::report::Report;
use crate::workload::Workload;
use std::sync::Arc;

/// Checks metric names before anything runs: each must be a key of the report of at least one
/// of `machines`. A report's keys are fixed by the machine's shape, not by how far it ran, so
/// a machine that is built but not run shows them; machines are built one at a time and only
/// until every name is found (usually the first is enough). The error lists the valid keys.
pub fn check<'a>(
    names: &[String],
    machines: impl IntoIterator<Item = (&'a Config, Arc<Workload>)>,
) -> Result<(), String> {
    let mut known: Vec<String> = Vec::new();
    for (config, workload) in machines {
        if names.iter().all(|n| known.contains(n)) {
            return Ok(());
        }
        let gpu = Gpu::new(Arc::new(config.clone()), workload)?;
        for k in keys(&Report::new(&gpu, 0.0)) {
            if !known.contains(&k) {
                known.push(k);
            }
        }
    }
    match names.iter().find(|n| !known.contains(n)) {
        Some(bad) if !known.is_empty() => {
            Err(format!("unknown metric `{bad}`; valid metrics: {}", known.join(", ")))
        }
        _ => Ok(()),
    }
}
