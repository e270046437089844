// The edge as a streaming reverse proxy (issue 12), in front of wr-stream-origin: events passed
// on as the origin writes them, bodies larger than any buffer byte-exact both ways with wr's
// memory flat, 100-continue, an origin that answers early, WebSockets for admitted visitors
// only, and the limits on heads and bodies.
#include <doctest/doctest.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <fstream>
#include <thread>

#include "support/browser.h"
#include "support/process.h"
#include "support/raw_connection.h"
#include "support/raw_http.h"
#include "support/shop_room.h"
#include "support/test_server.h"

using nlohmann::json;
using wr::test::Browser;
using wr::test::RawConnection;
using wr::test::StreamOrigin;
using wr::test::TestServer;

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Byte i of every /bytes body.
char pattern(uint64_t i) { return static_cast<char>((i * 31 + 7) & 255); }

uint64_t fnv1a(std::string_view bytes) {
    uint64_t hash = 1469598103934665603ull;
    for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return hash;
}

std::string hex(uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

// The shop room in front of the stream origin, and an admitted visitor's cookie pair.
std::string admitted_cookie(int edge_port) {
    Browser browser(edge_port, "shop.example.com");
    REQUIRE(browser.get("/").from_origin());
    return "__cfwaitingroom=" + browser.cookies["__cfwaitingroom"];
}

std::string request_head(const std::string& method, const std::string& target, const std::string& cookie, const std::string& extra = "") {
    return method + " " + target + " HTTP/1.1\r\nHost: shop.example.com\r\nCookie: " + cookie + "\r\n" + extra + "\r\n";
}

// Decodes a chunked body that follows a head in `bytes`; false while it is incomplete.
bool dechunk(std::string_view bytes, std::string& body) {
    body.clear();
    size_t at = bytes.find("\r\n\r\n");
    if (at == std::string_view::npos) return false;
    at += 4;
    while (true) {
        const size_t line_end = bytes.find("\r\n", at);
        if (line_end == std::string_view::npos) return false;
        const uint64_t size = std::stoull(std::string(bytes.substr(at, line_end - at)), nullptr, 16);
        if (size == 0) return bytes.size() >= line_end + 4;
        if (bytes.size() < line_end + 2 + size + 2) return false;
        body.append(bytes.substr(line_end + 2, size));
        at = line_end + 2 + size + 2;
    }
}

long rss_kb(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return 0;
}

// `wr serve` as its own process, so that its memory can be watched.
struct WatchedServer {
    explicit WatchedServer(const std::filesystem::path& data_dir)
        : process({WR_BINARY, "serve", "--data-dir", data_dir.string(), "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0",
                   "--edge-threads", "1"},
                  "API listening on", true) {
        edge_port = wr::test::port_after(process.output(), "edge: listening on");
        admin_port = wr::test::port_after(process.ready_line(), "API listening on");
        token = wr::test::read_admin_token(data_dir);
    }
    wr::test::BackgroundProcess process;
    int edge_port = 0;
    int admin_port = 0;
    std::string token;
};

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: server-sent events reach the visitor as the origin writes them, not when the stream ends") {
    StreamOrigin origin;
    // The origin timeout bounds each pause between events, not the stream: 1.8 s of events pass a 1 s timeout.
    TestServer wr(std::filesystem::path{}, [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{1}; });
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());
    wr.clock().advance(std::chrono::seconds{30}); // the session is renewed with the answer
    RawConnection visitor(wr.edge_port());
    const auto started = Clock::now();
    REQUIRE(visitor.send(request_head("GET", "/sse?events=4&ms=600", cookie)));
    REQUIRE(visitor.read_until("data: event 0", milliseconds{3000}));
    const auto first = Clock::now() - started;
    REQUIRE(visitor.read_until("\r\n0\r\n\r\n", milliseconds{5000}));
    const auto whole = Clock::now() - started;
    CHECK(first < milliseconds{500});
    CHECK(whole >= milliseconds{1700}); // three pauses of 600 ms
    CHECK(visitor.received().find("Transfer-Encoding: chunked") != std::string::npos);
    CHECK(visitor.received().find("Set-Cookie: __cfwaitingroom=") != std::string::npos);
    std::string body;
    REQUIRE(dechunk(visitor.received(), body));
    CHECK(body == "data: event 0\n\ndata: event 1\n\ndata: event 2\n\ndata: event 3\n\n");
}

TEST_CASE("integration: a download larger than any buffer arrives byte-exact and wr's memory stays flat") {
    StreamOrigin origin;
    wr::test::TempDir data;
    WatchedServer wr(data.path() / "data");
    httplib::Client admin("127.0.0.1", wr.admin_port);
    const httplib::Headers auth{{"Authorization", "Bearer " + wr.token}};
    REQUIRE(admin.Post("/client/v4/zones", auth, json{{"name", "example.com"}, {"origin", origin.url()}}.dump(), "application/json")->status == 200);
    REQUIRE(admin.Post("/client/v4/zones/example.com/waiting_rooms", auth,
                       json{{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}}.dump(),
                       "application/json")->status == 200);
    std::string cookie;
    for (int i = 0; i < 100 && cookie.empty(); ++i) { // the edge sees the room within its poll interval
        Browser browser(wr.edge_port, "shop.example.com");
        if (browser.get("/").header("Set-Cookie").starts_with("__cfwaitingroom=")) cookie = "__cfwaitingroom=" + browser.cookies["__cfwaitingroom"];
        else std::this_thread::sleep_for(milliseconds{50});
    }
    REQUIRE_FALSE(cookie.empty());

    const long before = rss_kb(wr.process.pid());
    std::atomic<long> peak{before};
    std::atomic<bool> watching{true};
    std::thread watcher([&] {
        while (watching) {
            peak = std::max(peak.load(), rss_kb(wr.process.pid()));
            std::this_thread::sleep_for(milliseconds{10});
        }
    });
    const uint64_t total = 100'000'000; // beyond the 64 MiB the edge once buffered
    RawConnection visitor(wr.edge_port);
    REQUIRE(visitor.send(request_head("GET", "/bytes?n=" + std::to_string(total), cookie)));
    REQUIRE(visitor.read_until("\r\n\r\n", milliseconds{5000}));
    std::string& received = visitor.received();
    const size_t head_end = received.find("\r\n\r\n") + 4;
    CHECK(received.substr(0, head_end).find("Content-Length: 100000000") != std::string::npos);
    received.erase(0, head_end);
    uint64_t seen = 0;
    bool exact = true;
    const auto deadline = Clock::now() + std::chrono::seconds{60};
    while (seen < total && Clock::now() < deadline) {
        for (size_t i = 0; i < received.size() && exact; ++i) exact = received[i] == pattern(seen + i);
        seen += received.size();
        received.clear();
        if (seen < total && visitor.read_some(milliseconds{5000}) == 0) break;
    }
    watching = false;
    watcher.join();
    CHECK(seen == total);
    CHECK(exact);
    MESSAGE("wr RSS " << before << " kB before, peak " << peak.load() << " kB during a 100 MB download");
    CHECK(peak.load() - before < 32 * 1024);
}

TEST_CASE("integration: chunked and close-delimited answers are re-framed for the visitor, byte-exact") {
    StreamOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());
    for (const std::string framing : {"chunked", "close"}) {
        CAPTURE(framing);
        RawConnection visitor(wr.edge_port());
        REQUIRE(visitor.send(request_head("GET", "/bytes?n=3000000&framing=" + framing, cookie)));
        std::string body;
        const auto deadline = Clock::now() + std::chrono::seconds{20};
        while (!dechunk(visitor.received(), body) && Clock::now() < deadline && !visitor.closed()) visitor.read_some(milliseconds{2000});
        REQUIRE(dechunk(visitor.received(), body));
        CHECK(visitor.received().find("Transfer-Encoding: chunked") != std::string::npos);
        REQUIRE(body.size() == 3000000);
        bool exact = true;
        for (size_t i = 0; i < body.size() && exact; ++i) exact = body[i] == pattern(i);
        CHECK(exact);
    }
    // An HTTP/1.0 visitor cannot take chunks: the answer runs to the close.
    RawConnection old(wr.edge_port());
    REQUIRE(old.send("GET /bytes?n=100000&framing=chunked HTTP/1.0\r\nHost: shop.example.com\r\nCookie: " + cookie + "\r\n\r\n"));
    REQUIRE(old.read_until_closed(milliseconds{10000}));
    const size_t head_end = old.received().find("\r\n\r\n");
    REQUIRE(head_end != std::string::npos);
    CHECK(old.received().substr(0, head_end).find("Transfer-Encoding") == std::string::npos);
    CHECK(old.received().size() - head_end - 4 == 100000);
}

TEST_CASE("integration: chunked and large uploads reach the origin byte-exact, over the old 16 MiB cap") {
    StreamOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());

    std::string body(5'000'000, '\0');
    for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>((i * 7 + i / 1000) & 255);
    RawConnection chunked(wr.edge_port());
    REQUIRE(chunked.send(request_head("POST", "/upload", cookie, "Transfer-Encoding: chunked\r\nContent-Type: application/octet-stream\r\n")));
    for (size_t at = 0, size = 1; at < body.size(); at += size, size = size * 3 % 70001 + 1) {
        size = std::min(size, body.size() - at);
        char line[20];
        std::snprintf(line, sizeof line, "%zx\r\n", size);
        REQUIRE(chunked.send(line + body.substr(at, size) + "\r\n"));
    }
    REQUIRE(chunked.send("0\r\nX-Trailer: dropped\r\n\r\n"));
    REQUIRE(chunked.read_until("}", milliseconds{20000}));
    const json answer = json::parse(chunked.received().substr(chunked.received().find("\r\n\r\n") + 4));
    CHECK(answer["length"] == body.size());
    CHECK(answer["fnv1a"] == hex(fnv1a(body)));
    CHECK(answer["framing"] == "chunked");

    const std::string large(20 * 1024 * 1024, 'u');
    RawConnection sized(wr.edge_port());
    REQUIRE(sized.send(request_head("PUT", "/upload", cookie, "Content-Length: " + std::to_string(large.size()) + "\r\n") + large));
    REQUIRE(sized.read_until("}", milliseconds{20000}));
    const json sized_answer = json::parse(sized.received().substr(sized.received().find("\r\n\r\n") + 4));
    CHECK(sized_answer["length"] == large.size());
    CHECK(sized_answer["fnv1a"] == hex(fnv1a(large)));
    CHECK(sized_answer["framing"] == "length");
}

TEST_CASE("integration: Expect: 100-continue gets 100 before the body for an admitted visitor, the queue page without one for the others") {
    StreamOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());
    RawConnection visitor(wr.edge_port());
    REQUIRE(visitor.send(request_head("POST", "/upload", cookie, "Content-Length: 11\r\nExpect: 100-continue\r\n")));
    REQUIRE(visitor.read_until("\r\n\r\n", milliseconds{3000}));
    CHECK(visitor.received().starts_with("HTTP/1.1 100 Continue\r\n\r\n"));
    REQUIRE(visitor.send("hello world"));
    REQUIRE(visitor.read_until("}", milliseconds{3000}));
    const json answer = json::parse(visitor.received().substr(visitor.received().rfind("\r\n\r\n") + 4));
    CHECK(answer["length"] == 11);
    CHECK(answer["expect"] == ""); // the edge answered it; the origin is not asked again

    patch_shop(wr, {{"queue_all", true}});
    RawConnection waiting(wr.edge_port());
    REQUIRE(waiting.send("POST /upload HTTP/1.1\r\nHost: shop.example.com\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n"));
    REQUIRE(waiting.read_until("</html>", milliseconds{3000}));
    CHECK(waiting.received().starts_with("HTTP/1.1 200 OK"));
    CHECK(waiting.received().find("100 Continue") == std::string::npos);
    CHECK(waiting.received().find("You are in line") != std::string::npos);
}

TEST_CASE("integration: an origin that answers before reading the body is heard; 103 Early Hints are passed on") {
    StreamOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());
    RawConnection visitor(wr.edge_port());
    REQUIRE(visitor.send(request_head("POST", "/early", cookie, "Content-Length: 50000000\r\n") + std::string(1 << 20, 'x')));
    REQUIRE(visitor.read_until("early", milliseconds{5000}));
    CHECK(visitor.received().starts_with("HTTP/1.1 200 OK"));
    CHECK(visitor.read_until_closed(milliseconds{5000})); // the rest of the body is not read: the connection closes

    RawConnection hints(wr.edge_port());
    REQUIRE(hints.send(request_head("GET", "/hints", cookie)));
    REQUIRE(hints.read_until("hints", milliseconds{3000}));
    CHECK(hints.received().starts_with("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\nHTTP/1.1 200 OK\r\n"));
    CHECK(Browser(wr.edge_port(), "shop.example.com").get("/").from_origin()); // and the edge goes on
}

TEST_CASE("integration: --edge-max-body-bytes refuses larger bodies with 413, announced or chunked; 431 for heads over 16 KiB") {
    StreamOrigin origin;
    TestServer wr(std::filesystem::path{}, [](wr::AppOptions& options) { options.edge_max_body_bytes = 1024 * 1024; });
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());
    const wr::test::RawReply announced =
        wr::test::raw_exchange(wr.edge_port(), request_head("POST", "/upload", cookie, "Content-Length: 1048577\r\n"));
    CHECK(announced.status == 413);
    CHECK(announced.closed);
    const wr::test::RawReply fits = wr::test::raw_exchange(
        wr.edge_port(), request_head("POST", "/upload", cookie, "Content-Length: 1048576\r\n") + std::string(1048576, 'f'), milliseconds{10000});
    CHECK(fits.status == 200);

    RawConnection chunked(wr.edge_port());
    REQUIRE(chunked.send(request_head("POST", "/upload", cookie, "Transfer-Encoding: chunked\r\n")));
    const std::string piece(64 * 1024, 'c');
    for (int i = 0; i < 17 && !chunked.closed(); ++i) chunked.send("10000\r\n" + piece + "\r\n");
    REQUIRE(chunked.read_until("\r\n\r\n", milliseconds{5000}));
    CHECK(chunked.received().starts_with("HTTP/1.1 413 "));

    const wr::test::RawReply long_head =
        wr::test::raw_exchange(wr.edge_port(), request_head("GET", "/", cookie, "X-Long: " + std::string(17 * 1024, 'h') + "\r\n"));
    CHECK(long_head.status == 431);
    CHECK(long_head.closed);
    std::string many;
    for (int i = 0; i < 300; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
    CHECK(wr::test::raw_exchange(wr.edge_port(), request_head("GET", "/", cookie, many)).status == 431);
}

TEST_CASE("integration: a request body that stalls longer than --origin-timeout gets 408, and the origin never sees it whole") {
    StreamOrigin origin;
    TestServer wr(std::filesystem::path{}, [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{1}; });
    set_up_shop(wr, origin);
    const std::string cookie = admitted_cookie(wr.edge_port());
    RawConnection visitor(wr.edge_port());
    const auto started = Clock::now();
    REQUIRE(visitor.send(request_head("POST", "/upload", cookie, "Content-Length: 100\r\n") + std::string(10, 'x')));
    REQUIRE(visitor.read_until_closed(milliseconds{4000}));
    CHECK(Clock::now() - started < milliseconds{2500});
    CHECK(visitor.received().starts_with("HTTP/1.1 408 "));
    CHECK(visitor.received().find("\"length\"") == std::string::npos); // no answer from the origin: it never got 100 bytes
}

TEST_CASE("integration: a head trickled in a line at a time is cut off at --header-timeout") {
    StreamOrigin origin;
    TestServer wr(std::filesystem::path{}, [](wr::AppOptions& options) { options.header_timeout = std::chrono::seconds{1}; });
    set_up_shop(wr, origin);
    RawConnection slow(wr.edge_port());
    const auto started = Clock::now();
    REQUIRE(slow.send("GET / HTTP/1.1\r\n"));
    for (int line = 0; line < 6 && !slow.closed(); ++line) {
        slow.read_some(milliseconds{500});
        slow.send("X-Line-" + std::to_string(line) + ": 1\r\n");
    }
    REQUIRE(slow.read_until_closed(milliseconds{3000}));
    const auto held = Clock::now() - started;
    CHECK(held < milliseconds{2000});
    CHECK(slow.received().starts_with("HTTP/1.1 408 "));
    // A connection that is merely idle between requests is not cut off by it.
    RawConnection idle(wr.edge_port());
    std::this_thread::sleep_for(milliseconds{1600});
    REQUIRE(idle.send("GET / HTTP/1.1\r\nHost: shop.example.com\r\n\r\n"));
    CHECK(idle.read_until("X-Demo-Origin", milliseconds{3000}));
}

TEST_CASE("integration: a WebSocket through an admitted session echoes, and a visitor who waits gets the queue page") {
    namespace beast = boost::beast;
    namespace websocket = beast::websocket;
    StreamOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"total_active_users", 200}, {"new_users_per_minute", 200}});
    const std::string cookie = admitted_cookie(wr.edge_port());
    wr.clock().advance(std::chrono::seconds{30}); // the session is renewed with the 101

    boost::asio::io_context io;
    websocket::stream<boost::asio::ip::tcp::socket> ws(io);
    ws.next_layer().connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(wr.edge_port())});
    ws.set_option(websocket::stream_base::decorator([&](websocket::request_type& request) { request.set("Cookie", cookie); }));
    websocket::response_type handshake;
    ws.handshake(handshake, "shop.example.com", "/ws");
    CHECK(handshake.result_int() == 101);
    CHECK(std::string(handshake["Set-Cookie"]).starts_with("__cfwaitingroom=")); // the session renewed
    for (const std::string& message : {std::string("hello"), std::string(100000, 'w')}) {
        ws.write(boost::asio::buffer(message));
        beast::flat_buffer buffer;
        ws.read(buffer);
        CHECK(beast::buffers_to_string(buffer.data()) == message);
    }
    const auto metrics = wr.get("/metrics");
    CHECK(metrics.text.find("wr_edge_open_tunnels{node=\"wr\"} 1\n") != std::string::npos);
    CHECK(metrics.text.find("wr_edge_tunnels_opened_total{node=\"wr\"} 1\n") != std::string::npos);
    ws.close(websocket::close_code::normal);
    bool closed_counted = false;
    for (int i = 0; i < 50 && !closed_counted; ++i) {
        closed_counted = wr.get("/metrics").text.find("wr_edge_open_tunnels{node=\"wr\"} 0\n") != std::string::npos;
        if (!closed_counted) std::this_thread::sleep_for(milliseconds{20});
    }
    CHECK(closed_counted);

    // Not admitted: the queue page, never a tunnel.
    patch_shop(wr, {{"queue_all", true}});
    RawConnection waiting(wr.edge_port());
    REQUIRE(waiting.send("GET /ws HTTP/1.1\r\nHost: shop.example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"));
    REQUIRE(waiting.read_until("</html>", milliseconds{3000}));
    CHECK(waiting.received().starts_with("HTTP/1.1 200 OK"));
    CHECK(waiting.received().find("You are in line") != std::string::npos);
    CHECK(waiting.received().find("Upgrade") == std::string::npos);
    CHECK(wr.get("/metrics").text.find("wr_edge_tunnels_opened_total{node=\"wr\"} 1\n") != std::string::npos);
}

} // TEST_SUITE
