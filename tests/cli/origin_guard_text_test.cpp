// `wr rooms status` in words: what the origin guard does to a room's admission, set against the
// limits the configuration asks for, and the origin's figures — from status fixtures, since the
// words depend only on the status and the room.
#include <doctest/doctest.h>

#include "origin_guard_text.h"

using nlohmann::json;
using wr::cli::ConfiguredLimits;

namespace {

const json k_guard = {{"enabled", true}, {"target_ttfb_ms", 500}, {"max_error_rate", 0.05}, {"min_new_users_per_minute", 0}};

json status_with(const std::string& state, double p95, double error_rate, int64_t effective_new, int64_t effective_total) {
    return {{"status", "queueing"},
            {"event_id", ""},
            {"effective_new_users_per_minute", effective_new},
            {"effective_total_active_users", effective_total},
            {"origin_guard", {{"state", state}, {"p95_ttfb_ms", p95}, {"error_rate", error_rate}, {"reason", "why"}}}};
}

} // namespace

TEST_CASE("cli::origin_guard_headline says why and how far the guard holds admission down") {
    const ConfiguredLimits limits{1000, 500};
    struct Case {
        const char* name;
        json status;
        std::string expected;
    };
    const Case cases[] = {
        {"slow", status_with("throttling", 900, 0.01, 120, 1000), "origin slow: admitting 120 a minute of 500"},
        {"failing", status_with("throttling", 200, 0.2, 120, 1000), "origin failing: admitting 120 a minute of 500"},
        {"slow and failing", status_with("throttling", 900, 0.2, 50, 1000), "origin slow and failing: admitting 50 a minute of 500"},
        {"back under target, still throttling", status_with("throttling", 400, 0.01, 120, 1000),
         "origin over target: admitting 120 a minute of 500"},
        {"active users lowered too", status_with("throttling", 900, 0, 120, 800),
         "origin slow: admitting 120 a minute of 500, 800 active of 1000"},
        {"recovering", status_with("recovering", 300, 0, 300, 1000), "origin recovering: admitting 300 a minute of 500"},
        {"content", status_with("content", 300, 0, 500, 1000), ""},
        {"off", status_with("off", 3000, 0.5, 500, 1000), ""},
        {"a status without the fields", json{{"status", "queueing"}, {"event_id", ""}}, ""},
        {"no effective limit", json{{"origin_guard", {{"state", "throttling"}}}}, ""},
        {"not an object", json::array(), ""},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(wr::cli::origin_guard_headline(c.status, limits, k_guard) == c.expected);
    }
    // During an event the configured limit is the event's.
    CHECK(wr::cli::origin_guard_headline(status_with("throttling", 900, 0, 120, 2000), {2000, 800}, k_guard) ==
          "origin slow: admitting 120 a minute of 800");
}

TEST_CASE("cli::origin_figures gives the origin's p95 and error rate, with the targets while the guard is on") {
    CHECK(wr::cli::origin_figures(status_with("throttling", 912.4, 0.004, 120, 1000), k_guard) ==
          "origin p95 time to first byte 912 ms (target 500 ms), errors 0.4 % (at most 5 %)");
    json off = k_guard;
    off["enabled"] = false;
    CHECK(wr::cli::origin_figures(status_with("off", 80, 0, 500, 1000), off) == "origin p95 time to first byte 80 ms, errors 0 %");
    CHECK(wr::cli::origin_figures(json{{"origin_guard", {{"state", "off"}, {"p95_ttfb_ms", nullptr}, {"error_rate", 0.125}}}}, k_guard) ==
          "origin errors 12.5 % (at most 5 %)");
    CHECK(wr::cli::origin_figures(json{{"status", "queueing"}}, k_guard) == "");
}

TEST_CASE("cli::percent_text writes fractions as short percentages") {
    CHECK(wr::cli::percent_text(0) == "0 %");
    CHECK(wr::cli::percent_text(0.05) == "5 %");
    CHECK(wr::cli::percent_text(0.004) == "0.4 %");
    CHECK(wr::cli::percent_text(0.125) == "12.5 %");
    CHECK(wr::cli::percent_text(0.0004) == "< 0.1 %");
    CHECK(wr::cli::percent_text(1) == "100 %");
}
