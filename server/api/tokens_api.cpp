// Handlers of /tokens: create (the token is shown once), list (never the secrets), revoke, and
// verify (what the calling token may do).
#include "api/routes.h"
#include "control/error.h"
#include "control/tokens.h"
#include "control/zones.h"
#include "model/json_codec.h"
#include "store/tokens_store.h"

namespace wr::api {
namespace {

Reply list_tokens(Services& services, Request&) {
    return ok(services.database.read([](store::Connection& connection) {
        nlohmann::json result = nlohmann::json::array();
        for (const model::Token& token : store::list_tokens(connection)) result.push_back(model::to_json(token));
        return result;
    }));
}

Reply create_token(Services& services, Request& request) {
    const nlohmann::json body = request.json_body();
    if (!body.is_object()) throw control::Error::invalid("", "the request body must be a JSON object");
    model::FieldErrors errors;
    std::string name;
    model::JsonFields fields(body, model::BodyMode::create, errors);
    fields.string("name", name, "", model::Presence::required);
    model::TokenScope scope = model::TokenScope::read;
    // null too: it would otherwise stand for the default, and make a read token nobody asked for.
    if (!body.contains("scope") || body["scope"].is_null()) errors.push_back({"scope", "is required (read, edit or edge)"});
    fields.enumeration("scope", scope, model::TokenScope::read);
    std::string zone;
    fields.string("zone_id", zone, "");
    if (!errors.empty()) throw control::Error::invalid(std::move(errors));
    return ok(audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        std::optional<std::string> zone_id;
        if (!zone.empty()) {
            try {
                zone_id = control::resolve_zone(connection, zone).id;
            } catch (const control::Error&) {
                throw control::Error::invalid("zone_id", "no zone has the id or name " + zone);
            }
        }
        const control::NewToken created = control::create_token(connection, services.clock.now(), name, scope, zone_id);
        nlohmann::json view = control::audit_view(created.token);
        view["token"] = created.secret; // masked by the trail: the log says a value was issued, never which
        trail.created(control::audit_object(created.token), view);
        nlohmann::json result = model::to_json(created.token);
        result["token"] = created.secret;
        return result;
    }));
}

Reply delete_token(Services& services, Request& request) {
    const std::string& id = request.param("token_id");
    audited_write(services, request, [&](store::Connection& connection, control::AuditTrail& trail) {
        std::optional<model::Token> token;
        for (model::Token& candidate : store::list_tokens(connection))
            if (candidate.id == id) token = std::move(candidate);
        if (!token || !store::delete_token(connection, id)) throw control::Error::not_found("token", id);
        trail.deleted(control::audit_object(*token), control::audit_view(*token));
    });
    return ok({{"id", id}});
}

// What the calling token may do (as Cloudflare's GET /user/tokens/verify): the console asks it
// to hide controls a read-only token would be refused.
Reply verify_token(Services&, Request& request) {
    nlohmann::json result = model::to_json(*request.token);
    result["status"] = "active";
    return ok(result);
}

} // namespace

std::vector<Route> token_routes() {
    return {
        {"GET", "/client/v4/user/tokens/verify", Access::read, verify_token},
        {"GET", "/client/v4/tokens", Access::admin_edit, list_tokens},
        {"POST", "/client/v4/tokens", Access::admin_edit, create_token},
        {"DELETE", "/client/v4/tokens/{token_id}", Access::admin_edit, delete_token},
    };
}

} // namespace wr::api
