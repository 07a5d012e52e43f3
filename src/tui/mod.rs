//! The terminal UI (ratatui + crossterm). The data model is the debug session; this layer
//! only draws views and turns keys into commands.
//!
//! The terminal is restored on every exit path, including panics (a panic hook restores it
//! before the message is printed). While a command runs, the machine advances in chunks sized
//! to about 25 ms, the screen redraws at most every 50 ms, and Esc / Ctrl-C interrupt.

mod app;
pub mod bench;
pub mod fit;
mod help;
mod keymap;
pub mod layout;
pub mod pane;
pub mod reference;
mod render;
pub mod screenshot;
mod split;
mod theme;

pub use app::App;
pub use help::help_lines;
pub use layout::Layout;
pub use render::draw;
pub use theme::Theme;

use crate::debug::Session;
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event as TermEvent, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Stdout, stdout};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Options of `warpscope tui`.
#[derive(Clone, Debug, Default)]
pub struct TuiOptions {
    pub mouse: bool,
    /// Layout name or file.
    pub layout: Option<String>,
    pub layouts_dir: PathBuf,
    /// Debugger commands to run before the first frame (`-x`, `--script`).
    pub commands: Vec<String>,
}

/// The app for `session` with the layout `opts` names (a broken layout file is reported on
/// the message line and the default used) and `opts.commands` run: the first that fails stops
/// the script, its error shown, the machine left where the commands before it put it.
pub fn prepared_app(session: Session, opts: &TuiOptions, theme: Theme) -> (App, Result<(), String>) {
    let (layout, layout_error) = match &opts.layout {
        Some(name) => match Layout::load(name, &opts.layouts_dir) {
            Ok(l) => (l, None),
            Err(e) => (Layout::default_layout(), Some(format!("error: {e} (using the default layout)"))),
        },
        None => (Layout::default_layout(), None),
    };
    let mut app = App::new(session, layout, opts.layouts_dir.clone(), theme);
    if let Some(e) = layout_error {
        app.message = e;
        app.error = true;
    }
    let ran = app.run_script(&opts.commands);
    (app, ran)
}

/// Puts the terminal back the way it was.
fn restore(mouse: bool) {
    let _ = disable_raw_mode();
    if mouse {
        let _ = execute!(stdout(), DisableMouseCapture);
    }
    let _ = execute!(stdout(), LeaveAlternateScreen, crossterm::cursor::Show);
}

/// Restores the terminal before the previous panic hook prints the panic.
fn install_panic_hook(mouse: bool) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore(mouse);
        previous(info);
    }));
}

/// Runs the TUI until the user quits.
pub fn run(session: Session, opts: TuiOptions) -> anyhow::Result<()> {
    // A failing command is on the message line; the session opens where the others left it.
    let (mut app, _) = prepared_app(session, &opts, Theme::from_env());
    install_panic_hook(opts.mouse);
    enable_raw_mode()?;
    let mut out = stdout();
    execute!(out, EnterAlternateScreen)?;
    if opts.mouse {
        execute!(out, EnableMouseCapture)?;
    }
    let result = event_loop(&mut Terminal::new(CrosstermBackend::new(out))?, &mut app);
    restore(opts.mouse);
    result
}

fn event_loop(term: &mut Terminal<CrosstermBackend<Stdout>>, app: &mut App) -> anyhow::Result<()> {
    // A test hook: panic after N frames to check that the terminal is restored.
    let panic_after: Option<u64> =
        std::env::var("WARPSCOPE_TEST_PANIC_AFTER_FRAMES").ok().and_then(|v| v.parse().ok());
    let mut frames = 0u64;
    let mut chunk: u64 = 256;
    let mut last_draw = Instant::now() - Duration::from_secs(1);
    let mut dirty = true;
    while !app.quit {
        if app.session.is_running() {
            let t = Instant::now();
            if let Some(msg) = app.session.advance(chunk) {
                app.stopped(msg);
                dirty = true;
            }
            // Aim for ~25 ms of simulation per chunk.
            let took = t.elapsed().as_secs_f64().max(1e-6);
            chunk = ((chunk as f64 * 0.025 / took) as u64).clamp(16, 1 << 20);
            if last_draw.elapsed() >= Duration::from_millis(50) {
                dirty = true;
            }
        }
        if dirty {
            app.prepare();
            term.draw(|f| draw(f, app))?;
            frames += 1;
            last_draw = Instant::now();
            dirty = false;
            if panic_after.is_some_and(|n| frames >= n) {
                panic!("test panic requested by WARPSCOPE_TEST_PANIC_AFTER_FRAMES");
            }
        }
        let timeout = if app.session.is_running() { Duration::ZERO } else { Duration::from_millis(250) };
        while event::poll(timeout)? {
            match event::read()? {
                TermEvent::Key(k) if k.kind != KeyEventKind::Release => app.key(k),
                TermEvent::Mouse(m) => app.mouse(m),
                TermEvent::Resize(..) => {}
                _ => continue,
            }
            dirty = true;
            if !app.session.is_running() || app.quit {
                break;
            }
        }
    }
    Ok(())
}
