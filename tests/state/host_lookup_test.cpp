#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "state/host_lookup.h"

using namespace std::chrono_literals;
using wr::state::addresses_within;

TEST_CASE("host lookup: a name server that does not answer costs the limit, not its own timeouts") {
    // A lookup that hangs for two seconds (a name server gone quiet), waited for 100 ms.
    auto finished = std::make_shared<std::atomic<bool>>(false);
    const auto hanging = [finished](const std::string&) {
        std::this_thread::sleep_for(2s);
        *finished = true;
        return std::vector<std::string>{"192.0.2.1"};
    };
    const auto started = std::chrono::steady_clock::now();
    const auto addresses = addresses_within("redis.internal", wr::util::Milliseconds{100}, hanging);
    const auto took = std::chrono::steady_clock::now() - started;
    CHECK_FALSE(addresses.has_value());
    CHECK(took >= 100ms);
    CHECK(took < 1s);
    CHECK_FALSE(*finished);
    // The next sync asks again while that lookup still hangs: it waits for the same one rather
    // than leaving another thread behind.
    auto looked_up_again = std::make_shared<std::atomic<bool>>(false);
    const auto again = [looked_up_again](const std::string&) {
        *looked_up_again = true;
        return std::vector<std::string>{"192.0.2.2"};
    };
    CHECK_FALSE(addresses_within("redis.internal", wr::util::Milliseconds{100}, again).has_value());
    CHECK_FALSE(*looked_up_again);
}

TEST_CASE("host lookup: a quick answer, a name without addresses, and numeric addresses, which are not looked up") {
    const auto quick = [](const std::string& host) {
        return host == "cache.internal" ? std::vector<std::string>{"192.0.2.1", "2001:db8::1"} : std::vector<std::string>{};
    };
    CHECK(addresses_within("cache.internal", wr::util::Milliseconds{1000}, quick) == std::vector<std::string>{"192.0.2.1", "2001:db8::1"});
    CHECK(addresses_within("nowhere.internal", wr::util::Milliseconds{1000}, quick) == std::vector<std::string>{});
    const auto never = [](const std::string&) -> std::vector<std::string> { throw std::logic_error("looked up"); };
    CHECK(addresses_within("10.0.0.5", wr::util::Milliseconds{1000}, never) == std::vector<std::string>{"10.0.0.5"});
    CHECK(addresses_within("::1", wr::util::Milliseconds{1000}, never) == std::vector<std::string>{"::1"});
    // The system's resolver: localhost is in /etc/hosts. (Where ::1 is listed for it too, IPv4
    // comes first; a machine without it, as CI's, checks only that the resolver is asked.)
    const auto local = addresses_within("localhost", wr::util::Milliseconds{2000});
    REQUIRE(local.has_value());
    REQUIRE_FALSE(local->empty());
    CHECK(local->front() == "127.0.0.1");
}
