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
#   bench/run.sh
#   FILES=250 NAME=events-2.5m bench/run.sh
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_built
FILES="${FILES:-1000}"; ROWS="${ROWS:-10000}"; DAYS="${DAYS:-4}"; SNAPSHOTS="${SNAPSHOTS:-100}"
BIG_FILES="${BIG_FILES:-250}"; BIG_ROWS="${BIG_ROWS:-100000}"; BIG_MEMORY="${BIG_MEMORY:-209715200}"; BIG_XMX="${BIG_XMX:-512m}"
RUNS="${RUNS:-1}"; NAME="${NAME:-events}"
mkdir -p "$WORK"
stamp=$(date +%Y%m%d-%H%M%S)
log="$WORK/run-$stamp.log"
results="$WORK/results-$stamp.txt"
: > "$results"
echo "bench: logs in $log" >&2

note() { echo "== $*" | tee -a "$log" >&2; }

# one step: run a command, keep its output in the log, its RESULT lines (with a label) in results
step() {
  local label="$1"; shift
  local t0; t0=$(now_ms)
  local load0; load0=$(cut -d' ' -f1 /proc/loadavg)
  local before; before=$(wc -l < "$log")
  if ! "$@" >> "$log" 2>&1; then
    echo "FAILED: $label (see $log)" >&2; tail -20 "$log" >&2; exit 1
  fi
  local outer=$(( $(now_ms) - t0 ))
  local res; res=$(tail -n +$(( before + 1 )) "$log" | grep '^RESULT' | tr '\n' ' ' || true)
  echo "label=$label outer_ms=$outer load_start=$load0 load_end=$(cut -d' ' -f1 /proc/loadavg) $res" >> "$results"
}

if [[ -n "${REGENERATE:-}" || ! -f "$WORK/$NAME/pristine/catalog.db" ]]; then
  note "generate $NAME: $FILES files x $ROWS rows, $DAYS days, $SNAPSHOTS snapshots"
  "$BENCH_DIR/generate.sh" "$NAME" --files "$FILES" --rows "$ROWS" --days "$DAYS" --snapshots "$SNAPSHOTS" 2>&1 | tee -a "$log" | grep '^generated' >&2
fi
for i in $(seq 1 "$RUNS"); do
  note "run $i: ours (Compaction.execute, defaults) on $NAME"
  step "ours#$i" "$BENCH_DIR/run-compaction.sh" "$NAME"
  if [[ -z "${SKIP_SPARK:-}" ]]; then
    note "run $i: Spark 4.1 local[2] rewrite_data_files on $NAME"
    step "spark#$i" "$BENCH_DIR/run-spark.sh" "$NAME"
  fi
done
if [[ -z "${SKIP_BIG:-}" ]]; then
  if [[ -n "${REGENERATE:-}" || ! -f "$WORK/big/pristine/catalog.db" ]]; then
    note "generate big: $BIG_FILES files x $BIG_ROWS rows in ONE day partition"
    "$BENCH_DIR/generate.sh" big --files "$BIG_FILES" --rows "$BIG_ROWS" --days 1 --snapshots 25 2>&1 | tee -a "$log" | grep '^generated' >&2
  fi
  note "bounded memory: ours on big with --memory $BIG_MEMORY, -Xmx$BIG_XMX"
  JAVA_OPTS="-Xmx$BIG_XMX" step "big-ours" "$BENCH_DIR/run-compaction.sh" big --memory "$BIG_MEMORY"
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
  ours=$(awk '/label=ours/ { for (i = 1; i <= NF; i++) { split($i, p, "="); if (!(p[1] in v)) v[p[1]] = p[2] } s += v["outer_ms"] - v["restore_ms"]; n++; delete v } END { if (n) printf "%.0f", s / n }' "$results")
  spark=$(awk '/label=spark/ { for (i = 1; i <= NF; i++) { split($i, p, "="); if (!(p[1] in v)) v[p[1]] = p[2] } s += v["outer_ms"] - v["restore_ms"]; n++; delete v } END { if (n) printf "%.0f", s / n }' "$results")
  if [[ -n "$ours" && -n "$spark" ]]; then
    awk -v o="$ours" -v s="$spark" 'BEGIN { printf "ours / Spark wall time = %.2f (goal: <= 0.67)\n", o / s }'
  fi
  echo "rows/s = rows / wall; wall for ours excludes the restore copy, Spark is restored before its process starts."
} | tee "$WORK/summary-$stamp.txt"
