#include "edge/turnstile_client.h"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "origin/response_reader.h"
#include "util/log.h"

namespace wr::edge {
namespace {

// siteverify is not an origin: no connection cap.
const std::shared_ptr<origin::ConnectionCap> k_siteverify_cap;

namespace http = boost::beast::http;

// One call: the final answer, past any interim (1xx) ones — an interim answer taken for the
// verdict would leave the real one unread on a pooled connection, to be read as the next
// visitor's. `reusable` when the connection ends at the answer's end with nothing read beyond it.
template <typename Stream>
net::Task<bool> exchange(Stream& stream, http::request<http::string_body>& request, http::response<http::string_body>& response,
                         bool& reusable) {
    reusable = false;
    error_code ec;
    co_await http::async_write(stream, request, net::awaitable(ec));
    if (ec) co_return false;
    boost::beast::flat_buffer buffer;
    for (int interim = 0; interim <= origin::ResponseReader::k_max_interim; ++interim) {
        http::response_parser<http::string_body> parser;
        parser.body_limit(64 * 1024);
        co_await http::async_read(stream, buffer, parser, net::awaitable(ec));
        if (ec) co_return false;
        const unsigned status = parser.get().result_int();
        if (status == 101) co_return false; // nobody asked to switch
        if (status >= 100 && status < 200) continue;
        response = parser.release();
        reusable = response.keep_alive() && buffer.size() == 0;
        co_return true;
    }
    co_return false;
}

} // namespace

TurnstileClient::TurnstileClient(asio::io_context& io, const TurnstileOptions& options)
    : m_options(options), m_url(model::parse_origin_url(options.verify_url)),
      m_pool(io, origin::OriginOptions{options.timeout, options.timeout, 8, ""}) {}

net::Task<bool> TurnstileClient::verify(std::string token, std::string remote_ip, net::ConnectionWatch& watch) {
    if (!m_url || token.empty() || token == "failed" || token.size() > k_max_turnstile_token) co_return false;
    http::request<http::string_body> request{http::verb::post, m_url->path_prefix.empty() ? "/" : m_url->path_prefix, 11};
    request.set(http::field::host, m_url->host_header());
    request.set(http::field::content_type, "application/x-www-form-urlencoded");
    request.set(http::field::accept, "application/json");
    request.set(http::field::user_agent, "wr");
    request.body() = siteverify_body(m_options.secret, token, remote_ip);
    request.keep_alive(true);
    request.prepare_payload();

    // The whole call, connecting included, within the timeout; a pooled connection the server
    // closed meanwhile is replaced once.
    const auto deadline = std::chrono::steady_clock::now() + m_options.timeout;
    http::response<http::string_body> response;
    bool answered = false;
    for (int attempt = 0; attempt < 2 && !answered; ++attempt) {
        origin::OriginError error = origin::OriginError::none;
        std::unique_ptr<origin::OriginConnection> connection =
            co_await m_pool.acquire(origin::OriginTarget{.url = *m_url, .cap = k_siteverify_cap}, watch, error, attempt == 0);
        if (!connection) break;
        watch.origin = &connection->tcp_socket();
        watch.deadline = deadline;
        const bool reused = connection->reused;
        bool reusable = false;
        answered = connection->tls ? co_await exchange(*connection->tls, request, response, reusable)
                                   : co_await exchange(connection->socket, request, response, reusable);
        watch.origin = nullptr;
        if (answered && reusable) m_pool.release(std::move(connection));
        if (!answered && (!reused || watch.expired)) break;
    }
    watch.origin = nullptr;
    watch.expire_never();
    if (!answered) {
        util::log_warn("turnstile", "siteverify did not answer in time or could not be reached; counting the token as failed");
        co_return false;
    }
    if (response.result() != http::status::ok) {
        util::log_warn("turnstile", "siteverify answered " + std::to_string(response.result_int()) + "; counting the token as failed");
        co_return false;
    }
    co_return siteverify_success(response.body());
}

} // namespace wr::edge
