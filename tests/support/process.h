#pragma once
// Runs the real `wr` binary, as users do, and captures what it prints.
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wr::test {

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs WR_BINARY with these arguments and extra environment; stdin from `input`.
ProcessResult run_wr(const std::vector<std::string>& arguments, const std::map<std::string, std::string>& environment = {},
                     const std::string& input = "");

// What a shell command (curl, node, redis-cli…) prints on stdout, all of it.
std::string command_output(const std::string& command);

} // namespace wr::test

namespace wr::test {

// A program running beside the test (an origin), stopped when the object goes away.
class BackgroundProcess {
public:
    // Starts it and waits (up to 10 s) for a line on stdout (and stderr too, when
    // `with_stderr`) that contains `ready_marker`.
    BackgroundProcess(const std::vector<std::string>& arguments, const std::string& ready_marker, bool with_stderr = false);
    ~BackgroundProcess();
    BackgroundProcess(const BackgroundProcess&) = delete;
    BackgroundProcess& operator=(const BackgroundProcess&) = delete;

    const std::string& ready_line() const { return m_ready_line; }
    int pid() const { return m_pid; }
    // Every line read up to the ready line.
    const std::string& output() const { return m_output; }
    void send_signal(int signal);
    // The exit code once it exited within `timeout` (-1: killed by a signal); nullopt if still running.
    std::optional<int> wait_exit(std::chrono::milliseconds timeout);
    // What it printed after the ready line; call after it exited.
    std::string rest_of_output();

private:
    std::string m_output;
    int m_pid = -1;
    int m_stdout = -1;
    std::string m_ready_line;
};

// The demo origin on an ephemeral port.
class TestOrigin {
public:
    TestOrigin();
    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
    BackgroundProcess m_process;
    int m_port = 0;
};

} // namespace wr::test

namespace wr::test {

// wr-stream-origin (tools/stream_origin.cpp) on an ephemeral port: SSE, large bodies, uploads,
// WebSockets. stats() reads its /stats.
class StreamOrigin {
public:
    StreamOrigin();
    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::string stats() const; // the JSON text

private:
    BackgroundProcess m_process;
    int m_port = 0;
};

} // namespace wr::test

namespace wr::test {

// wr-capacity-origin (tools/capacity_origin.cpp) on an ephemeral port: `workers` workers taking
// `service_ms` a request behind one queue, with the tool's other options as `extra` flags
// ("--max-connections", "64", …). stats() reads its /stats.
class CapacityOrigin {
public:
    CapacityOrigin(int workers, double service_ms, const std::vector<std::string>& extra = {});
    int port() const { return m_port; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::string stats(bool reset = false) const; // the JSON text

private:
    BackgroundProcess m_process;
    int m_port = 0;
};

} // namespace wr::test

namespace wr::test {

// The port of the first "127.0.0.1:PORT" after `marker` in a process's output (wr logs
// "edge: … listening on http://127.0.0.1:PORT"); fails the test when the marker is missing.
int port_after(const std::string& output, const std::string& marker);

// The admin token `wr serve` wrote into `data_dir` (admin.token), without its trailing newline;
// empty when there is none.
std::string read_admin_token(const std::filesystem::path& data_dir);

} // namespace wr::test
