// Forwards requests to origins over pooled keep-alive connections.
#include "edge/origin_pool.h"

#include <openssl/ssl.h>

namespace wr::edge {
namespace {

std::string origin_key(const model::OriginUrl& origin) {
    return (origin.https ? "https://" : "http://") + origin.host + ":" + std::to_string(origin.port);
}

} // namespace

struct OriginPool::Connection {
    std::string key;
    bool tls = false;
    beast::tcp_stream plain;
    std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> secure;
    beast::flat_buffer buffer;

    explicit Connection(asio::io_context& io) : plain(io) {}
    beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*secure) : plain; }
};

OriginPool::OriginPool(asio::io_context& io, OriginOptions options)
    : m_io(io), m_options(options), m_tls(asio::ssl::context::tls_client) {
    m_tls.set_default_verify_paths();
    m_tls.set_verify_mode(asio::ssl::verify_peer);
}

OriginPool::~OriginPool() = default;

size_t OriginPool::idle_connections() const {
    size_t total = 0;
    for (const auto& [key, connections] : m_idle) total += connections.size();
    return total;
}

asio::awaitable<std::unique_ptr<OriginPool::Connection>> OriginPool::connect(const model::OriginUrl& origin, OriginError& error) {
    auto connection = std::make_unique<Connection>(m_io);
    connection->key = origin_key(origin);
    connection->tls = origin.https;
    boost::system::error_code ec;
    tcp::resolver resolver(m_io);
    const auto endpoints = co_await resolver.async_resolve(origin.host, std::to_string(origin.port), awaitable(ec));
    if (ec) {
        error = OriginError::unreachable;
        co_return nullptr;
    }
    connection->plain.expires_after(m_options.connect_timeout);
    co_await connection->plain.async_connect(endpoints, awaitable(ec));
    if (ec) {
        error = ec == beast::error::timeout ? OriginError::timeout : OriginError::unreachable;
        co_return nullptr;
    }
    connection->plain.socket().set_option(tcp::no_delay(true));
    if (origin.https) {
        connection->secure = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(std::move(connection->plain), m_tls);
        SSL_set_tlsext_host_name(connection->secure->native_handle(), origin.host.c_str());
        connection->secure->set_verify_callback(asio::ssl::host_name_verification(origin.host));
        beast::get_lowest_layer(*connection->secure).expires_after(m_options.connect_timeout);
        co_await connection->secure->async_handshake(asio::ssl::stream_base::client, awaitable(ec));
        if (ec) {
            error = ec == beast::error::timeout ? OriginError::timeout : OriginError::unreachable;
            co_return nullptr;
        }
    }
    co_return connection;
}

asio::awaitable<OriginReply> OriginPool::exchange_on(Connection& connection, Request& request, bool head, bool& reusable) {
    OriginReply reply;
    reusable = false;
    boost::system::error_code ec;
    connection.lowest().expires_after(m_options.response_timeout);
    if (connection.tls)
        co_await http::async_write(*connection.secure, request, awaitable(ec));
    else
        co_await http::async_write(connection.plain, request, awaitable(ec));
    if (ec) {
        reply.error = ec == beast::error::timeout ? OriginError::timeout : OriginError::unreachable;
        co_return reply;
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(m_options.max_response_body);
    parser.header_limit(64 * 1024);
    if (head) parser.skip(true);
    if (connection.tls)
        co_await http::async_read(*connection.secure, connection.buffer, parser, awaitable(ec));
    else
        co_await http::async_read(connection.plain, connection.buffer, parser, awaitable(ec));
    if (ec) {
        reply.error = ec == beast::error::timeout       ? OriginError::timeout
                      : ec == http::error::body_limit   ? OriginError::too_large
                      : ec == http::error::end_of_stream ? OriginError::unreachable
                                                         : OriginError::bad_response;
        co_return reply;
    }
    reply.response = parser.release();
    reusable = reply.response.keep_alive();
    co_return reply;
}

asio::awaitable<OriginReply> OriginPool::exchange(const model::OriginUrl& origin, Request& request) {
    const std::string key = origin_key(origin);
    const bool head = request.method() == http::verb::head;
    // A pooled connection may have been closed by the origin meanwhile; then retry once on a
    // fresh one (nothing of the request can have been processed on a connection that was closed).
    for (int attempt = 0; attempt < 2; ++attempt) {
        std::unique_ptr<Connection> connection;
        bool pooled = false;
        auto& idle = m_idle[key];
        if (attempt == 0 && !idle.empty()) {
            connection = std::move(idle.back());
            idle.pop_back();
            pooled = true;
        } else {
            OriginError error = OriginError::none;
            connection = co_await connect(origin, error);
            if (!connection) co_return OriginReply{error, {}};
        }
        bool reusable = false;
        OriginReply reply = co_await exchange_on(*connection, request, head, reusable);
        if (reply.error == OriginError::unreachable && pooled) continue;
        if (reply.error == OriginError::none && reusable) {
            auto& pool = m_idle[key];
            if (pool.size() < m_options.max_idle_per_origin) {
                connection->lowest().expires_never();
                pool.push_back(std::move(connection));
            }
        }
        co_return reply;
    }
    co_return OriginReply{OriginError::unreachable, {}};
}

} // namespace wr::edge
