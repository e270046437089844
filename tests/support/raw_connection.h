#pragma once
// One TCP connection to 127.0.0.1 driven byte by byte, for what a test must time or trickle:
// a head sent a line at a time, a body sent after 100 Continue, an answer read as it streams.
#include <chrono>
#include <string>

namespace wr::test {

class RawConnection {
public:
    explicit RawConnection(int port);
    // From another loopback address ("127.0.0.2"), as a second client machine would connect.
    RawConnection(int port, const std::string& from);
    ~RawConnection();
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    bool connected() const { return m_fd >= 0; }
    // False when the peer closed or reset.
    bool send(const std::string& bytes);
    // Reads until `received()` contains `marker` (true), the peer closes, or `timeout` passes.
    bool read_until(const std::string& marker, std::chrono::milliseconds timeout);
    // Reads until the peer closes (true) or `timeout` passes.
    bool read_until_closed(std::chrono::milliseconds timeout);
    // Reads what arrives within `timeout` (at most `most` bytes), appended to received(); the byte count.
    size_t read_some(std::chrono::milliseconds timeout, size_t most = 1 << 20);
    std::string& received() { return m_received; }
    bool closed() const { return m_closed; }
    int fd() const { return m_fd; }

private:
    int m_fd = -1;
    std::string m_received;
    bool m_closed = false;
};

} // namespace wr::test
