//! One instruction line of a `.traceg` file (`docs/trace-format.md`), parsed without
//! allocating:
//!
//! ```text
//! [tb_x tb_y tb_z warp]  [line_num]  PC mask  dest_count R..  OPCODE  src_count R..
//! mem_width  [addr_mode addresses...]  [immediate]
//! ```
//!
//! The leading ids appear for tracer versions below 3, the line number with
//! `-enable lineinfo = 1`, the immediate from version 5 on. Addresses follow the tracer's
//! writer (`tracer_tool.cu`): mode 0 lists one address per active lane, mode 1 is a base and
//! a stride, mode 2 a base and one delta per further active lane. A line must end where its
//! fields end, so a delta count that does not match the mask is an error.

/// How a kernel's instruction lines are laid out (from its header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineFormat {
    /// Tracer version < 3: four leading `tb_x tb_y tb_z warp` columns.
    pub leading_ids: bool,
    /// `-enable lineinfo = 1`: a leading source line number.
    pub lineinfo: bool,
    /// Tracer version ≥ 5: a trailing immediate.
    pub immediate: bool,
}

impl LineFormat {
    /// The layout written by tracer `version` (`None` = no version line: an old trace).
    pub fn new(version: Option<u32>, lineinfo: bool) -> LineFormat {
        let v = version.unwrap_or(0);
        LineFormat { leading_ids: v < 3, lineinfo, immediate: v >= 5 }
    }
}

/// Destination registers a line may list.
pub const MAX_DSTS: usize = 4;
/// Source registers a line may list (the tracer's `MAX_SRC` is 5).
pub const MAX_SRCS: usize = 8;

/// A line's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addresses {
    /// Not a memory instruction (`mem_width` 0).
    None,
    /// Mode 1: the k-th active lane accesses `base + k·stride`.
    Stride { base: u64, stride: i64 },
    /// Modes 0 and 2: one address per active lane, in [`RawInstr::lane_addrs`].
    Listed,
}

/// A parsed instruction line; the opcode borrows from the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawInstr<'a> {
    /// Tracer version < 3: the thread block and warp the line claims to belong to.
    pub ids: Option<([u32; 3], u32)>,
    pub pc: u32,
    /// Active lanes (active and predicate true).
    pub mask: u32,
    pub dsts: [u8; MAX_DSTS],
    pub n_dsts: usize,
    pub opcode: &'a str,
    /// 1-based column of the opcode (for errors about it).
    pub opcode_col: usize,
    pub srcs: [u8; MAX_SRCS],
    pub n_srcs: usize,
    /// Bytes per lane as the tracer wrote them (0 = no memory access).
    pub mem_width: u32,
    pub addrs: Addresses,
    /// Modes 0 and 2: the active lanes' addresses, lowest lane first.
    pub lane_addrs: [u64; 32],
}

impl RawInstr<'_> {
    /// Address of the first active lane (memory instructions with active lanes).
    pub fn first_addr(&self) -> Option<u64> {
        match self.addrs {
            _ if self.mask == 0 => None,
            Addresses::None => None,
            Addresses::Stride { base, .. } => Some(base),
            Addresses::Listed => Some(self.lane_addrs[0]),
        }
    }
}

/// A problem at a column of a line: what was expected, what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineError {
    pub col: usize,
    pub message: String,
}

/// Shortens a token for a message.
pub fn shown(tok: &str) -> String {
    if tok.chars().count() > 40 {
        format!("`{}…`", tok.chars().take(40).collect::<String>())
    } else {
        format!("`{tok}`")
    }
}

/// Tokens of a line with their columns.
struct Tokens<'a> {
    line: &'a str,
    it: std::str::SplitAsciiWhitespace<'a>,
    /// Column just after the last token taken (where a missing token would be).
    end_col: usize,
}

impl<'a> Tokens<'a> {
    fn new(line: &'a str) -> Tokens<'a> {
        Tokens { line, it: line.split_ascii_whitespace(), end_col: 1 }
    }

    fn col(&self, tok: &str) -> usize {
        tok.as_ptr() as usize - self.line.as_ptr() as usize + 1
    }

    fn next(&mut self) -> Option<(&'a str, usize)> {
        let t = self.it.next()?;
        let c = self.col(t);
        self.end_col = c + t.len();
        Some((t, c))
    }

    /// The next token, or an error naming what was expected.
    fn expect(&mut self, what: &str) -> Result<(&'a str, usize), LineError> {
        self.expect_with(|| what.to_string())
    }

    /// [`Tokens::expect`] with a description built only for the error (every line of a
    /// trace passes here; formatting one per token would dominate loading).
    fn expect_with(&mut self, what: impl Fn() -> String) -> Result<(&'a str, usize), LineError> {
        self.next().ok_or_else(|| LineError {
            col: self.end_col + 1,
            message: format!("expected {}, found the end of the line", what()),
        })
    }

    /// Tokens left.
    fn remaining(&self) -> usize {
        self.it.clone().count()
    }
}

fn bad(col: usize, what: &str, tok: &str) -> LineError {
    LineError { col, message: format!("expected {what}, found {}", shown(tok)) }
}

/// Up to 16 hex digits after an optional `0x`. The number parsers read each byte once: a
/// trace has a few million of these tokens, and they are read again as thread blocks launch.
fn hex(tok: &str) -> Option<u64> {
    let digits = tok.strip_prefix("0x").or_else(|| tok.strip_prefix("0X")).unwrap_or(tok);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    digits.bytes().try_fold(0u64, |v, b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        Some(v << 4 | u64::from(d))
    })
}

/// Decimal digits only, as a `T` (`None` if it does not fit).
fn dec<T: TryFrom<u64>>(tok: &str) -> Option<T> {
    if tok.is_empty() {
        return None;
    }
    let v = tok.bytes().try_fold(0u64, |v, b| {
        if !b.is_ascii_digit() {
            return None;
        }
        v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })?;
    T::try_from(v).ok()
}

/// Decimal digits with an optional leading `-`.
fn signed(tok: &str) -> Option<i64> {
    match tok.strip_prefix('-') {
        // The magnitude of i64::MIN is one more than i64::MAX.
        Some(digits) => dec::<u64>(digits).filter(|&m| m <= 1 << 63).map(|m| (m as i64).wrapping_neg()),
        None => dec::<i64>(tok),
    }
}

/// `R<n>` with n in 0..=255 (R255 is RZ).
fn register(tok: &str) -> Option<u8> {
    dec::<u8>(tok.strip_prefix('R')?)
}

/// Whether `tok` reads as an opcode: an upper-case letter, then letters, digits, `.`, `_`.
pub fn is_opcode(tok: &str) -> bool {
    tok.bytes().next().is_some_and(|b| b.is_ascii_uppercase())
        && tok.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
}

/// Parses one instruction line.
pub fn parse(line: &str, f: LineFormat) -> Result<RawInstr<'_>, LineError> {
    let mut t = Tokens::new(line);
    let mut ids = None;
    if f.leading_ids {
        let mut v = [0u32; 4];
        for (i, what) in ["the thread block x", "the thread block y", "the thread block z", "the warp id"]
            .iter()
            .enumerate()
        {
            let what = || format!("{what} (a leading column of tracer versions before 3)");
            let (tok, c) = t.expect_with(what)?;
            v[i] = dec(tok).ok_or_else(|| bad(c, &what(), tok))?;
        }
        ids = Some(([v[0], v[1], v[2]], v[3]));
    }
    if f.lineinfo {
        let what = "a source line number (`-enable lineinfo = 1`)";
        let (tok, c) = t.expect(what)?;
        dec::<u32>(tok).ok_or_else(|| bad(c, what, tok))?;
    }
    let (tok, c) = t.expect("the PC (hex)")?;
    let pc = hex(tok).and_then(|v| u32::try_from(v).ok()).ok_or_else(|| bad(c, "the PC (hex)", tok))?;
    let what = "the active mask (hex, 32 bits)";
    let (tok, c) = t.expect(what)?;
    let mask = hex(tok).and_then(|v| u32::try_from(v).ok()).ok_or_else(|| bad(c, what, tok))?;

    let what = "the destination register count (0..4)";
    let (tok, c) = t.expect(what)?;
    let n_dsts: usize = dec(tok).filter(|&n| n <= MAX_DSTS).ok_or_else(|| bad(c, what, tok))?;
    let mut dsts = [0u8; MAX_DSTS];
    for (i, d) in dsts.iter_mut().enumerate().take(n_dsts) {
        let what = || format!("destination register {} of {n_dsts} (R0..R255)", i + 1);
        let (tok, c) = t.expect_with(what)?;
        *d = register(tok).ok_or_else(|| bad(c, &what(), tok))?;
    }

    let (opcode, opcode_col) = t.expect("the opcode")?;
    if !is_opcode(opcode) {
        return Err(bad(opcode_col, "an opcode (e.g. LDG.E.64, IMAD.WIDE, EXIT)", opcode));
    }

    let what = || format!("the source register count (0..{MAX_SRCS})");
    let (tok, c) = t.expect_with(what)?;
    let n_srcs: usize = dec(tok).filter(|&n| n <= MAX_SRCS).ok_or_else(|| bad(c, &what(), tok))?;
    let mut srcs = [0u8; MAX_SRCS];
    for (i, s) in srcs.iter_mut().enumerate().take(n_srcs) {
        let what = || format!("source register {} of {n_srcs} (R0..R255)", i + 1);
        let (tok, c) = t.expect_with(what)?;
        *s = register(tok).ok_or_else(|| bad(c, &what(), tok))?;
    }

    let what = "the memory width in bytes (0 = not a memory instruction)";
    let (tok, c) = t.expect(what)?;
    let mem_width: u32 = dec(tok).filter(|&w| w <= 1024).ok_or_else(|| bad(c, what, tok))?;

    let mut lane_addrs = [0u64; 32];
    let active = mask.count_ones() as usize;
    let trailing = usize::from(f.immediate);
    let addrs = if mem_width == 0 {
        Addresses::None
    } else {
        let what = "an address mode (0 list, 1 base+stride, 2 base+deltas)";
        let (tok, c) = t.expect(what)?;
        match tok {
            "0" => {
                let left = t.remaining();
                if left != active + trailing {
                    return Err(count_error(t.end_col + 1, mask, active, "addresses", left, f));
                }
                for a in lane_addrs.iter_mut().take(active) {
                    let (tok, c) = t.expect("a lane address (hex)")?;
                    *a = hex(tok).ok_or_else(|| bad(c, "a lane address (hex)", tok))?;
                }
                Addresses::Listed
            }
            "1" => {
                let (tok, c) = t.expect("the base address (hex)")?;
                let base = hex(tok).ok_or_else(|| bad(c, "the base address (hex)", tok))?;
                let (tok, c) = t.expect("the stride (decimal)")?;
                let stride = signed(tok).ok_or_else(|| bad(c, "the stride (decimal)", tok))?;
                Addresses::Stride { base, stride }
            }
            "2" => {
                let (tok, c) = t.expect("the base address (hex)")?;
                let base = hex(tok).ok_or_else(|| bad(c, "the base address (hex)", tok))?;
                let deltas = active.saturating_sub(1);
                let left = t.remaining();
                if left != deltas + trailing {
                    return Err(count_error(t.end_col + 1, mask, deltas, "deltas", left, f));
                }
                let mut a = base;
                if active > 0 {
                    lane_addrs[0] = base;
                }
                for slot in lane_addrs.iter_mut().take(active).skip(1) {
                    let (tok, c) = t.expect("a delta (decimal)")?;
                    a = a.wrapping_add(signed(tok).ok_or_else(|| bad(c, "a delta (decimal)", tok))? as u64);
                    *slot = a;
                }
                Addresses::Listed
            }
            _ => return Err(bad(c, what, tok)),
        }
    };
    if f.immediate {
        let what = "the immediate (tracer version 5)";
        let (tok, c) = t.expect(what)?;
        if signed(tok).is_none() && hex(tok).is_none() {
            return Err(bad(c, what, tok));
        }
    }
    if let Some((tok, c)) = t.next() {
        return Err(bad(c, "the end of the line", tok));
    }
    Ok(RawInstr {
        ids,
        pc,
        mask,
        dsts,
        n_dsts,
        opcode,
        opcode_col,
        srcs,
        n_srcs,
        mem_width,
        addrs,
        lane_addrs,
    })
}

fn count_error(col: usize, mask: u32, need: usize, what: &str, left: usize, f: LineFormat) -> LineError {
    let found = if f.immediate { left.saturating_sub(1) } else { left };
    let imm = if f.immediate { " and the immediate" } else { "" };
    LineError {
        col,
        message: format!(
            "mask {mask:08x} has {} active lanes, so {need} {what}{imm} were expected; found {found} {what}{}",
            mask.count_ones(),
            if f.immediate && left == 0 { " and no immediate" } else { "" }
        ),
    }
}

#[cfg(test)]
mod tests {
    /// The one-pass number parsers agree with the standard library's on what a trace may
    /// hold and on what it must not (signs, overflow, stray characters, empty tokens).
    #[test]
    fn number_tokens_read_as_the_standard_parsers_read_them() {
        let tokens = [
            "0",
            "7",
            "42",
            "255",
            "256",
            "00012",
            "4294967295",
            "4294967296",
            "18446744073709551615",
            "18446744073709551616",
            "9223372036854775807",
            "9223372036854775808",
            "-0",
            "-1",
            "-128",
            "-9223372036854775808",
            "-9223372036854775809",
            "+5",
            "",
            "-",
            "1a",
            "0x",
            "0x7fc841500d84",
            "0XFFFF",
            "ffffffffffffffff",
            "1ffffffffffffffff",
            "0xg",
            "7FC8",
            "R7",
            " 1",
        ];
        let is_dec = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        for t in tokens {
            assert_eq!(dec::<u8>(t), if is_dec(t) { t.parse().ok() } else { None }, "u8 {t:?}");
            assert_eq!(dec::<u32>(t), if is_dec(t) { t.parse().ok() } else { None }, "u32 {t:?}");
            assert_eq!(dec::<usize>(t), if is_dec(t) { t.parse().ok() } else { None }, "usize {t:?}");
            let signed_ok = is_dec(t.strip_prefix('-').unwrap_or(t));
            assert_eq!(signed(t), if signed_ok { t.parse().ok() } else { None }, "i64 {t:?}");
            let digits = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
            let hex_ok =
                !digits.is_empty() && digits.len() <= 16 && digits.bytes().all(|b| b.is_ascii_hexdigit());
            assert_eq!(hex(t), if hex_ok { u64::from_str_radix(digits, 16).ok() } else { None }, "hex {t:?}");
        }
    }

    use super::*;

    const V3: LineFormat = LineFormat { leading_ids: false, lineinfo: false, immediate: false };
    const V5: LineFormat = LineFormat { leading_ids: false, lineinfo: false, immediate: true };

    #[test]
    fn base_delta_follows_the_writer() {
        // rodinia-bfs kernel-1: one active lane, so no deltas.
        let r = parse("00f0 00000001 1 R8 LDG.E 1 R2 4 2 0x7fc841500004 ", V3).unwrap();
        assert_eq!((r.pc, r.mask, r.dsts[0], r.opcode, r.srcs[0]), (0xf0, 1, 8, "LDG.E", 2));
        assert_eq!((r.addrs, r.lane_addrs[0]), (Addresses::Listed, 0x7fc8_4150_0004));
        let e = parse("00f0 00000001 1 R8 LDG.E 1 R2 4 2 0x7fc841500004 4 ", V3).unwrap_err();
        assert!(e.message.contains("1 active lanes, so 0 deltas were expected; found 1"), "{}", e.message);
    }

    #[test]
    fn errors_say_what_was_expected_and_found() {
        let e = parse("0010 ffffzfff 1 R6 S2R 0 0 ", V3).unwrap_err();
        assert_eq!(
            (e.col, e.message.as_str()),
            (6, "expected the active mask (hex, 32 bits), found `ffffzfff`")
        );
        let e = parse("0010 ffffffff 1 R6 S2R 0", V3).unwrap_err();
        assert_eq!(
            e.message,
            "expected the memory width in bytes (0 = not a memory instruction), found the end of the line"
        );
        let e = parse("0010 ffffffff 1 R4 LDG.E 1 R2 4 3 0x10 ", V3).unwrap_err();
        assert!(e.message.starts_with("expected an address mode"), "{}", e.message);
        let e = parse("0000 ffffffff 1 R1 MOV 0 0 ", V5).unwrap_err();
        assert_eq!(e.message, "expected the immediate (tracer version 5), found the end of the line");
    }
}
