// The guess behind "did you mean …?" in wr's messages: near enough to help, never a wild guess.
#include <doctest/doctest.h>

#include "util/nearest_name.h"

using wr::util::did_you_mean;
using wr::util::edit_distance;
using wr::util::nearest_name;

TEST_CASE("util::edit_distance counts insertions, deletions, substitutions and swaps of neighbours") {
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("list", "list") == 0);
    CHECK(edit_distance("lst", "list") == 1);
    CHECK(edit_distance("roomz", "rooms") == 1);
    CHECK(edit_distance("sesion_duration", "session_duration") == 1);
    CHECK(edit_distance("log-levl", "log-level") == 1);
    CHECK(edit_distance("lsit", "list") == 1); // a swap is one edit
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("", "abc") == 3);
}

TEST_CASE("util::nearest_name suggests the closest known name, within a distance that grows with length") {
    const std::vector<std::string> commands = {"serve", "zones", "rooms", "events", "rules", "settings", "tokens"};
    CHECK(nearest_name("room", commands) == "rooms");
    CHECK(nearest_name("roomz", commands) == "rooms");
    CHECK(nearest_name("evnets", commands) == "events");
    CHECK(nearest_name("setings", commands) == "settings");
    CHECK(nearest_name("rooms", commands) == std::nullopt);   // known: nothing to guess
    CHECK(nearest_name("xq", commands) == std::nullopt);      // too short to be anything
    CHECK(nearest_name("database", commands) == std::nullopt); // far from everything

    const std::vector<std::string> actions = {"create", "list", "get", "update", "delete", "suspend", "resume", "status"};
    CHECK(nearest_name("lst", actions) == "list");
    CHECK(nearest_name("stat", actions) == "status"); // the beginning of one name
    CHECK(nearest_name("upd", actions) == "update");
    CHECK(nearest_name("s", actions) == std::nullopt);

    const std::vector<std::string> fields = {"session_duration", "total_active_users", "new_users_per_minute"};
    CHECK(nearest_name("sesion_duration", fields) == "session_duration");
    CHECK(nearest_name("total-active-user", fields) == "total_active_users");
    CHECK(nearest_name("shuffle", fields) == std::nullopt);
}

TEST_CASE("util::did_you_mean phrases the guess, or says nothing") {
    CHECK(did_you_mean("log-levl", {"log-level", "edge-listen"}) == " (did you mean log-level?)");
    CHECK(did_you_mean("colour", {"log-level", "edge-listen"}) == "");
}

TEST_CASE("util::nearest_name ignores case and reads a name with letters left out") {
    const std::vector<std::string> commands = {"serve", "zones", "rooms", "events", "rules", "settings", "tokens", "templates"};
    CHECK(nearest_name("ROOMS", commands) == "rooms");
    CHECK(nearest_name("Zones", commands) == "zones");
    CHECK(nearest_name("rom", commands) == "rooms");
    CHECK(nearest_name("tmpl", commands) == "templates");
    CHECK(nearest_name("tes", commands) == std::nullopt); // tokens or templates: no guess
    CHECK(nearest_name("om", commands) == std::nullopt);  // too short
    const std::vector<std::string> states = {"fifo", "random", "queue-full", "queue-all", "unknown", "prequeue"};
    CHECK(nearest_name("fifoo", states) == "fifo");
}
