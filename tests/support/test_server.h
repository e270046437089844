#pragma once
// The same wr::App that `wr serve` runs, on an ephemeral port with a temporary data dir and a
// fake clock, plus an HTTP client that speaks to its admin API.
#include <functional>
#include <httplib.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "app.h"
#include "support/temp_dir.h"
#include "util/clock.h"

namespace wr::test {

// 2026-11-22T10:00:00Z: tests start here unless they move the clock.
inline const util::TimePoint k_test_start{std::chrono::sys_days{std::chrono::year{2026} / 11 / 22} + std::chrono::hours{10}};

struct HttpReply {
    int status = 0;
    nlohmann::json body;  // parsed when JSON, else null
    std::string text;
    httplib::Headers headers;
};

class TestServer {
public:
    // data_dir: reuse a directory (to test restarts); empty for a fresh one.
    explicit TestServer(std::filesystem::path data_dir = {}, const std::function<void(AppOptions&)>& configure = {});
    ~TestServer();

    util::FakeClock& clock() { return m_clock; }
    App& app() { return *m_app; }
    int admin_port() const { return m_app->admin_port(); }
    int edge_port() const { return m_app->edge_port(); }
    // Makes configuration changes visible to the edge now (it would within the poll interval).
    void sync_edge() { m_app->refresh_edge_config(); }
    std::string admin_url() const { return "http://127.0.0.1:" + std::to_string(admin_port()); }
    const std::filesystem::path& data_dir() const { return m_data_dir; }
    const std::string& admin_token() const { return m_admin_token; }

    // Requests with the admin token (or `token` when given); bodies are sent as JSON.
    HttpReply get(const std::string& path, const std::string& token = "");
    HttpReply del(const std::string& path, const std::string& token = "");
    HttpReply post(const std::string& path, const nlohmann::json& body, const std::string& token = "");
    HttpReply put(const std::string& path, const nlohmann::json& body, const std::string& token = "");
    HttpReply patch(const std::string& path, const nlohmann::json& body, const std::string& token = "");
    // Anything else: raw body, chosen headers, no token unless in the headers.
    HttpReply send(const std::string& method, const std::string& path, const std::string& body, const httplib::Headers& headers);

    // Helpers that expect success and return the result.
    nlohmann::json create_zone(const std::string& name = "example.com", const std::string& origin = "http://127.0.0.1:3000");
    nlohmann::json create_room(const std::string& zone, nlohmann::json fields);
    std::string create_token(const std::string& scope, const std::string& zone = "");

private:
    HttpReply request(const std::string& method, const std::string& path, const std::string* body, const std::string& token);

    std::unique_ptr<TempDir> m_temp;
    std::filesystem::path m_data_dir;
    util::FakeClock m_clock{k_test_start};
    std::unique_ptr<App> m_app;
    std::string m_admin_token;
};

} // namespace wr::test
