// The one test binary. Unit tests run with -tse=integration; integration tests with -ts=integration.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <csignal>

#include "util/log.h"

int main(int argc, char** argv) {
    // Servers started by tests log only what goes wrong; WR_TEST_LOG=debug shows everything.
    const char* level = std::getenv("WR_TEST_LOG");
    wr::util::set_log_level(level && std::string(level) == "debug" ? wr::util::LogLevel::debug : wr::util::LogLevel::warn);
    // A peer that closed makes a write fail with EPIPE rather than end the whole test run. The test
    // origins write with OpenSSL on plain sockets, where nothing else asks for that; before, a
    // test that ran after an httplib server (which ignores SIGPIPE) passed, and alone died of it.
    std::signal(SIGPIPE, SIG_IGN);
    doctest::Context context(argc, argv);
    return context.run();
}
