#!/usr/bin/env bash
# Compaction beside a CDC writer. One writer process applies the same merge-on-read changes (a row
# deleted by position, or updated: delete + new version) at RATE commits/s to two copies of a table
# (lanes `ours` and `spark`, each its own SQLite catalog), retrying when a compaction won; meanwhile
# `bin/resurfacer compact --yes` runs in a loop on `ours` and Spark's rewrite_data_files in a loop
# (one Spark session) on `spark`, each pausing PAUSE seconds between runs. Every run's outcome and
# CPU time, and every lane's live data/delete files every 10 s, go to CSVs under WORK/cdc-vVERSION.
#   bench/run-cdc.sh                                   # 5 minutes, v2 (position deletes), 1 commit/s
#   MINUTES=10 VERSION=3 RATE=1 PAUSE=5 bench/run-cdc.sh
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_built
minutes="${MINUTES:-5}"; version="${VERSION:-2}"; rate="${RATE:-1}"; pause="${PAUSE:-5}"
dir="$WORK/cdc-v$version"
rm -rf "$dir"; mkdir -p "$dir"
java -Xmx512m "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.CdcBench --dir "$dir" --lanes ours,spark --create true \
  --version "$version" --partitions "${PARTITIONS:-4}" --files "${FILES:-30}" --rows "${ROWS:-300}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
java -Xmx1g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.CdcBench --dir "$dir" --lanes ours,spark \
  --rate "$rate" --minutes "$minutes" --sample-seconds 10 --csv "$dir/samples.csv" > "$dir/writer.out" 2> "$dir/writer.err" &
writer=$!
java -Xmx1g ${JAVA_OPTS:-} "${SPARK_OPENS[@]}" -cp "$SPARK_CP" dev.resurfacer.bench.SparkCompactionLoop \
  --uri "jdbc:sqlite:$dir/spark/catalog.db" --warehouse "$dir/spark/warehouse" --catalog bench --table db.cdc \
  --minutes "$minutes" --pause-seconds "$pause" --csv "$dir/spark-runs.csv" > "$dir/spark.out" 2> "$dir/spark.err" &
spark=$!
trap 'kill $writer $spark 2>/dev/null || true' EXIT
echo "elapsed_s,committed_groups,not_committed_groups,carried_groups,cpu_s,wall_s" > "$dir/ours-runs.csv"
t0=$(now_ms); end=$(( t0 + $(awk "BEGIN {print int($minutes * 60000)}") ))
while (( $(now_ms) < end )); do
  s=$(now_ms)
  /usr/bin/time -f "%U %S" -o "$dir/time.txt" "$ROOT/bin/resurfacer" compact db.cdc --min-input-files 2 --yes \
    --catalog-name bench --catalog-uri "jdbc:sqlite:$dir/ours/catalog.db" --warehouse "$dir/ours/warehouse" \
    > "$dir/ours-last.out" 2>&1 || true
  cat "$dir/ours-last.out" >> "$dir/ours.out"
  committed=$(awk '$1=="group" && $2 ~ /^[0-9]+$/ && $5=="committed"' "$dir/ours-last.out" | wc -l)
  failed=$(awk '$1=="group" && $2 ~ /^[0-9]+$/ && $5!="committed"' "$dir/ours-last.out" | wc -l)
  carried=$(grep -c 'deleted concurrently onto the new files' "$dir/ours-last.out" || true)
  cpu=$(awk '{print $1 + $2}' "$dir/time.txt" | tail -1)
  echo "$(( (s - t0) / 1000 )),$committed,$failed,$carried,$cpu,$(( ($(now_ms) - s) / 1000 ))" >> "$dir/ours-runs.csv"
  sleep "$pause"
done
finish_cdc_lanes $spark $writer "$dir"
awk -F, 'NR>1 {runs++; c+=$2; f+=$3; k+=$4; cpu+=$5} END {printf "RESULT engine=ours runs=%d groups_committed=%d groups_not_committed=%d groups_carried=%d cpu_s=%.1f\n", runs, c, f, k, cpu}' "$dir/ours-runs.csv"
awk -F, 'NR>1 {n[$2]++} END {printf "RESULT engine=spark calls committed=%d failed=%d nothing=%d\n", n["committed"], n["failed"], n["nothing"]}' "$dir/spark-runs.csv"
echo "data files over time: $dir/samples.csv"
