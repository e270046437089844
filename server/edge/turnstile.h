#pragma once
// Cloudflare Turnstile in the queue page, as described in "Banish bots from your Waiting Room and
// improve wait times for real users"
// (https://blog.cloudflare.com/banish-bots-from-your-waiting-room-and-improve-wait-times-for-real-users/):
// the widget's HTML, the token the page sends back in `?cf_wr_turnstile=`, and the siteverify
// exchange that judges it. Pure: TurnstileClient (edge/turnstile_client.h) makes the one network call.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "model/enums.h"

namespace wr::edge {

inline constexpr std::string_view k_turnstile_parameter = "cf_wr_turnstile";
// Turnstile tokens are at most 2048 characters.
inline constexpr size_t k_max_turnstile_token = 2048;

struct TurnstileOptions {
    std::string site_key;
    std::string secret;
    std::string verify_url = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
    std::string script_url = "https://challenges.cloudflare.com/turnstile/v0/api.js";
    std::chrono::milliseconds timeout{5000};

    // Without both keys Turnstile stays off whatever the rooms say.
    bool active() const { return !site_key.empty() && !secret.empty(); }
};

// The widget for the `turnstile` template variable ("" for mode off). When the challenge ends —
// solved, failed or timed out — the page reloads itself with the token (or "failed").
std::string turnstile_widget(model::TurnstileMode mode, const TurnstileOptions& options);

struct TokenInTarget {
    std::string token;           // percent-decoded
    std::string target_without;  // the request target with the parameter removed
};
// Finds the token parameter in a request target; nullopt when it is not there.
std::optional<TokenInTarget> take_turnstile_token(std::string_view target);

// The application/x-www-form-urlencoded body of a siteverify request.
std::string siteverify_body(std::string_view secret, std::string_view token, std::string_view remote_ip);
// Whether a siteverify answer says the token is good ({"success": true, …}); anything else is not.
bool siteverify_success(std::string_view response_body);

} // namespace wr::edge
