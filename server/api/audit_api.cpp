// Handlers of /audit_logs, and who a request's changes are recorded as.
#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "store/audit_store.h"

namespace wr::api {
namespace {

Reply list_audit_logs(Services& services, Request& request) {
    const PageRequest page = page_request(request);
    store::AuditFilter filter;
    filter.since = time_parameter(request, "since");
    filter.until = time_parameter(request, "until");
    if (filter.since && filter.until && *filter.since >= *filter.until) throw control::Error::bad_query("since", "must be before until");
    filter.object = request.query_value("object").value_or("");
    filter.type = request.query_value("type").value_or("");
    if (request.token && request.token->zone_id) filter.zone_id = *request.token->zone_id;
    return services.database.read([&](store::Connection& connection) {
        nlohmann::json result = nlohmann::json::array();
        for (const model::AuditEntry& entry : store::list_audit_entries(connection, filter, {page.offset(), page.per_page}))
            result.push_back(model::to_json(entry));
        Reply reply = ok(result);
        reply.result_info = result_info(page, result.size(), store::count_audit_entries(connection, filter));
        return reply;
    });
}

} // namespace

model::AuditActor audit_actor(const Services& services, const Request& request) {
    model::AuditActor actor;
    actor.when = services.clock.now();
    if (request.token) {
        actor.token_id = request.token->id;
        actor.token_name = request.token->name;
    }
    actor.address = request.remote_address;
    // wr's own clients say which they are; anything else is the API used directly.
    const std::string client = request.header("x-wr-client").value_or("");
    actor.via = client == "cli" || client == "console" ? client : "api";
    return actor;
}

std::vector<Route> audit_routes() {
    return {
        {"GET", "/client/v4/audit_logs", Access::read, list_audit_logs},
    };
}

} // namespace wr::api
