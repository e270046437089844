// Template previews: POST stores a custom page and answers with a capability URL on the admin
// listener; GET of that URL renders the page in the state its query parameters choose, with
// the parameters of Cloudflare's preview (force_queue, queue_is_full, queueing_method, event,
// shuffle_at_event_start, waitTime).
#include <algorithm>

#include "api/routes.h"
#include "control/error.h"
#include "control/previews.h"
#include "model/enums.h"
#include "page/preview.h"
#include "page/render.h"
#include "store/previews_store.h"
#include "util/escape.h"
#include "util/secure.h"

namespace wr::api {
namespace {

bool bool_parameter(const Request& request, const std::string& name) {
    // As for ?dry_run: present without a value means true.
    const auto value = request.query_value(name);
    if (!value || *value == "false" || *value == "0") return false;
    if (value->empty() || *value == "true" || *value == "1") return true;
    throw control::Error::bad_query(name, "must be true or false");
}

// The preview options a request's query parameters choose (the parameters of Cloudflare's preview).
page::PreviewOptions preview_options(const Request& request) {
    page::PreviewOptions options;
    options.force_queue = bool_parameter(request, "force_queue");
    options.queue_is_full = bool_parameter(request, "queue_is_full");
    if (const auto method = request.query_value("queueing_method")) {
        const auto parsed = model::parse_enum<model::QueueingMethod>(*method);
        if (!parsed) throw control::Error::bad_query("queueing_method", "must be one of " + model::enum_choices<model::QueueingMethod>());
        options.method = *parsed;
    }
    options.event = request.query_value("event").value_or("none");
    if (options.event != "none" && options.event != "prequeueing" && options.event != "started")
        throw control::Error::bad_query("event", "must be one of none, prequeueing, started");
    options.shuffle_at_event_start = bool_parameter(request, "shuffle_at_event_start");
    if (const auto text = request.query_value("waitTime")) {
        if (text->empty() || text->size() > 6 || text->find_first_not_of("0123456789") != std::string::npos)
            throw control::Error::bad_query("waitTime", "must be a whole number of minutes from 0 to 999999");
        options.wait_minutes = std::stoll(*text);
    }
    if (const auto language = request.query_value("language")) {
        if (std::find(model::k_template_languages.begin(), model::k_template_languages.end(), *language) ==
            model::k_template_languages.end())
            throw control::Error::bad_query("language", "must be one of the 39 supported languages (en-US, de-DE, …)");
        options.language = *language;
    }
    return options;
}

Reply create_preview(Services& services, Request& request) {
    const nlohmann::json body = request.json_body();
    if (!body.is_object()) throw control::Error::invalid("", "the request body must be a JSON object");
    const auto html = body.find("custom_html");
    if (html == body.end() || html->is_null()) throw control::Error::invalid("custom_html", "is required");
    if (!html->is_string()) throw control::Error::invalid("custom_html", "must be a string");
    const std::string id = services.database.write([&](store::Connection& connection) {
        return control::create_preview(connection, services.clock.now(), request.zone->id, html->get<std::string>());
    });
    // The base is the client's Host header: any bytes at all.
    return ok({{"preview_url", util::printable_text(request.base_url) + "/preview/" + id}});
}

// A preview is HTML a zone-bound token stored; it is served on the admin origin, next to the
// console that holds an operator's token. The sandbox gives it an opaque origin of its own: its
// script runs (the queue page's refresh) but cannot read the console's storage or call the API
// with the console's origin. Nor can it send anything anywhere (connect-src: no fetch, XHR,
// WebSocket or beacon; form-action: no form posted off the page), so a stored page cannot phone
// home with what an operator types or sees in it.
Reply sandboxed(Reply reply) {
    reply.headers.emplace_back("Content-Security-Policy", "sandbox allow-scripts; connect-src 'none'; form-action 'none'");
    reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return reply;
}

Reply render_preview(Services& services, Request& request) {
    const std::string& id = request.param("preview_id");
    const util::TimePoint now = services.clock.now();
    const auto preview = util::is_id(id) ? services.database.read([&](store::Connection& connection) {
        return store::find_preview(connection, id, now);
    }) : std::nullopt;
    if (!preview) return raw("This preview does not exist or has expired (previews last 24 hours).\n", "text/plain; charset=utf-8", 404);
    page::PreviewPage state;
    try {
        state = page::preview_page(preview_options(request), now);
    } catch (const control::Error& error) {
        return raw(std::string(error.what()) + "\n", "text/plain; charset=utf-8", 400);
    }
    if (state.shows_origin)
        return raw("<!doctype html><title>Origin</title><p>Passthrough: the visitor goes straight to the site. "
                   "Add ?force_queue=true or &amp;event=prequeueing to see the queue page.</p>\n",
                   "text/html; charset=utf-8");
    const auto rendered = page::render_template(preview->html, state.view);
    if (!rendered) return raw("The template could not be rendered.\n", "text/plain; charset=utf-8", 500);
    return raw(*rendered, "text/html; charset=utf-8");
}

Reply show_preview(Services& services, Request& request) { return sandboxed(render_preview(services, request)); }

} // namespace

std::vector<Route> page_routes() {
    return {
        {"POST", "/client/v4/zones/{zone_id}/waiting_rooms/preview", Access::edit, create_preview},
        {"GET", "/preview/{preview_id}", Access::public_access, show_preview},
    };
}

} // namespace wr::api
