//! Accel-Sim SASS traces as workloads (`docs/trace-format.md`): a `kernelslist.g`
//! (kernels run in order; `Memcpy*` lines are not simulated) or a single `kernel-N.traceg`.
//!
//! Loading validates each kernel file completely in one streaming pass — header,
//! thread-block structure, every instruction line, `insts =` counts, address modes, opcode
//! widths — and keeps an index: where each thread block starts. The same pass keeps the
//! decoded thread blocks while they fit in [`KEEP_DECODED_BYTES`]; beyond that a CTA's
//! instructions are read from the file again when it launches ([`TraceKernel::load_cta`]), so
//! a multi-gigabyte kernel is never in memory whole. Either way a CTA is a shared immutable
//! [`CtaTrace`]; each warp holds an `Arc` of it and a position ([`TraceCursor`]), so a
//! snapshot of the machine copies no instructions. CTAs launch in file order. Errors read
//! `file:line:col: expected ..., found ...`.
//!
//! How opcodes map to the machine (atomics, reductions, generic accesses, widths, registers)
//! is in [`opcode`]. Warps run their traced instructions in order: every line is one issue
//! slot, non-memory instructions are ALU operations whose destination registers the
//! scoreboard tracks, and a warp ends after its last instruction.

pub mod body;
pub mod line;
pub mod opcode;
pub mod write;

use super::instr::{Instr, LaneAddrs, NO_REG, Op, Space};
use crate::config::{ConfigError, Origin};
pub use body::Header;
use body::{Body, BodySink, Line, LineReader, TraceError};
use line::{Addresses, LineError, RawInstr};
use opcode::OpcodeTable;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a kernel's text is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceSource {
    File(PathBuf),
    /// Compiled into the binary (the built-in workload).
    Embedded(&'static str),
}

/// Where a thread block is in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CtaEntry {
    /// Line number of its `#BEGIN_TB`, and the byte span from that line to after `#END_TB`.
    line: usize,
    start: u64,
    end: u64,
}

/// Bytes of decoded instructions and addresses a trace keeps from its loading pass (all its
/// kernels together): a trace this small is parsed once, not again at every CTA launch.
pub const KEEP_DECODED_BYTES: usize = 64 << 20;

/// The thread blocks decoded while loading, in file order.
#[derive(Clone)]
struct Decoded(Arc<[Arc<CtaTrace>]>);

impl std::fmt::Debug for Decoded {
    /// A count, not every instruction.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Decoded({} thread blocks)", self.0.len())
    }
}

/// One kernel of a trace: its header and the index of its thread blocks.
#[derive(Clone, Debug)]
pub struct TraceKernel {
    pub header: Header,
    /// The file as the user named it (for messages).
    pub path: String,
    source: TraceSource,
    ctas: Arc<[CtaEntry]>,
    /// Σ `insts =` over all warps.
    pub instructions: u64,
    /// FNV-1a of the file's bytes.
    digest: u64,
    /// Every thread block, decoded, when they fit in the budget the kernel was loaded with.
    decoded: Option<Decoded>,
    /// The `MemcpyHtoD` lines of its `kernelslist.g` between the previous kernel and this one,
    /// and after it when it is the list's last: kept so that an export writes them back.
    /// warpscope does not simulate them (see [`Memcpy`]).
    pub memcpys_before: Vec<Memcpy>,
    pub memcpys_after: Vec<Memcpy>,
}

/// A `MemcpyHtoD,0x<address>,<bytes>` line of a `kernelslist.g`: a copy from the host that
/// the tracer recorded between kernel launches. Accel-Sim's `-gpgpu_perf_sim_memcpy 1` fills
/// the L2 with the copied sectors (`gpgpu_sim::perf_memcpy_to_gpu`), but at the address cut to
/// 32 bits (its `wr_addr` is an `unsigned`), so no kernel of an NVBit trace, whose addresses
/// lie above 4 GiB, ever hits those lines; warpscope does not fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memcpy {
    pub addr: u64,
    pub bytes: u64,
}

impl Memcpy {
    /// Reads a `MemcpyHtoD` line as Accel-Sim's `parse_memcpy_info` does: three
    /// comma-separated fields, a hex address and a decimal byte count.
    fn parse(line: &str) -> Option<Memcpy> {
        let mut f = line.split(',');
        let (kind, addr, bytes) = (f.next()?, f.next()?.trim(), f.next()?);
        if kind != "MemcpyHtoD" || f.next().is_some() {
            return None;
        }
        let hex = addr.strip_prefix("0x").or_else(|| addr.strip_prefix("0X"))?;
        Some(Memcpy { addr: u64::from_str_radix(hex, 16).ok()?, bytes: bytes.trim().parse().ok()? })
    }

    /// The line, as the tracer writes it.
    pub fn line(&self) -> String {
        format!("MemcpyHtoD,{:#018x},{}", self.addr, self.bytes)
    }
}

impl PartialEq for TraceKernel {
    /// Same content (a built-in kernel equals its file).
    fn eq(&self, o: &Self) -> bool {
        // Whether the thread blocks were kept decoded is a matter of memory, not content.
        self.content() == o.content()
    }
}

impl TraceKernel {
    /// What the kernel is, wherever its file lies: the file's digest, its header and its
    /// thread blocks' places in it.
    fn content(&self) -> (u64, &Header, &[CtaEntry]) {
        (self.digest, &self.header, &self.ctas)
    }

    /// [`TraceKernel::content`] as text, for a checkpoint's workload digest.
    pub fn identity(&self) -> String {
        format!("{:?}", self.content())
    }
}

/// A memory instruction's addresses inside a [`CtaTrace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AddrRef {
    None,
    /// The k-th active lane accesses `base + k·stride`.
    Stride {
        base: u64,
        stride: i64,
    },
    /// One address per active lane from `addrs[start..]`.
    List {
        start: u32,
    },
}

/// A decoded instruction line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TraceInstr {
    pc: u32,
    mask: u32,
    op: Op,
    dst: u8,
    dst_regs: u8,
    srcs: [u8; 4],
    /// Index into [`CtaTrace::opcodes`].
    opcode: u16,
    addrs: AddrRef,
}

/// The decoded instructions of one thread block, shared by its warps.
#[derive(Debug, PartialEq, Eq)]
pub struct CtaTrace {
    /// The kernel's digest and the CTA's index in launch (file) order.
    kernel: u64,
    pub index: u32,
    /// `thread block = x,y,z`.
    pub coords: [u32; 3],
    /// Per warp: its range of `instrs`.
    warps: Vec<(u32, u32)>,
    instrs: Vec<TraceInstr>,
    addrs: Vec<u64>,
    /// Distinct opcodes of the block.
    opcodes: OpcodeTable,
}

impl CtaTrace {
    /// The `index`-th thread block of kernel `kernel`, with `warps` warps and no instructions yet.
    fn new(kernel: u64, index: u32, warps: usize) -> CtaTrace {
        CtaTrace {
            kernel,
            index,
            coords: [0; 3],
            warps: vec![(0, 0); warps],
            instrs: Vec::new(),
            addrs: Vec::new(),
            opcodes: OpcodeTable::default(),
        }
    }

    /// Decodes a line of `warp` and appends it.
    fn push(&mut self, header: &Header, warp: u32, raw: &RawInstr<'_>, last: bool) -> Result<(), LineError> {
        let i = decode(raw, header, last, &mut self.addrs, &mut self.opcodes)?;
        let n = self.instrs.len() as u32;
        let range = &mut self.warps[warp as usize];
        if range.0 == range.1 {
            *range = (n, n);
        }
        range.1 = n + 1;
        self.instrs.push(i);
        Ok(())
    }

    /// Bytes its instructions and addresses take.
    fn bytes(&self) -> usize {
        self.instrs.len() * std::mem::size_of::<TraceInstr>() + self.addrs.len() * std::mem::size_of::<u64>()
    }
}

/// A warp's position in its CTA's trace: all of its program state. A checkpoint holds the
/// position only ([`TracePosition`]); [`TraceCursor::reattach`] finds the CTA's instructions
/// in the workload again.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(from = "TracePosition", into = "TracePosition")]
pub struct TraceCursor {
    cta: Arc<CtaTrace>,
    warp: u16,
    next: u32,
    end: u32,
}

impl PartialEq for TraceCursor {
    /// Same kernel, CTA, warp and position (the instructions follow from those).
    fn eq(&self, o: &Self) -> bool {
        (self.cta.kernel, self.cta.index, self.warp, self.next, self.end)
            == (o.cta.kernel, o.cta.index, o.warp, o.next, o.end)
    }
}

impl Eq for TraceCursor {}

impl std::fmt::Debug for TraceCursor {
    /// Position only: machine-state hashes format warps with `{:?}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "TraceCursor {{ cta: {}, warp: {}, next: {}, end: {} }}",
            self.cta.index, self.warp, self.next, self.end
        )
    }
}

/// Where a [`TraceCursor`] is, without the CTA's instructions: its kernel's digest, the CTA's
/// index, the warp and its range of instructions.
#[derive(serde::Serialize, serde::Deserialize)]
struct TracePosition {
    kernel: u64,
    cta: u32,
    warp: u16,
    next: u32,
    end: u32,
}

impl From<TraceCursor> for TracePosition {
    fn from(c: TraceCursor) -> TracePosition {
        TracePosition { kernel: c.cta.kernel, cta: c.cta.index, warp: c.warp, next: c.next, end: c.end }
    }
}

impl From<TracePosition> for TraceCursor {
    /// A cursor without its instructions until [`TraceCursor::reattach`] finds them.
    fn from(p: TracePosition) -> TraceCursor {
        let cta = Arc::new(CtaTrace::new(p.kernel, p.cta, 0));
        TraceCursor { cta, warp: p.warp, next: p.next, end: p.end }
    }
}

impl TraceCursor {
    /// Gives a cursor read from a checkpoint its CTA's instructions, from the kernel of
    /// `kernels` with the cursor's digest. An idle cursor has none to find.
    pub fn reattach<'a>(&mut self, mut kernels: impl Iterator<Item = &'a TraceKernel>) -> Result<(), String> {
        if self.cta.index == u32::MAX {
            return Ok(());
        }
        let k = kernels.find(|k| k.digest == self.cta.kernel).ok_or_else(|| {
            format!("no kernel of the workload has the digest {:016x} of a warp's trace", self.cta.kernel)
        })?;
        if self.cta.index >= k.ctas() {
            return Err(format!("kernel {} has no thread block {}", k.header.name, self.cta.index));
        }
        self.cta = k.load_cta(self.cta.index)?;
        let range = self.cta.warps.get(self.warp as usize).copied().unwrap_or_default();
        if self.next < range.0 || self.next > range.1 || self.end != range.1 {
            return Err(format!(
                "warp {} of thread block {} is outside its trace",
                self.warp, self.cta.index
            ));
        }
        Ok(())
    }

    /// A cursor with no instructions (an unused warp slot).
    pub fn idle() -> TraceCursor {
        let cta = CtaTrace::new(0, u32::MAX, 0);
        TraceCursor { cta: Arc::new(cta), warp: 0, next: 0, end: 0 }
    }

    /// The next instruction; memory instructions write their lane addresses to `addrs`.
    /// After the last one (when a warp's trace does not end with `EXIT`), an `EXIT`.
    #[inline]
    pub fn fetch(&mut self, addrs: &mut LaneAddrs) -> Instr {
        if self.next >= self.end {
            let pc =
                self.end.checked_sub(1).and_then(|i| self.cta.instrs.get(i as usize)).map_or(0, |t| t.pc);
            self.next = self.end + 1;
            // The trace names no lanes for it (and a warp slot with no trace has none).
            return Instr::exit(pc, 0);
        }
        let t = self.cta.instrs[self.next as usize];
        self.next += 1;
        match t.addrs {
            AddrRef::None => {}
            AddrRef::Stride { base, stride } => {
                for (k, lane) in super::synth::lanes(t.mask).enumerate() {
                    addrs[lane as usize] = base.wrapping_add((k as i64).wrapping_mul(stride) as u64);
                }
            }
            AddrRef::List { start } => {
                let list = &self.cta.addrs[start as usize..];
                for (k, lane) in super::synth::lanes(t.mask).enumerate() {
                    addrs[lane as usize] = list[k];
                }
            }
        }
        Instr { pc: t.pc, op: t.op, dst: t.dst, dst_regs: t.dst_regs, srcs: t.srcs, mask: t.mask }
    }

    /// The SASS opcode of the instruction fetched last (for the debugger's views; `None`
    /// before the first and for the `EXIT` added after a trace that lacks one).
    pub fn opcode(&self) -> Option<&str> {
        let i = self.next.checked_sub(1).filter(|&i| i < self.end)?;
        Some(self.cta.opcodes.name(self.cta.instrs[i as usize].opcode))
    }
}

/// Decodes a parsed line; `last` marks its warp's last instruction (the only `EXIT` that
/// ends the warp). Addresses of listed modes go to `pool`.
fn decode(
    raw: &RawInstr<'_>,
    h: &Header,
    last: bool,
    pool: &mut Vec<u64>,
    opcodes: &mut OpcodeTable,
) -> Result<TraceInstr, LineError> {
    let at_opcode = |message: String| LineError { col: raw.opcode_col, message };
    let dsts = || raw.dsts[..raw.n_dsts].iter().copied().filter(|&r| r != NO_REG);
    let (opcode, info) =
        opcodes.classify(raw.opcode, raw.mem_width, dsts().next().is_some()).map_err(at_opcode)?;
    let generic = raw.first_addr().map_or(Space::Global, |a| h.windows.space(a));
    let mut op = info.op(generic);
    if op == Op::Exit && !last {
        // Lanes retire; the warp goes on with the rest.
        op = Op::Alu;
    }
    // Registers written: from the lowest listed destination to the end of the highest's
    // range (one range; listed destinations are consecutive in practice).
    let (dst, dst_regs) = match (op, dsts().min(), dsts().max()) {
        (Op::Alu | Op::Load { .. }, Some(lo), Some(hi)) => {
            let end = (u32::from(hi) + u32::from(info.dst_regs)).min(u32::from(NO_REG));
            (lo, (end - u32::from(lo)) as u8)
        }
        _ => (NO_REG, 1),
    };
    let writes = |r: u8| dst != NO_REG && r >= dst && u32::from(r) < u32::from(dst) + u32::from(dst_regs);
    let mut srcs = [NO_REG; 4];
    let mut n = 0;
    for &r in &raw.srcs[..raw.n_srcs] {
        // RZ never waits; a source it also writes is checked through its destinations.
        if r == NO_REG || writes(r) || srcs[..n].contains(&r) {
            continue;
        }
        if n == srcs.len() {
            return Err(at_opcode(format!(
                "expected at most 4 distinct source registers (besides RZ and the destinations), found more in {}",
                raw.opcode
            )));
        }
        srcs[n] = r;
        n += 1;
    }
    let addrs = match raw.addrs {
        _ if raw.mask == 0 || !op.is_memory() => AddrRef::None,
        Addresses::None => AddrRef::None,
        Addresses::Stride { base, stride } => AddrRef::Stride { base, stride },
        Addresses::Listed => {
            let start = pool.len() as u32;
            pool.extend_from_slice(&raw.lane_addrs[..raw.mask.count_ones() as usize]);
            AddrRef::List { start }
        }
    };
    Ok(TraceInstr { pc: raw.pc, mask: raw.mask, op, dst, dst_regs, srcs, opcode, addrs })
}

/// The validating pass: checks everything and records where each thread block is.
struct Indexer<'h> {
    header: &'h Header,
    ctas: Vec<CtaEntry>,
    /// Thread blocks seen, one bit per block of the grid.
    seen: Vec<u64>,
    instructions: u64,
    pool: Vec<u64>,
    opcodes: OpcodeTable,
    /// The thread blocks decoded so far, while they fit in `budget` bytes (`None` after).
    kept: Option<Vec<CtaTrace>>,
    budget: usize,
}

impl BodySink for Indexer<'_> {
    fn begin_block(&mut self, line: usize, offset: u64) {
        if let Some(kept) = &mut self.kept {
            kept.push(CtaTrace::new(0, self.ctas.len() as u32, self.header.warps_per_cta() as usize));
        }
        self.ctas.push(CtaEntry { line, start: offset, end: offset });
    }

    fn block_coords(&mut self, c: [u32; 3]) -> Result<(), String> {
        let g = self.header.grid;
        if c[0] >= g[0] || c[1] >= g[1] || c[2] >= g[2] {
            return Err(format!(
                "expected a thread block inside the grid ({},{},{}), found {},{},{}",
                g[0], g[1], g[2], c[0], c[1], c[2]
            ));
        }
        let id = u64::from(c[0]) + u64::from(g[0]) * (u64::from(c[1]) + u64::from(g[1]) * u64::from(c[2]));
        let (word, bit) = ((id / 64) as usize, id % 64);
        if self.seen[word] & (1 << bit) != 0 {
            return Err(format!("expected each thread block once, found {},{},{} again", c[0], c[1], c[2]));
        }
        self.seen[word] |= 1 << bit;
        if let Some(cta) = self.kept.as_mut().and_then(|k| k.last_mut()) {
            cta.coords = c;
        }
        Ok(())
    }

    fn instr(&mut self, warp: u32, raw: &RawInstr<'_>, last: bool) -> Result<(), LineError> {
        self.instructions += 1;
        if let Some(cta) = self.kept.as_mut().and_then(|k| k.last_mut()) {
            return cta.push(self.header, warp, raw, last);
        }
        self.pool.clear();
        decode(raw, self.header, last, &mut self.pool, &mut self.opcodes).map(|_| ())
    }

    fn end_block(&mut self, end: u64) {
        self.ctas.last_mut().expect("a block began").end = end;
        let bytes = self.kept.as_ref().and_then(|k| k.last()).map_or(0, CtaTrace::bytes);
        match self.budget.checked_sub(bytes) {
            Some(left) => self.budget = left,
            None => self.kept = None,
        }
    }
}

/// Decodes one thread block.
struct CtaBuilder<'h> {
    header: &'h Header,
    cta: CtaTrace,
}

impl BodySink for CtaBuilder<'_> {
    fn begin_block(&mut self, _line: usize, _offset: u64) {}

    fn block_coords(&mut self, coords: [u32; 3]) -> Result<(), String> {
        self.cta.coords = coords;
        Ok(())
    }

    fn instr(&mut self, warp: u32, raw: &RawInstr<'_>, last: bool) -> Result<(), LineError> {
        self.cta.push(self.header, warp, raw, last)
    }

    fn end_block(&mut self, _end: u64) {}
}

fn config_error(path: &str, e: TraceError) -> ConfigError {
    ConfigError {
        origin: Origin::File(path.to_string()),
        position: Some((e.line, e.col)),
        key: String::new(),
        message: e.message,
    }
}

impl TraceSource {
    /// A reader of bytes `start..end` (`None` = to the end).
    fn open(&self, start: u64, end: Option<u64>) -> std::io::Result<Box<dyn BufRead + '_>> {
        Ok(match self {
            TraceSource::File(p) => {
                let mut f = std::fs::File::open(p)?;
                f.seek(SeekFrom::Start(start))?;
                match end {
                    Some(e) => Box::new(BufReader::with_capacity(1 << 16, f.take(e - start))),
                    None => Box::new(BufReader::with_capacity(1 << 16, f)),
                }
            }
            TraceSource::Embedded(s) => {
                let b = s.as_bytes();
                let end = end.map_or(b.len(), |e| e as usize).min(b.len());
                Box::new(&b[(start as usize).min(end)..end])
            }
        })
    }
}

impl TraceKernel {
    /// Reads and validates a kernel file; `path` names it in messages.
    pub fn load(source: TraceSource, path: &str) -> Result<TraceKernel, ConfigError> {
        TraceKernel::load_keeping(source, path, KEEP_DECODED_BYTES)
    }

    /// [`TraceKernel::load`], keeping the decoded thread blocks if they take at most `budget`
    /// bytes.
    pub fn load_keeping(source: TraceSource, path: &str, budget: usize) -> Result<TraceKernel, ConfigError> {
        if path.ends_with(".xz") {
            return Err(ConfigError {
                origin: Origin::File(path.to_string()),
                position: None,
                key: String::new(),
                message: "expected an uncompressed .traceg file, found an .xz archive (decompress it with `xz -dk`)"
                    .into(),
            });
        }
        let reader = source.open(0, None).map_err(|e| ConfigError::cannot_read(path, &e))?;
        let mut r = LineReader::new(reader, 0, 0, true);
        let err = |e| config_error(path, e);
        let (header, begin) = body::header(&mut r).map_err(err)?;
        let ctas = header.ctas();
        if ctas > 1 << 28 {
            return Err(err(TraceError::new(
                1,
                1,
                format!("expected a grid of at most 2^28 thread blocks, found {ctas}"),
            )));
        }
        let mut ix = Indexer {
            header: &header,
            ctas: Vec::new(),
            seen: vec![0; ctas.div_ceil(64) as usize],
            instructions: 0,
            pool: Vec::with_capacity(32),
            opcodes: OpcodeTable::default(),
            kept: Some(Vec::new()),
            budget,
        };
        let mut body = Body::new(&header);
        if let Some(l) = begin {
            body.line(l, &mut ix).map_err(err)?;
        }
        while let Some(l) = r.next_line().map_err(err)? {
            body.line(l, &mut ix).map_err(err)?;
        }
        body.finish(r.line + 1).map_err(err)?;
        if ix.ctas.len() as u64 != ctas {
            let g = header.grid;
            return Err(err(TraceError::new(
                r.line + 1,
                1,
                format!(
                    "expected {ctas} thread blocks (grid dim ({},{},{})), found {} (the file is truncated)",
                    g[0],
                    g[1],
                    g[2],
                    ix.ctas.len()
                ),
            )));
        }
        let digest = r.digest.expect("the loading pass keeps a digest").0;
        let decoded = ix.kept.map(|kept| {
            Decoded(kept.into_iter().map(|cta| Arc::new(CtaTrace { kernel: digest, ..cta })).collect())
        });
        let (ctas, instructions) = (ix.ctas.into(), ix.instructions);
        drop(r);
        Ok(TraceKernel {
            header,
            path: path.to_string(),
            source,
            ctas,
            instructions,
            digest,
            decoded,
            memcpys_before: Vec::new(),
            memcpys_after: Vec::new(),
        })
    }

    /// Bytes of the thread blocks kept decoded (0 if they are read at launch).
    fn decoded_bytes(&self) -> usize {
        self.decoded.as_ref().map_or(0, |Decoded(ctas)| ctas.iter().map(|c| c.bytes()).sum())
    }

    /// Thread blocks in the grid.
    pub fn ctas(&self) -> u32 {
        self.ctas.len() as u32
    }

    /// The decoded instructions of the `cta`-th thread block of the file: kept from loading,
    /// or read again. The file was validated when it was loaded; an error here means it
    /// changed since.
    pub fn load_cta(&self, cta: u32) -> Result<Arc<CtaTrace>, String> {
        if let Some(Decoded(ctas)) = &self.decoded {
            return Ok(Arc::clone(&ctas[cta as usize]));
        }
        let e = self.ctas[cta as usize];
        let changed = |m: String| format!("{m} (the trace changed after it was loaded)");
        let reader = self
            .source
            .open(e.start, Some(e.end))
            .map_err(|io| changed(format!("{}: cannot read: {io}", self.path)))?;
        let mut r = LineReader::new(reader, e.line - 1, e.start, false);
        let warps = self.header.warps_per_cta() as usize;
        let mut b = CtaBuilder { header: &self.header, cta: CtaTrace::new(self.digest, cta, warps) };
        let mut body = Body::new(&self.header);
        let fail = |e: TraceError| changed(config_error(&self.path, e).to_string());
        loop {
            let l: Option<Line<'_>> = r.next_line().map_err(fail)?;
            let Some(l) = l else {
                return Err(fail(TraceError::new(
                    r.line + 1,
                    1,
                    "expected `#END_TB`, found the end of the file",
                )));
            };
            if body.line(l, &mut b).map_err(fail)? {
                break;
            }
        }
        Ok(Arc::new(b.cta))
    }

    /// Cursors for every warp of a loaded CTA, warp 0 first.
    pub fn cursors(cta: &Arc<CtaTrace>) -> impl Iterator<Item = TraceCursor> + '_ {
        cta.warps.iter().enumerate().map(|(w, &(start, end))| TraceCursor {
            cta: Arc::clone(cta),
            warp: w as u16,
            next: start,
            end,
        })
    }
}

/// The kernels of a `kernelslist.g`, in order, keeping up to `budget` bytes of decoded
/// thread blocks ([`KEEP_DECODED_BYTES`] by default; 0 reads every CTA again at launch).
pub fn load_list(path: &Path, budget: usize) -> Result<Vec<TraceKernel>, ConfigError> {
    let name = path.display().to_string();
    let text = crate::config::read_file(path)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut kernels = Vec::new();
    // Shared by the kernels in list order.
    let mut budget = budget;
    let mut memcpys = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        let err = |col: usize, message: String| ConfigError {
            origin: Origin::File(name.clone()),
            position: Some((i + 1, col)),
            key: String::new(),
            message,
        };
        if t.starts_with("MemcpyHtoD") {
            memcpys.push(Memcpy::parse(t).ok_or_else(|| {
                err(1, format!("expected `MemcpyHtoD,0x<address>,<bytes>`, found {}", line::shown(t)))
            })?);
            continue;
        }
        // Accel-Sim ignores the other copies (device to host).
        if t.is_empty() || t.starts_with("Memcpy") {
            continue;
        }
        if !t.starts_with("kernel") || t.contains([',', ' ']) {
            return Err(err(
                1,
                format!(
                    "expected `kernel-<N>.traceg` or `MemcpyHtoD,0x<address>,<bytes>`, found {}",
                    line::shown(t)
                ),
            ));
        }
        let file = dir.join(t);
        let file_name = file.display().to_string();
        if !file.is_file() {
            return Err(err(1, format!("expected the kernel file {file_name}, found no such file")));
        }
        let mut kernel = TraceKernel::load_keeping(TraceSource::File(file), &file_name, budget)?;
        budget -= kernel.decoded_bytes();
        kernel.memcpys_before = std::mem::take(&mut memcpys);
        kernels.push(kernel);
    }
    if let Some(last) = kernels.last_mut() {
        last.memcpys_after = memcpys;
    }
    if kernels.is_empty() {
        // Where a kernel line was wanted: after the last line.
        return Err(ConfigError {
            origin: Origin::File(name),
            position: Some((text.lines().count() + 1, 1)),
            key: String::new(),
            message: "expected at least one `kernel-<N>.traceg` line, found the end of the file".into(),
        });
    }
    Ok(kernels)
}

/// Whether a file looks like a trace: `.traceg`/`.g`/`kernelslist` by name, or a text
/// starting like one.
pub fn kind_of(path: &Path) -> Option<TraceFileKind> {
    let name = path.file_name()?.to_string_lossy();
    if name.ends_with(".traceg") || name.ends_with(".traceg.xz") {
        return Some(TraceFileKind::Kernel);
    }
    if name.ends_with(".g") || name.starts_with("kernelslist") {
        return Some(TraceFileKind::List);
    }
    if name.ends_with(".ron") {
        return None;
    }
    let mut head = [0u8; 256];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut head)).ok()?;
    let first = std::str::from_utf8(&head[..n]).ok()?.trim_start();
    if first.starts_with("-kernel") || first.starts_with("-grid") {
        Some(TraceFileKind::Kernel)
    } else if first.starts_with("kernel-") || first.starts_with("Memcpy") {
        Some(TraceFileKind::List)
    } else {
        None
    }
}

/// The two trace inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFileKind {
    /// One `kernel-N.traceg`.
    Kernel,
    /// A `kernelslist.g`.
    List,
}

/// A short name for a trace workload: the folder, plus the file for a single kernel.
pub fn workload_name(path: &Path, kind: TraceFileKind) -> String {
    let dir = path.parent().and_then(|p| p.file_name()).map(|d| d.to_string_lossy().to_string());
    let stem = path.file_name().map(|f| f.to_string_lossy().trim_end_matches(".traceg").to_string());
    match (kind, dir, stem) {
        (TraceFileKind::List, Some(d), _) => d,
        (TraceFileKind::Kernel, Some(d), Some(s)) => format!("{d}/{s}"),
        (_, _, Some(s)) => s,
        _ => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::instr::Space;
    use line::LineFormat;

    /// Real lines of the shared samples (rodinia-bfs kernel-7, tracer 3; vectoradd, tracer 5).
    const BFS_DELTA: &str = "00f0 00212428 1 R8 LDG.E 1 R2 4 2 0x7fc841500d1c 16 40 24 24 40 ";
    const BFS_LANES: [u64; 6] = [
        0x7fc8_4150_0d1c,
        0x7fc8_4150_0d2c,
        0x7fc8_4150_0d54,
        0x7fc8_4150_0d6c,
        0x7fc8_4150_0d84,
        0x7fc8_4150_0dac,
    ];

    pub(super) fn lanes_of(raw: &RawInstr<'_>) -> Vec<u64> {
        let mut pool = Vec::new();
        let h = header(3);
        let mut opcodes = OpcodeTable::default();
        let t = decode(raw, &h, false, &mut pool, &mut opcodes).unwrap();
        let cta = Arc::new(CtaTrace {
            kernel: 0,
            index: 0,
            coords: [0; 3],
            warps: vec![(0, 1)],
            instrs: vec![t],
            addrs: pool,
            opcodes,
        });
        let mut c = TraceKernel::cursors(&cta).next().unwrap();
        let mut a = [0u64; 32];
        let i = c.fetch(&mut a);
        super::super::synth::lanes(i.mask).map(|l| a[l as usize]).collect()
    }

    fn header(version: u32) -> Header {
        Header {
            name: "k".into(),
            id: 1,
            grid: [1, 1, 1],
            block: [32, 1, 1],
            version: Some(version),
            binary_version: Some(80),
            lineinfo: false,
            windows: opcode::Windows { shmem_base: 0x7fc8_6700_0000, local_base: 0x7fc8_6500_0000 },
            shmem: 0,
            nregs: Some(21),
        }
    }

    /// `MemcpyHtoD` lines as Accel-Sim reads them: three comma-separated fields, a hex
    /// address, a decimal count; written back as the tracer writes them.
    #[test]
    fn memcpy_lines_parse_strictly_and_write_back() {
        let m = Memcpy::parse("MemcpyHtoD,0x00007fc841500000,32768").unwrap();
        assert_eq!(m, Memcpy { addr: 0x7fc8_4150_0000, bytes: 32768 });
        assert_eq!(m.line(), "MemcpyHtoD,0x00007fc841500000,32768");
        for bad in [
            "MemcpyHtoD 0x0 12",
            "MemcpyHtoD,0x0",
            "MemcpyHtoD,0x0,12,3",
            "MemcpyHtoD,00,12",
            "MemcpyHtoD,0xzz,12",
            "MemcpyHtoD,0x0,-1",
            "MemcpyHtoDx,0x0,1",
            "MemcpyHtoD,0x10000000000000000,1",
        ] {
            assert_eq!(Memcpy::parse(bad), None, "{bad}");
        }
    }

    proptest::proptest! {
        #![proptest_config(crate::cases::config(crate::cases::MEMCPY_LINES))]

        /// Any line starting like a copy parses or is refused, never panics; what parses writes
        /// back to a line that parses the same.
        #[test]
        fn any_copy_line_parses_or_is_refused(tail in "[,0-9a-fA-Fx \\-]{0,40}", addr in proptest::prelude::any::<u64>(), bytes in proptest::prelude::any::<u64>()) {
            if let Some(m) = Memcpy::parse(&format!("MemcpyHtoD{tail}")) {
                proptest::prop_assert_eq!(Memcpy::parse(&m.line()), Some(m));
            }
            let m = Memcpy { addr, bytes };
            proptest::prop_assert_eq!(Memcpy::parse(&m.line()), Some(m));
        }
    }

    #[test]
    fn every_tracer_version_and_address_mode_reads_the_same_instruction() {
        let v3 = LineFormat::new(Some(3), false);
        let base = line::parse(BFS_DELTA, v3).unwrap();
        assert_eq!(lanes_of(&base), BFS_LANES);
        assert_eq!((base.mask, base.dsts[0], base.srcs[0], base.mem_width), (0x0021_2428, 8, 2, 4));
        // Tracer 4 writes the same columns as 3.
        assert_eq!(line::parse(BFS_DELTA, LineFormat::new(Some(4), false)).unwrap(), base);
        // Before version 3 the writer put the thread block and warp in front.
        let text = format!("0 0 0 3 {BFS_DELTA}");
        let old = line::parse(&text, LineFormat::new(None, false)).unwrap();
        assert_eq!(old.ids, Some(([0, 0, 0], 3)));
        assert_eq!(lanes_of(&old), BFS_LANES);
        // Version 5 adds the immediate; lineinfo a leading line number.
        let text = format!("{BFS_DELTA}0 ");
        let v5 = line::parse(&text, LineFormat::new(Some(5), false)).unwrap();
        assert_eq!(lanes_of(&v5), BFS_LANES);
        let text = format!("118 {BFS_DELTA}");
        let li = line::parse(&text, LineFormat::new(Some(3), true)).unwrap();
        assert_eq!(lanes_of(&li), BFS_LANES);
        // Mode 0, as the writer prints it with compression off: one address per active lane.
        let listed: Vec<String> = BFS_LANES.iter().map(|a| format!("0x{a:016x}")).collect();
        let m0 = format!("00f0 00212428 1 R8 LDG.E 1 R2 4 0 {} ", listed.join(" "));
        assert_eq!(lanes_of(&line::parse(&m0, v3).unwrap()), BFS_LANES);
        // Mode 1 (vectoradd, tracer 5): base + k·stride over the active lanes.
        let m1 = line::parse(
            "00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7fb0fc430e00 4 0 ",
            LineFormat::new(Some(5), false),
        )
        .unwrap();
        let a = lanes_of(&m1);
        assert_eq!((a.len(), a[0], a[31]), (32, 0x7fb0_fc43_0e00, 0x7fb0_fc43_0e00 + 31 * 4));
        // A fully predicated-off load (rodinia-bfs kernel-7) has no addresses.
        let off = line::parse("01f0 00000000 1 R7 LDG.E 1 R4 4 1 0x0 0 ", v3).unwrap();
        assert!(lanes_of(&off).is_empty());
    }

    #[test]
    fn destinations_sources_exits_and_generic_spaces() {
        let h = header(3);
        let v3 = h.format();
        let dec = |l: &str, last: bool| {
            decode(&line::parse(l, v3).unwrap(), &h, last, &mut Vec::new(), &mut OpcodeTable::default())
                .unwrap()
        };
        // IMAD.WIDE R2 = R6·R3 writes the pair R2:R3; R3 is then checked as a destination.
        let w = dec("00e0 00000001 1 R2 IMAD.WIDE 2 R6 R3 0 ", false);
        assert_eq!((w.dst, w.dst_regs, w.srcs), (2, 2, [6, NO_REG, NO_REG, NO_REG]));
        let i = Instr { pc: 0, op: w.op, dst: w.dst, dst_regs: w.dst_regs, srcs: w.srcs, mask: 1 };
        assert_eq!(i.regs().collect::<Vec<_>>(), vec![6, 2, 3]);
        let m = dec("0030 ffffffff 1 R6 IMAD 2 R6 R3 0 ", false);
        assert_eq!((m.dst, m.dst_regs, m.srcs), (6, 1, [3, NO_REG, NO_REG, NO_REG]));
        // matrixmul: LDS.U.128 writes R12..R15.
        let l = dec("0278 ffffffff 1 R12 LDS.U.128 1 R2 16 1 0x0 0 ", false);
        assert_eq!((l.op, l.dst, l.dst_regs), (Op::Load { space: Space::Shared, width: 16 }, 12, 4));
        // A partly predicated EXIT retires lanes; only the warp's last instruction ends it.
        assert_eq!(dec("00b0 fffffffe 0 EXIT 0 0 ", false).op, Op::Alu);
        assert_eq!(dec("00b0 ffffffff 0 EXIT 0 0 ", true).op, Op::Exit);
        // Stores write no register; RZ is no dependency.
        let s = dec("00d0 00000001 0 STG.E.U8 2 R4 R255 1 2 0x7fc841520000 ", false);
        assert_eq!(
            (s.op, s.dst, s.srcs[..2].to_vec()),
            (Op::Store { space: Space::Global, width: 1 }, NO_REG, vec![4, NO_REG])
        );
        // Generic accesses by address window.
        let g = dec("0100 00000003 1 R4 LD.E.64 1 R2 8 1 0x7fc865000100 8 ", false);
        assert_eq!((g.op, g.dst_regs), (Op::Load { space: Space::Local, width: 8 }, 2));
        let g = dec("0100 00000003 0 ST.E 2 R2 R4 4 1 0x7fc867000100 4 ", false);
        assert_eq!(g.op, Op::Store { space: Space::Shared, width: 4 });
    }

    fn kernel(text: &str) -> Result<TraceKernel, ConfigError> {
        TraceKernel::load(TraceSource::Embedded(Box::leak(text.to_string().into_boxed_str())), "k.traceg")
    }

    /// Two CTAs of two warps from rodinia-bfs kernel-1 lines.
    const SMALL: &str = "-kernel name = _Z6KernelP4NodePiPbS2_S2_S1_i
-kernel id = 1
-grid dim = (2,1,1)
-block dim = (64,1,1)
-shmem base_addr = 0x00007fc867000000
-local mem base_addr = 0x00007fc865000000
-accelsim tracer version = 3

#traces format = threadblock_x threadblock_y threadblock_z warpid_tb PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses]

#BEGIN_TB

thread block = 0,0,0

warp = 0
insts = 3
00e0 00000001 1 R2 IMAD.WIDE 2 R6 R3 0 
00f0 00212428 1 R8 LDG.E 1 R2 4 2 0x7fc841500d1c 16 40 24 24 40 
00b0 ffffffff 0 EXIT 0 0 

warp = 1
insts = 2
0050 00000000 0 EXIT 0 0 
0060 ffffffff 1 R4 IADD3 2 R6 R255 0 
#END_TB

#BEGIN_TB
thread block = 1,0,0
warp = 1
insts = 1
00b0 ffffffff 0 EXIT 0 0 
warp = 0
insts = 1
00b0 ffffffff 0 EXIT 0 0 
#END_TB
";

    #[test]
    fn a_kernel_is_indexed_then_read_one_cta_at_a_time() {
        let k = kernel(SMALL).unwrap();
        assert_eq!((k.ctas(), k.instructions, k.header.warps_per_cta()), (2, 7, 2));
        let cta = k.load_cta(0).unwrap();
        let mut warps: Vec<TraceCursor> = TraceKernel::cursors(&cta).collect();
        let mut a = [0u64; 32];
        let i = warps[0].fetch(&mut a);
        assert_eq!((i.pc, i.dst, i.dst_regs), (0xe0, 2, 2));
        assert_eq!(warps[0].opcode(), Some("IMAD.WIDE"));
        let i = warps[0].fetch(&mut a);
        assert_eq!(
            (i.op, i.mask, a[3], a[21]),
            (Op::Load { space: Space::Global, width: 4 }, 0x0021_2428, BFS_LANES[0], BFS_LANES[5])
        );
        assert_eq!(warps[0].fetch(&mut a).op, Op::Exit);
        // Warp 1 ends without EXIT: one is added, with no opcode of its own.
        assert_eq!(warps[1].fetch(&mut a).op, Op::Alu, "a predicated-off EXIT is an issue slot");
        assert_eq!(warps[1].fetch(&mut a).op, Op::Alu);
        assert_eq!((warps[1].fetch(&mut a).op, warps[1].opcode()), (Op::Exit, None));
        let second = k.load_cta(1).unwrap();
        assert_eq!((second.index, second.coords, second.instrs.len()), (1, [1, 0, 0], 2));
        // Same text, same kernel; a different text is a different kernel.
        assert_eq!(kernel(SMALL).unwrap(), k);
        assert_ne!(kernel(&SMALL.replace("0060 ffffffff", "0060 fffffff0")).unwrap(), k);
    }

    /// The thread blocks kept from the loading pass are the ones a launch reads again from
    /// the file; a budget they do not fit in keeps none.
    #[test]
    fn kept_thread_blocks_equal_those_read_again() {
        let source = || TraceSource::Embedded(Box::leak(SMALL.to_string().into_boxed_str()));
        let kept = TraceKernel::load(source(), "k.traceg").unwrap();
        let lazy = TraceKernel::load_keeping(source(), "k.traceg", 0).unwrap();
        assert!(kept.decoded.is_some() && lazy.decoded.is_none());
        assert_eq!(kept, lazy);
        for cta in 0..kept.ctas() {
            let (a, b) = (kept.load_cta(cta).unwrap(), lazy.load_cta(cta).unwrap());
            assert_eq!(*a, *b, "thread block {cta}");
        }
        let first = lazy.load_cta(0).unwrap().bytes();
        let partial = TraceKernel::load_keeping(source(), "k.traceg", first).unwrap();
        assert!(partial.decoded.is_none(), "the second block does not fit: nothing is kept");
    }

    fn err(text: &str) -> String {
        kernel(text).unwrap_err().to_string()
    }

    #[test]
    fn bad_kernels_say_where_what_was_expected_and_what_was_found() {
        let e = err(&SMALL.replace("0x7fc841500d1c 16 40 24 24 40", "0x7fc841500d1c 16 40 24 24"));
        assert_eq!(
            e,
            "k.traceg:18:50: mask 00212428 has 6 active lanes, so 5 deltas were expected; found 4 deltas"
        );
        let e = err(&SMALL.replace("4 2 0x7fc841500d1c", "4 7 0x7fc841500d1c"));
        assert_eq!(
            e,
            "k.traceg:18:33: expected an address mode (0 list, 1 base+stride, 2 base+deltas), found `7`"
        );
        let e = err(&SMALL.replace("-kernel id = 1\n", "-kernel id = 1\n-binary version = sm_70\n"));
        assert_eq!(
            e,
            "k.traceg:3:19: expected a version number (70 for sm_70) for `-binary version`, found `sm_70`"
        );
        assert_eq!(
            kernel(&SMALL.replace("-kernel id = 1\n", "-binary version = 86\n"))
                .unwrap()
                .header
                .binary_version,
            Some(86)
        );
        let e = err(&SMALL.replace("insts = 3", "insts = 4"));
        assert_eq!(
            e,
            "k.traceg:21:1: expected instruction 4 of the 4 declared for warp 0, found `warp = 1`: warp 0 declares `insts = 4` but has only 3 instruction lines"
        );
        let e = err(&SMALL.replace("insts = 3", "insts = 2"));
        assert!(e.starts_with("k.traceg:19:1: expected `warp = <n>` or `#END_TB`, found `00b0 ffffffff 0 EXIT 0 0`: more instruction lines"), "{e}");
        let cut = &SMALL[..SMALL.find("warp = 0\ninsts = 1").unwrap()];
        let e = err(cut);
        assert!(e.starts_with("k.traceg:32:1: expected `warp = <n>` or `#END_TB`, found the end of the file (the file is truncated"), "{e}");
        let e = err(&SMALL[..SMALL.find("#BEGIN_TB\nthread block = 1").unwrap()]);
        assert_eq!(
            e,
            "k.traceg:27:1: expected 2 thread blocks (grid dim (2,1,1)), found 1 (the file is truncated)"
        );
        let e = err(&SMALL.replace("thread block = 1,0,0", "thread block = 0,0,0"));
        assert_eq!(e, "k.traceg:28:1: expected each thread block once, found 0,0,0 again");
        let e = err(&SMALL.replace("0060 ffffffff 1 R4 IADD3", "0060 ffffffff 1 R4 iadd3"));
        assert_eq!(e, "k.traceg:24:20: expected an opcode (e.g. LDG.E.64, IMAD.WIDE, EXIT), found `iadd3`");
        let e = err(&SMALL.replace("warp = 1\ninsts = 1", "warp = 2\ninsts = 1"));
        assert_eq!(e, "k.traceg:29:1: expected a warp number below 2 (the block's warps), found 2");
        let e = err(&SMALL.replace("-grid dim = (2,1,1)\n", ""));
        assert!(e.starts_with("k.traceg:9:1: expected a `-grid dim = (x,y,z)` line in the header"), "{e}");
        let e = err(&SMALL.replace("tracer version = 3", "tracer version = 5"));
        assert_eq!(e, "k.traceg:17:40: expected the immediate (tracer version 5), found the end of the line");
        let e = err(&SMALL.replace("tracer version = 3", "tracer version = 2"));
        assert!(e.starts_with("k.traceg:17:1: expected the thread block x (a leading column of tracer versions before 3), found `00e0`"), "{e}");
        let e = err(&SMALL
            .replace("\n00e0", "\n0 0 0 1 00e0")
            .replace("tracer version = 3", "tracer version = 2"));
        assert!(
            e.starts_with(
                "k.traceg:17:1: expected thread block 0,0,0 warp 0 in the leading columns, found 0,0,0 warp 1"
            ),
            "{e}"
        );
    }
}
