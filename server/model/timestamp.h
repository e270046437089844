#pragma once
// A time given by a user: kept as the exact text they sent (so reads return it unchanged and
// declarative tools see no drift) together with the instant it denotes.
#include <string>

#include "util/clock.h"

namespace wr::model {

struct Timestamp {
    std::string text;
    util::TimePoint time{};

    bool operator==(const Timestamp& other) const { return text == other.text; }
};

} // namespace wr::model
