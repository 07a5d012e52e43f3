#!/usr/bin/env bash
# Checks that two warpscope binaries (before and after a change that must not alter behaviour)
# give the same results: the `run --json` report without its `sim` section (wall time, speed)
# and the DRAM command trace, for every DRAM scheduler, warp scheduler, L1 replacement policy
# and L1 index function, on every sample workload. The policy names are read from the binary's
# own error message for an unknown name, so the lists cannot fall out of step.
#
#   scripts/same-results.sh OLD_BINARY NEW_BINARY [MAX_CYCLES]
#
# Not run by CI (it needs two builds); run it before committing a refactor and say so.
set -euo pipefail
old=${1:?usage: same-results.sh OLD_BINARY NEW_BINARY [MAX_CYCLES]}
new=${2:?usage: same-results.sh OLD_BINARY NEW_BINARY [MAX_CYCLES]}
cap=${3:-20000}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names() { # the valid names of a policy key, from the error for an unknown one
    "$new" run --set "$1=?" 2>&1 | sed -n 's/.*valid: //p' | tr -d ',' | head -1
}

variants=()
for s in $(names dram.scheduler); do variants+=("--set dram.scheduler=$s"); done
for s in $(names core.warp_scheduler); do variants+=("--set core.warp_scheduler=$s"); done
for s in $(names l1.replacement); do variants+=("--set l1.replacement=$s"); done
for s in $(names l1.index); do
    variants+=("--set l1.index=$s")
done

strip_sim() { python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("sim",None); print(json.dumps(d,sort_keys=True))'; }

runs=0 differ=0
for w in sample-configs/workloads/*.ron; do
    for v in "${variants[@]}"; do
        for b in old new; do
            bin=$old; [ "$b" = new ] && bin=$new
            # shellcheck disable=SC2086
            "$bin" run -w "$w" $v --max-cycles "$cap" --json "$work/$b.json" --dram-trace "$work/$b.trace" >/dev/null 2>&1 || true
            strip_sim < "$work/$b.json" > "$work/$b.report" 2>/dev/null || echo "no report" > "$work/$b.report"
        done
        runs=$((runs + 1))
        if ! cmp -s "$work/old.report" "$work/new.report" || ! cmp -s "$work/old.trace" "$work/new.trace"; then
            differ=$((differ + 1))
            echo "DIFFERENT: $w $v"
        fi
    done
done
echo "$runs runs compared, $differ different"
[ "$differ" -eq 0 ]
