//! Report keys as people read them: the metrics `run`, `compare` and the debugger's stats pane
//! show by default, how values are formatted, and their units.

use super::report::Report;
use serde_json::Value;

/// Default rows: the seed-000 style table plus the basics.
pub const SUMMARY: &[&str] = &[
    "cycles",
    "warp_instructions",
    "ipc",
    "l1.hit_rate",
    "l2.hit_rate",
    "dram.row_hit_rate",
    "dram.bandwidth_utilization",
    "dram.bandwidth_efficiency",
    "dram.bank_level_parallelism",
    "dram.write_intensity",
    "dram.read_latency_mean",
    "memory.avg_latency",
    "memory.requests_per_load",
    "memory.divergent_load_fraction",
    "memory.effective_latency_mean",
    "memory.latency_divergence_mean",
    "memory.warpgroup_service_mean",
    "memory.channels_per_load_mean",
    "memory.banks_per_load_mean",
    "core.occlusions",
    "memory.occlusion_cycles_per_load",
    "sim.cycles_per_second",
];

/// Looks a dotted key up in a report.
pub fn value(report: &Report, key: &str) -> Option<Value> {
    report.flat().into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Every dotted key a report has (for error messages).
pub fn keys(report: &Report) -> Vec<String> {
    report.flat().into_iter().map(|(k, _)| k).collect()
}

/// Formats a value for a human table: rates as percentages, floats with 3 significant
/// decimals, integers with thousands separators.
pub fn format(key: &str, v: &Value) -> String {
    let pct = is_share(key);
    match v {
        Value::Number(n) if n.is_u64() || n.is_i64() => group(n.as_i64().unwrap_or(i64::MAX)),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            if pct {
                format!("{:.1}%", f * 100.0)
            } else if f.abs() >= 1000.0 {
                group(f.round() as i64)
            } else {
                format!("{f:.3}")
            }
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a metric is a share of 1 (shown as a percentage).
pub fn is_share(key: &str) -> bool {
    let parent = key.rsplit('.').nth(1).unwrap_or("");
    ["_rate", "utilization", "efficiency", "fraction", "intensity", "accuracy"]
        .iter()
        .any(|s| key.ends_with(s))
        || parent.ends_with("_share")
        || parent.ends_with("_occupancy")
}

/// A metric's unit, for chart axes (README "Report keys": latencies are core cycles except
/// the controller's `dram.read_latency_*`, which are DRAM cycles).
pub fn unit(key: &str) -> &'static str {
    let last = key.rsplit('.').next().unwrap_or(key);
    if is_share(key) {
        "%"
    } else if key.starts_with("dram.read_latency") {
        "DRAM cycles"
    } else if key == "sim.cycles_per_second" {
        "core cycles / s"
    } else if key == "sim.wall_seconds" {
        "s"
    } else if key == "ipc" || key == "warp_ipc" {
        "instructions / core cycle"
    } else if last.contains("latency")
        || last == "cycles"
        || key.ends_with("_cycles")
        || key.contains("cycles_per")
        || key.ends_with("service_mean")
    {
        "core cycles"
    } else if last == "mpki" {
        "misses / 1000 warp instructions"
    } else {
        "count"
    }
}

/// A metric's value as a chart plots it: shares as percentages.
pub fn plotted(key: &str, v: f64) -> f64 {
    if is_share(key) { v * 100.0 } else { v }
}

/// `n` with thousands separators.
pub fn group(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_rates_floats_and_counts() {
        assert_eq!(format("l1.hit_rate", &serde_json::json!(0.4567)), "45.7%");
        assert_eq!(format("core.stall_share.str_mem", &serde_json::json!(0.25)), "25.0%");
        assert_eq!(format("l2.access_queue_occupancy.full", &serde_json::json!(0.5)), "50.0%");
        assert_eq!(format("ipc", &serde_json::json!(12.34567)), "12.346");
        assert_eq!(format("cycles", &serde_json::json!(1234567)), "1,234,567");
        assert_eq!(format("sim.cycles_per_second", &serde_json::json!(250123.7)), "250,124");
        assert_eq!(format("dram.prefetch.accuracy", &serde_json::json!(0.026)), "2.6%");
    }

    #[test]
    fn units_for_chart_axes() {
        assert_eq!((unit("l1.hit_rate"), plotted("l1.hit_rate", 0.25)), ("%", 25.0));
        assert_eq!((unit("cycles"), plotted("cycles", 7.0)), ("core cycles", 7.0));
        assert_eq!(unit("memory.avg_latency"), "core cycles");
        assert_eq!(unit("memory.occlusion_cycles_per_load"), "core cycles");
        assert_eq!(unit("dram.read_latency_mean"), "DRAM cycles");
        assert_eq!(unit("ipc"), "instructions / core cycle");
        assert_eq!(unit("core.occlusions"), "count");
    }
}
