#pragma once
// `wr serve` processes sharing rooms through a store (--state redis://…, redis-sentinel://…,
// redis-cluster://…), each a whole node (role all) with the same room and cookie key, as an
// operator sets them up before a control node feeds them: the shared-state tests start them.
#include <atomic>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/spread_browser.h"
#include "support/temp_dir.h"

namespace wr::test {

// `wr serve` with shared state, syncing every 50 ms, its ports read from its log.
struct SharedStateNode {
    SharedStateNode(const std::filesystem::path& data_dir, const std::string& state, const std::string& name,
                    std::vector<std::string> extra = {});
    static std::vector<std::string> arguments(const std::filesystem::path& data_dir, const std::string& state, const std::string& name,
                                              std::vector<std::string> extra);
    // One admin API call; fails the test unless it answers below 300. The whole envelope.
    nlohmann::json api(const std::string& method, const std::string& path, const nlohmann::json& body = nullptr) const;
    std::string metrics() const;
    // The status endpoint's figures for the room named `room` (default the shop).
    nlohmann::json status(const std::string& room = "shop") const;
    // wr_state_connected of this node (named `name`) on `backend`.
    double connected(const std::string& name, const std::string& backend) const;

    BackgroundProcess process;
    int edge_port = 0;
    int admin_port = 0;
    std::string token;
};

// The shop: a room of 200/200 on shop.example.com with sessions of a minute.
nlohmann::json shop_room();

// Three nodes with the same rooms (the same ids everywhere): node 1 creates them, and its data
// directory (database and cookie key) is copied to the others, as an operator would before the
// nodes pull configuration from a control node.
struct ThreeEdges {
    ThreeEdges(const std::string& state, const std::string& origin, std::vector<std::string> extra = {},
               std::vector<nlohmann::json> rooms = {shop_room()});
    int edge(size_t i) const { return nodes[i % nodes.size()]->edge_port; }
    std::filesystem::path backup() const { return dirs[0].path() / "copy.db"; }
    // Another node with node 1's rooms and cookie key.
    std::unique_ptr<SharedStateNode> copy_of_first(const std::filesystem::path& dir, const std::string& state, const std::string& name,
                                                   const std::vector<std::string>& extra = {}) const;
    // Whether every node reports wr_state_connected 1 on `backend`.
    bool all_connected(const std::string& backend) const;

    TempDir dirs[3];
    std::vector<std::unique_ptr<SharedStateNode>> nodes;
};

// A first visitor on each edge, then a moment: each edge's first sync of the room (a room new
// on a node admits one visitor until it answers) is behind them before the crowd comes.
// Each first visitor asks again until let in: a node has the room only once its configuration
// poll has compiled it, which on a loaded machine can take longer than the nodes' start.
void warm_up(const ThreeEdges& edges, std::vector<SpreadBrowser>& browsers, std::atomic<int>& server_errors);

// Five first visitors of the shop on a node whose store has not answered yet, once its
// configuration poll has the room: how many got the origin's page (each admits as if alone, so
// all should); a 5xx fails the test.
int first_visitors_served_alone(const SharedStateNode& node);

// Until every edge reports `active` people in `room`, for up to 5 s (each learns the others'
// admissions at its next sync; the caller checks the figures then).
void wait_until_every_edge_reports(const ThreeEdges& edges, size_t active, const std::string& room = "shop");

} // namespace wr::test
