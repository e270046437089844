// Reading request bodies into settings (create, replace and patch) and writing records back:
// wrong types, nulls, omissions, zero values, nested errors, and exact round trips.
#include <doctest/doctest.h>

#include <string>

#include "model/json_codec.h"
#include "model/validate.h"
#include "support/field_errors.h"
#include "support/test_server.h"
#include "support/timestamps.h"
#include "util/time_format.h"

using nlohmann::json;
using namespace std::chrono_literals;
using wr::model::BodyMode;
using wr::model::EventSettings;
using wr::model::FieldErrors;
using wr::model::RoomSettings;
using wr::test::at;
using wr::test::describe;

namespace {

const json k_room_body = {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000}, {"new_users_per_minute", 300}};

// A room with every field away from its default.
RoomSettings custom_room() {
    RoomSettings s;
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
    s.custom_page_html = "<p>{{waitTime}}</p>";
    s.default_template_language = "de-DE";
    s.revoke_origin_command = true;
    s.turnstile_mode = wr::model::TurnstileMode::visible_managed;
    s.turnstile_action = wr::model::TurnstileAction::infinite_queue;
    s.join_limit_per_ip_per_minute = 30;
    s.origin_guard = {.enabled = true, .target_ttfb_ms = 800, .max_error_rate = 0.125, .min_new_users_per_minute = 70};
    return s;
}

// An event with every override set.
EventSettings custom_event() {
    EventSettings s;
    s.name = "launch";
    s.description = "the launch";
    s.event_start_time = at("2026-12-01T11:00:00+01:00");
    s.event_end_time = at("2026-12-01T12:00:00Z");
    s.prequeue_start_time = at("2026-12-01T09:00:00.000Z");
    s.shuffle_at_event_start = true;
    s.suspended = true;
    s.total_active_users = 2000;
    s.new_users_per_minute = 400;
    s.session_duration = 7;
    s.queueing_method = wr::model::QueueingMethod::passthrough;
    s.disable_session_renewal = false;
    s.custom_page_html = "<p>event</p>";
    s.turnstile_mode = wr::model::TurnstileMode::off;
    s.turnstile_action = wr::model::TurnstileAction::log;
    return s;
}

json with(json body, const std::string& key, json value) {
    body[key] = std::move(value);
    return body;
}

} // namespace

TEST_CASE("model::read_room_settings names the field of each wrong type") {
    struct Case {
        const char* key;
        json value;
        std::string error;
    };
    const Case cases[] = {
        {"name", 5, "name: must be a string"},
        {"description", true, "description: must be a string"},
        {"host", json::array(), "host: must be a string"},
        {"path", 1, "path: must be a string"},
        {"additional_routes", "m.example.com", "additional_routes: must be an array of {host, path} objects"},
        {"additional_routes", {{"host", "m.example.com"}}, "additional_routes: must be an array of {host, path} objects"},
        {"additional_routes", json::array({{{"host", "m.example.com"}}, 5}),
         "additional_routes[1]: must be an object with host and path"},
        {"additional_routes", json::array({{{"host", "m.example.com"}}, {{"path", "/x"}}}),
         "additional_routes[1].host: is required"},
        {"additional_routes", json::array({{{"host", "m.example.com"}}, {{"host", nullptr}}}),
         "additional_routes[1].host: is required"},
        {"additional_routes", json::array({{{"host", "m.example.com"}}, {{"host", 5}}}),
         "additional_routes[1].host: must be a string"},
        {"additional_routes", json::array({{{"host", "m.example.com"}, {"path", 3}}}),
         "additional_routes[0].path: must be a string"},
        {"total_active_users", "1000", "total_active_users: must be an integer"},
        {"total_active_users", 1000.5, "total_active_users: must be an integer"},
        {"total_active_users", true, "total_active_users: must be an integer"},
        {"total_active_users", 1e20, "total_active_users: must be an integer"},
        {"total_active_users", 18446744073709551615ULL, "total_active_users: is out of range"},
        {"total_active_users", nullptr, "total_active_users: is required"},
        {"new_users_per_minute", json::object(), "new_users_per_minute: must be an integer"},
        {"new_users_per_minute", nullptr, "new_users_per_minute: is required"},
        {"session_duration", "5", "session_duration: must be an integer"},
        {"disable_session_renewal", "yes", "disable_session_renewal: must be true or false"},
        {"queue_all", 1, "queue_all: must be true or false"},
        {"queueing_method", "lifo", "queueing_method: must be one of fifo, random, passthrough, reject"},
        {"queueing_method", 1, "queueing_method: must be one of fifo, random, passthrough, reject"},
        {"queueing_method", "FIFO", "queueing_method: must be one of fifo, random, passthrough, reject"},
        {"queueing_status_code", "200", "queueing_status_code: must be an integer"},
        {"suspended", "false", "suspended: must be true or false"},
        {"json_response_enabled", 0, "json_response_enabled: must be true or false"},
        {"cookie_suffix", 1, "cookie_suffix: must be a string"},
        {"cookie_attributes", "lax", "cookie_attributes: must be an object with samesite and secure"},
        {"cookie_attributes", {{"samesite", "loose"}}, "cookie_attributes.samesite: must be one of auto, lax, none, strict"},
        {"cookie_attributes", {{"secure", true}}, "cookie_attributes.secure: must be one of auto, always, never"},
        {"custom_page_html", 1, "custom_page_html: must be a string"},
        {"default_template_language", json::array({"en-US"}), "default_template_language: must be a string"},
        {"enabled_origin_commands", "revoke", "enabled_origin_commands: must be an array (the only command is \"revoke\")"},
        {"enabled_origin_commands", json::array({"revoke", "purge"}),
         "enabled_origin_commands[1]: must be \"revoke\", the only origin command"},
        {"enabled_origin_commands", json::array({1}), "enabled_origin_commands[0]: must be \"revoke\", the only origin command"},
        {"turnstile_mode", "on", "turnstile_mode: must be one of off, invisible, visible_non_interactive, visible_managed"},
        {"turnstile_action", "block", "turnstile_action: must be one of log, infinite_queue"},
        {"origin_guard", true,
         "origin_guard: must be an object with enabled, target_ttfb_ms, max_error_rate and min_new_users_per_minute"},
        {"origin_guard", json::array(),
         "origin_guard: must be an object with enabled, target_ttfb_ms, max_error_rate and min_new_users_per_minute"},
        {"origin_guard", {{"enabled", "on"}}, "origin_guard.enabled: must be true or false"},
        {"origin_guard", {{"target_ttfb_ms", 500.5}}, "origin_guard.target_ttfb_ms: must be an integer"},
        {"origin_guard", {{"target_ttfb_ms", "500"}}, "origin_guard.target_ttfb_ms: must be an integer"},
        {"origin_guard", {{"max_error_rate", "5%"}}, "origin_guard.max_error_rate: must be a number"},
        {"origin_guard", {{"max_error_rate", false}}, "origin_guard.max_error_rate: must be a number"},
        {"origin_guard", {{"min_new_users_per_minute", 1.5}}, "origin_guard.min_new_users_per_minute: must be an integer"},
        {"origin_guard", {{"target_ttfb", 500}},
         "origin_guard.target_ttfb: is not a field of origin_guard (its fields are enabled, target_ttfb_ms, max_error_rate, "
         "min_new_users_per_minute)"},
        {"name", "", "name: is required"},
        {"host", nullptr, "host: is required"},
    };
    for (const BodyMode mode : {BodyMode::create, BodyMode::replace, BodyMode::patch}) {
        for (const Case& c : cases) {
            CAPTURE(static_cast<int>(mode));
            CAPTURE(c.key);
            CAPTURE(c.value.dump());
            RoomSettings settings = mode == BodyMode::patch ? custom_room() : RoomSettings{};
            const FieldErrors errors = wr::model::read_room_settings(with(k_room_body, c.key, c.value), mode, settings);
            CHECK(describe(errors) == "[" + c.error + "]");
        }
    }
}

TEST_CASE("model::read_room_settings wants the required fields on create and replace, not on patch") {
    const std::string missing = "[name: is required][host: is required][total_active_users: is required]"
                                "[new_users_per_minute: is required]";
    for (const BodyMode mode : {BodyMode::create, BodyMode::replace}) {
        RoomSettings settings;
        CHECK(describe(wr::model::read_room_settings(json::object(), mode, settings)) == missing);
    }
    RoomSettings patched = custom_room();
    CHECK(wr::model::read_room_settings(json::object(), BodyMode::patch, patched).empty());
    CHECK(patched == custom_room());

    RoomSettings settings;
    CHECK(describe(wr::model::read_room_settings(json::array(), BodyMode::create, settings)) ==
          "[the request body must be a JSON object]");
    CHECK(describe(wr::model::read_room_settings("shop", BodyMode::patch, settings)) == "[the request body must be a JSON object]");
}

TEST_CASE("model::read_room_settings fills omitted fields with the defaults on create and replace") {
    for (const BodyMode mode : {BodyMode::create, BodyMode::replace}) {
        CAPTURE(static_cast<int>(mode));
        RoomSettings settings;
        REQUIRE(wr::model::read_room_settings(k_room_body, mode, settings).empty());
        RoomSettings expected;
        expected.name = "shop";
        expected.host = "shop.example.com";
        expected.total_active_users = 1000;
        expected.new_users_per_minute = 300;
        CHECK(settings == expected);
        CHECK(settings.path == "/");
        CHECK(settings.session_duration == 5);
        CHECK(settings.queueing_status_code == 200);
        CHECK(settings.default_template_language == "en-US");
        CHECK(settings.turnstile_mode == wr::model::TurnstileMode::invisible);
        CHECK(settings.cookie_attributes == wr::model::CookieAttributes{});
    }
}

TEST_CASE("model::read_room_settings on patch changes only what the body names") {
    RoomSettings settings = custom_room();
    REQUIRE(wr::model::read_room_settings({{"description", "new"}, {"session_duration", 20}, {"id", "ignored"},
                                           {"created_on", "ignored"}, {"next_event_start_time", "ignored"}},
                                          BodyMode::patch, settings)
                .empty());
    RoomSettings expected = custom_room();
    expected.description = "new";
    expected.session_duration = 20;
    CHECK(settings == expected);
}

TEST_CASE("model::read_room_settings resets a room field to its default on null") {
    const json nulls = {{"description", nullptr},
                        {"path", nullptr},
                        {"additional_routes", nullptr},
                        {"session_duration", nullptr},
                        {"disable_session_renewal", nullptr},
                        {"queue_all", nullptr},
                        {"queueing_method", nullptr},
                        {"queueing_status_code", nullptr},
                        {"suspended", nullptr},
                        {"json_response_enabled", nullptr},
                        {"cookie_suffix", nullptr},
                        {"cookie_attributes", nullptr},
                        {"custom_page_html", nullptr},
                        {"default_template_language", nullptr},
                        {"enabled_origin_commands", nullptr},
                        {"turnstile_mode", nullptr},
                        {"turnstile_action", nullptr},
                        {"join_limit_per_ip_per_minute", nullptr},
                        {"origin_guard", nullptr}};
    RoomSettings settings = custom_room();
    REQUIRE(describe(wr::model::read_room_settings(nulls, BodyMode::patch, settings)) == "");
    RoomSettings expected;
    expected.name = "shop";
    expected.host = "Shop.Example.com";
    expected.total_active_users = 5000;
    expected.new_users_per_minute = 700;
    CHECK(settings == expected);

    // The nested attributes reset one by one too.
    settings = custom_room();
    REQUIRE(wr::model::read_room_settings({{"cookie_attributes", {{"samesite", nullptr}}}}, BodyMode::patch, settings).empty());
    CHECK(settings.cookie_attributes.samesite == wr::model::SameSite::automatic);
    CHECK(settings.cookie_attributes.secure == wr::model::SecureAttribute::never);
}

TEST_CASE("model::read_room_settings takes zero session_duration and queueing_status_code and an empty path as the default") {
    for (const BodyMode mode : {BodyMode::create, BodyMode::replace, BodyMode::patch}) {
        CAPTURE(static_cast<int>(mode));
        RoomSettings settings = mode == BodyMode::patch ? custom_room() : RoomSettings{};
        json body = k_room_body;
        body["session_duration"] = 0;
        body["queueing_status_code"] = 0;
        body["path"] = "";
        body["additional_routes"] = json::array({{{"host", "m.example.com"}, {"path", ""}}, {{"host", "n.example.com"}}});
        REQUIRE(describe(wr::model::read_room_settings(body, mode, settings)) == "");
        CHECK(settings.session_duration == 5);
        CHECK(settings.queueing_status_code == 200);
        CHECK(settings.path == "/");
        const std::vector<wr::model::Route> routes = {{"m.example.com", "/"}, {"n.example.com", "/"}};
        CHECK(settings.additional_routes == routes);
    }
}

TEST_CASE("model::read_room_settings accepts integral floats, as JavaScript sends them") {
    RoomSettings settings;
    json body = k_room_body;
    body["total_active_users"] = 1000.0;
    body["new_users_per_minute"] = 250.0;
    body["session_duration"] = 10.0;
    body["queueing_status_code"] = 202.0;
    REQUIRE(describe(wr::model::read_room_settings(body, BodyMode::create, settings)) == "");
    CHECK(settings.total_active_users == 1000);
    CHECK(settings.new_users_per_minute == 250);
    CHECK(settings.session_duration == 10);
    CHECK(settings.queueing_status_code == 202);
}

TEST_CASE("model::read_room_settings leaves integers beyond int to validation, which names the field") {
    RoomSettings settings;
    json body = k_room_body;
    body["session_duration"] = 4294967301LL; // 2^32 + 5 must not wrap around to 5
    body["queueing_status_code"] = -4294967096LL;
    REQUIRE(wr::model::read_room_settings(body, BodyMode::create, settings).empty());
    CHECK(describe(wr::model::validate_room(settings, "example.com")) ==
          "[session_duration: must be between 1 and 30 minutes][queueing_status_code: must be 200, 202 or 429]");
}

TEST_CASE("model::read_room_settings reads cookie_attributes: patch keeps an omitted attribute, create and replace default it") {
    RoomSettings patched = custom_room(); // lax, never
    REQUIRE(wr::model::read_room_settings({{"cookie_attributes", {{"secure", "always"}}}}, BodyMode::patch, patched).empty());
    CHECK(patched.cookie_attributes == wr::model::CookieAttributes{wr::model::SameSite::lax, wr::model::SecureAttribute::always});

    for (const BodyMode mode : {BodyMode::create, BodyMode::replace}) {
        RoomSettings settings = custom_room();
        REQUIRE(wr::model::read_room_settings(with(k_room_body, "cookie_attributes", {{"secure", "always"}}), mode, settings)
                    .empty());
        CHECK(settings.cookie_attributes ==
              wr::model::CookieAttributes{wr::model::SameSite::automatic, wr::model::SecureAttribute::always});
    }

    RoomSettings all;
    REQUIRE(wr::model::read_room_settings(with(k_room_body, "cookie_attributes", {{"samesite", "strict"}, {"secure", "never"}}),
                                          BodyMode::create, all)
                .empty());
    CHECK(all.cookie_attributes == wr::model::CookieAttributes{wr::model::SameSite::strict, wr::model::SecureAttribute::never});
}

TEST_CASE("model::read_room_settings reads enabled_origin_commands") {
    struct Case {
        json value;
        bool revoke;
    };
    const Case cases[] = {{json::array({"revoke"}), true}, {json::array({"revoke", "revoke"}), true}, {json::array(), false}, {nullptr, false}};
    for (const Case& c : cases) {
        CAPTURE(c.value.dump());
        RoomSettings settings = custom_room();
        settings.revoke_origin_command = !c.revoke;
        REQUIRE(wr::model::read_room_settings({{"enabled_origin_commands", c.value}}, BodyMode::patch, settings).empty());
        CHECK(settings.revoke_origin_command == c.revoke);
    }
}

TEST_CASE("model::read_room_settings reports every wrong field at once") {
    RoomSettings settings;
    const json body = {{"name", 1}, {"host", "shop.example.com"}, {"total_active_users", "x"}, {"queue_all", "x"},
                       {"cookie_attributes", {{"samesite", 1}, {"secure", 2}}}};
    CHECK(describe(wr::model::read_room_settings(body, BodyMode::create, settings)) ==
          "[name: must be a string][total_active_users: must be an integer][new_users_per_minute: is required]"
          "[queue_all: must be true or false][cookie_attributes.samesite: must be one of auto, lax, none, strict]"
          "[cookie_attributes.secure: must be one of auto, always, never]");
}

TEST_CASE("model::to_json of a room reads back to the same settings") {
    for (const RoomSettings& original : {custom_room(), [] {
             RoomSettings defaults;
             defaults.name = "plain";
             defaults.host = "example.com";
             defaults.total_active_users = 200;
             defaults.new_users_per_minute = 200;
             return defaults;
         }()}) {
        CAPTURE(original.name);
        wr::model::Room room{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210", original,
                             wr::test::k_test_start, wr::test::k_test_start + 1min};
        const json written = wr::model::to_json(room, {});
        for (const BodyMode mode : {BodyMode::create, BodyMode::replace}) {
            RoomSettings read;
            REQUIRE(describe(wr::model::read_room_settings(written, mode, read)) == "");
            CHECK(read == original);
        }
        RoomSettings patched = custom_room();
        patched.name = "other";
        REQUIRE(wr::model::read_room_settings(written, BodyMode::patch, patched).empty());
        CHECK(patched == original);

        RoomSettings from_export;
        REQUIRE(wr::model::read_room_settings(wr::model::settings_to_json(original), BodyMode::replace, from_export).empty());
        CHECK(from_export == original);
    }
}

TEST_CASE("model::to_json of a room writes every field with its concrete value") {
    wr::model::Room room{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210", custom_room(),
                         wr::test::k_test_start, wr::test::k_test_start + 90s};
    const json written = wr::model::to_json(room, {});
    const json expected = {{"id", "0123456789abcdef0123456789abcdef"},
                           {"created_on", "2026-11-22T10:00:00.000Z"},
                           {"modified_on", "2026-11-22T10:01:30.000Z"},
                           {"next_event_prequeue_start_time", nullptr},
                           {"next_event_start_time", nullptr},
                           {"name", "shop"},
                           {"description", "the shop"},
                           {"host", "Shop.Example.com"},
                           {"path", "/shop"},
                           {"additional_routes",
                            json::array({{{"host", "m.example.com"}, {"path", "/"}}, {{"host", "shop.example.com"}, {"path", "/basket"}}})},
                           {"total_active_users", 5000},
                           {"new_users_per_minute", 700},
                           {"session_duration", 12},
                           {"disable_session_renewal", true},
                           {"queue_all", true},
                           {"queueing_method", "random"},
                           {"queueing_status_code", 429},
                           {"suspended", true},
                           {"json_response_enabled", true},
                           {"cookie_suffix", "shop_1"},
                           {"cookie_attributes", {{"samesite", "lax"}, {"secure", "never"}}},
                           {"custom_page_html", "<p>{{waitTime}}</p>"},
                           {"default_template_language", "de-DE"},
                           {"enabled_origin_commands", json::array({"revoke"})},
                           {"turnstile_mode", "visible_managed"},
                           {"turnstile_action", "infinite_queue"},
                           {"join_limit_per_ip_per_minute", 30},
                           {"origin_guard",
                            {{"enabled", true}, {"target_ttfb_ms", 800}, {"max_error_rate", 0.125}, {"min_new_users_per_minute", 70}}}};
    CHECK(written == expected);

    const json with_event = wr::model::to_json(room, {"2026-12-01T09:00:00Z", "2026-12-01T10:00:00+00:00"});
    CHECK(with_event["next_event_prequeue_start_time"] == "2026-12-01T09:00:00Z");
    CHECK(with_event["next_event_start_time"] == "2026-12-01T10:00:00+00:00");

    RoomSettings defaults;
    const json plain = wr::model::settings_to_json(defaults);
    CHECK(plain["additional_routes"] == json::array());
    CHECK(plain["enabled_origin_commands"] == json::array());
    CHECK(plain["cookie_attributes"] == json{{"samesite", "auto"}, {"secure", "auto"}});
    CHECK(plain["origin_guard"] ==
          json{{"enabled", false}, {"target_ttfb_ms", 500}, {"max_error_rate", 0.05}, {"min_new_users_per_minute", 0}});
    CHECK(plain["origin_guard"].dump() ==
          R"({"enabled":false,"max_error_rate":0.05,"min_new_users_per_minute":0,"target_ttfb_ms":500})");
    CHECK_FALSE(plain.contains("id"));
}

TEST_CASE("model::read_room_settings reads origin_guard: patch merges field by field, create and replace default the rest") {
    const wr::model::OriginGuardSettings stored = custom_room().origin_guard; // on, 800 ms, 0.125, 70
    const wr::model::OriginGuardSettings defaults;

    // PATCH: a partial object changes what it names; the room's other fields stay too.
    RoomSettings patched = custom_room();
    REQUIRE(describe(wr::model::read_room_settings({{"origin_guard", {{"target_ttfb_ms", 1200}}}}, BodyMode::patch, patched)) == "");
    RoomSettings expected = custom_room();
    expected.origin_guard.target_ttfb_ms = 1200;
    CHECK(patched == expected);
    REQUIRE(wr::model::read_room_settings({{"origin_guard", {{"enabled", false}, {"max_error_rate", 1}}}}, BodyMode::patch, patched)
                .empty());
    CHECK(patched.origin_guard ==
          wr::model::OriginGuardSettings{.enabled = false, .target_ttfb_ms = 1200, .max_error_rate = 1.0, .min_new_users_per_minute = 70});
    // An empty object changes nothing; null inside resets that field; null for the object resets all.
    REQUIRE(wr::model::read_room_settings({{"origin_guard", json::object()}}, BodyMode::patch, patched).empty());
    CHECK(patched.origin_guard.target_ttfb_ms == 1200);
    REQUIRE(wr::model::read_room_settings({{"origin_guard", {{"target_ttfb_ms", nullptr}, {"min_new_users_per_minute", nullptr}}}},
                                          BodyMode::patch, patched)
                .empty());
    CHECK(patched.origin_guard ==
          wr::model::OriginGuardSettings{.enabled = false, .target_ttfb_ms = 500, .max_error_rate = 1.0, .min_new_users_per_minute = 0});
    patched = custom_room();
    REQUIRE(wr::model::read_room_settings({{"origin_guard", nullptr}}, BodyMode::patch, patched).empty());
    CHECK(patched.origin_guard == defaults);

    // Create and replace: what the object leaves out, or the body leaves out entirely, is the default.
    for (const BodyMode mode : {BodyMode::create, BodyMode::replace}) {
        CAPTURE(static_cast<int>(mode));
        RoomSettings settings;
        settings.origin_guard = stored; // a value already there is not kept: the object's omitted fields default
        REQUIRE(wr::model::read_room_settings(with(k_room_body, "origin_guard", {{"enabled", true}}), mode, settings).empty());
        CHECK(settings.origin_guard == wr::model::OriginGuardSettings{.enabled = true});
        RoomSettings omitted;
        REQUIRE(wr::model::read_room_settings(k_room_body, mode, omitted).empty());
        CHECK(omitted.origin_guard == defaults);
    }

    // Numbers as JavaScript sends them: 0.05, 1, 1000.0.
    RoomSettings numbers = custom_room();
    REQUIRE(wr::model::read_room_settings({{"origin_guard", {{"max_error_rate", 0}, {"target_ttfb_ms", 1000.0}}}}, BodyMode::patch,
                                          numbers)
                .empty());
    CHECK(numbers.origin_guard.max_error_rate == 0.0);
    CHECK(numbers.origin_guard.target_ttfb_ms == 1000);

    // Every unknown field is named, with the wrong types beside them, and nothing is half-applied
    // by the API (it refuses the whole body).
    RoomSettings refused = custom_room();
    CHECK(describe(wr::model::read_room_settings({{"origin_guard", {{"enable", true}, {"target_ms", 9}, {"max_error_rate", "x"}}}},
                                                 BodyMode::patch, refused)) ==
          "[origin_guard.enable: is not a field of origin_guard (its fields are enabled, target_ttfb_ms, max_error_rate, "
          "min_new_users_per_minute)][origin_guard.target_ms: is not a field of origin_guard (its fields are enabled, "
          "target_ttfb_ms, max_error_rate, min_new_users_per_minute)][origin_guard.max_error_rate: must be a number]");

    // A target beyond int is left to validation, which names it.
    RoomSettings huge = custom_room();
    REQUIRE(wr::model::read_room_settings({{"origin_guard", {{"target_ttfb_ms", 4294967796LL}}}}, BodyMode::patch, huge).empty());
    CHECK(describe(wr::model::validate_room(huge, "example.com")) == "[origin_guard.target_ttfb_ms: must be between 50 and 60000]");
}

TEST_CASE("model::read_event_settings keeps times as given and names wrong types") {
    const json body = {{"name", "launch"},
                       {"event_start_time", "2026-12-01T11:00:00+01:00"},
                       {"event_end_time", "2026-12-01T12:00:00Z"}};
    EventSettings settings;
    REQUIRE(wr::model::read_event_settings(body, BodyMode::create, settings).empty());
    CHECK(settings.event_start_time.text == "2026-12-01T11:00:00+01:00");
    CHECK(settings.event_end_time.text == "2026-12-01T12:00:00Z");
    CHECK(wr::util::format_iso8601(settings.event_start_time.time) == "2026-12-01T10:00:00.000Z");
    CHECK(settings.event_end_time.time - settings.event_start_time.time == 2h);
    CHECK_FALSE(settings.prequeue_start_time);
    CHECK_FALSE(settings.total_active_users);

    const std::string bad_time = "must be an ISO 8601 date-time with a time zone, such as 2026-11-22T10:00:00.000Z";
    struct Case {
        const char* key;
        json value;
        std::string error;
    };
    const Case cases[] = {
        {"name", 1, "name: must be a string"},
        {"name", nullptr, "name: is required"},
        {"description", false, "description: must be a string"},
        {"event_start_time", "tomorrow", "event_start_time: " + bad_time},
        {"event_start_time", "2026-12-01T10:00:00", "event_start_time: " + bad_time},
        {"event_start_time", 1764583200, "event_start_time: " + bad_time},
        {"event_start_time", nullptr, "event_start_time: is required"},
        {"event_end_time", "2026-02-30T10:00:00Z", "event_end_time: " + bad_time},
        {"prequeue_start_time", "soon", "prequeue_start_time: " + bad_time},
        {"shuffle_at_event_start", "yes", "shuffle_at_event_start: must be true or false"},
        {"suspended", 1, "suspended: must be true or false"},
        {"total_active_users", "1000", "total_active_users: must be an integer"},
        {"new_users_per_minute", 2.5, "new_users_per_minute: must be an integer"},
        {"session_duration", true, "session_duration: must be an integer"},
        {"queueing_method", "lifo", "queueing_method: must be one of fifo, random, passthrough, reject"},
        {"disable_session_renewal", "no", "disable_session_renewal: must be true, false or null"},
        {"custom_page_html", 1, "custom_page_html: must be a string or null"},
        {"turnstile_mode", "on", "turnstile_mode: must be one of off, invisible, visible_non_interactive, visible_managed"},
        {"turnstile_action", 0, "turnstile_action: must be one of log, infinite_queue"},
    };
    for (const BodyMode mode : {BodyMode::create, BodyMode::replace, BodyMode::patch}) {
        for (const Case& c : cases) {
            CAPTURE(static_cast<int>(mode));
            CAPTURE(c.key);
            CAPTURE(c.value.dump());
            EventSettings event = mode == BodyMode::patch ? custom_event() : EventSettings{};
            CHECK(describe(wr::model::read_event_settings(with(body, c.key, c.value), mode, event)) == "[" + c.error + "]");
        }
    }

    EventSettings empty;
    CHECK(describe(wr::model::read_event_settings(json::object(), BodyMode::create, empty)) ==
          "[name: is required][event_start_time: is required][event_end_time: is required]");
}

TEST_CASE("model::read_event_settings: null inherits, omitted keeps on patch, zero session_duration inherits") {
    const json nulls = {{"prequeue_start_time", nullptr},  {"total_active_users", nullptr}, {"new_users_per_minute", nullptr},
                        {"session_duration", nullptr},     {"queueing_method", nullptr},    {"disable_session_renewal", nullptr},
                        {"custom_page_html", nullptr},     {"turnstile_mode", nullptr},     {"turnstile_action", nullptr},
                        {"shuffle_at_event_start", nullptr}, {"suspended", nullptr},        {"description", nullptr}};
    EventSettings settings = custom_event();
    REQUIRE(describe(wr::model::read_event_settings(nulls, BodyMode::patch, settings)) == "");
    EventSettings expected;
    expected.name = "launch";
    expected.event_start_time = custom_event().event_start_time;
    expected.event_end_time = custom_event().event_end_time;
    CHECK(settings == expected);
    CHECK_FALSE(settings.total_active_users.has_value());
    CHECK_FALSE(settings.custom_page_html.has_value());

    EventSettings kept = custom_event();
    REQUIRE(wr::model::read_event_settings({{"description", "changed"}}, BodyMode::patch, kept).empty());
    EventSettings changed = custom_event();
    changed.description = "changed";
    CHECK(kept == changed);
    CHECK(kept.total_active_users == 2000);

    EventSettings zero = custom_event();
    REQUIRE(wr::model::read_event_settings({{"session_duration", 0}}, BodyMode::patch, zero).empty());
    CHECK_FALSE(zero.session_duration.has_value());

    // An override set to the room's own value is still an override, not an inherit.
    EventSettings explicit_false;
    REQUIRE(wr::model::read_event_settings(
                {{"name", "e"}, {"event_start_time", "2026-12-01T10:00:00Z"}, {"event_end_time", "2026-12-01T11:00:00Z"},
                 {"disable_session_renewal", false}, {"custom_page_html", ""}, {"session_duration", 5.0}},
                BodyMode::create, explicit_false)
                .empty());
    CHECK(explicit_false.disable_session_renewal == false);
    CHECK(explicit_false.custom_page_html == "");
    CHECK(explicit_false.session_duration == 5);
}

TEST_CASE("model::to_json of an event reads back to the same settings, times as given") {
    for (const EventSettings& original : {custom_event(), [] {
             EventSettings plain;
             plain.name = "plain";
             plain.event_start_time = at("2026-12-01T10:00:00.000Z");
             plain.event_end_time = at("2026-12-01T10:01:00.000Z");
             return plain;
         }()}) {
        CAPTURE(original.name);
        const wr::model::Event event{"0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210", original,
                                     wr::test::k_test_start, wr::test::k_test_start};
        const json written = wr::model::to_json(event);
        CHECK(written["event_start_time"] == original.event_start_time.text);
        CHECK(written["created_on"] == "2026-11-22T10:00:00.000Z");
        EventSettings read;
        REQUIRE(describe(wr::model::read_event_settings(written, BodyMode::replace, read)) == "");
        CHECK(read == original);
        // Timestamp equality looks at the text only; the instants must match as well.
        CHECK(read.event_start_time.time == original.event_start_time.time);
        CHECK(read.event_end_time.time == original.event_end_time.time);
        CHECK(read.prequeue_start_time.has_value() == original.prequeue_start_time.has_value());
        if (read.prequeue_start_time) CHECK(read.prequeue_start_time->time == original.prequeue_start_time->time);
    }
    const json plain = wr::model::settings_to_json(EventSettings{});
    for (const char* key : {"prequeue_start_time", "total_active_users", "new_users_per_minute", "session_duration",
                            "queueing_method", "disable_session_renewal", "custom_page_html", "turnstile_mode",
                            "turnstile_action"}) {
        CAPTURE(key);
        REQUIRE(plain.contains(key));
        CHECK(plain[key].is_null());
    }
}

TEST_CASE("model::event_details_to_json fills every unset override from the room") {
    const RoomSettings room = custom_room();
    EventSettings partial;
    partial.name = "launch";
    partial.event_start_time = at("2026-12-01T10:00:00Z");
    partial.event_end_time = at("2026-12-01T11:00:00Z");
    partial.session_duration = 3;
    partial.turnstile_action = wr::model::TurnstileAction::log;
    const wr::model::Event event{"0123456789abcdef0123456789abcdef", "r", partial, wr::test::k_test_start, wr::test::k_test_start};
    const json details = wr::model::event_details_to_json(event, room);
    CHECK(details["total_active_users"] == 5000);
    CHECK(details["new_users_per_minute"] == 700);
    CHECK(details["session_duration"] == 3);
    CHECK(details["queueing_method"] == "random");
    CHECK(details["disable_session_renewal"] == true);
    CHECK(details["custom_page_html"] == "<p>{{waitTime}}</p>");
    CHECK(details["turnstile_mode"] == "visible_managed");
    CHECK(details["turnstile_action"] == "log");
    CHECK(details["prequeue_start_time"].is_null()); // a time, not an override
    CHECK(details["id"] == "0123456789abcdef0123456789abcdef");
    CHECK(details["event_start_time"] == "2026-12-01T10:00:00Z");

    const wr::model::Event full{"0123456789abcdef0123456789abcdef", "r", custom_event(), wr::test::k_test_start,
                                wr::test::k_test_start};
    const json overridden = wr::model::event_details_to_json(full, room);
    CHECK(overridden["total_active_users"] == 2000);
    CHECK(overridden["new_users_per_minute"] == 400);
    CHECK(overridden["session_duration"] == 7);
    CHECK(overridden["queueing_method"] == "passthrough");
    CHECK(overridden["disable_session_renewal"] == false);
    CHECK(overridden["custom_page_html"] == "<p>event</p>");
    CHECK(overridden["turnstile_mode"] == "off");
    CHECK(overridden["turnstile_action"] == "log");
}

TEST_CASE("model::read_rule_settings defaults the action and enabled, and requires the expression") {
    wr::model::RuleSettings created;
    REQUIRE(wr::model::read_rule_settings({{"expression", "ip.src eq 10.0.0.1"}}, BodyMode::create, created).empty());
    CHECK(created.action == "bypass_waiting_room");
    CHECK(created.enabled);
    CHECK(created.description == "");

    struct Case {
        json body;
        std::string errors;
    };
    const Case cases[] = {
        {json::object(), "[expression: is required]"},
        {{{"expression", ""}}, "[expression: is required]"},
        {{{"expression", 1}}, "[expression: must be a string]"},
        {{{"expression", "x"}, {"action", 1}}, "[action: must be a string]"},
        {{{"expression", "x"}, {"enabled", "true"}}, "[enabled: must be true or false]"},
        {{{"expression", "x"}, {"description", json::array()}}, "[description: must be a string]"},
        {json::array({{{"expression", "x"}}}), "[the request body must be a JSON object]"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.body.dump());
        wr::model::RuleSettings settings;
        CHECK(describe(wr::model::read_rule_settings(c.body, BodyMode::create, settings)) == c.errors);
    }

    wr::model::RuleSettings stored;
    stored.expression = "http.host eq \"a\"";
    stored.description = "a";
    stored.enabled = false;
    REQUIRE(wr::model::read_rule_settings({{"description", "b"}, {"id", "x"}, {"version", "9"}}, BodyMode::patch, stored).empty());
    CHECK(stored.expression == "http.host eq \"a\"");
    CHECK(stored.description == "b");
    CHECK_FALSE(stored.enabled);
    REQUIRE(wr::model::read_rule_settings({{"enabled", nullptr}, {"action", nullptr}}, BodyMode::patch, stored).empty());
    CHECK(stored.enabled);
    CHECK(stored.action == "bypass_waiting_room");

    const wr::model::Rule rule{"0123456789abcdef0123456789abcdef", stored, 3, wr::test::k_test_start};
    const json written = wr::model::to_json(rule);
    CHECK(written == json{{"id", "0123456789abcdef0123456789abcdef"}, {"version", "3"}, {"last_updated", "2026-11-22T10:00:00.000Z"},
                          {"action", "bypass_waiting_room"}, {"expression", "http.host eq \"a\""}, {"description", "b"},
                          {"enabled", true}});
    wr::model::RuleSettings read;
    REQUIRE(wr::model::read_rule_settings(written, BodyMode::replace, read).empty());
    CHECK(read == stored);
}

TEST_CASE("model::read_zone_settings requires name and origin except on patch") {
    wr::model::ZoneSettings zone;
    CHECK(describe(wr::model::read_zone_settings(json::object(), BodyMode::create, zone)) ==
          "[name: is required][origin: is required]");
    CHECK(describe(wr::model::read_zone_settings({{"name", 5}, {"origin", nullptr}}, BodyMode::create, zone)) ==
          "[name: must be a string][origin: is required]");

    wr::model::ZoneSettings stored{"example.com", "http://127.0.0.1:3000"};
    REQUIRE(wr::model::read_zone_settings({{"origin", "http://10.0.0.1"}}, BodyMode::patch, stored).empty());
    CHECK(stored == wr::model::ZoneSettings{"example.com", "http://10.0.0.1"});
    CHECK(describe(wr::model::read_zone_settings({{"name", ""}}, BodyMode::patch, stored)) == "[name: is required]");
    CHECK(describe(wr::model::read_zone_settings({{"name", nullptr}}, BodyMode::patch, stored)) == "[name: is required]");

    // hosts: a list of names; a patch without it keeps it, null or a replace without it clears it.
    REQUIRE(wr::model::read_zone_settings({{"hosts", {"www.example.com", "*.cdn.example.com"}}}, BodyMode::patch, stored).empty());
    CHECK(stored.hosts == std::vector<std::string>{"www.example.com", "*.cdn.example.com"});
    REQUIRE(wr::model::read_zone_settings({{"origin", "http://10.0.0.2"}}, BodyMode::patch, stored).empty());
    CHECK(stored.hosts.size() == 2);
    CHECK(describe(wr::model::read_zone_settings({{"hosts", "www.example.com"}}, BodyMode::patch, stored)) ==
          "[hosts: must be an array of host names]");
    CHECK(describe(wr::model::read_zone_settings({{"hosts", {1}}}, BodyMode::patch, stored)) == "[hosts: must be an array of host names]");
    REQUIRE(wr::model::read_zone_settings({{"hosts", nullptr}}, BodyMode::patch, stored).empty());
    CHECK(stored.hosts.empty());
    stored.hosts = {"www.example.com"};
    REQUIRE(wr::model::read_zone_settings({{"name", "example.com"}, {"origin", "http://10.0.0.2"}}, BodyMode::replace, stored).empty());
    CHECK(stored.hosts.empty());

    const wr::model::Zone full{"0123456789abcdef0123456789abcdef", {"example.com", "http://127.0.0.1:3000"},
                               wr::test::k_test_start, wr::test::k_test_start + 1s};
    CHECK(wr::model::to_json(full) == json{{"id", "0123456789abcdef0123456789abcdef"}, {"name", "example.com"},
                                           {"origin", "http://127.0.0.1:3000"}, {"hosts", json::array()},
                                           {"max_origin_connections", 0}, {"origin_queue_timeout_seconds", 10},
                                           {"status", "active"}, {"created_on", "2026-11-22T10:00:00.000Z"},
                                           {"modified_on", "2026-11-22T10:00:01.000Z"}});

    wr::model::ZoneRoomSettings settings;
    REQUIRE(wr::model::read_zone_room_settings({{"search_engine_crawler_bypass", true}}, BodyMode::replace, settings).empty());
    CHECK(settings.search_engine_crawler_bypass);
    CHECK(describe(wr::model::read_zone_room_settings({{"search_engine_crawler_bypass", "yes"}}, BodyMode::patch, settings)) ==
          "[search_engine_crawler_bypass: must be true or false]");
    REQUIRE(wr::model::read_zone_room_settings({{"search_engine_crawler_bypass", nullptr}}, BodyMode::patch, settings).empty());
    CHECK_FALSE(settings.search_engine_crawler_bypass);
}

TEST_CASE("model::read_zone_settings reads the origin protection fields: patch keeps, null and replace default") {
    wr::model::ZoneSettings zone;
    REQUIRE(wr::model::read_zone_settings({{"name", "example.com"}, {"origin", "http://o"}}, BodyMode::create, zone).empty());
    CHECK(zone.max_origin_connections == 0);
    CHECK(zone.origin_queue_timeout_seconds == 10);

    REQUIRE(wr::model::read_zone_settings({{"max_origin_connections", 64}, {"origin_queue_timeout_seconds", 30.0}}, BodyMode::patch, zone)
                .empty());
    CHECK(zone.max_origin_connections == 64);
    CHECK(zone.origin_queue_timeout_seconds == 30);
    REQUIRE(wr::model::read_zone_settings({{"origin", "http://p"}}, BodyMode::patch, zone).empty());
    CHECK(zone.max_origin_connections == 64);
    CHECK(zone.origin_queue_timeout_seconds == 30);
    REQUIRE(wr::model::read_zone_settings({{"origin_queue_timeout_seconds", nullptr}}, BodyMode::patch, zone).empty());
    CHECK(zone.max_origin_connections == 64);
    CHECK(zone.origin_queue_timeout_seconds == 10);
    REQUIRE(wr::model::read_zone_settings({{"max_origin_connections", nullptr}}, BodyMode::patch, zone).empty());
    CHECK(zone.max_origin_connections == 0);

    CHECK(describe(wr::model::read_zone_settings({{"max_origin_connections", "64"}, {"origin_queue_timeout_seconds", 1.5}},
                                                 BodyMode::patch, zone)) ==
          "[max_origin_connections: must be an integer][origin_queue_timeout_seconds: must be an integer]");

    // GET → PUT reads back the same settings.
    wr::model::Zone stored{"0123456789abcdef0123456789abcdef", {"example.com", "http://127.0.0.1:3000", {"www.example.com"}},
                           wr::test::k_test_start, wr::test::k_test_start};
    stored.settings.max_origin_connections = 1000000;
    stored.settings.origin_queue_timeout_seconds = 120;
    wr::model::ZoneSettings replaced;
    REQUIRE(wr::model::read_zone_settings(wr::model::to_json(stored), BodyMode::replace, replaced).empty());
    CHECK(replaced == stored.settings);
    wr::model::ZoneSettings exported;
    REQUIRE(wr::model::read_zone_settings(wr::model::settings_to_json(stored.settings), BodyMode::replace, exported).empty());
    CHECK(exported == stored.settings);
}

TEST_CASE("model::to_json of a token never includes its hash") {
    wr::model::Token token;
    token.id = "0123456789abcdef0123456789abcdef";
    token.name = "ci";
    token.scope = wr::model::TokenScope::edit;
    token.zone_id = "fedcba9876543210fedcba9876543210";
    token.hash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    token.created_on = wr::test::k_test_start;
    const json written = wr::model::to_json(token);
    CHECK(written == json{{"id", "0123456789abcdef0123456789abcdef"}, {"name", "ci"}, {"scope", "edit"},
                          {"zone_id", "fedcba9876543210fedcba9876543210"}, {"created_on", "2026-11-22T10:00:00.000Z"},
                          {"last_used_on", nullptr}});
    CHECK(written.dump().find(token.hash) == std::string::npos);
    token.zone_id.reset();
    token.last_used_on = wr::test::k_test_start + 1min;
    CHECK(wr::model::to_json(token)["zone_id"].is_null());
    CHECK(wr::model::to_json(token)["last_used_on"] == "2026-11-22T10:01:00.000Z");
}
