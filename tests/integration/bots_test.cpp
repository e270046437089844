// Bots and the traffic that must never wait, over real HTTP: bypass rules, crawler bypass
// without verified DNS, Turnstile against a fake siteverify server (real queue, infinite
// queue), the per-address join limit and trusted proxies — and what analytics counts of it.
#include <doctest/doctest.h>

#include <fstream>
#include <mutex>
#include <thread>

#include "edge/crawler.h"
#include "expr/evaluate.h"
#include "support/browser.h"
#include "support/eventually.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/raw_http.h"
#include "support/scripted_origin.h"
#include "support/shop_room.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using nlohmann::json;
using wr::test::Browser;
using wr::test::EdgeReply;
using wr::test::TestOrigin;
using wr::test::TestServer;
using wr::test::k_rooms;
using wr::test::fill_shop;

namespace {

const std::string k_googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

void add_rule(TestServer& wr, const std::string& expression, bool enabled = true) {
    const auto reply = wr.post(k_rooms + "/shop/rules",
                               {{"action", "bypass_waiting_room"}, {"expression", expression}, {"enabled", enabled}});
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    wr.sync_edge();
}

json minute_point(TestServer& wr, const std::string& time = "2026-11-22T10:00:00.000Z") {
    wr.app().flush_analytics();
    const json series = wr.get(k_rooms + "/shop/analytics?step=1m").body["result"]["series"];
    for (const json& point : series)
        if (point["time"] == time) return point;
    FAIL("no analytics point at " << time);
    return {};
}

// A count summed over every minute of today's series.
int64_t series_total(TestServer& wr, const std::string& field) {
    wr.app().flush_analytics();
    int64_t total = 0;
    const json series = wr.get(k_rooms + "/shop/analytics?step=1m").body["result"]["series"];
    for (const json& point : series) total += point[field].get<int64_t>();
    return total;
}

// Turnstile's siteverify, played locally: tokens starting with "good" pass, others fail,
// "slow" ones take longer than the edge waits.
class FakeSiteverify {
public:
    FakeSiteverify() {
        m_server.Post("/siteverify", [this](const httplib::Request& request, httplib::Response& response) {
            {
                std::lock_guard lock(m_mutex);
                m_calls.push_back({request.get_param_value("secret"), request.get_param_value("response"),
                                   request.get_param_value("remoteip")});
            }
            const std::string token = request.get_param_value("response");
            if (token.starts_with("slow")) std::this_thread::sleep_for(std::chrono::milliseconds{1500});
            const bool good = token.starts_with("good");
            response.set_content(good ? R"({"success": true, "hostname": "shop.example.com"})"
                                      : R"({"success": false, "error-codes": ["invalid-input-response"]})",
                                 "application/json");
        });
        m_port = m_server.bind_to_any_port("127.0.0.1");
        m_thread = std::thread([this] { m_server.listen_after_bind(); });
    }
    ~FakeSiteverify() {
        m_server.stop();
        m_thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port) + "/siteverify"; }

    struct Call {
        std::string secret, response, remote_ip;
    };
    std::vector<Call> calls() {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }

private:
    httplib::Server m_server;
    std::thread m_thread;
    int m_port = 0;
    std::mutex m_mutex;
    std::vector<Call> m_calls;
};

std::function<void(wr::AppOptions&)> with_turnstile(const FakeSiteverify& siteverify) {
    return [url = siteverify.url()](wr::AppOptions& options) {
        options.turnstile_site_key = "1x00000000000000000000AA";
        options.turnstile_secret = "wr-test-secret";
        options.turnstile_verify_url = url;
        options.turnstile_script_url = "/cdn/turnstile.js";
        options.turnstile_timeout = std::chrono::milliseconds{500};
    };
}

bool shows_widget(const EdgeReply& reply) { return reply.body.find("class=\"cf-turnstile\"") != std::string::npos; }

int64_t queued_users(TestServer& wr) { return wr.get(k_rooms + "/shop/status").body["result"]["estimated_queued_users"].get<int64_t>(); }

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: a bypass rule lets /static/ through while the room queues everyone") {
    TestOrigin origin;
    TestServer wr;
    wr::test::set_up_shop(wr, origin, {{"queue_all", true}});
    add_rule(wr, R"(starts_with(http.request.uri.path, "/static/") or http.request.headers["x-health-check"] eq "1")");
    add_rule(wr, R"(http.request.uri.path eq "/disabled")", false);

    Browser browser(wr.edge_port(), "shop.example.com");
    const EdgeReply page = browser.get("/");
    CHECK_FALSE(page.from_origin());
    CHECK(page.body.find("You are in line") != std::string::npos);
    for (int i = 0; i < 3; ++i) {
        const EdgeReply asset = browser.get("/static/app.css?v=" + std::to_string(i));
        CHECK(asset.from_origin());
        CHECK_FALSE(asset.has_header("Set-Cookie")); // bypassed traffic is not the room's: no cookie
    }
    // Encodings normalise before the rule sees the path: no way round the room, no way in by accident.
    CHECK(browser.get("/static/../checkout").from_origin() == false);
    CHECK(browser.get("/%73tatic/logo.png").from_origin());
    CHECK(browser.get("/", {{"X-Health-Check", "1"}}).from_origin());
    CHECK_FALSE(browser.get("/disabled").from_origin());

    // A rule's change reaches the edge: disabled, the assets wait too.
    const json rules = wr.get(k_rooms + "/shop/rules").body["result"];
    REQUIRE(wr.patch(k_rooms + "/shop/rules/" + rules[0]["id"].get<std::string>(), {{"enabled", false}}).status == 200);
    wr.sync_edge();
    CHECK_FALSE(browser.get("/static/app.css").from_origin());

    const json point = minute_point(wr);
    CHECK(point["requestsBypassed"] == 5);
    CHECK(point["requestsAdmitted"] == 0);
    CHECK(queued_users(wr) == 1);
}

TEST_CASE("integration: bypass rules see the client address, and behind a trusted proxy its X-Forwarded-For") {
    TestOrigin origin;
    SUBCASE("the peer, when no proxy is trusted") {
        TestServer wr;
        wr::test::set_up_shop(wr, origin, {{"queue_all", true}});
        add_rule(wr, "ip.src in {127.0.0.0/8}");
        Browser browser(wr.edge_port(), "shop.example.com");
        CHECK(browser.get("/", {{"X-Forwarded-For", "203.0.113.7"}}).from_origin());
    }
    SUBCASE("the forwarded address, when the peer is trusted") {
        TestServer wr({}, [](wr::AppOptions& options) { options.trusted_proxies = {"127.0.0.1/32"}; });
        wr::test::set_up_shop(wr, origin, {{"queue_all", true}});
        add_rule(wr, "ip.src in {203.0.113.0/24 2001:db8::/32}");
        Browser browser(wr.edge_port(), "shop.example.com");
        CHECK(browser.get("/", {{"X-Forwarded-For", "203.0.113.7"}}).from_origin());
        CHECK(browser.get("/", {{"X-Forwarded-For", "198.51.100.1, 2001:db8::5"}}).from_origin());
        CHECK_FALSE(browser.get("/", {{"X-Forwarded-For", "203.0.113.7, 198.51.100.1"}}).from_origin());
        CHECK_FALSE(browser.get("/").from_origin()); // the proxy itself is 127.0.0.1
    }
}

TEST_CASE("integration: a crawler user agent without verified reverse DNS is queued") {
    TestOrigin origin;
    TestServer wr;
    wr::test::set_up_shop(wr, origin, {{"queue_all", true}});
    REQUIRE(wr.put(k_rooms + "/settings", {{"search_engine_crawler_bypass", true}}).status == 200);
    wr.sync_edge();
    Browser crawler(wr.edge_port(), "shop.example.com");
    // 127.0.0.1 does not resolve to googlebot.com: asking again after the lookup changes nothing.
    for (int i = 0; i < 5; ++i) {
        CHECK_FALSE(crawler.get("/", {{"User-Agent", k_googlebot}}).from_origin());
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    CHECK(minute_point(wr)["requestsBypassed"] == 0);
}

TEST_CASE("integration: a crawler whose reverse DNS is confirmed skips the queue, once verified off the request path") {
    // DNS as the engines' would answer for a Googlebot at 127.0.0.1.
    class GooglebotDns final : public wr::edge::Resolver {
    public:
        std::vector<std::string> reverse(const wr::queue::ClientAddress& address) override {
            return address == loopback() ? std::vector<std::string>{"crawl-127-0-0-1.googlebot.com"} : std::vector<std::string>{};
        }
        std::vector<wr::queue::ClientAddress> forward(const std::string& host) override {
            if (host == "crawl-127-0-0-1.googlebot.com") return {loopback()};
            return {};
        }
        static wr::queue::ClientAddress loopback() {
            wr::queue::ClientAddress address{};
            wr::expr::parse_ip_address("127.0.0.1", address);
            return address;
        }
    };
    TestOrigin origin;
    TestServer wr({}, [](wr::AppOptions& options) { options.crawler_resolver = std::make_shared<GooglebotDns>(); });
    wr::test::set_up_shop(wr, origin, {{"queue_all", true}});
    Browser crawler(wr.edge_port(), "shop.example.com");
    CHECK_FALSE(crawler.get("/", {{"User-Agent", k_googlebot}}).from_origin()); // setting off: like anyone

    REQUIRE(wr.put(k_rooms + "/settings", {{"search_engine_crawler_bypass", true}}).status == 200);
    wr.sync_edge();
    // The first request starts the lookup and does not wait for it.
    CHECK_FALSE(crawler.get("/", {{"User-Agent", k_googlebot}}).from_origin());
    bool bypassed = false;
    for (int i = 0; i < 50 && !bypassed; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds{20});
        bypassed = crawler.get("/sitemap.xml", {{"User-Agent", k_googlebot}}).from_origin();
    }
    CHECK(bypassed);
    CHECK(crawler.get("/products/1", {{"User-Agent", k_googlebot}}).from_origin());
    // The address is Google's, not Bing's; and a browser from it is a browser.
    CHECK_FALSE(crawler.get("/", {{"User-Agent", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"}}).from_origin());
    CHECK_FALSE(crawler.get("/", {{"User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"}}).from_origin());
    CHECK(minute_point(wr)["requestsBypassed"] == 2);
}

TEST_CASE("integration: Turnstile sends passing visitors to the real queue and failing ones to the infinite queue") {
    FakeSiteverify siteverify;
    TestOrigin origin;
    TestServer wr({}, with_turnstile(siteverify));
    wr::test::set_up_shop(wr, origin, {{"turnstile_mode", "invisible"}, {"turnstile_action", "infinite_queue"}});
    const auto admitted = fill_shop(wr, 200); // room to spare: no challenge
    CHECK(admitted[0]->get("/?cf_wr_turnstile=ignored").from_origin());
    // The parameter is wr's: the origin never sees it.
    const EdgeReply echoed = admitted[0]->get("/echo?a=1&cf_wr_turnstile=ignored&b=2");
    REQUIRE(echoed.from_origin());
    CHECK(json::parse(echoed.body)["target"] == "/echo?a=1&b=2");
    CHECK(siteverify.calls().empty()); // admitted visitors are never challenged...

    // A new visitor while the room queues: the challenge first, no cookie, not in the queue.
    Browser human(wr.edge_port(), "shop.example.com");
    const EdgeReply challenge = human.get("/checkout?item=7");
    CHECK_FALSE(challenge.from_origin());
    CHECK(shows_widget(challenge));
    CHECK(challenge.body.find("data-sitekey=\"1x00000000000000000000AA\"") != std::string::npos);
    CHECK(challenge.body.find("<script src=\"/cdn/turnstile.js\" async defer></script>") != std::string::npos);
    CHECK_FALSE(challenge.has_header("Set-Cookie"));
    CHECK(queued_users(wr) == 0);

    // The page comes back with a good token: verified, queued, and sent back without the token.
    const EdgeReply passed = human.get("/checkout?item=7&cf_wr_turnstile=good-token");
    CHECK(passed.status == 303);
    CHECK(passed.header("Location") == "/checkout?item=7");
    CHECK(passed.header("Set-Cookie").starts_with("__cfwaitingroom="));
    REQUIRE(siteverify.calls().size() == 1);
    CHECK(siteverify.calls()[0].secret == "wr-test-secret");
    CHECK(siteverify.calls()[0].response == "good-token");
    CHECK(siteverify.calls()[0].remote_ip == "127.0.0.1");
    CHECK(queued_users(wr) == 1);
    const EdgeReply in_line = human.get("/checkout?item=7");
    CHECK_FALSE(in_line.from_origin());
    CHECK_FALSE(shows_widget(in_line)); // answered once: not asked again
    CHECK(in_line.body.find("You are in line") != std::string::npos);

    // A bot fails: a cookie like anyone's, a page like anyone's, and never a place in the queue.
    Browser bot(wr.edge_port(), "shop.example.com");
    CHECK(shows_widget(bot.get("/")));
    const EdgeReply failed = bot.get("/?cf_wr_turnstile=forged");
    CHECK(failed.status == 303);
    CHECK(failed.header("Location") == "/");
    CHECK(failed.header("Set-Cookie").size() == passed.header("Set-Cookie").size());
    const EdgeReply fake = bot.get("/");
    CHECK_FALSE(fake.from_origin());
    CHECK_FALSE(shows_widget(fake));
    CHECK(fake.body.find("You are in line") != std::string::npos);
    CHECK(fake.header("Refresh") == in_line.header("Refresh"));
    CHECK(queued_users(wr) == 1); // the bot is not counted in the queue

    // Both keep refreshing. The admitted sessions end after 5 minutes and the human gets in; the
    // bot waits on for ever.
    bool human_in = false;
    for (int i = 0; i < 18; ++i) {
        wr.app().flush_analytics(); // as the collector does every few seconds of real time
        wr.clock().advance(std::chrono::seconds{20});
        if (!human_in) human_in = human.get("/checkout?item=7").from_origin();
        CHECK_FALSE(bot.get("/").from_origin());
    }
    CHECK(human_in);
    CHECK(queued_users(wr) == 0);
    // A token the widget reported as failed, and one siteverify cannot judge in time, fail too.
    Browser broken(wr.edge_port(), "shop.example.com");
    CHECK(broken.get("/?cf_wr_turnstile=failed").status == 303);
    Browser slow(wr.edge_port(), "shop.example.com");
    CHECK(slow.get("/?cf_wr_turnstile=slow-token").status == 303);
    CHECK_FALSE(slow.get("/").from_origin());
    CHECK(siteverify.calls().size() == 3); // "failed" is never sent to siteverify

    const json now = minute_point(wr, "2026-11-22T10:00:00.000Z");
    CHECK(now["turnstileChallenges"] == 2);
    CHECK(now["turnstileSuccesses"] == 1);
    CHECK(now["turnstileFailures"] == 1);
    CHECK(now["turnstileUnsolved"] == 0);
    CHECK(now["infiniteQueueRefreshes"] == 3); // the bot's first page, then two refreshes
    CHECK(minute_point(wr, "2026-11-22T10:06:00.000Z")["turnstileFailures"] == 2);
    CHECK(series_total(wr, "infiniteQueueRefreshes") == 1 + 18 + 1); // the bot's, then slow's first page

    const wr::test::Exposition metrics = wr::test::parse_prometheus(wr.get("/metrics").text);
    const std::map<std::string, std::string> labels{{"node", "wr"}, {"zone", "example.com"}, {"room", "shop"}};
    auto turnstile = [&](const char* outcome) { return metrics.value("wr_turnstile_total", labels, "outcome", outcome); };
    CHECK(turnstile("challenge") == 2);
    CHECK(turnstile("success") == 1);
    CHECK(turnstile("failure") == 3);
    CHECK(metrics.value("wr_infinite_queue_refreshes_total", labels) == 20);
}

TEST_CASE("integration: the access log names Turnstile's challenge, its answer, and the queue after it") {
    FakeSiteverify siteverify;
    TestOrigin origin;
    wr::test::TempDir dir;
    const auto file = dir.path() / "access.log";
    TestServer wr({}, [&](wr::AppOptions& options) {
        with_turnstile(siteverify)(options);
        options.access_log = file.string();
        options.access_log_format = "json";
        options.edge_threads = 1; // one thread's buffer: the lines come in the order of the requests
    });
    wr::test::set_up_shop(wr, origin, {{"turnstile_mode", "invisible"}, {"turnstile_action", "infinite_queue"}, {"queue_all", true}});
    Browser human(wr.edge_port(), "shop.example.com");
    REQUIRE(shows_widget(human.get("/")));
    REQUIRE(human.get("/?cf_wr_turnstile=good-token").status == 303);
    REQUIRE(human.get("/").body.find("You are in line") != std::string::npos);
    std::vector<json> lines;
    REQUIRE(wr::test::eventually([&] {
        lines.clear();
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
        return lines.size() >= 3;
    }));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0]["decision"] == "turnstile_challenge");
    CHECK(lines[0]["status"] == 200);
    CHECK(lines[0]["new_visitor"] == true);
    CHECK(lines[1]["decision"] == "turnstile_verified");
    CHECK(lines[1]["status"] == 303);
    CHECK(lines[2]["decision"] == "queued");
    CHECK(lines[2]["room"] == "shop");
}

TEST_CASE("integration: the Turnstile answer redirects only to a path on the same site") {
    FakeSiteverify siteverify;
    TestOrigin origin;
    TestServer wr({}, with_turnstile(siteverify));
    wr::test::set_up_shop(wr, origin, {{"turnstile_mode", "invisible"}, {"turnstile_action", "infinite_queue"}, {"queue_all", true}});
    const auto answer = [&](const std::string& target) {
        return wr::test::raw_exchange(wr.edge_port(), "GET " + target + " HTTP/1.1\r\nHost: shop.example.com\r\n\r\n");
    };
    for (const std::string target : {"//evil.example/?cf_wr_turnstile=failed", "///evil.example/?cf_wr_turnstile=good-token",
                                     "http://shop.example.com//evil.example/?cf_wr_turnstile=failed"}) {
        CAPTURE(target);
        const wr::test::RawReply reply = answer(target);
        CHECK(reply.status == 303);
        CHECK(reply.header("Location") == "/evil.example/");
    }
    CHECK(answer("http://shop.example.com/checkout?cf_wr_turnstile=failed&item=7").header("Location") == "/checkout?item=7");
    // A backslash never reaches the redirect: the path is refused first.
    const wr::test::RawReply backslash = answer("/\\evil.example/?cf_wr_turnstile=failed");
    CHECK(backslash.status == 400);
    CHECK(backslash.header("Location").empty());
}

TEST_CASE("integration: a siteverify answering 100 Continue first: its verdict is each visitor's own, never the one before") {
    // An interim answer taken for the verdict failed every good token — and, when the verdict
    // came a moment after it, left that verdict unread on the pooled connection, to be read next
    // as another visitor's.
    wr::test::ScriptedOrigin siteverify;
    TestOrigin origin;
    TestServer wr({}, [url = siteverify.url() + "/siteverify-interim"](wr::AppOptions& options) {
        options.turnstile_site_key = "1x00000000000000000000AA";
        options.turnstile_secret = "wr-test-secret";
        options.turnstile_verify_url = url;
        options.turnstile_timeout = std::chrono::milliseconds{1000};
        options.edge_threads = 1; // one siteverify pool
    });
    wr::test::set_up_shop(wr, origin, {{"turnstile_mode", "invisible"}, {"turnstile_action", "infinite_queue"}, {"queue_all", true}});
    Browser human(wr.edge_port(), "shop.example.com");
    CHECK(human.get("/?cf_wr_turnstile=good-token").status == 303);
    CHECK(queued_users(wr) == 1); // verified: in the real queue
    for (int i = 0; i < 3; ++i) {
        Browser bot(wr.edge_port(), "shop.example.com");
        CHECK(bot.get("/?cf_wr_turnstile=forged-" + std::to_string(i)).status == 303);
        CHECK(queued_users(wr) == 1); // not verified: the infinite queue
    }
    CHECK(siteverify.connections() == 1); // the one connection, pooled and reused
}

TEST_CASE("integration: with turnstile_action log, everyone joins the real queue and the outcomes are counted") {
    FakeSiteverify siteverify;
    TestOrigin origin;
    TestServer wr({}, with_turnstile(siteverify));
    wr::test::set_up_shop(wr, origin, {{"turnstile_mode", "visible_managed"}, {"turnstile_action", "log"}});
    const auto admitted = fill_shop(wr, 200);
    Browser human(wr.edge_port(), "shop.example.com");
    Browser bot(wr.edge_port(), "shop.example.com");
    Browser silent(wr.edge_port(), "shop.example.com");
    for (Browser* browser : {&human, &bot, &silent}) {
        const EdgeReply page = browser->get("/");
        CHECK(shows_widget(page));
        CHECK(page.body.find("data-appearance=\"always\"") != std::string::npos);
        CHECK(page.header("Set-Cookie").starts_with("__cfwaitingroom=")); // in the queue already
    }
    CHECK(queued_users(wr) == 3);
    CHECK(human.get("/?cf_wr_turnstile=good").status == 303);
    CHECK(bot.get("/?cf_wr_turnstile=bad").status == 303);
    CHECK(queued_users(wr) == 3); // the failure stays in the real queue
    wr.clock().advance(std::chrono::seconds{20});
    CHECK_FALSE(shows_widget(human.get("/")));
    CHECK_FALSE(shows_widget(bot.get("/")));
    CHECK(shows_widget(silent.get("/"))); // never answered: asked again
    const json point = minute_point(wr);
    CHECK(point["turnstileChallenges"] == 4);
    CHECK(point["turnstileSuccesses"] == 1);
    CHECK(point["turnstileFailures"] == 1);
    CHECK(point["turnstileUnsolved"] == 2);
    CHECK(point["infiniteQueueRefreshes"] == 0);
}

TEST_CASE("integration: without keys Turnstile is off whatever the room says") {
    TestOrigin origin;
    TestServer wr;
    wr::test::set_up_shop(wr, origin, {{"turnstile_mode", "visible_managed"}, {"turnstile_action", "infinite_queue"}});
    const auto admitted = fill_shop(wr, 200);
    Browser second(wr.edge_port(), "shop.example.com");
    const EdgeReply page = second.get("/?cf_wr_turnstile=whatever");
    CHECK(page.status == 200);
    CHECK_FALSE(shows_widget(page));
    CHECK(queued_users(wr) == 1);
    CHECK(minute_point(wr)["turnstileChallenges"] == 0);
}

TEST_CASE("integration: more new-queue joins from one address than the room's limit get 429") {
    TestOrigin origin;
    TestServer wr({}, [](wr::AppOptions& options) { options.trusted_proxies = {"127.0.0.1"}; });
    wr::test::set_up_shop(wr, origin, {{"join_limit_per_ip_per_minute", 2}});
    const auto admitted = fill_shop(wr, 200); // admitted, not queue joins: not limited
    const httplib::Headers same{{"X-Forwarded-For", "198.51.100.1"}};
    std::vector<std::unique_ptr<Browser>> joined;
    for (int i = 0; i < 2; ++i) {
        joined.push_back(std::make_unique<Browser>(wr.edge_port(), "shop.example.com"));
        const EdgeReply page = joined.back()->get("/", same);
        CHECK(page.status == 200);
        CHECK(page.body.find("You are in line") != std::string::npos);
    }
    Browser third(wr.edge_port(), "shop.example.com");
    const EdgeReply refused = third.get("/", same);
    CHECK(refused.status == 429);
    CHECK(refused.header("Retry-After") == "60");
    CHECK_FALSE(refused.has_header("Set-Cookie"));
    CHECK(queued_users(wr) == 2);
    // Those already in line keep their place; other addresses join; the next minute starts afresh.
    wr.clock().advance(std::chrono::seconds{20});
    CHECK(joined[0]->get("/", same).status == 200);
    Browser other(wr.edge_port(), "shop.example.com");
    CHECK(other.get("/", {{"X-Forwarded-For", "198.51.100.2"}}).status == 200);
    wr.clock().advance(std::chrono::seconds{40});
    CHECK(third.get("/", same).status == 200);
    // A place is held while its browser checks in (a closed tab lets it go within 40 s): the
    // others check in again, and all four are in line.
    CHECK(joined[0]->get("/", same).status == 200);
    CHECK(joined[1]->get("/", same).status == 200);
    CHECK(other.get("/", {{"X-Forwarded-For", "198.51.100.2"}}).status == 200);
    CHECK(queued_users(wr) == 4);
    CHECK(minute_point(wr)["requestsRejected"] == 1);
}

TEST_CASE("integration: wr serve refuses a --trusted-proxy that is not an address or network, naming it") {
    wr::test::TempDir data;
    const wr::test::ProcessResult result =
        wr::test::run_wr({"--data-dir", data.path().string(), "serve", "--edge-listen", "127.0.0.1:0", "--admin-listen",
                          "127.0.0.1:0", "--trusted-proxy", "10.0.0.0/8,proxy.internal"});
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("--trusted-proxy: 'proxy.internal' is not an IP address or CIDR network") != std::string::npos);
}

} // TEST_SUITE
