// The shared escaping: HTML text and attributes, URL components, hex digits.
#include <doctest/doctest.h>

#include "util/escape.h"

TEST_CASE("util::escape_html escapes what could end text or a double-quoted attribute") {
    CHECK(wr::util::escape_html(R"(<a href="x?a=1&b=2">'</a>)") == "&lt;a href=&quot;x?a=1&amp;b=2&quot;&gt;'&lt;/a&gt;");
    CHECK(wr::util::escape_html("plain ünïcode") == "plain ünïcode");
    CHECK(wr::util::escape_html("") == "");
}

TEST_CASE("util::percent_encode keeps only the unreserved characters") {
    CHECK(wr::util::percent_encode("AZaz09-._~") == "AZaz09-._~");
    CHECK(wr::util::percent_encode("a b/c?d=e&f+g%") == "a%20b%2Fc%3Fd%3De%26f%2Bg%25");
    CHECK(wr::util::percent_encode("é") == "%C3%A9");
}

TEST_CASE("util::hex_digit_value reads both cases and refuses the rest") {
    CHECK(wr::util::hex_digit_value('0') == 0);
    CHECK(wr::util::hex_digit_value('9') == 9);
    CHECK(wr::util::hex_digit_value('a') == 10);
    CHECK(wr::util::hex_digit_value('F') == 15);
    CHECK(wr::util::hex_digit_value('g') == -1);
    CHECK(wr::util::hex_digit_value('%') == -1);
}
