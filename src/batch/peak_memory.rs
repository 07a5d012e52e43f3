//! This process's peak memory (Linux: `VmHWM` in `/proc/self/status`), and resetting the peak
//! so that one run of several in a process can be measured on its own (writing `5` to
//! `/proc/self/clear_refs` sets `VmHWM` to the current resident size, Linux ≥ 4.0,
//! `Documentation/filesystems/proc.rst`). Elsewhere both are unavailable.

/// Peak resident set size so far, MB.
pub fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Starts a new peak at the current size; whether the system allowed it.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
