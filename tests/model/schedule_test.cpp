// Which event governs a room at an instant, and the settings in force then.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/schedule.h"
#include "support/test_server.h"
#include "util/time_format.h"

using namespace std::chrono_literals;
using wr::model::Event;
using wr::model::EventSettings;
using wr::model::RoomSettings;
using wr::util::TimePoint;

namespace {

TimePoint time_of(const std::string& text) {
    const auto time = wr::util::parse_iso8601(text);
    REQUIRE_MESSAGE(time, text);
    return *time;
}

Event event_named(const std::string& id, const std::string& start, const std::string& end, const std::string& prequeue = "",
                 bool suspended = false) {
    Event event;
    event.id = id;
    event.room_id = "room";
    event.settings.name = id;
    event.settings.event_start_time = {start, time_of(start)};
    event.settings.event_end_time = {end, time_of(end)};
    if (!prequeue.empty()) event.settings.prequeue_start_time = wr::model::Timestamp{prequeue, time_of(prequeue)};
    event.settings.suspended = suspended;
    return event;
}

// morning 10:00–11:00; noon with a prequeue 12:00, start 12:30, end 13:00; afternoon 14:00–15:00
// suspended; evening 18:00–19:00. Listed out of order on purpose.
std::vector<Event> day() {
    return {
        event_named("evening", "2026-12-01T18:00:00Z", "2026-12-01T19:00:00Z"),
        event_named("afternoon", "2026-12-01T14:00:00Z", "2026-12-01T15:00:00Z", "", true),
        event_named("noon", "2026-12-01T12:30:00Z", "2026-12-01T13:00:00Z", "2026-12-01T12:00:00Z"),
        event_named("morning", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"),
    };
}

std::string id_of(const Event* event) { return event ? event->id : "none"; }

} // namespace

TEST_CASE("model::active_event finds the non-suspended event whose half-open window holds now") {
    const std::vector<Event> events = day();
    struct Case {
        const char* now;
        const char* expected;
    };
    const Case cases[] = {
        {"2026-12-01T09:59:59.999Z", "none"},
        {"2026-12-01T10:00:00.000Z", "morning"}, // the start is inside
        {"2026-12-01T10:59:59.999Z", "morning"},
        {"2026-12-01T11:00:00.000Z", "none"}, // the end is not
        {"2026-12-01T11:59:59.999Z", "none"},
        {"2026-12-01T12:00:00.000Z", "noon"}, // the prequeue counts
        {"2026-12-01T12:30:00.000Z", "noon"},
        {"2026-12-01T12:59:59.999Z", "noon"},
        {"2026-12-01T13:00:00.000Z", "none"},
        {"2026-12-01T14:30:00.000Z", "none"}, // afternoon is suspended
        {"2026-12-01T18:00:00.000Z", "evening"},
        {"2026-12-01T19:00:00.000Z", "none"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.now);
        CHECK(id_of(wr::model::active_event(events, time_of(c.now))) == c.expected);
    }
    CHECK(wr::model::active_event({}, time_of("2026-12-01T10:00:00Z")) == nullptr);
}

TEST_CASE("model::next_event finds the earliest non-suspended event that has not ended") {
    const std::vector<Event> events = day();
    struct Case {
        const char* now;
        const char* expected;
    };
    const Case cases[] = {
        {"2026-11-22T10:00:00Z", "morning"},
        {"2026-12-01T10:30:00Z", "morning"}, // running counts
        {"2026-12-01T10:59:59.999Z", "morning"},
        {"2026-12-01T11:00:00Z", "noon"},
        {"2026-12-01T12:15:00Z", "noon"}, // prequeueing
        {"2026-12-01T13:00:00Z", "evening"}, // afternoon is suspended
        {"2026-12-01T18:59:59.999Z", "evening"},
        {"2026-12-01T19:00:00Z", "none"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.now);
        CHECK(id_of(wr::model::next_event(events, time_of(c.now))) == c.expected);
    }
    CHECK(wr::model::next_event({}, time_of("2026-12-01T10:00:00Z")) == nullptr);
}

TEST_CASE("model::is_prequeueing is true from the prequeue start until the event start") {
    const Event noon = event_named("noon", "2026-12-01T12:30:00Z", "2026-12-01T13:00:00Z", "2026-12-01T12:00:00Z");
    CHECK_FALSE(wr::model::is_prequeueing(noon.settings, time_of("2026-12-01T11:59:59.999Z")));
    CHECK(wr::model::is_prequeueing(noon.settings, time_of("2026-12-01T12:00:00Z")));
    CHECK(wr::model::is_prequeueing(noon.settings, time_of("2026-12-01T12:29:59.999Z")));
    CHECK_FALSE(wr::model::is_prequeueing(noon.settings, time_of("2026-12-01T12:30:00Z")));
    CHECK_FALSE(wr::model::is_prequeueing(noon.settings, time_of("2026-12-01T12:45:00Z")));

    const Event morning = event_named("morning", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z");
    CHECK_FALSE(wr::model::is_prequeueing(morning.settings, time_of("2026-12-01T09:59:00Z")));
    CHECK_FALSE(wr::model::is_prequeueing(morning.settings, time_of("2026-12-01T10:00:00Z")));
}

TEST_CASE("model::effective_settings applies the event's overrides and keeps the rest of the room") {
    RoomSettings room;
    room.name = "shop";
    room.host = "shop.example.com";
    room.total_active_users = 1000;
    room.new_users_per_minute = 300;
    room.session_duration = 10;
    room.disable_session_renewal = true;
    room.queue_all = true;
    room.custom_page_html = "<p>room</p>";

    CHECK(wr::model::effective_settings(room, nullptr) == room);
    EventSettings none;
    CHECK(wr::model::effective_settings(room, &none) == room);

    EventSettings all;
    all.total_active_users = 5000;
    all.new_users_per_minute = 2000;
    all.session_duration = 2;
    all.queueing_method = wr::model::QueueingMethod::random;
    all.disable_session_renewal = false;
    all.custom_page_html = "";
    all.turnstile_mode = wr::model::TurnstileMode::off;
    all.turnstile_action = wr::model::TurnstileAction::infinite_queue;
    RoomSettings expected = room;
    expected.total_active_users = 5000;
    expected.new_users_per_minute = 2000;
    expected.session_duration = 2;
    expected.queueing_method = wr::model::QueueingMethod::random;
    expected.disable_session_renewal = false; // an override of false is applied, not skipped
    expected.custom_page_html = "";
    expected.turnstile_mode = wr::model::TurnstileMode::off;
    expected.turnstile_action = wr::model::TurnstileAction::infinite_queue;
    CHECK(wr::model::effective_settings(room, &all) == expected);

    EventSettings some;
    some.session_duration = 20;
    RoomSettings partly = room;
    partly.session_duration = 20;
    CHECK(wr::model::effective_settings(room, &some) == partly);
}

TEST_CASE("model::active_event with effective_settings: a suspended event changes nothing") {
    RoomSettings room;
    room.total_active_users = 1000;
    room.new_users_per_minute = 300;
    std::vector<Event> events = {event_named("sale", "2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z")};
    events[0].settings.total_active_users = 200;
    events[0].settings.new_users_per_minute = 200;
    const TimePoint during = time_of("2026-12-01T10:30:00Z");

    const Event* running = wr::model::active_event(events, during);
    REQUIRE(running);
    CHECK(wr::model::effective_settings(room, &running->settings).total_active_users == 200);

    events[0].settings.suspended = true;
    const Event* suspended = wr::model::active_event(events, during);
    CHECK(suspended == nullptr);
    CHECK(wr::model::effective_settings(room, suspended ? &suspended->settings : nullptr) == room);
}
