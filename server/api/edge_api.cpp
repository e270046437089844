// Handlers of the routes edge nodes use (tokens of scope edge only): the configuration snapshot
// with the cookie keys, and the push of their analytics and live figures.
#include "api/routes.h"
#include "control/error.h"
#include "fleet/batch_merge.h"
#include "fleet/fleet_status.h"
#include "fleet/guard_loop.h"
#include "fleet/published_snapshot.h"
#include "fleet/report_wire.h"
#include "store/edge_nodes_store.h"

namespace wr::api {
namespace {

void require_fleet(const Services& services) {
    if (!services.published_snapshot || !services.fleet)
        throw control::Error::of(control::ErrorCode::not_found, 404, "this node does not serve edge nodes");
}

// The snapshot, or 304 when the edge has it already (If-None-Match: its ETag).
Reply edge_config(Services& services, Request& request) {
    require_fleet(services);
    const fleet::PublishedSnapshot::Current current = services.published_snapshot->current();
    if (!current.body) throw control::Error::of(control::ErrorCode::internal, 500, "the configuration is not loaded yet");
    Reply reply;
    reply.quiet = true;
    reply.headers.emplace_back("ETag", current.etag);
    if (request.header("if-none-match") == current.etag) {
        reply.status = 304;
        reply.raw_body = "";
        return reply;
    }
    reply.raw_body = *current.body;
    return reply;
}

// A report and maybe a batch: the batch is merged unless it was before (a retry), the report
// replaces the node's last one. The answer names the batch acknowledged. A node's name belongs
// to the edge token that first pushed under it: no other token may report or count as that node.
Reply edge_analytics(Services& services, Request& request) {
    require_fleet(services);
    std::string error;
    std::optional<fleet::PushMessage> message = fleet::read_push_value(request.json_body(), error);
    if (!message) throw control::Error::invalid("", error);
    const util::TimePoint now = services.clock.now();
    const std::string& node = message->report.node;
    const bool ours = services.database.record(
        [&](store::Connection& connection) { return store::claim_edge_node(connection, node, request.token->id, now); });
    if (!ours)
        throw control::Error::of(control::ErrorCode::node_claimed, 403,
                                 "node " + node + " pushes with another edge token; a node's name belongs to the token it first pushed "
                                 "with (revoke that token to give the name to another)");
    nlohmann::json acknowledged = nullptr;
    if (message->batch) {
        const fleet::RoomMinutes merged = fleet::merge_batch(services.database, message->report.node, *message->batch, now);
        for (const auto& [room_id, minutes] : merged)
            for (const auto& [minute, record] : minutes) {
                if (services.analytics) services.analytics->room(room_id)->add_to_totals(record);
                if (services.guard) services.guard->add(room_id, node, record); // what the room's origin did at this edge
            }
        acknowledged = message->batch->sequence;
    }
    if (services.guard) services.guard->heard(node);
    services.fleet->record(std::move(message->report), now);
    // wr's own: the origin guard's limits for the rooms it holds down, which the edge applies.
    Reply reply = ok({{"acknowledged", acknowledged}, {"guard", services.guard ? services.guard->json() : nlohmann::json::object()}});
    reply.quiet = true;
    return reply;
}

} // namespace

std::vector<Route> edge_routes() {
    return {
        {"GET", "/client/v4/edge/config", Access::edge, edge_config},
        {"POST", "/client/v4/edge/analytics", Access::edge, edge_analytics},
    };
}

} // namespace wr::api
