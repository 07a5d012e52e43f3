#!/usr/bin/env bash
# The peer's side of a validation study (docs/validation/README.md): exports the study's traces
# (`warpscope validate SPEC --export`), runs an already-built Accel-Sim on each, and records its
# logs into the study's stored results (`warpscope validate SPEC --record`), which are then
# committed; `warpscope validate SPEC` regenerates the tables from them offline. This script
# runs the peer; it does not build it. Not run by CI: the peer takes minutes per kernel.
#
#   ACCELSIM=/path/to/accel-sim.out ACCELSIM_CONFIG=/path/to/SM7_QV100 scripts/validate-accelsim.sh SPEC
#
# ACCELSIM_CONFIG holds the files the spec's `peer.configs` and `peer.inputs` name (the peer's
# own copies: the stored results record their options' digests, which must be the spec's);
# each kernel runs in a copy of it as `accel-sim.out -trace TRACE/kernelslist.g -config
# ./gpgpusim.config -config ./trace.config`, under `/usr/bin/time -v` (for its peak memory).
# Run it in the environment the peer needs (its libraries on LD_LIBRARY_PATH).
#
# Optional: WARPSCOPE (default target/release/warpscope), RUN (work directory, default
# validation-run/<spec name>, ignored by git), KERNELS (comma-separated: run only these; the
# record step still needs every kernel's log in RUN/logs unless its stored result is current),
# STALE=1 (run only the kernels whose stored result is missing or of another trace: `--export
# DIR --stale`; the record step keeps the others'), REUSE=1 (keep the logs of finished runs of
# the same traces).
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${1:?usage: ACCELSIM=... ACCELSIM_CONFIG=... scripts/validate-accelsim.sh SPEC}
accelsim=${ACCELSIM:?set ACCELSIM to an already-built accel-sim.out}
config=${ACCELSIM_CONFIG:?set ACCELSIM_CONFIG to the directory of the option files of the peer}
warpscope=${WARPSCOPE:-target/release/warpscope}
run=${RUN:-validation-run/$(basename "$spec" .ron)}
for f in "$spec" "$accelsim" "$warpscope" "$config/gpgpusim.config" "$config/trace.config"; do
    [ -e "$f" ] || { echo "error: $f does not exist" >&2; exit 2; }
done
accelsim=$(realpath "$accelsim")
config=$(realpath "$config")
mkdir -p "$run/traces" "$run/logs" "$run/work"
only=()
[ -z "${KERNELS:-}" ] || only=(--kernels "$KERNELS")
[ "${STALE:-0}" != 1 ] || only+=(--stale)
echo "== exporting the traces into $run/traces"
"$warpscope" validate "$spec" --export "$run/traces" "${only[@]}" >"$run/traces.txt"
while read -r list; do
    name=$(basename "$(dirname "$list")")
    log="$run/logs/$name.log"
    # RUN may be relative or absolute: resolve the list before leaving this directory.
    trace=$(realpath "$list")
    # The trace a log is of: a re-export may differ in lines of no lane, which the log's
    # instruction count cannot tell.
    digest=$(cd "$(dirname "$trace")" && find . -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -d' ' -f1)
    # A finished run ends with `time -v`'s report; a killed one may hold earlier launches'
    # gpu_tot_sim_cycle lines.
    if [ "${REUSE:-0}" = 1 ] && grep -q "Exit status: 0" "$log" 2>/dev/null &&
        [ "$(cat "$log.trace-sha256" 2>/dev/null)" = "$digest" ]; then
        echo "   $name: kept $log"
        continue
    fi
    rm -f "$log.trace-sha256"
    work="$run/work/$name"
    # The peer's option files; a directory beside them (a peer run leaves `checkpoint_files`)
    # is not one.
    rm -rf "$work" && mkdir -p "$work" && find "$config" -maxdepth 1 -type f -exec cp {} "$work"/ \;
    start=$SECONDS
    (cd "$work" && /usr/bin/time -v "$accelsim" -trace "$trace" \
        -config ./gpgpusim.config -config ./trace.config) >"$log" 2>&1 || {
        echo "error: the peer failed on $name; see $log" >&2
        exit 1
    }
    echo "$digest" >"$log.trace-sha256"
    echo "   $name: $(grep gpu_tot_sim_cycle "$log" | tail -1) in $((SECONDS - start)) s"
done <"$run/traces.txt"
echo "== recording $run/logs"
"$warpscope" validate "$spec" --record "$run/logs"
