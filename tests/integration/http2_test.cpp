// HTTP/2 on the TLS edge, end to end with real clients (curl and Node's http2 module, through
// tests/integration/h2_client.mjs) in front of wr-stream-origin: ALPN, many streams on one
// connection each decided and answered on its own, bodies streamed both ways, SSE, the limits,
// the drain's GOAWAY and the rapid-reset bound, and the flow control that keeps the edge's memory
// bounded whatever the bodies' sizes. Then cleartext HTTP/2 with prior knowledge on the plain
// edge (--edge-h2c): the same code behind the preface, HTTP/1.1 beside it, and without the flag
// the preface answered as before.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <set>

#include "support/eventually.h"
#include "support/heap_usage.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/raw_connection.h"
#include "support/shop_room.h"
#include "support/socket_queues.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/tls_files.h"

using nlohmann::json;
using wr::test::StreamOrigin;
using wr::test::TestServer;

namespace {

// Byte i of every /bytes body, and the FNV-1a of the first n of them (as h2_client.mjs reports it).
std::string pattern_hash(uint64_t n) {
    uint64_t hash = 1469598103934665603ull;
    for (uint64_t i = 0; i < n; ++i) hash = (hash ^ ((i * 31 + 7) & 255)) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
    return text;
}

const std::string k_client = std::string(WR_SOURCE_DIR) + "/tests/integration/h2_client.mjs";

// Runs h2_client.mjs; its JSON answer.
json h2_client(const std::string& arguments, const json& input = nullptr) {
    wr::test::TempDir temp;
    std::string command = "node " + k_client + " " + arguments;
    if (!input.is_null()) {
        std::ofstream(temp.path() / "plan.json") << input.dump();
        command += " < " + (temp.path() / "plan.json").string();
    }
    const std::string out = wr::test::command_output(command + " 2>&1");
    INFO(out.substr(0, 2000));
    const json parsed = json::parse(out.substr(0, out.find('\n')), nullptr, false);
    REQUIRE_FALSE(parsed.is_discarded());
    REQUIRE_FALSE(parsed.contains("failed"));
    return parsed;
}

json h2_requests(int port, const json& requests) { return h2_client("requests " + std::to_string(port), json{{"requests", requests}}); }
// The same over cleartext HTTP/2 with prior knowledge (h2c).
json h2c_requests(int port, const json& requests) {
    return h2_client("--cleartext requests " + std::to_string(port), json{{"requests", requests}});
}

// A reset attack's GOAWAY names the last stream the edge processed, counted on the edge's side of
// the wire however fast the client wrote: at most 200 resets a second (docs/http2.md), and the
// resets read may straddle two of the edge's seconds, so 401 streams at most (odd ids, the 401st
// is 801). Unbounded, the client opens 100,000 streams (or for 5 s).
void check_streams_before_calm(const json& attack) {
    MESSAGE("GOAWAY after " << attack["sent"] << " streams sent, the last it names " << attack["lastStream"]);
    REQUIRE(attack["lastStream"].is_number());
    CHECK(attack["lastStream"] <= 2 * (2 * 200 + 1) - 1);
}

// The name=value part of a Set-Cookie value.
std::string cookie_pair(const std::string& set_cookie) { return set_cookie.substr(0, set_cookie.find(';')); }

// The edge over TLS in front of the stream origin, with the shop room on it.
struct TlsShop {
    explicit TlsShop(json room = json::object(), const std::function<void(wr::AppOptions&)>& more = {})
        : tls(wr::test::write_self_signed_certificate(certificates.path())), wr(std::filesystem::path{}, [&](wr::AppOptions& options) {
              options.tls_certificate = tls.certificate.string();
              options.tls_private_key = tls.private_key.string();
              if (more) more(options);
          }) {
        wr::test::set_up_shop(wr, origin, std::move(room));
    }
    // `count` visitors admitted over HTTP/2; their cookies.
    std::vector<std::string> admit(int count) {
        json requests = json::array();
        for (int i = 0; i < count; ++i) requests.push_back({{"path", "/"}});
        const json out = h2_requests(wr.edge_port(), requests);
        std::vector<std::string> cookies;
        for (const json& result : out["results"]) {
            REQUIRE(result["headers"].contains("x-demo-origin"));
            cookies.push_back(cookie_pair(result["headers"]["set-cookie"][0]));
        }
        return cookies;
    }
    // The zone's origin connections capped at `connections`, requests waiting for one at most
    // `queue_timeout_seconds` (the zone's default when 0), the edge told.
    void cap_origin_connections(int connections, int queue_timeout_seconds = 0) {
        json fields = {{"max_origin_connections", connections}};
        if (queue_timeout_seconds > 0) fields["origin_queue_timeout_seconds"] = queue_timeout_seconds;
        const auto patched = wr.patch("/client/v4/zones/example.com", fields);
        REQUIRE_MESSAGE(patched.status == 200, patched.text);
        wr.sync_edge();
    }
    wr::test::TempDir certificates;
    wr::test::TlsFiles tls;
    StreamOrigin origin;
    TestServer wr;
};

// h2_client.mjs in a mode that holds its connection open until killed; started once it printed
// its JSON line (the one with `marker`).
wr::test::BackgroundProcess h2_client_holding(const std::vector<std::string>& arguments, const std::string& marker) {
    std::vector<std::string> command = {"/usr/bin/env", "node", k_client};
    command.insert(command.end(), arguments.begin(), arguments.end());
    return wr::test::BackgroundProcess(command, "\"" + marker + "\"");
}

// The stream origin's /stats once its figure `field` stopped moving (the same three times, 100 ms
// apart): the bytes between it and the edge are as far as they get.
json settled_origin_stats(const StreamOrigin& origin, const std::string& field) {
    json stats;
    uint64_t last = UINT64_MAX;
    int same = 0;
    const bool settled = wr::test::eventually(
        [&] {
            stats = json::parse(origin.stats(), nullptr, false);
            REQUIRE_FALSE(stats.is_discarded());
            const uint64_t value = stats[field].get<uint64_t>();
            same = value == last ? same + 1 : 0;
            last = value;
            return same >= 2;
        },
        std::chrono::seconds{6}, std::chrono::milliseconds{100});
    INFO(stats.dump());
    CHECK(settled);
    return stats;
}

// `streams` POSTs of 8 MiB each on one connection to an origin that reads none of them, sent as
// fast as the edge's windows let them; checks that what got into the edge and no further is
// within `bound`.
void push_unread_bodies(int streams, uint64_t bound) {
    constexpr uint64_t k_size = 8ull << 20;
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    wr::test::BackgroundProcess client = h2_client_holding(
        {"push", std::to_string(shop.wr.edge_port()), "/hold?ms=20000", std::to_string(streams), cookie, std::to_string(k_size)}, "pushed");
    const json pushed = json::parse(client.ready_line());
    const json origin = settled_origin_stats(shop.origin, "held");
    const wr::test::SocketQueues edge = wr::test::socket_queues_to(shop.origin.port());
    const uint64_t sent = pushed["sent"];
    // What reached the origin (its read-ahead and its receive queues) or is on its way there
    // (the edge's send queues) has left the edge; the rest of what the client sent is in the
    // edge, or on the wire to it, and all of that is within the windows the edge gave:
    //   sent <= bound + what the kernel holds between the edge and the origin.
    const uint64_t past = origin["held"].get<uint64_t>() + edge.unsent;
    INFO("client " << pushed.dump() << ", origin " << origin.dump() << ", the edge's unsent " << edge.unsent);
    CHECK(origin["holding"] == streams);
    CHECK(sent < streams * k_size); // the windows stopped the client, not the end of its bodies
    CHECK(sent - past <= bound);
    MESSAGE(streams << " streams: " << sent - past << " bytes in the edge of " << sent << " sent (bound " << bound << ")");
}

std::string curl_version(int port, const std::string& flag, const std::string& scheme = "https") {
    return wr::test::command_output("curl -sk " + flag + " -o /dev/null -w '%{http_version}' --resolve shop.example.com:" + std::to_string(port) +
                       ":127.0.0.1 " + scheme + "://shop.example.com:" + std::to_string(port) + "/");
}

// The plain edge (with --edge-h2c unless told otherwise) in front of the demo origin, whose /echo
// shows the request the origin got, with the shop room on it.
struct CleartextShop {
    explicit CleartextShop(bool h2c = true, const std::function<void(wr::AppOptions&)>& more = {})
        : wr(std::filesystem::path{}, [&](wr::AppOptions& options) {
              options.edge_h2c = h2c;
              if (more) more(options);
          }) {
        wr::test::set_up_shop(wr, origin);
    }
    wr::test::TestOrigin origin;
    TestServer wr;
};

// curl over cleartext HTTP/2 with prior knowledge: the answer's head and body as `curl -i` prints them.
std::string curl_h2c(int port, const std::string& path, const std::string& cookie = "") {
    const std::string authority = "shop.example.com:" + std::to_string(port);
    return wr::test::command_output("curl -si --http2-prior-knowledge --resolve " + authority + ":127.0.0.1" +
                       (cookie.empty() ? "" : " -H 'Cookie: " + cookie + "'") + " http://" + authority + path);
}

// A header's value in `curl -i` output, "" when absent.
std::string curl_header(const std::string& response, const std::string& name) {
    const size_t at = response.find("\r\n" + name + ": ");
    if (at == std::string::npos) return "";
    const size_t begin = at + 4 + name.size();
    return response.substr(begin, response.find("\r\n", begin) - begin);
}

// `wr serve` as a process (one edge thread, free ports) with `extra` arguments, in front of
// `origin` with the shop room on it, live on the edge when this returns (h2_client.mjs with
// `client_option` says so).
struct ServedShop {
    ServedShop(const StreamOrigin& origin, const std::vector<std::string>& extra, const std::string& client_option = "") {
        std::vector<std::string> arguments{WR_BINARY,      "serve", "--data-dir", (data.path() / "data").string(), "--admin-listen",
                                           "127.0.0.1:0", "--edge-listen", "127.0.0.1:0", "--edge-threads", "1"};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        process = std::make_unique<wr::test::BackgroundProcess>(arguments, "API listening on", true);
        edge_port = wr::test::port_after(process->output(), "edge: listening on");
        httplib::Client admin("127.0.0.1", wr::test::port_after(process->ready_line(), "API listening on"));
        const httplib::Headers auth{{"Authorization", "Bearer " + wr::test::read_admin_token(data.path() / "data")}};
        REQUIRE(admin.Post("/client/v4/zones", auth, json{{"name", "example.com"}, {"origin", origin.url()}}.dump(), "application/json")->status == 200);
        REQUIRE(admin.Post("/client/v4/zones/example.com/waiting_rooms", auth,
                           json{{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}}.dump(),
                           "application/json")->status == 200);
        // Room for one: the edge sees the room within its poll interval.
        json probe;
        for (int i = 0; i < 100; ++i) {
            probe = h2_client(client_option + "requests " + std::to_string(edge_port), json{{"requests", json::array({{{"path", "/"}}})}});
            if (probe["results"][0]["headers"].contains("x-demo-origin")) break;
        }
        REQUIRE(probe["results"][0]["headers"].contains("x-demo-origin"));
    }
    wr::test::TempDir data;
    std::unique_ptr<wr::test::BackgroundProcess> process;
    int edge_port = 0;
};

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: HTTP/2: ALPN offers h2 first and still serves HTTP/1.1, without WebSockets over HTTP/2") {
    TlsShop shop;
    const int port = shop.wr.edge_port();
    CHECK(curl_version(port, "--http2") == "2");
    CHECK(curl_version(port, "--http1.1") == "1.1");
    const json out = h2_requests(port, json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(out["alpn"] == "h2");
    // No extended CONNECT (RFC 8441): browsers open their WebSockets over HTTP/1.1, which works.
    CHECK(out["enableConnectProtocol"] == false);
    const json ws = h2_client("ws " + std::to_string(port) + " /ws");
    CHECK(ws["alpn"] == "http/1.1");
    CHECK(ws["status"] == "HTTP/1.1 101 Switching Protocols");
}

TEST_CASE("integration: HTTP/2: 100 streams on one connection, queued and admitted visitors, each with its own answer and cookie") {
    TlsShop shop;
    const std::vector<std::string> cookies = shop.admit(5);
    // From now on new visitors wait; the five admitted stay in.
    wr::test::patch_shop(shop.wr, json{{"queue_all", true}});
    json requests = json::array();
    for (int i = 0; i < 100; ++i) {
        if (i % 2 == 0) requests.push_back({{"path", "/bytes?n=" + std::to_string(1000 + i)}, {"headers", {{"cookie", cookies[i / 2 % 5]}}}});
        else requests.push_back({{"path", "/bytes?n=" + std::to_string(1000 + i)}});
    }
    const json out = h2_requests(shop.wr.edge_port(), requests);
    REQUIRE(out["results"].size() == 100);
    std::set<std::string> queued_cookies;
    std::set<std::string> request_ids;
    for (int i = 0; i < 100; ++i) {
        CAPTURE(i);
        const json& result = out["results"][i];
        CHECK(result["status"] == 200);
        request_ids.insert(result["headers"].value("x-request-id", std::string()));
        if (i % 2 == 0) { // admitted: its own bytes from the origin, its session renewed
            CHECK(result["headers"].contains("x-demo-origin"));
            CHECK(result["length"] == 1000 + i);
            CHECK(result["fnv1a"] == pattern_hash(1000 + i));
            CHECK(cookie_pair(result["headers"]["set-cookie"][0]).starts_with("__cfwaitingroom="));
        } else { // new, the room full: the queue page, and a place of its own
            CHECK_FALSE(result["headers"].contains("x-demo-origin"));
            CHECK(result["headers"]["cache-control"] == "no-store");
            CHECK(result["headers"].contains("refresh"));
            CHECK(result["text"].get<std::string>().find("<html") != std::string::npos);
            queued_cookies.insert(cookie_pair(result["headers"]["set-cookie"][0]));
        }
    }
    CHECK(queued_cookies.size() == 50);
    // The queue page's answers carry their request's id; proxied ones are the origin's answer.
    CHECK(request_ids.size() >= 50);
}

TEST_CASE("integration: HTTP/2: a large download and upload stream byte-exact while other streams are answered") {
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    const uint64_t size = 16'000'000;
    json requests = json::array();
    requests.push_back({{"path", "/bytes?n=" + std::to_string(size)}, {"headers", {{"cookie", cookie}}}});
    requests.push_back({{"method", "POST"}, {"path", "/upload"}, {"upload", size}, {"headers", {{"cookie", cookie}}}});
    for (int i = 0; i < 10; ++i) requests.push_back({{"path", "/bytes?n=" + std::to_string(100 + i)}, {"headers", {{"cookie", cookie}}}});
    const json out = h2_requests(shop.wr.edge_port(), requests);
    const json& download = out["results"][0];
    const json& upload = out["results"][1];
    CHECK(download["length"] == size);
    CHECK(download["fnv1a"] == pattern_hash(size));
    REQUIRE(upload["status"] == 200);
    const json echoed = json::parse(upload["text"].get<std::string>());
    CHECK(echoed["length"] == size);
    CHECK(echoed["fnv1a"] == pattern_hash(size));
    CHECK(echoed["framing"] == "length");
    for (int i = 2; i < 12; ++i) {
        CAPTURE(i);
        CHECK(out["results"][i]["length"] == 100 + i - 2);
        // Answered while the large ones were still on their way.
        CHECK(out["results"][i]["ms"] < download["ms"]);
        CHECK(out["results"][i]["ms"] < upload["ms"]);
    }
}

TEST_CASE("integration: HTTP/2: server-sent events arrive as the origin writes them, and the access log says HTTP/2.0") {
    wr::test::TempDir logs;
    const std::filesystem::path log = logs.path() / "access.log";
    TlsShop shop(json::object(), [&](wr::AppOptions& options) {
        options.access_log = log.string();
        options.access_log_format = "json";
    });
    const std::string cookie = shop.admit(1)[0];
    const json out = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/sse?events=3&ms=300"}, {"headers", {{"cookie", cookie}}}}}));
    const json& sse = out["results"][0];
    CHECK(sse["status"] == 200);
    CHECK(sse["text"] == "data: event 0\n\ndata: event 1\n\ndata: event 2\n\n");
    CHECK_FALSE(sse["headers"].contains("transfer-encoding"));
    CHECK(sse["firstMs"] < 250);
    CHECK(sse["ms"] >= 550);
    std::vector<json> lines;
    CHECK(wr::test::eventually([&] {
        lines.clear();
        std::ifstream in(log);
        for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
        return lines.size() >= 2;
    }));
    for (const json& line : lines) {
        CHECK(line["protocol"] == "HTTP/2.0");
        CHECK(line["decision"] == "admitted");
    }
    CHECK(lines.back()["target"] == "/sse?events=3&ms=300");
    CHECK(lines.back()["status"] == 200);
    CHECK(lines.back()["bytes_out"] == 45);
}

TEST_CASE("integration: HTTP/2: expect: 100-continue gets 100 before the body is sent, and 103 Early Hints are passed on") {
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    const json out = h2_requests(shop.wr.edge_port(),
                                 json::array({{{"method", "POST"}, {"path", "/upload"}, {"upload", 11}, {"expectContinue", true},
                                               {"headers", {{"cookie", cookie}}}},
                                              {{"path", "/hints"}, {"headers", {{"cookie", cookie}}}}}));
    const json& upload = out["results"][0];
    CHECK(upload["informational"] == json::array({100})); // the body went only after it
    CHECK(upload["status"] == 200);
    const json answer = json::parse(upload["text"].get<std::string>());
    CHECK(answer["length"] == 11);
    CHECK(answer["expect"] == ""); // the edge answered it; the origin is not asked again
    const json& hints = out["results"][1];
    CHECK(hints["informational"] == json::array({103}));
    CHECK(hints["status"] == 200);
}

TEST_CASE("integration: HTTP/2: the combined access log names the protocol in the request line, as nginx does") {
    wr::test::TempDir logs;
    const std::filesystem::path log = logs.path() / "access.log";
    TlsShop shop(json::object(), [&](wr::AppOptions& options) { options.access_log = log.string(); });
    const json out = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    REQUIRE(out["results"][0]["status"] == 200);
    std::string line;
    CHECK(wr::test::eventually([&] {
        std::ifstream in(log);
        return static_cast<bool>(std::getline(in, line));
    }));
    CHECK(line.find(" \"GET /bytes?n=10 HTTP/2.0\" 200 ") != std::string::npos);
}

TEST_CASE("integration: HTTP/2: headers too large are answered 431, bodies too large 413") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) { options.edge_max_body_bytes = 1000; });
    const std::string cookie = shop.admit(1)[0];
    const json out = h2_requests(shop.wr.edge_port(), json::array({
        {{"path", "/"}, {"headers", {{"x-large", std::string(20000, 'a')}}}},
        {{"method", "POST"}, {"path", "/upload"}, {"upload", 5000}, {"headers", {{"cookie", cookie}}}},
        {{"method", "POST"}, {"path", "/upload"}, {"upload", 900}, {"headers", {{"cookie", cookie}}}},
    }));
    CHECK(out["results"][0]["status"] == 431);
    CHECK(out["results"][1]["status"] == 413);
    CHECK(out["results"][2]["status"] == 200);

    // Four times over a limit the stream is reset rather than decoded to its end (the rest of the
    // block is not checked field by field); the connection and its other streams go on.
    json many = json::object();
    for (int i = 0; i < 401; ++i) many["x-f" + std::to_string(i)] = "1";
    const json far = h2_requests(shop.wr.edge_port(), json::array({
        {{"path", "/"}, {"headers", many}},
        {{"path", "/"}, {"headers", {{"cookie", cookie}}}},
    }));
    CHECK(far["results"][0]["status"] == 0);
    CHECK_FALSE(far["results"][0]["error"].is_null()); // reset: no answer
    CHECK(far["results"][1]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: a GET whose END_STREAM comes in an empty DATA frame reaches the origin without a body") {
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    // The frame in the HEADERS' write, and a packet later.
    for (const char* gap_ms : {"0", "40"}) {
        CAPTURE(gap_ms);
        const json out = h2_client("emptydata " + std::to_string(shop.wr.edge_port()) + " /upload '" + cookie + "' " + gap_ms);
        CHECK(out["ended"] == true);
        const json upload = json::parse(out["body"].get<std::string>(), nullptr, false);
        INFO(out.dump());
        CHECK(upload["framing"] == "none");
        CHECK(upload["length"] == 0);
    }
}

TEST_CASE("integration: HTTP/2: a connection that sends no request within --header-timeout, or none for --idle-timeout, closes") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) {
        options.header_timeout = std::chrono::seconds{1};
        options.idle_timeout = std::chrono::seconds{2};
    });
    const std::string port = std::to_string(shop.wr.edge_port());
    const json silent = h2_client("quiet " + port + " -");
    CHECK(silent["closed"] == true);
    CHECK(silent["ms"] >= 900);
    CHECK(silent["ms"] < 1900);
    const json idle = h2_client("quiet " + port + " /bytes?n=10");
    CHECK(idle["closed"] == true);
    CHECK(idle["ms"] >= 1900);
    CHECK(idle["ms"] < 3500);
    CHECK(idle["goaway"] == 0); // NO_ERROR: the client knows no request of its was cut
}

TEST_CASE("integration: HTTP/2: an idle connection shed under the connection cap gets GOAWAY before it closes") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) {
        options.max_connections = 4;
        options.edge_threads = 1; // one thread: its idle connections are the ones shed
        options.idle_timeout = std::chrono::seconds{6};
    });
    const std::string port = std::to_string(shop.wr.edge_port());
    // Four idle connections fill the cap, the oldest first; a fifth visitor makes it go.
    std::vector<std::future<json>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::async(std::launch::async, [&] { return h2_client("quiet " + port + " /bytes?n=10"); }));
        std::this_thread::sleep_for(std::chrono::milliseconds{300});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{700});
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
    std::vector<json> ended;
    for (auto& one : idle) ended.push_back(one.get());
    const json shed = *std::min_element(ended.begin(), ended.end(), [](const json& a, const json& b) { return a["ms"] < b["ms"]; });
    INFO(shed.dump());
    CHECK(shed["closed"] == true);
    CHECK(shed["ms"] < 4500); // shed, long before its idle timeout
    CHECK(shed["goaway"] == 0); // NO_ERROR: the client knows no request of its was cut
}

TEST_CASE("integration: HTTP/2: a visitor that never takes wr's answer (its window shut) loses the connection after the response timeout") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) {
        options.origin_timeout = std::chrono::seconds{1};
        options.idle_timeout = std::chrono::seconds{20};
    });
    const json stalled = h2_client("stall " + std::to_string(shop.wr.edge_port()) + " /");
    CHECK(stalled["closed"] == true);
    CHECK(stalled["ms"] >= 900);
    CHECK(stalled["ms"] < 3500);
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: a visitor that never takes an answer loses it however lively it keeps the connection otherwise") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) {
        options.origin_timeout = std::chrono::seconds{1};
        options.idle_timeout = std::chrono::seconds{20};
    });
    const std::string cookie = shop.admit(1)[0];
    const std::string port = std::to_string(shop.wr.edge_port());
    // PINGs every 500 ms: their acknowledgements are written, but none of wr's answer is taken.
    const json pinging = h2_client("stall " + port + " / ping");
    CHECK(pinging["closed"] == true);
    CHECK(pinging["ms"] >= 900);
    CHECK(pinging["ms"] < 3500);
    // A stream the origin serves meanwhile (the connection busy) keeps wr's own answer no longer.
    const json busy = h2_client("stall " + port + " / ping 'cookie=" + cookie + "' 'busy=/sse?events=100&ms=300'");
    CHECK(busy["closed"] == true);
    CHECK(busy["ms"] >= 900);
    CHECK(busy["ms"] < 3500);
    // The origin's answer, its request's body still arriving a byte every 500 ms: the stream is
    // reset, the bytes it receives are not its answer taken.
    const json posting = h2_client("stall " + port + " /early ping post 'cookie=" + cookie + "'");
    CHECK(posting["reset"] == 8); // CANCEL
    CHECK(posting["resetMs"] >= 900);
    CHECK(posting["resetMs"] < 3500);
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: while visitors wait under a full cap, a body that trickles in gives its origin connection up within 5 s") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{30}; });
    const std::string cookie = shop.admit(1)[0];
    shop.cap_origin_connections(1, 20);
    // A POST whose body comes a byte every 500 ms and never ends (the client gives up after 8 s).
    auto trickling = std::async(std::launch::async, [&] {
        return h2_client("stall " + std::to_string(shop.wr.edge_port()) + " /upload post 'cookie=" + cookie + "'");
    });
    std::this_thread::sleep_for(std::chrono::seconds{1});
    const auto asked = std::chrono::steady_clock::now();
    const json next = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    const auto waited = std::chrono::steady_clock::now() - asked;
    CHECK(next["results"][0]["status"] == 200);
    CHECK(waited < std::chrono::seconds{6}); // not the 8 s the trickle lasts, nor the 20 s queue timeout
    trickling.get();
}

TEST_CASE("integration: HTTP/2: uploads waiting under a full cap never take the connection's window from the upload that holds the origin connection") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{30}; });
    const std::string cookie = shop.admit(1)[0];
    shop.cap_origin_connections(1, 30);
    // One connection: a 4 MiB upload, and 30 of 64 KiB each that wait for the cap's one origin
    // connection meanwhile. Their bodies together (30 × 64 KiB) are more than the connection's
    // 1 MiB window: were they let in whole while they wait, the upload holding the origin
    // connection could bring nothing more, and would lose it after 5 s (408).
    const uint64_t large = 4u << 20, small = 64u << 10;
    json requests = json::array();
    requests.push_back({{"method", "POST"}, {"path", "/upload"}, {"upload", large}, {"headers", {{"cookie", cookie}}}});
    for (int i = 0; i < 30; ++i) requests.push_back({{"method", "POST"}, {"path", "/upload"}, {"upload", small}, {"headers", {{"cookie", cookie}}}});
    const auto began = std::chrono::steady_clock::now();
    const json out = h2_requests(shop.wr.edge_port(), requests);
    const auto took = std::chrono::steady_clock::now() - began;
    for (size_t i = 0; i < out["results"].size(); ++i) {
        CAPTURE(i);
        const json& result = out["results"][i];
        REQUIRE(result["status"] == 200);
        const json echoed = json::parse(result["text"].get<std::string>());
        const uint64_t size = i == 0 ? large : small;
        CHECK(echoed["length"] == size);
        CHECK(echoed["fnv1a"] == pattern_hash(size));
    }
    CHECK(took < std::chrono::seconds{15}); // about a second here; the sanitizers and a loaded machine take longer
}

TEST_CASE("integration: HTTP/2: a client resetting streams as fast as it can gets GOAWAY, and the edge serves on") {
    TlsShop shop;
    const json attack = h2_client("reset " + std::to_string(shop.wr.edge_port()) + " /");
    CHECK(attack["goaway"] == 11); // ENHANCE_YOUR_CALM
    check_streams_before_calm(attack);
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_edge_http2_calm_goaways_total", {{"node", "wr"}}) == 1);
    CHECK(metrics.value("wr_edge_http2_connections_total", {{"node", "wr"}}) == 2);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "wr"}, {"protocol", "h2"}}) >= 1);
}

TEST_CASE("integration: HTTP/2: streams reset while they wait for an origin connection under a full cap leave the queue at once") {
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    shop.cap_origin_connections(1, 30);
    const auto waiting = [&] {
        return wr::test::parse_prometheus(shop.wr.get("/metrics").text)
            .value("wr_origin_requests_waiting", {{"node", "wr"}, {"zone", "example.com"}});
    };
    // The cap's one connection, busy for 4 s with a stream of events.
    const auto busy_from = std::chrono::steady_clock::now();
    auto busy = std::async(std::launch::async, [&] {
        return h2_requests(shop.wr.edge_port(), json::array({{{"path", "/sse?events=40&ms=100"}, {"headers", {{"cookie", cookie}}}}}));
    });
    REQUIRE(wr::test::eventually([&] { return wr::test::parse_prometheus(shop.wr.get("/metrics").text)
                                                  .value("wr_origin_connections_idle", {{"node", "wr"}, {"zone", "example.com"}}) == 0; }));
    // 20 streams queue behind it, and are reset half a second later.
    wr::test::BackgroundProcess client =
        h2_client_holding({"abandon", std::to_string(shop.wr.edge_port()), "/after-reset", "20", cookie, "500"}, "abandoned");
    CHECK(json::parse(client.ready_line())["closed"] == false);
    // Gone from the queue at once, long before the connection is free: no reset stream keeps a
    // place a visitor behind it waits for, or is given a connection of its own.
    CHECK(wr::test::eventually([&] { return waiting() == 0; }, std::chrono::milliseconds{1500}));
    CHECK(std::chrono::steady_clock::now() - busy_from < std::chrono::milliseconds{3000});
    const json events = busy.get();
    CHECK(events["results"][0]["status"] == 200);
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}, {"headers", {{"cookie", cookie}}}}}));
    CHECK(after["results"][0]["status"] == 200);
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_origin_requests_waited_total", {{"node", "wr"}, {"zone", "example.com"}}) >= 20); // they did queue
    CHECK(metrics.value("wr_origin_connections_most", {{"node", "wr"}, {"zone", "example.com"}}) == 1);
    CHECK(metrics.value("wr_origin_queue_timeouts_total", {{"node", "wr"}, {"zone", "example.com"}}) == 0);
}

TEST_CASE("integration: HTTP/2: streams whose window stays shut give their origin connections up to visitors waiting under the cap") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{30}; });
    const std::string cookie = shop.admit(1)[0];
    shop.cap_origin_connections(2, 20);
    // One connection's two streams take both of the cap's connections and never read their answers.
    wr::test::BackgroundProcess holder = h2_client_holding({"hold", std::to_string(shop.wr.edge_port()), "/bytes?n=50000000", "2", cookie}, "holding");
    REQUIRE(json::parse(holder.ready_line())["answered"] == 2);
    // A visitor behind them is served once they have stalled for 5 s, long before the 20 s queue
    // timeout or the 30 s response timeout.
    const auto asked = std::chrono::steady_clock::now();
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}, {"headers", {{"cookie", cookie}}}}}));
    const auto waited = std::chrono::steady_clock::now() - asked;
    CHECK(after["results"][0]["status"] == 200);
    CHECK(waited >= std::chrono::seconds{3});
    CHECK(waited < std::chrono::seconds{9});
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_origin_connections_most", {{"node", "wr"}, {"zone", "example.com"}}) == 2);
    CHECK(metrics.value("wr_origin_queue_timeouts_total", {{"node", "wr"}, {"zone", "example.com"}}) == 0);
}

TEST_CASE("integration: HTTP/2: a stream whose window stays shut keeps its answer while nobody waits for the origin") {
    TlsShop shop(json::object(), [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{30}; });
    const std::string cookie = shop.admit(1)[0];
    shop.cap_origin_connections(4);
    wr::test::BackgroundProcess holder = h2_client_holding({"hold", std::to_string(shop.wr.edge_port()), "/bytes?n=50000000", "2", cookie}, "holding");
    REQUIRE(json::parse(holder.ready_line())["answered"] == 2);
    std::this_thread::sleep_for(std::chrono::seconds{6}); // past the 5 s that would cost them their streams under pressure
    // Still both held: a visitor slow to read loses nothing while the cap has room.
    CHECK(json::parse(shop.origin.stats())["bytes_connections"] == 2);
}

TEST_CASE("integration: HTTP/2: streams the edge must reset itself (a window overflowed) count as resets: GOAWAY, and the edge serves on") {
    TlsShop shop;
    const json attack = h2_client("madeyoureset " + std::to_string(shop.wr.edge_port()) + " /");
    CHECK(attack["goaway"] == 11); // ENHANCE_YOUR_CALM
    check_streams_before_calm(attack);
    // The streams the edge reset were never served: none took a place in the room (the room
    // holds 200, as many as the attack makes before its GOAWAY) or reached the origin.
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
    CHECK(after["results"][0]["headers"].contains("x-demo-origin"));
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "wr"}, {"protocol", "h2"}}) == 1);
}

TEST_CASE("integration: HTTP/2: a client that never reads while it makes the edge refuse stream after stream loses its connection") {
    TlsShop shop;
    const json attack = h2_client("unread " + std::to_string(shop.wr.edge_port()) + " /");
    CHECK(attack["closed"] == true); // unbounded, the edge queues for as long as the client goes on (10 s here)
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: a :path without its leading '/' is answered 400, never glued to the origin's path") {
    TlsShop shop;
    const json answers = h2_requests(shop.wr.edge_port(), json::array({{{"path", "x/../admin"}, {"headers", {{":scheme", "x"}}}},
                                                                       {{"path", "/bytes?n=10"}}}));
    CHECK(answers["results"][0]["status"] == 400);
    CHECK(answers["results"][1]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: a browser's 150 cookies, each a field of its own, are one Cookie line as over HTTP/1.1, not a 431") {
    TlsShop shop;
    json crumbs = json::array();
    for (int i = 0; i < 150; ++i) crumbs.push_back("c" + std::to_string(i) + "=v");
    const json headers = {{"cookie", crumbs}}; // Node sends each as a field of its own, as browsers do
    const json answers = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}, {"headers", headers}}}));
    CHECK(answers["results"][0]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: floods of PING, SETTINGS or PRIORITY frames each get GOAWAY, and the edge serves on") {
    TlsShop shop;
    for (const std::string kind : {"ping", "settings", "priority"}) {
        CAPTURE(kind);
        const json flood = h2_client("flood " + std::to_string(shop.wr.edge_port()) + " / " + kind);
        CHECK(flood["goaway"] == 11); // ENHANCE_YOUR_CALM
        // What the edge read before it ended the connection, by what it acknowledged (for PRIORITY,
        // the PING sent after every 20): the bound is 100 PING or SETTINGS frames a second and
        // 1,000 PRIORITY frames, and the frames read may straddle two of its seconds. Unbounded,
        // the client writes 100,000 frames (or for 5 s) and the edge acknowledges them all.
        MESSAGE(kind << ": GOAWAY after " << flood["sent"] << " frames sent");
        if (kind == "ping") CHECK(flood["pingAcks"] <= 2 * 100 + 1);
        if (kind == "settings") CHECK(flood["settingsAcks"] <= 2 * 100 + 2); // and the preface's SETTINGS
        if (kind == "priority") CHECK(flood["pingAcks"] <= (2 * 1000 + 1) / 20 + 1);
    }
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_edge_http2_calm_goaways_total", {{"node", "wr"}}) == 3);
}

TEST_CASE("integration: HTTP/2: a client may hold 100 streams open on a connection, and one more ends it") {
    TlsShop shop;
    const json hundred = h2_client("streams " + std::to_string(shop.wr.edge_port()) + " / 100");
    CHECK(hundred["goaway"].is_null());
    // A client past the limit it acknowledged breaks the protocol: nghttp2 ends the connection
    // (RFC 9113 allows a stream error too), and the GOAWAY names the 100th stream as the last
    // taken, so the first hundred are still answered.
    const json more = h2_client("streams " + std::to_string(shop.wr.edge_port()) + " / 101");
    CHECK(more["goaway"] == 1); // PROTOCOL_ERROR
    CHECK(more["last"] == 199);
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: a header block continued for ever ends its connection, and the edge serves on") {
    TlsShop shop;
    const json flood = h2_client("continuation " + std::to_string(shop.wr.edge_port()) + " /");
    CHECK(flood["closed"] == true);
    CHECK(flood["sent"] <= 20); // a few frames past the bound, in flight when it was reached
    const json after = h2_requests(shop.wr.edge_port(), json::array({{{"path", "/bytes?n=10"}}}));
    CHECK(after["results"][0]["status"] == 200);
}

TEST_CASE("integration: HTTP/2: SIGTERM sends GOAWAY and the stream in flight finishes") {
    StreamOrigin origin;
    wr::test::TempDir certificates;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(certificates.path());
    ServedShop shop(origin, {"--tls-cert", tls.certificate.string(), "--tls-key", tls.private_key.string()});
    const json drained = h2_client("drain " + std::to_string(shop.edge_port) + " '/sse?events=4&ms=300' " + std::to_string(shop.process->pid()));
    CHECK(drained["status"] == 200);
    CHECK(drained["body"] == "data: event 0\n\ndata: event 1\n\ndata: event 2\n\ndata: event 3\n\n");
    REQUIRE(drained["goaway"].is_object());
    CHECK(drained["goaway"]["code"] == 0);
    CHECK(shop.process->wait_exit(std::chrono::seconds{10}) == 0);
}

TEST_CASE("integration: HTTP/2: a stream opened after SIGTERM's GOAWAY, while the edge still writes to a slow visitor, never reaches the origin") {
    StreamOrigin origin;
    wr::test::TempDir certificates;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(certificates.path());
    ServedShop shop(origin, {"--tls-cert", tls.certificate.string(), "--tls-key", tls.private_key.string()});
    // The GOAWAY waits behind the download the client does not read; nghttp2 would take the new
    // stream until it is written.
    const json blocked = h2_client("blocked " + std::to_string(shop.edge_port) + " '/hold?ms=100' " + std::to_string(shop.process->pid()));
    CHECK(blocked["closed"] == false);
    CHECK(json::parse(origin.stats())["holds"] == 0);
    CHECK(shop.process->wait_exit(std::chrono::seconds{10}) == 0);
}

TEST_CASE("integration: HTTP/2: with --edge-h2c the plain edge serves prior-knowledge clients, queued and admitted, and tells the origin http") {
    CleartextShop shop;
    const int port = shop.wr.edge_port();

    // curl: admitted, with the room's cookie as plain HTTP gets it (no Secure), the origin told http.
    const std::string first = curl_h2c(port, "/echo");
    CHECK(first.starts_with("HTTP/2 200"));
    CHECK(curl_header(first, "x-demo-origin") == "1");
    CHECK(first.find("\"X-Forwarded-Proto\":\"http\"") != std::string::npos);
    CHECK(curl_header(first, "set-cookie").ends_with("; Max-Age=300; Path=/; HttpOnly; SameSite=Lax"));
    std::vector<std::string> cookies{cookie_pair(curl_header(first, "set-cookie"))};
    CHECK(cookies[0].starts_with("__cfwaitingroom="));

    // Node: several streams on one connection, each admitted with a cookie of its own.
    const json admitted = h2c_requests(port, json::array({{{"path", "/echo"}}, {{"path", "/echo"}}, {{"path", "/echo"}}, {{"path", "/echo"}}}));
    CHECK(admitted["alpn"] == "h2c");
    for (const json& result : admitted["results"]) {
        CHECK(result["status"] == 200);
        REQUIRE(result["headers"].contains("x-demo-origin"));
        const json echo = json::parse(result["text"].get<std::string>());
        CHECK(echo["headers"]["X-Forwarded-Proto"] == "http");
        CHECK(echo["headers"]["X-Forwarded-Host"] == "shop.example.com");
        const std::string set_cookie = result["headers"]["set-cookie"][0].get<std::string>();
        CHECK(set_cookie.ends_with("; HttpOnly; SameSite=Lax"));
        cookies.push_back(cookie_pair(set_cookie));
    }
    CHECK(std::set<std::string>(cookies.begin(), cookies.end()).size() == 5);

    // HTTP/1.1 on the same port, a POST too (its first byte is the preface's).
    CHECK(curl_version(port, "--http1.1", "http") == "1.1");
    wr::test::Browser browser(port, "shop.example.com");
    const wr::test::EdgeReply posted = browser.post("/echo", "{\"order\":1}", "application/json");
    REQUIRE(posted.from_origin());
    CHECK(json::parse(posted.body)["body"] == "{\"order\":1}");

    // From now on new visitors wait; those admitted stay in, over either client.
    wr::test::patch_shop(shop.wr, json{{"queue_all", true}});
    json requests = json::array();
    for (int i = 0; i < 10; ++i) {
        if (i % 2 == 0) requests.push_back({{"path", "/echo"}, {"headers", {{"cookie", cookies[i / 2]}}}});
        else requests.push_back({{"path", "/echo"}});
    }
    const json mixed = h2c_requests(port, requests);
    REQUIRE(mixed["results"].size() == 10);
    for (int i = 0; i < 10; ++i) {
        CAPTURE(i);
        const json& result = mixed["results"][i];
        CHECK(result["status"] == 200);
        if (i % 2 == 0) {
            CHECK(result["headers"].contains("x-demo-origin"));
            CHECK(cookie_pair(result["headers"]["set-cookie"][0]).starts_with("__cfwaitingroom="));
        } else { // the queue page, and a place of its own
            CHECK_FALSE(result["headers"].contains("x-demo-origin"));
            CHECK(result["headers"].contains("refresh"));
            CHECK(result["headers"]["cache-control"] == "no-store");
            CHECK(result["headers"]["set-cookie"][0].get<std::string>().ends_with("; HttpOnly; SameSite=Lax"));
        }
    }
    const std::string queued = curl_h2c(port, "/echo");
    CHECK(queued.starts_with("HTTP/2 200"));
    CHECK(curl_header(queued, "x-demo-origin").empty());
    CHECK_FALSE(curl_header(queued, "refresh").empty());
    CHECK(curl_header(curl_h2c(port, "/echo", cookies[0]), "x-demo-origin") == "1");

    // Counted as h2c, one request per stream; the access log's protocol stays HTTP/2.0 (h2's).
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "wr"}, {"protocol", "h2c"}}) == 17);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "wr"}, {"protocol", "h2"}}) == 0);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "wr"}, {"protocol", "http/1.1"}}) == 2);
    CHECK(metrics.value("wr_edge_http2_connections_total", {{"node", "wr"}}) == 5);
}

TEST_CASE("integration: HTTP/2: without --edge-h2c the plain edge answers the preface as HTTP/1.1 always did, with 400") {
    CleartextShop shop(false);
    const int port = shop.wr.edge_port();
    wr::test::RawConnection raw(port);
    REQUIRE(raw.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
    CHECK(raw.read_until_closed(std::chrono::seconds{5}));
    CHECK(raw.received().starts_with("HTTP/1.1 400 Bad Request\r\n"));
    CHECK(curl_version(port, "--http2-prior-knowledge", "http") == "0"); // no answer curl can read
    CHECK(curl_version(port, "--http1.1", "http") == "1.1");
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_edge_requests_total", {{"node", "wr"}, {"protocol", "h2c"}}) == 0);
    CHECK(metrics.value("wr_edge_http2_connections_total", {{"node", "wr"}}) == 0);
}

TEST_CASE("integration: HTTP/2: over cleartext the limits hold: a silent preface times out, rapid resets get GOAWAY") {
    CleartextShop shop(true, [](wr::AppOptions& options) { options.header_timeout = std::chrono::seconds{1}; });
    const std::string port = std::to_string(shop.wr.edge_port());
    // The preface comes in two pieces (h2_client.mjs --cleartext), then nothing.
    const json silent = h2_client("--cleartext quiet " + port + " -");
    CHECK(silent["closed"] == true);
    CHECK(silent["ms"] >= 900);
    CHECK(silent["ms"] < 1900);
    const json attack = h2_client("--cleartext reset " + port + " /");
    CHECK(attack["goaway"] == 11); // ENHANCE_YOUR_CALM
    check_streams_before_calm(attack);
    const json after = h2c_requests(shop.wr.edge_port(), json::array({{{"path", "/echo"}}}));
    CHECK(after["results"][0]["status"] == 200);
    const wr::test::Exposition metrics = wr::test::parse_prometheus(shop.wr.get("/metrics").text);
    CHECK(metrics.value("wr_edge_http2_calm_goaways_total", {{"node", "wr"}}) == 1);
}

TEST_CASE("integration: HTTP/2: edge-h2c from the configuration file; SIGTERM sends a cleartext connection GOAWAY and its stream finishes") {
    StreamOrigin origin;
    wr::test::TempDir files;
    const std::string config = (files.path() / "wr.toml").string();
    std::ofstream(config) << "[serve]\nedge-h2c = true\n";
    ServedShop shop(origin, {"--config", config}, "--cleartext ");
    const json drained =
        h2_client("--cleartext drain " + std::to_string(shop.edge_port) + " '/sse?events=3&ms=300' " + std::to_string(shop.process->pid()));
    CHECK(drained["status"] == 200);
    CHECK(drained["body"] == "data: event 0\n\ndata: event 1\n\ndata: event 2\n\n");
    REQUIRE(drained["goaway"].is_object());
    CHECK(drained["goaway"]["code"] == 0);
    CHECK(shop.process->wait_exit(std::chrono::seconds{10}) == 0);
}

TEST_CASE("integration: HTTP/2: --edge-h2c comes as a flag, WR_EDGE_H2C or edge-h2c, and is refused beside --tls-cert and on a control node") {
    wr::test::TempDir files;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(files.path());
    const std::string config = (files.path() / "wr.toml").string();
    std::ofstream(config) << "[serve]\nedge-h2c = true\n";
    // --control-url fails the start after the check under test: were the flag not seen, wr would stop there, not serve.
    const std::vector<std::string> serve{"serve", "--data-dir", (files.path() / "data").string(), "--tls-cert", tls.certificate.string(),
                                         "--tls-key", tls.private_key.string(), "--control-url", "https://control:9090"};
    struct Case {
        std::string name;
        std::vector<std::string> before, after;
        std::map<std::string, std::string> environment;
    };
    const Case cases[] = {
        {"flag", {}, {"--edge-h2c"}, {}},
        {"environment", {}, {}, {{"WR_EDGE_H2C", "1"}}},
        {"configuration file", {"--config", config}, {}, {}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        std::vector<std::string> arguments = c.before;
        arguments.insert(arguments.end(), serve.begin(), serve.end());
        arguments.insert(arguments.end(), c.after.begin(), c.after.end());
        const wr::test::ProcessResult refused = wr::test::run_wr(arguments, c.environment);
        CHECK(refused.exit_code == 1);
        CHECK(refused.err == "wr: error: --edge-h2c is for a plain edge; with --tls-cert, HTTP/2 is offered by ALPN\n");
    }
    const wr::test::ProcessResult control =
        wr::test::run_wr({"serve", "--data-dir", (files.path() / "data").string(), "--role", "control", "--edge-h2c", "--control-url", "https://control:9090"});
    CHECK(control.exit_code == 1);
    CHECK(control.err == "wr: error: --edge-h2c is the edge's: this node is --role control and has no edge\n");
    CHECK(!std::filesystem::exists(files.path() / "data")); // stopped before anything started
}

// The edge's flow control, end to end: whatever the size of the bodies, what the edge holds of
// them is bounded by the windows docs/http2.md states, however much the kernel buffers around it.
// The oracle is a count of its own: the bytes the origin's kernel took (or the client sent), less
// what the kernel still queues on both sides of the edge's origin connections (the origin's
// /stats, and this process's sockets, the edge running in it), is what the edge itself took.
TEST_CASE("integration: HTTP/2: answers nobody takes are read from the origin at most 64 KiB ahead per stream, whatever their size") {
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    constexpr int k_streams = 50;
    constexpr uint64_t k_size = 16ull << 20;
    wr::test::BackgroundProcess client = h2_client_holding(
        {"hold", std::to_string(shop.wr.edge_port()), "/bytes?n=" + std::to_string(k_size), std::to_string(k_streams), cookie}, "holding");
    const json holding = json::parse(client.ready_line());
    REQUIRE(holding["answered"] == k_streams);
    // The client never opens its windows: it got at most the connection's first, 65,535 bytes.
    CHECK(holding["data"] <= 65535);

    const json origin = settled_origin_stats(shop.origin, "bytes_written");
    const wr::test::SocketQueues edge = wr::test::socket_queues_to(shop.origin.port());
    const uint64_t written = origin["bytes_written"];
    const uint64_t in_kernel = origin["unsent"].get<uint64_t>() + edge.unread;
    INFO("origin " << origin.dump() << ", the edge's unread " << edge.unread);
    CHECK(origin["bytes_connections"] == k_streams);
    CHECK(written < k_streams * k_size); // the origin was stopped, not done
    // The edge reads a stream's answer while less than 64 KiB (k_answer_ahead) waits for the
    // visitor, 16 KiB (k_stream_buffer) a read: under 64 + 16 KiB a stream, and what went to the
    // visitor, the connection's window of 65,535 bytes for all streams together:
    //   50 × (65,536 + 16,384) + 65,535 = 4,161,535 bytes, plus what the kernel holds.
    constexpr uint64_t k_bound = k_streams * (65536 + 16384) + 65535;
    CHECK(written - in_kernel <= k_bound);
    MESSAGE("the edge took " << written - in_kernel << " bytes of " << written << " written (bound " << k_bound << ")");
}

TEST_CASE("integration: HTTP/2: a large answer to a visitor slower than the origin passes through without the edge's memory growing") {
    TlsShop shop;
    const std::string cookie = shop.admit(1)[0];
    // Each DATA frame's bytes given back 2 ms after they came: some tens of MB a second, less than
    // the origin could write, so the edge always has some of the answer ahead of the visitor.
    wr::test::BackgroundProcess client = h2_client_holding(
        {"trickle", std::to_string(shop.wr.edge_port()), "/bytes?n=" + std::to_string(1ull << 40), cookie, "2"}, "trickling");
    const auto written = [&] { return json::parse(shop.origin.stats())["bytes_written"].get<uint64_t>(); };
    const uint64_t heap_before = wr::test::heap_in_use();
    const uint64_t written_before = written();
    // The edge holds of the answer at most 64 KiB + 16 KiB ahead of the visitor (docs/http2.md);
    // its buffers are of fixed sizes. While 32 MiB more pass, the heap may move by what the rest
    // of the process does meanwhile, well under 1 MiB; an edge that kept what the visitor already
    // took would grow by the 32 MiB.
    constexpr uint64_t k_passing = 32ull << 20;
    REQUIRE(wr::test::eventually([&] { return written() >= written_before + k_passing; }, std::chrono::seconds{8}));
    const uint64_t heap_after = wr::test::heap_in_use();
    const int64_t growth = static_cast<int64_t>(heap_after) - static_cast<int64_t>(heap_before);
    INFO("heap " << heap_before << " -> " << heap_after << " while " << written() - written_before << " bytes passed");
    CHECK(growth < (1 << 20));
    MESSAGE("heap growth " << growth << " bytes while " << written() - written_before << " passed");
}

TEST_CASE("integration: HTTP/2: request bodies an origin does not read get past the edge only by their streams' 64 KiB windows") {
    // 8 streams' windows, 8 × 65,535 = 524,280 bytes, are less than the connection's: they bind.
    push_unread_bodies(8, 8 * 65535);
}

TEST_CASE("integration: HTTP/2: request bodies an origin does not read get past the edge only by their connection's 1 MiB window") {
    // 40 streams' windows, 40 × 65,535 = 2,621,400 bytes, are more than the connection's 1,048,576: it binds.
    push_unread_bodies(40, 1u << 20);
}

} // TEST_SUITE
