// Records of count changes (state/count_log): what goes in comes out, records concatenate, and
// bytes that are not records are refused rather than misread.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "state/count_log.h"
#include "util/random.h"

using wr::queue::LedgerChange;
using Kind = LedgerChange::Kind;

namespace {

std::vector<LedgerChange> read(const std::string& bytes) {
    std::vector<LedgerChange> out;
    REQUIRE(wr::state::read_records(bytes, out));
    return out;
}

} // namespace

TEST_CASE("count log: every count kind, at any key, slot and delta, comes back as it went in") {
    wr::util::SeededRandom random(3);
    const Kind kinds[] = {Kind::active, Kind::waiting, Kind::admitted, Kind::arrived, Kind::checked_in, Kind::browsed};
    for (int round = 0; round < 500; ++round) {
        std::vector<LedgerChange> changes;
        for (uint64_t i = random.next() % 40; i > 0; --i) {
            LedgerChange change{kinds[random.next() % 6], static_cast<int64_t>(random.next()), 0, static_cast<int64_t>(random.next())};
            if (change.kind == Kind::waiting) change.minute = static_cast<int64_t>(random.next());
            if (random.chance(0.5)) change.key %= 100000; // near neighbours, as a ledger's are
            changes.push_back(change);
        }
        std::string bytes;
        wr::state::append_record(bytes, changes);
        CHECK(read(bytes) == changes);
    }
    const int64_t extremes[] = {std::numeric_limits<int64_t>::min(), -1, 0, 1, std::numeric_limits<int64_t>::max()};
    std::vector<LedgerChange> changes;
    for (const int64_t a : extremes)
        for (const int64_t b : extremes) changes.push_back({Kind::waiting, a, b, a});
    std::string bytes;
    wr::state::append_record(bytes, changes);
    CHECK(read(bytes) == changes);
}

TEST_CASE("count log: records concatenate, revocations and seeds are left out, and nothing makes no record") {
    const std::vector<LedgerChange> first = {{Kind::active, 29000000, 0, 2}, {Kind::revoked, 77, 123, 0}, {Kind::admitted, 29000000, 0, 2}};
    const std::vector<LedgerChange> second = {{Kind::waiting, 1764000000000, 176400000, -1}, {Kind::release_seed, 29000000, 5, 0}};
    std::string bytes;
    wr::state::append_record(bytes, first);
    wr::state::append_record(bytes, {{Kind::revoked, 1, 2, 0}}); // nothing to record
    wr::state::append_record(bytes, second);
    const std::vector<LedgerChange> expected = {first[0], first[2], second[0]};
    CHECK(read(bytes) == expected);
    CHECK(read("").empty());
}

TEST_CASE("count log: a push's changes cost a few bytes each") {
    // A sync's worth of a busy room: admissions and renewals, waiting users moving between two
    // slots of a few buckets, arrivals, check-ins, browsing.
    const int64_t minute = 29440000, slot = minute * 6;
    const std::vector<LedgerChange> changes = {
        {Kind::active, minute - 3, 0, -4}, {Kind::active, minute, 0, 9},   {Kind::waiting, minute * 60000, slot - 2, -3},
        {Kind::waiting, minute * 60000, slot, 3}, {Kind::waiting, (minute + 1) * 60000, slot, 2}, {Kind::admitted, minute, 0, 5},
        {Kind::arrived, slot, 0, 2},       {Kind::checked_in, slot, 0, 3},  {Kind::browsed, slot, 0, 81234}};
    std::string bytes;
    wr::state::append_record(bytes, changes);
    CHECK(bytes.size() <= 64); // text field names and packed counts took about 200
}

TEST_CASE("count log: bytes that are not records are refused") {
    std::string good;
    wr::state::append_record(good, {{Kind::active, 29000000, 0, 2}, {Kind::waiting, 5, 6, 7}});
    std::vector<LedgerChange> out;
    for (size_t cut = 1; cut < good.size(); ++cut) {
        CAPTURE(cut);
        CHECK_FALSE(wr::state::read_records(good.substr(0, cut), out)); // cut short
    }
    CHECK_FALSE(wr::state::read_records("\x02\x01\x00\x02\x04", out)); // another format
    CHECK_FALSE(wr::state::read_records(std::string("\x01\x01\x03\x02\x04", 5), out)); // a revocation is no count
    CHECK_FALSE(wr::state::read_records(std::string("\x01\x01\x09\x02\x04", 5), out)); // no such kind
    CHECK_FALSE(wr::state::read_records(std::string("\x01\x01\x00") + std::string(11, '\xff') + "\x01", out)); // a varint of eleven bytes
    CHECK_FALSE(wr::state::read_records(std::string("\x01\xff\xff\x03", 4), out)); // more changes than bytes
}
