#pragma once
// What the log says of an origin that fails: the first failure of a kind at once, then at most
// one line a minute per zone and kind with how many there were — never a line per request. A
// dead origin behind a busy room fails thousands of times a second; the log must stay readable
// and the edge threads must not write it (they only count, in origin::OriginStats). Pure: the
// counts since start and the time come in, the lines to log go out.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/minute_record.h"
#include "util/clock.h"

namespace wr::origin {

inline constexpr util::Milliseconds k_failure_note_interval{60000};

class FailureNotes {
public:
    using Counts = std::array<uint64_t, model::k_origin_error_kinds>;

    // The zone's failures by kind since start, now; returns the lines due.
    std::vector<std::string> update(const std::string& zone_name, const Counts& counts, util::TimePoint now);

private:
    struct Kind {
        uint64_t seen = 0;        // the count at the last update
        uint64_t unreported = 0;  // failures since the last line
        util::TimePoint noted{};  // when the last line went out
        bool ever_noted = false;
    };
    std::map<std::string, std::array<Kind, model::k_origin_error_kinds>> m_zones;
};

// "connections refused", "answers that were not HTTP", … for a line of the log.
std::string failure_description(model::OriginErrorKind kind, uint64_t count);

} // namespace wr::origin
