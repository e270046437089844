// Connects to origins and keeps their connections for reuse.
#include "origin/origin_pool.h"

#include <cerrno>
#include <charconv>
#include <openssl/ssl.h>
#include <sys/socket.h>

namespace wr::origin {
namespace {

// Whether a connection that sat in the pool may carry a request: the origin has neither closed
// (or reset) it nor sent a byte on it meanwhile. Bytes nobody asked for mean the connection is out
// of step — they would be read as the next visitor's answer — so it is closed, over TLS too (where
// they could also be a late session ticket: losing such a connection costs one handshake).
bool fit_for_reuse(OriginConnection& connection) {
    if (connection.tls) {
        SSL* ssl = connection.tls->native_handle();
        if (SSL_pending(ssl) > 0 || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0) return false;
    }
    char byte;
    const ssize_t peeked = ::recv(connection.tcp_socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

} // namespace

void origin_key(const model::OriginUrl& origin, std::string& out) {
    out.assign(origin.https ? "https://" : "http://");
    out += origin.host;
    out += ':';
    char digits[8];
    out.append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, origin.port).ptr - digits));
}

OriginPool::OriginPool(asio::io_context& io, OriginOptions options)
    : m_io(io), m_options(std::move(options)), m_tls(asio::ssl::context::tls_client) {
    m_tls.set_default_verify_paths();
    if (!m_options.ca_file.empty()) m_tls.load_verify_file(m_options.ca_file); // throws at start: a bad file is the operator's to fix
    m_tls.set_verify_mode(asio::ssl::verify_peer);
}

OriginPool::~OriginPool() = default;

size_t OriginPool::idle_connections() const {
    size_t total = 0;
    for (const auto& [key, connections] : m_idle) total += connections.size();
    return total;
}

void OriginPool::close_idle(net::SteadyTime now) {
    const net::SteadyTime cutoff = now - m_options.max_idle_time;
    // Each list is in the order its connections came back (taken from the back), so the stale
    // ones are at the front.
    for (auto& [key, idle] : m_idle) {
        auto fresh = idle.begin();
        while (fresh != idle.end() && (*fresh)->idle_since < cutoff) ++fresh;
        idle.erase(idle.begin(), fresh); // closes them
    }
}

void OriginPool::release(std::unique_ptr<OriginConnection> connection, net::SteadyTime now) {
    if (!connection || !connection->in.empty()) return; // bytes left over: out of step, not reusable
    auto& idle = m_idle[connection->key];
    if (idle.size() >= m_options.max_idle_per_origin) return;
    connection->in.release_if_empty();
    connection->idle_since = now;
    idle.push_back(std::move(connection));
}

net::Task<std::unique_ptr<OriginConnection>> OriginPool::acquire(const model::OriginUrl& origin, net::ConnectionWatch& watch,
                                                            OriginError& error, bool pooled_allowed) {
    origin_key(origin, m_key);
    if (pooled_allowed) {
        const auto found = m_idle.find(m_key);
        if (found != m_idle.end()) {
            auto& idle = found->second;
            // Every connection is checked, however briefly it sat: bytes an origin sends after its
            // answer can arrive at any moment.
            while (!idle.empty()) {
                std::unique_ptr<OriginConnection> connection = std::move(idle.back());
                idle.pop_back();
                if (!fit_for_reuse(*connection)) continue;
                connection->reused = true;
                co_return connection;
            }
        }
    }

    auto connection = std::make_unique<OriginConnection>(m_io.get_executor());
    connection->key = m_key;
    watch.origin = &connection->socket;
    watch.expire_in(m_options.connect_timeout);
    error_code ec;
    tcp::endpoint endpoint;
    const auto address = asio::ip::make_address(origin.host, ec);
    if (!ec) {
        endpoint = tcp::endpoint(address, origin.port);
    } else {
        net::DnsResolver resolver(m_io.get_executor());
        const auto endpoints = co_await resolver.async_resolve(origin.host, std::to_string(origin.port), net::awaitable(ec));
        if (ec || endpoints.empty() || watch.expired) {
            error = watch.expired ? OriginError::timeout : OriginError::unreachable;
            watch.origin = nullptr;
            co_return nullptr;
        }
        endpoint = endpoints.begin()->endpoint();
    }
    co_await connection->socket.async_connect(endpoint, net::awaitable(ec));
    if (ec) {
        error = watch.expired ? OriginError::timeout : OriginError::unreachable;
        watch.origin = nullptr;
        co_return nullptr;
    }
    connection->socket.set_option(tcp::no_delay(true), ec);
    if (origin.https) {
        connection->tls = std::make_unique<net::TlsStream>(std::move(connection->socket), m_tls);
        watch.origin = &connection->tls->next_layer();
        SSL_set_tlsext_host_name(connection->tls->native_handle(), origin.host.c_str());
        connection->tls->set_verify_callback(asio::ssl::host_name_verification(origin.host));
        co_await connection->tls->async_handshake(asio::ssl::stream_base::client, net::awaitable(ec));
        if (ec) {
            error = watch.expired ? OriginError::timeout : OriginError::unreachable;
            watch.origin = nullptr;
            co_return nullptr;
        }
    }
    co_return connection;
}

} // namespace wr::origin
