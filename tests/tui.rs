//! The terminal UI: every layout and popup rendered through ratatui's TestBackend and compared
//! with reviewed snapshots; the real binary driven in a pseudo-terminal (step, break on
//! occlusion, continue, inspect a warp, step back, quit); the terminal restored after a panic.

mod common;

use common::{small_config, workload};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use warpscope::debug::views::{self, PaneKind, Param, VIEWS};
use warpscope::debug::{Outcome, Session};
use warpscope::tui::pane::lay_out;
use warpscope::tui::{App, Layout, Theme, draw, fit};

const TINY: &str = include_str!("fixtures/tiny.ron");
const BIN: &str = env!("CARGO_BIN_EXE_warpscope");

/// An app stopped at the first memory occlusion of the small machine.
fn app_at_occlusion() -> App {
    let session = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    let mut app =
        App::new(session, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    app.run_line("break occlusion");
    run_to_stop(&mut app, "continue");
    app
}

/// Runs a moving command line the way the event loop does, until it stops.
fn run_to_stop(app: &mut App, line: &str) {
    app.run_line(line);
    while app.session.is_running() {
        if let Some(msg) = app.session.advance(10_000) {
            app.stopped(msg);
        }
    }
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    // As the event loop does before it draws.
    app.prepare();
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| draw(f, app)).unwrap();
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

const SIZES: [(u16, u16); 3] = [(80, 24), (100, 30), (160, 48)];
const LAYOUTS: [&str; 4] = ["default", "dram", "cache", "warp"];

/// Every shipped layout at the three reference sizes: reviewed snapshots, and in every pane
/// the table's header and at least five of its rows (or all, when it has fewer) in sight.
#[test]
fn every_layout_renders_at_every_size() {
    let mut app = app_at_occlusion();
    assert!(app.message.starts_with("Breakpoint 1, cycle"), "{}", app.message);
    for (w, h) in SIZES {
        for name in LAYOUTS {
            app.load_layout(name);
            let s = screen(&mut app, w, h);
            insta::assert_snapshot!(format!("layout_{name}_{w}x{h}"), s);
            for (i, e) in app.extents.iter().enumerate() {
                let rows = e.rows.iter().flatten().count();
                let seen = e.rows.iter().take(e.height).flatten().count();
                assert!(
                    seen >= rows.min(5),
                    "{name} at {w}x{h}: pane {i} shows {seen} of {rows} rows in {} lines\n{s}",
                    e.height
                );
                if let Some(first) = e.rows.iter().position(Option::is_some) {
                    assert!(first >= 1 && first < e.height, "{name} {w}x{h} pane {i}: header out of sight");
                }
            }
        }
    }
}

/// Runs of letters and digits that contain a digit: the values a screen shows.
fn values(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .map(String::from)
        .collect()
}

/// Everything a view holds, as text.
fn data(v: &views::View) -> String {
    let mut out = v.title.clone();
    for b in &v.blocks {
        out.push('\n');
        match b {
            views::Block::Lines(lines) => {
                for l in lines {
                    out.extend(l.iter().map(|s| s.text.clone() + " "));
                }
            }
            views::Block::Table(t) => {
                out.push_str(&t.header.join(" "));
                for r in &t.rows {
                    out.push('\n');
                    out.extend(r.iter().map(|s| s.text.clone() + " "));
                }
            }
            views::Block::Timeline(t) => {
                out.push_str(&format!("{} {} {}", t.from, t.to, t.legend));
                out.extend(t.bars.iter().map(|b| format!(" {} {}", b.label, b.note)));
            }
            views::Block::Sparks(s) => out.extend(s.iter().map(|x| format!(" {} {}", x.label, x.now))),
        }
    }
    out
}

/// No value is ever cut: every view of every layout, laid out at every width from 20 to 200,
/// shows only values that are in the view's data, and no line is wider than the pane.
#[test]
fn no_width_cuts_a_value() {
    let mut app = app_at_occlusion();
    app.run_line("break row-miss");
    let mut views = Vec::new();
    for name in LAYOUTS {
        app.load_layout(name);
        views.extend((0..app.layout.panes().len()).map(|i| app.view(i)));
    }
    views.push(warpscope::debug::views::breakpoints(&app.session.breakpoints));
    for v in &views {
        let known = values(&data(v));
        for w in 20..=200usize {
            let laid = lay_out(Theme { color: false }, v, w, Some(0));
            let title = fit::whole(&v.title, w);
            for line in std::iter::once(title).chain(laid.lines.iter().map(|l| l.to_string())) {
                assert!(line.chars().count() <= w, "{w}: {line:?} is too wide");
                for t in values(&line) {
                    assert!(known.contains(&t), "width {w}: `{t}` in {line:?} is not in {}", v.title);
                }
            }
        }
    }
}

/// The DRAM layout under WG-Bw, stopped at a MERB postponement: the warp sorter and bank
/// table, and the MERB counters against the threshold.
#[test]
fn the_dram_layout_shows_warp_groups_and_merb() {
    let session = Session::new(small_config(&["dram.scheduler=wg-bw"]), workload(TINY, 1)).unwrap();
    let mut app =
        App::new(session, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    app.run_line("break merb-postpone");
    run_to_stop(&mut app, "continue");
    assert!(app.message.starts_with("Breakpoint 1, cycle"), "{}", app.message);
    app.load_layout("dram");
    insta::assert_snapshot!("layout_dram_wg_bw", screen(&mut app, 160, 48));
}

const GATHER32: &str = r#"(
    name: "gather32",
    seed: 1,
    kernels: [(
        name: "strided",
        ctas: 1,
        threads_per_cta: 32,
        arrays: [(name: "a", elems: 1048576)],
        program: [Load(array: "a", pattern: Strided(stride_bytes: 1024), dst: 1), Alu(count: 1, srcs: [1])],
    )],
)"#;

/// A 32-request load in the inspector at 100×30: paging through the pane shows every request
/// row, every timeline bar, the axis and the legend; `g` goes back to the top.
#[test]
fn the_inspector_scrolls_through_a_32_request_load() {
    let session = Session::new(small_config(&[]), workload(GATHER32, 1)).unwrap();
    let mut app =
        App::new(session, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    run_to_stop(&mut app, "run");
    app.load_layout("warp");
    let press = |app: &mut App, c: KeyCode| app.key(KeyEvent::new(c, KeyModifiers::NONE));
    let first = screen(&mut app, 100, 30);
    assert!(first.contains("32 requests") && first.contains("lanes"), "{first}");
    let mut seen = first.clone();
    for _ in 0..20 {
        press(&mut app, KeyCode::PageDown);
        seen.push_str(&screen(&mut app, 100, 30));
    }
    for i in 0..32 {
        let row = format!("\n│{i:>2}  ");
        assert!(seen.contains(&row), "request row {i} never shown");
        assert!(seen.contains(&format!("│#{i:<2} |")), "timeline bar {i} never shown");
    }
    let last = screen(&mut app, 100, 30);
    assert!(last.contains("legend: h L1 hit"), "{last}");
    let axis = app.session.gpu.sms[0].exec.warps[0].last_load.issued.to_string();
    assert!(last.lines().any(|l| l.trim_start_matches('│').trim_start().starts_with(&axis)), "axis: {last}");
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(screen(&mut app, 100, 30), first);
}

/// A click selects the row under the pointer (the warps pane's table at 100×30), and the
/// wheel scrolls the pane under the pointer without moving the focus.
#[test]
fn a_click_selects_the_row_clicked() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut app = app_at_occlusion();
    let s = screen(&mut app, 100, 30);
    let lines: Vec<&str> = s.lines().collect();
    let a = app.areas[0];
    let header = (a.y..a.y + a.height).find(|&y| lines[y as usize].contains("warp  cta")).expect("header");
    let click = |app: &mut App, kind, row| {
        app.mouse(MouseEvent { kind, column: a.x + 3, row, modifiers: KeyModifiers::NONE })
    };
    click(&mut app, MouseEventKind::Down(MouseButton::Left), header + 3);
    assert_eq!(app.panes[0].selected, 2, "the third row is under the pointer");
    let s = screen(&mut app, 100, 30);
    let picked = s.lines().nth(header as usize + 3).unwrap();
    let key = app.view(0).keys()[2];
    let views::RowKey::Warp { warp, .. } = key else { panic!("{key:?}") };
    assert!(
        picked.contains(&format!("│{warp:>4}  ")) || picked.contains(&format!("│  {warp:>2}  ")),
        "{picked}"
    );
    app.focus = 1;
    let before = app.panes[0].scroll;
    click(&mut app, MouseEventKind::ScrollDown, header + 1);
    assert_eq!(app.focus, 1);
    assert!(app.panes[0].scroll > before || app.extents[0].rows.len() <= app.extents[0].height);
}

#[test]
fn the_panes_follow_the_breakpoint_and_drill_in() {
    let mut app = app_at_occlusion();
    let s = screen(&mut app, 160, 48);
    let (core, warp) = app.warp;
    assert!(s.contains(&format!("SM {core} — warps")), "the warps pane follows the hit");
    assert!(s.contains(&format!("Warp {core}.{warp} — inspector")));
    assert!(s.contains("OCCLUDED"));
    // Select the third warp of the warps pane (focused first) and drill in.
    app.key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    app.key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE));
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_ne!(app.warp, (core, warp));
    assert_eq!(app.message, format!("inspecting warp {}.{}", app.warp.0, app.warp.1));
    assert!(screen(&mut app, 160, 48).contains(&format!("Warp {}.{} — inspector", app.warp.0, app.warp.1)));
}

#[test]
fn help_popup_too_small_and_bad_layout() {
    let mut app = app_at_occlusion();
    app.key(KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE));
    insta::assert_snapshot!("help", screen(&mut app, 120, 48));
    // At 80 × 24 the help wraps between words inside the popup and paging reaches its end.
    let first = screen(&mut app, 80, 24);
    assert!(first.contains("Keys"), "{first}");
    for _ in 0..20 {
        app.key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    }
    let last = screen(&mut app, 80, 24);
    assert!(last.contains("More: :help break, :help watch, :help show"), "{last}");
    app.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.popup.is_none());
    insta::assert_snapshot!("too_small", screen(&mut app, 60, 15));
    // A broken layout file is reported and the default layout is used.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mine.ron"), "(name: \"mine\", root: Pane(Warpz))").unwrap();
    app.layouts_dir = dir.path().to_path_buf();
    app.load_layout("warp");
    app.load_layout("mine");
    assert_eq!(app.layout.name, "default");
    assert!(app.message.contains("mine.ron:1:") && app.message.contains("Warpz"), "{}", app.message);
}

/// Every view of the catalogue is a `show` command, in `warpscope batch` too, and a pane a
/// layout file names (with its parameters left to follow the focus, it shows what `show` does
/// for the focused core, channel and warp), and `help show` lists it with its help.
#[test]
fn every_view_is_a_show_command_a_pane_and_in_help() {
    let mut app = app_at_occlusion();
    // The stop focused a core and a warp; focus the last channel too, away from `show`'s default.
    app.channel = (app.session.gpu.dram.len() - 1) as u16;
    assert!(app.core > 0 && app.channel > 0, "core {} channel {}", app.core, app.channel);
    let text = |app: &mut App, line: &str| match app.session.execute(line) {
        Ok(Outcome::Text(t)) => t,
        other => panic!("{line}: {other:?}"),
    };
    let help = text(&mut app, "help show");
    let dir = tempfile::tempdir().unwrap();
    app.layouts_dir = dir.path().to_path_buf();
    let mut script = vec!["break occlusion".to_string(), "continue".to_string()];
    let mut titles = Vec::new();
    for v in VIEWS {
        let listed = format!("show {:<12} {:<10} {}", v.name, v.usage(), v.help);
        assert!(help.lines().any(|l| l.trim() == listed.trim()), "`help show` lacks `{listed}`:\n{help}");
        let args: Vec<String> = v
            .args
            .iter()
            .filter_map(|a| match a.param {
                Param::Core => Some(app.core.to_string()),
                Param::Channel => Some(app.channel.to_string()),
                Param::Set => Some("0".into()),
                Param::Warp => Some(format!("{}.{}", app.warp.0, app.warp.1)),
                // The pane shows the warp's latest finished load, as `show` without it does.
                Param::Load => None,
                // The pane looks back the default window, as `show` without it does.
                Param::Cycles => None,
            })
            .collect();
        let show = format!("show {} {}", v.name, args.join(" "));
        let shown = text(&mut app, &show);
        let fields = v.args.iter().any(|a| matches!(a.param, Param::Core | Param::Channel | Param::Set));
        let layout = format!("(name: \"only\", root: Pane({}{}))", v.pane, if fields { "()" } else { "" });
        std::fs::write(dir.path().join("only.ron"), &layout).unwrap();
        app.load_layout("only");
        assert!(!app.error, "{layout}: {}", app.message);
        assert_eq!(app.layout.panes()[0].view().name, v.name, "{layout}");
        let pane = app.view(0);
        assert_eq!(pane.to_text(), shown, "`{show}` and the pane of {layout}");
        titles.push(pane.title);
        script.push(show);
    }
    let out = std::process::Command::new(BIN)
        .args([
            "batch",
            "-c",
            "tests/fixtures/small.ron",
            "-w",
            "tests/fixtures/tiny.ron",
            "-x",
            &script.join("; "),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for t in titles {
        assert!(stdout.contains(&t), "batch printed no `{t}`:\n{stdout}");
    }
}

#[test]
fn the_command_line_has_history_and_completion() {
    let mut app = app_at_occlusion();
    let press = |app: &mut App, c: KeyCode| app.key(KeyEvent::new(c, KeyModifiers::NONE));
    press(&mut app, KeyCode::Char(':'));
    for c in "sh wa".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.input.as_ref().unwrap().text, "sh warpgroups");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.input.as_ref().unwrap().text, "sh warps");
    press(&mut app, KeyCode::Enter);
    assert!(app.popup.as_ref().is_some_and(|p| p.lines[0].contains("SM")), "multi-line output opens a popup");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char(':'));
    press(&mut app, KeyCode::Up);
    assert_eq!(app.input.as_ref().unwrap().text, "sh warps");
    press(&mut app, KeyCode::Esc);
    assert!(app.input.is_none());
}

/// The real binary in a pseudo-terminal, with a vt100 screen to read.
struct Pty {
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    /// Set when the reader has seen the end of the program's output.
    eof: Arc<std::sync::atomic::AtomicBool>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Pty {
    fn spawn(args: &[&str], env: &[(&str, &str)]) -> Pty {
        use portable_pty::{CommandBuilder, PtySize, native_pty_system};
        let pair = native_pty_system()
            .openpty(PtySize { rows: 48, cols: 160, pixel_width: 0, pixel_height: 0 })
            .unwrap();
        let mut cmd = CommandBuilder::new(BIN);
        cmd.args(args);
        cmd.cwd(env!("CARGO_MANIFEST_DIR"));
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(size(48), size(160), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let eof = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, r, e) = (Arc::clone(&screen), Arc::clone(&raw), Arc::clone(&eof));
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                s.lock().unwrap().process(&buf[..n]);
                r.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            e.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        Pty { screen, raw, eof, writer, child }
    }

    fn send(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).unwrap();
        self.writer.flush().unwrap();
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `text`.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let c = self.contents();
            if c.contains(text) {
                return c;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "timed out waiting for {text:?}; screen:\n{c}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the program to exit and for the reader to have taken all of its output (the
    /// last bytes, e.g. leaving the alternate screen, can still be in the pty after the exit).
    fn wait_exit(&mut self) -> u32 {
        let start = Instant::now();
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.exit_code();
            }
            assert!(start.elapsed() < Duration::from_secs(60), "the program did not exit");
            std::thread::sleep(Duration::from_millis(50));
        };
        while !self.eof.load(std::sync::atomic::Ordering::SeqCst) {
            assert!(start.elapsed() < Duration::from_secs(60), "the output did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
        code
    }
}

#[test]
fn a_user_session_in_a_real_terminal() {
    let mut p = Pty::spawn(&["tui", "-c", "tests/fixtures/small.ron", "-w", "tests/fixtures/tiny.ron"], &[]);
    p.wait_for("small × tiny · cycle 0 ");
    p.send("s");
    p.wait_for("· cycle 1 ·");
    p.send(":break occlusion\r");
    p.wait_for("Breakpoint 1: occlusion");
    p.send("c");
    let screen = p.wait_for("Breakpoint 1, cycle ");
    // The stop names the warp; the inspector shows it, occluded.
    let line = screen.lines().find(|l| l.contains("Breakpoint 1, cycle ")).unwrap().to_string();
    let cycle: u64 =
        line.split("cycle ").nth(1).unwrap().split(':').next().unwrap().replace(',', "").parse().unwrap();
    let warp = line.split("on core ").nth(1).unwrap();
    let core = warp.split(' ').next().unwrap();
    let w = warp.split("warp ").nth(1).unwrap().split(' ').next().unwrap();
    p.wait_for(&format!("Warp {core}.{w} — inspector"));
    p.wait_for("OCCLUDED");
    // Who delayed the stopped warp's last load (`show blame` takes the stop's warp).
    p.send(":show blame\r");
    p.wait_for("Blame — load ");
    p.wait_for(&format!(" of warp {core}.{w} "));
    p.send("\r");
    // Open another warp's inspector from the warps pane.
    p.send("jj\r");
    p.wait_for("inspecting warp");
    // Step back one cycle (`b` starts a breakpoint, as in gdb).
    p.send("b");
    p.wait_for(":break ");
    p.send("\x1b");
    p.wait_for("p back · b break");
    p.send("p");
    p.wait_for(&format!("· cycle {} ·", warpscope::sim::stats::metrics::group(cycle - 1)));
    p.send("q");
    assert_eq!(p.wait_exit(), 0);
    let raw = p.raw.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.contains("\x1b[?1049h"), "entered the alternate screen");
    assert!(text.rfind("\x1b[?1049l") > text.rfind("\x1b[?1049h"), "and left it at exit");
}

#[test]
fn the_terminal_is_restored_when_the_program_panics() {
    let mut p = Pty::spawn(
        &["tui", "-c", "tests/fixtures/small.ron", "-w", "tests/fixtures/tiny.ron"],
        &[("WARPSCOPE_TEST_PANIC_AFTER_FRAMES", "2"), ("RUST_BACKTRACE", "0")],
    );
    p.send("s");
    assert_eq!(p.wait_exit(), 101, "a panic exits with 101");
    let raw = p.raw.lock().unwrap().clone();
    let text = String::from_utf8_lossy(&raw);
    let left = text.rfind("\x1b[?1049l").expect("left the alternate screen");
    let msg = text.find("test panic requested").expect("the panic message is printed");
    assert!(left < msg, "the terminal is restored before the panic message is printed");
    // Raw mode is off: the message is printed with normal newline handling, on the main screen.
    assert!(p.contents().contains("test panic requested"), "{}", p.contents());
}

#[test]
fn an_accel_sim_trace_runs_to_the_end_in_the_terminal_ui() {
    let mut p = Pty::spawn(&["tui", "-w", "tests/fixtures/traces/vectoradd-v5/kernelslist.g"], &[]);
    p.wait_for("vectoradd-v5 · cycle 0 ");
    p.send(":until 200\r");
    // The warps pane names the SASS instructions of the trace.
    let screen = p.wait_for("· cycle 200 ·");
    assert!(
        ["LDG.E", "IMAD", "FADD", "STG.E", "EXIT", "S2R", "MOV", "ISETP"]
            .iter()
            .any(|op| screen.contains(op)),
        "{screen}"
    );
    p.send("c");
    p.wait_for("FINISHED");
    p.send("q");
    assert_eq!(p.wait_exit(), 0);
}

/// After a stop on a warp's event, the warps pane's cursor is on that warp (the tour's
/// first session goes `Tab, j, Enter` from there).
#[test]
fn the_warps_cursor_starts_on_the_stopped_warp() {
    let session = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    let mut app =
        App::new(session, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    app.run_line("break occlusion warp=4");
    run_to_stop(&mut app, "continue");
    let (core, warp) = app.warp;
    assert_eq!(warp, 4, "{}", app.message);
    let view = app.view(0);
    assert_eq!(view.keys()[app.panes[0].selected], views::RowKey::Warp { core, warp });
}

/// The DRAM location of warp `core.warp`'s oldest request not back yet, read off the machine.
fn oldest_outstanding(app: &App, core: u16, warp: u16) -> (u32, u32, u32) {
    let g = &app.session.gpu;
    let w = &g.sms[core as usize].exec.warps[warp as usize];
    // The stop's load is occluded: its next line waits in the LD/ST unit.
    let load = w.loads.iter().filter(|l| l.active).min_by_key(|l| l.issued).expect("a load in flight");
    let head = g.sms[core as usize].ldst.queue.front().expect("the LD/ST unit holds the load");
    assert_eq!((head.warp, head.seq), (warp, load.seq));
    let next = g.sms[core as usize].ldst.next;
    let addr = head.coalesced.iter().nth(next).expect("a line still to send").0;
    let loc = g.map.map(addr);
    (loc.channel, loc.bank, loc.row)
}

#[test]
fn the_panes_follow_the_story_of_a_stop() {
    let mut app = app_at_occlusion();
    app.load_layout("dram");
    let (core, warp) = app.warp;
    let (ch, bank, row) = oldest_outstanding(&app, core, warp);
    let s = screen(&mut app, 160, 48);
    assert!(s.contains(&format!("DRAM channel {ch} — banks")), "{s}");
    assert!(s.contains(&format!("bank {bank} queue")) && s.contains(&format!("▶ row {row}")), "{s}");
    insta::assert_snapshot!("followed_dram_stop", s);
    // A stop that names a bank: the warps pane turns to the warp whose read heads its queue.
    let session = Session::new(small_config(&[]), workload(TINY, 1)).unwrap();
    let mut app =
        App::new(session, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    app.run_line("break row-miss channel=1 bank=3");
    run_to_stop(&mut app, "continue");
    let g = &app.session.gpu;
    let pending = g.dram[1].queues.pending();
    let head = pending.iter().find(|(_, p)| p.bank == 3 && !p.is_write).expect("a read queued at bank 3").1;
    let (c, w) = (head.req.origin.core, head.req.origin.warp);
    assert_eq!((app.core, app.warp, app.channel), (c, (c, w), 1));
    let view = app.view(0);
    assert_eq!(view.keys()[app.panes[0].selected], views::RowKey::Warp { core: c, warp: w });
}

#[test]
fn enter_on_an_event_or_a_hit_goes_to_its_cycle_and_changed_values_stand_out() {
    let mut app = app_at_occlusion();
    let events = app.layout.panes().iter().position(|p| *p == PaneKind::Events).expect("an events pane");
    app.run_line("log row-miss");
    // Disabled, the breakpoint's stop is still the latest: the panes keep looking where it
    // turned them, so what changes there is marked.
    app.run_line("disable");
    screen(&mut app, 160, 48);
    run_to_stop(&mut app, "step 300");
    screen(&mut app, 160, 48);
    // After the step, something the panes show changed, and it is marked.
    let marked = (0..app.layout.panes().len()).any(|i| {
        app.view(i).blocks.iter().any(|b| match b {
            views::Block::Table(t) => t.rows.iter().flatten().any(|s| s.tone == views::Tone::Changed),
            views::Block::Lines(l) => l.iter().flatten().any(|s| s.tone == views::Tone::Changed),
            _ => false,
        })
    });
    assert!(marked, "a value that changed over the step is marked");
    let view = app.view(events);
    let views::RowKey::Cycle(target) = view.keys()[2] else { panic!("events are keyed by cycle") };
    app.focus = events;
    app.panes[events].selected = 2;
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.session.gpu.cycle, target, "{}", app.message);
    // In the breakpoints view, a hit's row goes to its cycle too.
    app.run_line("break row-miss");
    run_to_stop(&mut app, "continue");
    let hit = app.session.gpu.cycle;
    run_to_stop(&mut app, "step 50");
    assert!(app.session.gpu.cycle > hit);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("only.ron"), "(name: \"only\", root: Pane(Breakpoints))").unwrap();
    app.layouts_dir = dir.path().to_path_buf();
    app.load_layout("only");
    let view = app.view(0);
    assert!(view.to_text().contains(&format!("@{hit}  ↳ hit")), "{}", view.to_text());
    let row = view.keys().iter().position(|k| *k == views::RowKey::Cycle(hit)).expect("the hit is listed");
    (app.focus, app.panes[0].selected) = (0, row);
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.session.gpu.cycle, hit, "{}", app.message);
}

#[test]
fn the_blame_view_of_a_load() {
    let mut app = app_at_occlusion();
    let (core, warp) = app.warp;
    let text = match app.session.execute_blocking(&format!("show blame {core}.{warp}")) {
        Ok(Outcome::Text(t)) => t,
        other => panic!("{other:?}"),
    };
    insta::assert_snapshot!("blame_view", text);
}

/// Layouts of every shape on terminals of every size, written as layout files: each parses,
/// draws in well under a second (a split of dozens of fills took ratatui's solver minutes),
/// and shows each of its panes either whole, at least 3 cells each way inside the body and
/// overlapping no other, or hidden and counted in the status bar.
#[test]
fn any_layout_draws_at_any_size_with_what_does_not_fit_hidden() {
    use proptest::prelude::*;
    use warpscope::config::Origin;
    fn node() -> impl Strategy<Value = String> {
        let size = prop_oneof![
            (0u32..70000).prop_map(|n| format!("Length({})", n.min(65535))),
            (0u32..300).prop_map(|n| format!("Percentage({n})")),
            (0u32..50).prop_map(|n| format!("Min({n})")),
            (0u32..5).prop_map(|n| format!("Fill({n})")),
        ];
        let pane = prop_oneof![Just("Pane(Events)"), Just("Pane(Warps())"), Just("Pane(Queues)")]
            .prop_map(String::from);
        pane.prop_recursive(3, 60, 40, move |inner| {
            (any::<bool>(), proptest::collection::vec((size.clone(), inner), 1..40)).prop_map(
                |(across, parts)| {
                    let parts: Vec<String> =
                        parts.into_iter().map(|(s, n)| format!("(size: {s}, node: {n})")).collect();
                    let dir = if across { "Horizontal" } else { "Vertical" };
                    format!("Split(dir: {dir}, parts: [{}])", parts.join(", "))
                },
            )
        })
    }
    let app = std::cell::RefCell::new(app_at_occlusion());
    proptest!(common::cases::config(common::cases::LAYOUT_TREES), |(root in node(), w in 80u16..260, h in 20u16..90)| {
        let mut app = app.borrow_mut();
        let text = format!("(name: \"gen\", root: {root})");
        let layout = Layout::parse(&text, &Origin::File("gen.ron".into())).unwrap();
        let panes = layout.panes().len();
        app.set_layout(layout);
        let start = Instant::now();
        let s = screen(&mut app, w, h);
        prop_assert!(start.elapsed() < Duration::from_secs(1), "{:?} for {panes} panes", start.elapsed());
        let shown: Vec<_> = app.areas.iter().filter(|a| a.area() > 0).collect();
        prop_assert_eq!(app.areas.len(), panes);
        prop_assert_eq!(shown.len() + app.hidden, panes);
        for (k, a) in shown.iter().enumerate() {
            prop_assert!(a.width >= 3 && a.height >= 3 && a.y >= 1 && a.bottom() <= h - 2 && a.right() <= w, "{a:?}");
            prop_assert!(shown[..k].iter().all(|b| !a.intersects(**b)), "{a:?} overlaps");
        }
        let first = s.lines().next().unwrap_or("");
        prop_assert_eq!(app.hidden > 0, first.contains("hidden: too small a terminal"), "{}", first);
        // Tab moves the focus to a pane in sight.
        app.key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
        prop_assert!(app.areas[app.focus].area() > 0);
    });
}

/// The issue's reproduction in the terminal (issue 38 items 1 and 2): after two `P`
/// (reverse-continue) the machine is back at cycle 2,524, where the `delayed` breakpoint and
/// the watchpoint set after it both hit: the message line names both, and the Events pane is
/// the one it showed when the machine first got there going forward.
#[test]
fn p_back_to_a_stop_of_two_breakpoints_names_both_and_shows_the_same_events() {
    let config = warpscope::config::Config::builtin();
    let w = warpscope::workload::Workload::load_or_builtin(None, config.sim.seed).unwrap();
    let session = Session::new(config, Arc::new(w)).unwrap();
    let mut app =
        App::new(session, Layout::default_layout(), PathBuf::from("layouts"), Theme { color: false });
    let events = app.layout.panes().iter().position(|p| *p == PaneKind::Events).expect("an events pane");
    app.run_line("break delayed stage=dram cycles>200");
    run_to_stop(&mut app, "continue");
    let forward = app.view(events).to_text();
    assert!(forward.contains("Events (newest first, 138 logged)"), "{forward}");
    app.run_line("watch l1[21].mshr.used");
    run_to_stop(&mut app, "continue");
    run_to_stop(&mut app, "continue");
    let p = KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT);
    app.key(p);
    assert_eq!(app.message, "Watchpoint 2, cycle 2,538: l1[21].mshr.used: 10 → 9");
    app.key(p);
    assert_eq!(
        app.message,
        "Breakpoint 1, cycle 2,524: load 2 of warp 21.3 waited 218 cycles in dram, mostly other-warps \
         · Watchpoint 2, cycle 2,524: l1[21].mshr.used: 11 → 10"
    );
    assert!(app.popup.is_none(), "a stop is said on the message line");
    assert_eq!(app.view(events).to_text(), forward);
}
