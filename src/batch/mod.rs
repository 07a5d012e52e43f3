//! Headless front ends: `run`, `compare`, `bench`, and their table/file output.

pub mod compare;
pub mod metrics;
pub mod output;
pub mod run;
pub mod table;
