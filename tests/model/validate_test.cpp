// model::validate_*: every limit and relationship of docs/api.md that a record must satisfy on its
// own, with the exact field and message a user sees, and the boundaries that pass.
#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <string>

#include "model/validate.h"
#include "util/ascii_case.h"
#include "support/field_errors.h"
#include "support/test_server.h"
#include "support/timestamps.h"

using namespace std::chrono_literals;
using wr::model::EventSettings;
using wr::model::FieldErrors;
using wr::model::RoomSettings;
using wr::model::Route;
using wr::test::at;
using wr::test::describe;

namespace {

const std::string k_zone = "example.com";

RoomSettings valid_room() {
    RoomSettings room;
    room.name = "shop";
    room.host = "shop.example.com";
    room.total_active_users = 1000;
    room.new_users_per_minute = 300;
    return room;
}

// 10:00 to 12:00 on 2026-12-01.
EventSettings valid_event() {
    EventSettings event;
    event.name = "launch";
    event.event_start_time = at("2026-12-01T10:00:00.000Z");
    event.event_end_time = at("2026-12-01T12:00:00.000Z");
    return event;
}

// `count` characters of two bytes each.
std::string accents(size_t count) {
    std::string text;
    for (size_t i = 0; i < count; ++i) text += "é";
    return text;
}

std::vector<Route> numbered_routes(size_t count) {
    std::vector<Route> routes;
    for (size_t i = 0; i < count; ++i) routes.push_back({"shop.example.com", "/r" + std::to_string(i)});
    return routes;
}

} // namespace

TEST_CASE("model::validate_room names the field and the reason of each problem") {
    struct Case {
        const char* name;
        std::function<void(RoomSettings&)> change;
        FieldErrors expected;
    };
    const Case cases[] = {
        {"no name", [](RoomSettings& r) { r.name = ""; }, {{"name", "is required"}}},
        {"long name", [](RoomSettings& r) { r.name = std::string(256, 'a'); }, {{"name", "must be at most 255 characters"}}},
        {"name with a space", [](RoomSettings& r) { r.name = "my shop"; },
         {{"name", "may contain only letters, digits, '_' and '-'"}}},
        {"name with a dot", [](RoomSettings& r) { r.name = "shop.1"; },
         {{"name", "may contain only letters, digits, '_' and '-'"}}},
        {"name of an API path", [](RoomSettings& r) { r.name = "settings"; },
         {{"name", "settings is reserved: /zones/{zone_id}/waiting_rooms/settings is an API path"}}},
        {"name of the preview path", [](RoomSettings& r) { r.name = "preview"; },
         {{"name", "preview is reserved: /zones/{zone_id}/waiting_rooms/preview is an API path"}}},
        {"name shaped like an id", [](RoomSettings& r) { r.name = "0123456789abcdef0123456789abcdef"; },
         {{"name", wr::model::k_id_shaped_name}}},
        {"no host", [](RoomSettings& r) { r.host = ""; }, {{"host", "is required"}}},
        {"host with a scheme", [](RoomSettings& r) { r.host = "https://shop.example.com"; },
         {{"host", "must not include a scheme (write shop.example.com, not https://shop.example.com)"}}},
        {"wildcard host", [](RoomSettings& r) { r.host = "*.example.com"; }, {{"host", "must not contain a wildcard"}}},
        {"host with a path", [](RoomSettings& r) { r.host = "shop.example.com/shop"; },
         {{"host", "must not include a path (use the path field)"}}},
        {"host with a port", [](RoomSettings& r) { r.host = "shop.example.com:8080"; }, {{"host", "must not include a port"}}},
        {"host with an underscore", [](RoomSettings& r) { r.host = "shop_1.example.com"; },
         {{"host", "is not a valid host name"}}},
        {"host label starting with a dash", [](RoomSettings& r) { r.host = "-shop.example.com"; },
         {{"host", "is not a valid host name"}}},
        {"host with an empty label", [](RoomSettings& r) { r.host = "shop..example.com"; },
         {{"host", "is not a valid host name"}}},
        {"host outside the zone", [](RoomSettings& r) { r.host = "shop.other.com"; },
         {{"host", "must lie inside the zone example.com"}}},
        {"host that only ends like the zone", [](RoomSettings& r) { r.host = "badexample.com"; },
         {{"host", "must lie inside the zone example.com"}}},
        {"empty path", [](RoomSettings& r) { r.path = ""; }, {{"path", "must start with '/'"}}},
        {"relative path", [](RoomSettings& r) { r.path = "shop"; }, {{"path", "must start with '/'"}}},
        {"long path", [](RoomSettings& r) { r.path = "/" + std::string(2048, 'a'); },
         {{"path", "must be at most 2048 characters"}}},
        {"long path of two-byte characters", [](RoomSettings& r) { r.path = "/" + accents(2048); },
         {{"path", "must be at most 2048 characters"}}},
        {"path with a query", [](RoomSettings& r) { r.path = "/shop?x=1"; }, {{"path", "must not include a query or fragment"}}},
        {"path with a fragment", [](RoomSettings& r) { r.path = "/shop#top"; },
         {{"path", "must not include a query or fragment"}}},
        {"path with a wildcard", [](RoomSettings& r) { r.path = "/shop/*"; },
         {{"path", "must not contain a wildcard (a path already covers everything below it)"}}},
        {"path with a space", [](RoomSettings& r) { r.path = "/sh op"; },
         {{"path", "must not contain spaces or control characters"}}},
        {"path with a tab", [](RoomSettings& r) { r.path = "/shop\t"; },
         {{"path", "must not contain spaces or control characters"}}},
        {"path with DEL", [](RoomSettings& r) { r.path = "/shop\x7f"; },
         {{"path", "must not contain spaces or control characters"}}},
        {"route outside the zone",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"shop.example.com", "/a"}, {"shop.other.com", "/b"}};
         },
         {{"additional_routes[1].host", "must lie inside the zone example.com"}}},
        {"route without a host",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"", "/a"}};
         },
         {{"additional_routes[0].host", "is required"}}},
        {"route with a scheme",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"http://a.example.com", "/a"}};
         },
         {{"additional_routes[0].host", "must not include a scheme (write shop.example.com, not https://shop.example.com)"}}},
        {"route with a relative path",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"shop.example.com", "a"}};
         },
         {{"additional_routes[0].path", "must start with '/'"}}},
        {"route with a query",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"shop.example.com", "/a"}, {"shop.example.com", "/b?c"}};
         },
         {{"additional_routes[1].path", "must not include a query or fragment"}}},
        {"route repeating the room's own (hosts compare case-insensitively)",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"SHOP.Example.com", "/"}};
         },
         {{"additional_routes[0]", "repeats the room's own host and path"}}},
        {"route repeating another route",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"a.example.com", "/x"}, {"b.example.com", "/x"}, {"A.example.com", "/x"}};
         },
         {{"additional_routes[2]", "repeats additional_routes[0]"}}},
        {"101 routes",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = numbered_routes(101);
         },
         {{"additional_routes", "may hold at most 100 routes"}}},
        {"routes without a cookie suffix",
         [](RoomSettings& r) { r.additional_routes = {{"shop.example.com", "/a"}}; },
         {{"cookie_suffix", "is required when additional_routes are set, so that rooms sharing a host keep separate cookies"}}},
        {"199 active users",
         [](RoomSettings& r) {
             r.total_active_users = 199;
             r.new_users_per_minute = 200;
         },
         {{"total_active_users", "must be at least 200"}}},
        {"negative active users",
         [](RoomSettings& r) {
             r.total_active_users = -1;
             r.new_users_per_minute = 200;
         },
         {{"total_active_users", "must be at least 200"}}},
        {"active users above int32", [](RoomSettings& r) { r.total_active_users = 2147483648; },
         {{"total_active_users", "must be at most 2147483647"}}},
        {"199 new users", [](RoomSettings& r) { r.new_users_per_minute = 199; },
         {{"new_users_per_minute", "must be at least 200"}}},
        {"new users above int32",
         [](RoomSettings& r) {
             r.total_active_users = 2147483647;
             r.new_users_per_minute = 2147483648;
         },
         {{"new_users_per_minute", "must be at most 2147483647"},
          {"new_users_per_minute", "must not exceed total_active_users (2147483647)"}}},
        {"more new users than active users", [](RoomSettings& r) { r.new_users_per_minute = 1001; },
         {{"new_users_per_minute", "must not exceed total_active_users (1000)"}}},
        {"session of 0 minutes", [](RoomSettings& r) { r.session_duration = 0; },
         {{"session_duration", "must be between 1 and 30 minutes"}}},
        {"session of 31 minutes", [](RoomSettings& r) { r.session_duration = 31; },
         {{"session_duration", "must be between 1 and 30 minutes"}}},
        {"negative session", [](RoomSettings& r) { r.session_duration = -1; },
         {{"session_duration", "must be between 1 and 30 minutes"}}},
        {"status 201", [](RoomSettings& r) { r.queueing_status_code = 201; },
         {{"queueing_status_code", "must be 200, 202 or 429"}}},
        {"status 0", [](RoomSettings& r) { r.queueing_status_code = 0; }, {{"queueing_status_code", "must be 200, 202 or 429"}}},
        {"negative join limit", [](RoomSettings& r) { r.join_limit_per_ip_per_minute = -1; },
         {{"join_limit_per_ip_per_minute", "must be between 0 (no limit) and 1000000"}}},
        {"join limit too high", [](RoomSettings& r) { r.join_limit_per_ip_per_minute = 1000001; },
         {{"join_limit_per_ip_per_minute", "must be between 0 (no limit) and 1000000"}}},
        {"guard target under 50 ms", [](RoomSettings& r) { r.origin_guard.target_ttfb_ms = 49; },
         {{"origin_guard.target_ttfb_ms", "must be between 50 and 60000"}}},
        {"guard target over a minute", [](RoomSettings& r) { r.origin_guard.target_ttfb_ms = 60001; },
         {{"origin_guard.target_ttfb_ms", "must be between 50 and 60000"}}},
        {"guard target beyond int (read as -1)", [](RoomSettings& r) { r.origin_guard.target_ttfb_ms = -1; },
         {{"origin_guard.target_ttfb_ms", "must be between 50 and 60000"}}},
        {"negative error rate", [](RoomSettings& r) { r.origin_guard.max_error_rate = -0.01; },
         {{"origin_guard.max_error_rate", "must be between 0 and 1 (0.05 is 5 %)"}}},
        {"error rate over 1", [](RoomSettings& r) { r.origin_guard.max_error_rate = 1.01; },
         {{"origin_guard.max_error_rate", "must be between 0 and 1 (0.05 is 5 %)"}}},
        {"error rate given as a percentage", [](RoomSettings& r) { r.origin_guard.max_error_rate = 5; },
         {{"origin_guard.max_error_rate", "must be between 0 and 1 (0.05 is 5 %)"}}},
        {"error rate NaN", [](RoomSettings& r) { r.origin_guard.max_error_rate = std::numeric_limits<double>::quiet_NaN(); },
         {{"origin_guard.max_error_rate", "must be between 0 and 1 (0.05 is 5 %)"}}},
        {"negative guard floor", [](RoomSettings& r) { r.origin_guard.min_new_users_per_minute = -1; },
         {{"origin_guard.min_new_users_per_minute", "must be at least 0 (0: a tenth of new_users_per_minute)"}}},
        {"guard floor over the limit", [](RoomSettings& r) { r.origin_guard.min_new_users_per_minute = 301; },
         {{"origin_guard.min_new_users_per_minute", "must not exceed new_users_per_minute (300)"}}},
        {"guard floor over the limit while the guard is off",
         [](RoomSettings& r) {
             r.origin_guard.enabled = false;
             r.origin_guard.min_new_users_per_minute = 100000;
         },
         {{"origin_guard.min_new_users_per_minute", "must not exceed new_users_per_minute (300)"}}},
        {"cookie suffix with a space", [](RoomSettings& r) { r.cookie_suffix = "a b"; },
         {{"cookie_suffix", "may contain only letters, digits, '_' and '-' (at most 255)"}}},
        {"long cookie suffix", [](RoomSettings& r) { r.cookie_suffix = std::string(256, 'c'); },
         {{"cookie_suffix", "may contain only letters, digits, '_' and '-' (at most 255)"}}},
        {"SameSite=None without Secure",
         [](RoomSettings& r) {
             r.cookie_attributes.samesite = wr::model::SameSite::none;
             r.cookie_attributes.secure = wr::model::SecureAttribute::never;
         },
         {{"cookie_attributes.samesite", "none requires cookie_attributes.secure to be auto or always (browsers drop "
                                         "SameSite=None cookies that are not Secure)"}}},
        {"custom page over 1 MB", [](RoomSettings& r) { r.custom_page_html = std::string(1024 * 1024 + 1, 'x'); },
         {{"custom_page_html", "must be at most 1048576 bytes"}}},
        {"custom page that does not parse", [](RoomSettings& r) { r.custom_page_html = "<p>\n{{#queueIsFull}}full"; },
         {{"custom_page_html", "is not a valid template: Unclosed section \"queueIsFull\" at line 2, column 1"}}},
        {"custom page with an unclosed tag", [](RoomSettings& r) { r.custom_page_html = "{{waitTime"; },
         {{"custom_page_html", "is not a valid template: Unclosed tag at line 1, column 1"}}},
        {"unknown language", [](RoomSettings& r) { r.default_template_language = "xx-XX"; },
         {{"default_template_language", "must be one of the 39 supported languages (en-US, de-DE, …)"}}},
        {"language in the wrong case", [](RoomSettings& r) { r.default_template_language = "en-us"; },
         {{"default_template_language", "must be one of the 39 supported languages (en-US, de-DE, …)"}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        RoomSettings room = valid_room();
        c.change(room);
        const FieldErrors errors = wr::model::validate_room(room, k_zone);
        CHECK(describe(errors) == describe(c.expected));
    }
}

TEST_CASE("model::validate_room reports every problem at once, in field order") {
    RoomSettings room = valid_room();
    room.name = "";
    room.host = "shop.other.com";
    room.total_active_users = 100;
    room.new_users_per_minute = 50;
    room.session_duration = 60;
    room.queueing_status_code = 500;
    room.origin_guard.target_ttfb_ms = 10;
    room.origin_guard.min_new_users_per_minute = 100; // over new_users_per_minute, which is itself refused: said once
    const FieldErrors errors = wr::model::validate_room(room, k_zone);
    const FieldErrors expected = {
        {"name", "is required"},
        {"host", "must lie inside the zone example.com"},
        {"total_active_users", "must be at least 200"},
        {"new_users_per_minute", "must be at least 200"},
        {"session_duration", "must be between 1 and 30 minutes"},
        {"queueing_status_code", "must be 200, 202 or 429"},
        {"origin_guard.target_ttfb_ms", "must be between 50 and 60000"},
    };
    CHECK(errors == expected);
    CHECK(errors[1].text() == "host: must lie inside the zone example.com");
}

TEST_CASE("model::validate_room accepts the boundaries of every range") {
    struct Case {
        const char* name;
        std::function<void(RoomSettings&)> change;
    };
    const Case cases[] = {
        {"the defaults", [](RoomSettings&) {}},
        {"200 and 200",
         [](RoomSettings& r) {
             r.total_active_users = 200;
             r.new_users_per_minute = 200;
         }},
        {"the int32 maximum for both",
         [](RoomSettings& r) {
             r.total_active_users = 2147483647;
             r.new_users_per_minute = 2147483647;
         }},
        {"new users equal to active users",
         [](RoomSettings& r) {
             r.total_active_users = 5000;
             r.new_users_per_minute = 5000;
         }},
        {"session of 1 minute", [](RoomSettings& r) { r.session_duration = 1; }},
        {"session of 30 minutes", [](RoomSettings& r) { r.session_duration = 30; }},
        {"status 202", [](RoomSettings& r) { r.queueing_status_code = 202; }},
        {"status 429", [](RoomSettings& r) { r.queueing_status_code = 429; }},
        {"join limit 1", [](RoomSettings& r) { r.join_limit_per_ip_per_minute = 1; }},
        {"join limit 1000000", [](RoomSettings& r) { r.join_limit_per_ip_per_minute = 1000000; }},
        {"the guard on with its defaults", [](RoomSettings& r) { r.origin_guard.enabled = true; }},
        {"guard target 50 ms", [](RoomSettings& r) { r.origin_guard.target_ttfb_ms = 50; }},
        {"guard target 60000 ms", [](RoomSettings& r) { r.origin_guard.target_ttfb_ms = 60000; }},
        {"error rate 0", [](RoomSettings& r) { r.origin_guard.max_error_rate = 0; }},
        {"error rate 1", [](RoomSettings& r) { r.origin_guard.max_error_rate = 1; }},
        {"guard floor equal to the limit", [](RoomSettings& r) { r.origin_guard.min_new_users_per_minute = 300; }},
        {"guard floor of 1", [](RoomSettings& r) { r.origin_guard.min_new_users_per_minute = 1; }},
        {"host equal to the zone", [](RoomSettings& r) { r.host = "example.com"; }},
        {"host in capitals", [](RoomSettings& r) { r.host = "SHOP.EXAMPLE.COM"; }},
        {"deep subdomain", [](RoomSettings& r) { r.host = "a.b.c.example.com"; }},
        {"name of 255 characters", [](RoomSettings& r) { r.name = std::string(255, 'n'); }},
        {"name with _ and -", [](RoomSettings& r) { r.name = "Shop_2-b"; }},
        {"path of 2048 characters", [](RoomSettings& r) { r.path = "/" + std::string(2047, 'p'); }},
        {"path of 2048 two-byte characters", [](RoomSettings& r) { r.path = "/" + accents(2047); }},
        {"name of 31 hex characters", [](RoomSettings& r) { r.name = "0123456789abcdef0123456789abcde"; }},
        {"name of 32 uppercase hex characters", [](RoomSettings& r) { r.name = "0123456789ABCDEF0123456789ABCDEF"; }},
        {"path with encoded characters", [](RoomSettings& r) { r.path = "/a%2Fb/c.html"; }},
        {"100 routes",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = numbered_routes(100);
         }},
        {"routes sharing a host or a path",
         [](RoomSettings& r) {
             r.cookie_suffix = "shop";
             r.additional_routes = {{"shop.example.com", "/a"}, {"other.example.com", "/"}, {"other.example.com", "/a"}};
         }},
        {"cookie suffix of 255 characters", [](RoomSettings& r) { r.cookie_suffix = std::string(255, 's'); }},
        {"SameSite=None with Secure always",
         [](RoomSettings& r) {
             r.cookie_attributes.samesite = wr::model::SameSite::none;
             r.cookie_attributes.secure = wr::model::SecureAttribute::always;
         }},
        {"SameSite=None with Secure auto", [](RoomSettings& r) { r.cookie_attributes.samesite = wr::model::SameSite::none; }},
        {"SameSite=Strict without Secure",
         [](RoomSettings& r) {
             r.cookie_attributes.samesite = wr::model::SameSite::strict;
             r.cookie_attributes.secure = wr::model::SecureAttribute::never;
         }},
        {"a custom page that parses", [](RoomSettings& r) { r.custom_page_html = "<p>{{waitTime}} {{#queueIsFull}}full{{/queueIsFull}}</p>"; }},
        {"a custom page of exactly 1 MB", [](RoomSettings& r) { r.custom_page_html = std::string(1024 * 1024, 'x'); }},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        RoomSettings room = valid_room();
        c.change(room);
        CHECK(describe(wr::model::validate_room(room, k_zone)) == "");
    }
    for (const std::string_view language : wr::model::k_template_languages) {
        CAPTURE(language);
        RoomSettings room = valid_room();
        room.default_template_language = std::string(language);
        CHECK(wr::model::validate_room(room, k_zone).empty());
    }
}

TEST_CASE("model::validate_event names the field and the reason of each problem") {
    struct Case {
        const char* name;
        std::function<void(EventSettings&)> change;
        FieldErrors expected;
    };
    const Case cases[] = {
        {"no name", [](EventSettings& e) { e.name = ""; }, {{"name", "is required"}}},
        {"name with a space", [](EventSettings& e) { e.name = "big launch"; },
         {{"name", "may contain only letters, digits, '_' and '-'"}}},
        {"long name", [](EventSettings& e) { e.name = std::string(256, 'e'); }, {{"name", "must be at most 255 characters"}}},
        {"name shaped like an id", [](EventSettings& e) { e.name = "0123456789abcdef0123456789abcdef"; },
         {{"name", wr::model::k_id_shaped_name}}},
        {"no start", [](EventSettings& e) { e.event_start_time = {}; }, {{"event_start_time", "is required"}}},
        {"no end", [](EventSettings& e) { e.event_end_time = {}; }, {{"event_end_time", "is required"}}},
        {"neither start nor end",
         [](EventSettings& e) {
             e.event_start_time = {};
             e.event_end_time = {};
         },
         {{"event_start_time", "is required"}, {"event_end_time", "is required"}}},
        {"59 seconds long", [](EventSettings& e) { e.event_end_time = at("2026-12-01T10:00:59.999Z"); },
         {{"event_start_time", "must be at least 1 minute before event_end_time"}}},
        {"ends as it starts", [](EventSettings& e) { e.event_end_time = at("2026-12-01T10:00:00Z"); },
         {{"event_start_time", "must be at least 1 minute before event_end_time"}}},
        {"ends before it starts", [](EventSettings& e) { e.event_end_time = at("2026-12-01T09:00:00Z"); },
         {{"event_start_time", "must be at least 1 minute before event_end_time"}}},
        {"prequeue 4:59 before the start", [](EventSettings& e) { e.prequeue_start_time = at("2026-12-01T09:55:00.001Z"); },
         {{"prequeue_start_time", "must be at least 5 minutes before event_start_time"}}},
        {"prequeue after the start", [](EventSettings& e) { e.prequeue_start_time = at("2026-12-01T10:30:00Z"); },
         {{"prequeue_start_time", "must be at least 5 minutes before event_start_time"}}},
        {"shuffle without a prequeue", [](EventSettings& e) { e.shuffle_at_event_start = true; },
         {{"shuffle_at_event_start", "requires prequeue_start_time (only prequeued users are shuffled)"}}},
        {"active users without new users", [](EventSettings& e) { e.total_active_users = 1000; },
         {{"new_users_per_minute",
           "must be set together with total_active_users (an event overrides both limits or neither)"}}},
        {"new users without active users", [](EventSettings& e) { e.new_users_per_minute = 300; },
         {{"total_active_users",
           "must be set together with new_users_per_minute (an event overrides both limits or neither)"}}},
        {"too few active users alone", [](EventSettings& e) { e.total_active_users = 100; },
         {{"new_users_per_minute",
           "must be set together with total_active_users (an event overrides both limits or neither)"},
          {"total_active_users", "must be at least 200"}}},
        {"199 active users",
         [](EventSettings& e) {
             e.total_active_users = 199;
             e.new_users_per_minute = 200;
         },
         {{"total_active_users", "must be at least 200"}}},
        {"active users above int32",
         [](EventSettings& e) {
             e.total_active_users = 2147483648;
             e.new_users_per_minute = 300;
         },
         {{"total_active_users", "must be at most 2147483647"}}},
        {"199 new users",
         [](EventSettings& e) {
             e.total_active_users = 1000;
             e.new_users_per_minute = 199;
         },
         {{"new_users_per_minute", "must be at least 200"}}},
        {"more new users than active users",
         [](EventSettings& e) {
             e.total_active_users = 1000;
             e.new_users_per_minute = 1001;
         },
         {{"new_users_per_minute", "must not exceed total_active_users (1000)"}}},
        {"session of 0 minutes", [](EventSettings& e) { e.session_duration = 0; },
         {{"session_duration", "must be between 1 and 30 minutes"}}},
        {"session of 31 minutes", [](EventSettings& e) { e.session_duration = 31; },
         {{"session_duration", "must be between 1 and 30 minutes"}}},
        {"custom page that does not parse", [](EventSettings& e) { e.custom_page_html = "{{#a}}"; },
         {{"custom_page_html", "is not a valid template: Unclosed section \"a\" at line 1, column 1"}}},
        {"custom page over 1 MB", [](EventSettings& e) { e.custom_page_html = std::string(1024 * 1024 + 1, 'x'); },
         {{"custom_page_html", "must be at most 1048576 bytes"}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        EventSettings event = valid_event();
        c.change(event);
        CHECK(describe(wr::model::validate_event(event)) == describe(c.expected));
    }
}

TEST_CASE("model::validate_event accepts the boundaries") {
    struct Case {
        const char* name;
        std::function<void(EventSettings&)> change;
    };
    const Case cases[] = {
        {"no overrides", [](EventSettings&) {}},
        {"start exactly 1 minute before the end", [](EventSettings& e) { e.event_end_time = at("2026-12-01T10:01:00Z"); }},
        {"the same instant written with an offset",
         [](EventSettings& e) { e.event_end_time = at("2026-12-01T11:01:00+01:00"); }},
        {"prequeue exactly 5 minutes before the start, shuffled",
         [](EventSettings& e) {
             e.prequeue_start_time = at("2026-12-01T09:55:00Z");
             e.shuffle_at_event_start = true;
         }},
        {"limits of 200 and 200",
         [](EventSettings& e) {
             e.total_active_users = 200;
             e.new_users_per_minute = 200;
         }},
        {"limits at the int32 maximum",
         [](EventSettings& e) {
             e.total_active_users = 2147483647;
             e.new_users_per_minute = 2147483647;
         }},
        {"session of 1 minute", [](EventSettings& e) { e.session_duration = 1; }},
        {"session of 30 minutes", [](EventSettings& e) { e.session_duration = 30; }},
        {"every override",
         [](EventSettings& e) {
             e.suspended = true;
             e.queueing_method = wr::model::QueueingMethod::reject;
             e.disable_session_renewal = false;
             e.custom_page_html = "<p>{{waitTime}}</p>";
             e.turnstile_mode = wr::model::TurnstileMode::off;
             e.turnstile_action = wr::model::TurnstileAction::infinite_queue;
         }},
        {"an empty custom page", [](EventSettings& e) { e.custom_page_html = ""; }},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        EventSettings event = valid_event();
        c.change(event);
        CHECK(describe(wr::model::validate_event(event)) == "");
    }
}

TEST_CASE("model::check_event_not_over wants an end after now") {
    const EventSettings event = valid_event();
    const wr::util::TimePoint end = event.event_end_time.time;
    const FieldErrors over = {{"event_end_time", "must be in the future"}};
    CHECK(wr::model::check_event_not_over(event, end) == over);
    CHECK(wr::model::check_event_not_over(event, end + 1h) == over);
    CHECK(wr::model::check_event_not_over(event, end - 1ms).empty());
    CHECK(wr::model::check_event_not_over(event, wr::test::k_test_start).empty());
    EventSettings no_end = event;
    no_end.event_end_time = {};
    CHECK(wr::model::check_event_not_over(no_end, end + 1h).empty()); // validate_event reports the missing end
}

TEST_CASE("model::validate_rule wants the bypass action and an expression that parses") {
    const auto rule = [](std::string action, std::string expression) {
        wr::model::RuleSettings settings;
        settings.action = std::move(action);
        settings.expression = std::move(expression);
        return settings;
    };
    struct Case {
        const char* name;
        wr::model::RuleSettings rule;
        FieldErrors expected;
    };
    wr::model::RuleSettings disabled = rule("bypass_waiting_room", "ip.src in {10.0.0.0/8}");
    disabled.description = "office";
    disabled.enabled = false;
    const Case cases[] = {
        {"valid", rule("bypass_waiting_room", "http.request.uri.path matches \"^/api/\""), {}},
        {"disabled and described", disabled, {}},
        {"other action", rule("block", "http.host eq \"a\""), {{"action", "must be bypass_waiting_room"}}},
        {"no expression", wr::model::RuleSettings{}, {{"expression", "is required"}}},
        {"unknown field", rule("bypass_waiting_room", "foo eq 1"), {{"expression", "unknown field 'foo' at column 1"}}},
        {"syntax error", rule("bypass_waiting_room", "http.host eq"),
         {{"expression", "expected a value after 'eq' at column 13"}}},
        {"both", rule("", ""), {{"action", "must be bypass_waiting_room"}, {"expression", "is required"}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(describe(wr::model::validate_rule(c.rule)) == describe(c.expected));
    }
}

TEST_CASE("model::validate_zone wants a lowercase domain and an http(s) origin") {
    const std::string bad_origin = "must be an http:// or https:// URL with a host, an optional port and path, and no query "
                                   "(for example http://127.0.0.1:3000)";
    const std::string bad_name = "must be a lowercase domain name such as example.com";
    struct Case {
        wr::model::ZoneSettings zone;
        FieldErrors expected;
    };
    const Case cases[] = {
        {{"example.com", "http://127.0.0.1:3000"}, {}},
        {{"shop.example.co.uk", "https://origin.internal/base"}, {}},
        {{"localhost", "http://[::1]:8080"}, {}},
        {{"", "http://127.0.0.1:3000"}, {{"name", "is required"}}},
        {{"Example.com", "http://127.0.0.1:3000"}, {{"name", bad_name}}},
        {{"exa mple.com", "http://127.0.0.1:3000"}, {{"name", bad_name}}},
        {{"example.com.", "http://127.0.0.1:3000"}, {{"name", bad_name}}},
        {{"https://example.com", "http://127.0.0.1:3000"}, {{"name", bad_name}}},
        {{"0123456789abcdef0123456789abcdef", "http://127.0.0.1:3000"}, {{"name", wr::model::k_id_shaped_name}}},
        {{"0123456789abcdef0123456789abcdef.com", "http://127.0.0.1:3000"}, {}},
        {{"example.com", ""}, {{"origin", "is required"}}},
        {{"example.com", "ftp://127.0.0.1"}, {{"origin", bad_origin}}},
        {{"example.com", "127.0.0.1:3000"}, {{"origin", bad_origin}}},
        {{"example.com", "http://"}, {{"origin", bad_origin}}},
        {{"example.com", "http://origin/?a=b"}, {{"origin", bad_origin}}},
        {{"example.com", "http://user@origin"}, {{"origin", bad_origin}}},
        {{"example.com", "http://origin:0"}, {{"origin", bad_origin}}},
        {{"example.com", "http://origin:65536"}, {{"origin", bad_origin}}},
        {{"", ""}, {{"name", "is required"}, {"origin", "is required"}}},
        {{"example.com", "http://127.0.0.1:3000", {"www.example.com", "*.cdn.example.com", "example.com"}}, {}},
        {{"example.com", "http://127.0.0.1:3000", {"www.other.com"}}, {{"hosts[0]", "www.other.com is not inside the zone example.com"}}},
        {{"example.com", "http://127.0.0.1:3000", {"ok.example.com", "WWW.example.com"}},
         {{"hosts[1]", "must be a lowercase host name such as www.example.com, or *.example.com for every name under it"}}},
        {{"example.com", "http://127.0.0.1:3000", {"a.*.example.com"}},
         {{"hosts[0]", "must be a lowercase host name such as www.example.com, or *.example.com for every name under it"}}},
        {{"example.com", "http://127.0.0.1:3000", {"*"}},
         {{"hosts[0]", "must be a lowercase host name such as www.example.com, or *.example.com for every name under it"}}},
    };
    const auto with_origin = [](int64_t max_connections, int queue_timeout) {
        wr::model::ZoneSettings zone{"example.com", "http://127.0.0.1:3000"};
        zone.max_origin_connections = max_connections;
        zone.origin_queue_timeout_seconds = queue_timeout;
        return zone;
    };
    const Case origin_cases[] = {
        {with_origin(0, 10), {}},
        {with_origin(1, 1), {}},
        {with_origin(1000000, 120), {}},
        {with_origin(-1, 10), {{"max_origin_connections", "must be between 0 (no limit) and 1000000"}}},
        {with_origin(1000001, 10), {{"max_origin_connections", "must be between 0 (no limit) and 1000000"}}},
        {with_origin(64, 0), {{"origin_queue_timeout_seconds", "must be between 1 and 120 seconds"}}},
        {with_origin(64, 121), {{"origin_queue_timeout_seconds", "must be between 1 and 120 seconds"}}},
        {with_origin(64, -1), {{"origin_queue_timeout_seconds", "must be between 1 and 120 seconds"}}},
        {with_origin(-5, 500),
         {{"max_origin_connections", "must be between 0 (no limit) and 1000000"},
          {"origin_queue_timeout_seconds", "must be between 1 and 120 seconds"}}},
    };
    for (const Case& c : origin_cases) {
        CAPTURE(c.zone.max_origin_connections);
        CAPTURE(c.zone.origin_queue_timeout_seconds);
        CHECK(describe(wr::model::validate_zone(c.zone)) == describe(c.expected));
    }
    for (const Case& c : cases) {
        CAPTURE(c.zone.name);
        CAPTURE(c.zone.origin);
        CHECK(describe(wr::model::validate_zone(c.zone)) == describe(c.expected));
    }
}

TEST_CASE("model::is_valid_hostname accepts DNS names only") {
    const std::string label63(63, 'a');
    // 4 labels of 63 and dots: 255 characters; trimmed to 253 and 254.
    const std::string long_name = label63 + "." + label63 + "." + label63 + "." + label63;
    struct Case {
        std::string host;
        bool expected;
    };
    const Case cases[] = {
        {"example.com", true},
        {"a", true},
        {"EXAMPLE.com", true},
        {"xn--bcher-kva.example", true},
        {"a-b.c-d.e", true},
        {"123.example.com", true},
        {label63 + ".com", true},
        {long_name.substr(0, 253), true},
        {long_name.substr(0, 254), false},
        {std::string(64, 'a') + ".com", false},
        {"", false},
        {"-a.com", false},
        {"a-.com", false},
        {"a..com", false},
        {".a.com", false},
        {"a.com.", false},
        {"a_b.com", false},
        {"a b.com", false},
        {"a.com:80", false},
        {"*.a.com", false},
        {"ex\xc3\xa4mple.com", false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.host);
        CHECK(wr::model::is_valid_hostname(c.host) == c.expected);
    }
}

TEST_CASE("model::is_valid_name accepts letters, digits, _ and -") {
    CHECK(wr::model::is_valid_name("shop"));
    CHECK(wr::model::is_valid_name("Shop_2-b"));
    CHECK(wr::model::is_valid_name(std::string(255, 'a')));
    CHECK_FALSE(wr::model::is_valid_name(std::string(256, 'a')));
    CHECK_FALSE(wr::model::is_valid_name(""));
    CHECK_FALSE(wr::model::is_valid_name("a b"));
    CHECK_FALSE(wr::model::is_valid_name("a.b"));
    CHECK_FALSE(wr::model::is_valid_name("a/b"));
    CHECK_FALSE(wr::model::is_valid_name("caf\xc3\xa9"));
}

TEST_CASE("model::host_in_zone is true for the zone and its subdomains, whatever the case") {
    struct Case {
        const char* host;
        const char* zone;
        bool expected;
    };
    const Case cases[] = {
        {"example.com", "example.com", true},
        {"shop.example.com", "example.com", true},
        {"a.b.example.com", "example.com", true},
        {"SHOP.Example.COM", "example.com", true},
        {"shop.example.com", "EXAMPLE.com", true},
        {"badexample.com", "example.com", false},
        {"example.com.evil.net", "example.com", false},
        {"com", "example.com", false},
        {"other.com", "example.com", false},
        {".example.com", "example.com", true}, // shape is is_valid_hostname's job
        {"", "example.com", false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.host);
        CAPTURE(c.zone);
        CHECK(wr::model::host_in_zone(c.host, c.zone) == c.expected);
    }
    CHECK(wr::util::lowercase("Shop.EXAMPLE.com") == "shop.example.com");
}

TEST_CASE("model::events_overlap compares half-open windows, prequeue included") {
    const auto event = [](const char* start, const char* end, const char* prequeue = nullptr) {
        EventSettings settings;
        settings.name = "e";
        settings.event_start_time = at(start);
        settings.event_end_time = at(end);
        if (prequeue) settings.prequeue_start_time = at(prequeue);
        return settings;
    };
    const EventSettings morning = event("2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z");
    struct Case {
        const char* name;
        EventSettings other;
        bool expected;
    };
    const Case cases[] = {
        {"the same window", event("2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z"), true},
        {"starts as the other ends", event("2026-12-01T12:00:00Z", "2026-12-01T13:00:00Z"), false},
        {"ends as the other starts", event("2026-12-01T09:00:00Z", "2026-12-01T10:00:00Z"), false},
        {"starts 1 ms before the other ends", event("2026-12-01T11:59:59.999Z", "2026-12-01T13:00:00Z"), true},
        {"inside", event("2026-12-01T10:30:00Z", "2026-12-01T11:00:00Z"), true},
        {"around", event("2026-12-01T09:00:00Z", "2026-12-01T13:00:00Z"), true},
        {"prequeue reaches back into the other",
         event("2026-12-01T13:00:00Z", "2026-12-01T14:00:00Z", "2026-12-01T11:30:00Z"), true},
        {"prequeue starts as the other ends",
         event("2026-12-01T13:00:00Z", "2026-12-01T14:00:00Z", "2026-12-01T12:00:00Z"), false},
        {"the same instant in another zone", event("2026-12-01T12:30:00+01:00", "2026-12-01T14:00:00+01:00"), true},
        {"another day", event("2026-12-02T10:00:00Z", "2026-12-02T12:00:00Z"), false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(wr::model::events_overlap(morning, c.other) == c.expected);
        CHECK(wr::model::events_overlap(c.other, morning) == c.expected);
    }
}
