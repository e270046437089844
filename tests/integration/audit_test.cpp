// The audit log with the real `wr` binary and the real admin listener: changes made with the CLI,
// `wr apply` and the console's own requests are recorded with the caller's address; `wr audit`
// shows them; `wr backup` carries them; old entries go after the retention.
#include <doctest/doctest.h>

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "support/process.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::test::ProcessResult;
using wr::test::run_wr;
using wr::test::TestServer;

namespace {

ProcessResult wr_cli(TestServer& server, std::vector<std::string> arguments, const std::string& input = "") {
    arguments.insert(arguments.begin(), {"--api", server.admin_url(), "--token", server.admin_token()});
    return run_wr(arguments, {}, input);
}

void require_ok(const ProcessResult& result) { REQUIRE_MESSAGE(result.exit_code == 0, result.out << result.err); }

json entries_of(TestServer& server, const std::string& query = "") {
    const auto reply = server.get("/client/v4/audit_logs" + query);
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    return reply.body["result"];
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: changes from the CLI, wr apply and the console are in the audit log, and wr audit shows them") {
    TestServer server;
    server.create_zone();
    require_ok(wr_cli(server, {"rooms", "create", "--zone", "example.com", "--name", "shop", "--host", "shop.example.com",
                               "--total-active-users", "1000", "--new-users-per-minute", "300"}));
    require_ok(wr_cli(server, {"rooms", "update", "shop", "--total-active-users", "1500"}));
    const std::string document = R"({"zones":[{"name":"example.com","origin":"http://127.0.0.1:3000","waiting_rooms":[
        {"name":"shop","host":"shop.example.com","total_active_users":1500,"new_users_per_minute":400}]}]})";
    require_ok(wr_cli(server, {"apply", "-f", "-"}, document));
    // What the console sends when an operator presses "Queue everyone".
    const auto pressed = server.send("PATCH", "/client/v4/zones/example.com/waiting_rooms/shop", R"({"queue_all":true})",
                                     {{"Authorization", "Bearer " + server.admin_token()}, {"Content-Type", "application/json"},
                                      {"X-Wr-Client", "console"}});
    REQUIRE(pressed.status == 200);

    const json entries = entries_of(server);
    REQUIRE(entries.size() == 5);
    CHECK(entries[0]["via"] == "console");
    CHECK(entries[0]["changes"] == json::parse(R"j([{"field":"queue_all","before":false,"after":true}])j"));
    CHECK(entries[1]["via"] == "apply");
    CHECK(entries[1]["changes"] == json::parse(R"j([{"field":"new_users_per_minute","before":300,"after":400}])j"));
    CHECK(entries[2]["via"] == "cli");
    CHECK(entries[2]["changes"] == json::parse(R"j([{"field":"total_active_users","before":1000,"after":1500}])j"));
    CHECK(entries[3]["via"] == "cli");
    CHECK(entries[3]["action"] == "create");
    CHECK(entries[4]["object"]["type"] == "zone");
    for (const json& entry : entries) {
        CHECK(entry["address"] == "127.0.0.1"); // as the admin listener saw the caller
        CHECK(entry["token"]["name"] == "admin");
    }

    const ProcessResult table = wr_cli(server, {"audit", "--object", "shop", "--limit", "2"});
    require_ok(table);
    CHECK(table.out.starts_with("WHEN "));
    CHECK(table.out.find("console  update  waiting_room example.com/shop\n    queue_all: false -> true\n") != std::string::npos);
    CHECK(table.out.find("apply    update  waiting_room example.com/shop\n    new_users_per_minute: 300 -> 400\n") != std::string::npos);
    CHECK(table.out.find("1000 -> 1500") == std::string::npos); // --limit 2
    const ProcessResult listed = wr_cli(server, {"-o", "json", "audit", "--type", "zone"});
    require_ok(listed);
    CHECK(json::parse(listed.out).size() == 1);
    const ProcessResult wrong = wr_cli(server, {"audit", "--since", "yesterday"});
    CHECK(wrong.exit_code == 1);
    CHECK(wrong.err == "wr: error: --since yesterday: expected 30m, 1h, 2d or an ISO 8601 time\n");
}

TEST_CASE("integration: wr backup carries the audit log, and entries older than the retention are pruned") {
    TestServer server({}, [](wr::AppOptions& options) { options.audit_retention = 24h; });
    server.create_zone();
    const std::filesystem::path backup = server.data_dir() / "backup.db";
    require_ok(run_wr({"backup", "--data-dir", server.data_dir().string(), "--out", backup.string()}));
    {
        SQLite::Database copy(backup.string(), SQLite::OPEN_READONLY);
        SQLite::Statement rows(copy, "SELECT action, object_type, object_name FROM audit_log");
        REQUIRE(rows.executeStep());
        CHECK(rows.getColumn(0).getString() == "create");
        CHECK(rows.getColumn(2).getString() == "example.com");
    }
    server.clock().advance(23h);
    server.app().flush_analytics();
    CHECK(entries_of(server).size() == 1);
    server.clock().advance(2h);
    server.app().flush_analytics(); // the hourly prune
    CHECK(entries_of(server).empty());
}

} // TEST_SUITE
