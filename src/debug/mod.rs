//! The debugger, UI-free: a [`session::Session`] owns the machine, breakpoints, time travel
//! and the command language; [`views`] describe what panes show as plain data, reading the
//! session through a [`scene::Scene`]. The TUI (`src/tui`) and `warpscope batch` both drive
//! it.

pub mod blame;
pub mod breakpoint;
pub mod checkpoint;
pub mod command;
pub mod delay;
pub mod diverge;
pub mod expr;
pub mod focus;
pub mod history;
pub mod interference;
pub mod recording;
pub mod scene;
pub mod session;
pub mod state;
pub mod timeline;
pub mod timetravel;
pub mod views;

pub use session::{Limit, Outcome, Session, Stop};
