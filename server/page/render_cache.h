#pragma once
// Remembers the last pages rendered, keyed by everything a page shows. Under load thousands of
// visitors a second see the same few states (same wait, same second, same interval), so most
// queue pages are a lookup instead of a Mustache render. Per thread, not shared.
#include <array>
#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "page/queue_view.h"

namespace wr::page {

struct RenderKey {
    const void* source = nullptr; // which template (or JSON)
    std::array<int64_t, 12> numbers{};
    uint32_t flags = 0;
    std::string_view turnstile;
    std::string_view language;

    bool operator==(const RenderKey& other) const = default;
};

// The key of a view: fields at the precision the page shows them (seconds, whole minutes).
RenderKey render_key(const QueueView& view, const void* source);

class RenderCache {
public:
    static constexpr size_t k_slots = 64;

    // Pages are shared with the answers that send them: an answer still being written keeps its
    // page when the slot is taken by another.
    const std::shared_ptr<const std::string>* find(const RenderKey& key) const;
    const std::shared_ptr<const std::string>& store(const RenderKey& key, std::string body);
    void clear();

private:
    struct Slot {
        bool used = false;
        RenderKey key;
        std::string turnstile; // owns the views the key points at
        std::string language;
        std::shared_ptr<const std::string> body;
    };
    std::array<Slot, k_slots> m_slots;
};

} // namespace wr::page
