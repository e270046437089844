// Serialises the configuration for edges once per change.
#include "fleet/published_snapshot.h"

#include "fleet/snapshot_wire.h"

namespace wr::fleet {

void PublishedSnapshot::update(const model::ConfigDocument& document, const util::KeyRing& keys) {
    auto body = std::make_shared<const std::string>(snapshot_body(document, keys));
    std::string etag = etag_of(*body);
    std::lock_guard lock(m_mutex);
    m_current = Current{std::move(body), std::move(etag)};
}

PublishedSnapshot::Current PublishedSnapshot::current() const {
    std::lock_guard lock(m_mutex);
    return m_current;
}

} // namespace wr::fleet
