#!/usr/bin/env python3
"""make soak: wr serve under mixed traffic for SOAK_SECONDS (default 600) at 1,000 connections.

New visitors, waiting browsers (admission is limited, so many queue), admitted browsing,
revocations by the origin, a configuration change every few seconds and one cookie-key rotation.
Reports the 5xx count, wr's RSS and open descriptors at the start and the end, and the room's
analytics totals against the requests the driver sent. Exits 1 if a check fails.
Usage: bench/soak.py BUILD_DIR"""
import asyncio, json, os, random, re, signal, subprocess, sys, tempfile, threading, time, urllib.request

build = sys.argv[1] if len(sys.argv) > 1 else "build"
seconds = int(os.environ.get("SOAK_SECONDS", "600"))
connections = int(os.environ.get("SOAK_CONNECTIONS", "1000"))
data = tempfile.mkdtemp(prefix="wr-soak-")

origin = subprocess.Popen([f"{build}/wr-demo-origin", "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
origin_port = int(origin.stdout.readline().rsplit(":", 1)[1])
wr = subprocess.Popen([f"{build}/wr", "serve", "--data-dir", data, "--admin-listen", "127.0.0.1:0", "--edge-listen",
                       "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
ports = {}
while len(ports) < 2:
    line = wr.stderr.readline()
    if not line:
        sys.exit("wr serve did not start")
    m = re.search(r"(edge|admin): .*listening on https?://127\.0\.0\.1:(\d+)", line)
    if m:
        ports[m.group(1)] = int(m.group(2))
# Keep reading its log, so that a full pipe never blocks it; warnings and errors are shown.
threading.Thread(target=lambda: [sys.stderr.write(l) for l in wr.stderr if " warn " in l or " error " in l], daemon=True).start()
token = open(f"{data}/admin.token").read().strip()
admin = f"http://127.0.0.1:{ports['admin']}/client/v4"


def api(method, path, body=None):
    request = urllib.request.Request(admin + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


api("POST", "/zones", {"name": "example.com", "origin": f"http://127.0.0.1:{origin_port}"})
api("POST", "/zones/example.com/waiting_rooms", {"name": "shop", "host": "shop.example.com", "total_active_users": 300,
    "new_users_per_minute": 300, "session_duration": 1, "enabled_origin_commands": ["revoke"]})
time.sleep(1)


def usage():
    rss = int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{wr.pid}/status").read()).group(1))
    return rss, len(os.listdir(f"/proc/{wr.pid}/fd"))


sent = 0
statuses = {}
errors = 0


async def visitor(deadline):
    global sent, errors
    cookie = ""
    reader = writer = None
    while time.monotonic() < deadline:
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection("127.0.0.1", ports["edge"])
            if random.random() < 0.02:
                cookie = ""  # a new visitor on this connection
            path = "/revoke" if random.random() < 0.01 else random.choice(["/", "/echo/products", "/echo/cart"])
            writer.write(f"GET {path} HTTP/1.1\r\nHost: shop.example.com\r\nCookie: {cookie}\r\n\r\n".encode())
            sent += 1
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            statuses[status] = statuses.get(status, 0) + 1
            length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))
            await reader.readexactly(length)
            m = re.search(rb"(?i)set-cookie: (__cfwaitingroom=[^;]*)", head)
            if m:
                cookie = m.group(1).decode()
            # Queued browsers refresh every few seconds; admitted ones browse a bit faster. Each stops
            # at the deadline, so all connections are closed when the figures are taken.
            pause = random.uniform(1, 6) if status == 200 else random.uniform(3, 10)
            await asyncio.sleep(max(0.0, min(pause, deadline - time.monotonic())))
        except (OSError, asyncio.IncompleteReadError, ValueError, AttributeError):
            errors += 1
            writer = None
            await asyncio.sleep(1)
    if writer:
        writer.close()


async def operator(deadline, rotate=True):
    limits = [300, 400, 500]
    n = 0
    rotated = not rotate
    while time.monotonic() < deadline:
        await asyncio.sleep(5)
        n += 1
        await asyncio.to_thread(api, "PATCH", "/zones/example.com/waiting_rooms/shop", {"total_active_users": limits[n % 3]})
        if not rotated and time.monotonic() > deadline - seconds / 2:
            await asyncio.to_thread(subprocess.run, [f"{build}/wr", "keys", "rotate", "--data-dir", data], check=True,
                                    stdout=subprocess.DEVNULL)
            rotated = True


def counted_requests():
    series = api("GET", f"/zones/example.com/waiting_rooms/shop/analytics?step=1m&since={since}")["result"]["series"]
    return sum(p.get(k, 0) or 0 for p in series for k in ("requestsAdmitted", "requestsQueued", "requestsRejected",
                                                               "requestsBypassed", "requestsPassthrough"))


since = time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime())


# Descriptors are counted with the driver's connections closed and after the edge has closed its
# idle origin connections (unused for 30 s), so that what remains open is what wr keeps for itself.
settle_seconds = 35


async def timeline(deadline):
    """wr's RSS and descriptors through the run. RSS is compared under the same load (1,000 open
    connections) 10 s after the start and 10 s before the end: at rest, how much freed memory the
    allocator has handed back to the system varies by several MB and says nothing of a leak."""
    began = time.monotonic()

    def sample():
        rss, fds = usage()
        print(f"  {time.monotonic() - began:4.0f} s: RSS {rss} kB, {fds} descriptors, {sent} requests", flush=True)
        return rss

    await asyncio.sleep(10)
    first = sample()
    while time.monotonic() + 70 < deadline:
        await asyncio.sleep(60)
        sample()
    await asyncio.sleep(max(0.0, deadline - 10 - time.monotonic()))
    return first, sample()


async def main():
    global sent, statuses
    # Warm-up for a minute with the same traffic and configuration changes (the admin API's threads
    # and their allocator arenas included), so the figures are those of a server that has seen the load.
    warm = time.monotonic() + 60
    await asyncio.gather(operator(warm, rotate=False), *(visitor(warm) for _ in range(connections)))
    await asyncio.sleep(settle_seconds)  # the collector also writes what it counted meanwhile
    start_fds = usage()[1]
    baseline = await asyncio.to_thread(counted_requests)
    sent, statuses = 0, {}
    deadline = time.monotonic() + seconds
    _, rss, *_ = await asyncio.gather(operator(deadline), timeline(deadline), *(visitor(deadline) for _ in range(connections)))
    await asyncio.sleep(settle_seconds)
    end_fds = usage()[1]
    counted = await asyncio.to_thread(counted_requests) - baseline
    return rss, (start_fds, end_fds), counted


(rss_start, rss_end), (fds_start, fds_end), counted = asyncio.run(main())
wr.send_signal(signal.SIGTERM)
exit_code = wr.wait(timeout=30)
origin.terminate()
five = sum(n for s, n in statuses.items() if s >= 500)
print(f"soak: {seconds} s, {connections} connections, {sent} requests sent, statuses {dict(sorted(statuses.items()))}, "
      f"client errors {errors}")
print(f"5xx: {five}")
print(f"RSS under load: {rss_start} kB at the start, {rss_end} kB at the end ({rss_end / rss_start:.3f}x)")
print(f"open descriptors: {fds_start} at start, {fds_end} at end (both {settle_seconds} s after the driver's connections closed)")
print(f"analytics: {counted} requests counted during the run; the driver sent {sent}")
print(f"wr serve exit code after SIGTERM: {exit_code}")
ok = five == 0 and rss_end <= 1.1 * rss_start and fds_end == fds_start and counted == sent and exit_code == 0
sys.exit(0 if ok else 1)
