// Handlers of wr's analytics: a room's series as JSON, CSV or SVG, Prometheus metrics, and the
// dashboard page.
#include <algorithm>

#include "analytics/prometheus.h"
#include "analytics/series.h"
#include "analytics/svg_chart.h"
#include "api/envelope.h"
#include "api/routes.h"
#include "control/error.h"
#include "control/rooms.h"
#include "fleet/guard_loop.h"
#include "state/counters.h"
#include "store/analytics_store.h"
#include "store/rooms_store.h"
#include "store/zones_store.h"
#include "util/embedded_files.h"
#include "util/time_format.h"

namespace wr::api {
namespace {

constexpr int64_t k_max_points = 10080; // a week of minutes

int64_t minute_of(util::TimePoint time) { return std::chrono::floor<std::chrono::minutes>(time.time_since_epoch()).count(); }

struct SeriesQuery {
    analytics::SeriesRange range;
    util::TimePoint since;
    util::TimePoint until;
    std::string step;
};

SeriesQuery series_query(const Request& request, util::TimePoint now) {
    SeriesQuery query;
    query.until = std::min(now, time_parameter(request, "until").value_or(now)); // a future until means now
    query.since = time_parameter(request, "since").value_or(query.until - std::chrono::hours{1});
    if (query.since >= query.until) throw control::Error::bad_query("since", "must be before until");
    if (query.until - query.since > std::chrono::days{31}) throw control::Error::bad_query("since", "the range may cover at most 31 days");
    query.step = request.query_value("step").value_or("");
    if (query.step.empty()) query.step = query.until - query.since <= std::chrono::hours{12} ? "1m" : query.until - query.since <= std::chrono::days{7} ? "15m" : "1h";
    const int64_t step = query.step == "1m" ? 1 : query.step == "15m" ? 15 : query.step == "1h" ? 60 : 0;
    if (step == 0) throw control::Error::bad_query("step", "must be 1m, 15m or 1h");
    query.range.step_minutes = step;
    query.range.from_minute = minute_of(query.since) / step * step;
    const int64_t last = minute_of(query.until);
    query.range.until_minute = (last / step + 1) * step;
    const int64_t points = (query.range.until_minute - query.range.from_minute) / step;
    if (points > k_max_points)
        throw control::Error::bad_query("step", std::to_string(points) + " points are too many (at most " + std::to_string(k_max_points) +
                                                    "); use a larger step or a shorter range");
    return query;
}

std::vector<analytics::MinuteRecord> load_series(Services& services, const std::string& room_id, const SeriesQuery& query) {
    const auto minutes = services.database.read([&](store::Connection& connection) {
        return store::load_analytics(connection, room_id, query.range.from_minute, query.range.until_minute);
    });
    return analytics::roll_up(minutes, query.range);
}

bool wants_csv(const Request& request) {
    if (request.query_value("format") == "csv") return true;
    const std::string accept = request.header("accept").value_or("");
    return accept.find("text/csv") != std::string::npos;
}

Reply room_analytics(Services& services, Request& request) {
    const model::Room room = services.database.read(
        [&](store::Connection& connection) { return control::resolve_room(connection, *request.zone, request.param("room_id")); });
    if (const auto format = request.query_value("format"); format && *format != "csv" && *format != "json")
        throw control::Error::bad_query("format", "must be json or csv");
    const SeriesQuery query = series_query(request, services.clock.now());
    const auto points = load_series(services, room.id, query);
    if (wants_csv(request)) return raw(analytics::series_csv(points), "text/csv; charset=utf-8");
    nlohmann::json series = nlohmann::json::array();
    for (const analytics::MinuteRecord& point : points) series.push_back(analytics::point_to_json(point));
    return ok({{"room_id", room.id},
               {"since", util::format_iso8601(query.since)},
               {"until", util::format_iso8601(query.until)},
               {"step", query.step},
               {"series", series}});
}

Reply room_analytics_svg(Services& services, Request& request) {
    const model::Room room = services.database.read(
        [&](store::Connection& connection) { return control::resolve_room(connection, *request.zone, request.param("room_id")); });
    const SeriesQuery query = series_query(request, services.clock.now());
    return raw(analytics::svg_chart(load_series(services, room.id, query), query.range.step_minutes,
                                    request.zone->settings.name + " / " + room.settings.name),
               "image/svg+xml");
}

Reply metrics(Services& services, Request& request) {
    const util::TimePoint now = services.clock.now();
    std::vector<std::pair<std::string, analytics::RoomMetrics>> rooms; // room id → metrics
    services.database.read([&](store::Connection& connection) {
        for (const model::Zone& zone : store::list_zones(connection, {0, -1})) {
            if (request.token->zone_id && *request.token->zone_id != zone.id) continue;
            for (const model::Room& room : store::list_rooms(connection, zone.id, {0, -1})) {
                analytics::RoomMetrics metrics;
                metrics.zone = zone.settings.name;
                metrics.room = room.settings.name;
                metrics.total_active_users_limit = room.settings.total_active_users;
                metrics.new_users_per_minute_limit = room.settings.new_users_per_minute;
                metrics.origin_guard_state = room.settings.origin_guard.enabled ? "content" : "off";
                rooms.emplace_back(room.id, std::move(metrics));
            }
        }
    });
    // The live figures come from the edge, outside the database lock.
    std::vector<analytics::RoomMetrics> out;
    for (auto& [room_id, metrics] : rooms) {
        if (services.analytics) metrics.totals = services.analytics->room(room_id)->totals();
        if (services.guard)
            if (const auto guard = services.guard->view(room_id)) metrics.origin_guard_state = origin::to_string(guard->state);
        if (services.live_status) {
            const model::LiveFigures live = services.live_status->figures(room_id, now);
            metrics.active_users = live.active_users;
            metrics.queued_users = live.queued_users;
            if (live.total_active_users_limit > 0) {
                metrics.total_active_users_limit = live.total_active_users_limit;
                metrics.new_users_per_minute_limit = live.new_users_per_minute_limit;
            }
        }
        out.push_back(std::move(metrics));
    }
    const analytics::LatencyHistogram::Snapshot decisions =
        services.analytics ? services.analytics->decision_time().snapshot() : analytics::LatencyHistogram::Snapshot{};
    analytics::NodeMetrics node;
    node.name = services.node_name;
    node.role = services.node_role;
    if (services.counters) {
        const state::Health health = services.counters->health();
        node.state_backend = health.backend;
    }
    if (services.analytics) {
        node.state = services.analytics->state_metrics();
        const analytics::EdgeCounters& edge = services.analytics->edge();
        node.http1_requests = edge.http1_requests.load(std::memory_order_relaxed);
        node.h2_requests = edge.h2_requests.load(std::memory_order_relaxed);
        node.h2c_requests = edge.h2c_requests.load(std::memory_order_relaxed);
        node.h2_connections = edge.h2_connections.load(std::memory_order_relaxed);
        node.h2_calm_goaways = edge.h2_calm_goaways.load(std::memory_order_relaxed);
        node.open_tunnels = services.analytics->edge().open_tunnels.load(std::memory_order_relaxed);
        node.tunnels_opened = services.analytics->edge().tunnels_opened.load(std::memory_order_relaxed);
        node.access_log_lines = services.analytics->edge().access_log.written.load(std::memory_order_relaxed);
        node.access_log_dropped = services.analytics->edge().access_log.dropped.load(std::memory_order_relaxed);
        node.origins = services.analytics->origin_metrics();
    }
    return raw(analytics::prometheus_text(out, decisions, node), "text/plain; version=0.0.4; charset=utf-8");
}

// The console's policy: its own script and style files only (no inline script, no inline event
// handlers, nothing from another origin), API calls to this origin, and no framing.
constexpr const char* k_console_policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

Reply console_file(const char* file, const char* content_type) {
    Reply reply = raw(std::string(util::embedded_file(file).value_or("")), content_type);
    reply.headers.emplace_back("Content-Security-Policy", k_console_policy);
    reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
    reply.headers.emplace_back("Referrer-Policy", "no-referrer");
    return reply;
}

Reply dashboard(Services&, Request&) { return console_file("templates/dashboard.html", "text/html; charset=utf-8"); }
Reply console_script(Services&, Request&) { return console_file("templates/console.js", "text/javascript; charset=utf-8"); }
Reply console_style(Services&, Request&) { return console_file("templates/console.css", "text/css; charset=utf-8"); }

} // namespace

std::vector<Route> analytics_routes() {
    return {
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/analytics", Access::read, room_analytics},
        {"GET", "/client/v4/zones/{zone_id}/waiting_rooms/{room_id}/analytics.svg", Access::read, room_analytics_svg},
        {"GET", "/metrics", Access::read, metrics},
        {"GET", "/", Access::public_access, dashboard},
        {"GET", "/console.js", Access::public_access, console_script},
        {"GET", "/console.css", Access::public_access, console_style},
    };
}

} // namespace wr::api
