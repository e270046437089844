// Serves the admin API with Asio and Beast. One event-loop thread accepts and holds every
// connection and reads each request — head and body, under the deadlines of AdminConnections and
// within the memory of BodyBudget — then hands it to a handler thread as an api::Request and
// writes the Reply it gets back. Handlers block (SQLite), so they never run on the event loop,
// and three pools keep one kind of work from waiting behind another: /healthz (a load balancer's
// check) has a thread of its own, bodies over 64 KiB take turns on one thread (one large document
// is parsed at a time), and everything else shares the --admin-threads.
#include "api/admin_server.h"

#include "net/asio.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <mutex>
#include <optional>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdexcept>
#include <sys/resource.h>
#include <thread>
#include <type_traits>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "api/admin_connections.h"
#include "api/admin_http.h"
#include "api/body_budget.h"
#include "api/envelope.h"
#include "api/handler_pool.h"
#include "api/routes.h"
#include "control/error.h"
#include "util/log.h"

namespace wr::api {

namespace http = boost::beast::http;
using Phase = AdminConnections::Phase;

// The certificate chain and key; each handshake takes the pair current when it starts.
struct AdminServer::TlsIdentity {
    X509* certificate = nullptr;
    STACK_OF(X509)* chain = nullptr;
    EVP_PKEY* key = nullptr;

    ~TlsIdentity() {
        X509_free(certificate);
        sk_X509_pop_free(chain, X509_free);
        EVP_PKEY_free(key);
    }
};

namespace {

constexpr size_t k_max_head_bytes = 16 * 1024;
// Bodies above this size are answered one at a time, on a thread of their own.
constexpr size_t k_large_body_bytes = 64 * 1024;
// Bytes a request body may reserve together: two bodies of the default 4 MiB limit.
constexpr size_t k_min_body_budget = 8 * 1024 * 1024;
// How long a request waits for the body budget before it is answered 503.
constexpr std::chrono::seconds k_budget_patience{30};
constexpr size_t k_idle_read_bytes = 1024;
constexpr std::chrono::milliseconds k_sweep_interval{100};
// After a refusal: how long, and how much of what the client still sends, is read and dropped
// so that the answer is not lost to a reset.
constexpr std::chrono::seconds k_linger_time{2};
constexpr size_t k_linger_bytes = 8 * 1024 * 1024;
constexpr int k_default_max_connections = 2048;

std::string openssl_error() {
    const unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "no details";
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    return text;
}

std::shared_ptr<const AdminServer::TlsIdentity> load_identity(const std::string& certificate_file, const std::string& key_file) {
    auto identity = std::make_shared<AdminServer::TlsIdentity>();
    BIO* certificates = BIO_new_file(certificate_file.c_str(), "r");
    if (!certificates) throw std::runtime_error("--admin-tls-cert: cannot read " + certificate_file);
    identity->certificate = PEM_read_bio_X509(certificates, nullptr, nullptr, nullptr);
    identity->chain = sk_X509_new_null();
    while (X509* next = PEM_read_bio_X509(certificates, nullptr, nullptr, nullptr)) sk_X509_push(identity->chain, next);
    ERR_clear_error(); // the end of the file reads as an error
    BIO_free(certificates);
    if (!identity->certificate) throw std::runtime_error("--admin-tls-cert: " + certificate_file + " holds no PEM certificate");
    BIO* key = BIO_new_file(key_file.c_str(), "r");
    if (!key) throw std::runtime_error("--admin-tls-key: cannot read " + key_file);
    identity->key = PEM_read_bio_PrivateKey(key, nullptr, nullptr, nullptr);
    BIO_free(key);
    if (!identity->key) throw std::runtime_error("--admin-tls-key: " + key_file + " holds no PEM private key (" + openssl_error() + ")");
    if (X509_check_private_key(identity->certificate, identity->key) != 1)
        throw std::runtime_error("--admin-tls-key: " + key_file + " is not the key of the certificate in " + certificate_file);
    return identity;
}

// A quarter of the descriptors, at most 2,048: the edge takes half of them.
int default_max_connections() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return k_default_max_connections;
    return static_cast<int>(std::clamp<rlim_t>(limit.rlim_cur / 4, 64, k_default_max_connections));
}

Reply refusal(control::ErrorCode code, int status, std::string message) {
    return error_reply(control::Error::of(code, status, std::move(message)));
}

// Runs the handler for one request, on a handler thread; never throws.
Reply answer(const AdminServer::Handler& handler, Request& request) {
    const auto started = std::chrono::steady_clock::now();
    Reply reply;
    try {
        reply = handler(request);
        if (!reply.raw_body) reply.raw_body = success_envelope(reply.result, reply.result_info).dump();
    } catch (const std::exception& error) {
        util::log_error("admin", request.method + " " + redact_capabilities(request.path) + " failed: " + error.what());
        reply = refusal(control::ErrorCode::internal, 500, "internal error; the server log has details");
    } catch (...) {
        util::log_error("admin", request.method + " " + redact_capabilities(request.path) + " failed");
        reply = refusal(control::ErrorCode::internal, 500, "internal error; the server log has details");
    }
    const util::LogLevel level = reply.quiet ? util::LogLevel::debug : util::LogLevel::info;
    if (util::log_enabled(level)) {
        const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
        // The path only, with capabilities in it redacted: never headers (tokens) or bodies.
        util::log(level, "admin",
                  request.method + " " + redact_capabilities(request.path) + " " + std::to_string(reply.status) + " " +
                      std::to_string(elapsed.count() / 1000.0).substr(0, 6) + "ms");
    }
    return reply;
}

// One request on its way to a handler thread and its reply on the way back. The event loop waits
// on `done`, which the handler thread has cancelled (on the event loop) once the reply is in.
// Shared, so that a connection closed meanwhile leaves the handler thread nothing dangling.
struct Exchange {
    explicit Exchange(net::Executor executor) : done(executor, net::SteadyTime::max()) {}
    Request request;
    Reply reply;
    net::Timer done;
};

// Runs the handler on `pool`; `exchange->done` is cancelled, on its own thread, when the reply is in.
void start_answer(HandlerPool& pool, const AdminServer::Handler& handler, std::shared_ptr<Exchange> exchange, bool trim_after) {
    pool.submit([&handler, exchange = std::move(exchange), trim_after] {
        exchange->reply = answer(handler, exchange->request);
        exchange->request = Request{}; // the body is freed here, off the event loop
#if defined(__GLIBC__)
        // A large document's nodes are freed by now: give the memory back to the system rather
        // than keep it in this thread's arena.
        if (trim_after) ::malloc_trim(0);
#endif
        asio::post(exchange->done.get_executor(), [exchange] { exchange->done.cancel(); });
    });
}

// An error from reading a request that deserves an answer (the rest end the connection quietly).
std::optional<Reply> read_failure(const error_code& ec, bool expired, size_t max_body_bytes) {
    if (expired) return refusal(control::ErrorCode::unreadable_request, 408, "the request did not arrive in time");
    if (ec == http::error::header_limit)
        return refusal(control::ErrorCode::unreadable_request, 431,
                       "the request head is larger than " + std::to_string(k_max_head_bytes) + " bytes");
    if (ec == http::error::body_limit)
        return refusal(control::ErrorCode::body_too_large, 413,
                       "the request body is larger than " + std::to_string(max_body_bytes) + " bytes (wr serve --max-body-bytes)");
    if (ec.category() == make_error_code(http::error::bad_target).category() && ec != http::error::end_of_stream &&
        ec != http::error::partial_message)
        return refusal(control::ErrorCode::unreadable_request, 400, "the request could not be read as HTTP/1.1 (" + ec.message() + ")");
    return std::nullopt;
}

// One request as read from a connection, with what its answer must respect.
struct Incoming {
    std::optional<Request> request;
    std::optional<BodyBudget::Lease> lease; // its body's share of the budget, until answered
    bool keep_alive = false;
    bool head_only = false; // HEAD: the answer's head without its body
};

} // namespace

struct AdminServer::Listener {
    Listener(Handler handler, const AdminServerOptions& options)
        : handler(std::move(handler)), options(options),
          max_connections(options.max_connections > 0 ? options.max_connections : default_max_connections()),
          budget(std::max(k_min_body_budget, options.max_body_bytes)), handlers(options.threads), large(1), health(1) {}

    Handler handler;
    const AdminServerOptions& options;
    const int max_connections;

    // Declared before the event loop, so that they outlive the coroutines it destroys last.
    BodyBudget budget;
    AdminConnections connections;
    mutable std::mutex tls_mutex; // guards identity; held only to copy or swap the pointer
    std::shared_ptr<const TlsIdentity> identity;
    std::unique_ptr<asio::ssl::context> tls;

    asio::io_context io{1};
    net::Acceptor acceptor{io.get_executor()};
    std::thread thread;
    std::atomic<bool> running{false};

    // Declared after the event loop, so that they stop first.
    HandlerPool handlers; // --admin-threads
    HandlerPool large;    // bodies over k_large_body_bytes, one at a time
    HandlerPool health;   // /healthz

    std::shared_ptr<const TlsIdentity> current_identity() const {
        std::lock_guard lock(tls_mutex);
        return identity;
    }

    net::Task<> accept_loop();
    void start_connection(net::Socket socket);
    net::Task<> serve_plain(net::Socket socket);
    net::Task<> serve_tls(net::Socket socket);
    template <typename Stream> net::Task<> serve(Stream& stream, AdminConnections::Entry& entry, const std::string& remote);
    // Reads one request (or refuses it: the answer to send before closing); nothing in
    // `incoming.request` and no refusal when the connection just ends.
    template <typename Stream>
    net::Task<std::optional<Reply>> read_request(Stream& stream, AdminConnections::Entry& entry, boost::beast::flat_buffer& buffer,
                                                 Incoming& incoming);
    net::Task<Reply> answer_on_pool(AdminConnections::Entry& entry, Request request);
    template <typename Stream> net::Task<> close(Stream& stream, AdminConnections::Entry& entry);
    template <typename Stream> net::Task<bool> write(Stream& stream, AdminConnections::Entry& entry, Reply reply, bool keep_alive, bool head_only);
    template <typename Stream> net::Task<> refuse(Stream& stream, AdminConnections::Entry& entry, Reply reply);
    template <typename Stream> net::Task<> linger(Stream& stream, AdminConnections::Entry& entry);
};

std::string redact_capabilities(const std::string& path) {
    // A preview URL is a capability: whoever reads it (in a shared log, too) may open the page.
    constexpr std::string_view k_preview = "/preview/";
    if (path.rfind(k_preview, 0) == 0 && path.size() > k_preview.size()) return std::string(k_preview) + "<redacted>";
    return path;
}

AdminServer::AdminServer(Handler handler, AdminServerOptions options) : m_options(std::move(options)) {
    if (m_options.tls_certificate.empty() != m_options.tls_private_key.empty())
        throw std::runtime_error("--admin-tls-cert and --admin-tls-key go together");
    m_listener = std::make_unique<Listener>(std::move(handler), m_options);
    if (tls()) {
        m_listener->identity = load_identity(m_options.tls_certificate, m_options.tls_private_key);
        auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
        context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_compression);
        SSL_CTX* native = context->native_handle();
        SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
        // An idle connection keeps no OpenSSL buffers.
        SSL_CTX_set_mode(native, SSL_MODE_RELEASE_BUFFERS);
        // Every handshake asks for the current pair, so a renewed certificate needs no restart.
        SSL_CTX_set_cert_cb(
            native,
            [](SSL* ssl, void* listener) -> int {
                const auto identity = static_cast<Listener*>(listener)->current_identity();
                return SSL_use_cert_and_key(ssl, identity->certificate, identity->key, identity->chain, 1) == 1 ? 1 : 0;
            },
            m_listener.get());
        m_listener->tls = std::move(context);
    }
}

AdminServer::~AdminServer() { stop(); }

int AdminServer::max_connections() const { return m_listener->max_connections; }

void AdminServer::reload_tls() {
    if (!tls()) return;
    auto fresh = load_identity(m_options.tls_certificate, m_options.tls_private_key);
    std::lock_guard lock(m_listener->tls_mutex);
    m_listener->identity = std::move(fresh);
}

int AdminServer::bind() {
    Listener& listener = *m_listener;
    // Said as the edge says it: which of the two it is, with the system's words.
    const auto failed = [this](const error_code& why) {
        const std::string reason = why == asio::error::address_in_use          ? "another process serves it (" + why.message() + ")"
                                   : why == std::errc::address_not_available ? "not an address of this machine (" + why.message() + ")"
                                   : why                                        ? why.message()
                                                                                : "no address";
        return std::runtime_error("cannot listen on " + m_options.host + ":" + std::to_string(m_options.port) + " for the admin API: " +
                                  reason);
    };
    // A name (localhost) is accepted as well as an address, as it always was.
    net::DnsResolver resolver(listener.io.get_executor());
    error_code ec;
    const auto endpoints = resolver.resolve(m_options.host, std::to_string(m_options.port),
                                            tcp::resolver::passive | tcp::resolver::numeric_service, ec);
    if (ec) throw failed(ec);
    error_code last;
    for (const auto& entry : endpoints) {
        error_code attempt;
        listener.acceptor.open(entry.endpoint().protocol(), attempt);
        if (!attempt) listener.acceptor.set_option(tcp::acceptor::reuse_address(true), attempt);
        if (!attempt) listener.acceptor.bind(entry.endpoint(), attempt);
        // A deep backlog: a burst of connections (edges restarting together) is not refused.
        if (!attempt) listener.acceptor.listen(4096, attempt);
        if (!attempt) {
            m_port = listener.acceptor.local_endpoint().port();
            return m_port;
        }
        last = attempt;
        error_code ignored;
        listener.acceptor.close(ignored);
    }
    throw failed(last);
}

void AdminServer::start() {
    Listener& listener = *m_listener;
    if (listener.running.exchange(true)) return;
    asio::co_spawn(listener.io, listener.accept_loop(), asio::detached);
    asio::co_spawn(listener.io, listener.connections.sweep_forever(k_sweep_interval), asio::detached);
    listener.thread = std::thread([&listener] { listener.io.run(); });
}

void AdminServer::stop() {
    if (!m_listener) return;
    Listener& listener = *m_listener;
    listener.running = false;
    listener.io.stop();
    if (listener.thread.joinable()) listener.thread.join();
    listener.budget.close();
    // Answers being computed finish; those waiting are dropped with their connections.
    listener.handlers.stop();
    listener.large.stop();
    listener.health.stop();
}

net::Task<> AdminServer::Listener::accept_loop() {
    while (running) {
        error_code ec;
        net::Socket socket = co_await acceptor.async_accept(net::awaitable(ec));
        if (ec) {
            if (ec == asio::error::operation_aborted) co_return;
            if (ec == asio::error::no_descriptors || ec.value() == ENFILE) {
                // Out of descriptors: free a few, and wait a moment rather than spin on accept.
                for (int shed = 0; shed < 8 && connections.shed_one(); ++shed) {}
                net::Timer pause(io.get_executor(), std::chrono::milliseconds{10});
                co_await pause.async_wait(net::awaitable(ec));
            }
            continue;
        }
        start_connection(std::move(socket));
    }
}

void AdminServer::Listener::start_connection(net::Socket socket) {
    error_code ec;
    // At the cap the connection that has waited longest on its client makes room; when every
    // connection is being answered, the new one is told to come back.
    if (static_cast<int>(connections.size()) >= max_connections && !connections.shed_one()) {
        Reply busy = refusal(control::ErrorCode::busy, 503, "the admin API is answering as many requests as it can; try again in a moment");
        busy.headers.emplace_back("Retry-After", "1");
        const std::string text = reply_head(busy, busy.raw_body->size(), false) + *busy.raw_body;
        // Best effort, without waiting: a new connection's send buffer has room for it.
        socket.non_blocking(true, ec);
        socket.write_some(asio::buffer(text), ec);
        return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    if (tls)
        asio::co_spawn(io, serve_tls(std::move(socket)), asio::detached);
    else
        asio::co_spawn(io, serve_plain(std::move(socket)), asio::detached);
}

net::Task<> AdminServer::Listener::serve_plain(net::Socket socket) {
    AdminConnections::Entry entry;
    entry.socket = &socket;
    const AdminConnections::Registration registration(connections, entry);
    error_code ec;
    const std::string remote = address_text(socket.remote_endpoint(ec).address());
    co_await serve(socket, entry, remote);
}

net::Task<> AdminServer::Listener::serve_tls(net::Socket socket) {
    error_code ec;
    const std::string remote = address_text(socket.remote_endpoint(ec).address());
    net::TlsStream stream(std::move(socket), *tls);
    AdminConnections::Entry entry;
    entry.socket = &stream.next_layer();
    const AdminConnections::Registration registration(connections, entry);
    connections.enter(entry, Phase::reading, options.header_timeout);
    co_await stream.async_handshake(asio::ssl::stream_base::server, net::awaitable(ec));
    if (ec) co_return;
    co_await serve(stream, entry, remote);
}

template <typename Stream>
net::Task<> AdminServer::Listener::serve(Stream& stream, AdminConnections::Entry& entry, const std::string& remote) {
    boost::beast::flat_buffer buffer;
    while (running) {
        // Idle until the first byte of the next request (a pipelined one may be here already).
        if (buffer.size() == 0) {
            connections.enter(entry, Phase::idle, options.idle_timeout);
            buffer.shrink_to_fit(); // an idle connection holds almost nothing
            error_code ec;
            const size_t received = co_await stream.async_read_some(buffer.prepare(k_idle_read_bytes), net::awaitable(ec));
            if (ec) co_return;
            buffer.commit(received);
        }
        Incoming incoming;
        std::optional<Reply> refused = co_await read_request(stream, entry, buffer, incoming);
        if (refused) {
            co_await refuse(stream, entry, std::move(*refused));
            co_return;
        }
        if (!incoming.request) co_return;
        incoming.request->remote_address = remote;
        Reply reply = co_await answer_on_pool(entry, std::move(*incoming.request));
        incoming.lease.reset();
        const bool written = co_await write(stream, entry, std::move(reply), incoming.keep_alive, incoming.head_only);
        if (!written || !incoming.keep_alive) break;
    }
    co_await close(stream, entry);
}

template <typename Stream>
net::Task<std::optional<Reply>> AdminServer::Listener::read_request(Stream& stream, AdminConnections::Entry& entry,
                                                                    boost::beast::flat_buffer& buffer, Incoming& incoming) {
    // The head, within the header timeout of its first byte.
    connections.enter(entry, Phase::reading, options.header_timeout);
    http::request_parser<http::string_body> parser;
    parser.header_limit(k_max_head_bytes);
    // The length is checked below, before any of the body is read. (Not boost::none: Beast 1.74
    // compares a length with an empty limit as larger.)
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    error_code ec;
    co_await http::async_read_header(stream, buffer, parser, net::awaitable(ec));
    if (ec) co_return entry.phase == Phase::closing ? std::nullopt : read_failure(ec, entry.expired, options.max_body_bytes);

    // The body: refused by its announced length, then read once the budget has room for it.
    if (!parser.is_done()) {
        const boost::optional<uint64_t> length = parser.content_length();
        if (length && *length > options.max_body_bytes) co_return read_failure(http::error::body_limit, false, options.max_body_bytes);
        const size_t reserve = length ? static_cast<size_t>(*length) : options.max_body_bytes;
        // Waiting for the budget, the connection may be shed like one whose body is on its way.
        connections.enter(entry, Phase::reading, k_budget_patience);
        net::Timer wait(io.get_executor(), k_budget_patience);
        entry.timer = &wait;
        const bool granted = co_await budget.reserve(reserve, wait);
        entry.timer = nullptr;
        if (granted) incoming.lease = BodyBudget::Lease(budget, reserve);
        if (entry.phase == Phase::closing) co_return std::nullopt;
        if (!granted)
            co_return refusal(control::ErrorCode::busy, 503, "the admin API is reading other request bodies; try again in a moment");
        if (boost::beast::iequals(parser.get()[http::field::expect], "100-continue")) {
            static constexpr std::string_view k_continue = "HTTP/1.1 100 Continue\r\n\r\n";
            connections.enter(entry, Phase::reading, options.transfer_timeout);
            co_await asio::async_write(stream, asio::buffer(k_continue.data(), k_continue.size()), net::awaitable(ec));
            if (ec) co_return std::nullopt;
        }
        connections.enter(entry, Phase::reading, options.transfer_timeout);
        parser.body_limit(options.max_body_bytes);
        co_await http::async_read(stream, buffer, parser, net::awaitable(ec));
        if (ec) co_return entry.phase == Phase::closing ? std::nullopt : read_failure(ec, entry.expired, options.max_body_bytes);
    }

    // The admin API's own request.
    http::request<http::string_body>& message = parser.get();
    Request request;
    incoming.head_only = message.method() == http::verb::head;
    request.method = incoming.head_only ? "GET" : std::string(message.method_string()); // HEAD is GET without the body
    if (!read_target(message.target(), request))
        co_return refusal(control::ErrorCode::unreadable_request, 400, "the request target must be a path");
    for (const auto& field : message) {
        std::string name(field.name_string());
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        request.headers[name] = std::string(field.value());
    }
    request.body = std::move(message.body());
    const std::string_view host = message[http::field::host];
    request.base_url = (tls ? "https://" : "http://") + (host.empty() ? std::string("127.0.0.1") : std::string(host));
    incoming.keep_alive = message.keep_alive();
    incoming.request = std::move(request);
    co_return std::nullopt;
}

net::Task<Reply> AdminServer::Listener::answer_on_pool(AdminConnections::Entry& entry, Request request) {
    connections.enter(entry, Phase::busy, AdminConnections::k_no_deadline);
    const bool large_body = request.body.size() > k_large_body_bytes;
    HandlerPool& pool = request.path == "/healthz" ? health : large_body ? large : handlers;
    auto exchange = std::make_shared<Exchange>(io.get_executor());
    exchange->request = std::move(request);
    start_answer(pool, handler, exchange, large_body);
    error_code ec;
    co_await exchange->done.async_wait(net::awaitable(ec));
    co_return std::move(exchange->reply);
}

// wr ends the connection: says so (TLS close_notify, within a short deadline; FIN on plain TCP).
template <typename Stream> net::Task<> AdminServer::Listener::close(Stream& stream, AdminConnections::Entry& entry) {
    error_code ec;
    if constexpr (std::is_same_v<Stream, net::TlsStream>) {
        connections.enter(entry, Phase::busy, k_linger_time);
        co_await stream.async_shutdown(net::awaitable(ec));
    } else {
        stream.shutdown(tcp::socket::shutdown_send, ec);
    }
}

template <typename Stream>
net::Task<bool> AdminServer::Listener::write(Stream& stream, AdminConnections::Entry& entry, Reply reply, bool keep_alive, bool head_only) {
    connections.enter(entry, Phase::busy, options.transfer_timeout);
    const std::string body = reply.raw_body ? std::move(*reply.raw_body) : std::string();
    const std::string head = reply_head(reply, body.size(), keep_alive && running);
    const std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body.data(), head_only ? 0 : body.size())};
    error_code ec;
    co_await asio::async_write(stream, buffers, net::awaitable(ec));
    co_return !ec;
}

template <typename Stream> net::Task<> AdminServer::Listener::refuse(Stream& stream, AdminConnections::Entry& entry, Reply reply) {
    // (Two statements: GCC 12 miscompiles a co_await inside an if's condition.)
    const bool written = co_await write(stream, entry, std::move(reply), false, false);
    if (written) co_await linger(stream, entry);
}

// The client may still be sending (the body of a refused request): reading a bounded amount of
// it lets the answer reach the client instead of being lost to a reset on close.
template <typename Stream> net::Task<> AdminServer::Listener::linger(Stream& stream, AdminConnections::Entry& entry) {
    error_code ec;
    if constexpr (std::is_same_v<Stream, net::Socket>) stream.shutdown(tcp::socket::shutdown_send, ec);
    connections.enter(entry, Phase::busy, k_linger_time);
    std::array<char, 4096> sink;
    size_t drained = 0;
    while (!ec && drained < k_linger_bytes) drained += co_await stream.async_read_some(asio::buffer(sink), net::awaitable(ec));
}

} // namespace wr::api
