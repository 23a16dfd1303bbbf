#!/usr/bin/env bash
# remove-orphans the way users run it: bin/resurfacer (the runnable jar, the CLI's own catalog and
# FileIO) over ORPHANS (1,000,000) empty files dated 10 days back plus a real table, preview then
# --yes, each under strace counting every process started (execve). The JVM must start none.
#   bench/run-orphans-cli.sh [SCENARIO_NAME]        # ORPHANS=1000000 XMX=256m
# Prints RESULT lines: wall_ms, peak RSS of the whole tree, execve by the JVM, listed/deleted.
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_built
name="${1:-orphans-cli}"
scenario="$WORK/$name"
jar="$ROOT/resurfacer-cli/target/resurfacer.jar"
[[ -f "$jar" ]] || (cd "$ROOT" && mvn -B -q -pl resurfacer-cli -am package -DskipTests) >&2
if [[ -n "${REGENERATE:-}" || ! -f "$scenario/pristine/catalog.db" ]]; then
  "$BENCH_DIR/generate.sh" "$name" --files 1000 --rows 200 --days 4 --snapshots 100 --transaction true >&2
fi
rm -rf "$scenario/live"; cp -a "$scenario/pristine" "$scenario/live"
java -Xmx256m -cp "$HARNESS_CP" dev.resurfacer.bench.MakeOrphans --dir "$scenario/live/warehouse/db/events/data/orphans" \
  --count "${ORPHANS:-1000000}" >&2
sync
args=(remove-orphans db.events --catalog-name bench --catalog-uri "jdbc:sqlite:$scenario/live/catalog.db"
  --warehouse "$scenario/live/warehouse" --output json --show 0)
for mode in preview yes; do
  extra=(); [[ "$mode" == yes ]] && extra=(--yes)
  trace="$WORK/$name-$mode.strace"; out="$WORK/$name-$mode.json"
  t0=$(now_ms)
  RESURFACER_JAVA_OPTS="-Xmx${XMX:-256m}" /usr/bin/time -f "%M" -o "$WORK/$name-$mode.rss" \
    strace -f --seccomp-bpf -qq -e trace=execve -o "$trace" "$ROOT/bin/resurfacer" "${args[@]}" "${extra[@]}" > "$out"
  t1=$(now_ms)
  # the wrapper script's own execs (bash, dirname) come before the JVM's exec; count what follows it
  # successful execs only (a PATH search tries several directories first); one line per started program
  jvm_children=$(awk '/execve\(".*java"/ {seen=1; next} seen && /execve\(/ && / = 0$/ {n++} END {print n+0}' "$trace")
  jvm_programs=$(awk '/execve\(".*java"/ {seen=1; next} seen && / = 0$/ && match($0, /execve\("[^"]*"/) {p=substr($0, RSTART+8, RLENGTH-9); sub(/.*\//, "", p); printf "%s+", p}' "$trace")
  field() { grep -o "\"$1\" : [0-9]*" "$out" | grep -o '[0-9]*$' || echo '?'; }
  listed=$(field listed_files); orphans=$(field orphan_files); deleted=$(field deleted_files)
  echo "RESULT mode=$mode wall_ms=$(( t1 - t0 )) max_rss_kb=$(cat "$WORK/$name-$mode.rss") jvm_execve=$jvm_children jvm_programs=${jvm_programs:-none} listed=$listed orphans=$orphans deleted=$deleted load=$(cut -d' ' -f1 /proc/loadavg)"
done
echo "RESULT files_left=$(find "$scenario/live/warehouse" -type f | wc -l)"
