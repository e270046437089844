// The TLS defaults and the session ticket callback of the edge's context.
#include "edge/tls_context.h"

#include <cstring>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/ocsp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <stdexcept>
#include <vector>

#include "util/files.h"

namespace wr::edge {
namespace {

// Where a context keeps its SessionTickets for the callback.
int tickets_index() {
    static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

// Fetched once: OpenSSL 3 looks a cipher named by EVP_aes_256_cbc() up again at every use, a
// cost paid on each ticket sealed or opened. Kept for the life of the process.
const EVP_CIPHER* ticket_cipher() {
    static EVP_CIPHER* const cipher = EVP_CIPHER_fetch(nullptr, "AES-256-CBC", nullptr);
    return cipher;
}

// OpenSSL asks this to seal a new ticket (sealing = 1) or to open one a client sent. Returns 1 (done),
// 2 (opened: send a fresh ticket), 0 (no ticket issued / not opened: full handshake) or -1
// (fatal). A fresh ticket goes with every TLS 1.3 resumption, since clients offer a TLS 1.3
// ticket once (RFC 8446, appendix C.4): without one, their next connection is a full handshake.
// A TLS 1.2 ticket is offered again, and replaced only once its key is the hour before's.
int ticket_callback(SSL* ssl, unsigned char* name, unsigned char* iv, EVP_CIPHER_CTX* cipher, EVP_MAC_CTX* mac, int sealing) {
    auto* tickets = static_cast<SessionTickets*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), tickets_index()));
    const std::shared_ptr<const TicketKeySet> keys = tickets ? tickets->keys() : nullptr;
    if (!keys || !ticket_cipher()) return 0;
    const TicketKey* key = nullptr;
    if (sealing) {
        key = &keys->sealing;
        std::memcpy(name, key->name.data(), key->name.size());
        if (RAND_bytes(iv, EVP_CIPHER_get_iv_length(ticket_cipher())) != 1) return -1;
        if (EVP_EncryptInit_ex(cipher, ticket_cipher(), nullptr, key->cipher.data(), iv) != 1) return -1;
    } else {
        key = keys->find(name);
        if (!key) return 0; // sealed under a key rotated out, or by someone else
        if (EVP_DecryptInit_ex(cipher, ticket_cipher(), nullptr, key->cipher.data(), iv) != 1) return 0;
    }
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, const_cast<uint8_t*>(key->mac.data()), key->mac.size()),
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
    if (EVP_MAC_CTX_set_params(mac, params) != 1) return sealing ? -1 : 0;
    if (sealing) return 1;
    return keys->is_sealing(*key) && SSL_version(ssl) != TLS1_3_VERSION ? 1 : 2;
}

// A context and the OCSP response it staples, which must live as long as it does.
struct StaplingContext {
    asio::ssl::context context{asio::ssl::context::tls_server};
    std::vector<unsigned char> staple;
};

int staple_index() {
    static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

// OpenSSL asks this during a handshake whose client asked for the certificate's status: hand it
// a copy of the response (OpenSSL frees it).
int staple_callback(SSL* ssl, void*) {
    const auto* staple = static_cast<const std::vector<unsigned char>*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), staple_index()));
    if (!staple || staple->empty()) return SSL_TLSEXT_ERR_NOACK;
    auto* copy = static_cast<unsigned char*>(OPENSSL_memdup(staple->data(), staple->size()));
    if (!copy) return SSL_TLSEXT_ERR_NOACK;
    if (SSL_set_tlsext_status_ocsp_resp(ssl, copy, static_cast<long>(staple->size())) != 1) {
        OPENSSL_free(copy);
        return SSL_TLSEXT_ERR_NOACK;
    }
    return SSL_TLSEXT_ERR_OK;
}

// Reads and checks the file: a DER OCSP response, or a clear error naming it.
std::vector<unsigned char> read_staple(const std::string& path) {
    const std::optional<std::string> text = util::read_text_file(path);
    if (!text) throw std::runtime_error("--tls-ocsp: cannot read " + path);
    std::vector<unsigned char> der(text->begin(), text->end());
    const unsigned char* cursor = der.data();
    OCSP_RESPONSE* response = d2i_OCSP_RESPONSE(nullptr, &cursor, static_cast<long>(der.size()));
    const bool whole = response && cursor == der.data() + der.size();
    OCSP_RESPONSE_free(response);
    if (!whole) throw std::runtime_error("--tls-ocsp: " + path + " is not a DER-encoded OCSP response (openssl ocsp -respout writes one)");
    return der;
}

void require(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("cannot set up the edge's TLS: " + what);
}

} // namespace

std::shared_ptr<const TicketKeySet> SessionTickets::keys() {
    const int64_t period = ticket_key_period(m_clock.now());
    const uint64_t version = m_config.version();
    std::lock_guard lock(m_mutex);
    if (m_keys && m_keys->period == period && m_version == version) return m_keys;
    const Snapshot snapshot = m_config.snapshot();
    if (!snapshot.keys) return nullptr;
    // A configuration change that kept the cookie keys keeps the ticket keys.
    if (!m_keys || m_ring != snapshot.keys || m_keys->period != period) {
        m_keys = std::make_shared<const TicketKeySet>(derive_ticket_keys(*snapshot.keys, m_clock.now()));
        m_ring = snapshot.keys;
    }
    m_version = snapshot.version;
    return m_keys;
}

std::shared_ptr<asio::ssl::context> load_tls_context(const std::string& certificate, const std::string& private_key,
                                                     const std::string& ocsp, SessionTickets& tickets) {
    auto owner = std::make_shared<StaplingContext>();
    if (!ocsp.empty()) owner->staple = read_staple(ocsp);
    std::shared_ptr<asio::ssl::context> context(owner, &owner->context);
    SSL_CTX* handle = context->native_handle();
    // TLS 1.2 and 1.3 only; no compression (CRIME), no renegotiation (a client could make the
    // server redo handshakes on one connection); the server's order of suites, not the client's.
    require(SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION) == 1, "TLS 1.2 as the minimum");
    SSL_CTX_set_options(handle, SSL_OP_ALL | SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    require(SSL_CTX_set_cipher_list(handle, k_tls12_ciphers) == 1, "the TLS 1.2 cipher list");
    require(SSL_CTX_set_ciphersuites(handle, k_tls13_ciphers) == 1, "the TLS 1.3 cipher suites");
    require(SSL_CTX_set1_groups_list(handle, k_tls_groups) == 1, "the key exchange groups");
    // Resumption by tickets only: the keys travel with the configuration, so every edge of a
    // cluster and every reload opens them; a session cache would be this context's alone.
    SSL_CTX_set_session_cache_mode(handle, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_timeout(handle, static_cast<long>(k_ticket_key_period.count()));
    require(SSL_CTX_set_ex_data(handle, tickets_index(), &tickets) == 1, "the session tickets");
    require(SSL_CTX_set_tlsext_ticket_key_evp_cb(handle, ticket_callback) == 1, "the session ticket callback");
    if (!owner->staple.empty()) {
        require(SSL_CTX_set_ex_data(handle, staple_index(), &owner->staple) == 1, "the OCSP staple");
        require(SSL_CTX_set_tlsext_status_cb(handle, staple_callback) == 1, "the OCSP staple callback");
    }
    try {
        context->use_certificate_chain_file(certificate);
        context->use_private_key_file(private_key, asio::ssl::context::pem);
    } catch (const std::exception& error) {
        throw std::runtime_error("cannot load the edge TLS certificate or key: " + std::string(error.what()));
    }
    return context;
}

} // namespace wr::edge
