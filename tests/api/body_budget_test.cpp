// The admin listener's body budget: reservations granted first come, first served, a body larger
// than the budget alone, and a wait that ends (timer cancelled) leaving its place to the next.
#include <doctest/doctest.h>

#include "net/asio.h"

#include <string>
#include <vector>

#include "api/body_budget.h"

namespace {

using wr::api::BodyBudget;
namespace net = wr::net;

struct Line {
    wr::asio::io_context io;
    // Keeps poll() from finding the loop out of work (and stopped) between the steps of a test.
    wr::asio::executor_work_guard<wr::asio::io_context::executor_type> busy = wr::asio::make_work_guard(io);
    BodyBudget budget{100};
    std::vector<std::string> granted; // names, in the order their reservations ended
    std::vector<std::unique_ptr<net::Timer>> timers;

    static net::Task<> reserve(Line& line, std::string name, size_t bytes, net::Timer& timer) {
        const bool ok = co_await line.budget.reserve(bytes, timer);
        line.granted.push_back(name + (ok ? "" : " refused"));
    }
    // Starts a reservation; returns its timer (an hour: only a cancel ends the wait early).
    net::Timer& ask(const std::string& name, size_t bytes) {
        timers.push_back(std::make_unique<net::Timer>(io.get_executor(), std::chrono::hours{1}));
        wr::asio::co_spawn(io, reserve(*this, name, bytes, *timers.back()), wr::asio::detached);
        io.poll();
        return *timers.back();
    }
    void release(size_t bytes) {
        budget.release(bytes);
        io.poll();
    }
};

} // namespace

TEST_CASE("api::BodyBudget grants reservations in order of arrival, and a larger one than the budget alone") {
    Line line;
    line.ask("a", 60);
    line.ask("b", 60);
    line.ask("c", 10); // would fit, but waits behind b
    CHECK(line.granted == std::vector<std::string>{"a"});
    CHECK(line.budget.in_use() == 60);
    line.release(60);
    CHECK(line.granted == std::vector<std::string>{"a", "b", "c"});
    CHECK(line.budget.in_use() == 70);

    line.ask("large", 500);
    CHECK(line.granted.size() == 3);
    line.release(60);
    CHECK(line.granted.size() == 3);
    line.release(10);
    CHECK(line.granted.back() == "large");
    CHECK(line.budget.in_use() == 500);
    line.release(500);
    CHECK(line.budget.in_use() == 0);
}

TEST_CASE("api::BodyBudget: a wait that ends refused gives its place to the next in line") {
    Line line;
    line.ask("a", 90);
    net::Timer& b = line.ask("b", 50);
    line.ask("c", 10);
    b.cancel();
    line.io.poll();
    CHECK(line.granted == std::vector<std::string>{"a", "b refused", "c"});
    CHECK(line.budget.in_use() == 100);
}
