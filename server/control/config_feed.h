#pragma once
// Feeds the configuration out of a node that owns the database: a background thread notices
// committed changes (the database's write generation) and key rotations (the key file's time),
// reads the whole configuration in one transaction and hands it, with the cookie keys, to each
// subscriber — the local edge's ConfigSource, and the snapshot that edge nodes pull.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/key_ring.h"
#include "model/config_document.h"
#include "store/database.h"

namespace wr::control {

using ConfigSubscriber = std::function<void(const model::ConfigDocument&, const std::shared_ptr<const util::KeyRing>&)>;

class ConfigFeed {
public:
    // Hands out the first snapshot before returning, so nothing starts empty.
    ConfigFeed(store::Database& database, std::filesystem::path key_file, std::vector<ConfigSubscriber> subscribers,
               std::chrono::milliseconds poll_interval = std::chrono::milliseconds{200});
    ~ConfigFeed();

    void start();
    void stop();
    // Hands out now (tests, and after an in-process key rotation).
    void refresh();

private:
    void load();
    bool changed();
    void run();

    store::Database& m_database;
    std::filesystem::path m_key_file;
    std::vector<ConfigSubscriber> m_subscribers;
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
