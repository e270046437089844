// The edge's access log and request ids, against a running server: a line for each of wr's
// decisions (read back as JSON and as combined), the id the origin receives and the error page
// shows, lines dropped and counted (never waited for) when the file cannot keep up, and SIGUSR1
// reopening the file after rotation with a real `wr serve`.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "support/browser.h"
#include "support/eventually.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/raw_http.h"
#include "support/shop_room.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::test::Browser;
using wr::test::EdgeReply;
using wr::test::eventually;
using wr::test::raw_exchange;
using wr::test::TestOrigin;
using wr::test::TestServer;

namespace {

std::vector<std::string> lines_of(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The log's JSON lines once there are `count` of them.
std::vector<json> json_lines(const std::filesystem::path& file, size_t count) {
    std::vector<std::string> lines;
    eventually([&] { return (lines = lines_of(file)).size() >= count; });
    REQUIRE_MESSAGE(lines.size() == count, lines.size());
    std::vector<json> parsed;
    for (const std::string& line : lines) {
        const json entry = json::parse(line, nullptr, false);
        REQUIRE_MESSAGE(!entry.is_discarded(), line);
        parsed.push_back(entry);
    }
    return parsed;
}

std::function<void(wr::AppOptions&)> access_log(const std::filesystem::path& file, const std::string& format) {
    return [file, format](wr::AppOptions& options) {
        options.access_log = file.string();
        options.access_log_format = format;
        options.header_timeout = 1s;
        options.edge_max_body_bytes = 1024;
        options.edge_threads = 1; // one thread's buffer: the lines come in the order of the requests
    };
}

// The requests the decisions test sends, one per decision, in order.
void send_one_of_each(TestServer& wr, const TestOrigin& origin) {
    wr::test::set_up_shop(wr, origin);
    wr.create_room("example.com", {{"name", "line"}, {"host", "line.example.com"}, {"total_active_users", 200},
                                   {"new_users_per_minute", 200}, {"queue_all", true}});
    wr.create_room("example.com", {{"name", "closed"}, {"host", "closed.example.com"}, {"total_active_users", 200},
                                   {"new_users_per_minute", 200}, {"queueing_method", "reject"}});
    wr.create_room("example.com", {{"name", "open"}, {"host", "open.example.com"}, {"total_active_users", 200},
                                   {"new_users_per_minute", 200}, {"queueing_method", "passthrough"}});
    REQUIRE(wr.post(wr::test::k_shop_path + "/rules", {{"expression", R"(http.request.uri.path eq "/health")"}}).status == 200);
    wr.sync_edge();

    Browser shopper(wr.edge_port(), "shop.example.com");
    REQUIRE(shopper.get("/echo?first").from_origin());                  // admitted, new
    REQUIRE(shopper.get("/echo?again").from_origin());                  // admitted, known
    REQUIRE(Browser(wr.edge_port(), "shop.example.com").get("/health").status == 404); // bypassed (the origin has no /health)
    REQUIRE(Browser(wr.edge_port(), "line.example.com").get("/").status == 200);       // queued
    REQUIRE(Browser(wr.edge_port(), "closed.example.com").get("/").status == 200);     // rejected
    REQUIRE(Browser(wr.edge_port(), "open.example.com").get("/echo").from_origin());   // passthrough
    REQUIRE(Browser(wr.edge_port(), "example.com").get("/echo").from_origin());        // no room
    REQUIRE(Browser(wr.edge_port(), "unknown.test").get("/").status == 421);           // misdirected
    const int port = wr.edge_port();
    REQUIRE(raw_exchange(port, "GET / HTTP/1.1\r\nHost: shop.example.com\r\nHost: other.test\r\n\r\n").status == 400);
    REQUIRE(raw_exchange(port, "GET / HTTP/1.1\r\nHost: shop.example.com\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n").status == 431);
    REQUIRE(raw_exchange(port, "POST /echo HTTP/1.1\r\nHost: shop.example.com\r\nContent-Length: 5000\r\n\r\n").status == 413);
    REQUIRE(raw_exchange(port, "GET / HTTP/1.1\r\nHost: shop.exa", 3s).status == 408);
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: the access log has a JSON line for each of wr's decisions, with what an operator asks of it") {
    wr::test::TempDir dir;
    const auto file = dir.path() / "access.log";
    TestOrigin origin;
    TestServer wr({}, access_log(file, "json"));
    send_one_of_each(wr, origin);
    const std::vector<json> lines = json_lines(file, 12);
    struct Expected {
        std::string host, decision;
        int status;
        bool new_visitor;
        std::string room;
    };
    const Expected expected[] = {
        {"shop.example.com", "admitted", 200, true, "shop"},     {"shop.example.com", "admitted", 200, false, "shop"},
        {"shop.example.com", "bypassed", 404, false, "shop"},    {"line.example.com", "queued", 200, true, "line"},
        {"closed.example.com", "rejected", 200, true, "closed"}, {"open.example.com", "passthrough", 200, true, "open"},
        {"example.com", "no_room", 200, false, ""},              {"unknown.test", "misdirected", 421, false, ""},
        {"shop.example.com", "bad_request", 400, false, ""},     {"", "headers_too_large", 431, false, ""},
        {"shop.example.com", "body_too_large", 413, false, ""},  {"", "request_timeout", 408, false, ""},
    };
    for (size_t i = 0; i < lines.size(); ++i) {
        const json& line = lines[i];
        CAPTURE(line.dump());
        CHECK(line["decision"] == expected[i].decision);
        CHECK(line["status"] == expected[i].status);
        CHECK(line["host"] == expected[i].host);
        CHECK(line["new_visitor"] == expected[i].new_visitor);
        CHECK(line["room"] == (expected[i].room.empty() ? json(nullptr) : json(expected[i].room)));
        CHECK(line["client"] == "127.0.0.1");
        CHECK(line["node"] == "wr");
        CHECK(line["protocol"] == "HTTP/1.1");
        CHECK(line["request_id"].get<std::string>().size() == 32);
        CHECK(line["duration_ms"].get<double>() >= 0);
        CHECK(line["bytes_out"].get<int64_t>() > 0);
    }
    // Proxied requests carry the origin's time to first byte; wr's own answers have none.
    CHECK(lines[0]["origin_first_byte_ms"].get<double>() > 0);
    CHECK(lines[0]["method"] == "GET");
    CHECK(lines[0]["target"] == "/echo?first");
    CHECK(lines[0]["zone"] == "example.com");
    CHECK(lines[3]["origin_first_byte_ms"].is_null());
    CHECK(lines[7]["zone"].is_null());
    CHECK(lines[10]["method"] == "POST");
    CHECK(lines[11]["method"] == ""); // the head never arrived whole
    // A request is timed from its head's first byte: this one waited out the 1 s header timeout.
    CHECK(lines[11]["duration_ms"].get<double>() >= 1000);
}

TEST_CASE("integration: the access log in combined format is nginx's, one line per request") {
    wr::test::TempDir dir;
    const auto file = dir.path() / "access.log";
    TestOrigin origin;
    TestServer wr({}, access_log(file, "combined"));
    send_one_of_each(wr, origin);
    std::vector<std::string> lines;
    eventually([&] { return (lines = lines_of(file)).size() >= 12; });
    REQUIRE(lines.size() == 12);
    const std::regex k_combined(R"re(^(\S+) - - \[(\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} \+0000)\] "([^"]*)" (\d{3}) (\d+) "([^"]*)" "([^"]*)"$)re");
    std::vector<int> statuses;
    for (const std::string& line : lines) {
        std::smatch fields;
        REQUIRE_MESSAGE(std::regex_match(line, fields, k_combined), line);
        CHECK(fields[1] == "127.0.0.1");
        statuses.push_back(std::stoi(fields[4]));
    }
    CHECK(statuses == std::vector<int>{200, 200, 404, 200, 200, 200, 200, 421, 400, 431, 413, 408});
    CHECK(lines[0].find("\"GET /echo?first HTTP/1.1\" 200 ") != std::string::npos);
    CHECK(lines[11].find("\"-\" 408 ") != std::string::npos); // no request line to show
}

TEST_CASE("integration: a request id reaches the origin, the log and wr's error pages; a visitor's own is believed only from a trusted proxy") {
    wr::test::TempDir dir;
    const auto file = dir.path() / "access.log";
    TestOrigin origin;
    {
        TestServer wr({}, access_log(file, "json"));
        wr::test::set_up_shop(wr, origin);
        Browser visitor(wr.edge_port(), "shop.example.com");
        const EdgeReply echoed = visitor.get("/echo", {{"X-Request-Id", "forged-by-visitor"}});
        REQUIRE(echoed.from_origin());
        const std::string at_origin = json::parse(echoed.body)["headers"]["X-Request-Id"];
        CHECK(at_origin.size() == 32);
        CHECK(at_origin != "forged-by-visitor");
        const EdgeReply misdirected = Browser(wr.edge_port(), "nowhere.test").get("/");
        CHECK(misdirected.status == 421);
        const std::string shown = misdirected.header("X-Request-Id");
        CHECK(misdirected.body.find("Request id: <code>" + shown + "</code>") != std::string::npos);
        const std::vector<json> lines = json_lines(file, 2);
        CHECK(lines[0]["request_id"] == at_origin);
        CHECK(lines[1]["request_id"] == shown);
    }
    std::filesystem::remove(file);
    TestServer behind_proxy({}, [&](wr::AppOptions& options) {
        access_log(file, "json")(options);
        options.trusted_proxies = {"127.0.0.1"};
    });
    wr::test::set_up_shop(behind_proxy, origin);
    const EdgeReply echoed =
        Browser(behind_proxy.edge_port(), "shop.example.com").get("/echo", {{"X-Request-Id", "lb-7f3a:42"}, {"X-Forwarded-For", "198.51.100.4"}});
    CHECK(json::parse(echoed.body)["headers"]["X-Request-Id"] == "lb-7f3a:42");
    const std::vector<json> lines = json_lines(file, 1);
    CHECK(lines[0]["request_id"] == "lb-7f3a:42");
    CHECK(lines[0]["client"] == "198.51.100.4"); // the client as judged, not the proxy
}

TEST_CASE("integration: an origin that cannot be reached: a 502 page naming the request id, and a line that says so") {
    wr::test::TempDir dir;
    const auto file = dir.path() / "access.log";
    TestServer wr({}, access_log(file, "json"));
    wr::test::set_up_shop(wr, "http://127.0.0.1:1", json::object()); // nothing listens on port 1
    const EdgeReply failed = Browser(wr.edge_port(), "shop.example.com").get("/cart");
    REQUIRE(failed.status == 502);
    const std::string shown = failed.header("X-Request-Id");
    CHECK(shown.size() == 32);
    CHECK(failed.body.find("Request id: <code>" + shown + "</code>") != std::string::npos);
    const std::vector<json> lines = json_lines(file, 1);
    CHECK(lines[0]["request_id"] == shown);
    CHECK(lines[0]["status"] == 502);
    CHECK(lines[0]["decision"] == "admitted"); // wr let the visitor in; the origin failed
    CHECK(lines[0]["origin_first_byte_ms"].is_null());
    CHECK(lines[0]["bytes_out"].get<int64_t>() > 0);
}

TEST_CASE("integration: when the access log cannot keep up, lines are dropped and counted, and visitors never wait for it") {
    wr::test::TempDir dir;
    const std::string fifo = (dir.path() / "access.fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK); // a reader that never reads: the pipe fills
    REQUIRE(reader >= 0);
    TestOrigin origin;
    TestServer wr({}, [&](wr::AppOptions& options) {
        options.access_log = fifo;
        options.access_log_format = "json";
        options.access_log_max_pending = 32 * 1024;
    });
    wr::test::set_up_shop(wr, origin, {{"queue_all", true}});
    Browser visitor(wr.edge_port(), "shop.example.com");
    const std::string long_target = "/?" + std::string(800, 'q'); // about 1.3 KB a line: the 64 KB pipe fills in 50
    constexpr int k_requests = 600;
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < k_requests; ++i) REQUIRE(visitor.get(long_target).status == 200);
    CHECK(std::chrono::steady_clock::now() - started < 20s); // every answer came, none waited on the log
    const auto counters = [&] {
        const wr::test::Exposition metrics = wr::test::parse_prometheus(wr.get("/metrics").text);
        return std::pair{metrics.value("wr_access_log_lines_total", {{"node", "wr"}}),
                         metrics.value("wr_access_log_lines_dropped_total", {{"node", "wr"}})};
    };
    CHECK(eventually([&] { return counters().second > 0; }));
    // Reading the pipe lets the queued lines out: every line is written or counted as dropped.
    std::string drained;
    char chunk[65536];
    CHECK(eventually([&] {
        ssize_t got;
        while ((got = ::read(reader, chunk, sizeof chunk)) > 0) drained.append(chunk, static_cast<size_t>(got));
        const auto [written, dropped] = counters();
        return written + dropped == k_requests;
    }));
    const auto [written, dropped] = counters();
    CHECK(dropped > k_requests / 2);
    ssize_t got;
    while ((got = ::read(reader, chunk, sizeof chunk)) > 0) drained.append(chunk, static_cast<size_t>(got));
    CHECK(static_cast<double>(std::count(drained.begin(), drained.end(), '\n')) == written);
    ::close(reader);
}

TEST_CASE("integration: SIGUSR1 makes wr serve reopen its access log after rotation, and a reopen that fails is said") {
    wr::test::TempDir dir;
    const auto file = dir.path() / "access.log";
    wr::test::BackgroundProcess wr({WR_BINARY, "serve", "--data-dir", (dir.path() / "data").string(), "--admin-listen", "127.0.0.1:0",
                                    "--edge-listen", "127.0.0.1:0", "--edge-threads", "1", "--access-log", file.string(),
                                    "--access-log-format", "combined"},
                                   "API listening on", true);
    const int edge_port = wr::test::port_after(wr.output(), "edge: listening on"); // said before the API's line
    const auto send = [&](const std::string& path) {
        return raw_exchange(edge_port, "GET " + path + " HTTP/1.1\r\nHost: nowhere.test\r\nConnection: close\r\n\r\n").status;
    };
    REQUIRE(send("/before") == 421);
    REQUIRE(eventually([&] { return lines_of(file).size() == 1; }));
    std::filesystem::rename(file, dir.path() / "access.log.1");
    REQUIRE(send("/between") == 421); // still written to the renamed file, as logrotate expects
    REQUIRE(eventually([&] { return lines_of(dir.path() / "access.log.1").size() == 2; }));
    wr.send_signal(SIGUSR1);
    // The signal is handled between requests: ask until a line lands in the new file.
    REQUIRE(eventually([&] {
        send("/after");
        return std::filesystem::exists(file) && !lines_of(file).empty();
    }));
    CHECK(lines_of(file)[0].find("GET /after HTTP/1.1") != std::string::npos);
    const auto rotated = lines_of(dir.path() / "access.log.1");
    CHECK(rotated[0].find("GET /before") != std::string::npos);
    CHECK(rotated[1].find("GET /between") != std::string::npos);

    // A path that cannot be opened (here a directory took its place): the writer keeps the file
    // it has, and says so rather than letting the operator believe the rotation worked.
    std::filesystem::rename(file, dir.path() / "access.log.2");
    std::filesystem::create_directory(file);
    wr.send_signal(SIGUSR1);
    std::this_thread::sleep_for(300ms); // the signal is handled between requests, the reopen on the writer's thread
    REQUIRE(send("/refused") == 421);
    REQUIRE(eventually([&] {
        const auto kept = lines_of(dir.path() / "access.log.2");
        return !kept.empty() && kept.back().find("GET /refused") != std::string::npos;
    }));
    wr.send_signal(SIGTERM);
    CHECK(wr.wait_exit(10s) == 0);
    const std::string log = wr.rest_of_output();
    CHECK(log.find("info log: reopened " + file.string()) != std::string::npos);
    CHECK(log.find("warn log: cannot open " + file.string() + " for writing") != std::string::npos);
    CHECK(log.find("lines still go to the file open before") != std::string::npos);
}

TEST_CASE("integration: --access-log - writes the lines to standard output") {
    wr::test::TempDir dir;
    // stdout and stderr come through one pipe here: the access log's lines are the JSON ones.
    wr::test::BackgroundProcess wr({WR_BINARY, "serve", "--data-dir", (dir.path() / "data").string(), "--admin-listen", "127.0.0.1:0",
                                    "--edge-listen", "127.0.0.1:0", "--edge-threads", "1", "--access-log", "-",
                                    "--access-log-format", "json"},
                                   "API listening on", true);
    const int edge_port = wr::test::port_after(wr.output(), "edge: listening on"); // said before the API's line
    REQUIRE(raw_exchange(edge_port, "GET /to-stdout HTTP/1.1\r\nHost: nowhere.test\r\nConnection: close\r\n\r\n").status == 421);
    wr.send_signal(SIGTERM); // lines still gathered are written before it exits
    REQUIRE(wr.wait_exit(10s) == 0);
    const std::string rest = wr.rest_of_output();
    std::vector<json> lines;
    std::istringstream in(rest);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line.front() == '{') lines.push_back(json::parse(line));
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["target"] == "/to-stdout");
    CHECK(lines[0]["status"] == 421);
    CHECK(lines[0]["decision"] == "misdirected");
}

} // TEST_SUITE
