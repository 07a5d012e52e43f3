//! Checkpoints: the machine's whole state at a cycle, on disk (`checkpoint save FILE`), and a
//! session opened from one (`--resume FILE`, [`super::Session::resume`]).
//!
//! The file is versioned and checked before anything is built from it:
//!
//! ```text
//! "warpscope checkpoint\n"   magic, 21 bytes
//! version                    u32, little-endian (FORMAT_VERSION)
//! length                     u64, little-endian: bytes of the body
//! SHA-256 of the body        32 bytes
//! body                       postcard: Header, then the Gpu
//! ```
//!
//! The machine's config and workload are not in it — they are built again from the command
//! line, as for any session — only their digests, which must match. The body's digest catches
//! a damaged file, so a flipped byte is refused rather than read as another machine. The body
//! is postcard (serde, compact, pure Rust): the per-cycle code is untouched, the state types
//! only derive `Serialize` and `Deserialize`.

use crate::config::{Config, ConfigError, Origin};
use crate::sim::Gpu;
use crate::sim::stats::metrics::group;
use crate::workload::{Kernel, Workload};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::sync::Arc;

const MAGIC: &[u8] = b"warpscope checkpoint\n";

/// The layout of the body; any change to the machine's state types changes it too.
pub const FORMAT_VERSION: u32 = 2;

/// Bytes before the body: magic, version, length, digest.
const PREAMBLE: usize = MAGIC.len() + 4 + 8 + 32;

/// A body longer than this is refused before it is read (a checkpoint of the largest sample
/// machine is tens of MB).
const MAX_BODY_BYTES: u64 = 16 << 30;

/// What a checkpoint says about itself, read before the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub cycle: u64,
    /// The machine's name and [`config_digest`].
    pub machine: String,
    pub config_digest: String,
    /// The workload's description ([`describe_workload`]) and [`workload_digest`].
    pub workload: String,
    pub workload_digest: String,
    /// The machine's settings as JSON (name and debugger settings aside), so that a resume on
    /// another machine can say which settings differ.
    pub settings: String,
}

impl Header {
    fn of(gpu: &Gpu) -> Header {
        Header { cycle: gpu.cycle, ..Header::of_parts(&gpu.config, &gpu.workload) }
    }

    /// The header a machine of `config` running `workload` would write (its cycle aside).
    fn of_parts(config: &Config, workload: &Workload) -> Header {
        Header {
            cycle: 0,
            machine: config.name.clone(),
            config_digest: config_digest(config),
            workload: describe_workload(workload),
            workload_digest: workload_digest(workload),
            settings: serde_json::to_string(&config.machine_only()).expect("configs serialize"),
        }
    }
}

/// SHA-256 of a value's `Debug` text, as 16 hex digits: the value as built, every field.
fn debug_digest(value: &impl std::fmt::Debug) -> String {
    use std::fmt::Write;
    struct H(Sha256);
    impl Write for H {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.update(s.as_bytes());
            Ok(())
        }
    }
    let mut h = H(Sha256::new());
    let _ = write!(h, "{value:?}");
    h.0.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of a machine: every setting but its name and the debugger's own (snapshot
/// interval and budget, event log size), which do not change what the machine does.
pub fn config_digest(c: &Config) -> String {
    debug_digest(&c.machine_only())
}

/// The settings whose values differ between two machines' settings (JSON as in a [`Header`]),
/// as `key: saved → here`, at most `most` of them and how many more.
fn differing(saved: &str, here: &str, most: usize) -> String {
    let flat = |text: &str| {
        let mut out = Vec::new();
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            crate::sim::stats::report::flatten("", &v, true, &mut out);
        }
        out.into_iter().map(|(k, v)| (k, v.to_string())).collect::<std::collections::BTreeMap<_, _>>()
    };
    let (saved, here) = (flat(saved), flat(here));
    let keys: std::collections::BTreeSet<&String> = saved.keys().chain(here.keys()).collect();
    let none = "(none)".to_string();
    let changed: Vec<String> = keys
        .into_iter()
        .filter(|k| saved.get(*k) != here.get(*k))
        .map(|k| format!("{k}: {} → {}", saved.get(k).unwrap_or(&none), here.get(k).unwrap_or(&none)))
        .collect();
    let mut text = changed.iter().take(most).cloned().collect::<Vec<_>>().join(", ");
    if changed.len() > most {
        text += &format!(" and {} more", changed.len() - most);
    }
    text
}

/// The digest of a workload as built, kernel by kernel: a synthetic kernel's program, sizes
/// and seed; a trace kernel's contents (wherever its file lies); a benchmark's launch by its
/// name and shape, with the workload's name, which holds every knob and the seed its input is
/// generated from. (The input itself, shared by every launch and hundreds of MB at the largest
/// knobs, would take seconds to digest.)
pub fn workload_digest(w: &Workload) -> String {
    let kernels: Vec<String> = w
        .kernels
        .iter()
        .map(|k| match k {
            Kernel::Synth(_) => format!("{k:?}"),
            Kernel::Trace(t) => t.identity(),
            Kernel::Nest(_) | Kernel::Bfs(_) | Kernel::Spmv(_) | Kernel::Sssp(_) => format!(
                "{}: {} {} CTAs of {} threads, {} B shared",
                w.name,
                k.name(),
                k.ctas(),
                k.threads_per_cta(),
                k.shared_bytes_per_cta()
            ),
        })
        .collect();
    debug_digest(&kernels)
}

/// A workload's name, kernels and CTAs, for messages.
pub fn describe_workload(w: &Workload) -> String {
    let ctas: u64 = w.kernels.iter().map(|k| u64::from(k.ctas())).sum();
    let kernels = w.kernels.len();
    format!("{} ({kernels} kernel{}, {} CTAs)", w.name, if kernels == 1 { "" } else { "s" }, group(ctas))
}

/// The checkpoint of `gpu`, as its file's bytes.
pub fn encode(gpu: &Gpu) -> Result<Vec<u8>, String> {
    let fail = |e: postcard::Error| format!("cannot encode the machine: {e}");
    let mut body = postcard::to_stdvec(&Header::of(gpu)).map_err(fail)?;
    body.extend(postcard::to_stdvec(gpu).map_err(fail)?);
    let mut out = Vec::with_capacity(PREAMBLE + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&body));
    out.extend(body);
    Ok(out)
}

/// Reads the checkpoint `path` and builds its machine with `config` and `workload`, which must
/// be those it was saved with. Every refusal names the file; one of another machine, workload
/// or format version names both sides.
pub fn load(path: &str, config: Arc<Config>, workload: Arc<Workload>) -> Result<(Header, Gpu), ConfigError> {
    let err = |message: String| ConfigError {
        origin: Origin::File(path.to_string()),
        position: None,
        key: String::new(),
        message,
    };
    let mut file = std::fs::File::open(path).map_err(|e| ConfigError::cannot_read(path, &e))?;
    let body = read_body(&mut file).map_err(|e| match e {
        Refusal::Io(e) => ConfigError::cannot_read(path, &e),
        Refusal::Bad(m) => err(m),
    })?;
    let damaged = |e: postcard::Error| err(format!("the checkpoint is damaged: {e}"));
    let (header, rest) = postcard::take_from_bytes::<Header>(&body).map_err(damaged)?;
    let here = Header::of_parts(&config, &workload);
    if header.config_digest != here.config_digest {
        return Err(err(format!(
            "saved on another machine: `{}` (config digest {}), not `{}` (digest {}), the one -c and --set give ({}, as saved → as given); resume it with the -c and --set it was saved with",
            header.machine,
            header.config_digest,
            here.machine,
            here.config_digest,
            differing(&header.settings, &here.settings, 4)
        )));
    }
    if header.workload_digest != here.workload_digest {
        return Err(err(format!(
            "saved with another workload: {} (digest {}), not {} (digest {}), the one -w and --set workload.* give; resume it with the -w and --set it was saved with",
            header.workload, header.workload_digest, here.workload, here.workload_digest
        )));
    }
    let mut gpu: Gpu = postcard::from_bytes(rest).map_err(damaged)?;
    if gpu.cycle != header.cycle {
        return Err(err(format!(
            "the checkpoint is damaged: its header says cycle {}, its machine is at cycle {}",
            header.cycle, gpu.cycle
        )));
    }
    gpu.reattach(config, workload).map_err(|e| err(format!("cannot resume: {e}")))?;
    Ok((header, gpu))
}

enum Refusal {
    Io(std::io::Error),
    Bad(String),
}

/// Reads and checks the preamble, then the body it announces, and checks the body's digest.
fn read_body(r: &mut impl Read) -> Result<Vec<u8>, Refusal> {
    let mut pre = [0u8; PREAMBLE];
    let got = read_up_to(r, &mut pre).map_err(Refusal::Io)?;
    let marked = got.min(MAGIC.len());
    if got == 0 || pre[..marked] != MAGIC[..marked] {
        return Err(Refusal::Bad("not a warpscope checkpoint (it does not start with one's mark)".into()));
    }
    if got < PREAMBLE {
        return Err(Refusal::Bad(format!(
            "the checkpoint is cut short: {got} bytes, less than its {PREAMBLE}-byte preamble"
        )));
    }
    let word = |at: usize, n: usize| pre[at..at + n].iter().rev().fold(0u64, |v, b| v << 8 | u64::from(*b));
    let version = word(MAGIC.len(), 4) as u32;
    if version != FORMAT_VERSION {
        return Err(Refusal::Bad(format!(
            "a checkpoint of format version {version}; this warpscope reads version {FORMAT_VERSION} only (save it again with this warpscope)"
        )));
    }
    let len = word(MAGIC.len() + 4, 8);
    if len > MAX_BODY_BYTES {
        return Err(Refusal::Bad(format!(
            "the checkpoint is damaged: it announces {len} bytes, more than any checkpoint holds"
        )));
    }
    let mut body = Vec::with_capacity(len as usize);
    r.take(len + 1).read_to_end(&mut body).map_err(Refusal::Io)?;
    if body.len() as u64 != len {
        return Err(Refusal::Bad(format!(
            "the checkpoint is {}: its body is {} bytes, not the {len} it announces",
            if (body.len() as u64) < len { "cut short" } else { "damaged" },
            body.len()
        )));
    }
    if Sha256::digest(&body)[..] != pre[PREAMBLE - 32..] {
        return Err(Refusal::Bad("the checkpoint is damaged: its contents do not match their digest".into()));
    }
    Ok(body)
}

/// Fills `buf` as far as the reader goes; returns how many bytes it holds.
fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Writes the checkpoint of `gpu` to `path` (atomically, after the checks every output gets).
pub fn save(gpu: &Gpu, path: &str) -> Result<String, String> {
    if path == "-" {
        return Err("checkpoint save writes a file: give its path, e.g. `checkpoint save run.wsck`".into());
    }
    crate::output::check_target("", path).map_err(|e| e.to_string())?;
    let bytes = encode(gpu)?;
    crate::output::write_bytes_atomic(path, &bytes).map_err(|e| format!("{e:#}"))?;
    Ok(format!(
        "Checkpoint of cycle {} written to {path} ({:.1} MiB); open it with --resume {path} and the same -c, -w and --set",
        group(gpu.cycle),
        bytes.len() as f64 / (1 << 20) as f64
    ))
}
