// Starts redis-server and redis-sentinel for tests and waits until they answer.
#include "support/redis_server.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "support/process.h"

namespace wr::test {
namespace {

std::string run_cli(int port, const std::vector<std::string>& arguments) {
    std::string command = "redis-cli -h 127.0.0.1 -p " + std::to_string(port);
    for (const std::string& argument : arguments) command += " '" + argument + "'";
    std::string out = command_output(command + " 2>&1");
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

void wait_for_ping(int port) {
    for (int attempt = 0; attempt < 200; ++attempt) {
        if (run_cli(port, {"PING"}) == "PONG") return;
        std::this_thread::sleep_for(std::chrono::milliseconds{25});
    }
    throw std::runtime_error("redis on port " + std::to_string(port) + " does not answer PING");
}

// A port free_port() found may be taken before the server binds it: another process's connection
// gets it as its own ephemeral port. The server then stops ("Address already in use"); it starts
// again, up to three times, on ports `find_ports` finds anew.
void starting_on_fresh_ports(const std::function<void()>& start, const std::function<void()>& find_ports) {
    for (int attempt = 1;; ++attempt) {
        try {
            start();
            return;
        } catch (const std::runtime_error& error) {
            if (attempt == 3 || std::string_view(error.what()).find("Address already in use") == std::string_view::npos) throw;
        }
        find_ports();
    }
}

} // namespace

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) throw std::runtime_error("cannot find a free port");
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}

RedisServer::RedisServer(std::vector<std::string> extra, int port) : m_extra(std::move(extra)), m_port(port ? port : free_port()) {
    starting_on_fresh_ports([this] { start(); },
                            [&] {
                                if (!port) m_port = free_port();
                                for (size_t i = 0; i + 1 < m_extra.size(); ++i)
                                    if (m_extra[i] == "--cluster-port") m_extra[i + 1] = std::to_string(free_port());
                            });
}

void RedisServer::start() {
    std::vector<std::string> arguments = {"redis-server", "--port", std::to_string(m_port), "--bind", "127.0.0.1",
                                          "--save", "", "--appendonly", "no", "--dir", m_dir.path().string()};
    arguments.insert(arguments.end(), m_extra.begin(), m_extra.end());
    // posix_spawn needs the path: redis-server lives in /usr/bin on Debian.
    arguments[0] = "/usr/bin/redis-server";
    m_process = std::make_unique<BackgroundProcess>(arguments, "Ready to accept connections");
    wait_for_ping(m_port);
}

RedisServer::~RedisServer() { resume(); } // a stopped process would never see the SIGTERM that ends it

void RedisServer::pause() {
    if (!m_process || m_paused) return;
    m_process->send_signal(SIGSTOP);
    m_paused = true;
}

void RedisServer::resume() {
    if (!m_process || !m_paused) return;
    m_process->send_signal(SIGCONT);
    m_paused = false;
}

void RedisServer::kill() {
    if (!m_process) return;
    m_process->send_signal(SIGKILL);
    m_process->wait_exit(std::chrono::seconds{5});
    m_process.reset();
    m_paused = false;
}

void RedisServer::restart() {
    kill();
    start();
}

std::string RedisServer::cli(const std::vector<std::string>& arguments) const { return run_cli(m_port, arguments); }

RedisSentinel::RedisSentinel(int master_port, const std::string& master_name, std::chrono::milliseconds failover_timeout) {
    const std::string config = (m_dir.path() / "sentinel.conf").string();
    const auto start = [&] {
        std::ofstream(config) << "port " << m_port << "\nbind 127.0.0.1\ndir " << m_dir.path().string() << "\nsentinel monitor "
                              << master_name << " 127.0.0.1 " << master_port << " 1\nsentinel down-after-milliseconds " << master_name
                              << " 400\nsentinel failover-timeout " << master_name << " " << failover_timeout.count() << "\n";
        m_process = std::make_unique<BackgroundProcess>(std::vector<std::string>{"/usr/bin/redis-sentinel", config}, "+monitor master");
        wait_for_ping(m_port);
    };
    m_port = free_port();
    starting_on_fresh_ports(start, [this] { m_port = free_port(); });
}

std::string RedisSentinel::cli(const std::vector<std::string>& arguments) const { return run_cli(m_port, arguments); }

} // namespace wr::test
