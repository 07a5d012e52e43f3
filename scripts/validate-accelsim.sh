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
#
#   OURS_ONLY=1 scripts/validate-accelsim.sh
#
# needs no peer: it imports the machine (ACCELSIM_CONFIG, default tests/fixtures/gpgpusim/SM7_QV100)
# and exports the same traces, runs the current warpscope on each, one at a time (`warpscope run
# -c RUN/qv100.ron -w RUN/traces/NAME/kernelslist.g --json RUN/ours/NAME.json`), and writes
# docs/validation/accelsim-qv100-now.md: warpscope's cycles, IPC and L1-miss latency now beside
# the peer's and the table's, both read from docs/validation/accelsim-qv100.md (which it leaves
# as it is). For when the simulator or the import has changed and the peer's logs are not at hand.
# CI does not run this either (a few minutes: the machine has 80 SMs).
set -euo pipefail
cd "$(dirname "$0")/.."
ours_only=${OURS_ONLY:-0}
if [ "$ours_only" = 1 ]; then
    config=${ACCELSIM_CONFIG:-tests/fixtures/gpgpusim/SM7_QV100}
    accelsim=
else
    accelsim=${ACCELSIM:?set ACCELSIM to an already-built accel-sim.out (or OURS_ONLY=1)}
    config=${ACCELSIM_CONFIG:?set ACCELSIM_CONFIG to the directory of gpgpusim.config and trace.config}
fi
warpscope=${WARPSCOPE:-target/release/warpscope}
jobs=${JOBS:-1}
run=${RUN:-validation-run}
for f in "$config/gpgpusim.config" "$config/trace.config" ${accelsim:+"$accelsim"} "$warpscope"; do
    [ -e "$f" ] || { echo "error: $f does not exist" >&2; exit 2; }
done
config=$(realpath "$config")
[ -z "$accelsim" ] || accelsim=$(realpath "$accelsim")
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

ours_only() { # warpscope now on every trace, beside the generated table's peer and warpscope columns
    local old=docs/validation/accelsim-qv100.md out=docs/validation/accelsim-qv100-now.md
    [ -f "$old" ] || { echo "error: $old does not exist" >&2; exit 2; }
    mkdir -p "$run/ours"
    echo "== warpscope on each trace, one at a time"
    local k name start=$SECONDS
    for k in "${kernels[@]}"; do
        name=${k%%|*}
        "$warpscope" run -c "$run/qv100.ron" -w "$run/traces/$name/kernelslist.g" \
            --json "$run/ours/$name.json" >"$run/ours/$name.txt"
        echo "   $name: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$run/ours/$name.json") cycles"
    done
    echo "   $((SECONDS - start)) s"
    local commit
    commit=$(git rev-parse --short HEAD)
    git diff --quiet HEAD -- src Cargo.toml Cargo.lock || commit="$commit with uncommitted changes"
    local tmp
    tmp="$(dirname "$out")/.$(basename "$out").tmp-$$"
    trap 'rm -f "$tmp"' EXIT
    python3 - "$old" "$run/ours" "$commit" "${config#"$PWD/"}" "${kernels[@]%%|*}" >"$tmp" <<'EOF'
import json, sys

old, ours_dir, commit, config, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
text = open(old).read()

def table(header):
    """The rows of the markdown table that starts with `header`, as dicts by column name."""
    lines = text[text.index(header):].splitlines()
    rows = []
    for l in lines:
        if not l.startswith("|"):
            break
        rows.append([c.strip() for c in l.strip().strip("|").split("|")])
    cols = rows[0]
    return {r[0]: dict(zip(cols, r)) for r in rows[2:]}

def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None

main = table("| kernel | cycles peer | cycles ours | err |")
units = table("| kernel | L1 reads |") if "| kernel | L1 reads |" in text else {}

def err(ours, peer):
    return None if ours is None or not peer else (ours - peer) / peer * 100

def cell(v, fmt):
    return "–" if v is None else format(v, fmt)

def err_cell(e):
    return "–" if e is None else f"{e:+.1f} %"

def mean_abs(v):
    v = [abs(x) for x in v if x is not None]
    return sum(v) / len(v) if v else None

def corr(pairs):
    pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
    n = len(pairs)
    if n < 2:
        return None
    mx, my = sum(p[0] for p in pairs) / n, sum(p[1] for p in pairs) / n
    cov = sum((x - mx) * (y - my) for x, y in pairs)
    vx, vy = sum((x - mx) ** 2 for x, _ in pairs), sum((y - my) ** 2 for _, y in pairs)
    return cov / (vx * vy) ** 0.5 if vx > 0 and vy > 0 else None

rows, errs_table, errs_now, ipc_table, ipc_now, ipc_errs_table, ipc_errs_now, off, wall = [], [], [], [], [], [], [], [], 0.0
for name in names:
    m = main.get(name, {})
    peer, table_cycles = num(m.get("cycles peer", "–")), num(m.get("cycles ours", "–"))
    peer_ipc, table_ipc = num(m.get("IPC peer", "–")), num(m.get("IPC ours", "–"))
    r = json.load(open(f"{ours_dir}/{name}.json"))
    if r["status"] != "done":
        sys.exit(f"error: warpscope's run of {name} ended {r['status']!r}")
    now, now_ipc, now_lat = r["cycles"], r["ipc"], r["memory"]["avg_latency"]
    wall += r["sim"]["wall_seconds"]
    lat = units.get(name, {}).get("L1-miss latency", "– / –").split(" / ")
    e_table, e_now = err(table_cycles, peer), err(now, peer)
    errs_table.append(e_table)
    errs_now.append(e_now)
    ipc_table.append((peer_ipc, table_ipc))
    ipc_now.append((peer_ipc, now_ipc))
    ipc_errs_table.append(err(table_ipc, peer_ipc))
    ipc_errs_now.append(err(now_ipc, peer_ipc))
    if e_now is not None and abs(e_now) > 30:
        off.append(f"`{name}` ({e_now:+.0f} %)")
    rows.append(
        f"| {name} | {cell(peer, '.0f')} | {cell(table_cycles, '.0f')} | {err_cell(e_table)} | {now} | "
        f"{err_cell(e_now)} | {err_cell(err(now, table_cycles))} | {cell(peer_ipc, '.2f')} | {now_ipc:.2f} | "
        f"{err_cell(err(now_ipc, peer_ipc))} | {cell(num(lat[0]), '.0f')} / {cell(num(lat[1]), '.0f')} / {now_lat:.0f} |"
    )

def pct(v):
    return "–" if v is None else f"{v:.1f} %"

print("# warpscope now beside the peer's numbers in the validation table\n")
print(
    f"Generated by `OURS_ONLY=1 scripts/validate-accelsim.sh`, which did not run the peer: warpscope at commit {commit} "
    f"on the same {len(names)} traces and the same machine (`config import` of `{config}`'s gpgpusim.config and trace.config) "
    f"as `{old}`, run one at a time. The peer's columns and warpscope's as that table has them (\"table\") are read from "
    "that file. Errors are warpscope's relative to the peer's; \"now vs table\" is warpscope's change in cycles. "
    "The L1-miss latency is the mean in core cycles (GPGPU-Sim's `averagemflatency`, warpscope's `memory.avg_latency`); "
    "the peer's and the table's are in that file only for the kernels it lists per unit, \"–\" elsewhere.\n"
)
print("| kernel | cycles peer | cycles ours (table) | err (table) | cycles ours now | err now | now vs table | IPC peer | IPC now | IPC err now | L1-miss latency peer / table / now |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
c_table, c_now = corr(ipc_table), corr(ipc_now)
print(
    f"\nMean absolute cycle error: table {pct(mean_abs(errs_table))}, now {pct(mean_abs(errs_now))}. "
    f"IPC correlation: table {cell(c_table, '.3f')}, now {cell(c_now, '.3f')}. "
    f"Mean absolute IPC error: table {pct(mean_abs(ipc_errs_table))}, now {pct(mean_abs(ipc_errs_now))}."
)
print(f"More than 30 % off in cycles now: {', '.join(off) if off else 'none'}.")
print(f"Wall time of warpscope's {len(names)} runs: {wall:.0f} s.")
EOF
    mv -f "$tmp" "$out"
    trap - EXIT
    tail -4 "$out"
}

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

if [ "$ours_only" = 1 ]; then
    ours_only
    exit 0
fi

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
