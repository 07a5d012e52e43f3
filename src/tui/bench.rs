//! `warpscope bench --debugger`: the debugger's speed, measured the way a user meets it.
//!
//! - `continue` with breakpoints set on frequent events that never match, versus a headless
//!   run (both numbers go in docs/speed.md).
//! - Rendering a frame of each layout into an off-screen 160×48 buffer.
//! - Jumping back in time to cycles spread over the history.

use super::{App, Layout, Theme, draw};
use crate::config::Config;
use crate::debug::{Outcome, Session};
use crate::sim::stats::metrics::{count, decimal, group};
use crate::workload::Workload;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

pub fn debugger(
    config: Config,
    workload: Arc<Workload>,
    cycles: u64,
    headless_cps: f64,
) -> anyhow::Result<String> {
    let mut s = Session::new(config, workload).map_err(anyhow::Error::msg)?;
    // Frequent events (every DRAM row miss, every load) checked against filters that never match.
    // (Comparisons past the machine's largest bank and core: an equality with an id the machine
    // does not have is refused before the run, as it should be.)
    for cmd in ["break row-miss bank>999", "break load-done core>9999", "break occlusion core>9999"] {
        s.execute(cmd).map_err(anyhow::Error::msg)?;
    }
    let target = cycles / 2;
    let t = Instant::now();
    match s.execute(&format!("until {target}")).map_err(anyhow::Error::msg)? {
        Outcome::Running => while s.advance(u64::MAX).is_none() {},
        other => anyhow::bail!("until: {other:?}"),
    }
    let cps = s.gpu.cycle as f64 / t.elapsed().as_secs_f64().max(1e-9);
    let mut app = App::new(s, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: true });
    let mut frames = String::new();
    for (name, _) in super::layout::BUILTIN {
        app.load_layout(name);
        let mut term = Terminal::new(TestBackend::new(160, 48))?;
        let n = 50;
        let t = Instant::now();
        for _ in 0..n {
            term.draw(|f| draw(f, &mut app))?;
        }
        frames.push_str(&format!("  {name:<8} {:.2} ms\n", t.elapsed().as_secs_f64() * 1000.0 / n as f64));
    }
    let mut worst = 0f64;
    let mut total = 0f64;
    let jumps = [0.1, 0.9, 0.35, 0.6, 0.02, 0.75];
    for frac in jumps {
        let c = (target as f64 * frac) as u64;
        let t = Instant::now();
        app.session.goto(c);
        let dt = t.elapsed().as_secs_f64();
        worst = worst.max(dt);
        total += dt;
    }
    Ok(format!(
        "debugger: continue with 3 breakpoints on frequent events: {} cycles/s ({:.0}% of headless {})\n\
         TUI frame (160×48, off-screen), per layout:\n{frames}\
         time travel within cycles 0..{}: {} jumps, mean {:.0} ms, worst {:.0} ms ({} every {} cycles)\n",
        decimal(cps, 0),
        100.0 * cps / headless_cps.max(1.0),
        decimal(headless_cps, 0),
        group(target),
        jumps.len(),
        1000.0 * total / jumps.len() as f64,
        1000.0 * worst,
        count(app.session.travel.len() as u64, "snapshot"),
        group(app.session.travel.interval),
    ))
}
