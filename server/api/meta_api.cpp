// Handlers about the API itself: health and the OpenAPI document.
#include "api/routes.h"
#include "util/embedded_files.h"

namespace wr::api {
namespace {

Reply health(Services& services, Request&) {
    // A read proves the database answers.
    services.database.read([](store::Connection& connection) { connection.exec("SELECT 1"); });
    Reply reply = raw("{\"status\":\"ok\"}\n", "application/json");
    reply.quiet = true; // a load balancer asks every few seconds: routine, like the edges' polls
    return reply;
}

Reply openapi(Services&, Request&) {
    return raw(std::string(util::embedded_file("schema/openapi.json").value_or("{}")), "application/json");
}

} // namespace

std::vector<Route> meta_routes() {
    return {
        {"GET", "/healthz", Access::public_access, health},
        {"GET", "/client/v4/openapi.json", Access::read, openapi},
    };
}

} // namespace wr::api
