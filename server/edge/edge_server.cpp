// Serves the public edge: accepts connections, reads requests, asks the Gate, answers or proxies.
#include "edge/edge_server.h"

#include <array>
#include <boost/asio/socket_base.hpp>
#include <list>
#include <sys/resource.h>
#include <stdexcept>

#include "analytics/prometheus.h"
#include "edge/gate.h"
#include "edge/incoming_request.h"
#include "edge/page_response.h"
#include "edge/request_path.h"
#include "util/log.h"

namespace wr::edge {
namespace {

using ReusePort = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

// Headers wr itself relies on end to end: a Connection header naming them does not remove them.
bool end_to_end(std::string_view name) {
    for (const std::string_view kept : {"host", "content-length", "content-type", "x-forwarded-for", "x-forwarded-proto",
                                        "x-forwarded-host", "set-cookie", "cf-waiting-room-command"})
        if (beast::iequals(name, kept)) return true;
    return false;
}

// Hop-by-hop headers (RFC 9110 §7.6.1) are between one client and one server: never forwarded.
void strip_hop_by_hop(http::fields& fields) {
    // Headers named in Connection are hop-by-hop too.
    const std::string connection{fields[http::field::connection]};
    size_t start = 0;
    while (start < connection.size()) {
        const size_t comma = connection.find(',', start);
        std::string name = connection.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        while (!name.empty() && name.front() == ' ') name.erase(name.begin());
        while (!name.empty() && name.back() == ' ') name.pop_back();
        if (!name.empty() && name != "close" && name != "keep-alive" && !end_to_end(name)) fields.erase(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    for (const http::field field : {http::field::connection, http::field::keep_alive, http::field::proxy_connection,
                                    http::field::te, http::field::trailer, http::field::transfer_encoding,
                                    http::field::upgrade, http::field::proxy_authorization, http::field::proxy_authenticate})
        fields.erase(field);
}

std::string error_page(int status, std::string_view title, std::string_view text) {
    return "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, "
           "initial-scale=1\"><title>" + std::to_string(status) + " " + std::string(title) + "</title><style>body{font:16px/1.5 "
           "system-ui,sans-serif;display:grid;min-height:90vh;place-items:center;text-align:center}</style><main><h1>" +
           std::string(title) + "</h1><p>" + std::string(text) + "</p></main></html>\n";
}

// The peer as an IPv6 address, IPv4 mapped (as on a dual-stack socket).
queue::ClientAddress peer_address(const tcp::socket& socket) {
    boost::system::error_code ec;
    const auto endpoint = socket.remote_endpoint(ec);
    if (ec) return {};
    const auto address = endpoint.address();
    if (address.is_v6()) return address.to_v6().to_bytes();
    return asio::ip::make_address_v6(asio::ip::v4_mapped, address.to_v4()).to_bytes();
}

std::shared_ptr<asio::ssl::context> load_tls_context(const std::string& certificate, const std::string& private_key) {
    auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
    context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 | asio::ssl::context::no_sslv3 |
                         asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    try {
        context->use_certificate_chain_file(certificate);
        context->use_private_key_file(private_key, asio::ssl::context::pem);
    } catch (const std::exception& error) {
        throw std::runtime_error("cannot load the edge TLS certificate or key: " + std::string(error.what()));
    }
    return context;
}

// Counts a request from the moment it is read until its answer is written (or the connection
// ends), so that a drain knows when nothing is left half-answered.
class InFlight {
public:
    explicit InFlight(std::atomic<int>& count) : m_count(count) { m_count.fetch_add(1, std::memory_order_acq_rel); }
    ~InFlight() { m_count.fetch_sub(1, std::memory_order_acq_rel); }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

private:
    std::atomic<int>& m_count;
};

std::string_view view_of(beast::string_view text) { return {text.data(), text.size()}; }

// The edge's 413, after which the connection closes (the rest of the request is never read).
template <typename Stream>
asio::awaitable<void> write_too_large(Stream& stream, std::string& page) {
    write_page_response(page, 11, PageHead{.status = 413, .content_type = "text/html; charset=utf-8"},
                        error_page(413, "Request too large", "The request is larger than this site accepts."), false, false);
    boost::system::error_code ec;
    co_await asio::async_write(stream, asio::buffer(page), awaitable(ec));
}

// A connection waiting for its next request, which may be closed to make room for a new one.
struct IdleConnection {
    tcp::socket* socket;
    bool listed = true;
};

// Visitor connections to keep when the operator did not say: half the descriptors (each proxied
// request may hold an origin connection too), less a reserve for the store, logs and listeners.
int default_max_connections() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 100000;
    return std::max(16, (static_cast<int>(std::min<rlim_t>(limit.rlim_cur, 1 << 30)) - 64) / 2);
}

} // namespace

struct EdgeServer::Worker {
    asio::io_context io{1};
    // This thread's idle keep-alive connections, oldest first.
    std::list<IdleConnection*> idle;

    // Closes the oldest idle connection; false when none is idle.
    bool shed_oldest_idle() {
        if (idle.empty()) return false;
        IdleConnection* oldest = idle.front();
        idle.pop_front();
        oldest->listed = false;
        boost::system::error_code ignored;
        oldest->socket->cancel(ignored);
        oldest->socket->shutdown(tcp::socket::shutdown_both, ignored);
        return true;
    }

    tcp::acceptor acceptor{io};
    Gate gate;
    OriginPool origins;
    Snapshot snapshot;
    std::thread thread;

    TurnstileClient turnstile;

    Worker(state::Counters& counters, uint64_t seed, const EdgeOptions& options, CrawlerVerifier& crawlers)
        : gate(counters, seed, GateServices{&options.turnstile, &crawlers}), origins(io, options.origin),
          turnstile(io, options.turnstile) {}

    // This thread's copy of the configuration, refreshed when a new one was published.
    Snapshot current(const ConfigSource& source) {
        if (source.version() != snapshot.version) snapshot = source.snapshot();
        return snapshot;
    }
};

EdgeServer::EdgeServer(EdgeOptions options, ConfigSource& config, state::Counters& counters, analytics::Registry& analytics,
                       const util::Clock& clock)
    : m_options(std::move(options)), m_trusted_proxies(TrustedProxies::parse(m_options.trusted_proxies)),
      m_crawlers(m_options.crawler_resolver ? m_options.crawler_resolver : std::make_shared<SystemResolver>(), clock),
      m_config(config), m_counters(counters), m_analytics(analytics),
      m_clock(clock) {
    if (!m_options.tls_certificate.empty() || !m_options.tls_private_key.empty()) {
        if (m_options.tls_certificate.empty() || m_options.tls_private_key.empty())
            throw std::runtime_error("TLS on the edge needs both --tls-cert and --tls-key");
        m_tls = load_tls_context(m_options.tls_certificate, m_options.tls_private_key);
    }
    if (m_options.turnstile.active() && !model::parse_origin_url(m_options.turnstile.verify_url))
        throw std::runtime_error("--turnstile-verify-url: '" + m_options.turnstile.verify_url + "' is not an http(s) URL");
    m_max_connections = m_options.max_connections > 0 ? m_options.max_connections : default_max_connections();
    const int threads = m_options.threads > 0 ? m_options.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    std::random_device seeds;
    for (int i = 0; i < threads; ++i)
        m_workers.push_back(std::make_unique<Worker>(m_counters, (static_cast<uint64_t>(seeds()) << 32) ^ seeds(), m_options, m_crawlers));
}

EdgeServer::~EdgeServer() { stop(); }

int EdgeServer::bind() {
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(m_options.host, ec);
    if (ec) throw std::runtime_error("--edge-listen: " + m_options.host + " is not an IP address");
    int port = m_options.port;
    for (auto& worker : m_workers) {
        const tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
        worker->acceptor.open(endpoint.protocol());
        worker->acceptor.set_option(tcp::acceptor::reuse_address(true));
        // Every thread accepts on its own socket; the kernel spreads connections between them.
        worker->acceptor.set_option(ReusePort(true));
        worker->acceptor.bind(endpoint, ec);
        if (ec)
            throw std::runtime_error("cannot listen on " + m_options.host + ":" + std::to_string(port) + " for the edge: " + ec.message());
        worker->acceptor.listen(4096);
        port = worker->acceptor.local_endpoint().port();
    }
    m_port = port;
    return m_port;
}

void EdgeServer::start() {
    m_running = true;
    m_crawlers.start();
    for (auto& worker : m_workers) {
        Worker& w = *worker;
        asio::co_spawn(w.io, accept_loop(w), asio::detached);
        w.thread = std::thread([&w] { w.io.run(); });
    }
}

void EdgeServer::stop() {
    if (!m_running.exchange(false)) return;
    for (auto& worker : m_workers) worker->io.stop();
    for (auto& worker : m_workers)
        if (worker->thread.joinable()) worker->thread.join();
    m_crawlers.stop();
}

bool EdgeServer::drain(std::chrono::milliseconds timeout) {
    if (!m_running) return true;
    m_draining = true;
    // Closing an acceptor on its own thread ends its accept loop; new connections are refused.
    for (auto& worker : m_workers) {
        Worker& w = *worker;
        asio::post(w.io, [&w] {
            boost::system::error_code ignored;
            w.acceptor.close(ignored);
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
    auto context = load_tls_context(m_options.tls_certificate, m_options.tls_private_key);
    std::lock_guard lock(m_tls_mutex);
    m_tls = std::move(context);
}

std::shared_ptr<asio::ssl::context> EdgeServer::current_tls() const {
    std::lock_guard lock(m_tls_mutex);
    return m_tls;
}

asio::awaitable<void> EdgeServer::accept_loop(Worker& worker) {
    while (m_running) {
        boost::system::error_code ec;
        tcp::socket socket = co_await worker.acceptor.async_accept(awaitable(ec));
        if (ec) {
            if (ec == asio::error::operation_aborted) co_return;
            if (ec == asio::error::no_descriptors || ec.value() == ENFILE) {
                // Out of descriptors: free a few (closed once their reads end, on this loop), and
                // wait a moment rather than spin on accept. A few, not one: the backlog ahead of
                // a new visitor may be full of connections that will only sit idle.
                for (int shed = 0; shed < 8 && worker.shed_oldest_idle(); ++shed) {}
                asio::steady_timer pause(worker.io, std::chrono::milliseconds{10});
                co_await pause.async_wait(awaitable(ec));
            }
            continue; // a reset before accept, or after the pause: keep accepting
        }
        // At the cap the oldest idle visitor makes room for the new one; with none idle, the new one waits for another time.
        if (m_connections.load() >= m_max_connections && !worker.shed_oldest_idle()) continue;
        socket.set_option(tcp::no_delay(true), ec);
        if (tls()) // fixed at start: a reload swaps the context, never whether there is one
            asio::co_spawn(worker.io, serve_tls(worker, std::move(socket)), asio::detached);
        else
            asio::co_spawn(worker.io, serve_plain(worker, std::move(socket)), asio::detached);
    }
}

asio::awaitable<void> EdgeServer::serve_plain(Worker& worker, tcp::socket socket) {
    ++m_connections;
    struct Counted {
        std::atomic<int>& count;
        ~Counted() { --count; }
    } counted{m_connections};
    const queue::ClientAddress peer = peer_address(socket);
    beast::tcp_stream stream(std::move(socket));
    co_await serve(worker, stream, peer, false);
    boost::system::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    // Closing on unread bytes would reset the connection and could lose the answer just sent (a
    // 413, or a 421 to a request whose body was not read): let the client see it and stop, while
    // reading and dropping a bounded amount, in a small fixed buffer.
    std::array<char, 4096> sink;
    size_t drained = 0;
    stream.expires_after(std::chrono::seconds{2});
    while (!ec && drained < 1024 * 1024) drained += co_await stream.async_read_some(asio::buffer(sink), awaitable(ec));
}

asio::awaitable<void> EdgeServer::serve_tls(Worker& worker, tcp::socket socket) {
    ++m_connections;
    struct Counted {
        std::atomic<int>& count;
        ~Counted() { --count; }
    } counted{m_connections};
    const queue::ClientAddress peer = peer_address(socket);
    // Held for the connection's life: a certificate reload does not pull it from under us.
    const std::shared_ptr<asio::ssl::context> tls = current_tls();
    beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *tls);
    boost::system::error_code ec;
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds{10});
    co_await stream.async_handshake(asio::ssl::stream_base::server, awaitable(ec));
    if (ec) co_return;
    co_await serve(worker, stream, peer, true);
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds{5});
    co_await stream.async_shutdown(awaitable(ec));
}

template <typename Stream>
asio::awaitable<void> EdgeServer::serve(Worker& worker, Stream& stream, queue::ClientAddress peer, bool https) {
    const std::string peer_text = address_text(peer);
    beast::flat_buffer buffer;
    std::string page; // wr's own answers are formatted here; the capacity stays for the next request
    while (m_running) {
        boost::system::error_code ec;
        http::request_parser<http::string_body> parser;
        parser.header_limit(16 * 1024);
        parser.body_limit(m_options.max_request_body);
        beast::get_lowest_layer(stream).expires_after(m_options.idle_timeout);
        // Only the header first: nothing is decided by the body, and a body that will not reach the
        // origin (421, 413, 429, the queue) is never read into memory.
        // Between requests with nothing buffered the connection is idle: the first to go when
        // descriptors run short or the connection cap is reached.
        IdleConnection idle{&beast::get_lowest_layer(stream).socket(), buffer.size() == 0};
        std::list<IdleConnection*>::iterator listed;
        if (idle.listed) listed = worker.idle.insert(worker.idle.end(), &idle);
        co_await http::async_read_header(stream, buffer, parser, awaitable(ec));
        if (idle.listed) worker.idle.erase(listed);
        if (ec == http::error::body_limit || ec == http::error::header_limit) {
            co_await write_too_large(stream, page);
            co_return;
        }
        if (ec) co_return; // closed, idle too long, or not HTTP

        const InFlight in_flight(m_in_flight);
        // The header as it arrived; chunked trailers read with the body are never merged into it.
        http::request_header<> head = parser.get().base();
        const bool body_pending = !parser.is_done();
        // While draining, every answer closes its connection.
        bool keep_alive = parser.get().keep_alive() && !m_draining.load(std::memory_order_acquire);
        const unsigned version = head.version();
        const bool head_method = head.method() == http::verb::head;
        // Hold this snapshot for the whole request: the room and zone below point into it.
        const Snapshot snapshot = worker.current(m_config);
        const util::TimePoint now = m_clock.now();
        const std::string host{head[http::field::host]};
        const std::string cookies = all_cookies(head);
        const IncomingRequest incoming = describe_request(head, cookies, peer, https, m_trusted_proxies);

        GateResult result;
        try {
            const auto decision_start = std::chrono::steady_clock::now();
            result = worker.gate.handle(snapshot, incoming, now);
            m_analytics.decision_time().observe(std::chrono::steady_clock::now() - decision_start);
            if (result.action == GateResult::Action::verify_turnstile) {
                // The only decision that waits for the network; other requests on this thread go on meanwhile.
                const TokenInTarget token = std::move(*result.turnstile);
                const bool passed = co_await worker.turnstile.verify(token.token, address_text(incoming.client));
                result = worker.gate.answer_turnstile(snapshot, incoming, token, passed, m_clock.now());
            }
        } catch (const std::exception& error) {
            // The data plane does not throw by design; if something does, fail closed for this
            // request and keep serving.
            util::log_error("edge", std::string("deciding a request failed: ") + error.what());
            result = GateResult{};
            result.status = 500;
            result.body = error_page(500, "Something went wrong", "Please try again in a moment.");
        }

        if (result.action == GateResult::Action::proxy && body_pending) {
            co_await http::async_read(stream, buffer, parser, awaitable(ec));
            if (ec == http::error::body_limit) {
                co_await write_too_large(stream, page);
                co_return;
            }
            if (ec) co_return;
        }

        if (result.action == GateResult::Action::proxy) {
            Request request(std::move(head), std::move(parser.get().body()));
            // Rewrite for the origin: hop-by-hop headers out, the room's cookie out, forwarding headers in.
            strip_hop_by_hop(request);
            request.erase(http::field::expect);
            request.erase(http::field::cookie);
            const std::string kept_cookies = result.room ? remove_cookie(cookies, result.room->cookie_name) : cookies;
            if (!kept_cookies.empty()) request.set(http::field::cookie, kept_cookies);
            const std::string forwarded = forwarded_for(request);
            request.set("X-Forwarded-For", forwarded.empty() ? peer_text : forwarded + ", " + peer_text);
            request.set("X-Forwarded-Proto", https ? "https" : "http");
            request.set("X-Forwarded-Host", host);
            // A Turnstile token that was not needed (the visitor got in meanwhile) is not the origin's business.
            std::string without_token;
            if (result.room && view_of(request.target()).find(k_turnstile_parameter) != std::string_view::npos)
                if (auto token = take_turnstile_token(view_of(request.target()))) without_token = std::move(token->target_without);
            const SplitTarget target = split_target(without_token.empty() ? view_of(request.target()) : std::string_view(without_token));
            std::string origin_target = result.zone->origin.path_prefix;
            origin_target += target.path;
            if (!target.query.empty()) {
                origin_target += '?';
                origin_target += target.query;
            }
            request.target(origin_target);
            request.version(11);
            request.keep_alive(true);
            if (!request.body().empty() || request.method() == http::verb::post || request.method() == http::verb::put ||
                request.method() == http::verb::patch)
                request.prepare_payload();

            const auto origin_start = std::chrono::steady_clock::now();
            OriginReply reply = co_await worker.origins.exchange(result.zone->origin, request);
            if (result.room)
                result.room->stats->record_origin_time(now, std::chrono::duration_cast<util::Milliseconds>(
                                                                std::chrono::steady_clock::now() - origin_start));
            if (reply.error == OriginError::none) {
                Response& response = reply.response;
                response.version(version);
                strip_hop_by_hop(response);
                const std::string command{response["Cf-Waiting-Room-Command"]};
                response.erase("Cf-Waiting-Room-Command"); // never shown to visitors
                std::string set_cookie = result.set_cookie;
                if (result.room && result.room->settings.revoke_origin_command && command.find("revoke") != std::string::npos)
                    set_cookie = worker.gate.revoke(result, m_clock.now());
                if (!set_cookie.empty()) response.insert(http::field::set_cookie, set_cookie);
                // HEAD answers keep the origin's Content-Length; everything else is re-framed.
                if (!head_method) response.prepare_payload();
                response.keep_alive(keep_alive);
                beast::get_lowest_layer(stream).expires_after(std::chrono::seconds{60});
                co_await http::async_write(stream, response, awaitable(ec));
                if (ec || !keep_alive) co_return;
                continue;
            }
            // The origin failed: wr answers with its own page instead (and no renewed cookie).
            const bool slow = reply.error == OriginError::timeout;
            result = GateResult{};
            result.status = slow ? 504 : 502;
            result.body = slow ? error_page(504, "The site is taking too long", "It did not answer in time. Please try again in a moment.")
                               : error_page(502, "The site cannot be reached", "Please try again in a moment.");
        }

        // wr's own answer: the queue, reject, 429, 303 or error page. A body still on its way is
        // not read: the connection closes after the answer.
        if (body_pending && result.action != GateResult::Action::proxy) keep_alive = false;
        write_page_response(page, version,
                            PageHead{.status = result.status, .content_type = result.content_type,
                                     .refresh_seconds = result.refresh_seconds, .retry_after_seconds = result.retry_after_seconds,
                                     .location = result.location, .set_cookie = result.set_cookie},
                            result.body, keep_alive, head_method);
        beast::get_lowest_layer(stream).expires_after(std::chrono::seconds{60});
        co_await asio::async_write(stream, asio::buffer(page), awaitable(ec));
        if (ec || !keep_alive) co_return;
    }
}

std::vector<analytics::RoomSample> EdgeServer::sample(util::TimePoint now) {
    const Snapshot snapshot = m_config.snapshot();
    std::vector<analytics::RoomSample> samples;
    for (const auto& room : snapshot.config->rooms) {
        const queue::Policy& policy = room->phase_at(now).policy;
        const queue::RoomFigures figures = m_counters.figures(room->id, policy, now);
        samples.push_back({room->id, figures.active_users, figures.queued_users, policy.total_active_users,
                           policy.new_users_per_minute});
    }
    return samples;
}

control::LiveFigures EdgeServer::figures(const std::string& room_id, util::TimePoint now) const {
    const Snapshot snapshot = m_config.snapshot();
    const RoomConfig* room = snapshot.config->find_room_by_id(room_id);
    if (!room) return {};
    const queue::Policy& policy = room->phase_at(now).policy;
    const queue::RoomFigures figures = m_counters.figures(room_id, policy, now);
    return control::LiveFigures{figures.queued_users, figures.active_users, figures.max_estimated_minutes,
                                policy.total_active_users, policy.new_users_per_minute};
}

} // namespace wr::edge
