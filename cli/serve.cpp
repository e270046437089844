// `wr serve` and `wr migrate`: the commands that run on the server itself, without the API.
#include <cctype>
#include <charconv>
#include <csignal>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <iostream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <vector>

#include "commands.h"
#include "app.h"
#include "util/key_ring.h"
#include "state/state_url.h"
#include "store/database.h"
#include "store/migrate.h"
#include "util/files.h"
#include "util/log.h"

namespace wr::cli {
namespace {

util::ListenAddress listen_address(const std::string& text, const char* flag) {
    const auto address = util::parse_listen_address(text);
    if (!address) throw CliError(std::string(flag) + ": expected host:port, such as 127.0.0.1:9090, not " + text);
    return *address;
}

// glibc maps blocks of 128 KiB and more, and unmaps them when freed, until the first such block is
// freed: from then on it raises the threshold (up to 32 MiB) and keeps large blocks in its arenas,
// where they stay after use. A fixed threshold keeps the memory a large admin request took (its
// body, long strings) going back to the system once it is answered.
void give_large_blocks_back() {
#if defined(__GLIBC__)
    ::mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
#endif
}

util::LogLevel log_level(const std::string& name) {
    if (name == "debug") return util::LogLevel::debug;
    if (name == "warn") return util::LogLevel::warn;
    if (name == "error") return util::LogLevel::error;
    return util::LogLevel::info;
}

// What a TLS file looks like now, to notice a renewal that did not send SIGHUP.
struct FileStamp {
    std::filesystem::file_time_type modified{};
    std::uintmax_t size = 0;
    ino_t inode = 0; // renewals usually rename a new file into place
    bool operator==(const FileStamp&) const = default;
};

FileStamp stamp_of(const std::string& path) {
    FileStamp stamp;
    struct stat info {};
    if (path.empty() || ::stat(path.c_str(), &info) != 0) return stamp;
    std::error_code ignored;
    stamp.modified = std::filesystem::last_write_time(path, ignored);
    stamp.size = static_cast<std::uintmax_t>(info.st_size);
    stamp.inode = info.st_ino;
    return stamp;
}

void reload_tls(App& app, const char* why) {
    try {
        app.reload_tls();
        util::log_info("serve", std::string("reloaded the TLS certificates and keys (") + why + ")");
    } catch (const std::exception& error) {
        util::log_error("serve", std::string("kept the previous TLS certificate: ") + error.what());
    }
}

// The stamps of the TLS files wr watches (the edge's and the admin listener's pair).
using TlsStamps = std::vector<FileStamp>;

TlsStamps stamps_of(const std::vector<std::string>& files) {
    TlsStamps stamps;
    for (const std::string& file : files) stamps.push_back(stamp_of(file));
    return stamps;
}

// "250ms", "1s", "2m" or a bare number of milliseconds, between `low` and `high`.
std::chrono::milliseconds duration_flag(const std::string& text, const char* flag, std::chrono::milliseconds low,
                                        std::chrono::milliseconds high, const char* range) {
    std::string number = text;
    int64_t scale = 1;
    if (number.ends_with("ms")) {
        number.resize(number.size() - 2);
    } else if (number.ends_with("s")) {
        number.resize(number.size() - 1);
        scale = 1000;
    } else if (number.ends_with("m")) {
        number.resize(number.size() - 1);
        scale = 60 * 1000;
    }
    int64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc{} || end != number.data() + number.size())
        throw CliError(std::string(flag) + ": expected a duration such as 250ms, 1s or 2m, not '" + text + "'");
    const std::chrono::milliseconds interval{value * scale};
    if (interval < low || interval > high) throw CliError(std::string(flag) + ": must be between " + range + ", not " + text);
    return interval;
}

// Commands that act on a server's data directory (keys rotate, migrate) never make one: a
// mistyped --data-dir would otherwise succeed on a new, empty directory the server never reads.
void require_data_directory(const std::filesystem::path& data_dir) {
    if (!std::filesystem::is_directory(data_dir))
        throw CliError("no data directory at " + data_dir.string() + "; give the --data-dir `wr serve` uses (it makes the directory)");
}

// Where a browser on this machine finds the console (the token itself is never logged).
std::string console_address(const AppOptions& options, int port) {
    std::string host = options.admin_listen.host;
    if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
    if (host == "::") host = "::1";
    const std::string scheme = options.admin_tls_certificate.empty() ? "http://" : "https://";
    return scheme + util::ListenAddress{host, port}.text() + "/";
}

std::string host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "wr";
    return name;
}

// Runs until SIGINT or SIGTERM; SIGHUP, or a change of a certificate or key file (checked every
// second) from `loaded` — their stamps taken before wr read them, so a renewal while wr starts
// is not missed — reloads TLS; SIGUSR1 reopens the access log. Returns the signal that ended it.
int run_until_shutdown(App& app, const std::vector<std::string>& tls_files, TlsStamps loaded) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGHUP);
    sigaddset(&signals, SIGUSR1);
    const bool tls = !tls_files.empty();
    TlsStamps seen = std::move(loaded);
    while (true) {
        const timespec second{1, 0};
        const int received = sigtimedwait(&signals, nullptr, &second);
        if (received == SIGINT || received == SIGTERM) {
            util::log_info("serve", std::string("received ") + (received == SIGINT ? "SIGINT" : "SIGTERM") + ", shutting down");
            return received;
        }
        if (received == SIGUSR1) {
            app.reopen_logs();
            util::log_info("serve", "received SIGUSR1: reopening the access log");
            continue;
        }
        if (!tls) continue;
        if (received == SIGHUP) {
            seen = stamps_of(tls_files);
            reload_tls(app, "SIGHUP");
            continue;
        }
        const TlsStamps now = stamps_of(tls_files);
        if (now != seen) {
            // A half-written pair fails to load; the second file's change tries again.
            seen = now;
            reload_tls(app, "the files changed");
        }
    }
}

} // namespace

void add_serve_commands(CLI::App& root, Context& context) {
    struct ServeOptions {
        std::string admin_listen = "127.0.0.1:9090";
        std::string edge_listen = "0.0.0.0:8080";
        int edge_threads = 0;
        std::string tls_certificate;
        std::string tls_private_key;
        std::string tls_ocsp;
        bool edge_h2c = false;
        int origin_timeout = 30;
        int idle_timeout = 60;
        int max_connections = 0;
        int header_timeout = 10;
        int tunnel_idle_timeout = 3600;
        uint64_t edge_max_body_bytes = 100 * 1024 * 1024;
        std::string origin_ca_file;
        std::string log_level = "info";
        size_t max_body_bytes = 4 * 1024 * 1024;
        int admin_threads = 8;
        int admin_max_connections = 0;
        int admin_idle_timeout = 10;
        int admin_header_timeout = 10;
        std::vector<std::string> trusted_proxies;
        std::string turnstile_site_key;
        std::string turnstile_secret;
        std::string turnstile_verify_url;
        std::string turnstile_script_url;
        int turnstile_timeout = 5;
        int drain_timeout = 15;
        int audit_retention_days = 90;
        std::string notification_settle = "30s";
        std::string notification_retry = "10s";
        std::string access_log;
        std::string access_log_format = "combined";
        std::string node_name = host_name();
        // roles
        std::string role = "all";
        std::string control_url;
        std::string control_token;
        std::string control_ca_file;
        std::string admin_tls_certificate;
        std::string admin_tls_private_key;
        // shared state
        std::string state = "memory";
        std::string state_sync_interval = "250ms";
        std::string state_failure = "local-share";
    };
    auto options = std::make_shared<ServeOptions>();
    CLI::App* serve = root.add_subcommand("serve", "Run wr: the admin API (and the edge) on this machine");
    serve->add_option("--admin-listen", options->admin_listen, "Address of the admin API (keep it off the public network)")
        ->envname("WR_ADMIN_LISTEN")
        ->capture_default_str();
    serve->add_option("--edge-listen", options->edge_listen, "Address of the public edge (the waiting room itself)")
        ->envname("WR_EDGE_LISTEN")
        ->capture_default_str();
    serve->add_option("--edge-threads", options->edge_threads, "Edge threads (0: one per core)")->check(CLI::Range(0, 256))->capture_default_str();
    serve->add_option("--tls-cert", options->tls_certificate, "PEM certificate chain: serve the edge over HTTPS")->check(CLI::ExistingFile);
    serve->add_option("--tls-key", options->tls_private_key, "PEM private key for --tls-cert")->check(CLI::ExistingFile);
    serve->add_option("--tls-ocsp", options->tls_ocsp,
                      "DER OCSP response for --tls-cert, stapled to handshakes (renew the file; it is reloaded with the certificate)")
        ->check(CLI::ExistingFile);
    serve->add_flag("--edge-h2c", options->edge_h2c,
                    "Plain edge: also speak HTTP/2 to clients that open with its preface (prior knowledge: a load balancer that "
                    "ends TLS and speaks HTTP/2 to wr; cleartext, for a trusted hop only)");
    serve->add_option("--origin-timeout", options->origin_timeout, "Seconds to wait for an origin's answer before a 504")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    serve->add_option("--max-connections", options->max_connections,
                      "Visitor connections the edge keeps at once; past it the oldest idle keep-alive ones close "
                      "(default: half the descriptor limit less 64, from ulimit -n)")
        ->check(CLI::NonNegativeNumber);
    serve->add_option("--idle-timeout", options->idle_timeout, "Seconds an idle keep-alive connection stays open on the edge")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    serve->add_option("--header-timeout", options->header_timeout,
                      "Seconds a request head may take from its first byte to its end (slower ones are cut off with 408)")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    serve->add_option("--tunnel-idle-timeout", options->tunnel_idle_timeout,
                      "Seconds an upgraded connection (WebSocket) may stay silent both ways before it closes")
        ->check(CLI::Range(1, 7 * 24 * 3600))
        ->capture_default_str();
    serve->add_option("--edge-max-body-bytes", options->edge_max_body_bytes,
                      "Largest request body the edge forwards to an origin (413 above; 0: no limit)")
        ->capture_default_str();
    serve->add_option("--origin-ca-file", options->origin_ca_file,
                      "PEM file of CA certificates to trust for https origins, beside the system's (a private CA)")
        ->check(CLI::ExistingFile);
    serve->add_option("--log-level", options->log_level, "Log level")
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
        ->capture_default_str();
    serve->add_option("--max-body-bytes", options->max_body_bytes, "Largest admin request body accepted (413 above)")
        ->check(CLI::Range(size_t{1024}, size_t{64} * 1024 * 1024))
        ->capture_default_str();
    serve->add_option("--admin-threads", options->admin_threads,
                      "Threads that run admin API handlers (besides one for /healthz and one for large bodies)")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    serve->add_option("--admin-max-connections", options->admin_max_connections,
                      "Admin connections kept at once; past it the longest idle (then the slowest still sending) closes "
                      "(default: a quarter of ulimit -n, at most 2048)")
        ->check(CLI::NonNegativeNumber);
    serve->add_option("--admin-idle-timeout", options->admin_idle_timeout, "Seconds an idle keep-alive admin connection stays open")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    serve->add_option("--admin-header-timeout", options->admin_header_timeout,
                      "Seconds an admin request head (or TLS handshake) may take (slower ones get 408)")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    serve->add_option("--trusted-proxy", options->trusted_proxies,
                      "A proxy in front of the edge (IP or CIDR, repeatable): its X-Forwarded-For names the client")
        ->envname("WR_TRUSTED_PROXIES")
        ->delimiter(',');
    serve->add_option("--turnstile-site-key", options->turnstile_site_key, "Cloudflare Turnstile site key for queue pages")
        ->envname("WR_TURNSTILE_SITE_KEY");
    serve->add_option("--turnstile-secret", options->turnstile_secret,
                      "Turnstile secret key (prefer the environment variable: arguments show in ps)")
        ->envname("WR_TURNSTILE_SECRET");
    serve->add_option("--turnstile-verify-url", options->turnstile_verify_url,
                      "Where tokens are verified (default Cloudflare's siteverify)");
    serve->add_option("--turnstile-script-url", options->turnstile_script_url,
                      "The Turnstile script queue pages load (default Cloudflare's api.js)");
    serve->add_option("--turnstile-timeout", options->turnstile_timeout,
                      "Seconds to wait for siteverify; a token it has not judged by then counts as failed")
        ->check(CLI::Range(1, 60))
        ->capture_default_str();
    serve->add_option("--drain-timeout", options->drain_timeout,
                      "Seconds SIGTERM/SIGINT lets requests in flight finish before wr exits")
        ->check(CLI::Range(0, 3600))
        ->capture_default_str();
    serve->add_option("--access-log", options->access_log,
                      "Write one line per edge request to this file ('-': stdout); SIGUSR1 reopens it (log rotation)")
        ->envname("WR_ACCESS_LOG");
    serve->add_option("--access-log-format", options->access_log_format,
                      "combined (nginx's and Apache's, for existing tools) or json (every field: decision, room, timings, request id…)")
        ->check(CLI::IsMember({"combined", "json"}))
        ->capture_default_str();
    serve->add_option("--notification-settle", options->notification_settle,
                      "How long a room's new state (queueing, a wait over a threshold) or a node's (shared state lost) must "
                      "last before notifications announce it (0s to 60m, written 30s, 2m or milliseconds; 0s: at once)")
        ->group("Notifications")
        ->capture_default_str();
    serve->add_option("--notification-retry", options->notification_retry,
                      "The wait before retrying a failed notification delivery; doubled after each failure (up to an hour), "
                      "given up after 24 hours (100ms to 60m, written 10s, 2m or milliseconds)")
        ->group("Notifications")
        ->capture_default_str();
    serve->add_option("--audit-retention-days", options->audit_retention_days,
                      "Days the audit log keeps its entries of configuration changes")
        ->check(CLI::Range(1, 36500))
        ->capture_default_str();
    serve->add_option("--node-name", options->node_name,
                      "This node's name in /metrics, analytics and shared state (default: this machine's host name)")
        ->envname("WR_NODE_NAME")
        ->check(CLI::Validator(
            [](std::string& value) {
                if (value.empty() || value.size() > 64) return std::string("must be 1 to 64 characters");
                for (const char c : value)
                    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
                        return std::string("may hold letters, digits, '-', '_' and '.' only");
                return std::string();
            },
            "NAME"));
    // Roles: one node, or a control node and edge nodes (docs/multi-node.md).
    serve->add_option("--role", options->role,
                      "all: admin API, store and edge on this node; control: admin API and store, no edge; edge: the edge only, "
                      "configured by --control-url")
        ->envname("WR_ROLE")
        ->check(CLI::IsMember({"all", "control", "edge"}))
        ->capture_default_str();
    serve->add_option("--control-url", options->control_url, "--role edge: the control node's admin listener, https://HOST:PORT")
        ->envname("WR_CONTROL_URL");
    serve->add_option("--control-token", options->control_token,
                      "--role edge: a token of scope edge from the control node (prefer the environment variable: arguments show in ps)")
        ->envname("WR_CONTROL_TOKEN");
    serve->add_option("--control-ca-file", options->control_ca_file,
                      "--role edge: PEM certificate of the CA that signed the control node's certificate (default: the system's CAs)")
        ->envname("WR_CONTROL_CA_FILE")
        ->check(CLI::ExistingFile);
    serve->add_option("--admin-tls-cert", options->admin_tls_certificate, "PEM certificate chain: serve the admin listener over HTTPS")
        ->envname("WR_ADMIN_TLS_CERT")
        ->check(CLI::ExistingFile);
    serve->add_option("--admin-tls-key", options->admin_tls_private_key, "PEM private key for --admin-tls-cert")
        ->envname("WR_ADMIN_TLS_KEY")
        ->check(CLI::ExistingFile);
    serve->add_option("--state", options->state,
                      "Where admission counts live: memory (this process), redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], "
                      "redis-sentinel://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…]/MASTER[/DB] or "
                      "redis-cluster://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]…] (shared by every node pointing there; "
                      "ports default to 6379, Sentinels' to 26379)")
        ->envname("WR_STATE")
        ->group("Shared state")
        ->capture_default_str();
    serve->add_option("--state-sync-interval", options->state_sync_interval,
                      "How often this node reconciles its counts with the shared state (10ms to 10s; 250ms, 1s)")
        ->group("Shared state")
        ->capture_default_str();
    serve->add_option("--state-failure", options->state_failure,
                      "While the shared state cannot be reached: local-share (admit from this node's last known share "
                      "of the limits), open (admit everyone) or closed (admit no one new)")
        ->check(CLI::IsMember({"local-share", "open", "closed"}))
        ->group("Shared state")
        ->capture_default_str();
    // Every serve option can come from the environment as WR_<NAME> (WR_EDGE_LISTEN), and from a
    // --config file under [serve] by its own name, so a service file needs no long command line.
    for (CLI::Option* option : serve->get_options()) {
        const std::string name = option->get_single_name();
        if (option->get_lnames().empty() || name == "help" || !option->get_envname().empty()) continue;
        std::string variable = "WR_";
        for (const char c : name) variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        option->envname(variable);
    }
    serve->footer("Example:\n  wr serve --data-dir /var/lib/wr --edge-listen 0.0.0.0:8080 --admin-listen 127.0.0.1:9090\n\n"
                  "Global options, before or after serve (wr --help lists them all):\n"
                  "  --data-dir DIR   where wr keeps its database, cookie keys and first admin token (default wr-data)\n"
                  "  --config FILE    options from a TOML file: global ones at the top, serve's under [serve]\n"
                  "Every option above can also come from the environment as WR_<NAME> (WR_EDGE_LISTEN; --trusted-proxy is WR_TRUSTED_PROXIES).\n\n"
                  "Several nodes: a control node, and edges that take their configuration from it and share the rooms'\n"
                  "counts through Redis (the control node reads the whole room from there):\n"
                  "  wr serve --role control --admin-listen 0.0.0.0:9090 --admin-tls-cert admin.pem --admin-tls-key admin.key \\\n"
                  "           --state redis://10.0.0.5:6379/0\n"
                  "  WR_CONTROL_TOKEN=wr_… wr serve --role edge --node-name edge-1 --control-url https://control:9090 \\\n"
                  "           --control-ca-file ca.pem --state redis://10.0.0.5:6379/0      (the same on edge-2 and edge-3)\n"
                  "Edges with --state memory (the default) each hold a room of their own: each admits up to the full limits.\n\n"
                  "On first start wr creates an admin API token in <data-dir>/admin.token and the cookie key\n"
                  "in <data-dir>/cookie.key (both mode 0600).\n\n"
                  "SIGTERM or SIGINT: stop accepting, finish what is in flight (--drain-timeout), write analytics, exit 0.\n"
                  "SIGHUP, or new --tls-cert/--tls-key (or --admin-tls-*) files: reload the certificates without dropping connections.\n"
                  "SIGUSR1: reopen the --access-log file (after logrotate moved it; see deploy/logrotate/wr).");
    serve->callback([&context, options] {
        util::set_log_level(log_level(options->log_level));
        // Signals are waited for by this thread; every thread started later inherits the mask.
        sigset_t signals;
        sigemptyset(&signals);
        sigaddset(&signals, SIGINT);
        sigaddset(&signals, SIGTERM);
        sigaddset(&signals, SIGHUP);
        sigaddset(&signals, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);

        AppOptions app_options;
        // Checked before anything starts, so a mistake costs one line and nothing else.
        try {
            state::parse_state_url(options->state);
        } catch (const std::invalid_argument& error) {
            throw CliError(std::string("--state: ") + error.what());
        }
        app_options.state = options->state;
        app_options.state_sync_interval = duration_flag(options->state_sync_interval, "--state-sync-interval", std::chrono::milliseconds{10},
                                                        std::chrono::seconds{10}, "10ms and 10s");
        app_options.notification_settle = duration_flag(options->notification_settle, "--notification-settle", std::chrono::milliseconds{0},
                                                        std::chrono::hours{1}, "0s and 60m");
        app_options.notification_retry_delay = duration_flag(options->notification_retry, "--notification-retry", std::chrono::milliseconds{100},
                                                             std::chrono::hours{1}, "100ms and 60m");
        app_options.state_failure = options->state_failure;
        app_options.data_dir = context.data_dir;
        app_options.node_name = options->node_name;
        app_options.admin_listen = listen_address(options->admin_listen, "--admin-listen");
        app_options.max_body_bytes = options->max_body_bytes;
        app_options.admin_threads = options->admin_threads;
        app_options.admin_max_connections = options->admin_max_connections;
        app_options.admin_idle_timeout = std::chrono::seconds{options->admin_idle_timeout};
        app_options.admin_header_timeout = std::chrono::seconds{options->admin_header_timeout};
        app_options.edge_listen = listen_address(options->edge_listen, "--edge-listen");
        app_options.edge_threads = options->edge_threads;
        app_options.tls_certificate = options->tls_certificate;
        app_options.tls_private_key = options->tls_private_key;
        if (!options->tls_ocsp.empty() && options->tls_certificate.empty()) throw CliError("--tls-ocsp staples to --tls-cert: give both");
        app_options.tls_ocsp = options->tls_ocsp;
        if (options->edge_h2c && !options->tls_certificate.empty())
            throw CliError("--edge-h2c is for a plain edge; with --tls-cert, HTTP/2 is offered by ALPN");
        app_options.edge_h2c = options->edge_h2c;
        app_options.origin_timeout = std::chrono::seconds{options->origin_timeout};
        app_options.idle_timeout = std::chrono::seconds{options->idle_timeout};
        app_options.max_connections = options->max_connections;
        app_options.header_timeout = std::chrono::seconds{options->header_timeout};
        app_options.tunnel_idle_timeout = std::chrono::seconds{options->tunnel_idle_timeout};
        app_options.edge_max_body_bytes = options->edge_max_body_bytes;
        app_options.origin_ca_file = options->origin_ca_file;
        app_options.trusted_proxies = options->trusted_proxies;
        app_options.turnstile_site_key = options->turnstile_site_key;
        app_options.turnstile_secret = options->turnstile_secret;
        app_options.turnstile_verify_url = options->turnstile_verify_url;
        app_options.turnstile_script_url = options->turnstile_script_url;
        app_options.turnstile_timeout = std::chrono::seconds{options->turnstile_timeout};
        app_options.audit_retention = std::chrono::hours{24 * options->audit_retention_days};
        app_options.access_log = options->access_log;
        app_options.access_log_format = options->access_log_format;
        // roles
        app_options.role = options->role == "control" ? NodeRole::control : options->role == "edge" ? NodeRole::edge : NodeRole::all;
        if (!options->access_log.empty() && app_options.role == NodeRole::control)
            throw CliError("--access-log is the edge's: this node is --role control and has no edge");
        if (options->edge_h2c && app_options.role == NodeRole::control)
            throw CliError("--edge-h2c is the edge's: this node is --role control and has no edge");
        if (app_options.role != NodeRole::edge && !options->control_url.empty())
            throw CliError("--control-url is for --role edge; this node is --role " + options->role);
        if (options->admin_tls_certificate.empty() != options->admin_tls_private_key.empty())
            throw CliError("--admin-tls-cert and --admin-tls-key go together");
        app_options.control_url = options->control_url;
        app_options.control_token = options->control_token;
        app_options.control_ca_file = options->control_ca_file;
        app_options.admin_tls_certificate = options->admin_tls_certificate;
        app_options.admin_tls_private_key = options->admin_tls_private_key;
        std::vector<std::string> tls_files;
        for (const std::string* file : {&options->tls_certificate, &options->tls_private_key, &options->tls_ocsp,
                                        &options->admin_tls_certificate, &options->admin_tls_private_key})
            if (!file->empty()) tls_files.push_back(*file);

        const util::SystemClock clock;
        const TlsStamps tls_stamps = stamps_of(tls_files);
        give_large_blocks_back();
        App app(app_options, clock);
        app.start();
        util::log_info("serve", "data directory " + std::filesystem::absolute(context.data_dir).string());
        if (app_options.role != NodeRole::edge) {
            const std::string console = console_address(app_options, app.admin_port());
            util::log_info("serve", "console at " + console + "; to sign in from this machine, open " + console + "#token=$(cat " +
                                        (context.data_dir / "admin.token").string() + ")");
        }
        run_until_shutdown(app, tls_files, tls_stamps);
        const auto drain_started = std::chrono::steady_clock::now();
        if (app.drain(std::chrono::seconds{options->drain_timeout}))
            util::log_info("serve", "drained in " + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                      std::chrono::steady_clock::now() - drain_started)
                                                                      .count()) +
                                        " ms");
        else
            util::log_warn("serve", "--drain-timeout reached with requests still in flight; closing them");
        app.stop(); // writes the analytics counted so far
        util::log_info("serve", "stopped");
    });

    CLI::App* keys = root.add_subcommand("keys", "Manage the keys that seal waiting-room cookies");
    keys->require_subcommand(1);
    CLI::App* rotate = keys->add_subcommand("rotate", "Add a new cookie key; cookies sealed with older keys keep working");
    rotate->footer("Example:\n  wr keys rotate --data-dir /var/lib/wr\n\n"
                   "A running `wr serve` picks the new key up within a second. The newest " +
                   std::to_string(util::k_kept_keys) + " keys are kept.");
    rotate->callback([&context] {
        require_data_directory(context.data_dir);
        const util::KeyRing ring = util::KeyRing::rotate(context.data_dir / "cookie.key");
        std::cout << "new cookie key " << static_cast<int>(ring.current().id) << " in " << (context.data_dir / "cookie.key").string()
                  << "; " << ring.keys().size() << " key(s) open cookies\n";
    });

    CLI::App* migrate = root.add_subcommand("migrate", "Bring the database in --data-dir to this binary's schema");
    migrate->footer("Example:\n  wr migrate --data-dir /var/lib/wr\n\n`wr serve` migrates on start; this runs the same step alone.");
    migrate->callback([&context] {
        require_data_directory(context.data_dir);
        store::Database database(context.data_dir);
        const store::MigrationReport report = store::migrate(database);
        if (report.applied.empty()) {
            std::cout << "database " << database.path().string() << " is up to date (schema version " << report.to_version << ")\n";
            return;
        }
        std::cout << "database " << database.path().string() << ": schema version " << report.from_version << " -> "
                  << report.to_version << '\n';
        for (const std::string& name : report.applied) std::cout << "  applied " << name << '\n';
    });
}

} // namespace wr::cli
