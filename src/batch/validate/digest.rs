//! Digests that tie stored peer results to what the peer ran: its option files and the traces.
//!
//! An option file's digest is SHA-256 over its options only — each `-name value` line (or
//! `key = value;` of an interconnect file) with comments (`#` or `//` to the end of the line)
//! and blank lines dropped and runs of spaces made one — so a copy of GPGPU-Sim's file without
//! its licence header or comments (`tests/fixtures/gpgpusim/`) has the digest of the file the
//! peer read, and a changed value does not. A trace's digest is SHA-256 over the files
//! `trace export` writes for the workload, names and bytes, in the order it writes them.

use crate::batch::export::write_files;
use crate::workload::Workload;
use crate::workload::accelsim::write::AddressModes;
use anyhow::Result;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of an option file's options (see the module's doc).
pub fn options(text: &str) -> String {
    let mut h = Sha256::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("");
        let code = code.split("//").next().unwrap_or("");
        let option = code.split_whitespace().collect::<Vec<_>>().join(" ");
        if !option.is_empty() {
            h.update(option.as_bytes());
            h.update(b"\n");
        }
    }
    hex(&h.finalize())
}

/// A writer that feeds a shared hasher.
struct Feed(Rc<RefCell<Sha256>>);

impl Write for Feed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The digest of `workload`'s exported trace, computed as the export streams it (nothing is
/// written to disk or held in memory).
pub fn trace(workload: &Workload) -> Result<String> {
    Ok(trace_counted(workload)?.0)
}

/// [`trace`], and the trace's thread instructions (active lanes over all its lines).
pub fn trace_counted(workload: &Workload) -> Result<(String, u64)> {
    let h = Rc::new(RefCell::new(Sha256::new()));
    let written = write_files(workload, AddressModes::Compressed, |name| {
        h.borrow_mut().update(format!("\n== {name}\n").as_bytes());
        Ok(Feed(Rc::clone(&h)))
    })?;
    let h = Rc::try_unwrap(h).map_err(|_| anyhow::anyhow!("the digest is still shared"))?.into_inner();
    Ok((hex(&h.finalize()), written.thread_instructions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_option_file_s_digest_ignores_comments_and_spacing_but_not_values() {
        let a = options("# Copyright ...\n-gpgpu_n_clusters 80\n\n-gpgpu_l1_latency   20 # cycles\n");
        assert_eq!(a, options("-gpgpu_n_clusters 80\n-gpgpu_l1_latency 20\n"));
        assert_ne!(a, options("-gpgpu_n_clusters 80\n-gpgpu_l1_latency 25\n"));
        assert_eq!(options("// fly\nflit_size = 40; // bytes\n"), options("flit_size = 40;"));
        // SHA-256 of "-x 1\n", as sha256sum prints it.
        assert_eq!(options("-x 1"), "93b8dfee723813b17fa72ab29c3b1573829856b91349786f0bb8089814f8ebff");
    }
}
