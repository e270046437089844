// Control and edge nodes as separate `wr serve` processes.
#include "support/fleet_nodes.h"

#include <doctest/doctest.h>
#include <httplib.h>

namespace wr::test {

ControlNode::ControlNode(const std::filesystem::path& data_dir, int port, std::vector<std::string> extra)
    : process(arguments(data_dir, port, std::move(extra)), "API listening on", true) {
    admin_port = port_after(process.ready_line(), "API listening on");
    token = read_admin_token(data_dir);
}

std::vector<std::string> ControlNode::arguments(const std::filesystem::path& data_dir, int port, std::vector<std::string> extra) {
    std::vector<std::string> all{WR_BINARY,        "serve", "--role", "control", "--node-name", "control", "--data-dir", data_dir.string(),
                                 "--admin-listen", "127.0.0.1:" + std::to_string(port)};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
}

nlohmann::json ControlNode::api(const std::string& method, const std::string& path, const nlohmann::json& body) const {
    httplib::Client client("127.0.0.1", admin_port);
    const httplib::Headers headers{{"Authorization", "Bearer " + token}};
    const httplib::Result result = method == "GET"    ? client.Get(path.c_str(), headers)
                                   : method == "POST" ? client.Post(path.c_str(), headers, body.dump(), "application/json")
                                                      : client.Patch(path.c_str(), headers, body.dump(), "application/json");
    REQUIRE_MESSAGE(result, method << " " << path << ": no answer");
    REQUIRE_MESSAGE(result->status == 200, method << " " << path << ": " << result->body);
    return nlohmann::json::parse(result->body)["result"];
}

EdgeNode::EdgeNode(const std::filesystem::path& data_dir, const std::string& name, const std::string& control_url, const std::string& token,
                   std::vector<std::string> extra)
    : process(arguments(data_dir, name, control_url, token, std::move(extra)), "health and metrics listening on", true) {
    edge_port = port_after(process.output(), "edge: listening on");
    admin_port = port_after(process.ready_line(), "health and metrics listening on");
}

std::vector<std::string> EdgeNode::arguments(const std::filesystem::path& data_dir, const std::string& name, const std::string& control_url,
                                             const std::string& token, std::vector<std::string> extra) {
    std::vector<std::string> all{WR_BINARY,      "serve",           "--role",        "edge",      "--node-name",     name,
                                 "--data-dir",   data_dir.string(), "--control-url", control_url, "--control-token", token,
                                 "--admin-listen", "127.0.0.1:0",   "--edge-listen", "127.0.0.1:0"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
}

} // namespace wr::test
