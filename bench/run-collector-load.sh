#!/usr/bin/env bash
# The scan-report collector under load (docs/benchmarks.md): real Iceberg scan planning on THREADS
# threads with and without the collector (wall and CPU per scan, every report written), then a flood
# into an 8-report buffer (report() latency, reported = written + dropped). Prints RESULT lines.
#   bench/run-collector-load.sh          # THREADS=4 SCANS=5000 (per thread per round) ROUNDS=3 FLOOD=1000000
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_harness_built
out="$WORK/collector-load"
rm -rf "$out"; mkdir -p "$out"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "TIME collector-load wall=%e user=%U sys=%S" java -Xmx1g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.CollectorLoad --dir "$out" \
  --threads "${THREADS:-4}" --scans "${SCANS:-5000}" --rounds "${ROUNDS:-3}" --flood "${FLOOD:-1000000}"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
