#pragma once
// One call of the reconcile script (reconcile.lua) as Redis takes it — an EVALSHA covering
// rooms of one server synced at one moment — and the reading of its answer, room by room.
// Shared by the stores on one Redis (redis_store.*) and on a Redis Cluster
// (redis_cluster_store.*). No I/O.
#include <string>
#include <string_view>
#include <vector>

#include "state/shared_store.h"

struct redisReply;

namespace wr::state {

// A call holds its server for its length: a hundred rooms take about a millisecond.
inline constexpr size_t k_rooms_per_call = 100;

// The number a node run goes by as a room's merger (from its id: the script keeps a number, not
// a name, in the room's header).
int64_t node_number(std::string_view node_id);

// A string, status or error answer's text, an integer's digits; "" for anything else.
std::string reply_text(const redisReply* reply);

// The Lua script the stores run, as embedded in the binary.
std::string_view reconcile_script();

// The EVALSHA's arguments: `server` is the run id of the server it goes to (a room whose state
// another server wrote holds its grants until every node has synced).
std::vector<std::string> script_call(const std::string& sha, const std::string& server, const std::string& node_id,
                                     const std::vector<const RoomPush*>& pushes, const StoreTiming& timing);

// The answers to one call of `rooms` rooms, in order: a room the script failed on (one of its
// keys damaged), or an answer that is not one per room, fails alone.
void read_call_answer(const redisReply* answer, size_t rooms, std::vector<RoomReply>& out);

// An error about the server rather than one room's keys (READONLY, NOSCRIPT, MOVED, …): the
// call did not run; the caller connects again or goes elsewhere.
bool is_server_error(std::string_view error);

RoomReply failed_room(std::string error);

} // namespace wr::state
