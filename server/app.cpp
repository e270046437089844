// Builds and wires the parts of a running wr.
#include "app.h"

#include <stdexcept>

#include "api/admin_server.h"
#include "api/node_api.h"
#include "api/routes.h"
#include "analytics/collector.h"
#include "analytics/room_stats.h"
#include "control/tokens.h"
#include "control/config_feed.h"
#include "edge/config_source.h"
#include "edge/edge_config.h"
#include "edge/edge_server.h"
#include "fleet/analytics_pusher.h"
#include "fleet/guard_loop.h"
#include "fleet/config_puller.h"
#include "fleet/counters_status.h"
#include "fleet/fleet_status.h"
#include "fleet/published_snapshot.h"
#include "fleet/remote_tokens.h"
#include "notify/notification_service.h"
#include "origin/registry.h"
#include "state/make_counters.h"
#include "store/database.h"
#include "store/migrate.h"
#include "util/data_dir_lock.h"
#include "util/log.h"

namespace wr {

namespace {

// Said once at start, so that an operator who set turnstile_mode knows why nothing happens.
void log_turnstile_state(const edge::TurnstileOptions& turnstile) {
    if (turnstile.active()) {
        util::log_info("turnstile", "on: tokens are verified at " + turnstile.verify_url);
    } else if (turnstile.site_key.empty() != turnstile.secret.empty()) {
        util::log_warn("turnstile", std::string("off: ") + (turnstile.site_key.empty() ? "--turnstile-site-key" : "--turnstile-secret") +
                                        " is missing; rooms' turnstile_mode is ignored");
    } else {
        util::log_info("turnstile", "off (no --turnstile-site-key and --turnstile-secret); rooms' turnstile_mode is ignored");
    }
}

// The edge's link to its control node; each user gets its own client (one connection each).
fleet::ControlOptions control_options(const AppOptions& options) {
    if (options.control_url.empty()) throw std::runtime_error("--role edge needs --control-url, the control node's admin API");
    if (options.control_token.empty())
        throw std::runtime_error("--role edge needs --control-token (or WR_CONTROL_TOKEN): a token of scope edge from the control node");
    const std::optional<fleet::ControlUrl> url = fleet::parse_control_url(options.control_url);
    if (!url)
        throw std::runtime_error("--control-url: expected http://HOST:PORT or https://HOST:PORT (the control node's admin listener), not " +
                                 options.control_url);
    fleet::ControlOptions control;
    control.url = *url;
    control.token = options.control_token;
    control.ca_file = options.control_ca_file;
    return control;
}

// The counters' health as /metrics shows it.
analytics::StateMetrics state_metrics(const std::string& node, const state::Health& health) {
    analytics::StateMetrics metrics;
    metrics.node = node;
    metrics.backend = health.backend;
    metrics.connected = health.connected;
    metrics.failure_mode = health.failure_mode;
    metrics.rooms_degraded = health.rooms_degraded;
    metrics.syncs = health.syncs;
    metrics.sync_failures = health.sync_failures;
    metrics.room_sync_failures = health.room_sync_failures;
    metrics.outages = health.outages;
    for (size_t i = 0; i < state::SyncTimes::k_bounds_seconds.size(); ++i)
        metrics.sync_buckets.emplace_back(state::SyncTimes::k_bounds_seconds[i], health.sync_times.counts[i]);
    metrics.sync_over = health.sync_times.counts.back();
    metrics.sync_count = health.sync_times.count;
    metrics.sync_sum_seconds = health.sync_times.sum_seconds;
    return metrics;
}

} // namespace

const char* role_name(NodeRole role) {
    switch (role) {
    case NodeRole::all: return "all";
    case NodeRole::control: return "control";
    case NodeRole::edge: return "edge";
    }
    return "all";
}

App::App(AppOptions options, const util::Clock& clock) : m_options(std::move(options)), m_clock(clock) {
    if (m_options.role == NodeRole::edge) control_options(m_options); // a bad URL fails before anything is touched
    m_lock = std::make_unique<util::DataDirLock>(m_options.data_dir);
    if (m_options.role == NodeRole::edge)
        build_edge_node();
    else
        build_store_node();
}

edge::EdgeOptions App::edge_options() const {
    edge::EdgeOptions edge_options;
    edge_options.host = m_options.edge_listen.host;
    edge_options.port = m_options.edge_listen.port;
    edge_options.threads = m_options.edge_threads;
    edge_options.tls_certificate = m_options.tls_certificate;
    edge_options.tls_private_key = m_options.tls_private_key;
    edge_options.tls_ocsp = m_options.tls_ocsp;
    edge_options.h2c = m_options.edge_h2c;
    edge_options.idle_timeout = m_options.idle_timeout;
    edge_options.max_connections = m_options.max_connections;
    edge_options.origin.response_timeout = m_options.origin_timeout;
    edge_options.origin.ca_file = m_options.origin_ca_file;
    edge_options.header_timeout = m_options.header_timeout;
    edge_options.tunnel_idle_timeout = m_options.tunnel_idle_timeout;
    edge_options.max_request_body = m_options.edge_max_body_bytes;
    edge_options.trusted_proxies = m_options.trusted_proxies;
    edge_options.crawler_resolver = m_options.crawler_resolver;
    edge_options.turnstile.site_key = m_options.turnstile_site_key;
    edge_options.turnstile.secret = m_options.turnstile_secret;
    if (!m_options.turnstile_verify_url.empty()) edge_options.turnstile.verify_url = m_options.turnstile_verify_url;
    if (!m_options.turnstile_script_url.empty()) edge_options.turnstile.script_url = m_options.turnstile_script_url;
    edge_options.turnstile.timeout = m_options.turnstile_timeout;
    edge_options.access_log = m_options.access_log;
    edge_options.access_log_format = m_options.access_log_format == "json" ? edge::AccessLogFormat::json : edge::AccessLogFormat::combined;
    edge_options.access_log_max_pending = m_options.access_log_max_pending;
    edge_options.node_name = m_options.node_name;
    return edge_options;
}

api::AdminServerOptions App::admin_options() const {
    api::AdminServerOptions options;
    options.host = m_options.admin_listen.host;
    options.port = m_options.admin_listen.port;
    options.max_body_bytes = m_options.max_body_bytes;
    options.threads = m_options.admin_threads;
    options.tls_certificate = m_options.admin_tls_certificate;
    options.tls_private_key = m_options.admin_tls_private_key;
    options.max_connections = m_options.admin_max_connections;
    options.idle_timeout = m_options.admin_idle_timeout;
    options.header_timeout = m_options.admin_header_timeout;
    return options;
}

// all and control: the store, the admin API, the snapshot edges pull and the picture of them.
void App::build_store_node() {
    const bool with_edge = m_options.role == NodeRole::all && m_options.edge_enabled;
    m_database = std::make_unique<store::Database>(m_options.data_dir);
    const store::MigrationReport report = store::migrate(*m_database);
    for (const std::string& name : report.applied) util::log_info("store", "applied migration " + name);
    if (const auto token_file = control::bootstrap_admin_token(*m_database, m_clock.now(), m_options.data_dir))
        util::log_info("auth", "created the first admin API token; it is in " + token_file->string() +
                                   " (readable by this user only)");
    m_counters = state::make_counters(state::StateOptions{m_options.state, m_options.state_sync_interval, m_options.state_failure,
                                                          m_options.node_name},
                                      m_clock);
    m_analytics = std::make_unique<analytics::Registry>();
    m_analytics->set_state_source([this] { return state_metrics(m_options.node_name, m_counters->health()); });
    m_origins = std::make_unique<origin::Registry>();
    m_analytics->set_origin_source([this] { return m_origins->metrics(); });
    m_published_snapshot = std::make_unique<fleet::PublishedSnapshot>();

    // A control node on a shared store reads the whole room from it, under each room's policy.
    const bool shared_state = m_counters->health().backend != "memory";
    std::vector<control::ConfigSubscriber> subscribers{
        [this](const model::ConfigDocument& document, const std::shared_ptr<const util::KeyRing>& keys) {
            m_published_snapshot->update(document, *keys);
        }};
    // The edge's rooms (with an edge), the rooms a shared store's counts are read under, and the
    // configured limits the origin guard steps from: every store node keeps the compiled snapshot.
    {
        m_config_source = std::make_unique<edge::ConfigSource>();
        subscribers.push_back([this](const model::ConfigDocument& document, const std::shared_ptr<const util::KeyRing>& keys) {
            m_config_source->publish(edge::build_edge_config(document, m_analytics.get(), m_origins.get()), keys);
        });
    }
    m_config_feed = std::make_unique<control::ConfigFeed>(*m_database, m_options.data_dir / "cookie.key", std::move(subscribers),
                                                          m_options.config_poll_interval);

    std::optional<fleet::LocalNode> local;
    if (with_edge) {
        edge::EdgeOptions options = edge_options();
        log_turnstile_state(options.turnstile);
        m_edge = std::make_unique<edge::EdgeServer>(options, *m_config_source, *m_counters, *m_analytics, m_clock);
        local = fleet::LocalNode{m_options.node_name, role_name(m_options.role), m_edge.get(), m_edge.get(), m_counters.get()};
    } else if (shared_state) {
        m_counters_status = std::make_unique<fleet::CountersStatus>(*m_config_source, *m_counters);
        local = fleet::LocalNode{m_options.node_name, role_name(m_options.role), m_counters_status.get(), m_counters_status.get(),
                                 m_counters.get()};
    }
    m_fleet = std::make_unique<fleet::FleetStatus>(std::move(local));
    m_collector = std::make_unique<analytics::Collector>(*m_database, *m_analytics, *m_fleet, m_clock, m_options.analytics_interval,
                                                         m_options.audit_retention);

    notify::NotificationOptions notification_options;
    notification_options.observe_interval = m_options.notification_interval;
    notification_options.settle = m_options.notification_settle;
    notification_options.retry.first_delay = m_options.notification_retry_delay;
    m_notifications = std::make_unique<notify::NotificationService>(*m_database, m_fleet.get(), m_clock, notification_options);
    // One origin guard per room, here: this node's own answers and those its edges push feed it.
    // Its changes are announced: holding a room down, and letting it go.
    const auto announce = [notifier = m_notifications.get()](const std::string& room_id, origin::GuardState before,
                                                             const origin::GuardDecision& decision) {
        if (const auto kind = fleet::guard_announcement(before, decision.state))
            notifier->notify(*kind, room_id, fleet::guard_announcement_figures(decision));
    };
    m_guard = std::make_unique<fleet::GuardLoop>(*m_config_source, *m_fleet, *m_origins, m_clock, announce, m_options.guard_interval);
    m_collector->on_drained([guard = m_guard.get(), node = m_options.node_name](const std::string& room_id,
                                                                              const model::MinuteRecord& increment) {
        guard->add(room_id, node, increment);
    });
    m_collector->on_round([this, guard = m_guard.get(), node = m_options.node_name](util::TimePoint drained_at) {
        guard->heard(node); // after the round's drains, whether or not a room had answers
        m_origins->log_failures(m_clock.now());
        guard->round(drained_at);
    });

    m_services = std::make_unique<api::Services>(api::Services{*m_database, m_clock, m_fleet.get(), m_analytics.get()});
    m_services->notifications_queued = [notifications = m_notifications.get()] { notifications->wake_sender(); };
    m_services->published_snapshot = m_published_snapshot.get();
    m_services->fleet = m_fleet.get();
    m_services->node_name = m_options.node_name;
    m_services->node_role = role_name(m_options.role);
    m_services->counters = m_counters.get();
    m_services->guard = m_guard.get();
    m_services->json_limits = api::json_limits_for(m_options.max_body_bytes);
    m_admin = std::make_unique<api::AdminServer>(
        [services = m_services.get()](api::Request& request) { return api::dispatch(*services, api::all_routes(), request); },
        admin_options());
}

// edge: no database; the configuration and keys come from the control node (or the cached copy),
// the analytics go to it.
void App::build_edge_node() {
    const fleet::ControlOptions control = control_options(m_options);
    if (!control.url.https && !fleet::is_loopback_host(control.url.host))
        util::log_warn("edge", "the cookie keys come from " + control.url.text() +
                                   " over plain HTTP, readable on the network: serve the control node's admin listener over "
                                   "HTTPS (--admin-tls-cert, --admin-tls-key) and use an https:// --control-url");
    m_counters = state::make_counters(state::StateOptions{m_options.state, m_options.state_sync_interval, m_options.state_failure,
                                                          m_options.node_name},
                                      m_clock);
    if (m_counters->health().backend == "memory")
        util::log_warn("state", "this edge keeps its admission counts in its own memory (--state memory): it is a waiting room of "
                                "its own and admits up to each room's full limits, whatever other edges do; give every edge the "
                                "same --state redis://… to hold the limits together");
    m_analytics = std::make_unique<analytics::Registry>();
    m_analytics->set_state_source([this] { return state_metrics(m_options.node_name, m_counters->health()); });
    m_origins = std::make_unique<origin::Registry>();
    m_analytics->set_origin_source([this] { return m_origins->metrics(); });
    m_config_source = std::make_unique<edge::ConfigSource>();
    m_puller = std::make_unique<fleet::ConfigPuller>(fleet::ControlClient(control), m_options.data_dir / fleet::k_config_cache_file,
                                                     *m_analytics, *m_origins, *m_config_source, m_clock, m_options.control_poll_interval);
    edge::EdgeOptions options = edge_options();
    log_turnstile_state(options.turnstile);
    m_edge = std::make_unique<edge::EdgeServer>(options, *m_config_source, *m_counters, *m_analytics, m_clock);
    m_pusher = std::make_unique<fleet::AnalyticsPusher>(fleet::ControlClient(control), m_options.data_dir / fleet::k_outbox_file,
                                                        fleet::PusherSources{*m_analytics, *m_config_source, *m_edge, *m_counters,
                                                                             m_origins.get()},
                                                        m_options.node_name, m_clock, m_options.analytics_interval);
    m_remote_tokens = std::make_unique<fleet::RemoteTokens>(fleet::ControlClient(control), m_clock);
    m_node_services = std::make_unique<api::NodeServices>(api::NodeServices{m_clock, m_options.node_name, *m_config_source, *m_edge,
                                                                            *m_analytics, *m_counters, *m_remote_tokens, *m_puller});
    m_admin = std::make_unique<api::AdminServer>(
        [services = m_node_services.get()](api::Request& request) { return api::dispatch_edge_node(*services, request); },
        admin_options());
}

App::~App() { stop(); }

void App::start() {
    // Bind everything first, so a taken port fails the start before anything serves.
    m_admin->bind();
    if (m_edge) m_edge->bind();
    m_admin->start();
    if (m_config_feed) m_config_feed->start();
    if (m_puller) m_puller->start();
    if (m_edge) {
        m_edge->start();
        util::log_info("edge", std::string("listening on ") + (m_edge->tls() ? "https://" : "http://") +
                                   util::ListenAddress{m_options.edge_listen.host, m_edge->port()}.text());
    }
    if (m_collector) m_collector->start();
    if (m_notifications) m_notifications->start();
    if (m_pusher) m_pusher->start();
    const std::string admin_url = (m_admin->tls() ? "https://" : "http://") +
                                  util::ListenAddress{m_options.admin_listen.host, m_admin->port()}.text();
    if (m_options.role == NodeRole::edge)
        util::log_info("admin", "edge node " + m_options.node_name + ": health and metrics listening on " + admin_url +
                                    " (/healthz, /metrics); the admin API is the control node's");
    else
        util::log_info("admin", std::string(m_options.role == NodeRole::control ? "control node " + m_options.node_name + ": " : "") +
                                    "API listening on " + admin_url + "/client/v4");
}

void App::stop() {
    if (m_edge) m_edge->stop();
    if (m_collector) m_collector->stop(); // writes what is left
    if (m_notifications) m_notifications->stop(); // what is not sent stays queued in the store
    if (m_pusher) m_pusher->stop();       // pushes what is left, or keeps it for the restart
    if (m_config_feed) m_config_feed->stop();
    if (m_puller) m_puller->stop();
    if (m_admin) m_admin->stop();
}

bool App::drain(std::chrono::milliseconds timeout) { return m_edge ? m_edge->drain(timeout) : true; }

void App::reload_tls() {
    // Both listeners try; a pair that does not load keeps its old certificate and is reported.
    std::string failures;
    try {
        if (m_edge && m_edge->tls()) m_edge->reload_tls();
    } catch (const std::exception& error) {
        failures = std::string("edge: ") + error.what();
    }
    try {
        if (m_admin) m_admin->reload_tls();
    } catch (const std::exception& error) {
        failures += std::string(failures.empty() ? "" : "; ") + "admin: " + error.what();
    }
    if (!failures.empty()) throw std::runtime_error(failures);
}

model::Notifier* App::notifier() { return m_notifications.get(); }

void App::reopen_logs() {
    if (m_edge) m_edge->reopen_access_log();
}

int App::admin_port() const { return m_admin->port(); }
int App::edge_port() const { return m_edge ? m_edge->port() : 0; }

void App::flush_analytics() {
    if (m_collector) m_collector->collect();
    if (m_pusher) m_pusher->push_now();
}

void App::step_guard() {
    if (m_guard) m_guard->step();
}

void App::refresh_edge_config() {
    if (m_config_feed) m_config_feed->refresh();
    if (m_puller) m_puller->poll();
}

} // namespace wr
