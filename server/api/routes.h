#pragma once
// The admin API as a table of routes, and the dispatcher that authenticates a request, finds
// its route and runs its handler. No HTTP library here: admin_server.cpp adapts httplib.
#include <string>
#include <vector>

#include "api/json_limits.h"
#include "api/request.h"
#include "analytics/room_stats.h"
#include "control/error.h"
#include "control/status.h"
#include "store/database.h"
#include "util/clock.h"

namespace wr::state {
class Counters;
}
namespace wr::fleet {
class FleetStatus;
class PublishedSnapshot;
class GuardLoop;
} // namespace wr::fleet

namespace wr::api {

// public_access: no token (health, preview pages). read/edit: a token of that scope, bound to
// the route's zone if bound at all. admin_*: a token valid for every zone (zones, tokens, apply).
// edge: an edge node's token (scope edge), which may use these routes and no others.
enum class Access { public_access, read, edit, admin_read, admin_edit, edge };

// What handlers may use; built by the composition root.
struct Services {
    store::Database& database;
    const util::Clock& clock;
    const model::LiveStatus* live_status = nullptr;
    analytics::Registry* analytics = nullptr;
    // Multi-node (wr serve --role): what edges pull, where their reports go, and this node's
    // name for /metrics. Null where the node serves no edges (the edge routes answer 404).
    const fleet::PublishedSnapshot* published_snapshot = nullptr;
    fleet::FleetStatus* fleet = nullptr;
    std::string node_name = "wr";
    std::string node_role = "all";
    const state::Counters* counters = nullptr; // this node's admission state, for its health in /metrics
    // The origin guard of the rooms this node decides for: what edges push feeds it, their answer
    // and the room status carry its word. Null where no guard runs.
    fleet::GuardLoop* guard = nullptr;
    JsonLimits json_limits{};                  // what a request body may cost as a document (json_limits.h)
};

using Handler = Reply (*)(Services&, Request&);

struct Route {
    const char* method;
    const char* pattern; // "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}"
    Access access;
    Handler handler;
};

// Every route of the admin API, from the per-resource tables.
const std::vector<Route>& all_routes();

// The token of "Authorization: Bearer <token>"; throws 401 (1005, 1006) without one.
std::string bearer_token(const Request& request);
// An error as the v4 envelope, with its status.
Reply error_reply(const control::Error& error);

// Runs the request through authentication, routing, the JSON limits of its body and its
// handler; turns every failure into a v4 error reply.
Reply dispatch(Services& services, const std::vector<Route>& routes, Request& request);

// The route tables of each resource (zones_api.cpp, rooms_api.cpp, …).
std::vector<Route> zone_routes();
std::vector<Route> room_routes();
std::vector<Route> event_routes();
std::vector<Route> rule_routes();
std::vector<Route> token_routes();
std::vector<Route> config_routes();
std::vector<Route> page_routes();
std::vector<Route> meta_routes();
std::vector<Route> analytics_routes();
std::vector<Route> edge_routes();

} // namespace wr::api
