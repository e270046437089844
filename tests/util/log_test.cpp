// The server log: one message, one line, whatever a client put in it.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/temp_dir.h"
#include "util/log.h"

namespace {

// What util::log writes to stderr while `work` runs.
template <typename Work> std::string stderr_of(Work&& work) {
    wr::test::TempDir dir;
    const std::string file = (dir.path() / "stderr").string();
    std::fflush(stderr);
    const int saved = ::dup(STDERR_FILENO);
    FILE* capture = std::fopen(file.c_str(), "w");
    REQUIRE(capture);
    ::dup2(::fileno(capture), STDERR_FILENO);
    work();
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    std::fclose(capture);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST_CASE("util::log writes what a client sent as one line: controls and stray bytes as \\xHH") {
    // The path of GET /x%0a2026-11-28T00:00:00.000Z%20warn%20auth:%20FORGED%1b%ff, decoded.
    const std::string path = "/x\n2026-11-28T00:00:00.000Z warn auth: FORGED\x1b\xff";
    const std::string written = stderr_of([&] { wr::util::log_warn("admin", "GET " + path + " 404 0.1ms"); });
    CHECK(written.find('\n') == written.size() - 1); // one line
    CHECK(written.find('\x1b') == std::string::npos);
    CHECK(written.find('\xff') == std::string::npos);
    CHECK(written.ends_with(" warn admin: GET /x\\x0A2026-11-28T00:00:00.000Z warn auth: FORGED\\x1B\\xFF 404 0.1ms\n"));
    // Text stays text.
    CHECK(stderr_of([] { wr::util::log_warn("admin", "zone café — ok"); }).ends_with(" warn admin: zone café — ok\n"));
}
