// Turnstile's widget, token and siteverify call.
#include "edge/turnstile.h"

#include <nlohmann/json.hpp>

#include "util/escape.h"
#include "util/log.h"

namespace wr::edge {
namespace {

std::string percent_decode(std::string_view text) {
    std::string decoded;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && util::hex_digit_value(text[i + 1]) >= 0 && util::hex_digit_value(text[i + 2]) >= 0) {
            decoded += static_cast<char>(util::hex_digit_value(text[i + 1]) * 16 + util::hex_digit_value(text[i + 2]));
            i += 2;
        } else {
            decoded += text[i] == '+' ? ' ' : text[i];
        }
    }
    return decoded;
}

} // namespace

std::string turnstile_widget(model::TurnstileMode mode, const TurnstileOptions& options) {
    if (mode == model::TurnstileMode::off || !options.active()) return "";
    // Invisible widgets show nothing unless Turnstile needs the visitor; the others always show.
    const char* appearance = mode == model::TurnstileMode::invisible ? "interaction-only" : "always";
    return "<div class=\"cf-turnstile\" data-sitekey=\"" + util::escape_html(options.site_key) + "\" data-appearance=\"" +
           appearance +
           "\" data-callback=\"wrTurnstileAnswer\" data-error-callback=\"wrTurnstileFailed\" "
           "data-expired-callback=\"wrTurnstileFailed\" data-timeout-callback=\"wrTurnstileFailed\"></div>\n"
           "<script>function wrTurnstileAnswer(token){var u=new URL(location.href);u.searchParams.set(\"" +
           std::string(k_turnstile_parameter) +
           "\",token||\"failed\");location.replace(u.href);}function wrTurnstileFailed(){wrTurnstileAnswer(\"failed\");return true;}"
           "</script>\n<script src=\"" + util::escape_html(options.script_url) + "\" async defer></script>";
}

std::optional<TokenInTarget> take_turnstile_token(std::string_view target) {
    const size_t question = target.find('?');
    if (question == std::string_view::npos) return std::nullopt;
    std::string_view query = target.substr(question + 1);
    std::optional<TokenInTarget> found;
    std::string kept;
    while (true) {
        const size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        const size_t equals = pair.find('=');
        if (pair.substr(0, equals) == k_turnstile_parameter) {
            if (!found) found.emplace();
            found->token = equals == std::string_view::npos ? std::string{} : percent_decode(pair.substr(equals + 1));
        } else if (!pair.empty()) {
            if (!kept.empty()) kept += '&';
            kept += pair;
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    if (!found) return std::nullopt;
    found->target_without = std::string(target.substr(0, question));
    if (!kept.empty()) found->target_without += "?" + kept;
    return found;
}

std::string siteverify_body(std::string_view secret, std::string_view token, std::string_view remote_ip) {
    return "secret=" + util::percent_encode(secret) + "&response=" + util::percent_encode(token) + "&remoteip=" + util::percent_encode(remote_ip);
}

bool siteverify_success(std::string_view response_body) {
    const nlohmann::json answer = nlohmann::json::parse(response_body, nullptr, false);
    if (!answer.is_object()) return false;
    const auto success = answer.find("success");
    return success != answer.end() && success->is_boolean() && success->get<bool>();
}

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
