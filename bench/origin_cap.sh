#!/usr/bin/env bash
# The origin connection cap against HAProxy's `maxconn`, in one run: 1,024 connections through a
# proxy to an origin with 64 workers (wr-capacity-origin: a FIFO queue in front of them), the proxy
# allowed 64 connections to it — wr's zone max_origin_connections, HAProxy's server maxconn. Each
# proxy has an origin of its own (so that one's idle connections are not counted as the other's);
# the proxy (one thread) is pinned to core 0, wrk and the origins share core 1.
#   bench/origin_cap.sh BUILD_DIR [SECONDS_PER_RUN]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build-bench}
duration=${2:-${WR_BENCH_SECONDS:-5}}
connections=${WR_CAP_CONNECTIONS:-1024}
cap=64
work=$(mktemp -d /tmp/wr-cap-bench.XXXXXX)
pids=()
cleanup() {
    # The proxies before the origins: a proxy still sending to a stopped origin logs failures.
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; sleep 0.1; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
if ! command -v haproxy >/dev/null; then
    echo "origin cap: haproxy is missing (scripts/install-deps.sh bench installs it)"
    exit 0
fi
ulimit -n 65536 2>/dev/null || true
load_cpu=$(($(nproc) > 1 ? 1 : 0))
base=$((10000 + RANDOM % 20000))
origin_port=$base wr_edge_port=$((base + 1)) wr_admin_port=$((base + 2)) haproxy_port=$((base + 3))
haproxy_origin_port=$((base + 4))

origin_stats() { # port field: one number from that origin's /stats
    curl -s "http://127.0.0.1:$1/stats" | tr -d ' ' | sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p"
}

for port in "$origin_port" "$haproxy_origin_port"; do
    taskset -c "$load_cpu" "$build/wr-capacity-origin" --port "$port" --workers "$cap" --service-ms 2 &
    pids+=($!)
    wait_for_port "$port"
done

taskset -c 0 "$build/wr" serve --data-dir "$work/wr-data" --edge-listen "127.0.0.1:$wr_edge_port" \
    --admin-listen "127.0.0.1:$wr_admin_port" --edge-threads 1 --log-level warn &
pids+=($!)
wait_for_port "$wr_admin_port"
"$build/wr" --data-dir "$work/wr-data" --api "http://127.0.0.1:$wr_admin_port" apply -f - >/dev/null <<JSON
{"zones": [{"name": "cap.bench.test", "origin": "http://127.0.0.1:$origin_port",
            "max_origin_connections": $cap, "origin_queue_timeout_seconds": 10, "waiting_rooms": []}]}
JSON
sleep 0.5

cat > "$work/haproxy.cfg" <<CFG
global
    nbthread 1
    maxconn 4096
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
    timeout queue 10s
    http-reuse safe
frontend edge
    bind 127.0.0.1:$haproxy_port
    default_backend origin
backend origin
    server origin 127.0.0.1:$haproxy_origin_port maxconn $cap
CFG
taskset -c 0 haproxy -f "$work/haproxy.cfg" -db >/dev/null 2>&1 &
pids+=($!)
wait_for_port "$haproxy_port"

# run port origin_port → "requests/s p99_ms socket_errors non_2xx origin_max_connections"
run() {
    curl -s "http://127.0.0.1:$2/stats?reset=1" >/dev/null
    local out
    out=$(taskset -c "$load_cpu" wrk -t1 -c"$connections" -d"${duration}s" --latency --timeout 15s -H "Host: cap.bench.test" \
        "http://127.0.0.1:$1/" 2>&1)
    local rps p99 socket non2xx
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" { v = $2
        if (v ~ /us$/) { sub(/us$/, "", v); v = v / 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v = v * 1000 }
        printf "%.1f", v }' <<<"$out")
    socket=$(awk '/Socket errors/ { gsub(/,/, ""); e += $4 + $6 + $8 + $10 } END { print e + 0 }' <<<"$out")
    non2xx=$(awk '/Non-2xx/ { e += $5 } END { print e + 0 }' <<<"$out")
    # The origin's most connections at once, less the one asking for its /stats.
    echo "${rps:-0} ${p99:-0} $socket $non2xx $(($(origin_stats "$2" max_connections_seen) - 1))"
}

printf '\norigin connection cap: %s connections through one proxy thread to an origin of %s workers (2 ms each), %s connections allowed to it, %ss per run\n' \
    "$connections" "$cap" "$cap" "$duration"
printf '%-10s %10s %9s %14s %8s %22s\n' proxy "req/s" "p99 ms" "socket errors" "non-2xx" "origin connections max"
run "$haproxy_port" "$haproxy_origin_port" >/dev/null # warm-up: both proxies open their connections once
run "$wr_edge_port" "$origin_port" >/dev/null
read -r h_rps h_p99 h_sock h_non h_max <<<"$(run "$haproxy_port" "$haproxy_origin_port")"
read -r w_rps w_p99 w_sock w_non w_max <<<"$(run "$wr_edge_port" "$origin_port")"
printf '%-10s %10.0f %9s %14s %8s %22s\n' haproxy "$h_rps" "$h_p99" "$h_sock" "$h_non" "$h_max"
printf '%-10s %10.0f %9s %14s %8s %22s\n' wr "$w_rps" "$w_p99" "$w_sock" "$w_non" "$w_max"
awk -v w="$w_rps" -v h="$h_rps" 'BEGIN { printf "wr / haproxy = %.2f (budget >= 0.90)\n", (h > 0 ? w / h : 0) }'
printf 'wr: at most %s origin connections at once (cap %s), %s socket errors, %s answers other than 2xx\n' "$w_max" "$cap" "$w_sock" "$w_non"
