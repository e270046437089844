// A Redis node that answers as the test says (one thread, every connection polled together).
#include "support/fake_redis.h"

#include "support/loopback.h"

#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <map>
#include <memory>
#include <stdexcept>

namespace wr::test {

FakeRedis::FakeRedis(Answer answer) : m_answer(std::move(answer)) {
    const LoopbackListener listener = listen_on_loopback("the fake Redis");
    m_listener = listener.fd;
    m_port = listener.port;
    m_thread = std::thread([this] { serve(); });
}

FakeRedis::~FakeRedis() {
    m_stop = true;
    m_thread.join();
    ::close(m_listener);
}

std::string FakeRedis::all_slots_at(int port) {
    return "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n" + bulk("127.0.0.1") + ":" + std::to_string(port) + "\r\n" + bulk("fake-" + std::to_string(port));
}

void FakeRedis::serve() {
    // Each client's connection and its request reader (hiredis reads requests as it reads replies).
    std::map<int, std::unique_ptr<redisReader, void (*)(redisReader*)>> clients;
    while (!m_stop) {
        std::vector<pollfd> watched{{m_listener, POLLIN, 0}};
        for (const auto& [fd, reader] : clients) watched.push_back({fd, POLLIN, 0});
        if (::poll(watched.data(), watched.size(), 20) <= 0) continue;
        if (watched[0].revents & POLLIN) {
            const int client = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (client >= 0) clients.emplace(client, std::unique_ptr<redisReader, void (*)(redisReader*)>(redisReaderCreate(), redisReaderFree));
        }
        for (size_t w = 1; w < watched.size(); ++w) {
            if (watched[w].revents == 0) continue;
            const int fd = watched[w].fd;
            redisReader* reader = clients.at(fd).get();
            std::array<char, 16384> buffer{};
            const ssize_t n = ::read(fd, buffer.data(), buffer.size());
            bool open = n > 0 && redisReaderFeed(reader, buffer.data(), static_cast<size_t>(n)) == REDIS_OK;
            while (open) {
                void* raw = nullptr;
                if (redisReaderGetReply(reader, &raw) != REDIS_OK) open = false;
                if (!raw) break;
                const std::unique_ptr<redisReply, void (*)(void*)> request(static_cast<redisReply*>(raw), freeReplyObject);
                std::vector<std::string> words;
                for (size_t i = 0; request->type == REDIS_REPLY_ARRAY && i < request->elements; ++i)
                    words.emplace_back(request->element[i]->str, request->element[i]->len);
                const std::string answer = m_answer(words);
                open = ::write(fd, answer.data(), answer.size()) == static_cast<ssize_t>(answer.size());
            }
            if (!open) {
                ::close(fd);
                clients.erase(fd);
            }
        }
    }
    for (const auto& [fd, reader] : clients) ::close(fd);
}

} // namespace wr::test
