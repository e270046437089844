// Attacks on the edge over real sockets, each once a hole (issue 16): paths an origin reads
// differently from the rules, headers that slip past the rewrite, bodies read before anything
// is decided.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <thread>

#include "support/browser.h"
#include "support/process.h"
#include "support/eventually.h"
#include "support/raw_connection.h"
#include "support/raw_http.h"
#include "support/shop_room.h"
#include "support/test_server.h"

using nlohmann::json;
using wr::test::Browser;
using wr::test::RawReply;
using wr::test::TestOrigin;
using wr::test::TestServer;
using wr::test::k_rooms;
using wr::test::raw_exchange;

namespace {

// An origin as lenient as Python's http.server: it serves any Host, percent-decodes the whole
// path (%2F and %5C included), takes '\' for '/' and resolves dot segments, then says which
// path it served.
class DecodingOrigin {
public:
    DecodingOrigin() {
        m_server.Get(".*", [](const httplib::Request& request, httplib::Response& response) {
            std::string path = request.path; // httplib has decoded every escape
            for (char& c : path)
                if (c == '\\') c = '/';
            std::vector<std::string> segments;
            size_t at = 1;
            while (at <= path.size()) {
                const size_t slash = path.find('/', at);
                const std::string segment = path.substr(at, slash == std::string::npos ? std::string::npos : slash - at);
                if (segment == "..") {
                    if (!segments.empty()) segments.pop_back();
                } else if (!segment.empty() && segment != ".") {
                    segments.push_back(segment);
                }
                if (slash == std::string::npos) break;
                at = slash + 1;
            }
            std::string served;
            for (const auto& segment : segments) served += "/" + segment;
            response.set_header("X-Demo-Origin", "1");
            response.set_content("served " + (served.empty() ? "/" : served), "text/plain");
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
    ~DecodingOrigin() {
        m_server.stop();
        m_thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
    httplib::Server m_server;
    std::thread m_thread;
    int m_port = 0;
};

// An origin that names itself in every answer, to tell which zone's origin a request reached.
class NamedOrigin {
public:
    explicit NamedOrigin(std::string name) {
        m_server.Get(".*", [name](const httplib::Request& request, httplib::Response& response) {
            response.set_content(name + " " + request.path, "text/plain");
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
    ~NamedOrigin() {
        m_server.stop();
        m_thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
    httplib::Server m_server;
    std::thread m_thread;
    int m_port = 0;
};

// Clock ticks of CPU the process has used (user + system), from /proc.
long cpu_ticks(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14) utime = std::stol(field);
        if (i == 15) stime = std::stol(field);
    }
    return utime + stime;
}

int connect_idle(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::string get_request(const std::string& target, const std::string& host = "shop.example.com", const std::string& extra = "") {
    return "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n";
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: an encoded slash before a dot segment, a dot segment with ;parameters, or a backslash, cannot stretch a bypass rule to another path") {
    DecodingOrigin origin;
    TestServer wr;
    wr.create_zone("example.com", origin.url());
    wr.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200},
                                   {"new_users_per_minute", 200}, {"queue_all", true}});
    REQUIRE(wr.post(k_rooms + "/shop/rules", {{"action", "bypass_waiting_room"},
                                              {"expression", R"(starts_with(http.request.uri.path, "/static/"))"}})
                .status == 200);
    wr.sync_edge();

    const RawReply asset = raw_exchange(wr.edge_port(), get_request("/static/app.css"));
    CHECK(asset.body == "served /static/app.css");
    // An encoded slash that makes no dot segment is an ordinary path: it passes as sent.
    CHECK(raw_exchange(wr.edge_port(), get_request("/static/a%2Fb.css")).body == "served /static/a/b.css");
    const RawReply queued = raw_exchange(wr.edge_port(), get_request("/checkout"));
    CHECK(queued.body.find("You are in line") != std::string::npos);

    for (const std::string target : {"/static/..%2Fcheckout", "/static/..%2fcheckout", "/static/%2E%2E%2Fcheckout",
                                     "/static/..%5Ccheckout", "/static/..\\checkout", "/static\\..\\checkout",
                                     // what Tomcat, Jetty and Spring read as /checkout
                                     "/static/..;/checkout", "/static/%2e%2e;/checkout", "/static/..;jsessionid=1/checkout"}) {
        CAPTURE(target);
        const RawReply reply = raw_exchange(wr.edge_port(), get_request(target));
        CHECK(reply.status == 400);
        CHECK(reply.body.find("served") == std::string::npos);
    }
}

TEST_CASE("integration: Connection cannot remove Host, every Cookie header loses the room's cookie, trailers stay out of the headers") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    Browser browser(wr.edge_port(), "shop.example.com");
    REQUIRE(browser.get("/").from_origin());
    const std::string room_cookie = "__cfwaitingroom=" + browser.cookies["__cfwaitingroom"];

    const RawReply hosted = raw_exchange(wr.edge_port(), get_request("/echo", "shop.example.com", "Connection: host, X-Hop\r\nX-Hop: 1\r\n"));
    REQUIRE(hosted.status == 200);
    const json host_echo = json::parse(hosted.body);
    CHECK(host_echo["headers"]["Host"] == "shop.example.com");
    CHECK_FALSE(host_echo["headers"].contains("X-Hop"));

    const RawReply cookies = raw_exchange(wr.edge_port(),
                                          get_request("/echo", "shop.example.com", "Cookie: theme=dark\r\nCookie: " + room_cookie + "; lang=en\r\n"));
    REQUIRE(cookies.status == 200);
    const json cookie_echo = json::parse(cookies.body);
    CHECK(cookie_echo["headers"]["Cookie"] == "theme=dark; lang=en");
    CHECK(cookies.header("Set-Cookie").starts_with("__cfwaitingroom=")); // the admitted visitor was recognised

    const RawReply chunked = raw_exchange(wr.edge_port(),
                                          "POST /echo HTTP/1.1\r\nHost: shop.example.com\r\nTransfer-Encoding: chunked\r\n"
                                          "Trailer: X-Injected\r\nContent-Type: text/plain\r\n\r\n5\r\nhello\r\n0\r\nX-Injected: yes\r\n\r\n");
    REQUIRE(chunked.status == 200);
    const json chunk_echo = json::parse(chunked.body);
    CHECK(chunk_echo["body"] == "hello");
    CHECK_FALSE(chunk_echo["headers"].contains("X-Injected"));
}

TEST_CASE("integration: a body that will not reach the origin is not read: 421, 413 and the queue page answer at once and close") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"queue_all", true}});
    // 14 MiB announced, none of it sent: today's answer must not wait for it.
    const std::string announced = "Content-Length: 14680064\r\nContent-Type: application/octet-stream\r\n";
    const RawReply stranger = raw_exchange(wr.edge_port(), "POST / HTTP/1.1\r\nHost: evil.test\r\n" + announced + "\r\n");
    CHECK(stranger.status == 421);
    CHECK(stranger.closed);
    const RawReply queued = raw_exchange(wr.edge_port(), "POST /checkout HTTP/1.1\r\nHost: shop.example.com\r\n" + announced + "\r\n");
    CHECK(queued.status == 200);
    CHECK(queued.body.find("You are in line") != std::string::npos);
    CHECK(queued.header("Connection") == "close");
    CHECK(queued.closed);
    const RawReply too_large = raw_exchange(wr.edge_port(), "POST / HTTP/1.1\r\nHost: shop.example.com\r\nContent-Length: 99999999999\r\n\r\n");
    CHECK(too_large.status == 413);
    CHECK(too_large.closed);
}

TEST_CASE("integration: requests two readers could frame differently are refused with 400 and the connection closes") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    struct Case {
        const char* name;
        std::string bytes;
    };
    const std::string post = "POST /echo HTTP/1.1\r\nHost: shop.example.com\r\n";
    const Case cases[] = {
        {"Content-Length and Transfer-Encoding", post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"},
        {"two Content-Lengths", post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"},
        {"Transfer-Encoding other than chunked", post + "Transfer-Encoding: gzip\r\n\r\nhello"},
        {"obs-fold", "GET /echo HTTP/1.1\r\nHost: shop.example.com\r\nX-Folded: a\r\n b\r\n\r\n"},
        {"bare LF", "GET /echo HTTP/1.1\nHost: shop.example.com\n\n"},
        {"a bad chunk size", post + "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const RawReply reply = raw_exchange(wr.edge_port(), c.bytes);
        CHECK(reply.status == 400);
        CHECK(reply.closed);
        CHECK(reply.header("X-Demo-Origin").empty());
    }
}

TEST_CASE("integration: only hosts the operator named reach the origin; no Host, two Hosts, an invalid Host or a Host against the target get 400") {
    DecodingOrigin origin; // serves any Host
    TestServer wr;
    wr.create_zone("example.com", origin.url());
    wr.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200},
                                   {"new_users_per_minute", 200}, {"queue_all", true}});
    wr.sync_edge();
    const auto status_for = [&](const std::string& host) { return raw_exchange(wr.edge_port(), get_request("/checkout", host)); };

    CHECK(status_for("shop.example.com").body.find("You are in line") != std::string::npos);
    CHECK(status_for("example.com").body == "served /checkout"); // the zone's own name
    for (const std::string host : {"x.example.com", "x.shop.example.com", "www.example.com", "a.cdn.example.com"}) {
        CAPTURE(host);
        const RawReply reply = status_for(host);
        CHECK(reply.status == 421);
        CHECK(reply.body.find("served") == std::string::npos);
    }

    // Hosts the zone lists pass; still nothing else.
    const auto patched = wr.patch("/client/v4/zones/example.com", {{"hosts", {"www.example.com", "*.cdn.example.com"}}});
    REQUIRE_MESSAGE(patched.status == 200, patched.text);
    CHECK(patched.body["result"]["hosts"] == json{"www.example.com", "*.cdn.example.com"});
    wr.sync_edge();
    CHECK(status_for("www.example.com").body == "served /checkout");
    CHECK(status_for("a.cdn.example.com").body == "served /checkout");
    CHECK(status_for("x.example.com").status == 421);
    const auto outside = wr.patch("/client/v4/zones/example.com", {{"hosts", {"www.other.com"}}});
    CHECK(outside.status == 400);
    CHECK(outside.text.find("hosts[0]") != std::string::npos);

    // RFC 9112 §3.2: exactly one Host, naming the absolute-form target's host.
    const RawReply two = raw_exchange(wr.edge_port(), "GET /checkout HTTP/1.1\r\nHost: example.com\r\nHost: shop.example.com\r\n\r\n");
    CHECK(two.status == 400);
    // RFC 9112 §3.2 and RFC 3986 §3.2: a host name, an IPv4 address or a bracketed IPv6 one, and
    // an optional port of digits. Anything else after the colon would reach the origin as sent.
    for (const std::string host : {"example.com:@evil.com", "example.com:80@evil.com", "example.com:8o", "example.com:80:80",
                                   "example.com@evil.com", "example.com/evil", "[::1", "[::1]x", "exa mple.com", ""}) {
        CAPTURE(host);
        const RawReply reply = status_for(host);
        CHECK(reply.status == 400);
        CHECK(reply.body.find("served") == std::string::npos);
    }
    CHECK(status_for("example.com:8080").body == "served /checkout");
    CHECK(status_for("Example.COM.").body == "served /checkout");
    const RawReply none = raw_exchange(wr.edge_port(), "GET /checkout HTTP/1.1\r\nAccept: */*\r\n\r\n");
    CHECK(none.status == 400); // not 421: no Host is a malformed request, not a host wr does not serve
    CHECK(none.body.find("exactly one Host header") != std::string::npos);
    const RawReply disagreeing = raw_exchange(wr.edge_port(), get_request("http://example.com/checkout", "shop.example.com"));
    CHECK(disagreeing.status == 400);
    CHECK(disagreeing.body.find("served") == std::string::npos);
    const RawReply agreeing = raw_exchange(wr.edge_port(), get_request("http://Shop.Example.com:80/checkout", "shop.example.com"));
    CHECK(agreeing.body.find("You are in line") != std::string::npos);
}

TEST_CASE("integration: a host inside a more specific zone is that zone's: rooms, routes and hosts of another zone cannot take it") {
    NamedOrigin main("main");
    NamedOrigin pay("pay");
    TestServer wr;
    wr.create_zone("example.com", main.url());
    wr.create_zone("sub.example.com", pay.url());
    REQUIRE(wr.patch("/client/v4/zones/example.com", {{"hosts", {"*.example.com"}}}).status == 200);
    REQUIRE(wr.patch("/client/v4/zones/sub.example.com", {{"hosts", {"*.pay.sub.example.com"}}}).status == 200);
    // A token bound to the parent zone, as whoever runs example.com would hold.
    const std::string parent_token = wr.create_token("edit", "example.com");
    const std::string rooms = "/client/v4/zones/example.com/waiting_rooms";
    const auto room = [](const std::string& name, const std::string& host) {
        return json{{"name", name}, {"host", host}, {"total_active_users", 200}, {"new_users_per_minute", 200}, {"cookie_suffix", name}};
    };
    const auto refused = [](const wr::test::HttpReply& reply, const std::string& field, const std::string& host) {
        CHECK(reply.status == 400);
        CHECK_MESSAGE(reply.text.find(field + ": " + host + " belongs to the zone sub.example.com") != std::string::npos, reply.text);
    };
    refused(wr.post(rooms, room("steal", "pay.sub.example.com"), parent_token), "host", "pay.sub.example.com");
    refused(wr.post(rooms, room("steal", "SUB.example.com"), parent_token), "host", "SUB.example.com");
    json routed = room("steal", "shop.example.com");
    routed["additional_routes"] = {{{"host", "a.pay.sub.example.com"}, {"path", "/"}}};
    refused(wr.post(rooms, routed, parent_token), "additional_routes[0].host", "a.pay.sub.example.com");
    refused(wr.patch("/client/v4/zones/example.com", {{"hosts", {"*.example.com", "www.sub.example.com"}}}), "hosts[1]",
            "www.sub.example.com");
    refused(wr.patch("/client/v4/zones/example.com", {{"hosts", {"*.sub.example.com"}}}), "hosts[0]", "*.sub.example.com");
    // Its own hosts stay its own; so do the parent's outside the nested zone.
    REQUIRE(wr.post(rooms, room("shop", "shop.example.com"), parent_token).status == 200);
    REQUIRE(wr.post("/client/v4/zones/sub.example.com/waiting_rooms", room("pay", "checkout.sub.example.com")).status == 200);

    // A new zone cannot take what another zone serves already.
    REQUIRE(wr.post(rooms, room("deep", "a.deep.example.com"), parent_token).status == 200);
    const auto taken = wr.post("/client/v4/zones", {{"name", "deep.example.com"}, {"origin", pay.url()}});
    CHECK(taken.status == 400);
    CHECK_MESSAGE(taken.text.find("name: the zone example.com serves a.deep.example.com (waiting room deep)") != std::string::npos,
                  taken.text);
    const auto renamed = wr.patch("/client/v4/zones/sub.example.com", {{"name", "shop.example.com"}});
    CHECK(renamed.status == 400);

    // The edge sends each host to the zone it belongs to.
    wr.sync_edge();
    const auto served = [&](const std::string& host) {
        const RawReply reply = raw_exchange(wr.edge_port(), get_request("/x", host));
        return reply.status == 421 ? std::string("421") : reply.body;
    };
    CHECK(served("www.example.com") == "main /x");
    CHECK(served("x.pay.sub.example.com") == "pay /x");
    CHECK(served("sub.example.com") == "pay /x");
    CHECK(served("x.sub.example.com") == "421"); // the nested zone's, unlisted: not the parent's *.example.com
}

TEST_CASE("integration: one address trickling request heads cannot take the connections another address needs") {
    TestOrigin origin;
    TestServer wr({}, [](wr::AppOptions& options) {
        options.max_connections = 20;
        options.edge_threads = 1;
        options.header_timeout = std::chrono::seconds{60}; // the heads stay unfinished for the whole test
    });
    set_up_shop(wr, origin);
    // 127.0.0.2 opens twice the cap, each with a head begun and never finished.
    std::vector<std::unique_ptr<wr::test::RawConnection>> slow;
    for (int i = 0; i < 40; ++i) {
        auto connection = std::make_unique<wr::test::RawConnection>(wr.edge_port(), "127.0.0.2");
        REQUIRE(connection->connected());
        connection->send("GET / HTTP/1.1\r\nHost: shop.example.com\r\n");
        slow.push_back(std::move(connection));
    }
    // The edge lets that address read a few heads (an eighth of the cap, at least 2) and closes
    // its other connections as their heads begin.
    const auto closed = [&] {
        size_t count = 0;
        for (auto& connection : slow) {
            if (!connection->closed()) connection->read_some(std::chrono::milliseconds{1});
            count += connection->closed() ? 1 : 0;
        }
        return count;
    };
    CHECK(wr::test::eventually([&] { return closed() >= slow.size() - 2; }));
    CHECK(closed() == slow.size() - 2);
    // 127.0.0.1 is served at once, as is every further visitor.
    for (int i = 0; i < 5; ++i) {
        const RawReply reply = raw_exchange(wr.edge_port(), get_request("/"), std::chrono::milliseconds{2000});
        CHECK(reply.status == 200);
        CHECK(reply.header("X-Demo-Origin") == "1");
    }
}

TEST_CASE("integration: a trusted proxy's slow heads take no address's share: every visitor behind it shares its address") {
    TestOrigin origin;
    TestServer wr({}, [](wr::AppOptions& options) {
        options.max_connections = 20;
        options.edge_threads = 1;
        options.trusted_proxies = {"127.0.0.2/32"};
    });
    set_up_shop(wr, origin);
    std::vector<std::unique_ptr<wr::test::RawConnection>> proxied;
    for (int i = 0; i < 8; ++i) {
        proxied.push_back(std::make_unique<wr::test::RawConnection>(wr.edge_port(), "127.0.0.2"));
        REQUIRE(proxied.back()->send("GET /echo HTTP/1.1\r\nHost: shop.example.com\r\n"));
    }
    for (auto& connection : proxied) {
        REQUIRE(connection->send("X-Forwarded-For: 203.0.113.9\r\n\r\n"));
        CHECK(connection->read_until("203.0.113.9", std::chrono::seconds{3}));
        CHECK(connection->received().starts_with("HTTP/1.1 200"));
    }
}

TEST_CASE("integration: with ulimit -n 256 and 400 idle connections, a new visitor is served at once and the edge does not spin") {
    TestOrigin origin;
    wr::test::TempDir data;
    {
        TestServer setup(data.path());
        set_up_shop(setup, origin);
    }
    // The default cap (from the descriptor limit) sheds idle connections before descriptors run
    // out; a cap above the limit makes accept fail with EMFILE, which must not spin either.
    for (const std::string& cap : {std::string(), std::string(" --max-connections 100000")}) {
        CAPTURE(cap);
        const std::string command = "ulimit -n 256; exec " + std::string(WR_BINARY) + " --data-dir " + data.path().string() +
                                    " serve --edge-listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --edge-threads 1" + cap + " 2>&1";
        wr::test::BackgroundProcess wr({"/bin/sh", "-c", command}, "edge: listening on");
        const std::string& ready = wr.ready_line();
        const int port = std::stoi(ready.substr(ready.rfind(':') + 1));

        std::vector<int> idle;
        for (int i = 0; i < 400; ++i)
            if (const int fd = connect_idle(port); fd >= 0) idle.push_back(fd);
        std::this_thread::sleep_for(std::chrono::milliseconds{300}); // let the edge accept what it can

        const auto started = std::chrono::steady_clock::now();
        const RawReply reply = raw_exchange(port, get_request("/", "shop.example.com"), std::chrono::milliseconds{3000});
        const auto waited = std::chrono::steady_clock::now() - started;
        CHECK(reply.status == 200);
        CHECK(reply.header("X-Demo-Origin") == "1");
        CHECK(waited < std::chrono::seconds{2});

        // Still holding the idle connections: the edge uses (almost) no CPU.
        const long before = cpu_ticks(wr.pid());
        std::this_thread::sleep_for(std::chrono::seconds{1});
        const long used = cpu_ticks(wr.pid()) - before;
        CHECK(used < ::sysconf(_SC_CLK_TCK) / 5); // under 20 % of a core
        for (const int fd : idle) ::close(fd);
    }
}

}
