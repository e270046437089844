#pragma once
// An edge thread: its own io_context, listening socket, Gate, origin pool, Turnstile client and
// connection sweeper, and what it reads of the server (options, configuration, clock, analytics,
// the in-flight count a drain waits for). Everything in a Worker is touched by its thread only.
#include <atomic>
#include <thread>
#include <unordered_set>

#include "analytics/room_stats.h"
#include "edge/access_log.h"
#include "edge/request_id.h"
#include "net/asio.h"
#include "edge/client_address.h"
#include "edge/config_source.h"
#include "net/connection_watch.h"
#include "edge/edge_options.h"
#include "edge/gate.h"
#include "edge/h2_memory.h"
#include "edge/head_share.h"
#include "origin/origin_pool.h"
#include "edge/turnstile_client.h"
#include "util/clock.h"

namespace wr::edge {

// What every edge thread reads of the server; owned by EdgeServer.
struct EdgeShared {
    const EdgeOptions& options;
    const TrustedProxies& trusted_proxies;
    ConfigSource& config;
    const util::Clock& clock;
    analytics::Registry& analytics;
    std::atomic<int>& in_flight;  // requests read and not yet answered (streams and tunnels included)
    std::atomic<bool>& draining;  // every answer closes its connection
    std::atomic<bool>& running;
};

class H2Connection;

struct Worker {
    Worker(state::Counters& counters, uint64_t seed, const EdgeOptions& options, CrawlerVerifier& crawlers, size_t index,
           int heads_per_address, AccessLogBuffer log)
        : access_log(std::move(log)), request_ids(seed ^ 0x5bd1e9955bd1e995ULL), acceptor(io.get_executor()),
          gate(counters, seed, GateServices{&options.turnstile, &crawlers}), origins(io, options.origin, index),
          turnstile(io, options.turnstile), heads(heads_per_address) {}

    // First, so that it outlives the io_context: connections still suspended when the io_context
    // is destroyed unlink their watches from it as their frames go.
    net::ConnectionWatches watches;
    // This thread's HTTP/2 connections, told to go away when a drain begins (before the
    // io_context too: connections leave it as their frames go).
    std::unordered_set<H2Connection*> h2_connections;
    // This thread's access log lines (before the io_context too, for the same reason), and
    // whether requests still write lines: not once the server has stopped.
    AccessLogBuffer access_log;
    bool logging = true;
    RequestIdSource request_ids;
    // nghttp2's memory for this thread's HTTP/2 sessions (before the io_context too: sessions
    // still open when it is destroyed free their memory into it).
    H2Memory h2_memory;
    asio::io_context io{1};
    net::Acceptor acceptor;
    Gate gate;
    origin::OriginPool origins;
    TurnstileClient turnstile;
    HeadShare heads; // each client address's share of this thread's connections reading a head
    Snapshot snapshot;
    std::thread thread;

    // This thread's copy of the configuration, refreshed when a new one was published. A request
    // holds its own copy: the room and zone it was routed to point into it.
    Snapshot current(const ConfigSource& source) {
        if (source.version() != snapshot.version) snapshot = source.snapshot();
        return snapshot;
    }
};

} // namespace wr::edge
