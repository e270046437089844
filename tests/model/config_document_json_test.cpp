// The configuration document a control node hands its edges: an exact round trip of every
// record (ids, timestamps, every setting away from its default), and errors that say where.
#include <doctest/doctest.h>

#include "model/config_document_json.h"
#include "support/test_server.h"
#include "support/timestamps.h"

using nlohmann::json;
using namespace std::chrono_literals;
using wr::test::at;

namespace {

// A document whose every field differs from its default, so a field lost on the way shows.
wr::model::ConfigDocument full_document() {
    wr::model::ConfigDocument document;
    wr::model::ZoneDocument& zone = document.zones.emplace_back();
    zone.zone.id = "z1";
    zone.zone.settings = {"example.com", "https://origin.example.net:8443/base", {"www.example.com", "*.cdn.example.com"}};
    zone.zone.settings.max_origin_connections = 64;
    zone.zone.settings.origin_queue_timeout_seconds = 25;
    zone.zone.created_on = wr::test::k_test_start;
    zone.zone.modified_on = wr::test::k_test_start + 90s;
    zone.room_settings.search_engine_crawler_bypass = true;

    wr::model::RoomDocument& room = zone.rooms.emplace_back();
    room.room.id = "r1";
    room.room.zone_id = "z1";
    room.room.created_on = wr::test::k_test_start + 1s;
    room.room.modified_on = wr::test::k_test_start + 2500ms;
    wr::model::RoomSettings& s = room.room.settings;
    s.name = "shop";
    s.description = "the shop";
    s.host = "Shop.Example.com";
    s.path = "/shop";
    s.additional_routes = {{"m.example.com", "/"}, {"shop.example.com", "/basket"}};
    s.total_active_users = 5000;
    s.new_users_per_minute = 700;
    s.session_duration = 12;
    s.disable_session_renewal = true;
    s.queue_all = true;
    s.queueing_method = wr::model::QueueingMethod::random;
    s.queueing_status_code = 429;
    s.suspended = true;
    s.json_response_enabled = true;
    s.cookie_suffix = "shop_1";
    s.cookie_attributes = {wr::model::SameSite::lax, wr::model::SecureAttribute::never};
    s.custom_page_html = "<p>{{waitTime}} \"é\"</p>";
    s.default_template_language = "de-DE";
    s.revoke_origin_command = true;
    s.turnstile_mode = wr::model::TurnstileMode::visible_managed;
    s.turnstile_action = wr::model::TurnstileAction::infinite_queue;
    s.join_limit_per_ip_per_minute = 30;
    // 0.07 has no exact binary form: the text must carry enough digits to come back the same.
    s.origin_guard = {.enabled = true, .target_ttfb_ms = 750, .max_error_rate = 0.07, .min_new_users_per_minute = 350};

    wr::model::Event& event = room.events.emplace_back();
    event.id = "e1";
    event.room_id = "r1";
    event.created_on = wr::test::k_test_start + 3s;
    event.modified_on = wr::test::k_test_start + 4s;
    event.settings.name = "launch";
    event.settings.description = "the launch";
    event.settings.event_start_time = at("2026-12-01T11:00:00+01:00");
    event.settings.event_end_time = at("2026-12-01T12:00:00Z");
    event.settings.prequeue_start_time = at("2026-12-01T09:00:00.000Z");
    event.settings.shuffle_at_event_start = true;
    event.settings.suspended = true;
    event.settings.total_active_users = 2000;
    event.settings.new_users_per_minute = 400;
    event.settings.session_duration = 7;
    event.settings.queueing_method = wr::model::QueueingMethod::passthrough;
    event.settings.disable_session_renewal = false;
    event.settings.custom_page_html = "<p>event</p>";
    event.settings.turnstile_mode = wr::model::TurnstileMode::off;
    event.settings.turnstile_action = wr::model::TurnstileAction::log;
    wr::model::Event& plain = room.events.emplace_back();
    plain.id = "e2";
    plain.room_id = "r1";
    plain.settings.name = "later";
    plain.settings.event_start_time = at("2026-12-02T11:00:00Z");
    plain.settings.event_end_time = at("2026-12-02T12:00:00Z");

    wr::model::Rule& rule = room.rules.emplace_back();
    rule.id = "u1";
    rule.version = 7;
    rule.last_updated = wr::test::k_test_start + 5s;
    rule.settings.expression = R"(starts_with(http.request.uri.path, "/static/"))";
    rule.settings.description = "assets";
    rule.settings.enabled = false;

    wr::model::ZoneDocument& empty_zone = document.zones.emplace_back();
    empty_zone.zone.id = "z2";
    empty_zone.zone.settings = {"other.com", "http://127.0.0.1:4000"};
    return document;
}

} // namespace

TEST_CASE("model::config document: JSON round trip keeps every record and field") {
    const wr::model::ConfigDocument original = full_document();
    const json written = wr::model::config_document_to_json(original);
    // Through text, as it travels.
    const json parsed = json::parse(written.dump());
    wr::model::ConfigDocument read;
    const wr::model::FieldErrors errors = wr::model::read_config_document(parsed, read);
    REQUIRE(errors.empty());
    REQUIRE(read.zones.size() == 2);
    const wr::model::ZoneDocument& zone = read.zones[0];
    CHECK(zone.zone.id == "z1");
    CHECK(zone.zone.settings == original.zones[0].zone.settings);
    CHECK(zone.zone.settings.max_origin_connections == 64); // spelt out: the edge's connection cap depends on it
    CHECK(zone.zone.settings.origin_queue_timeout_seconds == 25);
    CHECK(zone.zone.created_on == original.zones[0].zone.created_on);
    CHECK(zone.zone.modified_on == original.zones[0].zone.modified_on);
    CHECK(zone.room_settings == original.zones[0].room_settings);
    REQUIRE(zone.rooms.size() == 1);
    const wr::model::RoomDocument& room = zone.rooms[0];
    const wr::model::RoomDocument& expected_room = original.zones[0].rooms[0];
    CHECK(room.room.id == "r1");
    CHECK(room.room.zone_id == "z1");
    CHECK(room.room.settings == expected_room.room.settings);
    CHECK(room.room.settings.origin_guard == expected_room.room.settings.origin_guard);
    CHECK(room.room.created_on == expected_room.room.created_on);
    CHECK(room.room.modified_on == expected_room.room.modified_on);
    REQUIRE(room.events.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(room.events[i].id == expected_room.events[i].id);
        CHECK(room.events[i].room_id == expected_room.events[i].room_id);
        CHECK(room.events[i].settings == expected_room.events[i].settings);
        // Timestamp compares its text; the instant must come back too.
        CHECK(room.events[i].settings.event_start_time.time == expected_room.events[i].settings.event_start_time.time);
        CHECK(room.events[i].created_on == expected_room.events[i].created_on);
        CHECK(room.events[i].modified_on == expected_room.events[i].modified_on);
    }
    CHECK(room.events[0].settings.prequeue_start_time->time == expected_room.events[0].settings.prequeue_start_time->time);
    REQUIRE(room.rules.size() == 1);
    CHECK(room.rules[0].id == "u1");
    CHECK(room.rules[0].version == 7);
    CHECK(room.rules[0].last_updated == expected_room.rules[0].last_updated);
    CHECK(room.rules[0].settings == expected_room.rules[0].settings);
    CHECK(read.zones[1].zone.settings == original.zones[1].zone.settings);
    CHECK(read.zones[1].rooms.empty());
    // And the second trip writes the same text.
    CHECK(wr::model::config_document_to_json(read) == written);
}

TEST_CASE("model::config document: a bad document names where, and changes nothing") {
    const json good = wr::model::config_document_to_json(full_document());
    struct Case {
        const char* name;
        json document;
        std::string error;
    };
    json no_host = good;
    no_host["zones"][0]["waiting_rooms"][0]["settings"].erase("host");
    json bad_version = good;
    bad_version["zones"][0]["waiting_rooms"][0]["rules"][0]["version"] = "7";
    json bad_event = good;
    bad_event["zones"][0]["waiting_rooms"][0]["events"][1]["settings"]["event_end_time"] = "soon";
    json newer = good;
    newer["format"] = 2;
    json no_zones = good;
    no_zones.erase("zones");
    const Case cases[] = {
        {"a room without host", no_host, "zones[0].waiting_rooms[0].settings.host: is required"},
        {"a rule version as text", bad_version, "zones[0].waiting_rooms[0].rules[0].version: must be an integer"},
        {"an event time that is no time", bad_event,
         "zones[0].waiting_rooms[0].events[1].settings.event_end_time: must be an ISO 8601 date-time with a time zone, such as 2026-11-22T10:00:00.000Z"},
        {"a newer format", newer, "format: is 2, but this wr reads format 1 (upgrade the edge to the control node's version)"},
        {"no zones", no_zones, "zones: must be an array"},
        {"not an object", json::array(), "must be an object"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        wr::model::ConfigDocument document = full_document();
        const wr::model::FieldErrors errors = wr::model::read_config_document(c.document, document);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].text() == c.error);
        CHECK(wr::model::config_document_to_json(document) == good); // unchanged
    }
}
