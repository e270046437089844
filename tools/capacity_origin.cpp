// wr-capacity-origin: an origin with a real capacity, for the origin guard's and the origin
// connection cap's tests and benchmarks. A fixed number of workers each serve one request at a
// time for a service time; requests wait for them in one queue, in arrival order — so latency
// stays flat below capacity and grows past it, as a real application server's does.
//   GET  /stats          what it did, as JSON (answered at once, outside the queue);
//                        /stats?reset=1 also starts the counts afresh
//   anything else        queued for a worker, then 200 "ok"; 503 when the queue is full or the
//                        request waited longer than --queue-timeout-ms
// Options:
//   --host H              listen on H (default 127.0.0.1)
//   --port N              listen on N (default 0: any free port)
//   --workers N           requests served at once (default 8)
//   --service-ms M        each request's service time (default 100) …
//   --service-jitter F    … drawn uniformly in [1-F, 1+F] times it (default 0: exactly M)
//   --max-connections N   connections held at once; beyond, new ones are closed at once (default 0: no limit)
//   --queue-limit N       requests waiting at most; beyond, 503 at once (default 0: no limit)
//   --queue-timeout-ms T  a request that waited longer is answered 503 instead of served (default 0: none)
// One thread, event-driven (Boost.Asio): thousands of connections cost no thread each. A request
// whose client hangs up while it waits is dropped unserved. Prints "listening on http://HOST:PORT".
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

struct Options {
    std::string host = "127.0.0.1";
    unsigned short port = 0;
    int workers = 8;
    double service_ms = 100;
    double service_jitter = 0;
    size_t max_connections = 0;
    size_t queue_limit = 0;
    double queue_timeout_ms = 0;
};

// Requests larger than this (head and body) are refused: this origin serves small pages.
constexpr size_t k_max_request_bytes = 1 << 20;

struct Stats {
    uint64_t requests = 0;      // complete requests read (not /stats)
    uint64_t served = 0;        // answered 200 by a worker
    uint64_t rejected = 0;      // 503: the queue was full
    uint64_t timed_out = 0;     // 503: waited longer than the queue timeout
    uint64_t abandoned = 0;     // the client hung up while the request waited
    uint64_t refused_connections = 0;
    size_t max_connections_seen = 0;
    size_t max_queue_seen = 0;
    size_t max_in_flight_seen = 0;
    std::vector<float> ttfb_ms; // of the requests served, from the request read to the answer written
};

class Origin;

// One client connection: reads requests one after another (keep-alive), hands each to the origin
// and writes its answer. A read is always outstanding, so a hang-up is noticed while waiting.
class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(tcp::socket socket, Origin& origin) : m_socket(std::move(socket)), m_origin(origin) {}
    ~Connection();
    void start() { read(); }
    bool open() const { return m_open; }
    void answer(int status, const std::string& content_type, const std::string& body);

private:
    void read();
    void parse();
    void close();

    tcp::socket m_socket;
    Origin& m_origin;
    std::string m_buffer;
    char m_chunk[16384];
    bool m_busy = false; // a request is being answered; the next waits in the buffer
    bool m_open = true;
    bool m_close_after = false;
};

class Origin {
public:
    Origin(asio::io_context& io, const Options& options)
        : m_io(io), m_options(options), m_acceptor(io), m_random(std::random_device{}()) {
        const tcp::endpoint endpoint(asio::ip::make_address(options.host), options.port);
        m_acceptor.open(endpoint.protocol());
        m_acceptor.set_option(tcp::acceptor::reuse_address(true));
        m_acceptor.bind(endpoint);
        m_acceptor.listen(4096);
    }

    unsigned short port() const { return m_acceptor.local_endpoint().port(); }

    void accept() {
        m_acceptor.async_accept([this](const boost::system::error_code& error, tcp::socket socket) {
            if (!error) {
                if (m_options.max_connections > 0 && m_connections >= m_options.max_connections) {
                    ++m_stats.refused_connections;
                    boost::system::error_code ignored;
                    socket.close(ignored);
                } else {
                    socket.set_option(tcp::no_delay(true));
                    ++m_connections;
                    m_stats.max_connections_seen = std::max(m_stats.max_connections_seen, m_connections);
                    std::make_shared<Connection>(std::move(socket), *this)->start();
                }
            }
            accept();
        });
    }

    void connection_closed() { --m_connections; }

    // A complete request for `target` on `connection`.
    void request(const std::shared_ptr<Connection>& connection, std::string_view target) {
        if (target == "/stats" || target.starts_with("/stats?")) {
            connection->answer(200, "application/json", stats_json());
            if (target.find("reset=1") != std::string_view::npos) reset();
            return;
        }
        ++m_stats.requests;
        if (m_options.queue_limit > 0 && m_queue.size() >= m_options.queue_limit) {
            ++m_stats.rejected;
            connection->answer(503, "text/plain", "queue full\n");
            return;
        }
        m_queue.push_back({connection, Clock::now()});
        m_stats.max_queue_seen = std::max(m_stats.max_queue_seen, m_queue.size());
        serve_next();
    }

private:
    struct Waiting {
        std::weak_ptr<Connection> connection;
        Clock::time_point arrived;
    };

    // Hands waiting requests to free workers, in arrival order.
    void serve_next() {
        while (m_busy < m_options.workers && !m_queue.empty()) {
            const Waiting waiting = m_queue.front();
            m_queue.pop_front();
            const std::shared_ptr<Connection> connection = waiting.connection.lock();
            if (!connection || !connection->open()) {
                ++m_stats.abandoned;
                continue;
            }
            const double waited_ms = std::chrono::duration<double, std::milli>(Clock::now() - waiting.arrived).count();
            if (m_options.queue_timeout_ms > 0 && waited_ms > m_options.queue_timeout_ms) {
                ++m_stats.timed_out;
                connection->answer(503, "text/plain", "waited too long\n");
                continue;
            }
            ++m_busy;
            m_stats.max_in_flight_seen = std::max(m_stats.max_in_flight_seen, static_cast<size_t>(m_busy));
            auto timer = std::make_shared<asio::steady_timer>(m_io);
            timer->expires_after(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(service_ms())));
            timer->async_wait([this, timer, connection, arrived = waiting.arrived](const boost::system::error_code&) {
                --m_busy;
                ++m_stats.served;
                m_stats.ttfb_ms.push_back(static_cast<float>(std::chrono::duration<double, std::milli>(Clock::now() - arrived).count()));
                if (connection->open()) connection->answer(200, "text/plain", "ok\n");
                serve_next();
            });
        }
    }

    double service_ms() {
        if (m_options.service_jitter <= 0) return m_options.service_ms;
        std::uniform_real_distribution<double> spread(1 - m_options.service_jitter, 1 + m_options.service_jitter);
        return std::max(0.0, m_options.service_ms * spread(m_random));
    }

    static double percentile(std::vector<float>& values, double share) {
        if (values.empty()) return 0;
        const size_t rank = std::min(values.size() - 1, static_cast<size_t>(share * static_cast<double>(values.size())));
        std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
        return values[rank];
    }

    std::string stats_json() {
        std::vector<float> times = m_stats.ttfb_ms;
        char latency[160];
        std::snprintf(latency, sizeof latency, R"({"count": %zu, "p50": %.1f, "p95": %.1f, "p99": %.1f})", times.size(),
                      percentile(times, 0.50), percentile(times, 0.95), percentile(times, 0.99));
        const auto field = [](const char* name, auto value) { return "\"" + std::string(name) + "\": " + std::to_string(value); };
        return "{" + field("workers", m_options.workers) + ", " + field("requests", m_stats.requests) + ", " + field("served", m_stats.served) +
               ", " + field("in_flight", m_busy) + ", " + field("queued", m_queue.size()) + ", " + field("rejected", m_stats.rejected) + ", " +
               field("timed_out", m_stats.timed_out) + ", " + field("abandoned", m_stats.abandoned) + ", " +
               field("connections", m_connections) + ", " + field("max_connections_seen", m_stats.max_connections_seen) + ", " +
               field("refused_connections", m_stats.refused_connections) + ", " + field("max_queue_seen", m_stats.max_queue_seen) + ", " +
               field("max_in_flight_seen", m_stats.max_in_flight_seen) + ", \"ttfb_ms\": " + latency + "}\n";
    }

    // Counts start afresh; the maxima from what is there now.
    void reset() {
        m_stats = {};
        m_stats.max_connections_seen = m_connections;
        m_stats.max_queue_seen = m_queue.size();
        m_stats.max_in_flight_seen = static_cast<size_t>(m_busy);
    }

    asio::io_context& m_io;
    Options m_options;
    tcp::acceptor m_acceptor;
    std::mt19937_64 m_random;
    std::deque<Waiting> m_queue;
    int m_busy = 0;
    size_t m_connections = 0;
    Stats m_stats;
};

Connection::~Connection() { m_origin.connection_closed(); }

void Connection::read() {
    m_socket.async_read_some(asio::buffer(m_chunk), [self = shared_from_this()](const boost::system::error_code& error, size_t bytes) {
        if (error) {
            self->close();
            return;
        }
        self->m_buffer.append(self->m_chunk, bytes);
        if (self->m_buffer.size() > k_max_request_bytes) {
            self->close();
            return;
        }
        self->parse();
        self->read();
    });
}

// Takes one complete request off the buffer when none is being answered.
void Connection::parse() {
    if (m_busy || !m_open) return;
    const size_t end = m_buffer.find("\r\n\r\n");
    if (end == std::string::npos) return;
    const std::string head = m_buffer.substr(0, end);
    // Header names are matched case-insensitively; a body is read by Content-Length only.
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    size_t body = 0;
    if (const size_t at = lower.find("\r\ncontent-length:"); at != std::string::npos) {
        const char* begin = lower.data() + at + 17;
        while (*begin == ' ') ++begin;
        std::from_chars(begin, lower.data() + lower.size(), body);
    }
    if (lower.find("\r\ntransfer-encoding:") != std::string::npos) {
        m_buffer.clear();
        m_busy = true;
        m_close_after = true;
        answer(501, "text/plain", "chunked request bodies are not read here\n");
        return;
    }
    if (m_buffer.size() < end + 4 + body) return; // the body is still coming
    m_close_after = lower.find("\r\nconnection: close") != std::string::npos || lower.find(" http/1.0\r\n") != std::string::npos ||
                    lower.ends_with(" http/1.0");
    const size_t first_space = head.find(' ');
    const size_t second_space = head.find(' ', first_space + 1);
    const std::string target = first_space == std::string::npos ? "/" : head.substr(first_space + 1, second_space - first_space - 1);
    m_buffer.erase(0, end + 4 + body);
    m_busy = true;
    m_origin.request(shared_from_this(), target);
}

void Connection::answer(int status, const std::string& content_type, const std::string& body) {
    const char* reason = status == 200 ? "OK" : status == 503 ? "Service Unavailable" : "Not Implemented";
    auto message = std::make_shared<std::string>("HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " + content_type +
                                                 "\r\nContent-Length: " + std::to_string(body.size()) +
                                                 "\r\nCache-Control: no-store\r\nX-Demo-Origin: 1\r\nX-Capacity-Origin: 1\r\n" +
                                                 (m_close_after ? "Connection: close\r\n" : "") + "\r\n" + body);
    asio::async_write(m_socket, asio::buffer(*message), [self = shared_from_this(), message](const boost::system::error_code& error, size_t) {
        self->m_busy = false;
        if (error || self->m_close_after) {
            self->close();
            return;
        }
        self->parse(); // a request that came meanwhile
    });
}

void Connection::close() {
    if (!m_open) return;
    m_open = false;
    boost::system::error_code ignored;
    m_socket.shutdown(tcp::socket::shutdown_both, ignored);
    m_socket.close(ignored);
}

bool parse_number(const char* text, auto& value) {
    const std::string_view view(text);
    const auto [end, error] = std::from_chars(view.data(), view.data() + view.size(), value);
    return error == std::errc{} && end == view.data() + view.size();
}

int usage() {
    std::cerr << "usage: wr-capacity-origin [--host H] [--port N] [--workers N] [--service-ms M] [--service-jitter F]\n"
                 "                          [--max-connections N] [--queue-limit N] [--queue-timeout-ms T]\n";
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) return usage();
        const char* value = argv[++i];
        bool ok = true;
        if (flag == "--host") options.host = value;
        else if (flag == "--port") ok = parse_number(value, options.port);
        else if (flag == "--workers") ok = parse_number(value, options.workers) && options.workers > 0;
        else if (flag == "--service-ms") ok = parse_number(value, options.service_ms) && options.service_ms >= 0;
        else if (flag == "--service-jitter") ok = parse_number(value, options.service_jitter) && options.service_jitter >= 0 && options.service_jitter <= 1;
        else if (flag == "--max-connections") ok = parse_number(value, options.max_connections);
        else if (flag == "--queue-limit") ok = parse_number(value, options.queue_limit);
        else if (flag == "--queue-timeout-ms") ok = parse_number(value, options.queue_timeout_ms) && options.queue_timeout_ms >= 0;
        else ok = false;
        if (!ok) {
            std::cerr << "wr-capacity-origin: bad option " << flag << " " << value << "\n";
            return usage();
        }
    }
    try {
        asio::io_context io(1);
        Origin origin(io, options);
        origin.accept();
        asio::signal_set signals(io, SIGINT, SIGTERM);
        signals.async_wait([&io](const boost::system::error_code&, int) { io.stop(); });
        std::cout << "listening on http://" << options.host << ":" << origin.port() << std::endl;
        io.run();
    } catch (const std::exception& error) {
        std::cerr << "wr-capacity-origin: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
