// libFuzzer target for the waiting-room cookie codec: opens any bytes as a cookie (they must open
// to nothing, never crash) and checks that a sealed ticket opens back to itself, only in its own
// room. Build and run with `make fuzz` (fuzz/run.sh).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "edge/cookie.h"

namespace {

void check(bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

const wr::util::KeyRing& keys() {
    static const wr::util::KeyRing ring = [] {
        wr::util::CookieKey first{1, {}};
        wr::util::CookieKey second{2, {}};
        for (size_t i = 0; i < 32; ++i) {
            first.key[i] = static_cast<uint8_t>(i);
            second.key[i] = static_cast<uint8_t>(255 - i);
        }
        return wr::util::KeyRing({first, second});
    }();
    return ring;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static wr::edge::CookieCodec codec;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // Arbitrary bytes: opening may succeed only for a real seal, which random bytes cannot forge.
    const auto opened = codec.open(input, "room-1", keys());
    (void)opened;

    // A ticket built from the bytes round-trips, and only in its own room.
    wr::queue::Ticket ticket;
    for (size_t i = 0; i < std::min<size_t>(size, 8); ++i) ticket.session_id = (ticket.session_id << 8) | data[i];
    ticket.refresh_interval_seconds = size > 8 ? data[8] % 60 + 1 : 20;
    ticket.shuffled = size > 9 && (data[9] & 1);
    ticket.infinite_queue = size > 9 && (data[9] & 2);
    const std::string sealed = codec.seal(ticket, "room-1", keys());
    const auto back = codec.open(sealed, "room-1", keys());
    check(back.has_value(), "a sealed ticket opens");
    check(!codec.open(sealed, "room-2", keys()).has_value(), "a cookie opens only in its own room");
    return 0;
}
