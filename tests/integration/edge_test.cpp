// The edge over real HTTP, in front of a real origin process: routing, admission, queue pages,
// JSON, cookies, revocation, events and failures, as browsers see them.
#include <doctest/doctest.h>

#include <thread>

#include "util/key_ring.h"
#include "support/browser.h"
#include "support/process.h"
#include "support/shop_room.h"
#include "support/test_server.h"
#include "support/tls_files.h"

using nlohmann::json;
using wr::test::Browser;
using wr::test::EdgeReply;
using wr::test::TestOrigin;
using wr::test::TestServer;
using wr::test::k_rooms;

TEST_SUITE("integration") {

TEST_CASE("integration: an admitted visitor reaches the origin with the request as sent") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    Browser browser(wr.edge_port(), "shop.example.com");
    browser.cookies["theme"] = "dark";
    const EdgeReply reply = browser.get("/echo/a%20b?x=1&y=2", {{"X-Custom", "kept"}, {"Connection", "keep-alive, X-Hop"}, {"X-Hop", "dropped"}});
    REQUIRE(reply.status == 200);
    REQUIRE(reply.from_origin());
    const json echo = json::parse(reply.body);
    CHECK(echo["target"] == "/echo/a%20b?x=1&y=2");
    CHECK(echo["query"]["y"] == "2");
    CHECK(echo["headers"]["Host"] == "shop.example.com");
    CHECK(echo["headers"]["X-Custom"] == "kept");
    CHECK(echo["headers"]["X-Forwarded-For"] == "127.0.0.1");
    CHECK(echo["headers"]["X-Forwarded-Proto"] == "http");
    CHECK(echo["headers"]["X-Forwarded-Host"] == "shop.example.com");
    CHECK_FALSE(echo["headers"].contains("X-Hop"));
    CHECK(echo["headers"]["Cookie"] == "theme=dark"); // the waiting-room cookie is not forwarded
    CHECK(reply.header("Set-Cookie").starts_with("__cfwaitingroom="));
    CHECK(reply.header("Set-Cookie").ends_with("; Max-Age=300; Path=/; HttpOnly; SameSite=Lax"));

    // The next request forwards the body, and the room's cookie still stays behind.
    const EdgeReply posted = browser.post("/echo", "{\"order\":1}", "application/json");
    const json echoed = json::parse(posted.body);
    CHECK(echoed["method"] == "POST");
    CHECK(echoed["body"] == "{\"order\":1}");
    CHECK(echoed["headers"]["Cookie"] == "theme=dark");
}

TEST_CASE("integration: the visitor after the limit is queued, and gets in as sessions expire") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    const auto admitted = fill_shop(wr, 200);
    Browser late(wr.edge_port(), "shop.example.com");
    const EdgeReply queued = late.get("/");
    CHECK_FALSE(queued.from_origin());
    CHECK(queued.status == 200);
    CHECK(queued.header("Refresh") == "20");
    CHECK(queued.header("Cache-Control") == "no-store");
    CHECK(queued.body.find("You are in line") != std::string::npos);
    CHECK(late.cookies.count("__cfwaitingroom") == 1);

    // HEAD: the page's headers without its body, and the kept-alive connection stays in step.
    Browser looking(wr.edge_port(), "shop.example.com");
    const EdgeReply head = looking.head("/");
    CHECK(head.status == 200);
    CHECK(head.body.empty());
    CHECK(std::stoul(head.header("Content-Length")) == queued.body.size());
    CHECK(looking.get("/").body.find("You are in line") != std::string::npos);

    // Refreshing early changes nothing; the Refresh header says how long is left.
    wr.clock().advance(std::chrono::seconds{5});
    const EdgeReply early = late.get("/");
    CHECK_FALSE(early.from_origin());
    CHECK(early.header("Refresh") == "15");

    // Sessions last 5 minutes after the last request: after that the queued visitor gets in.
    wr.clock().advance(std::chrono::minutes{6});
    CHECK(late.get("/").from_origin());
    const json status = wr.get(k_rooms + "/shop/status").body["result"];
    CHECK(status["estimated_total_active_users"] == 1);
}

TEST_CASE("integration: hundreds of browsers keep the limits, in arrival order") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"total_active_users", 300}, {"new_users_per_minute", 200}, {"session_duration", 2}});
    std::vector<std::unique_ptr<Browser>> browsers;
    std::vector<int> admitted_at;
    for (int i = 0; i < 400; ++i) browsers.push_back(std::make_unique<Browser>(wr.edge_port(), "shop.example.com"));
    int admitted = 0;
    for (auto& browser : browsers) admitted += browser->get("/").from_origin();
    CHECK(admitted == 200); // the per-minute limit
    const json status = wr.get(k_rooms + "/shop/status").body["result"];
    CHECK(status["status"] == "queueing");
    CHECK(status["estimated_queued_users"] == 200);
    CHECK(status["estimated_total_active_users"] == 200);

    // A minute later 100 more fit under 300 active: the first 100 of those who wait.
    wr.clock().advance(std::chrono::seconds{61});
    std::vector<int> newly;
    for (int i = 200; i < 400; ++i)
        if (browsers[static_cast<size_t>(i)]->get("/").from_origin()) newly.push_back(i);
    REQUIRE(newly.size() == 100);
    CHECK(newly.front() == 200);
    CHECK(newly.back() == 299);
}

TEST_CASE("integration: JSON for Accept: application/json exactly, when the room enables it") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"json_response_enabled", true}, {"queueing_status_code", 202}});
    const auto admitted = fill_shop(wr, 200);
    Browser app(wr.edge_port(), "shop.example.com");
    const EdgeReply reply = app.get("/", {{"Accept", "application/json"}});
    CHECK(reply.status == 202);
    CHECK(reply.header("Content-Type") == "application/json");
    const json room = json::parse(reply.body)["cfWaitingRoom"];
    CHECK(room["inWaitingRoom"] == true);
    CHECK(room["queueingMethod"] == "fifo");
    CHECK(room["isFIFOQueue"] == true);
    CHECK(room["refreshIntervalSeconds"] == 20);
    CHECK(room["queueAll"] == false);
    CHECK(room["lastUpdated"] == "2026-11-22T10:00:00.000Z");
    for (const char* field : {"waitTimeKnown", "waitTime", "waitTimeFormatted", "waitTime25Percentile", "waitTime50Percentile",
                              "waitTime75Percentile", "queueIsFull", "isRandomQueue", "isEventActive", "isEventPrequeueing",
                              "timeUntilEventStart", "timeUntilEventEnd", "shuffleAtEventStart", "turnstile", "infiniteQueue"}) {
        CAPTURE(field);
        CHECK(room.contains(field));
    }
    const EdgeReply html = app.get("/", {{"Accept", "application/json, text/html"}});
    CHECK(html.header("Content-Type") == "text/html; charset=utf-8");
}

TEST_CASE("integration: an origin's cacheable answer that gets the room's cookie tells shared caches to keep the cookie to themselves") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    Browser browser(wr.edge_port(), "shop.example.com");
    browser.get("/");
    // The demo origin's assets say "Cache-Control: public, max-age=3600": a CDN in front of wr
    // that stored one with its Set-Cookie would hand this visitor's admission to everyone after.
    const EdgeReply asset = browser.get("/static/app.css");
    REQUIRE(asset.from_origin());
    REQUIRE(asset.header("Set-Cookie").starts_with("__cfwaitingroom="));
    std::vector<std::string> cache_control;
    for (const auto& [name, value] : asset.headers)
        if (name == "Cache-Control") cache_control.push_back(value);
    CHECK(cache_control == std::vector<std::string>{"public, max-age=3600", "private=\"set-cookie\""});
}

TEST_CASE("integration: cookie attributes follow the room's settings") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"cookie_suffix", "shop"}, {"cookie_attributes", {{"samesite", "strict"}, {"secure", "always"}}}});
    Browser browser(wr.edge_port(), "shop.example.com");
    browser.get("/");
    CHECK(browser.last_set_cookie.starts_with("__cfwaitingroom_shop="));
    CHECK(browser.last_set_cookie.ends_with("; Path=/; HttpOnly; SameSite=Strict; Secure"));
    patch_shop(wr, {{"cookie_attributes", {{"samesite", "none"}, {"secure", "auto"}}}});
    Browser other(wr.edge_port(), "shop.example.com");
    other.get("/");
    CHECK(other.last_set_cookie.ends_with("; SameSite=None; Secure"));
}

TEST_CASE("integration: tampered, truncated and foreign cookies make a new visitor") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    wr.create_room("example.com", {{"name", "other"}, {"host", "other.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}});
    wr.sync_edge();
    const auto admitted = fill_shop(wr, 200);
    Browser visitor(wr.edge_port(), "shop.example.com");
    REQUIRE_FALSE(visitor.get("/").from_origin());
    const std::string cookie = visitor.cookies["__cfwaitingroom"];

    // An admitted visitor's cookie, altered: not admitted any more.
    std::string forged = admitted[0]->cookies["__cfwaitingroom"];
    forged[20] = forged[20] == 'A' ? 'B' : 'A';
    Browser forger(wr.edge_port(), "shop.example.com");
    forger.cookies["__cfwaitingroom"] = forged;
    CHECK_FALSE(forger.get("/").from_origin());
    CHECK(forger.cookies["__cfwaitingroom"] != forged);

    Browser truncated(wr.edge_port(), "shop.example.com");
    truncated.cookies["__cfwaitingroom"] = admitted[1]->cookies["__cfwaitingroom"].substr(0, 40);
    CHECK_FALSE(truncated.get("/").from_origin());

    // A cookie of another room opens nothing here.
    Browser elsewhere(wr.edge_port(), "other.example.com");
    REQUIRE(elsewhere.get("/").from_origin());
    Browser mover(wr.edge_port(), "shop.example.com");
    mover.cookies["__cfwaitingroom"] = elsewhere.cookies["__cfwaitingroom"];
    CHECK_FALSE(mover.get("/").from_origin());
    CHECK(wr.get(k_rooms + "/shop/status").body["result"]["estimated_queued_users"] == 4);
}

TEST_CASE("integration: hosts without a room pass, unknown hosts get 421, encoded paths cannot dodge a room") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"path", "/shop"}, {"queue_all", true}});
    Browser browser(wr.edge_port(), "shop.example.com");
    CHECK(browser.get("/about").from_origin());
    CHECK_FALSE(browser.get("/shop/item").from_origin());
    CHECK_FALSE(browser.get("/x/../shop").from_origin());
    CHECK_FALSE(browser.get("/%73hop").from_origin());
    CHECK_FALSE(browser.get("//shop/./item").from_origin());
    Browser zone_host(wr.edge_port(), "example.com:8080"); // the zone's own name
    CHECK(zone_host.get("/shop").from_origin());
    Browser stranger(wr.edge_port(), "evil.test");
    const EdgeReply misdirected = stranger.get("/");
    CHECK(misdirected.status == 421);
    CHECK(misdirected.body.find("evil.test") != std::string::npos);
}

TEST_CASE("integration: suspended rooms pass everyone without a cookie; reject rooms answer the reject page") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"suspended", true}});
    const auto admitted = fill_shop(wr, 250);
    Browser browser(wr.edge_port(), "shop.example.com");
    CHECK(browser.get("/").from_origin());
    CHECK(browser.cookies.empty());

    patch_shop(wr, {{"suspended", false}, {"queueing_method", "reject"}, {"queueing_status_code", 429}});
    const EdgeReply rejected = browser.get("/");
    CHECK(rejected.status == 429);
    CHECK_FALSE(rejected.has_header("Refresh"));
    CHECK(rejected.body.find("Not available right now") != std::string::npos);

    patch_shop(wr, {{"queueing_method", "passthrough"}});
    CHECK(browser.get("/").from_origin());
}

TEST_CASE("integration: the origin's revoke command ends the session and frees the slot") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"enabled_origin_commands", {"revoke"}}});
    auto admitted = fill_shop(wr, 200);
    Browser waiting(wr.edge_port(), "shop.example.com");
    REQUIRE_FALSE(waiting.get("/").from_origin());
    // A new minute renews the per-minute budget, but the room is full.
    wr.clock().advance(std::chrono::seconds{61});
    REQUIRE_FALSE(waiting.get("/").from_origin());

    const EdgeReply checkout = admitted[0]->get("/revoke");
    CHECK(checkout.from_origin());
    CHECK_FALSE(checkout.has_header("Cf-Waiting-Room-Command"));
    CHECK(admitted[0]->last_set_cookie.find("Max-Age=0;") != std::string::npos);
    CHECK(admitted[0]->cookies.empty());

    wr.clock().advance(std::chrono::seconds{21});
    CHECK(waiting.get("/").from_origin()); // the freed slot, at the next check-in

    // Without "revoke" enabled the header is still stripped but nothing happens.
    patch_shop(wr, {{"enabled_origin_commands", json::array()}});
    const EdgeReply kept = admitted[1]->get("/revoke");
    CHECK_FALSE(kept.has_header("Cf-Waiting-Room-Command"));
    CHECK(admitted[1]->cookies.count("__cfwaitingroom") == 1);
}

TEST_CASE("integration: an origin that is down gives 502, one that is slow gives 504") {
    TestServer wr(std::filesystem::path{}, [](wr::AppOptions& options) { options.origin_timeout = std::chrono::seconds{1}; });
    TestOrigin origin;
    wr.create_zone("example.com", origin.url());
    wr.create_zone("down.test", "http://127.0.0.1:1");
    wr.sync_edge();
    Browser slow(wr.edge_port(), "example.com");
    const EdgeReply timed_out = slow.get("/slow?ms=3000");
    CHECK(timed_out.status == 504);
    CHECK(slow.get("/").from_origin()); // the edge keeps serving
    Browser browser(wr.edge_port(), "down.test");
    CHECK(browser.get("/").status == 502);
}

TEST_CASE("integration: configuration changes reach the edge within a second, without restart") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    Browser browser(wr.edge_port(), "shop.example.com");
    REQUIRE(browser.get("/").from_origin());
    REQUIRE(wr.patch(k_rooms + "/shop", {{"queue_all", true}}).status == 200);
    // No sync_edge(): the edge's own poll must notice.
    bool queued = false;
    for (int i = 0; i < 20 && !queued; ++i) {
        Browser newcomer(wr.edge_port(), "shop.example.com");
        queued = !newcomer.get("/").from_origin();
        if (!queued) std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    CHECK(queued);
}

TEST_CASE("integration: an event prequeues everyone, then admits with its own limits") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin, {{"json_response_enabled", true}});
    const auto event = wr.post(k_rooms + "/shop/events", {{"name", "launch"}, {"prequeue_start_time", "2026-11-22T10:10:00Z"},
                                                          {"event_start_time", "2026-11-22T10:20:00Z"},
                                                          {"event_end_time", "2026-11-22T11:00:00Z"}, {"shuffle_at_event_start", true}});
    REQUIRE_MESSAGE(event.status == 200, event.text);
    wr.sync_edge();
    wr.clock().advance(std::chrono::minutes{15});
    Browser early(wr.edge_port(), "shop.example.com");
    const EdgeReply prequeued = early.get("/", {{"Accept", "application/json"}});
    const json fields = json::parse(prequeued.body)["cfWaitingRoom"];
    CHECK(fields["isEventPrequeueing"] == true);
    CHECK(fields["queueAll"] == true);
    CHECK(fields["timeUntilEventStart"] == 5);
    CHECK(fields["waitTimeKnown"] == false);
    CHECK(wr.get(k_rooms + "/shop/status").body["result"]["status"] == "event_prequeueing");

    wr.clock().advance(std::chrono::minutes{4});
    CHECK_FALSE(early.get("/").from_origin()); // still prequeueing; the check-in keeps the place
    wr.clock().advance(std::chrono::seconds{61});
    const EdgeReply started = early.get("/");
    CHECK(started.from_origin());
}

TEST_CASE("integration: cookies sealed before a key rotation still open after it") {
    TestOrigin origin;
    TestServer wr;
    set_up_shop(wr, origin);
    Browser browser(wr.edge_port(), "shop.example.com");
    REQUIRE(browser.get("/").from_origin());
    const std::string before = browser.cookies["__cfwaitingroom"];
    wr::util::KeyRing::rotate(wr.data_dir() / "cookie.key");
    wr.sync_edge();
    REQUIRE(browser.get("/").from_origin());
    CHECK(browser.cookies["__cfwaitingroom"].substr(0, 2) != before.substr(0, 2)); // sealed with the new key id
    const auto permissions = std::filesystem::status(wr.data_dir() / "cookie.key").permissions();
    CHECK((permissions & (std::filesystem::perms::group_all | std::filesystem::perms::others_all)) == std::filesystem::perms::none);
}

} // TEST_SUITE

TEST_SUITE("integration") {

TEST_CASE("integration: the edge serves HTTPS with --tls-cert/--tls-key, and auto cookies become SameSite=None; Secure") {
    wr::test::TempDir certificates;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(certificates.path());
    TestOrigin origin;
    TestServer wr(std::filesystem::path{}, [&](wr::AppOptions& options) {
        options.tls_certificate = tls.certificate.string();
        options.tls_private_key = tls.private_key.string();
    });
    set_up_shop(wr, origin);
    httplib::SSLClient client("127.0.0.1", wr.edge_port());
    client.enable_server_certificate_verification(false);
    const auto reply = client.Get("/echo", {{"Host", "shop.example.com"}});
    REQUIRE(reply);
    CHECK(reply->status == 200);
    CHECK(json::parse(reply->body)["headers"]["X-Forwarded-Proto"] == "https");
    CHECK(reply->get_header_value("Set-Cookie").ends_with("; SameSite=None; Secure"));
}

} // TEST_SUITE
