#pragma once
// The composition root: the one place that builds the concrete parts of `wr serve` (store,
// admin API, edge, and for several nodes the links between them) and wires them together. Tests
// build an App with fakes.
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/address.h"
#include "util/clock.h"

namespace wr::store {
class Database;
}
namespace wr::control {
class ConfigFeed;
} // namespace wr::control

namespace wr::util {
class DataDirLock;
}
namespace wr::api {
class AdminServer;
struct AdminServerOptions;
struct Services;
} // namespace wr::api
namespace wr::edge {
class ConfigSource;
class EdgeServer;
class Resolver;
struct EdgeOptions;
} // namespace wr::edge
namespace wr::state {
class Counters;
}
namespace wr::origin {
class Registry;
}
namespace wr::analytics {
class Collector;
class Registry;
} // namespace wr::analytics
namespace wr::fleet {
class AnalyticsPusher;
class GuardLoop;
class ConfigPuller;
class CountersStatus;
class FleetStatus;
class PublishedSnapshot;
class RemoteTokens;
} // namespace wr::fleet
namespace wr::api {
struct NodeServices;
}
namespace wr::notify {
class NotificationService;
}
namespace wr::model {
class Notifier;
}

namespace wr {

// What a `wr serve` process is (--role): everything on one machine, or one part of several.
enum class NodeRole {
    all,     // the admin API, the store and the edge: today's single node (it can serve edges too)
    control, // the admin API, the store and the analytics of every edge; no edge listener
    edge,    // the edge only: configuration and cookie keys from the control node, no database
};
const char* role_name(NodeRole role);

struct AppOptions {
    std::filesystem::path data_dir = "wr-data";
    std::string node_name = "wr"; // names this node in /metrics, analytics and shared state
    util::ListenAddress admin_listen{"127.0.0.1", 9090};
    size_t max_body_bytes = 4 * 1024 * 1024;
    int admin_threads = 8;          // the admin API's handler threads
    int admin_max_connections = 0;  // admin connections at once; 0: a quarter of the descriptor limit, at most 2,048
    std::chrono::milliseconds admin_idle_timeout{10000};   // an idle keep-alive admin connection closes
    std::chrono::milliseconds admin_header_timeout{10000}; // an admin request head (or TLS handshake) must be whole

    bool edge_enabled = true;
    util::ListenAddress edge_listen{"0.0.0.0", 8080};
    int edge_threads = 0; // one per core
    std::string tls_certificate;
    std::string tls_private_key;
    std::string tls_ocsp; // a DER OCSP response stapled to the edge's handshakes; empty: none
    bool edge_h2c = false; // the plain edge speaks HTTP/2 to clients that open with its preface (prior knowledge)
    std::chrono::seconds idle_timeout{60};
    int max_connections = 0; // 0: derived from RLIMIT_NOFILE
    std::chrono::seconds origin_timeout{30};
    std::chrono::seconds header_timeout{10};        // a request head must be whole this long after its first byte
    std::chrono::seconds tunnel_idle_timeout{3600}; // an upgraded connection (WebSocket) silent this long closes
    uint64_t edge_max_body_bytes = 100 * 1024 * 1024; // larger request bodies get 413; 0: no limit
    std::string origin_ca_file;                     // PEM CA certificates trusted for https origins, beside the system's
    std::vector<std::string> trusted_proxies; // CIDRs whose X-Forwarded-For is believed
    std::shared_ptr<edge::Resolver> crawler_resolver; // tests' DNS; nullptr: the system's resolver
    // Turnstile: both keys, or Turnstile stays off; empty URLs mean Cloudflare's.
    std::string turnstile_site_key;
    std::string turnstile_secret;
    std::string turnstile_verify_url;
    std::string turnstile_script_url;
    std::chrono::milliseconds turnstile_timeout{5000}; // siteverify's answer, or the token counts as failed
    // The edge's access log: a path, "-" for stdout, "" for none; combined or json lines.
    std::string access_log;
    std::string access_log_format = "combined";
    size_t access_log_max_pending = 8 * 1024 * 1024; // bytes of lines waiting for the disk; more are dropped
    std::chrono::milliseconds config_poll_interval{200};
    std::chrono::milliseconds analytics_interval{2000};
    std::chrono::hours audit_retention{24 * 90}; // audit log entries older than this are pruned

    // Notifications (on the node with the store): how often rooms and nodes are looked at, how
    // long a new state must last to be announced, and the first retry delay (doubled each time).
    std::chrono::milliseconds notification_interval{1000};
    std::chrono::milliseconds notification_settle{30000};
    std::chrono::milliseconds notification_retry_delay{10000};
    std::chrono::milliseconds guard_interval{5000}; // the origin guard's control step, taken at an analytics round (tests lengthen it to step by hand)

    // Roles (wr serve --role …): a control node and edge nodes.
    NodeRole role = NodeRole::all;
    std::string control_url;           // edge: the control node's admin API, http(s)://HOST:PORT
    std::string control_token;         // edge: a token of scope edge (never logged)
    std::string control_ca_file;       // edge: PEM CA to trust for an https control URL; empty: the system's
    std::chrono::milliseconds control_poll_interval{1000}; // edge: how often it asks for a new configuration
    std::string admin_tls_certificate; // serve the admin listener over HTTPS (PEM files)
    std::string admin_tls_private_key;

    // Shared state: where admission counts live (memory: this process; redis://…,
    // redis-sentinel://… or redis-cluster://…: shared by every node pointing there), how often this node reconciles
    // with it, and what admission does while it cannot be reached (local-share, open, closed).
    std::string state = "memory";
    std::chrono::milliseconds state_sync_interval{250};
    std::string state_failure = "local-share";
};

class App {
public:
    // Locks the data directory (throws if another wr has it), opens and migrates the store,
    // creates the first admin token if there is none.
    App(AppOptions options, const util::Clock& clock);
    ~App();

    // Binds every listener, then serves in the background.
    void start();
    void stop();
    // SIGTERM's graceful half: the edge stops accepting and lets the requests it is answering
    // finish for up to `timeout`; stop() then flushes analytics. False at the timeout.
    bool drain(std::chrono::milliseconds timeout);
    // Loads the edge's TLS certificate and key again (renewals); throws if they do not load.
    void reload_tls();
    // Opens the access log's file again (after logrotate moved it; SIGUSR1).
    void reopen_logs();

    int admin_port() const;
    int edge_port() const;
    store::Database& database() { return *m_database; } // not on an edge node
    // Publishes the current configuration to the edge now, instead of within the poll interval
    // (an edge node asks its control node now).
    void refresh_edge_config();
    state::Counters& counters() { return *m_counters; }
    // Writes the analytics counted so far to the store now (they go every couple of seconds); an
    // edge node pushes them to its control node now.
    void flush_analytics();
    // One step of the origin guards now (tests: on their clock, with a guard_interval that never fires).
    void step_guard();
    const AppOptions& options() const { return m_options; }
    // Where any part raises a notification (the origin guard…); null on an edge node, which
    // keeps no notifications (its control node announces what it reports).
    model::Notifier* notifier();
    // The notification service itself, for tests that drive it on their clock; null on an edge node.
    notify::NotificationService* notifications() { return m_notifications.get(); }

private:
    AppOptions m_options;
    const util::Clock& m_clock;
    std::unique_ptr<util::DataDirLock> m_lock; // first in, last out: held while anything below runs
    std::unique_ptr<store::Database> m_database;
    std::unique_ptr<state::Counters> m_counters;
    std::unique_ptr<analytics::Registry> m_analytics;
    std::unique_ptr<origin::Registry> m_origins; // each zone's origin cap and measurements
    std::unique_ptr<analytics::Collector> m_collector;
    std::unique_ptr<fleet::GuardLoop> m_guard; // store nodes: the rooms' origin guards
    std::unique_ptr<edge::ConfigSource> m_config_source;
    std::unique_ptr<control::ConfigFeed> m_config_feed;
    std::unique_ptr<edge::EdgeServer> m_edge;
    std::unique_ptr<api::Services> m_services;
    std::unique_ptr<notify::NotificationService> m_notifications;
    // Roles: what edges pull and push on a node with the store; the pull and push on an edge.
    std::unique_ptr<fleet::PublishedSnapshot> m_published_snapshot;
    std::unique_ptr<fleet::CountersStatus> m_counters_status;
    std::unique_ptr<fleet::FleetStatus> m_fleet;
    std::unique_ptr<fleet::ConfigPuller> m_puller;
    std::unique_ptr<fleet::AnalyticsPusher> m_pusher;
    std::unique_ptr<fleet::RemoteTokens> m_remote_tokens;
    std::unique_ptr<api::NodeServices> m_node_services;
    std::unique_ptr<api::AdminServer> m_admin;

    void build_store_node();
    void build_edge_node();
    edge::EdgeOptions edge_options() const;
    api::AdminServerOptions admin_options() const;
};

} // namespace wr
