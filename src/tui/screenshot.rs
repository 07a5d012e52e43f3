//! A picture of the screen: one frame drawn by the real renderer into an off-screen buffer and
//! written as SVG, each cell's character with its colours and bold, dim, italic, underlined or
//! reversed style, so the manual's pictures are the program's own output (`warpscope tui
//! --screenshot FILE.svg -x "COMMANDS"`) and a test can regenerate them.

use super::app::App;
use super::render::{MIN_HEIGHT, MIN_WIDTH, draw};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use std::fmt::Write;

/// A cell's width and height in the picture, px; the font is sized to fit them.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;
const FONT: f64 = 14.0;
/// The picture's terminal colours: a dark background, the ANSI colours of a common theme.
const BACKGROUND: &str = "#1E1E2E";
const FOREGROUND: &str = "#D8DEE9";

/// The terminal size a screenshot is taken at, checked against the TUI's minimum.
pub fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let bad = || "expected COLUMNSxROWS, e.g. 160x48".to_string();
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u16, u16) = (w.trim().parse().map_err(|_| bad())?, h.trim().parse().map_err(|_| bad())?);
    if w < MIN_WIDTH || h < MIN_HEIGHT {
        return Err(format!("the TUI needs at least {MIN_WIDTH}x{MIN_HEIGHT}"));
    }
    if w > 1000 || h > 1000 {
        return Err("at most 1000x1000".to_string());
    }
    Ok((w, h))
}

/// Draws one frame of `app` at `width` × `height` cells and returns it as SVG.
pub fn svg(app: &mut App, width: u16, height: u16) -> String {
    app.prepare();
    let mut term = Terminal::new(TestBackend::new(width, height)).expect("an off-screen terminal");
    term.draw(|f| draw(f, app)).expect("drawing off-screen cannot fail");
    buffer_svg(term.backend().buffer())
}

/// `c` as an SVG colour; `None` for the terminal's default.
fn rgb(c: Color) -> Option<&'static str> {
    Some(match c {
        Color::Reset => return None,
        Color::Black => "#45475A",
        Color::Red => "#F38BA8",
        Color::Green => "#A6E3A1",
        Color::Yellow => "#F9E2AF",
        Color::Blue => "#89B4FA",
        Color::Magenta => "#CBA6F7",
        Color::Cyan => "#89DCEB",
        Color::Gray => "#BAC2DE",
        Color::DarkGray => "#7F849C",
        Color::LightRed => "#F5A3B8",
        Color::LightGreen => "#B8EBB4",
        Color::LightYellow => "#FBEBC4",
        Color::LightBlue => "#A4C4FB",
        Color::LightMagenta => "#F5C2E7",
        Color::LightCyan => "#A6E8F2",
        Color::White => "#FFFFFF",
        // The views use the sixteen named colours only.
        _ => FOREGROUND,
    })
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// One run of cells drawn alike.
struct Run {
    x: u16,
    text: String,
    cells: u16,
    fg: &'static str,
    bg: Option<&'static str>,
    modifier: Modifier,
}

/// The buffer as SVG: a background rectangle per run of a colour, a text element per run of a
/// style, stretched to exactly its cells so columns line up in any monospace font.
pub fn buffer_svg(buf: &Buffer) -> String {
    let (w, h) = (buf.area.width, buf.area.height);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" viewBox=\"0 0 {:.0} {:.0}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"{FONT}\">",
        f64::from(w) * CELL_W + 16.0,
        f64::from(h) * CELL_H + 16.0,
        f64::from(w) * CELL_W + 16.0,
        f64::from(h) * CELL_H + 16.0,
    );
    let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" rx=\"6\" fill=\"{BACKGROUND}\"/>");
    for y in 0..h {
        let mut runs: Vec<Run> = Vec::new();
        for x in 0..w {
            let cell = &buf[(x, y)];
            let reversed = cell.modifier.contains(Modifier::REVERSED);
            let (mut fg, mut bg) = (rgb(cell.fg).unwrap_or(FOREGROUND), rgb(cell.bg));
            if reversed {
                (fg, bg) = (bg.unwrap_or(BACKGROUND), Some(fg));
            }
            let modifier = cell.modifier - Modifier::REVERSED;
            let sym = cell.symbol();
            match runs.last_mut() {
                Some(r) if r.fg == fg && r.bg == bg && r.modifier == modifier => {
                    r.text.push_str(sym);
                    r.cells += 1;
                }
                _ => runs.push(Run { x, text: sym.to_string(), cells: 1, fg, bg, modifier }),
            }
        }
        let top = 8.0 + f64::from(y) * CELL_H;
        for r in &runs {
            let left = 8.0 + f64::from(r.x) * CELL_W;
            let width = f64::from(r.cells) * CELL_W;
            if let Some(bg) = r.bg {
                let _ = writeln!(
                    out,
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{width:.1}\" height=\"{CELL_H}\" fill=\"{bg}\"/>"
                );
            }
            if r.text.trim().is_empty() {
                continue;
            }
            let mut style = String::new();
            if r.modifier.contains(Modifier::BOLD) {
                style.push_str(" font-weight=\"bold\"");
            }
            if r.modifier.contains(Modifier::ITALIC) {
                style.push_str(" font-style=\"italic\"");
            }
            if r.modifier.contains(Modifier::UNDERLINED) {
                style.push_str(" text-decoration=\"underline\"");
            }
            if r.modifier.contains(Modifier::DIM) {
                style.push_str(" opacity=\"0.7\"");
            }
            let _ = writeln!(
                out,
                "<text x=\"{left:.1}\" y=\"{:.1}\" textLength=\"{width:.1}\" lengthAdjust=\"spacingAndGlyphs\" fill=\"{}\"{style} xml:space=\"preserve\">{}</text>",
                top + CELL_H * 0.78,
                r.fg,
                escape(&r.text)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn sizes_are_checked_against_the_minimum() {
        assert_eq!(parse_size("160x48"), Ok((160, 48)));
        assert!(parse_size("79x48").unwrap_err().contains("at least 80x20"));
        assert!(parse_size("160").unwrap_err().contains("expected COLUMNSxROWS"));
    }

    #[test]
    fn cells_become_runs_of_text_and_background() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "ab", Style::default().fg(Color::Red));
        buf.set_string(2, 0, "c<", Style::default().add_modifier(Modifier::REVERSED));
        let svg = buffer_svg(&buf);
        assert!(
            svg.contains(&format!("fill=\"{}\" xml:space=\"preserve\">ab</text>", rgb(Color::Red).unwrap()))
        );
        // Reversed: the default colours swapped, drawn as a background rectangle and text.
        assert!(svg.contains(&format!("width=\"16.8\" height=\"17\" fill=\"{FOREGROUND}\"/>")), "{svg}");
        assert!(svg.contains(&format!("fill=\"{BACKGROUND}\" xml:space=\"preserve\">c&lt;</text>")), "{svg}");
    }
}
