// The admin API over real HTTP: every resource, every error status, pagination, round trips
// and restarts.
#include <doctest/doctest.h>

#include <tuple>

#include "api/admin_server.h"
#include "support/test_server.h"

using nlohmann::json;
using wr::test::HttpReply;
using wr::test::TestServer;

namespace {

const json k_room = {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}};

std::string first_message(const HttpReply& reply) {
    if (!reply.body.is_object() || !reply.body.contains("errors") || reply.body["errors"].empty()) return reply.text;
    return reply.body["errors"][0]["message"].get<std::string>();
}

std::string rooms_path(const std::string& zone = "example.com") { return "/client/v4/zones/" + zone + "/waiting_rooms"; }

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: health needs no token, everything else does") {
    TestServer wr;
    CHECK(wr.send("GET", "/healthz", "", {}).status == 200);

    const HttpReply missing = wr.send("GET", "/client/v4/zones", "", {});
    CHECK(missing.status == 401);
    CHECK(missing.body["success"] == false);
    CHECK(missing.body["errors"][0]["code"] == 1005);

    CHECK(wr.get("/client/v4/zones", "wr_not-a-token").status == 401);
    const HttpReply legacy = wr.send("GET", "/client/v4/zones", "", {{"X-Auth-Email", "a@b.c"}, {"X-Auth-Key", "k"}});
    CHECK(legacy.status == 401);
    CHECK(first_message(legacy).find("Bearer") != std::string::npos);
}

TEST_CASE("integration: the admin token file is private and never logged") {
    TestServer wr;
    const auto permissions = std::filesystem::status(wr.data_dir() / "admin.token").permissions();
    CHECK((permissions & std::filesystem::perms::group_all) == std::filesystem::perms::none);
    CHECK((permissions & std::filesystem::perms::others_all) == std::filesystem::perms::none);
    CHECK(wr.admin_token().starts_with("wr_"));
    CHECK(wr.admin_token().size() == 51);
}

TEST_CASE("integration: zones are created, read, changed and deleted") {
    TestServer wr;
    const json zone = wr.create_zone();
    CHECK(zone["name"] == "example.com");
    CHECK(zone["status"] == "active");
    CHECK(zone["id"].get<std::string>().size() == 32);

    CHECK(wr.get("/client/v4/zones/example.com").body["result"]["id"] == zone["id"]);
    CHECK(wr.get("/client/v4/zones/" + zone["id"].get<std::string>()).status == 200);
    CHECK(wr.get("/client/v4/zones/nope.com").status == 404);

    const HttpReply duplicate = wr.post("/client/v4/zones", {{"name", "example.com"}, {"origin", "http://127.0.0.1:1"}});
    CHECK(duplicate.status == 400); // never 409: the SDKs retry it
    CHECK(first_message(duplicate) == "name: a zone named example.com already exists");

    const HttpReply bad_origin = wr.post("/client/v4/zones", {{"name", "other.com"}, {"origin", "ftp://x"}});
    CHECK(bad_origin.status == 400);
    CHECK(first_message(bad_origin).starts_with("origin: must be an http:// or https:// URL"));

    const HttpReply patched = wr.patch("/client/v4/zones/example.com", {{"origin", "http://10.0.0.1:8000"}});
    CHECK(patched.body["result"]["origin"] == "http://10.0.0.1:8000");

    wr.create_room("example.com", k_room);
    const HttpReply refused = wr.del("/client/v4/zones/example.com");
    CHECK(refused.status == 400);
    CHECK(first_message(refused).find("shop") != std::string::npos);
    CHECK(wr.del(rooms_path() + "/shop").status == 200);
    CHECK(wr.del("/client/v4/zones/example.com").status == 200);
    CHECK(wr.get("/client/v4/zones/example.com").status == 404);
}

TEST_CASE("integration: a room returns every field with its default") {
    TestServer wr;
    wr.create_zone();
    const json room = wr.create_room("example.com", k_room);
    CHECK(room["path"] == "/");
    CHECK(room["session_duration"] == 5);
    CHECK(room["queueing_method"] == "fifo");
    CHECK(room["queueing_status_code"] == 200);
    CHECK(room["cookie_attributes"] == json{{"samesite", "auto"}, {"secure", "auto"}});
    CHECK(room["additional_routes"] == json::array());
    CHECK(room["enabled_origin_commands"] == json::array());
    CHECK(room["default_template_language"] == "en-US");
    CHECK(room["turnstile_mode"] == "invisible");
    CHECK(room["turnstile_action"] == "log");
    CHECK(room["join_limit_per_ip_per_minute"] == 0); // wr's own field, off by default
    CHECK(room["origin_guard"] ==
          json{{"enabled", false}, {"target_ttfb_ms", 500}, {"max_error_rate", 0.05}, {"min_new_users_per_minute", 0}});
    CHECK(room["next_event_start_time"].is_null());
    CHECK(room["created_on"].get<std::string>() == "2026-11-22T10:00:00.000Z");
    for (const char* field : {"description", "cookie_suffix", "custom_page_html"}) CHECK(room[field] == "");
    for (const char* field : {"queue_all", "suspended", "json_response_enabled", "disable_session_renewal"}) CHECK(room[field] == false);
}

TEST_CASE("integration: PUT of what GET returned changes nothing, modified_on included") {
    TestServer wr;
    wr.create_zone();
    json room = wr.create_room("example.com", k_room);
    wr.clock().advance(std::chrono::minutes{5});
    const std::string path = rooms_path() + "/" + room["id"].get<std::string>();
    const HttpReply again = wr.put(path, wr.get(path).body["result"]);
    REQUIRE(again.status == 200);
    CHECK(again.body["result"] == room);

    wr.clock().advance(std::chrono::minutes{5});
    json changed = room;
    changed["total_active_users"] = 2000;
    const HttpReply updated = wr.put(path, changed);
    CHECK(updated.body["result"]["total_active_users"] == 2000);
    CHECK(updated.body["result"]["modified_on"] == "2026-11-22T10:10:00.000Z");
    CHECK(updated.body["result"]["created_on"] == room["created_on"]);
}

TEST_CASE("integration: PUT resets omitted fields, PATCH keeps them, null restores the default") {
    TestServer wr;
    wr.create_zone();
    json fields = k_room;
    fields["queueing_method"] = "random";
    fields["session_duration"] = 10;
    wr.create_room("example.com", fields);

    const HttpReply patched = wr.patch(rooms_path() + "/shop", {{"queue_all", true}});
    CHECK(patched.body["result"]["queue_all"] == true);
    CHECK(patched.body["result"]["queueing_method"] == "random");

    const HttpReply nulled = wr.patch(rooms_path() + "/shop", {{"session_duration", nullptr}});
    CHECK(nulled.body["result"]["session_duration"] == 5);

    const HttpReply replaced = wr.put(rooms_path() + "/shop", k_room);
    CHECK(replaced.body["result"]["queueing_method"] == "fifo");
    CHECK(replaced.body["result"]["queue_all"] == false);

    // An old Go SDK sends zero values for unset fields.
    json zeros = k_room;
    zeros["session_duration"] = 0;
    zeros["queueing_status_code"] = 0;
    zeros["path"] = "";
    const HttpReply zeroed = wr.put(rooms_path() + "/shop", zeros);
    CHECK(zeroed.status == 200);
    CHECK(zeroed.body["result"]["session_duration"] == 5);
    CHECK(zeroed.body["result"]["queueing_status_code"] == 200);
    CHECK(zeroed.body["result"]["path"] == "/");

    const HttpReply required = wr.patch(rooms_path() + "/shop", {{"name", nullptr}});
    CHECK(required.status == 400);
    CHECK(first_message(required) == "name: is required");
}

TEST_CASE("integration: rejected room bodies name the field and change nothing") {
    TestServer wr;
    wr.create_zone();
    wr.create_room("example.com", k_room);
    struct Case {
        const char* name;
        json patch;
        std::string message;
    };
    const Case cases[] = {
        {"wrong type", {{"total_active_users", "many"}}, "total_active_users: must be an integer"},
        {"below floor", {{"total_active_users", 199}}, "total_active_users: must be at least 200"},
        {"rate above limit", {{"new_users_per_minute", 5000}}, "new_users_per_minute: must not exceed total_active_users (1000)"},
        {"session too long", {{"session_duration", 31}}, "session_duration: must be between 1 and 30 minutes"},
        {"bad method", {{"queueing_method", "lifo"}}, "queueing_method: must be one of fifo, random, passthrough, reject"},
        {"bad status", {{"queueing_status_code", 503}}, "queueing_status_code: must be 200, 202 or 429"},
        {"host outside zone", {{"host", "shop.other.com"}}, "host: must lie inside the zone example.com"},
        {"routes need suffix", {{"additional_routes", {{{"host", "shop.example.com"}, {"path", "/b"}}}}},
         "cookie_suffix: is required when additional_routes are set, so that rooms sharing a host keep separate cookies"},
        {"samesite none and never", {{"cookie_attributes", {{"samesite", "none"}, {"secure", "never"}}}},
         "cookie_attributes.samesite: none requires cookie_attributes.secure to be auto or always (browsers drop "
         "SameSite=None cookies that are not Secure)"},
        {"broken template", {{"custom_page_html", "<p>{{#waitTimeKnown}}</p>"}},
         "custom_page_html: is not a valid template: Unclosed section \"waitTimeKnown\" at line 1, column 4"},
        {"bad boolean", {{"queue_all", "yes"}}, "queue_all: must be true or false"},
        {"bad command", {{"enabled_origin_commands", {"restart"}}}, "enabled_origin_commands[0]: must be \"revoke\", the only origin command"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const HttpReply reply = wr.patch(rooms_path() + "/shop", c.patch);
        CHECK(reply.status == 400);
        CHECK(reply.body["errors"][0]["code"] == 1002);
        CHECK(first_message(reply) == c.message);
    }
    CHECK(wr.get(rooms_path() + "/shop").body["result"]["total_active_users"] == 1000);

    const HttpReply unknown = wr.patch(rooms_path() + "/shop", {{"no_such_field", 1}, {"description", "ok"}});
    CHECK(unknown.status == 200); // unknown fields are ignored, as Cloudflare does
}

TEST_CASE("integration: origin protection over the API: zone cap and room guard, defaults, merges, no-op PUT, refusals") {
    TestServer wr;
    // The zone: defaults on create, PATCH changes one field, null restores its default.
    const json zone = wr.create_zone();
    CHECK(zone["max_origin_connections"] == 0);
    CHECK(zone["origin_queue_timeout_seconds"] == 10);
    wr.clock().advance(std::chrono::minutes{1});
    HttpReply patched = wr.patch("/client/v4/zones/example.com", {{"max_origin_connections", 64}});
    REQUIRE(patched.status == 200);
    CHECK(patched.body["result"]["max_origin_connections"] == 64);
    CHECK(patched.body["result"]["origin_queue_timeout_seconds"] == 10);
    patched = wr.patch("/client/v4/zones/example.com", {{"origin_queue_timeout_seconds", 30}});
    CHECK(patched.body["result"]["max_origin_connections"] == 64);
    CHECK(patched.body["result"]["origin_queue_timeout_seconds"] == 30);
    // A PATCH of what GET returned changes nothing, modified_on included.
    wr.clock().advance(std::chrono::minutes{1});
    const json zone_now = wr.get("/client/v4/zones/example.com").body["result"];
    CHECK(wr.patch("/client/v4/zones/example.com", zone_now).body["result"] == zone_now);
    for (const auto& [field, value, message] :
         {std::tuple{"max_origin_connections", json(-1), "max_origin_connections: must be between 0 (no limit) and 1000000"},
          std::tuple{"max_origin_connections", json("64"), "max_origin_connections: must be an integer"},
          std::tuple{"origin_queue_timeout_seconds", json(0), "origin_queue_timeout_seconds: must be between 1 and 120 seconds"},
          std::tuple{"origin_queue_timeout_seconds", json(121), "origin_queue_timeout_seconds: must be between 1 and 120 seconds"}}) {
        CAPTURE(field);
        const HttpReply refused = wr.patch("/client/v4/zones/example.com", {{field, value}});
        CHECK(refused.status == 400);
        CHECK(first_message(refused) == message);
    }
    CHECK(wr.get("/client/v4/zones/example.com").body["result"] == zone_now);
    CHECK(wr.patch("/client/v4/zones/example.com", {{"origin_queue_timeout_seconds", nullptr}}).body["result"]["origin_queue_timeout_seconds"] == 10);
    const HttpReply created_zone = wr.post("/client/v4/zones", {{"name", "other.com"}, {"origin", "http://127.0.0.1:3000"},
                                                               {"max_origin_connections", 8}, {"origin_queue_timeout_seconds", 120}});
    CHECK(created_zone.body["result"]["max_origin_connections"] == 8);
    CHECK(created_zone.body["result"]["origin_queue_timeout_seconds"] == 120);

    // The room: every field of the guard on every read; PATCH merges a partial guard.
    json room = wr.create_room("example.com", k_room);
    CHECK(room["origin_guard"] == json{{"enabled", false}, {"target_ttfb_ms", 500}, {"max_error_rate", 0.05}, {"min_new_users_per_minute", 0}});
    const std::string path = rooms_path() + "/shop";
    room = wr.patch(path, {{"origin_guard", {{"enabled", true}, {"max_error_rate", 0.02}}}}).body["result"];
    CHECK(room["origin_guard"] == json{{"enabled", true}, {"target_ttfb_ms", 500}, {"max_error_rate", 0.02}, {"min_new_users_per_minute", 0}});
    room = wr.patch(path, {{"origin_guard", {{"target_ttfb_ms", 900}}}}).body["result"];
    CHECK(room["origin_guard"] == json{{"enabled", true}, {"target_ttfb_ms", 900}, {"max_error_rate", 0.02}, {"min_new_users_per_minute", 0}});

    // PUT of what GET returned changes nothing, modified_on included.
    wr.clock().advance(std::chrono::minutes{5});
    const HttpReply again = wr.put(path, wr.get(path).body["result"]);
    REQUIRE(again.status == 200);
    CHECK(again.body["result"] == room);
    // PUT without the guard returns it to its defaults; so does null.
    CHECK(wr.put(path, k_room).body["result"]["origin_guard"]["enabled"] == false);
    wr.patch(path, {{"origin_guard", {{"enabled", true}, {"target_ttfb_ms", 900}}}});
    CHECK(wr.patch(path, {{"origin_guard", nullptr}}).body["result"]["origin_guard"] ==
          json{{"enabled", false}, {"target_ttfb_ms", 500}, {"max_error_rate", 0.05}, {"min_new_users_per_minute", 0}});

    // Refusals name the field and change nothing; an unknown field inside origin_guard is one.
    const json before = wr.get(path).body["result"];
    const std::pair<json, std::string> refusals[] = {
        {{{"origin_guard", {{"target_ttfb_ms", 60001}}}}, "origin_guard.target_ttfb_ms: must be between 50 and 60000"},
        {{{"origin_guard", {{"max_error_rate", 1.5}}}}, "origin_guard.max_error_rate: must be between 0 and 1 (0.05 is 5 %)"},
        {{{"origin_guard", {{"min_new_users_per_minute", 301}}}},
         "origin_guard.min_new_users_per_minute: must not exceed new_users_per_minute (300)"},
        {{{"new_users_per_minute", 200}, {"origin_guard", {{"min_new_users_per_minute", 250}}}},
         "origin_guard.min_new_users_per_minute: must not exceed new_users_per_minute (200)"},
        {{{"origin_guard", {{"enabled", true}, {"target", 800}}}},
         "origin_guard.target: is not a field of origin_guard (its fields are enabled, target_ttfb_ms, max_error_rate, "
         "min_new_users_per_minute)"},
        {{{"origin_guard", "on"}}, "origin_guard: must be an object with enabled, target_ttfb_ms, max_error_rate and min_new_users_per_minute"},
    };
    for (const auto& [body, message] : refusals) {
        CAPTURE(body.dump());
        const HttpReply reply = wr.patch(path, body);
        CHECK(reply.status == 400);
        CHECK(reply.body["errors"][0]["code"] == 1002);
        CHECK(first_message(reply) == message);
    }
    CHECK(wr.get(path).body["result"] == before);
}

TEST_CASE("integration: routes are unique across rooms") {
    TestServer wr;
    wr.create_zone();
    wr.create_room("example.com", k_room);
    json second = k_room;
    second["name"] = "shop2";
    second["host"] = "SHOP.example.com";
    const HttpReply clash = wr.post(rooms_path(), second);
    CHECK(clash.status == 400);
    CHECK(first_message(clash).starts_with("host: SHOP.example.com/ is already the route of waiting room shop"));
    second["path"] = "/checkout";
    CHECK(wr.post(rooms_path(), second).status == 200);
    json third = k_room;
    third["name"] = "shop";
    third["path"] = "/other";
    CHECK(first_message(wr.post(rooms_path(), third)) == "name: a waiting room named shop already exists in example.com");
}

TEST_CASE("integration: lists page through results, and a page past the end is empty") {
    TestServer wr;
    wr.create_zone();
    for (int i = 0; i < 7; ++i) {
        json room = k_room;
        room["name"] = "room" + std::to_string(i);
        room["path"] = "/r" + std::to_string(i);
        wr.create_room("example.com", room);
    }
    const HttpReply first = wr.get(rooms_path() + "?per_page=5");
    CHECK(first.body["result"].size() == 5);
    CHECK(first.body["result_info"] == json{{"page", 1}, {"per_page", 5}, {"count", 5}, {"total_count", 7}, {"total_pages", 2}});
    const HttpReply second = wr.get(rooms_path() + "?per_page=5&page=2");
    CHECK(second.body["result"].size() == 2);
    CHECK(second.body["result"][1]["name"] == "room6");
    const HttpReply past = wr.get(rooms_path() + "?per_page=5&page=3");
    CHECK(past.status == 200);
    CHECK(past.body["result"] == json::array());

    CHECK(wr.get("/client/v4/accounts/any/waiting_rooms").body["result_info"]["total_count"] == 7);
    const HttpReply too_small = wr.get(rooms_path() + "?per_page=4");
    CHECK(too_small.status == 400);
    CHECK(first_message(too_small) == "per_page: must be an integer between 5 and 1000");
    CHECK(wr.get(rooms_path() + "?page=0").status == 400);
}

TEST_CASE("integration: bodies that are too large, not JSON, or malformed") {
    TestServer wr;
    wr.create_zone();
    const std::string auth = "Bearer " + wr.admin_token();
    const HttpReply large = wr.send("POST", rooms_path(), std::string(5 * 1024 * 1024, ' '),
                                    {{"Authorization", auth}, {"Content-Type", "application/json"}});
    CHECK(large.status == 413);
    CHECK(large.body["errors"][0]["code"] == 1009);
    CHECK(first_message(large) == "the request body is larger than 4194304 bytes (wr serve --max-body-bytes)");

    const HttpReply text = wr.send("POST", rooms_path(), "name=shop", {{"Authorization", auth}, {"Content-Type", "text/plain"}});
    CHECK(text.status == 415);
    const HttpReply broken = wr.send("POST", rooms_path(), "{\"name\":", {{"Authorization", auth}, {"Content-Type", "application/json"}});
    CHECK(broken.status == 400);
    CHECK(first_message(broken).starts_with("the request body is not valid JSON"));
    // Media types are case-insensitive: a malformed body that says APPLICATION/JSON is a 400, not a 415.
    const HttpReply shouted = wr.send("POST", rooms_path(), "{\"name\":", {{"Authorization", auth}, {"Content-Type", "APPLICATION/JSON"}});
    CHECK(shouted.status == 400);
    CHECK(shouted.body["errors"][0]["code"] == 1001);
    // A number past a double's range is malformed input too, never a 500.
    const HttpReply overflow = wr.send("POST", rooms_path(), R"({"total_active_users":1e400})",
                                       {{"Authorization", auth}, {"Content-Type", "application/json"}});
    CHECK(overflow.status == 400);
    CHECK(overflow.body["errors"][0]["code"] == 1001);
    // Valid JSON is accepted whatever the declared type.
    const HttpReply typed = wr.send("POST", rooms_path(), k_room.dump(), {{"Authorization", auth}, {"Content-Type", "text/plain"}});
    CHECK(typed.status == 200);
    CHECK(wr.post(rooms_path(), json::array()).status == 400);
    CHECK(wr.send("PUT", "/client/v4/zones", "{}", {{"Authorization", auth}}).status == 405);
    CHECK(wr.get("/client/v4/nothing").status == 404);
    // An id that is not UTF-8 is a 404 like any other, its bytes shown escaped.
    const HttpReply stray = wr.get("/client/v4/zones/%ff");
    CHECK(stray.status == 404);
    CHECK(first_message(stray) == "zone '\\xFF' not found");
    CHECK(wr.del(rooms_path() + "/settings").status == 405);
}

TEST_CASE("integration: token scopes and zones are enforced") {
    TestServer wr;
    wr.create_zone();
    wr.create_zone("other.com");
    wr.create_room("example.com", k_room);
    const std::string reader = wr.create_token("read");
    const std::string zone_editor = wr.create_token("edit", "example.com");

    CHECK(wr.get(rooms_path(), reader).status == 200);
    const HttpReply read_only = wr.patch(rooms_path() + "/shop", {{"queue_all", true}}, reader);
    CHECK(read_only.status == 403);
    CHECK(read_only.body["errors"][0]["code"] == 1007);

    CHECK(wr.patch(rooms_path() + "/shop", {{"queue_all", true}}, zone_editor).status == 200);
    const HttpReply other_zone = wr.get(rooms_path("other.com"), zone_editor);
    CHECK(other_zone.status == 403);
    CHECK(other_zone.body["errors"][0]["code"] == 1008);
    CHECK(wr.get(rooms_path("missing.com"), zone_editor).status == 403);
    CHECK(wr.post("/client/v4/zones", {{"name", "x.com"}, {"origin", "http://a"}}, zone_editor).status == 403);
    CHECK(wr.get("/client/v4/tokens", zone_editor).status == 403);
    const HttpReply zones = wr.get("/client/v4/zones", zone_editor);
    CHECK(zones.body["result"].size() == 1);
    CHECK(zones.body["result"][0]["name"] == "example.com");

    // Listing tokens never shows secrets or hashes; revoking one locks it out.
    const HttpReply tokens = wr.get("/client/v4/tokens");
    CHECK(tokens.text.find(reader) == std::string::npos);
    CHECK(tokens.text.find("hash") == std::string::npos);
    std::string reader_id;
    for (const json& token : tokens.body["result"])
        if (token["name"] == "test-read") reader_id = token["id"];
    // What a token may do, as the console asks it.
    const HttpReply verified = wr.get("/client/v4/user/tokens/verify", reader);
    CHECK(verified.status == 200);
    CHECK(verified.body["result"]["scope"] == "read");
    CHECK(verified.body["result"]["status"] == "active");
    CHECK(verified.body["result"]["zone_id"].is_null());
    CHECK(wr.get("/client/v4/user/tokens/verify", zone_editor).body["result"]["scope"] == "edit");
    CHECK(!wr.get("/client/v4/user/tokens/verify", zone_editor).body["result"]["zone_id"].is_null());
    CHECK(wr.send("GET", "/client/v4/user/tokens/verify", "", {}).status == 401);

    CHECK(wr.del("/client/v4/tokens/" + reader_id).status == 200);
    CHECK(wr.get(rooms_path(), reader).status == 401);
    CHECK(wr.get("/client/v4/user/tokens/verify", reader).status == 401);
}

TEST_CASE("integration: the console is served with a policy that allows only its own files") {
    TestServer wr;
    const HttpReply page = wr.send("GET", "/", "", {});
    CHECK(page.status == 200);
    const std::string policy = page.headers.find("Content-Security-Policy")->second;
    CHECK(policy.find("script-src 'self'") != std::string::npos);
    CHECK(policy.find("default-src 'none'") != std::string::npos);
    CHECK(policy.find("unsafe-inline") == std::string::npos);
    CHECK(page.text.find("<script src=\"/console.js\"") != std::string::npos);
    CHECK(page.text.find("<script>") == std::string::npos); // nothing inline for the policy to block
    const HttpReply script = wr.send("GET", "/console.js", "", {});
    CHECK(script.status == 200);
    CHECK(script.headers.find("Content-Type")->second.starts_with("text/javascript"));
    CHECK(script.text.find("Authorization") != std::string::npos);
    CHECK(wr.send("GET", "/console.css", "", {}).status == 200);
    // No CORS: another origin's script cannot read the API's answers.
    const HttpReply cross = wr.send("GET", "/client/v4/zones", "", {{"Origin", "https://evil.example"}});
    CHECK(cross.status == 401);
    CHECK(cross.headers.find("Access-Control-Allow-Origin") == cross.headers.end());
}

TEST_CASE("integration: events are scheduled, merged with their room, and kept apart") {
    TestServer wr;
    wr.create_zone();
    wr.create_room("example.com", k_room);
    const std::string events = rooms_path() + "/shop/events";
    const json launch = {{"name", "launch"},
                         {"prequeue_start_time", "2026-11-22T11:00:00Z"},
                         {"event_start_time", "2026-11-22T11:30:00Z"},
                         {"event_end_time", "2026-11-22T13:00:00Z"},
                         {"shuffle_at_event_start", true},
                         {"total_active_users", 500},
                         {"new_users_per_minute", 250}};
    const HttpReply created = wr.post(events, launch);
    REQUIRE_MESSAGE(created.status == 200, created.text);
    CHECK(created.body["result"]["event_start_time"] == "2026-11-22T11:30:00Z"); // as given
    CHECK(created.body["result"]["session_duration"].is_null());

    const HttpReply details = wr.get(events + "/launch/details");
    CHECK(details.body["result"]["total_active_users"] == 500);
    CHECK(details.body["result"]["session_duration"] == 5);
    CHECK(details.body["result"]["queueing_method"] == "fifo");

    const HttpReply room = wr.get(rooms_path() + "/shop");
    CHECK(room.body["result"]["next_event_start_time"] == "2026-11-22T11:30:00Z");
    CHECK(room.body["result"]["next_event_prequeue_start_time"] == "2026-11-22T11:00:00Z");

    json overlapping = {{"name", "encore"}, {"event_start_time", "2026-11-22T12:30:00Z"}, {"event_end_time", "2026-11-22T14:00:00Z"}};
    const HttpReply overlap = wr.post(events, overlapping);
    CHECK(overlap.status == 400);
    CHECK(first_message(overlap).starts_with("event_start_time: the event overlaps event launch"));

    const HttpReply half = wr.post(events, {{"name", "x"}, {"event_start_time", "2026-11-23T10:00:00Z"},
                                            {"event_end_time", "2026-11-23T11:00:00Z"}, {"total_active_users", 300}});
    CHECK(first_message(half).starts_with("new_users_per_minute: must be set together with total_active_users"));
    const HttpReply past = wr.post(events, {{"name", "x"}, {"event_start_time", "2026-11-21T10:00:00Z"}, {"event_end_time", "2026-11-21T11:00:00Z"}});
    CHECK(first_message(past) == "event_end_time: must be in the future");
    const HttpReply bad_time = wr.post(events, {{"name", "x"}, {"event_start_time", "tomorrow"}, {"event_end_time", "2026-11-21T11:00:00Z"}});
    CHECK(first_message(bad_time).starts_with("event_start_time: must be an ISO 8601 date-time"));

    for (int day = 1; day <= 4; ++day) {
        const std::string date = "2026-12-0" + std::to_string(day);
        CHECK(wr.post(events, {{"name", "day" + std::to_string(day)}, {"event_start_time", date + "T10:00:00Z"},
                               {"event_end_time", date + "T11:00:00Z"}}).status == 200);
    }
    const HttpReply sixth = wr.post(events, {{"name", "day9"}, {"event_start_time", "2026-12-09T10:00:00Z"}, {"event_end_time", "2026-12-09T11:00:00Z"}});
    CHECK(sixth.status == 400);
    CHECK(first_message(sixth).starts_with("event: a waiting room may have at most 5 events"));

    const HttpReply listed = wr.get(events + "?per_page=5");
    CHECK(listed.body["result_info"]["total_count"] == 5);
    CHECK(listed.body["result"][0]["name"] == "launch");

    // Round trip: PUT of GET changes nothing.
    const json stored = wr.get(events + "/launch").body["result"];
    wr.clock().advance(std::chrono::minutes{1});
    CHECK(wr.put(events + "/" + stored["id"].get<std::string>(), stored).body["result"] == stored);
    const HttpReply patched = wr.patch(events + "/launch", {{"session_duration", 10}});
    CHECK(patched.body["result"]["session_duration"] == 10);
    CHECK(wr.del(events + "/launch").body["result"]["id"] == stored["id"]);
    CHECK(wr.get(events + "/launch").status == 404);
}

TEST_CASE("integration: rules are appended, replaced, edited, moved and deleted") {
    TestServer wr;
    wr.create_zone();
    wr.create_room("example.com", k_room);
    const std::string rules = rooms_path() + "/shop/rules";
    const json first = {{"action", "bypass_waiting_room"}, {"expression", "http.request.uri.path eq \"/health\""}, {"description", "health"}};
    const HttpReply one = wr.post(rules, first);
    REQUIRE_MESSAGE(one.status == 200, one.text);
    CHECK(one.body["result"].size() == 1);
    CHECK(one.body["result"][0]["enabled"] == true);
    CHECK(one.body["result"][0]["version"] == "1");

    const HttpReply two = wr.post(rules, json::array({{{"action", "bypass_waiting_room"}, {"expression", "ip.src in {10.0.0.0/8 2001:db8::/32}"}}}));
    CHECK(two.body["result"].size() == 2);
    const std::string first_id = two.body["result"][0]["id"];
    const std::string second_id = two.body["result"][1]["id"];

    const HttpReply bad = wr.post(rules, {{"action", "bypass_waiting_room"}, {"expression", "http.host eq"}});
    CHECK(bad.status == 400);
    CHECK(first_message(bad) == "expression: expected a value after 'eq' at column 13");
    CHECK(first_message(wr.post(rules, {{"action", "block"}, {"expression", "http.host eq \"a\""}})) == "action: must be bypass_waiting_room");

    const HttpReply moved = wr.patch(rules + "/" + second_id, {{"position", {{"index", 1}}}});
    CHECK(moved.body["result"][0]["id"] == second_id);
    const HttpReply edited = wr.patch(rules + "/" + first_id, {{"enabled", false}, {"position", {{"before", second_id}}}});
    CHECK(edited.body["result"][0]["id"] == first_id);
    CHECK(edited.body["result"][0]["enabled"] == false);
    CHECK(edited.body["result"][0]["version"] == "2");

    const json list = wr.get(rules).body["result"];
    json resend = json::array();
    for (const json& rule : list) resend.push_back(rule);
    const HttpReply same = wr.put(rules, resend);
    CHECK(same.body["result"] == list); // ids and versions survive a PUT of the same list

    const HttpReply replaced = wr.put(rules, json::array({first}));
    CHECK(replaced.body["result"].size() == 1);
    const HttpReply removed = wr.del(rules + "/" + replaced.body["result"][0]["id"].get<std::string>());
    CHECK(removed.body["result"] == json::array());
    CHECK(wr.del(rules + "/0123456789abcdef0123456789abcdef").status == 404);
}

TEST_CASE("integration: zone settings and room status") {
    TestServer wr;
    wr.create_zone();
    const std::string settings = rooms_path() + "/settings";
    CHECK(wr.get(settings).body["result"] == json{{"search_engine_crawler_bypass", false}});
    CHECK(wr.patch(settings, {{"search_engine_crawler_bypass", true}}).body["result"]["search_engine_crawler_bypass"] == true);
    CHECK(wr.put(settings, json::object()).body["result"]["search_engine_crawler_bypass"] == false);
    CHECK(wr.put(settings, {{"search_engine_crawler_bypass", 1}}).status == 400);

    wr.create_room("example.com", k_room);
    const std::string status = rooms_path() + "/shop/status";
    // Cloudflare's fields, and wr's list of the nodes behind them: here the one node, healthy.
    const json this_node = {{"name", "wr"},
                            {"role", "all"},
                            {"condition", "ok"},
                            {"message", ""},
                            {"last_report", "2026-11-22T10:00:00.000Z"},
                            {"state", {{"backend", "memory"}, {"connected", true}, {"failure_mode", ""}, {"since", nullptr}, {"detail", ""}}},
                            {"active_users", 0},
                            {"queued_users", 0}};
    CHECK(wr.get(status).body["result"] == json{{"status", "not_queueing"}, {"event_id", ""}, {"estimated_queued_users", 0},
                                                {"estimated_total_active_users", 0}, {"max_estimated_time_minutes", 0},
                                                // wr's own: the limits in force and the origin guard (off here)
                                                {"effective_total_active_users", 1000}, {"effective_new_users_per_minute", 300},
                                                {"origin_guard",
                                                 {{"state", "off"},
                                                  {"p95_ttfb_ms", nullptr},
                                                  {"error_rate", nullptr},
                                                  {"reason", "the origin guard is off: the configured limits apply"}}},
                                                {"nodes", json::array({this_node})}});
    wr.patch(rooms_path() + "/shop", {{"queue_all", true}});
    CHECK(wr.get(status).body["result"]["status"] == "queueing");
    wr.patch(rooms_path() + "/shop", {{"queue_all", false}, {"suspended", true}});
    CHECK(wr.get(status).body["result"]["status"] == "suspended");
    wr.patch(rooms_path() + "/shop", {{"suspended", false}});

    const HttpReply event = wr.post(rooms_path() + "/shop/events", {{"name", "launch"}, {"prequeue_start_time", "2026-11-22T10:10:00Z"},
                                                                    {"event_start_time", "2026-11-22T10:30:00Z"},
                                                                    {"event_end_time", "2026-11-22T11:00:00Z"}});
    REQUIRE(event.status == 200);
    wr.clock().advance(std::chrono::minutes{15});
    CHECK(wr.get(status).body["result"]["status"] == "event_prequeueing");
    CHECK(wr.get(status).body["result"]["event_id"] == event.body["result"]["id"]);
    wr.clock().advance(std::chrono::minutes{20});
    CHECK(wr.get(status).body["result"]["status"] == "not_queueing");
    wr.clock().advance(std::chrono::minutes{30});
    CHECK(wr.get(status).body["result"]["event_id"] == "");
}

TEST_CASE("integration: a preview stores the page and renders it at a public URL") {
    TestServer wr;
    wr.create_zone();
    const std::string html = "<p>wait {{waitTime}} ({{waitTimeFormatted}}) fifo={{isFIFOQueue}} {{#queueAll}}all{{/queueAll}}"
                             "{{^waitTimeKnown}}unknown{{/waitTimeKnown}}</p>";
    const HttpReply created = wr.post(rooms_path() + "/preview", {{"custom_html", html}});
    REQUIRE_MESSAGE(created.status == 200, created.text);
    const std::string url = created.body["result"]["preview_url"];
    REQUIRE(url.starts_with(wr.admin_url() + "/preview/"));
    const std::string path = url.substr(wr.admin_url().size());

    const HttpReply plain = wr.send("GET", path, "", {});
    CHECK(plain.status == 200);
    CHECK(plain.text == "<p>wait 10 (10 minutes) fifo=true </p>");
    // Stored HTML on the admin origin: sandboxed into an origin of its own, and its id kept out of the log.
    // Its script may run (the page refreshes itself) but send nothing anywhere: no fetch, XHR,
    // WebSocket or beacon, and no form posted off the page.
    const std::string policy = "sandbox allow-scripts; connect-src 'none'; form-action 'none'";
    CHECK(plain.headers.find("Content-Security-Policy")->second == policy);
    CHECK(wr.send("GET", path + "?queueing_method=lifo", "", {}).headers.find("Content-Security-Policy")->second == policy);
    CHECK(wr::api::redact_capabilities(path) == "/preview/<redacted>");
    CHECK(wr::api::redact_capabilities("/client/v4/zones") == "/client/v4/zones");
    CHECK(wr.send("GET", path + "?force_queue=true", "", {}).text == "<p>wait 0 (unavailable) fifo=true allunknown</p>");
    CHECK(wr.send("GET", path + "?queueing_method=random&waitTime=20", "", {}).text ==
          "<p>wait 20 (10 minutes to 30 minutes) fifo=false </p>");
    CHECK(wr.send("GET", path + "?queueing_method=lifo", "", {}).status == 400);
    // Every bad parameter is a 400 that names its range, a language too.
    const HttpReply language = wr.send("GET", path + "?language=xx", "", {});
    CHECK(language.status == 400);
    CHECK(language.text == "language: must be one of the 39 supported languages (en-US, de-DE, …)\n");
    CHECK(wr.send("GET", path + "?language=de-DE", "", {}).status == 200);
    const HttpReply long_wait = wr.send("GET", path + "?waitTime=2147483648", "", {});
    CHECK(long_wait.status == 400);
    CHECK(long_wait.text == "waitTime: must be a whole number of minutes from 0 to 999999\n");
    CHECK(wr.send("GET", "/preview/0123456789abcdef0123456789abcdef", "", {}).status == 404);

    // Turnstile is off in previews: its empty value is a false section, as in mustache.js.
    const HttpReply sections = wr.post(rooms_path() + "/preview", {{"custom_html", "{{#turnstile}}<div>{{{turnstile}}}</div>{{/turnstile}}{{^turnstile}}off{{/turnstile}}"}});
    REQUIRE_MESSAGE(sections.status == 200, sections.text);
    const std::string sections_url = sections.body["result"]["preview_url"];
    CHECK(wr.send("GET", sections_url.substr(wr.admin_url().size()), "", {}).text == "off");

    const HttpReply broken = wr.post(rooms_path() + "/preview", {{"custom_html", "{{#a}}"}});
    CHECK(broken.status == 400);
    CHECK(first_message(broken).starts_with("custom_html: is not a valid template"));
    wr.clock().advance(std::chrono::hours{25});
    CHECK(wr.send("GET", path, "", {}).status == 404);
}

TEST_CASE("integration: configuration survives a restart") {
    wr::test::TempDir data;
    std::string token;
    {
        TestServer wr(data.path());
        wr.create_zone();
        wr.create_room("example.com", k_room);
        token = wr.admin_token();
    }
    TestServer restarted(data.path());
    CHECK(restarted.admin_token() == token);
    CHECK(restarted.get(rooms_path() + "/shop").body["result"]["total_active_users"] == 1000);
}

TEST_CASE("integration: apply makes the store match a document, once") {
    TestServer wr;
    const json document = {
        {"zones",
         {{{"name", "example.com"},
           {"origin", "http://127.0.0.1:3000"},
           {"settings", {{"search_engine_crawler_bypass", true}}},
           {"waiting_rooms",
            {{{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300},
              {"events", {{{"name", "launch"}, {"event_start_time", "2026-11-23T10:00:00Z"}, {"event_end_time", "2026-11-23T12:00:00Z"}}}},
              {"rules", {{{"action", "bypass_waiting_room"}, {"expression", "http.request.uri.path eq \"/ok\""}}}}}}}}}}};
    const HttpReply dry = wr.post("/client/v4/apply?dry_run=true", document);
    REQUIRE_MESSAGE(dry.status == 200, dry.text);
    CHECK(dry.body["result"]["changes"].size() == 5);
    CHECK(wr.get("/client/v4/zones").body["result"].empty());

    CHECK(wr.post("/client/v4/apply", document).body["result"]["changes"].size() == 5);
    CHECK(wr.post("/client/v4/apply", document).body["result"]["changes"].empty());
    const json exported = wr.get("/client/v4/export").body["result"];
    CHECK(wr.post("/client/v4/apply", exported).body["result"]["changes"].empty());
    CHECK(wr.get("/client/v4/export").body["result"] == exported);

    json invalid = document;
    invalid["zones"][0]["waiting_rooms"][0]["total_active_users"] = 10;
    invalid["zones"][0]["origin"] = "http://127.0.0.1:4000";
    const HttpReply refused = wr.post("/client/v4/apply", invalid);
    CHECK(refused.status == 400);
    CHECK(first_message(refused) == "zones[0].waiting_rooms[0].total_active_users: must be at least 200");
    CHECK(wr.get("/client/v4/zones/example.com").body["result"]["origin"] == "http://127.0.0.1:3000"); // all or nothing
}

} // TEST_SUITE
