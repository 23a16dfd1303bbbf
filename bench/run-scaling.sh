#!/usr/bin/env bash
# docs/scaling.md (issue 14): the local engine vs --engine spark on the same Iceberg table, in one run,
# through bin/resurfacer compact. Starts a Spark standalone cluster on loopback as the tests do
# (resurfacer-spark's SparkCluster: a master, one worker with WORKER_CORES cores, a Spark Connect server
# attached as the driver; each a child JVM on the classpath the resurfacer-spark-cluster module resolves),
# on free ports, and stops exactly those processes at the end.
#   big:  FILES x ROWS rows over DAYS day partitions (default 400 x 10,000 = 4M rows, 4 days)
#   tiny: 10 files x 1,000 rows in one partition: the fixed cost of one job (JVM start, catalog, plan,
#         session, commit, verification) with almost no data
# Each run restores the scenario's pristine copy first (outside the timing); wall = the whole
# bin/resurfacer process. The catalog (Iceberg JdbcCatalog on SQLite, name `bench`) is given to the
# cluster as session conf through resurfacer.yml (engines.spark.conf), so every CLI run's Connect session
# opens the restored catalog file.
#   bench/run-scaling.sh                  # RUNS=2
# Environment: RUNS, FILES ROWS DAYS, REGENERATE=1, WORKER_CORES=2, EXECUTOR_MEMORY=2g, KEEP_CLUSTER=1 (leave it up; prints the remote)
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
ensure_cli_ready
ensure_built
RUNS="${RUNS:-2}"; FILES="${FILES:-400}"; ROWS="${ROWS:-10000}"; DAYS="${DAYS:-4}"
WORKER_CORES="${WORKER_CORES:-2}"; EXECUTOR_MEMORY="${EXECUTOR_MEMORY:-2g}"
cli="$ROOT/bin/resurfacer"
cp_file="$ROOT/resurfacer-spark-cluster/target/classes/spark-cluster.classpath"
[[ -f "$cp_file" ]] || (cd "$ROOT" && mvn -B -q -pl resurfacer-spark-cluster generate-resources) >&2
CLUSTER_CP="$(cat "$cp_file")"

open_run scaling

for s in "scaling:$FILES:$ROWS:$DAYS" "scaling-tiny:10:1000:1"; do
  IFS=: read -r name f r d <<< "$s"
  if [[ -n "${REGENERATE:-}" || ! -f "$WORK/$name/pristine/catalog.db" ]]; then
    note "generate $name: $f files x $r rows, $d days"
    "$BENCH_DIR/generate.sh" "$name" --files "$f" --rows "$r" --days "$d" --snapshots 10 >> "$log" 2>&1
  fi
done

# --- the cluster ---
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cdir="$WORK/scaling-cluster"
rm -rf "$cdir"; mkdir -p "$cdir/spark-home/jars" "$cdir/spark-home/conf"
IFS=: read -r -a jars <<< "$CLUSTER_CP"
for j in "${jars[@]}"; do ln -s "$j" "$cdir/spark-home/jars/$(basename "$j")"; done
pids=()
stop_cluster() {
  [[ -n "${KEEP_CLUSTER:-}" ]] && return
  # the driver first, so its executors end before the worker does
  for (( k=${#pids[@]}-1; k>=0; k-- )); do kill "${pids[k]}" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop_cluster EXIT
launch() {
  local name="$1" heap="$2"; shift 2
  SPARK_HOME="$cdir/spark-home" SPARK_LOCAL_IP=127.0.0.1 SPARK_LOG_DIR="$cdir" SPARK_SCALA_VERSION=2.13 \
    java -Xmx"$heap" "${SPARK_OPENS[@]}" -Dlog4j2.level=WARN "$@" > "$cdir/$name.log" 2>&1 &
  pids+=($!)
}
master_port=$(free_port); connect_port=$(free_port)
master="spark://127.0.0.1:$master_port"
launch master 256m -cp "$CLUSTER_CP" org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$master_port" --webui-port "$(free_port)"
launch worker 256m -cp "$CLUSTER_CP" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores "$WORKER_CORES" \
  --memory "$(( ${EXECUTOR_MEMORY%g} + 1 ))g" --webui-port "$(free_port)" --work-dir "$cdir/work" "$master"
launch connect 1g -Dspark.master="$master" -Dspark.app.name=resurfacer-bench-connect \
  -Dspark.connect.grpc.binding.address=127.0.0.1 -Dspark.connect.grpc.binding.port="$connect_port" \
  -Dspark.driver.host=127.0.0.1 -Dspark.driver.bindAddress=127.0.0.1 -Dspark.ui.enabled=false \
  -Dspark.executor.memory="$EXECUTOR_MEMORY" -Dspark.cores.max="$WORKER_CORES" -Dspark.local.dir="$cdir/local" \
  -Dspark.sql.extensions=org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions \
  -cp "$CLUSTER_CP" org.apache.spark.sql.connect.service.SparkConnectServer
note "cluster: master $master, connect sc://127.0.0.1:$connect_port, worker $WORKER_CORES cores, executor $EXECUTOR_MEMORY (logs in $cdir)"
for _ in $(seq 1 600); do
  (exec 3<>"/dev/tcp/127.0.0.1/$connect_port") 2>/dev/null && break
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || { echo "a Spark process exited; see $cdir/*.log" >&2; exit 1; }; done
  sleep 0.5
done

config() {
  local dir="$1"
  cat > "$dir/resurfacer.yml" <<EOF
catalogs:
  bench:
    type: jdbc
    uri: jdbc:sqlite:$dir/live/catalog.db
    warehouse: $dir/live/warehouse
engines:
  spark:
    remote: sc://127.0.0.1:$connect_port
    conf:
      spark.sql.catalog.bench: org.apache.iceberg.spark.SparkCatalog
      spark.sql.catalog.bench.type: jdbc
      spark.sql.catalog.bench.uri: jdbc:sqlite:$dir/live/catalog.db
      spark.sql.catalog.bench.warehouse: $dir/live/warehouse
      spark.sql.catalog.bench.cache-enabled: "false"
EOF
}
"$cli" --version >> "$log" 2>&1   # the class-data sharing archive is made on the first run after a build: not in a timed run

timed() {
  local label="$1" name="$2" engine="$3"
  local dir="$WORK/$name"
  config "$dir"
  rm -rf "$dir/live"; cp -a "$dir/pristine" "$dir/live"; sync
  local load0; load0=$(cut -d' ' -f1 /proc/loadavg)
  local t0; t0=$(now_ms)
  local rc=0
  /usr/bin/time -f "max_rss_kb=%M" -o "$WORK/scaling-time.txt" \
    "$cli" compact db.events --config "$dir/resurfacer.yml" --engine "$engine" --yes --output json > "$WORK/scaling-out.json" 2>> "$log" || rc=$?
  local wall=$(( $(now_ms) - t0 ))
  cat "$WORK/scaling-out.json" >> "$log"
  # the report's totals: rows and Parquet bytes rewritten, the in-process time
  local json; json=$(tr -d ' \n' < "$WORK/scaling-out.json")
  field() { grep -o "\"$1\":[0-9]*" <<< "$json" | tail -1 | cut -d: -f2; }
  local line="label=$label table=$name engine=$engine rc=$rc wall_ms=$wall $(tail -1 "$WORK/scaling-time.txt") load_start=$load0 load_end=$(cut -d' ' -f1 /proc/loadavg) rows=$(field rows) rewritten_bytes=$(field rewritten_bytes) added_files=$(field added_files) report_millis=$(field millis)"
  echo "$line" | tee -a "$results" >&2
}

for i in $(seq 1 "$RUNS"); do
  for engine in local spark; do
    note "run $i: $engine, tiny"
    timed "$engine-tiny#$i" scaling-tiny "$engine"
    note "run $i: $engine, big"
    timed "$engine-big#$i" scaling "$engine"
  done
done
{
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo); shared with other builds; load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "big table: $FILES files x $ROWS rows = $(( FILES * ROWS )) rows, $DAYS days; tiny: 10 x 1,000 rows; Spark worker: $WORKER_CORES cores, executor $EXECUTOR_MEMORY"
  cat "$results"
} | tee "$WORK/scaling-summary-$stamp.txt"
if [[ -n "${KEEP_CLUSTER:-}" ]]; then echo "cluster left running: sc://127.0.0.1:$connect_port, pids ${pids[*]}"; fi
