#pragma once
// One HTTPS request on a fresh TLS connection, as a returning browser makes it: it offers the
// session it kept from an earlier connection, and tells whether the server resumed it.
#include <openssl/ssl.h>
#include <string>

namespace wr::test {

// A TLS session a client keeps between connections (owned).
class TlsSession {
public:
    TlsSession() = default;
    ~TlsSession() { SSL_SESSION_free(m_session); }
    TlsSession(const TlsSession&) = delete;
    TlsSession& operator=(const TlsSession&) = delete;
    bool empty() const { return m_session == nullptr; }
    SSL_SESSION* get() const { return m_session; }
    void reset(SSL_SESSION* session) {
        SSL_SESSION_free(m_session);
        m_session = session;
    }

private:
    SSL_SESSION* m_session = nullptr;
};

// A blocking socket connected to 127.0.0.1:port, reads given up after 5 s; -1 if it cannot connect.
int connect_loopback(int port);

struct TlsVisit {
    bool completed = false; // the handshake and an answer's status line
    bool resumed = false;
    std::string status_line;
};

// GET / with `host` to 127.0.0.1:port (the certificate is not checked), offering `offer` when it
// holds a session; the session the connection ended with goes to `kept` (which may be `offer`).
// max_version: the highest TLS version the client speaks (0: any).
TlsVisit tls_visit(int port, const std::string& host, const TlsSession* offer, TlsSession* kept, int max_version = 0);

// The protocol the server chose by ALPN for a client offering "h2" then "http/1.1", as browsers
// do ("" when it chose none, or the handshake failed).
std::string tls_alpn(int port);

// A visitor that resets its connection (SO_LINGER 0): `while_answering`, after pipelining GETs for
// `host` until the server stops taking them (its answers unread fill the connection); otherwise
// after one request and its answer, while the server waits for the next. Returns whether its
// handshake completed.
bool tls_abandon(int port, const std::string& host, bool while_answering);

} // namespace wr::test
