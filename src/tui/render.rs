//! Drawing: a status bar, the layout's panes (one generic renderer turns any view into
//! widgets), the message line, the command line, and popups. Below a minimum size the screen
//! says so instead of drawing.

use super::app::App;
use super::app::Extent;
use super::fit;
use super::layout::{Direction, Node, Size};
use super::pane::lay_out;
use super::split;
use crate::debug::views::View;
use crate::sim::Status;
use crate::sim::stats::metrics::{count, group};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout as RLayout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 20;

/// Draws the whole screen.
pub fn draw(f: &mut Frame, app: &mut App) {
    let area = f.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "terminal too small: warpscope needs {MIN_WIDTH}×{MIN_HEIGHT}, this one is {}×{}. Enlarge it, or press q to quit.",
            area.width, area.height
        );
        f.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let [status, body, message, command] = RLayout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    app.areas.clear();
    app.hidden = 0;
    let root = app.layout.root.clone();
    let mut idx = 0;
    draw_node(f, app, &root, body, &mut idx);
    let status_text =
        format!(" {} ", fit::leading(&status_items(app), " · ", area.width.saturating_sub(2) as usize));
    f.render_widget(Paragraph::new(status_text).style(app.theme.status()), status);
    let msg_style = if app.error { app.theme.tone(crate::debug::views::Tone::Bad) } else { Style::default() };
    f.render_widget(Paragraph::new(fit::whole(&app.message, area.width as usize)).style(msg_style), message);
    let cmd = match &app.input {
        Some(i) => {
            let mut spans = vec![Span::raw(":"), Span::raw(i.text.clone())];
            if i.completions.len() > 1 {
                spans.push(Span::styled(
                    format!("   [{} completions, Tab cycles]", i.completions.len()),
                    Style::default().add_modifier(Modifier::DIM),
                ));
            }
            Line::from(spans)
        }
        None if app.session.is_running() => Line::from("running — Esc or Ctrl-C stops"),
        None => Line::from(Span::styled(
            fit::leading(&HINTS.map(String::from), " · ", area.width as usize),
            Style::default().add_modifier(Modifier::DIM),
        )),
    };
    f.render_widget(Paragraph::new(cmd), command);
    if let Some(i) = &app.input {
        f.set_cursor_position((command.x + 1 + i.text.chars().count() as u16, command.y));
    }
    let theme = app.theme;
    if let Some(p) = &mut app.popup {
        let w = area.width.saturating_sub(8).min(120);
        let wrapped = wrap_hanging(&p.lines, w.saturating_sub(2) as usize);
        let h = area.height.saturating_sub(4).min(wrapped.len() as u16 + 2).max(5);
        let r =
            Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
        f.render_widget(Clear, r);
        p.scroll = p.scroll.min(wrapped.len().saturating_sub(h as usize - 2));
        let text: Vec<Line> = wrapped.iter().skip(p.scroll).map(|l| Line::from(l.clone())).collect();
        let more = if wrapped.len() > (h as usize - 2) { " (j/k scroll)" } else { "" };
        f.render_widget(
            Paragraph::new(text).block(
                Block::bordered()
                    .title(format!(" {} ", p.title))
                    .title_bottom(format!(" Esc closes{more} "))
                    .border_style(theme.focused_border()),
            ),
            r,
        );
    }
}

/// Lines wrapped between words to `width` columns; a continuation is indented to where the
/// line's last column of text starts (after its last run of two or more spaces), so the help's
/// descriptions stay in their column instead of being cut at the popup's edge.
pub fn wrap_hanging(lines: &[String], width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines {
        if line.chars().count() <= width || width < 20 {
            out.push(line.clone());
            continue;
        }
        let indent = line.rfind("  ").map_or(0, |i| line[..i + 2].chars().count());
        let indent = if indent > width / 2 { 4 } else { indent };
        let mut cur = String::new();
        for piece in line.split_inclusive(' ') {
            let fits = cur.chars().count() + piece.trim_end().chars().count() <= width;
            if !fits && cur.len() > indent && !cur.trim().is_empty() {
                out.push(cur.trim_end().to_string());
                cur = " ".repeat(indent);
                cur.push_str(piece.trim_start());
            } else {
                cur.push_str(piece);
            }
        }
        out.push(cur.trim_end().to_string());
    }
    out
}

/// The key hints under the panes, most useful first (`?` lists every key).
const HINTS: [&str; 10] = [
    "? help",
    "s step",
    "c continue",
    "p back",
    "b break",
    ": command",
    "Tab pane",
    "j/k scroll",
    "Enter drill in",
    "q quit",
];

/// The status line's items, most important first.
fn status_items(app: &App) -> Vec<String> {
    let g = &app.session.gpu;
    let state = match &g.status {
        Status::Done => "FINISHED".to_string(),
        Status::Stuck(_) => "STUCK".to_string(),
        Status::Running if app.session.is_running() => "RUNNING".to_string(),
        Status::Running => "stopped".to_string(),
    };
    let k = g.launcher.kernel.min(g.workload.kernels.len().saturating_sub(1));
    let mut items = vec!["warpscope".to_string()];
    // Panes the layout could not fit are said second, where no width cuts it off.
    if app.hidden > 0 {
        items.push(format!("{} hidden: too small a terminal", count(app.hidden as u64, "pane")));
    }
    items.extend([
        format!("{} × {}", g.config.name, g.workload.name),
        format!("cycle {}", group(g.cycle)),
        state,
    ]);
    if let Some(vs) = &app.session.vs {
        // The second machine trails A only once it has finished.
        let b = &vs.b.gpu;
        let at = if b.cycle < g.cycle { format!(", finished at {}", group(b.cycle)) } else { String::new() };
        items.push(format!("vs B: {}{at} (v: A/B/both)", vs.settings.join(" ")));
    }
    items.extend([
        format!("kernel {}/{} ({})", k + 1, g.workload.kernels.len(), g.kernel().name()),
        format!("layout {}", app.layout.name),
        format!("warp {}.{}", app.warp.0, app.warp.1),
    ]);
    items
}

/// The fewest cells a pane needs across and down: its two borders and one line.
pub const MIN_PANE: u16 = 3;

/// Draws a layout node in `area`. A split lays out only as many parts as its area has room
/// for at [`MIN_PANE`] cells each ([`split::lengths`] divides the room), and a pane given fewer
/// cells either way is hidden, counted in `app.hidden` with an empty area: a layout of more
/// panes than the terminal holds shows what fits.
fn draw_node(f: &mut Frame, app: &mut App, node: &Node, area: Rect, idx: &mut usize) {
    match node {
        Node::Pane(_) => {
            let i = *idx;
            *idx += 1;
            if area.width < MIN_PANE || area.height < MIN_PANE {
                app.areas.push(Rect::default());
                app.extents[i] = Extent::default();
                app.hidden += 1;
                return;
            }
            app.areas.push(area);
            let view = app.view(i);
            draw_pane(f, app, i, &view, area);
        }
        Node::Split { dir, parts } => {
            let room = match dir {
                Direction::Horizontal => area.width,
                Direction::Vertical => area.height,
            };
            let fit = parts.len().min(usize::from(room / MIN_PANE));
            let sizes: Vec<Size> = parts[..fit].iter().map(|p| p.size).collect();
            let mut at = 0;
            let mut rects = split::lengths(&sizes, room).into_iter().map(|len| {
                let r = match dir {
                    Direction::Horizontal => Rect { x: area.x + at, width: len, ..area },
                    Direction::Vertical => Rect { y: area.y + at, height: len, ..area },
                };
                at += len;
                r
            });
            for p in parts {
                draw_node(f, app, &p.node, rects.next().unwrap_or_default(), idx);
            }
        }
    }
}

/// Draws pane `i` showing `v`: a window onto the view's lines that follows the selected row
/// after a key moved it, and otherwise stays where the user scrolled it. The bottom border
/// says which lines are shown and which columns are hidden for want of width.
fn draw_pane(f: &mut Frame, app: &mut App, i: usize, v: &View, area: Rect) {
    let focused = i == app.focus;
    let theme = app.theme;
    let border = if focused { theme.focused_border() } else { Style::default() };
    let title_w = (area.width as usize).saturating_sub(4);
    let block = Block::bordered()
        .borders(Borders::ALL)
        .border_style(border)
        .title(format!(" {} ", fit::whole(&v.title, title_w)));
    let inner = block.inner(area);
    let st = &mut app.panes[i];
    let laid = lay_out(theme, v, inner.width as usize, focused.then_some(st.selected));
    let h = inner.height as usize;
    let max = laid.lines.len().saturating_sub(h);
    if st.follow
        && let Some(l) = laid.line_of(st.selected)
    {
        if l < st.scroll {
            // Keep the table's header in sight when the first rows are selected.
            st.scroll = if laid.line_of(0).is_some_and(|z| l == z) { l.saturating_sub(1) } else { l };
        } else if l >= st.scroll + h {
            st.scroll = l + 1 - h;
        }
    }
    st.scroll = st.scroll.min(max);
    let mut notes = Vec::new();
    if laid.lines.len() > h {
        notes.push(format!(
            "{}-{}/{}",
            st.scroll + 1,
            (st.scroll + h).min(laid.lines.len()),
            laid.lines.len()
        ));
    }
    if !laid.hidden.is_empty() {
        notes.push(format!("hidden: {}", laid.hidden.join(", ")));
    }
    let block = if notes.is_empty() {
        block
    } else {
        block.title_bottom(format!(" {} ", fit::whole(&notes.join(" · "), title_w)))
    };
    f.render_widget(block, area);
    let shown: Vec<Line> = laid.lines.iter().skip(st.scroll).take(h).cloned().collect();
    f.render_widget(Paragraph::new(shown), inner);
    app.extents[i] = Extent { rows: laid.rows, height: h, top: inner.y };
}

#[cfg(test)]
mod tests {
    use super::wrap_hanging;

    #[test]
    fn long_lines_wrap_between_words_under_their_column() {
        let lines = vec![
            "  tbreak, tb    EVENT ...   like break, stops once; going back before it re-arms it".to_string(),
            "short".to_string(),
        ];
        let w = wrap_hanging(&lines, 60);
        let hang = " ".repeat(28);
        assert_eq!(
            w,
            [
                "  tbreak, tb    EVENT ...   like break, stops once; going".to_string(),
                format!("{hang}back before it re-arms it"),
                "short".to_string(),
            ]
        );
        assert!(w.iter().all(|l| l.chars().count() <= 60));
        // A column past half the width hangs by four instead.
        let narrow = wrap_hanging(&lines[..1], 50);
        assert_eq!(
            narrow,
            ["  tbreak, tb    EVENT ...   like break, stops", "    once; going back before it re-arms it"]
        );
    }
}
