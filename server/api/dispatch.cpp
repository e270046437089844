// Routes a request, checks its token against the route's access and zone, runs the handler and
// maps errors to statuses. One try block for the whole admin surface.
#include "api/routes.h"

#include <algorithm>
#include <chrono>

#include "api/admin_server.h"
#include "api/envelope.h"
#include "control/error.h"
#include "control/tokens.h"
#include "control/zones.h"
#include "store/database.h"
#include "store/tokens_store.h"
#include "util/escape.h"
#include "util/log.h"

namespace wr::api {
namespace {

using control::Error;
using control::ErrorCode;

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> segments;
    size_t start = 1;
    while (start <= path.size()) {
        const size_t slash = path.find('/', start);
        segments.push_back(path.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return segments;
}

// Matches a path against a pattern; on success fills params and returns the number of literal
// segments (more literals = more specific: /waiting_rooms/settings beats /waiting_rooms/{id}).
int match(const std::string& pattern, const std::vector<std::string>& path, std::map<std::string, std::string>& params) {
    const std::vector<std::string> parts = split_path(pattern);
    if (parts.size() != path.size()) return -1;
    int literals = 0;
    std::map<std::string, std::string> found;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].size() > 2 && parts[i].front() == '{' && parts[i].back() == '}') {
            if (path[i].empty()) return -1;
            found[parts[i].substr(1, parts[i].size() - 2)] = path[i];
        } else if (parts[i] == path[i]) {
            ++literals;
        } else {
            return -1;
        }
    }
    params = std::move(found);
    return literals;
}

const Route* find_route(const std::vector<Route>& routes, Request& request) {
    const std::vector<std::string> path = split_path(request.path);
    const Route* best = nullptr;
    int best_literals = -1;
    int path_literals = -1; // the most specific pattern the path matches, whatever its method
    std::map<std::string, std::string> best_params;
    for (const Route& route : routes) {
        std::map<std::string, std::string> params;
        const int literals = match(route.pattern, path, params);
        if (literals < 0) continue;
        path_literals = std::max(path_literals, literals);
        if (request.method != route.method || literals <= best_literals) continue;
        best = &route;
        best_literals = literals;
        best_params = std::move(params);
    }
    const bool path_known = path_literals >= 0;
    // DELETE /waiting_rooms/settings is a method /waiting_rooms/settings lacks, not a room named
    // "settings": a less specific pattern does not take a path a more specific one names.
    if (best_literals < path_literals) best = nullptr;
    if (!best) {
        // The path as the client sent it, decoded: any bytes at all.
        const std::string method = util::printable_text(request.method);
        const std::string path = util::printable_text(request.path);
        if (path_known) throw Error::of(ErrorCode::method_not_allowed, 405, method + " is not allowed on " + path);
        throw Error::of(ErrorCode::not_found, 404, "no such endpoint: " + method + " " + path);
    }
    request.params = std::move(best_params);
    return best;
}

void authenticate(Services& services, const Route& route, Request& request) {
    const std::string secret = bearer_token(request);
    const util::TimePoint now = services.clock.now();
    std::optional<model::Token> token =
        services.database.read([&](store::Connection& connection) { return control::authenticate(connection, secret); });
    if (!token) throw Error::of(ErrorCode::invalid_token, 401, "the API token is not valid (revoked or mistyped)");
    // Remember when a token was last used, at minute precision, so reads stay reads.
    if (!token->last_used_on || now - *token->last_used_on > std::chrono::minutes{1}) {
        try {
            services.database.record([&](store::Connection& connection) { store::touch_token(connection, token->id, now); });
        } catch (const store::StorageError& error) {
            // A full or read-only disk must not stop reads: the last use is only a hint.
            util::log_debug("admin", std::string("not recording the token's last use: ") + error.what());
        }
    }

    // Edge tokens and people's tokens never share a route: an edge token cannot read the
    // configuration through the API, and no read or edit token can fetch the cookie keys.
    const bool edge_route = route.access == Access::edge;
    if (edge_route && token->scope != model::TokenScope::edge)
        throw Error::of(ErrorCode::wrong_token_kind, 403,
                        "this route serves edge nodes: it needs a token with scope edge (wr tokens create --scope edge)");
    if (!edge_route && token->scope == model::TokenScope::edge)
        throw Error::of(ErrorCode::wrong_token_kind, 403,
                        "an edge token may only fetch the configuration and cookie keys and push analytics "
                        "(/client/v4/edge/…); this route needs a read or edit token");
    const bool needs_edit = route.access == Access::edit || route.access == Access::admin_edit;
    if (needs_edit && token->scope != model::TokenScope::edit)
        throw Error::of(ErrorCode::insufficient_scope, 403, "this token may only read; the request needs a token with scope edit");
    const bool needs_every_zone = route.access == Access::admin_read || route.access == Access::admin_edit;
    if (needs_every_zone && token->zone_id)
        throw Error::of(ErrorCode::wrong_zone, 403,
                        "this token is limited to one zone; managing zones, tokens and whole configurations needs a "
                        "token valid for every zone");
    request.token = std::move(token);
}

void resolve_zone(Services& services, Request& request) {
    const auto it = request.params.find("zone_id");
    if (it == request.params.end()) return;
    std::optional<model::Zone> zone;
    try {
        zone = services.database.read([&](store::Connection& connection) { return control::resolve_zone(connection, it->second); });
    } catch (const Error&) {
        if (request.token && request.token->zone_id)
            throw Error::of(ErrorCode::wrong_zone, 403, "this token is not valid for zone " + util::printable_text(it->second));
        throw;
    }
    if (request.token && request.token->zone_id && *request.token->zone_id != zone->id)
        throw Error::of(ErrorCode::wrong_zone, 403, "this token is not valid for zone " + util::printable_text(it->second));
    request.zone = std::move(zone);
}

} // namespace

std::string bearer_token(const Request& request) {
    const auto authorization = request.header("authorization");
    if (!authorization) {
        if (request.header("x-auth-key") || request.header("x-auth-email"))
            throw Error::of(ErrorCode::missing_token, 401,
                            "X-Auth-Email/X-Auth-Key authentication is not supported; send an API token as "
                            "Authorization: Bearer <token>");
        throw Error::of(ErrorCode::missing_token, 401, "an API token is required: Authorization: Bearer <token>");
    }
    constexpr std::string_view k_prefix = "Bearer ";
    if (authorization->size() <= k_prefix.size() ||
        !std::equal(k_prefix.begin(), k_prefix.end(), authorization->begin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); }))
        throw Error::of(ErrorCode::invalid_token, 401, "the Authorization header must be: Bearer <token>");
    return authorization->substr(k_prefix.size());
}

Reply error_reply(const Error& error) {
    Reply reply;
    reply.status = error.http_status();
    // Messages quote what clients sent through util::printable_text; should a stray byte slip
    // through, it becomes U+FFFD here rather than the answer a 500.
    reply.raw_body = error_envelope(error).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return reply;
}

const std::vector<Route>& all_routes() {
    static const std::vector<Route> k_routes = [] {
        std::vector<Route> routes;
        for (auto table : {zone_routes, room_routes, event_routes, rule_routes, token_routes, config_routes, page_routes,
                           meta_routes, analytics_routes, edge_routes, audit_routes, notification_routes})
            for (const Route& route : table()) routes.push_back(route);
        return routes;
    }();
    return k_routes;
}

bool routine_request(const Request& request, const Reply& reply) {
    const bool reads = request.method == "GET" || request.method == "HEAD";
    return reply.quiet || (reads && reply.status < 400);
}

Reply dispatch(Services& services, const std::vector<Route>& routes, Request& request) {
    try {
        const Route* route = find_route(routes, request);
        if (route->access != Access::public_access) authenticate(services, *route, request);
        resolve_zone(services, request);
        // Every body, whatever its route, is measured before a handler builds anything from it.
        if (!request.body.empty())
            if (std::optional<std::string> exceeded = json_limit_exceeded(request.body, services.json_limits))
                throw Error::of(ErrorCode::body_too_large, 413, *exceeded);
        Reply reply = route->handler(services, request);
        if (!reply.raw_body) reply.raw_body = success_envelope(reply.result, reply.result_info).dump();
        reply.quiet = routine_request(request, reply);
        return reply;
    } catch (const Error& error) {
        return error_reply(error);
    } catch (const store::StorageError& error) {
        util::log_error("admin", request.method + " " + redact_capabilities(request.path) + " not saved: " + error.what());
        return error_reply(Error::of(ErrorCode::storage_unavailable, 503,
                                     std::string(error.what()) + "; nothing was changed — free space or make the data directory writable, then retry"));
    } catch (const std::exception& error) {
        util::log_error("admin", request.method + " " + redact_capabilities(request.path) + " failed: " + error.what());
        return error_reply(Error::of(ErrorCode::internal, 500, "internal error; the server log has details"));
    }
}

} // namespace wr::api
