#!/usr/bin/env bash
# Builds the validation peer, Accel-Sim (trace-driven GPGPU-Sim 4), from source trees the user
# already has, without a CUDA toolkit, and writes a wrapper that runs it from any directory.
# Nothing of the peer enters this repository; see docs/validation/README.md.
#
#   scripts/build-accelsim.sh FRAMEWORK GPGPUSIM OUT
#
# FRAMEWORK  a tree of accel-sim/accel-sim-framework (tested: 73f9fac)
# GPGPUSIM   a tree of accel-sim/gpgpu-sim_distribution, branch dev (tested: 667834cf; the commit
#            is in accel-sim's fork, not in gpgpu-sim/gpgpu-sim_distribution)
# OUT        a new directory: the build, the CUDA 11.8 headers and OUT/accel-sim, the wrapper to
#            give scripts/validate-accelsim.sh as ACCELSIM
#
# Needs: gcc/g++, make, python3 with pip (for NVIDIA's header wheels; network access), and the
# Debian packages bison flex xutils-dev zlib1g-dev libgl-dev (the link uses -lGL). About five
# minutes of compiling on two cores.
set -euo pipefail
usage="usage: scripts/build-accelsim.sh FRAMEWORK GPGPUSIM OUT"
framework=${1:?$usage}
gpgpusim=${2:?$usage}
out=${3:?$usage}
for d in "$framework/gpu-simulator" "$gpgpusim/src/gpgpu-sim"; do
    [ -d "$d" ] || { echo "error: $d does not exist: is this the right source tree?" >&2; exit 2; }
done
[ ! -e "$out" ] || { echo "error: $out exists; give a new directory" >&2; exit 2; }
missing=()
for tool in g++ make bison flex makedepend python3; do
    command -v "$tool" >/dev/null || missing+=("$tool")
done
[ -e /usr/include/zlib.h ] || missing+=("zlib1g-dev")
[ -n "$(find /usr/lib /usr/lib64 -name libGL.so 2>/dev/null | head -1)" ] || missing+=("libgl-dev")
if [ ${#missing[@]} -gt 0 ]; then
    echo "error: missing ${missing[*]} (Debian: apt-get install bison flex xutils-dev zlib1g-dev libgl-dev)" >&2
    exit 2
fi
mkdir -p "$out"
out=$(realpath "$out")

echo "== sources into $out/accel-sim-framework"
cp -r "$framework" "$out/accel-sim-framework"
rm -rf "$out/accel-sim-framework/gpu-simulator/gpgpu-sim"
cp -r "$gpgpusim" "$out/accel-sim-framework/gpu-simulator/gpgpu-sim"

echo "== CUDA 11.8 headers from NVIDIA's wheels"
# GPGPU-Sim's libcuda includes cudaProfiler.h, which only the profiler-API wheel has.
"$(dirname "$0")/cuda-headers.sh" "$out/cuda" \
    'nvidia-cuda-runtime-cu11==11.8.*' 'nvidia-cuda-nvcc-cu11==11.8.*' 'nvidia-cuda-profiler-api-cu11==11.8.*'
mkdir -p "$out/cuda/bin"
# The makefiles only ask nvcc for its version, and the setup script accepts 11.x only.
cat >"$out/cuda/bin/nvcc" <<'EOF'
#!/bin/sh
echo "Cuda compilation tools, release 11.8, V11.8.89"
EOF
chmod +x "$out/cuda/bin/nvcc"

echo "== building (make -j$(nproc))"
(
    cd "$out/accel-sim-framework/gpu-simulator"
    export CUDA_INSTALL_PATH=$out/cuda PATH=$out/cuda/bin:$PATH
    # The setup script reads variables it may not have set.
    set +u
    # shellcheck disable=SC1091
    source setup_environment.sh release
    make -j"$(nproc)"
) >"$out/build.log" 2>&1 || { echo "error: the build failed; see $out/build.log" >&2; exit 1; }

bin=$out/accel-sim-framework/gpu-simulator/bin/release/accel-sim.out
lib=$(dirname "$(find "$out/accel-sim-framework/gpu-simulator/gpgpu-sim/lib" -name libcudart.so | head -1)")
[ -x "$bin" ] && [ -d "$lib" ] || { echo "error: no accel-sim.out or libcudart.so after the build; see $out/build.log" >&2; exit 1; }
# accel-sim.out links GPGPU-Sim's own libcudart.so, which the loader must find.
cat >"$out/accel-sim" <<EOF
#!/bin/sh
export GPGPUSIM_ROOT=$out/accel-sim-framework/gpu-simulator/gpgpu-sim
export LD_LIBRARY_PATH=$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
exec $bin "\$@"
EOF
chmod +x "$out/accel-sim"
echo "built: $out/accel-sim (give it as ACCELSIM to scripts/validate-accelsim.sh)"
