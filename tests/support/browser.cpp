// A cookie-keeping HTTP client for edge tests.
#include "support/browser.h"

#include <doctest/doctest.h>

namespace wr::test {

std::string EdgeReply::header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
}

Browser::Browser(int edge_port, std::string host) : m_client(std::make_unique<httplib::Client>("127.0.0.1", edge_port)), m_host(std::move(host)) {
    m_client->set_tcp_nodelay(true);
    m_client->set_keep_alive(true);
    m_client->set_read_timeout(10);
}

httplib::Headers Browser::headers(const httplib::Headers& extra) const {
    httplib::Headers all = extra;
    if (!all.count("Host")) all.emplace("Host", m_host);
    std::string cookie_header;
    for (const auto& [name, value] : cookies) cookie_header += (cookie_header.empty() ? "" : "; ") + name + "=" + value;
    if (!cookie_header.empty()) all.emplace("Cookie", cookie_header);
    return all;
}

EdgeReply Browser::finish(const httplib::Result& result) {
    REQUIRE_MESSAGE(result, "no answer from the edge: " << httplib::to_string(result.error()));
    EdgeReply reply{result->status, result->body, result->headers};
    const auto range = result->headers.equal_range("Set-Cookie");
    for (auto it = range.first; it != range.second; ++it) {
        const std::string& set_cookie = it->second;
        last_set_cookie = set_cookie;
        const size_t equals = set_cookie.find('=');
        const size_t end = set_cookie.find(';');
        const std::string name = set_cookie.substr(0, equals);
        const std::string value = set_cookie.substr(equals + 1, end - equals - 1);
        if (set_cookie.find("Max-Age=0;") != std::string::npos || value.empty())
            cookies.erase(name);
        else
            cookies[name] = value;
    }
    return reply;
}

EdgeReply Browser::get(const std::string& path, const httplib::Headers& extra) {
    return finish(m_client->Get(path.c_str(), headers(extra)));
}

EdgeReply Browser::post(const std::string& path, const std::string& body, const std::string& content_type) {
    return finish(m_client->Post(path.c_str(), headers({}), body, content_type.c_str()));
}

EdgeReply Browser::head(const std::string& path) { return finish(m_client->Head(path.c_str(), headers({}))); }

} // namespace wr::test
