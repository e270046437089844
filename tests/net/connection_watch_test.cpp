// A connection's deadline, and the sooner one that holds only while others want what it holds.
#include <doctest/doctest.h>

#include <atomic>

#include "net/connection_watch.h"

using wr::net::ConnectionWatch;
using namespace std::chrono_literals;

TEST_CASE("net::ConnectionWatch: the sooner deadline holds only while the count it watches is above zero, until a new deadline") {
    ConnectionWatch watch;
    const auto start = std::chrono::steady_clock::now();
    watch.expire_at(start + 30s);
    std::atomic<int64_t> waiting{0};
    watch.expire_sooner_while(waiting, start + 5s);
    CHECK_FALSE(watch.past_deadline(start + 1s));
    CHECK_FALSE(watch.past_deadline(start + 6s)); // nobody waits
    waiting = 2;
    CHECK_FALSE(watch.past_deadline(start + 4s)); // not yet
    CHECK(watch.past_deadline(start + 6s));
    waiting = 0;
    CHECK_FALSE(watch.past_deadline(start + 6s));
    CHECK(watch.past_deadline(start + 30s)); // the deadline itself, whatever the count
    waiting = 1;
    watch.expire_at(start + 30s); // a new deadline clears the sooner one
    CHECK_FALSE(watch.past_deadline(start + 6s));
    watch.expire_sooner_while(waiting, start + 5s);
    watch.expire_never();
    CHECK_FALSE(watch.past_deadline(start + 6s));
}
