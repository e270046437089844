#pragma once
// The admin listener of an edge node (wr serve --role edge), which has no database and no admin
// API of its own: GET /healthz (no token) and GET /metrics (a read or edit token, checked by the
// control node). Every other path answers 404 naming the control node.
#include <string>

#include "analytics/room_stats.h"
#include "api/request.h"
#include "control/status.h"
#include "edge/config_source.h"
#include "state/counters.h"
#include "util/clock.h"

namespace wr::fleet {
class ConfigPuller;
class RemoteTokens;
} // namespace wr::fleet

namespace wr::api {

struct NodeServices {
    const util::Clock& clock;
    std::string node_name;
    const edge::ConfigSource& config;
    const model::LiveStatus& live;
    analytics::Registry& analytics;
    const state::Counters& counters;
    fleet::RemoteTokens& tokens;
    const fleet::ConfigPuller& puller;
};

Reply dispatch_edge_node(NodeServices& services, Request& request);

} // namespace wr::api
