// Declarative configuration on a real database: apply creates, a second apply changes nothing,
// export and apply are inverses, prune deletes what a document leaves out, and errors name
// the document path of the part at fault.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "control/apply.h"
#include "control/error.h"
#include "store/events_store.h"
#include "store/migrate.h"
#include "store/rooms_store.h"
#include "store/zones_store.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::control::ApplyOptions;
using wr::control::Change;
using wr::store::Connection;

namespace {

struct ConfigStore {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    wr::util::FakeClock clock{wr::test::k_test_start};
    ConfigStore() { wr::store::migrate(database); }

    std::vector<std::string> apply(const json& document, ApplyOptions options = {}) {
        const std::vector<Change> changes = database.write(
            [&](Connection& c) { return wr::control::apply_document(c, clock.now(), document, options); });
        std::vector<std::string> lines;
        for (const Change& change : changes) {
            std::string line = change.action + " " + change.kind + " " + change.target;
            if (!change.fields.empty()) {
                line += " [";
                for (size_t i = 0; i < change.fields.size(); ++i) line += (i ? ", " : "") + change.fields[i];
                line += "]";
            }
            if (!change.reason.empty()) line += ": " + change.reason;
            lines.push_back(line);
        }
        return lines;
    }
    json exported() {
        return database.read([](Connection& c) { return wr::control::export_document(c); });
    }
};

using Lines = std::vector<std::string>;

json shop_room() {
    return {{"name", "shop"},
            {"host", "shop.example.com"},
            {"path", "/shop"},
            {"total_active_users", 1000},
            {"new_users_per_minute", 300},
            {"cookie_suffix", "shop"},
            {"additional_routes", json::array({{{"host", "m.example.com"}, {"path", "/shop"}}})},
            {"events", json::array({{{"name", "launch"},
                                     {"event_start_time", "2026-12-01T10:00:00.000Z"},
                                     {"event_end_time", "2026-12-01T12:00:00.000Z"},
                                     {"prequeue_start_time", "2026-12-01T09:00:00.000Z"},
                                     {"total_active_users", 2000},
                                     {"new_users_per_minute", 500}}})},
            {"rules", json::array({{{"expression", "ip.src in {10.0.0.0/8}"}, {"description", "office"}},
                                   {{"expression", "http.request.uri.path matches \"^/static/\""}, {"enabled", false}}})}};
}

json blog_room() {
    return {{"name", "blog"}, {"host", "blog.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}};
}

json document() {
    return {{"zones", json::array({{{"name", "example.com"},
                                    {"origin", "http://127.0.0.1:3000"},
                                    {"settings", {{"search_engine_crawler_bypass", true}}},
                                    {"waiting_rooms", json::array({shop_room(), blog_room()})}}})}};
}

json other_zone() {
    return {{"name", "other.com"},
            {"origin", "http://127.0.0.1:4000"},
            {"waiting_rooms", json::array({{{"name", "store"}, {"host", "other.com"}, {"total_active_users", 500},
                                            {"new_users_per_minute", 250}}})}};
}

// The error an apply throws, as "field: message" lines.
Lines apply_errors(ConfigStore& store, const json& document, ApplyOptions options = {}) {
    try {
        store.apply(document, options);
    } catch (const wr::control::Error& error) {
        CHECK(error.http_status() == 400); // never 409: the SDKs retry it
        Lines lines;
        for (const auto& field_error : error.errors()) lines.push_back(field_error.text());
        return lines;
    }
    return {"(applied)"};
}

} // namespace

TEST_CASE("control::apply_document creates what the document describes, then finds nothing to change") {
    ConfigStore store;
    CHECK(store.apply(document()) == Lines{
                                         "create zone example.com",
                                         "update settings example.com [search_engine_crawler_bypass]",
                                         "create waiting_room example.com/shop",
                                         "create event example.com/shop/launch",
                                         "create rules example.com/shop",
                                         "create waiting_room example.com/blog",
                                     });
    store.database.read([](Connection& c) {
        const auto zone = wr::store::find_zone_by_name(c, "example.com");
        REQUIRE(zone);
        CHECK(zone->settings.origin == "http://127.0.0.1:3000");
        CHECK(wr::store::get_zone_room_settings(c, zone->id).search_engine_crawler_bypass);
        const auto shop = wr::store::find_room_by_name(c, zone->id, "shop");
        REQUIRE(shop);
        CHECK(shop->settings.path == "/shop");
        CHECK(shop->settings.additional_routes == std::vector<wr::model::Route>{{"m.example.com", "/shop"}});
        CHECK(shop->created_on == wr::test::k_test_start);
        const auto events = wr::store::all_events(c, shop->id);
        REQUIRE(events.size() == 1);
        CHECK(events[0].settings.total_active_users == 2000);
        CHECK(events[0].settings.prequeue_start_time->text == "2026-12-01T09:00:00.000Z");
    });

    store.clock.advance(1h);
    CHECK(store.apply(document()).empty());
    store.database.read([](Connection& c) {
        const auto zone = wr::store::find_zone_by_name(c, "example.com");
        const auto shop = wr::store::find_room_by_name(c, zone->id, "shop");
        CHECK(shop->modified_on == wr::test::k_test_start); // an unchanged room is not rewritten
    });
}

TEST_CASE("control::export_document writes a stable document that apply finds nothing to change in") {
    ConfigStore store;
    store.apply(document());
    store.apply({{"zones", json::array({other_zone()})}});
    const json first = store.exported();
    const json second = store.exported();
    CHECK(first.dump() == second.dump());

    // Sorted by name, with every field, and without ids or timestamps.
    REQUIRE(first["zones"].size() == 2);
    CHECK(first["zones"][0]["name"] == "example.com");
    CHECK(first["zones"][1]["name"] == "other.com");
    CHECK(first["zones"][1]["settings"] == json{{"search_engine_crawler_bypass", false}});
    const json& rooms = first["zones"][0]["waiting_rooms"];
    REQUIRE(rooms.size() == 2);
    CHECK(rooms[0]["name"] == "blog");
    CHECK(rooms[0]["events"] == json::array());
    CHECK(rooms[0]["rules"] == json::array());
    CHECK(rooms[0]["session_duration"] == 5);
    CHECK(rooms[1]["name"] == "shop");
    CHECK(rooms[1]["events"][0]["event_start_time"] == "2026-12-01T10:00:00.000Z");
    CHECK(rooms[1]["rules"][1] == json{{"action", "bypass_waiting_room"},
                                       {"expression", "http.request.uri.path matches \"^/static/\""},
                                       {"description", ""},
                                       {"enabled", false}});
    for (const char* key : {"id", "created_on", "modified_on", "next_event_start_time"}) {
        CAPTURE(key);
        CHECK_FALSE(first["zones"][0].contains(key));
        CHECK_FALSE(rooms[1].contains(key));
        CHECK_FALSE(rooms[1]["events"][0].contains(key));
    }
    CHECK_FALSE(rooms[1]["rules"][0].contains("id"));
    CHECK_FALSE(rooms[1]["rules"][0].contains("version"));

    CHECK(store.apply(first).empty());
    CHECK(store.exported().dump() == first.dump());

    // The export rebuilds the same configuration elsewhere.
    ConfigStore copy;
    CHECK(copy.apply(first) == Lines{
                                   "create zone example.com",
                                   "update settings example.com [search_engine_crawler_bypass]",
                                   "create waiting_room example.com/blog",
                                   "create waiting_room example.com/shop",
                                   "create event example.com/shop/launch",
                                   "create rules example.com/shop",
                                   "create zone other.com",
                                   "create waiting_room other.com/store",
                               });
    CHECK(copy.exported().dump() == first.dump());
    CHECK(copy.apply(first).empty());
}

TEST_CASE("control::apply_document reports the fields that change") {
    ConfigStore store;
    store.apply(document());
    json changed = document();
    changed["zones"][0]["origin"] = "http://10.0.0.1:8080";
    changed["zones"][0]["settings"]["search_engine_crawler_bypass"] = false;
    changed["zones"][0]["waiting_rooms"][0]["total_active_users"] = 1500;
    changed["zones"][0]["waiting_rooms"][0]["description"] = "new";
    changed["zones"][0]["waiting_rooms"][0]["events"][0]["event_end_time"] = "2026-12-01T13:00:00.000Z";
    changed["zones"][0]["waiting_rooms"][0]["rules"][1]["enabled"] = true;
    CHECK(store.apply(changed) == Lines{
                                      "update zone example.com [origin]",
                                      "update settings example.com [search_engine_crawler_bypass]",
                                      "update waiting_room example.com/shop [description, total_active_users]",
                                      "update event example.com/shop/launch [event_end_time]",
                                      "update rules example.com/shop",
                                  });
    CHECK(store.apply(changed).empty());

    changed["zones"][0]["waiting_rooms"][0]["rules"] = json::array();
    CHECK(store.apply(changed) == Lines{"delete rules example.com/shop"});
}

TEST_CASE("control::apply_document and export_document carry the origin protection settings, and apply of the export changes nothing") {
    ConfigStore store;
    json guarded = document();
    guarded["zones"][0]["max_origin_connections"] = 64;
    guarded["zones"][0]["origin_queue_timeout_seconds"] = 30;
    guarded["zones"][0]["waiting_rooms"][0]["origin_guard"] = {{"enabled", true}, {"target_ttfb_ms", 800}};
    store.apply(guarded);
    store.database.read([](Connection& c) {
        const auto zone = wr::store::find_zone_by_name(c, "example.com");
        REQUIRE(zone);
        CHECK(zone->settings.max_origin_connections == 64);
        CHECK(zone->settings.origin_queue_timeout_seconds == 30);
        const auto shop = wr::store::find_room_by_name(c, zone->id, "shop");
        CHECK(shop->settings.origin_guard == wr::model::OriginGuardSettings{.enabled = true, .target_ttfb_ms = 800});
        CHECK(wr::store::find_room_by_name(c, zone->id, "blog")->settings.origin_guard == wr::model::OriginGuardSettings{});
    });

    // The export spells every field out, keys sorted, and applying it changes nothing.
    const json exported = store.exported();
    const json& zone = exported["zones"][0];
    CHECK(zone["max_origin_connections"] == 64);
    CHECK(zone["origin_queue_timeout_seconds"] == 30);
    CHECK(zone["waiting_rooms"][1]["name"] == "shop");
    CHECK(zone["waiting_rooms"][1]["origin_guard"].dump() ==
          R"({"enabled":true,"max_error_rate":0.05,"min_new_users_per_minute":0,"target_ttfb_ms":800})");
    CHECK(zone["waiting_rooms"][0]["origin_guard"].dump() ==
          R"({"enabled":false,"max_error_rate":0.05,"min_new_users_per_minute":0,"target_ttfb_ms":500})");
    std::vector<std::string> keys;
    for (const auto& [key, value] : zone.items()) keys.push_back(key);
    CHECK(keys == std::vector<std::string>{"hosts", "max_origin_connections", "name", "origin", "origin_queue_timeout_seconds",
                                           "settings", "waiting_rooms"});
    CHECK(store.apply(exported).empty());
    CHECK(store.exported().dump() == exported.dump());
    CHECK(store.apply(guarded).empty());

    // A change names its field; a document without them returns them to their defaults.
    json changed = guarded;
    changed["zones"][0]["origin_queue_timeout_seconds"] = 31;
    changed["zones"][0]["waiting_rooms"][0]["origin_guard"]["max_error_rate"] = 0.2;
    CHECK(store.apply(changed) == Lines{"update zone example.com [origin_queue_timeout_seconds]",
                                        "update waiting_room example.com/shop [origin_guard]"});
    CHECK(store.apply(document()) == Lines{"update zone example.com [max_origin_connections, origin_queue_timeout_seconds]",
                                           "update waiting_room example.com/shop [origin_guard]"});
    CHECK(store.exported()["zones"][0]["max_origin_connections"] == 0);

    // Out of range, or a field origin_guard does not have: the document path says where, and nothing changes.
    json bad = guarded;
    bad["zones"][0]["max_origin_connections"] = -1;
    bad["zones"][0]["origin_queue_timeout_seconds"] = 0;
    CHECK(apply_errors(store, bad) == Lines{"zones[0].max_origin_connections: must be between 0 (no limit) and 1000000",
                                            "zones[0].origin_queue_timeout_seconds: must be between 1 and 120 seconds"});
    bad = guarded;
    bad["zones"][0]["waiting_rooms"][0]["origin_guard"] = {{"target_ttfb_ms", 10}, {"min_new_users_per_minute", 301}};
    CHECK(apply_errors(store, bad) ==
          Lines{"zones[0].waiting_rooms[0].origin_guard.target_ttfb_ms: must be between 50 and 60000",
                "zones[0].waiting_rooms[0].origin_guard.min_new_users_per_minute: must not exceed new_users_per_minute (300)"});
    bad["zones"][0]["waiting_rooms"][0]["origin_guard"] = {{"enabeld", true}};
    // apply names every unknown field of a document by its path, with the nearest known one.
    CHECK(apply_errors(store, bad) == Lines{"zones[0].waiting_rooms[0].origin_guard.enabeld: unknown field (did you mean enabled?)"});
    CHECK(store.exported()["zones"][0]["max_origin_connections"] == 0);
}

TEST_CASE("control::apply_document keeps what a document leaves out, unless pruning") {
    ConfigStore store;
    store.apply(document());
    store.apply({{"zones", json::array({other_zone()})}});

    // Without prune: a room without "events" and "rules" keeps them; a missing room or zone stays.
    json partial = document();
    json shop = shop_room();
    shop.erase("events");
    shop.erase("rules");
    partial["zones"][0]["waiting_rooms"] = json::array({shop});
    CHECK(store.apply(partial).empty());
    CHECK(store.exported()["zones"].size() == 2);

    // An "events" key lists all the room's events: one left out is deleted, prune or not.
    json without_event = document();
    without_event["zones"][0]["waiting_rooms"][0]["events"] = json::array();
    CHECK(store.apply(without_event) == Lines{"delete event example.com/shop/launch"});
    store.apply(document());

    // What the document leaves out goes first, then its rooms are applied.
    CHECK(store.apply(partial, {.prune = true}) == Lines{
                                                        "delete waiting_room other.com/store",
                                                        "delete zone other.com",
                                                        "delete waiting_room example.com/blog",
                                                        "delete event example.com/shop/launch",
                                                        "delete rules example.com/shop",
                                                    });
    const json left = store.exported();
    REQUIRE(left["zones"].size() == 1);
    REQUIRE(left["zones"][0]["waiting_rooms"].size() == 1);
    CHECK(left["zones"][0]["waiting_rooms"][0]["name"] == "shop");
    CHECK(left["zones"][0]["waiting_rooms"][0]["events"] == json::array());
    CHECK(left["zones"][0]["waiting_rooms"][0]["rules"] == json::array());
    CHECK(store.apply(partial, {.prune = true}).empty());

    CHECK(store.apply({{"zones", json::array()}}, {.prune = true}) ==
          Lines{"delete waiting_room example.com/shop", "delete zone example.com"});
    CHECK(store.exported() == json{{"zones", json::array()}});
}

TEST_CASE("control::apply_document names the document path of every error") {
    struct Case {
        const char* name;
        json document;
        Lines errors;
    };
    const auto with_room_field = [](const char* key, json value) {
        json changed = document();
        changed["zones"][0]["waiting_rooms"][0][key] = std::move(value);
        return changed;
    };
    const auto with_event_field = [](const char* key, json value) {
        json changed = document();
        changed["zones"][0]["waiting_rooms"][0]["events"][0][key] = std::move(value);
        return changed;
    };
    json duplicate_zone = document();
    duplicate_zone["zones"].push_back(document()["zones"][0]);
    json duplicate_room = document();
    duplicate_room["zones"][0]["waiting_rooms"].push_back(shop_room());
    json duplicate_event = document();
    duplicate_event["zones"][0]["waiting_rooms"][0]["events"].push_back(document()["zones"][0]["waiting_rooms"][0]["events"][0]);
    json overlapping = document();
    overlapping["zones"][0]["waiting_rooms"][0]["events"].push_back({{"name", "encore"},
                                                                     {"event_start_time", "2026-12-01T11:00:00Z"},
                                                                     {"event_end_time", "2026-12-01T14:00:00Z"}});
    json nameless_room = document();
    nameless_room["zones"][0]["waiting_rooms"][1].erase("name");
    json bad_zone = document();
    bad_zone["zones"][0]["name"] = "Example.com";
    json taken_route = document();
    taken_route["zones"][0]["waiting_rooms"][1]["host"] = "shop.example.com";
    taken_route["zones"][0]["waiting_rooms"][1]["path"] = "/shop";

    json bad_rule = document();
    bad_rule["zones"][0]["waiting_rooms"][0]["rules"] = json::array({{{"expression", "http.host eq \"a\""}}, {{"expression", "foo eq 1"}}});
    const Case cases[] = {
        {"a rule expression", bad_rule, {"zones[0].waiting_rooms[0].rules[1].expression: unknown field 'foo' at column 1"}},
        {"zones that are not an array", json{{"zones", "x"}}, {"zones: must be an array"}},
        {"a room limit", with_room_field("total_active_users", 10),
         {"zones[0].waiting_rooms[0].total_active_users: must be at least 200"}},
        {"a room field of the wrong type", with_room_field("session_duration", "5"),
         {"zones[0].waiting_rooms[0].session_duration: must be an integer"}},
        {"two room problems",
         [] {
             json changed = document();
             changed["zones"][0]["waiting_rooms"][0]["host"] = "shop.other.com";
             changed["zones"][0]["waiting_rooms"][0]["queueing_status_code"] = 201;
             return changed;
         }(),
         {"zones[0].waiting_rooms[0].host: must lie inside the zone example.com",
          "zones[0].waiting_rooms[0].queueing_status_code: must be 200, 202 or 429"}},
        {"a route of another room", taken_route,
         {"zones[0].waiting_rooms[1].host: shop.example.com/shop is already the route of waiting room shop ("}},
        {"an event that ends before it starts", with_event_field("event_end_time", "2026-12-01T09:59:00Z"),
         {"zones[0].waiting_rooms[0].events[0].event_start_time: must be at least 1 minute before event_end_time"}},
        {"an event time without a zone", with_event_field("event_start_time", "2026-12-01T10:00:00"),
         {"zones[0].waiting_rooms[0].events[0].event_start_time: must be an ISO 8601 date-time with a time zone, such as "
          "2026-11-22T10:00:00.000Z"}},
        // Ended, so it would be skipped, but an event that is not one is still an error.
        {"an event in the past that ends before it starts", with_event_field("event_end_time", "2026-11-22T09:00:00Z"),
         {"zones[0].waiting_rooms[0].events[0].event_start_time: must be at least 1 minute before event_end_time"}},
        {"overlapping events", overlapping,
         {"zones[0].waiting_rooms[0].events[1].event_start_time: the event overlaps event launch (2026-12-01T09:00:00.000Z "
          "to 2026-12-01T12:00:00.000Z); the events of a room, prequeue included, must not overlap"}},
        {"a zone name", bad_zone, {"zones[0].name: must be a lowercase domain name such as example.com"}},
        {"a zone twice", duplicate_zone, {"zones[1].name: zone example.com appears twice"}},
        {"a room twice", duplicate_room, {"zones[0].waiting_rooms[2].name: waiting room shop appears twice"}},
        {"an event twice", duplicate_event, {"zones[0].waiting_rooms[0].events[1].name: event launch appears twice"}},
        {"a room without a name", nameless_room, {"zones[0].waiting_rooms[1].name: is required"}},
        {"rooms that are not an array", [] {
             json changed = document();
             changed["zones"][0]["waiting_rooms"] = json::object();
             return changed;
         }(),
         {"zones[0].waiting_rooms: must be an array"}},
        {"a room that is not an object", [] {
             json changed = document();
             changed["zones"][0]["waiting_rooms"][1] = "blog";
             return changed;
         }(),
         {"zones[0].waiting_rooms[1]: must be an object"}},
        {"rules that are not an array",
         [] {
             json changed = document();
             changed["zones"][0]["waiting_rooms"][0]["rules"] = "ip.src eq 10.0.0.1";
             return changed;
         }(),
         {"zones[0].waiting_rooms[0].rules: must be an array"}},
        // More than a room holds: one error, before any rule is read.
        {"a million rules", with_room_field("rules", json(std::vector<int>(1000000, 1))),
         {"zones[0].waiting_rooms[0].rules: a waiting room may have at most 100 rules; the document gives 1000000"}},
        {"a rule that is not an object", with_room_field("rules", json::array({1})),
         {"zones[0].waiting_rooms[0].rules[0]: must be a JSON object (a rule)"}},
        {"events that are not an array",
         [] {
             json changed = document();
             changed["zones"][0]["waiting_rooms"][0]["events"] = json::object();
             return changed;
         }(),
         {"zones[0].waiting_rooms[0].events: must be an array"}},
        {"a room on a host of a more specific zone",
         [] {
             json changed = document();
             changed["zones"].push_back({{"name", "shop.example.com"}, {"origin", "http://127.0.0.1:4000"}});
             return changed;
         }(),
         {"zones[1].name: the zone example.com serves shop.example.com (waiting room shop), which would belong to shop.example.com"}},
        {"a zone's host in a more specific zone",
         [] {
             json changed = {{"zones", json::array({{{"name", "sub.example.com"}, {"origin", "http://127.0.0.1:4000"}},
                                                    {{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"}}})}};
             changed["zones"][1]["hosts"] = {"www.example.com", "*.a.sub.example.com"};
             changed["zones"][1]["waiting_rooms"] = json::array({blog_room()});
             changed["zones"][1]["waiting_rooms"][0]["host"] = "blog.sub.example.com";
             return changed;
         }(),
         {"zones[1].hosts[1]: *.a.sub.example.com belongs to the zone sub.example.com"}},
        {"no zones", json::object(), {"zones: is required"}},
        {"not an object", json::array(), {"the document must be a JSON object with a \"zones\" array"}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        ConfigStore store;
        const Lines errors = apply_errors(store, c.document);
        REQUIRE(errors.size() == c.errors.size());
        for (size_t i = 0; i < errors.size(); ++i) CHECK(errors[i].starts_with(c.errors[i]));
        CHECK(store.exported() == json{{"zones", json::array()}});
    }
}

TEST_CASE("control::apply_document refuses every field it does not know, naming its path and the nearest known one") {
    ConfigStore store;
    json typos = document();
    typos["zones"][0]["waiting_rooms"][0]["sesion_duration"] = 20;
    typos["zones"][0]["waiting_rooms"][0]["cookie_attributes"] = {{"samesite", "lax"}, {"secur", "always"}};
    typos["zones"][0]["waiting_rooms"][0]["additional_routes"][0]["hots"] = "x.example.com";
    typos["zones"][0]["waiting_rooms"][0]["events"][0]["shuffle"] = true;
    typos["zones"][0]["waiting_rooms"][0]["rules"][1]["enable"] = true;
    typos["zones"][0]["settings"]["search_engine_crawler"] = true;
    typos["zones"][0]["colour"] = "blue";
    typos["zone"] = json::array();
    CHECK(apply_errors(store, typos) ==
          Lines{"zone: unknown field (did you mean zones?)",
                "zones[0].colour: unknown field",
                "zones[0].settings.search_engine_crawler: unknown field (did you mean search_engine_crawler_bypass?)",
                "zones[0].waiting_rooms[0].additional_routes[0].hots: unknown field (did you mean host?)",
                "zones[0].waiting_rooms[0].cookie_attributes.secur: unknown field (did you mean secure?)",
                "zones[0].waiting_rooms[0].events[0].shuffle: unknown field (did you mean shuffle_at_event_start?)",
                "zones[0].waiting_rooms[0].rules[1].enable: unknown field (did you mean enabled?)",
                "zones[0].waiting_rooms[0].sesion_duration: unknown field (did you mean session_duration?)"});
    // Nothing of the document was applied.
    CHECK(store.database.read([](Connection& c) { return wr::store::count_zones(c); }) == 0);
}

TEST_CASE("control::apply_document knows every field the API writes, read-only ones included") {
    ConfigStore store;
    store.apply(document());
    // An export applies, and so does a room as GET returns it (ids and timestamps are ignored).
    CHECK(store.apply(store.exported()).empty());
    json with_api_fields = document();
    json& shop = with_api_fields["zones"][0]["waiting_rooms"][0];
    for (const char* key : {"id", "created_on", "modified_on", "next_event_prequeue_start_time", "next_event_start_time"})
        shop[key] = nullptr;
    shop["events"][0]["id"] = "abc";
    shop["rules"][0]["version"] = "1";
    shop["rules"][0]["last_updated"] = "2026-11-22T10:00:00.000Z";
    CHECK(store.apply(with_api_fields).empty());
}

TEST_CASE("control::apply_document inside Database::write changes nothing when any part fails") {
    ConfigStore store;
    store.apply(document());
    const json before = store.exported();
    const uint64_t generation = store.database.generation();

    // Valid changes first (a new zone, a new origin, a new room), then an invalid event.
    json failing = document();
    failing["zones"][0]["origin"] = "http://10.0.0.1:8080";
    failing["zones"][0]["waiting_rooms"].push_back({{"name", "news"}, {"host", "news.example.com"}, {"total_active_users", 300},
                                                    {"new_users_per_minute", 300}});
    failing["zones"].push_back(other_zone());
    failing["zones"][1]["waiting_rooms"][0]["events"] = json::array({{{"name", "x"}}});
    CHECK(apply_errors(store, failing, {.prune = true}) ==
          Lines{"zones[1].waiting_rooms[0].events[0].event_start_time: is required",
                "zones[1].waiting_rooms[0].events[0].event_end_time: is required"});

    CHECK(store.exported().dump() == before.dump());
    CHECK(store.database.generation() == generation);
    CHECK(store.database.read([](Connection& c) { return wr::store::count_zones(c); }) == 1);
    CHECK(store.database.read([](Connection& c) { return wr::store::count_rooms(c, ""); }) == 2);
}

TEST_CASE("control::apply_document keeps an event that has ended when the document still names it") {
    ConfigStore store;
    store.apply(document());
    store.clock.set(wr::test::k_test_start + std::chrono::days{30}); // past the launch
    const json exported = store.exported();
    CHECK(store.apply(exported).empty());
    CHECK(store.apply(document()).empty());
    // Moving its end is a change, and a new end must lie ahead.
    json moved = document();
    moved["zones"][0]["waiting_rooms"][0]["events"][0]["event_end_time"] = "2026-12-01T13:00:00.000Z";
    CHECK(apply_errors(store, moved) == Lines{"zones[0].waiting_rooms[0].events[0].event_end_time: must be in the future"});
}

TEST_CASE("control::apply_document skips an event that has ended when the room does not have it, and says why") {
    ConfigStore store;
    store.apply(document());
    const auto after_launch = wr::test::k_test_start + std::chrono::days{30};
    store.clock.set(after_launch);
    const json exported = store.exported();

    // The export rebuilds the configuration on another wr, all but the event that can never run.
    ConfigStore copy;
    copy.clock.set(after_launch);
    const std::string skipped = "skip event example.com/shop/launch: ended at 2026-12-01T12:00:00.000Z: an event that has "
                                "ended is not created";
    CHECK(copy.apply(exported) == Lines{
                                      "create zone example.com",
                                      "update settings example.com [search_engine_crawler_bypass]",
                                      "create waiting_room example.com/blog",
                                      "create waiting_room example.com/shop",
                                      skipped,
                                      "create rules example.com/shop",
                                  });
    CHECK(copy.exported()["zones"][0]["waiting_rooms"][1]["events"] == json::array());
    CHECK(copy.apply(exported) == Lines{skipped});
    CHECK(copy.apply(exported, {.prune = true}) == Lines{skipped});
    // Where the room has it, the ended event stays as it is.
    CHECK(store.apply(exported).empty());
    CHECK(store.exported().dump() == exported.dump());
}

TEST_CASE("control::apply_document with prune renames a room, or moves its route to another, in one apply") {
    ConfigStore store;
    store.apply(document());

    // The room blog becomes journal, on the same host: blog goes before journal takes its route.
    json renamed = document();
    renamed["zones"][0]["waiting_rooms"][1]["name"] = "journal";
    CHECK(store.apply(renamed, {.prune = true}) ==
          Lines{"delete waiting_room example.com/blog", "create waiting_room example.com/journal"});

    // shop goes, and journal takes shop's routes.
    json moved = renamed;
    json& journal = moved["zones"][0]["waiting_rooms"][1];
    journal["additional_routes"] = json::array({{{"host", "shop.example.com"}, {"path", "/shop"}},
                                                {{"host", "m.example.com"}, {"path", "/shop"}}});
    journal["cookie_suffix"] = "journal";
    moved["zones"][0]["waiting_rooms"].erase(0);
    CHECK(store.apply(moved, {.prune = true}) ==
          Lines{"delete waiting_room example.com/shop", "update waiting_room example.com/journal [additional_routes, cookie_suffix]"});
    CHECK(store.apply(moved, {.prune = true}).empty());
}

TEST_CASE("control::to_json of a change names action, kind, target and fields") {
    const Change change{"update", "waiting_room", "example.com/shop", {"description"}, ""};
    CHECK(wr::control::to_json(change) ==
          json{{"action", "update"}, {"kind", "waiting_room"}, {"target", "example.com/shop"}, {"fields", {"description"}}});
    const Change skip{"skip", "event", "example.com/shop/launch", {}, "ended"};
    CHECK(wr::control::to_json(skip)["reason"] == "ended");
}
