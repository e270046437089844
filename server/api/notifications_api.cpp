// Handlers of /notifications/destinations: webhooks for rooms' and nodes' changes, their test
// sends and their delivery logs.
#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "control/notifications.h"
#include "store/notifications_store.h"

namespace wr::api {
namespace {

model::DestinationSettings read_destination_body(const Request& request, model::BodyMode mode, model::DestinationSettings settings) {
    if (auto errors = model::read_destination_settings(request.json_body(), mode, settings); !errors.empty())
        throw control::Error::invalid(std::move(errors));
    return settings;
}

Reply list_destinations(Services& services, Request& request) {
    const PageRequest page = page_request(request);
    return services.database.read([&](store::Connection& connection) {
        const std::vector<model::Destination> all = store::list_destinations(connection);
        nlohmann::json result = nlohmann::json::array();
        for (size_t i = static_cast<size_t>(page.offset()); i < all.size() && result.size() < static_cast<size_t>(page.per_page); ++i)
            result.push_back(model::to_json(all[i]));
        Reply reply = ok(result);
        reply.result_info = result_info(page, result.size(), static_cast<int64_t>(all.size()));
        return reply;
    });
}

Reply create_destination(Services& services, Request& request) {
    model::DestinationSettings settings = read_destination_body(request, model::BodyMode::create, {});
    // Without a secret, wr makes one and shows it this once (like a token).
    const bool generated = settings.secret.empty() && !request.json_body().contains("secret");
    if (generated) settings.secret = control::new_destination_secret();
    return ok(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Destination destination = control::create_destination(connection, services.clock.now(), settings);
        trail.created(control::audit_object(destination), control::audit_view(destination));
        nlohmann::json result = model::to_json(destination);
        if (generated) result["secret"] = destination.settings.secret;
        return result;
    }));
}

Reply get_destination(Services& services, Request& request) {
    return ok(services.database.read([&](store::Connection& connection) {
        return model::to_json(control::resolve_destination(connection, request.param("destination_id")));
    }));
}

Reply patch_destination(Services& services, Request& request) {
    return ok(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Destination existing = control::resolve_destination(connection, request.param("destination_id"));
        const model::DestinationSettings settings = read_destination_body(request, model::BodyMode::patch, existing.settings);
        const model::Destination destination = control::update_destination(connection, services.clock.now(), existing, settings);
        trail.updated(control::audit_object(destination), control::audit_view(existing), control::audit_view(destination));
        return model::to_json(destination);
    }));
}

Reply delete_destination(Services& services, Request& request) {
    return ok(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        const model::Destination destination = control::resolve_destination(connection, request.param("destination_id"));
        control::delete_destination(connection, destination);
        trail.deleted(control::audit_object(destination), control::audit_view(destination));
        return nlohmann::json{{"id", destination.id}};
    }));
}

// Queues a test notification for this destination and returns its delivery; the sender posts it
// within moments, and the delivery log says how it went.
Reply test_destination(Services& services, Request& request) {
    const model::Delivery delivery = services.database.record([&](store::Connection& connection) {
        return control::enqueue_test(connection, services.clock.now(), control::resolve_destination(connection, request.param("destination_id")));
    });
    if (services.notifications_queued) services.notifications_queued();
    return ok(model::to_json(delivery));
}

Reply list_deliveries(Services& services, Request& request) {
    const PageRequest page = page_request(request);
    return services.database.read([&](store::Connection& connection) {
        const model::Destination destination = control::resolve_destination(connection, request.param("destination_id"));
        nlohmann::json result = nlohmann::json::array();
        for (const model::Delivery& delivery : store::list_deliveries(connection, destination.id, {page.offset(), page.per_page}))
            result.push_back(model::to_json(delivery));
        Reply reply = ok(result);
        reply.result_info = result_info(page, result.size(), store::count_deliveries(connection, destination.id));
        return reply;
    });
}

} // namespace

std::vector<Route> notification_routes() {
    const char* const k_one = "/client/v4/notifications/destinations/{destination_id}";
    return {
        {"GET", "/client/v4/notifications/destinations", Access::admin_read, list_destinations},
        {"POST", "/client/v4/notifications/destinations", Access::admin_edit, create_destination},
        {"GET", k_one, Access::admin_read, get_destination},
        {"PATCH", k_one, Access::admin_edit, patch_destination},
        {"DELETE", k_one, Access::admin_edit, delete_destination},
        {"POST", "/client/v4/notifications/destinations/{destination_id}/test", Access::admin_edit, test_destination},
        {"GET", "/client/v4/notifications/destinations/{destination_id}/deliveries", Access::admin_read, list_deliveries},
    };
}

} // namespace wr::api
