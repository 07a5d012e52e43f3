//! Finds where a key path (`dram.timing.t_rcd`, `kernels[0].program[2].array`) sits in RON text.
//!
//! serde reports *that* a value is wrong; this tells *where*: the line and column of the key,
//! and the byte span of its value, so semantic errors point into the user's file and `--set`
//! can replace a value in the canonical text of a config.

use std::ops::Range;

/// Where a key and its value are in a RON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Byte offset of the key's identifier (or of the value, for list elements).
    pub key_offset: usize,
    /// Byte span of the value.
    pub value: Range<usize>,
}

/// One segment of a key path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Field(String),
    Index(usize),
}

/// Splits `a.b[2].c` into segments. Returns `None` for a malformed path.
pub fn parse_path(path: &str) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() && out.is_empty() && rest.is_empty() {
            return None;
        }
        if !name.is_empty() {
            out.push(Segment::Field(name.to_string()));
        }
        while !rest.is_empty() {
            let close = rest.find(']')?;
            let idx: usize = rest[1..close].parse().ok()?;
            out.push(Segment::Index(idx));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return None;
            }
        }
    }
    Some(out)
}

/// Renders segments back to `a.b[2].c`.
pub fn render_path(segments: &[Segment]) -> String {
    let mut s = String::new();
    for seg in segments {
        match seg {
            Segment::Field(f) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(f);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Ident,
    Atom,
    Open(u8),
    Close(u8),
    Comma,
    Colon,
}

fn tokenize(src: &str) -> Vec<(Tok, Range<usize>)> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0usize;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'(' | b'[' | b'{' => {
                out.push((Tok::Open(c), i..i + 1));
                i += 1;
            }
            b')' | b']' | b'}' => {
                out.push((Tok::Close(c), i..i + 1));
                i += 1;
            }
            b',' => {
                out.push((Tok::Comma, i..i + 1));
                i += 1;
            }
            b':' => {
                out.push((Tok::Colon, i..i + 1));
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(b.len());
                out.push((Tok::Atom, start..i));
            }
            b'\'' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i = (i + 1).min(b.len());
                out.push((Tok::Atom, start..i));
            }
            _ => {
                let start = i;
                let ident = c.is_ascii_alphabetic() || c == b'_';
                while i < b.len()
                    && !matches!(
                        b[i],
                        b' ' | b'\t'
                            | b'\r'
                            | b'\n'
                            | b'('
                            | b')'
                            | b'['
                            | b']'
                            | b'{'
                            | b'}'
                            | b','
                            | b':'
                            | b'"'
                    )
                {
                    // `r#ident` raw identifiers and numbers like 1_000 or 0x10 stay one token.
                    i += 1;
                }
                let kind = if ident { Tok::Ident } else { Tok::Atom };
                out.push((kind, start..i));
            }
        }
    }
    out
}

struct Walker<'a> {
    src: &'a str,
    toks: Vec<(Tok, Range<usize>)>,
    pos: usize,
    target: &'a [Segment],
    path: Vec<Segment>,
    found: Option<Located>,
}

impl Walker<'_> {
    fn peek(&self, k: usize) -> Option<Tok> {
        self.toks.get(self.pos + k).map(|t| t.0)
    }

    /// Walks one value starting at `self.pos`; returns its byte span.
    fn value(&mut self) -> Option<Range<usize>> {
        let (tok, span) = self.toks.get(self.pos)?.clone();
        match tok {
            Tok::Ident if self.peek(1) == Some(Tok::Open(b'(')) => {
                self.pos += 1;
                let body = self.group()?;
                Some(span.start..body.end)
            }
            Tok::Open(_) => self.group(),
            Tok::Ident | Tok::Atom => {
                self.pos += 1;
                Some(span)
            }
            _ => None,
        }
    }

    /// Walks a bracketed group (struct, tuple, list or map) at `self.pos`.
    fn group(&mut self) -> Option<Range<usize>> {
        let (tok, span) = self.toks.get(self.pos)?.clone();
        let Tok::Open(open) = tok else { return None };
        self.pos += 1;
        let named = open == b'(' && self.peek(0) == Some(Tok::Ident) && self.peek(1) == Some(Tok::Colon);
        let mut index = 0usize;
        loop {
            match self.peek(0)? {
                Tok::Close(_) => {
                    let end = self.toks[self.pos].1.end;
                    self.pos += 1;
                    return Some(span.start..end);
                }
                Tok::Comma => {
                    self.pos += 1;
                }
                _ if named => {
                    let (_, key_span) = self.toks[self.pos].clone();
                    let key = self.src[key_span.clone()].trim_start_matches("r#").to_string();
                    self.pos += 2; // ident and ':'
                    self.path.push(Segment::Field(key));
                    let v = self.value()?;
                    self.check(key_span.start, v);
                    self.path.pop();
                }
                _ if open == b'[' => {
                    self.path.push(Segment::Index(index));
                    let start = self.toks[self.pos].1.start;
                    let v = self.value()?;
                    self.check(start, v);
                    self.path.pop();
                    index += 1;
                }
                _ if open == b'{' => {
                    // Map: key ':' value. Keys are not part of paths we locate.
                    self.value()?;
                    if self.peek(0) == Some(Tok::Colon) {
                        self.pos += 1;
                    }
                    self.value()?;
                }
                _ => {
                    // Tuple or newtype (`Some(x)`, `Ns(12.0)`): transparent for paths.
                    self.value()?;
                }
            }
        }
    }

    fn check(&mut self, key_offset: usize, value: Range<usize>) {
        if self.found.is_none() && self.path.as_slice() == self.target {
            self.found = Some(Located { key_offset, value });
        }
    }
}

/// Locates `path` in `src`. The top-level value is the root struct.
pub fn locate(src: &str, path: &[Segment]) -> Option<Located> {
    let mut w = Walker { src, toks: tokenize(src), pos: 0, target: path, path: Vec::new(), found: None };
    // Skip `#![enable(...)]` attributes at the top.
    while w.pos < w.toks.len() && src[w.toks[w.pos].1.clone()].starts_with('#') {
        while w.pos < w.toks.len() && w.toks[w.pos].0 != Tok::Close(b']') {
            w.pos += 1;
        }
        w.pos += 1;
    }
    w.value();
    w.found
}

/// The field names directly inside the struct at `path` (for "valid keys" messages).
pub fn fields_at(src: &str, path: &[Segment]) -> Vec<String> {
    let span = if path.is_empty() {
        0..src.len()
    } else {
        match locate(src, path) {
            Some(l) => l.value,
            None => return Vec::new(),
        }
    };
    let toks = tokenize(&src[span.clone()]);
    let mut depth = 0i32;
    let mut out = Vec::new();
    for (i, (t, r)) in toks.iter().enumerate() {
        match t {
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => depth -= 1,
            Tok::Ident if depth == 1 && toks.get(i + 1).map(|t| t.0) == Some(Tok::Colon) => {
                out.push(src[span.start + r.start..span.start + r.end].to_string());
            }
            _ => {}
        }
    }
    out
}

/// 1-based line and column of a byte offset.
pub fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let before = &src[..offset.min(src.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"// machine
Config(
    name: "x",
    l1: (sets: 32, ways: 8), // comment: with colon
    dram: (
        timing: (t_rcd: Ns(12.0), t_wl: Ck(4)),
        refresh: Some((t_refi: Ns(3900.0))),
    ),
    kernels: [ (a: 1), (a: 2, b: [3, 4]) ],
)"#;

    fn find(path: &str) -> Option<(usize, usize, String)> {
        let l = locate(SRC, &parse_path(path)?)?;
        let (line, col) = line_col(SRC, l.key_offset);
        Some((line, col, SRC[l.value].to_string()))
    }

    #[test]
    fn finds_nested_fields_with_positions() {
        assert_eq!(find("l1.ways"), Some((4, 20, "8".into())));
        assert_eq!(find("dram.timing.t_rcd"), Some((6, 18, "Ns(12.0)".into())));
        assert_eq!(find("dram.refresh.t_refi"), Some((7, 24, "Ns(3900.0)".into())));
        assert_eq!(find("kernels[1].b[1]"), Some((9, 38, "4".into())));
        assert_eq!(find("kernels[1].a"), Some((9, 25, "2".into())));
        assert_eq!(find("l1.nope"), None);
    }

    #[test]
    fn lists_fields_of_a_struct() {
        let p = parse_path("l1").unwrap();
        assert_eq!(fields_at(SRC, &p), vec!["sets", "ways"]);
        assert_eq!(fields_at(SRC, &[]), vec!["name", "l1", "dram", "kernels"]);
    }

    #[test]
    fn paths_round_trip() {
        let p = parse_path("a.b[2][3].c").unwrap();
        assert_eq!(render_path(&p), "a.b[2][3].c");
        assert!(parse_path("a.b[x]").is_none());
    }
}
