#pragma once
// Runs the real `wr` binary, as users do, and captures what it prints.
#include <map>
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

} // namespace wr::test

namespace wr::test {

// A program running beside the test (an origin), stopped when the object goes away.
class BackgroundProcess {
public:
    // Starts it and waits (up to 10 s) for a line on stdout that contains `ready_marker`.
    BackgroundProcess(const std::vector<std::string>& arguments, const std::string& ready_marker);
    ~BackgroundProcess();
    BackgroundProcess(const BackgroundProcess&) = delete;
    BackgroundProcess& operator=(const BackgroundProcess&) = delete;

    const std::string& ready_line() const { return m_ready_line; }
    int pid() const { return m_pid; }

private:
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
