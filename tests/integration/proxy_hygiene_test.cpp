// What the edge changes on the way to the origin and back, each rule once untested (issue 16 B4):
// X-Forwarded-For appended, hop-by-hop response headers dropped, the origin's path prefix,
// HTTPS origins verified (against the system's store or --origin-ca-file), and the cookie's Max-Age under session_duration and
// disable_session_renewal.
#include <doctest/doctest.h>

#include <cstdlib>
#include <thread>

#include "support/browser.h"
#include "support/process.h"
#include "support/raw_connection.h"
#include "support/raw_http.h"
#include "support/shop_room.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/tls_files.h"

using nlohmann::json;
using wr::test::Browser;
using wr::test::EdgeReply;
using wr::test::RawReply;
using wr::test::TestOrigin;
using wr::test::TestServer;
using wr::test::raw_exchange;

namespace {

// An origin that says which target it was asked for, and answers with hop-by-hop headers a
// visitor must never see.
template <typename Server> class HopOrigin {
public:
    template <typename... Args> explicit HopOrigin(Args&&... args) : m_server(std::forward<Args>(args)...) {
        m_server.Get(".*", [](const httplib::Request& request, httplib::Response& response) {
            response.set_header("X-Demo-Origin", "1");
            response.set_header("Upgrade", "h2c");
            response.set_header("Proxy-Authenticate", "Basic realm=\"origin\"");
            response.set_header("Trailer", "X-Checksum");
            response.set_header("X-End-To-End", "kept");
            response.set_content("target " + request.target, "text/plain");
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
        while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{5});
    }
    ~HopOrigin() {
        m_server.stop();
        m_thread.join();
    }
    int port() const { return m_port; }

private:
    Server m_server;
    std::thread m_thread;
    int m_port = 0;
};

void shop_in_front_of(TestServer& wr, const std::string& origin_url, json room_fields = json::object()) {
    wr.create_zone("example.com", origin_url);
    json room = {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}};
    room.update(room_fields);
    wr.create_room("example.com", room);
    wr.sync_edge();
}

std::string max_age(const EdgeReply& reply) {
    const std::string cookie = reply.header("Set-Cookie");
    const size_t at = cookie.find("Max-Age=");
    if (at == std::string::npos) return "";
    return cookie.substr(at + 8, cookie.find(';', at) - at - 8);
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: X-Forwarded-For is appended to, never replaced") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    Browser browser(wr.edge_port(), "shop.example.com");
    const EdgeReply reply = browser.get("/echo", {{"X-Forwarded-For", "203.0.113.7, 198.51.100.2"}});
    REQUIRE(reply.from_origin());
    CHECK(json::parse(reply.body)["headers"]["X-Forwarded-For"] == "203.0.113.7, 198.51.100.2, 127.0.0.1");
}

TEST_CASE("integration: client-address headers a visitor sends (X-Real-IP, Forwarded, True-Client-IP…) never reach the origin") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    const RawReply reply = raw_exchange(wr.edge_port(), "GET /echo HTTP/1.1\r\nHost: shop.example.com\r\nX-Real-IP: 10.0.0.1\r\n"
                                                        "Forwarded: for=10.0.0.1;proto=https\r\nTrue-Client-IP: 10.0.0.1\r\n"
                                                        "CF-Connecting-IP: 10.0.0.1\r\nX-Client-IP: 10.0.0.1\r\n"
                                                        "X-Cluster-Client-IP: 10.0.0.1\r\nX-Kept: yes\r\n\r\n");
    REQUIRE(reply.status == 200);
    const json headers = json::parse(reply.body)["headers"];
    CHECK(headers["X-Kept"] == "yes");
    CHECK(headers["X-Forwarded-For"] == "127.0.0.1");
    for (const char* spoofable : {"X-Real-IP", "Forwarded", "True-Client-IP", "CF-Connecting-IP", "X-Client-IP", "X-Cluster-Client-IP"}) {
        CAPTURE(spoofable);
        CHECK_FALSE(headers.contains(spoofable));
    }
}

TEST_CASE("integration: only WebSocket upgrades are tunnelled; an h2c upgrade reaches the origin as an ordinary request") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    wr::test::RawConnection connection(wr.edge_port());
    REQUIRE(connection.send("GET /echo HTTP/1.1\r\nHost: shop.example.com\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                            "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n"));
    REQUIRE(connection.read_until("\"query\"", std::chrono::seconds{3}));
    connection.read_some(std::chrono::milliseconds{200}); // the rest of the JSON
    const std::string& first = connection.received();
    CHECK(first.starts_with("HTTP/1.1 200"));
    const json headers = json::parse(first.substr(first.find("\r\n\r\n") + 4))["headers"];
    CHECK_FALSE(headers.contains("Upgrade"));
    CHECK_FALSE(headers.contains("HTTP2-Settings"));
    CHECK(headers.value("Connection", "").find("pgrade") == std::string::npos);
    // Not a tunnel: the connection goes on with the next request.
    connection.received().clear();
    REQUIRE(connection.send("GET /echo?second HTTP/1.1\r\nHost: shop.example.com\r\n\r\n"));
    CHECK(connection.read_until("second", std::chrono::seconds{3}));
}

TEST_CASE("integration: hop-by-hop headers of the origin's answer never reach the visitor; the origin's path prefix is kept and cannot be climbed out of") {
    HopOrigin<httplib::Server> origin;
    TestServer wr;
    shop_in_front_of(wr, "http://127.0.0.1:" + std::to_string(origin.port()) + "/base");
    Browser browser(wr.edge_port(), "shop.example.com");
    const EdgeReply reply = browser.get("/shop/item?x=1");
    REQUIRE(reply.from_origin());
    CHECK(reply.body == "target /base/shop/item?x=1");
    CHECK(reply.header("X-End-To-End") == "kept");
    for (const char* hop : {"Upgrade", "Proxy-Authenticate", "Trailer", "Keep-Alive"}) {
        CAPTURE(hop);
        CHECK_FALSE(reply.has_header(hop));
    }
    // Dot segments cannot climb out of the prefix: the origin gets the path routing judged.
    const std::pair<const char*, const char*> climbs[] = {
        {"/../admin", "target /base/admin"},
        {"/%2e%2e/admin?x=1", "target /base/admin?x=1"},
        {"/shop/../../admin", "target /base/admin"},
        {"/shop/./item/../cart", "target /base/shop/./item/../cart"}, // stays below the prefix: as sent
    };
    for (const auto& [target, served] : climbs) {
        CAPTURE(target);
        const RawReply climbed = raw_exchange(wr.edge_port(), std::string("GET ") + target + " HTTP/1.1\r\nHost: shop.example.com\r\n\r\n");
        CHECK(climbed.body == served);
    }
}

TEST_CASE("integration: an HTTPS origin is reached when its certificate is trusted, and refused (502) when not") {
    wr::test::TempDir certificates;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(certificates.path());
    HopOrigin<httplib::SSLServer> origin(tls.certificate.string().c_str(), tls.private_key.string().c_str());
    const std::string url = "https://localhost:" + std::to_string(origin.port());
    {
        TestServer wr;
        shop_in_front_of(wr, url);
        Browser browser(wr.edge_port(), "shop.example.com");
        const EdgeReply untrusted = browser.get("/");
        CHECK(untrusted.status == 502);
        CHECK_FALSE(untrusted.from_origin());
    }
    // OpenSSL's default verify paths read SSL_CERT_FILE when the edge's TLS context is made.
    const char* previous = std::getenv("SSL_CERT_FILE");
    const std::string saved = previous ? previous : "";
    ::setenv("SSL_CERT_FILE", tls.certificate.string().c_str(), 1);
    {
        TestServer wr;
        shop_in_front_of(wr, url);
        Browser browser(wr.edge_port(), "shop.example.com");
        const EdgeReply trusted = browser.get("/over/tls");
        CHECK(trusted.status == 200);
        CHECK(trusted.body == "target /over/tls");
    }
    if (previous) ::setenv("SSL_CERT_FILE", saved.c_str(), 1);
    else ::unsetenv("SSL_CERT_FILE");
    // A private CA named with --origin-ca-file, the system's store untouched.
    {
        TestServer wr(std::filesystem::path{}, [&](wr::AppOptions& options) { options.origin_ca_file = tls.certificate.string(); });
        shop_in_front_of(wr, url);
        Browser browser(wr.edge_port(), "shop.example.com");
        const EdgeReply trusted = browser.get("/private/ca");
        CHECK(trusted.status == 200);
        CHECK(trusted.body == "target /private/ca");
    }
}

TEST_CASE("integration: the cookie lasts session_duration after each request, or after admission with disable_session_renewal") {
    const auto active = [](TestServer& wr) {
        return wr.get(wr::test::k_rooms + "/shop/status").body["result"]["estimated_total_active_users"].get<int64_t>();
    };
    TestOrigin origin;
    {
        TestServer wr;
        set_up_shop(wr, origin, {{"session_duration", 7}});
        Browser renewing(wr.edge_port(), "shop.example.com");
        CHECK(max_age(renewing.get("/")) == "420");
        wr.clock().advance(std::chrono::minutes{5});
        CHECK(max_age(renewing.get("/")) == "420");
        wr.clock().advance(std::chrono::seconds{210});
        CHECK(active(wr) == 1); // 8.5 minutes after admission, 3.5 after the last request
    }
    {
        TestServer wr;
        set_up_shop(wr, origin, {{"session_duration", 7}, {"disable_session_renewal", true}});
        Browser fixed(wr.edge_port(), "shop.example.com");
        CHECK(max_age(fixed.get("/")) == "420");
        wr.clock().advance(std::chrono::minutes{5});
        const EdgeReply later = fixed.get("/");
        CHECK(later.from_origin());
        CHECK((max_age(later).empty() || max_age(later) == "120")); // never pushed past admission + 7 minutes
        wr.clock().advance(std::chrono::seconds{210});
        CHECK(active(wr) == 0);
    }
}

TEST_CASE("integration: a body up to --edge-max-body-bytes reaches the origin, a larger one gets the edge's 413") {
    TestOrigin origin;
    TestServer wr(std::filesystem::path{}, [](wr::AppOptions& options) { options.edge_max_body_bytes = 4 * 1024 * 1024; });
    set_up_shop(wr, origin);
    const std::string two_mib(2 * 1024 * 1024, 'x');
    const RawReply accepted = raw_exchange(wr.edge_port(), "POST /echo HTTP/1.1\r\nHost: shop.example.com\r\nContent-Type: text/plain\r\n"
                                                           "Content-Length: " + std::to_string(two_mib.size()) + "\r\n\r\n" + two_mib,
                                           std::chrono::milliseconds{10000});
    REQUIRE(accepted.status == 200);
    CHECK(json::parse(accepted.body)["body"].get<std::string>().size() == two_mib.size());
    const RawReply too_large = raw_exchange(wr.edge_port(), "POST /echo HTTP/1.1\r\nHost: shop.example.com\r\n"
                                                            "Content-Length: " + std::to_string(4 * 1024 * 1024 + 1) + "\r\n\r\n");
    CHECK(too_large.status == 413);
    CHECK(too_large.body.find("Request too large") != std::string::npos);
    CHECK(too_large.closed);
}

}
