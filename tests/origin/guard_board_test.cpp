// The guard board turns what nodes report of a room's origin into one sample per control step:
// checked against a GuardController fed the sample the reports add up to (the oracle).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "origin/guard_board.h"

using wr::model::MinuteRecord;
using wr::model::OriginErrorKind;
using wr::origin::GuardBoard;
using wr::origin::GuardController;
using wr::origin::GuardState;
using wr::origin::Limits;
using wr::origin::OriginSample;
using wr::origin::RoomLoad;
using wr::util::TimePoint;
using namespace std::chrono_literals;

namespace {

const TimePoint k_board_start{std::chrono::sys_days{std::chrono::year{2026} / 3 / 1}};
const Limits k_board_configured{1000, 300};
const RoomLoad k_board_load{400, 120, 50, 380};

wr::model::OriginGuardSettings board_guard_on() {
    wr::model::OriginGuardSettings settings;
    settings.enabled = true;
    settings.target_ttfb_ms = 200;
    settings.max_error_rate = 0.05;
    return settings;
}

// One node's report: `ok` 2xx answers and `failed` 5xx answers taking `ttfb_ms`, and `refused`
// requests that got no answer.
MinuteRecord board_report(int64_t ok, int64_t failed, int64_t refused, int64_t ttfb_ms) {
    MinuteRecord record;
    record.origin_answers[1] = ok;
    record.origin_answers[4] = failed;
    record.origin_errors[static_cast<size_t>(OriginErrorKind::refused)] = refused;
    record.origin_time.add(ttfb_ms, ok + failed);
    return record;
}

} // namespace

TEST_CASE("guard board: a step's sample is what every node reported since the room's last step, 5xx and failures as errors") {
    GuardBoard board;
    const GuardBoard::RoomInput room{"r1", board_guard_on(), k_board_configured, k_board_load};
    board.step({room}, k_board_start); // the first step: nothing reported yet
    board.add("r1", "edge-1", board_report(30, 2, 0, 900), k_board_start + 2s);  // one edge
    board.add("r1", "edge-2", board_report(20, 0, 3, 900), k_board_start + 3s);  // another
    board.add("r2", "edge-1", board_report(500, 0, 0, 10), k_board_start + 2s);  // another room's origin is none of r1's business
    const auto decisions = board.step({room}, k_board_start + 5s);
    REQUIRE(decisions.size() == 1);
    CHECK(decisions[0].room_id == "r1");

    // The oracle: a controller fed by hand what the two reports add up to.
    GuardController oracle;
    wr::model::Histogram ttfb;
    ttfb.add(900, 52);
    oracle.update(board_guard_on(), k_board_configured, wr::origin::sample_of(0, 0, {}, 5000ms), k_board_load, k_board_start);
    const auto expected = oracle.update(board_guard_on(), k_board_configured, wr::origin::sample_of(52, 5, ttfb, 5000ms), k_board_load, k_board_start + 5s);
    CHECK(decisions[0].decision.effective == expected.effective);
    CHECK(decisions[0].decision.state == expected.state);
    CHECK(decisions[0].decision.state == GuardState::throttling); // 900 ms against a 200 ms target
    CHECK(decisions[0].decision.readings.error_rate == doctest::Approx(expected.readings.error_rate));
    CHECK(board.last("r1")->effective == expected.effective);

    // What was counted went into that step: the next one starts from nothing.
    const auto quiet = board.step({room}, k_board_start + 10s);
    const auto expected_quiet = oracle.update(board_guard_on(), k_board_configured, wr::origin::sample_of(0, 0, {}, 5000ms), k_board_load, k_board_start + 10s);
    CHECK(quiet[0].decision.effective == expected_quiet.effective);
}

TEST_CASE("guard board: a room no longer given is forgotten, and one that comes back starts afresh") {
    GuardBoard board;
    const GuardBoard::RoomInput room{"r1", board_guard_on(), k_board_configured, k_board_load};
    board.step({room}, k_board_start);
    board.add("r1", "edge-1", board_report(60, 0, 0, 2000), k_board_start + 2s);
    CHECK(board.step({room}, k_board_start + 5s)[0].decision.state == GuardState::throttling);
    CHECK(board.step({}, k_board_start + 10s).empty());
    CHECK_FALSE(board.last("r1").has_value());
    CHECK(board.step({room}, k_board_start + 15s)[0].decision.state == GuardState::content);
}

TEST_CASE("guard board: the sample's p95 is the reports' merged histogram's, and a sample without answers has none") {
    wr::model::Histogram ttfb;
    ttfb.add(100, 90);
    ttfb.add(3000, 10);
    const OriginSample sample = wr::origin::sample_of(100, 4, ttfb, 5000ms);
    CHECK(sample.answers == 100);
    CHECK(sample.errors == 4);
    CHECK(sample.interval == 5000ms);
    CHECK(sample.p95_ttfb_ms == static_cast<double>(ttfb.percentile(0.95)));
    CHECK(sample.p95_ttfb_ms >= 3000 * 0.9);
    CHECK(wr::origin::sample_of(0, 7, {}, 5000ms).p95_ttfb_ms < 0);
}

TEST_CASE("guard board: nodes reporting on their own clocks give each step the origin's rate, however many reports fell in it") {
    // Three edges each see 10 answers a second and push what they saw every 2 s, at their own
    // phase and a little early or late; the control node steps every 4 s. A step holds one, two
    // or three reports of an edge: counted as they came, the throughput would read 15 % low or
    // 20 % high from step to step (one edge's share half or one and a half of itself). The oracle:
    // 30 a second over each step's interval.
    GuardBoard board;
    const GuardBoard::RoomInput room{"r1", board_guard_on(), k_board_configured, k_board_load};
    const int offsets_ms[] = {300, 1100, 1700};
    const int jitter_ms[] = {0, 700, -700, 300, 0, -300};
    std::vector<std::pair<int, int>> pushes; // (when, node)
    for (int node = 0; node < 3; ++node)
        for (int k = 0; k < 30; ++k) pushes.emplace_back(offsets_ms[node] + 2000 * k + jitter_ms[(k + node) % 6], node);
    std::sort(pushes.begin(), pushes.end());
    int last_push_ms[3] = {0, 0, 0};
    size_t next = 0;
    int checked = 0;
    for (int step_ms = 900; step_ms <= 56900; step_ms += 4000) {
        for (; next < pushes.size() && pushes[next].first <= step_ms; ++next) {
            const auto [when, node] = pushes[next];
            const int64_t seen = (when - last_push_ms[node]) / 100; // 10 a second since its last push
            last_push_ms[node] = when;
            board.add("r1", "edge-" + std::to_string(node), board_report(seen, 0, 0, 100), k_board_start + std::chrono::milliseconds{when});
        }
        const auto decisions = board.step({room}, k_board_start + std::chrono::milliseconds{step_ms});
        REQUIRE(decisions.size() == 1);
        if (step_ms < 8900) continue; // the first report of each edge has no span yet
        const OriginSample& sample = decisions[0].sample;
        CHECK(sample.interval == 4000ms);
        INFO("step at ", step_ms, " ms");
        CHECK(static_cast<double>(sample.answers) == doctest::Approx(120).epsilon(0.02));
        ++checked;
    }
    CHECK(checked == 13);
}

TEST_CASE("guard board: a node quiet for a while counts its quiet time, and one heard after a long silence stands for a few steps at most") {
    GuardBoard board;
    const GuardBoard::RoomInput room{"r1", board_guard_on(), k_board_configured, k_board_load};
    board.add("r1", "edge-1", board_report(20, 0, 0, 100), k_board_start + 2s);
    board.step({room}, k_board_start + 4s);
    // 20 answers over the 20 s since its last report (reports without origin answers in between
    // change nothing): 1 a second, 4 over the step's 4 s.
    for (auto at = 8s; at <= 20s; at += 4s) board.step({room}, k_board_start + at);
    board.add("r1", "edge-1", board_report(20, 0, 0, 100), k_board_start + 22s);
    CHECK(board.step({room}, k_board_start + 24s)[0].sample.answers == 4);
    // 400 answers in a report 0.1 s after the one before: at most 4 steps' worth of the rate.
    board.add("r1", "edge-1", board_report(400, 0, 0, 100), k_board_start + 22s + 100ms);
    CHECK(board.step({room}, k_board_start + 28s)[0].sample.answers == 1600);
}

TEST_CASE("guard board: a burst after a quiet spell is read over the time since the node's last report, not the whole spell") {
    // The node keeps reporting (every 2 s) while its room is quiet; the steps meanwhile count the
    // quiet time. Its first answers after the spell came within its last 2 s: the step must see
    // them at that rate, not spread over three minutes (the oracle: 60 answers over 2 s, held
    // over the step's 4 s, is 120, at most four times the count).
    GuardBoard board;
    const GuardBoard::RoomInput room{"r1", board_guard_on(), k_board_configured, k_board_load};
    board.add("r1", "edge-1", board_report(20, 0, 0, 100), k_board_start + 2s);
    board.heard("edge-1", k_board_start + 2s);
    board.step({room}, k_board_start + 4s);
    auto at = 4s;
    for (auto report = 4s; report <= 180s; report += 2s) {
        board.heard("edge-1", k_board_start + report); // reports without this room's origin in them
        if (report >= at + 4s) {
            at = report;
            CHECK(board.step({room}, k_board_start + at)[0].sample.answers == 0);
        }
    }
    board.add("r1", "edge-1", board_report(60, 0, 0, 400), k_board_start + 182s);
    board.heard("edge-1", k_board_start + 182s);
    CHECK(board.step({room}, k_board_start + 184s)[0].sample.answers == 120);
    // A node not heard from at all (cut off) still has its counts spread over its silence.
    board.add("r1", "edge-2", board_report(40, 0, 0, 100), k_board_start + 186s);
    for (auto step = 188s; step <= 224s; step += 4s) board.step({room}, k_board_start + step);
    board.add("r1", "edge-2", board_report(40, 0, 0, 100), k_board_start + 226s);
    CHECK(board.step({room}, k_board_start + 228s)[0].sample.answers == 4); // 40 over 40 s, held over 4 s
}
