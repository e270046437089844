// Handlers of /zones/{zone_id}/waiting_rooms and /accounts/{account_id}/waiting_rooms.
#include <cmath>

#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "control/rooms.h"
#include "control/status.h"
#include "fleet/guard_loop.h"
#include "model/json_codec.h"
#include "store/events_store.h"
#include "store/rooms_store.h"
#include "util/time_format.h"

namespace wr::api {
namespace {

model::RoomSettings read_room_body(const Request& request, model::BodyMode mode, model::RoomSettings settings) {
    if (auto errors = model::read_room_settings(request.json_body(), mode, settings); !errors.empty())
        throw control::Error::invalid(std::move(errors));
    return settings;
}

Reply list_page(Services& services, Request& request, const std::string& zone_id) {
    const PageRequest page = page_request(request);
    const util::TimePoint now = services.clock.now();
    return services.database.read([&](store::Connection& connection) {
        nlohmann::json result = nlohmann::json::array();
        for (const model::Room& room : store::list_rooms(connection, zone_id, {page.offset(), page.per_page}))
            result.push_back(control::room_to_json(connection, room, now));
        Reply reply = ok(result);
        reply.result_info = result_info(page, result.size(), store::count_rooms(connection, zone_id));
        return reply;
    });
}

Reply list_rooms(Services& services, Request& request) { return list_page(services, request, request.zone->id); }

// Every room of the installation (the account id is not checked: wr has one account); a token
// bound to a zone sees that zone's rooms.
Reply list_account_rooms(Services& services, Request& request) {
    return list_page(services, request, request.token->zone_id.value_or(""));
}

Reply create_room(Services& services, Request& request) {
    const model::RoomSettings settings = read_room_body(request, model::BodyMode::create, {});
    const util::TimePoint now = services.clock.now();
    return ok(services.database.write([&](store::Connection& connection) {
        return control::room_to_json(connection, control::create_room(connection, now, *request.zone, settings), now);
    }));
}

Reply get_room(Services& services, Request& request) {
    const util::TimePoint now = services.clock.now();
    return ok(services.database.read([&](store::Connection& connection) {
        return control::room_to_json(connection, control::resolve_room(connection, *request.zone, request.param("room_id")), now);
    }));
}

Reply write_room(Services& services, Request& request, model::BodyMode mode) {
    const util::TimePoint now = services.clock.now();
    return ok(services.database.write([&](store::Connection& connection) {
        const model::Room existing = control::resolve_room(connection, *request.zone, request.param("room_id"));
        const model::RoomSettings settings =
            read_room_body(request, mode, mode == model::BodyMode::patch ? existing.settings : model::RoomSettings{});
        return control::room_to_json(connection, control::update_room(connection, now, *request.zone, existing, settings), now);
    }));
}

Reply put_room(Services& services, Request& request) { return write_room(services, request, model::BodyMode::replace); }
Reply patch_room(Services& services, Request& request) { return write_room(services, request, model::BodyMode::patch); }

Reply delete_room(Services& services, Request& request) {
    return ok(services.database.write([&](store::Connection& connection) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        control::delete_room(connection, room);
        return nlohmann::json{{"id", room.id}};
    }));
}

// The guard's state and the origin's figures behind it; "off" with no figures where the guard is
// disabled and has not run.
nlohmann::json origin_guard_json(const model::Room& room, const std::optional<origin::GuardView>& guard) {
    const auto figure = [](double value) { return value < 0 ? nlohmann::json(nullptr) : nlohmann::json(value); };
    if (!guard) {
        return {{"state", room.settings.origin_guard.enabled ? "content" : "off"},
                {"p95_ttfb_ms", nullptr},
                {"error_rate", nullptr},
                {"reason", room.settings.origin_guard.enabled ? "no measurement of the origin yet: the configured limits apply"
                                                              : "the origin guard is off: the configured limits apply"}};
    }
    return {{"state", origin::to_string(guard->state)},
            {"p95_ttfb_ms", figure(guard->p95_ttfb_ms < 0 ? -1 : std::round(guard->p95_ttfb_ms))},
            {"error_rate", figure(guard->error_rate)},
            {"reason", guard->reason}};
}

Reply room_status(Services& services, Request& request) {
    const util::TimePoint now = services.clock.now();
    const auto [room, events] = services.database.read([&](store::Connection& connection) {
        model::Room found = control::resolve_room(connection, *request.zone, request.param("room_id"));
        return std::make_pair(found, store::all_events(connection, found.id));
    });
    const model::LiveFigures live = services.live_status ? services.live_status->figures(room.id, now) : model::LiveFigures{};
    const std::optional<origin::GuardView> guard = services.guard ? services.guard->view(room.id) : std::nullopt;
    const control::RoomStatus status = control::room_status(room, events, live, guard, now);
    // wr's own: the nodes whose figures these are, and what is wrong with any of them.
    nlohmann::json nodes = nlohmann::json::array();
    if (services.live_status)
        for (const model::NodeStatus& node : services.live_status->nodes(room.id, now))
            nodes.push_back({{"name", node.node},
                             {"role", node.role},
                             {"condition", node.condition},
                             {"message", node.message},
                             {"last_report", util::format_iso8601(node.last_report)},
                             {"state",
                              {{"backend", node.state_backend},
                               {"connected", node.state_connected},
                               {"failure_mode", node.state_failure_mode},
                               {"since", node.state_connected ? nlohmann::json(nullptr) : nlohmann::json(util::format_iso8601(node.state_since))},
                               {"detail", node.state_detail}}},
                             {"active_users", node.active_users},
                             {"queued_users", node.queued_users}});
    return ok({{"status", status.status},
               {"event_id", status.event_id},
               {"estimated_queued_users", status.estimated_queued_users},
               {"estimated_total_active_users", status.estimated_total_active_users},
               {"max_estimated_time_minutes", status.max_estimated_time_minutes},
               {"effective_total_active_users", status.effective_total_active_users},
               {"effective_new_users_per_minute", status.effective_new_users_per_minute},
               {"origin_guard", origin_guard_json(room, status.origin_guard)},
               {"nodes", std::move(nodes)}});
}

} // namespace

std::vector<Route> room_routes() {
    return {
        {"GET", "/client/v4/accounts/{account_id}/waiting_rooms", Access::read, list_account_rooms},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms", Access::read, list_rooms},
        {"POST", "/client/v4/zones/{zone_id}/waiting_rooms", Access::edit, create_room},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}", Access::read, get_room},
        {"PUT", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}", Access::edit, put_room},
        {"PATCH", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}", Access::edit, patch_room},
        {"DELETE", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}", Access::edit, delete_room},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/status", Access::read, room_status},
    };
}

} // namespace wr::api
