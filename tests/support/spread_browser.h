#pragma once
// Browsers spread over several edges, and an origin that counts them: the oracle the multi-node
// tests judge wr by (never wr's own counters).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <httplib.h>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace wr::test {

// An origin that counts the browsers it served, by the X-Browser header each sends, and marks
// its answers with X-Counting-Origin.
class CountingOrigin {
public:
    CountingOrigin();
    ~CountingOrigin();
    CountingOrigin(const CountingOrigin&) = delete;
    CountingOrigin& operator=(const CountingOrigin&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    size_t served();
    // Browsers of `host` served (SpreadBrowser ids).
    size_t served(const std::string& host);

private:
    httplib::Server m_server;
    int m_port = 0;
    std::thread m_thread;
    std::mutex m_mutex;
    std::set<std::string> m_served;
};

// A browser that keeps its cookies whichever edge the load balancer sends it to, visiting one
// host (the shop's, unless told another; its id then names the host too, so that the counting
// origin tells browsers of different rooms apart).
struct SpreadBrowser {
    explicit SpreadBrowser(int id, std::string host = "shop.example.com")
        : id(host == "shop.example.com" ? std::to_string(id) : host + "/" + std::to_string(id)), host(std::move(host)) {}
    // The status, and whether the origin answered.
    std::pair<int, bool> get(int edge_port);

    std::string id;
    std::string host;
    std::map<std::string, std::string> cookies;
    bool admitted = false;
};

inline size_t admitted_count(const std::vector<SpreadBrowser>& browsers, size_t from = 0, size_t to = SIZE_MAX) {
    size_t count = 0;
    for (size_t i = from; i < std::min(to, browsers.size()); ++i) count += browsers[i].admitted;
    return count;
}

// Sends browsers [from, to) once each over three edges, browser i to edges.edge((i - from) % 3),
// from three threads (one per edge). Counts answers of 500 and above in `server_errors`.
template <typename Edges>
void visit_spread(const Edges& edges, std::vector<SpreadBrowser>& browsers, size_t from, size_t to, std::atomic<int>& server_errors) {
    std::vector<std::thread> threads;
    for (size_t edge = 0; edge < 3; ++edge)
        threads.emplace_back([&, edge] {
            for (size_t i = from + edge; i < to; i += 3)
                if (browsers[i].get(edges.edge(edge)).first >= 500) ++server_errors;
        });
    for (std::thread& thread : threads) thread.join();
}

// Those of browsers [0, to) still waiting ask again (browser i at edges.edge(i)), as their queue
// page makes them, a few syncs later, until the room holds `limit` or 10 s have passed (a queue
// page asks every 20-30 s). Right after a burst an edge may have spent its share while another
// still holds some; that lasts a sync interval or two, so the check for early queueing is made
// after the waiting have asked again, not in the burst.
template <typename Edges>
void waiting_ask_again(const Edges& edges, std::vector<SpreadBrowser>& browsers, size_t to, size_t limit,
                       std::atomic<int>& server_errors) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds{10};
    while (admitted_count(browsers) < limit && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(std::chrono::milliseconds{200});
        for (size_t i = 0; i < to; ++i)
            if (!browsers[i].admitted && browsers[i].get(edges.edge(i)).first >= 500) ++server_errors;
    }
}

} // namespace wr::test
