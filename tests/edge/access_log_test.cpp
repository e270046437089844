// The access log's lines (both formats, hostile bytes included), request ids, and the writer's
// bound when its file cannot keep up.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "edge/access_log.h"
#include "edge/request_id.h"
#include "support/eventually.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::edge::AccessLogFormat;
using wr::edge::AccessRecord;
using wr::edge::Decision;

namespace {

AccessRecord sample() {
    AccessRecord record;
    const auto started = std::chrono::steady_clock::time_point{} + 1h;
    record.begin(wr::test::k_test_start + 1234ms, started);
    record.client = "203.0.113.9";
    record.method = "GET";
    record.target = "/shop?q=1";
    record.host = "shop.example.com";
    record.referer = "https://example.com/";
    record.user_agent = "Mozilla/5.0";
    record.status = 200;
    record.bytes_in = 12;
    record.bytes_out = 2326;
    record.origin_first_byte_us = 4567;
    record.zone = "example.com";
    record.room = "shop";
    record.decision = Decision::admitted;
    record.new_visitor = true;
    wr::edge::RequestIdSource ids(7);
    ids.take_or_make("req-1", record.request_id);
    return record;
}

std::string line(const AccessRecord& record, AccessLogFormat format) {
    std::string out;
    wr::edge::SecondText seconds;
    wr::edge::format_access_line(out, format, record, "edge-1", record.started + 12345us, seconds);
    return out;
}

} // namespace

TEST_CASE("edge access log: a JSON line carries every field") {
    const std::string text = line(sample(), AccessLogFormat::json);
    REQUIRE(text.back() == '\n');
    CHECK(text.find('\n') == text.size() - 1);
    const json parsed = json::parse(text);
    CHECK(parsed == json::parse(R"j({"time":"2026-11-22T10:00:01.234Z","client":"203.0.113.9","host":"shop.example.com","method":"GET",
        "target":"/shop?q=1","protocol":"HTTP/1.1","status":200,"bytes_in":12,"bytes_out":2326,"duration_ms":12.345,
        "origin_first_byte_ms":4.567,"zone":"example.com","room":"shop","decision":"admitted","new_visitor":true,"node":"edge-1",
        "request_id":"req-1","referer":"https://example.com/","user_agent":"Mozilla/5.0"})j"));
    AccessRecord refused = sample();
    refused.room = {};
    refused.zone = {};
    refused.origin_first_byte_us = -1;
    const json no_room = json::parse(line(refused, AccessLogFormat::json));
    CHECK(no_room["room"].is_null());
    CHECK(no_room["zone"].is_null());
    CHECK(no_room["origin_first_byte_ms"].is_null());
}

TEST_CASE("edge access log: a combined line is nginx's, and hostile bytes stay inside their field") {
    CHECK(line(sample(), AccessLogFormat::combined) ==
          "203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] \"GET /shop?q=1 HTTP/1.1\" 200 2326 \"https://example.com/\" \"Mozilla/5.0\"\n");
    AccessRecord hostile = sample();
    hostile.target = std::string("/a\"b\\c\x01\xff\n", 9);
    hostile.user_agent = "x\" \"y";
    hostile.referer.clear();
    const std::string combined = line(hostile, AccessLogFormat::combined);
    CHECK(combined ==
          "203.0.113.9 - - [22/Nov/2026:10:00:01 +0000] \"GET /a\\x22b\\x5Cc\\x01\\xFF\\x0A HTTP/1.1\" 200 2326 \"-\" \"x\\x22 \\x22y\"\n");
    const std::regex k_combined(R"re(^(\S+) - - \[([^\]]+)\] "([^"]*)" (\d{3}) (\d+) "([^"]*)" "([^"]*)"\n$)re");
    CHECK(std::regex_match(combined, k_combined));
    // JSON: valid whatever the bytes (invalid UTF-8 as \u00XX), and valid UTF-8 kept as it is.
    hostile.user_agent = "caf\xc3\xa9";
    const json parsed = json::parse(line(hostile, AccessLogFormat::json));
    CHECK(parsed["target"] == "/a\"b\\c\x01\xc3\xbf\n");
    CHECK(parsed["user_agent"] == "caf\xc3\xa9");
}

TEST_CASE("edge access log: a JSON line is well-formed UTF-8 whatever the bytes, ill-formed sequences escaped byte by byte") {
    // What looks like a sequence but is not one by RFC 3629: surrogates, past U+10FFFF, overlong
    // forms, leads that start nothing, a sequence cut short. Each byte becomes U+00XX.
    const auto as_code_points = [](std::string_view bytes) {
        std::string text;
        for (const char c : bytes) {
            const auto b = static_cast<unsigned char>(c);
            if (b < 0x80) text += c;
            else text += {static_cast<char>(0xc0 | (b >> 6)), static_cast<char>(0x80 | (b & 0x3f))};
        }
        return text;
    };
    AccessRecord record = sample();
    for (const std::string ill : {"\xed\xa0\x80", "\xed\xbf\xbf", "\xf4\x90\x80\x80", "\xe0\x80\x80", "\xe0\x9f\xbf",
                                  "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xc0\x80", "\xc1\xbf", "\xf5\x80\x80\x80",
                                  "\xf8\x88\x80\x80\x80", "\xff", "\xe2\x82", "\xf0\x9f\x98"}) {
        record.user_agent = "a" + ill + "b";
        const std::string json_line = line(record, AccessLogFormat::json);
        json parsed;
        REQUIRE_NOTHROW(parsed = json::parse(json_line)); // the library refuses ill-formed UTF-8
        CHECK(parsed["user_agent"] == "a" + as_code_points(ill) + "b");
    }
    // The well-formed neighbours of those go as they are.
    for (const std::string well : {"\xed\x9f\xbf", "\xee\x80\x80", "\xf4\x8f\xbf\xbf", "\xe0\xa0\x80", "\xf0\x90\x80\x80",
                                   "\xf0\x9f\x98\x80", "\xc2\x80"}) {
        record.user_agent = "a" + well + "b";
        const std::string json_line = line(record, AccessLogFormat::json);
        CHECK(json_line.ends_with(",\"user_agent\":\"a" + well + "b\"}\n"));
    }
}

TEST_CASE("edge access log: every byte, at every place in a field, is escaped as one byte at a time would") {
    // The scan looks at eight bytes at once, gathered by overlapping loads in a field of up to 16
    // (one to three bytes, four to seven, eight to 16) and block by block in a longer one: a byte
    // to escape must be found wherever it sits, in fields of every kind of length.
    const auto json_expected = [](unsigned char c) -> std::string {
        static constexpr char k_hex[] = "0123456789abcdef";
        if (c == '"' || c == '\\') return std::string{'\\', static_cast<char>(c)};
        if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
        return std::string{'\\', 'u', '0', '0', k_hex[c >> 4], k_hex[c & 15]}; // alone, a byte >= 0x80 is not UTF-8
    };
    const auto combined_expected = [](unsigned char c) -> std::string {
        static constexpr char k_hex[] = "0123456789ABCDEF";
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) return std::string{'\\', 'x', k_hex[c >> 4], k_hex[c & 15]};
        return std::string(1, static_cast<char>(c));
    };
    AccessRecord record = sample();
    for (const size_t length : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24}) {
        for (size_t at = 0; at < length; ++at) {
            for (int c = 0; c < 256; ++c) {
                std::string field(length, 'a');
                field[at] = static_cast<char>(c);
                record.user_agent = field;
                const std::string json_line = line(record, AccessLogFormat::json);
                const std::string json_field = std::string(at, 'a') + json_expected(static_cast<unsigned char>(c)) +
                                               std::string(length - at - 1, 'a');
                REQUIRE_MESSAGE(json_line.ends_with(",\"user_agent\":\"" + json_field + "\"}\n"), length, " ", at, " ", c);
                const std::string combined_line = line(record, AccessLogFormat::combined);
                const std::string combined_field = std::string(at, 'a') + combined_expected(static_cast<unsigned char>(c)) +
                                                   std::string(length - at - 1, 'a');
                REQUIRE_MESSAGE(combined_line.ends_with(" \"" + combined_field + "\"\n"), length, " ", at, " ", c);
            }
        }
    }
}

TEST_CASE("edge access log: a thread's buffer writes the lines format_access_line makes, across hand-overs and long fields") {
    wr::test::TempDir dir;
    const auto path = dir.path() / "access.log";
    wr::util::LineWriterCounters counters;
    wr::util::LineWriter writer(path.string(), 8 * 1024 * 1024, counters);
    writer.start();
    wr::edge::AccessLogBuffer buffer(&writer, AccessLogFormat::json, "edge \"1\"", &counters);
    std::string expected;
    wr::edge::SecondText seconds;
    AccessRecord record = sample();
    for (int i = 0; i < 1000; ++i) {
        // Now and then a field far longer than a line's usual room, and one to escape throughout.
        record.target = i % 97 == 0 ? "/" + std::string(20000, '"') : "/item/" + std::to_string(i);
        record.status = 200 + i % 300;
        const auto finished = record.started + std::chrono::microseconds(i);
        buffer.append(record, finished);
        wr::edge::format_access_line(expected, AccessLogFormat::json, record, "edge \"1\"", finished, seconds);
    }
    CHECK(wr::test::eventually([&] { return buffer.empty_after_flush(); }));
    writer.stop();
    CHECK(counters.written.load() == 1000);
    CHECK(counters.dropped.load() == 0);
    std::ifstream in(path, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(written.size() == expected.size());
    CHECK(written == expected);
}

TEST_CASE("util::LineWriter writes a few lines within moments, without waiting for a full batch") {
    wr::test::TempDir dir;
    const auto path = dir.path() / "few.log";
    wr::util::LineWriterCounters counters;
    wr::util::LineWriter writer(path.string(), 8 * 1024 * 1024, counters);
    writer.start();
    std::string buffer = "one line\n";
    REQUIRE(wr::test::eventually([&] { return writer.submit(buffer, buffer.size(), 1); }));
    CHECK(wr::test::eventually([&] { return counters.written.load() == 1; }, 2s, 10ms));
    CHECK(std::filesystem::file_size(path) == 9);
    writer.stop();
}

TEST_CASE("edge request ids: generated ids are 32 hex characters and differ; a proxy's is used only when it is plain") {
    wr::edge::RequestIdSource ids(42);
    std::set<std::string> seen;
    wr::edge::RequestId id;
    for (int i = 0; i < 10000; ++i) {
        ids.next(id);
        REQUIRE(id.size == 32);
        CHECK(id.view().find_first_not_of("0123456789abcdef") == std::string_view::npos);
        seen.insert(std::string(id.view()));
    }
    CHECK(seen.size() == 10000);
    ids.take_or_make("f3a9-01:lb.7_x", id);
    CHECK(id.view() == "f3a9-01:lb.7_x");
    for (const std::string_view bad : {std::string_view(""), std::string_view("has space"), std::string_view("<script>"),
                                       std::string_view("a\r\nX-Injected: 1")}) {
        ids.take_or_make(bad, id);
        CHECK(id.size == 32);
    }
    ids.take_or_make(std::string(65, 'a'), id);
    CHECK(id.size == 32);
    ids.take_or_make(std::string(64, 'a'), id);
    CHECK(id.size == 64);
}

TEST_CASE("util::LineWriter drops and counts lines beyond its bound when the file cannot keep up, and never blocks the producer") {
    wr::test::TempDir dir;
    const std::string fifo = (dir.path() / "log.fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK); // opened, never read: the pipe fills
    REQUIRE(reader >= 0);
    wr::util::LineWriterCounters counters;
    wr::util::LineWriter writer(fifo, 16 * 1024, counters);
    writer.start();
    const std::string one(99, 'x');
    uint64_t handed = 0;
    const auto started = std::chrono::steady_clock::now();
    for (int round = 0; round < 400; ++round) {
        std::string buffer;
        for (int i = 0; i < 10; ++i) buffer += one + "\n";
        while (!writer.submit(buffer, buffer.size(), 10)) {}
        handed += 10;
    }
    CHECK(std::chrono::steady_clock::now() - started < 1s); // 400 KB into a 64 KB pipe: nothing waited
    // The pipe and the queue hold what fits; the rest is counted as dropped, not held.
    CHECK(wr::test::eventually([&] { return counters.dropped.load() > 0; }));
    // Once the reader drains the pipe, what was queued gets written: every line is written or dropped.
    std::string drained;
    char chunk[65536];
    CHECK(wr::test::eventually([&] {
        ssize_t got;
        while ((got = ::read(reader, chunk, sizeof chunk)) > 0) drained.append(chunk, static_cast<size_t>(got));
        return counters.written.load() + counters.dropped.load() == handed;
    }));
    CHECK(counters.dropped.load() >= handed / 2);
    writer.stop();
    ssize_t got;
    while ((got = ::read(reader, chunk, sizeof chunk)) > 0) drained.append(chunk, static_cast<size_t>(got));
    CHECK(static_cast<uint64_t>(std::count(drained.begin(), drained.end(), '\n')) == counters.written.load());
    ::close(reader);
}

TEST_CASE("edge access log: a Turnstile token in the target is logged as redacted, the rest as sent") {
    std::string logged;
    wr::edge::assign_logged_target(logged, "/tickets?day=2&cf_wr_turnstile=0.secret-token&x=1");
    CHECK(logged == "/tickets?day=2&cf_wr_turnstile=redacted&x=1");
    wr::edge::assign_logged_target(logged, "/?cf_wr_turnstile=abc");
    CHECK(logged == "/?cf_wr_turnstile=redacted");
    wr::edge::assign_logged_target(logged, "/path/cf_wr_turnstile=kept?a=b");
    CHECK(logged == "/path/cf_wr_turnstile=kept?a=b");
    wr::edge::assign_logged_target(logged, "/plain?q=1");
    CHECK(logged == "/plain?q=1");
}
