#!/usr/bin/env bash
# The speed table of docs/speed.md: `warpscope bench` of two builds on the four workloads
# the issue names — the built-in bfs, the Rodinia BFS trace, PolyBench ATAX at seed 004's size
# on fermi-30sm, and the streaming stream.ron — run interleaved (before, now, before, now...)
# so that both builds see the same neighbours on a shared machine, printed as a markdown table
# with the best and the median of each build's runs (simulated core cycles per second).
#
#   scripts/speed-table.sh BEFORE_BINARY NOW_BINARY [RUNS]
#
# RUNS (default 3) runs per build and workload; the trace, a run of some 20 ms, gets 10 × RUNS / 3.
# A build that cannot run a row (an old one without fermi-30sm's keys) shows "–". Not run by
# CI: it takes about a minute, and wall-clock speed is a measurement, not a test.
set -euo pipefail
before=${1:?usage: speed-table.sh BEFORE_BINARY NOW_BINARY [RUNS]}
now=${2:?usage: speed-table.sh BEFORE_BINARY NOW_BINARY [RUNS]}
runs=${3:-3}
cd "$(dirname "$0")/.."
for b in "$before" "$now"; do
    [ -x "$b" ] || { echo "error: $b is not an executable warpscope" >&2; exit 2; }
done

# label | bench arguments | the same for builds that read a trace from its kernelslist.g only
rows=(
    "\`gtx480-sc14\` × built-in \`bfs\`||"
    "\`gtx480-sc14\` × Rodinia BFS trace (\`tests/fixtures/traces/rodinia-bfs\`)|-w tests/fixtures/traces/rodinia-bfs|-w tests/fixtures/traces/rodinia-bfs/kernelslist.g"
    "\`fermi-30sm\` × PolyBench \`atax\` 8192 × 8192, first 1,000,000 cycles|-c sample-configs/fermi-30sm.ron -w atax --set workload.nx=8192 --set workload.ny=8192 --max-cycles 1000000|"
    "\`gtx480-sc14\` × \`stream.ron\` (streaming)|-w sample-configs/workloads/stream.ron|"
)

bench() { # binary, arguments -> "cycles cycles_per_second", or nothing if the build cannot run it
    # shellcheck disable=SC2086 # the arguments are words
    # (bench separates thousands with commas, which sort -n would stop at)
    "$1" bench $2 2>/dev/null | awk '/^core cycles/{c=$3} /^cycles\/s/{s=$2} END{gsub(/,/, "", c); gsub(/,/, "", s); if (s) print c, s}' || true
}

stats() { # cycles/s values, one per line -> "best median"
    awk NF | sort -n | awk '{v[NR]=$1} END{if (NR==0) {print "- -"; exit} m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; print v[NR], m}'
}

grouped() { # 613784 -> 613,784
    if [ "$1" = - ]; then echo "–"; else printf '%s\n' "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; fi
}

human() { # cycles/s -> 612k / 1.53M
    awk -v x="$1" 'BEGIN{if (x=="-") print "–"; else if (x>=1e6) printf "%.2fM\n", x/1e6; else printf "%.0fk\n", x/1e3}'
}

echo "| machine × workload | core cycles (before / now) | before: best, median (cycles/s) | now: best, median | now / before (best) |"
echo "|---|---|---|---|---|"
for row in "${rows[@]}"; do
    IFS='|' read -r label args old_args <<<"$row"
    old_args=${old_args:-$args}
    n=$runs
    case $args in *rodinia-bfs*) n=$(( (10 * runs + 2) / 3 ));; esac
    b_vals=() n_vals=() b_cycles=- n_cycles=-
    for _ in $(seq "$n"); do
        if r=$(bench "$before" "$old_args") && [ -n "$r" ]; then b_cycles=${r% *}; b_vals+=("${r#* }"); fi
        if r=$(bench "$now" "$args") && [ -n "$r" ]; then n_cycles=${r% *}; n_vals+=("${r#* }"); fi
    done
    read -r b_best b_med < <(printf '%s\n' "${b_vals[@]}" | stats)
    read -r n_best n_med < <(printf '%s\n' "${n_vals[@]}" | stats)
    ratio=$(awk -v a="$b_best" -v b="$n_best" 'BEGIN{if (a=="-" || b=="-") print "–"; else printf "%.2f×\n", b/a}')
    cycles="$(grouped "$b_cycles") / $(grouped "$n_cycles")"
    echo "| $label | $cycles | $(human "$b_best"), $(human "$b_med") | $(human "$n_best"), $(human "$n_med") | $ratio |"
done
