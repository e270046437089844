#!/usr/bin/env bash
# make demo: wr in front of the demo origin, with a room that is kept full, so a browser sees the queue.
#   http://localhost:8080/        the demo shop behind the room "shop" (FIFO, 1-minute sessions,
#                                 the origin guard on: admission slows if the origin does)
#   http://127.0.0.1:9090/#token= the console (the admin token in the address's fragment)
# `wr load` keeps 100 browser-like visitors in line; a browser opened at any time waits behind
# them (about a minute, up to two) and gets in ahead of everyone who arrives after it: first come,
# first served.
# Ports and the data dir come from WR_DEMO_EDGE_PORT, WR_DEMO_ADMIN_PORT, WR_DEMO_ORIGIN_PORT and
# WR_DEMO_DATA (the demo test uses free ones).
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
    "json_response_enabled": true, "description": "make demo",
    "origin_guard": {"enabled": true}}]}]}
JSON
"$wr" --data-dir "$data" --api "http://127.0.0.1:$admin_port" apply -f "$data/demo.json"

# Keep the room full: wr load waits until the edge routes the room, then keeps a line of
# browser-like visitors waiting in it.
"$wr" load --edge "127.0.0.1:$edge_port" --host localhost --queue "${WR_DEMO_QUEUE:-100}" &
pids+=($!)
for _ in $(seq 100); do
    "$wr" --data-dir "$data" --api "http://127.0.0.1:$admin_port" -o json rooms status shop 2>/dev/null | grep -q '"queueing"' && break
    sleep 0.2
done
token=$(cat "$data/admin.token")

cat <<TEXT

  wr demo is running (Ctrl-C to stop).

    Console:     http://127.0.0.1:$admin_port/#token=$token
    Queue page:  http://localhost:$edge_port/   (the room is full: you wait about a minute, then get in)
    JSON:        curl -H 'Accept: application/json' http://localhost:$edge_port/
    Status:      $wr --data-dir $data --api http://127.0.0.1:$admin_port rooms status shop
    Admin API:   http://127.0.0.1:$admin_port/client/v4  (token: $data/admin.token)

TEXT
wait "${pids[1]}"
