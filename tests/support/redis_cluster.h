#pragma once
// A real Redis Cluster for the tests: six redis-servers on 127.0.0.1 ephemeral ports, joined by
// `redis-cli --cluster create … --cluster-replicas 1` into three masters with a replica each,
// quick to fail over (cluster-node-timeout 1000 ms). No persistence.
#include <memory>
#include <string>
#include <vector>

#include "support/redis_server.h"

namespace wr::test {

class RedisCluster {
public:
    RedisCluster(); // returns once every node says cluster_state:ok (or fails the test)
    // redis-cluster://127.0.0.1:P1,127.0.0.1:P2 (two nodes to start from)
    std::string url() const;
    // The port of the master serving `slot`, as node `asked` sees it (CLUSTER SLOTS).
    int master_of_slot(int slot, int asked = 0) const;
    // The replica copying the master on `master_port`.
    int replica_of(int master_port) const;
    RedisServer& node(int port);
    // The replica takes over from its master (CLUSTER FAILOVER), until the cluster agrees.
    void fail_over(int replica_port);
    // Moves `slot` and its keys to the master on `to_port` as redis-cli --cluster reshard does:
    // SETSLOT IMPORTING / MIGRATING, MIGRATE of every key, SETSLOT NODE everywhere.
    void move_slot(int slot, int to_port);
    // Whether every running node says cluster_state:ok and names `master_port` the master of `slot`.
    bool settled(int slot, int master_port) const;
    std::vector<int> masters() const;

private:
    std::string id_of(int port) const;
    std::vector<std::unique_ptr<RedisServer>> m_nodes;
};

} // namespace wr::test
