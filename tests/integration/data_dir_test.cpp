// The data directory holds the admin token, the cookie keys and the database: nobody but the
// user running wr may read any of it, whatever the umask.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "support/temp_dir.h"
#include "support/test_server.h"

namespace {

unsigned mode_of(const std::filesystem::path& path) {
    struct stat info {};
    REQUIRE_MESSAGE(::stat(path.c_str(), &info) == 0, "no " << path.string());
    return info.st_mode & 07777;
}

// Restores the umask the test found.
struct Umask {
    explicit Umask(mode_t mask) : previous(::umask(mask)) {}
    ~Umask() { ::umask(previous); }
    mode_t previous;
};

} // namespace

TEST_SUITE("integration") {

TEST_CASE("data dir: created 0700, and the database, its WAL, the token and the keys are 0600") {
    const Umask generous(0022);
    wr::test::TempDir temp;
    const std::filesystem::path data_dir = temp.path() / "var" / "wr";
    {
        wr::test::TestServer server(data_dir);
        server.create_zone();
        server.create_token("read");
        CHECK(mode_of(data_dir) == 0700);
        CHECK(std::filesystem::exists(data_dir / "wr.db-wal"));
        std::vector<std::string> seen;
        for (const auto& entry : std::filesystem::directory_iterator(data_dir)) {
            seen.push_back(entry.path().filename().string());
            CHECK_MESSAGE(mode_of(entry.path()) == 0600, entry.path().filename().string() << " is not 0600");
        }
        for (const char* expected : {"wr.db", "wr.db-wal", "wr.db-shm", "admin.token", "cookie.key"})
            CHECK_MESSAGE(std::find(seen.begin(), seen.end(), expected) != seen.end(), expected << " missing");
    }
}

TEST_CASE("data dir: one that exists readable by group or others is made 0700 at start") {
    for (const unsigned mode : {0755U, 0750U, 0701U, 0700U}) {
        CAPTURE(mode);
        wr::test::TempDir temp;
        const std::filesystem::path data_dir = temp.path() / "wr";
        std::filesystem::create_directory(data_dir);
        REQUIRE(::chmod(data_dir.c_str(), mode) == 0);
        wr::test::TestServer server(data_dir);
        CHECK(mode_of(data_dir) == 0700);
    }
}

} // TEST_SUITE
