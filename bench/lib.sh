# Shell helpers the benchmarks share (sourced by bench/run.sh, access_log.sh, access_log_together.sh,
# origin_cap.sh).
# Each script sets `work` (its scratch directory) and `duration` (seconds a run) before use.

# Waits (10 s at most) until something accepts connections on 127.0.0.1:PORT; else stops the bench.
wait_for_port() {
    for _ in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "bench: nothing listens on port $1" >&2
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
