// Starts wr::App for tests and talks to its admin API.
#include "support/test_server.h"

#include <doctest/doctest.h>

#include "support/process.h"

namespace wr::test {

TestServer::TestServer(std::filesystem::path data_dir, const std::function<void(AppOptions&)>& configure) {
    if (data_dir.empty()) {
        m_temp = std::make_unique<TempDir>();
        data_dir = m_temp->path();
    }
    m_data_dir = data_dir;
    AppOptions options;
    options.data_dir = m_data_dir;
    options.admin_listen = {"127.0.0.1", 0};
    options.admin_threads = 4;
    options.edge_listen = {"127.0.0.1", 0};
    options.edge_threads = 2;
    options.origin_timeout = std::chrono::seconds{2};
    if (configure) configure(options);
    m_app = std::make_unique<App>(options, m_clock);
    m_app->start();
    m_admin_token = read_admin_token(m_data_dir);
}

TestServer::~TestServer() { m_app->stop(); }

HttpReply TestServer::send(const std::string& method, const std::string& path, const std::string& body,
                           const httplib::Headers& headers) {
    httplib::Client client("127.0.0.1", admin_port());
    client.set_tcp_nodelay(true);
    const std::string content_type = headers.count("Content-Type") ? headers.find("Content-Type")->second : "";
    httplib::Headers rest = headers;
    rest.erase("Content-Type");
    httplib::Result result = method == "GET"    ? client.Get(path.c_str(), rest)
                             : method == "DELETE" ? client.Delete(path.c_str(), rest, body, content_type.c_str())
                             : method == "POST"   ? client.Post(path.c_str(), rest, body, content_type.c_str())
                             : method == "PUT"    ? client.Put(path.c_str(), rest, body, content_type.c_str())
                                                  : client.Patch(path.c_str(), rest, body, content_type.c_str());
    REQUIRE_MESSAGE(result, "no answer from the admin API for " << method << " " << path);
    HttpReply reply;
    reply.status = result->status;
    reply.text = result->body;
    reply.headers = result->headers;
    const nlohmann::json parsed = nlohmann::json::parse(result->body, nullptr, false);
    if (!parsed.is_discarded()) reply.body = parsed;
    return reply;
}

HttpReply TestServer::request(const std::string& method, const std::string& path, const std::string* body,
                              const std::string& token) {
    httplib::Headers headers{{"Authorization", "Bearer " + (token.empty() ? m_admin_token : token)}};
    if (body) headers.emplace("Content-Type", "application/json");
    return send(method, path, body ? *body : "", headers);
}

HttpReply TestServer::get(const std::string& path, const std::string& token) { return request("GET", path, nullptr, token); }
HttpReply TestServer::del(const std::string& path, const std::string& token) { return request("DELETE", path, nullptr, token); }
HttpReply TestServer::post(const std::string& path, const nlohmann::json& body, const std::string& token) {
    const std::string text = body.dump();
    return request("POST", path, &text, token);
}
HttpReply TestServer::put(const std::string& path, const nlohmann::json& body, const std::string& token) {
    const std::string text = body.dump();
    return request("PUT", path, &text, token);
}
HttpReply TestServer::patch(const std::string& path, const nlohmann::json& body, const std::string& token) {
    const std::string text = body.dump();
    return request("PATCH", path, &text, token);
}

nlohmann::json TestServer::create_zone(const std::string& name, const std::string& origin) {
    const HttpReply reply = post("/client/v4/zones", {{"name", name}, {"origin", origin}});
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    return reply.body["result"];
}

nlohmann::json TestServer::create_room(const std::string& zone, nlohmann::json fields) {
    const HttpReply reply = post("/client/v4/zones/" + zone + "/waiting_rooms", fields);
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    return reply.body["result"];
}

std::string TestServer::create_token(const std::string& scope, const std::string& zone) {
    nlohmann::json body = {{"name", "test-" + scope}, {"scope", scope}};
    if (!zone.empty()) body["zone_id"] = zone;
    const HttpReply reply = post("/client/v4/tokens", body);
    REQUIRE_MESSAGE(reply.status == 200, reply.text);
    return reply.body["result"]["token"].get<std::string>();
}

} // namespace wr::test
