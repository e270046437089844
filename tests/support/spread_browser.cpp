// Browsers spread over edges, and the origin that counts them.
#include "support/spread_browser.h"

#include <chrono>
#include <doctest/doctest.h>

namespace wr::test {

CountingOrigin::CountingOrigin() {
    m_server.Get(".*", [this](const httplib::Request& request, httplib::Response& response) {
        if (request.has_header("X-Browser")) {
            std::lock_guard lock(m_mutex);
            m_served.insert(request.get_header_value("X-Browser"));
        }
        response.set_content("the shop", "text/plain");
        response.set_header("X-Counting-Origin", "1");
    });
    m_port = m_server.bind_to_any_port("127.0.0.1");
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds{1});
}

CountingOrigin::~CountingOrigin() {
    m_server.stop();
    m_thread.join();
}

size_t CountingOrigin::served() {
    std::lock_guard lock(m_mutex);
    return m_served.size();
}

size_t CountingOrigin::served(const std::string& host) {
    std::lock_guard lock(m_mutex);
    const SpreadBrowser example(0, host);
    const std::string prefix = example.id.substr(0, example.id.size() - 1); // "" for the shop
    size_t count = 0;
    for (const std::string& id : m_served)
        if (id.starts_with(prefix) && (!prefix.empty() || id.find('/') == std::string::npos)) ++count;
    return count;
}

std::pair<int, bool> SpreadBrowser::get(int edge_port) {
    httplib::Client client("127.0.0.1", edge_port);
    client.set_read_timeout(10);
    httplib::Headers headers = {{"Host", host}, {"X-Browser", id}};
    std::string cookie_header;
    for (const auto& [name, value] : cookies) cookie_header += (cookie_header.empty() ? "" : "; ") + name + "=" + value;
    if (!cookie_header.empty()) headers.emplace("Cookie", cookie_header);
    const auto result = client.Get("/", headers);
    REQUIRE_MESSAGE(result, "no answer from the edge on port " << edge_port);
    const auto range = result->headers.equal_range("Set-Cookie");
    for (auto it = range.first; it != range.second; ++it) {
        const std::string& set_cookie = it->second;
        const size_t equals = set_cookie.find('=');
        cookies[set_cookie.substr(0, equals)] = set_cookie.substr(equals + 1, set_cookie.find(';') - equals - 1);
    }
    const bool origin = result->has_header("X-Counting-Origin");
    if (origin) admitted = true;
    return {result->status, origin};
}

} // namespace wr::test
