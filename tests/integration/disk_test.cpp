// A data directory that fills up under a running `wr serve`: every write gets a clear 503 naming
// the problem and changes nothing, reads go on, the edge keeps admitting on the configuration it
// has, and writes work again once the disk has room. A read-only data directory stops `wr serve`
// at start with one clear line. The directories are a small tmpfs or a read-only bind mount in a
// mount namespace of wr's own (unshare -m), so these need root. (A directory that turns read-only
// under a running server is the same 503: tests/store/database_test.cpp checks the mapping.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <sys/wait.h>
#include <cstdlib>
#include <fstream>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "support/process.h"
#include "support/shop_paths.h"
#include "support/temp_dir.h"

using wr::test::k_rooms;

namespace {

using json = nlohmann::json;

// `wr serve` whose data directory is a 4 MB tmpfs that only it (and /proc/<pid>/root) sees.
struct ServeOnSmallDisk {
    explicit ServeOnSmallDisk(const std::filesystem::path& data_dir)
        : process({"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                   "mount -t tmpfs -o size=4m,mode=0700 wr-test " + data_dir.string() + " && exec " + WR_BINARY +
                       " serve --data-dir " + data_dir.string() +
                       " --admin-listen 127.0.0.1:0 --edge-listen 127.0.0.1:0 --edge-threads 1"},
                  "API listening on", true),
          // The directory as wr sees it, through its own mount namespace.
          seen(std::filesystem::path("/proc/" + std::to_string(process.pid()) + "/root") / data_dir.relative_path()) {
        const std::string& ready = process.ready_line();
        admin = std::make_unique<httplib::Client>("127.0.0.1", std::stoi(ready.substr(ready.rfind(':') + 1)));
        const std::string& output = process.output();
        edge_port = wr::test::port_after(output, "edge: listening on");
        token = wr::test::read_admin_token(seen);
        REQUIRE(!token.empty());
    }

    httplib::Result call(const std::string& method, const std::string& path, const json& body = nullptr,
                         const std::string& with_token = "") const {
        const httplib::Headers headers{{"Authorization", "Bearer " + (with_token.empty() ? token : with_token)}};
        if (method == "POST") return admin->Post(path, headers, body.dump(), "application/json");
        return admin->Get(path, headers);
    }

    wr::test::BackgroundProcess process;
    std::filesystem::path seen;
    std::unique_ptr<httplib::Client> admin;
    int edge_port = 0;
    std::string token;
};

json room_named(const std::string& name) {
    return {{"name", name}, {"host", name + ".example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}};
}

// Writes zeros until the file system says it is full.
void fill(const std::filesystem::path& file) {
    std::FILE* out = std::fopen(file.c_str(), "w");
    REQUIRE(out != nullptr);
    const std::string block(64 * 1024, '\0');
    while (std::fwrite(block.data(), 1, block.size(), out) == block.size() && std::fflush(out) == 0) {}
    std::fclose(out);
}

size_t room_count(const ServeOnSmallDisk& wr) {
    const auto reply = wr.call("GET", k_rooms + "?per_page=1000");
    REQUIRE(reply);
    REQUIRE(reply->status == 200);
    return json::parse(reply->body)["result"].size();
}

// A new visitor on the edge reaches the origin (the room has room to spare).
bool edge_admits(int port) {
    httplib::Client edge("127.0.0.1", port);
    for (int attempt = 0; attempt < 30; ++attempt) { // the edge reloads its configuration within 200 ms
        const auto reply = edge.Get("/", {{"Host", "shop.example.com"}});
        if (reply && reply->status == 200 && reply->get_header_value("X-Demo-Origin") == "1") return true;
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    return false;
}

// The 503 with code 1013 that says why nothing was saved.
void check_not_saved(const httplib::Result& reply, const std::string& why) {
    REQUIRE(reply);
    CHECK(reply->status == 503);
    const json body = json::parse(reply->body, nullptr, false);
    REQUIRE(body.is_object());
    CHECK(body["success"] == false);
    CHECK(body["errors"][0]["code"] == 1013);
    const std::string message = body["errors"][0]["message"];
    CAPTURE(message);
    CHECK(message.find(why) != std::string::npos);
    CHECK(message.find("nothing was changed") != std::string::npos);
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("disk: a full data directory refuses writes with a clear 503; reads and the edge carry on") {
    if (::geteuid() != 0 || std::system("unshare -m true 2>/dev/null") != 0) {
        MESSAGE("skipped: mounting a small tmpfs for the data directory needs root");
        return;
    }
    wr::test::TestOrigin origin;
    wr::test::TempDir temp;
    const std::filesystem::path data_dir = temp.path() / "data";
    std::filesystem::create_directories(data_dir);
    ServeOnSmallDisk wr(data_dir);

    auto created = wr.call("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", origin.url()}});
    REQUIRE(created);
    REQUIRE(created->status == 200);
    REQUIRE(wr.call("POST", k_rooms, room_named("shop"))->status == 200);
    // A read token never used yet: its first use would record the time, which a full disk refuses.
    const auto token_reply = wr.call("POST", "/client/v4/tokens", {{"name", "reader"}, {"scope", "read"}});
    REQUIRE(token_reply);
    REQUIRE(token_reply->status == 200);
    const std::string reader = json::parse(token_reply->body)["result"]["token"];
    REQUIRE(edge_admits(wr.edge_port));

    fill(wr.seen / "filler");
    check_not_saved(wr.call("POST", k_rooms, room_named("sale")), "full");
    const auto read = wr.call("GET", k_rooms, nullptr, reader);
    REQUIRE(read);
    CHECK(read->status == 200);
    CHECK(room_count(wr) == 1);
    CHECK(edge_admits(wr.edge_port));
    std::filesystem::remove(wr.seen / "filler");

    // The disk is back: the same write is saved, and wr never stopped.
    CHECK(wr.call("POST", k_rooms, room_named("sale"))->status == 200);
    CHECK(room_count(wr) == 2);
    CHECK(!wr.process.wait_exit(std::chrono::milliseconds{0}).has_value());
}

TEST_CASE("disk: a read-only data directory stops wr serve at start with one line naming it") {
    if (::geteuid() != 0 || std::system("unshare -m true 2>/dev/null") != 0) {
        MESSAGE("skipped: a read-only bind mount needs root");
        return;
    }
    wr::test::TempDir temp;
    const std::filesystem::path data_dir = temp.path() / "data";
    {
        // A data directory made by an earlier run.
        wr::test::BackgroundProcess first({WR_BINARY, "serve", "--data-dir", data_dir.string(), "--admin-listen", "127.0.0.1:0",
                                           "--edge-listen", "127.0.0.1:0"},
                                          "API listening on", true);
    }
    const std::string dir = temp.path().string();
    const std::string command = "unshare -m --propagation private sh -c 'mount --bind " + dir + " " + dir +
                                " && mount -o remount,bind,ro " + dir + " && exec " + WR_BINARY + " serve --data-dir " +
                                data_dir.string() + " --admin-listen 127.0.0.1:0 --edge-listen 127.0.0.1:0' 2>&1";
    std::string output;
    std::FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    const int status = ::pclose(pipe);
    CAPTURE(output);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(output.rfind("wr: error: ", 0) == 0);
    CHECK(output.find(data_dir.string()) != std::string::npos);
    CHECK(output.find("Read-only file system") != std::string::npos);
    CHECK(std::count(output.begin(), output.end(), '\n') == 1);
}

} // TEST_SUITE
