// `wr serve` and `wr migrate`: the commands that run on the server itself, without the API.
#include <csignal>
#include <iostream>

#include "commands.h"
#include "app.h"
#include "store/database.h"
#include "store/migrate.h"
#include "util/log.h"

namespace wr::cli {
namespace {

util::ListenAddress listen_address(const std::string& text, const char* flag) {
    const auto address = util::parse_listen_address(text);
    if (!address) throw CliError(std::string(flag) + ": expected host:port, such as 127.0.0.1:9090, not " + text);
    return *address;
}

util::LogLevel log_level(const std::string& name) {
    if (name == "debug") return util::LogLevel::debug;
    if (name == "warn") return util::LogLevel::warn;
    if (name == "error") return util::LogLevel::error;
    return util::LogLevel::info;
}

// Blocks until SIGINT or SIGTERM.
void wait_for_shutdown_signal() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    int received = 0;
    sigwait(&signals, &received);
    util::log_info("serve", std::string("received ") + (received == SIGINT ? "SIGINT" : "SIGTERM") + ", shutting down");
}

} // namespace

void add_serve_commands(CLI::App& root, Context& context) {
    struct ServeOptions {
        std::string admin_listen = "127.0.0.1:9090";
        std::string log_level = "info";
        size_t max_body_bytes = 4 * 1024 * 1024;
    };
    auto options = std::make_shared<ServeOptions>();
    CLI::App* serve = root.add_subcommand("serve", "Run wr: the admin API (and the edge) on this machine");
    serve->add_option("--admin-listen", options->admin_listen, "Address of the admin API (keep it off the public network)")
        ->envname("WR_ADMIN_LISTEN")
        ->capture_default_str();
    serve->add_option("--log-level", options->log_level, "Log level")
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
        ->capture_default_str();
    serve->add_option("--max-body-bytes", options->max_body_bytes, "Largest admin request body accepted (413 above)")
        ->check(CLI::Range(size_t{1024}, size_t{64} * 1024 * 1024))
        ->capture_default_str();
    serve->footer("Example:\n  wr serve --data-dir /var/lib/wr --admin-listen 127.0.0.1:9090\n\n"
                  "On first start wr creates an admin API token in <data-dir>/admin.token (mode 0600).");
    serve->callback([&context, options] {
        util::set_log_level(log_level(options->log_level));
        // Signals are waited for by this thread; every thread started later inherits the mask.
        sigset_t signals;
        sigemptyset(&signals);
        sigaddset(&signals, SIGINT);
        sigaddset(&signals, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);

        AppOptions app_options;
        app_options.data_dir = context.data_dir;
        app_options.admin_listen = listen_address(options->admin_listen, "--admin-listen");
        app_options.max_body_bytes = options->max_body_bytes;
        const util::SystemClock clock;
        App app(app_options, clock);
        app.start();
        util::log_info("serve", "data directory " + std::filesystem::absolute(context.data_dir).string());
        wait_for_shutdown_signal();
        app.stop();
    });

    CLI::App* migrate = root.add_subcommand("migrate", "Bring the database in --data-dir to this binary's schema");
    migrate->footer("Example:\n  wr migrate --data-dir /var/lib/wr\n\n`wr serve` migrates on start; this runs the same step alone.");
    migrate->callback([&context] {
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
