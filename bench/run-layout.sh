#!/usr/bin/env bash
# The layout loop on the 10M-row events table (docs/benchmarks.md, "Layout from scan reports"):
#   1. restore pristine; Spark replays the query mix with the scan-report collector on its class path
#   2. resurfacer advise (its recommendation and target file size)
#   3. a plain bin-pack at that target (resurfacer compact, rewrite-all); the same queries again
#   4. resurfacer maintain --yes with compact.layout: auto; the same queries again
#   5. resurfacer advise: the measured files per query per era, and whether anything is left to do
# Env: BENCH_WORK (default bench/work), QUERIES (300), SCENARIO (events).
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_built
name="${SCENARIO:-events}"
queries="${QUERIES:-300}"
scenario="$WORK/$name"
[[ -f "$scenario/pristine/catalog.db" ]] || { echo "no pristine copy in $scenario; run bench/generate.sh $name" >&2; exit 2; }
open_run layout
live="$scenario/live"
reports="$WORK/layout-reports-$stamp"
rm -rf "$live"; cp -a "$scenario/pristine" "$live"
mkdir -p "$reports"
collector="$ROOT/resurfacer-scan-reports/target/resurfacer-scan-reports-0.1.0-SNAPSHOT.jar"
[[ -f "$collector" ]] || { echo "build resurfacer-scan-reports first" >&2; exit 2; }
cat > "$WORK/layout-$stamp.yml" <<YML
catalogs:
  bench:
    type: jdbc
    uri: jdbc:sqlite:$live/catalog.db
    warehouse: $live/warehouse
defaults:
  compact:
    layout: auto
    scan-reports: $reports
  expire: {enabled: false}
  remove-orphans: {enabled: false}
  rewrite-manifests: {enabled: false}
YML
cfg="$WORK/layout-$stamp.yml"
B="$ROOT/bin/resurfacer"
replay() {
  note "replay ($1)"
  /usr/bin/time -a -o "$results" -f "TIME replay-$1 wall=%e user=%U sys=%S" java ${JAVA_OPTS:-} "${SPARK_OPENS[@]}" -cp "$SPARK_CP:$collector" \
    dev.resurfacer.bench.SparkReplay --uri "jdbc:sqlite:$live/catalog.db" --warehouse "$live/warehouse" --reports "$reports" \
    --queries "$queries" 2>>"$log" | tee -a "$results"
}
timed() {
  local label="$1"; shift
  note "$label: $*"
  /usr/bin/time -a -o "$results" -f "TIME $label wall=%e user=%U sys=%S" "$@" 2>>"$log" | tee -a "$results"
}
echo "load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results"
replay pristine
timed advise-1 "$B" advise db.events --config "$cfg"
target=$("$B" advise db.events --config "$cfg" --output json | python3 -c 'import json,sys; a=json.load(sys.stdin); print(a["recommendation"]["target_file_size"])')
timed binpack "$B" compact db.events --config "$cfg" --strategy binpack --target-file-size "$target" --rewrite-all --yes
replay binpack
timed maintain "$B" maintain --config "$cfg" --tables db.events --yes
replay layout
timed advise-2 "$B" advise db.events --config "$cfg"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results"
