// Creates a Redis Cluster of six local redis-servers and moves its slots for the tests.
#include "support/redis_cluster.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <sstream>

#include "support/eventually.h"
#include "support/process.h"

namespace wr::test {
namespace {

std::string run(const std::string& command) { return command_output(command + " 2>&1"); }

// CLUSTER NODES, one line per node: id host:port@bus flags master-id … slots…
std::vector<std::vector<std::string>> cluster_nodes(const RedisServer& node) {
    std::vector<std::vector<std::string>> out;
    std::istringstream lines(node.cli({"CLUSTER", "NODES"}));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::vector<std::string> fields;
        for (std::string word; words >> word;) fields.push_back(word);
        if (fields.size() >= 8) out.push_back(fields);
    }
    return out;
}

int port_in(const std::string& address) { // "127.0.0.1:7000@17000"
    const size_t colon = address.find(':');
    return std::stoi(address.substr(colon + 1, address.find('@') - colon - 1));
}

} // namespace

RedisCluster::RedisCluster() {
    std::string command = "redis-cli --cluster create";
    for (int i = 0; i < 6; ++i) {
        // The bus port is the client port + 10000 unless told: past 65535 for most ephemeral ports.
        m_nodes.push_back(std::make_unique<RedisServer>(std::vector<std::string>{"--cluster-enabled", "yes", "--cluster-config-file",
                                                                                 "nodes.conf", "--cluster-node-timeout", "1000",
                                                                                 "--cluster-port", std::to_string(free_port())}));
        command += " 127.0.0.1:" + std::to_string(m_nodes.back()->port());
    }
    const std::string created = run(command + " --cluster-replicas 1 --cluster-yes");
    REQUIRE_MESSAGE(created.find("[OK] All 16384 slots covered") != std::string::npos, created);
    // Every node knows every slot's master, and every replica is linked.
    const bool ok = eventually([&] {
        for (const auto& node : m_nodes)
            if (node->cli({"CLUSTER", "INFO"}).find("cluster_state:ok") == std::string::npos || cluster_nodes(*node).size() != 6) return false;
        const std::vector<int> known = masters();
        if (known.size() != 3) return false;
        for (const int master : known) {
            const int replica = replica_of(master);
            if (replica == 0 || node(replica).cli({"INFO", "replication"}).find("master_link_status:up") == std::string::npos) return false;
        }
        return true;
    }, std::chrono::seconds{20});
    REQUIRE_MESSAGE(ok, "the Redis Cluster did not come up");
}

std::string RedisCluster::url() const {
    return "redis-cluster://127.0.0.1:" + std::to_string(m_nodes[0]->port()) + ",127.0.0.1:" + std::to_string(m_nodes[1]->port());
}

RedisServer& RedisCluster::node(int port) {
    for (auto& node : m_nodes)
        if (node->port() == port) return *node;
    FAIL("no cluster node on port " << port);
    throw;
}

std::vector<int> RedisCluster::masters() const {
    std::vector<int> out;
    for (const auto& fields : cluster_nodes(*m_nodes[0]))
        if (fields[2].find("master") != std::string::npos && fields[2].find("fail") == std::string::npos && fields.size() > 8)
            out.push_back(port_in(fields[1]));
    return out;
}

std::string RedisCluster::id_of(int port) const {
    for (const auto& node : m_nodes)
        if (node->running())
            for (const auto& fields : cluster_nodes(*node))
                if (port_in(fields[1]) == port) return fields[0];
    return "";
}

int RedisCluster::replica_of(int master_port) const {
    const std::string id = id_of(master_port);
    for (const auto& fields : cluster_nodes(*m_nodes[0]))
        if (fields[3] == id) return port_in(fields[1]);
    return 0;
}

int RedisCluster::master_of_slot(int slot, int asked) const {
    const RedisServer& node = *m_nodes[static_cast<size_t>(asked)];
    for (const auto& fields : cluster_nodes(node)) {
        if (fields[2].find("master") == std::string::npos) continue;
        for (size_t i = 8; i < fields.size(); ++i) {
            const std::string& range = fields[i];
            if (range.starts_with("[")) continue; // a slot migrating
            const size_t dash = range.find('-');
            const int first = std::stoi(range.substr(0, dash));
            const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
            if (slot >= first && slot <= last) return port_in(fields[1]);
        }
    }
    return 0;
}

bool RedisCluster::settled(int slot, int master_port) const {
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        if (!m_nodes[i]->running()) continue;
        if (m_nodes[i]->cli({"CLUSTER", "INFO"}).find("cluster_state:ok") == std::string::npos) return false;
        if (master_of_slot(slot, static_cast<int>(i)) != master_port) return false;
    }
    return true;
}

void RedisCluster::fail_over(int replica_port) {
    CHECK(node(replica_port).cli({"CLUSTER", "FAILOVER"}) == "OK");
}

void RedisCluster::move_slot(int slot, int to_port) {
    const int from_port = master_of_slot(slot);
    REQUIRE(from_port != 0);
    if (from_port == to_port) return;
    RedisServer& from = node(from_port);
    RedisServer& to = node(to_port);
    const std::string slot_text = std::to_string(slot);
    CHECK(to.cli({"CLUSTER", "SETSLOT", slot_text, "IMPORTING", id_of(from_port)}) == "OK");
    CHECK(from.cli({"CLUSTER", "SETSLOT", slot_text, "MIGRATING", id_of(to_port)}) == "OK");
    while (true) {
        std::istringstream keys(from.cli({"CLUSTER", "GETKEYSINSLOT", slot_text, "100"}));
        std::vector<std::string> arguments = {"MIGRATE", "127.0.0.1", std::to_string(to_port), "", "0", "5000", "KEYS"};
        for (std::string key; std::getline(keys, key);)
            if (!key.empty()) arguments.push_back(key);
        if (arguments.size() == 7) break;
        const std::string migrated = from.cli(arguments);
        REQUIRE_MESSAGE(migrated == "OK", migrated);
    }
    const std::string target = id_of(to_port);
    CHECK(to.cli({"CLUSTER", "SETSLOT", slot_text, "NODE", target}) == "OK");
    CHECK(from.cli({"CLUSTER", "SETSLOT", slot_text, "NODE", target}) == "OK");
    for (const auto& node : m_nodes)
        if (node->running() && node->port() != from_port && node->port() != to_port) node->cli({"CLUSTER", "SETSLOT", slot_text, "NODE", target});
}

} // namespace wr::test
