// The JSON limits of admin request bodies: the SAX pass refuses what would be too deep or too
// large as a document, passes what is not JSON to the handlers' own errors, and lets every
// document wr itself writes through.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "api/json_limits.h"

using wr::api::json_cost;
using wr::api::json_limit_exceeded;
using wr::api::JsonLimits;

namespace {

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// `count` copies of `element` in one array.
std::string array_of(const std::string& element, size_t count) {
    std::string text = "[";
    for (size_t i = 0; i < count; ++i) text += (i ? "," : "") + element;
    return text + "]";
}

// An export as `wr apply` sends it: `rooms` rooms of every field, each with a custom page.
std::string apply_document(int rooms, size_t page_bytes) {
    nlohmann::json list = nlohmann::json::array();
    for (int i = 0; i < rooms; ++i)
        list.push_back({{"name", "room" + std::to_string(i)},
                        {"host", "shop.example.com"},
                        {"path", "/sale/" + std::to_string(i)},
                        {"description", "the sale's room"},
                        {"total_active_users", 1000},
                        {"new_users_per_minute", 300},
                        {"session_duration", 5},
                        {"queueing_method", "fifo"},
                        {"queueing_status_code", 200},
                        {"additional_routes", nlohmann::json::array({{{"host", "www.example.com"}, {"path", "/sale"}}})},
                        {"cookie_attributes", {{"samesite", "auto"}, {"secure", "auto"}}},
                        {"custom_page_html", std::string(page_bytes, 'x')},
                        {"events", nlohmann::json::array({{{"name", "launch"},
                                                           {"event_start_time", "2026-12-01T10:00:00Z"},
                                                           {"event_end_time", "2026-12-01T12:00:00Z"},
                                                           {"total_active_users", 500},
                                                           {"shuffle_at_event_start", true}}})},
                        {"rules", nlohmann::json::array({{{"action", "bypass_waiting_room"},
                                                          {"expression", "ip.src in {10.0.0.1}"},
                                                          {"enabled", true}}})}});
    return nlohmann::json{{"zones", nlohmann::json::array({{{"name", "example.com"},
                                                            {"origin", "https://origin.example.com"},
                                                            {"waiting_rooms", list}}})}}
        .dump();
}

} // namespace

TEST_CASE("api::json_limit_exceeded refuses nesting past the depth limit, naming it") {
    const JsonLimits limits;
    CHECK_FALSE(json_limit_exceeded(nested_arrays(limits.max_depth), limits));
    CHECK(json_limit_exceeded(nested_arrays(limits.max_depth + 1), limits) ==
          "the request body nests JSON arrays and objects more than 32 deep");
    // Objects count as arrays do; the refusal comes before the end of the text.
    std::string objects;
    for (size_t i = 0; i <= limits.max_depth; ++i) objects += "{\"a\":";
    CHECK(json_limit_exceeded(objects, limits).has_value());
    CHECK(json_limit_exceeded(nested_arrays(4 * 1024 * 1024), limits).has_value());
}

TEST_CASE("api::json_limit_exceeded refuses a body whose document would pass the memory limit, naming it") {
    JsonLimits limits;
    limits.max_document_bytes = 1024 * 1024;
    struct Case {
        const char* name;
        std::string element; // repeated in one array until the text is 256 KiB
    };
    const Case cases[] = {{"empty objects", "{}"}, {"empty arrays", "[]"}, {"numbers", "0"}, {"empty strings", "\"\""}};
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const std::string text = array_of(c.element, 256 * 1024 / (c.element.size() + 1));
        CHECK(json_limit_exceeded(text, limits) ==
              "the request body would take more than 1 MiB of memory as a JSON document (ten times --max-body-bytes)");
        // Within a larger limit the same text passes.
        JsonLimits wider = limits;
        wider.max_document_bytes = json_cost(text).document_bytes;
        CHECK_FALSE(json_limit_exceeded(text, wider));
    }
}

TEST_CASE("api::json_limit_exceeded leaves what is not JSON to the handler's own error") {
    const JsonLimits limits;
    CHECK_FALSE(json_limit_exceeded("name=shop", limits));
    CHECK_FALSE(json_limit_exceeded("{\"name\":", limits));
    CHECK_FALSE(json_limit_exceeded("", limits));
    // Broken JSON past the limit is still refused for the limit: it was passed before the break.
    CHECK(json_limit_exceeded(nested_arrays(40).substr(0, 60) + "}", limits).has_value());
}

TEST_CASE("api::json_limits_for lets every document wr writes through, up to the body limit") {
    const size_t body_limit = 4 * 1024 * 1024;
    const JsonLimits limits = wr::api::json_limits_for(body_limit);
    CHECK(limits.max_document_bytes == 40 * 1024 * 1024);
    CHECK(wr::api::json_limits_for(16 * 1024).max_document_bytes == 1024 * 1024);
    // Many rooms with every field and a small page, as compact text up to the body limit: the
    // densest document wr writes.
    const size_t room_bytes = apply_document(2, 40).size() - apply_document(1, 40).size();
    const std::string dense = apply_document(static_cast<int>(body_limit * 95 / 100 / room_bytes), 40);
    REQUIRE(dense.size() <= body_limit);
    CHECK(dense.size() > body_limit * 9 / 10);
    CHECK_FALSE(json_limit_exceeded(dense, limits));
    // Rooms with the largest custom page allowed (1 MiB each), with the body limit raised to hold them.
    const std::string pages = apply_document(12, 1024 * 1024);
    CHECK_FALSE(json_limit_exceeded(pages, wr::api::json_limits_for(16 * 1024 * 1024)));
    CHECK(json_cost(pages).depth == 7); // document, zones, zone, rooms, room, events, event
}
