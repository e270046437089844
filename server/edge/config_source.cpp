#include "edge/config_source.h"

namespace wr::edge {

void ConfigSource::publish(std::shared_ptr<const EdgeConfig> config, std::shared_ptr<const util::KeyRing> keys) {
    std::lock_guard lock(m_mutex);
    m_current = Snapshot{std::move(config), std::move(keys), m_current.version + 1};
    m_version.store(m_current.version, std::memory_order_release);
}

Snapshot ConfigSource::snapshot() const {
    std::lock_guard lock(m_mutex);
    return m_current;
}

} // namespace wr::edge
