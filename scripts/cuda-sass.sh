#!/usr/bin/env bash
# What nvcc makes of a benchmark's CUDA kernel: the registers and shared memory ptxas gives it
# and its SASS, to check a warpscope benchmark's instructions, masks and `-nregs` against the
# compiled kernel (docs/trace-export.md). Nothing of the toolkit enters this repository.
#
#   scripts/cuda-sass.sh setup OUT            unpack CUDA 11.8's compiler and disassembler into OUT
#   scripts/cuda-sass.sh OUT KERNEL.cu [ARCH ...]
#                                             compile KERNEL.cu for each ARCH (default sm_70 sm_61:
#                                             SM7_QV100 and SM6_TITANX) and write beside it
#                                             KERNEL.ARCH.ptxas (ptxas -v) and KERNEL.ARCH.sass
#
# The compiler, ptxas and cuobjdump come from Debian 12's non-free package nvidia-cuda-toolkit
# (11.8.89), fetched with apt-get download and unpacked, not installed; the runtime headers
# nvcc includes come from NVIDIA's 11.8 wheels (scripts/cuda-headers.sh). KERNEL.cu needs
# only the __global__ functions and the #defines and types they use, the problem sizes as the
# benchmark's source sets them. Needs apt-get, dpkg-deb, python3 with pip, g++ and network access.
set -euo pipefail
usage="usage: scripts/cuda-sass.sh setup OUT | scripts/cuda-sass.sh OUT KERNEL.cu [ARCH ...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }

if [ "$1" = setup ]; then
    out=$2
    [ ! -e "$out" ] || { echo "error: $out exists; give a new directory" >&2; exit 2; }
    for tool in apt-get dpkg-deb python3 g++; do
        command -v "$tool" >/dev/null || { echo "error: $tool is missing" >&2; exit 2; }
    done
    mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/deb"
    out=$(realpath "$out")
    echo "== nvidia-cuda-toolkit from Debian 12 (non-free)"
    cat >"$out/apt/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm non-free
EOF
    apt=(-o "Dir::Etc::SourceList=$out/apt/sources.list" -o Dir::Etc::SourceParts=-
        -o "Dir::State::Lists=$out/apt/lists" -o "Dir::Cache=$out/apt/cache"
        -o APT::Sandbox::User=root)
    apt-get "${apt[@]}" update >"$out/apt/update.log" 2>&1 ||
        { echo "error: apt-get update failed; see $out/apt/update.log" >&2; exit 1; }
    (cd "$out/deb" && apt-get "${apt[@]}" download nvidia-cuda-toolkit) >"$out/apt/download.log" 2>&1 ||
        { echo "error: apt-get download failed; see $out/apt/download.log" >&2; exit 1; }
    dpkg-deb -x "$out"/deb/nvidia-cuda-toolkit_*.deb "$out/root"
    echo "== CUDA 11.8 runtime headers from NVIDIA's wheels"
    "$(dirname "$0")/cuda-headers.sh" "$out" 'nvidia-cuda-runtime-cu11==11.8.*' 'nvidia-cuda-nvcc-cu11==11.8.*'
    mkdir -p "$out/bin"
    # nvcc finds cicc and its profile beside itself; the package's profile names /usr paths.
    tk=$out/root/usr/lib/nvidia-cuda-toolkit
    cp "$tk/bin/nvcc" "$tk/bin/cicc" "$out/bin/"
    for t in cudafe++ ptxas fatbinary nvlink cuobjdump nvdisasm bin2c; do
        ln -s "$out/root/usr/bin/$t" "$out/bin/$t"
    done
    cat >"$out/bin/nvcc.profile" <<EOF
NVVMIR_LIBRARY_DIR = $tk/libdevice
PATH += $out/bin:
INCLUDES += "-I$out/include" \$(_SPACE_)
EOF
    "$out/bin/nvcc" --version | tail -1
    echo "ready: scripts/cuda-sass.sh $out KERNEL.cu"
    exit 0
fi

out=$1
src=$2
shift 2
[ -x "$out/bin/nvcc" ] || { echo "error: $out/bin/nvcc missing; run scripts/cuda-sass.sh setup $out first" >&2; exit 2; }
[ -f "$src" ] || { echo "error: $src does not exist" >&2; exit 2; }
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(sm_70 sm_61)
base=${src%.cu}
for arch in "${archs[@]}"; do
    # GCC 12 is newer than CUDA 11.8 supports; the device code does not depend on it.
    "$out/bin/nvcc" -arch="$arch" -cubin -O3 -Xptxas -v -allow-unsupported-compiler \
        -o "$base.$arch.cubin" "$src" 2>"$base.$arch.ptxas"
    "$out/bin/cuobjdump" -sass "$base.$arch.cubin" >"$base.$arch.sass"
    echo "$base.$arch.sass: $(grep -c 'Function :' "$base.$arch.sass") kernels; $(grep -o 'Used [0-9]* registers' "$base.$arch.ptxas" | tr '\n' ' ')"
done
