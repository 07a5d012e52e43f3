//! Report keys as people read them: the metrics `run`, `compare` and the debugger's stats pane
//! show by default, how values are formatted, and their units.

use super::keys::{self, Unit};
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

/// Formats a value for a human table: shares as percentages, every other number with
/// thousands separators and the decimals its unit keeps at every magnitude (`1,298.4` and
/// `290.1` core cycles, never `1,298` beside `290.093`).
pub fn format(key: &str, v: &Value) -> String {
    let unit = keys::unit(key);
    match v {
        Value::Number(n) if n.is_u64() || n.is_i64() => {
            n.as_u64().map_or_else(|| group(n.as_i64().unwrap_or(0)), group)
        }
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            if unit == Unit::Percent { format!("{:.1}%", f * 100.0) } else { decimal(f, unit.decimals()) }
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `v` with thousands separators and `decimals` decimals (`2,500,000`, `0.250`, `-1,500.5`).
pub fn decimal(v: f64, decimals: usize) -> String {
    let s = std::format!("{:.*}", decimals, v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let grouped = group(int.parse::<i64>().unwrap_or(i64::MAX));
    let sign = if v < 0.0 && s.chars().any(|c| c.is_ascii_digit() && c != '0') { "-" } else { "" };
    match frac {
        Some(f) => std::format!("{sign}{grouped}.{f}"),
        None => std::format!("{sign}{grouped}"),
    }
}

/// Whether a metric is a share of 1 (shown as a percentage).
pub fn is_share(key: &str) -> bool {
    keys::unit(key) == Unit::Percent
}

/// A metric's unit as tables and chart axes name it (`docs/report-keys.md`).
pub fn unit(key: &str) -> &'static str {
    keys::unit(key).name()
}

/// A metric's value as a chart plots it: shares as percentages.
pub fn plotted(key: &str, v: f64) -> f64 {
    if is_share(key) { v * 100.0 } else { v }
}

/// `n` of `noun` for people: thousands separated, the noun in the plural unless `n` is 1
/// (`1 request`, `6,055 requests`).
pub fn count(n: u64, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    std::format!("{} {noun}{s}", group(n))
}

/// `n` with thousands separators (any integer: a cycle, a count, a signed difference).
pub fn group(n: impl Into<i128>) -> String {
    let n: i128 = n.into();
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
        assert_eq!(
            (count(1, "request"), count(6055, "request"), count(0, "point")),
            ("1 request".into(), "6,055 requests".into(), "0 points".into())
        );
        assert_eq!(format("cycles", &serde_json::json!(1234567)), "1,234,567");
        assert_eq!(format("sim.cycles_per_second", &serde_json::json!(250123.7)), "250,124");
        // The same decimals at every magnitude.
        assert_eq!(format("memory.avg_latency", &serde_json::json!(1298.44)), "1,298.4");
        assert_eq!(format("memory.avg_latency", &serde_json::json!(290.093)), "290.1");
        assert_eq!(format("memory.requests_per_load", &serde_json::json!(1234.5)), "1,234.500");
        assert_eq!(
            (decimal(-1500.5, 1), decimal(-0.0001, 1), decimal(0.25, 2)),
            ("-1,500.5".into(), "0.0".into(), "0.25".into())
        );
        assert_eq!(format("dram.prefetch.accuracy", &serde_json::json!(0.026)), "2.6%");
    }

    #[test]
    fn units_for_chart_axes() {
        assert_eq!((unit("l1.hit_rate"), plotted("l1.hit_rate", 0.25)), ("%", 25.0));
        assert_eq!((unit("cycles"), plotted("cycles", 7.0)), ("core cycles", 7.0));
        assert_eq!(unit("memory.avg_latency"), "core cycles");
        assert_eq!(unit("memory.occlusion_cycles_per_load"), "core cycles");
        assert_eq!(unit("dram.read_latency_mean"), "DRAM cycles");
        assert_eq!(unit("ipc"), "per core cycle");
        assert_eq!(unit("core.occlusions"), "count");
    }
}
