#pragma once
// The edge's connections to origins: one pool per edge thread of keep-alive connections per
// origin (plain TCP, or TLS verified against the system's trust store and, when the operator
// gives one, a private CA). A connection goes back to the pool only when its last exchange ended
// at a clean boundary (origin/response_reader.h), and is taken out only when nothing arrived on
// it meanwhile — no close, no stray byte. Timeouts are the caller's (its ConnectionWatch); nothing
// is thrown.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "net/asio.h"
#include "net/connection_watch.h"
#include "net/read_buffer.h"
#include "model/origin_url.h"
#include "origin/connection_cap.h"

namespace wr::origin {

struct OriginOptions {
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds response_timeout{30000}; // also the longest pause within a streamed body
    // Idle connections a pool (one per edge thread) keeps per origin. Bounded only loosely (the
    // edge gives each thread its share of the visitor connections): a pool that closes the
    // connections a burst opened, only to open them again for the next, makes the origin accept
    // (and the edge connect) hundreds of connections a second. Unused ones close after
    // max_idle_time instead, and the zone's connection cap bounds them all.
    size_t max_idle_per_origin = 64;
    std::string ca_file; // PEM certificates trusted for https origins beside the system's ("" for none)
    // How long a pooled connection may sit unused before wr closes it. Origins close theirs after
    // 5 to 75 s of quiet, and a connection the origin closed is otherwise only found when it is
    // next taken: until then it holds a descriptor. (nginx's upstream keepalive_timeout is 60 s.)
    std::chrono::milliseconds max_idle_time{30000};
};

// Why no connection came: the origin refused it (or cannot be reached or resolved), it did not
// answer in time, its TLS handshake or certificate failed, or the zone's connection cap kept the
// request waiting for longer than the zone's origin_queue_timeout_seconds, or the request was
// gone before a connection was its turn (ConnectionWatch::abandon).
enum class OriginError { none, refused, timeout, tls, queue_timeout, abandoned };

class OriginConnection {
public:
    explicit OriginConnection(net::Executor executor) : socket(executor) {}

    // Its place under the zone's connection cap, if the zone has one. Declared first so that it
    // is released last, once the socket below is closed: released before, another thread's
    // waiter could connect while this connection is still open, and the origin would see one
    // connection over the cap.
    CapSlot slot;
    net::Socket socket;                  // plain origins; moved into `tls` for https ones
    std::unique_ptr<net::TlsStream> tls; // set for https origins
    net::ReadBuffer in;
    std::string key;     // which origin (and cap), for the pool
    bool reused = false; // it came from the pool (so a failure before any answer may be a stale close)
    net::SteadyTime idle_since{}; // when it went back to the pool

    net::Task<size_t> read_some(asio::mutable_buffer buffer, error_code& ec) {
        if (tls) co_return co_await tls->async_read_some(buffer, net::awaitable(ec));
        co_return co_await socket.async_read_some(buffer, net::awaitable(ec));
    }
    template <typename Buffers> net::Task<size_t> write(const Buffers& buffers, error_code& ec) {
        if (tls) co_return co_await asio::async_write(*tls, buffers, net::awaitable(ec));
        co_return co_await asio::async_write(socket, buffers, net::awaitable(ec));
    }
    net::Socket& tcp_socket() { return tls ? tls->next_layer() : socket; }
    void close() {
        error_code ignored;
        tcp_socket().close(ignored);
    }
};

// Where a request goes: the zone's origin, and the zone's connection cap (nullptr: none).
struct OriginTarget {
    const model::OriginUrl& url;
    const std::shared_ptr<ConnectionCap>& cap;
    std::chrono::milliseconds queue_timeout{10000}; // the longest wait for a connection under the cap
};

class OriginPool {
public:
    // `thread`: which edge thread owns this pool (the cap orders waiters across threads).
    OriginPool(asio::io_context& io, OriginOptions options, size_t thread = 0);
    ~OriginPool();

    // A pooled connection to the target's origin, or a new one (`watch.origin` points at it
    // while it connects, so the caller's deadline can cut it short). Under a full cap, the
    // request first waits its turn (connection_cap.h). nullptr with `error` set when the origin
    // cannot be reached in time, or the wait for the cap ran out. `pooled_allowed` false: a new
    // connection (a retry after a pooled one turned out closed).
    net::Task<std::unique_ptr<OriginConnection>> acquire(const OriginTarget& target, net::ConnectionWatch& watch, OriginError& error,
                                                         bool pooled_allowed = true);
    // Gives a connection whose last exchange ended cleanly back: to a request waiting under the
    // cap, or to the pool. One with bytes still buffered, or beyond max_idle_per_origin, closes.
    void release(std::unique_ptr<OriginConnection> connection, net::SteadyTime now = std::chrono::steady_clock::now());

    // Closes the pooled connections unused for longer than options().max_idle_time, and those
    // whose slot under a cap someone is waiting for; the edge thread calls it about once a second.
    void close_idle(net::SteadyTime now);

    const OriginOptions& options() const { return m_options; }
    size_t idle_connections() const;

private:
    net::Task<std::unique_ptr<OriginConnection>> connect(const model::OriginUrl& origin, net::ConnectionWatch& watch, OriginError& error);
    // Waits under the target's cap; the slot (or a connection) it was given, or false at the timeout.
    net::Task<bool> wait_for_cap(const OriginTarget& target, net::ConnectionWatch& watch, CapSlot& slot,
                                 std::unique_ptr<OriginConnection>& handed);
    void forget_idle(OriginConnection& connection);

    asio::io_context& m_io;
    OriginOptions m_options;
    size_t m_thread;
    asio::ssl::context m_tls;
    std::map<std::string, std::vector<std::unique_ptr<OriginConnection>>, std::less<>> m_idle;
    // The key being looked up, built here so that a lookup allocates nothing; valid only until
    // the looking coroutine first suspends.
    std::string m_key;
};

// "https://host:port", the pool's key for an origin, into `out`; connections under a cap are
// kept apart by it ("…@<cap>"), so that none counts under one zone's cap and serves another.
void origin_key(const model::OriginUrl& origin, const ConnectionCap* cap, std::string& out);

} // namespace wr::origin
