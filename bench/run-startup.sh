#!/usr/bin/env bash
# Startup and size of the runnable jar, the way users run it (bin/resurfacer): wall time of `--help`
# and of `describe` on the demo table, each the median of RUNS runs, with and without the class-data
# sharing archive bin/resurfacer keeps beside the jar; and the jar's size.
#   bench/run-startup.sh                     # RUNS=5
#   JAR=/path/to/old/resurfacer.jar bench/run-startup.sh   # another build, as `java -Xmx2g -jar` (no archive)
# Prints one RESULT line. Needs no bench harness: only the runnable jar (bin/resurfacer builds it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-5}"
jar="$root/resurfacer-cli/target/resurfacer.jar"
"$root/bin/resurfacer" --version >/dev/null   # builds the jar when stale, and the archive
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$root/bin/resurfacer" demo reset >/dev/null && "$root/bin/resurfacer" demo next-day >/dev/null)
describe=(describe shop.orders --catalog-name demo --catalog-uri "jdbc:sqlite:$work/resurfacer-demo/catalog.db"
  --warehouse "$work/resurfacer-demo/warehouse")

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
wall_ms() {
  local t0 t1
  t0=$(date +%s%3N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s%3N)
  echo $((t1 - t0))
}
measure() { # CDS setting, then the command
  local cds="$1"; shift
  for _ in $(seq "$runs"); do
    if [[ -n "${JAR:-}" ]]; then
      wall_ms java -Xmx2g -jar "$JAR" "$@"
    else
      RESURFACER_CDS="$cds" wall_ms "$root/bin/resurfacer" "$@"
    fi
  done | median
}
if [[ -n "${JAR:-}" ]]; then
  echo "RESULT jar=$JAR jar_bytes=$(stat -c %s "$JAR") help_ms=$(measure 0 --help) describe_ms=$(measure 0 "${describe[@]}")" \
    "runs=$runs load=$(cut -d' ' -f1 /proc/loadavg)"
  exit 0
fi
echo "RESULT jar_bytes=$(stat -c %s "$jar") help_ms=$(measure 0 --help) help_cds_ms=$(measure 1 --help)" \
  "describe_ms=$(measure 0 "${describe[@]}") describe_cds_ms=$(measure 1 "${describe[@]}") runs=$runs" \
  "load=$(cut -d' ' -f1 /proc/loadavg) java=$(java -version 2>&1 | head -1 | tr -d '"' | tr ' ' '_')"
