// A mistyped command line gets the nearest command or flag from the real command tree.
#include <doctest/doctest.h>

#include "commands.h"
#include "typos.h"

namespace {

std::optional<std::string> diagnose(std::vector<std::string> arguments) {
    wr::cli::Context context;
    CLI::App root;
    wr::cli::add_commands(root, context);
    return wr::cli::diagnose_unknown_words(root, arguments);
}

} // namespace

TEST_CASE("cli::diagnose_unknown_words suggests the command a typo most likely meant") {
    struct Case {
        std::vector<std::string> arguments;
        std::string message;
    };
    const Case cases[] = {
        {{"room", "list"}, "`room` is not a command of `wr` (did you mean `wr rooms list`?)"},
        {{"roomz", "list"}, "`roomz` is not a command of `wr` (did you mean `wr rooms list`?)"},
        {{"rooms", "lst"}, "`lst` is not a command of `wr rooms` (did you mean `wr rooms list`?)"},
        {{"room", "lst"}, "`room` is not a command of `wr` (did you mean `wr rooms list`?)"},
        {{"--data-dir", "x", "evnets", "list", "shop"}, "`evnets` is not a command of `wr` (did you mean `wr events list`?)"},
        {{"rooms", "stat", "shop"}, "`stat` is not a command of `wr rooms` (did you mean `wr rooms status`?)"},
        {{"frobnicate"}, "`frobnicate` is not a command of `wr`; `wr --help` lists them"},
        {{"rom"}, "`rom` is not a command of `wr` (did you mean `wr rooms`?)"},
        {{"ROOMS", "list"}, "`ROOMS` is not a command of `wr` (did you mean `wr rooms list`?)"},
        {{"rooms", "create", "--zone", "example.com", "--total-active-user", "500"},
         "--total-active-user is not an option of `wr rooms create` (did you mean --total-active-users?)"},
        {{"rooms", "update", "shop", "--total-active-users=500", "--queue-al"},
         "--queue-al is not an option of `wr rooms update` (did you mean --queue-all?)"},
        {{"-o", "json", "rooms", "list", "--zone", "example.com", "--colour"},
         "--colour is not an option of `wr rooms list`; `wr rooms list --help` lists them"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.message);
        CHECK(diagnose(c.arguments) == c.message);
    }
}

TEST_CASE("cli::diagnose_unknown_words finds nothing wrong in a line of known words") {
    CHECK(diagnose({"rooms", "list"}) == std::nullopt);
    CHECK(diagnose({"--api", "http://127.0.0.1:9090", "rooms", "get", "shop", "-o", "json"}) == std::nullopt);
    CHECK(diagnose({"rooms", "create", "--name", "list", "--zone", "rooms"}) == std::nullopt); // values are not words
    CHECK(diagnose({"rooms", "update", "shop", "--no-queue-all"}) == std::nullopt);
    CHECK(diagnose({"events", "create", "shop", "--start", "+30m", "--end=+2h"}) == std::nullopt);
    CHECK(diagnose({"serve", "--trusted-proxy", "10.0.0.0/8", "--data-dir", "d"}) == std::nullopt);
}
