#!/usr/bin/env bash
# The compaction benchmark, end to end (issue 3):
#   1. generate the events table once (and its pristine copy), unless it already exists
#   2. our compaction in a fresh JVM, from the restored copy
#   3. Spark 4.1 local[2] rewrite_data_files in a fresh JVM, from the restored copy
#   4. the bounded-memory run: one partition >= 5x --memory, -Xmx512m
#   5. a summary table (also written to WORK/summary-<timestamp>.txt)
#
# Sizes (environment): FILES=1000 ROWS=10000 DAYS=4 SNAPSHOTS=100   (the reference anchor's table)
#                      BIG_FILES=250 BIG_ROWS=100000 BIG_MEMORY=209715200 (200 MB: the 1.18 GB partition is 5.9x) BIG_XMX=512m
#                      RUNS=1 (repeat ours and Spark alternately; 0 runs only the big partition), REGENERATE=1 (rebuild the tables),
#                      SKIP_SPARK=1, SKIP_BIG=1, NAME=events (scenario directory under bench/work)
#                      STRATEGIES="binpack" (any of binpack sort zorder: sort = (user_id, ts), zorder = (user_id, ts), both engines)
#                      BIG_STRATEGY=binpack (the bounded-memory run's strategy), BIG_NAME=big
#   bench/run.sh
#   FILES=250 NAME=events-2.5m bench/run.sh
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
FILES="${FILES:-1000}"; ROWS="${ROWS:-10000}"; DAYS="${DAYS:-4}"; SNAPSHOTS="${SNAPSHOTS:-100}"
BIG_FILES="${BIG_FILES:-250}"; BIG_ROWS="${BIG_ROWS:-100000}"; BIG_MEMORY="${BIG_MEMORY:-209715200}"; BIG_XMX="${BIG_XMX:-512m}"
RUNS="${RUNS:-1}"; NAME="${NAME:-events}"; STRATEGIES="${STRATEGIES:-binpack}"
BIG_STRATEGY="${BIG_STRATEGY:-binpack}"; BIG_NAME="${BIG_NAME:-big}"
# the same ordering for both engines
ours_run() { local s="$1"; shift; case "$s" in
  binpack) "$BENCH_DIR/run-compaction.sh" "$@" ;;
  sort) "$BENCH_DIR/run-compaction.sh" "$@" --strategy sort --sort-by "user_id, ts" ;;
  zorder) "$BENCH_DIR/run-compaction.sh" "$@" --strategy zorder --columns user_id,ts ;; esac; }
spark_run() { local s="$1"; shift; case "$s" in
  binpack) "$BENCH_DIR/run-spark.sh" "$@" ;;
  sort) "$BENCH_DIR/run-spark.sh" "$@" --strategy sort --sort-order "user_id, ts" ;;
  zorder) "$BENCH_DIR/run-spark.sh" "$@" --strategy sort --sort-order "zorder(user_id, ts)" ;; esac; }
mkdir -p "$WORK"
stamp=$(date +%Y%m%d-%H%M%S)
log="$WORK/run-$stamp.log"
results="$WORK/results-$stamp.txt"
: > "$results"
echo "bench: logs in $log" >&2

note() { echo "== $*" | tee -a "$log" >&2; }

# CPU-seconds (user + system) of every finished child process so far (bash's `times`, second line):
# the figure a shared machine does not inflate much, unlike wall time
# (`times` must run in this shell, not in a pipeline or $(...): a forked subshell has no finished
# children; so the caller writes it to a file and this reads the file)
cpu_of() {
  tail -1 "$1" | awk '{ split($1, u, "m"); split($2, s, "m"); sub("s", "", u[2]); sub("s", "", s[2]); printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

# one step: run a command, keep its output in the log, its RESULT lines (with a label) in results
step() {
  local label="$1"; shift
  local t0; t0=$(now_ms)
  local load0; load0=$(cut -d' ' -f1 /proc/loadavg)
  local before; before=$(wc -l < "$log")
  times > "$WORK/times-$stamp.txt"; local cpu0; cpu0=$(cpu_of "$WORK/times-$stamp.txt")
  if ! "$@" >> "$log" 2>&1; then
    echo "FAILED: $label (see $log)" >&2; tail -20 "$log" >&2; exit 1
  fi
  local outer=$(( $(now_ms) - t0 ))
  times > "$WORK/times-$stamp.txt"; local cpu; cpu=$(echo "$(cpu_of "$WORK/times-$stamp.txt") - $cpu0" | bc)
  local res; res=$(tail -n +$(( before + 1 )) "$log" | grep '^RESULT' | tr '\n' ' ' || true)
  echo "label=$label outer_ms=$outer cpu_s=$cpu load_start=$load0 load_end=$(cut -d' ' -f1 /proc/loadavg) $res" >> "$results"
}

if [[ -n "${REGENERATE:-}" || ! -f "$WORK/$NAME/pristine/catalog.db" ]]; then
  note "generate $NAME: $FILES files x $ROWS rows, $DAYS days, $SNAPSHOTS snapshots"
  "$BENCH_DIR/generate.sh" "$NAME" --files "$FILES" --rows "$ROWS" --days "$DAYS" --snapshots "$SNAPSHOTS" 2>&1 | tee -a "$log" | grep '^generated' >&2
fi
for i in $(seq 1 "$RUNS"); do
  for strat in $STRATEGIES; do
    sfx=""; [[ "$strat" == binpack ]] || sfx="-$strat"
    note "run $i: ours (Compaction.execute, $strat) on $NAME"
    step "ours$sfx#$i" ours_run "$strat" "$NAME"
    if [[ -z "${SKIP_SPARK:-}" ]]; then
      note "run $i: Spark 4.1 local[2] rewrite_data_files ($strat) on $NAME"
      step "spark$sfx#$i" spark_run "$strat" "$NAME"
    fi
  done
done
if [[ -z "${SKIP_BIG:-}" ]]; then
  if [[ -n "${REGENERATE:-}" || ! -f "$WORK/$BIG_NAME/pristine/catalog.db" ]]; then
    note "generate $BIG_NAME: $BIG_FILES files x $BIG_ROWS rows in ONE day partition"
    "$BENCH_DIR/generate.sh" "$BIG_NAME" --files "$BIG_FILES" --rows "$BIG_ROWS" --days 1 --snapshots 25 2>&1 | tee -a "$log" | grep '^generated' >&2
  fi
  note "bounded memory: ours ($BIG_STRATEGY) on $BIG_NAME with --memory $BIG_MEMORY, -Xmx$BIG_XMX"
  JAVA_OPTS="-Xmx$BIG_XMX" step "big-ours-$BIG_STRATEGY" ours_run "$BIG_STRATEGY" "$BIG_NAME" --memory "$BIG_MEMORY"
fi

# summary: wall = the whole process (JVM and Spark start included), minus our in-process restore
{
  echo
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), load average at end: $(cut -d' ' -f1-3 /proc/loadavg) (other builds may share the CPU)"
  awk '
    function kv(line, key,   m) { line = " " line; if (match(line, " " key "=[^ ]*")) { m = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2); return m } return "" }
    BEGIN { printf "%-12s %9s %10s %12s %7s %10s %7s %10s %10s %10s %4s %s\n", "run", "wall s", "compact s", "rows/s", "in", "in MB", "out", "out MB", "peak RSS", "spill MB", "ok", "load (1-min avg, start/end)" }
    {
      label = kv($0, "label"); outer = kv($0, "outer_ms"); restore = kv($0, "restore_ms"); if (restore == "") restore = 0
      wall = (outer - restore) / 1000; compact = kv($0, "compaction_ms") / 1000; rows = kv($0, "rows")
      rps = wall > 0 ? rows / wall : 0
      printf "%-12s %9.1f %10.1f %12.0f %7d %10.1f %7d %10.1f %8.0f MB %10.1f %4s %s/%s\n", label, wall, compact, rps, kv($0, "input_files"),
        kv($0, "input_bytes") / 1048576, kv($0, "output_files"), kv($0, "output_bytes") / 1048576, kv($0, "vmhwm") / 1048576,
        kv($0, "max_spill") / 1048576, kv($0, "ok"), kv($0, "load_start"), kv($0, "load_end")
    }' "$results"
  for sfx in "" -sort -zorder; do
  ours=$(awk -v want="label=ours$sfx#" 'index($0, want) { for (i = 1; i <= NF; i++) { split($i, p, "="); if (!(p[1] in v)) v[p[1]] = p[2] } s += v["outer_ms"] - v["restore_ms"]; n++; delete v } END { if (n) printf "%.0f", s / n }' "$results")
  spark=$(awk -v want="label=spark$sfx#" 'index($0, want) { for (i = 1; i <= NF; i++) { split($i, p, "="); if (!(p[1] in v)) v[p[1]] = p[2] } s += v["outer_ms"] - v["restore_ms"]; n++; delete v } END { if (n) printf "%.0f", s / n }' "$results")
  if [[ -n "$ours" && -n "$spark" ]]; then
    awk -v o="$ours" -v s="$spark" -v k="${sfx:--binpack}" 'BEGIN { printf "%s: ours / Spark wall time = %.2f (mean %.1f s / %.1f s; goal: <= 0.67 bin-pack, <= 0.5 sort and z-order)\n", substr(k, 2), o / s, o / 1000, s / 1000 }'
  fi
  done
  echo "rows/s = rows / wall; wall for ours excludes the restore copy, Spark is restored before its process starts."
} | tee "$WORK/summary-$stamp.txt"
