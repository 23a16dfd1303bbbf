#!/usr/bin/env bash
# Expire or orphan removal, ours or Spark's, on WORK/SCENARIO restored from its pristine copy; for
# `orphans` ORPHANS (default 1,000,000) empty files dated 10 days back are first created under the
# table's data dir. Restore and orphan creation happen before the timed process starts.
#   bench/run-maintenance.sh ours|spark expire|orphans [SCENARIO_NAME]
#   JAVA_OPTS=-Xmx256m bench/run-maintenance.sh ours orphans snap
# Prints RESULT ... restore_ms= prepare_ms= process_outer_ms= (the whole JVM, start to exit).
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
engine="$1"; op="$2"; name="${3:-snap}"
scenario="$WORK/$name"
[[ -f "$scenario/pristine/catalog.db" ]] || { echo "no pristine copy in $scenario; run bench/generate.sh $name" >&2; exit 2; }
r0=$(now_ms)
rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"
p0=$(now_ms)
if [[ "$op" == orphans ]]; then
  java -Xmx256m -cp "$HARNESS_CP" dev.resurfacer.bench.MakeOrphans --dir "$scenario/live/warehouse/db/events/data/orphans" --count "${ORPHANS:-1000000}"
  sync
fi
t0=$(now_ms)
case "$engine" in
  ours) java ${JAVA_OPTS:-} "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.OurMaintenance --scenario "$scenario" --op "$op" ${OUR_ARGS:-} ;;
  spark) java ${JAVA_OPTS:-} "${SPARK_OPENS[@]}" -cp "$SPARK_CP" dev.resurfacer.bench.SparkMaintenance \
           --uri "jdbc:sqlite:$scenario/live/catalog.db" --warehouse "$scenario/live/warehouse" --catalog bench --table db.events --op "$op" ;;
  *) echo "engine: ours|spark" >&2; exit 2 ;;
esac
t1=$(now_ms)
left=$(find "$scenario/live/warehouse" -type f | wc -l)
echo "RESULT restore_ms=$(( p0 - r0 )) prepare_ms=$(( t0 - p0 )) process_outer_ms=$(( t1 - t0 )) files_left=$left"
