#!/usr/bin/env bash
# The access log's cost measured so that whatever else runs on the machine hits both sides alike:
# the two wr processes of bench/access_log.sh (alike but for --access-log json to a file) run at
# the same time, both pinned to core 0, each loaded by its own wrk on core 1. They share the core
# and its caches, so the ratio of what each serves (and of the CPU each request costs it) is the
# log's price, whatever the machine's other load does to both. bench/run.sh runs it at 16, 256 and 1024:
#   bench/access_log_together.sh BUILD_DIR [SECONDS_PER_RUN] [ROUNDS]
# WR_BENCH_CONNECTIONS (default 256) and WR_BENCH_WORKLOADS (default "queue proxied") narrow it;
# WR_BENCH_LOG_FORMAT picks the format (default combined, wr's own default; json writes every field
# and costs more); WR_BENCH_ON_FLAGS replaces the log's flags (set it empty to measure the method's
# own noise).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build-bench}
duration=${2:-${WR_BENCH_SECONDS:-5}}
rounds=${3:-5}
read -r -a connections <<<"${WR_BENCH_CONNECTIONS:-256}"
read -r -a workloads <<<"${WR_BENCH_WORKLOADS:-queue proxied}"
wr="$build/wr"
work=$(mktemp -d /tmp/wr-bench-log-together.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f $work/nginx-origin.pid ]] && kill "$(cat "$work/nginx-origin.pid")" 2>/dev/null
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
load_cpu=$(($(nproc) > 1 ? 1 : 0))
ulimit -n 65536 2>/dev/null || true
base=$((10000 + RANDOM % 20000))
origin_port=$base off_edge=$((base + 1)) off_admin=$((base + 2)) on_edge=$((base + 3)) on_admin=$((base + 4))
nginx_origin "$origin_port" "$load_cpu"

start_wr() { # name edge admin [flags…]
    local name=$1 edge=$2 admin=$3
    shift 3
    taskset -c 0 "$wr" serve --data-dir "$work/$name" --edge-listen "127.0.0.1:$edge" --admin-listen "127.0.0.1:$admin" \
        --edge-threads 1 --log-level warn --node-name bench "$@" &
    pids+=($!)
    wait_for_port "$admin"
    "$wr" --data-dir "$work/$name" --api "http://127.0.0.1:$admin" apply -f - >/dev/null <<JSON
{"zones": [{"name": "bench.test", "origin": "http://127.0.0.1:$origin_port", "waiting_rooms": [
  {"name": "queue", "host": "queue.bench.test", "total_active_users": 200, "new_users_per_minute": 200, "queue_all": true},
  {"name": "open", "host": "open.bench.test", "total_active_users": 2147483647, "new_users_per_minute": 2147483647}]}]}
JSON
}
start_wr off "$off_edge" "$off_admin"
off_pid=${pids[-1]}
format=${WR_BENCH_LOG_FORMAT:-combined}
read -r -a on_flags <<<"${WR_BENCH_ON_FLAGS---access-log $work/access.log --access-log-format $format}"
start_wr on "$on_edge" "$on_admin" "${on_flags[@]}"
on_pid=${pids[-1]}
sleep 0.5
forged_cookie="__cfwaitingroom=$(printf 'AAAAAAAAAAAAAAAA%.0s' 1 2 3 4 5)"
off_cookie=$(first_cookie "$off_edge" open.bench.test)
on_cookie=$(first_cookie "$on_edge" open.bench.test)

load() { # connections port host cookie output
    taskset -c "$load_cpu" wrk -t1 -c"$1" -d"${duration}s" --timeout 5s -H "Host: $3" -H "Cookie: $4" "http://127.0.0.1:$2/" >"$5" 2>&1
}
# Three decimals: the budget is 0.95, and 0.9486 must not print as 0.95.
ratio3() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
rate() { awk '/Requests\/sec/ { print $2 }' "$1" | sed 's/^$/0/'; }

printf '\n%-42s %6s %10s %10s %6s %18s  %s\n' "access log, both at once ($format, to a file)" "conns" "on req/s" "off req/s" "ratio" "cpu ratio off/on" \
    "ratio of each round"
for c in "${connections[@]}"; do
    for workload in "${workloads[@]}"; do
        host=queue.bench.test on_c=$forged_cookie off_c=$forged_cookie
        [[ $workload == proxied ]] && host=open.bench.test on_c=$on_cookie off_c=$off_cookie
        on=() off=() per_round=() cpu=()
        for _ in $(seq "$rounds"); do
            on_before=$(cpu_seconds "$on_pid") off_before=$(cpu_seconds "$off_pid")
            load "$c" "$on_edge" "$host" "$on_c" "$work/on.txt" &
            on_load=$!
            load "$c" "$off_edge" "$host" "$off_c" "$work/off.txt" &
            wait "$on_load" "$!"
            on+=("$(rate "$work/on.txt")") off+=("$(rate "$work/off.txt")")
            per_round+=("$(ratio "${on[-1]}" "${off[-1]}")")
            # CPU per request, off's over on's: below 1 by what the log costs each request.
            cpu+=("$(awk -v a="$on_before" -v b="$(cpu_seconds "$on_pid")" -v c="$off_before" -v d="$(cpu_seconds "$off_pid")" \
                -v r1="${on[-1]}" -v r0="${off[-1]}" 'BEGIN { if (b > a && r0 > 0) printf "%.3f", ((d - c) / r0) / ((b - a) / r1); else print 0 }')")
        done
        on_median=$(median_of "${on[@]}") off_median=$(median_of "${off[@]}")
        printf '%-42s %6s %10.0f %10.0f %6s %18s  %s\n' "  $([[ $workload == queue ]] && echo "queue page" || echo "proxied, admitted")" "$c" \
            "$on_median" "$off_median" "$(ratio3 "$on_median" "$off_median")" "$(median_of "${cpu[@]}")" "${per_round[*]}"
    done
done
printf '  %s lines written (medians of %s runs of %ss, both sides at once)\n' "$(cat "$work/access.log" 2>/dev/null | wc -l)" "$rounds" "$duration"
