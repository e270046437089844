// A small direct-mapped cache of rendered queue pages.
#include "page/render_cache.h"

#include <functional>

namespace wr::page {
namespace {

int64_t whole_minutes_until(util::TimePoint from, std::optional<util::TimePoint> to) {
    if (!to || *to <= from) return 0;
    return std::chrono::ceil<std::chrono::minutes>(*to - from).count();
}

size_t hash_of(const RenderKey& key) {
    size_t hash = std::hash<const void*>{}(key.source);
    for (const int64_t number : key.numbers) hash = hash * 1000003 ^ std::hash<int64_t>{}(number);
    hash = hash * 1000003 ^ key.flags;
    return hash ^ std::hash<std::string_view>{}(key.turnstile) ^ (std::hash<std::string_view>{}(key.language) << 1);
}

} // namespace

RenderKey render_key(const QueueView& view, const void* source) {
    RenderKey key;
    key.source = source;
    key.numbers = {view.wait_time_minutes,
                   view.wait_time_p25_minutes,
                   view.wait_time_p50_minutes,
                   view.wait_time_p75_minutes,
                   std::chrono::floor<std::chrono::seconds>(view.last_updated.time_since_epoch()).count(),
                   view.refresh_interval_seconds,
                   static_cast<int64_t>(view.queueing_method),
                   view.event_active ? whole_minutes_until(view.now, view.event_start) : 0,
                   view.event_active ? whole_minutes_until(view.now, view.event_end) : 0,
                   0,
                   0,
                   0};
    key.flags = (view.wait_time_known ? 1u : 0u) | (view.queue_is_full ? 2u : 0u) | (view.queue_all ? 4u : 0u) |
                (view.event_active ? 8u : 0u) | (view.event_prequeueing ? 16u : 0u) |
                (view.shuffle_at_event_start ? 32u : 0u) | (view.infinite_queue ? 64u : 0u) | (view.wait_time_from_limits ? 128u : 0u);
    key.turnstile = view.turnstile_html;
    key.language = view.language;
    return key;
}

const std::shared_ptr<const std::string>* RenderCache::find(const RenderKey& key) const {
    const Slot& slot = m_slots[hash_of(key) % k_slots];
    if (slot.used && slot.key == key) return &slot.body;
    return nullptr;
}

const std::shared_ptr<const std::string>& RenderCache::store(const RenderKey& key, std::string body) {
    Slot& slot = m_slots[hash_of(key) % k_slots];
    slot.used = true;
    slot.turnstile = key.turnstile;
    slot.language = key.language;
    slot.key = key;
    slot.key.turnstile = slot.turnstile;
    slot.key.language = slot.language;
    slot.body = std::make_shared<const std::string>(std::move(body));
    return slot.body;
}

void RenderCache::clear() {
    for (Slot& slot : m_slots) slot.used = false;
}

} // namespace wr::page
