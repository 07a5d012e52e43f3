//! Drawing: a status bar, the layout's panes (one generic renderer turns any view into
//! widgets), the message line, the command line, and popups. Below a minimum size the screen
//! says so instead of drawing.

use super::app::App;
use super::keymap::BINDINGS;
use super::layout::{Direction, Node};
use super::theme::Theme;
use crate::debug::command::COMMANDS;
use crate::debug::views::{
    Block as VBlock, Span as VSpan, Spark, Table as VTable, Timeline, View, bar_columns,
};
use crate::sim::Status;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout as RLayout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Row, Sparkline, Table, TableState, Wrap};

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
    f.render_widget(Paragraph::new(status_line(app)).style(app.theme.status()), status);
    app.areas.clear();
    let root = app.layout.root.clone();
    let mut idx = 0;
    draw_node(f, app, &root, body, &mut idx);
    let msg_style = if app.error { app.theme.tone(crate::debug::views::Tone::Bad) } else { Style::default() };
    f.render_widget(Paragraph::new(app.message.clone()).style(msg_style), message);
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
            "s step · c continue · b back · : command · Tab pane · Enter drill in · ? help · q quit",
            Style::default().add_modifier(Modifier::DIM),
        )),
    };
    f.render_widget(Paragraph::new(cmd), command);
    if let Some(i) = &app.input {
        f.set_cursor_position((command.x + 1 + i.text.chars().count() as u16, command.y));
    }
    if let Some(p) = &app.popup {
        let w = area.width.saturating_sub(8).min(120);
        let h = area.height.saturating_sub(4).min(p.lines.len() as u16 + 2).max(5);
        let r =
            Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
        f.render_widget(Clear, r);
        let text: Vec<Line> = p.lines.iter().skip(p.scroll).map(|l| Line::from(l.clone())).collect();
        let more = if p.lines.len() > (h as usize - 2) { " (j/k scroll)" } else { "" };
        f.render_widget(
            Paragraph::new(text).block(
                Block::bordered()
                    .title(format!(" {} ", p.title))
                    .title_bottom(format!(" Esc closes{more} "))
                    .border_style(app.theme.focused_border()),
            ),
            r,
        );
    }
}

fn status_line(app: &App) -> String {
    let g = &app.session.gpu;
    let state = match &g.status {
        Status::Done => "FINISHED".to_string(),
        Status::Stuck(_) => "STUCK".to_string(),
        Status::Running if app.session.is_running() => "RUNNING".to_string(),
        Status::Running => "stopped".to_string(),
    };
    let k = g.launcher.kernel.min(g.workload.kernels.len().saturating_sub(1));
    format!(
        " warpscope · {} × {} · cycle {} · kernel {}/{} ({}) · {} · layout {} · warp {}.{} ",
        g.config.name,
        g.workload.name,
        g.cycle,
        k + 1,
        g.workload.kernels.len(),
        g.kernel().name(),
        state,
        app.layout.name,
        app.warp.0,
        app.warp.1
    )
}

fn draw_node(f: &mut Frame, app: &mut App, node: &Node, area: Rect, idx: &mut usize) {
    match node {
        Node::Pane(_) => {
            let i = *idx;
            *idx += 1;
            app.areas.push(area);
            let view = app.view(i);
            let focused = i == app.focus;
            let selected = app.panes[i].selected;
            let offset = draw_view(f, app.theme, &view, area, focused, selected);
            app.offsets[i] = offset;
        }
        Node::Split { dir, parts } => {
            let constraints: Vec<Constraint> = parts.iter().map(|p| p.size.constraint()).collect();
            let rects = match dir {
                Direction::Horizontal => RLayout::horizontal(constraints).split(area),
                Direction::Vertical => RLayout::vertical(constraints).split(area),
            };
            for (p, r) in parts.iter().zip(rects.iter()) {
                draw_node(f, app, &p.node, *r, idx);
            }
        }
    }
}

fn spans(theme: Theme, s: &[VSpan]) -> Line<'static> {
    Line::from(s.iter().map(|x| Span::styled(x.text.clone(), theme.tone(x.tone))).collect::<Vec<_>>())
}

/// Draws a view in a bordered pane; returns the table's scroll offset.
pub fn draw_view(f: &mut Frame, theme: Theme, v: &View, area: Rect, focused: bool, selected: usize) -> usize {
    let border = if focused { theme.focused_border() } else { Style::default() };
    let block = Block::bordered().borders(Borders::ALL).border_style(border).title(format!(" {} ", v.title));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let mut y = inner.y;
    let bottom = inner.y + inner.height;
    let mut offset = 0;
    for b in &v.blocks {
        if y >= bottom {
            break;
        }
        let room = bottom - y;
        let r = |h: u16| Rect { x: inner.x, y, width: inner.width, height: h.min(room) };
        match b {
            VBlock::Lines(lines) => {
                // Long lines wrap; count the rows they take.
                let w = inner.width.max(1) as usize;
                let h: u16 = lines
                    .iter()
                    .map(|l| {
                        l.iter().map(|s| s.text.chars().count()).sum::<usize>().div_ceil(w).max(1) as u16
                    })
                    .sum();
                let text: Vec<Line> = lines.iter().map(|l| spans(theme, l)).collect();
                f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), r(h));
                y += h.min(room);
            }
            VBlock::Table(t) => {
                // The table takes what is left, minus what the blocks after it need.
                let after: u16 = v
                    .blocks
                    .iter()
                    .skip_while(|x| !std::ptr::eq(*x, b))
                    .skip(1)
                    .map(|x| match x {
                        VBlock::Lines(l) => l.len() as u16,
                        VBlock::Timeline(t) => t.bars.len() as u16 + 2,
                        VBlock::Sparks(s) => s.len() as u16,
                        VBlock::Table(t) => t.rows.len() as u16 + 1,
                    })
                    .sum();
                let want = t.rows.len() as u16 + 1;
                let h = want.min(room.saturating_sub(after.min(room / 2)).max(2.min(room)));
                offset = draw_table(f, theme, t, r(h), if focused { Some(selected) } else { None });
                y += h.min(room);
            }
            VBlock::Timeline(t) => {
                let h = t.bars.len() as u16 + 2;
                draw_timeline(f, theme, t, r(h));
                y += h.min(room);
            }
            VBlock::Sparks(sparks) => {
                for s in sparks {
                    if y >= bottom {
                        break;
                    }
                    draw_spark(f, s, Rect { x: inner.x, y, width: inner.width, height: 1 });
                    y += 1;
                }
            }
        }
    }
    offset
}

fn draw_table(f: &mut Frame, theme: Theme, t: &VTable, area: Rect, selected: Option<usize>) -> usize {
    let cols = t.header.len();
    let mut widths = vec![0u16; cols];
    for (i, h) in t.header.iter().enumerate() {
        widths[i] = h.chars().count() as u16;
    }
    for r in &t.rows {
        for (i, c) in r.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(c.text.chars().count() as u16);
        }
    }
    // Too wide for the pane: narrow the trailing columns first (the leading ones identify
    // the row), down to their header's width or 4.
    let spacing = 2u16;
    let mut excess =
        (widths.iter().sum::<u16>() + spacing * cols.saturating_sub(1) as u16).saturating_sub(area.width);
    for i in (0..cols).rev() {
        if excess == 0 {
            break;
        }
        let floor = (t.header[i].chars().count() as u16).clamp(3, 6);
        let cut = widths[i].saturating_sub(floor).min(excess);
        widths[i] -= cut;
        excess -= cut;
    }
    let cell = |i: usize, text: &str, style: Style| {
        let line = Line::from(Span::styled(fit(text, widths[i] as usize), style));
        if t.right.contains(&i) { line.right_aligned() } else { line }
    };
    let header_style = Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED);
    let header =
        Row::new(t.header.iter().enumerate().map(|(i, h)| cell(i, h, header_style)).collect::<Vec<_>>());
    let rows: Vec<Row> = t
        .rows
        .iter()
        .map(|r| {
            Row::new(
                r.iter().enumerate().map(|(i, c)| cell(i, &c.text, theme.tone(c.tone))).collect::<Vec<_>>(),
            )
        })
        .collect();
    let constraints: Vec<Constraint> = widths.iter().map(|w| Constraint::Length(*w)).collect();
    let table = Table::new(rows, constraints)
        .header(header)
        .column_spacing(spacing)
        .row_highlight_style(theme.selected());
    let mut state =
        TableState::default().with_selected(selected.map(|s| s.min(t.rows.len().saturating_sub(1))));
    f.render_stateful_widget(table, area, &mut state);
    state.offset()
}

/// `text` cut to `width` characters with an ellipsis, so that a narrowed column keeps its
/// beginning even when right-aligned.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        text.chars().take(width.saturating_sub(1)).chain(std::iter::once('…')).collect()
    }
}

fn draw_timeline(f: &mut Frame, theme: Theme, t: &Timeline, area: Rect) {
    let label_w = t.bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(0) as u16;
    let note_w = t.bars.iter().map(|b| b.note.chars().count()).max().unwrap_or(0) as u16;
    let width = area.width.saturating_sub(label_w + note_w + 4).max(10) as usize;
    let mut lines = Vec::new();
    for b in &t.bars {
        let mut s = vec![Span::raw(format!("{:<w$} |", b.label, w = label_w as usize))];
        for (c, tone) in bar_columns(t, &b.segments, width) {
            s.push(Span::styled(c.to_string(), theme.tone(tone)));
        }
        s.push(Span::raw(format!("| {}", b.note)));
        lines.push(Line::from(s));
    }
    let to = t.to.to_string();
    lines.push(Line::from(format!(
        "{:<w$}  {}{:>r$}",
        "",
        t.from,
        to,
        w = label_w as usize,
        r = width.saturating_sub(t.from.to_string().len())
    )));
    lines.push(Line::from(Span::styled(t.legend.clone(), Style::default().add_modifier(Modifier::DIM))));
    f.render_widget(Paragraph::new(lines), area);
}

fn draw_spark(f: &mut Frame, s: &Spark, area: Rect) {
    let label_w = 18u16.min(area.width / 3);
    let now_w = 10u16;
    let [l, mid, r] =
        RLayout::horizontal([Constraint::Length(label_w), Constraint::Fill(1), Constraint::Length(now_w)])
            .areas(area);
    f.render_widget(Paragraph::new(s.label.clone()), l);
    let w = mid.width as usize;
    let data: Vec<u64> =
        s.values[s.values.len().saturating_sub(w)..].iter().map(|v| (v * 100.0).max(0.0) as u64).collect();
    f.render_widget(Sparkline::default().data(&data), mid);
    f.render_widget(Paragraph::new(format!(" {}", s.now)), r);
}

/// The help screen: every key (from the key table) and command (from the command table).
pub fn help_lines() -> Vec<String> {
    let mut out = vec!["Keys".to_string()];
    for b in BINDINGS {
        let keys = b.keys.iter().map(|k| k.label()).collect::<Vec<_>>().join(" / ");
        out.push(format!("  {keys:<28} {}", b.help));
    }
    out.push(String::new());
    out.push("Commands (after :, any unambiguous prefix; Enter on an empty line repeats)".into());
    for c in COMMANDS {
        let names = std::iter::once(c.name).chain(c.aliases.iter().copied()).collect::<Vec<_>>().join(", ");
        out.push(format!("  {:<24} {:<26} {}", names, c.args, c.help));
    }
    out.push(String::new());
    out.push("More: :help break, :help watch, :help show".into());
    out
}
