// The admin listener under many idle, slow and hostile clients, with real sockets: /healthz and
// the API keep answering while a thousand keep-alive connections sit idle and others trickle
// their heads, and /healthz while every handler thread is busy; a slow head is cut at the header timeout and an idle connection at the idle
// timeout; the connection cap sheds the client that has waited longest; a second wr on the same
// admin port refuses to start; HTTP/1.1 as clients speak it (HEAD, pipelining, 100-continue,
// chunked bodies, malformed heads); and hostile JSON bodies cost bounded memory.
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <future>
#include <httplib.h>
#include <sys/resource.h>
#include <thread>

#include "api/admin_server.h"
#include "support/eventually.h"
#include "support/process.h"
#include "support/raw_connection.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::test::RawConnection;
using wr::test::TestServer;

namespace {

using Clock = std::chrono::steady_clock;

const std::string k_health = "GET /healthz HTTP/1.1\r\nHost: admin\r\n\r\n";

// This process and the wr it starts each hold a descriptor per connection.
void allow_descriptors(rlim_t wanted) {
    rlimit limit{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
    if (limit.rlim_cur < wanted) {
        limit.rlim_cur = std::min(wanted, limit.rlim_max);
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    REQUIRE_MESSAGE(limit.rlim_cur >= wanted, "this test needs " << wanted << " descriptors (ulimit -n)");
}

// `wr serve` as its own process, with extra flags. Nobody reads its log after the ready line, so
// the requests that log a line (all but /healthz) stay few enough for the pipe.
struct ServeProcess {
    explicit ServeProcess(const std::filesystem::path& data_dir, std::vector<std::string> extra = {})
        : process(arguments(data_dir, std::move(extra)), "API listening on", true) {
        admin_port = wr::test::port_after(process.ready_line(), "API listening on");
        token = wr::test::read_admin_token(data_dir);
    }
    static std::vector<std::string> arguments(const std::filesystem::path& data_dir, std::vector<std::string> extra) {
        std::vector<std::string> all{WR_BINARY, "serve", "--data-dir", data_dir.string(), "--admin-listen", "127.0.0.1:0",
                                     "--edge-listen", "127.0.0.1:0", "--edge-threads", "1"};
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    }
    ~ServeProcess() {
        process.send_signal(SIGTERM);
        process.wait_exit(10s);
    }
    wr::test::BackgroundProcess process;
    int admin_port = 0;
    std::string token;
};

// Sends a request on a new connection and reads the answer to its end; how long it took.
std::chrono::milliseconds time_health(int port, std::string& answer) {
    const auto started = Clock::now();
    RawConnection connection(port);
    if (!connection.connected() || !connection.send(k_health) || !connection.read_until("\"ok\"", 5s)) return 5000ms;
    answer = connection.received();
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
}

long status_kb(int pid, const std::string& field) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    return 0;
}

// `count` copies of `element` in one array, padded with spaces to `size` bytes.
std::string padded_array(const std::string& element, size_t count, size_t size) {
    std::string text = "[";
    text.reserve(size);
    for (size_t i = 0; i < count; ++i) text += (i ? "," : "") + element;
    text += "]";
    if (text.size() < size) text.insert(1, size - text.size(), ' ');
    return text;
}

std::string hex(size_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "%zx", value);
    return text;
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("integration: the admin listener answers /healthz within 100 ms with 1,000 idle keep-alive connections and slow heads open") {
    allow_descriptors(4096);
    wr::test::TempDir data;
    // This test is about the listener holding the connections, not about the cap or the idle
    // timeout (the next tests are): the cap the descriptor limit gives could be 1,024, and a busy
    // machine can take longer than the 10 s idle timeout to open them all.
    ServeProcess wr(data.path() / "data", {"--admin-max-connections", "2048", "--admin-idle-timeout", "300"});

    // A thousand clients that asked once and keep their connection open.
    std::vector<std::unique_ptr<RawConnection>> idle;
    for (int i = 0; i < 1000; ++i) {
        auto connection = std::make_unique<RawConnection>(wr.admin_port);
        REQUIRE(connection->connected());
        REQUIRE(connection->send(k_health));
        REQUIRE_MESSAGE(connection->read_until("\"ok\"", 5s), "idle connection " << i << " got no answer");
        connection->received().clear();
        idle.push_back(std::move(connection));
    }
    // And some whose heads arrive a line at a time, for as long as the measurement lasts.
    std::vector<std::unique_ptr<RawConnection>> slow;
    for (int i = 0; i < 20; ++i) {
        slow.push_back(std::make_unique<RawConnection>(wr.admin_port));
        REQUIRE(slow.back()->send("GET /healthz HTTP/1.1\r\nHost: admin\r\n"));
    }
    struct Trickle {
        std::atomic<bool> running{true};
        std::thread thread;
        ~Trickle() {
            running = false;
            thread.join();
        }
    } trickle;
    trickle.thread = std::thread([&] {
        while (trickle.running) {
            for (auto& connection : slow) connection->send("X-Slow: 1\r\n");
            std::this_thread::sleep_for(100ms);
        }
    });

    std::vector<long> times;
    for (int i = 0; i < 10; ++i) {
        std::string answer;
        times.push_back(time_health(wr.admin_port, answer).count());
        CHECK(answer.starts_with("HTTP/1.1 200 OK\r\n"));
    }
    std::sort(times.begin(), times.end());
    MESSAGE("/healthz on a new connection beside 1,000 idle and 20 slow: median " << times[5] << " ms, slowest " << times.back() << " ms");
    CHECK(times.back() < 100);

    // An authenticated call, and a change, work as well.
    httplib::Client admin("127.0.0.1", wr.admin_port);
    admin.set_read_timeout(2s);
    const auto started = Clock::now();
    const auto created = admin.Post("/client/v4/zones", {{"Authorization", "Bearer " + wr.token}},
                                    json{{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"}}.dump(), "application/json");
    REQUIRE(created);
    CHECK(created->status == 200);
    const auto listed = admin.Get("/client/v4/zones", {{"Authorization", "Bearer " + wr.token}});
    REQUIRE(listed);
    CHECK(json::parse(listed->body)["result"].size() == 1);
    MESSAGE("POST and GET of a zone: " << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count() << " ms");

    // The idle connections were kept, not dropped: each answers again.
    int answered = 0;
    for (auto& connection : idle)
        if (connection->send(k_health) && connection->read_until("\"ok\"", 5s)) ++answered;
    CHECK(answered == 1000);
}

TEST_CASE("integration: /healthz is answered while every handler thread and the large-body thread are busy") {
    std::promise<void> go;
    const std::shared_future<void> released = go.get_future().share();
    std::atomic<int> waiting{0};
    wr::api::AdminServerOptions options;
    options.port = 0;
    options.threads = 2;
    // Every request but /healthz waits until the test lets it go; each answer names its client.
    wr::api::AdminServer server(
        [&](wr::api::Request& request) {
            if (request.path != "/healthz") {
                ++waiting;
                released.wait();
            }
            return wr::api::raw(json{{"path", request.path}, {"from", request.remote_address}}.dump(), "application/json");
        },
        options);
    const int port = server.bind();
    server.start();
    std::vector<std::future<int>> slow;
    // Lets the waiting requests go, also when a check below fails first (before the futures and
    // the server, which wait for them, go away).
    struct Release {
        std::promise<void>& promise;
        bool done = false;
        void now() {
            if (!done) promise.set_value();
            done = true;
        }
        ~Release() { now(); }
    } release{go};
    for (int i = 0; i < 3; ++i) // two handler threads busy, one request waiting for them
        slow.push_back(std::async(std::launch::async, [port] {
            httplib::Client client("127.0.0.1", port);
            client.set_read_timeout(10s);
            const auto reply = client.Get("/slow");
            return reply ? reply->status : -1;
        }));
    slow.push_back(std::async(std::launch::async, [port] { // and the thread of large bodies busy
        httplib::Client client("127.0.0.1", port);
        client.set_read_timeout(10s);
        const auto reply = client.Post("/slow", std::string(100 * 1024, ' '), "application/json");
        return reply ? reply->status : -1;
    }));
    REQUIRE(wr::test::eventually([&] { return waiting == 3; }));

    const auto started = Clock::now();
    RawConnection health(port);
    REQUIRE(health.send(k_health));
    REQUIRE(health.read_until("}", 2s));
    const auto took = Clock::now() - started;
    CHECK(health.received().starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(health.received().find(R"({"from":"127.0.0.1","path":"/healthz"})") != std::string::npos);
    CHECK(took < 100ms);
    CHECK(waiting == 3);

    release.now();
    for (auto& reply : slow) CHECK(reply.get() == 200);
    CHECK(waiting == 4);
    server.stop();
}

TEST_CASE("integration: the admin listener cuts a head that trickles past the header timeout (408), and idle connections at the idle timeout") {
    TestServer wr({}, [](wr::AppOptions& options) {
        options.admin_header_timeout = 1s;
        options.admin_idle_timeout = 2s;
    });
    // A head that never ends: a header line every 200 ms keeps it moving, never whole.
    RawConnection slow(wr.admin_port());
    const auto started = Clock::now();
    REQUIRE(slow.send("GET /healthz HTTP/1.1\r\nHost: admin\r\n"));
    while (!slow.closed() && Clock::now() - started < 5s) {
        slow.send("X-Slow: 1\r\n");
        slow.read_some(200ms);
    }
    const auto cut = Clock::now() - started;
    CHECK(slow.closed());
    CHECK(slow.received().starts_with("HTTP/1.1 408 Request Timeout\r\n"));
    CHECK(slow.received().find("\"code\":1018") != std::string::npos);
    CHECK(cut >= 900ms);
    CHECK(cut < 2s);

    // A connection that asked once and then says nothing, and one that never says anything.
    RawConnection asked(wr.admin_port());
    RawConnection silent(wr.admin_port());
    const auto opened = Clock::now();
    REQUIRE(asked.send(k_health));
    REQUIRE(asked.read_until("\"ok\"", 2s));
    CHECK(asked.read_until_closed(4s));
    CHECK(silent.read_until_closed(4s));
    const auto closed = Clock::now() - opened;
    CHECK(closed >= 1900ms);
    CHECK(closed < 3s);
    CHECK(silent.received().empty());
}

TEST_CASE("integration: at its connection cap the admin listener sheds the longest idle client, then the longest in its head") {
    TestServer wr({}, [](wr::AppOptions& options) { options.admin_max_connections = 4; });
    std::vector<std::unique_ptr<RawConnection>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::make_unique<RawConnection>(wr.admin_port()));
        REQUIRE(idle.back()->send(k_health));
        REQUIRE(idle.back()->read_until("\"ok\"", 2s));
    }
    // A fifth client is answered; the first idle one made room.
    std::string answer;
    CHECK(time_health(wr.admin_port(), answer) < 2s);
    CHECK(answer.starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(idle[0]->read_until_closed(2s));
    for (int i = 1; i < 4; ++i) CHECK_FALSE(idle[i]->read_until_closed(50ms));

    // Four clients stuck in their heads take the places of the idle ones...
    std::vector<std::unique_ptr<RawConnection>> heads;
    for (int i = 0; i < 4; ++i) {
        heads.push_back(std::make_unique<RawConnection>(wr.admin_port()));
        REQUIRE(heads.back()->send("GET /healthz HTTP/1.1\r\n"));
        heads.back()->read_some(50ms); // the listener has it before the next one connects
    }
    for (int i = 1; i < 4; ++i) CHECK(idle[i]->read_until_closed(2s));
    // ...and the oldest of them makes room for the next client, who is answered.
    CHECK(time_health(wr.admin_port(), answer) < 2s);
    CHECK(answer.starts_with("HTTP/1.1 200 OK\r\n"));
    CHECK(heads[0]->read_until_closed(2s));
    CHECK(heads[0]->received().empty());
    for (int i = 1; i < 4; ++i) CHECK_FALSE(heads[i]->read_until_closed(50ms));
}

TEST_CASE("integration: a second wr serve on the same admin port refuses to start, with a one-line error") {
    wr::test::TempDir data;
    ServeProcess first(data.path() / "first");
    const wr::test::ProcessResult second = wr::test::run_wr({"serve", "--data-dir", (data.path() / "second").string(), "--admin-listen",
                                                             "127.0.0.1:" + std::to_string(first.admin_port), "--edge-listen",
                                                             "127.0.0.1:0"});
    CHECK(second.exit_code == 1);
    // Its last word, on one line (the lines before it are its log of opening its own store).
    CHECK(second.err.ends_with("\nwr: error: cannot listen on 127.0.0.1:" + std::to_string(first.admin_port) +
                               " for the admin API: another process serves it (Address already in use)\n"));
    // The first one still answers.
    std::string answer;
    CHECK(time_health(first.admin_port, answer) < 2s);
}

TEST_CASE("integration: the admin log writes a request's path as one line: a forged line, an ESC and stray bytes come out as \\xHH") {
    wr::test::TempDir data;
    ServeProcess wr(data.path() / "data");
    RawConnection connection(wr.admin_port);
    REQUIRE(connection.send("GET /x%0a2026-11-28T00:00:00.000Z%20warn%20auth:%20FORGED%1b%ff HTTP/1.1\r\nHost: admin\r\n"
                            "Connection: close\r\n\r\n"));
    REQUIRE(connection.read_until_closed(2s));
    CHECK(connection.received().starts_with("HTTP/1.1 404 Not Found\r\n"));
    wr.process.send_signal(SIGTERM);
    REQUIRE(wr.process.wait_exit(10s) == 0);
    const std::string log = wr.process.rest_of_output();
    CHECK(log.find("\n2026-11-28T00:00:00.000Z warn auth: FORGED") == std::string::npos); // no line of the client's
    CHECK(log.find(" info admin: GET /x\\x0A2026-11-28T00:00:00.000Z warn auth: FORGED\\x1B\\xFF 404 ") != std::string::npos);
    CHECK(log.find('\x1b') == std::string::npos);
    CHECK(log.find('\xff') == std::string::npos);
}

TEST_CASE("integration: the admin listener speaks HTTP/1.1 as clients do: HEAD, pipelining, 100-continue, chunked bodies, bad heads") {
    TestServer wr;
    const std::string auth = "Authorization: Bearer " + wr.admin_token() + "\r\n";
    SUBCASE("HEAD is GET without the body") {
        RawConnection connection(wr.admin_port());
        REQUIRE(connection.send("HEAD /healthz HTTP/1.1\r\nHost: admin\r\n\r\n" + k_health));
        REQUIRE(connection.read_until("\"ok\"", 2s));
        const std::string& received = connection.received();
        CHECK(received.starts_with("HTTP/1.1 200 OK\r\n"));
        CHECK(received.find("Content-Length: 16\r\n") != std::string::npos);
        // The second answer follows the first head directly: the first had no body.
        CHECK(received.find("\r\n\r\nHTTP/1.1 200 OK\r\n") != std::string::npos);
    }
    SUBCASE("pipelined requests are answered in order") {
        RawConnection connection(wr.admin_port());
        REQUIRE(connection.send("GET /client/v4/zones HTTP/1.1\r\nHost: admin\r\n" + auth + "\r\n" + k_health));
        REQUIRE(connection.read_until("\"ok\"", 2s));
        const std::string& received = connection.received();
        CHECK(received.find("\"result\":[]") < received.find("\"ok\""));
    }
    SUBCASE("Expect: 100-continue gets 100 before the body, or 413 at once for a body too large") {
        const std::string zone = R"({"name":"example.com","origin":"http://127.0.0.1:3000"})";
        RawConnection connection(wr.admin_port());
        REQUIRE(connection.send("POST /client/v4/zones HTTP/1.1\r\nHost: admin\r\n" + auth +
                                "Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: " +
                                std::to_string(zone.size()) + "\r\n\r\n"));
        REQUIRE(connection.read_until("\r\n\r\n", 2s));
        CHECK(connection.received() == "HTTP/1.1 100 Continue\r\n\r\n");
        REQUIRE(connection.send(zone));
        REQUIRE(connection.read_until("\"success\":true", 2s));

        RawConnection large(wr.admin_port());
        REQUIRE(large.send("POST /client/v4/zones HTTP/1.1\r\nHost: admin\r\n" + auth +
                           "Expect: 100-continue\r\nContent-Length: 5000000\r\n\r\n"));
        REQUIRE(large.read_until("}", 2s));
        CHECK(large.received().starts_with("HTTP/1.1 413 Content Too Large\r\n"));
        CHECK(large.received().find("\"code\":1009") != std::string::npos);
        CHECK(large.read_until_closed(3s));
    }
    SUBCASE("a chunked body is read whole") {
        const std::string zone = R"({"name":"example.com","origin":"http://127.0.0.1:3000"})";
        RawConnection connection(wr.admin_port());
        REQUIRE(connection.send("POST /client/v4/zones HTTP/1.1\r\nHost: admin\r\n" + auth +
                                "Transfer-Encoding: chunked\r\n\r\n10\r\n" + zone.substr(0, 16) + "\r\n" +
                                hex(zone.size() - 16) + "\r\n" + zone.substr(16) + "\r\n0\r\n\r\n"));
        REQUIRE(connection.read_until("\"success\":true", 2s));
    }
    SUBCASE("a head too large, or not HTTP, is answered and the connection closed") {
        RawConnection large(wr.admin_port());
        REQUIRE(large.send("GET /healthz HTTP/1.1\r\nHost: admin\r\nX-Large: " + std::string(20000, 'a') + "\r\n\r\n"));
        CHECK(large.read_until_closed(2s));
        CHECK(large.received().starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));

        RawConnection garbage(wr.admin_port());
        REQUIRE(garbage.send("HELLO THERE\r\n\r\n"));
        CHECK(garbage.read_until_closed(2s));
        CHECK(garbage.received().starts_with("HTTP/1.1 400 Bad Request\r\n"));
        CHECK(garbage.received().find("\"code\":1018") != std::string::npos);
    }
    SUBCASE("HTTP/1.0 and Connection: close end the connection after the answer") {
        RawConnection old(wr.admin_port());
        REQUIRE(old.send("GET /healthz HTTP/1.0\r\n\r\n"));
        CHECK(old.read_until_closed(2s));
        CHECK(old.received().find("Connection: close\r\n") != std::string::npos);
        RawConnection closing(wr.admin_port());
        REQUIRE(closing.send("GET /healthz HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n"));
        CHECK(closing.read_until_closed(2s));
        CHECK(closing.received().find("\"ok\"") != std::string::npos);
    }
}

TEST_CASE("integration: wr apply with many rooms of 1 MiB custom pages passes the JSON limits") {
    TestServer wr({}, [](wr::AppOptions& options) { options.max_body_bytes = 16 * 1024 * 1024; });
    const std::string page = "<!doctype html><title>Sale</title><p>{{waitTime}} minutes</p>";
    json rooms = json::array();
    for (int i = 0; i < 12; ++i)
        rooms.push_back({{"name", "room" + std::to_string(i)},
                         {"host", "shop.example.com"},
                         {"path", "/sale" + std::to_string(i)},
                         {"total_active_users", 1000},
                         {"new_users_per_minute", 300},
                         {"custom_page_html", page + std::string(1024 * 1024 - page.size(), ' ')}});
    const json document = {
        {"zones", json::array({{{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"}, {"waiting_rooms", rooms}}})}};
    httplib::Client client("127.0.0.1", wr.admin_port());
    client.set_read_timeout(60s);
    client.set_write_timeout(60s);
    const auto applied = client.Post("/client/v4/apply", {{"Authorization", "Bearer " + wr.admin_token()}}, document.dump(),
                                     "application/json");
    REQUIRE(applied);
    CHECK_MESSAGE(applied->status == 200, applied->body.substr(0, 300));
    // The answer is 12 MiB of JSON: give it the same patience as the upload (the default 5 s
    // is short for a sanitizer build on a busy machine).
    const auto listed = client.Get("/client/v4/zones/example.com/waiting_rooms?per_page=50", {{"Authorization", "Bearer " + wr.admin_token()}});
    REQUIRE(listed);
    CHECK(json::parse(listed->body)["result"].size() == 12);
}

TEST_CASE("integration: ten concurrent 4 MB hostile JSON bodies of each kind grow the admin server's peak memory by at most 64 MiB") {
    wr::test::TempDir data;
    ServeProcess wr(data.path() / "data");
    httplib::Client admin("127.0.0.1", wr.admin_port);
    const httplib::Headers auth{{"Authorization", "Bearer " + wr.token}};
    REQUIRE(admin.Post("/client/v4/zones", auth, json{{"name", "example.com"}, {"origin", "http://127.0.0.1:3000"}}.dump(),
                       "application/json")
                ->status == 200);
    const long before_kb = status_kb(wr.process.pid(), "VmRSS");

    constexpr size_t k_size = 4'000'000;
    struct Kind {
        const char* name;
        std::string body;
        int status;
    };
    const Kind kinds[] = {
        {"nested arrays", std::string(k_size / 2, '[') + std::string(k_size / 2, ']'), 413},
        {"many numbers", padded_array("0", k_size / 2 - 1, k_size), 413},
        {"many empty objects", padded_array("{}", k_size / 3 - 1, k_size), 413},
        // Just within the memory limit (its estimate is 96 bytes an object): the document is built.
        {"empty objects up to the limit", padded_array("{}", 40 * 1024 * 1024 / 96 - 1, k_size), 400},
        {"one long string", "{\"name\":\"" + std::string(k_size - 12, 'a') + "\"}", 400},
        {"many strings", padded_array("\"" + std::string(62, 'b') + "\"", k_size / 65 - 1, k_size), 400},
    };
    for (const Kind& kind : kinds) {
        CAPTURE(kind.name);
        REQUIRE(kind.body.size() <= k_size);
        std::vector<std::future<int>> answers;
        for (int i = 0; i < 10; ++i)
            answers.push_back(std::async(std::launch::async, [&] {
                httplib::Client client("127.0.0.1", wr.admin_port);
                client.set_read_timeout(60s);
                client.set_write_timeout(60s);
                const auto reply = client.Post("/client/v4/zones/example.com/waiting_rooms", auth, kind.body, "application/json");
                return reply ? reply->status : -1;
            }));
        for (auto& answer : answers) {
            const int status = answer.get();
#if defined(__SANITIZE_ADDRESS__)
            // Two bodies are read at a time and the others wait 30 s at most for their turn, then
            // get 503 with Retry-After. Under AddressSanitizer on a busy 2-core machine ten slow
            // parses can take longer than that: the refusal is then the 503, which changes nothing
            // as well (checked at the end). Plain builds answer every one with the kind's status.
            CHECK((status == kind.status || status == 503));
#else
            CHECK(status == kind.status);
#endif
        }
    }
    const long peak_kb = status_kb(wr.process.pid(), "VmHWM");
    const long after_kb = status_kb(wr.process.pid(), "VmRSS");
    MESSAGE("admin server RSS before " << before_kb / 1024 << " MiB, peak " << peak_kb / 1024 << " MiB (growth "
                                       << (peak_kb - before_kb) / 1024 << " MiB), after " << after_kb / 1024 << " MiB");
#if defined(__SANITIZE_ADDRESS__)
    // Under AddressSanitizer freed memory sits in its quarantine (256 MiB) and every block has
    // redzones: the figures say nothing of wr's own use, so the budget is checked in plain builds.
    (void)peak_kb;
    (void)after_kb;
#else
    CHECK(peak_kb - before_kb <= 64 * 1024);
    // And the memory went back to the system once the requests were answered.
    CHECK(after_kb - before_kb <= 16 * 1024);
#endif
    // The server is as it was: the zone has no rooms, and it answers.
    const auto created = admin.Get("/client/v4/zones/example.com/waiting_rooms", auth);
    REQUIRE(created);
    CHECK(json::parse(created->body)["result"].empty());
}

} // TEST_SUITE
