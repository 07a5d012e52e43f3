//! The structure of a kernel file: its header, then thread blocks of warps of instruction
//! lines. One state machine reads it for both passes — the validating pass over the whole
//! file at load time, and the read of one thread block when its CTA launches — so the
//! second can meet nothing the first did not accept.

use super::line::{self, LineError, LineFormat, RawInstr, shown};
use super::opcode::Windows;
use std::io::BufRead;

/// A problem at a line and column of a trace file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl TraceError {
    pub fn new(line: usize, col: usize, message: impl Into<String>) -> TraceError {
        TraceError { line, col, message: message.into() }
    }

    fn at(line: usize, e: LineError) -> TraceError {
        TraceError { line, col: e.col, message: e.message }
    }
}

/// The longest line of a trace file, in bytes. An instruction line is under 1 KB: with 32
/// lanes listed, its addresses take 32 × 19 bytes (`0x` and 16 hex digits, a space), or a base
/// and 31 deltas of at most 20 digits each, after a few registers and the opcode. The longest
/// line of a real trace is the header's kernel name, a mangled C++ name, which for
/// template-heavy libraries (CUTLASS, Thrust, Eigen) runs to several kilobytes; 1 MB leaves
/// a hundredfold margin. A longer line is refused before more of it is held in memory, so an
/// endless file (`-w kernel-1.traceg` linked to `/dev/zero`) ends at its first line instead of
/// in all of memory, as `dram --trace` refuses a line past its `MAX_LINE_BYTES`.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// Reads lines from a buffered source with a reused buffer (memory bounded by
/// [`MAX_LINE_BYTES`]), tracking the line number and byte offset.
pub struct LineReader<R> {
    r: R,
    buf: Vec<u8>,
    /// Number of the last line returned (1-based).
    pub line: usize,
    /// Byte offset just after the last line returned.
    pub offset: u64,
    /// Updated with every byte read, when asked for: the loading pass digests the file; a
    /// thread block read again during the run does not.
    pub digest: Option<Fnv>,
}

impl<R: BufRead> LineReader<R> {
    /// A reader whose first line is line `line + 1` at byte `offset`; `digest`: keep a
    /// digest of the bytes read.
    pub fn new(r: R, line: usize, offset: u64, digest: bool) -> LineReader<R> {
        LineReader { r, buf: Vec::with_capacity(256), line, offset, digest: digest.then(Fnv::default) }
    }

    /// The next line without its terminator.
    pub fn next_line(&mut self) -> Result<Option<Line<'_>>, TraceError> {
        self.buf.clear();
        let start = self.offset;
        let n = std::io::Read::take(&mut self.r, MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| TraceError::new(self.line + 1, 1, format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(None);
        }
        if n as u64 > MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
            return Err(TraceError::new(
                self.line + 1,
                1,
                format!(
                    "expected a line of at most {} MB (an instruction line is under 1 KB), found a longer one",
                    MAX_LINE_BYTES >> 20
                ),
            ));
        }
        self.line += 1;
        self.offset += n as u64;
        if let Some(d) = &mut self.digest {
            d.write(&self.buf);
        }
        let mut bytes = &self.buf[..];
        if let Some(b) = bytes.strip_suffix(b"\n") {
            bytes = b.strip_suffix(b"\r").unwrap_or(b);
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            TraceError::new(self.line, e.valid_up_to() + 1, "expected text, found a byte that is not UTF-8")
        })?;
        Ok(Some(Line { no: self.line, start, end: self.offset, text }))
    }
}

/// A line and where it is.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// 1-based line number.
    pub no: usize,
    /// Byte offsets of its start and just after its terminator.
    pub start: u64,
    pub end: u64,
    pub text: &'a str,
}

/// FNV-1a: a digest of the file's bytes (workloads compare equal by content).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A kernel's header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub id: u32,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// `-accelsim tracer version` (`None`: an old trace without the line).
    pub version: Option<u32>,
    /// `-binary version` (`70` for sm_70): whose opcode table the trace's opcodes are from.
    pub binary_version: Option<u32>,
    pub lineinfo: bool,
    pub windows: Windows,
    /// `-shmem`: shared memory per thread block, bytes (sizes an adaptive L1).
    pub shmem: u32,
    /// `-nregs`: registers per thread (`None` when the header has no such line).
    pub nregs: Option<u32>,
}

impl Header {
    pub fn format(&self) -> LineFormat {
        LineFormat::new(self.version, self.lineinfo)
    }

    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }

    pub fn threads_per_cta(&self) -> u32 {
        self.block.iter().product()
    }

    pub fn warps_per_cta(&self) -> u32 {
        self.threads_per_cta().div_ceil(32)
    }
}

/// Parses `(x,y,z)` or `x,y,z` of positive integers.
fn dims(text: &str, positive: bool) -> Option<[u32; 3]> {
    let t = text.trim();
    let t = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(t);
    let v: Vec<&str> = t.split(',').map(str::trim).collect();
    if v.len() != 3 {
        return None;
    }
    let mut out = [0u32; 3];
    for (o, s) in out.iter_mut().zip(v) {
        *o = s.parse().ok()?;
        if positive && *o == 0 {
            return None;
        }
    }
    Some(out)
}

/// Reads the header up to the `#traces format` line, or up to the first `#BEGIN_TB` when
/// there is none: then that line's number and byte span are returned for the body.
pub fn header<R: BufRead>(r: &mut LineReader<R>) -> Result<(Header, Option<Line<'static>>), TraceError> {
    let mut h = Header {
        name: String::new(),
        id: 0,
        grid: [0; 3],
        block: [0; 3],
        version: None,
        binary_version: None,
        lineinfo: false,
        windows: Windows::default(),
        shmem: 0,
        nregs: None,
    };
    let (mut grid_seen, mut block_seen) = (false, false);
    let (body_line, begin) = loop {
        let Some(Line { no, start, end, text }) = r.next_line()? else {
            return Err(TraceError::new(
                r.line + 1,
                1,
                "expected the kernel header and `#BEGIN_TB` thread blocks, found the end of the file",
            ));
        };
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        if t == "#BEGIN_TB" {
            break (no, Some(Line { no, start, end, text: "#BEGIN_TB" }));
        }
        if t.starts_with('#') {
            break (no + 1, None);
        }
        let Some(kv) = t.strip_prefix('-') else {
            return Err(TraceError::new(
                no,
                1,
                format!(
                    "expected a header line `-key = value` or `#traces format = ...`, found {}",
                    shown(t)
                ),
            ));
        };
        let Some((key, value)) = kv.split_once('=') else {
            return Err(TraceError::new(no, 1, format!("expected `-key = value`, found {}", shown(t))));
        };
        let (key, value) = (key.trim(), value.trim());
        let col = text.find(value).map_or(1, |c| c + 1);
        let err = |what: &str| {
            TraceError::new(no, col, format!("expected {what} for `-{key}`, found {}", shown(value)))
        };
        let hex = |v: &str| u64::from_str_radix(v.trim_start_matches("0x").trim_start_matches("0X"), 16).ok();
        match key {
            "kernel name" => h.name = value.to_string(),
            "kernel id" => h.id = value.parse().map_err(|_| err("a kernel number"))?,
            "grid dim" => {
                h.grid = dims(value, true).ok_or_else(|| err("`(x,y,z)` of positive integers"))?;
                grid_seen = true;
            }
            "block dim" => {
                h.block = dims(value, true).ok_or_else(|| err("`(x,y,z)` of positive integers"))?;
                if h.threads_per_cta() > 2048 {
                    return Err(err("at most 2048 threads per block"));
                }
                block_seen = true;
            }
            "accelsim tracer version" => {
                let v: u32 = value.parse().map_err(|_| err("a version number"))?;
                if v > 5 {
                    return Err(TraceError::new(
                        no,
                        col,
                        format!(
                            "expected tracer version 1 to 5, found {v} (its line format is not supported)"
                        ),
                    ));
                }
                h.version = Some(v);
            }
            "binary version" => {
                h.binary_version = Some(value.parse().map_err(|_| err("a version number (70 for sm_70)"))?)
            }
            "enable lineinfo" => {
                h.lineinfo = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(err("0 or 1")),
                }
            }
            "shmem base_addr" => h.windows.shmem_base = hex(value).ok_or_else(|| err("a hex address"))?,
            "shmem" => {
                h.shmem = value.parse().map_err(|_| err("the shared memory per thread block in bytes"))?
            }
            "local mem base_addr" => h.windows.local_base = hex(value).ok_or_else(|| err("a hex address"))?,
            "nregs" => h.nregs = Some(value.parse().map_err(|_| err("the registers per thread"))?),
            // Other keys (stream, nvbit version, ...) do not change the simulation.
            _ => {}
        }
    };
    for (seen, what) in [(grid_seen, "-grid dim = (x,y,z)"), (block_seen, "-block dim = (x,y,z)")] {
        if !seen {
            return Err(TraceError::new(
                body_line.max(1),
                1,
                format!("expected a `{what}` line in the header before the thread blocks, found none"),
            ));
        }
    }
    Ok((h, begin))
}

/// What the body scanner reports.
pub trait BodySink {
    /// `#BEGIN_TB` at `line`, starting at byte `offset`.
    fn begin_block(&mut self, line: usize, offset: u64);
    /// Its `thread block = x,y,z` (an error message if the sink rejects it).
    fn block_coords(&mut self, coords: [u32; 3]) -> Result<(), String>;
    /// An instruction of `warp`; `last` is its warp's last declared instruction.
    fn instr(&mut self, warp: u32, raw: &RawInstr<'_>, last: bool) -> Result<(), LineError>;
    /// `#END_TB`; the block ends before byte `end`.
    fn end_block(&mut self, end: u64);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Expecting `#BEGIN_TB` (or the end).
    Between,
    /// After `#BEGIN_TB`: expecting `thread block = x,y,z`.
    BlockHead,
    /// Expecting `warp = N` or `#END_TB`.
    InBlock,
    /// After `warp = N`: expecting `insts = K`.
    WarpHead(u32),
    /// Inside warp N's K instructions, `left` to go.
    InWarp { warp: u32, declared: u32, left: u32 },
}

/// The body's state machine.
pub struct Body {
    format: LineFormat,
    warps_per_cta: u32,
    state: State,
    /// Warps of the current block seen so far (bit per warp; at most 64).
    warps_seen: u64,
    coords: [u32; 3],
    block_line: usize,
}

fn field<'a>(t: &'a str, name: &str) -> Option<&'a str> {
    let rest = t.strip_prefix(name)?.trim_start();
    Some(rest.strip_prefix('=')?.trim())
}

fn describe(state: State) -> String {
    match state {
        State::Between => "`#BEGIN_TB`".into(),
        State::BlockHead => "`thread block = x,y,z`".into(),
        State::InBlock => "`warp = <n>` or `#END_TB`".into(),
        State::WarpHead(w) => format!("`insts = <count>` for warp {w}"),
        State::InWarp { warp, declared, left } => {
            format!("instruction {} of the {declared} declared for warp {warp}", declared - left + 1)
        }
    }
}

impl Body {
    pub fn new(h: &Header) -> Body {
        Body {
            format: h.format(),
            warps_per_cta: h.warps_per_cta(),
            state: State::Between,
            warps_seen: 0,
            coords: [0; 3],
            block_line: 0,
        }
    }

    /// Feeds one line. Returns true when a block ended with it.
    pub fn line<S: BodySink>(&mut self, l: Line<'_>, sink: &mut S) -> Result<bool, TraceError> {
        let Line { no, start: offset, end, text } = l;
        let t = text.trim();
        if t.is_empty() {
            return Ok(false);
        }
        let col = text.len() - text.trim_start().len() + 1;
        let unexpected = |state: State| {
            let mut m = format!("expected {}, found {}", describe(state), shown(t));
            if let State::InWarp { warp, declared, left } = state {
                m = format!(
                    "{m}: warp {warp} declares `insts = {declared}` but has only {} instruction lines",
                    declared - left
                );
            } else if t.as_bytes()[0].is_ascii_hexdigit() && state == State::InBlock {
                m.push_str(": more instruction lines than the warp's `insts =` count");
            }
            TraceError::new(no, col, m)
        };
        match self.state {
            State::Between => {
                if t != "#BEGIN_TB" {
                    return Err(unexpected(self.state));
                }
                sink.begin_block(no, offset);
                self.block_line = no;
                self.warps_seen = 0;
                self.state = State::BlockHead;
            }
            State::BlockHead => {
                let coords = field(t, "thread block")
                    .and_then(|v| dims(v, false))
                    .ok_or_else(|| unexpected(self.state))?;
                sink.block_coords(coords).map_err(|m| TraceError::new(no, col, m))?;
                self.coords = coords;
                self.state = State::InBlock;
            }
            State::InBlock if t.starts_with("cluster") => {} // cluster id/cta/rank (newer tracers)
            State::InBlock if t == "#END_TB" => {
                let expected =
                    if self.warps_per_cta >= 64 { u64::MAX } else { (1u64 << self.warps_per_cta) - 1 };
                if self.warps_seen != expected {
                    let missing = (!self.warps_seen & expected).trailing_zeros();
                    return Err(TraceError::new(
                        no,
                        col,
                        format!(
                            "expected all {} warps of thread block {},{},{} before `#END_TB`, found no `warp = {missing}`",
                            self.warps_per_cta, self.coords[0], self.coords[1], self.coords[2]
                        ),
                    ));
                }
                sink.end_block(end);
                self.state = State::Between;
                return Ok(true);
            }
            State::InBlock => {
                let v = field(t, "warp").ok_or_else(|| unexpected(self.state))?;
                let w: u32 = v.parse().map_err(|_| unexpected(self.state))?;
                if w >= self.warps_per_cta {
                    return Err(TraceError::new(
                        no,
                        col,
                        format!(
                            "expected a warp number below {} (the block's warps), found {w}",
                            self.warps_per_cta
                        ),
                    ));
                }
                if self.warps_seen & (1 << w) != 0 {
                    return Err(TraceError::new(
                        no,
                        col,
                        format!("expected each warp once per thread block, found warp {w} again"),
                    ));
                }
                self.warps_seen |= 1 << w;
                self.state = State::WarpHead(w);
            }
            State::WarpHead(warp) => {
                let v = field(t, "insts").ok_or_else(|| unexpected(self.state))?;
                let declared: u32 = v.parse().map_err(|_| unexpected(self.state))?;
                self.state = if declared == 0 {
                    State::InBlock
                } else {
                    State::InWarp { warp, declared, left: declared }
                };
            }
            State::InWarp { warp, declared, left } => {
                if t.starts_with('#') || t.starts_with("warp") {
                    return Err(unexpected(self.state));
                }
                let raw = line::parse(text, self.format).map_err(|e| TraceError::at(no, e))?;
                if let Some((tb, w)) = raw.ids
                    && (tb != self.coords || w != warp)
                {
                    return Err(TraceError::new(
                        no,
                        col,
                        format!(
                            "expected thread block {},{},{} warp {warp} in the leading columns, found {},{},{} warp {w}",
                            self.coords[0], self.coords[1], self.coords[2], tb[0], tb[1], tb[2]
                        ),
                    ));
                }
                sink.instr(warp, &raw, left == 1).map_err(|e| TraceError::at(no, e))?;
                self.state =
                    if left == 1 { State::InBlock } else { State::InWarp { warp, declared, left: left - 1 } };
            }
        }
        Ok(false)
    }

    /// Checks that the file did not end inside a block.
    pub fn finish(&self, line: usize) -> Result<(), TraceError> {
        if self.state == State::Between {
            return Ok(());
        }
        Err(TraceError::new(
            line,
            1,
            format!(
                "expected {}, found the end of the file (the file is truncated inside the thread block of line {})",
                describe(self.state),
                self.block_line
            ),
        ))
    }
}
