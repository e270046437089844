// Builds configuration snapshots from the store and publishes them.
#include "edge/config_source.h"

#include "edge/cookie.h"
#include "store/events_store.h"
#include "store/rooms_store.h"
#include "store/rules_store.h"
#include "store/zones_store.h"
#include "util/log.h"

namespace wr::edge {

std::shared_ptr<const EdgeConfig> load_edge_config(store::Database& database, analytics::Registry* registry) {
    auto config = std::make_shared<EdgeConfig>();
    database.read([&](store::Connection& connection) {
        for (const model::Zone& zone : store::list_zones(connection, {0, -1})) {
            auto entry = std::make_unique<ZoneConfig>();
            entry->id = zone.id;
            entry->name = zone.settings.name;
            entry->hosts = zone.settings.hosts;
            // Validation keeps origins parseable; a hand-edited database falls back to nothing.
            entry->origin = model::parse_origin_url(zone.settings.origin).value_or(model::OriginUrl{});
            entry->search_engine_crawler_bypass = store::get_zone_room_settings(connection, zone.id).search_engine_crawler_bypass;
            const ZoneConfig* zone_config = entry.get();
            config->zones.push_back(std::move(entry));
            for (model::Room& room : store::list_rooms(connection, zone.id, {0, -1})) {
                auto room_config = std::make_unique<RoomConfig>();
                room_config->id = room.id;
                room_config->zone = zone_config;
                room_config->events = store::all_events(connection, room.id);
                room_config->rules = store::list_rules(connection, room.id);
                room_config->cookie_name = cookie_name(room.settings.cookie_suffix);
                room_config->stats = registry ? registry->room(room.id) : std::make_shared<analytics::RoomStats>();
                room_config->settings = std::move(room.settings);
                build_phases(*room_config);
                compile_rules(*room_config);
                config->rooms.push_back(std::move(room_config));
            }
        }
    });
    config->index();
    return config;
}

ConfigSource::ConfigSource(store::Database& database, std::filesystem::path key_file, analytics::Registry& registry,
                           std::chrono::milliseconds poll_interval)
    : m_database(database), m_key_file(std::move(key_file)), m_registry(registry), m_poll_interval(poll_interval) {
    load();
}

ConfigSource::~ConfigSource() { stop(); }

void ConfigSource::load() {
    const uint64_t generation = m_database.generation();
    std::error_code ignored;
    const auto key_time = std::filesystem::last_write_time(m_key_file, ignored);
    Snapshot next;
    next.config = load_edge_config(m_database, &m_registry);
    next.keys = std::make_shared<const KeyRing>(KeyRing::load_or_create(m_key_file));
    std::lock_guard lock(m_mutex);
    next.version = m_current.version + 1;
    m_current = std::move(next);
    m_loaded_generation = generation;
    m_key_time = key_time;
    m_version.store(m_current.version, std::memory_order_release);
}

void ConfigSource::refresh() { load(); }

Snapshot ConfigSource::snapshot() const {
    std::lock_guard lock(m_mutex);
    return m_current;
}

void ConfigSource::start() {
    m_thread = std::thread([this] { run(); });
}

void ConfigSource::stop() {
    {
        std::lock_guard lock(m_stop_mutex);
        m_stopping = true;
    }
    m_stop_signal.notify_all();
    if (m_thread.joinable()) m_thread.join();
}

void ConfigSource::run() {
    std::unique_lock lock(m_stop_mutex);
    while (!m_stop_signal.wait_for(lock, m_poll_interval, [this] { return m_stopping; })) {
        std::error_code ignored;
        const auto key_time = std::filesystem::last_write_time(m_key_file, ignored);
        bool unchanged;
        {
            std::lock_guard state_lock(m_mutex);
            unchanged = m_database.generation() == m_loaded_generation && key_time == m_key_time;
        }
        if (unchanged) continue;
        try {
            load();
        } catch (const std::exception& error) {
            // Keep serving the last good snapshot.
            util::log_error("edge", std::string("reloading the configuration failed: ") + error.what());
        }
    }
}

} // namespace wr::edge
