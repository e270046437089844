// The log's lines about a failing origin: the first failure of a kind at once, then one line a
// minute per zone and kind with the count — a dead origin behind a busy room writes a line a
// minute, not one per request.
#include <doctest/doctest.h>

#include "origin/failure_notes.h"

using wr::origin::FailureNotes;
using namespace std::chrono_literals;

namespace {

const wr::util::TimePoint k_notes_start{std::chrono::sys_days{std::chrono::year{2026} / 3 / 1}};

FailureNotes::Counts notes_refused(uint64_t count) {
    FailureNotes::Counts counts{};
    counts[static_cast<size_t>(wr::model::OriginErrorKind::refused)] = count;
    return counts;
}

} // namespace

TEST_CASE("failure notes: the first failure at once, then the count once a minute, and nothing while the origin is fine") {
    FailureNotes notes;
    CHECK(notes.update("example.com", notes_refused(0), k_notes_start).empty());
    const auto first = notes.update("example.com", notes_refused(1), k_notes_start + 2s);
    CHECK(first == std::vector<std::string>{
                       "origin of zone example.com: 1 connection refused or unreachable (more of these are summed up once a minute)"});
    // A thousand more within the minute: no line until it has passed.
    for (int i = 1; i <= 29; ++i) CHECK(notes.update("example.com", notes_refused(1 + 1000ull * i / 29), k_notes_start + 2s + i * 2s).empty());
    const auto summed = notes.update("example.com", notes_refused(1001), k_notes_start + 62s);
    CHECK(summed == std::vector<std::string>{"origin of zone example.com: 1000 connections refused or unreachable in the last minute"});
    // The origin is fine again: nothing to say, however long.
    CHECK(notes.update("example.com", notes_refused(1001), k_notes_start + 200s).empty());
    // A new episode, long after: told at once, as a first.
    CHECK(notes.update("example.com", notes_refused(1003), k_notes_start + 400s).front().ends_with("(more of these are summed up once a minute)"));
}

TEST_CASE("failure notes: each zone and each kind has its own line and its own minute") {
    FailureNotes notes;
    FailureNotes::Counts both = notes_refused(3);
    both[static_cast<size_t>(wr::model::OriginErrorKind::timeout)] = 2;
    const auto lines = notes.update("a.com", both, k_notes_start);
    CHECK(lines.size() == 2);
    CHECK(lines[0].starts_with("origin of zone a.com: 3 connections refused"));
    CHECK(lines[1] == "origin of zone a.com: 2 requests not answered in time (more of these are summed up once a minute)");
    CHECK(notes.update("b.com", notes_refused(1), k_notes_start + 1s).size() == 1);
    CHECK(notes.update("a.com", notes_refused(4), k_notes_start + 1s).empty());
}
