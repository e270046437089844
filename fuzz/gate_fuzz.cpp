// libFuzzer target for the edge's handling of a raw request: the bytes are parsed as the edge
// parses them (net/http_parser — llhttp, strict — within the edge's head limit), described for the Gate as the edge describes them
// (edge/incoming_request), and decided by a Gate over rooms that use every path — FIFO with
// bypass rules that read headers, cookies and addresses, a lottery room, a queue_all room, a
// reject room, a JSON-speaking room. When the answer sets a cookie, the same request comes back
// with it, so the cookie's open path is reached with real cookies too. Build and run with
// `make fuzz` (fuzz/run.sh).
//
// First input byte: bit 0 HTTPS, bit 1 the peer is a trusted proxy (X-Forwarded-For is read),
// bits 2-7 minutes on the clock; the rest is the request.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "edge/edge_config.h"
#include "edge/gate.h"
#include "net/http_parser.h"
#include "edge/incoming_request.h"
#include "expr/evaluate.h"
#include "state/memory_counters.h"

namespace {

using namespace wr::edge;

const wr::util::TimePoint k_start{std::chrono::milliseconds{1'795'860'000'000}}; // 2026-11-28T10:00:00Z

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

wr::model::Rule rule(std::string id, std::string expression) {
    wr::model::Rule rule;
    rule.id = std::move(id);
    rule.settings.expression = std::move(expression);
    return rule;
}

std::unique_ptr<RoomConfig> room(const ZoneConfig& zone, std::string id, std::string host, std::string path) {
    auto room = std::make_unique<RoomConfig>();
    room->id = std::move(id);
    room->zone = &zone;
    room->settings.host = std::move(host);
    room->settings.path = std::move(path);
    room->settings.total_active_users = 3;
    room->settings.new_users_per_minute = 2;
    room->cookie_name = "__cfwaitingroom_" + room->id.substr(0, 4);
    return room;
}

Snapshot snapshot() {
    auto config = std::make_shared<EdgeConfig>();
    auto zone = std::make_unique<ZoneConfig>();
    zone->name = "example.com";

    auto fifo = room(*zone, "0123456789abcdef0123456789abcdef", "shop.example.com", "/");
    fifo->rules.push_back(rule("r1", R"(starts_with(http.request.uri.path, "/static/") and http.request.method eq "GET")"));
    fifo->rules.push_back(rule("r2", R"(http.request.headers["x-bypass"] eq "yes" or ip.src in {192.0.2.0/24})"));
    fifo->rules.push_back(rule("r3", R"(http.cookie contains "staff=1" and not (http.user_agent contains "bot"))"));
    fifo->rules.push_back(rule("r4", R"(http.request.uri.query contains "preview" and http.referer eq "https://example.com/")"));
    auto lottery = room(*zone, "1123456789abcdef0123456789abcdef", "shop.example.com", "/draw");
    lottery->settings.queueing_method = wr::model::QueueingMethod::random;
    auto all = room(*zone, "2123456789abcdef0123456789abcdef", "shop.example.com", "/soon");
    all->settings.queue_all = true;
    auto reject = room(*zone, "3123456789abcdef0123456789abcdef", "shop.example.com", "/closed");
    reject->settings.queueing_method = wr::model::QueueingMethod::reject;
    auto api = room(*zone, "4123456789abcdef0123456789abcdef", "api.example.com", "/");
    api->settings.json_response_enabled = true;

    for (auto* each : {&fifo, &lottery, &all, &reject, &api}) {
        build_phases(**each);
        compile_rules(**each);
        config->rooms.push_back(std::move(*each));
    }
    config->zones.push_back(std::move(zone));
    config->index();
    std::vector<wr::util::CookieKey> keys(1);
    keys[0].id = 1;
    keys[0].key.fill(42);
    return Snapshot{config, std::make_shared<const wr::util::KeyRing>(keys), 1};
}

wr::queue::ClientAddress address(const char* text) {
    wr::queue::ClientAddress parsed{};
    wr::expr::parse_ip_address(text, parsed);
    return parsed;
}

// The edge's own reading of a head: its 16 KiB head limit, the header only. `bytes` keeps the
// head's text alive for the views.
bool parse_head(wr::net::HttpParser& parser, const std::string& bytes) {
    parser.begin();
    return parser.parse_head(bytes.data(), std::min(bytes.size(), wr::net::k_max_request_head)) == wr::net::HeadStatus::complete;
}

void decide(Gate& gate, const Snapshot& config, const wr::net::MessageHead& head, const wr::queue::ClientAddress& peer, bool https,
            const TrustedProxies& trusted, wr::util::TimePoint now) {
    std::string cookies;
    const IncomingRequest request = describe_request(head, cookies, peer, https, trusted);
    GateResult result = gate.handle(config, request, now);
    if (result.action == GateResult::Action::respond) {
        check(result.status >= 200 && result.status < 600, "a status the edge can send");
        check(result.status < 500, "the Gate never answers a visitor with a 5xx");
    }
    if (result.action == GateResult::Action::proxy) check(result.zone != nullptr, "a proxied request has a zone");
    if (result.set_cookie.empty() || result.room == nullptr) return;

    // Come back with the cookie, a little later, as a browser would: the same head with one more
    // Cookie header.
    std::string again = "GET ";
    again += head.target;
    again += " HTTP/1.1\r\n";
    for (const wr::net::HeaderField& field : head.headers) {
        again += field.name;
        again += ": ";
        again += field.value;
        again += "\r\n";
    }
    again += "Cookie: " + result.set_cookie.substr(0, result.set_cookie.find(';')) + "\r\n\r\n";
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    if (!parse_head(parser, again)) return;
    std::string joined;
    const IncomingRequest returning = describe_request(parser.head(), joined, peer, https, trusted);
    const GateResult second = gate.handle(config, returning, now + std::chrono::seconds{20});
    if (second.action == GateResult::Action::respond) check(second.status < 500, "no 5xx for a returning visitor");
    if (result.admitted_ticket) gate.revoke(result, now); // and the revoke path
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const Snapshot config = snapshot();
    static const TrustedProxies trusted = TrustedProxies::parse({"127.0.0.0/8"});
    if (size < 1) return 0;
    const uint8_t flags = data[0];
    const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    wr::net::HttpParser parser(wr::net::HttpParser::Kind::request);
    if (!parse_head(parser, bytes)) return 0;

    // Fresh counters per input: the outcome depends on the input alone, so a crash reproduces.
    wr::state::MemoryCounters counters;
    Gate gate(counters, 7);
    const bool https = (flags & 1) != 0;
    const auto peer = address((flags & 2) != 0 ? "127.0.0.1" : "203.0.113.9");
    const auto now = k_start + std::chrono::minutes{flags >> 2};
    // Fill the FIFO room first so the request meets a queue as often as a free room.
    const std::string filler_bytes = "GET / HTTP/1.1\r\nHost: shop.example.com\r\n\r\n";
    wr::net::HttpParser filler(wr::net::HttpParser::Kind::request);
    if (!parse_head(filler, filler_bytes)) check(false, "the filler request parses");
    for (int i = 0; i < ((flags >> 2) & 3); ++i) decide(gate, config, filler.head(), address("198.51.100.1"), false, trusted, now);
    decide(gate, config, parser.head(), peer, https, trusted, now);
    return 0;
}
