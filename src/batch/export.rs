//! `warpscope trace export`: any workload as an Accel-Sim trace directory (`kernelslist.g`
//! and one `kernel-N.traceg` per kernel, written by [`crate::workload::accelsim::write`]),
//! built in a temporary directory beside the target and renamed into place when complete,
//! so a failed export leaves nothing behind.

use crate::output::{AtomicDir, check_dir_target};
use crate::workload::Workload;
use crate::workload::accelsim::write::{self, AddressModes, Written};
use anyhow::{Context, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Options of an export.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportOptions {
    /// Replace an existing non-empty directory.
    pub force: bool,
    pub modes: AddressModes,
}

/// Checks the target directory before any work ([`check_dir_target`]) and creates the
/// temporary directory the export is written into.
pub fn prepare(target: &Path, opts: &ExportOptions) -> Result<AtomicDir> {
    check_dir_target("", &target.display().to_string(), opts.force)?;
    AtomicDir::create(target)
}

/// Writes `workload` into `dir` and moves it into place; returns what was written.
pub fn export(workload: &Workload, dir: AtomicDir, opts: &ExportOptions) -> Result<Written> {
    let total = write_files(workload, opts.modes, |name| {
        let path = dir.path().join(name);
        let file =
            std::fs::File::create(&path).with_context(|| format!("{}: cannot create", path.display()))?;
        Ok(BufWriter::with_capacity(1 << 16, file))
    })?;
    dir.commit()?;
    Ok(total)
}

/// Writes `workload`'s trace files, each into the writer `create` opens for its name: the
/// kernels in order, then `kernelslist.g`. A directory export and a trace digest
/// (`validate`) both write through here, so they see the same bytes.
pub fn write_files<W: Write>(
    workload: &Workload,
    modes: AddressModes,
    mut create: impl FnMut(&str) -> Result<W>,
) -> Result<Written> {
    let mut total = Written::default();
    for (i, kernel) in workload.kernels.iter().enumerate() {
        let name = write::file_name(i as u32 + 1);
        let mut out = create(&name)?;
        let w = write::write_kernel(&mut out, kernel, i as u32 + 1, modes).with_context(|| name.clone())?;
        out.flush().with_context(|| format!("{name}: cannot write"))?;
        total.ctas += w.ctas;
        total.warps += w.warps;
        total.instructions += w.instructions;
        total.thread_instructions += w.thread_instructions;
    }
    let mut list = create("kernelslist.g")?;
    write::write_list(&mut list, &workload.kernels)
        .and_then(|()| list.flush())
        .context("kernelslist.g: cannot write")?;
    Ok(total)
}
