#pragma once
// Search engine crawlers that may skip the queue when a zone sets search_engine_crawler_bypass.
// A User-Agent is only a claim, so a crawler is believed the way the engines themselves document:
// forward-confirmed reverse DNS — the address's PTR name lies in the engine's domain, and that
// name resolves back to the same address. DNS is slow and must never stall a request, so
// CrawlerVerifier answers from a cache and resolves unknown addresses on its own thread; until
// an address is verified its requests are treated like anyone else's.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "queue/join_limiter.h"
#include "util/clock.h"

namespace wr::edge {

struct KnownCrawler {
    std::string_view name;                          // "Googlebot"
    std::span<const std::string_view> agent_tokens; // any of these in the User-Agent claims it
    std::span<const std::string_view> domains;      // PTR names must end in one of these
};

// The crawler a User-Agent claims to be, or nullptr. Tokens match case-sensitively, as the
// engines publish them ("Googlebot", "bingbot").
const KnownCrawler* match_crawler(std::string_view user_agent);

// True if `host` is `domain` or a name under it ("crawl-66-249-66-1.googlebot.com" is under
// "googlebot.com"; "evilgooglebot.com" is not). Case-insensitive; a trailing dot is ignored.
bool host_in_domain(std::string_view host, std::string_view domain);

class Resolver {
public:
    virtual ~Resolver() = default;
    virtual std::vector<std::string> reverse(const queue::ClientAddress& address) = 0;
    virtual std::vector<queue::ClientAddress> forward(const std::string& host) = 0;
};

// The system's resolver (getnameinfo / getaddrinfo); blocking, so only for the verifier thread.
class SystemResolver final : public Resolver {
public:
    std::vector<std::string> reverse(const queue::ClientAddress& address) override;
    std::vector<queue::ClientAddress> forward(const std::string& host) override;
};

// Forward-confirmed reverse DNS for one address and the crawler it claims to be.
bool verify_crawler(const KnownCrawler& crawler, const queue::ClientAddress& address, Resolver& resolver);

struct CrawlerCacheLimits {
    util::Milliseconds verified_for{std::chrono::hours(24)}; // engines move addresses rarely
    util::Milliseconds refused_for{std::chrono::hours(1)};   // a failed lookup is retried later
    size_t max_entries = 100'000;                            // full: entries are forgotten
    size_t max_pending = 1'024;                              // full: new lookups wait for a later request
};

class CrawlerVerifier {
public:
    CrawlerVerifier(std::shared_ptr<Resolver> resolver, const util::Clock& clock, CrawlerCacheLimits limits = {});
    ~CrawlerVerifier();
    CrawlerVerifier(const CrawlerVerifier&) = delete;
    CrawlerVerifier& operator=(const CrawlerVerifier&) = delete;

    // Never blocks on DNS: a cached answer, or false while the lookup is queued.
    bool is_verified(const queue::ClientAddress& address, const KnownCrawler& crawler);

    void start(); // the lookup thread; without it lookups stay queued (tests call resolve_pending)
    void stop();
    // Runs the queued lookups on the calling thread; for tests and for stop-less tools.
    void resolve_pending();
    // Blocks until the lookup thread has nothing queued or running.
    void wait_idle();

    size_t cached_entries() const;

private:
    struct Key {
        queue::ClientAddress address;
        const KnownCrawler* crawler;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& key) const;
    };
    struct Entry {
        enum class State { pending, verified, refused } state;
        util::TimePoint expires;
    };

    bool resolve_one(std::unique_lock<std::mutex>& lock);
    void run();

    std::shared_ptr<Resolver> m_resolver;
    const util::Clock& m_clock;
    CrawlerCacheLimits m_limits;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::unordered_map<Key, Entry, KeyHash> m_entries;
    std::deque<Key> m_pending;
    bool m_resolving = false;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace wr::edge
