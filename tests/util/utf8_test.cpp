// Characters as the API's limits and the CLI's columns count them.
#include <doctest/doctest.h>

#include "util/utf8.h"

using wr::util::utf8_length;
using wr::util::utf8_prefix;
using wr::util::utf8_sequence_length;

TEST_CASE("util::utf8_sequence_length accepts well-formed sequences only") {
    CHECK(utf8_sequence_length("a") == 1);
    CHECK(utf8_sequence_length("é") == 2);
    CHECK(utf8_sequence_length("€") == 3);
    CHECK(utf8_sequence_length("😀") == 4);
    CHECK(utf8_sequence_length("") == 0);
    CHECK(utf8_sequence_length("\xff") == 0);          // never in UTF-8
    CHECK(utf8_sequence_length("\x80") == 0);          // a continuation byte alone
    CHECK(utf8_sequence_length("\xc3") == 0);          // cut short
    CHECK(utf8_sequence_length("\xc0\xaf") == 0);      // overlong '/'
    CHECK(utf8_sequence_length("\xe0\x80\xaf") == 0);  // overlong
    CHECK(utf8_sequence_length("\xed\xa0\x80") == 0);  // a surrogate
    CHECK(utf8_sequence_length("\xf4\x90\x80\x80") == 0); // past U+10FFFF
}

TEST_CASE("util::utf8_length counts characters, and a stray byte as one") {
    CHECK(utf8_length("") == 0);
    CHECK(utf8_length("shop") == 4);
    CHECK(utf8_length("café") == 4);
    CHECK(utf8_length(std::string(255, 'a')) == 255);
    std::string accents;
    for (int i = 0; i < 128; ++i) accents += "é";
    CHECK(accents.size() == 256);
    CHECK(utf8_length(accents) == 128);
    CHECK(utf8_length("a\xff" "b") == 3);
}

TEST_CASE("util::utf8_prefix cuts between characters") {
    CHECK(utf8_prefix("café!", 4) == "café");
    CHECK(utf8_prefix("éé", 1) == "é");
    CHECK(utf8_prefix("abc", 10) == "abc");
    CHECK(utf8_prefix("abc", 0) == "");
    CHECK(utf8_prefix("\xff\xfe" "a", 2) == "\xff\xfe");
}
