# The shipped reproduction studies, sourced by the scripts that walk them: per study, its spec
# (under sample-configs/repro/), its directory and the cap it was run with, as
# docs/reproduction/README.md lists them.
# shellcheck disable=SC2034 # used by the scripts that source this file
studies=(
  "seed-000.ron docs/repro/seed-000"
  "seed-000-whole.ron docs/repro/seed-000-whole"
  "seed-001.ron docs/repro/seed-001"
  "seed-001.ron docs/repro/seed-001-whole --max-cycles 250000000"
  "seed-002.ron docs/repro/seed-002"
  "seed-002-bfs-whole.ron docs/repro/seed-002-bfs-whole"
  "seed-002-whole.ron docs/repro/seed-002-whole"
  "seed-003.ron docs/repro/seed-003"
  "seed-003.ron docs/repro/seed-003-whole --max-cycles 150000000"
  "seed-004.ron docs/repro/seed-004"
  "seed-004-oaws.ron docs/repro/seed-004-oaws"
  "seed-004-whole.ron docs/repro/seed-004-whole"
  "seed-004-oaws-whole.ron docs/repro/seed-004-oaws-whole"
)
