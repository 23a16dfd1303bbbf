# Sourced by .ci/run: a PostgreSQL server on loopback for the Postgres JDBC catalog tests.
# Installs Debian's postgresql when missing, starts a private cluster on a fixed port (once; a
# running one is reused), creates the test role and database, and exports RESURFACER_TEST_PG_*.
PG_PORT="${RESURFACER_TEST_PG_PORT:-55432}"
PG_DATA="${RESURFACER_TEST_PG_DATA:-/tmp/resurfacer-pg-${PG_PORT}}"
PG_USER=resurfacer
PG_PASSWORD=resurfacer
PG_DB=resurfacer_test

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"

# postgres refuses to run as root: run the cluster as the postgres user when we are root
if [ "$(id -u)" = 0 ]; then as_pg() { runuser -u postgres -- "$@"; }; else as_pg() { "$@"; }; fi

if ! "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
  if [ ! -s "$PG_DATA/PG_VERSION" ]; then
    mkdir -p "$PG_DATA"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DATA"
    as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  fi
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" -w -t 60 \
    -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_DATA" start >/dev/null
fi

psql_admin() { as_pg "$PG_BIN/psql" -h "$PG_DATA" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"; }
if [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$PG_USER'")" != 1 ]; then
  psql_admin -c "CREATE ROLE $PG_USER LOGIN PASSWORD '$PG_PASSWORD'"
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")" != 1 ]; then
  psql_admin -c "CREATE DATABASE $PG_DB OWNER $PG_USER"
fi

export RESURFACER_TEST_PG_URL="jdbc:postgresql://127.0.0.1:${PG_PORT}/${PG_DB}"
export RESURFACER_TEST_PG_USER="$PG_USER"
export RESURFACER_TEST_PG_PASSWORD="$PG_PASSWORD"
