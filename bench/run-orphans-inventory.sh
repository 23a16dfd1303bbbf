#!/usr/bin/env bash
# remove-orphans preview through bin/resurfacer over ORPHANS (1,000,000) empty files dated 10 days
# back plus a real table: listing the table's directory live vs reading a plain listing of the same
# files (--listing, one row each, as `find -printf` writes it). ROUNDS alternating pairs.
#   bench/run-orphans-inventory.sh                  # ORPHANS=1000000 XMX=256m ROUNDS=2
# Prints RESULT lines: mode, wall_ms, user+sys CPU-seconds, peak RSS, listed and orphan counts, load.
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_harness_built
name="orphans-inventory"
scenario="$WORK/$name"
jar="$ROOT/resurfacer-cli/target/resurfacer.jar"
[[ -f "$jar" ]] || (cd "$ROOT" && mvn -B -q -pl resurfacer-cli -am package -DskipTests) >&2
if [[ -n "${REGENERATE:-}" || ! -f "$scenario/pristine/catalog.db" ]]; then
  java -Xmx4g "${QUIET[@]}" -cp "$HARNESS_CP" dev.resurfacer.bench.Generate --scenario "$scenario" \
    --files 1000 --rows 200 --days 4 --snapshots 100 --transaction true >&2
fi
if [[ -n "${REGENERATE:-}" || ! -f "$scenario/live/listing.tsv" ]]; then
  rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"
  java -Xmx256m -cp "$HARNESS_CP" dev.resurfacer.bench.MakeOrphans --dir "$scenario/live/warehouse/db/events/data/orphans" \
    --count "${ORPHANS:-1000000}" >&2
  { echo "# taken-at: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    find "$scenario/live/warehouse/db/events" -type f -printf '%p\t%s\t%T@\n'; } > "$scenario/live/listing.tsv.tmp"
  mv "$scenario/live/listing.tsv.tmp" "$scenario/live/listing.tsv"
  sync
fi
rows=$(grep -vc '^#' "$scenario/live/listing.tsv")
args=(remove-orphans db.events --catalog-name bench --catalog-uri "jdbc:sqlite:$scenario/live/catalog.db"
  --warehouse "$scenario/live/warehouse" --output json --show 0 --older-than 5d)
for round in $(seq "${ROUNDS:-2}"); do
  for mode in live listing; do
    extra=(); [[ "$mode" == listing ]] && extra=(--listing "$scenario/live/listing.tsv")
    out="$WORK/$name-$mode.json"
    t0=$(now_ms)
    RESURFACER_JAVA_OPTS="-Xmx${XMX:-256m}" /usr/bin/time -f "%U %S %M" -o "$WORK/$name-$mode.time" \
      "$ROOT/bin/resurfacer" "${args[@]}" "${extra[@]}" > "$out"
    t1=$(now_ms)
    read -r user sys rss < "$WORK/$name-$mode.time"
    field() { grep -o "\"$1\" : [0-9]*" "$out" | grep -o '[0-9]*$' || echo '?'; }
    echo "RESULT round=$round mode=$mode rows=$rows wall_ms=$(( t1 - t0 )) cpu_s=$(echo "$user + $sys" | bc) max_rss_kb=$rss listed=$(field listed_files) orphans=$(field orphan_files) load=$(cut -d' ' -f1 /proc/loadavg)"
  done
done
