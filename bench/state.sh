#!/usr/bin/env bash
# make bench-state: what the shared state costs one Redis core per room-sync (docs/design.md,
# "What a room-sync costs"), with the real sync code of K nodes (wr_bench_state) against a
# redis-server pinned to a core of its own.
#   bench/state.sh BUILD_DIR [SECONDS_PER_RUN]
# redis-server runs on the last core, the simulated nodes on the others (one thread on a 2-core
# machine). Each run prints the room-syncs per second done, Redis's CPU per room-sync (process
# time and INFO commandstats) and the room-syncs per second one core carries at that cost; each
# one-Redis scenario runs three times, and its median closes it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build-bench}
duration=${2:-${WR_BENCH_SECONDS:-10}}
bench="$build/wr_bench_state"
[[ -x $bench ]] || { echo "bench/state.sh: $bench is missing (cmake --build $build --target wr_bench_state)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "bench/state.sh: redis-server is missing (scripts/install-deps.sh bench)" >&2; exit 1; }
work=$(mktemp -d /tmp/wr-bench-state.XXXXXX)
cleanup() {
    [[ -f $work/redis.pid ]] && kill "$(cat "$work/redis.pid")" 2>/dev/null
    stop_redis_cluster
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

cores=$(nproc)
redis_cpu=$((cores - 1))
client_cpus="0"
((cores > 2)) && client_cpus="0-$((cores - 2))"
port=$((10000 + RANDOM % 20000))

# A fresh, empty Redis for each run: no run sees another's rooms.
start_redis() {
    if [[ -f $work/redis.pid ]]; then
        local old
        old=$(cat "$work/redis.pid")
        kill "$old"
        while kill -0 "$old" 2>/dev/null; do sleep 0.05; done
        rm -f "$work/redis.pid"
    fi
    taskset -c "$redis_cpu" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log" --dir "$work"
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && [[ -s $work/redis.pid ]] && return; sleep 0.05; done
    echo "bench/state.sh: redis-server did not start" >&2; cat "$work/redis.log" >&2; exit 1
}

# Runs on a shared machine swing by 20 % and more, so each one-Redis figure is the median of
# WR_BENCH_STATE_RUNS runs (3 unless set), each on a fresh Redis.
runs=${WR_BENCH_STATE_RUNS:-3}
run() {
    local costs=() out
    for ((i = 1; i <= runs; i++)); do
        start_redis
        out=$(taskset -c "$client_cpus" "$bench" --state "redis://127.0.0.1:$port/0" --redis-pid "$(cat "$work/redis.pid")" \
            --seconds "$duration" "$@")
        echo "$out"
        costs+=("$(awk '/redis CPU\/room-sync/ { print $3 }' <<<"$out")")
    done
    printf '%s\n' "${costs[@]}" | sort -g | awk -v n="$runs" '{ c[NR] = $1 } END {
        m = c[int((NR + 1) / 2)]
        printf "  median of %d runs   %10.2f us per room-sync (%s to %s): one core carries %.0f room-syncs/s at 70 %%\n", n, m, c[1], c[NR], 0.7e6 / m }'
    echo
}

echo "redis-server on core $redis_cpu, the nodes on core(s) $client_cpus; $duration s a run, $runs runs each on one Redis"
echo
# As fast as the nodes can sync: Redis's cost per room-sync with many rooms per node, then with
# many nodes.
run --label "saturation, few nodes" --nodes 4 --rooms 250 --interval-ms 0
run --label "saturation, many nodes" --nodes 100 --rooms 10 --interval-ms 0
# A paced fleet at the default interval: 40 nodes x 25 rooms every 250 ms is 4,000 room-syncs a
# second, what one client core drives here with room to spare (the nodes' own work costs about as
# much as Redis's); Redis's share of its core is then the figure to read.
run --label "paced fleet" --nodes 40 --rooms 25 --interval-ms 250

# A Redis Cluster of three masters, each with a replica, all on the Redis core: the same paced
# fleet. A room lives on one shard, and one EVALSHA carries a node's rooms of one slot — about one
# room — so each call's fixed cost is a room's. The figure is the masters' CPU together per
# room-sync; the replicas' is printed apart (they copy every write and serve no sync).
if command -v redis-cli >/dev/null; then
    kill "$(cat "$work/redis.pid")" 2>/dev/null && rm -f "$work/redis.pid"
    start_redis_cluster $((port + 100)) "$redis_cpu"
    master_pids=()
    for pid in "${cluster_master_pids[@]}"; do master_pids+=(--redis-pid "$pid"); done
    replica_ticks() { local pid stats=(); for pid in "${cluster_replica_pids[@]}"; do stats+=("/proc/$pid/stat"); done; awk '{ s += $14 + $15 } END { print s }' "${stats[@]}"; }
    before=$(replica_ticks)
    taskset -c "$client_cpus" "$bench" --state "redis-cluster://$(IFS=,; echo "${cluster_masters[*]}")" "${master_pids[@]}" \
        --seconds "$duration" --label "paced fleet, a 3-master cluster with a replica each" --nodes 40 --rooms 25 --interval-ms 250
    awk -v b="$before" -v a="$(replica_ticks)" -v s="$duration" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "  the three replicas   %10.1f %% of one core together\n", 100 * (a - b) / hz / s }'
fi
