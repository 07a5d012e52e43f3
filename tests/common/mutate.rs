//! Mutations of real input files for the parser fuzzers (issue 37.6): a real sample with a few
//! edits — characters deleted, duplicated or inserted, tokens swapped, copied or replaced by
//! extreme values, the text cut short or emptied — is input of the kind a user's typo, a
//! half-written file or a hostile hand makes. Positions are taken modulo the text's length, so
//! every generated edit applies to every text.

use proptest::prelude::*;
use warpscope::config::{ConfigError, Origin};

/// Values that break parsers and arithmetic: numbers at and past the integer limits, floats
/// that are not finite, brackets and quotes left open, comment markers, a byte-order mark, a
/// NUL, right-to-left and multi-byte characters, line ends.
pub const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "-0",
    "1.5",
    "1e3",
    "NaN",
    "inf",
    "-inf",
    "1e309",
    "1e-320",
    "255",
    "256",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999999999999",
    "0x",
    "0xffffffffffffffffff",
    "\"\"",
    "\"",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ";",
    "=",
    "#",
    "//",
    "/*",
    "Some(",
    "None",
    "true",
    "\u{feff}",
    "\0",
    "\r",
    "\n",
    "\t",
    "é",
    "日本",
    "🦀",
    "\u{202e}",
    "r#\"",
    "-",
    "--",
];

/// Text to insert or to put in place of a token: mostly [`EXTREMES`], else printable ASCII or
/// any characters at all.
pub fn junk() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(EXTREMES).prop_map(String::from),
        2 => "[ -~]{0,8}",
        1 => any::<char>().prop_map(String::from),
        1 => "\\PC{1,4}",
    ]
}

/// One edit of a text.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Removes up to `n` characters from the `at`-th.
    Delete(usize, usize),
    /// Repeats up to `n` characters from the `at`-th in place.
    Duplicate(usize, usize),
    /// Inserts text before the `at`-th character.
    Insert(usize, String),
    /// Keeps the first `at` characters (none: the empty file).
    Truncate(usize),
    /// Swaps the `a`-th and `b`-th tokens.
    Swap(usize, usize),
    /// Puts a copy of the `b`-th token in place of the `a`-th.
    Copy(usize, usize),
    /// Replaces the `i`-th token.
    Replace(usize, String),
    /// Replaces the `i`-th number (a token starting with a digit), or the `i`-th token when
    /// there is none.
    Number(usize, String),
}

/// Any single edit; numbers are replaced most often, as they are where bounds are checked.
pub fn edit() -> impl Strategy<Value = Edit> {
    let at = any::<usize>;
    prop_oneof![
        2 => (at(), 1usize..48).prop_map(|(a, n)| Edit::Delete(a, n)),
        1 => (at(), 1usize..48).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        2 => (at(), junk()).prop_map(|(a, j)| Edit::Insert(a, j)),
        1 => prop_oneof![Just(0usize), at()].prop_map(Edit::Truncate),
        1 => (at(), at()).prop_map(|(a, b)| Edit::Swap(a, b)),
        1 => (at(), at()).prop_map(|(a, b)| Edit::Copy(a, b)),
        2 => (at(), junk()).prop_map(|(a, j)| Edit::Replace(a, j)),
        3 => (at(), junk()).prop_map(|(a, j)| Edit::Number(a, j)),
    ]
}

/// One to three edits.
pub fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(edit(), 1..4)
}

/// Byte spans of the tokens of `text`: runs of letters, digits and `_ . + -`, and each other
/// character that is not white space.
fn tokens(text: &str) -> Vec<std::ops::Range<usize>> {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '+' | '-');
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        if c.is_whitespace() {
            in_word = false;
        } else if word(c) && in_word {
            out.last_mut().expect("a word began").end = end;
        } else {
            out.push(i..end);
            in_word = word(c);
        }
    }
    out
}

/// The byte offset of the `at`-th character (modulo the characters and one past the end).
fn char_offset(text: &str, at: usize) -> usize {
    let n = text.chars().count();
    text.char_indices().nth(at % (n + 1)).map_or(text.len(), |(i, _)| i)
}

/// `text` with `e` applied.
pub fn apply_one(text: &str, e: &Edit) -> String {
    let toks = tokens(text);
    let pick = |i: usize| toks.get(i % toks.len().max(1)).cloned();
    let splice =
        |r: std::ops::Range<usize>, with: &str| format!("{}{with}{}", &text[..r.start], &text[r.end..]);
    match e {
        Edit::Delete(at, n) | Edit::Duplicate(at, n) => {
            let start = char_offset(text, *at);
            let end = text[start..].char_indices().nth(*n).map_or(text.len(), |(i, _)| start + i);
            let span = &text[start..end];
            let with = if matches!(e, Edit::Delete(..)) { String::new() } else { span.repeat(2) };
            splice(start..end, &with)
        }
        Edit::Insert(at, s) => {
            let i = char_offset(text, *at);
            splice(i..i, s)
        }
        Edit::Truncate(at) => text[..char_offset(text, *at)].to_string(),
        Edit::Swap(a, b) => match (pick(*a), pick(*b)) {
            (Some(x), Some(y)) if x != y => {
                let (x, y) = if x.start < y.start { (x, y) } else { (y, x) };
                format!(
                    "{}{}{}{}{}",
                    &text[..x.start],
                    &text[y.clone()],
                    &text[x.end..y.start],
                    &text[x],
                    &text[y.end..]
                )
            }
            _ => text.to_string(),
        },
        Edit::Copy(a, b) => match (pick(*a), pick(*b)) {
            (Some(x), Some(y)) => splice(x, &text[y]),
            _ => text.to_string(),
        },
        Edit::Replace(i, s) => match pick(*i) {
            Some(r) => splice(r, s),
            None => s.clone(),
        },
        Edit::Number(i, s) => {
            let numbers: Vec<_> = toks
                .iter()
                .filter(|r| text[(*r).clone()].starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            match numbers.get(i % numbers.len().max(1)) {
                Some(r) => splice((*r).clone(), s),
                None => apply_one(text, &Edit::Replace(*i, s.clone())),
            }
        }
    }
}

/// `text` with every edit applied in turn.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    edits.iter().fold(text.to_string(), |t, e| apply_one(&t, e))
}

/// Checks a refusal of `text`, read from the file `file`, as the manual promises (`file:line:col:
/// key: message`): it names the file, and either a line and column inside the text (or just
/// past its end) or the key it is about; and it says something.
pub fn check_refusal(e: &ConfigError, file: &str, text: &str) -> Result<(), TestCaseError> {
    let shown = e.to_string();
    match &e.origin {
        Origin::File(f) => prop_assert_eq!(f.as_str(), file, "{}", shown),
        other => prop_assert!(false, "{} names {:?}, not the file {}", shown, other, file),
    }
    check_place(e, text)?;
    prop_assert!(e.position.is_some() || !e.key.is_empty(), "{} has no position and no key", shown);
    Ok(())
}

/// Checks that a position, if `e` has one, is inside `text` or just past its end, and that `e`
/// says something.
pub fn check_place(e: &ConfigError, text: &str) -> Result<(), TestCaseError> {
    let shown = e.to_string();
    prop_assert!(!e.message.trim().is_empty(), "{} says nothing", shown);
    if let Some((line, col)) = e.position {
        let lines: Vec<&str> = text.split('\n').collect();
        prop_assert!(line >= 1 && line <= lines.len() + 1, "{}: line {} of {}", shown, line, lines.len());
        let len = lines.get(line - 1).map_or(0, |l| l.len());
        prop_assert!(col >= 1 && col <= len + 2, "{}: column {} of a line of {} bytes", shown, col, len);
    }
    Ok(())
}
