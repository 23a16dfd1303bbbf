#!/usr/bin/env bash
# Issue 5's benchmarks, ours then Spark on the same restored input each time:
#   1. expire (older-than now, retain last 1) on the 5,000-snapshot table
#   2. orphan removal with ORPHANS (1,000,000) empty orphan files plus the table's own files; ours under
#      -Xmx256m (OUR_ORPHANS_XMX), Spark with its default heap unless SPARK_ORPHANS_XMX is set
# The table is generated once (5,000 files x 200 rows, 4 days, one snapshot per file, committed in
# one transaction). Knobs: SNAP_NAME=snap, OPS="expire orphans", ENGINES="ours spark", REGENERATE=1.
#   bench/run-reclaim.sh
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
NAME="${SNAP_NAME:-snap}"; OPS="${OPS:-expire orphans}"; ENGINES="${ENGINES:-ours spark}"
mkdir -p "$WORK"
stamp=$(date +%Y%m%d-%H%M%S)
log="$WORK/reclaim-$stamp.log"; results="$WORK/reclaim-results-$stamp.txt"
echo "bench: logs in $log, results in $results" >&2
if [[ -n "${REGENERATE:-}" || ! -f "$WORK/$NAME/pristine/catalog.db" ]]; then
  "$BENCH_DIR/generate.sh" "$NAME" --files 5000 --rows 200 --days 4 --snapshots 5000 --transaction true 2>&1 | tee -a "$log" | grep '^generated' >&2
fi
for op in $OPS; do
  for engine in $ENGINES; do
    opts="${JAVA_OPTS:-}"
    if [[ "$op" == orphans && "$engine" == ours ]]; then opts="-Xmx${OUR_ORPHANS_XMX:-256m}"; fi
    if [[ "$op" == orphans && "$engine" == spark && -n "${SPARK_ORPHANS_XMX:-}" ]]; then opts="-Xmx$SPARK_ORPHANS_XMX"; fi
    echo "== $engine $op ($opts)" | tee -a "$log" >&2
    before=$(wc -l < "$log")
    load0=$(cut -d' ' -f1 /proc/loadavg)
    if ! JAVA_OPTS="$opts" "$BENCH_DIR/run-maintenance.sh" "$engine" "$op" "$NAME" >> "$log" 2>&1; then
      echo "FAILED: $engine $op (see $log)" >&2; tail -5 "$log" >&2
    fi
    res=$(tail -n +$(( before + 1 )) "$log" | grep '^RESULT' | tr '\n' ' ' || true)
    line="label=$engine-$op jvm=$opts load_start=$load0 load_end=$(cut -d' ' -f1 /proc/loadavg) $res"
    echo "$line" >> "$results"; echo "$line" >&2
  done
done
