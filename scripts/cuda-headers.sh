#!/usr/bin/env bash
# CUDA 11.8's headers from NVIDIA's wheels, without a CUDA toolkit: installs the wheels PKG ...
# into DEST/wheels and merges their include directories into DEST/include. Used by
# scripts/build-accelsim.sh and scripts/cuda-sass.sh. The runtime headers include
# crt/host_defines.h, which only the compiler wheel (nvidia-cuda-nvcc-cu11) has.
#
#   scripts/cuda-headers.sh DEST PKG ...      e.g. 'nvidia-cuda-runtime-cu11==11.8.*'
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/cuda-headers.sh DEST PKG ..." >&2; exit 2; }
dest=$1
shift
python3 -m pip install --quiet --target "$dest/wheels" "$@"
mkdir -p "$dest/include"
for inc in "$dest"/wheels/nvidia/*/include; do
    cp -rn "$inc/." "$dest/include/"
done
rm -f "$dest/include/__init__.py"
