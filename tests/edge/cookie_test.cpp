// Sealing and opening waiting-room cookies, and reading Cookie headers.
#include <doctest/doctest.h>

#include "edge/cookie.h"
#include "support/temp_dir.h"
#include "support/test_server.h"
#include "util/files.h"

using wr::edge::CookieCodec;
using wr::util::KeyRing;
using wr::queue::Ticket;

namespace {

Ticket sample_ticket() {
    Ticket ticket;
    ticket.session_id = 0x0123456789abcdefULL;
    ticket.bucket = wr::test::k_test_start + std::chrono::milliseconds{1234};
    ticket.arrived = wr::test::k_test_start + std::chrono::seconds{5};
    ticket.accepted_at = wr::test::k_test_start + std::chrono::minutes{3};
    ticket.last_check_in = wr::test::k_test_start + std::chrono::minutes{4};
    ticket.refresh_interval_seconds = 17;
    ticket.shuffled = true;
    return ticket;
}

} // namespace

TEST_CASE("edge: a sealed cookie opens to the same ticket, in the same room only") {
    wr::test::TempDir dir;
    const wr::util::KeyRing keys = wr::util::KeyRing::load_or_create(dir.path() / "cookie.key");
    CookieCodec codec;
    const std::string sealed = codec.seal(sample_ticket(), "room-a", keys);
    CHECK(sealed.size() == 80);
    CHECK(sealed.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos);
    const auto opened = codec.open(sealed, "room-a", keys);
    REQUIRE(opened);
    CHECK(*opened == sample_ticket());
    CHECK_FALSE(codec.open(sealed, "room-b", keys));
    CHECK(codec.seal(sample_ticket(), "room-a", keys) != sealed); // a fresh nonce every time
}

TEST_CASE("edge: the infinite-queue and Turnstile flags travel inside the encryption") {
    wr::test::TempDir dir;
    const wr::util::KeyRing keys = wr::util::KeyRing::load_or_create(dir.path() / "cookie.key");
    CookieCodec codec;
    for (const bool infinite : {false, true}) {
        for (const bool answered : {false, true}) {
            Ticket ticket = sample_ticket();
            ticket.accepted_at.reset();
            ticket.infinite_queue = infinite;
            ticket.turnstile_answered = answered;
            const std::string sealed = codec.seal(ticket, "room", keys);
            CHECK(sealed.size() == 80); // the same size whatever the flags: nothing tells a bot apart
            const auto opened = codec.open(sealed, "room", keys);
            REQUIRE(opened);
            CHECK(opened->infinite_queue == infinite);
            CHECK(opened->turnstile_answered == answered);
        }
    }
}

TEST_CASE("edge: every altered, truncated or extended cookie opens to nothing") {
    wr::test::TempDir dir;
    const wr::util::KeyRing keys = wr::util::KeyRing::load_or_create(dir.path() / "cookie.key");
    CookieCodec codec;
    const std::string sealed = codec.seal(sample_ticket(), "room", keys);
    for (size_t i = 0; i < sealed.size(); ++i) {
        std::string altered = sealed;
        altered[i] = altered[i] == 'A' ? 'B' : 'A';
        CAPTURE(i);
        CHECK_FALSE(codec.open(altered, "room", keys));
    }
    CHECK_FALSE(codec.open(sealed.substr(0, sealed.size() - 1), "room", keys));
    CHECK_FALSE(codec.open(sealed + "A", "room", keys));
    CHECK_FALSE(codec.open("", "room", keys));
    CHECK_FALSE(codec.open(std::string(80, '!'), "room", keys));
}

TEST_CASE("edge: after a rotation new cookies use the new key and old ones still open") {
    wr::test::TempDir dir;
    const auto path = dir.path() / "cookie.key";
    const wr::util::KeyRing first = wr::util::KeyRing::load_or_create(path);
    CHECK(wr::util::KeyRing::load_or_create(path).current().key == first.current().key); // created once
    CookieCodec codec;
    const std::string old_cookie = codec.seal(sample_ticket(), "room", first);
    const wr::util::KeyRing rotated = wr::util::KeyRing::rotate(path);
    CHECK(rotated.keys().size() == 2);
    CHECK(rotated.current().id == 2);
    CHECK(codec.open(old_cookie, "room", rotated));
    CHECK(codec.seal(sample_ticket(), "room", rotated).substr(0, 2) != old_cookie.substr(0, 2)); // the key id leads
    for (int i = 0; i < 6; ++i) wr::util::KeyRing::rotate(path);
    const wr::util::KeyRing many = wr::util::KeyRing::load_or_create(path);
    CHECK(many.keys().size() == wr::util::k_kept_keys);
    CHECK_FALSE(codec.open(old_cookie, "room", many)); // its key was dropped
}

TEST_CASE("edge: a key file that is not ours is refused with its path") {
    wr::test::TempDir dir;
    const auto path = dir.path() / "cookie.key";
    wr::util::write_secret_file(path, "v1 1 nothex\n");
    CHECK_THROWS_WITH(wr::util::KeyRing::load_or_create(path),
                      (path.string() + " is not a wr cookie key file (expected lines \"v1 <id> <64 hex>\")").c_str());
}

TEST_CASE("edge: cookies are found and removed in Cookie headers") {
    using wr::edge::find_cookie;
    CHECK(find_cookie("a=1; __cfwaitingroom=xyz; b=2", "__cfwaitingroom") == "xyz");
    CHECK(find_cookie("__cfwaitingroom_shop=1", "__cfwaitingroom") == std::nullopt);
    CHECK(find_cookie("__cfwaitingroom=\"q\"", "__cfwaitingroom") == "q");
    CHECK(find_cookie("", "a") == std::nullopt);
    CHECK(wr::edge::remove_cookie("a=1; __cfwaitingroom=xyz; b=2", "__cfwaitingroom") == "a=1; b=2");
    CHECK(wr::edge::remove_cookie("__cfwaitingroom=xyz", "__cfwaitingroom").empty());
    CHECK(wr::edge::cookie_name("") == "__cfwaitingroom");
    CHECK(wr::edge::cookie_name("shop") == "__cfwaitingroom_shop");
}
