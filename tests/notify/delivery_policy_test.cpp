// Webhook signatures and the back-off between attempts.
#include <doctest/doctest.h>

#include "notify/delivery_policy.h"
#include "support/test_server.h"
#include "util/secure.h"

using namespace std::chrono_literals;
using wr::notify::next_attempt;
using wr::notify::RetryPolicy;

TEST_CASE("notify::signature is HMAC-SHA256 of \"timestamp.body\" under the secret, as the docs' receiver checks it") {
    const std::string body = R"({"id":"abc","kind":"test"})";
    CHECK(wr::notify::signature("0123456789abcdef", 1795000000, body) ==
          "v1=" + wr::util::hmac_sha256_hex("0123456789abcdef", "1795000000." + body));
    CHECK(wr::notify::signature("0123456789abcdef", 1795000001, body) != wr::notify::signature("0123456789abcdef", 1795000000, body));
    CHECK(wr::notify::signature("0123456789abcdeF", 1795000000, body) != wr::notify::signature("0123456789abcdef", 1795000000, body));
}

TEST_CASE("notify::next_attempt doubles the delay from the first, caps it, and gives up after the window") {
    const RetryPolicy policy{10s, 1h, 24h};
    const wr::util::TimePoint created = wr::test::k_test_start;
    wr::util::TimePoint now = created;
    std::vector<int64_t> delays;
    for (int64_t attempts = 1; attempts <= 12; ++attempts) {
        const auto next = next_attempt(policy, created, attempts, now);
        REQUIRE(next);
        delays.push_back(std::chrono::duration_cast<std::chrono::seconds>(*next - now).count());
        now = *next;
    }
    CHECK(delays == std::vector<int64_t>{10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600, 3600});
    // Past 24 hours from the notification's creation: given up.
    CHECK_FALSE(next_attempt(policy, created, 40, created + 23h + 30min));
    CHECK(next_attempt(policy, created, 40, created + 22h));
    CHECK(next_attempt(policy, created, 1000, created) == created + 1h); // no overflow at many attempts
}
