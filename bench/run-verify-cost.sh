#!/usr/bin/env bash
# What default content verification costs: the same restored table compacted by the CLI
# (bin/resurfacer compact --yes) with the default --verify=content and with --verify=count,
# alternately, RUNS pairs. Generate the table first, e.g.
#   bench/generate.sh events-2.5m --files 250 --rows 10000 --days 4 --snapshots 25
#   RUNS=3 bench/run-verify-cost.sh events-2.5m
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
name="${1:-events}"
scenario="$WORK/$name"
runs="${RUNS:-2}"
[[ -f "$scenario/pristine/catalog.db" ]] || { echo "no table under $scenario: run bench/generate.sh $name first" >&2; exit 2; }
restore() { rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"; }
for ((i = 1; i <= runs; i++)); do
  for mode in content count; do
    restore
    start=$(now_ms)
    "$ROOT/bin/resurfacer" compact db.events --catalog-uri "jdbc:sqlite:$scenario/live/catalog.db" --catalog-name bench \
      --warehouse "$scenario/live/warehouse" --verify="$mode" --yes > "$WORK/verify-$mode-$i.log" 2>&1
    echo "run $i verify=$mode wall_ms=$(( $(now_ms) - start )) $(tail -1 "$WORK/verify-$mode-$i.log" | grep -o 'in [0-9.]*s\|[0-9.]*s, peak RSS [^,]*' | head -1)"
  done
done
