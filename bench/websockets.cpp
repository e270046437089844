// Opens N WebSocket connections through wr (with an admitted visitor's cookie), then has each
// send a message once a second for S seconds and counts the echoes that come back in time.
//   wr_bench_websockets PORT HOST COOKIE N SECONDS
// Prints "opened O of N, sent X, answered Y, failed Z".
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct Totals {
    int opened = 0;
    long sent = 0;
    long answered = 0;
    long failed = 0;
};

class Client : public std::enable_shared_from_this<Client> {
public:
    Client(asio::io_context& io, Totals& totals, std::string host, std::string cookie, int rounds)
        : m_ws(io), m_timer(io), m_totals(totals), m_host(std::move(host)), m_cookie(std::move(cookie)), m_rounds(rounds) {}

    void start(const tcp::endpoint& endpoint) {
        m_ws.next_layer().async_connect(endpoint, [self = shared_from_this()](beast::error_code ec) {
            if (ec) return self->fail();
            self->m_ws.set_option(websocket::stream_base::decorator(
                [cookie = self->m_cookie](websocket::request_type& request) { request.set("Cookie", cookie); }));
            self->m_ws.async_handshake(self->m_host, "/ws", [self](beast::error_code ec) {
                if (ec) return self->fail();
                ++self->m_totals.opened;
                self->wait();
            });
        });
    }

private:
    void fail() { ++m_totals.failed; }
    void wait() {
        if (m_round++ >= m_rounds) {
            m_ws.async_close(websocket::close_code::normal, [self = shared_from_this()](beast::error_code) {});
            return;
        }
        m_timer.expires_after(std::chrono::seconds{1});
        m_timer.async_wait([self = shared_from_this()](beast::error_code ec) {
            if (ec) return;
            self->m_message = "ping " + std::to_string(self->m_round);
            ++self->m_totals.sent;
            self->m_ws.async_write(asio::buffer(self->m_message), [self](beast::error_code ec, size_t) {
                if (ec) return self->fail();
                self->m_ws.async_read(self->m_buffer, [self](beast::error_code ec, size_t) {
                    if (ec) return self->fail();
                    if (beast::buffers_to_string(self->m_buffer.data()) == self->m_message) ++self->m_totals.answered;
                    self->m_buffer.consume(self->m_buffer.size());
                    self->wait();
                });
            });
        });
    }

    websocket::stream<tcp::socket> m_ws;
    asio::steady_timer m_timer;
    Totals& m_totals;
    std::string m_host;
    std::string m_cookie;
    int m_rounds;
    int m_round = 0;
    std::string m_message;
    beast::flat_buffer m_buffer;
};

} // namespace

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: wr_bench_websockets PORT HOST COOKIE N SECONDS\n");
        return 2;
    }
    asio::io_context io;
    Totals totals;
    const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(std::stoi(argv[1])));
    const int count = std::stoi(argv[4]);
    for (int i = 0; i < count; ++i) std::make_shared<Client>(io, totals, argv[2], argv[3], std::stoi(argv[5]))->start(endpoint);
    io.run();
    std::printf("opened %d of %d, sent %ld, answered %ld, failed %ld\n", totals.opened, count, totals.sent, totals.answered, totals.failed);
    return totals.opened == count && totals.answered == totals.sent && totals.failed == 0 ? 0 : 1;
}
