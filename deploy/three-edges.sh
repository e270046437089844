#!/usr/bin/env bash
# A control node and three edges on this machine, the way they run on four: the control node's
# admin API over HTTPS with a private CA, an edge token, three edges that pull from it and share
# the room's counts through one redis-server, and a room in front of an origin. Ctrl-C stops them
# all.
#
#   deploy/three-edges.sh [path/to/wr] [--smoke]
#
# --smoke: check that every edge serves the room and that the control node sees three edges,
# then stop (make test runs this). Ports: WR_DEPLOY_PORT (default 19090: control 19090, edges'
# public listeners 18081-18083, their health/metrics 19091-19093, Redis 16379), origin
# WR_DEPLOY_ORIGIN (default: the demo origin on 13000, if the binary is next to wr). Without
# redis-server on the PATH the edges keep in-memory state: three rooms of their own (each warns).
set -euo pipefail

wr=${1:-build/wr}
smoke=false
[[ ${2:-} == --smoke || ${1:-} == --smoke ]] && smoke=true
[[ $wr == --smoke ]] && wr=build/wr
wr=$(realpath "$wr")
base=${WR_DEPLOY_PORT:-19090}
work=$(mktemp -d "${TMPDIR:-/tmp}/wr-three-edges.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
log() { echo "three-edges: $*" >&2; }
# The status line of a plain HTTP GET, without curl: bash's /dev/tcp.
status_of() { # port host path
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$3" "$2" >&3
  head -n 1 <&3
  exec 3<&-
}

# The origin: the demo origin beside wr, unless one is given.
origin=${WR_DEPLOY_ORIGIN:-}
if [[ -z $origin ]]; then
  "$(dirname "$wr")/wr-demo-origin" --listen 127.0.0.1:$((base - 6090)) >"$work/origin.log" 2>&1 &
  pids+=($!)
  origin=http://127.0.0.1:$((base - 6090))
fi

# Redis for the admission counts (no persistence: the edges restore the counts after a restart).
state=memory
if command -v redis-server >/dev/null; then
  redis-server --port $((base - 2711)) --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
  pids+=($!)
  state=redis://127.0.0.1:$((base - 2711))/0
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$((base - 2711))") 2>/dev/null && break; sleep 0.1; done
else
  log "redis-server is missing: each edge keeps its own counts (scripts/install-deps.sh test installs it)"
fi

# A private CA and the control node's certificate, signed by it.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj "/CN=wr demo CA" \
  -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
  -keyout "$work/admin.key" -out "$work/admin.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$work/san.ext"
openssl x509 -req -in "$work/admin.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 30 \
  -extfile "$work/san.ext" -out "$work/admin.pem" 2>/dev/null
chmod 0600 "$work"/*.key

# The control node.
control=https://127.0.0.1:$base
"$wr" serve --role control --node-name control --data-dir "$work/control" --admin-listen 127.0.0.1:$base \
  --admin-tls-cert "$work/admin.pem" --admin-tls-key "$work/admin.key" --state "$state" >"$work/control.log" 2>&1 &
pids+=($!)
export WR_API_URL=$control WR_API_CA_FILE=$work/ca.pem
for _ in $(seq 100); do [[ -s $work/control/admin.token ]] && break; sleep 0.1; done
WR_API_TOKEN=$(cat "$work/control/admin.token")
export WR_API_TOKEN
for _ in $(seq 100); do "$wr" zones list >/dev/null 2>&1 && break; sleep 0.1; done

# The configuration, once, on the control node.
"$wr" zones create example.com --origin "$origin" >/dev/null
"$wr" rooms create --zone example.com --name shop --host shop.example.com \
  --total-active-users 1000 --new-users-per-minute 300 >/dev/null
edge_token=$("$wr" tokens create --name edges --scope edge 2>/dev/null)

# Three edges; the token goes through the environment, not the command line.
for i in 1 2 3; do
  WR_CONTROL_TOKEN=$edge_token "$wr" serve --role edge --node-name "edge-$i" --data-dir "$work/edge-$i" \
    --control-url "$control" --control-ca-file "$work/ca.pem" --state "$state" \
    --edge-listen 127.0.0.1:$((base - 1010 + i)) --admin-listen 127.0.0.1:$((base + i)) >"$work/edge-$i.log" 2>&1 &
  pids+=($!)
done

served=0
for i in 1 2 3; do
  for _ in $(seq 100); do
    if status_of $((base - 1010 + i)) shop.example.com / 2>/dev/null | grep -q ' 200 '; then
      served=$((served + 1)); break
    fi
    sleep 0.1
  done
done
log "$served of 3 edges serve shop.example.com"

if $smoke; then
  [[ $served == 3 ]] || { cat "$work"/*.log >&2; exit 1; }
  # The edges report within a push interval or two.
  for _ in $(seq 50); do
    nodes=$("$wr" -o json rooms status shop | grep -c '"name": "edge-' || true)
    [[ $nodes == 3 ]] && break
    sleep 0.2
  done
  "$wr" rooms status shop
  [[ $nodes == 3 ]] || { log "the control node sees $nodes edges, not 3"; exit 1; }
  if [[ $state != memory ]]; then
    shared=$("$wr" -o json rooms status shop | grep -c '"backend": "redis"' || true)
    [[ $shared == 4 ]] || { log "$shared of 4 nodes use redis"; exit 1; }
  fi
  log "ok"
  exit 0
fi

cat <<MSG
Control node (admin API):  $control    (CA: $work/ca.pem; export WR_API_URL=$control WR_API_CA_FILE=$work/ca.pem WR_API_TOKEN=$WR_API_TOKEN)
Shared state:              $state
Edges:                     http://127.0.0.1:$((base - 1009))/ …:$((base - 1008)) …:$((base - 1007))   (Host: shop.example.com)
Try:                       $wr rooms status shop       # the room across the three edges
                           curl -H 'Host: shop.example.com' http://127.0.0.1:$((base - 1009))/
Logs:                      $work/*.log
Ctrl-C stops everything.
MSG
wait
