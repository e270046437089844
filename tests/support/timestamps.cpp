// Timestamps from text or from an instant.
#include "support/timestamps.h"

#include <doctest/doctest.h>

#include "util/time_format.h"

namespace wr::test {

model::Timestamp at(const std::string& text) {
    const auto time = util::parse_iso8601(text);
    REQUIRE_MESSAGE(time, text);
    return {text, *time};
}

model::Timestamp at(util::TimePoint time) { return {util::format_iso8601(time), time}; }

} // namespace wr::test
