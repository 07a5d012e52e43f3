//! `repro SPEC --out DIR --verify N`: runs N of a study's stored runs again and compares each
//! report with the stored one. A stored run records a digest of its machine config, not of the
//! simulator that made it, so a report regenerated from stored runs after the simulator changed
//! would show the old simulator's numbers without a word; this is the check that they are
//! still today's. The runs are deterministic, so "the same" means every report key equal but
//! the host's timing (`sim.wall_seconds`, `sim.cycles_per_second`).

use super::sweep::{Sweep, stored_reports};
use anyhow::{Result, bail};
use indicatif::ProgressBar;
use rayon::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// Report keys that measure the host, not the simulated machine.
const HOST_TIMING: [&str; 2] = ["wall_seconds", "cycles_per_second"];

/// Differences listed per run at most.
const SHOWN: usize = 5;

/// One stored run run again.
pub struct Verdict {
    pub key: String,
    /// The report keys whose values differ (`path: stored → now`), at most [`SHOWN`]; empty
    /// when the run reproduced.
    pub differences: Vec<String>,
    /// Report keys on one side only (`+path`: only today's report has it, `-path`: only the
    /// stored one), which a change of the report's keys leaves and no result does; not
    /// compared.
    pub one_sided: Vec<String>,
}

/// Runs `n` (at least 1) of the stored runs of `results` again — spread evenly over the stored
/// points in point order, so the same file and `n` pick the same runs — and compares their
/// reports. Every stored run is first checked to be this sweep's (its machine and limits).
pub fn verify(sweep: &Sweep, results: &Path, n: usize, progress: &ProgressBar) -> Result<Vec<Verdict>> {
    let stored: Vec<(usize, Value)> =
        stored_reports(sweep, results)?.into_iter().enumerate().filter_map(|(i, r)| Some((i, r?))).collect();
    if stored.is_empty() {
        bail!("{}: holds no finished run of this study to verify", results.display());
    }
    let n = n.min(stored.len());
    let picked: Vec<&(usize, Value)> = (0..n).map(|k| &stored[k * stored.len() / n]).collect();
    progress.set_length(picked.len() as u64);
    picked
        .par_iter()
        .map(|(i, then)| {
            let p = &sweep.points[*i];
            let (_, report) = sweep.simulate(p)?;
            // Both sides go through the same text and parser, so equal numbers read equal.
            let now: Value = serde_json::from_str(&serde_json::to_string(&report)?)?;
            let mut v = Verdict { key: p.key.clone(), differences: Vec::new(), one_sided: Vec::new() };
            diff(then, &now, &mut String::new(), &mut v);
            progress.inc(1);
            Ok(v)
        })
        .collect()
}

/// What `repro --verify` prints: `same` or `DIFFERENT` and the differing keys per run, the
/// keys on one side only, and a summary line; with whether any run differs.
pub fn summary(results: &Path, verdicts: &[Verdict]) -> (String, bool) {
    let mut text = String::new();
    for v in verdicts {
        if v.differences.is_empty() {
            text.push_str(&format!("same       {}\n", v.key));
        } else {
            text.push_str(&format!("DIFFERENT  {}\n", v.key));
            for d in &v.differences {
                text.push_str(&format!("           {d}\n"));
            }
        }
    }
    let one_sided: BTreeSet<&String> = verdicts.iter().flat_map(|v| &v.one_sided).collect();
    if !one_sided.is_empty() {
        let keys = one_sided.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ");
        text.push_str(&format!("report keys on one side only (+ today's, - stored), not compared: {keys}\n"));
    }
    let differ = verdicts.iter().filter(|v| !v.differences.is_empty()).count();
    text.push_str(&format!(
        "{}: {} of {} stored runs run again give the same report{}\n",
        results.display(),
        verdicts.len() - differ,
        verdicts.len(),
        if differ > 0 {
            "; the others were made by another simulator: run the study again into a new --out"
        } else {
            ""
        }
    ));
    (text, differ > 0)
}

/// Collects into `v` the paths under which `stored` and `now` differ, but for the host's
/// timing, and the keys only one of them has.
fn diff(stored: &Value, now: &Value, path: &mut String, v: &mut Verdict) {
    if v.differences.len() == SHOWN {
        return;
    }
    match (stored, now) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                if path == "sim" && HOST_TIMING.contains(&k.as_str()) {
                    continue;
                }
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => diff(x, y, path, v),
                    (None, _) => v.one_sided.push(format!("+{path}")),
                    (_, None) => v.one_sided.push(format!("-{path}")),
                }
                path.truncate(len);
            }
        }
        (a, b) if a != b => {
            let shown = |v: &Value| {
                let s = v.to_string();
                if s.chars().count() > 60 {
                    format!("{}…", s.chars().take(60).collect::<String>())
                } else {
                    s
                }
            };
            v.differences.push(format!("{path}: stored {} → now {}", shown(a), shown(b)));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(stored: &Value, now: &Value) -> Verdict {
        let mut v = Verdict { key: String::new(), differences: Vec::new(), one_sided: Vec::new() };
        diff(stored, now, &mut String::new(), &mut v);
        v
    }

    /// Nested keys are named by their path; the host's timing under `sim` is not a difference,
    /// the same key elsewhere is; a key on one side only is listed apart, not compared.
    #[test]
    fn differences_are_named_by_path_and_host_timing_is_left_out() {
        let stored = serde_json::json!({
            "cycles": 100, "sim": {"wall_seconds": 1.5, "requests": 7},
            "l1": {"hit_rate": 0.5, "wall_seconds": 2, "mpli": [1, 2]}, "gone": 1,
        });
        let now = serde_json::json!({
            "cycles": 100, "sim": {"wall_seconds": 9.0, "requests": 8, "max_instructions": 0},
            "l1": {"hit_rate": 0.25, "wall_seconds": 3, "mpli": [1, 3]},
        });
        let v = compare(&stored, &now);
        assert_eq!(
            v.differences,
            [
                "l1.hit_rate: stored 0.5 → now 0.25",
                "l1.mpli: stored [1,2] → now [1,3]",
                "l1.wall_seconds: stored 2 → now 3",
                "sim.requests: stored 7 → now 8",
            ]
        );
        assert_eq!(v.one_sided, ["-gone", "+sim.max_instructions"]);
        let same = compare(&stored, &stored);
        assert!(same.differences.is_empty() && same.one_sided.is_empty());
    }
}
