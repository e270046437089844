// base64url without padding, as cookies carry it (RFC 4648 §5 and its test vectors).
#include <doctest/doctest.h>

#include <string>

#include "util/base64.h"

namespace {

std::string encoded(std::string_view text) { return wr::util::base64url_encode(reinterpret_cast<const uint8_t*>(text.data()), text.size()); }

} // namespace

TEST_CASE("base64url: RFC 4648's vectors, unpadded, and the URL-safe alphabet") {
    CHECK(encoded("") == "");
    CHECK(encoded("f") == "Zg");
    CHECK(encoded("fo") == "Zm8");
    CHECK(encoded("foo") == "Zm9v");
    CHECK(encoded("foob") == "Zm9vYg");
    CHECK(encoded("fooba") == "Zm9vYmE");
    CHECK(encoded("foobar") == "Zm9vYmFy");
    const uint8_t high[] = {0xfb, 0xff, 0xbf};
    CHECK(wr::util::base64url_encode(high, sizeof high) == "-_-_");
}

TEST_CASE("base64url: appending keeps what was there, and decoding gives back the bytes") {
    std::string out = "name=";
    const uint8_t bytes[] = {0, 1, 2, 250, 251, 252, 253};
    wr::util::base64url_append(bytes, sizeof bytes, out);
    CHECK(out == "name=" + wr::util::base64url_encode(bytes, sizeof bytes));
    uint8_t back[sizeof bytes] = {};
    CHECK(wr::util::base64url_decode(std::string_view(out).substr(5), back, sizeof back) == sizeof bytes);
    CHECK(std::equal(back, back + sizeof back, bytes));
}
