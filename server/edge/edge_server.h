#pragma once
// The public listener: Asio with C++20 coroutines, a few threads each running its own
// io_context and accepting on its own SO_REUSEPORT socket, so thousands of idle browsers cost
// only memory. This file holds the listeners, threads, accept loop and wiring; each connection is
// a VisitorConnection (edge/visitor_connection.h), which asks the thread's Gate and proxies
// through the thread's OriginPool.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analytics/collector.h"
#include "analytics/room_stats.h"
#include "model/live_status.h"
#include "edge/client_address.h"
#include "edge/config_source.h"
#include "edge/crawler.h"
#include "edge/edge_options.h"
#include "edge/tls_context.h"
#include "edge/worker.h"
#include "net/read_buffer.h"
#include "state/counters.h"
#include "util/clock.h"

namespace wr::edge {

class EdgeServer final : public model::LiveStatus, public analytics::Sampler {
public:
    EdgeServer(EdgeOptions options, ConfigSource& config, state::Counters& counters, analytics::Registry& analytics,
               const util::Clock& clock);
    ~EdgeServer() override;

    int bind();   // throws when the address cannot be bound
    void start();
    void stop();
    // Graceful stop, first half: stops accepting and waits, up to `timeout`, for the requests
    // being answered (proxied ones included) to finish; keep-alive connections are closed after
    // their current answer. False if some were still running at the timeout. Then call stop().
    bool drain(std::chrono::milliseconds timeout);
    // Reads the TLS certificate and key files again; new connections get them, connections
    // already open keep theirs, and session tickets issued before still resume. Throws (and
    // keeps the old pair) if the files do not load.
    void reload_tls();
    int port() const { return m_port; }
    bool tls() const { return !m_options.tls_certificate.empty(); }
    // The access log's file is opened again (after rotation; SIGUSR1).
    void reopen_access_log();

    // Live figures for the admin API's status endpoint.
    model::LiveFigures figures(const std::string& room_id, util::TimePoint now) const override;
    // Every room's live figures and limits, for the analytics collector.
    std::vector<analytics::RoomSample> sample(util::TimePoint now) override;

private:
    net::Task<> accept_loop(Worker& worker);
    // Serves a new connection on the worker's thread, unless the connection cap (with no idle
    // visitor to shed) refuses it.
    void start_connection(Worker& worker, net::Socket socket);
    net::Task<> serve_plain(Worker& worker, net::Socket socket);
    // --edge-h2c: a plain connection that opened with HTTP/2's preface; `input` is what was read of it.
    net::Task<> serve_h2c(Worker& worker, net::Socket& socket, queue::ClientAddress peer, const net::ReadBuffer& input);
    net::Task<> serve_tls(Worker& worker, net::Socket socket);
    std::shared_ptr<asio::ssl::context> current_tls() const;

    EdgeOptions m_options;
    TrustedProxies m_trusted_proxies;
    CrawlerVerifier m_crawlers;
    // Before the workers: it outlives their buffers, which hand it lines until they stop.
    std::unique_ptr<util::LineWriter> m_access_log;
    ConfigSource& m_config;
    state::Counters& m_counters;
    analytics::Registry& m_analytics;
    const util::Clock& m_clock;
    SessionTickets m_tickets; // before m_tls: every context (and connection) points to it
    mutable std::mutex m_tls_mutex; // guards swapping m_tls; held only to copy the pointer
    std::shared_ptr<asio::ssl::context> m_tls; // each connection holds the context it started with
    std::vector<std::unique_ptr<Worker>> m_workers;
    int m_port = 0;
    std::atomic<bool> m_running{false};
    int m_max_connections = 0;
    std::atomic<int> m_connections{0};
    std::atomic<bool> m_draining{false};
    std::atomic<int> m_in_flight{0}; // requests read and not yet answered
    EdgeShared m_shared;
};

} // namespace wr::edge
