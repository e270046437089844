#!/usr/bin/env bash
# HTTP/2 on the TLS edge against nginx 1.22 with `http2` on its TLS listener and the same
# certificate: h2load with 16 and 256 connections × 10 streams each, on wr's queue page and on
# nginx serving that same page as a static file; then the admitted path proxied to an HTTP/1.1
# origin (nginx, one worker) beside nginx's proxy_pass with upstream keep-alive. Prints
# requests/s, their ratio and each side's p99 (from h2load's per-request log).
# Budgets: queue page >= 0.8x nginx, p99 <= 1.5x; proxied >= 0.9x. Alone:
#   bench/h2.sh BUILD_DIR [SECONDS_PER_RUN] [ROUNDS]
# wr and the nginx it is measured against run in turn on core 0; h2load and the origin on core 1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build-bench}
duration=${2:-${WR_BENCH_SECONDS:-5}}
rounds=${3:-${WR_BENCH_H2_ROUNDS:-3}}
read -r -a connections <<<"${WR_BENCH_H2_CONNECTIONS:-16 256}"
wr="$build/wr"
work=$(mktemp -d /tmp/wr-bench-h2.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pidfile in "$work/nginx-origin.pid" "$work/nginx-edge.pid"; do [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
command -v h2load >/dev/null || { echo "bench/h2.sh: h2load missing (scripts/install-deps.sh bench installs nghttp2-client)" >&2; exit 1; }
load_cpu=$(($(nproc) > 1 ? 1 : 0))
ulimit -n 65536 2>/dev/null || true
base=$((10000 + RANDOM % 20000))
origin_port=$base wr_edge=$((base + 1)) wr_admin=$((base + 2)) nginx_edge=$((base + 3))

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
nginx_origin "$origin_port" "$load_cpu"

taskset -c 0 "$wr" serve --data-dir "$work/wr" --edge-listen "127.0.0.1:$wr_edge" --admin-listen "127.0.0.1:$wr_admin" \
    --edge-threads 1 --log-level warn --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" &
pids+=($!)
wr_pid=$!
wait_for_port "$wr_admin"
"$wr" --data-dir "$work/wr" --api "http://127.0.0.1:$wr_admin" apply -f - >/dev/null <<JSON
{"zones": [{"name": "bench.test", "origin": "http://127.0.0.1:$origin_port", "waiting_rooms": [
  {"name": "queue", "host": "queue.bench.test", "total_active_users": 200, "new_users_per_minute": 200, "queue_all": true},
  {"name": "open", "host": "open.bench.test", "total_active_users": 2147483647, "new_users_per_minute": 2147483647}]}]}
JSON
wait_for_port "$wr_edge"
sleep 0.5
forged_cookie="__cfwaitingroom=$(printf 'AAAAAAAAAAAAAAAA%.0s' 1 2 3 4 5)"
resolve=(--resolve "queue.bench.test:$wr_edge:127.0.0.1" --resolve "open.bench.test:$wr_edge:127.0.0.1")
# The queue page as wr serves it, for nginx to serve as a file.
mkdir -p "$work/page"
curl -sk "${resolve[@]}" -H "Cookie: $forged_cookie" "https://queue.bench.test:$wr_edge/" -o "$work/page/index.html"
open_cookie=$(curl -sk "${resolve[@]}" -D - -o /dev/null "https://open.bench.test:$wr_edge/" | tr -d '\r' |
    sed -n 's/^[Ss]et-[Cc]ookie: \(__cfwaitingroom=[^;]*\);.*/\1/p')

cat > "$work/nginx-edge.conf" <<CONF
worker_processes 1;
worker_cpu_affinity 01;
pid $work/nginx-edge.pid;
error_log $work/nginx/edge-error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 10000000;
    http2_max_concurrent_streams 100;
    upstream origin { server 127.0.0.1:$origin_port; keepalive 64; }
    server {
        listen 127.0.0.1:$nginx_edge ssl http2 backlog=4096;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        location = /queue { default_type text/html; alias $work/page/index.html; }
        location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
mkdir -p "$work/nginx"
start_nginx "$work/nginx-edge.conf"
wait_for_port "$nginx_edge"

run_h2load() { # connections url [header…] → "requests/s p99-ms errors"
    local c=$1 url=$2
    shift 2
    local args=(-c"$c" -m10 -D"$duration" --warm-up-time=1 -t1 --log-file="$work/h2load.log")
    for header in "$@"; do args+=(-H "$header"); done
    local out
    out=$(taskset -c "$load_cpu" h2load "${args[@]}" "$url" 2>&1)
    local rps failed p99
    rps=$(awk '/^finished in/ { for (i = 1; i <= NF; ++i) if ($(i + 1) == "req/s,") print $i }' <<<"$out")
    failed=$(awk '/^requests:/ { print $10 + $12 }' <<<"$out")
    # The log: start time, status, microseconds per request.
    p99=$(awk '{ print $3 }' "$work/h2load.log" | sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.2f", v[int(NR * 0.99)] / 1000; else print 0 }')
    echo "${rps:-0} $p99 ${failed:-0}"
}

printf '\n%-30s %6s %10s %10s %6s %9s %9s %7s\n' "HTTP/2 (h2load, -m10)" "conns" "wr req/s" "nginx" "ratio" "wr p99ms" "ngx p99" "errors"
for c in "${connections[@]}"; do
    for workload in queue proxied; do
        wr_rps=() ngx_rps=() wr_p99=() ngx_p99=() errors=0
        for round in $(seq "$rounds"); do
            if [[ $workload == queue ]]; then
                read -r rps p99 e <<<"$(run_h2load "$c" "https://127.0.0.1:$wr_edge/" ":authority: queue.bench.test" "cookie: $forged_cookie")"
            else
                read -r rps p99 e <<<"$(run_h2load "$c" "https://127.0.0.1:$wr_edge/" ":authority: open.bench.test" "cookie: $open_cookie")"
            fi
            wr_rps+=("$rps") wr_p99+=("$p99") errors=$((errors + e))
            if [[ $workload == queue ]]; then
                read -r rps p99 e <<<"$(run_h2load "$c" "https://127.0.0.1:$nginx_edge/queue")"
            else
                read -r rps p99 e <<<"$(run_h2load "$c" "https://127.0.0.1:$nginx_edge/")"
            fi
            ngx_rps+=("$rps") ngx_p99+=("$p99") errors=$((errors + e))
        done
        w=$(median_of "${wr_rps[@]}") n=$(median_of "${ngx_rps[@]}")
        printf '%-30s %6s %10.0f %10.0f %6s %9s %9s %7s\n' "$workload" "$c" "$w" "$n" "$(ratio "$w" "$n")" \
            "$(median_of "${wr_p99[@]}")" "$(median_of "${ngx_p99[@]}")" "$errors"
    done
done

# The rapid-reset attack (CVE-2023-44487) beside 256 normal connections: one attacker sends
# HEADERS + RST_STREAM as fast as it can, opening a new connection whenever the edge ends one
# (tests/integration/h2_client.mjs attack), while h2load loads the queue page; the normal
# connections' requests/s with the attack over without it, in alternate rounds. The attacker
# shares the load core with h2load at the lowest priority, so it takes only the CPU h2load
# leaves and never slows the clients themselves. Budget: >= 0.8.
if command -v node >/dev/null; then
    client="$(dirname "${BASH_SOURCE[0]}")/../tests/integration/h2_client.mjs"
    alone=() attacked=() attacks=()
    for round in $(seq "$rounds"); do
        read -r rps _ _ <<<"$(run_h2load 256 "https://127.0.0.1:$wr_edge/" ":authority: queue.bench.test" "cookie: $forged_cookie")"
        alone+=("$rps")
        taskset -c "$load_cpu" nice -n 19 node "$client" attack "$wr_edge" / "$((duration + 2))" >"$work/attack.json" 2>&1 &
        attacker=$!
        sleep 0.5
        read -r rps _ _ <<<"$(run_h2load 256 "https://127.0.0.1:$wr_edge/" ":authority: queue.bench.test" "cookie: $forged_cookie")"
        attacked+=("$rps")
        wait "$attacker" || true
        attacks+=("$(tr -d '\n' <"$work/attack.json")")
    done
    a=$(median_of "${alone[@]}") b=$(median_of "${attacked[@]}")
    printf '\n%-44s %10s %10s %6s\n' "rapid reset beside 256 connections (h2load)" "attacked" "alone" "ratio"
    printf '%-44s %10.0f %10.0f %6s\n' "  queue page req/s of the normal connections" "$b" "$a" "$(ratio "$b" "$a")"
    printf '  the attacker, each round: %s\n' "${attacks[*]}"
else
    echo "bench/h2.sh: node missing, the rapid-reset run is skipped (scripts/install-deps.sh installs it)" >&2
fi
