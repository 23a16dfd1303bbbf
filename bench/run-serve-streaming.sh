#!/usr/bin/env bash
# A streaming writer at a fixed commit rate for MINUTES into two tables side by side, in one process:
# `plain` is left alone, `served` is watched by `bin/resurfacer serve --yes`. Every SAMPLE seconds
# both tables' live data files, small files and query-planning time (Iceberg planFiles wall time)
# are sampled into WORK/streaming/samples.csv; then docs/serve-streaming.svg is drawn from the CSV.
#   bench/run-serve-streaming.sh                       # 10 minutes, a commit every 2 s per table
#   MINUTES=2 RATE=2 bench/run-serve-streaming.sh
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_harness_built
minutes="${MINUTES:-10}"; rate="${RATE:-0.5}"; sample="${SAMPLE:-10}"; rows="${ROWS:-200}"
dir="$WORK/streaming"
rm -rf "$dir"; mkdir -p "$dir/serve"
java -Xmx512m "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.StreamingBench --dir "$dir" --lanes plain,served --create true
# the harness names its JDBC catalog `bench`, and JDBC catalogs scope tables by that name
cat > "$dir/serve/resurfacer.yml" <<YML
catalogs:
  bench: {type: jdbc, uri: "jdbc:sqlite:$dir/served/catalog.db", warehouse: "$dir/served/warehouse"}
defaults:
  compact: {min-input-files: 5}
  expire: {older-than: 2m, retain-last: 10}
  remove-orphans: {enabled: false}
  triggers: {small-files: 50, snapshots: 200}
serve: {interval: 10s, concurrency: 1, min-interval: 30s, lease: 10m, port: 0, history: history.db}
YML
(cd "$dir/serve" && RESURFACER_JAVA_OPTS="-Xmx1g" exec "$ROOT/bin/resurfacer" serve --yes --config resurfacer.yml >serve.out 2>serve.err) &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  grep -q '^listening on' "$dir/serve/serve.out" 2>/dev/null && break
  kill -0 $serve_pid 2>/dev/null || { echo "serve exited: $(cat "$dir/serve/serve.err")" >&2; exit 1; }
  sleep 1
done
grep -q '^listening on' "$dir/serve/serve.out" || { echo "serve did not start" >&2; exit 1; }
head -2 "$dir/serve/serve.out" >&2
t0=$(now_ms)
java -Xmx1g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.StreamingBench --dir "$dir" --lanes plain,served \
  --rate "$rate" --minutes "$minutes" --sample-seconds "$sample" --rows "$rows" --csv "$dir/samples.csv"
t1=$(now_ms)
kill -TERM $serve_pid; wait $serve_pid || true
trap - EXIT
runs=$(grep -c 'operation=compact outcome=done' "$dir/serve/serve.err" || true)
python3 "$BENCH_DIR/plot-streaming.py" "$dir/samples.csv" "$ROOT/docs/serve-streaming.svg" \
  "writer ${rate} commit/s per table, ${rows} rows per commit, ${minutes} min; serve: small-files 50, interval 10s"
echo "RESULT wall_ms=$(( t1 - t0 )) compactions=$runs csv=$dir/samples.csv"
python3 "$BENCH_DIR/plot-streaming.py" --summary "$dir/samples.csv"
