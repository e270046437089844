// The notifications a sequence of observations calls for, on virtual time.
#include <doctest/doctest.h>

#include "notify/detector.h"
#include "support/test_server.h"

using namespace std::chrono_literals;
using wr::model::NotificationKind;
using wr::notify::Detected;
using wr::notify::Detector;
using wr::notify::NodeObservation;
using wr::notify::Observation;
using wr::notify::RoomObservation;

namespace {

RoomObservation shop(bool queueing, int64_t wait = 0, std::string event = "") {
    RoomObservation room;
    room.room_id = "r1";
    room.room_name = "shop";
    room.zone_id = "z1";
    room.zone_name = "example.com";
    room.queueing = queueing;
    room.max_wait_minutes = wait;
    room.event_id = event;
    room.event_name = event.empty() ? "" : "launch";
    room.figures = {{"queued_users", queueing ? 40 : 0}};
    return room;
}

// Feeds one observation a second, `seconds` times, and gathers what was detected.
struct Run {
    Detector detector;
    wr::util::TimePoint now = wr::test::k_test_start;

    explicit Run(std::chrono::milliseconds settle = 30s, std::set<int64_t> thresholds = {}) : detector({settle, std::move(thresholds)}) {}

    std::vector<Detected> feed(const std::vector<RoomObservation>& rooms, const std::vector<NodeObservation>& nodes = {}, int seconds = 1) {
        std::vector<Detected> all;
        for (int i = 0; i < seconds; ++i) {
            for (Detected& detected : detector.observe(Observation{now, rooms, nodes})) all.push_back(std::move(detected));
            now += 1s;
        }
        return all;
    }
};

std::vector<NotificationKind> kinds(const std::vector<Detected>& detected) {
    std::vector<NotificationKind> out;
    for (const Detected& d : detected) out.push_back(d.kind);
    return out;
}

} // namespace

TEST_CASE("notify::Detector announces queueing once it has lasted the settle time, and only once") {
    Run run(30s);
    CHECK(run.feed({shop(false)}, {}, 10).empty());              // the first sight announces nothing
    CHECK(run.feed({shop(true)}, {}, 30).empty());               // 30 observations: 0 s .. 29 s into the change
    const auto started = run.feed({shop(true)});                  // 30 s: announced
    REQUIRE(kinds(started) == std::vector{NotificationKind::queueing_started});
    CHECK(started[0].room_name == "shop");
    CHECK(started[0].zone_name == "example.com");
    CHECK(started[0].figures["queued_users"] == 40);
    CHECK(run.feed({shop(true)}, {}, 300).empty());              // no repeats
    CHECK(kinds(run.feed({shop(false)}, {}, 31)) == std::vector{NotificationKind::queueing_stopped});
}

TEST_CASE("notify::Detector ignores flapping shorter than the settle time") {
    Run run(30s);
    run.feed({shop(false)});
    for (int i = 0; i < 20; ++i) {
        CHECK(run.feed({shop(true)}, {}, 20).empty());
        CHECK(run.feed({shop(false)}, {}, 5).empty());
    }
    Run at_once(0ms);
    at_once.feed({shop(false)});
    CHECK(kinds(at_once.feed({shop(true)})) == std::vector{NotificationKind::queueing_started});
    CHECK(kinds(at_once.feed({shop(false)})) == std::vector{NotificationKind::queueing_stopped});
}

TEST_CASE("notify::Detector announces a wait crossing each threshold, with the threshold") {
    Run run(0ms, {10, 60});
    run.feed({shop(true, 5)});
    const auto above_ten = run.feed({shop(true, 12)});
    REQUIRE(kinds(above_ten) == std::vector{NotificationKind::wait_above_threshold});
    CHECK(above_ten[0].threshold_minutes == 10);
    const auto above_both = run.feed({shop(true, 90)});
    REQUIRE(kinds(above_both) == std::vector{NotificationKind::wait_above_threshold});
    CHECK(above_both[0].threshold_minutes == 60);
    CHECK(run.feed({shop(true, 60)}).size() == 1); // exactly 60 is not above 60
    const auto below = run.feed({shop(true, 3)});
    REQUIRE(kinds(below) == std::vector{NotificationKind::wait_below_threshold});
    CHECK(below[0].threshold_minutes == 10);
    // A threshold added later starts from what is observed.
    run.detector.set_wait_thresholds({10, 60, 2});
    CHECK(run.feed({shop(true, 3)}).empty());
}

TEST_CASE("notify::Detector announces an event's start and end at once, and a switch from one to another as both") {
    Run run(30s);
    run.feed({shop(false)});
    const auto started = run.feed({shop(false, 0, "e1")});
    REQUIRE(kinds(started) == std::vector{NotificationKind::event_started});
    CHECK(started[0].figures["event"]["id"] == "e1");
    CHECK(kinds(run.feed({shop(false, 0, "e2")})) == std::vector{NotificationKind::event_ended, NotificationKind::event_started});
    CHECK(kinds(run.feed({shop(false)})) == std::vector{NotificationKind::event_ended});
}

TEST_CASE("notify::Detector follows nodes: shared state lost and restored (settled), reports stopped and resumed") {
    Run run(10s);
    const auto node = [](bool connected, bool reporting) { return NodeObservation{"edge-1", connected, reporting}; };
    run.feed({}, {node(true, true)});
    CHECK(run.feed({}, {node(false, true)}, 10).empty());
    const auto lost = run.feed({}, {node(false, true)});
    REQUIRE(kinds(lost) == std::vector{NotificationKind::node_state_lost});
    CHECK(lost[0].node == "edge-1");
    CHECK(kinds(run.feed({}, {node(false, false)})) == std::vector{NotificationKind::node_stopped_reporting});
    CHECK(run.feed({}, {node(false, false)}, 60).empty());
    CHECK(kinds(run.feed({}, {node(true, true)}, 11)) ==
          std::vector{NotificationKind::node_reporting_again, NotificationKind::node_state_restored});
    // A node seen for the first time while silent or cut off announces nothing.
    CHECK(run.feed({}, {NodeObservation{"edge-2", false, false}}).empty());
}

TEST_CASE("notify::Detector forgets a room that is gone, and meets it again as new") {
    Run run(0ms);
    run.feed({shop(true)});
    CHECK(run.feed({}).empty());
    CHECK(run.feed({shop(false)}).empty());
}
