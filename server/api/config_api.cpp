// Handlers of wr's declarative configuration: GET /export and POST /apply (?dry_run, ?prune).
#include "api/routes.h"
#include "control/apply.h"
#include "control/error.h"

namespace wr::api {
namespace {

bool flag(const Request& request, const std::string& name) {
    const auto value = request.query_value(name);
    if (!value || *value == "false" || *value == "0") return false;
    if (value->empty() || *value == "true" || *value == "1") return true;
    throw control::Error::bad_query(name, "must be true or false");
}

Reply export_config(Services& services, Request&) {
    return ok(services.database.read([](store::Connection& connection) { return control::export_document(connection); }));
}

Reply apply_config(Services& services, Request& request) {
    const nlohmann::json document = request.json_body();
    const bool dry_run = flag(request, "dry_run");
    control::ApplyOptions options;
    options.prune = flag(request, "prune");
    const util::TimePoint now = services.clock.now();
    model::AuditActor actor = audit_actor(services, request);
    actor.via = "apply";
    const auto run = [&](store::Connection& connection) {
        control::AuditTrail trail(connection, actor);
        return control::apply_document(connection, now, document, options, &trail);
    };
    // A dry run goes through every check for real (its audit entries too), then rolls back.
    const std::vector<control::Change> changes = dry_run ? services.database.rehearse(run) : services.database.write(run);
    nlohmann::json list = nlohmann::json::array();
    for (const control::Change& change : changes) list.push_back(control::to_json(change));
    return ok({{"dry_run", dry_run}, {"changes", list}});
}

} // namespace

std::vector<Route> config_routes() {
    return {
        {"GET", "/client/v4/export", Access::admin_read, export_config},
        {"POST", "/client/v4/apply", Access::admin_edit, apply_config},
    };
}

} // namespace wr::api
