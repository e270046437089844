// The Gate decides one request on virtual time, without a network: bypass rules before every
// queueing mode, crawler bypass behind verification, and the per-address join limit.
#include <doctest/doctest.h>

#include "edge/config_source.h"
#include "edge/gate.h"
#include "expr/evaluate.h"
#include "state/memory_counters.h"

using wr::util::CookieKey;
using wr::edge::CrawlerVerifier;
using wr::edge::EdgeConfig;
using wr::edge::Gate;
using wr::edge::GateResult;
using wr::edge::GateServices;
using wr::edge::IncomingRequest;
using wr::util::KeyRing;
using wr::edge::Resolver;
using wr::edge::RoomConfig;
using wr::edge::Snapshot;
using wr::edge::ZoneConfig;
using wr::util::TimePoint;

namespace {

const TimePoint k_now{std::chrono::milliseconds{1'795'860'000'000}}; // 2026-11-28T10:00:00Z, a whole minute

// One zone, example.com, with one room on shop.example.com; `change` adjusts the room before
// the snapshot is built.
Snapshot shop(const std::function<void(ZoneConfig&, RoomConfig&)>& change) {
    auto config = std::make_shared<EdgeConfig>();
    auto zone = std::make_unique<ZoneConfig>();
    zone->name = "example.com";
    auto room = std::make_unique<RoomConfig>();
    room->id = "0123456789abcdef0123456789abcdef";
    room->zone = zone.get();
    room->settings.host = "shop.example.com";
    room->settings.total_active_users = 200;
    room->settings.new_users_per_minute = 200;
    room->cookie_name = "__cfwaitingroom";
    change(*zone, *room);
    build_phases(*room);
    compile_rules(*room);
    config->zones.push_back(std::move(zone));
    config->rooms.push_back(std::move(room));
    config->index();
    std::vector<wr::util::CookieKey> keys(1);
    keys[0].id = 1;
    keys[0].key.fill(42);
    return Snapshot{config, std::make_shared<const wr::util::KeyRing>(keys), 1};
}

wr::model::Rule rule(std::string expression) {
    wr::model::Rule rule;
    rule.id = "r1";
    rule.settings.expression = std::move(expression);
    return rule;
}

IncomingRequest get(std::string_view target, std::string_view client = "203.0.113.9") {
    IncomingRequest request{.method = "GET", .target = target, .host = "shop.example.com", .accept = "text/html"};
    request.has_client = wr::expr::parse_ip_address(client, request.client);
    return request;
}

uint64_t count(const Snapshot& snapshot, wr::analytics::Outcome outcome) {
    return snapshot.config->rooms[0]->stats->totals().requests[static_cast<size_t>(outcome)];
}

} // namespace

TEST_CASE("gate: a bypass rule passes requests whatever the room does: reject, queue_all, an event's prequeue") {
    const std::function<void(RoomConfig&)> modes[] = {
        [](RoomConfig& room) { room.settings.queueing_method = wr::model::QueueingMethod::reject; },
        [](RoomConfig& room) { room.settings.queue_all = true; },
        [](RoomConfig& room) {
            wr::model::Event event;
            event.id = "e1";
            event.settings.prequeue_start_time = wr::model::Timestamp{"2026-11-28T09:00:00Z", k_now - std::chrono::hours{1}};
            event.settings.event_start_time = {"2026-11-28T11:00:00Z", k_now + std::chrono::hours{1}};
            event.settings.event_end_time = {"2026-11-28T12:00:00Z", k_now + std::chrono::hours{2}};
            room.events.push_back(event);
        },
    };
    for (const auto& mode : modes) {
        const Snapshot snapshot = shop([&](ZoneConfig&, RoomConfig& room) {
            mode(room);
            room.rules.push_back(rule(R"(starts_with(http.request.uri.path, "/static/"))"));
        });
        wr::state::MemoryCounters counters;
        Gate gate(counters, 1);
        const GateResult asset = gate.handle(snapshot, get("/static/app.css"), k_now);
        CHECK(asset.action == GateResult::Action::proxy);
        CHECK(asset.set_cookie.empty());
        const GateResult page = gate.handle(snapshot, get("/"), k_now);
        CHECK(page.action == GateResult::Action::respond);
        CHECK(count(snapshot, wr::analytics::Outcome::bypassed) == 1);
        CHECK(count(snapshot, wr::analytics::Outcome::admitted) == 0);
    }
}

TEST_CASE("gate: disabled rules and rules that do not match leave the request to the room") {
    const Snapshot snapshot = shop([](ZoneConfig&, RoomConfig& room) {
        room.settings.queue_all = true;
        room.rules.push_back(rule(R"(http.request.method eq "POST")"));
        room.rules.push_back(rule(R"(ip.src in {203.0.113.0/24})"));
        room.rules.back().settings.enabled = false;
    });
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    CHECK(gate.handle(snapshot, get("/"), k_now).action == GateResult::Action::respond);
    IncomingRequest post = get("/");
    post.method = "POST";
    CHECK(gate.handle(snapshot, post, k_now).action == GateResult::Action::proxy);
}

TEST_CASE("gate: rules read the routed host and path, normalised as for routing") {
    const Snapshot snapshot = shop([](ZoneConfig&, RoomConfig& room) {
        room.settings.queue_all = true;
        room.rules.push_back(rule(R"(http.host eq "shop.example.com" and http.request.uri.path eq "/health")"));
    });
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    IncomingRequest health = get("/static/../health");
    health.host = "Shop.Example.COM:8080";
    CHECK(gate.handle(snapshot, health, k_now).action == GateResult::Action::proxy);
    health.target = "/healthz";
    CHECK(gate.handle(snapshot, health, k_now).action == GateResult::Action::respond);
}

TEST_CASE("gate: a request without a Host header, or with two, is malformed (400), not misdirected (421)") {
    const Snapshot snapshot = shop([](ZoneConfig&, RoomConfig&) {});
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    for (const int hosts : {0, 2}) {
        CAPTURE(hosts);
        IncomingRequest request = get("/");
        request.host_headers = hosts;
        if (hosts == 0) request.host = "";
        const GateResult result = gate.handle(snapshot, request, k_now);
        CHECK(result.action == GateResult::Action::respond);
        CHECK(result.status == 400);
    }
}

namespace {

// Two rooms on one host: /shop/checkout queues everyone, the rest of the site has room to spare.
// Each of `refused` is read by some origin as a path in the checkout room while routing reads it
// elsewhere: 400. `in_room` stays in the room as both read it (its queue page), and `elsewhere`
// outside it (to the origin).
void check_other_readings(const std::vector<std::string>& refused, const std::string& in_room, const std::vector<std::string>& elsewhere) {
    const Snapshot snapshot = shop([](ZoneConfig&, RoomConfig& room) {
        room.settings.path = "/shop/checkout";
        room.settings.queue_all = true;
    });
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    for (const std::string& target : refused) {
        CAPTURE(target);
        const GateResult result = gate.handle(snapshot, get(target), k_now);
        CHECK(result.action == GateResult::Action::respond);
        CHECK(result.status == 400);
    }
    const GateResult inside = gate.handle(snapshot, get(in_room), k_now);
    CHECK(inside.action == GateResult::Action::respond);
    CHECK(inside.status == 200);
    for (const std::string& target : elsewhere) CHECK(gate.handle(snapshot, get(target), k_now).action == GateResult::Action::proxy);
}

} // namespace

TEST_CASE("gate: a ;parameter that would route a path to another room, as servlet containers read it, is refused with 400") {
    // Tomcat reads "/shop;x/checkout" as "/shop/checkout": routing must not send it round the room.
    check_other_readings({"/shop;x/checkout", "/shop;/checkout/pay", "/shop;jsessionid=1/checkout/"}, "/shop/checkout/cart;jsessionid=1",
                         {"/shop/cart;jsessionid=1", "/blog;v=2/post"});
}

TEST_CASE("gate: an encoded slash that would route a path to another room, as servers that decode it read it, is refused with 400") {
    // Python's http.server serves "/%2Fshop/checkout/" as "/shop/checkout/" (and nginx routes on
    // the decoded path): routing must not send them round the room.
    check_other_readings({"/%2Fshop/checkout/", "/%2F/shop/checkout", "/shop%2Fcheckout", "/shop%2fcheckout/pay", "/%2Fshop%2F%2Fcheckout"},
                         "/shop/checkout/a%2Fb", {"/files/a%2Fb", "/%2Fblog/post"});
}

namespace {

class OneCrawlerDns final : public Resolver {
public:
    std::vector<std::string> reverse(const wr::queue::ClientAddress& address) override {
        return address == crawler() ? std::vector<std::string>{"crawl-66-249-66-1.googlebot.com"} : std::vector<std::string>{};
    }
    std::vector<wr::queue::ClientAddress> forward(const std::string& host) override {
        return host == "crawl-66-249-66-1.googlebot.com" ? std::vector<wr::queue::ClientAddress>{crawler()}
                                                         : std::vector<wr::queue::ClientAddress>{};
    }
    static wr::queue::ClientAddress crawler() {
        wr::queue::ClientAddress address{};
        wr::expr::parse_ip_address("66.249.66.1", address);
        return address;
    }
};

} // namespace

TEST_CASE("gate: a crawler passes only when the zone allows it and its address is verified") {
    wr::util::FakeClock clock(k_now);
    CrawlerVerifier crawlers(std::make_shared<OneCrawlerDns>(), clock);
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1, GateServices{nullptr, &crawlers});
    IncomingRequest googlebot = get("/", "66.249.66.1");
    googlebot.user_agent = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    IncomingRequest impostor = get("/", "203.0.113.5");
    impostor.user_agent = googlebot.user_agent;

    const Snapshot without = shop([](ZoneConfig&, RoomConfig& room) { room.settings.queue_all = true; });
    CHECK(gate.handle(without, googlebot, k_now).action == GateResult::Action::respond);
    crawlers.resolve_pending();
    CHECK(gate.handle(without, googlebot, k_now).action == GateResult::Action::respond); // setting off

    const Snapshot with = shop([](ZoneConfig& zone, RoomConfig& room) {
        zone.search_engine_crawler_bypass = true;
        room.settings.queue_all = true;
    });
    CHECK(gate.handle(with, googlebot, k_now).action == GateResult::Action::respond); // not looked up yet
    CHECK(gate.handle(with, impostor, k_now).action == GateResult::Action::respond);
    crawlers.resolve_pending();
    CHECK(gate.handle(with, googlebot, k_now).action == GateResult::Action::proxy);
    CHECK(gate.handle(with, impostor, k_now).action == GateResult::Action::respond);
}

TEST_CASE("gate: more new-queue joins from one address than the limit get 429 until the next minute") {
    const Snapshot snapshot = shop([](ZoneConfig&, RoomConfig& room) {
        room.settings.queue_all = true;
        room.settings.join_limit_per_ip_per_minute = 2;
    });
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    const TimePoint now = k_now + std::chrono::seconds{15};
    CHECK(gate.handle(snapshot, get("/"), now).status == 200);
    const GateResult second = gate.handle(snapshot, get("/"), now);
    CHECK(second.status == 200);
    const GateResult third = gate.handle(snapshot, get("/"), now);
    CHECK(third.status == 429);
    CHECK(third.retry_after_seconds == 45);
    CHECK(third.set_cookie.empty());
    CHECK(gate.handle(snapshot, get("/", "203.0.113.10"), now).status == 200); // another address

    // The second visitor, in line, checks in again: not a join, not limited.
    IncomingRequest again = get("/");
    const std::string cookie = second.set_cookie.substr(0, second.set_cookie.find(';'));
    again.cookie_header = cookie;
    CHECK(gate.handle(snapshot, again, now + std::chrono::seconds{20}).status == 200);
    CHECK(gate.handle(snapshot, get("/"), k_now + std::chrono::minutes{1}).status == 200);
    CHECK(count(snapshot, wr::analytics::Outcome::rejected) == 1);
}

namespace {

// What a caller sees of a result, but for the sealed cookie's value (a fresh nonce each time).
std::string visible(const GateResult& result) {
    const std::string cookie_attributes = result.set_cookie.empty() ? "" : result.set_cookie.substr(result.set_cookie.find(';'));
    return std::to_string(static_cast<int>(result.action)) + "|" + std::to_string(result.status) + "|" +
           std::string(wr::edge::page_text(result.body)) + "|" + std::string(result.content_type) + "|" +
           std::to_string(result.refresh_seconds) + "|" + std::to_string(result.retry_after_seconds) + "|" + result.location + "|" +
           (result.turnstile ? result.turnstile->token : "-") + "|" + std::to_string(result.set_cookie.empty()) + cookie_attributes +
           "|" + std::to_string(result.admitted_ticket.has_value()) + "|" + std::to_string(result.policy.total_active_users) + "|" +
           std::to_string(result.policy.queue_all) + "|" + std::to_string(result.secure_cookie) + "|" +
           std::to_string(result.zone != nullptr) + std::to_string(result.room != nullptr) + "|" +
           std::string(wr::edge::decision_name(result.decision)) + std::to_string(result.new_visitor);
}

} // namespace

TEST_CASE("gate: a result kept from request to request (as a connection keeps it) answers each as a fresh one would") {
    const Snapshot snapshot = shop([](ZoneConfig&, RoomConfig& room) {
        room.settings.total_active_users = 1;
        room.settings.join_limit_per_ip_per_minute = 1;
    });
    wr::state::MemoryCounters fresh_counters;
    wr::state::MemoryCounters kept_counters;
    Gate fresh_gate(fresh_counters, 3);
    Gate kept_gate(kept_counters, 3);
    GateResult kept;
    std::string admitted_cookie;
    IncomingRequest unknown_host = get("/");
    unknown_host.host = "other.example.net";
    IncomingRequest json = get("/");
    json.accept = "application/json";
    // Admitted (proxy, a cookie), queued (page, refresh), over the join limit (429), an unknown
    // host (421), an ambiguous path (400), JSON, then the admitted visitor again.
    std::vector<IncomingRequest> requests{get("/"), get("/", "203.0.113.10"), get("/", "203.0.113.10"), unknown_host,
                                          get("/a%2F..%2Fb"), json, get("/")};
    for (size_t i = 0; i < requests.size(); ++i) {
        CAPTURE(i);
        if (i == requests.size() - 1) requests[i].cookie_header = admitted_cookie;
        const TimePoint now = k_now + std::chrono::seconds{static_cast<int>(i)};
        const GateResult fresh = fresh_gate.handle(snapshot, requests[i], now);
        kept_gate.handle(snapshot, requests[i], now, kept);
        CHECK(visible(kept) == visible(fresh));
        if (i == 0) admitted_cookie = kept.set_cookie.substr(0, kept.set_cookie.find(';'));
    }
}

TEST_CASE("gate: a page being sent keeps its text when its render-cache slot is taken by another page") {
    wr::page::RenderCache cache;
    wr::page::RenderKey first;
    first.numbers[0] = -1;
    const wr::edge::PageText sent = cache.store(first, "the first page");
    for (int64_t i = 0; i < 1000 && cache.find(first); ++i) {
        wr::page::RenderKey other;
        other.numbers[0] = i;
        cache.store(other, "page " + std::to_string(i));
    }
    CHECK(cache.find(first) == nullptr); // its slot was taken
    CHECK(*sent == "the first page");
}

TEST_CASE("gate: a visitor's cookie counts behind others of its name that do not open for the room (planted by a sibling subdomain)") {
    using wr::edge::Decision;
    const Snapshot open = shop([](ZoneConfig&, RoomConfig&) {});
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    const GateResult first = gate.handle(open, get("/"), k_now);
    REQUIRE(first.decision == Decision::admitted);
    const std::string cookie = first.set_cookie.substr(0, first.set_cookie.find(';'));
    const std::string name = cookie.substr(0, cookie.find('='));
    for (const std::string& header : {name + "=garbage; " + cookie, name + "=\"x\"; other=1; " + name + "=AAAA; " + cookie,
                                      "a=1; " + cookie + "; " + name + "=later"}) {
        CAPTURE(header);
        IncomingRequest again = get("/");
        again.cookie_header = header;
        const GateResult result = gate.handle(open, again, k_now);
        CHECK(result.decision == Decision::admitted);
        CHECK_FALSE(result.new_visitor);
    }
}

TEST_CASE("gate: names its decision for the access log, and whether the visitor was new") {
    using wr::edge::Decision;
    wr::util::FakeClock clock(k_now);
    CrawlerVerifier crawlers(std::make_shared<OneCrawlerDns>(), clock);
    IncomingRequest googlebot = get("/", "66.249.66.1");
    googlebot.user_agent = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    const auto decide = [&](const Snapshot& snapshot, IncomingRequest request) {
        wr::state::MemoryCounters counters;
        Gate gate(counters, 1, GateServices{nullptr, &crawlers});
        return gate.handle(snapshot, request, k_now);
    };
    const Snapshot open = shop([](ZoneConfig&, RoomConfig& room) { room.rules.push_back(rule(R"(http.request.uri.path eq "/health")")); });
    wr::state::MemoryCounters counters;
    Gate gate(counters, 1);
    const GateResult first = gate.handle(open, get("/"), k_now);
    CHECK(first.decision == Decision::admitted);
    CHECK(first.new_visitor);
    IncomingRequest again = get("/");
    const std::string cookie = first.set_cookie.substr(0, first.set_cookie.find(';'));
    again.cookie_header = cookie;
    const GateResult second = gate.handle(open, again, k_now);
    CHECK(second.decision == Decision::admitted);
    CHECK_FALSE(second.new_visitor);
    CHECK(decide(open, get("/health")).decision == Decision::bypassed);

    IncomingRequest zone_host = get("/");
    zone_host.host = "example.com";
    CHECK(decide(open, zone_host).decision == Decision::no_room);
    IncomingRequest elsewhere = get("/");
    elsewhere.host = "other.org";
    elsewhere.request_id = "abc123";
    const GateResult misdirected = decide(open, elsewhere);
    CHECK(misdirected.decision == Decision::misdirected);
    CHECK(wr::edge::page_text(misdirected.body).find("Request id: <code>abc123</code>") != std::string_view::npos);
    IncomingRequest two_hosts = get("/");
    two_hosts.host_headers = 2;
    CHECK(decide(open, two_hosts).decision == Decision::bad_request);

    const Snapshot queued = shop([](ZoneConfig& zone, RoomConfig& room) {
        room.settings.queue_all = true;
        zone.search_engine_crawler_bypass = true;
    });
    const GateResult in_line = decide(queued, get("/"));
    CHECK(in_line.decision == Decision::queued);
    CHECK(in_line.new_visitor);
    decide(queued, googlebot);
    crawlers.resolve_pending();
    CHECK(decide(queued, googlebot).decision == Decision::crawler);
    CHECK(decide(shop([](ZoneConfig&, RoomConfig& room) {
                     room.settings.queueing_method = wr::model::QueueingMethod::reject;
                 }),
                 get("/"))
              .decision == Decision::rejected);
    CHECK(decide(shop([](ZoneConfig&, RoomConfig& room) { room.settings.suspended = true; }), get("/")).decision == Decision::passthrough);
    CHECK(decide(shop([](ZoneConfig&, RoomConfig& room) { room.settings.queueing_method = wr::model::QueueingMethod::passthrough; }),
                 get("/"))
              .decision == Decision::passthrough);

    const Snapshot limited = shop([](ZoneConfig&, RoomConfig& room) {
        room.settings.queue_all = true;
        room.settings.join_limit_per_ip_per_minute = 1;
    });
    Gate limiting(counters, 1);
    limiting.handle(limited, get("/"), k_now);
    IncomingRequest over = get("/");
    over.request_id = "id-of-the-429";
    const GateResult refused = limiting.handle(limited, over, k_now);
    CHECK(refused.decision == Decision::join_limited);
    CHECK(wr::edge::page_text(refused.body).find("id-of-the-429") != std::string_view::npos);
}
