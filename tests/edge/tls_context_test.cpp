// The edge's TLS context: the protocols, suites and groups it accepts, and its session tickets —
// the keys of the hour, derived from the cookie keys, and real in-memory handshakes on virtual
// time: a visitor resumes within the rotation and not after it.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include <openssl/bio.h>
#include <openssl/ocsp.h>
#include <openssl/ssl.h>

#include "edge/ticket_keys.h"
#include "edge/tls_context.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "support/tls_files.h"
#include "util/files.h"

using wr::edge::TicketKeySet;
using wr::util::CookieKey;
using wr::util::KeyRing;

namespace {

CookieKey cookie_key(uint8_t id, uint8_t fill) {
    CookieKey key;
    key.id = id;
    key.key.fill(fill);
    return key;
}

const std::chrono::hours k_hour{1};

// One handshake through a memory BIO pair with a client set up by `configure`; whether it
// completed, and the suite and group it agreed on.
struct Agreed {
    bool completed = false;
    std::string cipher;
    std::string group;
};

// Connects `client` and `server` through a memory BIO pair (no sockets) and runs both sides'
// handshakes in turn; true when both completed.
bool handshake_in_memory(SSL* client, SSL* server) {
    BIO* client_end = nullptr;
    BIO* server_end = nullptr;
    REQUIRE(BIO_new_bio_pair(&client_end, 0, &server_end, 0) == 1);
    SSL_set_bio(client, client_end, client_end);
    SSL_set_bio(server, server_end, server_end);
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
    bool client_done = false, server_done = false, failed = false;
    for (int round = 0; round < 20 && !(client_done && server_done) && !failed; ++round) {
        const int c = client_done ? 1 : SSL_do_handshake(client);
        const int s = server_done ? 1 : SSL_do_handshake(server);
        client_done = c == 1;
        server_done = s == 1;
        failed = (c <= 0 && SSL_get_error(client, c) == SSL_ERROR_SSL) || (s <= 0 && SSL_get_error(server, s) == SSL_ERROR_SSL);
    }
    return client_done && server_done;
}

Agreed handshake(wr::asio::ssl::context& server_context, const std::function<void(SSL_CTX*)>& configure) {
    SSL_CTX* client_context = SSL_CTX_new(TLS_client_method());
    configure(client_context);
    SSL* client = SSL_new(client_context);
    SSL* server = SSL_new(server_context.native_handle());
    Agreed agreed;
    agreed.completed = handshake_in_memory(client, server);
    if (agreed.completed) {
        agreed.cipher = SSL_get_cipher_name(client);
        const char* group = SSL_group_to_name(client, SSL_get_negotiated_group(client));
        agreed.group = group ? group : "";
    }
    SSL_free(client);
    SSL_free(server);
    SSL_CTX_free(client_context);
    return agreed;
}

// A client that keeps its session between handshakes, against one server context, with
// OpenSSL's client cache on as wrk's and curl's is. `Tickets::reused`: it offers the session of
// its last handshake (OpenSSL then offers a TLS 1.3 session once only: after a resumption, only
// a new ticket resumes again). `Tickets::once`: it offers only a ticket its last handshake
// brought, each once, as browsers do (RFC 8446, appendix C.4).
class Visitor {
public:
    enum class Tickets { reused, once };
    explicit Visitor(int max_version = 0, Tickets tickets = Tickets::reused)
        : m_context(SSL_CTX_new(TLS_client_method())), m_tickets(tickets) {
        if (max_version) SSL_CTX_set_max_proto_version(m_context, max_version);
        // Told of every ticket a handshake brings (OpenSSL calls this only with a client cache).
        SSL_CTX_set_session_cache_mode(m_context, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_set_app_data(m_context, this);
        SSL_CTX_sess_set_new_cb(m_context, [](SSL* ssl, SSL_SESSION* session) {
            auto* self = static_cast<Visitor*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
            SSL_SESSION_free(self->m_brought);
            self->m_brought = session;
            return 1; // kept
        });
    }
    ~Visitor() {
        SSL_SESSION_free(m_session);
        SSL_SESSION_free(m_brought);
        SSL_CTX_free(m_context);
    }
    Visitor(const Visitor&) = delete;
    Visitor& operator=(const Visitor&) = delete;

    // One handshake (offering the session from the last one); true when it resumed.
    bool resumes_at(wr::asio::ssl::context& server_context) {
        SSL* client = SSL_new(m_context);
        SSL* server = SSL_new(server_context.native_handle());
        if (m_session) SSL_set_session(client, m_session);
        REQUIRE(handshake_in_memory(client, server));
        // TLS 1.3 tickets come after the handshake: a read takes them in.
        char byte = 0;
        CHECK(SSL_read(client, &byte, 1) <= 0);
        const bool resumed = SSL_session_reused(client) == 1;
        // A clean close (close_notify): OpenSSL does not offer a session again that ended without one.
        SSL_shutdown(client);
        SSL_SESSION_free(m_session);
        if (m_tickets == Tickets::reused) {
            m_session = SSL_get1_session(client);
        } else {
            m_session = m_brought; // nothing if this handshake brought no ticket
            m_brought = nullptr;
        }
        SSL_free(client);
        SSL_free(server);
        return resumed;
    }

private:
    SSL_CTX* m_context;
    Tickets m_tickets;
    SSL_SESSION* m_session = nullptr;
    SSL_SESSION* m_brought = nullptr; // the newest ticket the current handshake brought
};

struct TlsEdge {
    TlsEdge() : files(wr::test::write_self_signed_certificate(dir.path())) {}
    std::shared_ptr<wr::asio::ssl::context> context(wr::edge::SessionTickets& tickets, const std::string& ocsp = "") const {
        return wr::edge::load_tls_context(files.certificate.string(), files.private_key.string(), ocsp, tickets);
    }
    wr::test::TempDir dir;
    wr::test::TlsFiles files;
};

void publish(wr::edge::ConfigSource& config, std::vector<CookieKey> keys) {
    config.publish(std::make_shared<const wr::edge::EdgeConfig>(), std::make_shared<const KeyRing>(std::move(keys)));
}

} // namespace

TEST_CASE("edge: ticket keys are the hour's, open the hour before and after, and not two hours away") {
    const KeyRing ring({cookie_key(1, 0x11)});
    const TicketKeySet now = wr::edge::derive_ticket_keys(ring, wr::test::k_test_start);
    CHECK(now.find(now.sealing.name.data()) != nullptr);
    CHECK(now.sealing.cipher != now.sealing.mac);
    // Derived again (another edge, a restart): the same keys.
    // Derived again later in the hour (another edge, a restart): the same keys. The test clock starts on the hour.
    CHECK(wr::edge::derive_ticket_keys(ring, wr::test::k_test_start + std::chrono::minutes{59}).sealing.name == now.sealing.name);
    const TicketKeySet next = wr::edge::derive_ticket_keys(ring, wr::test::k_test_start + k_hour);
    CHECK(next.sealing.name != now.sealing.name);
    CHECK(next.sealing.cipher != now.sealing.cipher);
    CHECK(next.find(now.sealing.name.data()) != nullptr); // an hour-old ticket still opens
    CHECK(now.find(next.sealing.name.data()) != nullptr); // an edge a little ahead
    const TicketKeySet later = wr::edge::derive_ticket_keys(ring, wr::test::k_test_start + 2 * k_hour);
    CHECK(later.find(now.sealing.name.data()) == nullptr); // rotated out
    const TicketKeySet earlier = wr::edge::derive_ticket_keys(ring, wr::test::k_test_start - 2 * k_hour);
    CHECK(earlier.find(now.sealing.name.data()) == nullptr);
    // Another cluster's cookie key: nothing in common.
    const TicketKeySet other = wr::edge::derive_ticket_keys(KeyRing({cookie_key(1, 0x22)}), wr::test::k_test_start);
    CHECK(other.find(now.sealing.name.data()) == nullptr);
    CHECK(other.sealing.cipher != now.sealing.cipher);
}

TEST_CASE("edge: after `wr keys rotate` tickets seal under the new cookie key and the old key's still open") {
    const KeyRing before({cookie_key(1, 0x11)});
    const KeyRing after({cookie_key(1, 0x11), cookie_key(2, 0x33)});
    const TicketKeySet old_keys = wr::edge::derive_ticket_keys(before, wr::test::k_test_start);
    const TicketKeySet new_keys = wr::edge::derive_ticket_keys(after, wr::test::k_test_start);
    CHECK(new_keys.sealing.name != old_keys.sealing.name);
    CHECK(new_keys.find(old_keys.sealing.name.data()) != nullptr);
    CHECK_FALSE(new_keys.is_sealing(*new_keys.find(old_keys.sealing.name.data())));
    // Dropped from the ring: its tickets no longer open.
    const TicketKeySet dropped = wr::edge::derive_ticket_keys(KeyRing({cookie_key(2, 0x33)}), wr::test::k_test_start);
    CHECK(dropped.find(old_keys.sealing.name.data()) == nullptr);
}

TEST_CASE("edge: the hour is counted from the epoch, before it too") {
    using wr::util::TimePoint;
    CHECK(wr::edge::ticket_key_period(TimePoint{}) == 0);
    CHECK(wr::edge::ticket_key_period(TimePoint{std::chrono::milliseconds{3'599'999}}) == 0);
    CHECK(wr::edge::ticket_key_period(TimePoint{std::chrono::milliseconds{3'600'000}}) == 1);
    CHECK(wr::edge::ticket_key_period(TimePoint{std::chrono::milliseconds{-1}}) == -1);
}

namespace {

void check_resumption(int version) {
    wr::util::FakeClock clock(wr::test::k_test_start);
    wr::edge::ConfigSource config;
    wr::edge::SessionTickets tickets(config, clock);
    const TlsEdge edge;
    auto context = edge.context(tickets);
    Visitor visitor(version);

    SUBCASE("no configuration yet: no tickets, no resumption, every handshake still completes") {
        CHECK_FALSE(visitor.resumes_at(*context));
        CHECK_FALSE(visitor.resumes_at(*context));
    }
    SUBCASE("the hour's key, then the hour after, then two hours on") {
        publish(config, {cookie_key(1, 0x11)});
        CHECK_FALSE(visitor.resumes_at(*context)); // the first visit: a full handshake
        CHECK(visitor.resumes_at(*context));
        clock.advance(k_hour);
        CHECK(visitor.resumes_at(*context)); // its ticket was renewed under this hour's key
        clock.advance(2 * k_hour);
        CHECK_FALSE(visitor.resumes_at(*context)); // rotated out
        CHECK(visitor.resumes_at(*context));        // and the new ticket works
    }
    SUBCASE("a configuration change that keeps the cookie keys keeps the sessions; another cluster's keys do not open them") {
        publish(config, {cookie_key(1, 0x11)});
        CHECK_FALSE(visitor.resumes_at(*context));
        publish(config, {cookie_key(1, 0x11)});
        CHECK(visitor.resumes_at(*context));
        publish(config, {cookie_key(1, 0x22)});
        CHECK_FALSE(visitor.resumes_at(*context));
    }
    SUBCASE("a certificate reload: a new context, the same tickets") {
        publish(config, {cookie_key(1, 0x11)});
        CHECK_FALSE(visitor.resumes_at(*context));
        auto reloaded = edge.context(tickets);
        CHECK(visitor.resumes_at(*reloaded));
    }
}

} // namespace

TEST_CASE("edge: a TLS 1.3 visitor resumes its session within the rotation and not once the key rotated out") {
    check_resumption(TLS1_3_VERSION);
}

TEST_CASE("edge: a TLS 1.2 visitor resumes its session within the rotation and not once the key rotated out") {
    check_resumption(TLS1_2_VERSION);
}

TEST_CASE("edge: a TLS 1.3 visitor that uses each ticket once, as browsers do, resumes every visit after the first") {
    wr::util::FakeClock clock(wr::test::k_test_start);
    wr::edge::ConfigSource config;
    wr::edge::SessionTickets tickets(config, clock);
    const TlsEdge edge;
    auto context = edge.context(tickets);
    publish(config, {cookie_key(1, 0x11)});
    Visitor visitor(TLS1_3_VERSION, Visitor::Tickets::once);
    CHECK_FALSE(visitor.resumes_at(*context));
    // Each resumption hands the visitor a ticket for the next (without one, every other visit
    // was a full handshake).
    for (int visit = 2; visit <= 5; ++visit) {
        CAPTURE(visit);
        CHECK(visitor.resumes_at(*context));
    }
}

TEST_CASE("edge: TLS 1.2 and 1.3 only, forward-secret AEAD suites in the server's order, X25519 or the NIST curves") {
    wr::util::FakeClock clock(wr::test::k_test_start);
    wr::edge::ConfigSource config;
    wr::edge::SessionTickets tickets(config, clock);
    const TlsEdge edge;
    auto context = edge.context(tickets);
    // A client willing to speak anything, even what the system's OpenSSL policy would refuse.
    const auto permissive = [](SSL_CTX* client, int version, const char* ciphers) {
        SSL_CTX_set_security_level(client, 0);
        SSL_CTX_set_min_proto_version(client, version);
        SSL_CTX_set_max_proto_version(client, version);
        if (ciphers) SSL_CTX_set_cipher_list(client, ciphers);
    };
    SUBCASE("TLS 1.0 and 1.1 are refused") {
        // Debian's system-wide OpenSSL policy refuses them too; the edge must not rely on it.
        CHECK(SSL_CTX_get_min_proto_version(context->native_handle()) == TLS1_2_VERSION);
        CHECK_FALSE(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_VERSION, "ALL:@SECLEVEL=0"); }).completed);
        CHECK_FALSE(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_1_VERSION, "ALL:@SECLEVEL=0"); }).completed);
        CHECK(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_2_VERSION, nullptr); }).completed);
        CHECK(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_3_VERSION, nullptr); }).completed);
    }
    SUBCASE("TLS 1.2 suites without forward secrecy or without AEAD are refused") {
        CHECK_FALSE(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0"); }).completed);
        CHECK_FALSE(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-SHA256:@SECLEVEL=0"); }).completed);
        CHECK_FALSE(handshake(*context, [&](SSL_CTX* c) { permissive(c, TLS1_2_VERSION, "ECDHE-ECDSA-AES128-CCM:@SECLEVEL=0"); }).completed);
    }
    SUBCASE("the server's order of suites wins") {
        const Agreed agreed = handshake(*context, [&](SSL_CTX* c) {
            permissive(c, TLS1_2_VERSION, "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256");
        });
        CHECK(agreed.cipher == "ECDHE-ECDSA-AES128-GCM-SHA256");
        const Agreed tls13 = handshake(*context, [&](SSL_CTX* c) {
            permissive(c, TLS1_3_VERSION, nullptr);
            SSL_CTX_set_ciphersuites(c, "TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256");
        });
        CHECK(tls13.cipher == "TLS_AES_128_GCM_SHA256");
    }
    SUBCASE("groups: X25519, P-256 and P-384; nothing else") {
        for (const std::string group : {"X25519", "P-256", "P-384"}) {
            CAPTURE(group);
            const Agreed agreed = handshake(*context, [&](SSL_CTX* c) { SSL_CTX_set1_groups_list(c, group.c_str()); });
            CHECK(agreed.completed);
        }
        CHECK(handshake(*context, [&](SSL_CTX* c) { SSL_CTX_set1_groups_list(c, "X25519:P-256"); }).group == "x25519");
        for (const std::string group : {"P-521", "X448", "ffdhe2048"}) {
            CAPTURE(group);
            CHECK_FALSE(handshake(*context, [&](SSL_CTX* c) { SSL_CTX_set1_groups_list(c, group.c_str()); }).completed);
        }
    }
}

namespace {

// What the server stapled, as the client saw it ("" for nothing).
int capture_staple(SSL* ssl, void* seen) {
    const unsigned char* response = nullptr;
    const long size = SSL_get_tlsext_status_ocsp_resp(ssl, &response);
    *static_cast<std::string*>(seen) = size > 0 && response ? std::string(reinterpret_cast<const char*>(response), static_cast<size_t>(size)) : "";
    return 1;
}

} // namespace

TEST_CASE("edge: --tls-ocsp staples its response to the handshakes that ask, and a file that is not one is refused by name") {
    wr::util::FakeClock clock(wr::test::k_test_start);
    wr::edge::ConfigSource config;
    wr::edge::SessionTickets tickets(config, clock);
    const TlsEdge edge;
    // A well-formed response (a responder's "try later": wr checks the form, the client the content).
    OCSP_RESPONSE* response = OCSP_response_create(OCSP_RESPONSE_STATUS_TRYLATER, nullptr);
    unsigned char* der = nullptr;
    const int size = i2d_OCSP_RESPONSE(response, &der);
    REQUIRE(size > 0);
    const std::string staple(reinterpret_cast<const char*>(der), static_cast<size_t>(size));
    OPENSSL_free(der);
    OCSP_RESPONSE_free(response);
    const std::filesystem::path file = edge.dir.path() / "ocsp.der";
    wr::util::write_secret_file(file, staple);

    std::string seen = "not called";
    const auto asking = [&](SSL_CTX* client) {
        SSL_CTX_set_tlsext_status_type(client, TLSEXT_STATUSTYPE_ocsp);
        SSL_CTX_set_tlsext_status_cb(client, capture_staple);
        SSL_CTX_set_tlsext_status_arg(client, &seen);
    };
    SUBCASE("stapled") {
        auto context = edge.context(tickets, file.string());
        CHECK(handshake(*context, asking).completed);
        CHECK(seen == staple);
    }
    SUBCASE("without the flag, nothing") {
        auto context = edge.context(tickets);
        CHECK(handshake(*context, asking).completed);
        CHECK(seen.empty());
    }
    SUBCASE("not an OCSP response") {
        wr::util::write_secret_file(file, "-----BEGIN CERTIFICATE-----\n");
        const std::string expected = "--tls-ocsp: " + file.string() + " is not a DER-encoded OCSP response";
        CHECK_THROWS_WITH(edge.context(tickets, file.string()), doctest::Contains(expected.c_str()));
    }
}
