#pragma once
// Client addresses written the way people read them.
#include <string_view>

#include "queue/join_limiter.h"

namespace wr::test {

// "192.0.2.1" or "2001:db8::1" as the 16-byte address the edge works with; fails the test when malformed.
queue::ClientAddress ip(std::string_view text);

} // namespace wr::test
