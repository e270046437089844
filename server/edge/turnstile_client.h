#pragma once
// Asks Turnstile's siteverify whether a token is good: the one network call the edge makes while
// deciding a request, one client per edge thread, over the thread's kind of pooled connection,
// bounded by --turnstile-timeout.
#include <optional>
#include <string>

#include "net/asio.h"
#include "net/connection_watch.h"
#include "origin/origin_pool.h"
#include "edge/turnstile.h"

namespace wr::edge {

class TurnstileClient {
public:
    TurnstileClient(asio::io_context& io, const TurnstileOptions& options);

    // Asks siteverify about `token`. Timeouts, errors and malformed answers count as failures;
    // tokens that cannot be real ("failed", empty, too long) fail without asking. `watch` is the
    // visitor's connection's: its deadline bounds the call, and is left unset afterwards.
    net::Task<bool> verify(std::string token, std::string remote_ip, net::ConnectionWatch& watch);

private:
    const TurnstileOptions& m_options;
    std::optional<model::OriginUrl> m_url;
    origin::OriginPool m_pool;
};

} // namespace wr::edge
