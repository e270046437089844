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
        // Decrypted bytes not yet taken, records OpenSSL read ahead, ciphertext waiting in the BIO.
        if (SSL_pending(ssl) > 0 || SSL_has_pending(ssl) == 1 || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0) return false;
    }
    char byte;
    const ssize_t peeked = ::recv(connection.tcp_socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

} // namespace

void origin_key(const model::OriginUrl& origin, const ConnectionCap* cap, std::string& out) {
    out.assign(origin.https ? "https://" : "http://");
    out += origin.host;
    out += ':';
    char digits[20];
    out.append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, origin.port).ptr - digits));
    if (!cap) return;
    out += '@';
    out.append(digits, static_cast<size_t>(
                           std::to_chars(digits, digits + sizeof digits, reinterpret_cast<uintptr_t>(cap), 16).ptr - digits));
}

OriginPool::OriginPool(asio::io_context& io, OriginOptions options, size_t thread)
    : m_io(io), m_options(std::move(options)), m_thread(thread), m_tls(asio::ssl::context::tls_client) {
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

void OriginPool::forget_idle(OriginConnection& connection) {
    if (ConnectionCap* cap = connection.slot.cap()) cap->count_idle(-1);
}

void OriginPool::close_idle(net::SteadyTime now) {
    const net::SteadyTime cutoff = now - m_options.max_idle_time;
    // Each list is in the order its connections came back (taken from the back), so the stale
    // ones are at the front; all of them go when their slot is wanted by a waiting request.
    for (auto& [key, idle] : m_idle) {
        if (idle.empty()) continue;
        const ConnectionCap* cap = idle.front()->slot.cap();
        auto fresh = idle.begin();
        if (cap && cap->has_waiters()) fresh = idle.end();
        while (fresh != idle.end() && (*fresh)->idle_since < cutoff) ++fresh;
        for (auto it = idle.begin(); it != fresh; ++it) forget_idle(**it);
        idle.erase(idle.begin(), fresh); // closes them (and frees their slots)
    }
}

void OriginPool::release(std::unique_ptr<OriginConnection> connection, net::SteadyTime now) {
    if (!connection || !connection->in.empty()) return; // bytes left over: out of step, not reusable
    if (ConnectionCap* cap = connection->slot.cap(); cap && cap->has_waiters()) {
        bool close = false;
        connection = cap->hand_over(std::move(connection), m_thread, now, close);
        if (!connection || close) return; // handed to a waiter here, or closed so that its slot goes to one elsewhere
    }
    auto& idle = m_idle[connection->key];
    if (idle.size() >= m_options.max_idle_per_origin) return;
    connection->in.release_if_empty();
    connection->idle_since = now;
    if (ConnectionCap* cap = connection->slot.cap()) cap->count_idle(1);
    idle.push_back(std::move(connection));
}

net::Task<bool> OriginPool::wait_for_cap(const OriginTarget& target, net::ConnectionWatch& watch, CapSlot& slot,
                                         std::unique_ptr<OriginConnection>& handed) {
    ConnectionCap& cap = *target.cap;
    const std::shared_ptr<ConnectionCap::Waiter> waiter = cap.wait(m_io.get_executor(), m_thread, std::chrono::steady_clock::now());
    // Should this coroutine be destroyed while it waits (the server stopping), what was handed
    // to it goes back.
    struct Abandon {
        ConnectionCap& cap;
        ConnectionCap::Waiter& waiter;
        bool settled = false;
        ~Abandon() {
            if (settled || cap.give_up(waiter, false)) return;
            if (waiter.granted_slot) CapSlot{cap.shared_from_this()};
            waiter.connection.reset();
        }
    } abandon{cap, *waiter};
    watch.expire_in(target.queue_timeout + std::chrono::seconds{1});
    waiter->timer.expires_after(target.queue_timeout);
    watch.queue_wait = &waiter->timer;
    error_code ignored;
    co_await waiter->timer.async_wait(net::awaitable(ignored));
    watch.queue_wait = nullptr;
    if (watch.abandoned) co_return false; // (Abandon gives back anything handed to it meanwhile)
    abandon.settled = true;
    if (cap.give_up(*waiter, true)) co_return false;
    if (waiter->connection) {
        handed = std::move(waiter->connection);
    } else {
        slot = CapSlot(target.cap);
    }
    co_return true;
}

net::Task<std::unique_ptr<OriginConnection>> OriginPool::acquire(const OriginTarget& target, net::ConnectionWatch& watch, OriginError& error,
                                                                 bool pooled_allowed) {
    if (watch.abandoned) {
        error = OriginError::abandoned;
        co_return nullptr;
    }
    ConnectionCap* const cap = target.cap.get();
    origin_key(target.url, cap, m_key);
    // While anyone waits under the cap, nobody takes a pooled connection ahead of them: such
    // connections are closed (close_idle) so that their slots go to the waiters in order.
    if (pooled_allowed && !(cap && cap->has_waiters())) {
        const auto found = m_idle.find(m_key);
        if (found != m_idle.end()) {
            auto& idle = found->second;
            // Every connection is checked, however briefly it sat: bytes an origin sends after its
            // answer can arrive at any moment.
            while (!idle.empty()) {
                std::unique_ptr<OriginConnection> connection = std::move(idle.back());
                idle.pop_back();
                forget_idle(*connection);
                if (!fit_for_reuse(*connection)) continue;
                connection->reused = true;
                co_return connection;
            }
        }
    }

    // From here on the coroutine may suspend (a wait under the cap, a connect), and other
    // requests on this thread then look up their own keys in m_key: this one keeps its own copy,
    // or a connection to one origin would be filed under another zone's key, and a visitor of
    // that zone sent to the wrong origin.
    const std::string key = m_key;
    CapSlot slot;
    if (cap) {
        if (cap->try_open()) {
            slot = CapSlot(target.cap);
        } else {
            std::unique_ptr<OriginConnection> handed;
            if (!co_await wait_for_cap(target, watch, slot, handed)) {
                error = watch.abandoned ? OriginError::abandoned : OriginError::queue_timeout;
                co_return nullptr;
            }
            if (handed) {
                if (handed->key == key && fit_for_reuse(*handed)) {
                    handed->reused = true;
                    co_return handed;
                }
                slot = std::move(handed->slot); // its slot serves the new connection
            }
        }
    }
    auto connection = co_await connect(target.url, watch, error);
    if (connection) {
        connection->key = key;
        connection->slot = std::move(slot);
    }
    co_return connection;
}

net::Task<std::unique_ptr<OriginConnection>> OriginPool::connect(const model::OriginUrl& origin, net::ConnectionWatch& watch,
                                                                 OriginError& error) {
    auto connection = std::make_unique<OriginConnection>(m_io.get_executor());
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
            error = watch.expired ? OriginError::timeout : OriginError::refused;
            watch.origin = nullptr;
            co_return nullptr;
        }
        endpoint = endpoints.begin()->endpoint();
    }
    co_await connection->socket.async_connect(endpoint, net::awaitable(ec));
    if (ec) {
        error = watch.expired ? OriginError::timeout : OriginError::refused;
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
            error = watch.expired ? OriginError::timeout : OriginError::tls;
            watch.origin = nullptr;
            co_return nullptr;
        }
    }
    co_return connection;
}

} // namespace wr::origin
