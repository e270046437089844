#pragma once
// Feeds the edge on a node that owns the database: a background thread notices committed changes
// (the database's write generation) and key rotations (the key file's time), reads the whole
// configuration in one transaction, compiles it and publishes it to the edge's ConfigSource.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "analytics/room_stats.h"
#include "edge/config_source.h"
#include "store/database.h"

namespace wr::control {

class ConfigFeed {
public:
    // Publishes the first snapshot before returning, so the edge never starts empty.
    ConfigFeed(store::Database& database, std::filesystem::path key_file, analytics::Registry& registry,
               edge::ConfigSource& target, std::chrono::milliseconds poll_interval = std::chrono::milliseconds{200});
    ~ConfigFeed();

    void start();
    void stop();
    // Publishes now (tests, and after an in-process key rotation).
    void refresh();

private:
    void load();
    bool changed();
    void run();

    store::Database& m_database;
    std::filesystem::path m_key_file;
    analytics::Registry& m_registry;
    edge::ConfigSource& m_target;
    std::chrono::milliseconds m_poll_interval;
    std::mutex m_load_mutex; // one load at a time: refresh() may race the thread
    uint64_t m_loaded_generation = 0;             // guarded by m_load_mutex
    std::filesystem::file_time_type m_key_time{}; // guarded by m_load_mutex
    std::thread m_thread;
    std::mutex m_stop_mutex;
    std::condition_variable m_stop_signal;
    bool m_stopping = false;
};

} // namespace wr::control
