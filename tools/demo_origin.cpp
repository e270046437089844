// wr-demo-origin: a small origin for `make demo`, the integration tests and the benchmarks.
//   GET /            a demo shop page
//   ANY /echo        the request as JSON (method, path, query, headers, body)
//   GET /slow?ms=N   answers after N milliseconds
//   GET /revoke      answers with Cf-Waiting-Room-Command: revoke
//   GET /status/N    answers with status N
//   GET /static/*    a small asset
// Usage: wr-demo-origin [--listen 127.0.0.1:3000]; prints "listening on http://HOST:PORT".
#include <httplib.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <thread>

namespace {

const char* k_home = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo shop</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>Welcome to the demo shop</h1><p>You are through the waiting room: this page comes from the origin.</p>
<p>Your session lasts as long as the room's session duration after your last request.</p></body></html>
)";

} // namespace

int main(int argc, char** argv) {
    std::string listen = "127.0.0.1:3000";
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--listen") listen = argv[i + 1];
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos) {
        std::cerr << "usage: wr-demo-origin [--listen HOST:PORT]\n";
        return 2;
    }
    const std::string host = listen.substr(0, colon);
    const int port = std::stoi(listen.substr(colon + 1));

    httplib::Server server;
    server.new_task_queue = [] { return new httplib::ThreadPool(64); };
    server.set_tcp_nodelay(true);
    server.set_keep_alive_max_count(100000);
    int listen_socket = -1;
    server.set_socket_options([&listen_socket](socket_t sock) {
        listen_socket = sock;
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server.set_post_routing_handler([](const httplib::Request&, httplib::Response& res) { res.set_header("X-Demo-Origin", "1"); });

    server.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_content(k_home, "text/html; charset=utf-8"); });
    const auto echo = [](const httplib::Request& req, httplib::Response& res) {
        nlohmann::json headers = nlohmann::json::object();
        for (const auto& [name, value] : req.headers) headers[name] = value;
        nlohmann::json query = nlohmann::json::object();
        for (const auto& [name, value] : req.params) query[name] = value;
        res.set_content(nlohmann::json{{"method", req.method}, {"path", req.path}, {"target", req.target}, {"query", query},
                                       {"headers", headers}, {"body", req.body}}.dump(),
                        "application/json");
    };
    server.Get("/echo.*", echo);
    server.Post("/echo.*", echo);
    server.Put("/echo.*", echo);
    server.Delete("/echo.*", echo);
    server.Get("/slow", [](const httplib::Request& req, httplib::Response& res) {
        const int ms = req.has_param("ms") ? std::stoi(req.get_param_value("ms")) : 1000;
        std::this_thread::sleep_for(std::chrono::milliseconds{ms});
        res.set_content("slow\n", "text/plain");
    });
    server.Get("/revoke", [](const httplib::Request&, httplib::Response& res) {
        res.set_header("Cf-Waiting-Room-Command", "revoke");
        res.set_content("<p>Thank you for your order. Your session has ended.</p>\n", "text/html");
    });
    server.Get(R"(/status/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
        res.status = std::stoi(req.matches[1]);
        res.set_content("status " + std::string(req.matches[1]) + "\n", "text/plain");
    });
    server.Get(R"(/static/.*)", [](const httplib::Request&, httplib::Response& res) {
        res.set_header("Cache-Control", "public, max-age=3600");
        res.set_content("body{color:#333}\n", "text/css");
    });

    const int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
    if (bound <= 0) {
        std::cerr << "wr-demo-origin: cannot listen on " << listen << "\n";
        return 1;
    }
    if (listen_socket >= 0) ::listen(listen_socket, 4096); // httplib's own backlog is 5
    std::cout << "listening on http://" << host << ":" << bound << std::endl;
    server.listen_after_bind();
    return 0;
}
