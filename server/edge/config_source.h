#pragma once
// The edge's window on the configuration. The edge does not own its configuration: whoever does
// (the local store on a single node) publishes compiled snapshots here. Request threads keep
// their own copy and compare one atomic counter per request, so the hot path never reads a store
// and never waits for a lock.
#include <atomic>
#include <memory>
#include <mutex>

#include "edge/edge_config.h"
#include "util/key_ring.h"

namespace wr::edge {

struct Snapshot {
    std::shared_ptr<const EdgeConfig> config;
    std::shared_ptr<const util::KeyRing> keys;
    uint64_t version = 0;
};

class ConfigSource {
public:
    // Replaces the snapshot; readers pick it up at their next request.
    void publish(std::shared_ptr<const EdgeConfig> config, std::shared_ptr<const util::KeyRing> keys);

    uint64_t version() const { return m_version.load(std::memory_order_acquire); }
    Snapshot snapshot() const;

private:
    mutable std::mutex m_mutex; // guards m_current, taken only when a version changes
    Snapshot m_current;
    std::atomic<uint64_t> m_version{0};
};

} // namespace wr::edge
