// ISO 8601 timestamps as the API writes and reads them, and durations as logs print them.
#include <doctest/doctest.h>

#include <string>

#include "support/test_server.h"
#include "util/time_format.h"

using namespace std::chrono_literals;
using wr::test::k_test_start;
using wr::util::TimePoint;

TEST_CASE("util::format_iso8601 writes UTC with milliseconds") {
    struct Case {
        const char* name;
        TimePoint time;
        std::string expected;
    };
    const Case cases[] = {
        {"the test start", k_test_start, "2026-11-22T10:00:00.000Z"},
        {"milliseconds", k_test_start + 7ms, "2026-11-22T10:00:00.007Z"},
        {"every field", k_test_start + 13h + 59min + 58s + 999ms, "2026-11-22T23:59:58.999Z"},
        {"the epoch", TimePoint{}, "1970-01-01T00:00:00.000Z"},
        {"before the epoch", TimePoint{} - 1ms, "1969-12-31T23:59:59.999Z"},
        {"a leap day", TimePoint{std::chrono::sys_days{std::chrono::year{2028} / 2 / 29}}, "2028-02-29T00:00:00.000Z"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(wr::util::format_iso8601(c.time) == c.expected);
    }
}

TEST_CASE("util::parse_iso8601 reads Z, offsets and fractions") {
    struct Case {
        const char* text;
        TimePoint expected;
    };
    const Case cases[] = {
        {"2026-11-22T10:00:00Z", k_test_start},
        {"2026-11-22T10:00:00.000Z", k_test_start},
        {"2026-11-22t10:00:00z", k_test_start},
        {"2026-11-22 10:00:00Z", k_test_start},
        {"2026-11-22T10:00:00.5Z", k_test_start + 500ms},
        {"2026-11-22T10:00:00.12Z", k_test_start + 120ms},
        {"2026-11-22T10:00:00.123Z", k_test_start + 123ms},
        {"2026-11-22T10:00:00.1239999Z", k_test_start + 123ms}, // digits past milliseconds are cut, not rounded
        {"2026-11-22T11:00:00.5+01:00", k_test_start + 500ms},
        {"2026-11-22T05:30:00-04:30", k_test_start},
        {"2026-11-22T10:00:00+00:00", k_test_start},
        {"2026-11-22T10:00:00-00:00", k_test_start},
        {"2026-11-23T00:30:00+14:30", k_test_start}, // the offset moves the date back
        {"2026-11-21T23:01:00-10:59", k_test_start},
        {"2028-02-29T00:00:00Z", TimePoint{std::chrono::sys_days{std::chrono::year{2028} / 2 / 29}}},
        {"1970-01-01T00:00:00Z", TimePoint{}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.text);
        const auto parsed = wr::util::parse_iso8601(c.text);
        REQUIRE(parsed);
        CHECK(*parsed == c.expected);
    }
}

TEST_CASE("util::parse_iso8601 refuses times without a zone, impossible dates and malformed text") {
    for (const char* text : {
             "",
             "2026-11-22T10:00:00",        // no zone: ambiguous
             "2026-11-22T10:00:00.000",    // no zone after a fraction
             "2026-11-22",                 // a date alone
             "2026-11-22T10:00Z",          // no seconds
             "2026-02-30T10:00:00Z",       // February has no 30th
             "2027-02-29T10:00:00Z",       // 2027 is not a leap year
             "2026-04-31T10:00:00Z",       // April has 30 days
             "2026-13-01T10:00:00Z",       // month 13
             "2026-00-10T10:00:00Z",       // month 0
             "2026-11-00T10:00:00Z",       // day 0
             "2026-11-22T24:00:00Z",       // hour 24
             "2026-11-22T10:60:00Z",       // minute 60
             "2026-11-22T10:00:60Z",       // second 60
             "2026-11-22T10:00:00.Z",      // a dot without digits
             "2026-11-22T10:00:00+0100",   // offset without colon
             "2026-11-22T10:00:00+01",     // offset without minutes
             "2026-11-22T10:00:00+24:00",  // offset hour out of range
             "2026-11-22T10:00:00+01:60",  // offset minute out of range
             "2026-11-22T10:00:00Z ",      // trailing text
             " 2026-11-22T10:00:00Z",      // leading text
             "2026-11-22T10:00:00ZZ",
             "2026/11/22T10:00:00Z",
             "26-11-22T10:00:00Z",
             "2026-11-22X10:00:00Z",
             "2026-1-22T10:00:00Z",
             "2026-11-22T1:00:00Z",
             "2026-11-22T10:00:00 UTC",
             "tomorrow",
         }) {
        CAPTURE(text);
        CHECK_FALSE(wr::util::parse_iso8601(text));
    }
}

TEST_CASE("util::parse_iso8601 reads back what format_iso8601 writes") {
    for (const TimePoint time : {k_test_start, k_test_start + 1ms, k_test_start + 999ms, TimePoint{} - 1ms,
                                 TimePoint{std::chrono::sys_days{std::chrono::year{2099} / 12 / 31} + 23h + 59min + 59s}}) {
        const std::string text = wr::util::format_iso8601(time);
        CAPTURE(text);
        const auto parsed = wr::util::parse_iso8601(text);
        REQUIRE(parsed);
        CHECK(*parsed == time);
    }
}

TEST_CASE("util::format_duration names hours, minutes and seconds in words") {
    struct Case {
        wr::util::Milliseconds duration;
        std::string expected;
    };
    const Case cases[] = {
        {0ms, "0 seconds"},
        {999ms, "0 seconds"},
        {1s, "1 second"},
        {45s, "45 seconds"},
        {59s + 999ms, "59 seconds"},
        {60s, "1 minute"},
        {90s, "1 minute"}, // from a minute on, seconds are left out
        {2min, "2 minutes"},
        {59min + 59s, "59 minutes"},
        {1h, "1 hour"},
        {1h + 1min, "1 hour 1 minute"},
        {2h + 5min, "2 hours 5 minutes"},
        {2h + 30s, "2 hours"},
        {25h, "25 hours"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.duration.count());
        CHECK(wr::util::format_duration(c.duration) == c.expected);
    }
}
