#!/usr/bin/env bash
# One `bin/resurfacer compact` of a freshly restored scenario (the generator's pristine copy), timed
# as a whole process: wall, CPU-seconds (user + system) and peak RSS, with the load average around it.
#   bench/run-cli-compact.sh [SCENARIO_NAME] [compact flags...]
#   RESURFACER_ROOT=/path/to/other/checkout bench/run-cli-compact.sh events --verify=count   (an A/B against another build)
# Default flags: --yes --target-file-size 128MB --min-input-files 2. Prints one RESULT line; its
# verify_cpu_s is the CPU time of content verification's reads, summed over the groups' lines.
# Env: RESURFACER_ROOT (the checkout whose bin/resurfacer runs; default this one), LABEL (names the run).
set -euo pipefail
source "$(dirname "$0")/bench-env.sh"
name="${1:-events}"; shift || true
root="${RESURFACER_ROOT:-$ROOT}"
ensure_cli_ready "$root"
scenario="$WORK/$name"
[[ -f "$scenario/pristine/catalog.db" ]] || { echo "no pristine copy under $scenario: run bench/generate.sh $name first" >&2; exit 2; }
rm -rf "$scenario/live" && cp -a "$scenario/pristine" "$scenario/live"
sync
load0=$(cut -d' ' -f1 /proc/loadavg)
timing="$(mktemp)"
lines="$(mktemp)"
/usr/bin/time -f '%e %U %S %M' -o "$timing" "$root/bin/resurfacer" compact db.events \
  --catalog-uri "jdbc:sqlite:$scenario/live/catalog.db" --catalog-name bench --warehouse "$scenario/live/warehouse" \
  --yes --target-file-size 128MB --min-input-files 2 "$@" 2> "$lines" >&2
cat "$lines" >&2
read -r wall user sys rss_kb < "$timing"
# content verification's reads, as each group's line reports them (their threads' CPU time)
verify_cpu=$(sed -n 's/.*, verification \([0-9.]*\) CPU-s.*/\1/p' "$lines" | awk '{ s += $1 } END { printf "%.2f", s }')
rm -f "$timing" "$lines"
echo "RESULT label=${LABEL:-ours} root=$root flags=\"$*\" wall_s=$wall cpu_s=$(echo "$user + $sys" | bc) verify_cpu_s=$verify_cpu user_s=$user sys_s=$sys peak_rss_mb=$(( rss_kb / 1024 )) load_start=$load0 load_end=$(cut -d' ' -f1 /proc/loadavg)"
