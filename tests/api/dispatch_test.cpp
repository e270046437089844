// The admin API's dispatcher without sockets: route matching, authentication, scopes and zones,
// the v4 envelope, and the bounds of pagination.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "api/envelope.h"
#include "api/routes.h"
#include "control/rooms.h"
#include "control/tokens.h"
#include "control/zones.h"
#include "model/validate.h"
#include "store/migrate.h"
#include "store/tokens_store.h"
#include "support/api_reply.h"
#include "support/shop_paths.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::api::Reply;
using wr::api::Request;
using wr::store::Connection;
using wr::test::body_of;
using wr::test::error_of;
using wr::test::k_rooms;

namespace {

// A migrated database with two zones, a room in the first, and four tokens.
struct Admin {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    wr::util::FakeClock clock{wr::test::k_test_start};
    wr::api::Services services{database, clock, nullptr};
    std::string zone_id;
    std::string edit;        // edit, every zone
    std::string read;        // read, every zone
    std::string zoned_edit;  // edit, example.com only
    std::string zoned_read;  // read, example.com only

    Admin() {
        wr::store::migrate(database);
        database.write([&](Connection& c) {
            const wr::model::Zone zone = wr::control::create_zone(c, clock.now(), {"example.com", "http://127.0.0.1:3000"});
            zone_id = zone.id;
            wr::control::create_zone(c, clock.now(), {"other.com", "http://127.0.0.1:4000"});
            wr::model::RoomSettings room;
            room.name = "shop";
            room.host = "shop.example.com";
            room.total_active_users = 1000;
            room.new_users_per_minute = 300;
            wr::control::create_room(c, clock.now(), zone, room);
            edit = wr::control::create_token(c, clock.now(), "edit", wr::model::TokenScope::edit, std::nullopt).secret;
            read = wr::control::create_token(c, clock.now(), "read", wr::model::TokenScope::read, std::nullopt).secret;
            zoned_edit = wr::control::create_token(c, clock.now(), "zoned-edit", wr::model::TokenScope::edit, zone_id).secret;
            zoned_read = wr::control::create_token(c, clock.now(), "zoned-read", wr::model::TokenScope::read, zone_id).secret;
        });
    }

    Reply send(const std::string& method, const std::string& path, const std::string& token,
               std::multimap<std::string, std::string> query = {}, const std::string& body = "",
               std::map<std::string, std::string> headers = {}) {
        Request request;
        request.method = method;
        request.path = path;
        request.query = std::move(query);
        request.body = body;
        request.headers = std::move(headers);
        request.base_url = "http://127.0.0.1:9090";
        if (!token.empty()) request.headers["authorization"] = "Bearer " + token;
        return wr::api::dispatch(services, wr::api::all_routes(), request);
    }
};

json error(int code, const std::string& message) { return {{"code", code}, {"message", message}}; }

} // namespace

TEST_CASE("api::dispatch prefers literal segments: /waiting_rooms/settings is not a room") {
    Admin admin;
    const Reply settings = admin.send("GET", k_rooms + "/settings", admin.edit);
    CHECK(settings.status == 200);
    CHECK(body_of(settings)["result"] == json{{"search_engine_crawler_bypass", false}});

    const Reply room = admin.send("GET", k_rooms + "/shop", admin.edit);
    CHECK(room.status == 200);
    CHECK(body_of(room)["result"]["name"] == "shop");

    const Reply patched = admin.send("PATCH", k_rooms + "/settings", admin.edit, {}, R"({"search_engine_crawler_bypass":true})");
    CHECK(patched.status == 200);
    CHECK(body_of(patched)["result"] == json{{"search_engine_crawler_bypass", true}});
    CHECK(body_of(admin.send("GET", k_rooms + "/settings", admin.edit))["result"]["search_engine_crawler_bypass"] == true);
}

TEST_CASE("api::dispatch picks the route with the most literal segments whatever the table order") {
    const wr::api::Route routes[] = {
        {"GET", "/x/{id}/y", wr::api::Access::public_access,
         [](wr::api::Services&, Request& request) { return wr::api::ok({{"route", "param"}, {"id", request.param("id")}}); }},
        {"GET", "/x/{id}/{part}", wr::api::Access::public_access,
         [](wr::api::Services&, Request& request) {
             return wr::api::ok({{"route", "two params"}, {"id", request.param("id")}, {"part", request.param("part")}});
         }},
        {"GET", "/x/literal/y", wr::api::Access::public_access,
         [](wr::api::Services&, Request&) { return wr::api::ok({{"route", "literal"}}); }},
    };
    const std::vector<wr::api::Route> table(std::begin(routes), std::end(routes));
    Admin admin;
    const auto run = [&](const std::string& path) {
        Request request;
        request.method = "GET";
        request.path = path;
        const Reply reply = wr::api::dispatch(admin.services, table, request);
        return std::make_pair(body_of(reply)["result"], request.params);
    };
    CHECK(run("/x/literal/y").first == json{{"route", "literal"}});
    const auto [param, params] = run("/x/abc/y");
    CHECK(param == json{{"route", "param"}, {"id", "abc"}});
    CHECK(params == std::map<std::string, std::string>{{"id", "abc"}});
    CHECK(run("/x/abc/z").first == json{{"route", "two params"}, {"id", "abc"}, {"part", "z"}});
    CHECK(run("/x/literal/z").first == json{{"route", "two params"}, {"id", "literal"}, {"part", "z"}});
}

TEST_CASE("api::dispatch answers 404 for an unknown path and 405 for a known path with another method") {
    Admin admin;
    struct Case {
        const char* method;
        const char* path;
        int status;
        json error;
    };
    const Case cases[] = {
        {"GET", "/client/v4/nothing", 404, error(1004, "no such endpoint: GET /client/v4/nothing")},
        {"GET", "/client/v4/zones/", 404, error(1004, "no such endpoint: GET /client/v4/zones/")},
        {"GET", "/client/v4/zones//waiting_rooms", 404, error(1004, "no such endpoint: GET /client/v4/zones//waiting_rooms")},
        {"GET", "/client/v4/zones/example.com/waiting_rooms/shop/nothing", 404,
         error(1004, "no such endpoint: GET /client/v4/zones/example.com/waiting_rooms/shop/nothing")},
        {"GET", "/nothing", 404, error(1004, "no such endpoint: GET /nothing")},
        {"DELETE", "/client/v4/zones", 405, error(1011, "DELETE is not allowed on /client/v4/zones")},
        {"PUT", "/client/v4/tokens", 405, error(1011, "PUT is not allowed on /client/v4/tokens")},
        {"POST", "/client/v4/zones/example.com/waiting_rooms/shop", 405,
         error(1011, "POST is not allowed on /client/v4/zones/example.com/waiting_rooms/shop")},
        {"POST", "/healthz", 405, error(1011, "POST is not allowed on /healthz")},
        // Paths that exist without the method: not a room named "settings" or "preview".
        {"DELETE", "/client/v4/zones/example.com/waiting_rooms/settings", 405,
         error(1011, "DELETE is not allowed on /client/v4/zones/example.com/waiting_rooms/settings")},
        {"DELETE", "/client/v4/zones/example.com/waiting_rooms/preview", 405,
         error(1011, "DELETE is not allowed on /client/v4/zones/example.com/waiting_rooms/preview")},
        {"GET", "/client/v4/zones/example.com/waiting_rooms/preview", 405,
         error(1011, "GET is not allowed on /client/v4/zones/example.com/waiting_rooms/preview")},
        {"GET", "/client/v4/x\n\xff", 404, error(1004, "no such endpoint: GET /client/v4/x\\x0A\\xFF")},
    };
    for (const Case& c : cases) {
        CAPTURE(c.method);
        CAPTURE(c.path);
        // Routing comes before authentication: the answer is the same with or without a token.
        for (const std::string& token : {std::string(), admin.edit}) {
            const Reply reply = admin.send(c.method, c.path, token);
            CHECK(reply.status == c.status);
            CHECK(error_of(reply) == c.error);
        }
    }
}

TEST_CASE("api::dispatch answers 401 without a valid bearer token") {
    Admin admin;
    const std::string legacy = "X-Auth-Email/X-Auth-Key authentication is not supported; send an API token as "
                               "Authorization: Bearer <token>";
    struct Case {
        const char* name;
        std::map<std::string, std::string> headers;
        json error;
    };
    const Case cases[] = {
        {"no header", {}, error(1005, "an API token is required: Authorization: Bearer <token>")},
        {"legacy key", {{"x-auth-key", "k"}, {"x-auth-email", "a@example.com"}}, error(1005, legacy)},
        {"legacy email alone", {{"x-auth-email", "a@example.com"}}, error(1005, legacy)},
        {"basic", {{"authorization", "Basic YTpi"}}, error(1006, "the Authorization header must be: Bearer <token>")},
        {"bare token", {{"authorization", admin.edit}}, error(1006, "the Authorization header must be: Bearer <token>")},
        {"empty bearer", {{"authorization", "Bearer "}}, error(1006, "the Authorization header must be: Bearer <token>")},
        {"unknown token", {{"authorization", "Bearer wr_0000"}}, error(1006, "the API token is not valid (revoked or mistyped)")},
        {"token with a trailing space", {{"authorization", "Bearer " + admin.edit + " "}},
         error(1006, "the API token is not valid (revoked or mistyped)")},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        Request request;
        request.method = "GET";
        request.path = "/client/v4/zones";
        request.headers = c.headers;
        const Reply reply = wr::api::dispatch(admin.services, wr::api::all_routes(), request);
        CHECK(reply.status == 401);
        CHECK(error_of(reply) == c.error);
    }

    Request lowercase;
    lowercase.method = "GET";
    lowercase.path = "/client/v4/zones";
    lowercase.headers["authorization"] = "bearer " + admin.edit; // the scheme is case-insensitive
    CHECK(wr::api::dispatch(admin.services, wr::api::all_routes(), lowercase).status == 200);

    // A revoked token stops working at once.
    const std::string id = admin.database.read([](Connection& c) { return wr::store::list_tokens(c)[1].id; });
    CHECK(admin.send("DELETE", "/client/v4/tokens/" + id, admin.edit).status == 200);
    const Reply revoked = admin.send("GET", "/client/v4/zones", admin.read);
    CHECK(revoked.status == 401);
    CHECK(error_of(revoked) == error(1006, "the API token is not valid (revoked or mistyped)"));

    // Public routes need no token.
    const Reply health = admin.send("GET", "/healthz", "");
    CHECK(health.status == 200);
    CHECK(*health.raw_body == "{\"status\":\"ok\"}\n");
}

TEST_CASE("api::dispatch answers 403 when the token's scope or zone does not cover the route") {
    Admin admin;
    const json read_only = error(1007, "this token may only read; the request needs a token with scope edit");
    const json one_zone = error(1008, "this token is limited to one zone; managing zones, tokens and whole configurations "
                                      "needs a token valid for every zone");
    const std::string zone_body = R"({"name":"new.com","origin":"http://127.0.0.1:5000"})";
    struct Case {
        const char* name;
        std::string method;
        std::string path;
        std::string token;
        std::string body;
        int status;
        json error; // null for success
    };
    const Case cases[] = {
        {"read token reads", "GET", k_rooms, admin.read, "", 200, nullptr},
        {"read token edits a room", "PATCH", k_rooms + "/shop", admin.read, "{}", 403, read_only},
        {"read token creates a zone", "POST", "/client/v4/zones", admin.read, zone_body, 403, read_only},
        {"read token lists tokens", "GET", "/client/v4/tokens", admin.read, "", 403, read_only},
        {"read token exports", "GET", "/client/v4/export", admin.read, "", 200, nullptr},
        {"zoned token reads its zone", "GET", k_rooms, admin.zoned_read, "", 200, nullptr},
        {"zoned token reads its zone by id", "GET", "/client/v4/zones/" + admin.zone_id + "/waiting_rooms", admin.zoned_read, "",
         200, nullptr},
        {"zoned token edits its zone", "PATCH", k_rooms + "/shop", admin.zoned_edit, "{}", 200, nullptr},
        {"zoned read token edits its zone", "PATCH", k_rooms + "/shop", admin.zoned_read, "{}", 403, read_only},
        {"zoned token reads another zone", "GET", "/client/v4/zones/other.com/waiting_rooms", admin.zoned_edit, "", 403,
         error(1008, "this token is not valid for zone other.com")},
        {"zoned token reads a zone that does not exist", "GET", "/client/v4/zones/nope.com/waiting_rooms", admin.zoned_edit, "",
         403, error(1008, "this token is not valid for zone nope.com")},
        {"zoned token creates a zone", "POST", "/client/v4/zones", admin.zoned_edit, zone_body, 403, one_zone},
        {"zoned token changes its own zone", "PATCH", "/client/v4/zones/example.com", admin.zoned_edit, "{}", 403, one_zone},
        {"zoned token lists tokens", "GET", "/client/v4/tokens", admin.zoned_edit, "", 403, one_zone},
        {"zoned token exports", "GET", "/client/v4/export", admin.zoned_edit, "", 403, one_zone},
        {"zoned token applies", "POST", "/client/v4/apply", admin.zoned_edit, R"({"zones":[]})", 403, one_zone},
        {"edit token reads a zone that does not exist", "GET", "/client/v4/zones/nope.com/waiting_rooms", admin.edit, "", 404,
         error(1004, "zone 'nope.com' not found")},
        {"edit token creates a zone", "POST", "/client/v4/zones", admin.edit, zone_body, 200, nullptr},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const Reply reply = admin.send(c.method, c.path, c.token, {}, c.body);
        CHECK(reply.status == c.status);
        if (c.error.is_null())
            CHECK(body_of(reply)["success"] == true);
        else
            CHECK(error_of(reply) == c.error);
    }

    // A zoned token lists its own zone only.
    const json zones = body_of(admin.send("GET", "/client/v4/zones", admin.zoned_read));
    REQUIRE(zones["result"].size() == 1);
    CHECK(zones["result"][0]["name"] == "example.com");
    CHECK(zones["result_info"]["total_count"] == 1);
}

TEST_CASE("api::dispatch wraps results and errors in the v4 envelope") {
    Admin admin;
    const Reply zone = admin.send("GET", "/client/v4/zones/example.com", admin.read);
    CHECK(zone.status == 200);
    CHECK(zone.content_type == "application/json");
    const json success = body_of(zone);
    CHECK(success.size() == 4);
    CHECK(success["success"] == true);
    CHECK(success["errors"] == json::array());
    CHECK(success["messages"] == json::array());
    CHECK(success["result"]["id"] == admin.zone_id);
    CHECK_FALSE(success.contains("result_info"));

    const json list = body_of(admin.send("GET", "/client/v4/zones", admin.read));
    CHECK(list.size() == 5);
    CHECK(list["result"].size() == 2);
    CHECK(list["result_info"] == json{{"page", 1}, {"per_page", 25}, {"count", 2}, {"total_count", 2}, {"total_pages", 1}});

    const Reply invalid = admin.send("POST", "/client/v4/zones", admin.edit, {}, "{}");
    CHECK(invalid.status == 400);
    CHECK(body_of(invalid) == json{{"success", false},
                                   {"errors", {error(1002, "name: is required"), error(1002, "origin: is required")}},
                                   {"messages", json::array()},
                                   {"result", nullptr}});

    const Reply duplicate = admin.send("POST", "/client/v4/zones", admin.edit, {}, R"({"name":"other.com","origin":"http://x"})");
    CHECK(duplicate.status == 400); // never 409: the SDKs retry it
    CHECK(error_of(duplicate) == error(1003, "name: a zone named other.com already exists"));

    const Reply malformed = admin.send("POST", "/client/v4/zones", admin.edit, {}, R"({"name" 1})");
    CHECK(malformed.status == 400);
    CHECK(error_of(malformed) == error(1001, "the request body is not valid JSON (at byte 9)")); // the 1 is the 9th byte

    Request form;
    form.method = "POST";
    form.path = "/client/v4/zones";
    form.headers = {{"authorization", "Bearer " + admin.edit}, {"content-type", "application/x-www-form-urlencoded"}};
    form.body = "name=a.com";
    const Reply unsupported = wr::api::dispatch(admin.services, wr::api::all_routes(), form);
    CHECK(unsupported.status == 415);
    CHECK(error_of(unsupported) ==
          error(1010, "the request body must be JSON (Content-Type: application/json), not application/x-www-form-urlencoded"));

    const Reply deleted = admin.send("DELETE", "/client/v4/zones/other.com", admin.edit);
    CHECK(deleted.status == 200);
    CHECK(body_of(deleted)["result"].size() == 1);
    CHECK(body_of(deleted)["result"]["id"].get<std::string>().size() == 32);
}

TEST_CASE("api::page_request takes page >= 1 and per_page 5..1000, with exact messages") {
    const std::string page_range = "page: must be an integer between 1 and 1000000000";
    const std::string per_page_range = "per_page: must be an integer between 5 and 1000";
    struct Case {
        std::multimap<std::string, std::string> query;
        int64_t page;
        int64_t per_page;
        std::string error; // "" when accepted
    };
    const Case cases[] = {
        {{}, 1, 25, ""},
        {{{"page", "1"}}, 1, 25, ""},
        {{{"page", "3"}, {"per_page", "5"}}, 3, 5, ""},
        {{{"per_page", "1000"}}, 1, 1000, ""},
        {{{"page", "1000000000"}}, 1000000000, 25, ""},
        {{{"page", "007"}}, 7, 25, ""},
        {{{"page", "0"}}, 0, 0, page_range},
        {{{"page", "-1"}}, 0, 0, page_range},
        {{{"page", ""}}, 0, 0, page_range},
        {{{"page", "abc"}}, 0, 0, page_range},
        {{{"page", "1.5"}}, 0, 0, page_range},
        {{{"page", "+1"}}, 0, 0, page_range},
        {{{"page", "1000000001"}}, 0, 0, page_range},
        {{{"page", "99999999999"}}, 0, 0, page_range},
        {{{"per_page", "4"}}, 0, 0, per_page_range},
        {{{"per_page", "0"}}, 0, 0, per_page_range},
        {{{"per_page", "1001"}}, 0, 0, per_page_range},
        {{{"per_page", "ten"}}, 0, 0, per_page_range},
    };
    for (const Case& c : cases) {
        std::string query_text;
        for (const auto& [key, value] : c.query) query_text += key + "=" + value + "&";
        CAPTURE(query_text);
        Request request;
        request.query = c.query;
        if (c.error.empty()) {
            const wr::api::PageRequest page = wr::api::page_request(request);
            CHECK(page.page == c.page);
            CHECK(page.per_page == c.per_page);
        } else {
            try {
                wr::api::page_request(request);
                FAIL("accepted");
            } catch (const wr::control::Error& error) {
                CHECK(error.code() == wr::control::ErrorCode::bad_query);
                CHECK(error.http_status() == 400);
                CHECK(std::string(error.what()) == c.error);
            }
        }
    }
    CHECK(wr::api::PageRequest{3, 10}.offset() == 20);
    CHECK(wr::api::result_info({1, 25}, 0, 0) ==
          json{{"page", 1}, {"per_page", 25}, {"count", 0}, {"total_count", 0}, {"total_pages", 0}});
    CHECK(wr::api::result_info({2, 25}, 1, 26)["total_pages"] == 2);
    CHECK(wr::api::result_info({1, 5}, 5, 5)["total_pages"] == 1);
}

TEST_CASE("api::dispatch pages lists: bounds are 400s, a page past the end is an empty 200") {
    Admin admin;
    const Reply small = admin.send("GET", k_rooms, admin.read, {{"per_page", "4"}});
    CHECK(small.status == 400);
    CHECK(error_of(small) == error(1012, "per_page: must be an integer between 5 and 1000"));
    const Reply zero = admin.send("GET", k_rooms, admin.read, {{"page", "0"}});
    CHECK(zero.status == 400);
    CHECK(error_of(zero) == error(1012, "page: must be an integer between 1 and 1000000000"));

    const json first = body_of(admin.send("GET", k_rooms, admin.read, {{"per_page", "5"}}));
    CHECK(first["result"].size() == 1);
    CHECK(first["result_info"] == json{{"page", 1}, {"per_page", 5}, {"count", 1}, {"total_count", 1}, {"total_pages", 1}});

    const Reply past = admin.send("GET", k_rooms, admin.read, {{"page", "2"}});
    CHECK(past.status == 200);
    const json past_body = body_of(past);
    CHECK(past_body["result"] == json::array());
    CHECK(past_body["result_info"] == json{{"page", 2}, {"per_page", 25}, {"count", 0}, {"total_count", 1}, {"total_pages", 1}});
}

TEST_CASE("api::dispatch records when a token was last used, at most once a minute") {
    Admin admin;
    const auto last_used = [&] {
        return admin.database.read([](Connection& c) { return wr::store::list_tokens(c)[1].last_used_on; }); // the read token
    };
    CHECK_FALSE(last_used());
    const uint64_t generation = admin.database.generation();
    admin.send("GET", "/client/v4/zones", admin.read);
    CHECK(last_used() == wr::test::k_test_start);
    // Recording a token's use is not a configuration change: the edge is not told to reload.
    CHECK(admin.database.generation() == generation);

    admin.clock.advance(59s);
    admin.send("GET", "/client/v4/zones", admin.read);
    CHECK(last_used() == wr::test::k_test_start); // reads stay reads
    CHECK(admin.database.generation() == generation);

    admin.clock.advance(2s);
    admin.send("GET", "/client/v4/zones", admin.read);
    CHECK(last_used() == wr::test::k_test_start + 61s);

    // A request that never reaches authentication does not count as a use.
    admin.clock.advance(1h);
    admin.send("GET", "/client/v4/nothing", admin.read);
    CHECK(last_used() == wr::test::k_test_start + 61s);
}

TEST_CASE("api::dispatch marks successful reads routine (debug log) and keeps writes and errors at info") {
    Admin admin;
    CHECK(admin.send("GET", k_rooms + "/shop", admin.edit).quiet);
    CHECK(admin.send("GET", k_rooms + "/shop/status", admin.read).quiet);
    CHECK_FALSE(admin.send("PATCH", k_rooms + "/shop", admin.edit, {}, R"({"queue_all":true})").quiet);
    CHECK_FALSE(admin.send("GET", k_rooms + "/nothing", admin.edit).quiet);  // 404
    CHECK_FALSE(admin.send("GET", k_rooms + "/shop", "wr_not_a_token").quiet); // 401
    CHECK_FALSE(admin.send("PATCH", k_rooms + "/shop", admin.read, {}, R"({"queue_all":true})").quiet); // 403
}

TEST_CASE("api::dispatch holds the body of every route to the JSON limits before its handler runs (413)") {
    Admin admin;
    std::string edge;
    admin.database.write([&](Connection& c) {
        edge = wr::control::create_token(c, admin.clock.now(), "edge", wr::model::TokenScope::edge, std::nullopt).secret;
    });
    const std::string deep = std::string(33, '[') + std::string(33, ']');
    const json refused = error(1009, "the request body nests JSON arrays and objects more than 32 deep");
    int routes_with_bodies = 0;
    for (const wr::api::Route& route : wr::api::all_routes()) {
        const std::string method = route.method;
        if (method == "GET" || method == "DELETE") continue;
        // A path the route matches, in a zone and room that exist.
        std::string path = route.pattern;
        for (const auto& [param, value] : {std::pair<std::string, std::string>{"{zone_id}", "example.com"}, {"{room_id}", "shop"}})
            if (const size_t at = path.find(param); at != std::string::npos) path.replace(at, param.size(), value);
        while (path.find('{') != std::string::npos) path.replace(path.find('{'), path.find('}') - path.find('{') + 1, "x");
        CAPTURE(method);
        CAPTURE(path);
        const Reply reply = admin.send(method, path, route.access == wr::api::Access::edge ? edge : admin.edit, {}, deep);
        CHECK(reply.status == 413);
        CHECK(error_of(reply) == refused);
        ++routes_with_bodies;
    }
    CHECK(routes_with_bodies >= 15);
    // Nothing was created on the way.
    CHECK(body_of(admin.send("GET", "/client/v4/zones", admin.edit))["result"].size() == 2);
    // A body within the limits reaches its handler, which answers as it always did.
    CHECK(admin.send("POST", "/client/v4/zones", admin.edit, {}, std::string(32, '[') + std::string(32, ']')).status == 400);
}

TEST_CASE("api::dispatch: a token's scope may not be null, and a rule's position index may be written 2.0") {
    Admin admin;
    const Reply null_scope = admin.send("POST", "/client/v4/tokens", admin.edit, {}, R"({"name":"x","scope":null})");
    CHECK(null_scope.status == 400);
    CHECK(error_of(null_scope) == error(1002, "scope: is required (read, edit or edge)"));

    const std::string rules = k_rooms + "/shop/rules";
    const Reply created = admin.send("POST", rules, admin.edit, {},
                                     R"([{"expression":"ip.src eq 10.0.0.1"},{"expression":"ip.src eq 10.0.0.2"}])");
    REQUIRE(created.status == 200);
    const std::string second = body_of(created)["result"][1]["id"];
    // JavaScript has only doubles: 1.0 is the first place, as 1 is; 1.5 is no place.
    const Reply moved = admin.send("PATCH", rules + "/" + second, admin.edit, {}, R"({"position":{"index":1.0}})");
    REQUIRE(moved.status == 200);
    CHECK(body_of(moved)["result"][0]["id"] == second);
    const Reply halfway = admin.send("PATCH", rules + "/" + second, admin.edit, {}, R"({"position":{"index":1.5}})");
    CHECK(halfway.status == 400);
    CHECK(error_of(halfway) == error(1002, "position.index: must be an integer (1 is the first rule)"));
}

TEST_CASE("api::dispatch answers 404 for an id that is not UTF-8, showing its bytes escaped") {
    Admin admin;
    const std::string shop_rules = k_rooms + "/shop/rules";
    admin.send("POST", shop_rules, admin.edit, {}, R"({"expression":"ip.src eq 10.0.0.1"})");
    struct Case {
        std::string path; // as decoded from the target: /zones/%ff is /zones/\xff
        std::vector<std::string> methods;
        std::string message;
    };
    const Case cases[] = {
        {"/client/v4/zones/\xff", {"GET", "PATCH", "DELETE"}, "zone '\\xFF' not found"},
        {k_rooms + "/\xff", {"GET", "PATCH", "PUT", "DELETE"}, "waiting_room '\\xFF' not found"},
        {k_rooms + "/shop/events/\xc3", {"GET", "PATCH", "PUT", "DELETE"}, "event '\\xC3' not found"},
        {shop_rules + "/\xff", {"PATCH", "DELETE"}, "rule '\\xFF' not found"},
        {"/client/v4/tokens/\xff", {"DELETE"}, "token '\\xFF' not found"},
        {"/client/v4/notifications/destinations/\xff", {"GET", "PATCH", "DELETE"}, "notification destination '\\xFF' not found"},
        {"/client/v4/zones/example.com/waiting_rooms/sh\nop", {"GET"}, "waiting_room 'sh\\x0Aop' not found"},
    };
    for (const Case& c : cases)
        for (const std::string& method : c.methods) {
            CAPTURE(method);
            CAPTURE(c.message);
            const Reply reply = admin.send(method, c.path, admin.edit, {}, method == "GET" || method == "DELETE" ? "" : "{}");
            CHECK(reply.status == 404);
            CHECK(error_of(reply) == error(1004, c.message));
        }
    // The Host header a preview URL is built on is request text too.
    Request preview;
    preview.method = "POST";
    preview.path = k_rooms + "/preview";
    preview.headers = {{"authorization", "Bearer " + admin.edit}};
    preview.body = R"({"custom_html":"<p>hi</p>"})";
    preview.base_url = "http://\xff";
    const Reply created = wr::api::dispatch(admin.services, wr::api::all_routes(), preview);
    CHECK(created.status == 200);
    CHECK(body_of(created)["result"]["preview_url"].get<std::string>().starts_with("http://\\xFF/preview/"));
    // A zone-bound token is told the zone is not its own, as printably.
    const Reply other_zone = admin.send("GET", "/client/v4/zones/\xff/waiting_rooms", admin.zoned_read);
    CHECK(other_zone.status == 403);
    CHECK(error_of(other_zone) == error(1008, "this token is not valid for zone \\xFF"));
}

TEST_CASE("api::dispatch answers 400 (1001) for a number too large for a double, in every body") {
    Admin admin;
    struct Case {
        const char* method;
        std::string path;
        std::string body;
        std::string message;
    };
    const std::string shop = k_rooms + "/shop";
    const Case cases[] = {
        {"PATCH", shop, R"({"total_active_users":1e400})",
         "the request body has a number too large to read: 1e400 at byte 27 (a number may be at most about 1.8e308)"},
        {"POST", "/client/v4/zones", R"({"name":-1e400,"origin":"http://x"})",
         "the request body has a number too large to read: -1e400 at byte 14 (a number may be at most about 1.8e308)"},
        {"POST", "/client/v4/tokens", R"({"name":1e400})",
         "the request body has a number too large to read: 1e400 at byte 13 (a number may be at most about 1.8e308)"},
        {"POST", "/client/v4/apply", "[" + std::string(400, '9') + "]",
         "the request body has a number too large to read: 99999999999999999999999999999999… at byte 401 (a number may be at "
         "most about 1.8e308)"},
        {"PUT", shop + "/rules", "[1e400]",
         "the request body has a number too large to read: 1e400 at byte 6 (a number may be at most about 1.8e308)"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.path);
        const Reply reply = admin.send(c.method, c.path, admin.edit, {}, c.body);
        CHECK(reply.status == 400);
        CHECK(error_of(reply) == error(1001, c.message));
    }
}

TEST_CASE("api::dispatch reads media types case-insensitively: APPLICATION/JSON is JSON") {
    Admin admin;
    const auto post = [&](const std::string& content_type) {
        return admin.send("POST", "/client/v4/zones", admin.edit, {}, R"({"name" 1})", {{"content-type", content_type}});
    };
    for (const std::string& json_type : {"application/json", "APPLICATION/JSON", "Application/Json; charset=UTF-8", "application/PROBLEM+JSON"}) {
        CAPTURE(json_type);
        const Reply reply = post(json_type);
        CHECK(reply.status == 400);
        CHECK(error_of(reply) == error(1001, "the request body is not valid JSON (at byte 9)"));
    }
    const Reply text = post("TEXT/PLAIN\xff");
    CHECK(text.status == 415);
    CHECK(error_of(text) == error(1010, "the request body must be JSON (Content-Type: application/json), not TEXT/PLAIN\\xFF"));
}

TEST_CASE("api::dispatch refuses more rules than a room holds before reading them, and caps every error list") {
    Admin admin;
    const std::string rules = k_rooms + "/shop/rules";
    // 1,000,001 elements: one error, not a million.
    std::string million = "[1";
    for (int i = 0; i < 1000000; ++i) million += ",1";
    million += "]";
    for (const char* method : {"PUT", "POST"}) {
        CAPTURE(method);
        const Reply refused = admin.send(method, rules, admin.edit, {}, million);
        CHECK(refused.status == 400);
        CHECK(body_of(refused)["errors"] ==
              json::array({error(1002, "rules: a waiting room may have at most 100 rules; the request body has 1000001")}));
    }
    // Room bodies too: additional_routes of a million elements is one error.
    const Reply routes = admin.send("PATCH", k_rooms + "/shop", admin.edit, {}, R"({"additional_routes":)" + million + "}");
    CHECK(body_of(routes)["errors"] == json::array({error(1002, "additional_routes: may hold at most 100 routes")}));
    // A rule must be an object; each element that is not one is named.
    const Reply one = admin.send("PUT", rules, admin.edit, {}, "[1]");
    CHECK(body_of(one)["errors"] == json::array({error(1002, "rules[0]: must be a JSON object (a rule)")}));
    // 30 errors: the first 20, then how many more.
    std::string thirty = "[1";
    for (int i = 1; i < 30; ++i) thirty += ",1";
    thirty += "]";
    const json errors = body_of(admin.send("PUT", rules, admin.edit, {}, thirty))["errors"];
    REQUIRE(errors.size() == 21);
    CHECK(errors[19] == error(1002, "rules[19]: must be a JSON object (a rule)"));
    CHECK(errors[20] == error(1002, "…and 10 more errors"));
    // 21 are listed whole: "…and 1 more" would save nothing.
    std::string twenty_one = "[1";
    for (int i = 1; i < 21; ++i) twenty_one += ",1";
    twenty_one += "]";
    CHECK(body_of(admin.send("PUT", rules, admin.edit, {}, twenty_one))["errors"].back() ==
          error(1002, "rules[20]: must be a JSON object (a rule)"));
}

TEST_CASE("api::dispatch refuses a zone, room, event or destination name shaped like an id") {
    Admin admin;
    const json shop = body_of(admin.send("GET", k_rooms + "/shop", admin.edit))["result"];
    const std::string shop_id = shop["id"];
    json second = {{"name", "shop2"}, {"host", "shop2.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}};
    REQUIRE(admin.send("POST", k_rooms, admin.edit, {}, second.dump()).status == 200);
    const std::string refusal = std::string("name: ") + wr::model::k_id_shaped_name;
    // Named after shop's id, shop2 would answer GET /waiting_rooms/<shop's id> no more, but its name would.
    const Reply renamed = admin.send("PATCH", k_rooms + "/shop2", admin.edit, {}, json{{"name", shop_id}}.dump());
    CHECK(renamed.status == 400);
    CHECK(error_of(renamed) == error(1002, refusal));
    CHECK(body_of(admin.send("GET", k_rooms + "/" + shop_id, admin.edit))["result"]["name"] == "shop");

    const std::string id_shaped = "0123456789abcdef0123456789abcdef";
    const Reply zone = admin.send("POST", "/client/v4/zones", admin.edit, {}, json{{"name", id_shaped}, {"origin", "http://x"}}.dump());
    CHECK(error_of(zone) == error(1002, refusal));
    const Reply event = admin.send("POST", k_rooms + "/shop/events", admin.edit, {},
                                   json{{"name", id_shaped},
                                        {"event_start_time", "2026-12-01T10:00:00Z"},
                                        {"event_end_time", "2026-12-01T12:00:00Z"}}
                                       .dump());
    CHECK(error_of(event) == error(1002, refusal));
    const Reply destination =
        admin.send("POST", "/client/v4/notifications/destinations", admin.edit, {},
                   json{{"name", id_shaped}, {"url", "http://127.0.0.1:9/hook"}, {"secret", "0123456789abcdef"}}.dump());
    CHECK(error_of(destination) == error(1002, refusal));
}
