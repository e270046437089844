#pragma once
// An edge's HTTP client of its control node's admin API: the configuration pull, the analytics
// push and token checks, with the edge token (or, for checks, the token being checked). Each
// user (the puller's thread, the pusher's, the admin listener) owns one: a client keeps one
// keep-alive connection and is not shared between threads. Runs off the request path only.
#include <chrono>
#include <memory>
#include <string>

#include "fleet/control_url.h"

namespace httplib {
class Client;
}

namespace wr::fleet {

struct ControlOptions {
    ControlUrl url;
    std::string token;   // an edge token; never logged
    std::string ca_file; // PEM: trust this CA (a private one) for an https control URL; empty: the system's
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds read_timeout{10000};
};

class ControlClient {
public:
    enum class Outcome {
        ok,          // 2xx or 304
        unreachable, // no connection, no answer, or a TLS failure
        refused,     // 401 or 403: the token is wrong, revoked, or not an edge token
        failed,      // any other answer
    };
    struct Answer {
        Outcome outcome = Outcome::unreachable;
        int status = 0;
        std::string body;
        std::string etag;
        std::string message; // what went wrong, in words (the API's own message when it sent one)
    };

    explicit ControlClient(ControlOptions options);
    ~ControlClient();
    ControlClient(ControlClient&&) noexcept;

    // GET /client/v4/edge/config, with If-None-Match when `etag` is not empty.
    Answer fetch_snapshot(const std::string& etag);
    // POST /client/v4/edge/analytics.
    Answer push(const std::string& body);
    // GET /client/v4/user/tokens/verify with another token (a Prometheus scrape's).
    Answer verify(const std::string& token);

    const ControlUrl& url() const { return m_options.url; }

private:
    Answer exchange(const std::string& method, const std::string& path, const std::string& token, const std::string& etag,
                    const std::string& body);

    ControlOptions m_options;
    std::unique_ptr<httplib::Client> m_client;
};

} // namespace wr::fleet
