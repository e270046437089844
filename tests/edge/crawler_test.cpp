// Crawler bypass: which User-Agents claim to be a crawler, and how the claim is checked with
// forward-confirmed reverse DNS, cached, off the request path.
#include <doctest/doctest.h>

#include <map>

#include "edge/crawler.h"
#include "support/ip_address.h"

using wr::edge::CrawlerCacheLimits;
using wr::edge::CrawlerVerifier;
using wr::edge::KnownCrawler;
using wr::edge::Resolver;
using wr::edge::host_in_domain;
using wr::edge::match_crawler;
using wr::queue::ClientAddress;
using wr::test::ip;

namespace {

// DNS as a test wants it; counts lookups so the cache can be seen working.
class FakeResolver final : public Resolver {
public:
    std::map<ClientAddress, std::vector<std::string>> ptr;
    std::map<std::string, std::vector<ClientAddress>> a;
    int lookups = 0;

    std::vector<std::string> reverse(const ClientAddress& address) override {
        ++lookups;
        auto it = ptr.find(address);
        return it == ptr.end() ? std::vector<std::string>{} : it->second;
    }
    std::vector<ClientAddress> forward(const std::string& host) override {
        auto it = a.find(host);
        return it == a.end() ? std::vector<ClientAddress>{} : it->second;
    }
};

const KnownCrawler& googlebot() {
    const KnownCrawler* crawler =
        match_crawler("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
    REQUIRE(crawler);
    return *crawler;
}

} // namespace

TEST_CASE("crawler: User-Agents of the major engines are recognised; others and look-alikes are not") {
    CHECK(googlebot().name == "Googlebot");
    const KnownCrawler* bing = match_crawler("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)");
    REQUIRE(bing);
    CHECK(bing->name == "Bingbot");
    CHECK(match_crawler("Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Applebot/0.1")->name == "Applebot");
    CHECK(match_crawler("Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)")->name == "YandexBot");
    CHECK(match_crawler("Mozilla/5.0 (compatible; Baiduspider/2.0)")->name == "Baiduspider");
    CHECK(match_crawler("Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)"));
    CHECK(match_crawler("Mozilla/5.0 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)"));
    CHECK(match_crawler("Mozilla/5.0 (compatible; SeznamBot/4.0; +https://o-seznam.cz/napoveda/vyhledavani/en/seznambot-crawler/)"));
    CHECK(match_crawler("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36") == nullptr);
    CHECK(match_crawler("") == nullptr);
    // DuckDuckBot publishes addresses, not a DNS domain: it cannot be verified this way.
    CHECK(match_crawler("DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)") == nullptr);
    // Tokens are case-sensitive, as the engines publish them.
    CHECK(match_crawler("googlebot") == nullptr);
}

TEST_CASE("crawler: a PTR name must lie inside the engine's domain, on a label boundary") {
    CHECK(host_in_domain("crawl-66-249-66-1.googlebot.com", "googlebot.com"));
    CHECK(host_in_domain("crawl-66-249-66-1.googlebot.com.", "googlebot.com"));
    CHECK(host_in_domain("CRAWL-66-249-66-1.GoogleBot.com", "googlebot.com"));
    CHECK(host_in_domain("googlebot.com", "googlebot.com"));
    CHECK_FALSE(host_in_domain("evilgooglebot.com", "googlebot.com"));
    CHECK_FALSE(host_in_domain("googlebot.com.evil.net", "googlebot.com"));
    CHECK_FALSE(host_in_domain("com", "googlebot.com"));
    CHECK_FALSE(host_in_domain("", "googlebot.com"));
}

TEST_CASE("crawler: forward-confirmed reverse DNS") {
    FakeResolver dns;
    const ClientAddress real = ip("66.249.66.1");
    dns.ptr[real] = {"crawl-66-249-66-1.googlebot.com"};
    dns.a["crawl-66-249-66-1.googlebot.com"] = {ip("66.249.66.1")};
    CHECK(verify_crawler(googlebot(), real, dns));

    SUBCASE("a PTR in someone else's domain is refused") {
        const ClientAddress fake = ip("203.0.113.5");
        dns.ptr[fake] = {"crawl.example.net"};
        dns.a["crawl.example.net"] = {fake};
        CHECK_FALSE(verify_crawler(googlebot(), fake, dns));
    }
    SUBCASE("a forged PTR that does not resolve back to the address is refused") {
        const ClientAddress forger = ip("203.0.113.6");
        dns.ptr[forger] = {"crawl-66-249-66-1.googlebot.com"};
        CHECK_FALSE(verify_crawler(googlebot(), forger, dns));
    }
    SUBCASE("no PTR at all is refused") { CHECK_FALSE(verify_crawler(googlebot(), ip("203.0.113.7"), dns)); }
    SUBCASE("IPv6 crawlers verify the same way") {
        const ClientAddress v6 = ip("2001:4860:4801:10::1");
        dns.ptr[v6] = {"crawl-2001-4860-4801-10--1.googlebot.com."};
        dns.a["crawl-2001-4860-4801-10--1.googlebot.com."] = {ip("66.249.66.9"), v6};
        CHECK(verify_crawler(googlebot(), v6, dns));
    }
    SUBCASE("the right domain for the wrong engine is refused") {
        const KnownCrawler* bing = match_crawler("bingbot/2.0");
        REQUIRE(bing);
        CHECK_FALSE(verify_crawler(*bing, real, dns));
    }
}

TEST_CASE("crawler: the verifier answers from its cache and looks up unknown addresses later") {
    auto resolver = std::make_unique<FakeResolver>();
    FakeResolver& dns = *resolver;
    const ClientAddress real = ip("66.249.66.1"), fake = ip("203.0.113.5");
    dns.ptr[real] = {"crawl-66-249-66-1.googlebot.com"};
    dns.a["crawl-66-249-66-1.googlebot.com"] = {real};
    wr::util::FakeClock clock(wr::util::TimePoint{wr::util::Milliseconds{1'700'000'000'000}});
    CrawlerVerifier verifier(std::move(resolver), clock);

    // The first request never waits for DNS: it is not (yet) a crawler.
    CHECK_FALSE(verifier.is_verified(real, googlebot()));
    CHECK_FALSE(verifier.is_verified(real, googlebot())); // already queued, not queued twice
    CHECK_FALSE(verifier.is_verified(fake, googlebot()));
    CHECK(dns.lookups == 0);
    verifier.resolve_pending();
    CHECK(dns.lookups == 2);

    CHECK(verifier.is_verified(real, googlebot()));
    CHECK_FALSE(verifier.is_verified(fake, googlebot()));
    CHECK(dns.lookups == 2); // cached

    // Refusals are retried after an hour; verified addresses last a day.
    clock.advance(std::chrono::minutes(61));
    CHECK(verifier.is_verified(real, googlebot()));
    CHECK_FALSE(verifier.is_verified(fake, googlebot()));
    verifier.resolve_pending();
    CHECK(dns.lookups == 3);
    clock.advance(std::chrono::hours(24));
    CHECK_FALSE(verifier.is_verified(real, googlebot()));
    verifier.resolve_pending();
    CHECK(verifier.is_verified(real, googlebot()));
}

TEST_CASE("crawler: the lookup thread resolves in the background; the cache stays bounded") {
    auto resolver = std::make_unique<FakeResolver>();
    FakeResolver& dns = *resolver;
    const ClientAddress real = ip("66.249.66.1");
    dns.ptr[real] = {"crawl-66-249-66-1.googlebot.com"};
    dns.a["crawl-66-249-66-1.googlebot.com"] = {real};
    wr::util::FakeClock clock(wr::util::TimePoint{wr::util::Milliseconds{1'700'000'000'000}});
    CrawlerVerifier verifier(std::move(resolver), clock, CrawlerCacheLimits{.max_entries = 64, .max_pending = 16});
    verifier.start();
    CHECK_FALSE(verifier.is_verified(real, googlebot()));
    verifier.wait_idle();
    CHECK(verifier.is_verified(real, googlebot()));

    // A flood of distinct addresses claiming to be Googlebot cannot grow the cache without bound.
    for (int i = 0; i < 1000; ++i) {
        ClientAddress address = ip("198.51.100.0");
        address[14] = static_cast<uint8_t>(i >> 8);
        address[15] = static_cast<uint8_t>(i);
        verifier.is_verified(address, googlebot());
        if (i % 10 == 0) verifier.wait_idle();
    }
    verifier.wait_idle();
    CHECK(verifier.cached_entries() <= 64);
    verifier.stop();
}
