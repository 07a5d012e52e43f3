//! Headless front ends: `run`, `compare`, `diff`, `sweep`, `repro` (and its `--verify`), `dram`, `bench`,
//! `trace export`, and their table/file and SVG chart output.

pub mod chart;
pub mod compare;
pub mod diff;
pub mod dram;
pub mod dram_bench;
pub mod export;
pub mod interrupt;
pub mod jobs;
pub mod metrics;
pub mod peak_memory;
pub mod peer_log;
pub mod repro;
pub mod repro_changes;
pub mod run;
pub mod speedup;
pub mod sweep;
pub mod table;
pub mod validate;
pub mod verify;
