// Handlers of /zones and /zones/{zone_id}/waiting_rooms/settings.
#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "control/zones.h"
#include "model/json_codec.h"
#include "store/tokens_store.h"
#include "store/zones_store.h"

namespace wr::api {
namespace {

model::ZoneSettings read_zone_body(const Request& request, model::BodyMode mode, model::ZoneSettings settings) {
    if (auto errors = model::read_zone_settings(request.json_body(), mode, settings); !errors.empty())
        throw control::Error::invalid(std::move(errors));
    return settings;
}

Reply list_zones(Services& services, Request& request) {
    const PageRequest page = page_request(request);
    return services.database.read([&](store::Connection& connection) {
        nlohmann::json result = nlohmann::json::array();
        int64_t total = 0;
        if (request.token->zone_id) {
            // A token for one zone sees that zone only.
            if (const auto zone = store::find_zone(connection, *request.token->zone_id)) {
                total = 1;
                if (page.page == 1) result.push_back(model::to_json(*zone));
            }
        } else {
            total = store::count_zones(connection);
            for (const model::Zone& zone : store::list_zones(connection, {page.offset(), page.per_page}))
                result.push_back(model::to_json(zone));
        }
        Reply reply = ok(result);
        reply.result_info = result_info(page, result.size(), total);
        return reply;
    });
}

Reply create_zone(Services& services, Request& request) {
    const model::ZoneSettings settings = read_zone_body(request, model::BodyMode::create, {});
    return ok(model::to_json(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Zone zone = control::create_zone(connection, services.clock.now(), settings);
        trail.created(control::audit_object(zone), control::audit_view(zone));
        return zone;
    })));
}

Reply get_zone(Services&, Request& request) { return ok(model::to_json(*request.zone)); }

Reply patch_zone(Services& services, Request& request) {
    const model::ZoneSettings settings = read_zone_body(request, model::BodyMode::patch, request.zone->settings);
    return ok(model::to_json(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Zone zone = control::update_zone(connection, services.clock.now(), *request.zone, settings);
        trail.updated(control::audit_object(zone), control::audit_view(*request.zone), control::audit_view(zone));
        return zone;
    })));
}

Reply delete_zone(Services& services, Request& request) {
    audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        // Tokens bound to the zone go with it.
        std::vector<model::Token> bound;
        for (model::Token& token : store::list_tokens(connection))
            if (token.zone_id == request.zone->id) bound.push_back(std::move(token));
        control::delete_zone(connection, *request.zone);
        trail.deleted(control::audit_object(*request.zone), control::audit_view(*request.zone));
        for (const model::Token& token : bound) trail.deleted(control::audit_object(token), control::audit_view(token));
    });
    return ok({{"id", request.zone->id}});
}

Reply get_settings(Services& services, Request& request) {
    return ok(model::to_json(services.database.read(
        [&](store::Connection& connection) { return store::get_zone_room_settings(connection, request.zone->id); })));
}

Reply write_settings(Services& services, Request& request, model::BodyMode mode) {
    return ok(model::to_json(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::ZoneRoomSettings before = store::get_zone_room_settings(connection, request.zone->id);
        model::ZoneRoomSettings settings = mode == model::BodyMode::patch ? before : model::ZoneRoomSettings{};
        if (auto errors = model::read_zone_room_settings(request.json_body(), mode, settings); !errors.empty())
            throw control::Error::invalid(std::move(errors));
        control::update_zone_room_settings(connection, services.clock.now(), *request.zone, settings);
        trail.updated(control::audit_settings_object(*request.zone), model::to_json(before), model::to_json(settings));
        return settings;
    })));
}

Reply put_settings(Services& services, Request& request) { return write_settings(services, request, model::BodyMode::replace); }
Reply patch_settings(Services& services, Request& request) { return write_settings(services, request, model::BodyMode::patch); }

} // namespace

std::vector<Route> zone_routes() {
    return {
        {"GET", "/client/v4/zones", Access::read, list_zones},
        {"POST", "/client/v4/zones", Access::admin_edit, create_zone},
        {"GET", "/client/v4/zones/{zone_id}", Access::read, get_zone},
        {"PATCH", "/client/v4/zones/{zone_id}", Access::admin_edit, patch_zone},
        {"DELETE", "/client/v4/zones/{zone_id}", Access::admin_edit, delete_zone},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/settings", Access::read, get_settings},
        {"PUT", "/client/v4/zones/{zone_id}/waiting_rooms/settings", Access::edit, put_settings},
        {"PATCH", "/client/v4/zones/{zone_id}/waiting_rooms/settings", Access::edit, patch_settings},
    };
}

} // namespace wr::api
