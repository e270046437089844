#pragma once
// The composition root: the one place that builds the concrete parts of `wr serve` (store,
// admin API, and later the edge) and wires them together. Tests build an App with fakes.
#include <filesystem>
#include <memory>
#include <string>

#include "util/address.h"
#include "util/clock.h"

namespace wr::store {
class Database;
}
namespace wr::api {
class AdminServer;
struct Services;
} // namespace wr::api

namespace wr {

struct AppOptions {
    std::filesystem::path data_dir = "wr-data";
    util::ListenAddress admin_listen{"127.0.0.1", 9090};
    size_t max_body_bytes = 4 * 1024 * 1024;
    int admin_threads = 8;
};

class App {
public:
    // Opens and migrates the store, creates the first admin token if there is none.
    App(AppOptions options, const util::Clock& clock);
    ~App();

    // Binds every listener, then serves in the background.
    void start();
    void stop();

    int admin_port() const;
    store::Database& database() { return *m_database; }
    const AppOptions& options() const { return m_options; }

private:
    AppOptions m_options;
    const util::Clock& m_clock;
    std::unique_ptr<store::Database> m_database;
    std::unique_ptr<api::Services> m_services;
    std::unique_ptr<api::AdminServer> m_admin;
};

} // namespace wr
