#pragma once
// The admin listener: the control-plane REST API on cpp-httplib, off the public port.
#include <memory>
#include <string>
#include <thread>

#include "api/routes.h"

namespace httplib {
class Server;
}

namespace wr::api {

struct AdminServerOptions {
    std::string host = "127.0.0.1";
    int port = 9090;               // 0: any free port
    size_t max_body_bytes = 4 * 1024 * 1024;
    int threads = 8;
};

// The path as the log may show it: capability ids (a preview's) replaced by <redacted>.
std::string redact_capabilities(const std::string& path);

class AdminServer {
public:
    AdminServer(Services& services, AdminServerOptions options);
    ~AdminServer();

    // Binds the socket (so the port is known and taken) without serving yet; throws on failure.
    int bind();
    // Serves on a background thread until stop().
    void start();
    void stop();

    int port() const { return m_port; }

private:
    Services& m_services;
    AdminServerOptions m_options;
    std::unique_ptr<httplib::Server> m_server;
    std::thread m_thread;
    int m_port = 0;
    int m_socket = -1;
};

} // namespace wr::api
