// One visitor must never receive another's answer through a pooled origin connection: an origin
// that sends bytes nobody asked for (a body after a HEAD answer or a 204/304, a second answer,
// bytes behind a Content-Length body), over plain TCP and TLS, in front of visitors who each
// must get exactly their own page. One edge thread, so that every request shares one pool.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "support/process.h"
#include "support/raw_connection.h"
#include "support/scripted_origin.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/tls_files.h"

using wr::test::RawConnection;
using wr::test::ScriptedOrigin;
using wr::test::TestServer;
using namespace std::chrono_literals;

namespace {

struct Answer {
    std::string head;
    std::string body;
};

// One request on a connection of its own (each visitor is a different client); the body is read
// by its Content-Length, and none for HEAD.
Answer fetch(int port, const std::string& method, const std::string& host, const std::string& target,
             const std::string& extra_headers = "") {
    RawConnection connection(port);
    connection.send(method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra_headers + "\r\n");
    Answer answer;
    if (!connection.read_until("\r\n\r\n", 3s)) return answer;
    std::string& received = connection.received();
    // Interim answers come first; the final one is the last head read.
    size_t head_end = received.find("\r\n\r\n");
    answer.head = received.substr(0, head_end + 4);
    if (method == "HEAD") return answer;
    const size_t length_at = answer.head.find("Content-Length: ");
    const size_t length = length_at == std::string::npos ? 0 : std::stoul(answer.head.substr(length_at + 16));
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    while (received.size() < head_end + 4 + length && std::chrono::steady_clock::now() < deadline && !connection.closed())
        connection.read_some(100ms);
    answer.body = received.substr(head_end + 4, length);
    return answer;
}

// curl over HTTP/2 with prior knowledge to the edge's plain port: "<status> <exit code>".
std::string h2_visit(int edge_port, const std::string& method, const std::string& path) {
    const std::string authority = "open.example.com:" + std::to_string(edge_port);
    return wr::test::command_output("curl -s -o /dev/null -w '%{http_code}' --http2-prior-knowledge -X " + method + " --resolve " + authority +
                     ":127.0.0.1 http://" + authority + path + "; echo \" $?\"");
}

// A GET over HTTP/2 with prior knowledge whose END_STREAM comes in an empty DATA frame after its
// HEADERS (tests/integration/h2_client.mjs): whether its answer ended.
bool h2_empty_data_visit(int edge_port, const std::string& path) {
    const std::string out = wr::test::command_output("node " + std::string(WR_SOURCE_DIR) + "/tests/integration/h2_client.mjs --cleartext emptydata " +
                                                     std::to_string(edge_port) + " " + path + " none=1");
    INFO(out);
    return out.find("\"ended\":true") != std::string::npos;
}

class ShopInFront {
public:
    explicit ShopInFront(const ScriptedOrigin& origin, const std::filesystem::path& ca_file = {})
        : wr({}, [&](wr::AppOptions& options) {
              options.edge_threads = 1;
              options.edge_h2c = true; // HTTP/2 with prior knowledge beside HTTP/1.1, one pool for both
              options.origin_ca_file = ca_file.string();
          }) {
        wr.create_zone("example.com", origin.url());
        REQUIRE(wr.patch("/client/v4/zones/example.com", {{"hosts", {"open.example.com"}}}).status == 200);
        wr.create_room("example.com", {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 1000},
                                       {"new_users_per_minute", 1000}});
        wr.sync_edge();
    }
    TestServer wr;
};

// Visitors arriving one after another, each asking for a page with its own name on it.
void visitors_get_their_own_pages(int edge_port, const std::string& who, int count) {
    for (int i = 0; i < count; ++i) {
        const std::string name = who + "-" + std::to_string(i);
        const Answer answer = fetch(edge_port, "GET", "shop.example.com", "/v/" + name, "Cookie: session=" + name + "\r\n");
        CAPTURE(answer.head);
        CHECK(answer.body == "you are " + name);
    }
}

struct Attack {
    const char* method;
    const char* target;
    std::chrono::milliseconds pause; // before the next visitors arrive
};

// Bytes an origin sends unasked: after a HEAD answer (which has no body, whatever its
// Content-Length says), after 204 and 304 answers, behind a body, and as a second answer.
const Attack k_attacks[] = {
    {"HEAD", "/late-body", 0ms},       {"GET", "/late-no-content", 0ms}, {"GET", "/late-not-modified", 0ms},
    {"GET", "/extra", 0ms},            {"GET", "/unasked", 100ms},       {"HEAD", "/late-body", 100ms},
};

void run_attacks(ShopInFront& shop) {
    for (const Attack& attack : k_attacks) {
        const std::string what = std::string(attack.method) + " " + attack.target;
        CAPTURE(what);
        for (int round = 0; round < 3; ++round) {
            fetch(shop.wr.edge_port(), attack.method, "open.example.com", attack.target);
            std::this_thread::sleep_for(attack.pause);
            visitors_get_their_own_pages(shop.wr.edge_port(), std::string(attack.target + 1) + std::to_string(round), 3);
        }
    }
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: bytes an origin sends unasked never reach the next visitor (plain TCP)") {
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    run_attacks(shop);
}

TEST_CASE("integration: bytes an origin sends unasked never reach the next visitor (TLS)") {
    wr::test::TempDir dir;
    const wr::test::TlsFiles files = wr::test::write_self_signed_certificate(dir.path());
    ScriptedOrigin origin(files.certificate, files.private_key);
    ShopInFront shop(origin, files.certificate);
    run_attacks(shop);
}

// A body that runs to the close, as an HTTP/1.1 visitor gets it (chunked by the edge): whole with
// its last chunk when the origin closed cleanly, cut short without it when a reset ended it.
void bodies_to_the_close(const ScriptedOrigin& origin, const std::filesystem::path& ca_file = {}) {
    ShopInFront shop(origin, ca_file);
    const auto visit = [&](const std::string& target) {
        RawConnection visitor(shop.wr.edge_port());
        visitor.send("GET " + target + " HTTP/1.1\r\nHost: open.example.com\r\n\r\n");
        const auto deadline = std::chrono::steady_clock::now() + 3s;
        while (!visitor.closed() && visitor.received().find("0\r\n\r\n") == std::string::npos && std::chrono::steady_clock::now() < deadline)
            visitor.read_some(100ms);
        return visitor.received();
    };
    const std::string whole = visit("/to-close");
    CAPTURE(whole);
    CHECK(whole.find("Transfer-Encoding: chunked") != std::string::npos);
    CHECK(whole.find("the first part, ") != std::string::npos);
    CHECK(whole.find("the end") != std::string::npos);
    CHECK(whole.ends_with("0\r\n\r\n"));
    const std::string cut = visit("/to-reset");
    CAPTURE(cut);
    CHECK(cut.find("the first part, ") != std::string::npos);
    CHECK(cut.find("0\r\n\r\n") == std::string::npos); // never a well-framed end the origin did not send
    // Over HTTP/2: a stream that ends cleanly, or one reset (curl: exit 92, "not closed cleanly").
    CHECK(h2_visit(shop.wr.edge_port(), "GET", "/to-close") == "200 0\n");
    CHECK(h2_visit(shop.wr.edge_port(), "GET", "/to-reset") == "200 92\n");
}

TEST_CASE("integration: a body that runs to the close is whole only at a clean close, never when a reset cut it (plain TCP and TLS)") {
    ScriptedOrigin plain;
    bodies_to_the_close(plain);
    wr::test::TempDir dir;
    const wr::test::TlsFiles files = wr::test::write_self_signed_certificate(dir.path());
    ScriptedOrigin over_tls(files.certificate, files.private_key);
    bodies_to_the_close(over_tls, files.certificate);
}

TEST_CASE("integration: a connection the origin asked to close is not used again") {
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    for (int i = 0; i < 3; ++i) {
        CHECK(fetch(shop.wr.edge_port(), "GET", "open.example.com", "/close").body == "ok");
        visitors_get_their_own_pages(shop.wr.edge_port(), "after-close-" + std::to_string(i), 2);
    }
    CHECK(origin.requests_after_close() == 0);
}

TEST_CASE("integration: an origin's 100 Continue reaches no visitor who did not ask for it") {
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    const Answer answer = fetch(shop.wr.edge_port(), "GET", "open.example.com", "/continue");
    CHECK(answer.head.rfind("HTTP/1.1 200 ", 0) == 0);
    CHECK(answer.body == "ok");
    visitors_get_their_own_pages(shop.wr.edge_port(), "after-continue", 2);
}

TEST_CASE("integration: a length on an origin's 1xx is not passed on; a body broken from its first bytes gets 502, not a closed connection") {
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    RawConnection visitor(shop.wr.edge_port());
    visitor.send("GET /hints-length HTTP/1.1\r\nHost: open.example.com\r\nConnection: close\r\n\r\n");
    const auto deadline = std::chrono::steady_clock::now() + 3s;
    while (!visitor.closed() && std::chrono::steady_clock::now() < deadline) visitor.read_some(100ms);
    const std::string hinted = visitor.received();
    CAPTURE(hinted);
    REQUIRE(hinted.rfind("HTTP/1.1 103 Early Hints\r\n", 0) == 0);
    const std::string interim = hinted.substr(0, hinted.find("\r\n\r\n"));
    CHECK(interim.find("Link: </a.css>") != std::string::npos);
    CHECK(interim.find("Content-Length") == std::string::npos);
    CHECK(hinted.ends_with("\r\n\r\nok"));

    const Answer broken = fetch(shop.wr.edge_port(), "GET", "open.example.com", "/bad-chunk");
    CHECK(broken.head.rfind("HTTP/1.1 502 ", 0) == 0);
    CHECK(broken.body.find("hello") == std::string::npos);
    CHECK(h2_visit(shop.wr.edge_port(), "GET", "/bad-chunk") == "502 0\n");
    visitors_get_their_own_pages(shop.wr.edge_port(), "after-bad-chunk", 2);
}

TEST_CASE("integration: two zones' origins never trade connections, however their requests interleave on one edge thread") {
    // A new connection is tagged with its zone's key after its connect, which suspends: requests
    // for another zone's origin run on the same thread meanwhile, and must not lend it their key.
    ScriptedOrigin first, second;
    TestServer wr({}, [](wr::AppOptions& options) { options.edge_threads = 1; });
    wr.create_zone("first.example", first.url());
    wr.create_zone("second.example", second.url());
    for (const char* zone : {"first.example", "second.example"})
        REQUIRE(wr.patch(std::string("/client/v4/zones/") + zone, {{"hosts", {std::string("www.") + zone}}}).status == 200);
    wr.sync_edge();
    std::atomic<int> wrong{0};
    for (int round = 0; round < 4; ++round) {
        std::vector<std::thread> visitors;
        for (int v = 0; v < 12; ++v)
            visitors.emplace_back([&, round, v] {
                const bool to_first = v % 2 == 0;
                const std::string id = std::string(to_first ? "first" : "second") + "-" + std::to_string(round) + "-" + std::to_string(v);
                const Answer answer = fetch(wr.edge_port(), "GET", to_first ? "www.first.example" : "www.second.example", "/slow/0/" + id);
                if (answer.body != "you are " + id) ++wrong;
            });
        for (auto& visitor : visitors) visitor.join();
    }
    CHECK(wrong == 0);
    // Each origin saw its own zone's visitors only.
    for (const auto& [origin, name] : {std::pair{&first, "first-"}, std::pair{&second, "second-"}}) {
        CAPTURE(name);
        const auto seen = origin->arrival_order();
        CHECK(seen.size() == 24);
        for (const std::string& id : seen) {
            CAPTURE(id);
            CHECK(id.starts_with(name));
        }
    }
}

TEST_CASE("integration: an origin that answers before reading a request's body never gets that connection back for the next visitor") {
    // The body, still on its way when the answer's head came, reaches an origin that does not
    // read bodies as a request of its own (here a smuggled one, answered slowly): its answer must
    // not be the next visitor's.
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    const std::string smuggled = "GET /slow/400/forged HTTP/1.1\r\nHost: x\r\n\r\n";
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        {
            RawConnection visitor(shop.wr.edge_port());
            visitor.send("POST /head-first HTTP/1.1\r\nHost: open.example.com\r\nContent-Length: " + std::to_string(smuggled.size()) +
                         "\r\n\r\n");
            // The body after the head (streamed to the origin, not sent with it), and before the
            // answer's own body (200 ms after its head).
            std::this_thread::sleep_for(50ms);
            visitor.send(smuggled);
            CHECK(visitor.read_until("first", 2s));
        }
        std::this_thread::sleep_for(20ms);
        visitors_get_their_own_pages(shop.wr.edge_port(), "after-early-" + std::to_string(round), 2);
        std::this_thread::sleep_for(500ms); // the smuggled answer has come and gone
    }
}

TEST_CASE("integration: an origin that answers without ever reading a request's body never gets that connection back for the next visitor") {
    // The body went to the origin before its answer came, and the origin answered without
    // reading it (CL.0): it reads it later as the start of a request of its own, which the next
    // request on the connection completes. ScriptedOrigin reads no bodies.
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    const std::string prefix = "GET /slow/1/forged HTTP/1.1\r\nX-Ignore: ";
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        const Answer attacker = fetch(shop.wr.edge_port(), "POST", "open.example.com", "/v/attacker",
                                      "Content-Length: " + std::to_string(prefix.size()) + "\r\n\r\n" + prefix);
        CHECK(attacker.body == "you are attacker");
        visitors_get_their_own_pages(shop.wr.edge_port(), "after-h1-body-" + std::to_string(round), 3);
        // Over HTTP/2 the body streams: all of it goes before the answer, 100 ms later.
        const std::string authority = "open.example.com:" + std::to_string(shop.wr.edge_port());
        CHECK(wr::test::command_output("printf '" + std::string("GET /slow/1/forged HTTP/1.1\\r\\nX-Ignore: ") +
                                       "' | curl -s -o /dev/null -w '%{http_code}' --http2-prior-knowledge --data-binary @- --resolve " +
                                       authority + ":127.0.0.1 http://" + authority + "/slow/100/attacker") == "200");
        visitors_get_their_own_pages(shop.wr.edge_port(), "after-h2-body-" + std::to_string(round), 3);
    }
}

TEST_CASE("integration: a request the origin may have acted on is never sent twice: only idempotent ones are retried on a fresh connection") {
    // A pooled connection that fails before any answer is usually one the origin had closed, and
    // the request is sent again on a new connection — unless the origin may have read it and acted
    // on it before it went (a payment POSTed twice): RFC 9110 §9.2.2.
    ScriptedOrigin origin;
    ShopInFront shop(origin);
    const auto sent = [&](const std::string& request) {
        const auto arrivals = origin.arrival_order();
        return std::count(arrivals.begin(), arrivals.end(), request);
    };
    const auto through_a_pooled_connection = [&](const std::string& request) {
        visitors_get_their_own_pages(shop.wr.edge_port(), "warm", 1); // leaves a connection in the pool
        RawConnection visitor(shop.wr.edge_port());
        visitor.send(request);
        CHECK(visitor.read_until("\r\n\r\n", 3s));
        return visitor.received().substr(0, 12);
    };
    CHECK(through_a_pooled_connection("POST /drop/pay HTTP/1.1\r\nHost: open.example.com\r\nContent-Length: 3\r\n\r\nabc") == "HTTP/1.1 502");
    CHECK(sent("POST /drop/pay") == 1);
    CHECK(through_a_pooled_connection("PATCH /drop/profile HTTP/1.1\r\nHost: open.example.com\r\n\r\n") == "HTTP/1.1 502");
    CHECK(sent("PATCH /drop/profile") == 1);
    // Idempotent requests, and a POST whose client says it may be repeated, are sent once more.
    CHECK(through_a_pooled_connection("GET /drop/page HTTP/1.1\r\nHost: open.example.com\r\n\r\n") == "HTTP/1.1 502");
    CHECK(sent("GET /drop/page") == 2);
    CHECK(through_a_pooled_connection("PUT /drop/put HTTP/1.1\r\nHost: open.example.com\r\nContent-Length: 3\r\n\r\nabc") == "HTTP/1.1 502");
    CHECK(sent("PUT /drop/put") == 2);
    CHECK(through_a_pooled_connection("POST /drop/keyed HTTP/1.1\r\nHost: open.example.com\r\nIdempotency-Key: \"8e03978e\"\r\n"
                                      "Content-Length: 3\r\n\r\nabc") == "HTTP/1.1 502");
    CHECK(sent("POST /drop/keyed") == 2);
    // The same over HTTP/2, with requests without a body (a body streams over HTTP/2, and a
    // request whose body has begun to go is never sent again, whatever its method).
    const auto over_h2 = [&](const std::string& method, const std::string& path) {
        visitors_get_their_own_pages(shop.wr.edge_port(), "warm", 1);
        return h2_visit(shop.wr.edge_port(), method, path);
    };
    CHECK(over_h2("POST", "/drop/h2-pay") == "502 0\n");
    CHECK(sent("POST /drop/h2-pay") == 1);
    CHECK(over_h2("DELETE", "/drop/h2-delete") == "502 0\n");
    CHECK(sent("DELETE /drop/h2-delete") == 2);
    // A GET that ends in an empty DATA frame has no body either.
    visitors_get_their_own_pages(shop.wr.edge_port(), "warm", 1);
    CHECK(h2_empty_data_visit(shop.wr.edge_port(), "/drop/h2-empty"));
    CHECK(sent("GET /drop/h2-empty") == 2);
}

} // TEST_SUITE
