// How long an edge node trusts the control node's word about a token.
#include <doctest/doctest.h>

#include "fleet/remote_tokens.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using wr::fleet::CacheUse;

TEST_CASE("fleet::cache_use: a good answer holds a minute, and a day while the control node is away; a refusal 10 s") {
    using Verdict = wr::fleet::TokenCheck::Verdict;
    const auto checked = wr::test::k_test_start;
    struct Case {
        Verdict verdict;
        std::chrono::milliseconds age;
        CacheUse use;
    };
    const Case cases[] = {
        {Verdict::valid, 0s, CacheUse::use},
        {Verdict::valid, 60s, CacheUse::use},
        {Verdict::valid, 61s, CacheUse::use_if_unreachable},
        {Verdict::valid, 24h, CacheUse::use_if_unreachable},
        {Verdict::valid, 24h + 1s, CacheUse::ask},
        {Verdict::invalid, 10s, CacheUse::use},
        {Verdict::invalid, 11s, CacheUse::ask},
        {Verdict::forbidden, 5s, CacheUse::use},
        {Verdict::forbidden, 11s, CacheUse::ask},
        {Verdict::unavailable, 0s, CacheUse::ask},
    };
    for (const Case& c : cases) {
        CAPTURE(static_cast<int>(c.verdict));
        CAPTURE(c.age.count());
        CHECK(wr::fleet::cache_use(c.verdict, checked, checked + c.age) == c.use);
    }
}
