// TLS session resumption on the edge with real clients: a returning visitor resumes on one edge
// (TLS 1.3 and 1.2), until its ticket's key rotates out (on the test's clock); across a
// certificate reload (SIGHUP); and on another edge of the same cluster.
#include <doctest/doctest.h>

#include <csignal>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <string>
#include <vector>

#include "support/eventually.h"
#include "support/fleet_nodes.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/tls_files.h"
#include "support/tls_visit.h"

using namespace std::chrono_literals;
using wr::test::TlsSession;
using wr::test::TlsVisit;
using wr::test::tls_visit;

namespace {

const std::string k_host = "shop.example.com";

std::vector<std::string> tls_flags(const wr::test::TlsFiles& tls) {
    return {"--tls-cert", tls.certificate.string(), "--tls-key", tls.private_key.string()};
}

// A first visit whose session the same edge then resumes: the edge has its configuration (the
// ticket keys come from it). The session is kept in `session`.
bool resumable_session(int port, TlsSession& session) {
    return wr::test::eventually([&] {
        tls_visit(port, k_host, nullptr, &session);
        return tls_visit(port, k_host, &session, nullptr).resumed;
    });
}

// The certificate in a PEM file, DER-encoded, and the one a fresh connection to the port shows.
std::string certificate_in(const std::filesystem::path& file) {
    FILE* in = std::fopen(file.c_str(), "r");
    X509* certificate = in ? PEM_read_X509(in, nullptr, nullptr, nullptr) : nullptr;
    if (in) std::fclose(in);
    unsigned char* der = nullptr;
    const int size = certificate ? i2d_X509(certificate, &der) : 0;
    std::string bytes(reinterpret_cast<char*>(der), static_cast<size_t>(std::max(size, 0)));
    OPENSSL_free(der);
    X509_free(certificate);
    return bytes;
}
std::string certificate_shown(int port) {
    wr::test::TlsSession fresh;
    const TlsVisit visit = tls_visit(port, k_host, nullptr, &fresh);
    X509* certificate = fresh.empty() ? nullptr : SSL_SESSION_get0_peer(fresh.get());
    unsigned char* der = nullptr;
    const int size = certificate ? i2d_X509(certificate, &der) : 0;
    std::string bytes(reinterpret_cast<char*>(der), static_cast<size_t>(std::max(size, 0)));
    OPENSSL_free(der);
    return visit.completed ? bytes : std::string{};
}

} // namespace

TEST_SUITE("integration") {

TEST_CASE("tls: a returning visitor resumes its TLS session, 1.3 and 1.2, until the ticket's key rotates out") {
    wr::test::TempDir certificates;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(certificates.path());
    wr::test::TestServer wr({}, [&](wr::AppOptions& options) {
        options.tls_certificate = tls.certificate.string();
        options.tls_private_key = tls.private_key.string();
    });
    wr.sync_edge();
    for (const int version : {TLS1_3_VERSION, TLS1_2_VERSION}) {
        CAPTURE(version);
        TlsSession session;
        const TlsVisit first = tls_visit(wr.edge_port(), k_host, nullptr, &session, version);
        REQUIRE(first.completed);
        CHECK_FALSE(first.resumed);
        const TlsVisit again = tls_visit(wr.edge_port(), k_host, &session, &session, version);
        CHECK(again.completed);
        CHECK(again.resumed);
    }
    TlsSession session;
    REQUIRE(tls_visit(wr.edge_port(), k_host, nullptr, &session).completed);
    wr.clock().advance(2h); // the hour after the ticket's still opens it (unit tests); two do not
    const TlsVisit later = tls_visit(wr.edge_port(), k_host, &session, &session);
    CHECK(later.completed);
    CHECK_FALSE(later.resumed);
    CHECK(tls_visit(wr.edge_port(), k_host, &session, nullptr).resumed); // with the fresh ticket
}

TEST_CASE("tls: sessions resume across a certificate reload (SIGHUP), and HTTP/2 is still chosen") {
    wr::test::TempDir dir;
    std::filesystem::create_directories(dir.path() / "served");
    std::filesystem::create_directories(dir.path() / "renewed");
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(dir.path() / "served");
    std::vector<std::string> arguments{WR_BINARY,     "serve",         "--data-dir",    (dir.path() / "data").string(),
                                       "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0", "--edge-threads", "2"};
    for (const std::string& flag : tls_flags(tls)) arguments.push_back(flag);
    wr::test::BackgroundProcess wr(arguments, "API listening on", true);
    const int port = wr::test::port_after(wr.output(), "edge: listening on");
    TlsSession session;
    REQUIRE(resumable_session(port, session));

    const wr::test::TlsFiles renewed = wr::test::write_self_signed_certificate(dir.path() / "renewed");
    std::filesystem::rename(renewed.private_key, tls.private_key);
    std::filesystem::rename(renewed.certificate, tls.certificate);
    wr.send_signal(SIGHUP);
    const std::string renewed_certificate = certificate_in(tls.certificate);
    REQUIRE(wr::test::eventually([&] { return certificate_shown(port) == renewed_certificate; }));
    const TlsVisit after = tls_visit(port, k_host, &session, nullptr);
    CHECK(after.completed);
    CHECK(after.resumed);
    CHECK(wr::test::tls_alpn(port) == "h2"); // the reloaded context offers both protocols still
    wr.send_signal(SIGTERM);
    CHECK(wr.wait_exit(10s) == std::optional<int>{0});
}

TEST_CASE("tls: visitors that reset their connections, mid-answer or between requests, leave the edge serving") {
    // The edge's TLS writes to the socket itself: a write to a connection the visitor reset must
    // fail that connection alone, not raise SIGPIPE, which ends a process.
    wr::test::TempDir dir;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(dir.path());
    std::vector<std::string> arguments{WR_BINARY,     "serve",         "--data-dir",    (dir.path() / "data").string(),
                                       "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0", "--edge-threads", "1"};
    for (const std::string& flag : tls_flags(tls)) arguments.push_back(flag);
    wr::test::BackgroundProcess wr(arguments, "API listening on", true);
    const int port = wr::test::port_after(wr.output(), "edge: listening on");
    for (const bool while_answering : {true, false}) {
        CAPTURE(while_answering);
        for (int i = 0; i < 3; ++i) REQUIRE(wr::test::tls_abandon(port, k_host, while_answering));
    }
    CHECK(wr::test::eventually([&] { return tls_visit(port, k_host, nullptr, nullptr).completed; }));
    wr.send_signal(SIGTERM);
    CHECK(wr.wait_exit(10s) == std::optional<int>{0});
}

TEST_CASE("tls: a visitor moving to another edge of the cluster resumes there; another cluster's edge does not") {
    wr::test::TempDir dir;
    const wr::test::TlsFiles tls = wr::test::write_self_signed_certificate(dir.path());
    wr::test::ControlNode control(dir.path() / "control");
    const std::string token = control.api("POST", "/client/v4/tokens", {{"name", "edges"}, {"scope", "edge"}})["token"];
    std::vector<std::string> flags{"--edge-threads", "1", "--state", "memory"};
    for (const std::string& flag : tls_flags(tls)) flags.push_back(flag);
    wr::test::EdgeNode first(dir.path() / "edge-1", "edge-1", control.url(), token, flags);
    wr::test::EdgeNode second(dir.path() / "edge-2", "edge-2", control.url(), token, flags);
    TlsSession session;
    REQUIRE(resumable_session(first.edge_port, session));
    // The same session, offered each time (a failed attempt's new session is not kept).
    CHECK(wr::test::eventually([&] { return tls_visit(second.edge_port, k_host, &session, nullptr).resumed; }));

    // A single node of its own, with the same certificate: its cookie keys, hence its ticket keys, differ.
    std::vector<std::string> arguments{WR_BINARY,     "serve",         "--data-dir",    (dir.path() / "alone").string(),
                                       "--admin-listen", "127.0.0.1:0", "--edge-listen", "127.0.0.1:0", "--edge-threads", "1"};
    for (const std::string& flag : tls_flags(tls)) arguments.push_back(flag);
    wr::test::BackgroundProcess alone(arguments, "API listening on", true);
    const int alone_port = wr::test::port_after(alone.output(), "edge: listening on");
    TlsSession own;
    REQUIRE(resumable_session(alone_port, own));
    const TlsVisit elsewhere = tls_visit(alone_port, k_host, &session, nullptr);
    CHECK(elsewhere.completed);
    CHECK_FALSE(elsewhere.resumed);
}

} // TEST_SUITE
