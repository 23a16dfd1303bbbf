#!/usr/bin/env bash
# The Delta benchmark (issue 13), through bin/resurfacer (the user's path) next to delta-spark 4.1.0
# on Spark 4.1.0 local[2], each on a fresh copy of the same pristine table, in one run:
#   compact   ours: bin/resurfacer compact T --yes                              Spark: OPTIMIZE T
#   zorder    ours: bin/resurfacer compact T --strategy zorder --columns a,b --yes   Spark: OPTIMIZE T ZORDER BY (a,b)
#   vacuum    ours: bin/resurfacer vacuum T --retention 0h --force-retention --yes   Spark: VACUUM T RETAIN 0 HOURS
# compact/zorder run on WORK/delta (10M rows, 1,000 files, 4 day partitions, 10 commits); vacuum on
# WORK/delta-log (COMMITS commits written by Delta Kernel, checkpointed every 10, each adding FILES_PER_COMMIT small files, every
# REMOVE_EVERY-th removing all files added so far, so thousands of
# files are tombstoned; retention 0 makes every tombstone past retention for both engines).
# Wall time = the whole process (JVM and Spark start included) measured outside it; peak RSS = GNU
# time's maximum resident set of that process. After every run a separate Spark process (untimed)
# reads the result: row count and content hash (sum of xxhash64 over every column, as decimal) must
# equal the pristine table's; the vacuum check also counts the Parquet files left.
#
#   bench/run-delta.sh                       # RUNS=2 OPS="compact zorder vacuum"
#   RUNS=1 OPS=vacuum bench/run-delta.sh
# Environment: RUNS, OPS, REGENERATE=1, ROWS=10000000 FILES=1000 DAYS=4 GEN_COMMITS=10, COMMITS=2000 FILES_PER_COMMIT=2 REMOVE_EVERY=50
#   (vacuum table), SKIP_SPARK=1 (re-measure ours only, e.g. after a change to the Delta runner),
#   RESURFACER_JAVA_OPTS (bin/resurfacer's JVM flags; default -Xmx2g).
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_delta_built
RUNS="${RUNS:-2}"; OPS="${OPS:-compact zorder vacuum}"
ROWS="${ROWS:-10000000}"; FILES="${FILES:-1000}"; DAYS="${DAYS:-4}"; GEN_COMMITS="${GEN_COMMITS:-10}"; COMMITS="${COMMITS:-2000}"
cli="$ROOT/bin/resurfacer"
DELTA_SPARK=(java "${SPARK_OPENS[@]}" -cp "$DELTA_CP" dev.resurfacer.bench.DeltaSpark)
delta_spark() { "${DELTA_SPARK[@]}" "$@"; }

open_run delta
kv() { grep -o " $2=[^ ]*" <<< " $1" | head -1 | cut -d= -f2; }

if [[ ( " $OPS " == *" compact "* || " $OPS " == *" zorder "* ) && ( -n "${REGENERATE:-}" || ! -d "$WORK/delta/pristine/_delta_log" ) ]]; then
  note "generate delta: $ROWS rows, $FILES files, $DAYS days, $GEN_COMMITS commits"
  rm -rf "$WORK/delta"; mkdir -p "$WORK/delta"
  # generate prints the new table's row count and content hash: the expected content of every run
  delta_spark generate --table "$WORK/delta/pristine" --rows "$ROWS" --files "$FILES" --days "$DAYS" --commits "$GEN_COMMITS" 2>> "$log" \
    | tee -a "$log" | grep '^RESULT' > "$WORK/delta/expected.txt"
fi
if [[ " $OPS " == *" vacuum "* && ( -n "${REGENERATE:-}" || ! -d "$WORK/delta-log/pristine/_delta_log" ) ]]; then
  note "generate delta-log: $COMMITS commits"
  rm -rf "$WORK/delta-log"; mkdir -p "$WORK/delta-log"
  # written by Delta Kernel (DeltaLogGenerate): a delta-spark transaction per commit takes seconds
  ensure_harness_built
  java "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.DeltaLogGenerate --table "$WORK/delta-log/pristine" --commits "$COMMITS" \
    --files-per-commit "${FILES_PER_COMMIT:-2}" --remove-every "${REMOVE_EVERY:-50}" 2>> "$log" | tee -a "$log" >&2
fi
# the expected content of each pristine table, once per table (cached beside it)
expected() {
  local dir="$1"
  if [[ ! -f "$dir/expected.txt" || "$dir/expected.txt" -ot "$dir/pristine/_delta_log" ]]; then
    delta_spark check --table "$dir/pristine" 2>>"$log" | grep '^RESULT' > "$dir/expected.txt"
  fi
  cat "$dir/expected.txt"
}
# bin/resurfacer makes its class-data sharing archive on the first run after a build: not in a timed run
"$cli" --version >> "$log" 2>&1

# one timed run: LABEL SCENARIO_DIR COMMAND...; the table copy is WORK/SCENARIO/live and the command's
# arguments may name it as @LIVE
timed() {
  local label="$1" dir="$2"; shift 2
  local live="$dir/live"
  rm -rf "$live"; cp -a "$dir/pristine" "$live"; sync
  local args=(); for x in "$@"; do args+=("${x//@LIVE/$live}"); done
  local load0; load0=$(cut -d' ' -f1 /proc/loadavg)
  local t0; t0=$(now_ms)
  local rc=0
  local logged; logged=$(wc -l < "$log")
  /usr/bin/time -f "TIME max_rss_kb=%M cpu_s=%U+%S" -o "$WORK/delta-time-$stamp.txt" "${args[@]}" >> "$log" 2>&1 || rc=$?
  # our compaction's summary line says what its content verification's reads took on their threads
  local verify; verify=$(tail -n +"$((logged + 1))" "$log" | sed -n 's/.*, verification \([0-9.]*\) CPU-s.*/\1/p' | tail -1)
  local wall=$(( $(now_ms) - t0 ))
  local load1; load1=$(cut -d' ' -f1 /proc/loadavg)
  local rss; rss=$(grep -o 'max_rss_kb=[0-9]*' "$WORK/delta-time-$stamp.txt" | cut -d= -f2)
  # CPU-seconds (user + system) of the whole process: the figure a shared machine does not inflate much
  local cpu; cpu=$(grep -o 'cpu_s=[0-9.+]*' "$WORK/delta-time-$stamp.txt" | cut -d= -f2 | bc)
  local parquet; parquet=$(find "$live" -name '*.parquet' -type f | wc -l)
  local got; got=$(delta_spark check --table "$live" 2>>"$log" | grep '^RESULT' || true)
  local want; want=$(expected "$dir")
  local same=no
  [[ -n "$got" && "$(kv "$got" rows)" == "$(kv "$want" rows)" && "$(kv "$got" content_hash)" == "$(kv "$want" content_hash)" ]] && same=yes
  local line="label=$label rc=$rc wall_ms=$wall cpu_s=$cpu${verify:+ verify_cpu_s=$verify} max_rss_kb=$rss load_start=$load0 load_end=$load1 rows=$(kv "$got" rows) content_same=$same files=$(kv "$got" files) bytes=$(kv "$got" bytes) parquet_on_disk=$parquet"
  echo "$line" | tee -a "$results" >&2
  echo "$line" >> "$log"
}

for i in $(seq 1 "$RUNS"); do
  for op in $OPS; do
    case "$op" in
      compact)
        note "run $i: ours compact"
        timed "ours-compact#$i" "$WORK/delta" "$cli" compact @LIVE --yes
        [[ -n "${SKIP_SPARK:-}" ]] || { note "run $i: Spark OPTIMIZE"; timed "spark-optimize#$i" "$WORK/delta" "${DELTA_SPARK[@]}" optimize --table @LIVE; } ;;
      zorder)
        note "run $i: ours z-order (a,b)"
        timed "ours-zorder#$i" "$WORK/delta" "$cli" compact @LIVE --strategy zorder --columns a,b --yes
        [[ -n "${SKIP_SPARK:-}" ]] || { note "run $i: Spark OPTIMIZE ZORDER BY (a,b)"; timed "spark-zorder#$i" "$WORK/delta" "${DELTA_SPARK[@]}" optimize --table @LIVE --zorder a,b; } ;;
      vacuum)
        note "run $i: ours vacuum"
        timed "ours-vacuum#$i" "$WORK/delta-log" "$cli" vacuum @LIVE --retention 0h --force-retention --yes --show 0
        [[ -n "${SKIP_SPARK:-}" ]] || { note "run $i: Spark VACUUM RETAIN 0 HOURS"; timed "spark-vacuum#$i" "$WORK/delta-log" "${DELTA_SPARK[@]}" vacuum --table @LIVE; } ;;
      *) echo "unknown op $op" >&2; exit 2 ;;
    esac
  done
done
{
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo); shared with other builds; load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "pristine delta: $(cat "$WORK/delta/expected.txt" 2>/dev/null)"
  [[ -f "$WORK/delta-log/expected.txt" ]] && echo "pristine delta-log: $(cat "$WORK/delta-log/expected.txt")"
  cat "$results"
} | tee "$WORK/delta-summary-$stamp.txt"
