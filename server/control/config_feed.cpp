#include "control/config_feed.h"

#include "store/config_document_store.h"
#include "util/log.h"

namespace wr::control {

ConfigFeed::ConfigFeed(store::Database& database, std::filesystem::path key_file, std::vector<ConfigSubscriber> subscribers,
                       std::chrono::milliseconds poll_interval)
    : m_database(database), m_key_file(std::move(key_file)), m_subscribers(std::move(subscribers)), m_poll_interval(poll_interval) {
    load();
}

ConfigFeed::~ConfigFeed() { stop(); }

void ConfigFeed::load() {
    std::lock_guard lock(m_load_mutex);
    // Read the markers first: a change committed during the load is seen again next time.
    const uint64_t generation = m_database.generation();
    std::error_code ignored;
    const auto key_time = std::filesystem::last_write_time(m_key_file, ignored);
    const model::ConfigDocument document = store::read_config_document(m_database);
    const auto keys = std::make_shared<const util::KeyRing>(util::KeyRing::load_or_create(m_key_file));
    for (const ConfigSubscriber& subscriber : m_subscribers) subscriber(document, keys);
    m_loaded_generation = generation;
    m_key_time = key_time;
}

bool ConfigFeed::changed() {
    std::error_code ignored;
    const auto key_time = std::filesystem::last_write_time(m_key_file, ignored);
    std::lock_guard lock(m_load_mutex);
    return m_database.generation() != m_loaded_generation || key_time != m_key_time;
}

void ConfigFeed::refresh() { load(); }

void ConfigFeed::start() {
    m_thread = std::thread([this] { run(); });
}

void ConfigFeed::stop() {
    {
        std::lock_guard lock(m_stop_mutex);
        m_stopping = true;
    }
    m_stop_signal.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void ConfigFeed::run() {
    std::unique_lock lock(m_stop_mutex);
    while (!m_stop_signal.wait_for(lock, m_poll_interval, [this] { return m_stopping; })) {
        if (!changed()) continue;
        try {
            load();
        } catch (const std::exception& error) {
            // The edge (and the edges pulling from here) keep serving the last good snapshot.
            util::log_error("edge", std::string("reloading the configuration failed: ") + error.what());
        }
    }
}

} // namespace wr::control
