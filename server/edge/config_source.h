#pragma once
// Publishes configuration snapshots to the edge: a background thread notices committed changes
// (the database's write generation) and key rotations (the key file's time), rebuilds, and
// swaps the snapshot in. Request threads keep their own copy and check one atomic counter per
// request, so the hot path never touches SQLite and never waits for a lock.
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "edge/edge_config.h"
#include "edge/key_ring.h"
#include "store/database.h"

namespace wr::edge {

struct Snapshot {
    std::shared_ptr<const EdgeConfig> config;
    std::shared_ptr<const KeyRing> keys;
    uint64_t version = 0;
};

// Reads the whole configuration from the store into a new snapshot; rooms count their analytics
// in `registry` (a throwaway registry when null).
std::shared_ptr<const EdgeConfig> load_edge_config(store::Database& database, analytics::Registry* registry = nullptr);

class ConfigSource {
public:
    ConfigSource(store::Database& database, std::filesystem::path key_file, analytics::Registry& registry,
                 std::chrono::milliseconds poll_interval = std::chrono::milliseconds{200});
    ~ConfigSource();

    // Starts the background refresh (the first snapshot is loaded by the constructor).
    void start();
    void stop();
    // Reloads now (tests, and after a rotation in-process).
    void refresh();

    uint64_t version() const { return m_version.load(std::memory_order_acquire); }
    Snapshot snapshot() const;

private:
    void load();
    void run();

    store::Database& m_database;
    std::filesystem::path m_key_file;
    analytics::Registry& m_registry;
    std::chrono::milliseconds m_poll_interval;
    mutable std::mutex m_mutex; // guards the shared_ptrs, taken only when a version changes
    Snapshot m_current;
    std::atomic<uint64_t> m_version{0};
    uint64_t m_loaded_generation = 0;                // guarded by m_mutex
    std::filesystem::file_time_type m_key_time{};    // guarded by m_mutex
    std::thread m_thread;
    std::mutex m_stop_mutex;
    std::condition_variable m_stop_signal;
    bool m_stopping = false;
};

} // namespace wr::edge
