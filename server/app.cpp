// Builds and wires the parts of a running wr.
#include "app.h"

#include "api/admin_server.h"
#include "api/routes.h"
#include "control/tokens.h"
#include "store/database.h"
#include "store/migrate.h"
#include "util/log.h"

namespace wr {

App::App(AppOptions options, const util::Clock& clock) : m_options(std::move(options)), m_clock(clock) {
    m_database = std::make_unique<store::Database>(m_options.data_dir);
    const store::MigrationReport report = store::migrate(*m_database);
    for (const std::string& name : report.applied) util::log_info("store", "applied migration " + name);
    if (const auto token_file = control::bootstrap_admin_token(*m_database, m_clock.now(), m_options.data_dir))
        util::log_info("auth", "created the first admin API token; it is in " + token_file->string() +
                                   " (readable by this user only)");
    m_services = std::make_unique<api::Services>(api::Services{*m_database, m_clock, nullptr});
    m_admin = std::make_unique<api::AdminServer>(
        *m_services, api::AdminServerOptions{m_options.admin_listen.host, m_options.admin_listen.port,
                                             m_options.max_body_bytes, m_options.admin_threads});
}

App::~App() { stop(); }

void App::start() {
    m_admin->bind();
    m_admin->start();
    util::log_info("admin", "API listening on http://" + util::ListenAddress{m_options.admin_listen.host, m_admin->port()}.text() +
                                "/client/v4");
}

void App::stop() {
    if (m_admin) m_admin->stop();
}

int App::admin_port() const { return m_admin->port(); }

} // namespace wr
