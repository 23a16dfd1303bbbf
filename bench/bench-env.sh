# Shared by the bench scripts: paths, classpaths, JVM flags. Source it; do not run it.
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
WORK="${BENCH_WORK:-$BENCH_DIR/work}"
HARNESS_CP_FILE="$BENCH_DIR/harness/target/classpath.txt"
SPARK_CP_FILE="$BENCH_DIR/spark/target/classpath.txt"

ensure_built() {
  if [[ ! -f "$HARNESS_CP_FILE" || ! -f "$SPARK_CP_FILE" || -n "${BENCH_REBUILD:-}" ]]; then
    (cd "$ROOT" && mvn -B -q -Pbench package -DskipTests) >&2
  fi
  HARNESS_CP="$BENCH_DIR/harness/target/classes:$(cat "$HARNESS_CP_FILE")"
  SPARK_CP="$BENCH_DIR/spark/target/classes:$(cat "$SPARK_CP_FILE")"
}

# what Spark 4.1 needs on JDK 17
SPARK_OPENS=(
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false
)

QUIET=(-Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
now_ms() { date +%s%3N; }

# Only the harness (Resurfacer + Iceberg), for the scripts that need no Spark.
ensure_harness_built() {
  if [[ ! -f "$HARNESS_CP_FILE" || -n "${BENCH_REBUILD:-}" ]]; then
    (cd "$ROOT" && mvn -B -q -Pbench -pl bench/harness -am package -DskipTests) >&2
  fi
  HARNESS_CP="$BENCH_DIR/harness/target/classes:$(cat "$HARNESS_CP_FILE")"
}

# delta-spark (bench/delta), for the Delta scripts: sets DELTA_CP
ensure_delta_built() {
  DELTA_CP_FILE="$BENCH_DIR/delta/target/classpath.txt"
  if [[ ! -f "$DELTA_CP_FILE" || -n "${BENCH_REBUILD:-}" ]]; then
    (cd "$BENCH_DIR/delta" && mvn -B -q package -DskipTests) >&2
  fi
  DELTA_CP="$BENCH_DIR/delta/target/classes:$(cat "$DELTA_CP_FILE")"
}

# The CDC scripts' end: waits for the writer and the anchor's loop (pids $1 $2), prints their RESULT lines from DIR ($3)
finish_cdc_lanes() {
  wait "$1" || true
  wait "$2" || true
  trap - EXIT
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
  cat "$3/writer.out" "$3/spark.out"
}

# One run's files: sets stamp, log (WORK/PREFIX-run-STAMP.log) and results (WORK/PREFIX-results-STAMP.txt); note() logs a step
open_run() {
  mkdir -p "$WORK"
  stamp=$(date +%Y%m%d-%H%M%S)
  log="$WORK/$1-run-$stamp.log"; results="$WORK/$1-results-$stamp.txt"
  : > "$results"
  echo "bench: logs in $log, results in $results" >&2
}
note() { echo "== $(date +%H:%M:%S) $*" | tee -a "$log" >&2; }

# bin/resurfacer builds a stale jar and makes its two class-data archives on first need (a long verb's
# is trained by a one-day demo, several seconds): done here, before anything is timed.
ensure_cli_ready() {
  local root="${1:-$ROOT}"
  "$root/bin/resurfacer" --version >/dev/null
  "$root/bin/resurfacer" engines >/dev/null
}
