//! Ctrl-C: the first asks every running simulation to stop at its next slice
//! ([`super::run::WATCH_SLICE`] cycles) and the command to wind up cleanly — `run` writes its
//! report so far as `interrupted`, `sweep` and `repro` keep the points that finished; a second
//! quits at once with 130, the shell's code for a process ended by SIGINT.
//!
//! signal-hook does the signal handling: it is already in the build (crossterm's), and its
//! `flag` module is exactly this pattern, a flag set by the first signal and an exit on the
//! second, without a handler thread of our own.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first Ctrl-C (or by [`request`]).
static REQUESTED: std::sync::LazyLock<Arc<AtomicBool>> =
    std::sync::LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// The exit code of a command stopped by Ctrl-C.
pub const EXIT_INTERRUPTED: i32 = 130;

/// Installs the handler: the first SIGINT sets the flag, a second exits with
/// [`EXIT_INTERRUPTED`] at once.
pub fn install() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use signal_hook::consts::SIGINT;
        // Registered first, so it sees the flag as the earlier signal left it: set means this
        // is the second.
        signal_hook::flag::register_conditional_shutdown(SIGINT, EXIT_INTERRUPTED, Arc::clone(&REQUESTED))?;
        signal_hook::flag::register(SIGINT, Arc::clone(&REQUESTED))?;
    }
    Ok(())
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
