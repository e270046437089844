// Several wr processes as one waiting room: a control node and three edges on 127.0.0.1. A change
// on the control node reaches every edge within 2 s; the edges' analytics add up exactly at the
// control node (against the requests this test sent); the edges serve on — and restart — while
// the control node is down, and what they counted meanwhile arrives late but whole; wrong tokens
// and URLs fail in one line; the admin API over HTTPS serves the CLI and the edges.
#include <doctest/doctest.h>

#include <csignal>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <thread>

#include "support/browser.h"
#include "support/eventually.h"
#include "support/fleet_nodes.h"
#include "support/process.h"
#include "support/prometheus_parser.h"
#include "support/shop_paths.h"
#include "support/temp_dir.h"
#include "support/tls_files.h"

using namespace std::chrono_literals;
using nlohmann::json;
using wr::test::ControlNode;
using wr::test::EdgeNode;
using wr::test::k_shop_path;

namespace {

// The edges here serve with one thread each.
const std::vector<std::string> k_one_edge_thread{"--edge-threads", "1"};

// The shop in front of the origin, and an edge token.
std::string set_up(const ControlNode& control, const wr::test::TestOrigin& origin) {
    control.api("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", origin.url()}});
    control.api("POST", "/client/v4/zones/example.com/waiting_rooms",
        {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200}});
    return control.api("POST", "/client/v4/tokens", {{"name", "edges"}, {"scope", "edge"}})["token"];
}

// What this test's requests to the shop got, by edge: the oracle the analytics must match.
struct Tally {
    int64_t admitted = 0;  // requests let through
    int64_t queued = 0;    // requests answered with the queue page
    int64_t new_users = 0; // browsers let in for the first time
    int64_t total() const { return admitted + queued; }
};

// One request of one browser, tallied by what the browser saw.
wr::test::EdgeReply visit(wr::test::Browser& browser, Tally& tally) {
    const bool had_cookie = !browser.cookies.empty();
    wr::test::EdgeReply reply = browser.get("/");
    if (reply.from_origin()) {
        ++tally.admitted;
        if (!had_cookie) ++tally.new_users;
    } else if (reply.has_header("Refresh")) {
        ++tally.queued;
    }
    return reply;
}

// New browsers on an edge until one is admitted (the edge has the room), tallied.
void first_admission(int edge_port, Tally& tally) {
    for (int i = 0; i < 100; ++i) {
        wr::test::Browser browser(edge_port, "shop.example.com");
        if (visit(browser, tally).from_origin()) return;
        std::this_thread::sleep_for(50ms);
    }
    FAIL("the edge never admitted anyone");
}

// The room's analytics at the control node, summed over the last hour.
Tally stored(const ControlNode& control) {
    const json result = control.api("GET", k_shop_path + "/analytics");
    Tally tally;
    for (const json& point : result["series"]) {
        tally.admitted += point["requestsAdmitted"].get<int64_t>();
        tally.queued += point["requestsQueued"].get<int64_t>();
        tally.new_users += point["newUsersPerMinute"].get<int64_t>();
    }
    return tally;
}

// Waits (up to `limit`) until the control node stores exactly `expected`; returns what it stores.
Tally wait_for_analytics(const ControlNode& control, const Tally& expected, std::chrono::milliseconds limit = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    Tally seen = stored(control);
    while ((seen.admitted != expected.admitted || seen.queued != expected.queued || seen.new_users != expected.new_users) &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(200ms);
        seen = stored(control);
    }
    return seen;
}

std::string health(int admin_port) {
    httplib::Client client("127.0.0.1", admin_port);
    const auto reply = client.Get("/healthz");
    REQUIRE(reply);
    REQUIRE(reply->status == 200);
    return reply->body;
}

int file_mode(const std::filesystem::path& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return static_cast<int>(info.st_mode & 0777);
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("roles: three edges serve the control node's rooms, apply a change within 2 s, and their analytics add up exactly") {
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    ControlNode control(data.path() / "control");
    const std::string edge_token = set_up(control, origin);
    std::vector<std::unique_ptr<EdgeNode>> edges;
    for (int i = 1; i <= 3; ++i)
        edges.push_back(std::make_unique<EdgeNode>(data.path() / ("edge-" + std::to_string(i)), "edge-" + std::to_string(i), control.url(),
                                                   edge_token, k_one_edge_thread));

    // Different traffic on each edge; every browser stays admitted (200 slots).
    std::vector<Tally> tallies(3);
    std::vector<std::vector<std::unique_ptr<wr::test::Browser>>> browsers(3);
    const int kept_per_edge[] = {5, 3, 8};
    for (size_t e = 0; e < 3; ++e) {
        first_admission(edges[e]->edge_port, tallies[e]);
        for (int i = 0; i < kept_per_edge[e]; ++i) {
            browsers[e].push_back(std::make_unique<wr::test::Browser>(edges[e]->edge_port, "shop.example.com"));
            REQUIRE(visit(*browsers[e].back(), tallies[e]).from_origin());
        }
    }

    // A change on the control node reaches every edge within 2 s.
    control.api("PATCH", k_shop_path, {{"queue_all", true}});
    const auto changed = std::chrono::steady_clock::now();
    for (size_t e = 0; e < 3; ++e) {
        CAPTURE(e);
        bool queued = false;
        while (!queued && std::chrono::steady_clock::now() - changed < 3s) {
            wr::test::Browser browser(edges[e]->edge_port, "shop.example.com");
            queued = visit(browser, tallies[e]).has_header("Refresh");
            if (!queued) std::this_thread::sleep_for(20ms);
        }
        CHECK(queued);
        const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - changed);
        MESSAGE("edge-" << e + 1 << " queued everyone " << took.count() << " ms after the change");
        CHECK(took < 2s);
    }
    // A few more queued visits on edge-2, then everyone in again.
    for (int i = 0; i < 4; ++i) {
        wr::test::Browser browser(edges[1]->edge_port, "shop.example.com");
        CHECK(visit(browser, tallies[1]).has_header("Refresh"));
    }
    control.api("PATCH", k_shop_path, {{"queue_all", false}});

    // The control node stores exactly what the three edges answered, no more (a retried push
    // would show as more, a lost one as less).
    Tally expected;
    for (const Tally& tally : tallies) {
        expected.admitted += tally.admitted;
        expected.queued += tally.queued;
        expected.new_users += tally.new_users;
    }
    const Tally seen = wait_for_analytics(control, expected);
    CHECK(seen.admitted == expected.admitted);
    CHECK(seen.queued == expected.queued);
    CHECK(seen.new_users == expected.new_users);
    std::this_thread::sleep_for(2500ms); // another round of pushes changes nothing
    const Tally later = stored(control);
    CHECK(later.admitted == expected.admitted);
    CHECK(later.queued == expected.queued);
    CHECK(later.new_users == expected.new_users);

    // The status adds the edges' live figures up: every browser let in is an active user, on the
    // edge that let it in.
    const int64_t admitted_browsers = expected.new_users;
    const json status = control.api("GET", k_shop_path + "/status");
    CHECK(status["estimated_total_active_users"] == admitted_browsers);
    REQUIRE(status["nodes"].size() == 3);
    for (size_t e = 0; e < 3; ++e) {
        CHECK(status["nodes"][e]["name"] == "edge-" + std::to_string(e + 1));
        CHECK(status["nodes"][e]["condition"] == "ok");
        CHECK(status["nodes"][e]["active_users"] == tallies[e].new_users);
    }
    const wr::test::ProcessResult cli = wr::test::run_wr({"--api", control.url(), "--token", control.token, "rooms", "status", "shop"});
    CHECK(cli.exit_code == 0);
    // Keys are padded to the longest (origin_guard.* lines included): match the line, not the spacing.
    const size_t key = cli.out.find("estimated_total_active_users ");
    REQUIRE_MESSAGE(key != std::string::npos, cli.out);
    const size_t value = cli.out.find_first_not_of(' ', key + std::string("estimated_total_active_users").size());
    CHECK_MESSAGE(cli.out.substr(value, cli.out.find('\n', value) - value) == std::to_string(admitted_browsers), cli.out);
    CHECK(cli.out.find("edge-3  edge  ok") != std::string::npos);

    // Each edge's /metrics counts its own traffic, labelled with its name; a read token checked by
    // the control node opens it, an edge token does not.
    httplib::Client metrics_client("127.0.0.1", edges[2]->admin_port);
    const auto metrics = metrics_client.Get("/metrics", {{"Authorization", "Bearer " + control.token}});
    REQUIRE(metrics);
    REQUIRE(metrics->status == 200);
    const wr::test::Exposition parsed = wr::test::parse_prometheus(metrics->body);
    CHECK(parsed.value("wr_requests_total", {{"node", "edge-3"}, {"zone", "example.com"}, {"room", "shop"}, {"outcome", "admitted"}}) ==
          tallies[2].admitted);
    CHECK(parsed.value("wr_control_reachable", {{"node", "edge-3"}}) == 1);
    CHECK(metrics_client.Get("/metrics", {{"Authorization", "Bearer " + edge_token}})->status == 403);
    CHECK(metrics_client.Get("/metrics", {{"Authorization", "Bearer wr_nope"}})->status == 401);
    CHECK(metrics_client.Get("/metrics")->status == 401);
    CHECK(metrics_client.Get("/client/v4/zones", {{"Authorization", "Bearer " + control.token}})->status == 404);

    // An edge keeps no database; its copy of the configuration is private.
    CHECK_FALSE(std::filesystem::exists(data.path() / "edge-1" / "wr.db"));
    CHECK(file_mode(data.path() / "edge-1" / "edge-config.json") == 0600);
}

TEST_CASE("roles: with the control node down the edges serve on, an edge restarts from its copy, and late analytics arrive whole") {
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    auto control = std::make_unique<ControlNode>(data.path() / "control");
    const int control_port = control->admin_port;
    const std::string control_url = control->url();
    const std::string edge_token = set_up(*control, origin);
    auto edge_1 = std::make_unique<EdgeNode>(data.path() / "edge-1", "edge-1", control_url, edge_token, k_one_edge_thread);
    auto edge_2 = std::make_unique<EdgeNode>(data.path() / "edge-2", "edge-2", control_url, edge_token, k_one_edge_thread);
    Tally tally;
    first_admission(edge_1->edge_port, tally);
    first_admission(edge_2->edge_port, tally);
    REQUIRE(wait_for_analytics(*control, tally).total() == tally.total());

    // The control node dies.
    control->process.send_signal(SIGKILL);
    control->process.wait_exit(5s);
    control.reset();
    std::vector<std::unique_ptr<wr::test::Browser>> kept;
    for (EdgeNode* edge : {edge_1.get(), edge_2.get()})
        for (int i = 0; i < 3; ++i) {
            kept.push_back(std::make_unique<wr::test::Browser>(edge->edge_port, "shop.example.com"));
            CHECK(visit(*kept.back(), tally).from_origin());
        }
    // Its next poll (once a second) notices.
    wr::test::eventually([&] { return json::parse(health(edge_1->admin_port))["control"]["reachable"] == false; });
    CHECK(json::parse(health(edge_1->admin_port))["control"]["reachable"] == false);

    // edge-2 restarts meanwhile: it keeps what it could not push, and starts from its copy.
    edge_2->process.send_signal(SIGTERM);
    REQUIRE(edge_2->process.wait_exit(10s) == std::optional<int>{0});
    CHECK(file_mode(data.path() / "edge-2" / "analytics-outbox.json") == 0600);
    edge_2 = std::make_unique<EdgeNode>(data.path() / "edge-2", "edge-2", control_url, edge_token, k_one_edge_thread);
    CHECK(edge_2->process.output().find("serving the cached configuration") != std::string::npos);
    const json restarted = json::parse(health(edge_2->admin_port));
    CHECK(restarted["configuration"]["source"] == "cache");
    for (int i = 0; i < 2; ++i) {
        kept.push_back(std::make_unique<wr::test::Browser>(edge_2->edge_port, "shop.example.com"));
        CHECK(visit(*kept.back(), tally).from_origin());
    }
    // A browser let in by edge-2 before the restart comes back to the new process: its cookie
    // opens (the keys came with the copy), so it is not a new user (the analytics below tell).
    wr::test::Browser returning(edge_2->edge_port, "shop.example.com");
    returning.cookies = kept[3]->cookies;
    CHECK(visit(returning, tally).from_origin());

    // The control node returns on its address: everything counted meanwhile arrives, once.
    ControlNode back(data.path() / "control", control_port);
    const Tally seen = wait_for_analytics(back, tally);
    CHECK(seen.admitted == tally.admitted);
    CHECK(seen.queued == tally.queued);
    CHECK(seen.new_users == tally.new_users);
    CHECK(wr::test::run_wr({"--api", back.url(), "--token", back.token, "rooms", "status", "shop"}).exit_code == 0);
}

TEST_CASE("roles: a wrong token, a bad URL, an unreachable control node: one line, exit 1") {
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    ControlNode control(data.path() / "control");
    set_up(control, origin);
    const auto edge = [&](const std::string& url, const std::string& token, const std::string& dir) {
        return wr::test::run_wr({"serve", "--role", "edge", "--data-dir", (data.path() / dir).string(), "--control-url", url, "--control-token",
                                 token, "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0"});
    };
    const auto one_line = [](const wr::test::ProcessResult& result) {
        // The log may have said something first; the error is the last line and the only "error:" one.
        const std::string& err = result.err;
        const size_t at = err.find("wr: error: ");
        REQUIRE_MESSAGE(at != std::string::npos, err);
        CHECK(err.find('\n', at) == err.size() - 1);
        return err.substr(at, err.size() - 1 - at);
    };

    const auto wrong = edge(control.url(), "wr_000000000000000000000000000000000000000000000000", "wrong");
    CHECK(wrong.exit_code == 1);
    CHECK(one_line(wrong) == "wr: error: the control node at " + control.url() +
                                 " refused the control token (the API token is not valid (revoked or mistyped)); give an edge token "
                                 "with --control-token or WR_CONTROL_TOKEN (wr tokens create --scope edge)");
    // An admin token is not an edge token.
    const auto admin = edge(control.url(), control.token, "admin");
    CHECK(admin.exit_code == 1);
    CHECK(one_line(admin).find("refused the control token (this route serves edge nodes: it needs a token with scope edge") !=
          std::string::npos);

    const auto bad_url = edge("ftp://127.0.0.1:1", "wr_x", "bad");
    CHECK(bad_url.exit_code == 1);
    CHECK(one_line(bad_url) == "wr: error: --control-url: expected http://HOST:PORT or https://HOST:PORT (the control node's admin "
                               "listener), not ftp://127.0.0.1:1");
    CHECK_FALSE(std::filesystem::exists(data.path() / "bad")); // nothing touched

    const auto away = edge("http://127.0.0.1:1", "wr_x", "away");
    CHECK(away.exit_code == 1);
    CHECK(one_line(away) == "wr: error: cannot get the configuration from the control node at http://127.0.0.1:1 (connection refused "
                            "or failed) and there is no cached copy in " +
                                (data.path() / "away" / "edge-config.json").string() +
                                "; start the control node first, or check --control-url");

    // Plain HTTP to an address that is not this machine's loopback: the cookie keys would cross
    // the network readable, and the edge says so before anything else (0.0.0.0 refuses at once).
    const auto plain = edge("http://0.0.0.0:1", "wr_x", "plain");
    CHECK(plain.exit_code == 1);
    CHECK(plain.err.find("the cookie keys come from http://0.0.0.0:1 over plain HTTP, readable on the network") != std::string::npos);
    CHECK(away.err.find("over plain HTTP") == std::string::npos); // 127.0.0.1 never leaves the machine

    const auto no_token = wr::test::run_wr({"serve", "--role", "edge", "--data-dir", (data.path() / "none").string(), "--control-url",
                                            control.url(), "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0"});
    CHECK(no_token.exit_code == 1);
    CHECK(one_line(no_token) ==
          "wr: error: --role edge needs --control-token (or WR_CONTROL_TOKEN): a token of scope edge from the control node");
    const auto not_edge = wr::test::run_wr({"serve", "--data-dir", (data.path() / "all").string(), "--control-url", control.url()});
    CHECK(not_edge.exit_code == 1);
    CHECK(one_line(not_edge) == "wr: error: --control-url is for --role edge; this node is --role all");
}

TEST_CASE("roles: the admin API over HTTPS, used by the CLI and by an edge that trusts its CA") {
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    std::filesystem::create_directories(data.path() / "tls");
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(data.path() / "tls");
    ControlNode control(data.path() / "control", 0,
                        {"--admin-tls-cert", tls.certificate.string(), "--admin-tls-key", tls.private_key.string()});
    CHECK(control.process.ready_line().find("API listening on https://127.0.0.1:") != std::string::npos);
    const std::string https_url = "https://127.0.0.1:" + std::to_string(control.admin_port);

    const auto cli = [&](std::vector<std::string> arguments) {
        std::vector<std::string> all{"--api", https_url, "--token", control.token};
        all.insert(all.end(), arguments.begin(), arguments.end());
        return wr::test::run_wr(all);
    };
    CHECK(cli({"--api-ca-file", tls.certificate.string(), "zones", "create", "example.com", "--origin", origin.url()}).exit_code == 0);
    CHECK(cli({"--api-ca-file", tls.certificate.string(), "rooms", "create", "--zone", "example.com", "--name", "shop", "--host",
               "shop.example.com", "--total-active-users", "200", "--new-users-per-minute", "200"})
              .exit_code == 0);
    const auto untrusted = cli({"zones", "list"});
    CHECK(untrusted.exit_code == 1);
    CHECK(untrusted.err == "wr: error: the admin API at " + https_url +
                               " shows a certificate this machine does not trust; give its CA with --api-ca-file (or WR_API_CA_FILE)\n");
    const auto created = cli({"--api-ca-file", tls.certificate.string(), "-o", "json", "tokens", "create", "--name", "edge-1", "--scope", "edge"});
    REQUIRE(created.exit_code == 0);
    const std::string edge_token = json::parse(created.out)["token"];

    // An edge that trusts the CA takes its configuration over HTTPS and serves.
    EdgeNode edge(data.path() / "edge", "edge-1", https_url, edge_token,
                  {"--edge-threads", "1", "--control-ca-file", tls.certificate.string()});
    Tally tally;
    first_admission(edge.edge_port, tally);
    // One that does not refuses to start, and says why.
    const auto refused = wr::test::run_wr({"serve", "--role", "edge", "--data-dir", (data.path() / "untrusting").string(), "--control-url",
                                           https_url, "--control-token", edge_token, "--admin-listen", "127.0.0.1:0", "--edge-listen",
                                           "127.0.0.1:0"});
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("(its TLS certificate is not trusted (give its CA with --control-ca-file)) and there is no cached copy") !=
          std::string::npos);
    // Plain HTTP to the HTTPS listener gets nothing useful.
    httplib::Client plain("127.0.0.1", control.admin_port);
    const auto answer = plain.Get("/healthz");
    CHECK((!answer || answer->status != 200));

    // A renewed certificate (SIGHUP) is served to new connections: the CLI trusts the new one,
    // and no longer the old.
    std::filesystem::create_directories(data.path() / "renewed");
    std::filesystem::copy_file(tls.certificate, data.path() / "old.pem");
    const wr::test::TlsFiles renewed = wr::test::write_self_signed_certificate(data.path() / "renewed");
    std::filesystem::rename(renewed.private_key, tls.private_key);
    std::filesystem::rename(renewed.certificate, tls.certificate);
    control.process.send_signal(SIGHUP);
    bool swapped = false;
    for (int i = 0; i < 50 && !swapped; ++i) {
        swapped = cli({"--api-ca-file", tls.certificate.string(), "zones", "list"}).exit_code == 0;
        if (!swapped) std::this_thread::sleep_for(100ms);
    }
    CHECK(swapped);
    CHECK(cli({"--api-ca-file", (data.path() / "old.pem").string(), "zones", "list"}).exit_code == 1);
}

} // TEST_SUITE
