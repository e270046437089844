// Ids, hashes, hex and constant-time comparison.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "util/secure.h"

TEST_CASE("util::new_id gives 32 lowercase hex characters, different every time") {
    std::set<std::string> seen;
    for (int i = 0; i < 1000; ++i) {
        const std::string id = wr::util::new_id();
        CAPTURE(id);
        REQUIRE(id.size() == 32);
        CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
        CHECK(wr::util::is_id(id));
        seen.insert(id);
    }
    CHECK(seen.size() == 1000);
}

TEST_CASE("util::is_id accepts exactly 32 lowercase hex characters") {
    struct Case {
        const char* name;
        std::string text;
        bool expected;
    };
    const Case cases[] = {
        {"digits and a-f", "0123456789abcdef0123456789abcdef", true},
        {"all f", std::string(32, 'f'), true},
        {"all 0", std::string(32, '0'), true},
        {"empty", "", false},
        {"31 characters", std::string(31, 'a'), false},
        {"33 characters", std::string(33, 'a'), false},
        {"uppercase", "0123456789ABCDEF0123456789abcdef", false},
        {"g", "0123456789abcdeg0123456789abcdef", false},
        {"a name", "shop", false},
        {"a dash", "01234567-89ab-cdef-0123-456789ab", false},
        {"a space", "0123456789abcdef0123456789abcde ", false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(wr::util::is_id(c.text) == c.expected);
    }
}

TEST_CASE("util::sha256_hex matches the standard test vectors") {
    CHECK(wr::util::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(wr::util::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(wr::util::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // The whole view counts, embedded NULs included.
    CHECK(wr::util::sha256_hex(std::string_view("abc\0", 4)) != wr::util::sha256_hex("abc"));
}

TEST_CASE("util::constant_time_equal compares contents and lengths") {
    struct Case {
        const char* name;
        std::string a;
        std::string b;
        bool expected;
    };
    const Case cases[] = {
        {"equal", "wr_0123abcd", "wr_0123abcd", true},
        {"both empty", "", "", true},
        {"last character differs", "wr_0123abcd", "wr_0123abce", false},
        {"first character differs", "xr_0123abcd", "wr_0123abcd", false},
        {"prefix", "wr_0123", "wr_0123abcd", false},
        {"longer", "wr_0123abcd!", "wr_0123abcd", false},
        {"one empty", "", "a", false},
        {"case", "ABC", "abc", false},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        CHECK(wr::util::constant_time_equal(c.a, c.b) == c.expected);
    }
}

TEST_CASE("util::hex_encode writes two lowercase digits per byte") {
    CHECK(wr::util::hex_encode(std::vector<uint8_t>{}) == "");
    CHECK(wr::util::hex_encode(std::vector<uint8_t>{0x00}) == "00");
    CHECK(wr::util::hex_encode(std::vector<uint8_t>{0x00, 0x01, 0x0f, 0x10, 0xab, 0xff}) == "00010f10abff");
    const uint8_t bytes[] = {0xde, 0xad, 0xbe, 0xef};
    CHECK(wr::util::hex_encode(bytes, 4) == "deadbeef");
    CHECK(wr::util::hex_encode(bytes, 2) == "dead");
}

TEST_CASE("util::random_bytes gives the requested number of bytes, different every time") {
    const std::vector<uint8_t> first = wr::util::random_bytes(32);
    const std::vector<uint8_t> second = wr::util::random_bytes(32);
    CHECK(first.size() == 32);
    CHECK(second.size() == 32);
    CHECK(first != second);
}

TEST_CASE("util::hmac_sha256_hex matches RFC 4231's test case 2") {
    CHECK(wr::util::hmac_sha256_hex("Jefe", "what do ya want for nothing?") ==
          "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}
