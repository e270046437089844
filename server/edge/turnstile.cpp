// Turnstile's widget, token and siteverify call.
#include "edge/turnstile.h"

#include <nlohmann/json.hpp>

#include "util/escape.h"

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

} // namespace wr::edge
