#include "edge/turnstile_client.h"

#include "util/log.h"

namespace wr::edge {

TurnstileClient::TurnstileClient(asio::io_context& io, const TurnstileOptions& options)
    : m_options(options), m_url(model::parse_origin_url(options.verify_url)),
      m_pool(io, OriginOptions{options.timeout, options.timeout, 64 * 1024, 8}) {}

asio::awaitable<bool> TurnstileClient::verify(std::string token, std::string remote_ip) {
    if (!m_url || token.empty() || token == "failed" || token.size() > k_max_turnstile_token) co_return false;
    Request request{http::verb::post, m_url->path_prefix.empty() ? "/" : m_url->path_prefix, 11};
    request.set(http::field::host, m_url->host_header());
    request.set(http::field::content_type, "application/x-www-form-urlencoded");
    request.set(http::field::accept, "application/json");
    request.set(http::field::user_agent, "wr");
    request.body() = siteverify_body(m_options.secret, token, remote_ip);
    request.keep_alive(true);
    request.prepare_payload();
    const OriginReply reply = co_await m_pool.exchange(*m_url, request);
    if (reply.error != OriginError::none) {
        util::log_warn("turnstile", "siteverify did not answer in time or could not be reached; counting the token as failed");
        co_return false;
    }
    if (reply.response.result() != http::status::ok) {
        util::log_warn("turnstile", "siteverify answered " + std::to_string(reply.response.result_int()) + "; counting the token as failed");
        co_return false;
    }
    co_return siteverify_success(reply.response.body());
}

} // namespace wr::edge
