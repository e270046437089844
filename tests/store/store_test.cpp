// The repositories on a real SQLite file: every field round-trips, listings page in a stable
// order, deletes cascade where the schema says so, and the connection runs in WAL mode.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "store/events_store.h"
#include "store/migrate.h"
#include "store/previews_store.h"
#include "store/rooms_store.h"
#include "store/rules_store.h"
#include "store/tokens_store.h"
#include "store/zones_store.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/timestamps.h"

using namespace std::chrono_literals;
using wr::store::Connection;
using wr::test::k_test_start;
using wr::test::at;

namespace {

// A migrated database in a fresh directory.
struct Store {
    wr::test::TempDir dir;
    wr::store::Database database{dir.path()};
    Store() { wr::store::migrate(database); }

    int64_t count(const std::string& sql, const std::string& id) {
        return database.read([&](Connection& c) {
            SQLite::Statement query(c, sql);
            query.bind(1, id);
            query.executeStep();
            return query.getColumn(0).getInt64();
        });
    }
};

wr::model::Zone make_zone(const std::string& id, const std::string& name, wr::util::TimePoint created) {
    return wr::model::Zone{id, {name, "http://127.0.0.1:3000"}, created, created};
}

wr::model::Room make_room(const std::string& id, const std::string& zone_id, const std::string& name, wr::util::TimePoint created) {
    wr::model::Room room;
    room.id = id;
    room.zone_id = zone_id;
    room.settings.name = name;
    room.settings.host = name + ".example.com";
    room.settings.total_active_users = 1000;
    room.settings.new_users_per_minute = 300;
    room.created_on = created;
    room.modified_on = created;
    return room;
}

// Every settings field away from its default.
wr::model::RoomSettings custom_settings() {
    wr::model::RoomSettings s;
    s.name = "shop";
    s.description = "the shop";
    s.host = "Shop.Example.com";
    s.path = "/shop";
    s.additional_routes = {{"m.example.com", "/"}, {"shop.example.com", "/basket"}};
    s.total_active_users = 2147483647;
    s.new_users_per_minute = 700;
    s.session_duration = 30;
    s.disable_session_renewal = true;
    s.queue_all = true;
    s.queueing_method = wr::model::QueueingMethod::reject;
    s.queueing_status_code = 429;
    s.suspended = true;
    s.json_response_enabled = true;
    s.cookie_suffix = "shop_1";
    s.cookie_attributes = {wr::model::SameSite::strict, wr::model::SecureAttribute::always};
    s.custom_page_html = "<p>{{waitTime}}</p>";
    s.default_template_language = "ja-JP";
    s.revoke_origin_command = true;
    s.turnstile_mode = wr::model::TurnstileMode::visible_non_interactive;
    s.turnstile_action = wr::model::TurnstileAction::infinite_queue;
    s.join_limit_per_ip_per_minute = 40;
    s.origin_guard = {.enabled = true, .target_ttfb_ms = 60000, .max_error_rate = 0.125, .min_new_users_per_minute = 700};
    return s;
}

wr::model::Event make_event(const std::string& id, const std::string& room_id, const std::string& name, const std::string& start,
                            const std::string& end) {
    wr::model::Event event;
    event.id = id;
    event.room_id = room_id;
    event.settings.name = name;
    event.settings.event_start_time = at(start);
    event.settings.event_end_time = at(end);
    event.created_on = k_test_start;
    event.modified_on = k_test_start + 1s;
    return event;
}

std::vector<std::string> ids_of(const auto& records) {
    std::vector<std::string> ids;
    for (const auto& record : records) ids.push_back(record.id);
    return ids;
}

void check_same_times(const wr::model::EventSettings& a, const wr::model::EventSettings& b) {
    CHECK(a.event_start_time.time == b.event_start_time.time);
    CHECK(a.event_end_time.time == b.event_end_time.time);
    REQUIRE(a.prequeue_start_time.has_value() == b.prequeue_start_time.has_value());
    if (a.prequeue_start_time) CHECK(a.prequeue_start_time->time == b.prequeue_start_time->time);
}

const std::string k_zone_a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const std::string k_zone_b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const std::string k_zone_c = "cccccccccccccccccccccccccccccccc";

} // namespace

TEST_CASE("store::Database opens in WAL mode with foreign keys on") {
    Store store;
    store.database.read([](Connection& c) {
        CHECK(c.execAndGet("PRAGMA journal_mode").getString() == "wal");
        CHECK(c.execAndGet("PRAGMA foreign_keys").getInt() == 1);
        CHECK(c.execAndGet("PRAGMA synchronous").getInt() == 2); // FULL
    });
    CHECK(store.database.path() == store.dir.path() / "wr.db");
    CHECK(std::filesystem::exists(store.dir.path() / "wr.db"));
}

TEST_CASE("store::Database::write commits or rolls back as a whole; rehearse always rolls back") {
    Store store;
    const uint64_t generation = store.database.generation();
    CHECK_THROWS_AS(store.database.write([](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        throw std::runtime_error("stop");
    }),
                    std::runtime_error);
    CHECK(store.database.read([](Connection& c) { return wr::store::count_zones(c); }) == 0);
    CHECK(store.database.generation() == generation);

    const int64_t rehearsed = store.database.rehearse([](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        return wr::store::count_zones(c);
    });
    CHECK(rehearsed == 1);
    CHECK(store.database.read([](Connection& c) { return wr::store::count_zones(c); }) == 0);
    CHECK(store.database.generation() == generation);

    store.database.write([](Connection& c) { wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start)); });
    CHECK(store.database.read([](Connection& c) { return wr::store::count_zones(c); }) == 1);
    CHECK(store.database.generation() == generation + 1);
}

TEST_CASE("store: zones round-trip, page by creation time, update and delete") {
    Store store;
    store.database.write([](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "a.com", k_test_start));
        wr::store::insert_zone(c, make_zone(k_zone_b, "b.com", k_test_start + 1s));
        wr::model::Zone capped = make_zone(k_zone_c, "c.com", k_test_start); // same time as a: insertion order breaks the tie
        capped.settings.max_origin_connections = 1000000;
        capped.settings.origin_queue_timeout_seconds = 1;
        wr::store::insert_zone(c, capped);
    });
    store.database.read([](Connection& c) {
        const auto found = wr::store::find_zone(c, k_zone_b);
        REQUIRE(found);
        CHECK(found->id == k_zone_b);
        CHECK(found->settings == wr::model::ZoneSettings{"b.com", "http://127.0.0.1:3000"});
        CHECK(found->created_on == k_test_start + 1s);
        CHECK(found->modified_on == k_test_start + 1s);
        CHECK(wr::store::find_zone_by_name(c, "c.com")->id == k_zone_c);
        CHECK(wr::store::find_zone(c, k_zone_c)->settings.max_origin_connections == 1000000);
        CHECK(wr::store::find_zone(c, k_zone_c)->settings.origin_queue_timeout_seconds == 1);
        CHECK_FALSE(wr::store::find_zone(c, "dddddddddddddddddddddddddddddddd"));
        CHECK_FALSE(wr::store::find_zone_by_name(c, "d.com"));
        CHECK_FALSE(wr::store::find_zone_by_name(c, "A.com")); // names are stored lowercase; lookups are exact

        CHECK(wr::store::count_zones(c) == 3);
        CHECK(ids_of(wr::store::list_zones(c, {0, 25})) == std::vector<std::string>{k_zone_a, k_zone_c, k_zone_b});
        CHECK(ids_of(wr::store::list_zones(c, {0, 2})) == std::vector<std::string>{k_zone_a, k_zone_c});
        CHECK(ids_of(wr::store::list_zones(c, {2, 2})) == std::vector<std::string>{k_zone_b});
        CHECK(wr::store::list_zones(c, {3, 2}).empty());
        CHECK(wr::store::list_zones(c, {0, -1}).size() == 3);
    });

    store.database.write([](Connection& c) {
        wr::model::Zone changed = make_zone(k_zone_b, "b2.com", k_test_start + 1h); // created_on is not updated
        changed.settings.origin = "https://origin.internal/base";
        changed.settings.max_origin_connections = 64;
        changed.settings.origin_queue_timeout_seconds = 120;
        changed.modified_on = k_test_start + 2h;
        wr::store::update_zone(c, changed);
    });
    store.database.read([](Connection& c) {
        const auto updated = wr::store::find_zone(c, k_zone_b);
        REQUIRE(updated);
        wr::model::ZoneSettings expected{"b2.com", "https://origin.internal/base"};
        expected.max_origin_connections = 64;
        expected.origin_queue_timeout_seconds = 120;
        CHECK(updated->settings == expected);
        CHECK(updated->created_on == k_test_start + 1s);
        CHECK(updated->modified_on == k_test_start + 2h);
    });

    store.database.write([](Connection& c) { wr::store::delete_zone(c, k_zone_b); });
    CHECK(store.database.read([](Connection& c) { return wr::store::find_zone(c, k_zone_b).has_value(); }) == false);
    CHECK(store.count("SELECT COUNT(*) FROM zone_settings WHERE zone_id = ?", k_zone_b) == 0);
    CHECK(store.count("SELECT COUNT(*) FROM zone_settings WHERE zone_id = ?", k_zone_a) == 1);
}

TEST_CASE("store: zone room settings default to false and are replaced in place") {
    Store store;
    store.database.write([](Connection& c) { wr::store::insert_zone(c, make_zone(k_zone_a, "a.com", k_test_start)); });
    CHECK(store.database.read([](Connection& c) { return wr::store::get_zone_room_settings(c, k_zone_a); }) ==
          wr::model::ZoneRoomSettings{false});
    store.database.write([](Connection& c) { wr::store::put_zone_room_settings(c, k_zone_a, {true}, k_test_start + 1min); });
    CHECK(store.database.read([](Connection& c) { return wr::store::get_zone_room_settings(c, k_zone_a); }) ==
          wr::model::ZoneRoomSettings{true});
    store.database.write([](Connection& c) { wr::store::put_zone_room_settings(c, k_zone_a, {false}, k_test_start + 2min); });
    CHECK(store.database.read([](Connection& c) { return wr::store::get_zone_room_settings(c, k_zone_a); }) ==
          wr::model::ZoneRoomSettings{false});
    CHECK(store.count("SELECT COUNT(*) FROM zone_settings WHERE zone_id = ?", k_zone_a) == 1);
    // An unknown zone reads as the defaults.
    CHECK(store.database.read([](Connection& c) { return wr::store::get_zone_room_settings(c, k_zone_b); }) ==
          wr::model::ZoneRoomSettings{false});
}

TEST_CASE("store: rooms round-trip every field with their additional routes") {
    Store store;
    wr::model::Room room{"11111111111111111111111111111111", k_zone_a, custom_settings(), k_test_start, k_test_start + 5s};
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::store::insert_room(c, room);
    });
    store.database.read([&](Connection& c) {
        const auto found = wr::store::find_room(c, room.id);
        REQUIRE(found);
        CHECK(found->id == room.id);
        CHECK(found->zone_id == k_zone_a);
        CHECK(found->settings == room.settings);
        CHECK(found->created_on == k_test_start);
        CHECK(found->modified_on == k_test_start + 5s);
        const auto by_name = wr::store::find_room_by_name(c, k_zone_a, "shop");
        REQUIRE(by_name);
        CHECK(by_name->settings == room.settings);
        CHECK_FALSE(wr::store::find_room_by_name(c, k_zone_b, "shop"));
        CHECK_FALSE(wr::store::find_room(c, "22222222222222222222222222222222"));
    });
    CHECK(store.count("SELECT COUNT(*) FROM room_routes WHERE room_id = ?", room.id) == 3);
    CHECK(store.count("SELECT COUNT(*) FROM room_routes WHERE host_key = 'shop.example.com' AND room_id = ?", room.id) == 2);

    // Fewer routes, other settings.
    room.settings = custom_settings();
    room.settings.additional_routes = {{"x.example.com", "/x"}};
    room.settings.host = "example.com";
    room.settings.description = "";
    room.settings.queueing_method = wr::model::QueueingMethod::passthrough;
    room.settings.origin_guard = {.enabled = false, .target_ttfb_ms = 50, .max_error_rate = 0.0, .min_new_users_per_minute = 0};
    room.modified_on = k_test_start + 1h;
    store.database.write([&](Connection& c) { wr::store::update_room(c, room); });
    store.database.read([&](Connection& c) {
        const auto found = wr::store::find_room(c, room.id);
        REQUIRE(found);
        CHECK(found->settings == room.settings);
        CHECK(found->created_on == k_test_start);
        CHECK(found->modified_on == k_test_start + 1h);
    });
    CHECK(store.count("SELECT COUNT(*) FROM room_routes WHERE room_id = ?", room.id) == 2);

    room.settings.additional_routes.clear();
    store.database.write([&](Connection& c) { wr::store::update_room(c, room); });
    CHECK(store.database.read([&](Connection& c) { return wr::store::find_room(c, room.id)->settings.additional_routes.empty(); }));
}

TEST_CASE("store: rooms list per zone or for all zones, in creation order, with counts") {
    Store store;
    store.database.write([](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "a.com", k_test_start));
        wr::store::insert_zone(c, make_zone(k_zone_b, "b.com", k_test_start));
        wr::store::insert_room(c, make_room("10000000000000000000000000000000", k_zone_a, "one", k_test_start + 3s));
        wr::store::insert_room(c, make_room("20000000000000000000000000000000", k_zone_b, "two", k_test_start + 1s));
        wr::store::insert_room(c, make_room("30000000000000000000000000000000", k_zone_a, "three", k_test_start + 2s));
        wr::store::insert_room(c, make_room("40000000000000000000000000000000", k_zone_a, "four", k_test_start + 2s));
    });
    store.database.read([](Connection& c) {
        CHECK(wr::store::count_rooms(c, k_zone_a) == 3);
        CHECK(wr::store::count_rooms(c, k_zone_b) == 1);
        CHECK(wr::store::count_rooms(c, "") == 4);
        CHECK(ids_of(wr::store::list_rooms(c, k_zone_a, {0, 25})) ==
              std::vector<std::string>{"30000000000000000000000000000000", "40000000000000000000000000000000",
                                       "10000000000000000000000000000000"});
        CHECK(ids_of(wr::store::list_rooms(c, k_zone_a, {1, 1})) == std::vector<std::string>{"40000000000000000000000000000000"});
        CHECK(ids_of(wr::store::list_rooms(c, "", {0, 2})) ==
              std::vector<std::string>{"20000000000000000000000000000000", "30000000000000000000000000000000"});
        CHECK(wr::store::list_rooms(c, k_zone_b, {1, 25}).empty());
        // Listed rooms carry their routes too.
        CHECK(wr::store::list_rooms(c, k_zone_b, {0, 25}).front().settings.host == "two.example.com");
    });
}

TEST_CASE("store: route owners are found by lowercased host and exact path, other than the asking room") {
    Store store;
    wr::model::Room room{"11111111111111111111111111111111", k_zone_a, custom_settings(), k_test_start, k_test_start};
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::store::insert_room(c, room);
    });
    store.database.read([&](Connection& c) {
        const auto owner = wr::store::find_route_owner(c, "SHOP.example.com", "/shop", "");
        REQUIRE(owner);
        CHECK(owner->room_id == room.id);
        CHECK(owner->room_name == "shop");
        CHECK(wr::store::find_route_owner(c, "m.example.com", "/", "").has_value());
        CHECK(wr::store::find_route_owner(c, "shop.example.com", "/basket", "").has_value());
        CHECK_FALSE(wr::store::find_route_owner(c, "shop.example.com", "/shop", room.id));
        CHECK_FALSE(wr::store::find_route_owner(c, "shop.example.com", "/Shop", ""));   // paths are case-sensitive
        CHECK_FALSE(wr::store::find_route_owner(c, "shop.example.com", "/shop/", "")); // and exact
    });

    // The schema refuses a second owner of a route, and the failed write leaves nothing behind.
    wr::model::Room thief = make_room("22222222222222222222222222222222", k_zone_a, "thief", k_test_start);
    thief.settings.host = "shop.EXAMPLE.com";
    thief.settings.path = "/shop";
    CHECK_THROWS_AS(store.database.write([&](Connection& c) { wr::store::insert_room(c, thief); }), SQLite::Exception);
    CHECK_FALSE(store.database.read([&](Connection& c) { return wr::store::find_room(c, thief.id); }));
}

TEST_CASE("store: events round-trip with their nullable overrides, ordered by start") {
    Store store;
    wr::model::Event full = make_event("e2000000000000000000000000000000", "11111111111111111111111111111111", "launch",
                                       "2026-12-01T11:00:00+01:00", "2026-12-01T12:00:00.000Z");
    full.settings.description = "the launch";
    full.settings.prequeue_start_time = at("2026-12-01T09:00:00Z");
    full.settings.shuffle_at_event_start = true;
    full.settings.suspended = true;
    full.settings.total_active_users = 2147483647;
    full.settings.new_users_per_minute = 400;
    full.settings.session_duration = 30;
    full.settings.queueing_method = wr::model::QueueingMethod::random;
    full.settings.disable_session_renewal = false;
    full.settings.custom_page_html = "";
    full.settings.turnstile_mode = wr::model::TurnstileMode::visible_managed;
    full.settings.turnstile_action = wr::model::TurnstileAction::infinite_queue;
    const wr::model::Event plain = make_event("e1000000000000000000000000000000", "11111111111111111111111111111111", "early",
                                              "2026-11-30T10:00:00Z", "2026-11-30T11:00:00Z");
    const wr::model::Event late = make_event("e3000000000000000000000000000000", "11111111111111111111111111111111", "late",
                                             "2026-12-02T10:00:00Z", "2026-12-02T11:00:00Z");
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::store::insert_room(c, make_room("11111111111111111111111111111111", k_zone_a, "shop", k_test_start));
        wr::store::insert_event(c, late);
        wr::store::insert_event(c, full);
        wr::store::insert_event(c, plain);
    });
    store.database.read([&](Connection& c) {
        const auto found = wr::store::find_event(c, "11111111111111111111111111111111", full.id);
        REQUIRE(found);
        CHECK(found->room_id == full.room_id);
        CHECK(found->settings == full.settings);
        check_same_times(found->settings, full.settings);
        CHECK(found->settings.event_start_time.text == "2026-12-01T11:00:00+01:00"); // as given
        CHECK(found->created_on == k_test_start);
        CHECK(found->modified_on == k_test_start + 1s);

        const auto bare = wr::store::find_event(c, "11111111111111111111111111111111", plain.id);
        REQUIRE(bare);
        CHECK(bare->settings == plain.settings);
        CHECK_FALSE(bare->settings.prequeue_start_time);
        CHECK_FALSE(bare->settings.total_active_users);
        CHECK_FALSE(bare->settings.disable_session_renewal);
        CHECK_FALSE(bare->settings.custom_page_html);
        CHECK_FALSE(bare->settings.turnstile_action);

        CHECK_FALSE(wr::store::find_event(c, "22222222222222222222222222222222", full.id)); // another room's id
        CHECK(wr::store::count_events(c, "11111111111111111111111111111111") == 3);
        CHECK(ids_of(wr::store::all_events(c, "11111111111111111111111111111111")) ==
              std::vector<std::string>{plain.id, full.id, late.id});
        CHECK(ids_of(wr::store::list_events(c, "11111111111111111111111111111111", {1, 5})) ==
              std::vector<std::string>{full.id, late.id});
    });

    wr::model::Event cleared = full;
    cleared.settings = plain.settings;
    cleared.settings.name = "launch";
    cleared.modified_on = k_test_start + 1h;
    store.database.write([&](Connection& c) { wr::store::update_event(c, cleared); });
    store.database.read([&](Connection& c) {
        const auto found = wr::store::find_event(c, "11111111111111111111111111111111", full.id);
        REQUIRE(found);
        CHECK(found->settings == cleared.settings);
        check_same_times(found->settings, cleared.settings);
        CHECK(found->modified_on == k_test_start + 1h);
        CHECK(found->created_on == k_test_start);
    });

    store.database.write([&](Connection& c) { wr::store::delete_event(c, plain.id); });
    CHECK(store.database.read([](Connection& c) { return wr::store::count_events(c, "11111111111111111111111111111111"); }) == 2);
}

TEST_CASE("store: rules keep their order and every field; writing a list replaces the room's list") {
    Store store;
    const std::string room_id = "11111111111111111111111111111111";
    const std::string other_id = "22222222222222222222222222222222";
    const auto rule = [](const std::string& id, const std::string& expression, bool enabled, int64_t version) {
        wr::model::Rule r;
        r.id = id;
        r.settings.expression = expression;
        r.settings.description = "rule " + id;
        r.settings.enabled = enabled;
        r.version = version;
        r.last_updated = k_test_start + std::chrono::minutes{version};
        return r;
    };
    const wr::model::Rule first = rule("r1", "ip.src eq 10.0.0.1", true, 1);
    const wr::model::Rule second = rule("r2", "http.host eq \"a\"", false, 7);
    const wr::model::Rule third = rule("r3", "http.cookie contains \"vip\"", true, 2);
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::store::insert_room(c, make_room(room_id, k_zone_a, "shop", k_test_start));
        wr::store::insert_room(c, make_room(other_id, k_zone_a, "blog", k_test_start));
        wr::store::write_rules(c, room_id, {third, first, second});
        wr::store::write_rules(c, other_id, {rule("o1", "ip.src eq 10.0.0.2", true, 1)});
    });
    store.database.read([&](Connection& c) {
        const std::vector<wr::model::Rule> rules = wr::store::list_rules(c, room_id);
        CHECK(ids_of(rules) == std::vector<std::string>{"r3", "r1", "r2"});
        REQUIRE(rules.size() == 3);
        CHECK(rules[2].settings == second.settings);
        CHECK(rules[2].settings.action == "bypass_waiting_room");
        CHECK(rules[2].version == 7);
        CHECK(rules[2].last_updated == k_test_start + 7min);
        CHECK(rules[0].settings == third.settings);
    });
    store.database.write([&](Connection& c) { wr::store::write_rules(c, room_id, {second, third}); });
    store.database.read([&](Connection& c) {
        CHECK(ids_of(wr::store::list_rules(c, room_id)) == std::vector<std::string>{"r2", "r3"});
        CHECK(ids_of(wr::store::list_rules(c, other_id)) == std::vector<std::string>{"o1"});
    });
    store.database.write([&](Connection& c) { wr::store::write_rules(c, room_id, {}); });
    CHECK(store.database.read([&](Connection& c) { return wr::store::list_rules(c, room_id).empty(); }));
}

TEST_CASE("store: deleting a room cascades to its routes, events and rules; a zone with rooms cannot be deleted") {
    Store store;
    const std::string room_id = "11111111111111111111111111111111";
    const std::string other_id = "22222222222222222222222222222222";
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::model::Room room = make_room(room_id, k_zone_a, "shop", k_test_start);
        room.settings.additional_routes = {{"m.example.com", "/"}};
        wr::store::insert_room(c, room);
        wr::store::insert_room(c, make_room(other_id, k_zone_a, "blog", k_test_start));
        wr::store::insert_event(c, make_event("e1000000000000000000000000000000", room_id, "a", "2026-12-01T10:00:00Z",
                                              "2026-12-01T11:00:00Z"));
        wr::store::insert_event(c, make_event("e2000000000000000000000000000000", other_id, "a", "2026-12-01T10:00:00Z",
                                              "2026-12-01T11:00:00Z"));
        wr::model::Rule rule;
        rule.id = "r1";
        rule.settings.expression = "ip.src eq 10.0.0.1";
        wr::store::write_rules(c, room_id, {rule});
    });
    CHECK(store.count("SELECT COUNT(*) FROM room_routes WHERE room_id = ?", room_id) == 2);
    CHECK(store.count("SELECT COUNT(*) FROM events WHERE room_id = ?", room_id) == 1);
    CHECK(store.count("SELECT COUNT(*) FROM rules WHERE room_id = ?", room_id) == 1);

    CHECK_THROWS_WITH_AS(store.database.write([](Connection& c) { wr::store::delete_zone(c, k_zone_a); }),
                         "FOREIGN KEY constraint failed", SQLite::Exception);
    CHECK(store.database.read([](Connection& c) { return wr::store::find_zone(c, k_zone_a).has_value(); }));

    store.database.write([&](Connection& c) { wr::store::delete_room(c, room_id); });
    CHECK(store.count("SELECT COUNT(*) FROM waiting_rooms WHERE id = ?", room_id) == 0);
    CHECK(store.count("SELECT COUNT(*) FROM room_routes WHERE room_id = ?", room_id) == 0);
    CHECK(store.count("SELECT COUNT(*) FROM events WHERE room_id = ?", room_id) == 0);
    CHECK(store.count("SELECT COUNT(*) FROM rules WHERE room_id = ?", room_id) == 0);
    // The other room keeps everything.
    CHECK(store.count("SELECT COUNT(*) FROM room_routes WHERE room_id = ?", other_id) == 1);
    CHECK(store.count("SELECT COUNT(*) FROM events WHERE room_id = ?", other_id) == 1);

    // An event of a room that does not exist is refused.
    CHECK_THROWS_AS(store.database.write([](Connection& c) {
        wr::store::insert_event(c, make_event("e3000000000000000000000000000000", "33333333333333333333333333333333", "x",
                                              "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"));
    }),
                    SQLite::Exception);
}

TEST_CASE("store: tokens round-trip, are touched, deleted, and go with their zone") {
    Store store;
    const auto token = [](const std::string& id, std::optional<std::string> zone, wr::util::TimePoint created) {
        wr::model::Token t;
        t.id = id;
        t.name = "token " + id;
        t.scope = zone ? wr::model::TokenScope::read : wr::model::TokenScope::edit;
        t.zone_id = std::move(zone);
        t.hash = std::string(62, 'f') + id;
        t.created_on = created;
        return t;
    };
    const wr::model::Token global = token("t1", std::nullopt, k_test_start + 1s);
    const wr::model::Token zoned = token("t2", k_zone_a, k_test_start);
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::store::insert_token(c, global);
        wr::store::insert_token(c, zoned);
    });
    store.database.read([&](Connection& c) {
        const std::vector<wr::model::Token> tokens = wr::store::list_tokens(c);
        REQUIRE(ids_of(tokens) == std::vector<std::string>{"t2", "t1"});
        CHECK(tokens[0].name == "token t2");
        CHECK(tokens[0].scope == wr::model::TokenScope::read);
        CHECK(tokens[0].zone_id == k_zone_a);
        CHECK(tokens[0].hash == zoned.hash);
        CHECK(tokens[0].created_on == k_test_start);
        CHECK_FALSE(tokens[0].last_used_on);
        CHECK(tokens[1].scope == wr::model::TokenScope::edit);
        CHECK_FALSE(tokens[1].zone_id);
    });

    store.database.write([&](Connection& c) { wr::store::touch_token(c, "t1", k_test_start + 1h); });
    CHECK(store.database.read([](Connection& c) { return wr::store::list_tokens(c)[1].last_used_on; }) == k_test_start + 1h);

    CHECK(store.database.write([](Connection& c) { return wr::store::delete_token(c, "t1"); }));
    CHECK_FALSE(store.database.write([](Connection& c) { return wr::store::delete_token(c, "t1"); }));
    CHECK(ids_of(store.database.read([](Connection& c) { return wr::store::list_tokens(c); })) == std::vector<std::string>{"t2"});

    // A hash is unique: the same secret cannot be stored twice.
    CHECK_THROWS_AS(store.database.write([&](Connection& c) {
        wr::model::Token copy = zoned;
        copy.id = "t3";
        wr::store::insert_token(c, copy);
    }),
                    SQLite::Exception);

    store.database.write([](Connection& c) { wr::store::delete_zone(c, k_zone_a); });
    CHECK(store.database.read([](Connection& c) { return wr::store::list_tokens(c).empty(); }));
}

TEST_CASE("store: previews are found until they expire, then deleted") {
    Store store;
    const wr::store::Preview preview{"p1000000000000000000000000000000", k_zone_a, "<p>{{waitTime}}</p>", k_test_start + 24h};
    store.database.write([&](Connection& c) {
        wr::store::insert_zone(c, make_zone(k_zone_a, "example.com", k_test_start));
        wr::store::insert_preview(c, preview, k_test_start);
        wr::store::insert_preview(c, {"p2000000000000000000000000000000", k_zone_a, "later", k_test_start + 48h}, k_test_start);
    });
    store.database.read([&](Connection& c) {
        const auto found = wr::store::find_preview(c, preview.id, k_test_start);
        REQUIRE(found);
        CHECK(found->id == preview.id);
        CHECK(found->zone_id == k_zone_a);
        CHECK(found->html == "<p>{{waitTime}}</p>");
        CHECK(found->expires_on == k_test_start + 24h);
        CHECK(wr::store::find_preview(c, preview.id, k_test_start + 24h - 1ms));
        CHECK_FALSE(wr::store::find_preview(c, preview.id, k_test_start + 24h));
        CHECK_FALSE(wr::store::find_preview(c, "p9000000000000000000000000000000", k_test_start));
    });
    CHECK(store.database.write([](Connection& c) { return wr::store::delete_expired_previews(c, k_test_start + 24h - 1ms); }) == 0);
    CHECK(store.database.write([](Connection& c) { return wr::store::delete_expired_previews(c, k_test_start + 24h); }) == 1);
    CHECK(store.database.read([](Connection& c) {
        return wr::store::find_preview(c, "p2000000000000000000000000000000", k_test_start + 24h).has_value();
    }));
}
