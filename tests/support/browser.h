#pragma once
// A browser as the edge sees one: it sends a Host header, keeps the cookies it is given (and
// forgets those that expire), and reuses its connection.
#include <httplib.h>
#include <map>
#include <memory>
#include <string>

namespace wr::test {

struct EdgeReply {
    int status = 0;
    std::string body;
    httplib::Headers headers;
    std::string header(const std::string& name) const;
    bool has_header(const std::string& name) const { return headers.count(name) > 0; }
    bool from_origin() const { return has_header("X-Demo-Origin"); }
};

class Browser {
public:
    Browser(int edge_port, std::string host);

    EdgeReply get(const std::string& path, const httplib::Headers& extra = {});
    EdgeReply post(const std::string& path, const std::string& body, const std::string& content_type);
    EdgeReply head(const std::string& path);

    std::map<std::string, std::string> cookies;
    std::string last_set_cookie; // the raw value of the last Set-Cookie header

private:
    EdgeReply finish(const httplib::Result& result);
    httplib::Headers headers(const httplib::Headers& extra) const;

    std::unique_ptr<httplib::Client> m_client;
    std::string m_host;
};

} // namespace wr::test
