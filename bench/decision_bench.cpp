// In-process cost of the admission path, against the cookie crypto alone (docs/design.md, "Budgets"):
//   floor      seal + open of one cookie (AES-256-GCM): the least a cookie-based decision costs
//   admitted   the edge's decision for an admitted visitor: route, open, decide (renew), seal
//   shared     the same with the counts shared through a store (--state redis's code, the store in
//              process, its sync thread running every 250 ms beside the measurement)
//   queued     the same for a visitor who waits: route, open, decide, seal, page (rendered or cached)
//   waiting-fifo, waiting-random
//              the same in a room that has admitted for three minutes, so that the decision also
//              estimates the wait (FIFO: the user's place; random: the room's percentiles), a new
//              arrival every millisecond joining 5,000 waiting
//   analytics  what per-minute analytics add to a decision (two relaxed atomic increments)
//   rules      evaluating three typical bypass rules that do not match (every rule runs), with
//              the heap allocations they make per request (there should be none)
//   render     rendering the default queue page with Mustache, uncached
//   head       the data path around a decision: parse a browser's request head (llhttp), describe
//              it for the Gate, write the head for the origin and parse and rewrite the origin's
//              answer head, with the heap allocations per request (there should be none)
// Prints one line per measurement: name, ns per operation, operations per second.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <functional>
#include <string>

#include "analytics/room_stats.h"
#include "edge/cookie.h"
#include "edge/forward_head.h"
#include "edge/gate.h"
#include "net/http_parser.h"
#include "edge/incoming_request.h"
#include "expr/evaluate.h"
#include "expr/parser.h"
#include "page/compiled_template.h"
#include "state/memory_counters.h"
#include "state/memory_store.h"
#include "state/shared_counters.h"
#include "util/random.h"

// Every heap allocation in the process is counted, so a measurement can say how many it made.
std::atomic<uint64_t> g_allocations{0};

void* operator new(size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* memory = std::malloc(size ? size : 1)) return memory;
    throw std::bad_alloc();
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, size_t) noexcept { std::free(memory); }

namespace {

using Clock = std::chrono::steady_clock;

double measure(const char* name, int iterations, const std::function<void(int)>& work) {
    for (int i = 0; i < iterations / 10; ++i) work(i); // warm up
    const auto start = Clock::now();
    for (int i = 0; i < iterations; ++i) work(i);
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / iterations;
    std::printf("%-10s %10.1f ns/op %12.0f ops/s\n", name, ns, 1e9 / ns);
    return ns;
}

// measure(), then the heap allocations per operation it made (warm-up included, as measure() runs it).
double measure_allocations(const char* name, int iterations, const std::function<void(int)>& work) {
    const uint64_t before = g_allocations.load();
    measure(name, iterations, work);
    const double per_op = static_cast<double>(g_allocations.load() - before) / (iterations * 1.1);
    std::printf("%-10s %10.2f allocations/op\n", name, per_op);
    return per_op;
}

std::unique_ptr<wr::edge::RoomConfig> room(const char* id, const char* host, int64_t limit, bool queue_all,
                                           const wr::edge::ZoneConfig* zone,
                                           wr::model::QueueingMethod method = wr::model::QueueingMethod::fifo) {
    auto config = std::make_unique<wr::edge::RoomConfig>();
    config->id = id;
    config->zone = zone;
    config->settings.host = host;
    config->settings.total_active_users = limit;
    config->settings.new_users_per_minute = limit;
    config->settings.queue_all = queue_all;
    config->settings.queueing_method = method;
    config->cookie_name = "__cfwaitingroom";
    wr::edge::build_phases(*config);
    return config;
}

} // namespace

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::stoi(argv[1]) : 300000;
    std::vector<wr::util::CookieKey> keys(1);
    keys[0].id = 1;
    for (size_t i = 0; i < keys[0].key.size(); ++i) keys[0].key[i] = static_cast<uint8_t>(i * 7 + 3);

    auto config = std::make_shared<wr::edge::EdgeConfig>();
    auto zone = std::make_unique<wr::edge::ZoneConfig>();
    zone->name = "bench.test";
    config->zones.push_back(std::move(zone));
    config->rooms.push_back(room("0123456789abcdef0123456789abcdef", "open.bench.test", 2147483647, false, config->zones[0].get()));
    config->rooms.push_back(room("fedcba9876543210fedcba9876543210", "queue.bench.test", 200, true, config->zones[0].get()));
    config->rooms.push_back(room("00112233445566778899aabbccddeeff", "fifo.bench.test", 200, false, config->zones[0].get()));
    config->rooms.push_back(room("ffeeddccbbaa99887766554433221100", "random.bench.test", 200, false, config->zones[0].get(),
                                 wr::model::QueueingMethod::random));
    config->index();
    const wr::edge::Snapshot snapshot{config, std::make_shared<const wr::util::KeyRing>(keys), 1};

    wr::state::MemoryCounters counters;
    wr::edge::Gate gate(counters, 7);
    wr::edge::CookieCodec codec;
    const auto start = wr::util::TimePoint{std::chrono::milliseconds{1'800'000'000'000}};
    size_t sink = 0;

    wr::queue::Ticket ticket;
    ticket.session_id = 42;
    ticket.bucket = start;
    ticket.accepted_at = start;
    ticket.last_check_in = start;
    const std::string& room_id = config->rooms[0]->id;
    measure("floor", iterations, [&](int) {
        const std::string sealed = codec.seal(ticket, room_id, *snapshot.keys);
        sink += codec.open(sealed, room_id, *snapshot.keys)->refresh_interval_seconds;
    });

    // A crowd around the measured visitor, so the counts are not trivially small.
    wr::edge::IncomingRequest open{.method = "GET", .target = "/", .host = "open.bench.test", .accept = "text/html"};
    for (int i = 0; i < 5000; ++i) gate.handle(snapshot, open, start);
    const wr::edge::GateResult first = gate.handle(snapshot, open, start);
    std::string cookie = first.set_cookie.substr(0, first.set_cookie.find(';'));
    wr::edge::GateResult result; // a connection's, reused from request to request as the edge does
    measure_allocations("admitted", iterations, [&](int i) {
        open.cookie_header = cookie;
        gate.handle(snapshot, open, start + std::chrono::milliseconds{i / 1000}, result);
        if (!result.set_cookie.empty()) cookie.assign(result.set_cookie, 0, result.set_cookie.find(';'));
        sink += result.set_cookie.size();
    });

    // The admitted path again, the counts shared: each renewal is also journaled for the next sync.
    wr::util::FakeClock store_clock(start);
    wr::state::SharedCounters shared_counters(wr::state::SharedCountersOptions{.node_name = "bench"},
                                              std::make_unique<wr::state::MemoryStore>(store_clock), store_clock);
    wr::edge::Gate shared_gate(shared_counters, 7);
    for (int i = 0; i < 5000; ++i) shared_gate.handle(snapshot, open, start);
    open.cookie_header = {};
    const wr::edge::GateResult shared_first = shared_gate.handle(snapshot, open, start);
    std::string shared_cookie = shared_first.set_cookie.substr(0, shared_first.set_cookie.find(';'));
    measure_allocations("shared", iterations, [&](int i) {
        open.cookie_header = shared_cookie;
        shared_gate.handle(snapshot, open, start + std::chrono::milliseconds{i / 1000}, result);
        if (!result.set_cookie.empty()) shared_cookie.assign(result.set_cookie, 0, result.set_cookie.find(';'));
        sink += result.set_cookie.size();
    });

    // A cookie that does not open: each request decrypts, decides (a new visitor, queued), seals
    // a cookie and answers the page.
    const std::string forged = "__cfwaitingroom=" + std::string(80, 'A');
    wr::edge::IncomingRequest queued{
        .method = "GET", .target = "/", .host = "queue.bench.test", .cookie_header = forged, .accept = "text/html"};
    measure_allocations("queued", iterations, [&](int i) {
        gate.handle(snapshot, queued, start + std::chrono::milliseconds{i / 1000}, result);
        sink += wr::edge::page_text(result.body).size();
    });

    // A room that has admitted for three minutes: estimates are known, and each queued decision
    // makes one. The crowd arrives at the start; the measured visitors join it three minutes on.
    for (const char* host : {"fifo.bench.test", "random.bench.test"}) {
        wr::edge::IncomingRequest waiting{
            .method = "GET", .target = "/", .host = host, .cookie_header = forged, .accept = "text/html"};
        for (int i = 0; i < 5000; ++i) gate.handle(snapshot, waiting, start + std::chrono::milliseconds{i});
        const auto later = start + std::chrono::minutes{3};
        const std::string name = std::string("waiting-") + (host[0] == 'f' ? "fifo" : "random");
        measure(name.c_str(), iterations, [&](int i) {
            // A new arrival every millisecond (60,000 a minute: a heavy surge), each told its wait.
            gate.handle(snapshot, waiting, later + std::chrono::milliseconds{i}, result);
            sink += wr::edge::page_text(result.body).size();
        });
    }

    // What analytics add to each decision: the counters the gate bumps for a queued request.
    wr::analytics::RoomStats stats;
    measure("analytics", iterations, [&](int i) {
        const auto now = start + std::chrono::milliseconds{i / 1000};
        stats.record_request(now, wr::analytics::Outcome::queued);
        stats.record_estimate(now, 7);
    });

    // The rules operators write: assets, an office network, a monitoring agent. None matches,
    // so each request evaluates all three.
    std::vector<wr::expr::NodePtr> rules;
    for (const char* expression : {R"(starts_with(http.request.uri.path, "/static/") or ends_with(lower(http.request.uri.path), ".css"))",
                                   "ip.src in {10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 2001:db8::/32}",
                                   R"(lower(http.user_agent) contains "uptime-monitor" and http.request.method eq "HEAD")"}) {
        auto parsed = wr::expr::parse(expression);
        if (!parsed.root) return 1;
        rules.push_back(std::move(parsed.root));
    }
    wr::expr::RequestFields fields;
    wr::expr::parse_ip_address("203.0.113.77", fields.ip);
    fields.has_ip = true;
    fields.host = "shop.example.com";
    fields.uri = "/checkout/cart?step=2";
    fields.path = "/checkout/cart";
    fields.query = "step=2";
    fields.method = "GET";
    fields.user_agent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
    measure_allocations("rules", iterations, [&](int) {
        for (const auto& rule : rules) sink += wr::expr::evaluate(*rule, fields) ? 1 : 0;
    });

    // A browser's request and an origin's answer, parsed and rewritten as the edge does.
    const std::string request_bytes =
        "GET /checkout/cart?step=2 HTTP/1.1\r\nHost: shop.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) "
        "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36\r\nAccept: text/html,application/xhtml+xml\r\n"
        "Accept-Language: en-GB,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br\r\nReferer: https://shop.example.com/\r\n"
        "Cookie: theme=dark; __cfwaitingroom=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; lang=en\r\n"
        "Connection: keep-alive\r\nUpgrade-Insecure-Requests: 1\r\n\r\n";
    const std::string response_bytes = "HTTP/1.1 200 OK\r\nServer: nginx\r\nDate: Sun, 22 Nov 2026 10:00:00 GMT\r\n"
                                       "Content-Type: text/html\r\nContent-Length: 61\r\nConnection: keep-alive\r\n"
                                       "ETag: \"abc\"\r\nAccept-Ranges: bytes\r\n\r\n";
    wr::net::HttpParser request_parser(wr::net::HttpParser::Kind::request);
    wr::net::HttpParser response_parser(wr::net::HttpParser::Kind::response);
    std::string forwarded;
    std::string answer;
    std::string cookie_storage;
    const wr::edge::TrustedProxies no_proxies{};
    const auto head_work = [&](int) {
        request_parser.begin();
        request_parser.parse_head(request_bytes.data(), request_bytes.size());
        const wr::edge::IncomingRequest incoming = wr::edge::describe_request(request_parser.head(), cookie_storage, {}, false, no_proxies);
        sink += incoming.user_agent.size();
        wr::edge::write_forwarded_request(forwarded, request_parser.head(),
                                          {.target = request_parser.head().target, .client = "203.0.113.77", .room_cookie = "__cfwaitingroom"});
        response_parser.begin();
        response_parser.parse_head(response_bytes.data(), response_bytes.size());
        wr::edge::write_visitor_response(answer, response_parser.head(),
                                         {.set_cookie = "__cfwaitingroom=x; Max-Age=300; Path=/; HttpOnly; SameSite=Lax",
                                          .framing = wr::net::BodyFraming::length, .content_length = 61});
        sink += forwarded.size() + answer.size();
    };
    head_work(0); // the connection's buffers reach their size once
    measure_allocations("head", iterations, head_work);

    wr::page::CompiledTemplate page{wr::edge::default_queue_page("en-US")};
    wr::page::QueueView view;
    view.now = start;
    view.wait_time_known = true;
    view.wait_time_minutes = 12;
    measure("render", iterations / 20, [&](int) { sink += page.render(view)->size(); });
    std::fprintf(stderr, "(checksum %zu)\n", sink);
    return 0;
}
