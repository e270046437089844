#pragma once
// The admin listener: the control-plane REST API (or an edge node's health and metrics), off the
// public port, over HTTPS when given a certificate. One event-loop thread holds every connection
// (Asio and Beast), so idle and slow clients cost memory, never a thread; handlers, which block
// on SQLite, run on a small pool of their own (admin_server.cpp has the details).
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "api/request.h"

namespace wr::api {

struct AdminServerOptions {
    std::string host = "127.0.0.1";
    int port = 9090;               // 0: any free port
    size_t max_body_bytes = 4 * 1024 * 1024;
    int threads = 8;               // handler threads (besides one for /healthz and one for large bodies)
    std::string tls_certificate;   // PEM files: serve HTTPS; both empty for plain HTTP
    std::string tls_private_key;
    int max_connections = 0;       // open connections at once; 0: from the descriptor limit (at most 2,048)
    std::chrono::milliseconds idle_timeout{10000};     // a keep-alive connection with no request closes
    std::chrono::milliseconds header_timeout{10000};   // a TLS handshake, or a head from its first byte (408)
    std::chrono::milliseconds transfer_timeout{60000}; // a request body in, or an answer out
};

// The path as the log may show it: capability ids (a preview's) replaced by <redacted>.
std::string redact_capabilities(const std::string& path);

class AdminServer {
public:
    // What answers each request: the admin API's dispatcher, or an edge node's own. Called on
    // the handler threads, several at once.
    using Handler = std::function<Reply(Request&)>;

    // Throws when the TLS files do not load.
    AdminServer(Handler handler, AdminServerOptions options);
    ~AdminServer();

    // Binds the socket (so the port is known and taken) without serving yet; throws on failure.
    int bind();
    // Serves on background threads until stop().
    void start();
    void stop();
    // Reads the certificate and key files again; new connections get them. Throws (keeping the
    // old pair) if they do not load.
    void reload_tls();

    int port() const { return m_port; }
    bool tls() const { return !m_options.tls_certificate.empty(); }
    int max_connections() const;

    struct TlsIdentity; // a loaded certificate chain and key
    struct Listener;    // the event loop, its connections and the handler threads

private:
    AdminServerOptions m_options;
    std::unique_ptr<Listener> m_listener;
    int m_port = 0;
};

} // namespace wr::api
