#!/usr/bin/env bash
# Generates a benchmark table and its pristine copy.
#   bench/generate.sh [SCENARIO_NAME] [Generate args...]
#   bench/generate.sh events --files 1000 --rows 10000 --days 4 --snapshots 100
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
name="${1:-events}"; shift || true
exec java -Xmx4g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.Generate --scenario "$WORK/$name" "$@"
