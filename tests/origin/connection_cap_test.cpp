// The origin connection cap's bookkeeping: slots, waiting in arrival order across threads, and
// who gets a connection that finishes an exchange.
#include <doctest/doctest.h>

#include "origin/connection_cap.h"
#include "origin/origin_pool.h"

using wr::origin::CapSlot;
using wr::origin::ConnectionCap;
using wr::origin::OriginConnection;
using namespace std::chrono_literals;

namespace {

struct CapFixture {
    boost::asio::io_context io;
    std::shared_ptr<ConnectionCap> cap = std::make_shared<ConnectionCap>(2);
    const wr::net::SteadyTime start = std::chrono::steady_clock::now();

    std::shared_ptr<ConnectionCap::Waiter> wait(size_t thread, std::chrono::milliseconds after) {
        return cap->wait(io.get_executor(), thread, start + after);
    }
    std::unique_ptr<OriginConnection> connection() {
        auto made = std::make_unique<OriginConnection>(io.get_executor());
        made->slot = CapSlot(cap); // counted by the try_open that preceded it
        return made;
    }
};

} // namespace

TEST_CASE("origin::ConnectionCap opens up to its limit, then queues; a closed connection's slot goes to the oldest waiter") {
    CapFixture f;
    CHECK(f.cap->try_open());
    auto first = f.connection();
    CHECK(f.cap->try_open());
    auto second = f.connection();
    CHECK_FALSE(f.cap->try_open());
    CHECK(f.cap->figures().open == 2);

    const auto late = f.wait(0, 20ms);
    const auto early = f.wait(1, 10ms);
    CHECK(f.cap->figures().waiting == 2);
    CHECK_FALSE(f.cap->try_open()); // nobody jumps the queue

    first.reset(); // closes: its slot goes to the waiter who arrived first, on whichever thread
    CHECK(early->done);
    CHECK(early->granted_slot);
    CHECK_FALSE(late->done);
    second.reset();
    CHECK(late->granted_slot);
    CHECK(f.cap->figures().open == 2);
    CHECK(f.cap->figures().waiting == 0);
    CHECK(f.cap->figures().most_open == 2);
}

TEST_CASE("origin::ConnectionCap hands a finished connection to a waiter on its own thread, or closes it for an older one elsewhere") {
    CapFixture f;
    REQUIRE(f.cap->try_open());
    auto connection = f.connection();
    REQUIRE(f.cap->try_open());
    auto other = f.connection();
    bool close = false;

    SUBCASE("nobody waits: it is pooled") {
        auto back = f.cap->hand_over(std::move(connection), 0, f.start, close);
        CHECK(back);
        CHECK_FALSE(close);
    }
    SUBCASE("the oldest waiter is on this thread: it takes the connection") {
        const auto here = f.wait(0, 1ms);
        f.wait(1, 2ms);
        CHECK_FALSE(f.cap->hand_over(std::move(connection), 0, f.start, close));
        CHECK(here->done);
        CHECK(here->connection);
        CHECK_FALSE(close);
    }
    SUBCASE("the oldest waits on another thread, a local one well after: the connection closes, its slot goes there") {
        const auto elsewhere = f.wait(1, 1ms);
        const auto here = f.wait(0, 1ms + ConnectionCap::k_handover_slack + 1ms);
        auto back = f.cap->hand_over(std::move(connection), 0, f.start, close);
        REQUIRE(back);
        CHECK(close);
        back.reset();
        CHECK(elsewhere->granted_slot);
        CHECK_FALSE(here->done);
    }
    SUBCASE("a local waiter within the slack of the oldest takes it: no new connect") {
        const auto elsewhere = f.wait(1, 1ms);
        const auto here = f.wait(0, 1ms + ConnectionCap::k_handover_slack);
        CHECK_FALSE(f.cap->hand_over(std::move(connection), 0, f.start, close));
        CHECK(here->connection);
        CHECK_FALSE(elsewhere->done);
    }
}

TEST_CASE("origin::ConnectionCap: a waiter that gives up leaves the queue and is counted; one given something first keeps it") {
    CapFixture f;
    REQUIRE(f.cap->try_open());
    auto one = f.connection();
    REQUIRE(f.cap->try_open());
    auto two = f.connection();
    const auto patient = f.wait(0, 1ms);
    const auto impatient = f.wait(0, 2ms);
    CHECK(f.cap->give_up(*impatient, true));
    CHECK(f.cap->figures().timed_out == 1);
    CHECK(f.cap->figures().waiting == 1);
    one.reset();
    CHECK_FALSE(f.cap->give_up(*patient, true)); // the slot came first
    CHECK(patient->granted_slot);
    CHECK(f.cap->figures().timed_out == 1);
}

TEST_CASE("origin::ConnectionCap: raising the limit lets waiters in; 0 is unlimited but still counted") {
    CapFixture f;
    REQUIRE(f.cap->try_open());
    REQUIRE(f.cap->try_open());
    const auto waiter = f.wait(0, 1ms);
    f.cap->set_limit(3);
    CHECK(waiter->granted_slot);
    f.cap->set_limit(0);
    for (int i = 0; i < 10; ++i) CHECK(f.cap->try_open());
    CHECK(f.cap->figures().open == 13);
}

TEST_CASE("origin::ConnectionCap wakes a waiter on its own thread when a slot comes from another") {
    CapFixture f;
    REQUIRE(f.cap->try_open());
    auto one = f.connection();
    REQUIRE(f.cap->try_open());
    auto two = f.connection();
    const auto waiter = f.wait(0, 1ms);
    waiter->timer.expires_after(1h);
    bool woke = false;
    waiter->timer.async_wait([&](const boost::system::error_code&) { woke = true; });
    one.reset();
    CHECK_FALSE(woke); // posted to the waiter's thread, not run here
    f.io.run_for(1s);
    CHECK(woke);
}
