// ALPN selection for the TLS edge.
#include "edge/alpn.h"

namespace wr::edge {
namespace {

constexpr std::string_view k_h2 = "h2";
constexpr std::string_view k_http1 = "http/1.1";

// Finds `name` in an ALPN list; the pointer to its length byte, or nullptr.
const unsigned char* find_protocol(std::string_view list, std::string_view name) {
    size_t at = 0;
    while (at < list.size()) {
        const size_t size = static_cast<unsigned char>(list[at]);
        if (size == 0 || at + 1 + size > list.size()) return nullptr; // malformed: nothing in it counts
        if (list.substr(at + 1, size) == name) return reinterpret_cast<const unsigned char*>(list.data() + at);
        at += 1 + size;
    }
    return nullptr;
}

int select_protocol(SSL*, const unsigned char** out, unsigned char* out_size, const unsigned char* in, unsigned int in_size, void*) {
    const std::string_view list(reinterpret_cast<const char*>(in), in_size);
    for (const std::string_view name : {k_h2, k_http1}) {
        if (const unsigned char* found = find_protocol(list, name)) {
            *out = found + 1;
            *out_size = *found;
            return SSL_TLSEXT_ERR_OK;
        }
    }
    // Nothing we speak by name: go on without ALPN, as HTTP/1.1.
    return SSL_TLSEXT_ERR_NOACK;
}

} // namespace

AlpnProtocol choose_alpn(std::string_view client_list, bool& found) {
    found = true;
    if (find_protocol(client_list, k_h2)) return AlpnProtocol::h2;
    if (find_protocol(client_list, k_http1)) return AlpnProtocol::http1;
    found = false;
    return AlpnProtocol::http1;
}

void offer_alpn(SSL_CTX* context) { SSL_CTX_set_alpn_select_cb(context, select_protocol, nullptr); }

AlpnProtocol negotiated_alpn(const SSL* ssl) {
    const unsigned char* name = nullptr;
    unsigned int size = 0;
    SSL_get0_alpn_selected(ssl, &name, &size);
    return std::string_view(reinterpret_cast<const char*>(name), name ? size : 0) == k_h2 ? AlpnProtocol::h2 : AlpnProtocol::http1;
}

} // namespace wr::edge
