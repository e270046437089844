#pragma once
// Timestamps (the text a user sent and the instant it denotes) for tests to build schedules with.
#include <string>

#include "model/timestamp.h"
#include "util/clock.h"

namespace wr::test {

// The Timestamp of ISO 8601 text such as "2026-12-01T10:00:00Z"; fails the test when it does not parse.
model::Timestamp at(const std::string& text);

// The Timestamp of an instant, its text as wr writes it.
model::Timestamp at(util::TimePoint time);

} // namespace wr::test
