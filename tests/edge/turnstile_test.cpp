// Turnstile's pure parts: the widget, the token in the URL, and siteverify's request and answer.
#include <doctest/doctest.h>

#include "edge/turnstile.h"

using wr::edge::TurnstileOptions;
using wr::model::TurnstileMode;

namespace {

TurnstileOptions keys() {
    TurnstileOptions options;
    options.site_key = "0x4AAAAAAA\"<site>";
    options.secret = "secret";
    return options;
}

} // namespace

TEST_CASE("edge: the Turnstile widget carries the site key and reloads the page with the token") {
    const std::string widget = wr::edge::turnstile_widget(TurnstileMode::invisible, keys());
    CHECK(widget.find("class=\"cf-turnstile\"") != std::string::npos);
    CHECK(widget.find("data-sitekey=\"0x4AAAAAAA&quot;&lt;site&gt;\"") != std::string::npos); // escaped
    CHECK(widget.find("data-appearance=\"interaction-only\"") != std::string::npos);
    CHECK(widget.find("searchParams.set(\"cf_wr_turnstile\"") != std::string::npos);
    CHECK(widget.find("data-error-callback=\"wrTurnstileFailed\"") != std::string::npos);
    CHECK(widget.find("<script src=\"https://challenges.cloudflare.com/turnstile/v0/api.js\" async defer></script>") !=
          std::string::npos);
    CHECK(wr::edge::turnstile_widget(TurnstileMode::visible_managed, keys()).find("data-appearance=\"always\"") != std::string::npos);
    CHECK(wr::edge::turnstile_widget(TurnstileMode::visible_non_interactive, keys()).find("data-appearance=\"always\"") !=
          std::string::npos);
    CHECK(wr::edge::turnstile_widget(TurnstileMode::off, keys()).empty());
    // Without both keys there is no widget, whatever the mode.
    TurnstileOptions no_secret = keys();
    no_secret.secret.clear();
    CHECK(wr::edge::turnstile_widget(TurnstileMode::visible_managed, no_secret).empty());
}

TEST_CASE("edge: the Turnstile token is taken out of the request target, leaving the rest") {
    const auto take = wr::edge::take_turnstile_token;
    CHECK_FALSE(take("/shop"));
    CHECK_FALSE(take("/shop?x=1"));
    CHECK_FALSE(take("/shop?xcf_wr_turnstile=1"));
    auto only = take("/shop?cf_wr_turnstile=0.abc-DEF_1");
    REQUIRE(only);
    CHECK(only->token == "0.abc-DEF_1");
    CHECK(only->target_without == "/shop");
    auto middle = take("/shop/item?a=1&cf_wr_turnstile=t%2Bk%3D&b=2");
    REQUIRE(middle);
    CHECK(middle->token == "t+k=");
    CHECK(middle->target_without == "/shop/item?a=1&b=2");
    auto last = take("/?a=1&cf_wr_turnstile=");
    REQUIRE(last);
    CHECK(last->token.empty());
    CHECK(last->target_without == "/?a=1");
    auto bare = take("/?cf_wr_turnstile");
    REQUIRE(bare);
    CHECK(bare->token.empty());
    CHECK(bare->target_without == "/");
}

TEST_CASE("edge: siteverify gets the secret, token and address form-encoded, and only success: true passes") {
    CHECK(wr::edge::siteverify_body("s e&c", "tok+en", "2001:db8::1") ==
          "secret=s%20e%26c&response=tok%2Ben&remoteip=2001%3Adb8%3A%3A1");
    CHECK(wr::edge::siteverify_success(R"({"success": true, "challenge_ts": "2026-11-22T10:00:00Z"})"));
    CHECK_FALSE(wr::edge::siteverify_success(R"({"success": false, "error-codes": ["invalid-input-response"]})"));
    CHECK_FALSE(wr::edge::siteverify_success(R"({"success": "true"})"));
    CHECK_FALSE(wr::edge::siteverify_success(R"({})"));
    CHECK_FALSE(wr::edge::siteverify_success(R"([true])"));
    CHECK_FALSE(wr::edge::siteverify_success("<html>502</html>"));
    CHECK_FALSE(wr::edge::siteverify_success(""));
}
