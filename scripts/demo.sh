#!/usr/bin/env bash
# make demo: wr in front of the demo origin, with a room that is full, so a browser sees the queue.
#   http://localhost:8080/        the demo shop behind the room "shop" (FIFO, 1-minute sessions)
#   http://127.0.0.1:9090         the admin API (token in demo-data/admin.token)
# Background "visitors" keep the room full; your browser waits in line and gets in when a slot
# frees (within a minute or so), ahead of newcomers: first come, first served.
set -euo pipefail
wr=${1:-build/wr}
origin=$(dirname "$wr")/wr-demo-origin
data=${WR_DEMO_DATA:-demo-data}
edge_port=${WR_DEMO_EDGE_PORT:-8080}
admin_port=${WR_DEMO_ADMIN_PORT:-9090}
origin_port=${WR_DEMO_ORIGIN_PORT:-3000}

pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

# A plain HTTP GET without curl: bash's /dev/tcp.
http_get() { # port host path
    exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
    printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$3" "$2" >&3
    cat <&3 >/dev/null
    exec 3<&-
}

mkdir -p "$data"
"$origin" --listen "127.0.0.1:$origin_port" >/dev/null &
pids+=($!)
"$wr" serve --data-dir "$data" --edge-listen "127.0.0.1:$edge_port" --admin-listen "127.0.0.1:$admin_port" \
    --log-level warn &
pids+=($!)
for _ in $(seq 50); do http_get "$admin_port" localhost /healthz 2>/dev/null && break; sleep 0.1; done

cat > "$data/demo.json" <<JSON
{"zones": [{"name": "localhost", "origin": "http://127.0.0.1:$origin_port",
  "waiting_rooms": [{"name": "shop", "host": "localhost", "path": "/",
    "total_active_users": 200, "new_users_per_minute": 200, "session_duration": 1,
    "json_response_enabled": true, "description": "make demo"}]}]}
JSON
"$wr" --data-dir "$data" --api "http://127.0.0.1:$admin_port" apply -f "$data/demo.json"

# Keep the room full with cookie-less visitors: 200 now, then a few every ten seconds.
fill() { for _ in $(seq "$1"); do http_get "$edge_port" localhost / 2>/dev/null || true; done; }
fillers=()
for _ in $(seq 10); do fill 21 & fillers+=($!); done
wait "${fillers[@]}"
( while true; do sleep 10; fill 40; done ) &
pids+=($!)

cat <<TEXT

  wr demo is running (Ctrl-C to stop).

    Queue page:  http://localhost:$edge_port/   (the room is full: you wait, then get in)
    JSON:        curl -H 'Accept: application/json' http://localhost:$edge_port/
    Status:      $wr --data-dir $data --api http://127.0.0.1:$admin_port rooms status shop
    Admin API:   http://127.0.0.1:$admin_port/client/v4  (token: $data/admin.token)

TEXT
wait "${pids[1]}"
