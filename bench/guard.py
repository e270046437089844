#!/usr/bin/env python3
"""The origin guard's budget, live: real `wr serve` processes in front of wr-capacity-origin, and a
crowd of browser-like visitors (a ramp, a peak and a tail of arrivals, or a burst), each admitted
one browsing a page every few seconds for a few minutes; queued ones refresh their queue page.

    bench/guard.py BUILD_DIR [--guard on|off] [--edges 1|3] [--crowd launch|burst] [--cap N]

The room's limits are three times what the origin serves within its 500 ms target; the crowd comes
at three times the pace the origin can take. The driver is its own oracle: it times every page it
gets (time to the answer's head, as a visitor sees it), reads the origin's own counts from its
/stats every 10 s, and the room's effective limits from the status every 5 s. It reports, as
`wr simulate` does on virtual time: the p95 per minute, the share of judged minutes (from 60 s
after the first 10 s over target until the queue emptied) within 1.5x the target, what the origin
served against what it can sustain, timeouts and 5xx, admitted visitors sent back to the queue, and
how long after the queue emptied the configured limits were back. With --edges 3 the room is
served by three edge nodes sharing a redis-server, fed and guarded by a control node.
make bench-guard runs the scenarios; a run takes 6-12 minutes.
"""
import argparse, asyncio, json, math, os, random, re, shutil, signal, subprocess, sys, tempfile, time, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("build")
parser.add_argument("--guard", choices=["on", "off"], default="on")
parser.add_argument("--edges", type=int, choices=[1, 3], default=1)
parser.add_argument("--crowd", choices=["launch", "burst"], default="launch")
parser.add_argument("--cap", type=int, default=0, help="the zone's max_origin_connections (0: none)")
parser.add_argument("--seed", type=int, default=5)
parser.add_argument("--json", help="also write the summary here")
parser.add_argument("--logs", help="keep the wr processes' logs in this directory")
args = parser.parse_args()
random.seed(args.seed)

# The origin: 4 workers of 100 ms (50-150 ms) -> 40 pages a second at most; within the 500 ms target
# it serves about that. A browsing visitor asks for a page every 5 s (2.5-7.5 s) for 2 minutes (1-3):
# 200 of them keep it busy, and 100 new ones a minute keep 200 browsing. The room admits 3x that.
WORKERS, SERVICE_MS, TARGET_MS = 4, 100, 500
BUSIEST = WORKERS * 1000 / SERVICE_MS  # every worker busy all the time
REFRESH_S, BROWSE_S, QUEUE_REFRESH_S = 5.0, 120.0, 5.0
NEW_PER_MINUTE, TOTAL_ACTIVE = 300, 900
if args.crowd == "launch":  # seconds of ramp, peak, tail at 300 arrivals a minute at the peak
    RAMP, PEAK, TAIL, PEAK_RATE = 60.0, 180.0, 60.0, 300 / 60
else:                       # 600 visitors within 10 s: the room fills at once
    RAMP, PEAK, TAIL, PEAK_RATE = 0.0, 10.0, 0.0, 60.0
REQUEST_TIMEOUT_S = 30.0
RECOVERY_WAIT_S = 360.0

# What it sustains within the target: as `wr simulate` reckons it for the same origin (workers
# behind one queue, services of 50-150 ms), the highest steady rate whose p95 stays within 500 ms.
with tempfile.NamedTemporaryFile(suffix=".json") as report:
    subprocess.run([f"{args.build}/wr", "simulate", "--users", "1", "--origin-workers", str(WORKERS), "--origin-service-ms",
                    str(SERVICE_MS), "--origin-guard", "on", "--origin-guard-target-ms", str(TARGET_MS), "--no-users",
                    "--out", report.name], stdout=subprocess.DEVNULL, check=True)
    SUSTAINABLE = json.load(open(report.name))["summary"]["origin"]["sustainable_per_second"]

work = tempfile.mkdtemp(prefix="wr-bench-guard-")
processes = []


def start(argv, **kwargs):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    processes.append(p)
    return p


def read_until(stream, pattern, what):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        m = re.search(pattern, line)
        if m:
            return m
    sys.exit(f"bench-guard: {what} did not start")


def drain(stream, name=None):  # keep reading a child's output so that a full pipe never blocks it
    import threading
    out = open(os.path.join(args.logs, name + ".log"), "w", buffering=1) if args.logs and name else None
    threading.Thread(target=lambda: [out.write(line) if out else None for line in stream], daemon=True).start()


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url, token=None, method="GET", body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, method=method, headers=headers,
                                     data=json.dumps(body).encode() if body is not None else None)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


origin = start([f"{args.build}/wr-capacity-origin", "--workers", str(WORKERS), "--service-ms", str(SERVICE_MS),
                "--service-jitter", "0.5"])
origin_port = int(read_until(origin.stdout, r"listening on http://[\d.]+:(\d+)", "wr-capacity-origin").group(1))
drain(origin.stdout), drain(origin.stderr)
origin_url = f"http://127.0.0.1:{origin_port}"

serve = [f"{args.build}/wr", "serve", "--origin-timeout", "10"]
edge_ports = []
if args.edges == 1:
    data = f"{work}/node"
    node = start(serve + ["--data-dir", data, "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0"])
    ports = {}
    while len(ports) < 2:
        m = read_until(node.stderr, r"(edge|admin): .*listening on https?://127\.0\.0\.1:(\d+)", "wr serve")
        ports[m.group(1)] = int(m.group(2))
    drain(node.stderr, "wr")
    admin = f"http://127.0.0.1:{ports['admin']}/client/v4"
    token = open(f"{data}/admin.token").read().strip()
    edge_ports.append(ports["edge"])
else:
    redis_port = free_port()
    start(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
    state = f"redis://127.0.0.1:{redis_port}/0"
    for _ in range(100):
        if subprocess.run(["redis-cli", "-p", str(redis_port), "ping"], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    control_port = free_port()
    control = start(serve + ["--role", "control", "--node-name", "control", "--data-dir", f"{work}/control",
                             "--admin-listen", f"127.0.0.1:{control_port}", "--state", state])
    read_until(control.stderr, r"API listening on", "the control node")
    drain(control.stderr, "control")
    admin = f"http://127.0.0.1:{control_port}/client/v4"
    token = open(f"{work}/control/admin.token").read().strip()
    edge_token = call(admin + "/tokens", token, "POST", {"name": "edges", "scope": "edge"})["result"]["token"]
    for i in range(3):
        edge = start(serve + ["--role", "edge", "--node-name", f"edge-{i + 1}", "--data-dir", f"{work}/edge-{i + 1}",
                              "--control-url", f"http://127.0.0.1:{control_port}", "--control-token", edge_token,
                              "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0", "--state", state])
        edge_ports.append(int(read_until(edge.stderr, r"edge: .*listening on https?://127\.0\.0\.1:(\d+)", f"edge-{i + 1}").group(1)))
        drain(edge.stderr, f"edge-{i + 1}")

zone = {"name": "example.com", "origin": origin_url}
if args.cap:
    zone["max_origin_connections"] = args.cap
call(admin + "/zones", token, "POST", zone)
room_path = "/zones/example.com/waiting_rooms/shop"
call(admin + "/zones/example.com/waiting_rooms", token, "POST", {
    "name": "shop", "host": "shop.example.com", "total_active_users": TOTAL_ACTIVE, "new_users_per_minute": NEW_PER_MINUTE,
    "session_duration": 1, "origin_guard": {"enabled": args.guard == "on", "target_ttfb_ms": TARGET_MS}})
time.sleep(3)  # the edges have the room (they follow the control node within 2 s)

# The crowd's arrival times: a rate that ramps up, holds and falls off (seeded).
arrivals, t = [], 0.0
duration = RAMP + PEAK + TAIL


def rate(at):
    if at < RAMP:
        return PEAK_RATE * at / RAMP
    if at < RAMP + PEAK:
        return PEAK_RATE
    return PEAK_RATE * max(0.0, (duration - at) / TAIL) if TAIL else 0.0


while t < duration:
    t += random.expovariate(max(rate(t), 0.05))
    if t < duration and random.random() < rate(t) / max(rate(t), 0.05):
        arrivals.append(t)

began = time.monotonic()
pages = []           # (seconds since start, time to head) of every origin page a visitor got
statuses = {}
waiting = set()      # visitors on the queue page now
sent_back = timeouts = client_errors = admitted_users = 0
samples = []         # (seconds, effective total, effective rate, state, reason, queued)
origin_windows = []  # (seconds, served in the window, its p95, its count)


async def visitor(number, arrive_at):
    global sent_back, timeouts, client_errors, admitted_users
    await asyncio.sleep(max(0.0, began + arrive_at - time.monotonic()))
    port = edge_ports[number % len(edge_ports)]
    cookie, admitted_until, reader, writer, page = "", None, None, None, 0
    while True:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            page += 1
            sent_at = time.monotonic()
            writer.write(f"GET /p/{number}/{page} HTTP/1.1\r\nHost: shop.example.com\r\nCookie: {cookie}\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT_S)
            ttfb = time.monotonic() - sent_at
            status = int(head.split(b" ", 2)[1])
            statuses[status] = statuses.get(status, 0) + 1
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            body = await asyncio.wait_for(reader.readexactly(int(length.group(1)) if length else 0), REQUEST_TIMEOUT_S)
            m = re.search(rb"(?i)\r\nset-cookie: *(__cfwaitingroom=[^;]*)", head)
            if m:
                cookie = m.group(1).decode()
            if re.search(rb"(?i)\r\nconnection: *close", head):
                writer.close()
                writer = None
        except asyncio.TimeoutError:
            timeouts += 1
            writer.close()
            writer = None
            await asyncio.sleep(REFRESH_S)
            continue
        except (OSError, asyncio.IncompleteReadError, ValueError):
            client_errors += 1
            writer = None
            await asyncio.sleep(1)
            continue
        now = time.monotonic()
        if status == 200 and body == b"ok\n":  # the origin's page: admitted
            waiting.discard(number)
            pages.append((sent_at - began, ttfb))
            if admitted_until is None:  # visits vary, as `wr simulate` has them: half to one and a half of it
                admitted_until = now + random.uniform(0.5, 1.5) * BROWSE_S
                admitted_users += 1
            if now >= admitted_until:
                break
            await asyncio.sleep(random.uniform(0.5, 1.5) * REFRESH_S)
        elif status == 200:  # the queue page
            if admitted_until is not None:
                sent_back += 1
            waiting.add(number)
            await asyncio.sleep(QUEUE_REFRESH_S)
        else:  # wr's 503 (the origin cap's wait ran out), a 502/504, the origin's own 503
            await asyncio.sleep(random.uniform(0.5, 1.5) * REFRESH_S)
    if writer:
        writer.close()


def read_status():
    result = call(admin + room_path + "/status", token)["result"]
    guard = result.get("origin_guard") or {}
    return (result["effective_total_active_users"], result["effective_new_users_per_minute"], guard.get("state", "?"),
            guard.get("reason", ""), result.get("estimated_queued_users", 0))


async def watch(stop):
    next_origin = began + 10
    while not stop.is_set():
        now = time.monotonic()
        try:
            samples.append((now - began, *await asyncio.to_thread(read_status)))
            if len(samples) % 6 == 1:
                print(f"  {samples[-1][0]:4.0f} s: effective {samples[-1][1]}/{samples[-1][2]} ({samples[-1][3]}), "
                      f"{len(waiting)} waiting, {admitted_users} admitted, {len(pages)} pages", file=sys.stderr, flush=True)
        except OSError as error:
            print(f"status: {error}", file=sys.stderr)
        if now >= next_origin:
            stats = await asyncio.to_thread(call, origin_url + "/stats?reset=1")
            origin_windows.append((now - began, stats["served"], stats["ttfb_ms"]["p95"], stats["ttfb_ms"]["count"]))
            next_origin += 10
        try:
            await asyncio.wait_for(stop.wait(), 5)
        except asyncio.TimeoutError:
            pass


def p95(values):
    values = sorted(values)
    return values[min(len(values) - 1, int(0.95 * len(values)))] if values else 0.0


async def main():
    stop = asyncio.Event()
    watcher = asyncio.create_task(watch(stop))
    crowd = [asyncio.create_task(visitor(i, at)) for i, at in enumerate(arrivals)]
    # The queue emptied: the last moment a visitor was waiting, once all have arrived.
    while not (time.monotonic() - began > duration and not waiting):
        await asyncio.sleep(1)
    thinned = time.monotonic() - began
    restored = None
    while time.monotonic() - began < thinned + RECOVERY_WAIT_S:
        await asyncio.sleep(5)
        last = samples[-1] if samples else None
        if last and last[0] > thinned and last[1] == TOTAL_ACTIVE and last[2] == NEW_PER_MINUTE:
            restored = last[0]
            break
        if args.guard == "off" and all(task.done() for task in crowd):
            break
    await asyncio.gather(*crowd)
    stop.set()
    await watcher
    return thinned, restored


thinned, restored = asyncio.run(main())
for p in processes:
    p.send_signal(signal.SIGTERM)
for p in processes:
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
shutil.rmtree(work, ignore_errors=True)

# The judged minutes: from 60 s after the first 10 s window over target until the queue emptied.
first_over = next((w for w in range(0, int(thinned) + 10, 10)
                   if p95([d for s, d in pages if w <= s < w + 10]) * 1000 > TARGET_MS), None)
minutes = []
for minute in range(int(math.ceil(max(s for s, _ in pages) / 60)) if pages else 0):
    times = [d for s, d in pages if minute * 60 <= s < minute * 60 + 60]
    served = sum(n for at, n, _, _ in origin_windows if minute * 60 < at <= minute * 60 + 60)
    lowest = min((x[2] for x in samples if minute * 60 <= x[0] < minute * 60 + 60), default=None)
    judged = first_over is not None and minute * 60 >= first_over + 60 and minute * 60 + 60 <= thinned
    minutes.append({"minute": minute, "pages": len(times), "p95_ms": round(p95(times) * 1000), "origin_served": served,
                    "lowest_effective_rate": lowest, "judged": judged})
judged = [m for m in minutes if m["judged"]]
good = [m for m in judged if m["p95_ms"] <= 1.5 * TARGET_MS]
summary = {
    "guard": args.guard, "edges": args.edges, "crowd": args.crowd, "cap": args.cap, "visitors": len(arrivals),
    "admitted": admitted_users, "target_ms": TARGET_MS, "sustainable_per_second": round(SUSTAINABLE, 1),
    "first_over_target_s": first_over, "queue_emptied_s": round(thinned),
    "judged_minutes": len(judged), "good_share": round(len(good) / len(judged), 2) if judged else None,
    "median_p95_ms": sorted(m["p95_ms"] for m in judged)[len(judged) // 2] if judged else None,
    "worst_p95_ms": max((m["p95_ms"] for m in judged), default=None),
    "throughput_share": round(sum(m["origin_served"] for m in judged) / (60 * len(judged)) / SUSTAINABLE, 2) if judged else None,
    "busy_share": round(sum(m["origin_served"] for m in judged) / (60 * len(judged)) / BUSIEST, 2) if judged else None,
    "timeouts": timeouts, "client_errors": client_errors, "status_5xx": sum(n for s, n in statuses.items() if s >= 500),
    "statuses": {str(k): v for k, v in sorted(statuses.items())}, "sent_back_to_queue": sent_back,
    "limits_back_after_s": round(restored - thinned) if restored is not None else None,
    "lowest_effective": min(((x[1], x[2]) for x in samples), key=lambda x: x[1], default=None),
    "minutes": minutes,
}
for m in minutes:
    print(f"  minute {m['minute']:2}: {m['pages']:5} pages, p95 {m['p95_ms']:6} ms, origin served {m['origin_served']:5},"
          f" lowest effective rate {m['lowest_effective_rate']}{' (judged)' if m['judged'] else ''}")
print(json.dumps({k: v for k, v in summary.items() if k != "minutes"}))
if args.json:
    with open(args.json, "w") as out:
        json.dump(summary, out, indent=1)
