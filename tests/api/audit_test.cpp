// The audit log through the admin API's dispatcher, without sockets: every change is recorded
// with its token, address and fields, in the change's own transaction; refused changes leave
// nothing; secrets never appear; listings filter, page and go newest first.
#include <doctest/doctest.h>

#include <SQLiteCpp/Statement.h>

#include "api/envelope.h"
#include "api/routes.h"
#include "control/tokens.h"
#include "store/migrate.h"
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
using wr::test::k_rooms;
using wr::test::k_shop_path;

namespace {

struct Admin {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    wr::util::FakeClock clock{wr::test::k_test_start};
    wr::api::Services services{database, clock, nullptr};
    std::string edit;
    std::string read;

    Admin() {
        wr::store::migrate(database);
        database.write([&](Connection& c) {
            edit = wr::control::create_token(c, clock.now(), "ops", wr::model::TokenScope::edit, std::nullopt).secret;
            read = wr::control::create_token(c, clock.now(), "viewer", wr::model::TokenScope::read, std::nullopt).secret;
        });
    }

    Reply send(const std::string& method, const std::string& path, const json& body = nullptr, const std::string& token = "",
               const std::string& client = "") {
        Request request;
        request.method = method;
        const size_t question = path.find('?');
        request.path = path.substr(0, question);
        if (question != std::string::npos) {
            std::string query = path.substr(question + 1);
            while (!query.empty()) {
                const size_t amp = query.find('&');
                const std::string pair = query.substr(0, amp);
                const size_t equals = pair.find('=');
                request.query.emplace(pair.substr(0, equals), equals == std::string::npos ? "" : pair.substr(equals + 1));
                query = amp == std::string::npos ? "" : query.substr(amp + 1);
            }
        }
        if (!body.is_null()) request.body = body.dump();
        request.base_url = "http://127.0.0.1:9090";
        request.remote_address = "10.1.2.3";
        request.headers["authorization"] = "Bearer " + (token.empty() ? edit : token);
        if (!client.empty()) request.headers["x-wr-client"] = client;
        return wr::api::dispatch(services, wr::api::all_routes(), request);
    }

    json ok(const std::string& method, const std::string& path, const json& body = nullptr, const std::string& client = "") {
        const Reply reply = send(method, path, body, "", client);
        REQUIRE_MESSAGE(reply.status == 200, *reply.raw_body);
        return body_of(reply)["result"];
    }

    json log(const std::string& query = "") { return ok("GET", "/client/v4/audit_logs" + query); }

    // Every stored entry's text, whatever the API shows: what a secret must never be part of.
    std::string table_text() {
        return database.read([](Connection& c) {
            std::string all;
            SQLite::Statement rows(c, "SELECT * FROM audit_log");
            while (rows.executeStep())
                for (int i = 0; i < rows.getColumnCount(); ++i) all += rows.getColumn(i).getString() + "\n";
            return all;
        });
    }

    void make_shop() {
        ok("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"}});
        ok("POST", k_rooms, {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}});
    }
};

json change(const std::string& field, const json& before, const json& after) { return {{"field", field}, {"before", before}, {"after", after}}; }

} // namespace

TEST_CASE("api audit log: a change is recorded with its time, token, address, tool, object and fields") {
    Admin admin;
    admin.make_shop();
    admin.clock.advance(2min);
    admin.ok("PATCH", k_shop_path, {{"total_active_users", 2000}, {"queue_all", true}}, "cli");

    const json entries = admin.log();
    REQUIRE(entries.size() == 3); // zone, room, the PATCH: newest first
    const json& patched = entries[0];
    CHECK(patched["when"] == "2026-11-22T10:02:00.000Z");
    CHECK(patched["token"]["name"] == "ops");
    CHECK(patched["token"]["id"].get<std::string>().size() == 32);
    CHECK(patched["address"] == "10.1.2.3");
    CHECK(patched["via"] == "cli");
    CHECK(patched["action"] == "update");
    CHECK(patched["object"]["type"] == "waiting_room");
    CHECK(patched["object"]["name"] == "shop");
    CHECK(patched["object"]["zone"]["name"] == "example.com");
    CHECK(patched["changes"] == json::array({change("queue_all", false, true), change("total_active_users", 1000, 2000)}));
    CHECK(entries[1]["action"] == "create");
    CHECK(entries[1]["via"] == "api");
    CHECK(entries[1]["changes"].size() > 10); // every field of the new room, from null
    CHECK(entries[2]["object"]["type"] == "zone");

    // A PATCH that changes nothing records nothing.
    admin.ok("PATCH", k_shop_path, {{"total_active_users", 2000}});
    CHECK(admin.log().size() == 3);
}

TEST_CASE("api audit log: events, rules, settings, tokens and deletions each get their entries") {
    Admin admin;
    admin.make_shop();
    const std::string events = k_shop_path + "/events";
    admin.ok("POST", events, {{"name", "launch"}, {"event_start_time", "2026-11-23T10:00:00Z"}, {"event_end_time", "2026-11-23T12:00:00Z"}});
    admin.ok("PATCH", events + "/launch", {{"description", "the big day"}});
    admin.ok("DELETE", events + "/launch");
    const json rules = admin.ok("POST", k_shop_path + "/rules", {{"expression", "ip.src eq 10.0.0.1"}, {"description", "office"}});
    admin.ok("PATCH", k_shop_path + "/rules/" + rules[0]["id"].get<std::string>(), {{"enabled", false}});
    admin.ok("DELETE", k_shop_path + "/rules/" + rules[0]["id"].get<std::string>());
    admin.ok("PATCH", k_rooms + "/settings", {{"search_engine_crawler_bypass", true}});
    const json token = admin.ok("POST", "/client/v4/tokens", {{"name", "ci"}, {"scope", "edit"}});
    admin.ok("DELETE", "/client/v4/tokens/" + token["id"].get<std::string>());
    admin.ok("DELETE", k_shop_path);

    std::vector<std::string> seen;
    for (const json& entry : admin.log("?per_page=100"))
        seen.push_back(entry["action"].get<std::string>() + " " + entry["object"]["type"].get<std::string>());
    CHECK(seen == std::vector<std::string>{"delete waiting_room", "delete token", "create token", "update zone_settings", "delete rule",
                                           "update rule", "create rule", "delete event", "update event", "create event",
                                           "create waiting_room", "create zone"});
    const json event_update = admin.log("?type=event")[1];
    CHECK(event_update["object"]["room"]["name"] == "shop");
    CHECK(event_update["changes"] == json::array({change("description", "", "the big day")}));
    CHECK(admin.log("?type=rule")[1]["changes"] == json::array({change("enabled", true, false)}));
}

TEST_CASE("api audit log: a refused or failed change leaves no entry, and an entry that cannot be written undoes its change") {
    Admin admin;
    admin.make_shop();
    const size_t before = admin.log().size();
    CHECK(admin.send("PATCH", k_shop_path, {{"total_active_users", 10}}).status == 400);              // invalid
    CHECK(admin.send("PATCH", k_shop_path, {{"queue_all", true}}, admin.read).status == 403);         // wrong scope
    CHECK(admin.send("DELETE", "/client/v4/zones/example.com").status == 400);                        // still has a room
    CHECK(admin.send("POST", "/client/v4/apply", {{"zones", {{{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"},
                                                               {"waiting_rooms", {{{"name", "shop"}, {"host", "shop.example.com"},
                                                                                   {"total_active_users", 5}, {"new_users_per_minute", 300}}}}}}}})
              .status == 400);
    CHECK(admin.ok("POST", "/client/v4/apply?dry_run=true&prune=true", {{"zones", json::array()}}).is_object());
    CHECK(admin.log().size() == before);

    // The log itself refuses to take the entry: the change it would record is rolled back with it.
    admin.database.write([](Connection& c) {
        c.exec("CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log BEGIN SELECT RAISE(ABORT, 'the log is closed'); END");
    });
    CHECK(admin.send("PATCH", k_shop_path, {{"total_active_users", 3000}}).status == 500);
    CHECK(admin.ok("GET", k_shop_path)["total_active_users"] == 1000);
    // An apply that changes one room and creates another: neither happens.
    const json document = {{"zones", {{{"name", "example.com"},
                                       {"origin", "http://127.0.0.1:3000"},
                                       {"waiting_rooms", {{{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 3000},
                                                           {"new_users_per_minute", 300}},
                                                          {{"name", "news"}, {"host", "news.example.com"}, {"total_active_users", 50},
                                                           {"new_users_per_minute", 60}}}}}}}};
    CHECK(admin.send("POST", "/client/v4/apply", document).status == 500);
    CHECK(admin.ok("GET", k_shop_path)["total_active_users"] == 1000);
    CHECK(admin.send("GET", "/client/v4/zones/example.com/waiting_rooms/news").status == 404);
    admin.database.write([](Connection& c) { c.exec("DROP TRIGGER refuse_audit"); });
    CHECK(admin.log().size() == before);
}

TEST_CASE("api audit log: an apply that prunes a zone revokes its tokens, each planned, listed and recorded") {
    Admin admin;
    admin.make_shop();
    admin.ok("POST", "/client/v4/zones", {{"name", "other.com"}, {"origin", "http://127.0.0.1:4000"}});
    const json bound = admin.ok("POST", "/client/v4/tokens", {{"name", "shop-ci"}, {"scope", "edit"}, {"zone_id", "example.com"}});
    admin.ok("POST", "/client/v4/tokens", {{"name", "other-ci"}, {"scope", "edit"}, {"zone_id", "other.com"}});
    const size_t before = admin.log().size();
    const json keep_other = {{"zones", {{{"name", "other.com"}, {"origin", "http://127.0.0.1:4000"}}}}};
    const json revoked = {{"action", "delete"}, {"kind", "token"}, {"target", "shop-ci (" + bound["id"].get<std::string>() + ")"},
                          {"fields", json::array()}};

    // The plan names the token the apply would revoke; the dry run keeps it.
    const json planned = admin.ok("POST", "/client/v4/apply?dry_run=true&prune=true", keep_other)["changes"];
    REQUIRE(planned.size() == 3); // the room, the zone, its token
    CHECK(planned[2] == revoked);
    CHECK(admin.ok("GET", "/client/v4/tokens").size() == 4);

    const json applied = admin.ok("POST", "/client/v4/apply?prune=true", keep_other)["changes"];
    CHECK(applied == planned);
    const json tokens = admin.ok("GET", "/client/v4/tokens");
    REQUIRE(tokens.size() == 3);
    for (const json& token : tokens) CHECK(token["name"] != "shop-ci");
    const json entries = admin.log();
    REQUIRE(entries.size() == before + 3);
    CHECK(entries[0]["action"] == "delete");
    CHECK(entries[0]["via"] == "apply");
    CHECK(entries[0]["object"]["type"] == "token");
    CHECK(entries[0]["object"]["name"] == "shop-ci");
    CHECK(entries[1]["object"]["type"] == "zone");
}

TEST_CASE("api audit log: token values never appear, only that a value was issued") {
    Admin admin;
    const json created = admin.ok("POST", "/client/v4/tokens", {{"name", "deploy"}, {"scope", "read"}});
    const std::string secret = created["token"].get<std::string>();
    const json entry = admin.log()[0];
    CHECK(entry["object"] == json{{"type", "token"}, {"id", created["id"]}, {"name", "deploy"}, {"zone", nullptr}, {"room", nullptr}});
    CHECK(entry["changes"] == json::array({change("name", nullptr, "deploy"), change("scope", nullptr, "read"),
                                           change("token", nullptr, "(changed)")}));
    CHECK(admin.table_text().find(secret) == std::string::npos);
    CHECK(admin.send("GET", "/client/v4/audit_logs").raw_body->find(secret) == std::string::npos);
    CHECK(admin.table_text().find(admin.edit) == std::string::npos);
}

TEST_CASE("api audit log: filters by time, object and type, pages like the rest, and a zone token sees its zone") {
    Admin admin;
    admin.make_shop();
    admin.ok("POST", "/client/v4/zones", {{"name", "other.com"}, {"origin", "http://127.0.0.1:4000"}});
    admin.clock.advance(1h);
    admin.ok("PATCH", k_shop_path, {{"queue_all", true}});
    admin.ok("PATCH", "/client/v4/zones/other.com", {{"origin", "http://127.0.0.1:4001"}});

    CHECK(admin.log("?since=2026-11-22T10:30:00Z").size() == 2);
    CHECK(admin.log("?until=2026-11-22T10:30:00Z").size() == 3);
    CHECK(admin.log("?object=shop").size() == 2);
    CHECK(admin.log("?object=example.com").size() == 3); // the zone, and everything inside it
    CHECK(admin.log("?type=zone").size() == 3);
    const Reply paged = admin.send("GET", "/client/v4/audit_logs?per_page=5&page=1");
    CHECK(body_of(paged)["result_info"] == json{{"page", 1}, {"per_page", 5}, {"count", 5}, {"total_count", 5}, {"total_pages", 1}});
    CHECK(body_of(admin.send("GET", "/client/v4/audit_logs?page=2&per_page=5"))["result"] == json::array());
    CHECK(admin.send("GET", "/client/v4/audit_logs?since=yesterday").status == 400);
    CHECK(admin.send("GET", "/client/v4/audit_logs", nullptr, admin.read).status == 200); // a read token may read it

    const std::string zoned = admin.ok("POST", "/client/v4/tokens", {{"name", "z"}, {"scope", "read"}, {"zone_id", "other.com"}})["token"];
    const Reply seen = admin.send("GET", "/client/v4/audit_logs", nullptr, zoned);
    REQUIRE(seen.status == 200);
    const json entries = body_of(seen)["result"]; // kept: a range-for over a temporary's member would read freed memory
    for (const json& entry : entries) CHECK(entry["object"]["zone"]["name"] == "other.com");
    CHECK(entries.size() == 2);
}

TEST_CASE("api audit log: apply records each object it changes, as apply, and a dry run records nothing") {
    Admin admin;
    const json document = {{"zones", {{{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"},
                                       {"waiting_rooms", {{{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 500},
                                                           {"new_users_per_minute", 300}, {"rules", {{{"expression", "http.request.uri.path eq \"/health\""}}}}}}}}}}};
    admin.ok("POST", "/client/v4/apply?dry_run=true", document);
    CHECK(admin.log().empty());
    admin.ok("POST", "/client/v4/apply", document, "cli");
    json entries = admin.log();
    REQUIRE(entries.size() == 3);
    for (const json& entry : entries) CHECK(entry["via"] == "apply");
    CHECK(entries[0]["object"]["type"] == "rule");
    CHECK(entries[1]["object"]["type"] == "waiting_room");
    CHECK(entries[2]["object"]["type"] == "zone");

    json raised = document;
    raised["zones"][0]["waiting_rooms"][0]["total_active_users"] = 800;
    admin.ok("POST", "/client/v4/apply", raised);
    entries = admin.log();
    REQUIRE(entries.size() == 4);
    CHECK(entries[0]["action"] == "update");
    CHECK(entries[0]["changes"] == json::array({change("total_active_users", 500, 800)}));
    admin.ok("POST", "/client/v4/apply", raised); // no changes, no entries
    CHECK(admin.log().size() == 4);
}
