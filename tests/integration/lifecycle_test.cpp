// The real `wr serve` process through its life: a SIGTERM lets the request in flight finish,
// SIGHUP and renewed files swap the TLS certificate under live connections, and a second
// server on the same data directory refuses to start.
#include <doctest/doctest.h>

#include <csignal>
#include <future>
#include <set>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <netinet/in.h>
#include <SQLiteCpp/Database.h>
#include <atomic>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "support/process.h"
#include "support/temp_dir.h"
#include "support/tls_files.h"
#include "util/files.h"

using wr::test::BackgroundProcess;
using wr::test::port_after;
using wr::test::read_admin_token;

namespace {

// `wr serve` on ephemeral ports, ready once the admin API listens.
struct ServeProcess {
    ServeProcess(const std::filesystem::path& data_dir, std::vector<std::string> extra = {})
        : process(arguments(data_dir, std::move(extra)), "API listening on", true) {
        edge_port = port_after(process.output(), "edge: listening on");
        admin_port = port_after(process.ready_line(), "API listening on");
        token = read_admin_token(data_dir);
    }
    static std::vector<std::string> arguments(const std::filesystem::path& data_dir, std::vector<std::string> extra) {
        std::vector<std::string> all{WR_BINARY, "serve", "--data-dir", data_dir.string(), "--admin-listen", "127.0.0.1:0",
                                     "--edge-listen", "127.0.0.1:0", "--edge-threads", "2"};
        all.insert(all.end(), extra.begin(), extra.end());
        return all;
    }
    BackgroundProcess process;
    int edge_port = 0;
    int admin_port = 0;
    std::string token;
};

bool can_connect(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return connected;
}

// One TLS connection, kept open by the test, and the certificate the server showed on it.
class TlsConnection {
public:
    explicit TlsConnection(int port) {
        m_context = SSL_CTX_new(TLS_client_method());
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        m_ssl = SSL_new(m_context);
        SSL_set_fd(m_ssl, m_fd);
        REQUIRE(SSL_connect(m_ssl) == 1);
    }
    ~TlsConnection() {
        SSL_free(m_ssl);
        ::close(m_fd);
        SSL_CTX_free(m_context);
    }
    // Whether the server's certificate is the one in this PEM file.
    bool shows(const std::filesystem::path& certificate_file) const {
        FILE* in = std::fopen(certificate_file.c_str(), "r");
        X509* expected = PEM_read_X509(in, nullptr, nullptr, nullptr);
        std::fclose(in);
        X509* seen = SSL_get1_peer_certificate(m_ssl);
        const bool same = seen && expected && X509_cmp(seen, expected) == 0;
        X509_free(seen);
        X509_free(expected);
        return same;
    }
    // The status line of one request on this connection.
    std::string status_line(const std::string& host) {
        const std::string request = "GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
        REQUIRE(SSL_write(m_ssl, request.data(), static_cast<int>(request.size())) == static_cast<int>(request.size()));
        std::string answer;
        char buffer[4096];
        while (answer.find("\r\n") == std::string::npos) {
            const int n = SSL_read(m_ssl, buffer, sizeof buffer);
            if (n <= 0) break;
            answer.append(buffer, static_cast<size_t>(n));
        }
        return answer.substr(0, answer.find("\r\n"));
    }

private:
    SSL_CTX* m_context = nullptr;
    SSL* m_ssl = nullptr;
    int m_fd = -1;
};

} // namespace

TEST_SUITE("integration") {

TEST_CASE("lifecycle: SIGTERM stops accepting, lets a slow proxied request finish, and exits 0") {
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    ServeProcess wr(data.path() / "data");
    httplib::Client admin("127.0.0.1", wr.admin_port);
    const auto zone = admin.Post("/client/v4/zones", {{"Authorization", "Bearer " + wr.token}},
                                 nlohmann::json{{"name", "example.com"}, {"origin", origin.url()}}.dump(), "application/json");
    REQUIRE(zone);
    REQUIRE(zone->status == 200);
    httplib::Client edge("127.0.0.1", wr.edge_port);
    edge.set_read_timeout(std::chrono::seconds{10});
    // The edge picks the zone up within its poll interval.
    for (int i = 0; i < 100; ++i) {
        const auto reply = edge.Get("/slow?ms=0", {{"Host", "example.com"}});
        if (reply && reply->status == 200) break;
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }

    auto slow = std::async(std::launch::async, [&] {
        httplib::Client client("127.0.0.1", wr.edge_port);
        client.set_read_timeout(std::chrono::seconds{10});
        const auto reply = client.Get("/slow?ms=1500", {{"Host", "example.com"}});
        return reply ? std::to_string(reply->status) + " " + reply->body : std::string("no answer");
    });
    std::this_thread::sleep_for(std::chrono::milliseconds{400}); // the request reached the origin
    const auto signalled = std::chrono::steady_clock::now();
    wr.process.send_signal(SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds{300});
    CHECK_FALSE(can_connect(wr.edge_port)); // no longer accepting
    CHECK(slow.get() == "200 slow\n");
    const std::optional<int> exit_code = wr.process.wait_exit(std::chrono::seconds{10});
    REQUIRE(exit_code.has_value());
    CHECK(*exit_code == 0);
    CHECK(std::chrono::steady_clock::now() - signalled < std::chrono::seconds{5});
    const std::string log = wr.process.rest_of_output();
    CHECK(log.find("drained in") != std::string::npos);
}

TEST_CASE("lifecycle: SIGTERM lets a proxied event stream run to its end") {
    wr::test::StreamOrigin origin;
    wr::test::TempDir data;
    ServeProcess wr(data.path() / "data");
    httplib::Client admin("127.0.0.1", wr.admin_port);
    REQUIRE(admin.Post("/client/v4/zones", {{"Authorization", "Bearer " + wr.token}},
                       nlohmann::json{{"name", "example.com"}, {"origin", origin.url()}}.dump(), "application/json"));
    httplib::Client edge("127.0.0.1", wr.edge_port);
    for (int i = 0; i < 100; ++i) {
        const auto reply = edge.Get("/ready", {{"Host", "example.com"}});
        if (reply && reply->status == 200) break;
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    auto stream = std::async(std::launch::async, [&] {
        httplib::Client client("127.0.0.1", wr.edge_port);
        client.set_read_timeout(std::chrono::seconds{10});
        const auto reply = client.Get("/sse?events=4&ms=400", {{"Host", "example.com"}});
        return reply ? reply->body : std::string("no answer");
    });
    std::this_thread::sleep_for(std::chrono::milliseconds{300}); // the stream has begun
    wr.process.send_signal(SIGTERM);
    CHECK(stream.get() == "data: event 0\n\ndata: event 1\n\ndata: event 2\n\ndata: event 3\n\n");
    CHECK(wr.process.wait_exit(std::chrono::seconds{10}) == std::optional<int>{0});
}

TEST_CASE("lifecycle: --drain-timeout bounds the wait for a request that does not finish") {
    wr::test::TestOrigin origin;
    wr::test::TempDir data;
    ServeProcess wr(data.path() / "data", {"--drain-timeout", "1", "--origin-timeout", "30"});
    httplib::Client admin("127.0.0.1", wr.admin_port);
    REQUIRE(admin.Post("/client/v4/zones", {{"Authorization", "Bearer " + wr.token}},
                       nlohmann::json{{"name", "example.com"}, {"origin", origin.url()}}.dump(), "application/json"));
    httplib::Client edge("127.0.0.1", wr.edge_port);
    for (int i = 0; i < 100; ++i) {
        const auto reply = edge.Get("/slow?ms=0", {{"Host", "example.com"}});
        if (reply && reply->status == 200) break;
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    auto stuck = std::async(std::launch::async, [&] {
        httplib::Client client("127.0.0.1", wr.edge_port);
        client.set_read_timeout(std::chrono::seconds{20});
        return static_cast<bool>(client.Get("/slow?ms=8000", {{"Host", "example.com"}}));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds{300});
    const auto signalled = std::chrono::steady_clock::now();
    wr.process.send_signal(SIGTERM);
    const std::optional<int> exit_code = wr.process.wait_exit(std::chrono::seconds{6});
    REQUIRE(exit_code.has_value());
    CHECK(*exit_code == 0);
    const auto took = std::chrono::steady_clock::now() - signalled;
    CHECK(took >= std::chrono::milliseconds{900});
    CHECK(took < std::chrono::seconds{4});
    CHECK_FALSE(stuck.get()); // cut off at the timeout, not answered
}

TEST_CASE("lifecycle: SIGHUP or renewed files swap the TLS certificate; open connections keep working") {
    wr::test::TempDir data;
    const std::filesystem::path served = data.path() / "served";
    const std::filesystem::path renewed = data.path() / "renewed";
    std::filesystem::create_directories(served);
    std::filesystem::create_directories(renewed);
    const wr::test::TlsFiles first = wr::test::write_self_signed_certificate(served);
    ServeProcess wr(data.path() / "data", {"--tls-cert", first.certificate.string(), "--tls-key", first.private_key.string()});
    TlsConnection before(wr.edge_port);
    CHECK(before.shows(first.certificate));

    SUBCASE("SIGHUP") {
        const wr::test::TlsFiles second = wr::test::write_self_signed_certificate(renewed);
        std::filesystem::rename(second.private_key, first.private_key);
        std::filesystem::rename(second.certificate, first.certificate);
        wr.process.send_signal(SIGHUP);
    }
    SUBCASE("the files change") {
        const wr::test::TlsFiles second = wr::test::write_self_signed_certificate(renewed);
        std::filesystem::rename(second.private_key, first.private_key);
        std::filesystem::rename(second.certificate, first.certificate);
    }
    // A new client sees the renewed certificate (the files are checked every second).
    bool renewed_seen = false;
    for (int i = 0; i < 60 && !renewed_seen; ++i) {
        TlsConnection after(wr.edge_port);
        renewed_seen = after.shows(first.certificate);
        if (!renewed_seen) std::this_thread::sleep_for(std::chrono::milliseconds{50});
    }
    CHECK(renewed_seen);
    // The connection opened before the swap still answers.
    CHECK(before.status_line("example.com").starts_with("HTTP/1.1 "));
    wr.process.send_signal(SIGTERM);
    CHECK(wr.process.wait_exit(std::chrono::seconds{10}) == std::optional<int>{0});
}

TEST_CASE("lifecycle: a second wr serve on the same data directory refuses, naming the directory") {
    wr::test::TempDir data;
    const std::filesystem::path data_dir = data.path() / "data";
    ServeProcess first(data_dir);
    const wr::test::ProcessResult second = wr::test::run_wr(
        {"serve", "--data-dir", data_dir.string(), "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0"});
    CHECK(second.exit_code != 0);
    CHECK(second.err.find("the data directory " + data_dir.string() + " is in use by another wr") != std::string::npos);
    // The first one was not disturbed.
    httplib::Client admin("127.0.0.1", first.admin_port);
    const auto reply = admin.Get("/client/v4/zones", {{"Authorization", "Bearer " + first.token}});
    REQUIRE(reply);
    CHECK(reply->status == 200);
    // Once it stopped, the directory is free again.
    first.process.send_signal(SIGTERM);
    REQUIRE(first.process.wait_exit(std::chrono::seconds{10}) == std::optional<int>{0});
    // It logged where the console is, and how to sign in from this machine, never the token.
    const std::string log = first.process.output() + first.process.rest_of_output();
    const std::string console = "http://127.0.0.1:" + std::to_string(first.admin_port) + "/";
    CHECK(log.find("serve: console at " + console + "; to sign in from this machine, open " + console + "#token=$(cat " +
                   (data_dir / "admin.token").string() + ")") != std::string::npos);
    CHECK(log.find(first.token) == std::string::npos);
    ServeProcess third(data_dir);
    CHECK(third.admin_port > 0);
}

TEST_CASE("lifecycle: a second wr serve on the edge address another one serves refuses in one line, as on a taken admin port") {
    wr::test::TempDir data;
    ServeProcess first(data.path() / "first");
    const auto second_on = [&](const std::string& admin, const std::string& edge) {
        // "listen" is in the line either way: the refusal ("cannot listen on"), or, were it to
        // start, its "listening on". The object stops it if it did.
        return std::make_unique<BackgroundProcess>(
            std::vector<std::string>{WR_BINARY, "serve", "--data-dir", (data.path() / "second").string(), "--admin-listen", admin,
                                     "--edge-listen", edge, "--edge-threads", "2"},
            "listen", true);
    };
    const std::string edge = "127.0.0.1:" + std::to_string(first.edge_port);
    auto on_edge = second_on("127.0.0.1:0", edge);
    CHECK(on_edge->ready_line() == "wr: error: cannot listen on " + edge + " for the edge: another process serves it (Address already in use)");
    CHECK(on_edge->wait_exit(std::chrono::seconds{10}) == std::optional<int>{1});
    const std::string admin = "127.0.0.1:" + std::to_string(first.admin_port);
    auto on_admin = second_on(admin, "127.0.0.1:0");
    CHECK(on_admin->ready_line().starts_with("wr: error: cannot listen on " + admin + " for the admin API"));
    CHECK(on_admin->wait_exit(std::chrono::seconds{10}) == std::optional<int>{1});

    // Every visitor still reaches the first one (before, the kernel split them between the two).
    for (int i = 0; i < 20; ++i) {
        httplib::Client visitor("127.0.0.1", first.edge_port);
        const auto reply = visitor.Get("/", {{"Host", "unknown.example"}});
        REQUIRE(reply);
        CHECK(reply->status == 421);
    }
    // Its own port again after a restart: free once the first one stopped.
    first.process.send_signal(SIGTERM);
    REQUIRE(first.process.wait_exit(std::chrono::seconds{10}) == std::optional<int>{0});
    auto restarted = second_on("127.0.0.1:0", edge);
    CHECK(restarted->ready_line().find("edge: listening on http://" + edge) != std::string::npos);
}

TEST_CASE("backup: wr backup under write load is a consistent snapshot that wr restore brings back") {
    wr::test::TempDir data;
    const std::filesystem::path data_dir = data.path() / "data";
    const std::filesystem::path backup = data.path() / "wr-backup.db";
    int created_before_backup = 0;
    int created_in_all = 0;
    {
        ServeProcess wr(data_dir);
        std::atomic<int> created{0};
        std::atomic<bool> writing{true};
        // Zones z0, z1, ... one after another: a consistent snapshot holds a prefix of them.
        std::thread writer([&] {
            httplib::Client admin("127.0.0.1", wr.admin_port);
            for (int i = 0; writing; ++i) {
                const auto reply = admin.Post("/client/v4/zones", {{"Authorization", "Bearer " + wr.token}},
                                              nlohmann::json{{"name", "z" + std::to_string(i) + ".example.com"},
                                                             {"origin", "http://127.0.0.1:1"}}.dump(),
                                              "application/json");
                if (!reply || reply->status != 200) break;
                created = i + 1;
            }
        });
        while (created < 20) std::this_thread::sleep_for(std::chrono::milliseconds{5});
        created_before_backup = created;
        const wr::test::ProcessResult result = wr::test::run_wr({"backup", "--data-dir", data_dir.string(), "--out", backup.string()});
        CHECK_MESSAGE(result.exit_code == 0, result.err);
        CHECK(result.out.find("backed up") != std::string::npos);
        while (created < created_before_backup + 20) std::this_thread::sleep_for(std::chrono::milliseconds{5});
        writing = false;
        writer.join();
        created_in_all = created;

        struct stat info {};
        REQUIRE(::stat(backup.c_str(), &info) == 0);
        CHECK((info.st_mode & 07777) == 0600);
        // The running server refuses to be restored under.
        const wr::test::ProcessResult refused = wr::test::run_wr({"restore", "--data-dir", data_dir.string(), backup.string()});
        CHECK(refused.exit_code == 1);
        CHECK(refused.err.find("in use by another wr") != std::string::npos);
        wr.process.send_signal(SIGTERM);
        REQUIRE(wr.process.wait_exit(std::chrono::seconds{10}) == std::optional<int>{0});
    }
    const wr::test::ProcessResult restored = wr::test::run_wr({"restore", "--data-dir", data_dir.string(), backup.string()});
    REQUIRE_MESSAGE(restored.exit_code == 0, restored.err);

    ServeProcess again(data_dir);
    const wr::test::ProcessResult listed = wr::test::run_wr(
        {"--api", "http://127.0.0.1:" + std::to_string(again.admin_port), "--token", again.token, "-o", "json", "zones", "list"});
    REQUIRE_MESSAGE(listed.exit_code == 0, listed.err);
    std::set<std::string> names;
    for (const auto& zone : nlohmann::json::parse(listed.out)) names.insert(zone["name"].get<std::string>());
    const int kept = static_cast<int>(names.size());
    CHECK(kept >= created_before_backup);
    CHECK(kept < created_in_all);
    for (int i = 0; i < kept; ++i) CHECK_MESSAGE(names.count("z" + std::to_string(i) + ".example.com") == 1, "z" << i << " missing");
}

TEST_CASE("backup: wr restore refuses a backup from a newer schema and a file that is not a database, changing nothing") {
    wr::test::TempDir data;
    const std::filesystem::path data_dir = data.path() / "data";
    const std::filesystem::path backup = data.path() / "wr-backup.db";
    {
        ServeProcess wr(data_dir);
        REQUIRE(wr::test::run_wr({"backup", "--data-dir", data_dir.string(), "--out", backup.string()}).exit_code == 0);
        wr.process.send_signal(SIGTERM);
        REQUIRE(wr.process.wait_exit(std::chrono::seconds{10}) == std::optional<int>{0});
    }
    {
        SQLite::Database future(backup.string(), SQLite::OPEN_READWRITE);
        future.exec("INSERT INTO schema_migrations (version, name, applied_on) VALUES (999, '0999_future.sql', 0)");
    }
    const wr::test::ProcessResult newer = wr::test::run_wr({"restore", "--data-dir", data_dir.string(), backup.string()});
    CHECK(newer.exit_code == 1);
    CHECK(newer.err.find("has schema version 999, newer than this wr knows") != std::string::npos);
    wr::util::write_text_file(data.path() / "junk.db", "not a database at all, just some text that is long enough");
    const wr::test::ProcessResult junk = wr::test::run_wr({"restore", "--data-dir", data_dir.string(), (data.path() / "junk.db").string()});
    CHECK(junk.exit_code == 1);
    CHECK(junk.err.find("is not a wr database") != std::string::npos);
    // The data dir still opens as it was.
    ServeProcess again(data_dir);
    CHECK(again.admin_port > 0);
}

} // TEST_SUITE
