#!/usr/bin/env bash
# Spark 4.1 local[2] rewrite_data_files on WORK/SCENARIO, restored from its pristine copy first
# (outside the timing). The JVM's classpath is only Spark + iceberg-spark-runtime 1.12.0 + sqlite-jdbc.
# Prints the whole process's wall time (Spark's start included) as RESULT ... process_outer_ms=.
#   bench/run-spark.sh [SCENARIO_NAME] [--strategy sort --sort-order "user_id, ts"]
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
name="${1:-events}"; shift || true
scenario="$WORK/$name"
[[ -f "$scenario/pristine/catalog.db" ]] || { echo "no pristine copy in $scenario; run bench/generate.sh $name" >&2; exit 2; }
r0=$(now_ms)
rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"
t0=$(now_ms)
java ${JAVA_OPTS:-} "${SPARK_OPENS[@]}" -cp "$SPARK_CP" dev.resurfacer.bench.SparkCompaction \
  --uri "jdbc:sqlite:$scenario/live/catalog.db" --warehouse "$scenario/live/warehouse" --catalog bench --table db.events "$@"
echo "RESULT engine=spark restore_ms=$(( t0 - r0 )) process_outer_ms=$(( $(now_ms) - t0 ))"
