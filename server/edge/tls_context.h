#pragma once
// The edge's TLS context: the certificate, the protocol and cipher set every visitor connection
// starts from, and the session tickets that let a returning visitor skip the full handshake.
// A certificate reload makes a new context with the same SessionTickets, so visitors resume
// across it.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "edge/config_source.h"
#include "edge/ticket_keys.h"
#include "net/asio.h"
#include "util/clock.h"

namespace wr::edge {

// TLS 1.2 suites offered (TLS 1.3's are OpenSSL's three, AES-128-GCM first): forward secret,
// authenticated encryption only, ECDSA and RSA certificates alike.
inline constexpr const char* k_tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
inline constexpr const char* k_tls13_ciphers = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
inline constexpr const char* k_tls_groups = "X25519:P-256:P-384";

// The ticket keys of the hour, derived from the cookie keys the configuration carries. Read
// during handshakes on every edge thread: the lock is held only to compare and copy a pointer,
// and the keys are derived again only when the hour or the configuration changes.
class SessionTickets {
public:
    SessionTickets(const ConfigSource& config, const util::Clock& clock) : m_config(config), m_clock(clock) {}

    // nullptr until the first configuration (with its cookie keys) arrives: no tickets until then.
    std::shared_ptr<const TicketKeySet> keys();

private:
    const ConfigSource& m_config;
    const util::Clock& m_clock;
    std::mutex m_mutex;
    uint64_t m_version = 0; // the configuration version m_keys was checked against
    std::shared_ptr<const util::KeyRing> m_ring;
    std::shared_ptr<const TicketKeySet> m_keys;
};

// A server context for the certificate chain and key in these PEM files, stapling the DER OCSP
// response in `ocsp` (none when empty) to the handshakes of clients that ask for one; tickets
// (which must outlive the context) seals and opens its session tickets. Throws, naming the file,
// when one does not load.
std::shared_ptr<asio::ssl::context> load_tls_context(const std::string& certificate, const std::string& private_key,
                                                     const std::string& ocsp, SessionTickets& tickets);

} // namespace wr::edge
