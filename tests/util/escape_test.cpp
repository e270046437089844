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

TEST_CASE("util::printable_text keeps UTF-8 and writes controls, backslashes and stray bytes as \\xHH") {
    using wr::util::printable_text;
    CHECK(printable_text("shop") == "shop");
    CHECK(printable_text("café — 😀") == "café — 😀");
    CHECK(printable_text("") == "");
    // A newline would forge a log line; an ESC drives a terminal.
    CHECK(printable_text("x\n2026-11-28T00:00:00.000Z warn auth: FORGED") == "x\\x0A2026-11-28T00:00:00.000Z warn auth: FORGED");
    CHECK(printable_text("\x1b[31mred\r\t\x7f") == "\\x1B[31mred\\x0D\\x09\\x7F");
    CHECK(printable_text("a\\x0Ab") == "a\\x5Cx0Ab"); // an escape in the output was made here
    // What JSON cannot carry: bytes outside well-formed UTF-8, a sequence cut short.
    CHECK(printable_text("\xff") == "\\xFF");
    CHECK(printable_text("\xc3") == "\\xC3");
    CHECK(printable_text("a\xc3(b") == "a\\xC3(b");
    CHECK(printable_text("\xed\xa0\x80") == "\\xED\\xA0\\x80");
    // C1 controls, well-formed as they are: U+009B is a terminal's CSI.
    CHECK(printable_text("\xc2\x9b" "2J") == "\\xC2\\x9B2J");
    CHECK(printable_text("\xc2\xa0") == "\xc2\xa0"); // U+00A0 is text
}
