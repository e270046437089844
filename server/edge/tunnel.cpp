// The tunnel after a 101 (WebSockets, or any Upgrade the origin accepts): bytes both ways,
// through the two connections' read buffers, until either side closes or nothing moves for
// --tunnel-idle-timeout. Counted in /metrics (open tunnels, tunnels opened).
#include "edge/visitor_connection.h"

namespace wr::edge {

template <typename Stream> net::Task<> VisitorConnection<Stream>::pump_to_visitor(origin::OriginConnection& origin) {
    const auto idle = m_shared.options.tunnel_idle_timeout;
    error_code ec;
    try {
        while (true) {
            if (!origin.in.empty()) {
                co_await asio::async_write(m_stream, asio::buffer(origin.in.data(), origin.in.size()), net::awaitable(ec));
                if (ec) break;
                origin.in.consume(origin.in.size());
                m_watch.expire_in(idle);
            }
            const auto [space, room] = origin.in.prepare(k_stream_buffer, k_stream_buffer);
            const size_t got = co_await origin.read_some(asio::buffer(space, room), ec);
            if (ec) break;
            origin.in.commit(got);
            m_watch.expire_in(idle);
        }
    } catch (const std::exception&) {
    }
    // This side ended: so does the other.
    error_code ignored;
    net::lowest_layer(m_stream).cancel(ignored);
    origin.tcp_socket().cancel(ignored);
    m_upload.finished = true;
    m_signal.cancel();
}

template <typename Stream> net::Task<> VisitorConnection<Stream>::tunnel(origin::OriginConnection& origin) {
    analytics::EdgeCounters& counters = m_shared.analytics.edge();
    counters.tunnels_opened.fetch_add(1, std::memory_order_relaxed);
    counters.open_tunnels.fetch_add(1, std::memory_order_relaxed);
    const auto idle = m_shared.options.tunnel_idle_timeout;
    m_watch.expire_in(idle);
    m_upload.running = true;
    m_upload.finished = false;
    asio::co_spawn(m_worker.io, pump_to_visitor(origin), asio::detached);
    error_code ec;
    while (true) {
        // Bytes the visitor sent right after its head go first.
        if (!m_in.empty()) {
            co_await origin.write(asio::buffer(m_in.data(), m_in.size()), ec);
            if (ec) break;
            m_in.consume(m_in.size());
            m_watch.expire_in(idle);
        }
        const auto [space, room] = m_in.prepare(k_stream_buffer, k_stream_buffer);
        const size_t got = co_await m_stream.async_read_some(asio::buffer(space, room), net::awaitable(ec));
        if (ec) break;
        m_in.commit(got);
        m_watch.expire_in(idle);
    }
    error_code ignored;
    origin.tcp_socket().cancel(ignored);
    net::lowest_layer(m_stream).cancel(ignored);
    co_await wait_for_upload();
    counters.open_tunnels.fetch_sub(1, std::memory_order_relaxed);
}

template net::Task<> VisitorConnection<net::Socket>::tunnel(origin::OriginConnection&);
template net::Task<> VisitorConnection<net::TlsSocket>::tunnel(origin::OriginConnection&);
template net::Task<> VisitorConnection<net::Socket>::pump_to_visitor(origin::OriginConnection&);
template net::Task<> VisitorConnection<net::TlsSocket>::pump_to_visitor(origin::OriginConnection&);

} // namespace wr::edge
