// Starts `wr serve` nodes that share rooms through a store, and reads their figures.
#include "support/shared_state_nodes.h"

#include <doctest/doctest.h>

#include <httplib.h>
#include <thread>

#include "support/eventually.h"
#include "support/prometheus_parser.h"

namespace wr::test {

using namespace std::chrono_literals;

SharedStateNode::SharedStateNode(const std::filesystem::path& data_dir, const std::string& state, const std::string& name,
                                 std::vector<std::string> extra)
    : process(arguments(data_dir, state, name, std::move(extra)), "API listening on", true) {
    edge_port = port_after(process.output(), "edge: listening on");
    admin_port = port_after(process.ready_line(), "API listening on");
    token = read_admin_token(data_dir);
}

std::vector<std::string> SharedStateNode::arguments(const std::filesystem::path& data_dir, const std::string& state,
                                                    const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> all{WR_BINARY,       "serve",       "--data-dir",     data_dir.string(), "--admin-listen", "127.0.0.1:0",
                                 "--edge-listen", "127.0.0.1:0", "--edge-threads", "2",               "--state",        state,
                                 "--node-name",   name,          "--state-sync-interval", "50ms"};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
}

nlohmann::json SharedStateNode::api(const std::string& method, const std::string& path, const nlohmann::json& body) const {
    httplib::Client client("127.0.0.1", admin_port);
    const httplib::Headers headers = {{"Authorization", "Bearer " + token}};
    httplib::Result result = method == "GET"    ? client.Get(path.c_str(), headers)
                             : method == "POST" ? client.Post(path.c_str(), headers, body.dump(), "application/json")
                                                : client.Patch(path.c_str(), headers, body.dump(), "application/json");
    REQUIRE_MESSAGE(result, "no answer from the admin API");
    REQUIRE_MESSAGE(result->status < 300, result->body);
    return nlohmann::json::parse(result->body);
}

std::string SharedStateNode::metrics() const {
    httplib::Client client("127.0.0.1", admin_port);
    const auto result = client.Get("/metrics", {{"Authorization", "Bearer " + token}});
    REQUIRE(result);
    return result->body;
}

nlohmann::json SharedStateNode::status(const std::string& room) const {
    return api("GET", "/client/v4/zones/example.com/waiting_rooms/" + room + "/status")["result"];
}

double SharedStateNode::connected(const std::string& name, const std::string& backend) const {
    return parse_prometheus(metrics()).value("wr_state_connected", {{"node", name}, {"backend", backend}});
}

nlohmann::json shop_room() {
    return {{"name", "shop"}, {"host", "shop.example.com"}, {"total_active_users", 200}, {"new_users_per_minute", 200},
            {"session_duration", 1}};
}

ThreeEdges::ThreeEdges(const std::string& state, const std::string& origin, std::vector<std::string> extra, std::vector<nlohmann::json> rooms) {
    nodes.push_back(std::make_unique<SharedStateNode>(dirs[0].path(), state, "edge-1", extra));
    nodes[0]->api("POST", "/client/v4/zones", {{"name", "example.com"}, {"origin", origin}});
    for (const nlohmann::json& room : rooms) nodes[0]->api("POST", "/client/v4/zones/example.com/waiting_rooms", room);
    REQUIRE(run_wr({"backup", "--data-dir", dirs[0].path().string(), "--out", backup().string()}).exit_code == 0);
    for (int i = 1; i < 3; ++i) nodes.push_back(copy_of_first(dirs[i].path(), state, "edge-" + std::to_string(i + 1), extra));
    // Node 1's edge sees its new rooms within its configuration poll (200 ms); the others
    // read them at start.
    std::this_thread::sleep_for(400ms);
}

std::unique_ptr<SharedStateNode> ThreeEdges::copy_of_first(const std::filesystem::path& dir, const std::string& state,
                                                           const std::string& name, const std::vector<std::string>& extra) const {
    const auto restored = run_wr({"restore", "--data-dir", dir.string(), backup().string()});
    REQUIRE_MESSAGE(restored.exit_code == 0, restored.err);
    for (const char* file : {"cookie.key", "admin.token"}) std::filesystem::copy_file(dirs[0].path() / file, dir / file);
    return std::make_unique<SharedStateNode>(dir, state, name, extra);
}

bool ThreeEdges::all_connected(const std::string& backend) const {
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i]->connected("edge-" + std::to_string(i + 1), backend) != 1) return false;
    return true;
}

void warm_up(const ThreeEdges& edges, std::vector<SpreadBrowser>& browsers, std::atomic<int>& server_errors) {
    for (size_t e = 0; e < 3; ++e)
        for (int i = 0; i < 100 && !browsers[e].admitted; ++i) {
            if (browsers[e].get(edges.edge(e)).first >= 500) ++server_errors;
            if (!browsers[e].admitted) std::this_thread::sleep_for(50ms);
        }
    std::this_thread::sleep_for(200ms);
}

int first_visitors_served_alone(const SharedStateNode& node) {
    std::this_thread::sleep_for(400ms); // the node's configuration poll
    int served = 0;
    for (int i = 0; i < 5; ++i) {
        SpreadBrowser browser(i);
        const auto [status, from_origin] = browser.get(node.edge_port);
        CHECK(status < 500);
        served += from_origin;
    }
    return served;
}

void wait_until_every_edge_reports(const ThreeEdges& edges, size_t active, const std::string& room) {
    eventually([&] {
        for (const auto& node : edges.nodes)
            if (node->status(room)["estimated_total_active_users"] != active) return false;
        return true;
    });
}

} // namespace wr::test
