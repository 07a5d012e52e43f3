//! The registers per thread nvcc gives each benchmark kernel: what `ptxas -v` reports when the
//! benchmark's CUDA source (accel-sim's `gpu-app-collection`: PolyBench/GPU 1.0, Rodinia 3.1,
//! SHOC, LonestarGPU 2.0) is compiled for sm_70 by CUDA 11.8 at warpscope's default sizes
//! (`scripts/cuda-sass.sh`). They size a kernel's occupancy as on the GPU and in Accel-Sim,
//! whose traces carry them as `-nregs` (`shader_core_config::max_cta`); the programs warpscope
//! runs name fewer registers, as they leave out nvcc's address and loop bookkeeping.

/// (CUDA kernel name, registers per thread), sm_70.
const REGISTERS: &[(&str, u32)] = &[
    ("atax_kernel1", 16),
    ("atax_kernel2", 18),
    ("bicg_kernel1", 18),
    ("bicg_kernel2", 16),
    ("mvt_kernel1", 16),
    ("mvt_kernel2", 18),
    ("gesummv_kernel", 20),
    ("syrk_kernel", 22),
    ("syr2k_kernel", 32),
    ("gemm_kernel", 20),
    ("mm2_kernel1", 22),
    ("mm2_kernel2", 22),
    ("mm3_kernel1", 20),
    ("mm3_kernel2", 20),
    ("mm3_kernel3", 20),
    ("convolution3D_kernel", 26),
    ("Kernel", 21),
    ("Kernel2", 14),
    ("spmv_csr_scalar_kernel", 31),
    ("spmv_csr_vector_kernel", 24),
    ("drelax", 50),
    ("kmeansPoint", 23),
    ("calculate_temp", 34),
    ("needle_cuda_shared_1", 32),
    ("needle_cuda_shared_2", 32),
    ("bpnn_layerforward_CUDA", 20),
    ("bpnn_adjust_weights_cuda", 27),
    ("kernel_compute_cost", 32),
];

/// The registers per thread ptxas gives benchmark kernel `name`, if it is one.
pub fn registers(name: &str) -> Option<u32> {
    REGISTERS.iter().find(|r| r.0 == name).map(|r| r.1)
}
