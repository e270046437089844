// Health and metrics of an edge node; tokens checked through its control node.
#include "api/node_api.h"

#include "analytics/prometheus.h"
#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "fleet/config_puller.h"
#include "fleet/remote_tokens.h"
#include "util/log.h"
#include "util/time_format.h"

namespace wr::api {
namespace {

using control::Error;
using control::ErrorCode;

// What the edge serves and where it came from: a load balancer's health check needs only the
// 200; the rest is for the operator.
Reply health(NodeServices& services) {
    const fleet::ConfigPuller::State state = services.puller.state();
    const nlohmann::json body = {
        {"status", "ok"},
        {"node", services.node_name},
        {"role", "edge"},
        {"configuration", {{"version", state.etag}, {"source", state.source}, {"fetched_on", util::format_iso8601(state.fetched_on)}}},
        {"control",
         {{"reachable", state.control_reachable},
          {"unreachable_since", state.control_reachable ? nlohmann::json(nullptr) : nlohmann::json(util::format_iso8601(state.unreachable_since))},
          {"error", state.last_error}}}};
    Reply reply = raw(body.dump() + "\n", "application/json");
    reply.quiet = true; // a load balancer asks every few seconds: routine, like the edges' polls
    return reply;
}

model::Token authenticate(NodeServices& services, const Request& request) {
    const fleet::TokenCheck check = services.tokens.check(bearer_token(request));
    switch (check.verdict) {
    case fleet::TokenCheck::Verdict::valid:
        if (check.token->scope == model::TokenScope::edge)
            throw Error::of(ErrorCode::wrong_token_kind, 403,
                            "an edge token may only fetch the configuration and cookie keys and push analytics; /metrics needs a "
                            "read or edit token");
        return *check.token;
    case fleet::TokenCheck::Verdict::invalid:
        throw Error::of(ErrorCode::invalid_token, 401, "the API token is not valid (revoked or mistyped)");
    case fleet::TokenCheck::Verdict::forbidden:
        throw Error::of(ErrorCode::wrong_token_kind, 403, check.message);
    case fleet::TokenCheck::Verdict::unavailable:
        break;
    }
    throw Error::of(ErrorCode::control_unreachable, 503,
                    check.message + ", and has not vouched for this token in the last 24 hours; try again when it answers");
}

Reply metrics(NodeServices& services, const model::Token& token) {
    const util::TimePoint now = services.clock.now();
    const edge::Snapshot snapshot = services.config.snapshot();
    std::vector<analytics::RoomMetrics> rooms;
    if (snapshot.config)
        for (const auto& room : snapshot.config->rooms) {
            if (token.zone_id && (!room->zone || room->zone->id != *token.zone_id)) continue;
            analytics::RoomMetrics metrics;
            metrics.zone = room->zone ? room->zone->name : "";
            metrics.room = room->settings.name;
            metrics.totals = services.analytics.room(room->id)->totals();
            const model::LiveFigures live = services.live.figures(room->id, now);
            metrics.active_users = live.active_users;
            metrics.queued_users = live.queued_users;
            metrics.total_active_users_limit = live.total_active_users_limit;
            metrics.new_users_per_minute_limit = live.new_users_per_minute_limit;
            rooms.push_back(std::move(metrics));
        }
    analytics::NodeMetrics node;
    node.name = services.node_name;
    node.role = "edge";
    const state::Health health = services.counters.health();
    node.state_backend = health.backend;
    node.state = services.analytics.state_metrics();
    node.control_reachable = services.puller.state().control_reachable;
    node.open_tunnels = services.analytics.edge().open_tunnels.load(std::memory_order_relaxed);
    node.tunnels_opened = services.analytics.edge().tunnels_opened.load(std::memory_order_relaxed);
    node.origins = services.analytics.origin_metrics();
    return raw(analytics::prometheus_text(rooms, services.analytics.decision_time().snapshot(), node),
               "text/plain; version=0.0.4; charset=utf-8");
}

} // namespace

Reply dispatch_edge_node(NodeServices& services, Request& request) {
    try {
        if (request.path == "/healthz" || request.path == "/metrics") {
            if (request.method != "GET") throw Error::of(ErrorCode::method_not_allowed, 405, request.method + " is not allowed on " + request.path);
            if (request.path == "/healthz") return health(services);
            const model::Token token = authenticate(services, request);
            return metrics(services, token);
        }
        throw Error::of(ErrorCode::not_found, 404,
                        "this is an edge node: it serves /healthz and /metrics only; the admin API is on its control node");
    } catch (const Error& error) {
        return error_reply(error);
    } catch (const std::exception& error) {
        util::log_error("admin", request.method + " " + request.path + " failed: " + error.what());
        return error_reply(Error::of(ErrorCode::internal, 500, "internal error; the server log has details"));
    }
}

} // namespace wr::api
