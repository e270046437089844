// Handlers of /zones/{zone_id}/waiting_rooms/{room_id}/events.
#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "control/events.h"
#include "control/rooms.h"
#include "model/json_codec.h"
#include "store/events_store.h"

namespace wr::api {
namespace {

model::EventSettings read_event_body(const Request& request, model::BodyMode mode, model::EventSettings settings) {
    if (auto errors = model::read_event_settings(request.json_body(), mode, settings); !errors.empty())
        throw control::Error::invalid(std::move(errors));
    return settings;
}

Reply list_events(Services& services, Request& request) {
    const PageRequest page = page_request(request);
    return services.database.read([&](store::Connection& connection) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        nlohmann::json result = nlohmann::json::array();
        for (const model::Event& event : store::list_events(connection, room.id, {page.offset(), page.per_page}))
            result.push_back(model::to_json(event));
        Reply reply = ok(result);
        reply.result_info = result_info(page, result.size(), store::count_events(connection, room.id));
        return reply;
    });
}

Reply create_event(Services& services, Request& request) {
    const model::EventSettings settings = read_event_body(request, model::BodyMode::create, {});
    return ok(model::to_json(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        const model::Event event = control::create_event(connection, services.clock.now(), room, settings);
        trail.created(control::audit_object(*request.zone, room, event), model::settings_to_json(event.settings));
        return event;
    })));
}

Reply get_event(Services& services, Request& request) {
    return ok(model::to_json(services.database.read([&](store::Connection& connection) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        return control::resolve_event(connection, room, request.param("event_id"));
    })));
}

Reply event_details(Services& services, Request& request) {
    return ok(services.database.read([&](store::Connection& connection) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        return model::event_details_to_json(control::resolve_event(connection, room, request.param("event_id")), room.settings);
    }));
}

Reply write_event(Services& services, Request& request, model::BodyMode mode) {
    return ok(model::to_json(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        const model::Event existing = control::resolve_event(connection, room, request.param("event_id"));
        const model::EventSettings settings =
            read_event_body(request, mode, mode == model::BodyMode::patch ? existing.settings : model::EventSettings{});
        const model::Event event = control::update_event(connection, services.clock.now(), room, existing, settings);
        trail.updated(control::audit_object(*request.zone, room, event), model::settings_to_json(existing.settings),
                      model::settings_to_json(event.settings));
        return event;
    })));
}

Reply put_event(Services& services, Request& request) { return write_event(services, request, model::BodyMode::replace); }
Reply patch_event(Services& services, Request& request) { return write_event(services, request, model::BodyMode::patch); }

Reply delete_event(Services& services, Request& request) {
    return ok(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Room room = control::resolve_room(connection, *request.zone, request.param("room_id"));
        const model::Event event = control::resolve_event(connection, room, request.param("event_id"));
        control::delete_event(connection, event);
        trail.deleted(control::audit_object(*request.zone, room, event), model::settings_to_json(event.settings));
        return nlohmann::json{{"id", event.id}};
    }));
}

} // namespace

std::vector<Route> event_routes() {
    return {
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events", Access::read, list_events},
        {"POST", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events", Access::edit, create_event},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events/{event_id}", Access::read, get_event},
        {"PUT", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events/{event_id}", Access::edit, put_event},
        {"PATCH", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events/{event_id}", Access::edit, patch_event},
        {"DELETE", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events/{event_id}", Access::edit, delete_event},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/events/{event_id}/details", Access::read, event_details},
    };
}

} // namespace wr::api
