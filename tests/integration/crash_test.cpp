// SIGKILL in the middle of a large `wr apply`: after a restart the configuration is all there
// or not there at all, never a part of it (the apply is one SQLite transaction, WAL, synchronous FULL).
#include <doctest/doctest.h>

#include <csignal>
#include <future>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/process.h"
#include "support/temp_dir.h"
#include "util/files.h"

using wr::test::port_after;
using wr::test::read_admin_token;

namespace {

using json = nlohmann::json;

// 100 rooms, each with two events and three rules.
json large_configuration() {
    json rooms = json::array();
    for (int i = 0; i < 100; ++i) {
        const std::string name = "room" + std::to_string(i);
        json events = json::array();
        for (int e = 0; e < 2; ++e)
            events.push_back({{"name", "launch" + std::to_string(e)},
                              {"event_start_time", "2030-0" + std::to_string(e + 1) + "-01T10:00:00Z"},
                              {"event_end_time", "2030-0" + std::to_string(e + 1) + "-01T12:00:00Z"},
                              {"total_active_users", 500},
                              {"new_users_per_minute", 250}});
        json rules = json::array();
        for (int r = 0; r < 3; ++r)
            rules.push_back({{"action", "bypass_waiting_room"},
                             {"expression", "http.request.uri.path eq \"/health" + std::to_string(r) + "\""},
                             {"description", "rule " + std::to_string(r)}});
        rooms.push_back({{"name", name}, {"host", name + ".example.com"}, {"total_active_users", 200},
                         {"new_users_per_minute", 200}, {"events", events}, {"rules", rules}});
    }
    return {{"zones", json::array({{{"name", "example.com"}, {"origin", "http://127.0.0.1:1"}, {"waiting_rooms", rooms}}})}};
}

struct Counts {
    size_t rooms = 0, events = 0, rules = 0;
};

Counts count(const json& exported) {
    Counts counts;
    for (const auto& zone : exported.value("zones", json::array()))
        for (const auto& room : zone.value("waiting_rooms", json::array())) {
            ++counts.rooms;
            counts.events += room.value("events", json::array()).size();
            counts.rules += room.value("rules", json::array()).size();
        }
    return counts;
}

std::unique_ptr<wr::test::BackgroundProcess> serve(const std::filesystem::path& data_dir) {
    return std::make_unique<wr::test::BackgroundProcess>(
        std::vector<std::string>{WR_BINARY, "serve", "--data-dir", data_dir.string(), "--admin-listen", "127.0.0.1:0",
                                 "--edge-listen", "127.0.0.1:0", "--edge-threads", "1"},
        "API listening on", true);
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("crash: SIGKILL during a 100-room wr apply leaves all of it or none after a restart") {
    wr::test::TempDir temp;
    const std::filesystem::path file = temp.path() / "config.json";
    wr::util::write_text_file(file, large_configuration().dump());
    int all = 0, none = 0;
    // Kills at several moments, from before the request arrives to after it committed.
    for (const int delay_ms : {5, 30, 60, 100, 150, 250, 400}) {
        CAPTURE(delay_ms);
        const std::filesystem::path data_dir = temp.path() / ("data" + std::to_string(delay_ms));
        {
            auto wr = serve(data_dir);
            const std::string api = "http://127.0.0.1:" + std::to_string(port_after(wr->ready_line(), "API listening on"));
            auto apply = std::async(std::launch::async, [&] {
                return wr::test::run_wr({"--api", api, "--token", read_admin_token(data_dir), "apply", "-f", file.string()});
            });
            std::this_thread::sleep_for(std::chrono::milliseconds{delay_ms});
            wr->send_signal(SIGKILL);
            REQUIRE(wr->wait_exit(std::chrono::seconds{10}).has_value());
            apply.get();
        }
        auto restarted = serve(data_dir);
        const std::string api = "http://127.0.0.1:" + std::to_string(port_after(restarted->ready_line(), "API listening on"));
        const wr::test::ProcessResult exported = wr::test::run_wr({"--api", api, "--token", read_admin_token(data_dir), "export"});
        REQUIRE_MESSAGE(exported.exit_code == 0, exported.err);
        const Counts counts = count(json::parse(exported.out));
        CAPTURE(counts.rooms);
        CAPTURE(counts.events);
        CAPTURE(counts.rules);
        const bool everything = counts.rooms == 100 && counts.events == 200 && counts.rules == 300;
        const bool nothing = counts.rooms == 0 && counts.events == 0 && counts.rules == 0;
        CHECK((everything || nothing));
        (everything ? all : none) += 1;
    }
    MESSAGE("after SIGKILL: " << all << " restarts found all of the apply, " << none << " found none");
}

} // TEST_SUITE
