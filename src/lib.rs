//! warpscope: a cycle-level GPU memory-system simulator you can debug.
//!
//! Layers, each using only those below it (see `DESIGN.md` of the project):
//! `batch` (run / compare / bench) → `sim` (the machine) → `config` and `workload`; `output`
//! (files written atomically) sits beside `workload`, so the debugger can write files too.

pub mod batch;
pub mod config;
pub mod debug;
pub mod output;
pub mod sim;
pub mod tui;
pub mod workload;

/// The test suite's table of how many cases each generative test runs
/// (`tests/common/cases.rs`), for the property tests among the unit tests.
#[cfg(test)]
#[allow(dead_code)]
mod cases {
    include!("../tests/common/cases.rs");
}
