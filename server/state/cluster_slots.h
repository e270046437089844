#pragma once
// Where a key lives in a Redis Cluster, and what to do when a node says it is not there. Pure:
// no I/O; the cluster store (redis_cluster_store.*) asks these and follows the answers.
//
// A Cluster splits the key space into 16384 slots, each served by one master: a key's slot is
// the CRC16 (XMODEM) of its hash tag — the text between its first '{' and the next '}', when
// that is not empty — or of the whole key, modulo 16384. A node asked for a slot it does not
// serve answers MOVED (the slot has a new owner for good: note it, ask there) or, while the
// slot migrates, ASK (ask there once, after ASKING, and keep the map as it is).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "state/state_url.h"

struct redisReply;

namespace wr::state {

inline constexpr int k_cluster_slots = 16384;
// Redirections followed for one call in one sync; past that the rooms wait for the next sync
// (a slot bouncing between nodes is a cluster being reconfigured, not something to chase).
inline constexpr int k_max_redirections = 5;

uint16_t crc16_xmodem(std::string_view bytes);
int key_slot(std::string_view key);

// The masters serving the slots, as CLUSTER SLOTS lists them.
class SlotMap {
public:
    // From a CLUSTER SLOTS answer; throws std::invalid_argument naming what it could not read.
    // A master whose address is empty (a node that does not know its own) is at `answered_by`'s
    // host, as the Cluster specification says.
    static SlotMap from_cluster_slots(const redisReply* reply, const std::string& answered_by_host);

    // The master serving `slot`, or nullopt when no master does (the cluster is incomplete).
    std::optional<RedisEndpoint> master_of(int slot) const;
    // Every master named, each once, in the order first met.
    const std::vector<RedisEndpoint>& masters() const { return m_masters; }
    bool empty() const { return m_masters.empty(); }
    // A MOVED answer: the slot is served there from now on.
    void move(int slot, const RedisEndpoint& master);

private:
    int16_t index_of(const RedisEndpoint& master);
    std::vector<RedisEndpoint> m_masters;
    std::array<int16_t, k_cluster_slots> m_owner{}; // index into m_masters + 1; 0: no master
};

// A node's error answer, read as what to do about it.
struct Redirection {
    enum class Kind {
        none,    // not about where the keys are: the caller's own error handling applies
        moved,   // MOVED slot host:port: update the map, send the call there
        ask,     // ASK slot host:port: send ASKING then the call there, once; the map stays
        refresh, // CLUSTERDOWN, TRYAGAIN: the cluster is changing; read the map again, retry next sync
    };
    Kind kind = Kind::none;
    int slot = -1;
    RedisEndpoint target;
};

// "MOVED 3999 127.0.0.1:6381", "ASK 3999 [::1]:6381", "CLUSTERDOWN …", "TRYAGAIN …" → what to
// do; anything else (or a redirection it cannot read) → none. `answered_by_host` stands in for
// an empty host ("MOVED 3999 :6381": the node's own address, unknown to it).
Redirection redirection_of(std::string_view error, const std::string& answered_by_host);

// What to do with one call's answer in one sync: follow a redirection while fewer than
// k_max_redirections were followed for it, else give up on it for this sync.
enum class NextStep { done, follow, give_up };
NextStep next_step(const Redirection& redirection, int redirections_so_far);

} // namespace wr::state
