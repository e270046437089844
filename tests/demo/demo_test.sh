#!/usr/bin/env bash
# What `make demo` promises, checked: scripts/demo.sh on free ports shows, within 30 s, a
# cookie-less visitor kept in line and `wr rooms status` at queueing, and prints the console's
# address with the token; its room has the origin guard on; stopping it leaves no process behind.
#   tests/demo/demo_test.sh WR_BINARY SOURCE_DIR
set -euo pipefail
wr=$(realpath "$1")
source_dir=$(realpath "$2")
work=$(mktemp -d)
demo_pid=
cleanup() {
    # demo.sh runs in its own process group: end the group (the script, wr serve, wr load, the origin).
    if [[ -n $demo_pid ]]; then kill -TERM -- "-$demo_pid" 2>/dev/null || true; wait "$demo_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# A port nothing listens on (bash's /dev/tcp connect fails), below the kernel's ephemeral range
# (ip_local_port_range starts at 32768), so no outgoing connection of a test running beside this
# one takes it between the check and the listen.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}
edge_port=$(free_port)
admin_port=$(free_port)
origin_port=$(free_port)

# One request without a cookie, as a browser's first visit; prints the response.
first_visit() {
    exec 3<>"/dev/tcp/127.0.0.1/$edge_port" || return 1
    printf 'GET / HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nConnection: close\r\n\r\n' >&3
    cat <&3
    exec 3<&-
}

cd "$work"
WR_DEMO_DATA="$work/data" WR_DEMO_EDGE_PORT=$edge_port WR_DEMO_ADMIN_PORT=$admin_port WR_DEMO_ORIGIN_PORT=$origin_port \
    setsid "$source_dir/scripts/demo.sh" "$wr" >"$work/demo.log" 2>&1 &
demo_pid=$!

deadline=$((SECONDS + 30))
queued=no status=no
visit= status_json=
while ((SECONDS < deadline)); do
    if [[ $queued == no ]]; then
        visit=$(first_visit 2>/dev/null || true)
        grep -q '"inWaitingRoom":true' <<<"$visit" && queued=yes
    fi
    if [[ $status == no ]]; then
        status_json=$("$wr" --data-dir "$work/data" --api "http://127.0.0.1:$admin_port" -o json rooms status shop 2>/dev/null || true)
        grep -q '"status": "queueing"' <<<"$status_json" && status=yes
    fi
    [[ $queued == yes && $status == yes ]] && break
    sleep 0.5
done
echo "after $((SECONDS - deadline + 30)) s: a cookie-less visitor queued: $queued; rooms status queueing: $status"
fail=0
[[ $queued == yes && $status == yes ]] || fail=1
# The first visitor is told a wait at once (worked out from the room's limits while it has not
# measured its admissions), and the status that the console shows has one too: they agree.
if [[ $queued == yes ]] && ! grep -q '"waitTimeKnown":true' <<<"$visit"; then
    echo "the first visitor's page has no estimated wait: $visit" >&2
    fail=1
fi
if [[ $status == yes ]] && grep -qE '"estimated_queued_users": [1-9]' <<<"$status_json" &&
    grep -q '"max_estimated_time_minutes": 0' <<<"$status_json"; then
    echo "the room's status shows no estimated wait while visitors wait: $status_json" >&2
    fail=1
fi
# The console's address, with the admin token in the fragment (never sent to the server).
for _ in $(seq 50); do grep -q 'Console:' "$work/demo.log" && break; sleep 0.2; done
token=$(cat "$work/data/admin.token" 2>/dev/null || true)
if ! grep -qF "http://127.0.0.1:$admin_port/#token=$token" "$work/demo.log" || [[ -z $token ]]; then
    echo "the demo does not print the console address with the token" >&2
    fail=1
fi
# The demo room has the origin guard on.
if ! "$wr" --data-dir "$work/data" --api "http://127.0.0.1:$admin_port" -o json rooms get shop 2>/dev/null |
    tr -d ' \n' | grep -qF '"origin_guard":{"enabled":true'; then
    echo "the demo room does not have the origin guard on" >&2
    fail=1
fi
if ((fail)); then cat "$work/demo.log" >&2; exit 1; fi

# Stopping the demo stops everything it started.
kill -TERM "$demo_pid"
wait "$demo_pid" 2>/dev/null || true
sleep 0.5
if pgrep -g "$demo_pid" >/dev/null; then
    echo "processes of the demo are still running after it stopped:" >&2
    pgrep -a -g "$demo_pid" >&2
    exit 1
fi
demo_pid=
echo "demo test passed"
