#pragma once
// The edge's client towards origins: one pool per edge thread of keep-alive connections per
// origin (plain or TLS), with connect and response timeouts. A request forwarded here comes
// back as a response, or as 502 (unreachable) / 504 (too slow); nothing is thrown.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "edge/asio.h"
#include "model/origin_url.h"

namespace wr::edge {

struct OriginOptions {
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds response_timeout{30000};
    size_t max_response_body = 64 * 1024 * 1024;
    size_t max_idle_per_origin = 64;
};

enum class OriginError { none, unreachable, timeout, too_large, bad_response };

struct OriginReply {
    OriginError error = OriginError::none;
    Response response;
};

class OriginPool {
public:
    OriginPool(asio::io_context& io, OriginOptions options);
    ~OriginPool();

    // Sends the request (already rewritten for the origin) and reads the response. A pooled
    // connection that turns out to be closed is replaced once.
    asio::awaitable<OriginReply> exchange(const model::OriginUrl& origin, Request& request);

    size_t idle_connections() const;

private:
    struct Connection;
    asio::awaitable<std::unique_ptr<Connection>> connect(const model::OriginUrl& origin, OriginError& error);
    asio::awaitable<OriginReply> exchange_on(Connection& connection, Request& request, bool head, bool& reusable);

    asio::io_context& m_io;
    OriginOptions m_options;
    asio::ssl::context m_tls;
    std::map<std::string, std::vector<std::unique_ptr<Connection>>> m_idle;
};

} // namespace wr::edge
