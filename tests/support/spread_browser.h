#pragma once
// Browsers spread over several edges, and an origin that counts them: the oracle the multi-node
// tests judge wr by (never wr's own counters).
#include <httplib.h>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

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

private:
    httplib::Server m_server;
    int m_port = 0;
    std::thread m_thread;
    std::mutex m_mutex;
    std::set<std::string> m_served;
};

// A browser that keeps its cookies whichever edge the load balancer sends it to.
struct SpreadBrowser {
    explicit SpreadBrowser(int id) : id(std::to_string(id)) {}
    // The status, and whether the origin answered.
    std::pair<int, bool> get(int edge_port);

    std::string id;
    std::map<std::string, std::string> cookies;
    bool admitted = false;
};

} // namespace wr::test
