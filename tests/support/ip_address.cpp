// Client addresses from text.
#include "support/ip_address.h"

#include <doctest/doctest.h>

#include "expr/evaluate.h"

namespace wr::test {

queue::ClientAddress ip(std::string_view text) {
    queue::ClientAddress address{};
    REQUIRE(expr::parse_ip_address(text, address));
    return address;
}

} // namespace wr::test
