#!/usr/bin/env bash
# One small table through fresh JVMs, the way users run it (bin/resurfacer, class-data archive on):
# `--help`, `describe` of a 40-file table (40,000 rows, ~2 MB, written by Iceberg Java: bench/harness
# SmallTables with one table) and `compact --yes` of it (content verification on; the table restored
# from its pristine copy before each run). Median wall time and median CPU-seconds (user+sys) of RUNS runs each.
#   bench/run-small-verbs.sh             # RUNS=5
# Prints one RESULT line with the load average before and after.
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_harness_built
runs="${RUNS:-5}"
scenario="$WORK/small1"
if [[ ! -f "$scenario/pristine/resurfacer.yml" ]]; then
  java -Xmx1g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.SmallTables --scenario "$scenario" --tables 1 --catalogs 1 >&2
fi
ensure_cli_ready
restore() { rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"; }
restore
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# wall_ms cpu_s of one run of bin/resurfacer with the arguments, in the live scenario
one() {
  local t0 t1
  t0=$(date +%s%3N)
  (cd "$scenario/live" && /usr/bin/time -f "%U %S" -o "$scenario/time.txt" "$ROOT/bin/resurfacer" "$@" >/dev/null 2>"$scenario/err.txt") \
    || { echo "failed: resurfacer $* ($(head -3 "$scenario/err.txt"))" >&2; exit 1; }
  t1=$(date +%s%3N)
  echo "$((t1 - t0)) $(awk '{printf "%.2f", $1 + $2}' "$scenario/time.txt")"
}
measure() { # label, then the arguments; restores the table before each run when the label is compact
  local label="$1"; shift
  local out=()
  for _ in $(seq "$runs"); do
    [[ "$label" == compact ]] && restore
    out+=("$(one "$@")")
  done
  printf '%s\n' "${out[@]}" > "$scenario/$label.txt"
  echo "${label}_ms=$(cut -d' ' -f1 "$scenario/$label.txt" | median) ${label}_cpu_s=$(cut -d' ' -f2 "$scenario/$label.txt" | median)"
}
load0=$(cut -d' ' -f1 /proc/loadavg)
help=$(measure help --help)
describe=$(measure describe describe db.t0000 --config resurfacer.yml --catalog c0)
compact=$(measure compact compact db.t0000 --yes --config resurfacer.yml --catalog c0)
echo "RESULT $help $describe $compact runs=$runs load_before=$load0 load_after=$(cut -d' ' -f1 /proc/loadavg)"
