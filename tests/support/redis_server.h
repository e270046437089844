#pragma once
// A real redis-server (and redis-sentinel) for the tests, on 127.0.0.1 ephemeral ports, with
// no persistence: killing one loses everything, as a crash of an unpersisted Redis does.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace wr::test {

// A TCP port nothing listens on right now.
int free_port();

class RedisServer {
public:
    // `extra`: more redis-server arguments (--replicaof …).
    explicit RedisServer(std::vector<std::string> extra = {}, int port = 0);
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;
    int port() const { return m_port; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(m_port) + "/0"; }
    bool running() const { return m_process != nullptr; }
    void kill();    // SIGKILL: gone at once, its data with it
    void restart(); // again on the same port, empty
    // SIGSTOP: its connections stay open and nothing answers, as a host that hangs or is cut off
    // without a reset; resume() (or the end of the test) lets it go on.
    void pause();
    void resume();
    // redis-cli's answer to one command, trailing newline removed.
    std::string cli(const std::vector<std::string>& arguments) const;

private:
    void start();
    TempDir m_dir; // its working directory: a replica writes the copy it receives there
    std::vector<std::string> m_extra;
    int m_port = 0;
    bool m_paused = false;
    std::unique_ptr<BackgroundProcess> m_process;
};

// One Sentinel watching `master_name` at 127.0.0.1:master_port, quick to fail over. It points a
// replica that copies another address back at the master after `failover_timeout` (a long one
// leaves a replica behind a relay where it is).
class RedisSentinel {
public:
    RedisSentinel(int master_port, const std::string& master_name, std::chrono::milliseconds failover_timeout = std::chrono::seconds{2});
    int port() const { return m_port; }
    std::string cli(const std::vector<std::string>& arguments) const;

private:
    TempDir m_dir;
    int m_port = 0;
    std::unique_ptr<BackgroundProcess> m_process;
};

} // namespace wr::test
