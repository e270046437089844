// Runs the public edge: listeners, threads, the accept loop, and the wiring of each connection.
#include "edge/edge_server.h"

#include <array>
#include <random>
#include <stdexcept>
#include <sys/resource.h>

#include "edge/alpn.h"
#include "edge/h2_connection.h"
#include "edge/tls_context.h"
#include "edge/visitor_connection.h"
#include "origin/registry.h"
#include "util/address.h"
#include "util/scoped_count.h"
#include "util/log.h"

namespace wr::edge {
namespace {

// Connections taken from the backlog in one turn of a thread's event loop (accept_loop).
constexpr int k_accept_batch = 128;

using ReusePort = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

// The peer as an IPv6 address, IPv4 mapped (as on a dual-stack socket).
queue::ClientAddress peer_address(const net::Socket& socket) {
    error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    if (ec) return {};
    const auto address = endpoint.address();
    if (address.is_v6()) return address.to_v6().to_bytes();
    return asio::ip::make_address_v6(asio::ip::v4_mapped, address.to_v4()).to_bytes();
}

// Visitor connections to keep when the operator did not say: half the descriptors (each proxied
// request may hold an origin connection too), less a reserve for the store, logs and listeners.
int default_max_connections() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 100000;
    return std::max(16, (static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 1 << 30)) - 64) / 2);
}

// Four times a second, the thread hands its access log lines to the writer, so lines appear
// within moments even when few requests come.
net::Task<> flush_access_log(AccessLogBuffer& buffer) {
    net::Timer timer(co_await asio::this_coro::executor);
    while (true) {
        timer.expires_after(std::chrono::milliseconds{250});
        error_code ec;
        co_await timer.async_wait(net::awaitable(ec));
        if (ec) co_return;
        buffer.flush();
    }
}

// Once a second, the thread's origin pool closes the connections it has not used for a while.
net::Task<> close_idle_origin_connections(origin::OriginPool& pool) {
    net::Timer timer(co_await asio::this_coro::executor);
    while (true) {
        timer.expires_after(std::chrono::seconds{1});
        error_code ec;
        co_await timer.async_wait(net::awaitable(ec));
        if (ec) co_return;
        pool.close_idle(std::chrono::steady_clock::now());
    }
}

} // namespace

EdgeServer::EdgeServer(EdgeOptions options, ConfigSource& config, state::Counters& counters, analytics::Registry& analytics,
                       const util::Clock& clock)
    : m_options(std::move(options)), m_trusted_proxies(TrustedProxies::parse(m_options.trusted_proxies)),
      m_crawlers(m_options.crawler_resolver ? m_options.crawler_resolver : std::make_shared<SystemResolver>(), clock),
      m_config(config), m_counters(counters), m_analytics(analytics), m_clock(clock), m_tickets(config, clock),
      m_shared{m_options, m_trusted_proxies, m_config, m_clock, m_analytics, m_in_flight, m_draining, m_running} {
    if (!m_options.tls_certificate.empty() || !m_options.tls_private_key.empty()) {
        if (m_options.tls_certificate.empty() || m_options.tls_private_key.empty())
            throw std::runtime_error("TLS on the edge needs both --tls-cert and --tls-key");
        m_tls = load_tls_context(m_options.tls_certificate, m_options.tls_private_key, m_options.tls_ocsp, m_tickets);
        offer_alpn(m_tls->native_handle());
    }
    if (m_options.turnstile.active() && !model::parse_origin_url(m_options.turnstile.verify_url))
        throw std::runtime_error("--turnstile-verify-url: '" + m_options.turnstile.verify_url + "' is not an http(s) URL");
    m_max_connections = m_options.max_connections > 0 ? m_options.max_connections : default_max_connections();
    if (!m_options.access_log.empty()) {
        try {
            m_access_log = std::make_unique<util::LineWriter>(m_options.access_log, m_options.access_log_max_pending,
                                                              m_analytics.edge().access_log);
        } catch (const std::exception& error) {
            throw std::runtime_error(std::string("--access-log: ") + error.what());
        }
    }
    const int threads = m_options.threads > 0 ? m_options.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    // Slow heads from one address may hold an eighth of a thread's part of the connections (at
    // least two), so that one machine cannot take them all (edge/head_share.h).
    const int heads_per_address = std::max(2, m_max_connections / threads / 8);
    // A thread's pool keeps as many idle connections per origin as it has visitor connections:
    // the connections a burst opened are there for the next one, not closed and opened again
    // (unused ones close after the pool's idle time; the zone's connection cap bounds them all).
    m_options.origin.max_idle_per_origin = static_cast<size_t>(std::max(64, m_max_connections / threads));
    std::random_device seeds;
    try {
        for (int i = 0; i < threads; ++i)
            m_workers.push_back(std::make_unique<Worker>(
                m_counters, (static_cast<uint64_t>(seeds()) << 32) ^ seeds(), m_options, m_crawlers, static_cast<size_t>(i),
                heads_per_address,
                AccessLogBuffer(m_access_log.get(), m_options.access_log_format, m_options.node_name, &m_analytics.edge().access_log)));
    } catch (const boost::system::system_error& error) {
        throw std::runtime_error("--origin-ca-file: cannot load " + m_options.origin.ca_file + ": " + error.what());
    }
}

EdgeServer::~EdgeServer() { stop(); }

int EdgeServer::bind() {
    error_code ec;
    const auto address = asio::ip::make_address(m_options.host, ec);
    if (ec) throw std::runtime_error("--edge-listen: " + m_options.host + " is not an IP address");
    int port = m_options.port;
    const auto cannot_listen = [&](int on, const std::string& why) {
        return std::runtime_error("cannot listen on " + util::ListenAddress{m_options.host, on}.text() + " for the edge: " + why);
    };
    if (port != 0) {
        // SO_REUSEPORT lets any process of the same user join our listeners, and the kernel
        // would split visitors between two unrelated rooms with different cookie keys. A socket
        // without it cannot share the address with anyone: if it binds, nobody listens there
        // now. It is closed again before the threads' sockets bind.
        net::Acceptor probe(m_workers.front()->io.get_executor());
        const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
        probe.open(endpoint.protocol());
        probe.set_option(tcp::acceptor::reuse_address(true));
        probe.bind(endpoint, ec);
        if (ec == asio::error::address_in_use) throw cannot_listen(port, "another process serves it (" + ec.message() + ")");
        if (ec) throw cannot_listen(port, ec.message());
    }
    for (auto& worker : m_workers) {
        const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
        worker->acceptor.open(endpoint.protocol());
        worker->acceptor.set_option(tcp::acceptor::reuse_address(true));
        // Every thread accepts on its own socket; the kernel spreads connections between them.
        worker->acceptor.set_option(ReusePort(true));
        worker->acceptor.bind(endpoint, ec);
        if (ec) throw cannot_listen(port, ec.message());
        worker->acceptor.listen(4096);
        // For the accept loop's drain of the backlog (synchronous accepts that must not block);
        // the asynchronous accept is unaffected.
        worker->acceptor.non_blocking(true);
        port = worker->acceptor.local_endpoint().port();
    }
    m_port = port;
    return m_port;
}

void EdgeServer::start() {
    m_running = true;
    m_crawlers.start();
    if (m_access_log) m_access_log->start();
    for (auto& worker : m_workers) {
        Worker& w = *worker;
        asio::co_spawn(w.io, accept_loop(w), asio::detached);
        asio::co_spawn(w.io, w.watches.sweep_forever(), asio::detached);
        asio::co_spawn(w.io, close_idle_origin_connections(w.origins), asio::detached);
        if (w.access_log.enabled()) asio::co_spawn(w.io, flush_access_log(w.access_log), asio::detached);
        w.thread = std::thread([&w] { w.io.run(); });
    }
}

void EdgeServer::stop() {
    if (!m_running.exchange(false)) return;
    for (auto& worker : m_workers) worker->io.stop();
    for (auto& worker : m_workers)
        if (worker->thread.joinable()) worker->thread.join();
    m_crawlers.stop();
    // The threads are gone: what they gathered goes to the writer, which writes it and closes.
    for (auto& worker : m_workers) {
        worker->logging = false;
        while (!worker->access_log.empty_after_flush()) std::this_thread::yield();
    }
    if (m_access_log) m_access_log->stop();
}

void EdgeServer::reopen_access_log() {
    if (m_access_log) m_access_log->reopen();
}

bool EdgeServer::drain(std::chrono::milliseconds timeout) {
    if (!m_running) return true;
    m_draining = true;
    // Closing an acceptor on its own thread ends its accept loop; new connections are refused.
    for (auto& worker : m_workers) {
        Worker& w = *worker;
        asio::post(w.io, [&w] {
            error_code ignored;
            w.acceptor.close(ignored);
            // HTTP/2 connections are told with GOAWAY: no new streams; those in flight finish.
            for (H2Connection* connection : w.h2_connections) connection->go_away();
        });
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_in_flight.load(std::memory_order_acquire) > 0) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
    }
    return true;
}

void EdgeServer::reload_tls() {
    if (!tls()) return;
    auto context = load_tls_context(m_options.tls_certificate, m_options.tls_private_key, m_options.tls_ocsp, m_tickets);
    offer_alpn(context->native_handle());
    std::lock_guard lock(m_tls_mutex);
    m_tls = std::move(context);
}

std::shared_ptr<asio::ssl::context> EdgeServer::current_tls() const {
    std::lock_guard lock(m_tls_mutex);
    return m_tls;
}

net::Task<> EdgeServer::accept_loop(Worker& worker) {
    while (m_running) {
        error_code ec;
        net::Socket socket = co_await worker.acceptor.async_accept(net::awaitable(ec));
        if (ec) {
            if (ec == asio::error::operation_aborted) co_return;
            if (ec == asio::error::no_descriptors || ec.value() == ENFILE) {
                // Out of descriptors: free a few (closed once their reads end, on this loop), and
                // wait a moment rather than spin on accept. A few, not one: the backlog ahead of
                // a new visitor may be full of connections that will only sit idle.
                for (int shed = 0; shed < 8 && worker.watches.shed_oldest_idle(net::ConnectionWatches::Shed::at_once); ++shed) {}
                net::Timer pause(worker.io.get_executor(), std::chrono::milliseconds{10});
                co_await pause.async_wait(net::awaitable(ec));
            }
            continue; // a reset before accept, or after the pause: keep accepting
        }
        start_connection(worker, std::move(socket));
        // Then whatever else waits in the backlog, up to a bound. One accept per turn of the event
        // loop would leave a crowd that connects at once (a thousand browsers at a sale's start)
        // waiting many turns, each as long as answering every open connection once: seconds at
        // the tail. The bound keeps the open connections' turn coming. Errors (descriptors run
        // out) end the drain and are met by the asynchronous accept above.
        for (int more = 0; more < k_accept_batch && m_running; ++more) {
            net::Socket next = worker.acceptor.accept(ec);
            if (ec) break;
            start_connection(worker, std::move(next));
        }
    }
}

void EdgeServer::start_connection(Worker& worker, net::Socket socket) {
    // At the cap the oldest idle visitor makes room for the new one; with none idle, the new one waits for another time.
    if (m_connections.load() >= m_max_connections && !worker.watches.shed_oldest_idle()) return;
    error_code ec;
    socket.set_option(tcp::no_delay(true), ec);
    if (tls()) // fixed at start: a reload swaps the context, never whether there is one
        asio::co_spawn(worker.io, serve_tls(worker, std::move(socket)), asio::detached);
    else
        asio::co_spawn(worker.io, serve_plain(worker, std::move(socket)), asio::detached);
}

net::Task<> EdgeServer::serve_plain(Worker& worker, net::Socket socket) {
    const util::ScopedCount counted(m_connections);
    const queue::ClientAddress peer = peer_address(socket);
    net::ReadBuffer h2c_input;
    {
        VisitorConnection<net::Socket> connection(worker, m_shared, socket, peer, false);
        co_await connection.serve();
        if (!connection.h2c_preface()) {
            error_code ec;
            socket.shutdown(tcp::socket::shutdown_send, ec);
            if (connection.refused()) co_return; // over its address's share: its place goes at once
            // Closing on unread bytes would reset the connection and could lose the answer just
            // sent (a 413, or a 421 to a request whose body was not read): let the client see it
            // and stop, while reading and dropping a bounded amount, in a small fixed buffer.
            std::array<char, 4096> sink;
            size_t drained = 0;
            connection.watch().expire_in(std::chrono::seconds{2});
            while (!ec && drained < 1024 * 1024) drained += co_await socket.async_read_some(asio::buffer(sink), net::awaitable(ec));
            co_return;
        }
        // HTTP/2 with prior knowledge (--edge-h2c): what was read goes to it, and the HTTP/1
        // side, its deadline with it, is gone before the HTTP/2 connection begins.
        h2c_input = connection.take_input();
    }
    co_await serve_h2c(worker, socket, peer, h2c_input);
}

// In a frame of its own: plain HTTP/1.1 connections do not carry an HTTP/2 connection's buffers.
net::Task<> EdgeServer::serve_h2c(Worker& worker, net::Socket& socket, queue::ClientAddress peer, const net::ReadBuffer& input) {
    H2Connection connection(worker, m_shared, socket, peer, false);
    co_await connection.serve(socket, input.view()); // which closes its sending side itself, after the GOAWAY
}

net::Task<> EdgeServer::serve_tls(Worker& worker, net::Socket socket) {
    const util::ScopedCount counted(m_connections);
    const queue::ClientAddress peer = peer_address(socket);
    // Held for the connection's life: a certificate reload does not pull it from under us.
    const std::shared_ptr<asio::ssl::context> tls = current_tls();
    net::TlsSocket stream(std::move(socket), *tls);
    error_code ec;
    {
        // The handshake's deadline, before the protocol (and so the connection's kind) is known.
        net::ConnectionWatch handshake;
        handshake.visitor = &stream.next_layer();
        worker.watches.add(handshake);
        handshake.expire_in(std::chrono::seconds{10});
        co_await stream.async_handshake(asio::ssl::stream_base::server, net::awaitable(ec));
        worker.watches.remove(handshake);
    }
    if (ec) co_return;
    if (negotiated_alpn(stream.native_handle()) == AlpnProtocol::h2) {
        H2Connection connection(worker, m_shared, stream.next_layer(), peer, true);
        co_await connection.serve(stream); // which closes its sending side itself, after the GOAWAY
        co_return;
    }
    VisitorConnection<net::TlsSocket> connection(worker, m_shared, stream, peer, true);
    co_await connection.serve();
    if (connection.refused()) co_return;
    connection.watch().expire_in(std::chrono::seconds{5});
    co_await stream.async_shutdown(net::awaitable(ec));
}

std::vector<analytics::RoomSample> EdgeServer::sample(util::TimePoint now) {
    const Snapshot snapshot = m_config.snapshot();
    std::vector<analytics::RoomSample> samples;
    for (const auto& room : snapshot.config->rooms) {
        const queue::Policy& configured = room->phase_at(now).policy;
        const queue::Policy policy = origin::guarded(configured, room->guard.get());
        const queue::RoomFigures figures = m_counters.figures(room->id, policy, now);
        analytics::RoomSample& sample = samples.emplace_back(analytics::RoomSample{room->id, figures.active_users, figures.queued_users});
        sample.set_limits(configured.total_active_users, configured.new_users_per_minute, policy.total_active_users,
                          policy.new_users_per_minute);
    }
    return samples;
}

model::LiveFigures EdgeServer::figures(const std::string& room_id, util::TimePoint now) const {
    const Snapshot snapshot = m_config.snapshot();
    const RoomConfig* room = snapshot.config->find_room_by_id(room_id);
    if (!room) return {};
    // The limits in force: the phase's, lowered while the origin guard holds the room back.
    const queue::Policy policy = origin::guarded(room->phase_at(now).policy, room->guard.get());
    const queue::RoomFigures figures = m_counters.figures(room_id, policy, now);
    return model::LiveFigures{figures.queued_users,         figures.active_users,         figures.max_estimated_minutes,
                              policy.total_active_users,     policy.new_users_per_minute,  figures.admitted_last_minute,
                              figures.browsing_users};
}

} // namespace wr::edge
