// The real `wr` binary against a running server: what an operator types and sees.
#include <doctest/doctest.h>

#include <filesystem>
#include <httplib.h>
#include <mutex>
#include <thread>

#include "store/migrate.h"
#include "support/process.h"
#include "support/test_server.h"
#include "util/files.h"

using nlohmann::json;
using wr::test::HttpReply;
using wr::test::ProcessResult;
using wr::test::run_wr;
using wr::test::TestServer;

namespace {

// Runs wr against the test server with its admin token.
ProcessResult wr_cli(TestServer& server, std::vector<std::string> arguments, const std::string& input = "") {
    arguments.insert(arguments.begin(), {"--api", server.admin_url(), "--token", server.admin_token()});
    return run_wr(arguments, {}, input);
}

json json_out(const ProcessResult& result) {
    const json parsed = json::parse(result.out, nullptr, false);
    REQUIRE_MESSAGE(!parsed.is_discarded(), result.out << result.err);
    return parsed;
}

void require_ok(const ProcessResult& result) { REQUIRE_MESSAGE(result.exit_code == 0, result.out << result.err); }

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: wr creates a zone and the design card's room, and lists them") {
    TestServer server;
    require_ok(wr_cli(server, {"zones", "create", "example.com", "--origin", "http://127.0.0.1:3000"}));
    const ProcessResult created = wr_cli(server, {"rooms", "create", "--zone", "example.com", "--name", "shop", "--host",
                                                  "shop.example.com", "--total-active-users", "1000", "--new-users-per-minute", "300"});
    require_ok(created);
    CHECK(created.out.find("total_active_users                     1000\n") != std::string::npos);

    const ProcessResult table = wr_cli(server, {"rooms", "list"});
    require_ok(table);
    CHECK(table.out.starts_with("ID                                NAME  ROUTE             PATH  ACTIVE  NEW/MIN  METHOD  SUSPENDED  GUARD\n"));
    CHECK(table.out.find("shop  shop.example.com  /     1000    300      fifo    false      false\n") != std::string::npos);

    const json rooms = json_out(wr_cli(server, {"-o", "json", "rooms", "list"}));
    REQUIRE(rooms.is_array()); // the bare result, never the envelope
    CHECK(rooms[0]["name"] == "shop");
    const json room = json_out(wr_cli(server, {"-o", "json", "rooms", "get", "shop"}));
    CHECK(room["new_users_per_minute"] == 300);
    CHECK(json_out(wr_cli(server, {"-o", "json", "zones", "get", "example.com"}))["origin"] == "http://127.0.0.1:3000");
}

TEST_CASE("integration: wr reports the API's message on stderr with exit 1, and usage errors with exit 2") {
    TestServer server;
    server.create_zone();
    const ProcessResult invalid = wr_cli(server, {"rooms", "create", "--zone", "example.com", "--name", "shop", "--host",
                                                  "shop.example.com", "--total-active-users", "10", "--new-users-per-minute", "300"});
    CHECK(invalid.exit_code == 1);
    CHECK(invalid.err == "wr: error: --total-active-users must be at least 200\n"); // the flag typed, not the API's field
    CHECK(invalid.out.empty());

    const ProcessResult missing = wr_cli(server, {"rooms", "get", "nothing"});
    CHECK(missing.exit_code == 1);
    CHECK(missing.err == "wr: error: no waiting room has the id or name nothing\n");

    const ProcessResult usage = wr_cli(server, {"rooms", "create", "--name", "x"});
    CHECK(usage.exit_code == 2);
    CHECK(usage.err.starts_with("wr: error: --zone is required"));

    const ProcessResult unreachable = run_wr({"--api", "http://127.0.0.1:1", "--token", "x", "zones", "list"});
    CHECK(unreachable.exit_code == 1);
    CHECK(unreachable.err.starts_with("wr: error: cannot reach the admin API at http://127.0.0.1:1 (connection refused or failed)"));

    const ProcessResult no_token = run_wr({"--api", "http://10.0.0.1:9090", "zones", "list"});
    CHECK(no_token.exit_code == 1);
    CHECK(no_token.err.starts_with("wr: error: no API token"));
}

TEST_CASE("integration: wr uses the data dir's admin token for a local API") {
    TestServer server;
    const ProcessResult listed =
        run_wr({"--api", server.admin_url(), "--data-dir", server.data_dir().string(), "-o", "json", "zones", "list"});
    require_ok(listed);
    CHECK(json_out(listed) == json::array());
    const ProcessResult from_env = run_wr({"-o", "json", "zones", "list"}, {{"WR_API_URL", server.admin_url()}, {"WR_API_TOKEN", server.admin_token()}});
    require_ok(from_env);
}

TEST_CASE("integration: wr manages rooms by name: update, suspend, resume, status, delete") {
    TestServer server;
    server.create_zone();
    server.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}});
    const json updated = json_out(wr_cli(server, {"-o", "json", "rooms", "update", "shop", "--queueing-method", "random",
                                                  "--route", "shop.example.com/cart", "--cookie-suffix", "shop", "--samesite", "lax",
                                                  "--origin-revoke", "--no-json-response", "--join-limit-per-ip-per-minute", "30"}));
    CHECK(updated["queueing_method"] == "random");
    CHECK(updated["join_limit_per_ip_per_minute"] == 30);
    CHECK(updated["additional_routes"] == json::array({{{"host", "shop.example.com"}, {"path", "/cart"}}}));
    CHECK(updated["cookie_attributes"]["samesite"] == "lax");
    CHECK(updated["enabled_origin_commands"] == json::array({"revoke"}));
    CHECK(updated["total_active_users"] == 1000); // untouched

    const ProcessResult suspended = wr_cli(server, {"rooms", "suspend", "shop"});
    require_ok(suspended);
    CHECK(suspended.out == "suspended waiting room shop\n");
    CHECK(json_out(wr_cli(server, {"-o", "json", "rooms", "status", "shop"}))["status"] == "suspended");
    require_ok(wr_cli(server, {"rooms", "resume", "shop"}));
    CHECK(json_out(wr_cli(server, {"-o", "json", "rooms", "status", "shop"}))["status"] == "not_queueing");

    // The same name in two zones needs --zone.
    server.create_zone("other.com");
    server.create_room("other.com", {{"name", "shop"}, {"host", "other.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}});
    const ProcessResult ambiguous = wr_cli(server, {"rooms", "get", "shop"});
    CHECK(ambiguous.exit_code == 1);
    CHECK(ambiguous.err == "wr: error: several zones have a waiting room named shop (example.com, other.com); add --zone\n");
    CHECK(json_out(wr_cli(server, {"-o", "json", "rooms", "get", "shop", "--zone", "other.com"}))["host"] == "other.com");

    const ProcessResult deleted = wr_cli(server, {"rooms", "delete", "shop", "--zone", "other.com"});
    require_ok(deleted);
    CHECK(deleted.out == "deleted waiting room shop\n");
    require_ok(wr_cli(server, {"rooms", "get", "shop"}));
}

TEST_CASE("integration: wr schedules events with relative times and edits rules by position") {
    TestServer server;
    server.create_zone();
    server.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}});
    // Relative times resolve against the real clock; the server's fake clock is earlier, so they lie ahead.
    const json event = json_out(wr_cli(server, {"-o", "json", "events", "create", "shop", "--name", "launch", "--prequeue", "+10m",
                                                "--start", "+30m", "--end", "+2h", "--shuffle"}));
    CHECK(event["shuffle_at_event_start"] == true);
    CHECK(event["prequeue_start_time"].is_string());
    const ProcessResult listed = wr_cli(server, {"events", "list", "shop"});
    CHECK(listed.out.find("launch") != std::string::npos);
    CHECK(json_out(wr_cli(server, {"-o", "json", "events", "details", "shop", "launch"}))["total_active_users"] == 1000);
    CHECK(json_out(wr_cli(server, {"-o", "json", "events", "update", "shop", "launch", "--session-duration", "10"}))["session_duration"] == 10);
    const ProcessResult bad_time = wr_cli(server, {"events", "create", "shop", "--name", "x", "--start", "+5x", "--end", "+1h"});
    CHECK(bad_time.exit_code == 1);
    CHECK(bad_time.err.starts_with("wr: error: cannot read the time +5x"));
    require_ok(wr_cli(server, {"events", "delete", "shop", "launch"}));

    require_ok(wr_cli(server, {"rules", "create", "shop", "--expression", "http.request.uri.path eq \"/health\"", "--description", "health"}));
    require_ok(wr_cli(server, {"rules", "create", "shop", "--expression", "starts_with(http.request.uri.path, \"/static/\")",
                               "--description", "assets"}));
    const ProcessResult table = wr_cli(server, {"rules", "list", "shop"});
    CHECK(table.out.find("1  ") != std::string::npos);
    const json moved = json_out(wr_cli(server, {"-o", "json", "rules", "update", "shop", "assets", "--position", "1", "--no-enabled"}));
    CHECK(moved[0]["description"] == "assets");
    CHECK(moved[0]["enabled"] == false);
    const ProcessResult bad = wr_cli(server, {"rules", "create", "shop", "--expression", "http.hots eq \"x\""});
    CHECK(bad.err == "wr: error: --expression: unknown field 'http.hots' at column 1\n");
    CHECK(json_out(wr_cli(server, {"-o", "json", "rules", "delete", "shop", "2"})).size() == 1);

    const ProcessResult replaced = wr_cli(server, {"-o", "json", "rules", "replace", "shop", "-f", "-"},
                                          R"([{"expression":"http.host eq \"a.example.com\""},{"expression":"ip.src in {10.0.0.0/8}"}])");
    require_ok(replaced);
    CHECK(json_out(replaced).size() == 2);
}

TEST_CASE("integration: wr settings and tokens") {
    TestServer server;
    server.create_zone();
    CHECK(json_out(wr_cli(server, {"-o", "json", "settings", "set", "example.com", "--search-engine-crawler-bypass"}))
              ["search_engine_crawler_bypass"] == true);
    CHECK(wr_cli(server, {"settings", "get", "example.com"}).out == "search_engine_crawler_bypass  true\n");

    const ProcessResult created = wr_cli(server, {"tokens", "create", "--name", "ci", "--scope", "read", "--zone", "example.com"});
    require_ok(created);
    const std::string token = created.out.substr(0, created.out.find('\n'));
    CHECK(token.starts_with("wr_"));
    CHECK(created.err.find("shown only once") != std::string::npos);
    const ProcessResult with_token = run_wr({"--api", server.admin_url(), "--token", token, "-o", "json", "rooms", "list", "--zone", "example.com"});
    require_ok(with_token);
    const ProcessResult listed = wr_cli(server, {"-o", "json", "tokens", "list"});
    CHECK(listed.out.find(token) == std::string::npos);
    std::string id;
    for (const json& item : json_out(listed))
        if (item["name"] == "ci") id = item["id"];
    require_ok(wr_cli(server, {"tokens", "revoke", id}));
    CHECK(run_wr({"--api", server.admin_url(), "--token", token, "zones", "list"}).exit_code == 1);
}

TEST_CASE("integration: wr names the flag, guesses typos with exit 2, and refuses unknown keys in its input files with exit 1") {
    TestServer server;
    server.create_zone();
    const ProcessResult no_host = wr_cli(server, {"rooms", "create", "--zone", "example.com", "--name", "shop",
                                                  "--total-active-users", "1000", "--new-users-per-minute", "300"});
    CHECK(no_host.exit_code == 1);
    CHECK(no_host.err == "wr: error: --host is required\n");

    const ProcessResult typo = run_wr({"rooms", "lst"});
    CHECK(typo.exit_code == 2);
    CHECK(typo.err == "wr: error: `lst` is not a command of `wr rooms` (did you mean `wr rooms list`?)\n");
    const ProcessResult flag = run_wr({"rooms", "update", "shop", "--total-active-user", "500"});
    CHECK(flag.exit_code == 2);
    CHECK(flag.err == "wr: error: --total-active-user is not an option of `wr rooms update` (did you mean --total-active-users?)\n");
    const ProcessResult zero = run_wr({"rooms", "update", "shop", "--session-duration", "0"});
    CHECK(zero.exit_code == 2);
    CHECK(zero.err.starts_with("wr: error: --session-duration: Value 0 not in range 1 to 30"));

    wr::test::TempDir files;
    const std::string config = (files.path() / "wr.toml").string();
    wr::util::write_text_file(config, "edge-listen = \"127.0.0.1:0\"\n[serve]\nlog-levl = \"debug\"\n");
    const ProcessResult bad_config = run_wr({"--config", config, "serve", "--data-dir", (files.path() / "data").string()});
    CHECK(bad_config.exit_code == 1);
    CHECK(bad_config.err == "wr: error: " + config + ": edge-listen: an option of `wr serve`; put it under [serve]\n  " + config +
                                ": [serve] log-levl: unknown option (did you mean log-level?)\n");
    CHECK(!std::filesystem::exists(files.path() / "data")); // stopped before anything started

    const std::string rooms = (files.path() / "rooms.json").string();
    wr::util::write_text_file(rooms, R"({"zones":[{"name":"example.com","origin":"http://127.0.0.1:3000",
        "waiting_rooms":[{"name":"shop","host":"shop.example.com","total_active_users":1000,"new_users_per_minute":300,
                          "sesion_duration":20}]}]})");
    for (const char* mode : {"--dry-run", "--prune"}) {
        const ProcessResult strict = wr_cli(server, {"apply", "-f", rooms, mode});
        CHECK(strict.exit_code == 1);
        CHECK(strict.err == "wr: error: zones[0].waiting_rooms[0].sesion_duration: unknown field (did you mean session_duration?)\n");
    }
    CHECK(json_out(wr_cli(server, {"-o", "json", "rooms", "list"})).empty()); // nothing applied
}

TEST_CASE("integration: wr apply is idempotent and wr export round-trips byte for byte") {
    TestServer server;
    wr::test::TempDir files;
    const std::string config = (files.path() / "rooms.json").string();
    wr::util::write_text_file(config, R"({"zones":[{"name":"example.com","origin":"http://127.0.0.1:3000",
        "waiting_rooms":[{"name":"shop","host":"shop.example.com","total_active_users":1000,"new_users_per_minute":300,
        "rules":[{"expression":"http.request.uri.path eq \"/health\""}]}]}]})");

    const ProcessResult dry = wr_cli(server, {"apply", "-f", config, "--dry-run"});
    require_ok(dry);
    CHECK(dry.out == "+ create zone example.com\n+ create waiting_room example.com/shop\n+ create rules example.com/shop\n"
                     "3 change(s) planned; dry run, nothing was changed\n");
    CHECK(json_out(wr_cli(server, {"-o", "json", "zones", "list"})).empty());

    const ProcessResult applied = wr_cli(server, {"apply", "-f", config});
    require_ok(applied);
    CHECK(applied.out.ends_with("3 change(s) applied\n"));
    CHECK(wr_cli(server, {"apply", "-f", config}).out == "no changes\n");

    const ProcessResult exported = wr_cli(server, {"export"});
    require_ok(exported);
    CHECK(wr_cli(server, {"export"}).out == exported.out);
    CHECK(wr_cli(server, {"apply", "-f", "-"}, exported.out).out == "no changes\n");

    wr::util::write_text_file(config, R"({"zones":[{"name":"example.com","origin":"http://127.0.0.1:3000",
        "waiting_rooms":[{"name":"shop","host":"shop.example.com","total_active_users":2000,"new_users_per_minute":300}]}]})");
    CHECK(wr_cli(server, {"apply", "-f", config}).out == "~ update waiting_room example.com/shop (total_active_users)\n1 change(s) applied\n");
    const ProcessResult pruned = wr_cli(server, {"apply", "-f", config, "--prune"});
    CHECK(pruned.out == "- delete rules example.com/shop\n1 change(s) applied\n");

    wr::util::write_text_file(config, "{\"zones\": [");
    const ProcessResult broken = wr_cli(server, {"apply", "-f", config});
    CHECK(broken.exit_code == 1);
    // Where, as the parser says it: the API's answer would give only a byte offset.
    CHECK(broken.err.starts_with("wr: error: " + config + " is not valid JSON: parse error at line 1, column 12: "));
}

TEST_CASE("integration: wr apply of an export to another wr skips the events that have ended, and says so") {
    const std::string config = R"({"zones":[{"name":"example.com","origin":"http://127.0.0.1:3000",
        "waiting_rooms":[{"name":"shop","host":"shop.example.com","total_active_users":1000,"new_users_per_minute":300,
        "events":[{"name":"launch","event_start_time":"2026-11-23T10:00:00Z","event_end_time":"2026-11-23T12:00:00Z"}]}]}]})";
    TestServer first;
    require_ok(wr_cli(first, {"apply", "-f", "-"}, config));
    first.clock().advance(std::chrono::hours{48}); // the launch is over
    const ProcessResult exported = wr_cli(first, {"export"});
    require_ok(exported);
    CHECK(wr_cli(first, {"apply", "-f", "-"}, exported.out).out == "no changes\n"); // it has the event: kept

    TestServer second;
    second.clock().advance(std::chrono::hours{48});
    const std::string skipped = "! skip event example.com/shop/launch: ended at 2026-11-23T12:00:00Z: an event that has ended "
                                "is not created\n";
    const ProcessResult dry = wr_cli(second, {"apply", "-f", "-", "--dry-run"}, exported.out);
    require_ok(dry);
    CHECK(dry.out == "+ create zone example.com\n+ create waiting_room example.com/shop\n" + skipped +
                         "2 change(s) planned, 1 skipped; dry run, nothing was changed\n");
    const ProcessResult applied = wr_cli(second, {"apply", "-f", "-"}, exported.out);
    require_ok(applied);
    CHECK(applied.out.ends_with(skipped + "2 change(s) applied, 1 skipped\n"));
    CHECK(wr_cli(second, {"apply", "-f", "-"}, exported.out).out == skipped + "0 change(s) applied, 1 skipped\n");
}

TEST_CASE("integration: a zone's hosts through wr zones create/update, wr export and wr apply") {
    TestServer server;
    require_ok(wr_cli(server, {"zones", "create", "example.com", "--origin", "http://127.0.0.1:3000", "--host", "www.example.com",
                               "--host", "*.cdn.example.com"}));
    CHECK(json_out(wr_cli(server, {"-o", "json", "zones", "get", "example.com"}))["hosts"] ==
          json{"www.example.com", "*.cdn.example.com"});
    const ProcessResult outside = wr_cli(server, {"zones", "update", "example.com", "--host", "www.other.com"});
    CHECK(outside.exit_code == 1);
    CHECK(outside.err.find("hosts[0]") != std::string::npos);
    CHECK(outside.err.find("www.other.com is not inside the zone example.com") != std::string::npos);

    const ProcessResult exported = wr_cli(server, {"export"});
    require_ok(exported);
    CHECK(json::parse(exported.out)["zones"][0]["hosts"] == json{"www.example.com", "*.cdn.example.com"});
    require_ok(wr_cli(server, {"zones", "update", "example.com", "--no-hosts"}));
    CHECK(json_out(wr_cli(server, {"-o", "json", "zones", "get", "example.com"}))["hosts"] == json::array());
    CHECK(wr_cli(server, {"apply", "-f", "-"}, exported.out).out == "~ update zone example.com (hosts)\n1 change(s) applied\n");
    CHECK(json_out(wr_cli(server, {"-o", "json", "zones", "get", "example.com"}))["hosts"] ==
          json{"www.example.com", "*.cdn.example.com"});
}

TEST_CASE("integration: origin protection through wr zones and wr rooms, in tables, and through wr export and wr apply") {
    TestServer server;
    // The zone's connection cap: create sets it, update changes one option and keeps the other.
    const json zone = json_out(wr_cli(server, {"-o", "json", "zones", "create", "example.com", "--origin", "http://127.0.0.1:3000",
                                               "--max-origin-connections", "64"}));
    CHECK(zone["max_origin_connections"] == 64);
    CHECK(zone["origin_queue_timeout_seconds"] == 10);
    const json updated_zone = json_out(wr_cli(server, {"-o", "json", "zones", "update", "example.com", "--origin-queue-timeout", "15"}));
    CHECK(updated_zone["max_origin_connections"] == 64);
    CHECK(updated_zone["origin_queue_timeout_seconds"] == 15);
    const ProcessResult bad_cap = wr_cli(server, {"zones", "update", "example.com", "--max-origin-connections", "-1"});
    CHECK(bad_cap.exit_code == 1);
    CHECK(bad_cap.err == "wr: error: --max-origin-connections must be between 0 (no limit) and 1000000\n"); // the flag typed
    const ProcessResult bad_timeout = wr_cli(server, {"zones", "create", "other.com", "--origin", "http://127.0.0.1:3000",
                                                      "--origin-queue-timeout", "121"});
    CHECK(bad_timeout.exit_code == 1);
    CHECK(bad_timeout.err == "wr: error: origin_queue_timeout_seconds: must be between 1 and 120 seconds\n");
    require_ok(wr_cli(server, {"zones", "create", "other.com", "--origin", "http://127.0.0.1:3000"}));
    const ProcessResult zones = wr_cli(server, {"zones", "list"});
    require_ok(zones);
    CHECK(zones.out.find("ORIGIN CONNECTIONS") != std::string::npos);
    CHECK(zones.out.find("http://127.0.0.1:3000  64                  ") != std::string::npos);
    CHECK(zones.out.find("http://127.0.0.1:3000  unlimited           ") != std::string::npos);
    CHECK(json_out(wr_cli(server, {"-o", "json", "zones", "list"}))[1]["max_origin_connections"] == 0); // scripts get the API's 0
    const ProcessResult zone_table = wr_cli(server, {"zones", "get", "example.com"});
    CHECK(zone_table.out.find("max_origin_connections        64\n") != std::string::npos);
    CHECK(zone_table.out.find("origin_queue_timeout_seconds  15\n") != std::string::npos);

    // The room's guard: each option changes its own field; the rest of the guard stays.
    const json room = json_out(wr_cli(server, {"-o", "json", "rooms", "create", "--zone", "example.com", "--name", "shop", "--host",
                                               "shop.example.com", "--total-active-users", "1000", "--new-users-per-minute", "300",
                                               "--origin-guard", "on", "--origin-guard-target-ms", "800"}));
    CHECK(room["origin_guard"] ==
          json{{"enabled", true}, {"target_ttfb_ms", 800}, {"max_error_rate", 0.05}, {"min_new_users_per_minute", 0}});
    CHECK(json_out(wr_cli(server, {"-o", "json", "rooms", "update", "shop", "--origin-guard-max-error-rate", "0.1"}))["origin_guard"] ==
          json{{"enabled", true}, {"target_ttfb_ms", 800}, {"max_error_rate", 0.1}, {"min_new_users_per_minute", 0}});
    CHECK(json_out(wr_cli(server, {"-o", "json", "rooms", "update", "shop", "--origin-guard", "off", "--origin-guard-min-new-users",
                                   "50"}))["origin_guard"] ==
          json{{"enabled", false}, {"target_ttfb_ms", 800}, {"max_error_rate", 0.1}, {"min_new_users_per_minute", 50}});
    const ProcessResult over_floor = wr_cli(server, {"rooms", "update", "shop", "--origin-guard-min-new-users", "301"});
    CHECK(over_floor.exit_code == 1);
    CHECK(over_floor.err == "wr: error: origin_guard.min_new_users_per_minute: must not exceed new_users_per_minute (300)\n");
    const ProcessResult bad_target = wr_cli(server, {"rooms", "update", "shop", "--origin-guard-target-ms", "49"});
    CHECK(bad_target.exit_code == 1);
    CHECK(bad_target.err == "wr: error: origin_guard.target_ttfb_ms: must be between 50 and 60000\n");
    const ProcessResult bad_rate = wr_cli(server, {"rooms", "update", "shop", "--origin-guard-max-error-rate", "5"});
    CHECK(bad_rate.exit_code == 1);
    CHECK(bad_rate.err == "wr: error: origin_guard.max_error_rate: must be between 0 and 1 (0.05 is 5 %)\n");
    CHECK(wr_cli(server, {"rooms", "update", "shop", "--origin-guard", "yes"}).exit_code == 2);
    require_ok(wr_cli(server, {"rooms", "update", "shop", "--origin-guard", "on"}));

    // Tables: `rooms get` gives the guard a line per field; `rooms list` a column.
    const ProcessResult room_table = wr_cli(server, {"rooms", "get", "shop"});
    require_ok(room_table);
    CHECK(room_table.out.find("origin_guard.enabled                   true\n") != std::string::npos);
    CHECK(room_table.out.find("origin_guard.target_ttfb_ms            800\n") != std::string::npos);
    CHECK(room_table.out.find("origin_guard.max_error_rate            0.1\n") != std::string::npos);
    CHECK(room_table.out.find("origin_guard.min_new_users_per_minute  50\n") != std::string::npos);
    const ProcessResult rooms = wr_cli(server, {"rooms", "list"});
    CHECK(rooms.out.find("SUSPENDED  GUARD\n") != std::string::npos);
    CHECK(rooms.out.find("false      true\n") != std::string::npos);

    // Export carries every field; applying it changes nothing; a drifted setting is put back by name.
    const ProcessResult exported = wr_cli(server, {"export"});
    require_ok(exported);
    const json document = json::parse(exported.out);
    CHECK(document["zones"][0]["max_origin_connections"] == 64);
    CHECK(document["zones"][0]["origin_queue_timeout_seconds"] == 15);
    CHECK(document["zones"][0]["waiting_rooms"][0]["origin_guard"]["target_ttfb_ms"] == 800);
    CHECK(wr_cli(server, {"apply", "-f", "-"}, exported.out).out == "no changes\n");
    require_ok(wr_cli(server, {"zones", "update", "example.com", "--max-origin-connections", "0"}));
    require_ok(wr_cli(server, {"rooms", "update", "shop", "--origin-guard", "off"}));
    CHECK(wr_cli(server, {"apply", "-f", "-"}, exported.out).out ==
          "~ update zone example.com (max_origin_connections)\n~ update waiting_room example.com/shop (origin_guard)\n"
          "2 change(s) applied\n");
    CHECK(wr_cli(server, {"export"}).out == exported.out);
}

TEST_CASE("integration: wr rooms status says what the origin guard does, from a status that carries it") {
    TestServer server;
    server.create_zone();
    const json room = server.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000},
                                                         {"new_users_per_minute", 300}, {"origin_guard", {{"enabled", true}}}});
    const HttpReply event = server.post("/client/v4/zones/example.com/waiting_rooms/shop/events",
                                        {{"name", "launch"}, {"event_start_time", "2026-12-01T10:00:00Z"},
                                         {"event_end_time", "2026-12-01T12:00:00Z"}, {"total_active_users", 2000},
                                         {"new_users_per_minute", 800}});
    REQUIRE_MESSAGE(event.status == 200, event.text);

    // The admin API behind a proxy that gives each status the guard's fields, as a wr whose edge
    // measures the origin reports them.
    json fields = {{"effective_new_users_per_minute", 40},
                   {"effective_total_active_users", 1000},
                   {"origin_guard", {{"state", "throttling"}, {"p95_ttfb_ms", 1830}, {"error_rate", 0.02}, {"reason", "p95 over target"}}}};
    std::mutex fields_mutex; // the test changes the fields between runs; the proxy reads them on its own thread
    const auto set_fields = [&](const std::function<void(json&)>& change) {
        const std::lock_guard lock(fields_mutex);
        change(fields);
    };
    httplib::Server proxy;
    proxy.Get(".*", [&](const httplib::Request& request, httplib::Response& response) {
        httplib::Client upstream(server.admin_url());
        const auto answer = upstream.Get(httplib::append_query_params(request.path, request.params),
                                         {{"Authorization", request.get_header_value("Authorization")}});
        if (!answer) {
            response.status = 502;
            return;
        }
        json body = json::parse(answer->body);
        if (request.path.ends_with("/status")) {
            const std::lock_guard lock(fields_mutex);
            body["result"].update(fields);
        }
        response.status = answer->status;
        response.set_content(body.dump(), "application/json");
    });
    const int port = proxy.bind_to_any_port("127.0.0.1");
    std::jthread listening([&proxy] { proxy.listen_after_bind(); });
    while (!proxy.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{1});
    const auto status = [&] {
        return run_wr({"--api", "http://127.0.0.1:" + std::to_string(port), "--token", server.admin_token(), "rooms", "status", "shop"});
    };

    ProcessResult shown = status();
    require_ok(shown);
    CHECK(shown.out.find("effective_new_users_per_minute  40\n") != std::string::npos);
    CHECK(shown.out.find("origin_guard.state              throttling\n") != std::string::npos);
    CHECK(shown.out.find("\norigin slow: admitting 40 a minute of 300\n"
                         "origin p95 time to first byte 1830 ms (target 500 ms), errors 2 % (at most 5 %)\n") != std::string::npos);

    // During an event the limits it sets are the configured ones.
    set_fields([&](json& f) {
        f["event_id"] = event.body["result"]["id"];
        f["effective_total_active_users"] = 1500;
    });
    shown = status();
    require_ok(shown);
    CHECK(shown.out.find("\norigin slow: admitting 40 a minute of 800, 1500 active of 2000\n") != std::string::npos);

    // Content: the figures, no line about admission.
    set_fields([](json& f) {
        f["origin_guard"]["state"] = "content";
        f["origin_guard"]["p95_ttfb_ms"] = 120;
        f["origin_guard"]["error_rate"] = 0;
    });
    shown = status();
    CHECK(shown.out.find("admitting") == std::string::npos);
    CHECK(shown.out.find("\norigin p95 time to first byte 120 ms (target 500 ms), errors 0 % (at most 5 %)\n") != std::string::npos);
    CHECK(json_out(run_wr({"--api", "http://127.0.0.1:" + std::to_string(port), "--token", server.admin_token(), "-o", "json", "rooms",
                           "status", "shop"}))["origin_guard"]["state"] == "content");
    CHECK(room["origin_guard"]["enabled"] == true);
    proxy.stop();
}

TEST_CASE("integration: wr migrate reports what it applied, then that the database is up to date; it and keys rotate refuse a --data-dir that does not exist") {
    wr::test::TempDir data;
    const std::string newest = std::to_string(wr::store::embedded_migrations().back().version);
    const ProcessResult first = run_wr({"migrate", "--data-dir", data.path().string()});
    require_ok(first);
    CHECK(first.out.find("schema version 0 -> " + newest) != std::string::npos);
    CHECK(first.out.find("applied 0001_init.sql") != std::string::npos);
    CHECK(first.out.find("applied 0002_analytics.sql") != std::string::npos);
    const ProcessResult second = run_wr({"migrate", "--data-dir", data.path().string()});
    CHECK(second.out.find("is up to date (schema version " + newest + ")") != std::string::npos);

    // A mistyped --data-dir is an error, not a new empty directory the server never reads.
    const auto mistyped = data.path() / "mistyped";
    for (const std::vector<std::string>& command : {std::vector<std::string>{"migrate"}, std::vector<std::string>{"keys", "rotate"}}) {
        std::vector<std::string> arguments = command;
        arguments.insert(arguments.end(), {"--data-dir", mistyped.string()});
        const ProcessResult refused = run_wr(arguments);
        CHECK(refused.exit_code == 1);
        CHECK(refused.err == "wr: error: no data directory at " + mistyped.string() +
                                 "; give the --data-dir `wr serve` uses (it makes the directory)\n");
        CHECK_FALSE(std::filesystem::exists(mistyped));
    }
}

TEST_CASE("integration: a data directory wr serve cannot make is named, with the reason") {
    const ProcessResult serve = run_wr({"serve", "--data-dir", "/proc/no-such/wr", "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0"});
    CHECK(serve.exit_code != 0);
    CHECK(serve.err.find("cannot create the data directory /proc/no-such/wr: ") != std::string::npos);
}

TEST_CASE("integration: wr load says so when nothing answers at the edge, rather than blaming routing") {
    const ProcessResult load = run_wr({"load", "--edge", "127.0.0.1:1", "--wait", "1"});
    CHECK(load.exit_code == 1);
    CHECK(load.err == "wr: error: nothing answers at the edge 127.0.0.1:1 (is `wr serve` running there? --edge)\n");
}

TEST_CASE("integration: every wr command has --help with an example") {
    for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
             {"serve"}, {"migrate"}, {"zones", "create"}, {"zones", "list"}, {"zones", "get"}, {"zones", "update"},
             {"zones", "delete"}, {"rooms", "create"}, {"rooms", "list"}, {"rooms", "get"}, {"rooms", "update"},
             {"rooms", "delete"}, {"rooms", "suspend"}, {"rooms", "resume"}, {"rooms", "status"}, {"events", "create"},
             {"events", "list"}, {"events", "get"}, {"events", "details"}, {"events", "update"}, {"events", "delete"},
             {"rules", "create"}, {"rules", "list"}, {"rules", "update"}, {"rules", "delete"}, {"rules", "replace"},
             {"settings", "get"}, {"settings", "set"}, {"tokens", "create"}, {"tokens", "list"}, {"tokens", "revoke"},
             {"apply"}, {"export"}}) {
        std::vector<std::string> arguments = command;
        arguments.push_back("--help");
        const ProcessResult help = run_wr(arguments);
        CAPTURE(arguments);
        CHECK(help.exit_code == 0);
        CHECK(help.out.find("Example:\n  wr ") != std::string::npos);
    }
    const std::string root_help = run_wr({"--help"}).out;
    CHECK(root_help.find("rooms.json         make the configuration match a file\n\nUsage: wr") != std::string::npos); // a blank line
    const std::string serve_help = run_wr({"serve", "--help"}).out;
    CHECK(serve_help.find("  --data-dir DIR ") != std::string::npos); // the global options its example uses
    CHECK(serve_help.find("  --config FILE ") != std::string::npos);
}

} // TEST_SUITE

TEST_SUITE("integration") {

TEST_CASE("integration: wr templates preview renders a file in a state, with overrides, without a server") {
    wr::test::TempDir files;
    const std::string page = (files.path() / "page.html").string();
    wr::util::write_text_file(page, "<p>{{waitTimeFormatted}} {{isRandomQueue}} {{queueingMethod}} {{waitTime}}</p>\n");
    const ProcessResult fifo = run_wr({"templates", "preview", "--file", page});
    require_ok(fifo);
    CHECK(fifo.out == "<p>10 minutes false fifo 10</p>\n");
    CHECK(run_wr({"templates", "preview", "--file", page, "--state", "random"}).out == "<p>5 minutes to 15 minutes true random 10</p>\n");
    CHECK(run_wr({"templates", "preview", "--file", page, "--language", "de-DE", "--var", "waitTime=42"}).out ==
          "<p>42 Minuten false fifo 42</p>\n"); // waitTimeFormatted follows waitTime
    const std::string out = (files.path() / "out.html").string();
    require_ok(run_wr({"templates", "preview", "--file", page, "--state", "prequeue", "--out", out}));
    CHECK(wr::util::read_text_file(out) == "<p>unavailable false fifo 0</p>\n");

    // An empty value (Turnstile off, or --var name=) is a false section, as in mustache.js.
    const std::string sections = (files.path() / "sections.html").string();
    wr::util::write_text_file(sections, "{{#turnstile}}<div>{{{turnstile}}}</div>{{/turnstile}}{{^turnstile}}off{{/turnstile}} "
                                        "{{#queueingMethod}}on{{/queueingMethod}}{{^queueingMethod}}none{{/queueingMethod}}\n");
    CHECK(run_wr({"templates", "preview", "--file", sections}).out == "off on\n");
    CHECK(run_wr({"templates", "preview", "--file", sections, "--var", "queueingMethod="}).out == "off none\n");

    const ProcessResult default_page = run_wr({"templates", "preview", "--state", "queue-full", "--language", "fr-FR"});
    CHECK(default_page.out.find("La file est très longue") != std::string::npos);
    CHECK(run_wr({"templates", "preview", "--state", "reject"}).out.find("Not available right now") != std::string::npos);

    wr::util::write_text_file(page, "<p>\n{{#waitTimeKnown}}\n");
    const ProcessResult broken = run_wr({"templates", "preview", "--file", page});
    CHECK(broken.exit_code == 1);
    CHECK(broken.err.ends_with("wr: error: " + page + ": Unclosed section \"waitTimeKnown\" at line 2, column 1\n"));
    CHECK(run_wr({"templates", "preview", "--state", "sleepy"}).err.starts_with("wr: error: --state sleepy: expected one of fifo, random"));
    CHECK(run_wr({"templates", "preview", "--state", "fifoo"}).err.ends_with(", passthrough (did you mean fifo?)\n"));
    CHECK(run_wr({"templates", "preview", "--var", "novalue"}).err == "wr: error: --var novalue: expected name=value, as in --var waitTime=42\n");
}

TEST_CASE("integration: wr templates preview warns of variables wr never sets, and of --var names it does not know") {
    wr::test::TempDir files;
    const std::string page = (files.path() / "page.html").string();
    wr::util::write_text_file(page, "<p>{{waitTimeFormatted}} {{noSuchVar}}</p>\n");
    const ProcessResult warned = run_wr({"templates", "preview", "--file", page, "--var", "waitTme=5"});
    require_ok(warned); // warnings, not errors: the page still renders
    CHECK(warned.out == "<p>10 minutes </p>\n");
    CHECK(warned.err == "wr: warning: " + page + " uses {{noSuchVar}}, which wr never sets; it shows as nothing on queue pages\n"
                        "wr: warning: --var waitTme: wr sets no variable of that name (did you mean waitTime?)\n");
    wr::util::write_text_file(page, "<p>{{waitTimeFormatted}}</p>\n");
    CHECK(run_wr({"templates", "preview", "--file", page, "--var", "waitTime=90"}).err.empty());
    CHECK(run_wr({"templates", "preview", "--file", page, "--var", "waitTime=soon"}).err ==
          "wr: error: --var waitTime=soon: waitTime is a whole number of minutes, such as 42\n");
}

TEST_CASE("integration: wr templates preview --room shows the room's real next event") {
    TestServer server;
    server.create_zone();
    server.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000},
                                       {"new_users_per_minute", 300},
                                       {"custom_page_html", "<b>{{timeUntilEventStart}} {{shuffleAtEventStart}}</b>"}});
    const ProcessResult none = wr_cli(server, {"templates", "preview", "--room", "shop", "--state", "prequeue"});
    CHECK(none.out == "<b>15 false</b>");
    CHECK(none.err == "wr: warning: shop has no upcoming event; the page shows one that starts in 15 minutes\n");
    // Relative times resolve against the real clock, as the preview does.
    require_ok(wr_cli(server, {"events", "create", "shop", "--name", "launch", "--prequeue", "+1h", "--start", "+3h", "--end", "+5h",
                               "--shuffle"}));
    const ProcessResult real = wr_cli(server, {"templates", "preview", "--room", "shop", "--state", "prequeue"});
    CHECK(real.err.empty());
    CHECK((real.out == "<b>180 true</b>" || real.out == "<b>179 true</b>"));
}

TEST_CASE("integration: wr templates preview renders a room's own page through the API") {
    TestServer server;
    server.create_zone();
    server.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000},
                                       {"new_users_per_minute", 300}, {"default_template_language", "es-ES"},
                                       {"custom_page_html", "<b>{{waitTimeFormatted}}</b>"}});
    CHECK(wr_cli(server, {"templates", "preview", "--room", "shop"}).out == "<b>10 minutos</b>");
}

TEST_CASE("integration: wr templates preview --serve reloads the browser when the file changes") {
    wr::test::TempDir files;
    const std::string page = (files.path() / "page.html").string();
    wr::util::write_text_file(page, "<html><body><p>{{waitTime}}</p></body></html>");
    wr::test::BackgroundProcess preview({WR_BINARY, "templates", "preview", "--file", page, "--serve", "127.0.0.1:0"}, "previewing on");
    const std::string line = preview.ready_line();
    const int port = std::stoi(line.substr(line.find("127.0.0.1:") + 10));
    httplib::Client browser("127.0.0.1", port);
    const auto first = browser.Get("/");
    REQUIRE(first);
    CHECK(first->body.find("<p>10</p>") != std::string::npos);
    CHECK(first->body.find("/__wr/version") != std::string::npos); // the reload script
    CHECK(browser.Get("/?state=unknown")->body.find("<p>0</p>") != std::string::npos);
    const std::string version = browser.Get("/__wr/version")->body;
    // A later modification time, as an editor's save gives.
    wr::util::write_text_file(page, "<html><body><p>{{waitTimeFormatted}}</p></body></html>");
    std::filesystem::last_write_time(page, std::filesystem::last_write_time(page) + std::chrono::seconds{2});
    CHECK(browser.Get("/__wr/version")->body != version);
    CHECK(browser.Get("/")->body.find("<p>10 minutes</p>") != std::string::npos);
}

} // TEST_SUITE
