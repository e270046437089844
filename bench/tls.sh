#!/usr/bin/env bash
# TLS on the edge against nginx, in one run, as ratios: the queue page over HTTPS/1.1 (wrk on
# https, keep-alive) and new TLS connections (full handshakes and resumed ones), both servers
# with the same ECDSA P-256 certificate, one thread/worker each pinned to core 0, the clients on
# core 1. bench/README.md explains the figures.
#   bench/tls.sh BUILD_DIR [SECONDS_PER_RUN]
# Handshakes: every client here spends more CPU per handshake than the server (it verifies the
# signature and makes its own key share), so the rate a one-core client reaches measures the
# client as much as the server. The figure compared is the server's CPU per handshake (its
# user + system seconds over the run divided by the handshakes), and the capacity ratio is
# nginx's CPU per handshake over wr's.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build-bench}
duration=${2:-${WR_BENCH_SECONDS:-5}}
read -r -a connections <<<"${WR_BENCH_CONNECTIONS:-16 256}"
wr="$build/wr"
work=$(mktemp -d /tmp/wr-tls-bench.XXXXXX)
wr_pid=""
cleanup() {
    [[ -n $wr_pid ]] && kill "$wr_pid" 2>/dev/null
    for pidfile in "$work"/nginx*.pid; do [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
load_cpu=$(($(nproc) > 1 ? 1 : 0))
pin_server=(taskset -c 0)
pin_load=(taskset -c "$load_cpu")
ulimit -n 65536 2>/dev/null || true
base=$((10000 + RANDOM % 20000))
origin_port=$base wr_edge_port=$((base + 1)) wr_admin_port=$((base + 2)) nginx_port=$((base + 3))

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench.test \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

nginx_origin "$origin_port" "$load_cpu"
"${pin_server[@]}" "$wr" serve --data-dir "$work/wr-data" --edge-listen "127.0.0.1:$wr_edge_port" \
    --admin-listen "127.0.0.1:$wr_admin_port" --edge-threads 1 --log-level warn \
    --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" &
wr_pid=$!
wait_for_port "$wr_admin_port"
"$wr" --data-dir "$work/wr-data" --api "http://127.0.0.1:$wr_admin_port" apply -f - >/dev/null <<JSON
{"zones": [{"name": "bench.test", "origin": "http://127.0.0.1:$origin_port", "waiting_rooms": [
  {"name": "queue", "host": "queue.bench.test", "total_active_users": 200, "new_users_per_minute": 200, "queue_all": true}]}]}
JSON
sleep 0.5 # the edge sees the configuration within its poll interval

# The page nginx serves is wr's queue page, byte for byte.
curl -sk -H 'Host: queue.bench.test' "https://127.0.0.1:$wr_edge_port/" > "$work/www/queue.html"
page_bytes=$(wc -c < "$work/www/queue.html")
forged_cookie="__cfwaitingroom=$(printf 'AAAAAAAAAAAAAAAA%.0s' 1 2 3 4 5)"
# nginx as a careful operator would set it up: a shared session cache and tickets (its default).
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
worker_cpu_affinity 01;
pid $work/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 10000000;
    ssl_certificate $work/cert.pem;
    ssl_certificate_key $work/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:10m;
    ssl_session_tickets on;
    server { listen 127.0.0.1:$nginx_port ssl backlog=4096; root $work/www; location / { default_type text/html; try_files /queue.html =404; } }
}
CONF
start_nginx "$work/nginx.conf"
wait_for_port "$nginx_port"
nginx_worker_pid=$(pgrep -P "$(cat "$work/nginx.pid")" | head -1)

# run_wrk connections port host [extra header] → "requests/s p99_ms errors"
run_wrk() {
    local args=(-t1 -c"$1" -d"${duration}s" --latency --timeout 5s -H "Host: $3")
    [[ -n ${4:-} ]] && args+=(-H "$4")
    local out
    out=$("${pin_load[@]}" wrk "${args[@]}" "https://127.0.0.1:$2/" 2>&1)
    local rps p99 errors
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
    p99=$(awk '$1 == "99%" { v = $2
        if (v ~ /us$/) { sub(/us$/, "", v); v = v / 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v = v * 1000 }
        printf "%.2f", v }' <<<"$out")
    errors=$(awk '/Socket errors/ { gsub(/,/, ""); e += $4 + $6 + $8 + $10 } /Non-2xx/ { e += $5 } END { print e + 0 }' <<<"$out")
    echo "${rps:-0} ${p99:-0} ${errors:-0}"
}
cpu_of() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; }
# microseconds of CPU per event: us_per cpu_before cpu_after events
us_per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (n > 0) printf "%.0f", (b - a) * 1e6 / n; else print "-" }'; }

# run_s_time port pid -tls1_2|-tls1_3 → "connections/s server_us_per_connection": resumed
# connections one at a time, each offering the first connection's session and fetching the queue
# page (HTTP/1.0, so that the server closes)
run_s_time() {
    local before after out count seconds
    before=$(cpu_of "$2")
    out=$("${pin_load[@]}" openssl s_time -connect "127.0.0.1:$1" "$3" -reuse -time "$duration" \
        -www $'/ HTTP/1.0\r\nHost: queue.bench.test\r\nX-Pad:' 2>&1)
    after=$(cpu_of "$2")
    read -r count seconds <<<"$(awk '/connections in [0-9]+ real seconds/ { print $1, $4 }' <<<"$out" | tail -1)"
    echo "$(awk -v n="${count:-0}" -v s="${seconds:-1}" 'BEGIN { printf "%.0f", n / s }') $(us_per "$before" "$after" "${count:-0}")"
}
# run_h2load port pid → "connections/s server_us_per_connection": full TLS 1.3 handshakes, N
# connections at once, each with one request (h2load does not resume)
run_h2load() {
    local n=1000 before after out rate
    before=$(cpu_of "$2")
    out=$("${pin_load[@]}" h2load --h1 -t1 -c "$n" -n "$n" -H 'Host: queue.bench.test' "https://127.0.0.1:$1/" 2>&1)
    after=$(cpu_of "$2")
    rate=$(awk '/^finished in/ { sub(/,/, "", $4); print $4 }' <<<"$out")
    echo "${rate:-0} $(us_per "$before" "$after" "$(awk '/^requests:/ { print $6 }' <<<"$out")")"
}

printf '\nTLS bench: %ss per run; wr and nginx on core 0 (1 thread/worker), clients on core %s; ECDSA P-256 certificate; %s\n' \
    "$duration" "$load_cpu" "$(openssl version)"
printf 'queue page: %s bytes\n\n' "$page_bytes"
printf '%-44s %6s %10s %11s %6s %9s %9s %7s\n' "workload" "conns" "wr" "nginx" "ratio" "wr p99ms" "ngx p99ms" "errors"
run_wrk 16 "$wr_edge_port" queue.bench.test "Cookie: $forged_cookie" >/dev/null # warm-up
for c in "${connections[@]}"; do
    read -r w_rps w_p99 w_err <<<"$(run_wrk "$c" "$wr_edge_port" queue.bench.test "Cookie: $forged_cookie")"
    read -r n_rps n_p99 n_err <<<"$(run_wrk "$c" "$nginx_port" bench.test)"
    printf '%-44s %6s %10.0f %11.0f %6s %9s %9s %7s\n' "queue page over https/1.1 (req/s)" "$c" "$w_rps" "$n_rps" \
        "$(ratio "$w_rps" "$n_rps")" "$w_p99" "$n_p99" "$w_err/$n_err"
done

# Resumed TLS 1.3 connections, 16 at once: wrk (which speaks TLS 1.3 here) makes a new
# connection after each "Connection: close" answer, offering the ticket the connection before
# brought (OpenSSL's client offers a TLS 1.3 ticket once).
w0=$(cpu_of "$wr_pid")
read -r w_rps w_p99 w_err <<<"$(run_wrk 16 "$wr_edge_port" queue.bench.test "Connection: close")"
w1=$(cpu_of "$wr_pid")
n0=$(cpu_of "$nginx_worker_pid")
read -r n_rps n_p99 n_err <<<"$(run_wrk 16 "$nginx_port" queue.bench.test "Connection: close")"
n1=$(cpu_of "$nginx_worker_pid")
w_us=$(us_per "$w0" "$w1" "$(awk -v r="$w_rps" -v d="$duration" 'BEGIN { print r * d }')")
n_us=$(us_per "$n0" "$n1" "$(awk -v r="$n_rps" -v d="$duration" 'BEGIN { print r * d }')")
printf '%-44s %6s %10.0f %11.0f %6s %9s %9s %7s\n' "resumed TLS 1.3, wrk Connection: close" 16 "$w_rps" "$n_rps" \
    "$(ratio "$w_rps" "$n_rps")" "$w_p99" "$n_p99" "$w_err/$n_err"
printf '%-44s %6s %10s %11s %6s\n' "  server CPU us per connection (capacity)" 16 "$w_us" "$n_us" "$(ratio "$n_us" "$w_us")"
for version in 1.3 1.2; do
    read -r w_rate w_us <<<"$(run_s_time "$wr_edge_port" "$wr_pid" "-tls${version/./_}")"
    read -r n_rate n_us <<<"$(run_s_time "$nginx_port" "$nginx_worker_pid" "-tls${version/./_}")"
    printf '%-44s %6s %10.0f %11.0f %6s\n' "resumed TLS $version, s_time -reuse (conn/s)" 1 "$w_rate" "$n_rate" "$(ratio "$w_rate" "$n_rate")"
    printf '%-44s %6s %10s %11s %6s\n' "  server CPU us per connection (capacity)" 1 "$w_us" "$n_us" "$(ratio "$n_us" "$w_us")"
done
if command -v h2load >/dev/null; then
    read -r w_rate w_us <<<"$(run_h2load "$wr_edge_port" "$wr_pid")"
    read -r n_rate n_us <<<"$(run_h2load "$nginx_port" "$nginx_worker_pid")"
    printf '%-44s %6s %10.0f %11.0f %6s\n' "full TLS 1.3 handshakes, h2load (conn/s)" 1000 "$w_rate" "$n_rate" "$(ratio "$w_rate" "$n_rate")"
    printf '%-44s %6s %10s %11s %6s\n' "  server CPU us per connection (capacity)" 1000 "$w_us" "$n_us" "$(ratio "$n_us" "$w_us")"
else
    echo "full handshakes: h2load is missing (scripts/install-deps.sh bench installs nghttp2-client)"
fi
printf '\nwr RSS after the run: %s kB\n' "$(awk '/VmRSS/ { print $2 }' "/proc/$wr_pid/status")"
