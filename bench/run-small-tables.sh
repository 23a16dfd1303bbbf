#!/usr/bin/env bash
# A fleet of small tables (bench/harness SmallTables: TABLES tables of 40 Parquet files, 40,000 rows,
# ~2 MB each, written by Iceberg Java, over CATALOGS SQLite catalogs, 10 append snapshots and 2 aged
# orphan files each), maintained in one JVM: ours is `bin/resurfacer maintain --yes` (compact,
# rewrite-manifests, expire, remove-orphans, content verification on); spark is one warm Spark session
# looping rewrite_data_files, rewrite_manifests, expire_snapshots and remove_orphan_files over the
# same tables. The scenario is restored from its pristine copy before each timed process.
#   bench/run-small-tables.sh ours|spark          # TABLES=200 CATALOGS=4
#   JAR=/tmp/old.jar bench/run-small-tables.sh ours  # another build, as `java -jar` (no class-data archive)
#   LIMIT=50 bench/run-small-tables.sh spark          # Spark over the first 50 tables only (its RESULT line has per_table_ms)
# Prints RESULT engine= tables= wall_ms= cpu_s= cpu_s_per_table= load= (CPU-seconds: user+sys of the process, children included).
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
engine="$1"
tables="${TABLES:-200}"; catalogs="${CATALOGS:-4}"
scenario="$WORK/small$tables"
if [[ "$engine" == spark ]]; then ensure_built; else ensure_harness_built; fi
if [[ ! -f "$scenario/pristine/resurfacer.yml" ]]; then
  java -Xmx1g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.SmallTables --scenario "$scenario" --tables "$tables" --catalogs "$catalogs" >&2
fi
rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"
# snapshots are seconds old: expire all but the current one, as both engines are told to
printf 'defaults:\n  expire: {older-than: 1s, retain-last: 1}\n' >> "$scenario/live/resurfacer.yml"
load0=$(cut -d' ' -f1 /proc/loadavg)
out="$scenario/$engine.out"
t0=$(now_ms)
case "$engine" in
  ours)
    if [[ -n "${JAR:-}" ]]; then
      (cd "$scenario/live" && /usr/bin/time -f "%U %S" -o "$scenario/time.txt" java -Xmx2g ${JAVA_OPTS:-} -jar "$JAR" maintain --yes --config resurfacer.yml >"$out" 2>"$out.err")
    else
      (cd "$scenario/live" && /usr/bin/time -f "%U %S" -o "$scenario/time.txt" "$ROOT/bin/resurfacer" maintain --yes --config resurfacer.yml >"$out" 2>"$out.err")
    fi ;;
  spark)
    /usr/bin/time -f "%U %S" -o "$scenario/time.txt" java -Xmx2g "${SPARK_OPENS[@]}" "${QUIET[@]}" -cp "$SPARK_CP" dev.resurfacer.bench.SparkFleet \
      --dir "$scenario/live" --catalogs "$catalogs" ${LIMIT:+--limit "$LIMIT"} >"$out" 2>"$out.err"
    grep '^RESULT' "$out" >&2 ;;
  *) echo "engine: ours|spark" >&2; exit 2 ;;
esac
t1=$(now_ms)
cpu=$(awk '{printf "%.1f", $1 + $2}' "$scenario/time.txt")
timed="${LIMIT:-$tables}"
files=$(find "$scenario/live" -name '*.parquet' -path '*/data/*' | wc -l)
echo "RESULT engine=$engine tables=$timed wall_ms=$(( t1 - t0 )) cpu_s=$cpu cpu_s_per_table=$(awk -v c="$cpu" -v n="$timed" 'BEGIN {printf "%.3f", c / n}')" \
  "parquet_files_left=$files load_before=$load0 load_after=$(cut -d' ' -f1 /proc/loadavg)"
