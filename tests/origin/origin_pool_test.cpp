#include <doctest/doctest.h>

#include <fcntl.h>

#include "origin/origin_pool.h"

using wr::origin::OriginConnection;
using wr::origin::OriginOptions;
using wr::origin::OriginPool;
using wr::net::SteadyTime;
using wr::tcp;
using namespace std::chrono_literals;

namespace {

// A connection of the pool with a socket of its own (so closing it is visible as a closed descriptor).
std::unique_ptr<OriginConnection> pooled_connection(boost::asio::io_context& io, int& descriptor) {
    auto connection = std::make_unique<OriginConnection>(io.get_executor());
    connection->key = "http://127.0.0.1:8080";
    connection->socket.open(tcp::v4());
    descriptor = connection->socket.native_handle();
    return connection;
}

bool is_open(int descriptor) { return ::fcntl(descriptor, F_GETFD) != -1; }

} // namespace

TEST_CASE("origin pool: connections unused for longer than max_idle_time are closed, fresher ones kept") {
    boost::asio::io_context io;
    OriginOptions options;
    options.max_idle_time = 30s;
    OriginPool pool(io, options);
    const SteadyTime start = std::chrono::steady_clock::now();
    int stale = -1, fresh = -1;
    pool.release(pooled_connection(io, stale), start);
    pool.release(pooled_connection(io, fresh), start + 20s);
    REQUIRE(pool.idle_connections() == 2);

    pool.close_idle(start + 30s); // the first has been idle for exactly the limit: kept
    CHECK(pool.idle_connections() == 2);
    CHECK(is_open(stale));

    pool.close_idle(start + 31s);
    CHECK(pool.idle_connections() == 1);
    CHECK_FALSE(is_open(stale));
    CHECK(is_open(fresh));

    pool.close_idle(start + 51s);
    CHECK(pool.idle_connections() == 0);
    CHECK_FALSE(is_open(fresh));
}

TEST_CASE("origin pool: a connection with bytes still buffered is closed, not kept") {
    boost::asio::io_context io;
    OriginPool pool(io, OriginOptions{});
    int descriptor = -1;
    auto connection = pooled_connection(io, descriptor);
    const auto [space, room] = connection->in.prepare(16, 16);
    REQUIRE(room >= 1);
    space[0] = 'H';
    connection->in.commit(1);
    pool.release(std::move(connection));
    CHECK(pool.idle_connections() == 0);
    CHECK_FALSE(is_open(descriptor));
}

TEST_CASE("origin pool: it keeps at most max_idle_per_origin connections per origin") {
    boost::asio::io_context io;
    OriginOptions options;
    options.max_idle_per_origin = 2;
    OriginPool pool(io, options);
    int descriptors[3];
    for (int& descriptor : descriptors) pool.release(pooled_connection(io, descriptor));
    CHECK(pool.idle_connections() == 2);
    CHECK(is_open(descriptors[0]));
    CHECK(is_open(descriptors[1]));
    CHECK_FALSE(is_open(descriptors[2]));
}
