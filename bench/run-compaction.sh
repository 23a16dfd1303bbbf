#!/usr/bin/env bash
# Our compaction in a fresh JVM: restores WORK/SCENARIO's pristine copy, then Compaction.execute
# with default options. Extra args go to OurCompaction (e.g. --memory 268435456).
#   JAVA_OPTS="-Xmx512m" bench/run-compaction.sh [SCENARIO_NAME] [--memory BYTES]
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
name="${1:-events}"; shift || true
exec java ${JAVA_OPTS:-} "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.OurCompaction --scenario "$WORK/$name" "$@"
