#pragma once
// A TCP relay on 127.0.0.1 that passes bytes between its clients and one server until told to
// hold them: put between a Redis replica and its master, it makes the replica lag by exactly
// what the master wrote while the relay held (asynchronous replication, made deterministic).
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace wr::test {

class TcpRelay {
public:
    explicit TcpRelay(int server_port);
    ~TcpRelay();
    TcpRelay(const TcpRelay&) = delete;
    TcpRelay& operator=(const TcpRelay&) = delete;

    int port() const { return m_port; }
    // Bytes not yet passed stay where they are (in the kernel's buffers) until release();
    // connections stay open, so neither end notices anything but silence.
    void hold() { m_held = true; }
    void release() { m_held = false; }

private:
    void accept_loop();
    void pump(int client, int server);

    int m_server_port = 0;
    int m_listener = -1;
    int m_port = 0;
    std::atomic<bool> m_held{false};
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    std::vector<std::thread> m_pumps;
    std::thread m_acceptor;
};

} // namespace wr::test
