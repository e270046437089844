#pragma once
// A stand-in Redis node on 127.0.0.1 that answers each command as the test says: for what a real
// server will not do on demand, such as a Cluster master cut off from the other nodes that still
// answers its clients.
#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace wr::test {

class FakeRedis {
public:
    // The answer to one command (its words), as RESP bytes.
    using Answer = std::function<std::string(const std::vector<std::string>& command)>;
    explicit FakeRedis(Answer answer);
    ~FakeRedis();
    FakeRedis(const FakeRedis&) = delete;
    FakeRedis& operator=(const FakeRedis&) = delete;

    int port() const { return m_port; }

    static std::string status(std::string_view text) { return "+" + std::string(text) + "\r\n"; }
    static std::string error(std::string_view text) { return "-" + std::string(text) + "\r\n"; }
    static std::string bulk(std::string_view text) { return "$" + std::to_string(text.size()) + "\r\n" + std::string(text) + "\r\n"; }
    // CLUSTER SLOTS naming one master on 127.0.0.1:`port` for every slot.
    static std::string all_slots_at(int port);

private:
    void serve();

    Answer m_answer;
    int m_listener = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace wr::test
