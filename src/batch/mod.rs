//! Headless front ends: `run`, `compare`, `dram`, `bench`, and their table/file output.

pub mod compare;
pub mod dram;
pub mod metrics;
pub mod output;
pub mod run;
pub mod table;
