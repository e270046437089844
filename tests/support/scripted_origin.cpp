// A misbehaving origin on raw sockets (and OpenSSL for TLS), a thread per connection.
#include "support/scripted_origin.h"

#include "support/loopback.h"

#include <arpa/inet.h>
#include <algorithm>
#include <chrono>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace wr::test {
namespace {

const std::string k_forged = "HTTP/1.1 200 OK\r\nContent-Length: 14\r\n\r\nyou are forged";

std::string answer(std::string_view status, std::string_view body, std::string_view extra_headers = "") {
    return "HTTP/1.1 " + std::string(status) + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
           std::string(extra_headers) + "\r\n" + std::string(body);
}

} // namespace

struct ScriptedOrigin::Tls {
    SSL_CTX* context = nullptr;
    ~Tls() { SSL_CTX_free(context); }
};

ScriptedOrigin::ScriptedOrigin(const std::filesystem::path& certificate, const std::filesystem::path& private_key) {
    if (!certificate.empty()) {
        m_tls = std::make_unique<Tls>();
        m_tls->context = SSL_CTX_new(TLS_server_method());
        if (!m_tls->context || SSL_CTX_use_certificate_chain_file(m_tls->context, certificate.c_str()) != 1 ||
            SSL_CTX_use_PrivateKey_file(m_tls->context, private_key.c_str(), SSL_FILETYPE_PEM) != 1)
            throw std::runtime_error("scripted origin: cannot load the TLS certificate");
    }
    // Close-on-exec: a child the test forks (curl) must not keep an origin connection open after the origin closed it.
    const LoopbackListener listener = listen_on_loopback("scripted origin");
    m_listener = listener.fd;
    m_port = listener.port;
    m_acceptor = std::thread([this] { accept_loop(); });
}

ScriptedOrigin::~ScriptedOrigin() {
    m_stopping = true;
    ::shutdown(m_listener, SHUT_RDWR);
    m_acceptor.join();
    {
        const std::lock_guard lock(m_mutex);
        for (const int descriptor : m_open) ::shutdown(descriptor, SHUT_RDWR);
    }
    for (std::thread& thread : m_threads) thread.join();
    ::close(m_listener);
}

std::vector<std::string> ScriptedOrigin::arrival_order() const {
    const std::lock_guard lock(m_mutex);
    return m_arrivals;
}

std::string ScriptedOrigin::url() const { return std::string(m_tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(m_port); }

void ScriptedOrigin::accept_loop() {
    while (!m_stopping) {
        const int descriptor = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (descriptor < 0) return;
        const int on = 1;
        ::setsockopt(descriptor, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        ++m_connections;
        const std::lock_guard lock(m_mutex);
        m_open.push_back(descriptor);
        // A connection wr has already closed still sits in m_open until its serving thread reads
        // the end; on loopback the close arrived before this connect, so it is not counted.
        const auto still_open = std::count_if(m_open.begin(), m_open.end(), [](int open) {
            char byte;
            return ::recv(open, &byte, 1, MSG_PEEK | MSG_DONTWAIT) != 0;
        });
        m_most_open = std::max(m_most_open.load(), static_cast<int>(still_open));
        m_threads.emplace_back([this, descriptor] { serve(descriptor); });
    }
}

void ScriptedOrigin::serve(int descriptor) {
    SSL* ssl = nullptr;
    if (m_tls) {
        ssl = SSL_new(m_tls->context);
        SSL_set_fd(ssl, descriptor);
        if (SSL_accept(ssl) != 1) {
            SSL_free(ssl);
            return;
        }
    }
    const auto send_all = [&](const std::string& bytes) {
        if (ssl) return SSL_write(ssl, bytes.data(), static_cast<int>(bytes.size())) > 0;
        return ::send(descriptor, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
    };
    const auto later = [](const auto& what) {
        std::this_thread::sleep_for(std::chrono::milliseconds{30});
        what();
    };
    std::string buffer;
    // Appends what arrives to `buffer`; false at the end of the stream.
    const auto receive = [&] {
        char chunk[4096];
        const int got = ssl ? SSL_read(ssl, chunk, sizeof chunk) : static_cast<int>(::recv(descriptor, chunk, sizeof chunk, 0));
        if (got <= 0) return false;
        buffer.append(chunk, static_cast<size_t>(got));
        return true;
    };
    bool said_close = false;
    bool closing = false; // the answer ends the connection
    bool reset = false;
    while (!closing && receive()) {
        for (size_t end; (end = buffer.find("\r\n\r\n")) != std::string::npos;) {
            const std::string head = buffer.substr(0, end + 4);
            buffer.erase(0, end + 4);
            if (said_close) ++m_requests_after_close;
            const std::string method = head.substr(0, head.find(' '));
            const size_t target_at = head.find(' ') + 1;
            const std::string target = head.substr(target_at, head.find(' ', target_at) - target_at);
            const bool head_request = method == "HEAD";
            if (target.rfind("/v/", 0) == 0) {
                const std::string page = answer("200 OK", "you are " + target.substr(3));
                send_all(head_request ? page.substr(0, page.find("\r\n\r\n") + 4) : page);
            } else if (target == "/late-body") {
                const std::string page = answer("200 OK", k_forged);
                if (!head_request) {
                    send_all(page);
                } else {
                    send_all(page.substr(0, page.find("\r\n\r\n") + 4));
                    later([&] { send_all(k_forged); });
                }
            } else if (target == "/head-first") {
                // The head at once, whatever body the request has (never read), the body 200 ms later.
                const std::string page = answer("200 OK", "first");
                send_all(page.substr(0, page.find("\r\n\r\n") + 4));
                std::this_thread::sleep_for(std::chrono::milliseconds{200});
                send_all("first");
            } else if (target == "/late-no-content" || target == "/late-not-modified") {
                const std::string status = target == "/late-no-content" ? "204 No Content" : "304 Not Modified";
                send_all("HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(k_forged.size()) + "\r\n\r\n");
                later([&] { send_all(k_forged); });
            } else if (target == "/extra") {
                send_all(answer("200 OK", "ok") + k_forged);
            } else if (target == "/unasked") {
                send_all(answer("200 OK", "ok"));
                later([&] { send_all(k_forged); });
            } else if (target == "/close") {
                send_all(answer("200 OK", "ok", "Connection: close\r\n"));
                said_close = true;
            } else if (target.rfind("/slow/", 0) == 0) {
                const size_t slash = target.find('/', 6);
                const std::string id = target.substr(slash + 1);
                {
                    const std::lock_guard lock(m_mutex);
                    m_arrivals.push_back(id);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds{std::stoi(target.substr(6, slash - 6))});
                send_all(answer("200 OK", "you are " + id));
            } else if (target == "/siteverify-interim") {
                // Turnstile's siteverify behind an interim answer: the form body read by its
                // length, then "100 Continue" and the verdict (tokens starting with "good" pass).
                const size_t length_at = head.find("Content-Length: ");
                const size_t length = length_at == std::string::npos ? 0 : std::stoul(head.substr(length_at + 16));
                while (buffer.size() < length && receive()) {}
                const bool good = buffer.substr(0, length).find("response=good") != std::string::npos;
                buffer.erase(0, std::min(length, buffer.size()));
                send_all("HTTP/1.1 100 Continue\r\n\r\n" +
                         answer("200 OK", good ? R"({"success": true})" : R"({"success": false, "error-codes": ["invalid-input-response"]})"));
            } else if (target == "/to-close" || target == "/to-reset") {
                // A body that runs to the close: ended cleanly, or cut short by a reset.
                send_all("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe first part, ");
                std::this_thread::sleep_for(std::chrono::milliseconds{100});
                if (target == "/to-reset") {
                    const linger abort{.l_onoff = 1, .l_linger = 0};
                    ::setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
                    reset = true; // and no TLS close_notify
                } else {
                    send_all("the end");
                }
                closing = true;
                break;
            } else if (target.rfind("/drop/", 0) == 0) {
                // Read, and the connection closed without an answer: an origin that died while it
                // served the request (did it act on it?).
                {
                    const std::lock_guard lock(m_mutex);
                    m_arrivals.push_back(method + " " + target);
                }
                closing = true;
                break;
            } else if (target == "/continue") {
                send_all("HTTP/1.1 100 Continue\r\n\r\n" + answer("200 OK", "ok"));
            } else if (target == "/hints-length") {
                send_all("HTTP/1.1 103 Early Hints\r\nContent-Length: 17\r\nLink: </a.css>\r\n\r\n" + answer("200 OK", "ok"));
            } else if (target == "/bad-chunk") {
                send_all("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n");
                closing = true;
                break;
            } else {
                send_all(answer("404 Not Found", "no such page"));
            }
        }
    }
    if (ssl) {
        if (!reset) SSL_shutdown(ssl);
        SSL_free(ssl);
    }
    const std::lock_guard lock(m_mutex);
    std::erase(m_open, descriptor);
    ::close(descriptor);
}

} // namespace wr::test
