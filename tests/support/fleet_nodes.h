#pragma once
// `wr serve --role control` and `wr serve --role edge` as separate processes on 127.0.0.1
// ephemeral ports, as an operator runs a fleet: the multi-node tests start them.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/process.h"

namespace wr::test {

// `wr serve --role control` on an ephemeral port (or the one it had, to restart it), ready once
// its admin API listens; `extra` flags follow the usual ones.
struct ControlNode {
    explicit ControlNode(const std::filesystem::path& data_dir, int port = 0, std::vector<std::string> extra = {});
    static std::vector<std::string> arguments(const std::filesystem::path& data_dir, int port, std::vector<std::string> extra);

    std::string url() const { return "http://127.0.0.1:" + std::to_string(admin_port); }
    // One admin API call with this node's admin token; fails the test unless it answers 200.
    // The envelope's "result".
    nlohmann::json api(const std::string& method, const std::string& path, const nlohmann::json& body = nullptr) const;

    BackgroundProcess process;
    int admin_port = 0;
    std::string token;
};

// `wr serve --role edge` fed by the control node at `control_url` with the edge token `token`,
// ready once its admin listener (health, metrics) listens; `extra` flags follow the usual ones.
struct EdgeNode {
    EdgeNode(const std::filesystem::path& data_dir, const std::string& name, const std::string& control_url, const std::string& token,
             std::vector<std::string> extra = {});
    static std::vector<std::string> arguments(const std::filesystem::path& data_dir, const std::string& name, const std::string& control_url,
                                              const std::string& token, std::vector<std::string> extra);

    BackgroundProcess process;
    int edge_port = 0;
    int admin_port = 0;
};

} // namespace wr::test
