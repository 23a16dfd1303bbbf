#!/usr/bin/env bash
# Compaction beside a CDC writer, Delta (issue 31). Two lanes, one after the other, each on its own copy
# of a small Delta table (deletion vectors on) and each with its own delta-spark 4.1.0 writer process
# (Spark 4.1.0 local[2]): lane `ours` runs `bin/resurfacer compact <dir> --yes` in a loop (a new JVM per
# run, the table addressed by its location), lane `spark` runs delta-spark `OPTIMIZE delta.\`<dir>\`` in
# a loop (one Spark session); each pauses PAUSE seconds between runs and starts once the writer's first
# change is committed (a Spark session takes tens of seconds to start); each lane runs MINUTES from then.
# The writer makes at most RATE changes a second from THREADS threads on disjoint partitions: a DELETE
# or an UPDATE of one row (both re-add the touched file with a grown deletion vector) or a MERGE (one
# row updated, one inserted), retrying when a compaction's commit won. It keeps a model of the rows;
# at the end delta-spark reads the table and it must equal the model row for row (equals_model=true:
# a lost, doubled or misplaced delete in a compaction shows). The writer's session is sized for
# one-row changes (1 shuffle partition, Delta's state rebuilt in 1 task, no AQE, no code generation,
# no checksum file, MERGE's source not materialised): with Spark's defaults a change took ~25 s here.
# The lanes take turns because both writers at once on 2 cores made neither reach one change a second.
# Every run's outcome and CPU time, and the lane's data files every 10 s, go to CSVs under WORK/cdc-delta.
#   bench/run-cdc-delta.sh                     # 3 minutes a lane, 1 change/s, 4 partitions x 30 files x 300 rows
#   MINUTES=10 bench/run-cdc-delta.sh
# Environment: MINUTES (3), RATE (1), THREADS (4), PAUSE (5), PARTITIONS (4), FILES (30, per partition), ROWS (300, per file),
#   LANES ("ours spark"; "serve" runs `serve --yes` instead of a compact loop), INTERVAL (2, serve's evaluation seconds), REGENERATE=1 (write the pristine table again), RESURFACER_JAVA_OPTS (bin/resurfacer's JVM flags).
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_delta_built
CDC=(java -Xmx1g "${QUIET[@]}" "${SPARK_OPENS[@]}" -cp "$DELTA_CP" dev.resurfacer.bench.DeltaCdc)
minutes="${MINUTES:-3}"; rate="${RATE:-1}"; pause="${PAUSE:-5}"
dir="$WORK/cdc-delta"
mkdir -p "$dir"
if [[ -n "${REGENERATE:-}" || ! -d "$dir/pristine/_delta_log" ]]; then
  rm -rf "$dir/pristine"
  "${CDC[@]}" create --table "$dir/pristine" --partitions "${PARTITIONS:-4}" --files "${FILES:-30}" --rows "${ROWS:-300}" \
    2> "$dir/create.err" | grep '^RESULT'
fi
rm -rf "$dir/ours" "$dir/spark" "$dir/serve" "$dir/serve-home" "$dir"/*.csv "$dir"/*.out "$dir"/*.err "$dir"/*.started
ensure_cli_ready

# starts the writer on one lane's copy and waits for its first change; sets writer
start_writer() {
  local lane=$1
  cp -r "$dir/pristine" "$dir/$lane"
  echo "lane $lane: load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  "${CDC[@]}" writer --table "$dir/$lane" --rate "$rate" --threads "${THREADS:-4}" --minutes "$minutes" --sample-seconds 10 \
    --csv "$dir/samples-$lane.csv" --started "$dir/$lane.started" > "$dir/writer-$lane.out" 2> "$dir/writer-$lane.err" &
  writer=$!
  trap 'kill $writer 2>/dev/null || true' EXIT
  while [[ ! -f "$dir/$lane.started" ]]; do
    kill -0 $writer 2>/dev/null || { echo "the writer stopped before its first change: $dir/writer-$lane.err" >&2; exit 1; }
    sleep 0.2
  done
}

finish_writer() {
  wait "$writer" || { echo "the writer failed: $dir/writer-$1.err" >&2; exit 1; }
  trap - EXIT
  echo "lane $1: load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  sed "s/^RESULT verb=writer/RESULT lane=$1 verb=writer/" "$dir/writer-$1.out"
}

for lane in ${LANES:-ours spark}; do
  start_writer "$lane"
  if [[ $lane == ours ]]; then
    echo "elapsed_s,committed_bins,failed_bins,exit,cpu_s,wall_s" > "$dir/ours-runs.csv"
    t0=$(now_ms); end=$(( t0 + $(awk "BEGIN {print int($minutes * 60000)}") ))
    while (( $(now_ms) < end )); do
      s=$(now_ms); rc=0
      /usr/bin/time -f "%U %S" -o "$dir/time.txt" "$ROOT/bin/resurfacer" compact "$dir/ours" --yes > "$dir/ours-last.out" 2>&1 || rc=$?
      cat "$dir/ours-last.out" >> "$dir/ours.out"
      # "compacted T: … versions [12, 13] (OPTIMIZE …)": one version per committed bin; one "failed:" line per failed bin
      committed=$(grep -o 'versions \[[0-9, ]*\]' "$dir/ours-last.out" | grep -o '[0-9][0-9]*' | wc -l || true)
      failed=$(grep -c '^failed:' "$dir/ours-last.out" || true)
      cpu=$(awk '{print $1 + $2}' "$dir/time.txt" | tail -1)
      echo "$(( (s - t0) / 1000 )),$committed,$failed,$rc,$cpu,$(( ($(now_ms) - s) / 1000 ))" >> "$dir/ours-runs.csv"
      sleep "$pause"
    done
    finish_writer ours
    awk -F, 'NR>1 {runs++; c+=$2; f+=$3; cpu+=$5} END {printf "RESULT engine=ours runs=%d bins_committed=%d bins_failed=%d cpu_s=%.1f\n", runs, c, f, cpu}' "$dir/ours-runs.csv"
  elif [[ $lane == serve ]]; then
    # one long-running `serve --yes` (a warm JVM, as a user keeps it beside a stream) whose small-files
    # trigger fires the compaction; evaluated every INTERVAL, at least PAUSE between two runs
    mkdir -p "$dir/serve-home"
    cat > "$dir/serve-home/resurfacer.yml" <<YML
catalogs:
  bench: {type: delta, tables: {cdc.events: $dir/serve}}
defaults:
  compact: {min-input-files: 2}
  triggers: {small-files: 3, operations: [compact]}
serve: {interval: ${INTERVAL:-2}s, concurrency: 1, min-interval: ${pause}s, lease: 10m, port: 0, history: history.db}
YML
    (cd "$dir/serve-home" && exec "$ROOT/bin/resurfacer" serve --yes --config resurfacer.yml > serve.out 2> serve.err) &
    serve_pid=$!
    trap 'kill $writer $serve_pid 2>/dev/null || true' EXIT
    for _ in $(seq 1 300); do
      grep -q '^listening on' "$dir/serve-home/serve.out" 2>/dev/null && break
      kill -0 $serve_pid 2>/dev/null || { echo "serve exited: $(tail -3 "$dir/serve-home/serve.err")" >&2; exit 1; }
      sleep 0.5
    done
    wait "$writer" || { echo "the writer failed: $dir/writer-serve.err" >&2; exit 1; }
    # serve's own CPU time (user + system clock ticks of its JVM) before it is stopped
    ticks=$(awk '{print $14 + $15}' "/proc/$serve_pid/stat")
    kill -TERM $serve_pid; wait $serve_pid || true
    trap - EXIT
    echo "lane serve: load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
    sed "s/^RESULT verb=writer/RESULT lane=serve verb=writer/" "$dir/writer-serve.out"
    runs=$(grep -c 'operation=compact outcome=' "$dir/serve-home/serve.err" || true)
    not_done=$(grep 'operation=compact outcome=' "$dir/serve-home/serve.err" | grep -vc 'outcome=done' || true)
    echo "RESULT engine=serve compaction_runs=$runs runs_not_done=$not_done cpu_s=$(awk "BEGIN {printf \"%.1f\", $ticks / $(getconf CLK_TCK)}")"
  else
    "${CDC[@]}" optimize --table "$dir/spark" --minutes "$minutes" --pause-seconds "$pause" --csv "$dir/spark-runs.csv" \
      > "$dir/spark.out" 2> "$dir/spark.err"
    finish_writer spark
    cat "$dir/spark.out"
    awk -F, 'NR>1 {n[$2]++} END {printf "RESULT engine=delta-spark OPTIMIZE calls committed=%d failed=%d nothing=%d\n", n["committed"], n["failed"], n["nothing"]}' "$dir/spark-runs.csv"
  fi
done
# a compaction commit that adds a file with a deletion vector carried a concurrent change's deletes onto it
for lane in ${LANES:-ours spark}; do
  python3 - "$dir/$lane/_delta_log" "$lane" <<'PY'
import glob, json, sys
optimize = carrying = 0
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    actions = [json.loads(line) for line in open(f) if line.strip()]
    if any(a.get("commitInfo", {}).get("operation") == "OPTIMIZE" for a in actions):
        optimize += 1
        carrying += any(a.get("add", {}).get("deletionVector") for a in actions)
print(f"RESULT lane={sys.argv[2]} optimize_commits={optimize} commits_carrying_vectors={carrying}")
PY
done
echo "data files over time: $dir/samples-ours.csv, $dir/samples-spark.csv"
