// Size-class free lists for nghttp2 (see h2_memory.h).
#include "edge/h2_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace wr::edge {
namespace {

// Before each block: its class (k_large for a block from malloc alone) and its room, in a header
// that keeps the block aligned as malloc's are.
struct Header {
    size_t size_class;
    size_t room;
};
constexpr size_t k_header = alignof(std::max_align_t);
static_assert(sizeof(Header) <= k_header);
constexpr size_t k_large = H2Memory::k_classes;

size_t class_of(size_t size) {
    if (size > (H2Memory::k_smallest << (H2Memory::k_classes - 1))) return k_large;
    size_t size_class = 0;
    for (size_t room = H2Memory::k_smallest; room < size; room <<= 1) ++size_class;
    return size_class;
}

size_t room_of(size_t size_class) { return H2Memory::k_smallest << size_class; }

Header& header_of(void* block) { return *reinterpret_cast<Header*>(static_cast<char*>(block) - k_header); }

} // namespace

H2Memory::H2Memory() {
    m_mem.mem_user_data = this;
    m_mem.malloc = [](size_t size, void* self) { return static_cast<H2Memory*>(self)->allocate(size); };
    m_mem.free = [](void* block, void* self) { static_cast<H2Memory*>(self)->release(block); };
    m_mem.calloc = [](size_t count, size_t size, void* self) -> void* {
        if (size != 0 && count > SIZE_MAX / size) return nullptr;
        void* block = static_cast<H2Memory*>(self)->allocate(count * size);
        if (block) std::memset(block, 0, count * size);
        return block;
    };
    m_mem.realloc = [](void* block, size_t size, void* self) { return static_cast<H2Memory*>(self)->resize(block, size); };
}

H2Memory::~H2Memory() {
    for (auto& list : m_free)
        for (void* block : list) std::free(static_cast<char*>(block) - k_header);
}

void* H2Memory::allocate(size_t size) {
    const size_t size_class = class_of(size);
    if (size_class < k_classes && !m_free[size_class].empty()) {
        void* block = m_free[size_class].back();
        m_free[size_class].pop_back();
        return block;
    }
    const size_t room = size_class < k_classes ? room_of(size_class) : size;
    if (room > SIZE_MAX - k_header) return nullptr;
    char* raw = static_cast<char*>(std::malloc(k_header + room));
    if (!raw) return nullptr;
    void* block = raw + k_header;
    new (raw) Header{size_class < k_classes ? size_class : k_large, room};
    return block;
}

void H2Memory::release(void* block) {
    if (!block) return;
    const size_t size_class = header_of(block).size_class;
    if (size_class < k_classes && m_free[size_class].size() * room_of(size_class) < k_kept_bytes) {
        m_free[size_class].push_back(block);
        return;
    }
    std::free(static_cast<char*>(block) - k_header);
}

void* H2Memory::resize(void* block, size_t size) {
    if (!block) return allocate(size);
    if (size == 0) {
        release(block);
        return nullptr;
    }
    const size_t room = header_of(block).room;
    if (size <= room) return block;
    void* grown = allocate(size);
    if (!grown) return nullptr;
    std::memcpy(grown, block, room);
    release(block);
    return grown;
}

} // namespace wr::edge
