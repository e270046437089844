// Relays TCP connections to one server, with a switch that holds every byte in place.
#include "support/tcp_relay.h"

#include "support/loopback.h"

#include <array>
#include <stdexcept>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace wr::test {
namespace {

constexpr int k_poll_ms = 20;

int connect_to(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Moves what is readable on `from` to `to`; false when either end is gone.
bool pass(int from, int to) {
    std::array<char, 16384> buffer{};
    const ssize_t n = ::read(from, buffer.data(), buffer.size());
    if (n <= 0) return false;
    for (ssize_t sent = 0; sent < n;) {
        const ssize_t m = ::write(to, buffer.data() + sent, static_cast<size_t>(n - sent));
        if (m <= 0) return false;
        sent += m;
    }
    return true;
}

} // namespace

TcpRelay::TcpRelay(int server_port) : m_server_port(server_port) {
    const LoopbackListener listener = listen_on_loopback("the relay", 16);
    m_listener = listener.fd;
    m_port = listener.port;
    m_acceptor = std::thread([this] { accept_loop(); });
}

TcpRelay::~TcpRelay() {
    m_stop = true;
    if (m_acceptor.joinable()) m_acceptor.join();
    std::lock_guard lock(m_mutex);
    for (std::thread& pump : m_pumps) pump.join();
    ::close(m_listener);
}

void TcpRelay::accept_loop() {
    while (!m_stop) {
        pollfd waiting{m_listener, POLLIN, 0};
        if (::poll(&waiting, 1, k_poll_ms) <= 0) continue;
        const int client = ::accept(m_listener, nullptr, nullptr);
        if (client < 0) continue;
        const int server = connect_to(m_server_port);
        if (server < 0) {
            ::close(client);
            continue;
        }
        std::lock_guard lock(m_mutex);
        m_pumps.emplace_back([this, client, server] { pump(client, server); });
    }
}

void TcpRelay::pump(int client, int server) {
    while (!m_stop) {
        if (m_held) {
            ::usleep(k_poll_ms * 1000);
            continue;
        }
        std::array<pollfd, 2> ends{{{client, POLLIN, 0}, {server, POLLIN, 0}}};
        if (::poll(ends.data(), ends.size(), k_poll_ms) <= 0) continue;
        // Checked again: hold() may have come while poll() waited.
        if (m_held) continue;
        if ((ends[0].revents & (POLLIN | POLLHUP | POLLERR)) && !pass(client, server)) break;
        if ((ends[1].revents & (POLLIN | POLLHUP | POLLERR)) && !pass(server, client)) break;
    }
    ::close(client);
    ::close(server);
}

} // namespace wr::test
