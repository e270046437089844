#pragma once
// The --state setting: where admission counts live. `memory` (this process only),
// `redis://[[user]:password@]HOST[:PORT][/DB]` or
// `redis-sentinel://[[user]:password@]HOST[:PORT][,HOST[:PORT]…]/MASTER[/DB]` or
// `redis-cluster://[[user]:password@]HOST[:PORT][,HOST[:PORT]…]` (a Cluster has database 0 only).
// Pure parsing.
#include <string>
#include <vector>

namespace wr::state {

struct RedisEndpoint {
    std::string host;
    int port = 6379;
    bool operator==(const RedisEndpoint&) const = default;
};

struct StateUrl {
    enum class Kind { memory, redis, sentinel, cluster };
    Kind kind = Kind::memory;
    std::vector<RedisEndpoint> endpoints; // the server, the Sentinels, or the Cluster nodes to start from
    std::string master_name;              // Sentinel: the master's name
    std::string username;                 // Redis 6 ACL user; "" for the default user
    std::string password;
    int database = 0;

    // For logs and status: never the password.
    std::string describe() const;
    std::string backend() const; // memory, redis, redis-sentinel, redis-cluster
};

// Throws std::invalid_argument naming what is wrong ("no port after 'host:'", …).
StateUrl parse_state_url(const std::string& text);

} // namespace wr::state
