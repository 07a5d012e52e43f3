//! How many CTAs of a kernel an SM holds at once, as GPGPU-Sim computes it when kernels do not
//! share SMs (`-gpgpu_concurrent_kernel_sm 0`): `shader_core_config::max_cta`
//! (`src/gpgpu-sim/shader.cc`), which `shader_core_ctx::can_issue_1block` compares with the
//! SM's active CTAs. The fewest of:
//!
//! - threads: the SM's threads over the CTA's, padded to whole warps (`-gpgpu_shader_core_pipeline`;
//!   warpscope's warp slots, `core.max_threads` / 32);
//! - `-gpgpu_shader_cta` (`core.max_ctas`);
//! - shared memory: `-gpgpu_shmem_size` (`core.shared_bytes`) over the kernel's `-shmem`, when
//!   it declares any;
//! - registers: `-gpgpu_shader_registers` (`core.registers`) over the padded threads × the
//!   kernel's `-nregs` rounded up to a multiple of 4, when it names any.
//!
//! A CTA that needs more than an SM has gives 0: GPGPU-Sim aborts ("Kernel requires more
//! resources than shader has"), unless `-gpgpu_ignore_resources_limitation 1`
//! (`core.ignore_resource_limits`) makes it 1. `max_cta` also caps the result at an even
//! share of the grid, ⌈CTAs / SMs⌉; that cap does not limit a launch here (one CTA per SM per
//! round-robin pass reaches it only when the grid is placed), but it does size the adaptive L1
//! ([`resident_ctas`]). A kernel declaring no shared memory and naming no registers (a trace
//! without `-nregs`) is limited by threads and CTA slots only, as in GPGPU-Sim.

use crate::config::Config;
use crate::workload::Kernel;

/// CTAs of `k` an SM holds at once, or why none fits.
pub fn ctas_per_sm(c: &Config, k: &Kernel) -> Result<u32, String> {
    let warps = k.warps_per_cta().max(1);
    let padded_threads = u64::from(warps) * 32;
    let mut fit = c.core.max_ctas.min(c.warps_per_sm() as u32 / warps);
    let mut short = None;
    let smem = u64::from(k.shared_bytes_per_cta());
    if let Some(have) = c.core.shared_bytes
        && smem > 0
    {
        let n = u64::from(have) / smem;
        if n == 0 {
            short = Some(format!(
                "{smem} bytes of shared memory per CTA, more than an SM's {have} (core.shared_bytes)"
            ));
        }
        fit = fit.min(n.min(u64::from(u32::MAX)) as u32);
    }
    let regs = u64::from(k.registers_per_thread());
    if let Some(have) = c.core.registers
        && regs > 0
    {
        let per_cta = padded_threads * regs.next_multiple_of(4);
        let n = u64::from(have) / per_cta;
        if n == 0 {
            short = Some(format!(
                "{per_cta} registers per CTA ({padded_threads} threads × {} registers, {regs} rounded up to a multiple of 4), more than an SM's {have} (core.registers)",
                regs.next_multiple_of(4)
            ));
        }
        fit = fit.min(n.min(u64::from(u32::MAX)) as u32);
    }
    match short {
        Some(_) if c.core.ignore_resource_limits => Ok(1),
        Some(why) => Err(format!(
            "a CTA needs {why}; set core.ignore_resource_limits to run it one CTA per SM (GPGPU-Sim's -gpgpu_ignore_resources_limitation)"
        )),
        None => Ok(fit),
    }
}

/// CTAs of `k` resident on an SM when the grid is spread evenly: [`ctas_per_sm`] (`fit`),
/// and no more than an even share of the grid — the result of GPGPU-Sim's `max_cta`, whose
/// shared memory (`-shmem` × this) picks the adaptive L1's carve-out.
pub fn resident_ctas(c: &Config, k: &Kernel, fit: u32) -> u64 {
    u64::from(fit).min(u64::from(k.ctas()).div_ceil(c.core.count.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Workload;
    use crate::workload::accelsim::{TraceKernel, TraceSource};

    /// A one-CTA trace kernel of `threads` threads declaring `shmem` bytes and `nregs`.
    fn kernel(threads: u32, shmem: u32, nregs: Option<u32>) -> Kernel {
        let nregs = nregs.map_or(String::new(), |n| format!("-nregs = {n}\n"));
        let mut text = format!(
            "-kernel name = k\n-grid dim = (1,1,1)\n-block dim = ({threads},1,1)\n-shmem = {shmem}\n{nregs}-accelsim tracer version = 4\n#traces format\n#BEGIN_TB\nthread block = 0,0,0\n"
        );
        for w in 0..threads.div_ceil(32) {
            text.push_str(&format!("warp = {w}\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n"));
        }
        text.push_str("#END_TB\n");
        let source = TraceSource::Embedded(Box::leak(text.into_boxed_str()));
        Kernel::Trace(TraceKernel::load(source, "k.traceg").unwrap())
    }

    /// SM7_QV100's options: 2048 threads, 32 CTAs, 96 KiB shared memory, 64K registers.
    fn qv100() -> Config {
        let mut c = Config::default();
        (c.core.max_threads, c.core.max_ctas) = (2048, 32);
        (c.core.shared_bytes, c.core.registers) = (Some(98_304), Some(65_536));
        c
    }

    #[test]
    fn the_scarcest_resource_limits_as_max_cta_computes_it() {
        let c = qv100();
        let fit = |threads, shmem, nregs| ctas_per_sm(&c, &kernel(threads, shmem, nregs)).unwrap();
        // Threads: 2048 / 256.
        assert_eq!(fit(256, 0, Some(16)), 8);
        // Registers: 21 → 24 per thread × 512 threads = 12,288 per CTA; 65,536 / 12,288 = 5,
        // but threads allow 4 (Rodinia BFS as traced, -nregs = 21).
        assert_eq!(fit(512, 0, Some(21)), 4);
        // 33 → 36 registers × 256 = 9,216: 7 CTAs, fewer than the 8 threads allow.
        assert_eq!(fit(256, 0, Some(33)), 7);
        // A 40-thread CTA pads to 64 threads: 64 × 64 registers = 4,096, 16 CTAs; threads 32.
        assert_eq!(fit(40, 0, Some(64)), 16);
        // Shared memory: 98,304 / 20,000 = 4.
        assert_eq!(fit(64, 20_000, None), 4);
        // No registers named, no shared memory declared: threads and CTA slots (32).
        assert_eq!(fit(32, 0, None), 32);
        // Without the options, registers and shared memory do not limit.
        let mut open = c.clone();
        (open.core.shared_bytes, open.core.registers) = (None, None);
        assert_eq!(ctas_per_sm(&open, &kernel(256, 20_000, Some(255))).unwrap(), 8);
    }

    #[test]
    fn a_cta_larger_than_the_sm_is_refused_unless_limits_are_ignored() {
        let mut c = qv100();
        let e = ctas_per_sm(&c, &kernel(1024, 0, Some(255))).unwrap_err();
        assert_eq!(
            e,
            "a CTA needs 262144 registers per CTA (1024 threads × 256 registers, 255 rounded up to a multiple of 4), more than an SM's 65536 (core.registers); set core.ignore_resource_limits to run it one CTA per SM (GPGPU-Sim's -gpgpu_ignore_resources_limitation)"
        );
        let e = ctas_per_sm(&c, &kernel(32, 100_000, None)).unwrap_err();
        assert!(e.contains("100000 bytes of shared memory per CTA, more than an SM's 98304"), "{e}");
        c.core.ignore_resource_limits = true;
        assert_eq!(ctas_per_sm(&c, &kernel(1024, 0, Some(255))), Ok(1));
        // The machine refuses the workload at build time, naming the kernel.
        c.core.ignore_resource_limits = false;
        let w = Workload {
            name: "w".into(),
            description: String::new(),
            kernels: vec![kernel(32, 100_000, None)],
        };
        let e = crate::sim::Gpu::new(std::sync::Arc::new(c), std::sync::Arc::new(w)).unwrap_err();
        assert!(e.starts_with("kernel 0 (k): a CTA needs 100000 bytes"), "{e}");
    }

    #[test]
    fn the_adaptive_l1_sees_an_even_share_of_a_small_grid() {
        let mut c = qv100();
        c.core.count = 80;
        let k = kernel(256, 1024, None);
        // One CTA in the grid: one resident, however many fit.
        assert_eq!(resident_ctas(&c, &k, 8), 1);
        c.core.count = 1;
        assert_eq!(resident_ctas(&c, &k, 8), 1);
    }
}
