#pragma once
// ALPN on the TLS edge: the protocol each visitor connection speaks, chosen during the handshake.
// wr offers "h2" first and "http/1.1" after it; a client that names neither (or no ALPN at all)
// gets HTTP/1.1, as before ALPN.
#include <string_view>

#include <openssl/ssl.h>

namespace wr::edge {

enum class AlpnProtocol { http1, h2 };

// The selection, for tests and the callback: the first of h2, http/1.1 the client lists (in
// ALPN's wire format: length-prefixed names), or nothing (http1 with `found` false).
AlpnProtocol choose_alpn(std::string_view client_list, bool& found);

// Installs the selection callback on a server context.
void offer_alpn(SSL_CTX* context);

// What the handshake on `ssl` settled on.
AlpnProtocol negotiated_alpn(const SSL* ssl);

} // namespace wr::edge
