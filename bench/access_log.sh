#!/usr/bin/env bash
# The access log's cost: two wr processes alike but for --access-log (json lines to a file), the
# queue page and the admitted proxied path through each, in alternating runs, the medians
# compared (budget: with the log >= 0.95x without). bench/run.sh runs access_log_together.sh instead:
#   bench/access_log.sh BUILD_DIR [SECONDS_PER_RUN] [ROUNDS]
# wr is pinned to core 0; wrk and the origin (nginx, one worker) to core 1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build-bench}
duration=${2:-${WR_BENCH_SECONDS:-5}}
rounds=${3:-${WR_BENCH_ACCESS_LOG_ROUNDS:-5}}
read -r -a connections <<<"${WR_BENCH_CONNECTIONS:-16 256 1024}"
wr="$build/wr"
work=$(mktemp -d /tmp/wr-bench-log.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f $work/nginx-origin.pid ]] && kill "$(cat "$work/nginx-origin.pid")" 2>/dev/null
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
load_cpu=$(($(nproc) > 1 ? 1 : 0))
pin_server=(taskset -c 0)
pin_load=(taskset -c "$load_cpu")
ulimit -n 65536 2>/dev/null || true
base=$((10000 + RANDOM % 20000))
origin_port=$base off_edge=$((base + 1)) off_admin=$((base + 2)) on_edge=$((base + 3)) on_admin=$((base + 4))

run_wrk() { # connections port host [cookie] → "requests/s errors"
    local args=(-t1 -c"$1" -d"${duration}s" --timeout 5s -H "Host: $3")
    [[ -n ${4:-} ]] && args+=(-H "Cookie: $4")
    local out
    out=$("${pin_load[@]}" wrk "${args[@]}" "http://127.0.0.1:$2/" 2>&1)
    echo "$(awk '/Requests\/sec/ { print $2 }' <<<"$out" | sed 's/^$/0/') \
$(awk '/Socket errors/ { gsub(/,/, ""); e += $4 + $6 + $8 + $10 } /Non-2xx/ { e += $5 } END { print e + 0 }' <<<"$out")"
}

nginx_origin "$origin_port" "$load_cpu"

start_wr() { # name edge admin [flags…]
    local name=$1 edge=$2 admin=$3
    shift 3
    "${pin_server[@]}" "$wr" serve --data-dir "$work/$name" --edge-listen "127.0.0.1:$edge" --admin-listen "127.0.0.1:$admin" \
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
start_wr on "$on_edge" "$on_admin" --access-log "$work/access.log" --access-log-format json
on_pid=${pids[-1]}
sleep 0.5
forged_cookie="__cfwaitingroom=$(printf 'AAAAAAAAAAAAAAAA%.0s' 1 2 3 4 5)"
off_cookie=$(first_cookie "$off_edge" open.bench.test)
on_cookie=$(first_cookie "$on_edge" open.bench.test)

# Throughput on this shared VM moves with what else runs (a busier core even answers faster, its
# vCPU never idling), so the CPU each request costs wr is printed beside it: the log's own price.
printf '\n%-42s %6s %10s %10s %6s %7s %17s  %s\n' "access log (json, to a file)" "conns" "on req/s" "off req/s" "ratio" "errors" "cpu us/req on/off" \
    "ratio of each round"
for c in "${connections[@]}"; do
    for workload in queue proxied; do
        on=() off=() per_round=() errors=0 on_cpu=0 off_cpu=0 on_requests=0 off_requests=0
        for round in $(seq "$rounds"); do
            # Which goes first alternates too, so that neither always follows the other's run.
            for side in $( ((round % 2)) && echo "off on" || echo "on off"); do
                if [[ $side == off ]]; then port=$off_edge cookie=$off_cookie pid=$off_pid; else port=$on_edge cookie=$on_cookie pid=$on_pid; fi
                before=$(cpu_seconds "$pid")
                if [[ $workload == queue ]]; then
                    read -r rps e <<<"$(run_wrk "$c" "$port" queue.bench.test "$forged_cookie")"
                else
                    read -r rps e <<<"$(run_wrk "$c" "$port" open.bench.test "$cookie")"
                fi
                errors=$((errors + e))
                used=$(awk -v a="$before" -v b="$(cpu_seconds "$pid")" 'BEGIN { print b - a }')
                served=$(awk -v r="$rps" -v d="$duration" 'BEGIN { print r * d }')
                if [[ $side == off ]]; then
                    off+=("$rps") off_cpu=$(awk -v a="$off_cpu" -v b="$used" 'BEGIN { print a + b }') off_requests=$(awk -v a="$off_requests" -v b="$served" 'BEGIN { print a + b }')
                else
                    on+=("$rps") on_cpu=$(awk -v a="$on_cpu" -v b="$used" 'BEGIN { print a + b }') on_requests=$(awk -v a="$on_requests" -v b="$served" 'BEGIN { print a + b }')
                fi
            done
            per_round+=("$(ratio "${on[-1]}" "${off[-1]}")")
        done
        on_median=$(median_of "${on[@]}") off_median=$(median_of "${off[@]}")
        printf '%-42s %6s %10.0f %10.0f %6s %7s %17s  %s\n' "  $([[ $workload == queue ]] && echo "queue page" || echo "proxied, admitted")" "$c" \
            "$on_median" "$off_median" "$(ratio "$on_median" "$off_median")" "$errors" \
            "$(awk -v c1="$on_cpu" -v r1="$on_requests" -v c0="$off_cpu" -v r0="$off_requests" \
                'BEGIN { if (r1 > 0 && r0 > 0) printf "%.1f/%.1f", c1 * 1e6 / r1, c0 * 1e6 / r0; else print "-" }')" "${per_round[*]}"
    done
done
lines=$(wc -l < "$work/access.log")
dropped=$(curl -s -H "Authorization: Bearer $(cat "$work/on/admin.token")" "http://127.0.0.1:$on_admin/metrics" |
    awk '/^wr_access_log_lines_dropped_total/ { print $2 }')
printf '  %s lines written, %s dropped (budget: ratio >= 0.95; medians of %s alternating runs of %ss)\n' "$lines" "${dropped:-?}" "$rounds" "$duration"
