// The routes edges use, through the dispatcher: only edge tokens may use them and edge tokens may
// use nothing else; the snapshot answers 304 to an edge that has it; a pushed batch counts once.
#include <doctest/doctest.h>

#include <regex>
#include <set>
#include <string>

#include "api/routes.h"
#include "control/config_feed.h"
#include "control/rooms.h"
#include "control/tokens.h"
#include "control/zones.h"
#include "fleet/fleet_status.h"
#include "fleet/published_snapshot.h"
#include "fleet/report_wire.h"
#include "fleet/snapshot_wire.h"
#include "store/analytics_store.h"
#include "store/migrate.h"
#include "support/api_reply.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::api::Reply;
using wr::api::Request;
using wr::test::error_of;

namespace {

// A control node without sockets: a database with one room, the snapshot edges pull, and tokens
// of every kind.
struct Control {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    wr::util::FakeClock clock{wr::test::k_test_start};
    wr::analytics::Registry registry;
    wr::fleet::PublishedSnapshot snapshot;
    wr::fleet::FleetStatus fleet;
    wr::api::Services services{database, clock, &fleet, &registry};
    std::string room_id;
    std::string edge, edit, read, zoned_read;

    Control() {
        wr::store::migrate(database);
        database.write([&](wr::store::Connection& c) {
            const wr::model::Zone zone = wr::control::create_zone(c, clock.now(), {"example.com", "http://127.0.0.1:3000"});
            wr::model::RoomSettings room;
            room.name = "shop";
            room.host = "shop.example.com";
            room.total_active_users = 1000;
            room.new_users_per_minute = 300;
            room_id = wr::control::create_room(c, clock.now(), zone, room).id;
            edge = wr::control::create_token(c, clock.now(), "edge-1", wr::model::TokenScope::edge, std::nullopt).secret;
            edit = wr::control::create_token(c, clock.now(), "edit", wr::model::TokenScope::edit, std::nullopt).secret;
            read = wr::control::create_token(c, clock.now(), "read", wr::model::TokenScope::read, std::nullopt).secret;
            zoned_read = wr::control::create_token(c, clock.now(), "zoned", wr::model::TokenScope::read, zone.id).secret;
        });
        services.published_snapshot = &snapshot;
        services.fleet = &fleet;
        publish();
    }

    // What the configuration feed does on a change.
    void publish() {
        wr::control::ConfigFeed feed(database, dir.path() / "cookie.key",
                                     {[this](const wr::model::ConfigDocument& document, const std::shared_ptr<const wr::util::KeyRing>& keys) {
                                         snapshot.update(document, *keys);
                                     }});
    }

    Reply send(const std::string& method, const std::string& path, const std::string& token, const std::string& body = "",
               std::map<std::string, std::string> headers = {}) {
        Request request;
        request.method = method;
        request.path = path;
        request.body = body;
        request.headers = std::move(headers);
        request.base_url = "http://127.0.0.1:9090";
        if (!token.empty()) request.headers["authorization"] = "Bearer " + token;
        return wr::api::dispatch(services, wr::api::all_routes(), request);
    }

    int64_t admitted_requests() {
        int64_t total = 0;
        database.read([&](wr::store::Connection& c) {
            for (const auto& record : wr::store::load_analytics(c, room_id, 0, std::numeric_limits<int64_t>::max()))
                total += record.requests[0];
        });
        return total;
    }
};

// A concrete path for a route pattern: parameters filled with names that exist.
std::string concrete(std::string pattern) {
    pattern = std::regex_replace(pattern, std::regex(R"(\{zone_id\})"), "example.com");
    pattern = std::regex_replace(pattern, std::regex(R"(\{room_id\})"), "shop");
    return std::regex_replace(pattern, std::regex(R"(\{[a-z_]+\})"), "x");
}

// The minute the test clock starts in, as edges number minutes.
const int64_t k_start_minute = std::chrono::duration_cast<std::chrono::minutes>(wr::test::k_test_start.time_since_epoch()).count();

// A stream name as an edge's outbox makes them: 32 hex characters, told apart by `n`.
std::string stream_name(int n) {
    std::string name = "0123456789abcdef0123456789abcde";
    return name + "0123456789abcdef"[n % 16];
}

std::string push(const std::string& node, const std::string& stream, int64_t sequence, const std::string& room_id, int64_t admitted,
                 int64_t minute = k_start_minute) {
    wr::fleet::PushMessage message;
    message.report.node = node;
    message.report.rooms.push_back({room_id, 5, 1, 1000, 300, 2});
    wr::model::MinuteRecord record;
    record.minute = minute;
    record.requests[0] = admitted;
    message.batch = wr::fleet::AnalyticsBatch{stream, sequence, {{room_id, {{record.minute, record}}}}};
    return wr::fleet::push_body(message);
}

} // namespace

TEST_CASE("api edge routes: an edge token gets 403 on every other route, and other tokens 403 on the edge routes") {
    Control control;
    const std::string edge_only = "an edge token may only fetch the configuration and cookie keys and push analytics "
                                  "(/client/v4/edge/…); this route needs a read or edit token";
    int checked = 0;
    for (const wr::api::Route& route : wr::api::all_routes()) {
        if (route.access == wr::api::Access::public_access) continue;
        CAPTURE(route.method);
        CAPTURE(route.pattern);
        const std::string path = concrete(route.pattern);
        if (route.access == wr::api::Access::edge) {
            for (const std::string& token : {control.edit, control.read, control.zoned_read}) {
                const Reply reply = control.send(route.method, path, token);
                CHECK(reply.status == 403);
                CHECK(error_of(reply) == json{{"code", 1014},
                                              {"message", "this route serves edge nodes: it needs a token with scope edge (wr tokens "
                                                          "create --scope edge)"}});
            }
        } else {
            const Reply reply = control.send(route.method, path, control.edge, "{}");
            CHECK(reply.status == 403);
            CHECK(error_of(reply) == json{{"code", 1014}, {"message", edge_only}});
        }
        ++checked;
    }
    CHECK(checked > 30); // every route of the API, not a handful
}

TEST_CASE("api edge routes: an edge token cannot be bound to a zone") {
    Control control;
    const Reply reply = control.send("POST", "/client/v4/tokens", control.edit, R"({"name":"edge-2","scope":"edge","zone_id":"example.com"})");
    CHECK(reply.status == 400);
    CHECK(error_of(reply) == json{{"code", 1002}, {"message", "zone_id: an edge token serves every zone and cannot be bound to one"}});
    const Reply created = control.send("POST", "/client/v4/tokens", control.edit, R"({"name":"edge-2","scope":"edge"})");
    CHECK(created.status == 200);
    CHECK(json::parse(*created.raw_body)["result"]["scope"] == "edge");
}

TEST_CASE("api edge routes: the snapshot, then 304 until the configuration or the keys change") {
    Control control;
    const Reply first = control.send("GET", "/client/v4/edge/config", control.edge);
    REQUIRE(first.status == 200);
    std::string etag;
    for (const auto& [name, value] : first.headers)
        if (name == "ETag") etag = value;
    REQUIRE(etag.size() == 34);
    std::string error;
    const auto snapshot = wr::fleet::read_snapshot(*first.raw_body, error);
    REQUIRE_MESSAGE(snapshot, error);
    REQUIRE(snapshot->document.zones.size() == 1);
    CHECK(snapshot->document.zones[0].rooms[0].room.settings.name == "shop");
    CHECK(snapshot->keys->keys().size() == 1);

    CHECK(control.send("GET", "/client/v4/edge/config", control.edge, "", {{"if-none-match", etag}}).status == 304);
    // A write that changes nothing the edge sees (a token) leaves the ETag alone.
    control.send("POST", "/client/v4/tokens", control.edit, R"({"name":"another","scope":"read"})");
    control.publish();
    CHECK(control.send("GET", "/client/v4/edge/config", control.edge, "", {{"if-none-match", etag}}).status == 304);
    // A change of the room is a new snapshot.
    REQUIRE(control.send("PATCH", "/client/v4/zones/example.com/waiting_rooms/shop", control.edit, R"({"queue_all":true})").status == 200);
    control.publish();
    const Reply changed = control.send("GET", "/client/v4/edge/config", control.edge, "", {{"if-none-match", etag}});
    REQUIRE(changed.status == 200);
    CHECK(wr::fleet::read_snapshot(*changed.raw_body, error)->document.zones[0].rooms[0].room.settings.queue_all);
    // So is a key rotation.
    std::string second_etag;
    for (const auto& [name, value] : changed.headers)
        if (name == "ETag") second_etag = value;
    wr::util::KeyRing::rotate(control.dir.path() / "cookie.key");
    control.publish();
    const Reply rotated = control.send("GET", "/client/v4/edge/config", control.edge, "", {{"if-none-match", second_etag}});
    REQUIRE(rotated.status == 200);
    CHECK(wr::fleet::read_snapshot(*rotated.raw_body, error)->keys->keys().size() == 2);
}

TEST_CASE("api edge routes: a push is merged once however often it is sent, and its report counts live") {
    Control control;
    const std::string body = push("edge-1", stream_name(1), 1, control.room_id, 7);
    for (int attempt = 0; attempt < 3; ++attempt) {
        const Reply reply = control.send("POST", "/client/v4/edge/analytics", control.edge, body);
        REQUIRE(reply.status == 200);
        CHECK(json::parse(*reply.raw_body)["result"] == json{{"acknowledged", 1}, {"guard", json::object()}});
    }
    CHECK(control.admitted_requests() == 7);
    REQUIRE(control.send("POST", "/client/v4/edge/analytics", control.edge, push("edge-2", stream_name(9), 1, control.room_id, 5)).status == 200);
    CHECK(control.admitted_requests() == 12);
    // The totals /metrics counts on the control node: what was merged, once.
    CHECK(control.registry.room(control.room_id)->totals().requests[0] == 12);
    // Both reports are live: the status adds the two edges up.
    const Reply status = control.send("GET", "/client/v4/zones/example.com/waiting_rooms/shop/status", control.read);
    REQUIRE(status.status == 200);
    const json result = json::parse(*status.raw_body)["result"];
    CHECK(result["estimated_total_active_users"] == 10);
    CHECK(result["estimated_queued_users"] == 2);
    CHECK(result["max_estimated_time_minutes"] == 2);
    REQUIRE(result["nodes"].size() == 2);
    CHECK(result["nodes"][0]["name"] == "edge-1");
    CHECK(result["nodes"][0]["condition"] == "ok");
    CHECK(result["nodes"][0]["state"]["backend"] == "memory");

    const Reply bad = control.send("POST", "/client/v4/edge/analytics", control.edge, R"({"node":"edge 1"})");
    CHECK(bad.status == 400);
    CHECK(error_of(bad)["code"] == 1002);
}

TEST_CASE("api edge routes: a node's name is the edge token's that first pushed under it; another token cannot speak for it") {
    Control control;
    const std::string other = control.database.write([&](wr::store::Connection& c) {
        return wr::control::create_token(c, control.clock.now(), "edge-b", wr::model::TokenScope::edge, std::nullopt).secret;
    });
    REQUIRE(control.send("POST", "/client/v4/edge/analytics", control.edge, push("edge-1", stream_name(1), 1, control.room_id, 7)).status == 200);
    // A made-up report under edge-1's name, with another edge token: refused, nothing counted,
    // edge-1's figures untouched.
    std::string forged = push("edge-1", stream_name(2), 1, control.room_id, 1000);
    forged.replace(forged.find("\"active_users\":5"), 16, "\"active_users\":999999");
    const Reply refused = control.send("POST", "/client/v4/edge/analytics", other, forged);
    CHECK(refused.status == 403);
    CHECK(error_of(refused) == json{{"code", 1016},
                                    {"message", "node edge-1 pushes with another edge token; a node's name belongs to the token it "
                                                "first pushed with (revoke that token to give the name to another)"}});
    CHECK(control.admitted_requests() == 7);
    const json status = json::parse(*control.send("GET", "/client/v4/zones/example.com/waiting_rooms/shop/status", control.read).raw_body);
    CHECK(status["result"]["estimated_total_active_users"] == 5);
    // The other token has names of its own; one token may serve several edges.
    CHECK(control.send("POST", "/client/v4/edge/analytics", other, push("edge-2", stream_name(3), 1, control.room_id, 1)).status == 200);
    CHECK(control.send("POST", "/client/v4/edge/analytics", control.edge, push("edge-3", stream_name(4), 1, control.room_id, 1)).status == 200);
    // Revoking the first token frees its names.
    const Reply tokens = control.send("GET", "/client/v4/tokens", control.edit);
    std::string first_id;
    const json listed = json::parse(*tokens.raw_body);
    for (const json& token : listed["result"])
        if (token["name"] == "edge-1") first_id = token["id"].get<std::string>();
    REQUIRE(control.send("DELETE", "/client/v4/tokens/" + first_id, control.edit).status == 200);
    CHECK(control.send("POST", "/client/v4/edge/analytics", other, push("edge-1", stream_name(5), 1, control.room_id, 1)).status == 200);
}

TEST_CASE("api edge routes: counts beyond 2^40 are refused, and minutes far from now are not stored") {
    Control control;
    const auto send = [&](const std::string& body) { return control.send("POST", "/client/v4/edge/analytics", control.edge, body); };
    constexpr int64_t k_most = int64_t{1} << 40;
    // One past the bound, in a minute's count, a histogram bucket or the live figures: 400 naming it.
    std::string too_many = push("edge-1", stream_name(1), 1, control.room_id, k_most + 1);
    Reply reply = send(too_many);
    CHECK(reply.status == 400);
    CHECK(error_of(reply)["message"] ==
          "batch.records: must map room ids to lists of minute records whose counts are integers from 0 to 1099511627776");
    std::string live = push("edge-1", stream_name(1), 1, control.room_id, 1);
    live.replace(live.find("\"queued_users\":1"), 16, "\"queued_users\":1099511627777");
    reply = send(live);
    CHECK(reply.status == 400);
    CHECK(error_of(reply)["message"].get<std::string>().starts_with("rooms: each must be"));
    // Past a double's range, the body is read as every admin body is (Request::json_body): 1001, naming the number.
    live.replace(live.find("1099511627777"), 13, "1e400");
    reply = send(live);
    CHECK(reply.status == 400);
    CHECK(error_of(reply)["code"] == 1001);
    CHECK(error_of(reply)["message"].get<std::string>().starts_with("the request body has a number too large to read: 1e400 at byte "));
    CHECK(control.admitted_requests() == 0);

    // At the bound, pushed again and again: the stored sum grows and never wraps.
    for (int64_t sequence = 1; sequence <= 3; ++sequence)
        REQUIRE(send(push("edge-1", stream_name(1), sequence, control.room_id, k_most)).status == 200);
    CHECK(control.admitted_requests() == 3 * k_most);

    // Minutes more than 10 minutes ahead of the control node's clock, or older than what analytics
    // keep (30 days), are acknowledged (the edge must not resend them forever) and not stored.
    reply = send(push("edge-1", stream_name(1), 4, control.room_id, 5, k_start_minute + 11));
    CHECK(json::parse(*reply.raw_body)["result"] == json{{"acknowledged", 4}, {"guard", json::object()}});
    CHECK(send(push("edge-1", stream_name(1), 5, control.room_id, 5, k_start_minute - 31 * 24 * 60)).status == 200);
    CHECK(send(push("edge-1", stream_name(1), 6, control.room_id, 5, 1'000'000'000'000)).status == 200);
    CHECK(control.admitted_requests() == 3 * k_most);
    CHECK(send(push("edge-1", stream_name(1), 7, control.room_id, 5, k_start_minute + 9)).status == 200);
    CHECK(control.admitted_requests() == 3 * k_most + 5);
}

TEST_CASE("api edge routes: stream names are an outbox's 32 hex characters, and a node keeps at most 4 of them") {
    Control control;
    const auto send = [&](const std::string& body) { return control.send("POST", "/client/v4/edge/analytics", control.edge, body); };
    const Reply named = send(push("edge-1", "s1", 1, control.room_id, 1));
    CHECK(named.status == 400);
    CHECK(error_of(named)["message"] == "batch: must be {stream (32 hex characters), sequence (1 or more), records}");
    for (int stream = 0; stream < 10; ++stream) {
        control.clock.advance(1s);
        REQUIRE(send(push("edge-1", stream_name(stream), 1, control.room_id, 1)).status == 200);
    }
    CHECK(control.admitted_requests() == 10);
    const int64_t kept = control.database.read([](wr::store::Connection& c) {
        return c.execAndGet("SELECT count(*) FROM analytics_streams WHERE node = 'edge-1'").getInt64();
    });
    CHECK(kept == 4);
    // The latest ones are those kept: a retry of one is still recognised.
    REQUIRE(send(push("edge-1", stream_name(9), 1, control.room_id, 1)).status == 200);
    CHECK(control.admitted_requests() == 10);
}
