#include "support/raw_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace wr::test {

RawConnection::RawConnection(int port) : RawConnection(port, "") {}

RawConnection::RawConnection(int port, const std::string& from) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (!from.empty()) {
        sockaddr_in local{};
        local.sin_family = AF_INET;
        if (::inet_pton(AF_INET, from.c_str(), &local.sin_addr) != 1 ||
            ::bind(m_fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
            ::close(m_fd);
            m_fd = -1;
            return;
        }
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        ::close(m_fd);
        m_fd = -1;
        return;
    }
    int yes = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
}

RawConnection::~RawConnection() {
    if (m_fd >= 0) ::close(m_fd);
}

bool RawConnection::send(const std::string& bytes) {
    for (size_t sent = 0; sent < bytes.size();) {
        const ssize_t n = ::send(m_fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return false;
        sent += static_cast<size_t>(n);
    }
    return true;
}

size_t RawConnection::read_some(std::chrono::milliseconds timeout, size_t most) {
    pollfd wait{m_fd, POLLIN, 0};
    if (m_closed || ::poll(&wait, 1, static_cast<int>(timeout.count())) != 1) return 0;
    char chunk[65536];
    const ssize_t n = ::recv(m_fd, chunk, std::min(sizeof chunk, most), 0);
    if (n <= 0) {
        m_closed = true;
        return 0;
    }
    m_received.append(chunk, static_cast<size_t>(n));
    return static_cast<size_t>(n);
}

bool RawConnection::read_until(const std::string& marker, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_received.find(marker) == std::string::npos) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0 || m_closed) return false;
        read_some(left);
    }
    return true;
}

bool RawConnection::read_until_closed(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!m_closed) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        read_some(left);
    }
    return true;
}

} // namespace wr::test
