# Shell helpers the benchmarks share (sourced by bench/run.sh, access_log.sh, access_log_together.sh,
# origin_cap.sh, state.sh).
# Each script sets `work` (its scratch directory) and `duration` (seconds a run) before use.

# Waits (10 s at most) until something accepts connections on 127.0.0.1:PORT; else stops the bench,
# with the end of the server's LOG if one is named. wait_for_port PORT [LOG]
wait_for_port() {
    for _ in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "bench: nothing listens on port $1" >&2
    [[ -n ${2:-} && -f $2 ]] && tail -5 "$2" >&2
    exit 1
}

start_nginx() { # config file; as root nginx wants a user to run as, otherwise none
    nginx -c "$1" -p "$work/nginx" -g 'daemon on; user root;' 2>/dev/null || nginx -c "$1" -p "$work/nginx" -g 'daemon on;'
}

http_get() { # port host path [cookie]: the whole response on stdout
    exec 3<>"/dev/tcp/127.0.0.1/$1"
    if [[ -n ${4:-} ]]; then
        printf 'GET %s HTTP/1.1\r\nHost: %s\r\nCookie: %s\r\nConnection: close\r\n\r\n' "$3" "$2" "$4" >&3
    else
        printf 'GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$3" "$2" >&3
    fi
    cat <&3
    exec 3<&-
}
# port host → the name=value of the cookie wr sets on a first visit (an admitted visitor's, in an open room)
first_cookie() { http_get "$1" "$2" / | tr -d '\r' | sed -n 's/^Set-Cookie: \(__cfwaitingroom=[^;]*\);.*/\1/p'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# The median of an odd number of figures.
median_of() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
# User + system CPU seconds of a process, every thread.
cpu_seconds() { awk '{ print ($14 + $15) / 100 }' "/proc/$1/stat"; }

# nginx serving one small static page on 127.0.0.1:PORT (one worker, on core CPU): the origin
# every proxy in a bench is measured against. nginx_origin PORT CPU
nginx_origin() {
    mkdir -p "$work/www" "$work/nginx"
    printf '<!doctype html><title>origin</title><p>hello from the origin</p>\n' > "$work/www/index.html"
    cat > "$work/nginx-origin.conf" <<CONF
worker_processes 1;
worker_cpu_affinity $( (($2 == 1)) && echo 10 || echo 01 );
pid $work/nginx-origin.pid;
error_log $work/nginx/origin-error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 10000000;
    server { listen 127.0.0.1:$1 backlog=4096; root $work/www; }
}
CONF
    start_nginx "$work/nginx-origin.conf"
    wait_for_port "$1"
}

# A Redis Cluster of three masters with a replica each on 127.0.0.1:PORT … PORT+5, their cluster
# bus on PORT+6 … PORT+11, every server on core CPU, in $work/cluster-N. Sets cluster_masters
# (HOST:PORT of each master), cluster_master_pids and cluster_replica_pids. stop_redis_cluster
# ends it. start_redis_cluster PORT CPU
# The bus is named rather than left at Redis's PORT+10000: for a PORT above 22768 that lands in
# the kernel's ephemeral range, where the bench's own client connections may hold it, and the
# node then fails to start.
start_redis_cluster() {
    local ports=() seeds=() i dir
    for i in 0 1 2 3 4 5; do
        dir="$work/cluster-$i"
        mkdir -p "$dir"
        ports+=($(($1 + i)))
        seeds+=("127.0.0.1:$(($1 + i))")
        taskset -c "$2" redis-server --port "$(($1 + i))" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
            --cluster-enabled yes --cluster-port "$(($1 + 6 + i))" --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
            --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir"
    done
    for i in 0 1 2 3 4 5; do wait_for_port "${ports[$i]}" "$work/cluster-$i/redis.log"; done
    redis-cli --cluster create "${seeds[@]}" --cluster-replicas 1 --cluster-yes >"$work/cluster-create.log" 2>&1 ||
        { echo "bench: redis-cli --cluster create failed" >&2; cat "$work/cluster-create.log" >&2; exit 1; }
    for _ in $(seq 200); do
        [[ $(redis-cli -p "${ports[0]}" cluster info | tr -d '\r' | awk -F: '/^cluster_state/ { print $2 }') == ok ]] && break
        sleep 0.1
    done
    cluster_masters=() cluster_master_pids=() cluster_replica_pids=()
    for i in 0 1 2 3 4 5; do
        if redis-cli -p "${ports[$i]}" info replication | grep -q '^role:master'; then
            cluster_masters+=("127.0.0.1:${ports[$i]}")
            cluster_master_pids+=("$(cat "$work/cluster-$i/redis.pid")")
        else
            cluster_replica_pids+=("$(cat "$work/cluster-$i/redis.pid")")
        fi
    done
    ((${#cluster_masters[@]} == 3)) || { echo "bench: the cluster has ${#cluster_masters[@]} masters, not 3" >&2; exit 1; }
}
stop_redis_cluster() {
    local pidfile
    for pidfile in "$work"/cluster-*/redis.pid; do [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null; done
    return 0
}
