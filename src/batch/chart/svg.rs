//! A small SVG writer that knows where its text is: every label goes through [`Svg::text`],
//! which estimates the box the text covers from its length and size, so the chart layout can
//! keep labels apart and inside the canvas, and a test can check that it did
//! ([`text_boxes`] reads the boxes back from a finished file).

use std::fmt::Write;

/// The width of a character of the sans-serif fonts SVG viewers use, as a share of the font
/// size: a little above the average of Helvetica's and DejaVu Sans's digits and lower-case
/// letters, so an estimate errs wide.
const CHAR_EM: f64 = 0.6;

/// How far a line of text reaches above its baseline and below it, as shares of the font size.
const ASCENT: f64 = 0.8;
const DESCENT: f64 = 0.25;

/// The width `text` takes at `size` px.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * CHAR_EM
}

/// Where a text's `x` is: its start, middle or end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// An axis-aligned box: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// Whether the two boxes share area (touching edges do not count).
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 - 0.01 && o.x0 < self.x1 - 0.01 && self.y0 < o.y1 - 0.01 && o.y0 < self.y1 - 0.01
    }

    /// Whether the box lies within `0..w` × `0..h`.
    pub fn inside(&self, w: f64, h: f64) -> bool {
        self.x0 >= -0.01 && self.y0 >= -0.01 && self.x1 <= w + 0.01 && self.y1 <= h + 0.01
    }
}

/// The box of a text at (`x`, `y`: its anchor point on the baseline), turned a quarter to the
/// left when `vertical` (read bottom to top, as a y-axis title).
pub fn text_box(text: &str, x: f64, y: f64, size: f64, anchor: Anchor, vertical: bool) -> Rect {
    let w = text_width(text, size);
    let before = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => w / 2.0,
        Anchor::End => w,
    };
    if vertical {
        // Turned about (x, y): the text runs upwards, its top towards smaller x.
        Rect { x0: x - size * ASCENT, y0: y - (w - before), x1: x + size * DESCENT, y1: y + before }
    } else {
        Rect { x0: x - before, y0: y - size * ASCENT, x1: x - before + w, y1: y + size * DESCENT }
    }
}

/// The document being written.
pub struct Svg {
    body: String,
    pub width: f64,
    pub height: f64,
}

/// `s` with the characters XML reserves escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Svg {
    pub fn new(width: f64, height: f64) -> Svg {
        Svg { body: String::new(), width, height }
    }

    /// A line of text; `x`, `y` the anchor point on the baseline.
    pub fn text(&mut self, s: &str, x: f64, y: f64, size: f64, anchor: Anchor) {
        self.text_styled(s, x, y, size, anchor, false, "");
    }

    /// A line of text, turned a quarter to the left when `vertical`, with extra attributes.
    #[allow(clippy::too_many_arguments)]
    pub fn text_styled(
        &mut self,
        s: &str,
        x: f64,
        y: f64,
        size: f64,
        anchor: Anchor,
        vertical: bool,
        extra: &str,
    ) {
        let turn = if vertical { format!(" transform=\"rotate(-90 {x:.1} {y:.1})\"") } else { String::new() };
        let _ = writeln!(
            self.body,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" text-anchor=\"{}\"{turn}{extra}>{}</text>",
            anchor.name(),
            escape(s)
        );
    }

    /// A rectangle; `fill` and `stroke` are colours or `none`.
    #[allow(clippy::too_many_arguments)]
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str, dash: bool) {
        let dash = if dash { " stroke-dasharray=\"3 2\"" } else { "" };
        let _ = writeln!(
            self.body,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"{dash}/>",
            w.max(0.0),
            h.max(0.0)
        );
    }

    /// A line through `points`; `dash` as SVG's stroke-dasharray (empty for solid).
    pub fn polyline(&mut self, points: &[(f64, f64)], color: &str, width: f64, dash: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
        let dash = if dash.is_empty() { String::new() } else { format!(" stroke-dasharray=\"{dash}\"") };
        let _ = writeln!(
            self.body,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"{width}\"{dash}/>",
            pts.join(" ")
        );
    }

    /// Raw markup (a marker shape).
    pub fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
        self.body.push('\n');
    }

    /// The finished document.
    pub fn finish(self) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#FFFFFF\"/>\n{}</svg>\n",
            self.body,
            w = self.width.ceil(),
            h = self.height.ceil()
        )
    }
}

/// One `<text>` element read back from a file written by [`Svg`].
#[derive(Clone, Debug, PartialEq)]
pub struct TextItem {
    pub text: String,
    pub rect: Rect,
}

/// The text elements of an SVG written by [`Svg`], with the boxes they cover, and the canvas
/// size: what a test needs to check that no label covers another or leaves the canvas.
pub fn text_boxes(svg: &str) -> (Vec<TextItem>, f64, f64) {
    let attr = |line: &str, name: &str| -> Option<String> {
        let at = line.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(line[at..at + line[at..].find('"')?].to_string())
    };
    let num = |line: &str, name: &str| attr(line, name).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    let head = svg.lines().next().unwrap_or("");
    let (w, h) = (num(head, "width"), num(head, "height"));
    let unescape =
        |s: &str| s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    let mut out = Vec::new();
    for line in svg.lines().filter(|l| l.starts_with("<text ")) {
        let Some(open) = line.find('>') else { continue };
        let text = unescape(line[open + 1..].trim_end_matches("</text>"));
        let anchor = match attr(line, "text-anchor").as_deref() {
            Some("middle") => Anchor::Middle,
            Some("end") => Anchor::End,
            _ => Anchor::Start,
        };
        let vertical = attr(line, "transform").is_some_and(|t| t.starts_with("rotate(-90"));
        let rect = text_box(&text, num(line, "x"), num(line, "y"), num(line, "font-size"), anchor, vertical);
        out.push(TextItem { text, rect });
    }
    (out, w, h)
}

/// Pairs of texts whose boxes overlap, and texts that leave the canvas, as messages.
pub fn layout_faults(svg: &str) -> Vec<String> {
    let (items, w, h) = text_boxes(svg);
    let mut faults = Vec::new();
    for (i, a) in items.iter().enumerate() {
        if !a.rect.inside(w, h) {
            faults.push(format!("`{}` leaves the {w}×{h} canvas: {:?}", a.text, a.rect));
        }
        for b in &items[i + 1..] {
            if a.rect.overlaps(&b.rect) {
                faults.push(format!("`{}` {:?} overlaps `{}` {:?}", a.text, a.rect, b.text, b.rect));
            }
        }
    }
    faults
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_follow_the_anchor_and_the_turn() {
        let b = text_box("abcd", 100.0, 50.0, 10.0, Anchor::End, false);
        assert_eq!((b.x0, b.x1), (76.0, 100.0));
        assert_eq!((b.y0, b.y1), (42.0, 52.5));
        let v = text_box("abcd", 20.0, 100.0, 10.0, Anchor::Middle, true);
        assert_eq!((v.y0, v.y1), (88.0, 112.0), "a turned text spans its length vertically");
        assert!(v.x1 - v.x0 < 11.0, "and one line horizontally");
    }

    #[test]
    fn written_texts_read_back_with_their_boxes() {
        let mut s = Svg::new(200.0, 100.0);
        s.text("a < b & c", 10.0, 20.0, 10.0, Anchor::Start);
        s.text_styled("turned", 20.0, 60.0, 12.0, Anchor::Middle, true, "");
        s.text("overlapping", 12.0, 22.0, 10.0, Anchor::Start);
        s.text("outside", 199.0, 50.0, 10.0, Anchor::Start);
        let svg = s.finish();
        let (items, w, h) = text_boxes(&svg);
        assert_eq!((w, h), (200.0, 100.0));
        assert_eq!(items[0].text, "a < b & c");
        assert_eq!(items[1].rect, text_box("turned", 20.0, 60.0, 12.0, Anchor::Middle, true));
        let faults = layout_faults(&svg);
        assert_eq!(faults.len(), 2, "{faults:?}");
        assert!(faults.iter().any(|f| f.contains("`a < b & c`") && f.contains("`overlapping`")));
        assert!(faults.iter().any(|f| f.starts_with("`outside` leaves")));
    }
}
