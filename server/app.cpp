// Builds and wires the parts of a running wr.
#include "app.h"

#include "api/admin_server.h"
#include "api/routes.h"
#include "analytics/collector.h"
#include "analytics/room_stats.h"
#include "control/tokens.h"
#include "control/config_feed.h"
#include "edge/config_source.h"
#include "edge/edge_server.h"
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
    metrics.outages = health.outages;
    for (size_t i = 0; i < state::SyncTimes::k_bounds_seconds.size(); ++i)
        metrics.sync_buckets.emplace_back(state::SyncTimes::k_bounds_seconds[i], health.sync_times.counts[i]);
    metrics.sync_over = health.sync_times.counts.back();
    metrics.sync_count = health.sync_times.count;
    metrics.sync_sum_seconds = health.sync_times.sum_seconds;
    return metrics;
}

} // namespace

App::App(AppOptions options, const util::Clock& clock) : m_options(std::move(options)), m_clock(clock) {
    m_lock = std::make_unique<util::DataDirLock>(m_options.data_dir);
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
    if (m_options.edge_enabled) {
        m_config_source = std::make_unique<edge::ConfigSource>();
        m_config_feed = std::make_unique<control::ConfigFeed>(*m_database, m_options.data_dir / "cookie.key", *m_analytics,
                                                              *m_config_source, m_options.config_poll_interval);
        edge::EdgeOptions edge_options;
        edge_options.host = m_options.edge_listen.host;
        edge_options.port = m_options.edge_listen.port;
        edge_options.threads = m_options.edge_threads;
        edge_options.tls_certificate = m_options.tls_certificate;
        edge_options.tls_private_key = m_options.tls_private_key;
        edge_options.idle_timeout = m_options.idle_timeout;
        edge_options.max_connections = m_options.max_connections;
        edge_options.origin.response_timeout = m_options.origin_timeout;
        edge_options.trusted_proxies = m_options.trusted_proxies;
        edge_options.crawler_resolver = m_options.crawler_resolver;
        edge_options.turnstile.site_key = m_options.turnstile_site_key;
        edge_options.turnstile.secret = m_options.turnstile_secret;
        if (!m_options.turnstile_verify_url.empty()) edge_options.turnstile.verify_url = m_options.turnstile_verify_url;
        if (!m_options.turnstile_script_url.empty()) edge_options.turnstile.script_url = m_options.turnstile_script_url;
        edge_options.turnstile.timeout = m_options.turnstile_timeout;
        log_turnstile_state(edge_options.turnstile);
        m_edge = std::make_unique<edge::EdgeServer>(edge_options, *m_config_source, *m_counters, *m_analytics, m_clock);
        m_collector = std::make_unique<analytics::Collector>(*m_database, *m_analytics, *m_edge, m_clock, m_options.analytics_interval);
    }
    m_services = std::make_unique<api::Services>(api::Services{*m_database, m_clock, m_edge.get(), m_analytics.get()});
    m_admin = std::make_unique<api::AdminServer>(
        *m_services, api::AdminServerOptions{m_options.admin_listen.host, m_options.admin_listen.port,
                                             m_options.max_body_bytes, m_options.admin_threads});
}

App::~App() { stop(); }

void App::start() {
    // Bind everything first, so a taken port fails the start before anything serves.
    m_admin->bind();
    if (m_edge) m_edge->bind();
    m_admin->start();
    if (m_edge) {
        m_config_feed->start();
        m_edge->start();
        m_collector->start();
        util::log_info("edge", std::string("listening on ") + (m_edge->tls() ? "https://" : "http://") +
                                   util::ListenAddress{m_options.edge_listen.host, m_edge->port()}.text());
    }
    util::log_info("admin", "API listening on http://" + util::ListenAddress{m_options.admin_listen.host, m_admin->port()}.text() +
                                "/client/v4");
}

void App::stop() {
    if (m_edge) m_edge->stop();
    if (m_collector) m_collector->stop(); // writes what is left
    if (m_config_feed) m_config_feed->stop();
    if (m_admin) m_admin->stop();
}

bool App::drain(std::chrono::milliseconds timeout) { return m_edge ? m_edge->drain(timeout) : true; }

void App::reload_tls() {
    if (m_edge) m_edge->reload_tls();
}

int App::admin_port() const { return m_admin->port(); }
int App::edge_port() const { return m_edge ? m_edge->port() : 0; }

void App::flush_analytics() {
    if (m_collector) m_collector->collect();
}

void App::refresh_edge_config() {
    if (m_config_feed) m_config_feed->refresh();
}

} // namespace wr
