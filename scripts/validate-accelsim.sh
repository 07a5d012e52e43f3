#!/usr/bin/env bash
# warpscope beside Accel-Sim (GPGPU-Sim 4) on the same traces and the same machine (issue 14):
# exports the validation kernels as Accel-Sim traces, imports the peer's config, runs an
# already-built Accel-Sim and warpscope on every trace, and regenerates the table.
#
#   ACCELSIM=/path/to/accel-sim.out ACCELSIM_CONFIG=/path/to/SM7_QV100 scripts/validate-accelsim.sh
#
# ACCELSIM_CONFIG is a directory with the peer's gpgpusim.config, its trace.config and the
# interconnect file gpgpusim.config names (Accel-Sim keeps the first and last in
# gpu-simulator/gpgpu-sim/configs/tested-cfgs/SM7_QV100/, the trace.config in
# gpu-simulator/configs/tested-cfgs/SM7_QV100/). Run it in the environment the peer needs (its
# shared libraries on LD_LIBRARY_PATH). This script runs the peer; it does not build it.
#
# Optional: WARPSCOPE (default target/release/warpscope), JOBS (peer runs at once, default 1),
# RUN (work directory, default validation-run, ignored by git), REUSE_PEER=1 (keep peer logs
# already in RUN/peer). Writes sample-configs/validation/accelsim-qv100.ron (the spec, paths
# into RUN) and docs/validation/accelsim-qv100.md (the table `warpscope validate` generates).
# Not run by CI: it needs the peer, and the peer takes from seconds to ten minutes per trace.
set -euo pipefail
cd "$(dirname "$0")/.."
accelsim=${ACCELSIM:?set ACCELSIM to an already-built accel-sim.out}
config=${ACCELSIM_CONFIG:?set ACCELSIM_CONFIG to the directory of gpgpusim.config and trace.config}
warpscope=${WARPSCOPE:-target/release/warpscope}
jobs=${JOBS:-1}
run=${RUN:-validation-run}
for f in "$config/gpgpusim.config" "$config/trace.config" "$accelsim" "$warpscope"; do
    [ -e "$f" ] || { echo "error: $f does not exist" >&2; exit 2; }
done
config=$(realpath "$config")
accelsim=$(realpath "$accelsim")
mkdir -p "$run/traces" "$run/peer"

# The kernels: regular (PolyBench, stream, HotSpot, Backprop, streamcluster) and divergent
# (BFS, SpMV, SSSP, KMeans, Needleman-Wunsch, the strided and synthetic gathers), at small
# sizes so each peer run takes at most minutes: name, then `warpscope trace export` arguments.
kernels=(
    "atax|-w atax --set workload.nx=512 --set workload.ny=512"
    "bicg|-w bicg --set workload.nx=512 --set workload.ny=512"
    "mvt|-w mvt --set workload.n=512"
    "gesummv|-w gesummv --set workload.n=512"
    "syrk|-w syrk --set workload.n=64 --set workload.m=64"
    "syr2k|-w syr2k --set workload.n=64 --set workload.m=64"
    "gemm|-w gemm --set workload.n=128"
    "2mm|-w 2mm --set workload.n=128"
    "3mm|-w 3mm --set workload.n=64"
    "3dconv|-w 3dconv --set workload.n=32"
    "bfs|-w bfs --set workload.nodes=4096"
    "spmv|-w spmv --set workload.rows=1024"
    "sssp|-w sssp --set workload.nodes=2048"
    "kmeans|-w kmeans --set workload.points=4096 --set workload.features=34"
    "hotspot|-w hotspot --set workload.grid=128"
    "nw|-w nw --set workload.n=256"
    "backprop|-w backprop --set workload.in=4096"
    "streamcluster|-w streamcluster --set workload.points=4096 --set workload.dim=32 --set workload.launches=1"
    "stream|-w sample-configs/workloads/stream.ron"
    "column-strided|-w sample-configs/workloads/column-strided.ron"
    "spmv-synth|-w sample-configs/workloads/spmv.ron"
    "bfs-synth|-w sample-configs/workloads/bfs.ron"
)

echo "== the machine: $config/gpgpusim.config and trace.config"
"$warpscope" config import "$config/gpgpusim.config" "$config/trace.config" -o "$run/qv100.ron" 2>"$run/import.log"
tail -1 "$run/import.log"

echo "== exporting ${#kernels[@]} traces into $run/traces"
for k in "${kernels[@]}"; do
    name=${k%%|*}
    # shellcheck disable=SC2086 # the arguments are words
    "$warpscope" trace export "$run/traces/$name" --force ${k#*|} >/dev/null
done

peer() { # one peer run in its own directory (GPGPU-Sim writes files where it runs)
    local name=$1 dir="$run/peer/run-$1" log
    log=$(realpath "$run/peer")/$name.log
    rm -rf "$dir" && cp -r "$config" "$dir"
    local trace
    trace=$(realpath "$run/traces/$name/kernelslist.g")
    (cd "$dir" && /usr/bin/time -v "$accelsim" -trace "$trace" -config ./gpgpusim.config -config ./trace.config >"$log" 2>&1) ||
        echo "warning: the peer failed on $name (see $log)" >&2
    rm -rf "$dir"
    echo "   $name: $(grep -m1 -o 'gpu_tot_sim_cycle = [0-9]*' <(tac "$log") || echo 'no cycle count')"
}

echo "== the peer on each trace ($jobs at a time)"
for k in "${kernels[@]}"; do
    name=${k%%|*}
    if [ "${REUSE_PEER:-0}" = 1 ] && grep -q gpgpu_simulation_rate "$run/peer/$name.log" 2>/dev/null; then
        continue
    fi
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    peer "$name" &
done
wait

echo "== warpscope on each trace, and the table"
spec=sample-configs/validation/accelsim-qv100.ron
mkdir -p "$(dirname "$spec")" docs/validation
rel=$(realpath --relative-to="$(dirname "$spec")" "$run")
{
    echo "// warpscope beside Accel-Sim on its QV100 machine, written by scripts/validate-accelsim.sh:"
    echo "// the machine is \`config import\` of the peer's gpgpusim.config and trace.config, each"
    echo "// trace a \`trace export\` of the kernel (arguments in the script), each log the peer's output."
    echo "("
    echo "    machine: \"$rel/qv100.ron\","
    echo "    kernels: ["
    for k in "${kernels[@]}"; do
        name=${k%%|*}
        echo "        (name: \"$name\", trace: \"$rel/traces/$name/kernelslist.g\", peer_log: \"$rel/peer/$name.log\"),"
    done
    echo "    ],"
    echo ")"
} >"$spec"
"$warpscope" validate "$spec" -o docs/validation/accelsim-qv100.md
tail -4 docs/validation/accelsim-qv100.md
