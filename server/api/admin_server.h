#pragma once
// The admin listener: the control-plane REST API on cpp-httplib, off the public port, over
// HTTPS when given a certificate.
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/request.h"

namespace httplib {
class Server;
}

namespace wr::api {

struct AdminServerOptions {
    std::string host = "127.0.0.1";
    int port = 9090;               // 0: any free port
    size_t max_body_bytes = 4 * 1024 * 1024;
    int threads = 8;
    std::string tls_certificate;   // PEM files: serve HTTPS; both empty for plain HTTP
    std::string tls_private_key;
};

// The path as the log may show it: capability ids (a preview's) replaced by <redacted>.
std::string redact_capabilities(const std::string& path);

class AdminServer {
public:
    // What answers each request: the admin API's dispatcher, or an edge node's own.
    using Handler = std::function<Reply(Request&)>;

    // Throws when the TLS files do not load.
    AdminServer(Handler handler, AdminServerOptions options);
    ~AdminServer();

    // Binds the socket (so the port is known and taken) without serving yet; throws on failure.
    int bind();
    // Serves on a background thread until stop().
    void start();
    void stop();
    // Reads the certificate and key files again; new connections get them. Throws (keeping the
    // old pair) if they do not load.
    void reload_tls();

    int port() const { return m_port; }
    bool tls() const { return !m_options.tls_certificate.empty(); }

    struct TlsIdentity; // a loaded certificate chain and key

private:
    std::shared_ptr<const TlsIdentity> identity() const;

    Handler m_handler;
    AdminServerOptions m_options;
    mutable std::mutex m_tls_mutex; // guards m_identity; held only to copy or swap the pointer
    std::shared_ptr<const TlsIdentity> m_identity;
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_thread;
    int m_port = 0;
    int m_socket = -1;
};

} // namespace wr::api
