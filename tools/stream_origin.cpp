// wr-stream-origin: an origin that streams, for the edge's integration tests and `make bench`.
//   GET  /sse?events=N&ms=M        N server-sent events, one every M ms (chunked, no length)
//   GET  /bytes?n=N[&framing=F]    N bytes of a fixed pattern (byte i is (i * 31 + 7) & 255), F one
//                                  of length (default), chunked, close (no length, ends at the close)
//   ANY  /upload                   reads the body however it is framed; answers its length, its
//                                  FNV-1a hash and the framing it arrived in, as JSON
//   POST /early                    answers 200 at once, without reading the body, and closes
//   ANY  /hold?ms=M                reads the request head and none of the body; closes without an
//                                  answer after M ms (default 10000), or once the client has gone
//   GET  /stats                    what the kernel took of the /bytes bodies so far, and what it still
//                                  queues: {"bytes_written", "unsent" (not yet acknowledged by the
//                                  client), "bytes_connections", "held" (/hold bodies that reached
//                                  the origin: read with their heads or waiting in the kernel),
//                                  "holding", "holds" (/hold requests since the start)} (the counts
//                                  of connections are of those still open)
//   GET  /hints                    a 103 Early Hints, then 200
//   GET  /ws (WebSocket upgrade)   echoes every message
//   anything else                  200 "ok"
// Every answer carries X-Demo-Origin: 1. A thread per connection (plain blocking Beast; /bytes
// bodies are written non-blocking, so the count of bytes the kernel took is exact at any moment).
// Usage: wr-stream-origin [--listen 127.0.0.1:0]; prints "listening on http://HOST:PORT".
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <linux/sockios.h>
#include <list>
#include <mutex>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <thread>

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

std::string parameter(std::string_view target, std::string_view name, std::string_view fallback) {
    const size_t query = target.find('?');
    if (query == std::string_view::npos) return std::string(fallback);
    std::string_view rest = target.substr(query + 1);
    while (!rest.empty()) {
        const size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        const size_t equals = pair.find('=');
        if (pair.substr(0, equals) == name) return std::string(equals == std::string_view::npos ? "" : pair.substr(equals + 1));
        if (amp == std::string_view::npos) break;
        rest = rest.substr(amp + 1);
    }
    return std::string(fallback);
}

uint64_t number(std::string_view target, std::string_view name, uint64_t fallback) {
    const std::string text = parameter(target, name, "");
    uint64_t value = fallback;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

void write_all(tcp::socket& socket, std::string_view bytes) { asio::write(socket, asio::buffer(bytes.data(), bytes.size())); }

// The open /bytes and /hold connections, so that /stats can ask the kernel what it still queues
// on each: how far the origin's writes and the client's bodies really got.
class Stats {
public:
    struct Connection {
        int fd = -1;
        bool holding = false;     // a /hold connection (else /bytes)
        uint64_t read_ahead = 0;  // /hold: body bytes read along with the head
    };
    // Registers a connection for as long as the object lives.
    class Tracked {
    public:
        Tracked(Stats& stats, Connection connection) : m_stats(stats) {
            const std::lock_guard lock(m_stats.m_mutex);
            m_it = m_stats.m_open.insert(m_stats.m_open.end(), connection);
        }
        ~Tracked() {
            const std::lock_guard lock(m_stats.m_mutex);
            m_stats.m_open.erase(m_it);
        }
        Tracked(const Tracked&) = delete;
        Tracked& operator=(const Tracked&) = delete;

    private:
        Stats& m_stats;
        std::list<Connection>::iterator m_it;
    };

    std::atomic<uint64_t> bytes_written{0}; // of /bytes bodies, every connection since the start
    std::atomic<uint64_t> holds{0};         // /hold requests since the start

    std::string json() {
        uint64_t unsent = 0;
        uint64_t held = 0;
        int sending = 0;
        int holding = 0;
        const std::lock_guard lock(m_mutex);
        for (const Connection& connection : m_open) {
            int queued = 0;
            if (connection.holding) {
                if (::ioctl(connection.fd, SIOCINQ, &queued) != 0) queued = 0;
                held += connection.read_ahead + static_cast<uint64_t>(queued);
                ++holding;
            } else {
                if (::ioctl(connection.fd, SIOCOUTQ, &queued) != 0) queued = 0;
                unsent += static_cast<uint64_t>(queued);
                ++sending;
            }
        }
        return "{\"bytes_written\":" + std::to_string(bytes_written.load()) + ",\"unsent\":" + std::to_string(unsent) +
               ",\"bytes_connections\":" + std::to_string(sending) + ",\"held\":" + std::to_string(held) +
               ",\"holding\":" + std::to_string(holding) + ",\"holds\":" + std::to_string(holds.load()) + "}";
    }

private:
    std::mutex m_mutex;
    std::list<Connection> m_open;
};

// Writes as the kernel takes the bytes and counts each piece it took: a blocking send would copy
// part of a piece into the kernel and then wait, uncounted.
void write_counted(tcp::socket& socket, std::string_view bytes, std::atomic<uint64_t>& counter) {
    const int fd = socket.native_handle();
    while (!bytes.empty()) {
        const ssize_t sent = ::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            pollfd writable{.fd = fd, .events = POLLOUT, .revents = 0};
            ::poll(&writable, 1, -1);
            continue;
        }
        if (sent < 0) throw std::runtime_error(std::string("write: ") + std::strerror(errno));
        counter += static_cast<uint64_t>(sent);
        bytes.remove_prefix(static_cast<size_t>(sent));
    }
}

std::string chunk(std::string_view data) {
    char size[20];
    const auto end = std::to_chars(size, size + sizeof size, data.size(), 16).ptr;
    return std::string(size, end) + "\r\n" + std::string(data) + "\r\n";
}

void serve_sse(tcp::socket& socket, std::string_view target) {
    const uint64_t events = number(target, "events", 5);
    const uint64_t ms = number(target, "ms", 500);
    write_all(socket, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Demo-Origin: 1\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n");
    for (uint64_t i = 0; i < events; ++i) {
        if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds{ms});
        write_all(socket, chunk("data: event " + std::to_string(i) + "\n\n"));
    }
    write_all(socket, "0\r\n\r\n");
}

void serve_bytes(tcp::socket& socket, std::string_view target, Stats& stats) {
    const uint64_t total = number(target, "n", 1024);
    const std::string framing = parameter(target, "framing", "length");
    std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nX-Demo-Origin: 1\r\n";
    if (framing == "chunked") head += "Transfer-Encoding: chunked\r\n";
    else if (framing == "close") head += "Connection: close\r\n";
    else head += "Content-Length: " + std::to_string(total) + "\r\n";
    write_all(socket, head + "\r\n");
    const Stats::Tracked tracked(stats, {.fd = socket.native_handle()});
    std::string block(64 * 1024, '\0');
    for (uint64_t sent = 0; sent < total;) {
        const size_t size = static_cast<size_t>(std::min<uint64_t>(block.size(), total - sent));
        for (size_t i = 0; i < size; ++i) block[i] = static_cast<char>(((sent + i) * 31 + 7) & 255);
        const std::string_view data(block.data(), size);
        if (framing == "chunked") write_counted(socket, chunk(data), stats.bytes_written);
        else write_counted(socket, data, stats.bytes_written);
        sent += size;
    }
    if (framing == "chunked") write_all(socket, "0\r\n\r\n");
}

void serve_websocket(tcp::socket socket, http::request<http::string_body> request) {
    websocket::stream<tcp::socket> ws(std::move(socket));
    ws.set_option(websocket::stream_base::decorator([](websocket::response_type& response) { response.set("X-Demo-Origin", "1"); }));
    ws.accept(request);
    beast::flat_buffer buffer;
    while (true) {
        beast::error_code ec;
        ws.read(buffer, ec);
        if (ec) return;
        ws.text(ws.got_text());
        ws.write(buffer.data(), ec);
        if (ec) return;
        buffer.consume(buffer.size());
    }
}

// Holds a request's body unread until `ms` pass or the client goes.
void hold(tcp::socket& socket, std::string_view target, uint64_t read_ahead, Stats& stats) {
    const Stats::Tracked tracked(stats, {.fd = socket.native_handle(), .holding = true, .read_ahead = read_ahead});
    ++stats.holds;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds{number(target, "ms", 10000)};
    pollfd watched{.fd = socket.native_handle(), .events = POLLRDHUP, .revents = 0};
    while (std::chrono::steady_clock::now() < until) {
        if (::poll(&watched, 1, 50) > 0 && (watched.revents & (POLLRDHUP | POLLHUP | POLLERR))) return;
    }
}

void session(tcp::socket socket, Stats& stats) {
    beast::flat_buffer buffer;
    while (true) {
        beast::error_code ec;
        http::request_parser<http::string_body> parser;
        parser.body_limit(std::numeric_limits<std::uint64_t>::max());
        parser.header_limit(64 * 1024);
        http::read_header(socket, buffer, parser, ec);
        if (ec) {
            if (ec != http::error::end_of_stream) std::cerr << "wr-stream-origin: " << ec.message() << "\n";
            return;
        }
        const std::string target(parser.get().target());
        const std::string path = target.substr(0, target.find('?'));
        if (websocket::is_upgrade(parser.get()) && path == "/ws") {
            http::read(socket, buffer, parser, ec);
            return serve_websocket(std::move(socket), parser.release());
        }
        if (path == "/hold") return hold(socket, target, buffer.size(), stats);
        if (path == "/stats") {
            const std::string body = stats.json();
            write_all(socket, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                                  "\r\nConnection: close\r\n\r\n" + body);
            return;
        }
        if (path == "/early") {
            write_all(socket, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Demo-Origin: 1\r\nConnection: close\r\n\r\nearly");
            socket.shutdown(tcp::socket::shutdown_send, ec);
            std::this_thread::sleep_for(std::chrono::milliseconds{200});
            return;
        }
        const bool chunked = parser.chunked();
        const auto length = parser.content_length();
        if (!parser.is_done()) http::read(socket, buffer, parser, ec);
        if (ec) {
            std::cerr << "wr-stream-origin: " << ec.message() << "\n";
            return;
        }
        const auto& request = parser.get();
        const bool keep_alive = request.keep_alive();
        try {
            if (path == "/sse") serve_sse(socket, target);
            else if (path == "/bytes") {
                serve_bytes(socket, target, stats);
                if (parameter(target, "framing", "length") == "close") return;
            } else if (path == "/hints") {
                write_all(socket, "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n");
                write_all(socket, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Demo-Origin: 1\r\n\r\nhints");
            } else if (path == "/upload") {
                uint64_t hash = 1469598103934665603ull;
                for (const char c : request.body()) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
                char hex[17];
                std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
                const std::string framing = chunked ? "chunked" : length ? "length" : "none";
                const std::string body = "{\"length\":" + std::to_string(request.body().size()) + ",\"fnv1a\":\"" + hex +
                                         "\",\"framing\":\"" + framing + "\",\"expect\":\"" + std::string(request[http::field::expect]) + "\"}";
                write_all(socket, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Demo-Origin: 1\r\nContent-Length: " +
                                      std::to_string(body.size()) + "\r\n\r\n" + body);
            } else {
                write_all(socket, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Demo-Origin: 1\r\n\r\nok");
            }
        } catch (const std::exception& error) {
            std::cerr << "wr-stream-origin: " << error.what() << "\n"; // usually: the client went away
            return;
        }
        if (!keep_alive) return;
    }
}

} // namespace

int main(int argc, char** argv) {
    std::string listen = "127.0.0.1:0";
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--listen") listen = argv[i + 1];
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos) {
        std::cerr << "usage: wr-stream-origin [--listen HOST:PORT]\n";
        return 2;
    }
    asio::io_context io;
    tcp::acceptor acceptor(io);
    const tcp::endpoint endpoint(asio::ip::make_address(listen.substr(0, colon)), static_cast<unsigned short>(std::stoi(listen.substr(colon + 1))));
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(4096);
    Stats stats;
    std::cout << "listening on http://" << listen.substr(0, colon) << ":" << acceptor.local_endpoint().port() << std::endl;
    while (true) {
        tcp::socket socket(io);
        beast::error_code ec;
        acceptor.accept(socket, ec);
        if (ec) continue;
        socket.set_option(tcp::no_delay(true), ec);
        std::thread(session, std::move(socket), std::ref(stats)).detach();
    }
}
