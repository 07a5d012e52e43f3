#!/usr/bin/env bash
# Rewrites every shipped study's report (docs/repro/*/report.md and report.svg) from the runs
# stored beside it, with `warpscope repro --report-only`, which simulates nothing and refuses a
# study whose runs are not all stored. Run it after a change to how reports are written, then
# bring each seed page's copy of its claim table along (tests/readme.rs compares them).
#
# Usage: scripts/repro-reports.sh [WARPSCOPE]   (WARPSCOPE: target/release/warpscope)
set -euo pipefail
cd "$(dirname "$0")/.."
ws=${1:-target/release/warpscope}
[ -x "$ws" ] || { echo "$0: $ws is not an executable (cargo build --release)" >&2; exit 2; }
# shellcheck source=scripts/studies.sh
. scripts/studies.sh
for s in "${studies[@]}"; do
  read -r spec dir extra <<< "$s"
  # shellcheck disable=SC2086 # $extra is the study's cap, two words or none
  "$ws" repro "sample-configs/repro/$spec" --out "$dir" $extra --report-only > /dev/null
done
