#pragma once
// The admin API as a table of routes, and the dispatcher that authenticates a request, finds
// its route and runs its handler. No HTTP library here: admin_server.cpp adapts httplib.
#include <string>
#include <vector>

#include "api/request.h"
#include "analytics/room_stats.h"
#include "control/status.h"
#include "store/database.h"
#include "util/clock.h"

namespace wr::api {

// public_access: no token (health, preview pages). read/edit: a token of that scope, bound to
// the route's zone if bound at all. admin_*: a token valid for every zone (zones, tokens, apply).
enum class Access { public_access, read, edit, admin_read, admin_edit };

// What handlers may use; built by the composition root.
struct Services {
    store::Database& database;
    const util::Clock& clock;
    const control::LiveStatus* live_status = nullptr;
    analytics::Registry* analytics = nullptr;
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

// Runs the request through authentication, routing and its handler; turns every failure
// into a v4 error reply.
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

} // namespace wr::api
