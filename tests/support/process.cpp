// Spawns the wr binary with posix_spawn and collects its output through temporary files.
#include "support/process.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <httplib.h>

#include "support/temp_dir.h"
#include "util/files.h"

extern char** environ;

namespace wr::test {

ProcessResult run_wr(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment,
                     const std::string& input) {
    TempDir temp;
    const std::string in_path = (temp.path() / "in").string();
    const std::string out_path = (temp.path() / "out").string();
    const std::string err_path = (temp.path() / "err").string();
    util::write_text_file(in_path, input);

    std::vector<std::string> argv_storage{WR_BINARY};
    argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& argument : argv_storage) argv.push_back(argument.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_storage;
    for (char** entry = environ; *entry; ++entry) {
        const std::string text = *entry;
        // The tests choose the API and token explicitly.
        if (text.starts_with("WR_")) continue;
        env_storage.push_back(text);
    }
    for (const auto& [name, value] : environment) env_storage.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (std::string& entry : env_storage) envp.push_back(entry.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = 0;
    ProcessResult result;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0) {
        int status = 0;
        waitpid(pid, &status, 0);
        result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    result.out = util::read_text_file(out_path).value_or("");
    result.err = util::read_text_file(err_path).value_or("");
    return result;
}

} // namespace wr::test

namespace wr::test {

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& arguments, const std::string& ready_marker, bool with_stderr) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> storage = arguments;
    std::vector<char*> argv;
    for (std::string& argument : storage) argv.push_back(argument.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    if (with_stderr) posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    // SIGPIPE as a shell or service manager would leave it (this test binary ignores it, and a
    // child would inherit that): a server that can raise it on a visitor's closed connection
    // ends, as it would in the field.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    m_stdout = pipe_fds[0];
    if (spawned != 0) throw std::runtime_error("cannot start " + arguments[0]);
    m_pid = pid;
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    char c = 0;
    // Each read waits only for what is left of the ten seconds: a process that prints nothing
    // fails the test rather than hanging it.
    const auto readable = [&] {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        pollfd watched{.fd = m_stdout, .events = POLLIN, .revents = 0};
        return left > 0 && ::poll(&watched, 1, static_cast<int>(left)) == 1;
    };
    while (readable() && ::read(m_stdout, &c, 1) == 1) {
        if (c != '\n') {
            line += c;
            continue;
        }
        m_output += line + '\n';
        if (line.find(ready_marker) != std::string::npos) {
            m_ready_line = line;
            return;
        }
        line.clear();
    }
    // The destructor does not run for a constructor that throws: the process goes here.
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    ::close(m_stdout);
    throw std::runtime_error(arguments[0] + " did not get ready: " + m_output + line);
}

void BackgroundProcess::send_signal(int signal) {
    if (m_pid > 0) ::kill(m_pid, signal);
}

std::optional<int> BackgroundProcess::wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_pid > 0) {
        int status = 0;
        if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
            m_pid = -1;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds{10});
    }
    return std::nullopt;
}

std::string BackgroundProcess::rest_of_output() {
    std::string text;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(m_stdout, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
    return text;
}

BackgroundProcess::~BackgroundProcess() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGTERM);
        int status = 0;
        ::waitpid(m_pid, &status, 0);
    }
    if (m_stdout >= 0) ::close(m_stdout);
}

TestOrigin::TestOrigin() : m_process({WR_DEMO_ORIGIN, "--listen", "127.0.0.1:0"}, "listening on") {
    m_port = std::stoi(m_process.ready_line().substr(m_process.ready_line().rfind(':') + 1));
}

} // namespace wr::test

namespace wr::test {

StreamOrigin::StreamOrigin() : m_process({WR_STREAM_ORIGIN, "--listen", "127.0.0.1:0"}, "listening on") {
    m_port = std::stoi(m_process.ready_line().substr(m_process.ready_line().rfind(':') + 1));
}

std::string StreamOrigin::stats() const {
    httplib::Client client("127.0.0.1", m_port);
    client.set_read_timeout(std::chrono::seconds{5});
    const auto result = client.Get("/stats");
    return result ? result->body : std::string();
}

namespace {

std::vector<std::string> capacity_origin_arguments(int workers, double service_ms, const std::vector<std::string>& extra) {
    std::vector<std::string> arguments = {WR_CAPACITY_ORIGIN, "--port", "0", "--workers", std::to_string(workers), "--service-ms",
                                          std::to_string(service_ms)};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return arguments;
}

} // namespace

CapacityOrigin::CapacityOrigin(int workers, double service_ms, const std::vector<std::string>& extra)
    : m_process(capacity_origin_arguments(workers, service_ms, extra), "listening on") {
    m_port = std::stoi(m_process.ready_line().substr(m_process.ready_line().rfind(':') + 1));
}

std::string CapacityOrigin::stats(bool reset) const {
    httplib::Client client("127.0.0.1", m_port);
    client.set_read_timeout(std::chrono::seconds{5});
    const auto result = client.Get(reset ? "/stats?reset=1" : "/stats");
    return result ? result->body : std::string();
}

} // namespace wr::test

namespace wr::test {

int port_after(const std::string& output, const std::string& marker) {
    const size_t at = output.find(marker);
    REQUIRE_MESSAGE(at != std::string::npos, "no '" << marker << "' in: " << output);
    const size_t colon = output.find(':', output.find("127.0.0.1", at));
    return std::stoi(output.substr(colon + 1));
}

std::string read_admin_token(const std::filesystem::path& data_dir) {
    std::string token = util::read_text_file(data_dir / "admin.token").value_or("");
    while (!token.empty() && token.back() == '\n') token.pop_back();
    return token;
}

} // namespace wr::test

namespace wr::test {

std::string command_output(const std::string& command) {
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("cannot run: " + command);
    std::string out;
    char buffer[4096];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, got);
    ::pclose(pipe);
    return out;
}

} // namespace wr::test
