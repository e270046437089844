#pragma once
// An origin that misbehaves on purpose, over plain TCP or TLS, for the tests of what wr may reuse
// of an origin connection. Every connection is served by a thread of its own that reads request
// heads (no bodies) and answers by path:
//   /v/<id>             a well-formed answer whose body is "you are <id>" (the honest visitor's page)
//   /late-body          200 with Content-Length, the body sent 30 ms later (to a HEAD: bytes nobody asked for)
//   /head-first         200's head at once, without reading the request's body, its own body 200 ms later
//   /late-no-content    204 with a Content-Length, then that many bytes 30 ms later
//   /late-not-modified  304 with a Content-Length, then that many bytes 30 ms later
//   /extra              a 2-byte body with a forged answer right behind it, in the same write
//   /unasked            a well-formed answer, then a forged one 30 ms later
//   /close              "Connection: close" — and the connection left open
//   /continue           "100 Continue" before the answer, to a request that did not ask for it
//   /hints-length       "103 Early Hints" with a Content-Length (a 1xx has no content), then the answer
//   /bad-chunk          200 chunked whose first chunk size is not a number, in the head's write
//   /slow/<ms>/<id>     "you are <id>" after <ms> milliseconds (requests are kept in arrival_order())
//   /siteverify-interim Turnstile's siteverify answering "100 Continue" first (tokens "good…" pass)
//   /to-close           a body without a length, "the first part, " then 100 ms later "the end" and the close
//   /to-reset           the same first part, then 100 ms later a reset (the body cut short)
//   /drop/<id>          no answer: the connection closed once the head is read (kept in arrival_order()
//                       as "<method> /drop/<id>")
// A forged answer's body is "you are forged": a visitor who gets it got somebody else's bytes.
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace wr::test {

class ScriptedOrigin {
public:
    // With `tls`, speaks TLS with the certificate and key given (PEM files).
    explicit ScriptedOrigin(const std::filesystem::path& certificate = {}, const std::filesystem::path& private_key = {});
    ~ScriptedOrigin();
    ScriptedOrigin(const ScriptedOrigin&) = delete;
    ScriptedOrigin& operator=(const ScriptedOrigin&) = delete;

    int port() const { return m_port; }
    std::string url() const;
    int connections() const { return m_connections.load(); }
    // Requests that arrived on a connection after the origin had said "Connection: close" on it.
    int requests_after_close() const { return m_requests_after_close.load(); }
    // The most connections it ever had open at once.
    int most_open() const { return m_most_open.load(); }
    // The ids of /slow requests and the methods and targets of /drop ones, in the order they arrived.
    std::vector<std::string> arrival_order() const;

private:
    struct Tls;
    void accept_loop();
    void serve(int descriptor);

    std::unique_ptr<Tls> m_tls;
    int m_listener = -1;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_connections{0};
    std::atomic<int> m_requests_after_close{0};
    std::atomic<int> m_most_open{0};
    mutable std::mutex m_mutex;
    std::vector<std::string> m_arrivals;
    std::vector<int> m_open; // descriptors of live connections, shut down at the end
    std::vector<std::thread> m_threads;
    std::thread m_acceptor;
};

} // namespace wr::test
