#include "edge/crawler.h"

#include <netdb.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "edge/client_address.h"

namespace wr::edge {
namespace {

// The engines and the domains their documentation names for reverse DNS checks. DuckDuckBot is
// absent on purpose: DuckDuckGo publishes an address list, not a domain, so DNS cannot verify it.
constexpr std::string_view google_agents[] = {"Googlebot", "AdsBot-Google", "Mediapartners-Google",
                                              "Google-InspectionTool", "APIs-Google", "Storebot-Google"};
constexpr std::string_view google_domains[] = {"googlebot.com", "google.com", "googleusercontent.com"};
constexpr std::string_view bing_agents[] = {"bingbot", "BingPreview", "adidxbot", "msnbot"};
constexpr std::string_view bing_domains[] = {"search.msn.com"};
constexpr std::string_view apple_agents[] = {"Applebot"};
constexpr std::string_view apple_domains[] = {"applebot.apple.com"};
constexpr std::string_view yandex_agents[] = {"YandexBot", "YandexImages", "YandexMobileBot"};
constexpr std::string_view yandex_domains[] = {"yandex.ru", "yandex.net", "yandex.com"};
constexpr std::string_view baidu_agents[] = {"Baiduspider"};
constexpr std::string_view baidu_domains[] = {"baidu.com", "baidu.jp"};
constexpr std::string_view yahoo_agents[] = {"Yahoo! Slurp"};
constexpr std::string_view yahoo_domains[] = {"crawl.yahoo.net"};
constexpr std::string_view petal_agents[] = {"PetalBot"};
constexpr std::string_view petal_domains[] = {"petalsearch.com"};
constexpr std::string_view seznam_agents[] = {"SeznamBot"};
constexpr std::string_view seznam_domains[] = {"seznam.cz"};

const KnownCrawler known_crawlers[] = {
    {"Googlebot", google_agents, google_domains},   {"Bingbot", bing_agents, bing_domains},
    {"Applebot", apple_agents, apple_domains},      {"YandexBot", yandex_agents, yandex_domains},
    {"Baiduspider", baidu_agents, baidu_domains},   {"Yahoo Slurp", yahoo_agents, yahoo_domains},
    {"PetalBot", petal_agents, petal_domains},      {"SeznamBot", seznam_agents, seznam_domains},
};

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

queue::ClientAddress from_sockaddr(const sockaddr* address) {
    queue::ClientAddress result{};
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        result[10] = result[11] = 0xff;
        std::memcpy(result.data() + 12, &v4->sin_addr, 4);
    } else {
        std::memcpy(result.data(), &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, 16);
    }
    return result;
}

} // namespace

const KnownCrawler* match_crawler(std::string_view user_agent) {
    for (const KnownCrawler& crawler : known_crawlers)
        for (std::string_view token : crawler.agent_tokens)
            if (user_agent.find(token) != std::string_view::npos) return &crawler;
    return nullptr;
}

bool host_in_domain(std::string_view host, std::string_view domain) {
    if (!host.empty() && host.back() == '.') host.remove_suffix(1);
    if (host.size() == domain.size()) return equal_ignoring_case(host, domain);
    return host.size() > domain.size() && host[host.size() - domain.size() - 1] == '.' &&
           equal_ignoring_case(host.substr(host.size() - domain.size()), domain);
}

std::vector<std::string> SystemResolver::reverse(const queue::ClientAddress& address) {
    sockaddr_storage storage{};
    socklen_t length;
    if (is_v4_mapped(address)) {
        auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
        v4->sin_family = AF_INET;
        std::memcpy(&v4->sin_addr, address.data() + 12, 4);
        length = sizeof(sockaddr_in);
    } else {
        auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
        v6->sin6_family = AF_INET6;
        std::memcpy(&v6->sin6_addr, address.data(), 16);
        length = sizeof(sockaddr_in6);
    }
    std::array<char, NI_MAXHOST> host{};
    if (getnameinfo(reinterpret_cast<sockaddr*>(&storage), length, host.data(), host.size(), nullptr, 0, NI_NAMEREQD) != 0)
        return {};
    return {std::string(host.data())};
}

std::vector<queue::ClientAddress> SystemResolver::forward(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* results = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) return {};
    std::vector<queue::ClientAddress> addresses;
    for (const addrinfo* it = results; it; it = it->ai_next)
        if (it->ai_family == AF_INET || it->ai_family == AF_INET6) addresses.push_back(from_sockaddr(it->ai_addr));
    freeaddrinfo(results);
    return addresses;
}

bool verify_crawler(const KnownCrawler& crawler, const queue::ClientAddress& address, Resolver& resolver) {
    for (const std::string& host : resolver.reverse(address)) {
        bool in_domain = std::any_of(crawler.domains.begin(), crawler.domains.end(),
                                     [&](std::string_view domain) { return host_in_domain(host, domain); });
        if (!in_domain) continue;
        std::vector<queue::ClientAddress> confirmed = resolver.forward(host);
        if (std::find(confirmed.begin(), confirmed.end(), address) != confirmed.end()) return true;
    }
    return false;
}

size_t CrawlerVerifier::KeyHash::operator()(const Key& key) const {
    uint64_t hash = 1469598103934665603ull; // FNV-1a over the address, then the crawler
    for (uint8_t byte : key.address) hash = (hash ^ byte) * 1099511628211ull;
    return static_cast<size_t>(hash ^ reinterpret_cast<uintptr_t>(key.crawler));
}

CrawlerVerifier::CrawlerVerifier(std::shared_ptr<Resolver> resolver, const util::Clock& clock, CrawlerCacheLimits limits)
    : m_resolver(std::move(resolver)), m_clock(clock), m_limits(limits) {}

CrawlerVerifier::~CrawlerVerifier() { stop(); }

bool CrawlerVerifier::is_verified(const queue::ClientAddress& address, const KnownCrawler& crawler) {
    Key key{address, &crawler};
    util::TimePoint now = m_clock.now();
    std::lock_guard lock(m_mutex);
    if (auto it = m_entries.find(key); it != m_entries.end()) {
        if (it->second.state == Entry::State::pending) return false;
        if (it->second.expires > now) return it->second.state == Entry::State::verified;
        m_entries.erase(it);
    }
    if (m_pending.size() >= m_limits.max_pending) return false;
    if (m_entries.size() >= m_limits.max_entries) {
        // Crude but bounded: a flood of distinct addresses forgets the answers, not the memory.
        std::erase_if(m_entries, [](const auto& entry) { return entry.second.state != Entry::State::pending; });
    }
    m_entries[key] = Entry{Entry::State::pending, now};
    m_pending.push_back(key);
    m_wake.notify_one();
    return false;
}

// Takes one queued lookup and runs it with the lock released; false if there was none.
bool CrawlerVerifier::resolve_one(std::unique_lock<std::mutex>& lock) {
    if (m_pending.empty()) return false;
    Key key = m_pending.front();
    m_pending.pop_front();
    m_resolving = true;
    lock.unlock();
    bool verified = verify_crawler(*key.crawler, key.address, *m_resolver);
    util::TimePoint now = m_clock.now();
    lock.lock();
    m_resolving = false;
    m_entries[key] = verified ? Entry{Entry::State::verified, now + m_limits.verified_for}
                              : Entry{Entry::State::refused, now + m_limits.refused_for};
    if (m_pending.empty()) m_idle.notify_all();
    return true;
}

void CrawlerVerifier::resolve_pending() {
    std::unique_lock lock(m_mutex);
    while (resolve_one(lock)) {
    }
}

void CrawlerVerifier::run() {
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (!resolve_one(lock)) m_wake.wait(lock, [&] { return m_stopping || !m_pending.empty(); });
    }
}

void CrawlerVerifier::start() {
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable()) return;
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
}

void CrawlerVerifier::stop() {
    {
        std::lock_guard lock(m_mutex);
        if (!m_thread.joinable()) return;
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
    std::lock_guard lock(m_mutex);
    m_idle.notify_all();
}

void CrawlerVerifier::wait_idle() {
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [&] { return m_stopping || (m_pending.empty() && !m_resolving); });
}

size_t CrawlerVerifier::cached_entries() const {
    std::lock_guard lock(m_mutex);
    return m_entries.size();
}

} // namespace wr::edge
